//! Placement sectors: stones in hand only decrease, so every state's
//! value follows from its successors', which lie in sectors with one
//! stone fewer in hand (or in the moving phase) and are solved before.
//! In a game from another start a side whose hand is empty slides (or
//! flies) while the other still places; its successors hold as many
//! stones in hand, but the placement that follows takes one, so the phase
//! stays acyclic (`crate::sectors::extended_placement_sectors`).
//!
//! The successors are generated here by direct bit operations on the
//! mover's placements (and slides), apart from the rules module's generic
//! generator that the forward check (`verify`) uses.

use super::supersets::{key, unkey, AfterMill, Layers};
use super::{prefetch, OpenMills, Progress, SolveError};
use crate::index::{
    compact_rank, deposit_bits, for_each_subset, Indexer, MoverFrame, Sector, SectorIndex, BINOMIAL,
};
use crate::stats::Counts;
use crate::stats::{add_counts, tally};
use crate::value::{Cell, Value};
use crate::variant::{points, Bits, Variant};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, Ordering};

/// Slots handled by one rayon task.
const CHUNK: u64 = 1 << 14;

/// A solved sector that placements lead to.
pub struct Successor<'a> {
    /// The sector.
    pub sector: Sector,
    /// Its cells.
    pub cells: &'a [u16],
}

/// The sectors a move from the placement `sector` leads to: without and
/// with a capture (the second only when the mover can close a mill, and
/// the opponent has a stone to lose and keeps at least 3). With stones in
/// hand the mover places; with an empty hand, while the opponent still
/// places (a game from another start, see
/// [`crate::sectors::extended_placement_sectors`]), it slides or flies,
/// and the opponent places next.
pub fn successor_sectors(sector: Sector) -> Vec<Sector> {
    assert!(!sector.is_moving(), "{sector} is not a placement sector");
    let slides = sector.mover_hand == 0;
    let next = |opponent: u8| Sector {
        mover: opponent,
        opponent: sector.mover + u8::from(!slides),
        mover_hand: sector.opponent_hand,
        opponent_hand: sector.mover_hand.saturating_sub(1),
    };
    let mut out = vec![next(sector.opponent)];
    let mover_after = sector.mover + u8::from(!slides);
    if mover_after >= 3 && sector.opponent > 0 && sector.opponent - 1 + sector.opponent_hand >= 3 {
        out.push(next(sector.opponent - 1));
    }
    out
}

/// Computes every cell of the placement `sector` into `cells` (one per
/// slot; non-canonical slots get 0) and returns its counts and the number
/// of successor cells it read. Variants where
/// a player may move while placing (Lasker) have cycles here and are not
/// handled by this solver.
///
/// The sector is walked by its opponent's stones, not in slot order: every
/// quiet placement of a state (mover `M`, opponent `O`) leads to the state
/// whose mover is `O`, and every capture to one whose mover is `O` less a
/// stone. Taking `O` canonical and then every mover set `M` around it, the
/// successors of all those states lie in one block of the quiet table and
/// a few blocks of the capture table, which stay in cache; only each
/// state's own cell is written at a scattered slot.
pub fn solve_sector(
    v: &Variant,
    ix: &Indexer,
    sector: Sector,
    successors: &[Successor],
    cells: &mut [u16],
    progress: &dyn Progress,
) -> Result<(Counts, u64), SolveError> {
    if v.move_while_placing() {
        return Err(SolveError::Cyclic(sector.to_string()));
    }
    let own = ix.sector(sector);
    if cells.len() as u64 != own.slots() {
        return Err(SolveError::BadPair(sector.to_string()));
    }
    let lookup = |s: Sector| {
        successors
            .iter()
            .find(|t| t.sector == s)
            .map(|t| Table { index: ix.sector(s), cells: t.cells })
    };
    let quiet = lookup(successor_sectors(sector)[0])
        .ok_or_else(|| SolveError::BadPair(sector.to_string()))?;
    let capture = successor_sectors(sector).get(1).and_then(|&s| lookup(s));
    let walk = Walk {
        v,
        ix,
        sector,
        own,
        quiet,
        capture,
        opponent_survives_capture: sector.opponent + sector.opponent_hand > 3,
    };
    progress.start("placement", own.slots());
    // Non-canonical slots stay 0; every canonical slot is written once.
    cells.par_chunks_mut(CHUNK as usize).for_each(|chunk| chunk.fill(0));
    let out = atomic_cells(cells);
    let (opponents, stabilisers) = ix.set_classes(sector.opponent as u32);
    let per_opponent = own.slots() / opponents.len().max(1) as u64;
    let (counts, edges) = (0..opponents.len())
        .into_par_iter()
        .map_init(
            || (Vec::new(), Layers::default()),
            |(memo, layers), class| {
                // The caller throws the cells away when it cancels.
                if progress.cancelled() {
                    return (Counts::default(), 0);
                }
                let done = walk.around(opponents[class], stabilisers[class], out, memo, layers);
                progress.advance(per_opponent);
                done
            },
        )
        .reduce(|| (Counts::default(), 0), |a, b| (add_counts(a.0, b.0), a.1 + b.1));
    if progress.cancelled() {
        return Err(SolveError::Interrupted(sector.to_string()));
    }
    Ok((counts, edges))
}

