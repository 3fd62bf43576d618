//! A database directory: one table file per sector and the working files
//! of the pair being solved. The driver that solves what is missing is
//! [`crate::driver`]; it gets its tables from here and hands the
//! finished ones back.
//!
//! A finished sector is written to a temporary file and renamed into
//! place, so a killed run leaves either a complete table or none; the next
//! run solves again the pairs whose tables are missing, from their last
//! checkpoint when there is one.
//!
//! One writer per directory: a solve holds the directory's lock
//! ([`lock`]) for its whole run - or, one job of the plan at a time
//! ([`Database::solve_job`]), several writers of different jobs, each
//! holding the lock shared and its job's own lock. Before a pair starts, the space its
//! files will take is checked ([`space`]); checkpoints inside a pair are
//! [`checkpoint`] files. Readers take no lock: they only ever open
//! complete tables.

pub mod checkpoint;
mod compact;
pub mod derived;
pub mod leaf_cache;
pub mod lock;
pub mod space;

use crate::atomic_file::write_atomically;
use crate::huge::HugeCells;
use crate::index::{Indexer, Sector, INDEX_VERSION};
use crate::position::State;
use crate::solve::moving::chunk_count;
use crate::solve::plan::Job;
use crate::solve::{moving_pairs, MovingPair, ResumePoint, SolveError};
use crate::stats::Counts;
use crate::table::Tier;
use crate::table::{
    max_table_bytes, upgrade_wdl, write_table, write_wdl, Compression, DerivedStub, Table,
    TableError, TableInfo, WdlTable,
};
use crate::value::{Cell, Outcome, Value};
use crate::variant::Variant;
pub use compact::Compacted;
pub use derived::{plan_derived, DerivedOne};
use leaf_cache::{Expected, LeafScores, Source};
use memmap2::{Mmap, MmapMut};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

// The solve driver's types, where callers of the solve methods of
// `Database` have always found them.

/// How often a pair's propagation is checkpointed by default: a kill
/// loses at most this much work of the pair (plus one level).
pub const DEFAULT_CHECKPOINT_INTERVAL: Duration = Duration::from_secs(300);

/// Error of the database layer; every message names the file or sector.
///
/// Kept small (no variant over 128 bytes; jobs and sectors are stored as
/// such, not as text) because every probe of a table returns it.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// A table that cannot be written, opened or read.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The solver refused or failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// A file or directory operation that failed.
    #[error("{}: {op}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A sector that has no table.
    #[error("sector {sector} of {variant} is not in the database {}: run `morris solve --variant {variant}{rules} --max-stones {stones} --db {}`", dir.display(), dir.display())]
    Missing {
        /// The sector.
        sector: String,
        /// The variant's name.
        variant: String,
        /// The `--fly-at` and `--fly-count` options the solve command needs, if any.
        rules: String,
        /// The `--max-stones` of the solve command that makes it.
        stones: u32,
        /// The database directory.
        dir: PathBuf,
    },
    /// The thread pool could not start.
    #[error("cannot start {threads} threads: {why}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// Why the pool could not start.
        why: String,
    },
    /// Another process solves into the directory.
    #[error("database {} is being solved by {holder}", dir.display())]
    Busy {
        /// The database directory.
        dir: PathBuf,
        /// Who holds its lock.
        holder: String,
    },
    /// Another process solves the same job.
    #[error("job {job} is being solved in {} by {holder}", dir.display())]
    JobBusy {
        /// The job.
        job: String,
        /// The database directory.
        dir: PathBuf,
        /// Who holds the job's lock.
        holder: String,
    },
    /// A job whose dependencies are not all solved.
    #[error("job {job} of {variant} needs sector {sector}, which is not in the database {}: solve job {needed} first (`morris solve --variant {variant}{rules} --job {needed} --db {}`)", dir.display(), dir.display())]
    MissingDependency {
        /// The job refused.
        job: Job,
        /// The variant's name.
        variant: String,
        /// The `--fly-at` and `--fly-count` options the solve command needs, if any.
        rules: String,
        /// The sector it reads that has no table.
        sector: Sector,
        /// The job that makes that table.
        needed: Job,
        /// The database directory.
        dir: PathBuf,
    },
    /// The directory cannot be written.
    #[error("database {} is not writable, so it cannot be solved into (queries still work): {source}", dir.display())]
    ReadOnly {
        /// The database directory.
        dir: PathBuf,
        /// Why it cannot be written.
        source: std::io::Error,
    },
    /// Not enough free disk space.
    #[error("not enough space in {} for {what}: it needs {needed} bytes ({why}), {free} are free; free some and run the same command again", dir.display())]
    NoSpace {
        /// The database directory.
        dir: PathBuf,
        /// What was to be written.
        what: String,
        /// What the bytes needed are for.
        why: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes free.
        free: u64,
    },
    /// The progress asked to stop; the text says where the run stopped.
    #[error("{0}")]
    Interrupted(String),
    /// A sector of which the directory holds only the win/draw/loss tier,
    /// where distances were asked for.
    #[error(transparent)]
    NeedsFullTier(#[from] FullTierNeeded),
    /// A derived sector (`morris compact --derive`) read as a table: its
    /// values come from one ply over its successors' tables.
    #[error("sector {sector} of {} is derived: its cells were left out (each value comes from one ply of search over the sectors its moves lead to), so it has no table to read", dir.display())]
    Derived {
        /// The sector.
        sector: Sector,
        /// The database directory.
        dir: PathBuf,
    },
}

