//! What one [`Query`](super::Query) has read from the tables, kept for a
//! while: the app player's look-ahead (`crate::game`) asks for the same
//! states again at every ply of a game, and each answer from an app set
//! costs a block of a win/draw/loss table decompressed (or, in a derived
//! sector, the values of every successor).

use crate::database::Stored;
use crate::fold_hash::FoldMap;
use crate::position::State;

/// States remembered, of each kind, before the memo starts again empty:
/// some 8 MiB a query.
const MEMO_STATES: usize = 1 << 18;

/// Table answers by state. A database's files do not change under it, so
/// an answer stays true; errors are not kept.
#[derive(Default)]
pub(super) struct Memo {
    stored: FoldMap<State, Stored>,
    progress: FoldMap<State, Option<u32>>,
}

impl Memo {
    /// The stored value of `state`, from the memo or else from `read`.
    pub(super) fn stored<E>(
        &mut self,
        state: &State,
        read: impl FnOnce() -> Result<Stored, E>,
    ) -> Result<Stored, E> {
        remembered(&mut self.stored, state, read)
    }

    /// The progress depth of `state`, from the memo or else from `read`.
    pub(super) fn progress<E>(
        &mut self,
        state: &State,
        read: impl FnOnce() -> Result<Option<u32>, E>,
    ) -> Result<Option<u32>, E> {
        remembered(&mut self.progress, state, read)
    }
}

fn remembered<T: Copy, E>(
    map: &mut FoldMap<State, T>,
    state: &State,
    read: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    if let Some(&known) = map.get(state) {
        return Ok(known);
    }
    let value = read()?;
    if map.len() >= MEMO_STATES {
        map.clear();
    }
    map.insert(*state, value);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn state(n: u32) -> State {
        State { mover: n, opponent: 0, mover_hand: 0, opponent_hand: 0 }
    }

    #[test]
    fn reads_a_state_once_and_keeps_no_error() {
        let mut memo = Memo::default();
        let win = Stored::Exact(Value::Win(3));
        assert_eq!(memo.stored(&state(1), || Err("unreadable")), Err("unreadable"));
        assert_eq!(memo.stored(&state(1), || Ok::<_, ()>(win)), Ok(win));
        // Kept: a second read would say otherwise.
        assert_eq!(memo.stored(&state(1), || Ok::<_, ()>(Stored::Exact(Value::Draw))), Ok(win));
        assert_eq!(memo.progress(&state(1), || Ok::<_, ()>(Some(5))), Ok(Some(5)));
        assert_eq!(memo.progress(&state(1), || Ok::<_, ()>(None)), Ok(Some(5)));
    }

    #[test]
    fn starts_again_when_full() {
        let mut memo = Memo::default();
        for n in 0..MEMO_STATES as u32 {
            memo.stored(&state(n), || Ok::<_, ()>(Stored::Exact(Value::Draw))).unwrap();
        }
        assert_eq!(memo.stored.len(), MEMO_STATES);
        let win = Stored::Exact(Value::Win(1));
        memo.stored(&state(MEMO_STATES as u32), || Ok::<_, ()>(win)).unwrap();
        assert_eq!(memo.stored.len(), 1);
        assert_eq!(memo.stored(&state(0), || Ok::<_, ()>(win)), Ok(win));
    }
}