/// A solved successor sector: its index and its cells.
struct Table<'a> {
    index: SectorIndex<'a>,
    cells: &'a [u16],
}

/// What the walk of one sector needs.
struct Walk<'a> {
    v: &'a Variant,
    ix: &'a Indexer,
    sector: Sector,
    own: SectorIndex<'a>,
    quiet: Table<'a>,
    capture: Option<Table<'a>>,
    opponent_survives_capture: bool,
}

impl Walk<'_> {
    /// Solves every state whose opponent holds the canonical set
    /// `opponent` (fixed by the symmetries in `stabiliser`), writing each
    /// cell into `out`, and returns their counts and the successor cells
    /// read.
    fn around(
        &self,
        opponent: Bits,
        stabiliser: u32,
        out: &[AtomicU16],
        memo: &mut Vec<u16>,
        layers: &mut Layers,
    ) -> (Counts, u64) {
        let board = self.v.board();
        let free = board.all() & !opponent;
        let syms = self.ix.symmetries();
        let quiet = self.quiet.index.frame(opponent);
        // The capture successors' movers: the opponent less each stone
        // it may lose, framed once for all the states around it.
        let mut captures = Vec::new();
        if let Some(table) = self.capture.as_ref() {
            for r in points(board.removable(opponent)) {
                captures.push(table.index.frame(opponent ^ 1 << r));
            }
        }
        // Only a mill free of the opponent's stones can be closed: the
        // states around one opponent set test those alone (about half of
        // the board's mills with five or six opponent stones down).
        let open = OpenMills::of(board.mills(), opponent);
        // With stones in hand, the states' best placements come from one
        // pass over the sets of stones placed into.
        if self.sector.mover_hand > 0 {
            let frames = Frames { open: &open, quiet: &quiet, captures: &captures };
            return self.around_by_supersets(opponent, stabiliser, &frames, out, layers, memo);
        }
        // An empty hand while the opponent places: each state's slides.
        let images = self.ix.point_images();
        let opponent_images = images.map(|i| i.set(opponent));
        let mut counts = Counts::default();
        let mut edges = 0;
        // The states' own slots are the walk's scattered accesses: ranked
        // and fetched for `AHEAD` states at a time, then written as their
        // values are worked out.
        let mut pending = Pending { movers: [0; AHEAD], slots: [0; AHEAD], len: 0 };
        let mut settle = |pending: &mut Pending| {
            for k in 0..pending.len {
                let mover = pending.movers[k];
                let slot = match opponent_images.as_ref() {
                    Some(o) => self.own.rank_mover(mover, o),
                    _ => self.own.rank(mover, opponent),
                };
                prefetch(&out[slot as usize]);
                pending.slots[k] = slot;
            }
            for k in 0..pending.len {
                let mover = pending.movers[k];
                let (value, read) = self.best_slide(mover, opponent, &quiet, &captures);
                edges += read;
                out[pending.slots[k] as usize].store(Cell::from(value).0, Ordering::Relaxed);
                tally(&mut counts, value);
            }
            pending.len = 0;
        };
        for_each_subset(free.count_ones(), self.sector.mover as u32, |_, compact| {
            let mover = deposit_bits(compact, free);
            // Around a symmetric opponent, positions that a symmetry fixing
            // it maps onto each other are one state: take the smallest.
            if stabiliser != 1
                && points(stabiliser & !1).any(|s| syms.apply(s as usize, mover) < mover)
            {
                return;
            }
            pending.movers[pending.len] = mover;
            pending.len += 1;
            if pending.len == AHEAD {
                settle(&mut pending);
            }
        });
        settle(&mut pending);
        (counts, edges)
    }

    /// [`Walk::around`] for a mover with stones in hand: the value of
    /// every placement is worked out once per set of stones placed into
    /// (`supersets`), then each state takes the best of its own and is
    /// written to its slot. (`memo` serves the debug builds,
    /// which hold every state to [`Walk::best_placement`].)
    fn around_by_supersets(
        &self,
        opponent: Bits,
        stabiliser: u32,
        frames: &Frames,
        out: &[AtomicU16],
        layers: &mut Layers,
        #[allow(unused_variables)] memo: &mut Vec<u16>,
    ) -> (Counts, u64) {
        let free = self.v.board().all() & !opponent;
        let n = free.count_ones();
        let m = self.sector.mover as u32;
        let read = self.fill_upper(opponent, frames, layers);
        layers.lower(n, m);

        let images = self.ix.point_images();
        let opponent_images = images.map(|i| i.set(opponent));
        let mut counts = Counts::default();
        // The states' own slots are the walk's scattered writes: each is
        // fetched `AHEAD` states before its value is stored.
        let mut ring = [(0u64, Cell::DRAW); AHEAD];
        let mut done = 0;
        #[cfg(debug_assertions)]
        let mut memo = CaptureMemo::new(memo, free, m + 1);
        let syms = self.ix.symmetries();
        for_each_subset(n, m, |rank, compact| {
            let mover = deposit_bits(compact, free);
            // Around a symmetric opponent, positions that a symmetry fixing
            // it maps onto each other are one state: take the smallest.
            if stabiliser != 1
                && points(stabiliser & !1).any(|s| syms.apply(s as usize, mover) < mover)
            {
                return;
            }
            let value = Value::from(Cell(unkey(layers.best()[rank as usize]))).back();
            #[cfg(debug_assertions)]
            {
                let mut scratch =
                    Scratch { quiet: [0; 32], captures: [0; 24 * 12], groups: [(0, 0); 24] };
                let (by_placement, _) =
                    self.best_placement(mover, opponent, frames, &mut memo, &mut scratch);
                assert_eq!(value, by_placement, "{mover:#x} against {opponent:#x}");
            }
            let slot = match opponent_images.as_ref() {
                Some(o) => self.own.rank_mover(mover, o),
                _ => self.own.rank(mover, opponent),
            };
            prefetch(&out[slot as usize]);
            let (at, cell) = std::mem::replace(&mut ring[done % AHEAD], (slot, Cell::from(value)));
            if done >= AHEAD {
                out[at as usize].store(cell.0, Ordering::Relaxed);
            }
            done += 1;
            tally(&mut counts, value);
        });
        for &(at, cell) in &ring[..done.min(AHEAD)] {
            out[at as usize].store(cell.0, Ordering::Relaxed);
        }
        (counts, read)
    }

    /// Fills `layers` with the value of a placement into each set of
    /// `m + 1` stones around `opponent`: its quiet successor's, and where
    /// it closes a mill, the best capture's. Returns how many successor
    /// cells it read.
    fn fill_upper(&self, opponent: Bits, frames: &Frames, layers: &mut Layers) -> u64 {
        let free = self.v.board().all() & !opponent;
        let stones = self.sector.mover as u32 + 1;
        // With no opponent stone on the board a mill captures nothing.
        let open = (opponent != 0).then_some(frames.open);
        let after_mill = if self.opponent_survives_capture {
            // Without a capture sector the mover has too few stones for a
            // mill, and there are no capture frames either.
            let cells = self.capture.as_ref().map_or(&[][..], |table| table.cells);
            AfterMill::Captures { frames: frames.captures.iter(), cells }
        } else {
            AfterMill::EndsTheGame
        };
        let quiet = (frames.quiet, self.quiet.cells);
        BINOMIAL.get(free.count_ones(), stones) + layers.fill(free, stones, quiet, open, after_mill)
    }

    fn capture_cells(&self) -> &[u16] {
        self.capture.as_ref().expect("a capture sector when the opponent survives a capture").cells
    }

    /// The best value over every placement of the mover (the successor
    /// that is worst for the opponent, one ply on), and the number of
    /// successor cells read: each placement ranked and read on its own,
    /// the reference the debug builds hold `around_by_supersets` to.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    fn best_placement(
        &self,
        mover: Bits,
        opponent: Bits,
        frames: &Frames,
        memo: &mut CaptureMemo,
        scratch: &mut Scratch,
    ) -> (Value, u64) {
        let board = self.v.board();
        let empty = board.all() & !(mover | opponent);
        // With no opponent stone on the board a mill captures nothing.
        let closing = if opponent == 0 { 0 } else { frames.open.closing_points(mover) };
        debug_assert_eq!(
            closing,
            if opponent == 0 { 0 } else { closing_points(board.mills(), mover, empty) }
        );
        if closing != 0 && !self.opponent_survives_capture {
            return (Value::Win(1), 0);
        }
        let mut best = u32::MAX;
        // Capture successors spread over a few blocks of their table, less
        // likely in cache: located and fetched first, read after the quiet
        // successors, so that their fetches overlap that work. A placement
        // into stones whose captures the memo knows reads none of them.
        let capture_slots = &mut scratch.captures;
        let (mut n, mut groups) = (0, 0);
        for to in points(closing) {
            let own = mover | 1 << to;
            let at = memo.at(own);
            if let Some(cell) = memo.get(at) {
                best = best.min(key(cell));
                continue;
            }
            for frame in frames.captures {
                let slot = frame.rank(own);
                prefetch(&self.capture_cells()[slot as usize]);
                capture_slots[n] = slot;
                n += 1;
            }
            scratch.groups[groups] = (at, n);
            groups += 1;
        }
        let quiet_slots = &mut scratch.quiet;
        frames.quiet.ranks_plus_one(mover, empty & !closing, quiet_slots);
        // The successor's cell with the smallest key is the best placement.
        let quiet_cells = self.quiet.cells;
        for to in points(empty & !closing) {
            best = best.min(key(quiet_cells[quiet_slots[to as usize] as usize]));
        }
        let mut start = 0;
        for &(at, end) in &scratch.groups[..groups] {
            let slots = &capture_slots[start..end];
            let group = slots.iter().map(|&slot| key(self.capture_cells()[slot as usize])).min();
            if let Some(group) = group {
                memo.set(at, unkey(group));
                best = best.min(group);
            }
            start = end;
        }
        let read = (empty & !closing).count_ones() as u64 + n as u64;
        // A placement always has an empty point: the board cannot be full
        // while stones remain in hand.
        debug_assert!(best != u32::MAX, "a placement state without a placement");
        (Value::from(Cell(unkey(best))).back(), read)
    }
}

