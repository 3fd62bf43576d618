//! The independent forward check: every stored value is recomputed from
//! the stored values of its successors and the end-of-game rules. It
//! shares the move generator with the solver and nothing of its
//! propagation.
//!
//! Three paths compute the same thing:
//!
//! - [`value_from_successors`], the obvious one: every legal move through
//!   the generic [`for_each_move`] and [`play`], every successor ranked
//!   from scratch. The tests hold the fast paths to it state by state,
//!   and [`check_sector_generic`] checks a whole sector this way.
//! - [`MovingCheck`], for every sector whose mover may slide: the moving
//!   phase, where nearly all the states are, with moves generated on
//!   bitboards as the solver's `init` does. A sector is walked by the
//!   opponent's stones, and every successor's mover is the state's
//!   opponent (or it less a captured stone), so the successors are ranked
//!   in [`MoverFrame`]s canonicalised once per opponent set, their cells
//!   prefetched in a batch before any is read, and found in a few blocks
//!   that stay in cache. The same walk checks a placement sector of a
//!   game from another start whose mover has an empty hand and slides
//!   while the opponent places ([`MovingCheck::sliding`]), and Lasker's
//!   placement phase, where the mover places a stone from its hand or
//!   slides one ([`MovingCheck::of`]): placements are ranked in frames of
//!   their own sectors. Where the moves lead is worked out here
//!   ([`successor_sectors`]), apart from the solver's pairs and exits.
//! - [`PlacementCheck`], for the placement phase without Lasker's rule,
//!   the same way: every empty point, its captures, and the quiet
//!   successors (whose mover is again the state's opponent) ranked in the
//!   same frames. It generates and ranks the placements with its own code
//!   (the solver's one-pass ranks and mill masks are not used).
//!
//! The fast paths can read keyed cells ([`key_cells`], `keyed()`): each
//! cell turned, once per table, into a key whose largest value among a
//! state's successors is its best move, so that a successor costs one
//! comparison instead of three. [`Verifier`] reads keys; the tests hold
//! the keyed checks to the plain ones.
//!
//! Either tier is checked against itself ([`Tier`]): the full tables
//! value and distance, the win/draw/loss tables (`morris export --wdl`)
//! outcome by outcome, read as cells of the shortest distance of their
//! kind, by the same paths.
//!
//! A [`Verifier`] walks the sectors in an order where neighbours read
//! the same tables (the two sides of a pair; placement sectors that share
//! a successor) and keeps the decompressed cells a later sector reads
//! again, up to a memory budget ([`Verifier::with_budget`]): those the
//! next sector reads always, then those read soonest. Keeping every
//! table a later sector needs held 20 GiB at once in nine's placement
//! phase; with no budget a table may be read up to three times (as
//! itself, and as the successor of two sectors).

use crate::database::{Database, DbError, SectorTable};
use crate::huge::HugeCells;
use crate::index::{
    compact_rank, deposit_bits, for_each_subset, Indexer, MoverFrame, Sector, SectorIndex, BINOMIAL,
};
use crate::position::State;
use crate::rules::{for_each_move, play};
use crate::stats::Counts;
use crate::stats::{add_counts, tally};
use crate::value::{Cell, Value};
use crate::variant::{points, Bits, Variant};
use rayon::prelude::*;
use std::cell::Cell as Slot;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU16, Ordering};

/// Slots handled by one rayon task.
const CHUNK: u64 = 1 << 14;
/// Mismatching states kept per sector as examples (those of the lowest slots).
const EXAMPLES: usize = 5;

/// Which tier of tables a check reads: the full tier (values with their
/// distances), or the win/draw/loss tier (`morris export --wdl`), whose
/// outcomes are read as cells of their kind at its shortest distance (a
/// loss at 0, a win at 1) and compared by kind: a state's recomputed
/// outcome is a win when a successor is lost, else a draw when one is
/// drawn, else a loss, as with distances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Tier {
    /// `<variant>-<sector>.mtb`: value and distance.
    #[default]
    Full,
    /// `<variant>-<sector>.wdl`: the outcome only.
    Wdl,
}

