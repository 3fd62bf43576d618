//! The solve driver: which pairs and placement sectors a run solves, in
//! which order, on which thread pool; the working memory of a pair, its
//! checkpoints while it propagates, and its tables when it is done. It
//! gets its tables from the database and gives the finished ones back to
//! it: the files are the database's business.
//!
//! The driver's entry points are methods of [`Database`]
//! ([`Database::solve_moving`], [`Database::solve_placement`],
//! [`Database::solve_job`]), so that a caller holds one value for a
//! directory, whether it reads or solves.

use std::sync::atomic::AtomicU16;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use memmap2::MmapMut;

use crate::database::{io_error, Database, DbError};
use crate::huge::HugeCells;
use crate::index::Sector;
use crate::solve::placement;
use crate::solve::plan::Job;
use crate::solve::{
    moving_pairs, placement_order, placement_pairs, MovingPair, PairReport, Progress, ResumePoint,
    SolveError, SolvedSector, WorkingSector,
};
use crate::table::max_table_bytes;

/// What a working file or checkpoint is for, in the no-space message.
const PLACEMENT_TABLE: &str = "a safe bound on the table";
const CHECKPOINTS_AND_TABLES: &str = "two checkpoints per side and a safe bound on the tables";

/// What a `solve` run did.
#[derive(Debug, Default)]
pub struct SolveSummary {
    /// The pairs solved, with what solving each took.
    pub solved: Vec<(MovingPair, PairReport)>,
    /// The pairs whose tables were there already.
    pub skipped: Vec<MovingPair>,
}