/// What the states around one opponent set share: the mills they may
/// close and the frames of their successors.
struct Frames<'f> {
    open: &'f OpenMills,
    quiet: &'f MoverFrame<'f>,
    captures: &'f [MoverFrame<'f>],
}

/// The best capture after a placement that closes a mill, by the mover's
/// stones after it (the states around one opponent set). It depends on
/// those stones and the opponent's alone, and up to three states place
/// into the same stones, one for each stone of the mill placed last: the
/// first ranks and reads a capture successor per stone that may be taken,
/// the others find the best of them here. (The solver's own walk,
/// `around_by_supersets`, works out each set placed into once anyway, as
/// does the forward check over keyed cells, `PlacedInto`: this serves
/// the walk's reference, `best_placement`.)
#[cfg_attr(not(debug_assertions), allow(dead_code))]
struct CaptureMemo<'m> {
    /// The points free of the opponent's stones, among which the stones
    /// after a placement are ranked.
    free: Bits,
    /// By that rank: the best capture's cell, or [`CaptureMemo::UNKNOWN`].
    cells: &'m mut Vec<u16>,
}

#[cfg_attr(not(debug_assertions), allow(dead_code))]
impl<'m> CaptureMemo<'m> {
    /// Not known yet: no cell is this large (`PENDING` is far below).
    const UNKNOWN: u16 = u16::MAX;