impl Tier {
    /// A recomputed cell as this tier stores it: itself in the full tier,
    /// its outcome's cell in the win/draw/loss tier.
    #[inline(always)]
    pub(crate) fn stored_as(self, cell: u32) -> u32 {
        match self {
            Tier::Full => cell,
            Tier::Wdl if cell == 0 => 0,
            // Odd cells are losses (even depths), even ones wins.
            Tier::Wdl => 2 - (cell & 1),
        }
    }

    /// Whether the header's `counts` are those the check `found`: every
    /// count in the full tier, the states, wins, draws and losses in the
    /// win/draw/loss tier, which keeps the full table's header but not its
    /// distances.
    pub fn counts_agree(self, found: &Counts, header: &Counts) -> bool {
        match self {
            Tier::Full => found == header,
            Tier::Wdl => {
                (found.states, found.wins, found.draws, found.losses)
                    == (header.states, header.wins, header.draws, header.losses)
            }
        }
    }
}

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
    fn note(&mut self, counts: &mut Counts, slot: u64, stored: Value, expected: Value) {
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
    fn note_cell(&mut self, counts: &mut Counts, slot: u64, stored: u16, found: u32) {
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
    fn mismatch(&mut self, slot: u64, stored: Value, expected: Value) {
        self.mismatches += 1;
        self.examples.push((slot, stored, expected));
        if self.examples.len() > EXAMPLES {
            self.keep_first_examples();
        }
    }

    /// Keeps the examples of the lowest slots: the walks do not go in
    /// slot order, and the report should not depend on how they went.
    fn keep_first_examples(&mut self) {
        self.examples.sort_unstable_by_key(|&(slot, _, _)| slot);
        self.examples.truncate(EXAMPLES);
    }

    fn merge(
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
fn sectors_to_read(v: &Variant, sector: Sector) -> Vec<Sector> {
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

/// Recomputes every canonical state of `sector` from its successors'
/// stored values, reading the tables it needs.
pub fn check_sector(db: &Database, sector: Sector) -> Result<SectorCheck, DbError> {
    let mut verifier = Verifier::new(db, &[sector]);
    verifier.next().map(|(_, check)| check).expect("one sector to check")
}

/// The forward check that fits a sector: [`PlacementCheck`] where the
/// mover places from its hand and may not slide, else [`MovingCheck`].
enum Forward<'a> {
    Placement(PlacementCheck<'a>),
    Moving(MovingCheck<'a>),
}

impl<'a> Forward<'a> {
    /// The check of `sector`, given the cells of the sectors its moves
    /// lead to ([`successor_sectors`]).
    fn of(
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
    fn keyed(self) -> Self {
        match self {
            Forward::Placement(c) => Forward::Placement(c.keyed()),
            Forward::Moving(c) => Forward::Moving(c.keyed()),
        }
    }

    fn check_tier(&self, own: &[u16], tier: Tier) -> (SectorCheck, Counts) {
        match self {
            Forward::Placement(c) => c.check_tier(own, tier),
            Forward::Moving(c) => c.check_tier(own, tier),
        }
    }

    fn fill_tier(&self, out: &mut [u16], tier: Tier) -> Counts {
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
fn atomic_cells(cells: &mut [u16]) -> &[AtomicU16] {
    // Safety: `AtomicU16` has the size and alignment of `u16`, and the
    // exclusive borrow means no other access while the result lives.
    unsafe { &*(cells as *mut [u16] as *const [AtomicU16]) }
}

/// Checks sectors in an order where neighbours share tables: the moving
/// phase pair by pair, then the placement sectors by the tables their
/// placements lead to. Each item is a sector with what its check found.
pub struct Verifier<'a> {
    db: &'a Database,
    tier: Tier,
    plan: Vec<Sector>,
    next: usize,
    /// Decompressed cells of the tables the sector being checked, or a
    /// later one, reads.
    loaded: HashMap<Sector, HugeCells>,
    /// Bytes of cells kept between sectors beyond those the next sector
    /// reads.
    budget: u64,
    /// Tables read so far, and their cells.
    reads: TableReads,
}

/// What a [`Verifier`] has read from disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableReads {
    /// Tables read (a table read again counts again).
    pub tables: u64,
    /// Their slots.
    pub slots: u64,
}

/// The verifier's default budget of cells kept between sectors: a
/// quarter of the machine's memory, at most 6 GiB. Nine's placement
/// phase then reads 30 % fewer cells than with none (tables of 32 G
/// canonical states instead of 45 G), which saves their decompression
/// and fresh pages.
pub fn default_budget() -> u64 {
    const MAX: u64 = 6 << 30;
    physical_memory().map_or(1 << 30, |bytes| (bytes / 4).min(MAX))
}

/// The machine's memory in bytes, where the system says.
fn physical_memory() -> Option<u64> {
    // Safety: sysconf only reads system constants.
    let (pages, page) =
        unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    (pages > 0 && page > 0).then(|| pages as u64 * page as u64)
}

impl<'a> Verifier<'a> {
    /// A check of `sectors` of `db`'s full tables.
    pub fn new(db: &'a Database, sectors: &[Sector]) -> Verifier<'a> {
        Verifier::of_tier(db, sectors, Tier::Full)
    }

    /// A check of `sectors` of `db`'s tables of `tier`, each against its
    /// successors in the same tier.
    pub fn of_tier(db: &'a Database, sectors: &[Sector], tier: Tier) -> Verifier<'a> {
        let mut plan = sectors.to_vec();
        plan.sort_by_key(|&s| plan_order(db.variant(), s));
        let (loaded, reads) = (HashMap::new(), TableReads::default());
        Verifier { db, tier, plan, next: 0, loaded, budget: default_budget(), reads }
    }

    /// The same check keeping at most about `bytes` of cells between
    /// sectors for later ones (besides those the next sector reads).
    /// What is checked does not change, only how often a table is read.
    pub fn with_budget(self, bytes: u64) -> Self {
        Verifier { budget: bytes, ..self }
    }

    /// The tables read from disk so far.
    pub fn reads(&self) -> TableReads {
        self.reads
    }

    /// The sectors in the order they are checked.
    pub fn plan(&self) -> &[Sector] {
        &self.plan
    }

    /// The sector the next item is about.
    pub fn peek(&self) -> Option<Sector> {
        self.plan.get(self.next).copied()
    }

    fn check(&mut self, sector: Sector) -> Result<SectorCheck, DbError> {
        if let Ok(SectorTable::Derived(stub)) = self.db.tier(sector) {
            return self.check_derived(sector, stub.info().counts.states);
        }
        for s in sectors_to_read(self.db.variant(), sector) {
            if !self.loaded.contains_key(&s) {
                let cells = self.load_keyed(s)?;
                self.loaded.insert(s, cells);
            }
        }
        let header = match self.tier {
            Tier::Full => self.db.table(sector)?.info().counts.clone(),
            Tier::Wdl => self.db.wdl_table(sector)?.info().counts.clone(),
        };
        let tier = self.tier;
        let v = self.db.variant();
        let ix = self.db.indexer();
        let cells = |s: Sector| &self.loaded[&s][..];
        let (mut check, found) =
            Forward::of(v, ix, sector, cells).keyed().check_tier(cells(sector), tier);
        check.counts_agree = tier.counts_agree(&found, &header);
        Ok(check)
    }

    /// A derived sector's check: its cells recomputed from its
    /// successors' (which the checks of those sectors hold to theirs), and
    /// their counts compared with its stub's; the cells are kept for the
    /// sectors that read them.
    fn check_derived(&mut self, sector: Sector, states: u64) -> Result<SectorCheck, DbError> {
        if !self.loaded.contains_key(&sector) {
            let cells = self.load_keyed(sector)?;
            self.loaded.insert(sector, cells);
        }
        Ok(SectorCheck { sector, states, counts_agree: true, ..Default::default() })
    }

    /// The cells of `sector`'s table of the tier checked, as keys.
    fn load_keyed(&mut self, sector: Sector) -> Result<HugeCells, DbError> {
        let mut cells = match self.tier {
            Tier::Full => self.db.load_cells_huge(sector)?,
            Tier::Wdl => self.db.load_outcome_cells_huge(sector)?,
        };
        key_cells(&mut cells);
        self.reads.tables += 1;
        self.reads.slots += cells.len() as u64;
        Ok(cells)
    }

    /// Keeps the cells the next sector reads, and of those a later one
    /// reads, the soonest needed while they fit in the budget; drops the
    /// rest. A table dropped is read again when its turn comes.
    fn forget_used(&mut self) {
        let v = self.db.variant();
        let rest: Vec<Vec<Sector>> =
            self.plan[self.next..].iter().map(|&s| sectors_to_read(v, s)).collect();
        let next_read = |s: &Sector| rest.iter().position(|reads| reads.contains(s));
        let mut later: Vec<(usize, Sector, u64)> = self
            .loaded
            .iter()
            .filter_map(|(s, cells)| Some((next_read(s)?, *s, 2 * cells.len() as u64)))
            .collect();
        later.sort_unstable();
        let mut kept = 0;
        let keep: Vec<Sector> = later
            .into_iter()
            .filter(|&(when, _, bytes)| {
                when == 0 || {
                    kept += bytes;
                    kept <= self.budget
                }
            })
            .map(|(_, s, _)| s)
            .collect();
        self.loaded.retain(|s, _| keep.contains(s));
    }
}

/// Where a sector comes in the verifier's plan. Moving sectors by pair
/// (the order pairs are solved in), the side with more stones first, so
/// the two sides read each other; Lasker's placement sectors likewise,
/// pair by pair after them. Other placement sectors after the moving
/// ones, grouped by the tables their placements lead to: `m-o-mh-oh`
/// reads `o-(m+1)-oh-(mh-1)` (quiet) and `(o-1)-(m+1)-oh-(mh-1)`
/// (capture), so with `o` falling one sector's capture table is the next
/// one's quiet table.
fn plan_order(v: &Variant, s: Sector) -> [u8; 8] {
    let Sector { mover: m, opponent: o, mover_hand: mh, opponent_hand: oh } = s;
    if s.is_moving() || v.move_while_placing() {
        let (larger, smaller) = ((m, mh).max((o, oh)), (m, mh).min((o, oh)));
        let side = (m, mh) == smaller && smaller != larger;
        let stones = s.total_stones() as u8;
        let phase = !s.is_moving() as u8;
        [phase, mh + oh, stones, larger.0, larger.1, smaller.0, smaller.1, side as u8]
    } else {
        [1, mh, oh, m, u8::MAX - o, 0, 0, 0]
    }
}

impl Iterator for Verifier<'_> {
    type Item = (Sector, Result<SectorCheck, DbError>);

    fn next(&mut self) -> Option<Self::Item> {
        let sector = *self.plan.get(self.next)?;
        let check = self.check(sector);
        self.next += 1;
        self.forget_used();
        Some((sector, check))
    }
}

/// Checks `sector` as [`check_sector`] does, every state through the
/// plain rule, [`value_from_successors`], and the generic ranking: slow,
/// for the tests to hold the fast checks to.
pub fn check_sector_generic(db: &Database, sector: Sector) -> Result<SectorCheck, DbError> {
    let mut loaded = HashMap::new();
    for s in sectors_to_read(db.variant(), sector) {
        loaded.insert(s, db.load_cells_huge(s)?);
    }
    let (mut check, found) = check_generic(db.variant(), db.indexer(), sector, &loaded);
    check.counts_agree = found == db.table(sector)?.info().counts;
    Ok(check)
}

/// The generic check of any sector: every state through
/// [`value_from_successors`].
fn check_generic(
    v: &Variant,
    ix: &Indexer,
    sector: Sector,
    cells: &HashMap<Sector, HugeCells>,
) -> (SectorCheck, Counts) {
    let lookup = |s: &State| {
        let sec = Sector::of(s);
        let table =
            cells.get(&sec).unwrap_or_else(|| panic!("successor in unexpected sector {sec}"));
        Value::from(Cell(table[ix.sector(sec).rank(s.mover, s.opponent) as usize]))
    };
    let index = ix.sector(sector);
    let own = &cells[&sector];
    for_each_chunk(&index, sector, |check, counts, slot, mover, opponent| {
        let state = sector.state(mover, opponent);
        let stored = Value::from(Cell(own[slot as usize]));
        check.note(counts, slot, stored, value_from_successors(v, &state, &lookup));
    })
}

/// Runs `f` on every canonical state of `index`, chunks in parallel.
fn for_each_chunk(
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

/// The forward check, on bitboards, of a sector whose mover slides or
/// flies: the moving phase; a placement sector of a game from another
/// start whose mover has an empty hand ([`MovingCheck::sliding`]); and
/// Lasker's placement phase, where the mover may place a stone from its
/// hand or slide one on the board ([`MovingCheck::of`]). Given the cells
/// of the sectors its moves lead to ([`successor_sectors`]).
pub struct MovingCheck<'a> {
    v: &'a Variant,
    ix: &'a Indexer,
    sector: Sector,
    flies: bool,
    /// Whether a state with no move is a draw rather than a loss: a full
    /// board in the moving phase, where the variant says so.
    blocked_draws: bool,
    /// Where slides and flies lead.
    slides: Targets<'a>,
    /// Where placements lead, when the mover holds a stone (Lasker).
    placements: Option<Targets<'a>>,
    /// Whether the cells given (the successors' and the sector's own) are
    /// keyed ([`MovingCheck::keyed`]).
    keyed: bool,
}

/// The sectors one kind of move leads to, with their cells (see
/// [`Leads`]).
struct Targets<'a> {
    quiet: (SectorIndex<'a>, &'a [u16]),
    captures: Option<(SectorIndex<'a>, &'a [u16])>,
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
    fn of_slides(
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
            |o| self.frames(o),
            || self.gathered(),
            |m, f, g| self.gather(m, f, g),
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
    /// placements. (No [`CaptureMemo`]: few slides close a mill, and
    /// remembering their captures did not pay.)
    fn frames(&self, opponent: Bits) -> (OpponentFrames<'_>, Option<OpponentFrames<'_>>) {
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

    fn gathered(&self) -> Gathered<'a> {
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
    fn gather(
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
        for from in points(mover) {
            let targets = if self.flies { empty } else { empty & board.adjacent(from) };
            for to in points(targets) {
                any_move = true;
                let own = mover ^ (1 << from) ^ (1 << to);
                // A mill takes nothing when the opponent has no stone on
                // the board (a sliding mover of another start's game, or
                // Lasker's placement phase).
                if !frames.can_capture || !board.closes_mill(own, to) {
                    g.quiet.add(quiet_slot(&frames.quiet, own), &mut g.best);
                    continue;
                }
                if self.slides.captures.is_none() {
                    g.known = Some(Cell::from(Value::Win(1)).0 as u32);
                    return;
                }
                for frame in &frames.captures {
                    g.captures.add(frame.rank(own), &mut g.best);
                }
            }
        }
        if !any_move {
            let full = mover | frames.opponent == board.all();
            let cell =
                if full && self.blocked_draws { Cell::DRAW } else { Cell::from(Value::Loss(0)) };
            g.known = Some(cell.0 as u32);
        }
    }
}

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
fn check_by_opponent<F, G: Resolve>(
    v: &Variant,
    ix: &Indexer,
    sector: Sector,
    (own, tier, keyed): (&[u16], Tier, bool),
    frames: impl Fn(Bits) -> F + Sync,
    gathered: impl Fn() -> G + Sync,
    gather: impl Fn(Bits, &F, &mut G) + Sync,
) -> (SectorCheck, Counts) {
    walk_by_opponent(v, ix, sector, (&Compare(own, keyed), tier), frames, gathered, gather)
}

/// What [`walk_by_opponent`] does with each state's recomputed cell.
trait Sink: Sync {
    /// Slots of the sector's own cells.
    fn len(&self) -> usize;
    /// Hints that the cell of `slot` comes next.
    fn prefetch(&self, slot: u64);
    /// Takes the recomputed cell `found` (as the tier stores it) of `slot`.
    fn take(&self, check: &mut SectorCheck, counts: &mut Counts, slot: u64, found: u32);
}

/// The check: each recomputed cell against the stored one; the stored
/// cells keyed ([`key_cells`]) when the flag says so.
struct Compare<'a>(&'a [u16], bool);

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
struct Fill<'a>(&'a [AtomicU16]);

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
fn walk_by_opponent<F, G: Resolve>(
    v: &Variant,
    ix: &Indexer,
    sector: Sector,
    (own, tier): (&impl Sink, Tier),
    frames: impl Fn(Bits) -> F + Sync,
    gathered: impl Fn() -> G + Sync,
    gather: impl Fn(Bits, &F, &mut G) + Sync,
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
            let own_slot = |mover: Bits| match (images, &opponent_images) {
                (Some(i), Some(o)) => index.rank_images(&i.set(mover), o),
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
                        gather(pending.movers[k], &frames, &mut g[k % 2]);
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
            for_each_subset(free.count_ones(), sector.mover as u32, |_, compact| {
                let mover = deposit_bits(compact, free);
                if stabiliser != 1
                    && points(stabiliser & !1)
                        .any(|s| ix.symmetries().apply(s as usize, mover) < mover)
                {
                    return;
                }
                pending.movers[pending.len] = mover;
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
const AHEAD: usize = 32;

/// The mover sets of states waiting for their check, and their own slots.
#[derive(Default)]
struct Pending {
    movers: [Bits; AHEAD],
    slots: [u64; AHEAD],
    len: usize,
}

/// The forward check of one placement sector on bitboards, given the
/// cells of the sectors its placements lead to. Its placements are
/// generated here, apart from the placement solver's, and the tests hold
/// it to [`value_from_successors`]. Not for variants where a player may
/// move while placing (Lasker): those take [`MovingCheck::of`].
pub struct PlacementCheck<'a> {
    v: &'a Variant,
    ix: &'a Indexer,
    sector: Sector,
    /// Where placements that capture nothing lead.
    quiet: (SectorIndex<'a>, &'a [u16]),
    /// Where captures lead; `None` when every capture ends the game.
    captures: Option<(SectorIndex<'a>, &'a [u16])>,
    /// Whether the cells given are keyed ([`PlacementCheck::keyed`]).
    keyed: bool,
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

    fn gathered(&self) -> PlacementGathered<'a> {
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
    fn frames(&self, opponent: Bits) -> OpponentFrames<'_> {
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
    fn walk_frames(&self, opponent: Bits) -> PlacementFrames<'_> {
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
    fn gather(&self, mover: Bits, walk: &PlacementFrames, pg: &mut PlacementGathered) {
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

/// The frames of a state's successors, by its opponent's stones: the
/// quiet successors' mover is those stones, a capture's is them less the
/// captured stone (one frame per stone that may be taken).
struct OpponentFrames<'a> {
    opponent: Bits,
    quiet: MoverFrame<'a>,
    captures: Vec<MoverFrame<'a>>,
    /// Whether a mill takes a stone: the opponent has one on the board.
    can_capture: bool,
}

/// The frames of a placement check's walk by the opponent's stones, and
/// over keyed cells the memo of the best capture after each placement
/// that closes a mill.
struct PlacementFrames<'a> {
    frames: OpponentFrames<'a>,
    memo: Option<CaptureMemo>,
}

/// The best capture (the largest key) after a placement that closes a
/// mill, by the mover's stones after it. It depends on those stones and
/// the opponent's alone, and in a walk by the opponent's stones several
/// states place into the same stones: one for each stone of the mill
/// placed last. So the capture successors of those states (one per
/// stone that may be taken) are ranked and read once for all of them
/// instead of once each.
struct CaptureMemo {
    /// The points free of the opponent's stones, among which the stones
    /// after a placement are ranked.
    free: Bits,
    /// By that rank: 0 while unknown, else the best key plus one.
    best: Vec<Slot<u32>>,
}

impl CaptureMemo {
    /// An empty memo for `stones` stones among the points `free`.
    fn new(free: Bits, stones: u32) -> CaptureMemo {
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
    fn gather_captures(&self, own: Bits, pg: &mut PlacementGathered) {
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
struct CaptureGroups<'c> {
    cells: &'c [u16],
    slots: [u64; BATCH],
    len: usize,
    /// Each group's rank in the memo and the end of its slots.
    groups: [(u32, u8); GROUPS],
    count: usize,
    /// Each group's best key, once read.
    best: [u32; GROUPS],
    read: bool,
}

/// Placements of one state that close a mill, grouped at most.
const GROUPS: usize = 16;

impl<'c> CaptureGroups<'c> {
    fn new(cells: &'c [u16]) -> CaptureGroups<'c> {
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
    fn add(&mut self, at: u32, frames: &[MoverFrame], own: Bits) -> bool {
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
    fn read(&mut self, best: &mut Best) {
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
    fn remember(&mut self, memo: &CaptureMemo) {
        if self.read {
            for (&(at, _), &key) in self.groups[..self.count].iter().zip(&self.best) {
                memo.best[at as usize].set(key + 1);
            }
        }
        self.clear();
    }

    fn clear(&mut self) {
        self.len = 0;
        self.count = 0;
        self.read = false;
    }
}

/// The frames of the successors of the states whose opponent holds
/// `opponent`: quiet ones in `quiet`, captures in `captures` (none when
/// every capture ends the game).
fn opponent_frames<'a>(
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
struct Gathered<'c> {
    best: Best,
    quiet: Batch<'c>,
    captures: Batch<'c>,
    /// Placements, in Lasker's placement phase, where a state both slides
    /// and places.
    placed: Batch<'c>,
    placed_captures: Batch<'c>,
    /// The state's cell when the rules decide it without successors.
    known: Option<u32>,
}

impl Gathered<'_> {
    fn clear(&mut self) {
        self.best = Best::new(self.best.keyed);
        self.quiet.len = 0;
        self.captures.len = 0;
        self.placed.len = 0;
        self.placed_captures.len = 0;
        self.known = None;
    }

    /// Reads the gathered cells into `best`.
    #[inline]
    fn read(&mut self) {
        self.quiet.flush(&mut self.best);
        self.captures.flush(&mut self.best);
        self.placed.flush(&mut self.best);
        self.placed_captures.flush(&mut self.best);
    }
}

/// A state's successors, gathered, as [`walk_by_opponent`] holds them.
trait Resolve {
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

/// A placement state's successors: those of [`Gathered`], and the
/// captures grouped by placement for the [`CaptureMemo`] (keyed cells
/// only).
struct PlacementGathered<'c> {
    successors: Gathered<'c>,
    by_placement: CaptureGroups<'c>,
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

/// The slot of a quiet successor whose opponent (the stones that moved)
/// is `own`.
#[inline(always)]
fn quiet_slot(frame: &MoverFrame, own: Bits) -> u64 {
    frame.rank(own)
}

/// A cell as the key its predecessors compare: the larger the key, the
/// better the successor is for the player who moved into it. A state's
/// recomputed cell then follows from the largest key among its
/// successors alone, one comparison a successor where the cells need
/// three; the keys are made once per table, as it is read.
///
/// A successor's odd cell `2j + 1` (its loss at depth `2j`) is a win for
/// the mover, the faster the better: keys 65,535 down to 32,768. A draw
/// (0) is 32,767. An even cell `2j` (its win) is a loss for the mover,
/// the slower the better: keys 0 up to 32,766. Every cell has its own key.
#[inline(always)]
pub fn cell_key(cell: u16) -> u16 {
    let j = cell >> 1;
    match (cell & 1 == 1, cell) {
        (true, _) => u16::MAX - j,
        (false, 0) => DRAW_KEY,
        (false, _) => j - 1,
    }
}

/// The key of a draw: between the wins' keys and the losses'.
const DRAW_KEY: u16 = 32_767;

/// The cell whose key is `key` (the inverse of [`cell_key`]).
#[inline(always)]
pub fn cell_of_key(key: u16) -> u16 {
    match key {
        DRAW_KEY => 0,
        k if k > DRAW_KEY => 2 * (u16::MAX - k) + 1,
        k => 2 * (k + 1),
    }
}

/// A state's recomputed cell from the largest key among its successors:
/// one ply further from the end than that successor (a draw stays a
/// draw). Wider than a cell, as [`Best::cell`]'s.
#[inline(always)]
fn parent_of_key(key: u32) -> u32 {
    let best = u32::from(cell_of_key(key as u16));
    best + u32::from(best != 0)
}

/// Turns every cell of `cells` into its key ([`cell_key`]).
pub fn key_cells(cells: &mut [u16]) {
    cells.par_chunks_mut(CHUNK as usize).for_each(|chunk| {
        for c in chunk {
            *c = cell_key(*c);
        }
    });
}

/// The value of a recomputed cell, for the report.
fn value_of_cell(cell: u32) -> Value {
    match u16::try_from(cell) {
        Ok(c) => Value::from(Cell(c)),
        // Only a depth one past the deepest a cell holds gets here.
        Err(_) => Value::from(Cell(u16::MAX)),
    }
}

/// The best of a state's successors so far, in cells: a successor's odd
/// cell `c` is its loss at depth `c - 1`, so a win at `c` for the state; an
/// even one its win, so a loss at `c`; zero a draw.
///
/// Over keyed cells ([`key_cells`]) the best is simply the largest key.
struct Best {
    fastest_win: u32,
    deepest_loss: u32,
    can_draw: bool,
    /// Whether the successors' cells are keyed: then only `key` is used.
    keyed: bool,
    /// The largest key so far (0, the lowest, before any).
    key: u32,
}

impl Best {
    fn new(keyed: bool) -> Best {
        Best { fastest_win: u32::MAX, deepest_loss: 0, can_draw: false, keyed, key: 0 }
    }

    /// Takes one successor's cell into account, without branches on its
    /// value, so a batch of reads is not held up by mispredictions.
    #[inline(always)]
    fn add(&mut self, c: u32) {
        let odd = c & 1 == 1;
        self.fastest_win = self.fastest_win.min(if odd { c } else { u32::MAX });
        self.deepest_loss = self.deepest_loss.max(if odd { 0 } else { c });
        self.can_draw |= c == 0;
    }

    /// The state's cell, once there was at least one successor: the
    /// fastest win, else a draw, else the slowest loss, each one ply
    /// further from the end than its successor.
    #[inline]
    fn cell(&self) -> u32 {
        if self.keyed {
            return parent_of_key(self.key);
        }
        if self.fastest_win != u32::MAX {
            self.fastest_win + 1
        } else if self.can_draw {
            0
        } else {
            self.deepest_loss + 1
        }
    }
}

/// Slots of successors in one table, gathered and prefetched, then read
/// together so the scattered reads overlap instead of waiting in turn.
struct Batch<'c> {
    cells: &'c [u16],
    slots: [u64; BATCH],
    len: usize,
}

/// Successors read together: more than a state's quiet moves (at most 80,
/// four stones flying to twenty points).
const BATCH: usize = 96;

impl<'c> Batch<'c> {
    #[inline(always)]
    fn new(cells: &'c [u16]) -> Batch<'c> {
        Batch { cells, slots: [0; BATCH], len: 0 }
    }

    #[inline(always)]
    fn add(&mut self, slot: u64, best: &mut Best) {
        if self.len == BATCH {
            self.flush(best);
        }
        prefetch(&self.cells[slot as usize]);
        self.slots[self.len] = slot;
        self.len += 1;
    }

    #[inline(always)]
    fn flush(&mut self, best: &mut Best) {
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
fn prefetch(cell: *const u16) {
    #[cfg(target_arch = "x86_64")]
    // Safety: a prefetch is only a hint; any address is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch(cell as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