/// What asks for distances where a directory holds only the
/// win/draw/loss tier of a sector: its values are exact, its distances
/// are not there. The message names the sector and the command that
/// makes its full table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} holds only the win/draw/loss tier of sector {sector}: {what} needs distances, from the full tables (`morris solve --variant {variant}{rules} --max-stones {stones} --db {}`)", dir.display(), dir.display())]
pub struct FullTierNeeded {
    /// The sector.
    pub sector: Sector,
    /// What needs the distances: "a perfect-play line", "the perfect
    /// player", or "what was asked" (a value with its distance).
    pub what: &'static str,
    /// The variant's name.
    pub variant: String,
    /// The `--fly-at` and `--fly-count` options the solve command needs, if any.
    pub rules: String,
    /// The `--max-stones` of the solve command that makes it.
    pub stones: u32,
    /// The database directory.
    pub dir: PathBuf,
}

/// Where the values of a sector come from ([`Database::tier`]): its full
/// table (values with distances) or, when the directory has none, its
/// win/draw/loss table (`morris export --wdl`: values without them).
#[derive(Clone)]
pub enum SectorTable {
    /// The full table.
    Full(Arc<Table<Mmap>>),
    /// The win/draw/loss table.
    Wdl(Arc<WdlTable<Mmap>>),
    /// Neither: a derived sector, whose values one ply of search over its
    /// successors' tables gives back ([`derived`]); its stub.
    Derived(Arc<DerivedStub>),
}

/// A stored value ([`Database::stored`]): exact with its distance from a
/// full table or the rules, or only win, draw or loss from the
/// win/draw/loss tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// The value and its distance.
    Exact(Value),
    /// Win, draw or loss for the side to move, no distance.
    Outcome(Outcome),
}

/// `slots` cells in huge-page memory, filled by `fill` from the table at
/// `path` (named if the memory cannot be had).
fn huge_cells(
    path: &Path,
    slots: u64,
    fill: impl FnOnce(&mut [u16]) -> Result<(), TableError>,
) -> Result<HugeCells, DbError> {
    let mut cells = HugeCells::zeroed(slots as usize)
        .map_err(io_error(path, "allocate memory for the cells"))?;
    fill(&mut cells)?;
    Ok(cells)
}

pub(crate) fn io_error<'a>(
    path: &'a Path,
    op: &'static str,
) -> impl FnOnce(std::io::Error) -> DbError + 'a {
    move |source| DbError::Io { path: path.to_path_buf(), op, source }
}

/// What [`Database::export_wdl`] did with one sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exported {
    /// Bytes of the win/draw/loss file.
    pub bytes: u64,
    /// Bytes of the full table it was made from.
    pub full_bytes: u64,
    /// Whether it was written now (else it was there and checked out).
    pub written: bool,
}

/// The tables of one variant in one directory.
pub struct Database {
    dir: PathBuf,
    variant: Variant,
    indexer: Indexer,
    open: Mutex<HashMap<Sector, Arc<Table<Mmap>>>>,
    /// The win/draw/loss tables of sectors without a full table, opened
    /// once and kept, as the full tables are.
    open_wdl: Mutex<HashMap<Sector, Arc<WdlTable<Mmap>>>>,
    /// The stubs of derived sectors, read once and kept.
    open_derived: Mutex<HashMap<Sector, Arc<DerivedStub>>>,
    /// The placement search's leaf scores, shared by every search on the
    /// database: mapped cache files for as long as the database lives
    /// (page cache, not memory of the process's own), copies in memory
    /// while some search holds them.
    leaves: Mutex<HashMap<Sector, SharedLeaves>>,
    /// Set once a leaf cache could not be written: the rest are copied.
    no_leaf_cache: AtomicBool,
    /// The directory's lock while this process solves into it.
    lock: Mutex<Option<lock::DirLock>>,
    /// How often a pair is checkpointed; `None`: never.
    checkpoint_every: Option<Duration>,
}

impl Database {
    /// The database of `variant` in `dir` (which need not exist yet).
    pub fn new(dir: impl Into<PathBuf>, variant: Variant) -> Database {
        let indexer = Indexer::new(variant.board());
        Database {
            dir: dir.into(),
            variant,
            indexer,
            open: Mutex::new(HashMap::new()),
            open_wdl: Mutex::new(HashMap::new()),
            open_derived: Mutex::new(HashMap::new()),
            leaves: Mutex::new(HashMap::new()),
            no_leaf_cache: AtomicBool::new(false),
            lock: Mutex::new(None),
            checkpoint_every: Some(DEFAULT_CHECKPOINT_INTERVAL),
        }
    }

    /// The same database, checkpointing pairs every `every` (`None`: never).
    pub fn with_checkpoints(mut self, every: Option<Duration>) -> Database {
        self.checkpoint_every = every;
        self
    }

    /// The variant, with its rules.
    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// The index of the variant's board.
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How often a pair is checkpointed while it is solved (`None`: never).
    pub fn checkpoint_every(&self) -> Option<Duration> {
        self.checkpoint_every
    }

    /// Where the table of `sector` lives.
    pub fn table_path(&self, sector: Sector) -> PathBuf {
        self.dir.join(format!("{}-{}.mtb", self.variant.name(), sector))
    }

    /// Where the win/draw/loss table of `sector` is:
    /// `<dir>/<variant>-<sector>.wdl`, beside the full table's name.
    pub fn wdl_path(&self, sector: Sector) -> PathBuf {
        self.dir.join(format!("{}-{}.wdl", self.variant.name(), sector))
    }

