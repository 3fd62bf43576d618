//! The independent forward check of stored tables: every stored value is
//! recomputed from the stored values of its successors and the end-of-game
//! rules, by the kernel in [`crate::forward`], and compared with the
//! table's. This module reads the tables and schedules the sectors; it
//! also checks a sector the slow, obvious way ([`check_sector_generic`]:
//! every state through [`value_from_successors`] and the generic ranking),
//! which the tests hold the fast checks to.
//!
//! A [`Verifier`] walks the sectors in an order where neighbours read
//! the same tables (the two sides of a pair; placement sectors that share
//! a successor) and keeps the decompressed cells a later sector reads
//! again, up to a memory budget ([`Verifier::with_budget`]): those the
//! next sector reads always, then those read soonest. Keeping every
//! table a later sector needs held 20 GiB at once in nine's placement
//! phase; with no budget a table may be read up to three times (as
//! itself, and as the successor of two sectors).

// The kernel's items, where the check's users have always found them.
pub use crate::forward::{
    cell_key, cell_of_key, derive_cells, key_cells, successor_sectors, successors_of,
    value_from_successors, Leads, MovingCheck, PlacementCheck, SectorCheck, Successors,
};
pub use crate::table::Tier;

use crate::database::{Database, DbError, SectorTable};
use crate::forward::{for_each_chunk, sectors_to_read, Forward};
use crate::huge::HugeCells;
use crate::index::{Indexer, Sector};
use crate::position::State;
use crate::stats::Counts;
use crate::value::{Cell, Value};
use crate::variant::Variant;
use std::collections::HashMap;

/// Recomputes every canonical state of `sector` from its successors'
/// stored values, reading the tables it needs.
pub fn check_sector(db: &Database, sector: Sector) -> Result<SectorCheck, DbError> {
    let mut verifier = Verifier::new(db, &[sector]);
    verifier.next().map(|(_, check)| check).expect("one sector to check")
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
