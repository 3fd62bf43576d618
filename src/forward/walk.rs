//! The walk by the opponent's stones that both fast checks share: the
//! states around one opponent set, their own cells fetched together, and
//! their successors gathered in batches ranked in frames made once per
//! opponent set, prefetched before any is read.

use super::keys::*;
use super::*;
use crate::index::{deposit_bits, for_each_subset};
use crate::variant::points;
use std::sync::atomic::Ordering;

/// Checks every canonical state of `sector` against `own`, its stored
/// cells, with the successors `gather` ranks from the frames `frames`
/// makes of the state's opponent stones; returns what it found and the
/// counts of `own`.
///
/// The sector is walked by the opponent's stones: for each canonical
/// opponent set, every mover set around it (the smallest of those a
/// symmetry fixing the opponent maps onto each other). The successors of
/// all these states share their movers (the opponent set, or it less a
/// captured stone), so their frames are made once and their cells come
/// from a few blocks of their tables that stay in cache, where slot
/// order would scatter them. The state's own cell is the one scattered
/// read: the states are taken [`AHEAD`] at a time, their own slots ranked
/// (from the opponent's images, made once) and fetched first, so the
/// reads overlap with each other and with the successors' ranking.
/// `own` holds cells as `tier` stores them, and so do the successors'.
pub(super) fn check_by_opponent<F, G: Resolve>(
    v: &Variant,
    ix: &Indexer,
    sector: Sector,
    (own, tier, keyed): (&[u16], Tier, bool),
    frames: impl Fn(Bits) -> F + Sync,
    gathered: impl Fn() -> G + Sync,
    gather: impl Fn(Bits, u64, &F, &mut G) + Sync,
) -> (SectorCheck, Counts) {
    walk_by_opponent(v, ix, sector, (&Compare(own, keyed), tier), frames, gathered, gather)
}

/// What [`walk_by_opponent`] does with each state's recomputed cell.
pub(super) trait Sink: Sync {
    /// Slots of the sector's own cells.
    fn len(&self) -> usize;
    /// Hints that the cell of `slot` comes next.
    fn prefetch(&self, slot: u64);
    /// Takes the recomputed cell `found` (as the tier stores it) of `slot`.
    fn take(&self, check: &mut SectorCheck, counts: &mut Counts, slot: u64, found: u32);
}

/// The check: each recomputed cell against the stored one; the stored
/// cells keyed ([`key_cells`]) when the flag says so.
pub(super) struct Compare<'a>(pub(super) &'a [u16], pub(super) bool);

impl Sink for Compare<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline(always)]
    fn prefetch(&self, slot: u64) {
        prefetch(&self.0[slot as usize]);
    }

    #[inline(always)]
    fn take(&self, check: &mut SectorCheck, counts: &mut Counts, slot: u64, found: u32) {
        let stored = self.0[slot as usize];
        let stored = if self.1 { cell_of_key(stored) } else { stored };
        check.note_cell(counts, slot, stored, found);
    }
}

/// Derivation: each recomputed cell written into the sector's cells (a
/// derived sector, whose cells are not stored). Every canonical slot is
/// visited once, by one thread, so the writes never meet.
pub(super) struct Fill<'a>(pub(super) &'a [AtomicU16]);

impl Sink for Fill<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline(always)]
    fn prefetch(&self, slot: u64) {
        prefetch(self.0[slot as usize].as_ptr());
    }

    #[inline(always)]
    fn take(&self, check: &mut SectorCheck, counts: &mut Counts, slot: u64, found: u32) {
        let cell = found.min(u32::from(u16::MAX)) as u16;
        self.0[slot as usize].store(cell, Ordering::Relaxed);
        tally(counts, Value::from(Cell(cell)));
        check.states += 1;
    }
}

