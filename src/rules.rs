//! The rules: legal moves, their effect, the end of the game, and the
//! un-moves that retrograde analysis walks backwards.

use crate::position::{Move, State};
use crate::variant::{points, Bits, Point, Variant};

/// How a game stands when the side to move is to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The game goes on.
    Playing,
    /// The side to move has lost: fewer than 3 stones, or no legal move.
    Lost,
    /// A full board at the end of placement, where the variant calls it a draw.
    Drawn,
}

/// Whether the side to move may place a stone.
fn may_place(state: &State) -> bool {
    state.mover_hand > 0
}

/// Whether the side to move may slide or fly a stone.
fn may_move(v: &Variant, state: &State) -> bool {
    state.mover_hand == 0 || v.move_while_placing()
}

/// Where the stone at `from` may go: adjacent empty points, or every empty
/// point when the mover flies.
#[inline]
pub fn destinations(v: &Variant, state: &State, from: Point) -> Bits {
    let empty = v.board().all() & !(state.mover | state.opponent);
    if v.flies(state.mover.count_ones(), state.mover_hand as u32) {
        empty
    } else {
        empty & v.board().adjacent(from)
    }
}

/// Calls `f` with every legal move of the side to move. A move that closes
/// a mill appears once per stone it may remove.
pub fn for_each_move(v: &Variant, state: &State, mut f: impl FnMut(Move)) {
    if state.mover_stones() < 3 {
        return;
    }
    let board = v.board();
    let empty = board.all() & !(state.mover | state.opponent);
    let removable = board.removable(state.opponent);
    let mut emit = |from: Option<Point>, to: Point, own_after: Bits| {
        if board.closes_mill(own_after, to) && removable != 0 {
            for r in points(removable) {
                f(Move { from, to, remove: Some(r) });
            }
        } else {
            f(Move { from, to, remove: None });
        }
    };
    if may_place(state) {
        for to in points(empty) {
            emit(None, to, state.mover | 1 << to);
        }
    }
    if may_move(v, state) {
        for from in points(state.mover) {
            for to in points(destinations(v, state, from)) {
                emit(Some(from), to, state.mover ^ (1 << from) ^ (1 << to));
            }
        }
    }
}

/// Every legal move, in generation order.
pub fn legal_moves(v: &Variant, state: &State) -> Vec<Move> {
    let mut moves = Vec::new();
    for_each_move(v, state, |m| moves.push(m));
    moves
}

/// The state after `m`, seen from the other side (who is then to move).
/// `m` must be legal in `state`.
#[inline]
pub fn play(state: &State, m: Move) -> State {
    let mut mover = state.mover | 1 << m.to;
    let mut hand = state.mover_hand;
    match m.from {
        Some(from) => mover &= !(1 << from),
        None => hand -= 1,
    }
    let opponent = match m.remove {
        Some(r) => state.opponent & !(1 << r),
        None => state.opponent,
    };
    State { mover: opponent, opponent: mover, mover_hand: state.opponent_hand, opponent_hand: hand }
}

/// Whether the game is over in `state`, and how.
pub fn status(v: &Variant, state: &State) -> Status {
    if state.mover_stones() < 3 {
        return Status::Lost;
    }
    let mut any = false;
    for_each_move(v, state, |_| any = true);
    if any {
        Status::Playing
    } else if v.full_board_draw() && state.mover | state.opponent == v.board().all() {
        Status::Drawn
    } else {
        Status::Lost
    }
}

/// Calls `f` with every state that reaches `state` (a moving-phase state)
/// by a slide or fly of the other side that closes no mill. These are the
/// predecessors inside a sector pair.
#[inline]
pub fn for_each_quiet_unmove(v: &Variant, state: &State, mut f: impl FnMut(State)) {
    debug_assert!(state.is_moving_phase());
    let board = v.board();
    let empty = board.all() & !(state.mover | state.opponent);
    let last_mover = state.opponent;
    let flies = v.flies(last_mover.count_ones(), 0);
    for to in points(last_mover) {
        // A stone that stands in a mill would have closed it on arrival.
        if board.closes_mill(last_mover, to) {
            continue;
        }
        let origins = if flies { empty } else { empty & board.adjacent(to) };
        for from in points(origins) {
            f(State {
                mover: last_mover ^ (1 << to) ^ (1 << from),
                opponent: state.mover,
                mover_hand: 0,
                opponent_hand: 0,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    #[test]
    fn start_of_nine_has_24_placements() {
        let v = Variant::named("nine").unwrap();
        assert_eq!(legal_moves(&v, &Position::start(&v).state()).len(), 24);
    }

    #[test]
    fn closing_two_mills_removes_one_stone() {
        let v = Variant::named("nine").unwrap();
        // White a7 d7 . and a1 a4: g7 closes one mill; moving to a7... use placement at a7
        // with d7 g7 and a4 a1 on the board closes two mills at once.
        let p = Position::parse(".WW...WW/......../.......B w 5 5", &v)
            .unwrap_or_else(|e| panic!("{e}"));
        let moves = legal_moves(&v, &p.state());
        let at_a7: Vec<_> = moves.iter().filter(|m| m.to == 0).collect();
        assert_eq!(at_a7.len(), 1, "one removal of the single black stone: {at_a7:?}");
        assert_eq!(at_a7[0].remove, Some(23));
    }

    #[test]
    fn stones_in_mills_are_protected_unless_all_are() {
        let v = Variant::named("nine").unwrap();
        // Black has a mill a7 d7 g7 and a stone at b6; White closes c5-d5-e5.
        let p = Position::parse("BBB...../B......./WW.W.... w 0 0", &v).unwrap();
        let removals: Vec<_> =
            legal_moves(&v, &p.state()).into_iter().filter_map(|m| m.remove).collect();
        assert!(!removals.is_empty());
        assert!(removals.iter().all(|&r| r == 8), "{removals:?}");
    }

    #[test]
    fn no_legal_move_loses_and_full_twelve_board_draws() {
        let nine = Variant::named("nine").unwrap();
        // White's four corners are boxed in by Black's midpoints; four stones do not fly.
        let p = Position::parse("WBWBWBWB/......../........ w 0 0", &nine).unwrap();
        assert_eq!(status(&nine, &p.state()), Status::Lost);
        let p = Position::parse("WBWBWBWB/......../........ b 0 0", &nine).unwrap();
        assert_eq!(status(&nine, &p.state()), Status::Playing);
        let twelve = Variant::named("twelve").unwrap();
        let full = "WBWBWBWB/BWBWBWBW/WBWBWBWB w 0 0";
        let p = Position::parse(full, &twelve).unwrap();
        assert_eq!(status(&twelve, &p.state()), Status::Drawn);
    }

    #[test]
    fn a_side_with_two_stones_has_lost() {
        let v = Variant::named("nine").unwrap();
        let s = State { mover: 0b11, opponent: 0b111 << 8, mover_hand: 0, opponent_hand: 0 };
        assert_eq!(status(&v, &s), Status::Lost);
    }
}
