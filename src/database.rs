//! A database directory: one table file per sector, the working files of
//! the pair being solved, and the driver that solves what is missing.
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
pub mod lock;
pub mod space;

use crate::atomic_file::write_atomically;
use crate::index::{Indexer, Sector, INDEX_VERSION};
use crate::position::State;
use crate::solve::moving::chunk_count;
use crate::solve::placement;
use crate::solve::plan::Job;
use crate::solve::{
    self, moving_pairs, placement_order, MovingPair, PairReport, Progress, ResumePoint, SolveError,
    SolvedSector, WorkingSector,
};
use crate::table::{max_table_bytes, write_table, Table, TableError, TableInfo};
use crate::value::{Cell, Value};
use crate::variant::Variant;
use memmap2::{Mmap, MmapMut};
use std::collections::HashMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU16;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often a pair's propagation is checkpointed by default: a kill
/// loses at most this much work of the pair (plus one level).
pub const DEFAULT_CHECKPOINT_INTERVAL: Duration = Duration::from_secs(300);

/// Error of the database layer; every message names the file or sector.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Solve(#[from] SolveError),
    #[error("{}: {op}: {source}", path.display())]
    Io { path: PathBuf, op: &'static str, source: std::io::Error },
    #[error("sector {sector} of {variant} is not in the database {}: run `morris solve --variant {variant}{rules} --max-stones {stones} --db {}`", dir.display(), dir.display())]
    Missing { sector: String, variant: String, rules: String, stones: u32, dir: PathBuf },
    #[error("cannot start {threads} threads: {why}")]
    Threads { threads: usize, why: String },
    #[error("database {} is being solved by {holder}", dir.display())]
    Busy { dir: PathBuf, holder: String },
    #[error("job {job} is being solved in {} by {holder}", dir.display())]
    JobBusy { job: String, dir: PathBuf, holder: String },
    #[error("job {job} of {variant} needs sector {sector}, which is not in the database {}: solve job {needed} first (`morris solve --variant {variant}{rules} --job {needed} --db {}`)", dir.display(), dir.display())]
    MissingDependency {
        job: String,
        variant: String,
        rules: String,
        sector: String,
        needed: String,
        dir: PathBuf,
    },
    #[error("database {} is not writable, so it cannot be solved into (queries still work): {source}", dir.display())]
    ReadOnly { dir: PathBuf, source: std::io::Error },
    #[error("not enough space in {} for {what}: it needs {needed} bytes ({why}), {free} are free; free some and run the same command again", dir.display())]
    NoSpace { dir: PathBuf, what: String, why: &'static str, needed: u64, free: u64 },
    /// The progress asked to stop; the text says where the run stopped.
    #[error("{0}")]
    Interrupted(String),
}

fn io_error<'a>(path: &'a Path, op: &'static str) -> impl FnOnce(std::io::Error) -> DbError + 'a {
    move |source| DbError::Io { path: path.to_path_buf(), op, source }
}

/// What a working file or checkpoint is for, in the no-space message.
const PLACEMENT_TABLE: &str = "a safe bound on the table";
const CHECKPOINTS_AND_TABLES: &str = "two checkpoints per side and a safe bound on the tables";

/// The tables of one variant in one directory.
pub struct Database {
    dir: PathBuf,
    variant: Variant,
    indexer: Indexer,
    open: Mutex<HashMap<Sector, Arc<Table<Mmap>>>>,
    /// The directory's lock while this process solves into it.
    lock: Mutex<Option<lock::DirLock>>,
    /// How often a pair is checkpointed; `None`: never.
    checkpoint_every: Option<Duration>,
}

/// What a `solve` run did.
#[derive(Debug, Default)]
pub struct SolveSummary {
    pub solved: Vec<(MovingPair, PairReport)>,
    pub skipped: Vec<MovingPair>,
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
            lock: Mutex::new(None),
            checkpoint_every: Some(DEFAULT_CHECKPOINT_INTERVAL),
        }
    }

    /// The same database, checkpointing pairs every `every` (`None`: never).
    pub fn with_checkpoints(mut self, every: Option<Duration>) -> Database {
        self.checkpoint_every = every;
        self
    }

    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the table of `sector` lives.
    pub fn table_path(&self, sector: Sector) -> PathBuf {
        self.dir.join(format!("{}-{}.mtb", self.variant.name(), sector))
    }

    /// Where the checkpoint of a pair (both sides) lives: named after the
    /// pair's first sector.
    pub fn checkpoint_path(&self, pair: MovingPair) -> PathBuf {
        self.dir.join(format!("{}-{}.ckpt", self.variant.name(), pair.sectors()[0]))
    }

    /// The table of `sector`, opened once and kept.
    pub fn table(&self, sector: Sector) -> Result<Arc<Table<Mmap>>, DbError> {
        if let Some(t) = self.open.lock().unwrap().get(&sector) {
            return Ok(t.clone());
        }
        let path = self.table_path(sector);
        if !path.exists() {
            return Err(self.missing(sector));
        }
        let table = Arc::new(Table::open(&path, &self.variant.rules_key(), &sector.to_string())?);
        self.open.lock().unwrap().insert(sector, table.clone());
        Ok(table)
    }

    /// Whether `sector` has a table that opens under these rules.
    pub fn has(&self, sector: Sector) -> bool {
        self.table(sector).is_ok()
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

    /// The `--fly-at` a solve command needs to make tables these rules
    /// accept (nothing under the variant's own rules): with other rules it
    /// would make tables that this database refuses.
    fn rules_option(&self) -> String {
        let default = Variant::named(self.variant.name()).map(|v| v.rules_key());
        match default {
            Ok(key) if key == self.variant.rules_key() => String::new(),
            _ => format!(" --fly-at {}", self.variant.flying()),
        }
    }

    /// An error naming the first moving-phase sector with at most
    /// `max_stones` on the board that has no table, if there is one.
    pub fn check_moving_phase(&self, max_stones: u32) -> Result<(), DbError> {
        let missing = moving_pairs(&self.variant, max_stones)
            .into_iter()
            .flat_map(|p| p.sectors())
            .find(|&s| !self.has(s));
        match missing {
            Some(sector) => Err(self.missing_for(sector, max_stones)),
            None => Ok(()),
        }
    }

    /// The stored value of a state (any state of a sector in the database;
    /// a side with fewer than 3 stones has lost).
    pub fn value(&self, state: &State) -> Result<Value, DbError> {
        if state.mover_stones() < 3 {
            return Ok(Value::Loss(0));
        }
        let sector = Sector::of(state);
        let slot = self.indexer.sector(sector).rank(state.mover, state.opponent);
        Ok(Value::from(Cell(self.table(sector)?.get(slot)?)))
    }

    /// Every cell of a sector, checked block by block.
    pub fn load_cells(&self, sector: Sector) -> Result<Vec<u16>, DbError> {
        Ok(self.table(sector)?.read_all()?)
    }

    /// Every cell of a sector, checked block by block, in memory backed by
    /// huge pages where the system grants them: for readers that jump
    /// around a large table, which would otherwise miss the TLB on nearly
    /// every read.
    pub fn load_cells_huge(&self, sector: Sector) -> Result<HugeCells, DbError> {
        let table = self.table(sector)?;
        let slots = table.info().slots as usize;
        let mut cells = HugeCells::zeroed(slots)
            .map_err(io_error(&self.table_path(sector), "allocate memory for the cells"))?;
        table.read_all_into(&mut cells)?;
        Ok(cells)
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

    fn create_dir(&self) -> Result<(), DbError> {
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
    fn check_space(&self, what: String, why: &'static str, needed: u64) -> Result<(), DbError> {
        let free =
            space::free_bytes(&self.dir).map_err(io_error(&self.dir, "find the free space"))?;
        if free < needed {
            return Err(DbError::NoSpace { dir: self.dir.clone(), what, why, needed, free });
        }
        Ok(())
    }

    /// A no-space error for a write that failed with ENOSPC (anywhere in
    /// the error's chain: a table write fails as a `TableError`), else `err`.
    fn no_space_or(&self, what: String, why: &'static str, needed: u64, err: DbError) -> DbError {
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

    /// Solves every moving-phase pair with at most `max_stones` stones on
    /// the board that has no tables yet, on `threads` threads. Takes the
    /// directory's lock first (see [`Database::begin_solve`]).
    pub fn solve_moving(
        &self,
        max_stones: u32,
        threads: usize,
        progress: &dyn PairProgress,
    ) -> Result<SolveSummary, DbError> {
        for note in self.begin_solve()? {
            progress.note(&note);
        }
        let pool = thread_pool(threads)?;
        let pairs = moving_pairs(&self.variant, max_stones);
        let mut summary = SolveSummary::default();
        for (i, pair) in pairs.iter().enumerate() {
            if pair.sectors().iter().all(|&s| self.has(s)) {
                summary.skipped.push(*pair);
                continue;
            }
            if progress.phases().cancelled() {
                return Err(DbError::Interrupted(format!("stopped before pair {pair}")));
            }
            progress.begin_pair(&pair.to_string(), i + 1, pairs.len());
            let report = self.solve_pair(*pair, &pool, progress)?;
            progress.end_pair(&pair.to_string(), &report);
            summary.solved.push((*pair, report));
        }
        Ok(summary)
    }

    /// Solves every placement sector with at most `max_stones` stones on
    /// the board and in hand that has no table yet, after the moving
    /// phase it leads to. Sectors come in order of stones in hand, fewest
    /// first, so each one's successors are solved before it.
    pub fn solve_placement(
        &self,
        max_stones: u32,
        threads: usize,
        progress: &dyn PairProgress,
    ) -> Result<PlacementSummary, DbError> {
        for note in self.begin_solve()? {
            progress.note(&note);
        }
        let pool = thread_pool(threads)?;
        let sectors = placement_order(&self.variant, max_stones);
        let mut summary = PlacementSummary::default();
        let mut loaded: Vec<(Sector, HugeCells)> = Vec::new();
        for (i, &sector) in sectors.iter().enumerate() {
            if self.has(sector) {
                summary.skipped.push(sector);
                continue;
            }
            if progress.phases().cancelled() {
                return Err(DbError::Interrupted(format!(
                    "stopped before placement sector {sector}"
                )));
            }
            let report = self.solve_placement_sector(
                sector,
                &pool,
                progress,
                (i + 1, sectors.len()),
                &mut loaded,
            )?;
            summary.solved.push((sector, report));
        }
        Ok(summary)
    }

    /// Solves one placement sector in `pool`, reporting it as sector
    /// `number` of `of`. `loaded` keeps the successors' cells from one
    /// sector to the next, as far as they are still needed.
    fn solve_placement_sector(
        &self,
        sector: Sector,
        pool: &rayon::ThreadPool,
        progress: &dyn PairProgress,
        (number, of): (usize, usize),
        loaded: &mut Vec<(Sector, HugeCells)>,
    ) -> Result<PairReport, DbError> {
        let slots = self.indexer.sector(sector).slots();
        // The cells are worked out in memory (a killed run starts the
        // sector again), so the disk needs room for the table only.
        let needed = max_table_bytes(slots);
        self.check_space(format!("placement sector {sector}"), PLACEMENT_TABLE, needed)?;
        progress.begin_pair(&sector.to_string(), number, of);
        let began = std::time::Instant::now();
        let successors_needed = placement::successor_sectors(sector);
        loaded.retain(|(s, _)| successors_needed.contains(s));
        for s in successors_needed {
            if !loaded.iter().any(|(l, _)| *l == s) {
                loaded.push((s, self.load_cells_huge(s)?));
            }
        }
        let successors: Vec<placement::Successor> =
            loaded.iter().map(|(s, c)| placement::Successor { sector: *s, cells: c }).collect();
        let loaded_at = std::time::Instant::now();
        let mut cells = HugeCells::zeroed(slots as usize)
            .map_err(io_error(&self.table_path(sector), "allocate memory for the working cells"))?;
        let result = pool.install(|| {
            placement::solve_sector(
                &self.variant,
                &self.indexer,
                sector,
                &successors,
                &mut cells,
                progress.phases(),
            )
        });
        let walked_at = std::time::Instant::now();
        let written = result.map_err(DbError::from).and_then(|(counts, edges)| {
            self.write(sector, counts.clone(), &cells).map_err(|e| {
                self.no_space_or(format!("placement sector {sector}"), PLACEMENT_TABLE, needed, e)
            })?;
            Ok((counts, edges))
        });
        drop(cells);
        let (counts, edges) = written.map_err(|e| match e {
            DbError::Solve(SolveError::Interrupted(_)) => DbError::Interrupted(format!(
                "stopped in placement sector {sector}, which starts again from its beginning"
            )),
            e => e,
        })?;
        let report = PairReport {
            states: counts.states,
            edges,
            load: loaded_at - began,
            propagate: walked_at - loaded_at,
            write: walked_at.elapsed(),
            counts: vec![(sector, counts)],
            ..Default::default()
        };
        progress.end_pair(&sector.to_string(), &report);
        Ok(report)
    }

    /// Writes the finished table of `sector`.
    fn write(
        &self,
        sector: Sector,
        counts: crate::stats::Counts,
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
    fn pair_bytes(&self, pair: MovingPair) -> u64 {
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

    /// Solves one job of the plan ([`crate::solve::plan`]) alone, as one
    /// of several processes - on this machine or others - that share the
    /// directory, each running another job.
    ///
    /// It holds the directory's lock shared (a whole-directory solve
    /// excludes it, other jobs do not) and the job's own lock, so two runs
    /// of the same job cannot collide; it leaves other jobs' files alone.
    /// A job whose tables are all there is not solved again; a job whose
    /// dependencies are not all there is refused, naming the first
    /// missing one, before anything is done.
    pub fn solve_job(
        &self,
        job: Job,
        threads: usize,
        progress: &dyn PairProgress,
    ) -> Result<JobOutcome, DbError> {
        self.create_dir()?;
        let _shared = lock::lock_shared(&self.dir)?;
        let _own =
            lock::lock_job(&self.dir, &format!("{}-{job}", self.variant.name()), &job.to_string())?;
        // A table of the job that exists but does not open (other rules,
        // damage) is an error, not something to overwrite.
        let present: Vec<Sector> =
            job.sectors().into_iter().filter(|&s| self.table_path(s).exists()).collect();
        for &sector in &present {
            self.table(sector)?;
        }
        if present.len() == job.sectors().len() {
            return Ok(JobOutcome::AlreadySolved);
        }
        for sector in job.reads() {
            if !self.table_path(sector).exists() {
                return Err(self.missing_dependency(job, sector));
            }
            self.table(sector)?;
        }
        let pool = thread_pool(threads)?;
        let report = match job {
            Job::Pair(pair) => {
                progress.begin_pair(&pair.to_string(), 1, 1);
                let report = self.solve_pair(pair, &pool, progress)?;
                progress.end_pair(&pair.to_string(), &report);
                report
            }
            Job::Placement(sector) => {
                self.solve_placement_sector(sector, &pool, progress, (1, 1), &mut Vec::new())?
            }
        };
        Ok(JobOutcome::Solved(report))
    }

    fn missing_dependency(&self, job: Job, sector: Sector) -> DbError {
        DbError::MissingDependency {
            job: job.to_string(),
            variant: self.variant.name().to_string(),
            rules: self.rules_option(),
            sector: sector.to_string(),
            needed: Job::of_sector(sector).to_string(),
            dir: self.dir.clone(),
        }
    }

    /// Solves one pair in `pool`. Notes go out from the calling thread
    /// only: a progress may print, and the caller may hold stdout.
    fn solve_pair(
        &self,
        pair: MovingPair,
        pool: &rayon::ThreadPool,
        progress: &dyn PairProgress,
    ) -> Result<PairReport, DbError> {
        let sectors = pair.sectors();
        let needed = self.pair_bytes(pair);
        self.check_space(format!("pair {pair}"), CHECKPOINTS_AND_TABLES, needed)?;
        let began = std::time::Instant::now();
        // Captures read these at random: on huge pages.
        let deps: Vec<(Sector, HugeCells)> = pool.install(|| {
            pair.dependencies()
                .into_iter()
                .map(|s| Ok((s, self.load_cells_huge(s)?)))
                .collect::<Result<_, DbError>>()
        })?;
        let solved: Vec<SolvedSector> =
            deps.iter().map(|(s, c)| SolvedSector { sector: *s, cells: c }).collect();
        let mut maps =
            sectors.iter().map(|&s| self.working_memory(s)).collect::<Result<Vec<_>, _>>()?;
        let resume = self.load_checkpoint(pair, &mut maps, progress)?;
        let slots = |s: Sector| self.indexer.sector(s).slots() as usize;
        let sides: Vec<WorkingSector> = sectors
            .iter()
            .zip(&maps)
            .map(|(&s, m)| WorkingSector { sector: s, cells: &atomic_cells(m)[..slots(s)] })
            .collect();
        let hooks = Checkpoints {
            inner: progress.phases(),
            db: self,
            pair,
            cells: sectors.iter().zip(&maps).map(|(&s, m)| &m[..2 * slots(s)]).collect(),
            every: self.checkpoint_every,
            last: Mutex::new(Instant::now()),
            saved: Mutex::new(resume.as_ref().map(|r| r.depth)),
            error: Mutex::new(None),
            needed,
        };
        let loaded = began.elapsed();
        let result = pool.install(|| {
            solve::solve_pair(
                &self.variant,
                &self.indexer,
                &sides,
                &solved,
                &hooks,
                resume.as_ref(),
            )
        });
        let mut report = match result {
            Ok(report) => report,
            Err(SolveError::Interrupted(_)) => return Err(hooks.interrupted(pair)),
            Err(e) => return Err(e.into()),
        };
        drop(sides);
        report.load = loaded;
        let writing = std::time::Instant::now();
        for ((sector, map), (_, counts)) in sectors.iter().zip(&maps).zip(&report.counts) {
            pool.install(|| {
                self.write(*sector, counts.clone(), &plain_cells(map)[..slots(*sector)])
            })
            .map_err(|e| {
                self.no_space_or(format!("pair {pair}"), CHECKPOINTS_AND_TABLES, needed, e)
            })?;
        }
        report.write = writing.elapsed();
        // Only now that both tables are in place is the checkpoint useless.
        let path = self.checkpoint_path(pair);
        if path.exists() {
            fs::remove_file(&path).map_err(io_error(&path, "remove the checkpoint"))?;
        }
        Ok(report)
    }

    /// Zeroed anonymous memory for the working cells of `sector`. Not a
    /// file: the kernel never writes it back during the solve, and a full
    /// disk cannot fault it. Huge pages are asked for (transparent huge
    /// pages in `madvise` mode give them only on request) because the
    /// solver's scattered updates would otherwise miss the TLB on nearly
    /// every edge.
    fn working_memory(&self, sector: Sector) -> Result<MmapMut, DbError> {
        let bytes = self.indexer.sector(sector).slots().max(1) as usize * 2;
        let map =
            MmapMut::map_anon(bytes).map_err(io_error(&self.dir, "allocate the working memory"))?;
        // Only advice: a kernel without huge pages runs the same, slower.
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(map)
    }

    /// The resume point of `pair` from its checkpoint, with the cells
    /// read into `maps`, when it has a usable one; a checkpoint that
    /// cannot be used is removed, saying why.
    fn load_checkpoint(
        &self,
        pair: MovingPair,
        maps: &mut [MmapMut],
        progress: &dyn PairProgress,
    ) -> Result<Option<ResumePoint>, DbError> {
        let path = self.checkpoint_path(pair);
        if !path.exists() {
            return Ok(None);
        }
        match self.read_checkpoint(pair, &path, maps) {
            Ok(point) => {
                progress.note(&format!(
                    "pair {pair}: resuming from its checkpoint at depth {}",
                    point.depth
                ));
                Ok(Some(point))
            }
            Err(why) => {
                fs::remove_file(&path).map_err(io_error(&path, "remove the checkpoint"))?;
                progress.note(&format!("pair {pair}: removed its checkpoint ({why}); the pair starts from its beginning"));
                Ok(None)
            }
        }
    }

    fn read_checkpoint(
        &self,
        pair: MovingPair,
        path: &Path,
        maps: &mut [MmapMut],
    ) -> Result<ResumePoint, String> {
        let (header, input) = checkpoint::read_header(path).map_err(|e| e.to_string())?;
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

/// The solver's progress, passed on, plus the checkpoints of one pair.
struct Checkpoints<'a> {
    inner: &'a dyn Progress,
    db: &'a Database,
    pair: MovingPair,
    /// The working cells of each side, as bytes.
    cells: Vec<&'a [u8]>,
    every: Option<Duration>,
    last: Mutex<Instant>,
    /// The depth of the checkpoint on disk, if there is one.
    saved: Mutex<Option<u16>>,
    /// Why the last checkpoint failed.
    error: Mutex<Option<DbError>>,
    /// The space the pair was checked to need.
    needed: u64,
}

impl Checkpoints<'_> {
    /// The error for a solve that stopped: the checkpoint's, or where the
    /// pair stands.
    fn interrupted(&self, pair: MovingPair) -> DbError {
        if let Some(err) = self.error.lock().unwrap().take() {
            return self.db.no_space_or(
                format!("the checkpoint of pair {pair}"),
                CHECKPOINTS_AND_TABLES,
                self.needed,
                err,
            );
        }
        match *self.saved.lock().unwrap() {
            Some(depth) => DbError::Interrupted(format!(
                "stopped in pair {pair}; its checkpoint at depth {depth} is kept"
            )),
            None => DbError::Interrupted(format!(
                "stopped in pair {pair}, which starts again from its beginning (no checkpoint yet)"
            )),
        }
    }
}

impl Progress for Checkpoints<'_> {
    fn start(&self, phase: &str, total: u64) {
        self.inner.start(phase, total);
    }

    fn advance(&self, n: u64) {
        self.inner.advance(n);
    }

    fn cancelled(&self) -> bool {
        self.inner.cancelled()
    }

    fn checkpoint_due(&self) -> bool {
        self.every.is_some_and(|every| self.last.lock().unwrap().elapsed() >= every)
    }

    fn checkpoint(&self, point: &ResumePoint) -> bool {
        match self.db.write_checkpoint(self.pair, &self.cells, point) {
            Ok(()) => {
                *self.saved.lock().unwrap() = Some(point.depth);
                *self.last.lock().unwrap() = Instant::now();
                true
            }
            Err(err) => {
                *self.error.lock().unwrap() = Some(err);
                false
            }
        }
    }
}

/// The mapped bytes as atomic cells.
fn atomic_cells(map: &MmapMut) -> &[AtomicU16] {
    let len = map.len() / 2;
    // Safety: a mapping is page-aligned, AtomicU16 has the size and
    // alignment of u16, and the shared borrow of `map` keeps it alive and
    // unaliased by `&mut` for the lifetime of the slice.
    unsafe { std::slice::from_raw_parts(map.as_ptr() as *const AtomicU16, len) }
}

/// The mapped bytes as plain cells, once no thread writes them.
fn plain_cells(map: &MmapMut) -> &[u16] {
    // Safety: as in `atomic_cells`; all solver threads have finished.
    unsafe { std::slice::from_raw_parts(map.as_ptr() as *const u16, map.len() / 2) }
}

/// A rayon pool of `threads` threads.
fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, DbError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| DbError::Threads { threads, why: e.to_string() })
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

/// What [`Database::solve_job`] did.
#[derive(Debug)]
pub enum JobOutcome {
    /// Its tables were all there: nothing was done.
    AlreadySolved,
    Solved(PairReport),
}

/// What a placement run did.
#[derive(Debug, Default)]
pub struct PlacementSummary {
    pub solved: Vec<(Sector, PairReport)>,
    pub skipped: Vec<Sector>,
}

/// Progress of a whole `solve` run: pairs, and the phases within each.
pub trait PairProgress: Sync {
    /// Something the run did that the user should know about (leftovers
    /// removed, a checkpoint resumed from).
    fn note(&self, _line: &str) {}
    fn begin_pair(&self, _pair: &str, _number: usize, _of: usize) {}
    fn end_pair(&self, _pair: &str, _report: &PairReport) {}
    /// Where the phases of the current pair report.
    fn phases(&self) -> &dyn Progress;
}

/// Progress that goes nowhere.
pub struct Quiet;

impl PairProgress for Quiet {
    fn phases(&self) -> &dyn Progress {
        &solve::Silent
    }
}

/// Cells in an anonymous memory map that asks for transparent huge pages.
pub struct HugeCells {
    map: MmapMut,
    len: usize,
}

impl HugeCells {
    /// `len` zero cells.
    pub fn zeroed(len: usize) -> std::io::Result<HugeCells> {
        let map = MmapMut::map_anon((2 * len).max(1))?;
        // Only a hint: without huge pages the cells are as correct, and
        // reading them is slower.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(HugeCells { map, len })
    }
}

impl std::ops::Deref for HugeCells {
    type Target = [u16];
    fn deref(&self) -> &[u16] {
        // Safety: an anonymous map is page-aligned, holds at least `2 * len`
        // bytes, is zero-filled (a valid u16 anywhere) and private to this
        // value, which the borrow keeps alive.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr() as *const u16, self.len) }
    }
}

impl std::ops::DerefMut for HugeCells {
    fn deref_mut(&mut self) -> &mut [u16] {
        // Safety: as in `deref`, borrowed exclusively.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_mut_ptr() as *mut u16, self.len) }
    }
}
