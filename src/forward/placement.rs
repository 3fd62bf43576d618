//! [`PlacementCheck`]: the forward check of a placement sector without
//! Lasker's rule (the mover only places), walked by the opponent's
//! stones, with the best capture after each mill-closing placement
//! remembered per opponent set.

use super::keys::*;
use super::walk::*;
use super::*;
use crate::index::{compact_rank, BINOMIAL};
use crate::variant::points;
use std::cell::Cell as Slot;

/// The forward check of one placement sector on bitboards, given the
/// cells of the sectors its placements lead to. Its placements are
/// generated here, apart from the placement solver's, and the tests hold
/// it to [`value_from_successors`]. Not for variants where a player may
/// move while placing (Lasker): those take [`MovingCheck::of`].
pub struct PlacementCheck<'a> {
    pub(super) v: &'a Variant,
    pub(super) ix: &'a Indexer,
    pub(super) sector: Sector,
    /// Where placements that capture nothing lead.
    pub(super) quiet: (SectorIndex<'a>, &'a [u16]),
    /// Where captures lead; `None` when every capture ends the game.
    pub(super) captures: Option<(SectorIndex<'a>, &'a [u16])>,
    /// Whether the cells given are keyed ([`PlacementCheck::keyed`]).
    pub(super) keyed: bool,
}

impl<'a> PlacementCheck<'a> {
    /// The check of `sector` given the cells of the sector its quiet
    /// placements lead to and, unless its captures end the game (or none
    /// is possible), of the sector captures lead to.
    pub fn new(
        v: &'a Variant,
        ix: &'a Indexer,
        sector: Sector,
        quiet_cells: &'a [u16],
        capture_cells: Option<&'a [u16]>,
    ) -> Self {
        assert!(
            sector.mover_hand > 0 && !v.move_while_placing(),
            "{sector} is not a placement sector of the fast check"
        );
        let with_cells = |s: Sector, cells: &'a [u16]| {
            let index = ix.sector(s);
            assert_eq!(cells.len() as u64, index.slots(), "cells of {s}");
            (index, cells)
        };
        let next = successor_sectors(v, sector).placements.expect("placements");
        let captures = match (next.capture, capture_cells) {
            (Some(target), Some(cells)) => Some(with_cells(target, cells)),
            (None, None) => None,
            _ => panic!("{sector}: capture cells given where captures end the game, or missing"),
        };
        let quiet = with_cells(next.quiet, quiet_cells);
        PlacementCheck { v, ix, sector, quiet, captures, keyed: false }
    }

    /// The same check over keyed cells ([`key_cells`]): every cell slice
    /// given to it, the successors' and the sector's own, holds keys.
    pub fn keyed(self) -> Self {
        PlacementCheck { keyed: true, ..self }
    }

    /// Whether a capture from `sector` leaves the opponent a game to play,
    /// so that the check needs the cells of the sector it leads to.
    pub fn captures_need_cells(sector: Sector) -> bool {
        sector.mover + 1 >= 3
            && sector.opponent > 0
            && sector.opponent - 1 + sector.opponent_hand >= 3
    }

    /// Checks every canonical state of the sector against `own`, its
    /// stored cells, walking it by the opponent's stones as the placement
    /// solver does (`check_by_opponent`); returns what it found and the
    /// counts of `own`.
    pub fn check_all(&self, own: &[u16]) -> (SectorCheck, Counts) {
        self.check_tier(own, Tier::Full)
    }

    /// As `check_all`, with `own` and the successors' cells read as
    /// `tier` stores them.
    pub fn check_tier(&self, own: &[u16], tier: Tier) -> (SectorCheck, Counts) {
        check_by_opponent(
            self.v,
            self.ix,
            self.sector,
            (own, tier, self.keyed),
            |o| self.walk_frames(o),
            || self.gathered(),
            |m, f, g| self.gather(m, f, g),
        )
    }

    /// Every canonical state's recomputed cell, as `tier` stores it,
    /// into `out`; returns their counts ([`derive_cells`]).
    pub fn fill_tier(&self, out: &mut [u16], tier: Tier) -> Counts {
        walk_by_opponent(
            self.v,
            self.ix,
            self.sector,
            (&Fill(atomic_cells(out)), tier),
            |o| self.walk_frames(o),
            || self.gathered(),
            |m, f, g| self.gather(m, f, g),
        )
        .1
    }

    /// The cell the successors of the state (`mover`, `opponent`) give it.
    pub fn expected(&self, mover: Bits, opponent: Bits) -> u32 {
        let mut g = self.gathered();
        let frames = PlacementFrames { frames: self.frames(opponent), memo: None };
        self.gather(mover, &frames, &mut g);
        g.resolve()
    }

    pub(super) fn gathered(&self) -> PlacementGathered<'a> {
        let captures = self.captures.as_ref().map_or(&[][..], |(_, cells)| cells);
        let successors = Gathered {
            best: Best::new(self.keyed),
            quiet: Batch::new(self.quiet.1),
            captures: Batch::new(captures),
            placed: Batch::new(&[]),
            placed_captures: Batch::new(&[]),
            known: None,
        };
        PlacementGathered { successors, by_placement: CaptureGroups::new(captures) }
    }

    /// What the successors of every state with the opponent's stones
    /// `opponent` share: their movers, framed once.
    pub(super) fn frames(&self, opponent: Bits) -> OpponentFrames<'_> {
        opponent_frames(
            self.v,
            &self.quiet.0,
            self.captures.as_ref().map(|(index, _)| index),
            opponent,
        )
    }

    /// The frames of a walk by the opponent's stones `opponent`, with the
    /// memo of the best capture after each placement over keyed cells,
    /// where a capture leaves the opponent a game to play.
    pub(super) fn walk_frames(&self, opponent: Bits) -> PlacementFrames<'_> {
        let frames = self.frames(opponent);
        let memo = (self.keyed && self.captures.is_some() && frames.can_capture).then(|| {
            CaptureMemo::new(self.v.board().all() & !opponent, self.sector.mover as u32 + 1)
        });
        PlacementFrames { frames, memo }
    }

    /// Ranks the successors of the state (`mover`, `frames.opponent`) into
    /// `g` and asks for their cells. A stone in hand always has an empty
    /// point to go to, so there is at least one.
    #[inline]
    pub(super) fn gather(&self, mover: Bits, walk: &PlacementFrames, pg: &mut PlacementGathered) {
        if let Some(memo) = &walk.memo {
            pg.by_placement.remember(memo);
        }
        pg.successors.clear();
        let (frames, board) = (&walk.frames, self.v.board());
        let empty = board.all() & !(mover | frames.opponent);
        for to in points(empty) {
            let own = mover | 1 << to;
            if !frames.can_capture || !board.closes_mill(own, to) {
                let g = &mut pg.successors;
                g.quiet.add(quiet_slot(&frames.quiet, own), &mut g.best);
                continue;
            }
            if self.captures.is_none() {
                // The opponent is left with two stones: a win in 1.
                pg.successors.known = Some(Cell::from(Value::Win(1)).0 as u32);
                return;
            }
            walk.gather_captures(own, pg);
        }
    }
}

