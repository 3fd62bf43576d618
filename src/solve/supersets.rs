//! The best placement of every state around one opponent set, taken from
//! its successors' side: one pass over the subsets of the free points
//! instead of a dozen ranked lookups a state.
//!
//! Around an opponent set `O` whose free points are numbered `0..n`, a
//! state is a `k`-subset `S` of them (the mover's stones) and a placement
//! on `p` leads to the `(k + 1)`-subset `S + p`. Numbered in colex order,
//! both layers split alike: first the sets without point `n - 1`, then
//! those with it. So for every `S` without `n - 1` the placement on
//! `n - 1` leads to the set at the same place in the upper layer's second
//! half, and the rest follows from the two halves one point smaller. Every
//! edge `S -> S + p` is then met once, in a loop over two arrays side by
//! side, with no set ranked: the work a state did per placement (rank the
//! successor, read its cell, order it) becomes a minimum of two numbers
//! in a loop the compiler vectorises.

use super::{prefetch, OpenMills};
use crate::index::{deposit_bits, for_each_subset, MoverFrame, BINOMIAL};
use crate::variant::Bits;

/// A thread's arrays for the states around one opponent set, reused from
/// one set to the next: per set of stones placed into, what the placement
/// is worth ([`Upper`]); per state, its best placement.
#[derive(Default)]
pub(crate) struct Layers {
    quiet: Vec<u32>,
    closing: Vec<u32>,
    mills: Vec<u32>,
    best: Vec<u32>,
}

/// What a placement that closes a mill leads to.
pub(crate) enum AfterMill<'c, F> {
    /// The capture leaves the opponent two stones: it ends the game.
    EndsTheGame,
    /// One capture successor per stone the mover may take: `frames` (the
    /// opponent less that stone, as the successor's mover) rank it among
    /// `cells`.
    Captures { frames: F, cells: &'c [u16] },
}

/// Sets placed into whose capture successors' cells are fetched and not
/// yet read: each set's are read this many sets after it was ranked, so
/// that the scattered reads overlap.
const CAPTURES_AHEAD: usize = 8;

/// The most stones a side can have on the board: the capture successors
/// of one set placed into.
const MAX_CAPTURES: usize = 12;

/// The capture successors of one set placed into (by its `rank`), their
/// cells fetched and not yet read.
#[derive(Clone, Copy)]
struct Fetched {
    rank: u32,
    len: usize,
    slots: [u64; MAX_CAPTURES],
}

impl Fetched {
    fn slots(&self) -> &[u64] {
        &self.slots[..self.len]
    }
}

impl Layers {
    /// Fills the upper layer: every set of `stones` stones among the
    /// points `free`, in colex order. A placement into it that closes no
    /// mill is worth the key of its quiet successor's cell, in `cells`
    /// at the slot `frame` (the opponent's, in the quiet successors'
    /// sector) gives it; one that closes a mill of `open` (none when a
    /// mill captures nothing) is worth the key of the best capture after
    /// it (`after_mill`). Returns how many capture successors' cells it
    /// read.
    pub(crate) fn fill<'f, 'a: 'f, F>(
        &mut self,
        free: Bits,
        stones: u32,
        (frame, cells): (&MoverFrame, &[u16]),
        open: Option<&OpenMills>,
        after_mill: AfterMill<'_, F>,
    ) -> u64
    where
        F: Iterator<Item = &'f MoverFrame<'a>> + Clone,
    {
        let n = free.count_ones();
        let size = BINOMIAL.get(n, stones) as usize;
        self.quiet.clear();
        match frame.plain_base() {
            // Around an opponent set that only the identity fixes, the
            // quiet successors are one block in the layer's colex order.
            Some(block) => {
                let block = &cells[block as usize..block as usize + size];
                self.quiet.extend(block.iter().map(|&c| key_in_bulk(c)));
            }
            // Around a symmetric one, a set and its images share one slot.
            None => {
                self.quiet.resize(size, 0);
                for_each_subset(n, stones, |rank, compact| {
                    let after = deposit_bits(compact, free);
                    self.quiet[rank as usize] = key(cells[frame.rank(after) as usize]);
                });
            }
        }
        self.mills.clear();
        self.mills.resize(size, 0);
        self.closing.clear();
        self.closing.resize(size, u32::MAX);
        let Some(open) = open else {
            return 0;
        };
        let captures = match after_mill {
            AfterMill::EndsTheGame => None,
            AfterMill::Captures { frames, cells } => Some((frames, cells)),
        };
        // The capture successors' slots of the last sets placed into:
        // ranked and fetched, then read `CAPTURES_AHEAD` sets later.
        let mut ring = [Fetched { rank: 0, len: 0, slots: [0; MAX_CAPTURES] }; CAPTURES_AHEAD];
        let mut found = 0;
        let mut read = 0;
        let open = open.compact(free);
        let mut take = |closing: &mut [u32], fetched: &Fetched, cells: &[u16]| {
            let best = fetched.slots().iter().map(|&s| key(cells[s as usize])).min();
            closing[fetched.rank as usize] = best.unwrap_or(u32::MAX);
            read += fetched.len as u64;
        };
        for_each_subset(n, stones, |rank, compact| {
            let mills = open.within(compact);
            if mills == 0 {
                return;
            }
            self.mills[rank as usize] = mills;
            let after = deposit_bits(compact, free);
            let Some((frames, cells)) = &captures else {
                self.closing[rank as usize] = ENDS_THE_GAME;
                return;
            };
            let entry = &mut ring[found % CAPTURES_AHEAD];
            if found >= CAPTURES_AHEAD {
                take(&mut self.closing, entry, cells);
            }
            found += 1;
            *entry = Fetched { rank: rank as u32, len: 0, slots: entry.slots };
            for f in frames.clone() {
                let slot = f.rank(after);
                prefetch(&cells[slot as usize]);
                entry.slots[entry.len] = slot;
                entry.len += 1;
            }
        });
        if let Some((_, cells)) = captures {
            for entry in &ring[..found.min(CAPTURES_AHEAD)] {
                take(&mut self.closing, entry, cells);
            }
        }
        read
    }

    /// Works out the best placement of every state: each set of `k`
    /// stones among the `n` points of the filled layer (of `k + 1`).
    pub(crate) fn lower(&mut self, n: u32, k: u32) {
        self.best.clear();
        self.best.resize(BINOMIAL.get(n, k) as usize, u32::MAX);
        let upper = Upper { quiet: &self.quiet, closing: &self.closing, mills: &self.mills };
        lower_to_best(n, k, &upper, &mut self.best);
    }

    /// Per state (by colex rank), the key of its best placement.
    pub(crate) fn best(&self) -> &[u32] {
        &self.best
    }
}