    /// An empty memo for `stones` stones among the points `free`, in
    /// `cells` (a thread's, reused from one opponent set to the next).
    fn new(cells: &'m mut Vec<u16>, free: Bits, stones: u32) -> CaptureMemo<'m> {
        let size = BINOMIAL.get(free.count_ones(), stones) as usize;
        cells.clear();
        cells.resize(size, CaptureMemo::UNKNOWN);
        CaptureMemo { free, cells }
    }

    #[inline(always)]
    fn at(&self, own: Bits) -> usize {
        compact_rank(own, self.free) as usize
    }

    #[inline(always)]
    fn get(&self, at: usize) -> Option<u16> {
        let cell = self.cells[at];
        (cell != CaptureMemo::UNKNOWN).then_some(cell)
    }

    #[inline(always)]
    fn set(&mut self, at: usize, cell: u16) {
        self.cells[at] = cell;
    }
}

impl Walk<'_> {
    /// The best value over every slide (or fly) of a mover with an empty
    /// hand while the opponent still places (a game from another start),
    /// and the number of successor cells read: the successor's mover is
    /// the opponent, so its slot comes from the same frames as a
    /// placement's. A blocked mover loses (the board is not full while
    /// the opponent holds stones).
    #[inline]
    fn best_slide(
        &self,
        mover: Bits,
        opponent: Bits,
        quiet: &MoverFrame,
        captures: &[MoverFrame],
    ) -> (Value, u64) {
        let board = self.v.board();
        let empty = board.all() & !(mover | opponent);
        let flies = self.v.flies(self.sector.mover as u32, 0);
        let mut best = u32::MAX;
        let mut read = 0;
        for from in points(mover) {
            let destinations = if flies { empty } else { empty & board.adjacent(from) };
            for to in points(destinations) {
                let after = mover ^ (1 << from) ^ (1 << to);
                // With no opponent stone on the board a mill captures nothing.
                if opponent != 0 && board.closes_mill(after, to) {
                    if !self.opponent_survives_capture {
                        return (Value::Win(1), read);
                    }
                    for frame in captures {
                        best = best.min(key(self.capture_cells()[frame.rank(after) as usize]));
                        read += 1;
                    }
                } else {
                    best = best.min(key(self.quiet.cells[quiet.rank(after) as usize]));
                    read += 1;
                }
            }
        }
        if best == u32::MAX {
            return (Value::Loss(0), read);
        }
        (Value::from(Cell(unkey(best))).back(), read)
    }
}

