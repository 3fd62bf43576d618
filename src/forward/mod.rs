//! The forward rule: a sector's values recomputed from the stored values
//! of its successors and the end-of-game rules. It shares the move
//! generator with the solver and nothing of its propagation, and touches
//! no file: it is given the cells of the sectors a sector's moves lead to
//! ([`successor_sectors`]). Two users build on it: the forward check of
//! stored tables (`crate::verify`, which reads them) and derived sectors
//! (`crate::database::derived`, whose values come from one ply over their
//! successors' tables, [`derive_cells`]): a change here changes what both
//! the check and the queries of derived sectors find.
//!
//! Three paths compute the same thing:
//!
//! - [`value_from_successors`], the obvious one: every legal move through
//!   the generic [`for_each_move`] and [`play`], every successor ranked
//!   from scratch. The tests hold the fast paths to it state by state.
//! - [`MovingCheck`] ([`moving`]), for every sector whose mover may slide:
//!   the moving phase, where nearly all the states are, with moves
//!   generated on bitboards as the solver's `init` does. A sector is
//!   walked by the opponent's stones (`walk.rs`), and every successor's
//!   mover is the state's opponent (or it less a captured stone), so the
//!   successors are ranked in [`MoverFrame`]s canonicalised once per
//!   opponent set, their cells prefetched in a batch before any is read,
//!   and found in a few blocks that stay in cache. The same walk checks a
//!   placement sector of a game from another start whose mover has an
//!   empty hand and slides while the opponent places
//!   ([`MovingCheck::sliding`]), and Lasker's placement phase, where the
//!   mover places a stone from its hand or slides one
//!   ([`MovingCheck::of`]): placements are ranked in frames of their own
//!   sectors. Where the moves lead is worked out here
//!   ([`successor_sectors`]), apart from the solver's pairs and exits.
//! - [`PlacementCheck`] ([`placement`]), for the placement phase without
//!   Lasker's rule, the same way: every empty point, its captures, and the
//!   quiet successors (whose mover is again the state's opponent) ranked
//!   in the same frames. It generates and ranks the placements with its
//!   own code (the solver's one-pass ranks and mill masks are not used).
//!
//! The fast paths can read keyed cells ([`key_cells`], [`keys`]): each
//! cell turned, once per table, into a key whose largest value among a
//! state's successors is its best move, so that a successor costs one
//! comparison instead of three. The verifier reads keys; the tests hold
//! the keyed checks to the plain ones.
//!
//! Either tier is checked against itself ([`Tier`]): the full tables
//! value and distance, the win/draw/loss tables (`morris export --wdl`)
//! outcome by outcome, read as cells of the shortest distance of their
//! kind, by the same paths.

mod hand_down;
pub mod keys;
pub mod moving;
pub mod placement;
mod walk;

pub use keys::{cell_key, cell_of_key, key_cells};
pub use moving::MovingCheck;
pub use placement::PlacementCheck;

use crate::index::{Indexer, MoverFrame, Sector, SectorIndex};
use crate::position::State;
use crate::rules::{for_each_move, play};
use crate::stats::{add_counts, tally, Counts};
use crate::table::Tier;
use crate::value::{Cell, Value};
use crate::variant::{Bits, Variant};
use keys::value_of_cell;
use rayon::prelude::*;
use std::sync::atomic::AtomicU16;

/// Slots handled by one rayon task.
pub(crate) const CHUNK: u64 = 1 << 14;

/// Mismatching states kept per sector as examples (those of the lowest slots).
pub(crate) const EXAMPLES: usize = 5;

