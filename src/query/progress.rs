//! The app set's player: in a won or lost state of a cyclic pair, the
//! move the progress tier picks (`crate::progress` has the tier and the
//! proof that this player wins every won state).

use super::{MoveValue, Query, QueryError};
use crate::index::Sector;
use crate::position::State;
use crate::rules::{legal_moves, play};
use crate::solve::{is_cyclic, MovingPair};
use crate::value::Value;

impl Query<'_> {
    /// In an app set (`morris export --app`), the move the progress tier
    /// picks in a won or lost state of a cyclic pair (`crate::progress`):
    /// the first of [`Query::progress_moves`]. `None` where the tier does
    /// not apply.
    pub(super) fn progress_move(
        &self,
        state: &State,
        value: Value,
    ) -> Result<Option<MoveValue>, QueryError> {
        Ok(self.progress_moves(state, value)?.and_then(|moves| moves.first().map(|m| m.0)))
    }

    /// In an app set, the moves of a won or lost state of a cyclic pair
    /// that keep its outcome, each with its progress key, best first
    /// (ties in the order of [`legal_moves`]). The winner's moves lead into
    /// states lost for the opponent: one that leaves the pair (a capture
    /// or placement) has key 0, a slide the progress depth of the state it
    /// leads to (one ply over that state's replies), and the least key is
    /// the state's own depth less one. The loser's moves are all, keyed by
    /// the progress depth of the state they lead to (1 out of the pair),
    /// the deepest first. `None` where the tier does not apply: not an app
    /// set, a draw, a sector where play cannot go round in circles
    /// (keeping the value is enough there: every move places a stone).
    pub fn progress_moves(
        &self,
        state: &State,
        value: Value,
    ) -> Result<Option<Vec<(MoveValue, u32)>>, QueryError> {
        let sector = Sector::of(state);
        if value == Value::Draw || !is_cyclic(self.variant(), sector) || !self.db.is_app_set() {
            return Ok(None);
        }
        let pair = MovingPair::of(sector).sectors();
        let in_pair = |s: &State| s.mover_stones() >= 3 && pair.contains(&Sector::of(s));
        let wins = matches!(value, Value::Win(_));
        let mut moves = Vec::new();
        for mv in legal_moves(self.variant(), state) {
            let next = play(state, mv);
            let (after, exactness) = self.state_value(&next)?;
            let mine = MoveValue { mv, value: after.back(), exactness };
            if wins {
                if !matches!(after, Value::Loss(_)) {
                    continue;
                }
                // Progress into a state lost for the opponent, or a slide
                // to one.
                let key = match in_pair(&next) {
                    true => self.lost_progress_depth(&next, &in_pair)?,
                    false => 0,
                };
                moves.push((mine, key));
            } else {
                // The opponent wins from every result; in the pair at its
                // progress depth, out of it at once (a win in one).
                let key = match in_pair(&next) {
                    true => self.won_progress_depth(&next)?,
                    false => 1,
                };
                moves.push((mine, key));
            }
        }
        match wins {
            true => moves.sort_by_key(|&(_, key)| key),
            false => moves.sort_by_key(|&(_, key)| std::cmp::Reverse(key)),
        }
        Ok(Some(moves))
    }

    /// The progress depth of a won state of a cyclic pair in an app set.
    fn won_progress_depth(&self, state: &State) -> Result<u32, QueryError> {
        let depth = self.memo.borrow_mut().progress(state, || self.db.progress_depth(state))?;
        Ok(depth.expect("a state of a cyclic pair in an app set"))
    }

    /// The progress depth of a lost state `q` of a cyclic pair: its
    /// deepest reply's plus one, a reply that leaves the pair (into a
    /// state won for the other side) counting as a win in one; 0 with no
    /// reply.
    fn lost_progress_depth(
        &self,
        q: &State,
        in_pair: &impl Fn(&State) -> bool,
    ) -> Result<u32, QueryError> {
        let mut deepest: Option<u32> = None;
        for reply in legal_moves(self.variant(), q) {
            let next = play(q, reply);
            let depth = match in_pair(&next) {
                true => self.won_progress_depth(&next)?,
                false => 1,
            };
            deepest = Some(deepest.map_or(depth, |d| d.max(depth)));
        }
        Ok(deepest.map_or(0, |d| d + 1))
    }
}