/// The frames of a placement check's walk by the opponent's stones, and
/// over keyed cells the memo of the best capture after each placement
/// that closes a mill.
pub(super) struct PlacementFrames<'a> {
    pub(super) frames: OpponentFrames<'a>,
    pub(super) memo: Option<CaptureMemo>,
}

/// The best capture (the largest key) after a placement that closes a
/// mill, by the mover's stones after it. It depends on those stones and
/// the opponent's alone, and in a walk by the opponent's stones several
/// states place into the same stones: one for each stone of the mill
/// placed last. So the capture successors of those states (one per
/// stone that may be taken) are ranked and read once for all of them
/// instead of once each.
pub(super) struct CaptureMemo {
    /// The points free of the opponent's stones, among which the stones
    /// after a placement are ranked.
    pub(super) free: Bits,
    /// By that rank: 0 while unknown, else the best key plus one.
    pub(super) best: Vec<Slot<u32>>,
}

impl CaptureMemo {
    /// An empty memo for `stones` stones among the points `free`.
    pub(super) fn new(free: Bits, stones: u32) -> CaptureMemo {
        let size = BINOMIAL.get(free.count_ones(), stones) as usize;
        CaptureMemo { free, best: (0..size).map(|_| Slot::new(0)).collect() }
    }
}