/// The value of `state` from the values of its successors (`lookup`
/// gives the value of any state that is not over).
pub fn value_from_successors(
    v: &Variant,
    state: &State,
    lookup: &impl Fn(&State) -> Value,
) -> Value {
    if state.mover_stones() < 3 {
        return Value::Loss(0);
    }
    let mut best: Option<Value> = None;
    for_each_move(v, state, |m| {
        let next = play(state, m);
        let after = if next.mover_stones() < 3 { Value::Loss(0) } else { lookup(&next) };
        let mine = after.back();
        if best.is_none_or(|b| mine.preference() > b.preference()) {
            best = Some(mine);
        }
    });
    best.unwrap_or_else(|| {
        let full = state.mover | state.opponent == v.board().all();
        if full && v.full_board_draw() && state.is_moving_phase() {
            Value::Draw
        } else {
            Value::Loss(0)
        }
    })
}

/// What checking one sector found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SectorCheck {
    /// The sector.
    pub sector: Sector,
    /// States checked.
    pub states: u64,
    /// States whose stored value differs from the recomputed one.
    pub mismatches: u64,
    /// A few mismatching states: (slot, stored, recomputed).
    pub examples: Vec<(u64, Value, Value)>,
    /// Whether the counts in the header agree with the cells.
    pub counts_agree: bool,
}

impl SectorCheck {
    /// Notes one state's stored and recomputed values.
    #[inline]
    pub(crate) fn note(&mut self, counts: &mut Counts, slot: u64, stored: Value, expected: Value) {
        tally(counts, stored);
        self.states += 1;
        if stored != expected {
            self.mismatch(slot, stored, expected);
        }
    }

    /// Notes one state's stored cell and recomputed one (as the tier
    /// stores it), without branches on the cell: the states' values come
    /// in no order a branch predictor could learn. Counted as
    /// [`tally`] counts its value.
    #[inline(always)]
    pub(crate) fn note_cell(&mut self, counts: &mut Counts, slot: u64, stored: u16, found: u32) {
        let c = u32::from(stored);
        // An odd cell is a loss at depth c - 1, an even one a win, 0 a draw.
        let loss = c & 1;
        let win = u32::from(c != 0) & (loss ^ 1);
        counts.states += 1;
        counts.wins += u64::from(win);
        counts.losses += u64::from(loss);
        counts.draws += u64::from(c == 0);
        let depth = c.saturating_sub(1) as u16;
        counts.max_win = counts.max_win.max(depth * win as u16);
        counts.max_loss = counts.max_loss.max(depth * loss as u16);
        self.states += 1;
        if c != found {
            self.mismatch(slot, Value::from(Cell(stored)), value_of_cell(found));
        }
    }

    #[cold]
    pub(crate) fn mismatch(&mut self, slot: u64, stored: Value, expected: Value) {
        self.mismatches += 1;
        self.examples.push((slot, stored, expected));
        if self.examples.len() > EXAMPLES {
            self.keep_first_examples();
        }
    }

    /// Keeps the examples of the lowest slots: the walks do not go in
    /// slot order, and the report should not depend on how they went.
    pub(crate) fn keep_first_examples(&mut self) {
        self.examples.sort_unstable_by_key(|&(slot, _, _)| slot);
        self.examples.truncate(EXAMPLES);
    }

    pub(crate) fn merge(
        (mut a, ca): (SectorCheck, Counts),
        (b, cb): (SectorCheck, Counts),
    ) -> (SectorCheck, Counts) {
        a.states += b.states;
        a.mismatches += b.mismatches;
        a.examples.extend(b.examples);
        a.keep_first_examples();
        (a, add_counts(ca, cb))
    }
}

/// The sectors the forward check of `sector` reads: its own and those
/// its moves lead to (a capture that ends the game needs none).
pub(crate) fn sectors_to_read(v: &Variant, sector: Sector) -> Vec<Sector> {
    let mut needed = vec![sector];
    needed.extend(successors_of(v, sector).into_iter().filter(|&s| s != sector));
    needed
}