    /// The win/draw/loss table of `sector` in this directory, opened (its
    /// header and offsets checked, its blocks when they are read).
    pub fn wdl_table(&self, sector: Sector) -> Result<WdlTable<Mmap>, DbError> {
        let path = self.wdl_path(sector);
        Ok(WdlTable::open(&path, &self.variant.rules_key(), &sector.to_string())?)
    }

    /// Writes the win/draw/loss table of `sector`, made from this
    /// database's full table, into the directory `out` (which must exist),
    /// unless a file there already is that table (it opens, says it was
    /// made from this very table, every block checks out and the outcomes
    /// of its canonical slots add up to the table's counts) compressed at
    /// least as hard as `compression` asks (a version-1 file is rewritten
    /// when [`Compression::Smallest`] is asked); the file written is
    /// checked the same way. Blocks are made on the calling thread pool;
    /// `cancelled` is asked before each, and a yes stops the write with
    /// [`DbError::Interrupted`], leaving no file behind (and the one
    /// there before, if any).
    pub fn export_wdl(
        &self,
        sector: Sector,
        out: &Path,
        compression: Compression,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<Exported, DbError> {
        let path = out.join(self.wdl_path(sector).file_name().expect("a file name"));
        let (rules, name) = (self.variant.rules_key(), sector.to_string());
        let table = self.open_unkept(sector)?;
        let full_bytes = table.bytes_on_disk();
        let index = self.indexer.sector(sector);
        let canonical = |slots: std::ops::Range<u64>| {
            if index.all_canonical(slots.clone()) {
                return None;
            }
            let start = slots.start;
            let mut mask = vec![false; (slots.end - start) as usize];
            index.for_each_in(slots, |slot, _, _| mask[(slot - start) as usize] = true);
            Some(mask)
        };
        let there = WdlTable::open(&path, &rules, &name)
            .ok()
            .filter(|wdl| wdl.info() == table.info() && wdl.verify_counts(&canonical).is_ok());
        let written = match there {
            Some(wdl) if wdl.version() >= 2 || compression == Compression::Quick => {
                return Ok(Exported { bytes: wdl.bytes_on_disk(), full_bytes, written: false });
            }
            // A version-1 file of this table: its blocks of four codes a
            // byte kept where they are the smaller layout.
            Some(_) => upgrade_wdl(&path, &rules, &name, cancelled).map(|_| ()),
            None => write_wdl(&path, &table, &canonical, cancelled, compression),
        };
        stopped_if_cancelled(written, &path, cancelled)?;
        let wdl = WdlTable::open(&path, &rules, &name)?;
        wdl.verify_counts(&canonical)?;
        Ok(Exported { bytes: wdl.bytes_on_disk(), full_bytes, written: true })
    }

    /// The table of `sector`, opened for one pass over it and not kept
    /// with the tables [`Database::table`] keeps (a whole-database pass
    /// maps each table only while it reads it), its size checked against
    /// the index.
    fn open_unkept(&self, sector: Sector) -> Result<Table<Mmap>, DbError> {
        let path = self.table_path(sector);
        if !path.exists() {
            return Err(self.missing(sector));
        }
        let table = Table::open(&path, &self.variant.rules_key(), &sector.to_string())?;
        self.check_slots(sector, table.info(), &path)?;
        Ok(table)
    }

    /// An error unless a table of `sector` at `path`, whose header says
    /// `info`, has as many slots as the sector's index.
    fn check_slots(&self, sector: Sector, info: &TableInfo, path: &Path) -> Result<(), DbError> {
        let slots = self.indexer.sector(sector).slots();
        if slots == info.slots {
            return Ok(());
        }
        Err(DbError::Table(TableError::Corrupt {
            path: path.to_owned(),
            what: format!("{} slots, where the index of {sector} has {slots}", info.slots),
        }))
    }

    /// Where the leaf cache of `sector` (the placement search's 2-bit
    /// scores, derived from its table: [`leaf_cache`]) lives.
    pub fn leaf_cache_path(&self, sector: Sector) -> PathBuf {
        self.dir.join(LEAF_DIR).join(format!("{}-{}.wdl2", self.variant.name(), sector))
    }

    /// Where the checkpoint of a pair (both sides) lives: named after the
    /// pair's first sector.
    pub fn checkpoint_path(&self, pair: MovingPair) -> PathBuf {
        self.dir.join(format!("{}-{}.ckpt", self.variant.name(), pair.sectors()[0]))
    }

    /// The table of `sector`, opened once and kept. Where the directory
    /// holds only its win/draw/loss table, the error says that distances
    /// need the full one ([`DbError::NeedsFullTier`]).
    pub fn table(&self, sector: Sector) -> Result<Arc<Table<Mmap>>, DbError> {
        if let Some(t) = self.open.lock().unwrap().get(&sector) {
            return Ok(t.clone());
        }
        let path = self.table_path(sector);
        if !path.exists() {
            if self.wdl_path(sector).exists() {
                return Err(self.needs_full_tier(sector, "what was asked"));
            }
            if self.derived_path(sector).exists() {
                return Err(DbError::Derived { sector, dir: self.dir.clone() });
            }
            return Err(self.missing(sector));
        }
        let table = Arc::new(Table::open(&path, &self.variant.rules_key(), &sector.to_string())?);
        self.open.lock().unwrap().insert(sector, table.clone());
        Ok(table)
    }

    /// Where the values of `sector` come from: its full table when the
    /// directory has one (whether or not a win/draw/loss table is there
    /// too), else its win/draw/loss table, opened once and kept. The one
    /// place that chooses between the tiers; a damaged file of the tier
    /// chosen is an error, never a reason to read the other.
    pub fn tier(&self, sector: Sector) -> Result<SectorTable, DbError> {
        match self.table(sector) {
            Ok(table) => Ok(SectorTable::Full(table)),
            Err(DbError::NeedsFullTier(_)) => Ok(SectorTable::Wdl(self.kept_wdl_table(sector)?)),
            Err(DbError::Derived { .. }) => Ok(SectorTable::Derived(self.kept_derived(sector)?)),
            Err(e) => Err(e),
        }
    }

    /// The win/draw/loss table of `sector`, opened once and kept, its
    /// slots checked against the index.
    fn kept_wdl_table(&self, sector: Sector) -> Result<Arc<WdlTable<Mmap>>, DbError> {
        if let Some(t) = self.open_wdl.lock().unwrap().get(&sector) {
            return Ok(t.clone());
        }
        let wdl = self.wdl_table(sector)?;
        self.check_slots(sector, wdl.info(), &self.wdl_path(sector))?;
        let wdl = Arc::new(wdl);
        self.open_wdl.lock().unwrap().insert(sector, wdl.clone());
        Ok(wdl)
    }

    /// The file the values of `sector` are read from ([`Database::tier`]):
    /// its win/draw/loss table where that is all there is, else its full
    /// table's path (whether or not it is there).
    pub fn values_path(&self, sector: Sector) -> PathBuf {
        match self.tier(sector) {
            Ok(SectorTable::Wdl(_)) => self.wdl_path(sector),
            _ => self.table_path(sector),
        }
    }

    /// Whether `sector` has values here: a full table or a win/draw/loss
    /// one that opens under these rules.
    pub fn has_values(&self, sector: Sector) -> bool {
        self.tier(sector).is_ok()
    }

    /// The error for `what`, which needs distances, in `sector`, of which
    /// the directory holds only the win/draw/loss tier.
    pub fn needs_full_tier(&self, sector: Sector, what: &'static str) -> DbError {
        DbError::NeedsFullTier(FullTierNeeded {
            sector,
            what,
            variant: self.variant.name().to_string(),
            rules: self.rules_option(),
            stones: sector.total_stones(),
            dir: self.dir.clone(),
        })
    }

    /// Whether `sector` has a table file, whether or not it opens.
    pub(crate) fn has_file(&self, sector: Sector) -> bool {
        self.table_path(sector).exists()
    }

    /// Takes the locks one job of the plan holds while it runs (the
    /// directory's, shared, and the job's own), creating the directory
    /// first; they are held while the returned value lives.
    pub(crate) fn lock_job(&self, job: Job) -> Result<[lock::DirLock; 2], DbError> {
        self.create_dir()?;
        let shared = lock::lock_shared(&self.dir)?;
        let own =
            lock::lock_job(&self.dir, &format!("{}-{job}", self.variant.name()), &job.to_string())?;
        Ok([shared, own])
    }

    /// Whether `sector` has a full table that opens under these rules, or
    /// is derived ([`derived`]): solved, as far as a solve is concerned
    /// (its cells are recomputed where a solve reads them).
    pub fn has(&self, sector: Sector) -> bool {
        match self.table(sector) {
            Ok(_) => true,
            Err(DbError::Derived { .. }) => self.kept_derived(sector).is_ok(),
            Err(_) => false,
        }
    }

    /// The error for a sector that is not there.
    pub fn missing(&self, sector: Sector) -> DbError {
        self.missing_for(sector, sector.total_stones())
    }

    /// The error for a sector that is not there, whose solve command
    /// covers `stones` stones.
    fn missing_for(&self, sector: Sector, stones: u32) -> DbError {
        DbError::Missing {
            sector: sector.to_string(),
            variant: self.variant.name().to_string(),
            rules: self.rules_option(),
            stones,
            dir: self.dir.clone(),
        }
    }

    /// The `--fly-at` and `--fly-count` a solve command needs to make
    /// tables these rules accept (nothing under the variant's own rules):
    /// with other rules it would make tables that this database refuses.
    pub(crate) fn rules_option(&self) -> String {
        let Ok(default) = Variant::named(self.variant.name()) else {
            return format!(" --fly-at {}", self.variant.flying());
        };
        let mut options = String::new();
        if default.flying() != self.variant.flying() {
            options += &format!(" --fly-at {}", self.variant.flying());
        }
        if default.fly_count() != self.variant.fly_count() && self.variant.move_while_placing() {
            options += &format!(" --fly-count {}", self.variant.fly_count());
        }
        options
    }

    /// An error naming the first moving-phase sector with at most
    /// `max_stones` on the board that has no values (of either tier), if
    /// there is one.
    pub fn check_moving_phase(&self, max_stones: u32) -> Result<(), DbError> {
        let missing = self.moving_sectors(max_stones).find(|&s| !self.has_values(s));
        match missing {
            Some(sector) => Err(self.missing_for(sector, max_stones)),
            None => Ok(()),
        }
    }

    /// An error naming the first moving-phase sector with at most
    /// `max_stones` on the board of which the directory holds only the
    /// win/draw/loss tier, if there is one: `what` needs their distances.
    pub fn check_moving_distances(
        &self,
        max_stones: u32,
        what: &'static str,
    ) -> Result<(), DbError> {
        self.check_distances(self.moving_sectors(max_stones), what)
    }

    /// An error naming the first of `sectors` of which the directory holds
    /// only the win/draw/loss tier, if there is one: `what` needs their
    /// distances. Sectors without values, or whose tables do not open,
    /// are left to the reads that need them.
    pub fn check_distances(
        &self,
        sectors: impl IntoIterator<Item = Sector>,
        what: &'static str,
    ) -> Result<(), DbError> {
        let wdl_only =
            sectors.into_iter().find(|&s| matches!(self.tier(s), Ok(SectorTable::Wdl(_))));
        match wdl_only {
            Some(sector) => Err(self.needs_full_tier(sector, what)),
            None => Ok(()),
        }
    }

    fn moving_sectors(&self, max_stones: u32) -> impl Iterator<Item = Sector> {
        moving_pairs(&self.variant, max_stones).into_iter().flat_map(|p| p.sectors())
    }

    /// The value of a state with its distance (any state of a sector with
    /// a full table in the database; a side with fewer than 3 stones has
    /// lost). A sector with only its win/draw/loss table is an error
    /// ([`DbError::NeedsFullTier`]); [`Database::stored`] answers it.
    pub fn value(&self, state: &State) -> Result<Value, DbError> {
        match self.stored(state)? {
            Stored::Exact(value) => Ok(value),
            Stored::Outcome(_) => Err(self.needs_full_tier(Sector::of(state), "what was asked")),
        }
    }

    /// The stored value of a state, from whichever tier its sector has
    /// ([`Database::tier`]): exact from a full table, win/draw/loss only
    /// from the win/draw/loss tier. A side with fewer than 3 stones has
    /// lost.
    pub fn stored(&self, state: &State) -> Result<Stored, DbError> {
        if state.mover_stones() < 3 {
            return Ok(Stored::Exact(Value::Loss(0)));
        }
        match self.stored_in_table(state) {
            Err(DbError::Derived { .. }) => self.derived_stored(state),
            found => found,
        }
    }

    /// The value of a state (of a side with at least 3 stones) from its
    /// sector's table of either tier; a derived sector is
    /// [`DbError::Derived`].
    fn stored_in_table(&self, state: &State) -> Result<Stored, DbError> {
        let sector = Sector::of(state);
        let slot = self.indexer.sector(sector).rank(state.mover, state.opponent);
        Ok(match self.tier(sector)? {
            SectorTable::Full(table) => Stored::Exact(Value::from(Cell(table.get(slot)?))),
            SectorTable::Wdl(wdl) => Stored::Outcome(wdl.get(slot)?),
            SectorTable::Derived(_) => {
                return Err(DbError::Derived { sector, dir: self.dir.clone() })
            }
        })
    }

    /// Every cell of a sector, checked block by block.
    pub fn load_cells(&self, sector: Sector) -> Result<Vec<u16>, DbError> {
        if let Ok(SectorTable::Derived(_)) = self.tier(sector) {
            return Ok(self.derived_cells(sector, Tier::Full)?.to_vec());
        }
        Ok(self.table(sector)?.read_all()?)
    }

    /// Every cell of a sector, checked block by block, in memory backed by
    /// huge pages where the system grants them: for readers that jump
    /// around a large table, which would otherwise miss the TLB on nearly
    /// every read.
    /// A derived sector's cells are recomputed from its successors'.
    pub fn load_cells_huge(&self, sector: Sector) -> Result<HugeCells, DbError> {
        if let Ok(SectorTable::Derived(_)) = self.tier(sector) {
            return self.derived_cells(sector, Tier::Full);
        }
        let table = self.table(sector)?;
        let cells =
            huge_cells(&self.table_path(sector), table.info().slots, |c| table.read_all_into(c));
        // The cells are in memory now: the file's pages need not stay in
        // this process's resident set (a solve reads every table once).
        table.release_pages();
        cells
    }

    /// Every slot of `sector`'s win/draw/loss table as a cell of its
    /// outcome (a loss at 0, a draw, a win at 1), checked block by block,
    /// in memory as [`Database::load_cells_huge`]'s: what the forward
    /// check of that tier reads.
    /// A derived sector's are recomputed from its successors' outcomes.
    pub fn load_outcome_cells_huge(&self, sector: Sector) -> Result<HugeCells, DbError> {
        if let Ok(SectorTable::Derived(_)) = self.tier(sector) {
            let mut cells = self.derived_cells(sector, self.derived_tier(sector)?)?;
            cells.par_iter_mut().for_each(|c| *c = Tier::Wdl.stored_as(u32::from(*c)) as u16);
            return Ok(cells);
        }
        let (table, path) = (self.wdl_table(sector)?, self.wdl_path(sector));
        self.check_slots(sector, table.info(), &path)?;
        let cells = huge_cells(&path, table.info().slots, |c| table.read_outcome_cells_into(c));
        table.release_pages();
        cells
    }

    /// The win/draw/loss scores of every slot of `sector` (which must
    /// have a table, full or win/draw/loss: [`Database::tier`]), for the
    /// placement search's leaves: shared with the searches before if they
    /// are still at hand, else from the sector's leaf cache file, made
    /// from the table first when it is missing,
    /// stale or damaged, or copied from the table into memory when the
    /// cache cannot be written (a read-only directory). A cache is never
    /// why this fails: only the table can be.
    pub fn leaf_scores(&self, sector: Sector) -> Result<(Arc<LeafScores>, LeafOrigin), DbError> {
        if let Some(scores) = self.shared_leaf_scores(sector) {
            return Ok((scores, LeafOrigin::Shared));
        }
        let (scores, origin) = self.load_leaf_scores(sector, false)?;
        self.share_leaf_scores(sector, &scores);
        Ok((scores, origin))
    }

    /// Scores of `sector` in place of `bad`, whose cache file has a block
    /// that fails its checksum: the cache is made again from the table.
    pub fn repair_leaf_scores(
        &self,
        sector: Sector,
        bad: &Arc<LeafScores>,
    ) -> Result<(Arc<LeafScores>, LeafOrigin), DbError> {
        {
            let mut shared = self.leaves.lock().unwrap();
            if let Some(SharedLeaves::Mapped(s)) = shared.get(&sector) {
                if Arc::ptr_eq(s, bad) {
                    shared.remove(&sector);
                }
            }
        }
        if let Some(scores) = self.shared_leaf_scores(sector) {
            return Ok((scores, LeafOrigin::Shared));
        }
        let (scores, origin) = self.load_leaf_scores(sector, true)?;
        self.share_leaf_scores(sector, &scores);
        Ok((scores, origin))
    }

    fn shared_leaf_scores(&self, sector: Sector) -> Option<Arc<LeafScores>> {
        match self.leaves.lock().unwrap().get(&sector)? {
            SharedLeaves::Mapped(s) => Some(s.clone()),
            SharedLeaves::Copied(s) => s.upgrade(),
        }
    }

    fn share_leaf_scores(&self, sector: Sector, scores: &Arc<LeafScores>) {
        let shared = if scores.is_mapped() {
            SharedLeaves::Mapped(scores.clone())
        } else {
            SharedLeaves::Copied(Arc::downgrade(scores))
        };
        self.leaves.lock().unwrap().insert(sector, shared);
    }

    /// The cache of `sector` if it is good (unless `rebuild`), else one
    /// made from the sector's table (full or win/draw/loss), else a copy
    /// in memory.
    fn load_leaf_scores(
        &self,
        sector: Sector,
        rebuild: bool,
    ) -> Result<(Arc<LeafScores>, LeafOrigin), DbError> {
        let tier = self.tier(sector)?;
        if let SectorTable::Derived(_) = tier {
            // Recomputed from its successors, kept in memory only: a
            // cache file would need a source to be checked against.
            let cells = self.derived_cells(sector, self.derived_tier(sector)?)?;
            return Ok((
                Arc::new(LeafScores::copied(leaf_cache::pack(&cells))),
                LeafOrigin::Copied,
            ));
        }
        let path = self.leaf_cache_path(sector);
        // The scores from a map of the table of its own, unmapped when
        // they are packed: the table this database keeps open would keep
        // every page read (the whole file) in the process's resident set.
        let (rules, name) = (self.variant.rules_key(), sector.to_string());
        let pack = || -> Result<Vec<u8>, DbError> {
            Ok(match &tier {
                SectorTable::Full(_) => {
                    let own = Table::open(&self.table_path(sector), &rules, &name)?;
                    leaf_cache::pack_table(&own)?
                }
                SectorTable::Wdl(_) => {
                    let own = WdlTable::open(&self.wdl_path(sector), &rules, &name)?;
                    leaf_cache::pack_wdl(&own)?
                }
                SectorTable::Derived(_) => unreachable!("answered above"),
            })
        };
        let copy = || -> Result<_, DbError> {
            Ok((Arc::new(LeafScores::copied(pack()?)), LeafOrigin::Copied))
        };
        // The cache records the identity of the file it was made from, so
        // a full table solved after a win/draw/loss one makes it stale.
        let (info, source) = match &tier {
            SectorTable::Full(t) => {
                (t.info(), Source::of(t.bytes_on_disk(), t.fingerprint(), &self.table_path(sector)))
            }
            SectorTable::Wdl(w) => {
                (w.info(), Source::of(w.bytes_on_disk(), w.fingerprint(), &self.wdl_path(sector)))
            }
            SectorTable::Derived(_) => unreachable!("answered above"),
        };
        let Ok(source) = source else {
            return copy();
        };
        let expected = Expected {
            sector,
            rules_crc: crc32fast::hash(rules.as_bytes()),
            index_version: info.index_version,
            slots: info.slots,
            source,
        };
        let open = || match LeafScores::open(&path, &expected) {
            Ok(Some(scores)) => Some((Arc::new(scores), LeafOrigin::Opened)),
            _ => None,
        };
        if !rebuild {
            if let Some(found) = open() {
                return Ok(found);
            }
        }
        if self.no_leaf_cache.load(Ordering::Relaxed) {
            return copy();
        }
        // One writer at a time, across processes: a query that waited
        // finds the cache another one made.
        let Ok(_lock) = self.lock_leaf_dir() else {
            self.no_leaf_cache.store(true, Ordering::Relaxed);
            return copy();
        };
        if !rebuild {
            if let Some(found) = open() {
                return Ok(found);
            }
        }
        let packed = pack()?;
        if leaf_cache::write(&path, &expected, &packed).is_err() {
            self.no_leaf_cache.store(true, Ordering::Relaxed);
            return Ok((Arc::new(LeafScores::copied(packed)), LeafOrigin::Copied));
        }
        match LeafScores::open(&path, &expected) {
            Ok(Some(scores)) => Ok((Arc::new(scores), LeafOrigin::Built)),
            _ => Ok((Arc::new(LeafScores::copied(packed)), LeafOrigin::Copied)),
        }
    }

    /// The lock of the leaf cache directory (created if need be), held
    /// while a cache is written.
    fn lock_leaf_dir(&self) -> std::io::Result<fs::File> {
        let dir = self.dir.join(LEAF_DIR);
        fs::create_dir_all(&dir)?;
        let file =
            fs::File::options().create(true).truncate(false).write(true).open(dir.join(".lock"))?;
        file.lock()?;
        Ok(file)
    }

    /// Takes the directory's lock for this process (once; later calls do
    /// nothing) and clears the leftovers of interrupted runs: unfinished
    /// `.tmp` writes and `.work` files are removed, checkpoints that do
    /// not match these rules or this index are removed, matching ones are
    /// kept for their pair. Returns one line per leftover saying which.
    pub fn begin_solve(&self) -> Result<Vec<String>, DbError> {
        let mut held = self.lock.lock().unwrap();
        if held.is_some() {
            return Ok(Vec::new());
        }
        self.create_dir()?;
        *held = Some(lock::lock(&self.dir)?);
        self.clear_leftovers()
    }

    pub(crate) fn create_dir(&self) -> Result<(), DbError> {
        fs::create_dir_all(&self.dir).map_err(|source| match source.kind() {
            ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied => {
                DbError::ReadOnly { dir: self.dir.clone(), source }
            }
            _ => {
                DbError::Io { path: self.dir.clone(), op: "create the database directory", source }
            }
        })
    }

    fn clear_leftovers(&self) -> Result<Vec<String>, DbError> {
        let prefix = format!("{}-", self.variant.name());
        let mut names: Vec<String> = fs::read_dir(&self.dir)
            .map_err(io_error(&self.dir, "list the database directory"))?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with(&prefix))
            .collect();
        names.sort();
        let mut notes = Vec::new();
        for name in names {
            let path = self.dir.join(&name);
            let why = if name.ends_with(".tmp") {
                "an unfinished write of an interrupted run".to_string()
            } else if name.ends_with(".work") {
                "working cells of an interrupted run, recomputed when needed".to_string()
            } else if let Some(sector) =
                name.strip_prefix(&prefix).and_then(|n| n.strip_suffix(".ckpt"))
            {
                match self.foreign_checkpoint(sector, &path) {
                    Ok(depth) => {
                        notes.push(format!("kept {name}: the checkpoint of an interrupted run at depth {depth}, used when its pair is solved"));
                        continue;
                    }
                    Err(why) => format!("a checkpoint {why}"),
                }
            } else {
                continue;
            };
            fs::remove_file(&path).map_err(io_error(&path, "remove a leftover"))?;
            notes.push(format!("removed {name}: {why}"));
        }
        Ok(notes)
    }

