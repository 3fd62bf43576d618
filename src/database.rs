//! A database directory: one table file per sector and the working files
//! of the pair being solved. The driver that solves what is missing, the
//! `solve_*` methods of [`Database`], is [`driver`]; it gets its tables
//! from here and hands the finished ones back. The rest is split by job:
//! [`DbError`] and its kin in `error.rs`; the tables opened once, the
//! choice of tier and whole tables read as cells in `tables.rs`; the
//! placement search's leaf caches in `leaves.rs` (their file format in
//! [`leaf_cache`]); what a solve writes (the lock and leftovers, space,
//! checkpoints, finished tables, a job's needs) in `writing.rs`;
//! derived sectors in [`derived`].
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

mod app;
pub mod checkpoint;
mod compact;
pub mod derived;
pub mod driver;
mod error;
pub mod leaf_cache;
mod leaves;
pub mod lock;
pub mod space;
mod tables;
mod writing;

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
pub use app::{file_checksum, Manifest, ManifestFile};
pub use compact::Compacted;
pub use derived::{plan_derived, DerivedOne};
pub use error::{DbError, FullTierNeeded};
use leaf_cache::{Expected, LeafScores, Source};
use leaves::SharedLeaves;
pub use leaves::{LeafOrigin, LEAF_DIR};
use memmap2::{Mmap, MmapMut};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use writing::stopped_if_cancelled;
pub use writing::JobNeeds;

// The solve driver's types, where callers of the solve methods of
// `Database` have always found them.

/// How often a pair's propagation is checkpointed by default: a kill
/// loses at most this much work of the pair (plus one level).
pub const DEFAULT_CHECKPOINT_INTERVAL: Duration = Duration::from_secs(300);

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
    /// The progress tables of an app set, opened once and kept.
    open_progress: Mutex<HashMap<Sector, Arc<crate::table::ProgressTable<Mmap>>>>,
    /// The app set's manifest once read: `Some(None)` where there is none.
    #[allow(clippy::type_complexity)]
    app: Mutex<Option<Option<Arc<Manifest>>>>,
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
    /// Decompressed blocks each kept table keeps ([`Database::with_kept_blocks`]).
    kept_blocks: usize,
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
            open_progress: Mutex::new(HashMap::new()),
            app: Mutex::new(None),
            leaves: Mutex::new(HashMap::new()),
            no_leaf_cache: AtomicBool::new(false),
            lock: Mutex::new(None),
            checkpoint_every: Some(DEFAULT_CHECKPOINT_INTERVAL),
            kept_blocks: crate::table::CACHED_BLOCKS,
        }
    }

    /// The same database, checkpointing pairs every `every` (`None`: never).
    pub fn with_checkpoints(mut self, every: Option<Duration>) -> Database {
        self.checkpoint_every = every;
        self
    }

    /// The same database, each table it opens and keeps (of every tier)
    /// keeping up to `blocks` of its blocks decompressed, instead of
    /// [`CACHED_BLOCKS`](crate::table::CACHED_BLOCKS). A player that
    /// looks ahead reads around its position in many sectors at once:
    /// the app set's player played nine 1.6 times as fast with 64 (4 MiB
    /// of an outcome table's blocks, 32 MiB of a full or progress table's).
    pub fn with_kept_blocks(mut self, blocks: usize) -> Database {
        self.kept_blocks = blocks;
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
}