/// Walks every canonical state of `sector` by the opponent's stones
/// (see [`check_by_opponent`]), handing each recomputed cell to `sink`.
pub(super) fn walk_by_opponent<F, G: Resolve>(
    v: &Variant,
    ix: &Indexer,
    sector: Sector,
    (own, tier): (&impl Sink, Tier),
    frames: impl Fn(Bits) -> F + Sync,
    gathered: impl Fn() -> G + Sync,
    gather: impl Fn(Bits, u64, &F, &mut G) + Sync,
) -> (SectorCheck, Counts) {
    let index = ix.sector(sector);
    assert_eq!(own.len() as u64, index.slots(), "cells of {sector}");
    let (opponents, stabilisers) = ix.set_classes(sector.opponent as u32);
    let all = v.board().all();
    let images = ix.point_images();
    let empty = || (SectorCheck { sector, ..Default::default() }, Counts::default());
    (0..opponents.len())
        .into_par_iter()
        .map(|class| {
            let (mut check, mut counts) = empty();
            let (opponent, stabiliser) = (opponents[class], stabilisers[class]);
            let free = all & !opponent;
            let frames = frames(opponent);
            let opponent_images = images.map(|i| i.set(opponent));
            let own_slot = |mover: Bits| match &opponent_images {
                Some(o) => index.rank_mover(mover, o),
                _ => index.rank(mover, opponent),
            };
            // Two states in flight: a state's successors are ranked and
            // fetched, then read only after the next state's are ranked,
            // so that the fetches overlap that work.
            let mut g = [gathered(), gathered()];
            let mut pending = Pending::default();
            let mut check_pending = |pending: &mut Pending| {
                for k in 0..pending.len {
                    let slot = own_slot(pending.movers[k]);
                    own.prefetch(slot);
                    pending.slots[k] = slot;
                }
                for k in 0..=pending.len {
                    if k < pending.len {
                        gather(pending.movers[k], pending.ranks[k], &frames, &mut g[k % 2]);
                    }
                    if k > 0 {
                        let cell = g[(k - 1) % 2].resolve();
                        own.take(
                            &mut check,
                            &mut counts,
                            pending.slots[k - 1],
                            tier.stored_as(cell),
                        );
                    }
                }
                pending.len = 0;
            };
            for_each_subset(free.count_ones(), sector.mover as u32, |rank, compact| {
                let mover = deposit_bits(compact, free);
                if stabiliser != 1
                    && points(stabiliser & !1)
                        .any(|s| ix.symmetries().apply(s as usize, mover) < mover)
                {
                    return;
                }
                pending.movers[pending.len] = mover;
                pending.ranks[pending.len] = rank;
                pending.len += 1;
                if pending.len == AHEAD {
                    check_pending(&mut pending);
                }
            });
            check_pending(&mut pending);
            (check, counts)
        })
        .reduce(empty, SectorCheck::merge)
}

/// States whose own cells are fetched together by [`check_by_opponent`]:
/// enough for the reads to overlap, few enough that the first is still in
/// cache when its turn comes.
pub(super) const AHEAD: usize = 32;

/// The mover sets of states waiting for their check (each also by its
/// colex rank among the points free of the opponent's stones), and their
/// own slots.
#[derive(Default)]
pub(super) struct Pending {
    pub(super) movers: [Bits; AHEAD],
    pub(super) ranks: [u64; AHEAD],
    pub(super) slots: [u64; AHEAD],
    pub(super) len: usize,
}

/// The frames of a state's successors, by its opponent's stones: the
/// quiet successors' mover is those stones, a capture's is them less the
/// captured stone (one frame per stone that may be taken).
pub(super) struct OpponentFrames<'a> {
    pub(super) opponent: Bits,
    pub(super) quiet: MoverFrame<'a>,
    pub(super) captures: Vec<MoverFrame<'a>>,
    /// Whether a mill takes a stone: the opponent has one on the board.
    pub(super) can_capture: bool,
}