impl PlacementFrames<'_> {
    /// Asks for the captures after a placement into the stones `own`
    /// that closes a mill: their best from the memo where it is known, else
    /// one successor per stone that may be taken, grouped for the memo
    /// where there is room.
    #[inline(always)]
    pub(super) fn gather_captures(&self, own: Bits, pg: &mut PlacementGathered) {
        let g = &mut pg.successors;
        if let Some(memo) = &self.memo {
            let at = compact_rank(own, memo.free) as usize;
            match memo.best[at].get() {
                0 if pg.by_placement.add(at as u32, &self.frames.captures, own) => return,
                0 => {}
                known => {
                    g.best.key = g.best.key.max(known - 1);
                    return;
                }
            }
        }
        for frame in &self.frames.captures {
            g.captures.add(frame.rank(own), &mut g.best);
        }
    }
}

/// The capture successors of a state's placements that close a mill and
/// are not in the [`CaptureMemo`] yet, grouped by placement: read with
/// the state's other successors, and each group's best noted in the memo
/// when the walk's next state comes to this [`PlacementGathered`].
pub(super) struct CaptureGroups<'c> {
    pub(super) cells: &'c [u16],
    pub(super) slots: [u64; BATCH],
    pub(super) len: usize,
    /// Each group's rank in the memo and the end of its slots.
    pub(super) groups: [(u32, u8); GROUPS],
    pub(super) count: usize,
    /// Each group's best key, once read.
    pub(super) best: [u32; GROUPS],
    pub(super) read: bool,
}

/// Placements of one state that close a mill, grouped at most.
pub(super) const GROUPS: usize = 16;

impl<'c> CaptureGroups<'c> {
    pub(super) fn new(cells: &'c [u16]) -> CaptureGroups<'c> {
        CaptureGroups {
            cells,
            slots: [0; BATCH],
            len: 0,
            groups: [(0, 0); GROUPS],
            count: 0,
            best: [0; GROUPS],
            read: false,
        }
    }

    /// Ranks the captures of the placement into the stones `own` (the
    /// memo's rank `at`) from `frames`, one per stone that may be taken,
    /// and asks for their cells; false, with nothing added, when there is
    /// no room left.
    #[inline(always)]
    pub(super) fn add(&mut self, at: u32, frames: &[MoverFrame], own: Bits) -> bool {
        let end = self.len + frames.len();
        if end > BATCH || self.count == GROUPS || frames.is_empty() {
            return false;
        }
        for frame in frames {
            let slot = frame.rank(own);
            prefetch(&self.cells[slot as usize]);
            self.slots[self.len] = slot;
            self.len += 1;
        }
        self.groups[self.count] = (at, end as u8);
        self.count += 1;
        true
    }

    /// Reads every group's cells (keys) into `best`, and each group's
    /// best for the memo.
    #[inline]
    pub(super) fn read(&mut self, best: &mut Best) {
        let mut start = 0;
        for (group, &(_, end)) in self.groups[..self.count].iter().enumerate() {
            let slots = &self.slots[start..end as usize];
            let key = slots.iter().map(|&s| u32::from(self.cells[s as usize])).max().unwrap_or(0);
            self.best[group] = key;
            best.key = best.key.max(key);
            start = end as usize;
        }
        self.read = true;
    }

    /// Notes the groups read in `memo`, and empties the groups.
    #[inline]
    pub(super) fn remember(&mut self, memo: &CaptureMemo) {
        if self.read {
            for (&(at, _), &key) in self.groups[..self.count].iter().zip(&self.best) {
                memo.best[at as usize].set(key + 1);
            }
        }
        self.clear();
    }

    pub(super) fn clear(&mut self) {
        self.len = 0;
        self.count = 0;
        self.read = false;
    }
}

/// A placement state's successors: those of [`Gathered`], and the
/// captures grouped by placement for the [`CaptureMemo`] (keyed cells
/// only).
pub(super) struct PlacementGathered<'c> {
    pub(super) successors: Gathered<'c>,
    pub(super) by_placement: CaptureGroups<'c>,
}

impl Resolve for PlacementGathered<'_> {
    #[inline]
    fn resolve(&mut self) -> u32 {
        let g = &mut self.successors;
        if let Some(cell) = g.known {
            return cell;
        }
        g.read();
        self.by_placement.read(&mut g.best);
        g.best.cell()
    }
}
