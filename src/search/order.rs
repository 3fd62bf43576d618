//! The order in which the search tries moves.
//!
//! Alpha-beta proves a value with few nodes only when the move that
//! refutes a line comes first; the placement phase of nine is out of reach
//! in point order and within seconds with a good order (design.md
//! section 9). The order here, best first:
//!
//! 1. moves that close a mill, by the stone they remove: one that stands
//!    in the opponent's open mill (two of its stones and an empty point)
//!    first, then one that blocks a mill of the mover's, then by its
//!    number of neighbours;
//! 2. moves to the point where the opponent would close a mill next;
//! 3. moves that leave the mover with two stones and an empty point on a
//!    line (a threat), more threats first;
//! 4. points with more neighbours first (4, then 3, then 2): they block
//!    more lines and keep more room to move later.
//!
//! Ties keep the order of generation.

use crate::position::{Move, State};
use crate::rules::for_each_move;
use crate::variant::{Bits, Board, Variant};

/// A move with the rank the order gives it (larger first).
#[derive(Clone, Copy, Debug)]
pub struct Scored {
    pub rank: u32,
    pub mv: Move,
}

/// Replaces `out` with the legal moves of `state`, best first.
pub fn ordered_moves(v: &Variant, state: &State, out: &mut Vec<Scored>) {
    out.clear();
    let lines = Lines::of(v.board(), state);
    for_each_move(v, state, |mv| out.push(Scored { rank: lines.rank(v.board(), state, mv), mv }));
    out.sort_by_key(|s| std::cmp::Reverse(s.rank));
}

/// What the mills of the board look like before the move.
struct Lines {
    /// Empty points that would complete a mill of the opponent's.
    their_threats: Bits,
    /// Opponent stones on a line with another of its stones and an empty
    /// point: removing one breaks a threat.
    their_open: Bits,
}

impl Lines {
    fn of(board: &Board, state: &State) -> Lines {
        let empty = board.all() & !(state.mover | state.opponent);
        let mut lines = Lines { their_threats: 0, their_open: 0 };
        for &mill in board.mills() {
            if (state.opponent & mill).count_ones() == 2 && mill & empty != 0 {
                lines.their_threats |= mill & empty;
                lines.their_open |= mill & state.opponent;
            }
        }
        lines
    }

    fn rank(&self, board: &Board, state: &State, mv: Move) -> u32 {
        let to = mv.to;
        let neighbours = board.adjacent(to).count_ones();
        if let Some(r) = mv.remove {
            return 1 << 24 | removal_rank(self, board, state, mv, r);
        }
        let mut mover = state.mover | 1 << to;
        if let Some(from) = mv.from {
            mover &= !(1 << from);
        }
        let blocks = (self.their_threats >> to & 1) << 20;
        blocks | threats_through(board, mover, state.opponent, to) << 8 | neighbours
    }
}

/// How good a stone is to remove after `mv` closed a mill: breaking the
/// opponent's threats first, then freeing a line of the mover's, then by
/// neighbours.
fn removal_rank(lines: &Lines, board: &Board, state: &State, mv: Move, r: u8) -> u32 {
    let mut mover = state.mover | 1 << mv.to;
    if let Some(from) = mv.from {
        mover &= !(1 << from);
    }
    let breaks = (lines.their_open >> r & 1) << 16;
    let frees = board.mills().iter().filter(|&&m| m >> r & 1 == 1 && (mover & m).count_ones() == 2).count() as u32;
    breaks | frees << 8 | board.adjacent(r).count_ones()
}

/// Lines through `to` on which `mover` has two stones and the third point
/// is empty.
fn threats_through(board: &Board, mover: Bits, opponent: Bits, to: u8) -> u32 {
    board
        .mills()
        .iter()
        .filter(|&&m| m >> to & 1 == 1 && (mover & m).count_ones() == 2 && opponent & m == 0)
        .count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    fn order(text: &str) -> Vec<String> {
        let v = Variant::named("nine").unwrap();
        let p = Position::parse(text, &v).unwrap();
        let mut out = Vec::new();
        ordered_moves(&v, &p.state(), &mut out);
        out.iter().map(|s| s.mv.notation(&v)).collect()
    }

    #[test]
    fn the_empty_board_starts_with_the_four_neighbour_points() {
        let moves = order("......../......../........ w 9 9");
        assert_eq!(moves.len(), 24);
        assert_eq!(&moves[..4], ["d6", "f4", "d2", "b4"]);
        // Then the 3-neighbour midpoints of the outer and inner squares,
        // the 2-neighbour corners last.
        assert!(moves[4..12].iter().all(|m| ["d7", "g4", "d1", "a4", "d5", "e4", "d3", "c4"].contains(&m.as_str())), "{moves:?}");
        assert_eq!(moves[23], "c3");
    }

    #[test]
    fn closing_a_mill_comes_first_then_blocking() {
        // White a7 d7 b6 (g7 closes a mill), Black a1 d1 (g1 would close
        // one) and e4.
        let moves = order("WW...BB./W......./...B.... w 6 6");
        assert!(moves[0] == "g7xd1" || moves[0] == "g7xa1", "{moves:?}");
        assert_eq!(moves[2], "g7xe4", "{moves:?}");
        assert_eq!(moves[3], "g1", "{moves:?}");
    }

    #[test]
    fn threats_come_before_neighbours() {
        // White b6, Black e4: d6 and b4 (4 neighbours) and f6 and b2 (3)
        // each make two of a line with b6; f4 and d2 (4) make none.
        let moves = order("......../W......./...B.... w 8 8");
        assert_eq!(&moves[..4], ["d6", "b4", "f6", "b2"], "{moves:?}");
        assert_eq!(&moves[4..6], ["f4", "d2"], "{moves:?}");
    }
}
