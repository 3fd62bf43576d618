//! [`PlacementCheck`]: the forward check of a placement sector without
//! Lasker's rule (the mover only places), walked by the opponent's
//! stones; over keyed cells, each set of stones placed into is looked up
//! once per opponent set and its key handed to the states it comes from.

use super::hand_down::{hand_down, PlacedWorth};
use super::keys::*;
use super::walk::*;
use super::*;
use crate::index::{compact_rank, deposit_bits, extract_bits, for_each_subset, BINOMIAL};
use crate::variant::points;

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
            |m, rank, f, g| self.gather(m, Some(rank), f, g),
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
            |m, rank, f, g| self.gather(m, Some(rank), f, g),
        )
        .1
    }

    /// The cell the successors of the state (`mover`, `opponent`) give it.
    pub fn expected(&self, mover: Bits, opponent: Bits) -> u32 {
        let mut g = self.gathered();
        let frames = PlacementFrames { frames: self.frames(opponent), placed_into: None };
        self.gather(mover, None, &frames, &mut g);
        g.resolve()
    }

    pub(super) fn gathered(&self) -> Gathered<'a> {
        let captures = self.captures.as_ref().map_or(&[][..], |(_, cells)| cells);
        Gathered {
            best: Best::new(self.keyed),
            quiet: Batch::new(self.quiet.1),
            captures: Batch::new(captures),
            placed: Batch::new(&[]),
            placed_captures: Batch::new(&[]),
            known: None,
        }
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

    /// The frames of a walk by the opponent's stones `opponent`, and over
    /// keyed cells the best successor of every state around it, folded
    /// from the sets of stones placed into ([`PlacedInto`]).
    pub(super) fn walk_frames(&self, opponent: Bits) -> PlacementFrames<'_> {
        let frames = self.frames(opponent);
        let placed_into = self.keyed.then(|| {
            let captures = self.captures.as_ref().map(|(_, cells)| *cells);
            placed_into(self.v, self.sector.mover as u32, &frames, self.quiet.1, captures)
        });
        PlacementFrames { frames, placed_into }
    }

    /// Ranks the successors of the state (`mover`, `frames.opponent`) into
    /// `g` and asks for their cells; or, where the walk folded them, takes
    /// its best from there, by `rank` (the colex rank of `mover` among the
    /// points free of the opponent's stones) where the walk knows it. A
    /// stone in hand always has an empty point to go to, so there is at
    /// least one.
    #[inline]
    pub(super) fn gather(
        &self,
        mover: Bits,
        rank: Option<u64>,
        walk: &PlacementFrames,
        g: &mut Gathered,
    ) {
        g.clear();
        if let Some(placed_into) = &walk.placed_into {
            match placed_into.best_of(mover, rank) {
                Some(key) => g.best.key = key,
                None => g.known = Some(win_in_one()),
            }
            return;
        }
        let (frames, board) = (&walk.frames, self.v.board());
        let empty = board.all() & !(mover | frames.opponent);
        for to in points(empty) {
            let own = mover | 1 << to;
            if !frames.can_capture || !board.closes_mill(own, to) {
                g.quiet.add(quiet_slot(&frames.quiet, own), &mut g.best);
                continue;
            }
            if self.captures.is_none() {
                // The opponent is left with two stones: a win in 1.
                g.known = Some(win_in_one());
                return;
            }
            for frame in &frames.captures {
                g.captures.add(frame.rank(own), &mut g.best);
            }
        }
    }
}

/// The best placement (its successor's key) of every state with
/// `mover_stones` stones on the board around the opponent set of
/// `frames`, over the keyed cells of where placements lead, worked out
/// from the other end: the successors of those states are the sets of
/// one stone more among the same free points, so each such set is looked
/// up once (its quiet successor, and its best capture where a stone of it
/// stands in a mill), and what it is worth is handed down to the states
/// it comes from ([`hand_down::hand_down`]). Over a plain frame the
/// quiet successors are one block of their table, read in order; where
/// every state looked up its own, a dozen placements a state were each
/// ranked and read.
fn placed_into(
    v: &Variant,
    mover_stones: u32,
    frames: &OpponentFrames,
    quiet_cells: &[u16],
    capture_cells: Option<&[u16]>,
) -> PlacedInto {
    let free = v.board().all() & !frames.opponent;
    let (n, m) = (free.count_ones(), mover_stones);
    SETS.with_borrow_mut(|sets| {
        sets.fill_quiet(free, m + 1, &frames.quiet, quiet_cells);
        sets.fill_mills(v, free, m + 1, frames, capture_cells);
        let mut best = vec![0; BINOMIAL.get(n, m) as usize];
        hand_down(n, m, &sets.worth(), &mut best);
        PlacedInto { free, best }
    })
}

/// A thread's arrays for the sets placed into around one opponent set
/// ([`PlacedWorth`]), reused from one opponent set to the next: made anew
/// for each, the largest (megabytes where the opponent has few stones)
/// cost page faults and zeroing every time.
#[derive(Default)]
struct SetsPlacedInto {
    quiet: Vec<u32>,
    capture: Vec<u32>,
    closing: Vec<Bits>,
}

impl SetsPlacedInto {
    /// The key of the quiet successor of every set of `stones` stones
    /// among the points `free`, by colex rank: over a plain `frame` one
    /// block of `cells`, read in order.
    fn fill_quiet(&mut self, free: Bits, stones: u32, frame: &MoverFrame, cells: &[u16]) {
        let n = free.count_ones();
        let size = BINOMIAL.get(n, stones) as usize;
        self.quiet.clear();
        match frame.plain_base() {
            Some(base) => {
                let base = base as usize;
                self.quiet.extend(cells[base..base + size].iter().map(|&key| u32::from(key)));
            }
            None => {
                self.quiet.resize(size, 0);
                for_each_subset(n, stones, |rank, compact| {
                    let slot = frame.rank(deposit_bits(compact, free));
                    self.quiet[rank as usize] = u32::from(cells[slot as usize]);
                });
            }
        }
    }