    /// The depth of the checkpoint at `path` of the pair whose first
    /// sector is `sector` (as the file's name says), or why it cannot be
    /// used under these rules.
    fn foreign_checkpoint(&self, sector: &str, path: &Path) -> Result<u16, String> {
        let pair = moving_pairs(&self.variant, u32::MAX)
            .into_iter()
            .find(|p| p.sectors()[0].to_string() == sector)
            .ok_or_else(|| {
                format!(
                    "named after {sector}, not the first sector of a pair of {}",
                    self.variant.name()
                )
            })?;
        let (header, _) =
            checkpoint::read_header(path).map_err(|e| format!("that cannot be read ({e})"))?;
        match header.mismatch(&self.checkpoint_header(pair, 0)) {
            Some(why) => Err(why),
            None => Ok(header.depth),
        }
    }

    /// The header a checkpoint of `pair` at `depth` has under these rules.
    fn checkpoint_header(&self, pair: MovingPair, depth: u16) -> checkpoint::Header {
        let sectors = pair.sectors();
        let slots: Vec<u64> = sectors.iter().map(|&s| self.indexer.sector(s).slots()).collect();
        let chunks = slots.iter().map(|&s| chunk_count(s)).collect();
        let names = sectors.iter().map(|s| s.to_string()).collect();
        checkpoint::Header::new(
            self.variant.rules_key(),
            names,
            INDEX_VERSION,
            slots,
            chunks,
            depth,
        )
    }

