//! [`MovingCheck`]: the forward check of a sector whose mover slides or
//! flies (the moving phase, a game from another start whose mover's hand
//! is empty, Lasker's placement phase), on bitboards, walked by the
//! opponent's stones.

use super::keys::*;
use super::walk::*;
use super::*;
use crate::variant::points;

/// The forward check, on bitboards, of a sector whose mover slides or
/// flies: the moving phase; a placement sector of a game from another
/// start whose mover has an empty hand ([`MovingCheck::sliding`]); and
/// Lasker's placement phase, where the mover may place a stone from its
/// hand or slide one on the board ([`MovingCheck::of`]). Given the cells
/// of the sectors its moves lead to ([`successor_sectors`]).
pub struct MovingCheck<'a> {
    pub(super) v: &'a Variant,
    pub(super) ix: &'a Indexer,
    pub(super) sector: Sector,
    pub(super) flies: bool,
    /// Whether a state with no move is a draw rather than a loss: a full
    /// board in the moving phase, where the variant says so.
    pub(super) blocked_draws: bool,
    /// Where slides and flies lead.
    pub(super) slides: Targets<'a>,
    /// Where placements lead, when the mover holds a stone (Lasker).
    pub(super) placements: Option<Targets<'a>>,
    /// Whether the cells given (the successors' and the sector's own) are
    /// keyed ([`MovingCheck::keyed`]).
    pub(super) keyed: bool,
}

/// The sectors one kind of move leads to, with their cells (see
/// [`Leads`]).
pub(super) struct Targets<'a> {
    pub(super) quiet: (SectorIndex<'a>, &'a [u16]),
    pub(super) captures: Option<(SectorIndex<'a>, &'a [u16])>,
}

impl<'a> MovingCheck<'a> {
    /// The check of a moving-phase sector given the cells of its partner
    /// and, unless its captures end the game, of the sector captures
    /// lead to.
    pub fn new(
        v: &'a Variant,
        ix: &'a Indexer,
        sector: Sector,
        partner_cells: &'a [u16],
        capture_cells: Option<&'a [u16]>,
    ) -> Self {
        assert!(
            sector.is_moving() && sector.mover >= 3 && sector.opponent >= 3,
            "{sector} is not a moving-phase sector"
        );
        Self::of_slides(v, ix, sector, partner_cells, capture_cells)
    }

    /// The check of a placement sector whose mover has nothing in hand
    /// while the opponent still places (a game from another start): the
    /// mover slides or flies as in the moving phase, and its moves lead to
    /// the placement sectors where the opponent places, given by their
    /// cells as in [`MovingCheck::new`].
    pub fn sliding(
        v: &'a Variant,
        ix: &'a Indexer,
        sector: Sector,
        quiet_cells: &'a [u16],
        capture_cells: Option<&'a [u16]>,
    ) -> Self {
        assert!(
            sector.mover_hand == 0 && sector.opponent_hand > 0 && !v.move_while_placing(),
            "{sector} is not a placement sector with a sliding mover"
        );
        Self::of_slides(v, ix, sector, quiet_cells, capture_cells)
    }

    /// [`MovingCheck::new`] and [`MovingCheck::sliding`]: a mover with an
    /// empty hand, the cells of where its slides lead given one by one.
    pub(super) fn of_slides(
        v: &'a Variant,
        ix: &'a Indexer,
        sector: Sector,
        quiet_cells: &'a [u16],
        capture_cells: Option<&'a [u16]>,
    ) -> Self {
        let slides = successor_sectors(v, sector).slides.expect("an empty hand slides");
        assert!(
            slides.capture.is_some() == capture_cells.is_some(),
            "{sector}: capture cells given where captures end the game, or missing"
        );
        Self::of(v, ix, sector, |s| match s == slides.quiet {
            true => quiet_cells,
            false => capture_cells.expect("capture cells"),
        })
    }

    /// The check of any sector whose mover may slide: the moving phase, a
    /// sliding mover of another start's game, or Lasker's placement
    /// phase, where the mover with a stone in hand places it or slides.
    /// `cells` gives the cells of each sector of [`successor_sectors`].
    pub fn of(
        v: &'a Variant,
        ix: &'a Indexer,
        sector: Sector,
        cells: impl Fn(Sector) -> &'a [u16],
    ) -> Self {
        assert!(
            sector.mover + sector.mover_hand >= 3 && sector.opponent + sector.opponent_hand >= 3,
            "{sector}: a side with fewer than 3 stones has lost"
        );
        let next = successor_sectors(v, sector);
        let targets = |leads: Leads| {
            let with_cells = |s: Sector| {
                let (index, cells) = (ix.sector(s), cells(s));
                assert_eq!(cells.len() as u64, index.slots(), "cells of {s}");
                (index, cells)
            };
            Targets { quiet: with_cells(leads.quiet), captures: leads.capture.map(with_cells) }
        };
        MovingCheck {
            v,
            ix,
            sector,
            flies: v.flies(sector.mover as u32, sector.mover_hand as u32),
            blocked_draws: v.full_board_draw() && sector.is_moving(),
            slides: targets(
                next.slides.unwrap_or_else(|| panic!("{sector}: the mover may not slide")),
            ),
            placements: next.placements.map(targets),
            keyed: false,
        }
    }