/// The sectors the moves of `sector` lead to, each once (a capture that
/// ends the game leads to none).
pub fn successors_of(v: &Variant, sector: Sector) -> Vec<Sector> {
    let next = successor_sectors(v, sector);
    let mut out = Vec::new();
    for leads in [next.slides, next.placements].into_iter().flatten() {
        for s in std::iter::once(leads.quiet).chain(leads.capture) {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

/// Where one kind of move (slides and flies, or placements) leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leads {
    /// The sector of the moves that capture nothing.
    pub quiet: Sector,
    /// The sector of captures; `None` when every capture ends the game
    /// (the opponent is left with two stones) or none can happen (the
    /// mover has fewer than three stones on the board after the move, or
    /// the opponent none).
    pub capture: Option<Sector>,
}

/// Where the moves from a sector lead, by kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Successors {
    /// Slides and flies: with an empty hand, or always in Lasker's rule.
    pub slides: Option<Leads>,
    /// Placements: with a stone in hand.
    pub placements: Option<Leads>,
}

/// The sectors the moves from `sector` lead to, worked out here from the
/// rules, apart from the solver's. After any move the opponent is to
/// move with its hand as it was; a slide keeps the mover's stones and
/// hand, a placement puts one stone from the hand on the board; a
/// capture takes one of the opponent's stones from the board.
pub fn successor_sectors(v: &Variant, sector: Sector) -> Successors {
    let Sector { mover: m, opponent: o, mover_hand: mh, opponent_hand: oh } = sector;
    let leads = |on_board: u8, hand: u8| {
        let after = |opponent: u8| Sector {
            mover: opponent,
            opponent: on_board,
            mover_hand: oh,
            opponent_hand: hand,
        };
        let captures = on_board >= 3 && o >= 1 && o - 1 + oh >= 3;
        Leads { quiet: after(o), capture: captures.then(|| after(o - 1)) }
    };
    Successors {
        slides: (mh == 0 || v.move_while_placing()).then(|| leads(m, mh)),
        placements: (mh > 0).then(|| leads(m + 1, mh - 1)),
    }
}

/// The forward check that fits a sector: [`PlacementCheck`] where the
/// mover places from its hand and may not slide, else [`MovingCheck`].
pub(crate) enum Forward<'a> {
    Placement(PlacementCheck<'a>),
    Moving(MovingCheck<'a>),
}

impl<'a> Forward<'a> {
    /// The check of `sector`, given the cells of the sectors its moves
    /// lead to ([`successor_sectors`]).
    pub(crate) fn of(
        v: &'a Variant,
        ix: &'a Indexer,
        sector: Sector,
        cells: impl Fn(Sector) -> &'a [u16],
    ) -> Self {
        if sector.mover_hand > 0 && !v.move_while_placing() {
            let next = successor_sectors(v, sector).placements.expect("placements");
            let capture = next.capture.map(&cells);
            Forward::Placement(PlacementCheck::new(v, ix, sector, cells(next.quiet), capture))
        } else {
            Forward::Moving(MovingCheck::of(v, ix, sector, cells))
        }
    }

    /// The same check over keyed cells.
    pub(crate) fn keyed(self) -> Self {
        match self {
            Forward::Placement(c) => Forward::Placement(c.keyed()),
            Forward::Moving(c) => Forward::Moving(c.keyed()),
        }
    }

    pub(crate) fn check_tier(&self, own: &[u16], tier: Tier) -> (SectorCheck, Counts) {
        match self {
            Forward::Placement(c) => c.check_tier(own, tier),
            Forward::Moving(c) => c.check_tier(own, tier),
        }
    }

    pub(crate) fn fill_tier(&self, out: &mut [u16], tier: Tier) -> Counts {
        match self {
            Forward::Placement(c) => c.fill_tier(out, tier),
            Forward::Moving(c) => c.fill_tier(out, tier),
        }
    }
}

/// The cells of a derived sector (one whose table was left out, see
/// `crate::database::derived`): every canonical state's cell recomputed
/// from the cells of the sectors its moves lead to (`cells`, as `tier`
/// stores them), written into `out` (the sector's slots; the others are
/// left as they are), by the forward check's walks. Returns their counts.
pub fn derive_cells<'a>(
    v: &'a Variant,
    ix: &'a Indexer,
    sector: Sector,
    cells: impl Fn(Sector) -> &'a [u16],
    out: &mut [u16],
    tier: Tier,
) -> Counts {
    Forward::of(v, ix, sector, cells).fill_tier(out, tier)
}

/// `cells` as atomic cells, for threads that write distinct slots.
pub(crate) fn atomic_cells(cells: &mut [u16]) -> &[AtomicU16] {
    // Safety: `AtomicU16` has the size and alignment of `u16`, and the
    // exclusive borrow means no other access while the result lives.
    unsafe { &*(cells as *mut [u16] as *const [AtomicU16]) }
}

/// Runs `f` on every canonical state of `index`, chunks in parallel.
pub(crate) fn for_each_chunk(
    index: &SectorIndex,
    sector: Sector,
    f: impl Fn(&mut SectorCheck, &mut Counts, u64, Bits, Bits) + Sync,
) -> (SectorCheck, Counts) {
    let empty = || (SectorCheck { sector, ..Default::default() }, Counts::default());
    (0..index.slots().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (mut check, mut counts) = empty();
            let range = c * CHUNK..((c + 1) * CHUNK).min(index.slots());
            index.for_each_in(range, |slot, mover, opponent| {
                f(&mut check, &mut counts, slot, mover, opponent)
            });
            (check, counts)
        })
        .reduce(empty, SectorCheck::merge)
}