/// States whose own slots are fetched together: enough for the fetches
/// to overlap, few enough that the first is still in cache at its write.
const AHEAD: usize = 16;

/// The mover sets of states waiting for their values, and their slots.
struct Pending {
    movers: [Bits; AHEAD],
    slots: [u64; AHEAD],
    len: usize,
}

/// A walk's working arrays, reused from state to state: the slots of a
/// state's quiet successors (by the point placed on) and of its capture
/// successors (in the order they are read).
#[cfg_attr(not(debug_assertions), allow(dead_code))]
struct Scratch {
    quiet: [u64; 32],
    captures: [u64; 24 * 12],
    /// Per placement whose captures are read: its rank in the
    /// [`CaptureMemo`] and the end of its slots in `captures`.
    groups: [(usize, usize); 24],
}

/// The empty points where a stone of `mover` closes a mill: the third
/// point of every mill that holds two of its stones, when that point is
/// empty. One pass over the mills, without branches, instead of a test
/// per placement.
#[inline(always)]
fn closing_points(mills: &[Bits], mover: Bits, empty: Bits) -> Bits {
    mills.iter().fold(0, |closing, &mill| {
        let rest = mill & !mover;
        let one_left = ((rest.count_ones() == 1) as Bits).wrapping_neg();
        closing | (rest & empty & one_left)
    })
}

/// The cells as atomics, so that the walk's tasks write their scattered
/// slots through shared references (each slot is written by one task).
fn atomic_cells(cells: &mut [u16]) -> &[AtomicU16] {
    // Safety: `AtomicU16` has the size and alignment of `u16`, and the
    // exclusive borrow of `cells` is held for as long as the result lives.
    unsafe { &*(cells as *mut [u16] as *const [AtomicU16]) }
}