/// Orders successor cells by how good they are for the side that moves
/// into them, best first: a cell is the successor's value for its own
/// mover, so the best is its fastest loss (even depth), then the slowest
/// wins (odd depth), with draws between.
///
/// Without branches: a state's successors mix draws, wins and losses in
/// no order a predictor learns, and a branch on each cell read cost the
/// walk its mispredictions.
#[inline(always)]
pub(crate) fn key(cell: u16) -> u32 {
    use std::hint::select_unpredictable;
    let c = cell as u32;
    let depth = c.wrapping_sub(1);
    let decided =
        select_unpredictable(depth.is_multiple_of(2), depth, (1u32 << 18).wrapping_sub(depth));
    // A draw, between the losses and the wins.
    select_unpredictable(c == 0, 1 << 17, decided)
}

/// The key of a placement whose capture ends the game: the successor is
/// lost at once (`Loss(0)`, cell 1), the best a placement can do.
const ENDS_THE_GAME: u32 = 0;

/// [`key`] for a run of cells read in order: plain selects, which the
/// compiler turns into vector blends (the hint of `key` keeps it from
/// vectorising).
#[inline(always)]
fn key_in_bulk(cell: u16) -> u32 {
    let c = cell as u32;
    let depth = c.wrapping_sub(1);
    let decided = if depth & 1 == 0 { depth } else { (1u32 << 18).wrapping_sub(depth) };
    if c == 0 {
        1 << 17
    } else {
        decided
    }
}

/// The cell with key `k`.
#[inline(always)]
pub(crate) fn unkey(k: u32) -> u16 {
    if k == 1 << 17 {
        0
    } else if k < 1 << 17 {
        (k + 1) as u16
    } else {
        ((1 << 18) - k + 1) as u16
    }
}

/// The values of the upper layer's sets, by colex rank: what a placement
/// into the set is worth to the placing side.
struct Upper<'a> {
    /// When the placement closes no mill.
    quiet: &'a [u32],
    /// When it closes one (the best capture after it).
    closing: &'a [u32],
    /// Bit `p`: a placement on `p` into this set closes a mill.
    mills: &'a [u32],
}

impl Upper<'_> {
    /// The value of the placement on `p` into set `i`.
    #[inline(always)]
    fn value(&self, i: usize, p: u32) -> u32 {
        if self.mills[i] >> p & 1 != 0 {
            self.closing[i]
        } else {
            self.quiet[i]
        }
    }

    fn split(&self, at: usize) -> (Upper<'_>, Upper<'_>) {
        let (q0, q1) = self.quiet.split_at(at);
        let (c0, c1) = self.closing.split_at(at);
        let (m0, m1) = self.mills.split_at(at);
        (Upper { quiet: q0, closing: c0, mills: m0 }, Upper { quiet: q1, closing: c1, mills: m1 })
    }
}