    /// The same check over keyed cells ([`key_cells`]): every cell slice
    /// given to it, the successors' and the sector's own, holds keys.
    pub fn keyed(self) -> Self {
        MovingCheck { keyed: true, ..self }
    }

    /// Checks every canonical state of the sector against `own`, its
    /// stored cells, walking it by the opponent's stones
    /// (`check_by_opponent`); returns what it found and the counts of
    /// `own`.
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
            |o| self.frames(o),
            || self.gathered(),
            |m, _, f, g| self.gather(m, f, g),
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
            |o| self.frames(o),
            || self.gathered(),
            |m, _, f, g| self.gather(m, f, g),
        )
        .1
    }

    /// The cell the successors of the state (`mover`, `opponent`) give it,
    /// wider than a cell so a depth past the deepest a cell holds shows as
    /// a mismatch rather than wrapping.
    pub fn expected(&self, mover: Bits, opponent: Bits) -> u32 {
        let mut g = self.gathered();
        self.gather(mover, &self.frames(opponent), &mut g);
        g.resolve()
    }

    /// What the successors of every state with the opponent's stones
    /// `opponent` share: their movers, framed once, for slides and for
    /// placements. (No memo of captures, such as the placement solver's
    /// `CaptureMemo`: few slides close a mill, and remembering their
    /// captures did not pay.)
    pub(super) fn frames(
        &self,
        opponent: Bits,
    ) -> (OpponentFrames<'_>, Option<OpponentFrames<'_>>) {
        let frames = |t: &Targets<'a>| {
            opponent_frames(
                self.v,
                &t.quiet.0,
                t.captures.as_ref().map(|(index, _)| index),
                opponent,
            )
        };
        (frames(&self.slides), self.placements.as_ref().map(frames))
    }

    pub(super) fn gathered(&self) -> Gathered<'a> {
        let captures = |t: &Targets<'a>| t.captures.as_ref().map_or(&[][..], |(_, cells)| cells);
        let placed = self.placements.as_ref();
        Gathered {
            best: Best::new(self.keyed),
            quiet: Batch::new(self.slides.quiet.1),
            captures: Batch::new(captures(&self.slides)),
            placed: Batch::new(placed.map_or(&[][..], |t| t.quiet.1)),
            placed_captures: Batch::new(placed.map_or(&[][..], captures)),
            known: None,
        }
    }

    /// Ranks the successors of the state (`mover`, `opponent`) into `g`
    /// and asks for their cells; the state's value is then known without
    /// reads when the game ends.
    #[inline]
    pub(super) fn gather(
        &self,
        mover: Bits,
        (frames, placement_frames): &(OpponentFrames, Option<OpponentFrames>),
        g: &mut Gathered,
    ) {
        g.clear();
        let board = self.v.board();
        let empty = board.all() & !(mover | frames.opponent);
        let mut any_move = false;
        if let (Some(places), Some(pf)) = (&self.placements, placement_frames) {
            for to in points(empty) {
                any_move = true;
                let own = mover | 1 << to;
                if !pf.can_capture || !board.closes_mill(own, to) {
                    g.placed.add(quiet_slot(&pf.quiet, own), &mut g.best);
                    continue;
                }
                if places.captures.is_none() {
                    // The opponent is left with two stones: a win in 1,
                    // and nothing is faster.
                    g.known = Some(Cell::from(Value::Win(1)).0 as u32);
                    return;
                }
                for frame in &pf.captures {
                    g.placed_captures.add(frame.rank(own), &mut g.best);
                }
            }
        }
        board.for_each_step(mover, empty, self.flies, |from, to| {
            any_move = true;
            if g.known.is_some() {
                return;
            }
            let own = mover ^ (1 << from) ^ (1 << to);
            // A mill takes nothing when the opponent has no stone on the
            // board (a sliding mover of another start's game, or Lasker's
            // placement phase).
            if !frames.can_capture || !board.closes_mill(own, to) {
                g.quiet.add(quiet_slot(&frames.quiet, own), &mut g.best);
            } else if self.slides.captures.is_none() {
                g.known = Some(Cell::from(Value::Win(1)).0 as u32);
            } else {
                for frame in &frames.captures {
                    g.captures.add(frame.rank(own), &mut g.best);
                }
            }
        });
        if g.known.is_some() {
            return;
        }
        if !any_move {
            let full = mover | frames.opponent == board.all();
            let cell =
                if full && self.blocked_draws { Cell::DRAW } else { Cell::from(Value::Loss(0)) };
            g.known = Some(cell.0 as u32);
        }
    }
}
