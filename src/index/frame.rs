//! Frames: the slots of the positions of a sector whose mover holds one
//! stone set, ranked by the opponent's stones alone once the mover's set
//! is canonicalised. Many positions a walk ranks share a mover set (a
//! state's quiet successors, its captures of one stone): the frame pays
//! for the symmetries once and each position is then one image and a
//! compact rank.

use super::plus_one::PlusOne;
use super::{canonical_set, compact_rank, Images, Indexer, SectorIndex};
use crate::variant::{points, Bits};

/// The slots of the positions of one sector whose mover holds the same
/// stones. Every quiet move of a state (mover `M`, opponent `O`) leads to
/// a state whose mover is `O`, so the forward check canonicalises `O`
/// once and then ranks each successor with one symmetry image (more only
/// when `O` is symmetric) and a compact rank, instead of the group's
/// sixteen images per successor.
#[derive(Clone, Copy)]
pub struct MoverFrame<'a> {
    ix: &'a Indexer,
    /// The first slot of the mover's class.
    base: u64,
    /// The points free of the canonical mover set.
    free: Bits,
    /// The symmetries that send the mover set to its canonical form.
    which: u32,
}

impl<'a> SectorIndex<'a> {
    /// The frame of the positions of this sector whose mover is `mover`.
    #[inline]
    pub fn frame(&self, mover: Bits) -> MoverFrame<'a> {
        debug_assert_eq!(mover.count_ones(), self.m);
        let (canonical, which) = canonical_set(&self.ix.syms, mover);
        MoverFrame {
            ix: self.ix,
            base: self.classes.class_of(canonical) * self.per_class,
            free: self.ix.all & !canonical,
            which,
        }
    }
}

impl MoverFrame<'_> {
    /// The slot of the position with the frame's mover and `opponent`:
    /// the same as [`SectorIndex::rank`].
    #[inline]
    pub fn rank(&self, opponent: Bits) -> u64 {
        self.base + compact_rank(self.ix.min_image(opponent, self.which), self.free)
    }

    /// Whether the frame's mover is canonical and fixed by no symmetry
    /// but the identity, so that its ranks apply no symmetry.
    #[inline]
    pub fn is_plain(&self) -> bool {
        self.which == 1
    }

    /// For a plain frame, the slot of the position whose opponent set is
    /// the first of its size among the points free of the mover: the
    /// others follow in colex order of those points, so the frame's
    /// positions are one block of the sector.
    #[inline]
    pub fn plain_base(&self) -> Option<u64> {
        self.is_plain().then_some(self.base)
    }

    /// For every point `p` of `targets` (points free of the mover and of
    /// `opponent`), into `slots[p]`: the slot of the position with
    /// `opponent` plus `p`, `rank(opponent | 1 << p)`. For a plain frame,
    /// whose canonical form needs no symmetry, the terms that all these
    /// ranks share are summed once (`PlusOne`) and each rank is then two
    /// masked popcounts and two lookups in small tables, where ranking
    /// each set on its own took a `pext` and three lookups in the 77 KiB
    /// byte tables (which do not stay in the L1 cache).
    #[inline]
    pub fn ranks_plus_one(&self, opponent: Bits, targets: Bits, slots: &mut [u64; 32]) {
        if !self.is_plain() {
            for p in points(targets) {
                slots[p as usize] = self.rank(opponent | 1 << p);
            }
            return;
        }
        // A plain frame's mover is its canonical set: the points free of it
        // are the frame's.
        debug_assert!(targets & !(self.free & !opponent) == 0);
        let plus = PlusOne::of(opponent, self.free);
        for p in points(targets) {
            slots[p as usize] = self.base + plus.rank(p);
        }
    }
}

/// The frame of a mover set given by its images under the group (a
/// [`super::PointImages`] vector): the same slots as [`MoverFrame`], each
/// opponent set ranked from its images by picking the canonical lane, with
/// no symmetry applied. A state's captures of one stone share it over all
/// of the state's mill-closing moves.
#[derive(Clone, Copy, Debug, Default)]
pub struct ImagesFrame {
    /// The first slot of the mover's class.
    base: u64,
    /// The mover's class: the frame's positions are the slots
    /// `class * per_class..(class + 1) * per_class`.
    class: u32,
    /// The points free of the canonical mover set.
    free: Bits,
    /// The lanes (symmetries) that send the mover set to its canonical form.
    which: u32,
}

impl SectorIndex<'_> {
    /// The frame of the positions of this sector whose mover set has the
    /// images `mover`.
    #[inline(always)]
    pub fn images_frame(&self, mover: &Images) -> ImagesFrame {
        let lanes = self.ix.images.as_ref().map_or(1, |i| i.lanes);
        let (m, which) = mover.smallest();
        let class = self.classes.class_of(m);
        ImagesFrame {
            base: class * self.per_class,
            class: class as u32,
            free: self.ix.all & !m,
            which: which & lanes,
        }
    }
}

impl ImagesFrame {
    /// The class of the frame's mover set, whose slots hold every
    /// position the frame ranks.
    #[inline(always)]
    pub fn class(&self) -> u32 {
        self.class
    }

    /// The slot of the position with the frame's mover and the opponent
    /// set whose images are `opponent`: the same as
    /// [`SectorIndex::rank_images`].
    #[inline(always)]
    pub fn rank(&self, opponent: &Images) -> u64 {
        self.base + compact_rank(opponent.smallest_of(self.which), self.free)
    }
}
