//! The best placement of every state around one opponent set, handed down
//! from the sets of stones placed into, one block of their colex order at
//! a time.
//!
//! Number the points free of the opponent's stones `0..n`. A state is a
//! `k`-subset of them (the mover's stones), and a placement on `p` leads
//! to the `(k + 1)`-subset with `p`. In colex order the `(k + 1)`-subsets
//! whose highest point is `t` are one block, and inside it they run in the
//! order of their other `k` points, the `k`-subsets of `0..t`: the first
//! `C(t, k)` states, in the same order. So the placements on `t` of all
//! those states are one pass over two runs of one length. A placement on
//! a lower point leaves `t` the highest, and so leads from the block of
//! states whose highest point is `t`: the same problem over the block,
//! one point and one stone smaller. Every placement is met once and none
//! is ranked; where each set placed into handed its worth to its `k + 1`
//! states one by one, ranking each, the check spent half its time there.

use crate::index::BINOMIAL;
use crate::variant::Bits;

/// What a placement into each set of stones is worth to the placing side
/// (a key: the largest is the best), by the set's colex rank.
#[derive(Clone, Copy)]
pub(super) struct PlacedWorth<'a> {
    /// Where the stone placed last closes no mill: its quiet successor.
    pub(super) quiet: &'a [u32],
    /// Where it closes one: the best capture after it.
    pub(super) capture: &'a [u32],
    /// Bit `p`: a stone placed last on `p` closes a mill.
    pub(super) closing: &'a [Bits],
}

impl PlacedWorth<'_> {
    /// The worth of the set of rank `i` with its stone on `p` placed last.
    #[inline(always)]
    fn of(&self, i: usize, p: u32) -> u32 {
        match self.closing[i] >> p & 1 {
            0 => self.quiet[i],
            _ => self.capture[i],
        }
    }

    /// The sets of ranks `from..from + len`.
    fn block(&self, from: usize, len: usize) -> PlacedWorth<'_> {
        let to = from + len;
        PlacedWorth {
            quiet: &self.quiet[from..to],
            capture: &self.capture[from..to],
            closing: &self.closing[from..to],
        }
    }
}

/// Raises `best[S]`, for every `k`-subset `S` of `0..n` by colex rank, to
/// the largest worth of a placement from it: `worth` of the set `S` with
/// `p` added, `p` placed last, over the points `p < n` not in `S`.
/// `worth` holds the `(k + 1)`-subsets of `0..n`.
pub(super) fn hand_down(n: u32, k: u32, worth: &PlacedWorth, best: &mut [u32]) {
    debug_assert_eq!(worth.quiet.len() as u64, BINOMIAL.get(n, k + 1));
    debug_assert_eq!(best.len() as u64, BINOMIAL.get(n, k));
    if k == 0 {
        // The empty set: a placement on `t` leads to `{t}`, of rank `t`.
        for t in 0..n {
            best[0] = best[0].max(worth.of(t as usize, t));
        }
        return;
    }
    if k == 1 {
        // `{a, t}` (a < t) has rank `C(t, 2) + a`, and `{a}` rank `a`.
        let mut pair = 0;
        for t in 1..n {
            for a in 0..t {
                best[a as usize] = best[a as usize].max(worth.of(pair, t));
                best[t as usize] = best[t as usize].max(worth.of(pair, a));
                pair += 1;
            }
        }
        return;
    }
    for t in k..n {
        // The sets placed into whose highest point is `t`, and the states
        // they come from by a placement on `t`, in the same order.
        let len = BINOMIAL.get(t, k) as usize;
        let block = worth.block(BINOMIAL.get(t, k + 1) as usize, len);
        // Four runs of one length side by side, so that the compiler
        // vectorises the loop.
        let runs = best[..len].iter_mut().zip(block.quiet).zip(block.capture).zip(block.closing);
        for (((best, &quiet), &capture), &closing) in runs {
            *best = (*best).max(if closing >> t & 1 != 0 { capture } else { quiet });
        }
        // A placement below `t`: from the states whose highest point is `t`.
        let states = BINOMIAL.get(t, k - 1) as usize;
        hand_down(t, k - 1, &block, &mut best[len..len + states]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{colex_rank, for_each_subset};
    use crate::rng::Rng;

    /// Every state, every placement, each set placed into ranked on its own.
    fn by_each_placement(n: u32, k: u32, worth: &PlacedWorth) -> Vec<u32> {
        let mut best = vec![0; BINOMIAL.get(n, k) as usize];
        for_each_subset(n, k, |rank, set| {
            for p in (0..n).filter(|p| set >> p & 1 == 0) {
                let placed = colex_rank(set | 1 << p) as usize;
                best[rank as usize] = best[rank as usize].max(worth.of(placed, p));
            }
        });
        best
    }

    #[test]
    fn every_placement_is_handed_down_as_ranking_each_finds() {
        let mut rng = Rng::new(7);
        for n in 0..=14 {
            for k in 0..=n {
                let size = BINOMIAL.get(n, k + 1) as usize;
                let mut values = || (0..size).map(|_| rng.below(1000) as u32).collect::<Vec<_>>();
                let (quiet, capture) = (values(), values());
                let closing: Vec<Bits> = (0..size).map(|_| rng.next_u64() as Bits).collect();
                let worth = PlacedWorth { quiet: &quiet, capture: &capture, closing: &closing };
                let mut best = vec![0; BINOMIAL.get(n, k) as usize];
                hand_down(n, k, &worth, &mut best);
                assert_eq!(best, by_each_placement(n, k, &worth), "n {n}, k {k}");
            }
        }
    }
}