/// The frames of the successors of the states whose opponent holds
/// `opponent`: quiet ones in `quiet`, captures in `captures` (none when
/// every capture ends the game).
pub(super) fn opponent_frames<'a>(
    v: &Variant,
    quiet: &SectorIndex<'a>,
    captures: Option<&SectorIndex<'a>>,
    opponent: Bits,
) -> OpponentFrames<'a> {
    let removable = v.board().removable(opponent);
    let captures = match captures {
        Some(index) if removable != 0 => {
            points(removable).map(|r| index.frame(opponent ^ (1 << r))).collect()
        }
        _ => Vec::new(),
    };
    OpponentFrames { opponent, quiet: quiet.frame(opponent), captures, can_capture: removable != 0 }
}

/// One state's successors between `gather` and `resolve`.
pub(super) struct Gathered<'c> {
    pub(super) best: Best,
    pub(super) quiet: Batch<'c>,
    pub(super) captures: Batch<'c>,
    /// Placements, in Lasker's placement phase, where a state both slides
    /// and places.
    pub(super) placed: Batch<'c>,
    pub(super) placed_captures: Batch<'c>,
    /// The state's cell when the rules decide it without successors.
    pub(super) known: Option<u32>,
}

impl Gathered<'_> {
    pub(super) fn clear(&mut self) {
        self.best = Best::new(self.best.keyed);
        self.quiet.len = 0;
        self.captures.len = 0;
        self.placed.len = 0;
        self.placed_captures.len = 0;
        self.known = None;
    }

    /// Reads the gathered cells into `best`.
    #[inline]
    pub(super) fn read(&mut self) {
        self.quiet.flush(&mut self.best);
        self.captures.flush(&mut self.best);
        self.placed.flush(&mut self.best);
        self.placed_captures.flush(&mut self.best);
    }
}

/// A state's successors, gathered, as [`walk_by_opponent`] holds them.
pub(super) trait Resolve {
    /// Reads the gathered cells: the state's recomputed cell.
    fn resolve(&mut self) -> u32;
}

impl Resolve for Gathered<'_> {
    #[inline]
    fn resolve(&mut self) -> u32 {
        if let Some(cell) = self.known {
            return cell;
        }
        self.read();
        self.best.cell()
    }
}

/// The slot of a quiet successor whose opponent (the stones that moved)
/// is `own`.
#[inline(always)]
pub(super) fn quiet_slot(frame: &MoverFrame, own: Bits) -> u64 {
    frame.rank(own)
}

/// Slots of successors in one table, gathered and prefetched, then read
/// together so the scattered reads overlap instead of waiting in turn.
pub(super) struct Batch<'c> {
    pub(super) cells: &'c [u16],
    pub(super) slots: [u64; BATCH],
    pub(super) len: usize,
}

/// Successors read together: more than a state's quiet moves (at most 80,
/// four stones flying to twenty points).
pub(super) const BATCH: usize = 96;

impl<'c> Batch<'c> {
    #[inline(always)]
    pub(super) fn new(cells: &'c [u16]) -> Batch<'c> {
        Batch { cells, slots: [0; BATCH], len: 0 }
    }

    #[inline(always)]
    pub(super) fn add(&mut self, slot: u64, best: &mut Best) {
        if self.len == BATCH {
            self.flush(best);
        }
        prefetch(&self.cells[slot as usize]);
        self.slots[self.len] = slot;
        self.len += 1;
    }

    #[inline(always)]
    pub(super) fn flush(&mut self, best: &mut Best) {
        if best.keyed {
            for &slot in &self.slots[..self.len] {
                best.key = best.key.max(u32::from(self.cells[slot as usize]));
            }
        } else {
            for &slot in &self.slots[..self.len] {
                best.add(u32::from(self.cells[slot as usize]));
            }
        }
        self.len = 0;
    }
}

/// Hints the CPU to fetch the cache line of `cell`.
#[inline(always)]
pub(super) fn prefetch(cell: *const u16) {
    #[cfg(target_arch = "x86_64")]
    // Safety: a prefetch is only a hint; any address is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch(cell as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
}
