//! The canonical stone sets of one size, by colex rank: a set's class
//! (its rank among the canonical sets) from one word of a bitmap and its
//! running count.

use super::{canonical_set, colex_rank, for_each_subset, BINOMIAL};
use crate::symmetry::Symmetries;
use crate::variant::Bits;

/// The canonical stone sets of one size.
pub(super) struct Classes {
    /// Canonical sets in colex order.
    pub(super) reps: Vec<Bits>,
    /// For each class, the symmetries that fix it (bit `s` for symmetry `s`).
    pub(super) stabilisers: Vec<u32>,
    /// Per 64 colex ranks: which are canonical, and how many canonical
    /// sets come before them.
    words: Vec<ClassWord>,
}

/// 64 colex ranks of [`Classes`]: bit `r` of `present` is set when the set
/// of rank `64 w + r` is canonical; `before` counts the canonical sets of
/// lower rank. The two sit side by side so that a set's class costs one
/// cache line: the solvers look one up for every edge they rank, most of
/// them from the L2 cache.
#[derive(Clone, Copy, Default)]
#[repr(align(16))]
struct ClassWord {
    present: u64,
    before: u64,
}

impl Classes {
    pub(super) fn build(syms: &Symmetries, n: u32, size: u32) -> Classes {
        let total = BINOMIAL.get(n, size);
        let mut words = vec![ClassWord::default(); (total as usize).div_ceil(64) + 1];
        let mut reps = Vec::new();
        let mut stabilisers = Vec::new();
        for_each_subset(n, size, |rank, set| {
            let (canon, stab) = canonical_set(syms, set);
            if canon == set {
                words[(rank / 64) as usize].present |= 1 << (rank % 64);
                reps.push(set);
                stabilisers.push(stab);
            }
        });
        let mut count = 0;
        for word in &mut words {
            word.before = count;
            count += word.present.count_ones() as u64;
        }
        Classes { reps, stabilisers, words }
    }

    /// The class of a canonical set.
    #[inline(always)]
    pub(super) fn class_of(&self, canonical: Bits) -> u64 {
        let r = colex_rank(canonical);
        let word = self.words[(r / 64) as usize];
        let below = word.present & ((1u64 << (r % 64)) - 1);
        word.before + below.count_ones() as u64
    }
}