/// For every `k`-subset `S` of `0..n` (by colex rank), lowers `out[S]` to
/// the smallest value of a placement from `S`: `upper.value(S + p, p)`
/// over the points `p < n` not in `S`. `upper` holds the `(k + 1)`-subsets
/// of `0..n`, `out` the `k`-subsets.
fn lower_to_best(n: u32, k: u32, upper: &Upper, out: &mut [u32]) {
    debug_assert_eq!(upper.quiet.len() as u64, BINOMIAL.get(n, k + 1));
    debug_assert_eq!(out.len() as u64, BINOMIAL.get(n, k));
    if k >= n {
        // The full set: no placement stays among the points.
        return;
    }
    if k == 0 {
        // The empty set, and every point to place on.
        let best = (0..n).map(|p| upper.value(p as usize, p)).min();
        out[0] = out[0].min(best.unwrap_or(u32::MAX));
        return;
    }
    // The two smallest cases at once rather than by halves, which would
    // spend a call on a set or two.
    if k + 1 == n {
        // The whole set above; below, the set without `q` has rank `n - 1 - q`.
        for q in 0..n {
            let i = (n - 1 - q) as usize;
            out[i] = out[i].min(upper.value(0, q));
        }
        return;
    }
    if k == 1 {
        // The pair `{a, b}` (a < b) has rank `C(b, 2) + a`; the point `a`, rank `a`.
        let mut pair = 0;
        for b in 1..n {
            for a in 0..b {
                out[a as usize] = out[a as usize].min(upper.value(pair, b));
                out[b as usize] = out[b as usize].min(upper.value(pair, a));
                pair += 1;
            }
        }
        return;
    }
    let top = n - 1;
    // Sets without the top point, below and above.
    let (lower_without, upper_without) =
        (BINOMIAL.get(top, k) as usize, BINOMIAL.get(top, k + 1) as usize);
    let (without, with) = upper.split(upper_without);
    let (out_without, out_with) = out.split_at_mut(lower_without);
    lower_to_best(top, k, &without, out_without);
    // A set without the top point, placing on it: the set of the same
    // rank among the upper layer's sets with it.
    // In lockstep over four arrays of one length, so that the compiler
    // vectorises the loop (indexing each would check its bounds).
    let lockstep = out_without.iter_mut().zip(with.quiet).zip(with.closing).zip(with.mills);
    for (((best, &quiet), &closing), &mills) in lockstep {
        *best = (*best).min(if mills >> top & 1 != 0 { closing } else { quiet });
    }
    // A set with the top point: its placements stay below it.
    lower_to_best(top, k - 1, &with, out_with);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::colex_rank;
    use crate::rng::Rng;
    use crate::value::{Cell, Value};

    /// [`key`] as it reads in words: draws between the successor's
    /// losses (fastest first) and its wins (slowest first).
    fn key_by_cases(cell: u16) -> u32 {
        match cell as u32 {
            0 => 1 << 17,
            c if (c - 1) % 2 == 0 => c - 1,
            c => (1 << 18) - (c - 1),
        }
    }

    #[test]
    fn every_cell_keys_as_the_cases_say_and_back() {
        assert_eq!(key(Cell::from(Value::Loss(0)).0), ENDS_THE_GAME);
        for cell in 0..=u16::MAX {
            assert_eq!(key(cell), key_by_cases(cell), "cell {cell}");
            assert_eq!(key_in_bulk(cell), key_by_cases(cell), "cell {cell}");
            assert_eq!(unkey(key(cell)), cell, "cell {cell}");
        }
    }

    /// Every state, every placement, each ranked on its own.
    fn by_each_placement(n: u32, k: u32, upper: &Upper) -> Vec<u32> {
        let mut out = vec![u32::MAX; BINOMIAL.get(n, k) as usize];
        for_each_subset(n, k, |rank, set| {
            for p in (0..n).filter(|p| set >> p & 1 == 0) {
                let i = colex_rank(set | 1 << p) as usize;
                out[rank as usize] = out[rank as usize].min(upper.value(i, p));
            }
        });
        out
    }

    #[test]
    fn every_placement_is_met_once_as_ranking_each_one_finds() {
        let mut rng = Rng::new(51);
        for n in 0..=14 {
            for k in 0..=n {
                let size = BINOMIAL.get(n, k + 1) as usize;
                let quiet: Vec<u32> = (0..size).map(|_| rng.below(1000) as u32).collect();
                let closing: Vec<u32> = (0..size).map(|_| rng.below(1000) as u32).collect();
                let mills: Vec<u32> = (0..size).map(|_| rng.next_u64() as u32).collect();
                let upper = Upper { quiet: &quiet, closing: &closing, mills: &mills };
                let mut out = vec![u32::MAX; BINOMIAL.get(n, k) as usize];
                lower_to_best(n, k, &upper, &mut out);
                assert_eq!(out, by_each_placement(n, k, &upper), "n {n}, k {k}");
            }
        }
    }
}