#[cfg(test)]
mod tests {
    use super::keys::*;
    use super::*;
    use crate::variant::points;

    /// A recomputed cell in the win/draw/loss tier is the cell of its
    /// outcome at the shortest distance, whatever its depth.
    #[test]
    fn the_win_draw_loss_tier_keeps_a_cell_s_kind_alone() {
        for cell in 0..200u32 {
            let stored = Tier::Wdl.stored_as(cell);
            let kind = |c: u32| Value::from(Cell(c as u16)).kind();
            assert_eq!(kind(stored), kind(cell), "cell {cell}");
            assert!(stored <= 2, "cell {cell} stored as {stored}");
            assert_eq!(Tier::Full.stored_as(cell), cell);
        }
    }

    /// Every cell has its own key, and back.
    #[test]
    fn keys_are_one_to_one() {
        let mut seen = vec![false; 1 << 16];
        for cell in 0..=u16::MAX {
            let key = cell_key(cell);
            assert!(!seen[key as usize], "cell {cell}: key {key} taken twice");
            seen[key as usize] = true;
            assert_eq!(cell_of_key(key), cell);
        }
    }

    /// The largest key gives the cell the three-way best does, for any
    /// successors (a few cells of every kind, from shallow to the deepest
    /// a cell holds).
    #[test]
    fn the_largest_key_is_the_best_successor() {
        let cells = [0u16, 1, 2, 3, 4, 7, 10, 11, 205, 206, 65_533, 65_534, 65_535];
        // Every non-empty subset of those cells, as one state's successors.
        for subset in 1..1u32 << cells.len() {
            let successors = points(subset).map(|i| cells[i as usize]);
            let (mut best, mut keyed) = (Best::new(false), Best::new(true));
            for c in successors {
                best.add(u32::from(c));
                keyed.key = keyed.key.max(u32::from(cell_key(c)));
            }
            assert_eq!(keyed.cell(), best.cell(), "successors {subset:b}");
        }
    }

    /// A stored cell is counted as its value is, without the value.
    #[test]
    fn a_cell_is_noted_as_its_value_is_tallied() {
        for cell in (0..600u16).chain([65_534, 65_535]) {
            let (mut check, mut counts) = (SectorCheck::default(), Counts::default());
            check.note_cell(&mut counts, 0, cell, u32::from(cell));
            let mut expected = Counts::default();
            tally(&mut expected, Value::from(Cell(cell)));
            assert_eq!(counts, expected, "cell {cell}");
            assert_eq!((check.states, check.mismatches), (1, 0));
            // A recomputed cell past the deepest a cell holds differs.
            check.note_cell(&mut counts, 1, cell, 1 << 16);
            assert_eq!(check.mismatches, 1, "cell {cell}");
        }
    }
}
