//! The order in which the search tries moves.
//!
//! Alpha-beta proves a value with few nodes only when the move that
//! refutes a line comes first; the placement phase of nine is out of reach
//! in point order and within seconds with a good order (docs/design.md,
//! section 9; the measurements are in docs/benchmarks.md). The order
//! here, best first:
//!
//! 1. moves that close a mill (each removal in point order);
//! 2. points with more neighbours (4, then 3, then 2): they sit on more
//!    lines, block more of the opponent's and keep room to move later;
//! 3. among points with as many neighbours, those that leave the mover
//!    more lines of two stones and an empty point (threats);
//! 4. then a point where the opponent would close a mill next.
//!
//! Ties keep the order of generation. Measured on nine's board with 5
//! and 6 stones a side (`examples/bench_search.rs`, nodes to prove the
//! draw of 5 against 6 / 6 against 5): mills first and then point order,
//! 1,505 k / 706 k nodes; then neighbours, 96 k / 46 k; with threats and
//! blocks as tie-breaks (this order), 83 k / 41 k. Putting blocks or
//! threats before neighbours cost 5 times the nodes (501 k / 112 k), and
//! ordering removals by the opponent's threats they break cost 10 % more
//! than point order.

use crate::position::{Move, State};
use crate::rules::for_each_move;
use crate::variant::{Bits, Board, Variant};

/// A move with the rank the order gives it (larger first).
#[derive(Clone, Copy, Debug)]
pub struct Scored {
    /// The move's rank: larger is tried first.
    pub rank: u32,
    /// The move.
    pub mv: Move,
}

/// Replaces `out` with the legal moves of `state`, best first.
pub fn ordered_moves(v: &Variant, state: &State, out: &mut Vec<Scored>) {
    out.clear();
    let board = v.board();
    let their_threats = threats(board, state.opponent, state.mover);
    for_each_move(v, state, |mv| {
        out.push(Scored { rank: rank(board, state, their_threats, mv), mv })
    });
    out.sort_by_key(|s| std::cmp::Reverse(s.rank));
}

/// The rank of `mv`; `their_threats` are the empty points that would
/// complete a mill of the opponent's.
fn rank(board: &Board, state: &State, their_threats: Bits, mv: Move) -> u32 {
    if mv.remove.is_some() {
        return 1 << 24;
    }
    let to = mv.to;
    let mut mover = state.mover | 1 << to;
    if let Some(from) = mv.from {
        mover &= !(1 << from);
    }
    let neighbours = board.adjacent(to).count_ones();
    let made = lines_of_two_through(board, mover, state.opponent, to);
    neighbours << 8 | made << 4 | (their_threats >> to & 1)
}

/// Empty points that would complete a mill of `own` (whose opponent holds
/// `other`).
fn threats(board: &Board, own: Bits, other: Bits) -> Bits {
    let empty = board.all() & !(own | other);
    board
        .mills()
        .iter()
        .filter(|&&m| (own & m).count_ones() == 2 && m & empty != 0)
        .fold(0, |acc, &m| acc | (m & empty))
}

/// Lines through `to` on which `own` has two stones and the third point
/// is empty (not held by `other`).
fn lines_of_two_through(board: &Board, own: Bits, other: Bits, to: u8) -> u32 {
    board
        .mills()
        .iter()
        .filter(|&&m| m >> to & 1 == 1 && (own & m).count_ones() == 2 && other & m == 0)
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
        assert!(
            moves[4..12]
                .iter()
                .all(|m| ["d7", "g4", "d1", "a4", "d5", "e4", "d3", "c4"].contains(&m.as_str())),
            "{moves:?}"
        );
        assert_eq!(moves[23], "c3");
    }

    #[test]
    fn closing_a_mill_comes_first() {
        // White a7 d7 b6 (g7 closes a mill), Black a1 d1 (g1 would close
        // one) and e4.
        let moves = order("WW...BB./W......./...B.... w 6 6");
        assert_eq!(&moves[..3], ["g7xd1", "g7xa1", "g7xe4"], "{moves:?}");
        assert!(moves[3..].iter().all(|m| !m.contains('x')), "{moves:?}");
    }

    #[test]
    fn threats_and_blocks_break_ties_between_points_with_as_many_neighbours() {
        // White b6, Black e4: d6 and b4 (4 neighbours) make two of a line
        // with b6, f4 and d2 (4) make none; of the corners (2), f6 and b2
        // make one.
        let moves = order("......../W......./...B.... w 8 8");
        assert_eq!(&moves[..4], ["d6", "b4", "f4", "d2"], "{moves:?}");
        assert_eq!(&moves[11..13], ["f6", "b2"], "{moves:?}");
        // Black d1 a1 threaten g1 (a corner); White b6 and d5 make lines
        // of two with the corners f6, b2, c5 and e5. Of the other corners,
        // the block on g1 comes first.
        let moves = order(".....BB./W......./.W...... w 7 7");
        let corners: Vec<&String> = moves
            .iter()
            .filter(|m| ["a7", "g7", "g1", "f2", "e3", "c3"].contains(&m.as_str()))
            .collect();
        assert_eq!(corners[0], "g1", "{moves:?}");
    }
}