    /// Fails unless the file system of the directory has `needed` bytes
    /// free for `what`.
    pub(crate) fn check_space(
        &self,
        what: String,
        why: &'static str,
        needed: u64,
    ) -> Result<(), DbError> {
        let free =
            space::free_bytes(&self.dir).map_err(io_error(&self.dir, "find the free space"))?;
        if free < needed {
            return Err(DbError::NoSpace { dir: self.dir.clone(), what, why, needed, free });
        }
        Ok(())
    }

    /// A no-space error for a write that failed with ENOSPC (anywhere in
    /// the error's chain: a table write fails as a `TableError`), else `err`.
    pub(crate) fn no_space_or(
        &self,
        what: String,
        why: &'static str,
        needed: u64,
        err: DbError,
    ) -> DbError {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&err);
        while let Some(e) = cause {
            if e.downcast_ref::<std::io::Error>().and_then(|io| io.raw_os_error())
                == Some(libc::ENOSPC)
            {
                let free = space::free_bytes(&self.dir).unwrap_or(0);
                return DbError::NoSpace { dir: self.dir.clone(), what, why, needed, free };
            }
            cause = e.source();
        }
        err
    }

    /// Writes the finished table of `sector`.
    pub(crate) fn write_table(
        &self,
        sector: Sector,
        counts: Counts,
        cells: &[u16],
    ) -> Result<(), DbError> {
        let info = TableInfo {
            rules: self.variant.rules_key(),
            sector: sector.to_string(),
            index_version: INDEX_VERSION,
            slots: self.indexer.sector(sector).slots(),
            counts,
        };
        write_table(&self.table_path(sector), &info, cells)?;
        Ok(())
    }

    /// The bytes a pair needs on disk: its tables (a safe bound) and, with
    /// checkpoints, two of them (the one kept and the one being written),
    /// less the checkpoint already there.
    pub(crate) fn pair_bytes(&self, pair: MovingPair) -> u64 {
        let (tables, checkpoints) = self.pair_space(pair);
        if checkpoints == 0 {
            return tables;
        }
        let present = fs::metadata(self.checkpoint_path(pair)).map(|m| m.len()).unwrap_or(0);
        tables + checkpoints.saturating_sub(present)
    }

    /// A safe bound on the tables of a pair, and the bytes of two of its
    /// checkpoints (0 without checkpoints).
    fn pair_space(&self, pair: MovingPair) -> (u64, u64) {
        let header = self.checkpoint_header(pair, 0);
        let tables: u64 = header.slots.iter().map(|&s| max_table_bytes(s)).sum();
        match self.checkpoint_every {
            None => (tables, 0),
            Some(_) => (tables, 2 * checkpoint::file_bytes(&header.slots, &header.chunks)),
        }
    }

    /// What `job` needs while it runs, by the bounds the solve itself
    /// uses, whatever the directory holds now.
    pub fn job_needs(&self, job: Job) -> JobNeeds {
        let cells = |sectors: Vec<Sector>| -> u64 {
            sectors.iter().map(|&s| 2 * self.indexer.sector(s).slots()).sum()
        };
        let disk = match job {
            Job::Pair(pair) => {
                let (tables, checkpoints) = self.pair_space(pair);
                tables + checkpoints
            }
            Job::Placement(sector) => max_table_bytes(self.indexer.sector(sector).slots()),
        };
        JobNeeds { memory: cells(job.sectors()) + cells(job.reads()), disk }
    }

    /// Whether `pair` has a checkpoint file.
    pub(crate) fn has_checkpoint(&self, pair: MovingPair) -> bool {
        self.checkpoint_path(pair).exists()
    }

    /// Removes the checkpoint of `pair`, if it has one.
    pub(crate) fn remove_checkpoint(&self, pair: MovingPair) -> Result<(), DbError> {
        let path = self.checkpoint_path(pair);
        if path.exists() {
            fs::remove_file(&path).map_err(io_error(&path, "remove the checkpoint"))?;
        }
        Ok(())
    }

    /// The resume point of the checkpoint of `pair`, its cells read into
    /// `maps`, or why it cannot be used.
    pub(crate) fn read_checkpoint(
        &self,
        pair: MovingPair,
        maps: &mut [MmapMut],
    ) -> Result<ResumePoint, String> {
        let path = self.checkpoint_path(pair);
        let (header, input) = checkpoint::read_header(&path).map_err(|e| e.to_string())?;
        if let Some(why) = header.mismatch(&self.checkpoint_header(pair, 0)) {
            return Err(why);
        }
        let mut cells: Vec<&mut [u8]> =
            maps.iter_mut().zip(&header.slots).map(|(m, &s)| &mut m[..2 * s as usize]).collect();
        let sides = checkpoint::read_body(&header, input, &mut cells).map_err(|e| e.to_string())?;
        Ok(ResumePoint { depth: header.depth, sides })
    }

    /// Writes the checkpoint of a pair, replacing the one there atomically.
    pub(crate) fn write_checkpoint(
        &self,
        pair: MovingPair,
        cells: &[&[u8]],
        point: &ResumePoint,
    ) -> Result<(), DbError> {
        let header = self.checkpoint_header(pair, point.depth);
        write_atomically(
            &self.checkpoint_path(pair),
            |file, tmp| {
                checkpoint::write(file, header, cells, &point.sides)
                    .map_err(io_error(tmp, "write the checkpoint"))
            },
            |path, op, source| DbError::Io { path: path.to_owned(), op, source },
        )
    }
}

