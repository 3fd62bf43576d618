//! A mover set's moves, worked out once for every state that shares it.
//!
//! `init` walks a side in slot order, and the slots of one class are the
//! states of one mover set with every opponent set around it: thousands
//! of states in a row (`C(n - m, o)`) whose moves differ only in which
//! target points the opponent leaves empty. Whether a slide closes a mill
//! depends on the mover's stones alone (the mill's other two points are
//! the mover's), so the set's moves are sorted once into quiet ones,
//! counted per target point, and mill-closing ones, listed; a state then
//! counts its quiet moves with a few masked popcounts and visits only
//! the mill-closing moves whose target is empty, instead of generating
//! every move and testing each for a mill.

use crate::variant::{points, Bits, Board};

/// Bit planes of a count per point: plane `j` holds the points whose
/// count has bit `j` set. Four planes count to 15, more moves into one
/// point than any board has neighbours or any flying side has stones.
const PLANES: usize = 4;

/// The moves of one mover set (see the module's documentation).
pub(super) struct MoverMoves {
    /// The set these moves are of.
    pub(super) mover: Bits,
    /// Per target point, the moves into it that close no mill, bit-sliced.
    quiet: [Bits; PLANES],
    /// The points any move reaches.
    reach: Bits,
    /// The mill-closing moves `(from, to)`, from by from, to by to: the
    /// order in which a state's own move generation meets them.
    closing: Vec<(u8, u8)>,
}

impl MoverMoves {
    /// The moves of the empty set: none.
    pub(super) fn new() -> MoverMoves {
        MoverMoves { mover: 0, quiet: [0; PLANES], reach: 0, closing: Vec::new() }
    }

    /// Works out the moves of `mover` on `board` (flying to any empty
    /// point where `flies`), ignoring the opponent's stones.
    pub(super) fn set(&mut self, board: &Board, flies: bool, mover: Bits) {
        let open = board.all() & !mover;
        let mut counts = [0u8; 32];
        self.mover = mover;
        self.reach = 0;
        self.closing.clear();
        for from in points(mover) {
            let targets = if flies { open } else { open & board.adjacent(from) };
            self.reach |= targets;
            for to in points(targets) {
                if board.closes_mill(mover ^ (1 << from) ^ (1 << to), to) {
                    self.closing.push((from, to));
                } else {
                    counts[to as usize] += 1;
                }
            }
        }
        self.quiet = [0; PLANES];
        for to in points(open) {
            let n = counts[to as usize];
            debug_assert!(n < 1 << PLANES, "{n} moves into one point");
            for (j, plane) in self.quiet.iter_mut().enumerate() {
                *plane |= Bits::from((n >> j) & 1) << to;
            }
        }
    }

    /// Whether the mover has a move when the points `empty` are empty.
    #[inline(always)]
    pub(super) fn any(&self, empty: Bits) -> bool {
        self.reach & empty != 0
    }

    /// How many moves into the points `empty` close no mill.
    #[inline(always)]
    pub(super) fn quiet(&self, empty: Bits) -> u32 {
        self.quiet.iter().enumerate().map(|(j, &plane)| (plane & empty).count_ones() << j).sum()
    }

    /// The mill-closing moves into the points `empty`.
    #[inline(always)]
    pub(super) fn closing(&self, empty: Bits) -> impl Iterator<Item = (u8, u8)> + '_ {
        self.closing.iter().copied().filter(move |&(_, to)| empty >> to & 1 == 1)
    }
}
