//! Keyed cells: each cell turned, once per table, into a key whose
//! largest value among a state's successors is the state's best move, so
//! that a successor costs one comparison; and the best successor found.

use super::*;

/// A cell as the key its predecessors compare: the larger the key, the
/// better the successor is for the player who moved into it. A state's
/// recomputed cell then follows from the largest key among its
/// successors alone, one comparison a successor where the cells need
/// three; the keys are made once per table, as it is read.
///
/// A successor's odd cell `2j + 1` (its loss at depth `2j`) is a win for
/// the mover, the faster the better: keys 65,535 down to 32,768. A draw
/// (0) is 32,767. An even cell `2j` (its win) is a loss for the mover,
/// the slower the better: keys 0 up to 32,766. Every cell has its own key.
#[inline(always)]
pub fn cell_key(cell: u16) -> u16 {
    let j = cell >> 1;
    match (cell & 1 == 1, cell) {
        (true, _) => u16::MAX - j,
        (false, 0) => DRAW_KEY,
        (false, _) => j - 1,
    }
}

/// The key of a draw: between the wins' keys and the losses'.
pub(super) const DRAW_KEY: u16 = 32_767;

/// The cell whose key is `key` (the inverse of [`cell_key`]).
#[inline(always)]
pub fn cell_of_key(key: u16) -> u16 {
    match key {
        DRAW_KEY => 0,
        k if k > DRAW_KEY => 2 * (u16::MAX - k) + 1,
        k => 2 * (k + 1),
    }
}

/// A state's recomputed cell from the largest key among its successors:
/// one ply further from the end than that successor (a draw stays a
/// draw). Wider than a cell, as [`Best::cell`]'s.
#[inline(always)]
pub(super) fn parent_of_key(key: u32) -> u32 {
    let best = u32::from(cell_of_key(key as u16));
    best + u32::from(best != 0)
}

/// Turns every cell of `cells` into its key ([`cell_key`]).
pub fn key_cells(cells: &mut [u16]) {
    cells.par_chunks_mut(CHUNK as usize).for_each(|chunk| {
        for c in chunk {
            *c = cell_key(*c);
        }
    });
}

/// The value of a recomputed cell, for the report.
pub(super) fn value_of_cell(cell: u32) -> Value {
    match u16::try_from(cell) {
        Ok(c) => Value::from(Cell(c)),
        // Only a depth one past the deepest a cell holds gets here.
        Err(_) => Value::from(Cell(u16::MAX)),
    }
}

/// The best of a state's successors so far, in cells: a successor's odd
/// cell `c` is its loss at depth `c - 1`, so a win at `c` for the state; an
/// even one its win, so a loss at `c`; zero a draw.
///
/// Over keyed cells ([`key_cells`]) the best is simply the largest key.
pub(super) struct Best {
    pub(super) fastest_win: u32,
    pub(super) deepest_loss: u32,
    pub(super) can_draw: bool,
    /// Whether the successors' cells are keyed: then only `key` is used.
    pub(super) keyed: bool,
    /// The largest key so far (0, the lowest, before any).
    pub(super) key: u32,
}

impl Best {
    pub(super) fn new(keyed: bool) -> Best {
        Best { fastest_win: u32::MAX, deepest_loss: 0, can_draw: false, keyed, key: 0 }
    }

    /// Takes one successor's cell into account, without branches on its
    /// value, so a batch of reads is not held up by mispredictions.
    #[inline(always)]
    pub(super) fn add(&mut self, c: u32) {
        let odd = c & 1 == 1;
        self.fastest_win = self.fastest_win.min(if odd { c } else { u32::MAX });
        self.deepest_loss = self.deepest_loss.max(if odd { 0 } else { c });
        self.can_draw |= c == 0;
    }

    /// The state's cell, once there was at least one successor: the
    /// fastest win, else a draw, else the slowest loss, each one ply
    /// further from the end than its successor.
    #[inline]
    pub(super) fn cell(&self) -> u32 {
        if self.keyed {
            return parent_of_key(self.key);
        }
        if self.fastest_win != u32::MAX {
            self.fastest_win + 1
        } else if self.can_draw {
            0
        } else {
            self.deepest_loss + 1
        }
    }
}