/// `result` of a write into `path` that `cancelled` may have stopped:
/// [`DbError::Interrupted`] if it did.
fn stopped_if_cancelled(
    result: Result<(), TableError>,
    path: &Path,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<(), DbError> {
    match result {
        Err(TableError::Io { source, .. })
            if source.kind() == ErrorKind::Interrupted && cancelled() =>
        {
            Err(DbError::Interrupted(format!("while writing {}", path.display())))
        }
        result => Ok(result?),
    }
}

/// The directory of the leaf caches, inside the database directory.
pub const LEAF_DIR: &str = "leaves";

/// Leaf scores one database shares among its searches.
enum SharedLeaves {
    Mapped(Arc<LeafScores>),
    Copied(Weak<LeafScores>),
}

/// Where [`Database::leaf_scores`] found a sector's scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafOrigin {
    /// Already at hand: an earlier search of this process had them.
    Shared,
    /// A cache file, mapped.
    Opened,
    /// A cache file made from the table just now, mapped.
    Built,
    /// A copy of the table in memory (no cache could be written).
    Copied,
}

/// What a job needs while it runs ([`Database::job_needs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobNeeds {
    /// Bytes of memory for cells: the working cells of its sectors and
    /// the cells of the tables it reads, 2 bytes per index slot each
    /// (the mapped tables come on top, as page cache).
    pub memory: u64,
    /// Bytes free on disk that it checks for before it starts: a safe
    /// bound on its tables (2 bytes per slot; they come out far smaller)
    /// and, for a pair, two checkpoints.
    pub disk: u64,
}