    /// For every set of `stones` stones among the points `free`: the
    /// stones that, placed last, close a mill, and where one does, the
    /// key of the best capture after it (`capture_cells` by the frames of
    /// `frames`), or [`WINS_AT_ONCE`] where no cells are given because the
    /// capture ends the game.
    fn fill_mills(
        &mut self,
        v: &Variant,
        free: Bits,
        stones: u32,
        frames: &OpponentFrames,
        capture_cells: Option<&[u16]>,
    ) {
        let size = BINOMIAL.get(free.count_ones(), stones) as usize;
        // Only the mills free of the opponent's stones can be whole in a
        // set placed into; none counts while the opponent has no stone to
        // lose. In the numbering of the free points, as the sets are.
        let open: Vec<Bits> = match frames.can_capture {
            true => v
                .board()
                .mills()
                .iter()
                .filter(|&&mill| mill & frames.opponent == 0)
                .map(|&mill| extract_bits(mill, free))
                .collect(),
            false => Vec::new(),
        };
        let SetsPlacedInto { closing, capture, .. } = self;
        closing.clear();
        closing.resize(size, 0);
        capture.clear();
        capture.resize(size, 0);
        // The sets whose captures are fetched, read `CAPTURES_AHEAD` such
        // sets later: their cells lie in a block of the capture table for
        // each stone that may be taken, fewer of them in cache.
        let mut ahead = [Waiting::default(); CAPTURES_AHEAD];
        let mut waiting = 0;
        for_each_subset(free.count_ones(), stones, |rank, compact| {
            let closes =
                open.iter().filter(|&&mill| compact & mill == mill).fold(0, |all, &m| all | m);
            closing[rank as usize] = closes;
            if closes == 0 {
                return;
            }
            let Some(cells) = capture_cells else {
                capture[rank as usize] = WINS_AT_ONCE;
                return;
            };
            let slot = &mut ahead[waiting % CAPTURES_AHEAD];
            if waiting >= CAPTURES_AHEAD {
                capture[slot.rank] = slot.best_capture(cells);
            }
            waiting += 1;
            let placed = deposit_bits(compact, free);
            slot.rank = rank as usize;
            slot.len = 0;
            for frame in &frames.captures {
                let capture = frame.rank(placed);
                prefetch(&cells[capture as usize]);
                slot.captures[slot.len] = capture;
                slot.len += 1;
            }
        });
        if let Some(cells) = capture_cells {
            for slot in &ahead[..waiting.min(CAPTURES_AHEAD)] {
                capture[slot.rank] = slot.best_capture(cells);
            }
        }
    }

    fn worth(&self) -> PlacedWorth<'_> {
        PlacedWorth { quiet: &self.quiet, capture: &self.capture, closing: &self.closing }
    }
}

thread_local! {
    static SETS: std::cell::RefCell<SetsPlacedInto> = Default::default();
}

/// The cell of a state won at once: a placement closes a mill, and the
/// capture leaves the opponent two stones.
fn win_in_one() -> u32 {
    u32::from(Cell::from(Value::Win(1)).0)
}

/// Sets placed into whose captures are fetched ahead of their reads.
const CAPTURES_AHEAD: usize = 8;

/// A set placed into (by its colex rank among the free points) whose
/// captures' cells are fetched, waiting to be read.
#[derive(Clone, Copy, Default)]
struct Waiting {
    rank: usize,
    captures: [u64; MAX_CAPTURES],
    len: usize,
}

/// The most stones a capture may take from: every opponent stone.
const MAX_CAPTURES: usize = 12;

impl Waiting {
    /// The largest key among the set's captures.
    fn best_capture(&self, cells: &[u16]) -> u32 {
        let slots = &self.captures[..self.len];
        slots.iter().map(|&slot| u32::from(cells[slot as usize])).max().unwrap_or(0)
    }
}

/// In a [`PlacedInto`], a state that wins at once; above every key.
const WINS_AT_ONCE: u32 = u32::MAX;

/// The best successor of every state around one opponent set, over keyed
/// cells ([`placed_into`]).
pub(super) struct PlacedInto {
    /// The points free of the opponent's stones.
    free: Bits,
    /// By the colex rank of the mover's stones among `free`: the largest
    /// key among the state's successors, or [`WINS_AT_ONCE`].
    best: Vec<u32>,
}

impl PlacedInto {
    /// The best placement of the state whose mover holds `mover` (`rank`,
    /// where the walk knows it, is their colex rank among the points free
    /// of the opponent's): its successor's key, or `None` where the state
    /// wins at once.
    #[inline(always)]
    fn best_of(&self, mover: Bits, rank: Option<u64>) -> Option<u32> {
        let rank = rank.unwrap_or_else(|| compact_rank(mover, self.free));
        debug_assert_eq!(rank, compact_rank(mover, self.free));
        Some(self.best[rank as usize]).filter(|&key| key != WINS_AT_ONCE)
    }
}

/// The frames of a placement check's walk by the opponent's stones, and
/// over keyed cells the best successor of every state of the walk.
pub(super) struct PlacementFrames<'a> {
    pub(super) frames: OpponentFrames<'a>,
    pub(super) placed_into: Option<PlacedInto>,
}
