//! Ranks of one set with each of many points added, from one sum: the
//! quiet successors of a placement, ranked in their frame
//! ([`super::MoverFrame::ranks_plus_one`]).

use super::BINOMIAL;
use crate::variant::{points, Bits};

/// The compact colex ranks of a set `S` (a subset of `free`) with one
/// point more, all from one sum. Let `S`'s points sit at places
/// `e_0 < e_1 < ...` among the points of `free`; its rank is the sum of
/// `C(e_i, i + 1)`. Add a point at place `j`, above `k` of them: the `k`
/// below keep their terms, the new point adds `C(j, k + 1)`, and each
/// point above moves up one index, to `C(e_i, i + 2)`. So with
/// `terms[k]`, the sum of the first `k` terms as they are and of the
/// others moved up, every such rank is `terms[k] + C(j, k + 1)`.
pub(super) struct PlusOne {
    set: Bits,
    free: Bits,
    terms: [u64; 33],
}

impl PlusOne {
    #[inline(always)]
    pub(super) fn of(set: Bits, free: Bits) -> PlusOne {
        let mut places = [0u32; 32];
        let mut moved_up = 0;
        for (i, p) in points(set).enumerate() {
            let e = (free & ((1 << p) - 1)).count_ones();
            places[i] = e;
            moved_up += BINOMIAL.get(e, i as u32 + 2);
        }
        let mut terms = [0u64; 33];
        let mut kept = 0;
        let size = set.count_ones() as usize;
        for (k, &e) in places[..size].iter().enumerate() {
            terms[k] = kept + moved_up;
            kept += BINOMIAL.get(e, k as u32 + 1);
            moved_up -= BINOMIAL.get(e, k as u32 + 2);
        }
        terms[size] = kept;
        PlusOne { set, free, terms }
    }

    /// The compact rank of the set with `p` (a point of `free`, not of the
    /// set) added.
    #[inline(always)]
    pub(super) fn rank(&self, p: crate::variant::Point) -> u64 {
        let below = (1 << p) - 1;
        let j = (self.free & below).count_ones();
        let k = (self.set & below).count_ones();
        self.terms[k as usize] + BINOMIAL.get(j, k + 1)
    }
}