impl Database {
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
        let pairs = moving_pairs(self.variant(), max_stones);
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
    /// first, so each one's successors are solved before it; in Lasker's
    /// placement phase, pair by pair.
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
        if self.variant().move_while_placing() {
            return self.solve_placement_pairs(max_stones, &pool, progress);
        }
        let sectors = placement_order(self.variant(), max_stones);
        self.solve_placement_sectors(&sectors, &pool, progress)
    }

    /// Lasker's placement phase: a player with stones in hand may slide,
    /// which keeps the hands, so the placement sectors form pairs solved
    /// like the moving phase's (checkpoints included), fewest stones in
    /// hand first ([`placement_pairs`]). Each pair's report is listed under
    /// its first sector.
    fn solve_placement_pairs(
        &self,
        max_stones: u32,
        pool: &rayon::ThreadPool,
        progress: &dyn PairProgress,
    ) -> Result<PlacementSummary, DbError> {
        let pairs = placement_pairs(self.variant(), max_stones);
        let mut summary = PlacementSummary::default();
        for (i, pair) in pairs.iter().enumerate() {
            let sectors = pair.sectors();
            if sectors.iter().all(|&s| self.has(s)) {
                summary.skipped.extend(sectors);
                continue;
            }
            if progress.phases().cancelled() {
                return Err(DbError::Interrupted(format!("stopped before pair {pair}")));
            }
            progress.begin_pair(&pair.to_string(), i + 1, pairs.len());
            let report = self.solve_pair(*pair, pool, progress)?;
            progress.end_pair(&pair.to_string(), &report);
            summary.solved.push((sectors[0], report));
        }
        Ok(summary)
    }

    /// Solves, as [`Database::solve_placement`] does, every placement
    /// sector with at most `max_stones` stones that a game from any start
    /// reaches ([`crate::sectors::extended_placement_sectors`]), not only
    /// the standard one; tables already there are kept.
    pub fn solve_extended_placement(
        &self,
        max_stones: u32,
        threads: usize,
        progress: &dyn PairProgress,
    ) -> Result<PlacementSummary, DbError> {
        if self.variant().move_while_placing() {
            // Lasker's placement sectors are already those of every pair
            // of hands, so every start's; they are solved in pairs.
            return self.solve_placement(max_stones, threads, progress);
        }
        for note in self.begin_solve()? {
            progress.note(&note);
        }
        let pool = thread_pool(threads)?;
        let sectors = crate::solve::extended_placement_order(self.variant(), max_stones);
        self.solve_placement_sectors(&sectors, &pool, progress)
    }

    /// Solves the placement sectors of `sectors` that have no table yet,
    /// in that order (each one's successors before it), keeping the
    /// loaded successors' cells from one sector to the next.
    fn solve_placement_sectors(
        &self,
        sectors: &[Sector],
        pool: &rayon::ThreadPool,
        progress: &dyn PairProgress,
    ) -> Result<PlacementSummary, DbError> {
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
            let of = (i + 1, sectors.len());
            let report = self.solve_placement_sector(sector, pool, progress, of, &mut loaded)?;
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
        let slots = self.indexer().sector(sector).slots();
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
                self.variant(),
                self.indexer(),
                sector,
                &successors,
                &mut cells,
                progress.phases(),
            )
        });
        let walked_at = std::time::Instant::now();
        let written = result.map_err(DbError::from).and_then(|(counts, edges)| {
            self.write_table(sector, counts.clone(), &cells).map_err(|e| {
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
        let _locks = self.lock_job(job)?;
        // A table of the job that exists but does not open (other rules,
        // damage) is an error, not something to overwrite.
        let present: Vec<Sector> =
            job.sectors().into_iter().filter(|&s| self.has_file(s)).collect();
        for &sector in &present {
            self.table(sector)?;
        }
        if present.len() == job.sectors().len() {
            return Ok(JobOutcome::AlreadySolved);
        }
        for sector in job.reads() {
            if !self.has_file(sector) {
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
            job,
            variant: self.variant().name().to_string(),
            rules: self.rules_option(),
            sector,
            needed: Job::of_sector(self.variant(), sector),
            dir: self.dir().to_path_buf(),
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
        let slots = |s: Sector| self.indexer().sector(s).slots() as usize;
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
            every: self.checkpoint_every(),
            last: Mutex::new(Instant::now()),
            saved: Mutex::new(resume.as_ref().map(|r| r.depth)),
            error: Mutex::new(None),
            needed,
        };
        let loaded = began.elapsed();
        let result = pool.install(|| {
            crate::solve::solve_pair(
                self.variant(),
                self.indexer(),
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
                self.write_table(*sector, counts.clone(), &plain_cells(map)[..slots(*sector)])
            })
            .map_err(|e| {
                self.no_space_or(format!("pair {pair}"), CHECKPOINTS_AND_TABLES, needed, e)
            })?;
        }
        report.write = writing.elapsed();
        // Only now that both tables are in place is the checkpoint useless.
        self.remove_checkpoint(pair)?;
        Ok(report)
    }

    /// Zeroed anonymous memory for the working cells of `sector`. Not a
    /// file: the kernel never writes it back during the solve, and a full
    /// disk cannot fault it. Huge pages are asked for (transparent huge
    /// pages in `madvise` mode give them only on request) because the
    /// solver's scattered updates would otherwise miss the TLB on nearly
    /// every edge.
    fn working_memory(&self, sector: Sector) -> Result<MmapMut, DbError> {
        let bytes = self.indexer().sector(sector).slots().max(1) as usize * 2;
        let map = MmapMut::map_anon(bytes)
            .map_err(io_error(self.dir(), "allocate the working memory"))?;
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
        if !self.has_checkpoint(pair) {
            return Ok(None);
        }
        match self.read_checkpoint(pair, maps) {
            Ok(point) => {
                progress.note(&format!(
                    "pair {pair}: resuming from its checkpoint at depth {}",
                    point.depth
                ));
                Ok(Some(point))
            }
            Err(why) => {
                self.remove_checkpoint(pair)?;
                progress.note(&format!("pair {pair}: removed its checkpoint ({why}); the pair starts from its beginning"));
                Ok(None)
            }
        }
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

/// What [`Database::solve_job`] did.
#[derive(Debug)]
pub enum JobOutcome {
    /// Its tables were all there: nothing was done.
    AlreadySolved,
    /// It was solved; what that took.
    Solved(PairReport),
}

/// What a placement run did.
#[derive(Debug, Default)]
pub struct PlacementSummary {
    /// The sectors solved, with what solving each took.
    pub solved: Vec<(Sector, PairReport)>,
    /// The sectors whose tables were there already.
    pub skipped: Vec<Sector>,
}

/// Progress of a whole `solve` run: pairs, and the phases within each.
pub trait PairProgress: Sync {
    /// Something the run did that the user should know about (leftovers
    /// removed, a checkpoint resumed from).
    fn note(&self, _line: &str) {}
    /// A pair (or placement sector) starts: number `number` of `of`.
    fn begin_pair(&self, _pair: &str, _number: usize, _of: usize) {}
    /// A pair (or placement sector) is done, with what it took.
    fn end_pair(&self, _pair: &str, _report: &PairReport) {}
    /// Where the phases of the current pair report.
    fn phases(&self) -> &dyn Progress;
}

/// Progress that goes nowhere.
pub struct Quiet;

impl PairProgress for Quiet {
    fn phases(&self) -> &dyn Progress {
        &crate::solve::Silent
    }
}
