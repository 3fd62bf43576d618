//! A database directory: one table file per sector, the working files of
//! the pair being solved, and the driver that solves what is missing.
//!
//! A finished sector is written to a temporary file and renamed into
//! place, so a killed run leaves either a complete table or none; the next
//! run solves again the pairs whose tables are missing.

use crate::index::{Indexer, Sector, INDEX_VERSION};
use crate::sectors::placement_sectors;
use crate::solve::placement;
use crate::solve::{self, moving_pairs, MovingPair, PairReport, Progress, SolveError, SolvedSector, WorkingSector};
use crate::table::{write_table, Table, TableError, TableInfo};
use crate::position::State;
use crate::value::{Cell, Value};
use crate::variant::Variant;
use memmap2::{Mmap, MmapMut};
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU16;
use std::sync::{Arc, Mutex};

/// Error of the database layer; every message names the file or sector.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Solve(#[from] SolveError),
    #[error("{}: {op}: {source}", path.display())]
    Io { path: PathBuf, op: &'static str, source: std::io::Error },
    #[error("sector {sector} of {variant} is not in the database {}: run `morris solve --variant {variant} --max-stones {stones} --db {}`", dir.display(), dir.display())]
    Missing { sector: String, variant: String, stones: u32, dir: PathBuf },
    #[error("cannot start {threads} threads: {why}")]
    Threads { threads: usize, why: String },
}

fn io_error<'a>(path: &'a Path, op: &'static str) -> impl FnOnce(std::io::Error) -> DbError + 'a {
    move |source| DbError::Io { path: path.to_path_buf(), op, source }
}

/// The tables of one variant in one directory.
pub struct Database {
    dir: PathBuf,
    variant: Variant,
    indexer: Indexer,
    open: Mutex<HashMap<Sector, Arc<Table<Mmap>>>>,
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
        Database { dir: dir.into(), variant, indexer, open: Mutex::new(HashMap::new()) }
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

    fn working_path(&self, sector: Sector) -> PathBuf {
        self.dir.join(format!("{}-{}.work", self.variant.name(), sector))
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
        DbError::Missing { sector: sector.to_string(), variant: self.variant.name().to_string(), stones, dir: self.dir.clone() }
    }

    /// An error naming the first moving-phase sector with at most
    /// `max_stones` on the board that has no table, if there is one.
    pub fn check_moving_phase(&self, max_stones: u32) -> Result<(), DbError> {
        let missing = moving_pairs(&self.variant, max_stones).into_iter().flat_map(|p| p.sectors()).find(|&s| !self.has(s));
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
        let mut cells = HugeCells::zeroed(slots).map_err(io_error(&self.table_path(sector), "allocate memory for the cells"))?;
        table.read_all_into(&mut cells)?;
        Ok(cells)
    }

    /// Solves every moving-phase pair with at most `max_stones` stones on
    /// the board that has no tables yet, on `threads` threads.
    pub fn solve_moving(&self, max_stones: u32, threads: usize, progress: &dyn PairProgress) -> Result<SolveSummary, DbError> {
        fs::create_dir_all(&self.dir).map_err(io_error(&self.dir, "create the database directory"))?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| DbError::Threads { threads, why: e.to_string() })?;
        let pairs = moving_pairs(&self.variant, max_stones);
        let mut summary = SolveSummary::default();
        for (i, pair) in pairs.iter().enumerate() {
            if pair.sectors().iter().all(|&s| self.has(s)) {
                summary.skipped.push(*pair);
                continue;
            }
            progress.begin_pair(&pair.to_string(), i + 1, pairs.len());
            let report = pool.install(|| self.solve_pair(*pair, progress.phases()))?;
            progress.end_pair(&pair.to_string(), &report);
            summary.solved.push((*pair, report));
        }
        Ok(summary)
    }

    /// Solves every placement sector with at most `max_stones` stones on
    /// the board and in hand that has no table yet, after the moving
    /// phase it leads to. Sectors come in order of stones in hand, fewest
    /// first, so each one's successors are solved before it.
    pub fn solve_placement(&self, max_stones: u32, threads: usize, progress: &dyn PairProgress) -> Result<PlacementSummary, DbError> {
        fs::create_dir_all(&self.dir).map_err(io_error(&self.dir, "create the database directory"))?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| DbError::Threads { threads, why: e.to_string() })?;
        let mut sectors: Vec<Sector> =
            placement_sectors(&self.variant).into_iter().filter(|s| s.total_stones() <= max_stones).collect();
        sectors.reverse();
        let mut summary = PlacementSummary::default();
        let mut loaded: Vec<(Sector, Vec<u16>)> = Vec::new();
        for (i, &sector) in sectors.iter().enumerate() {
            if self.has(sector) {
                summary.skipped.push(sector);
                continue;
            }
            progress.begin_pair(&sector.to_string(), i + 1, sectors.len());
            let t = std::time::Instant::now();
            let needed = placement::successor_sectors(sector);
            loaded.retain(|(s, _)| needed.contains(s));
            for s in needed {
                if !loaded.iter().any(|(l, _)| *l == s) {
                    loaded.push((s, self.load_cells(s)?));
                }
            }
            let successors: Vec<placement::Successor> =
                loaded.iter().map(|(s, c)| placement::Successor { sector: *s, cells: c }).collect();
            let slots = self.indexer.sector(sector).slots();
            let mut map = self.working_map(sector, slots)?;
            let cells = &mut plain_cells_mut(&mut map)[..slots as usize];
            let counts =
                pool.install(|| placement::solve_sector(&self.variant, &self.indexer, sector, &successors, cells, progress.phases()))?;
            self.write(sector, counts.clone(), cells)?;
            drop(map);
            let path = self.working_path(sector);
            fs::remove_file(&path).map_err(io_error(&path, "remove the working file"))?;
            let report = PairReport { states: counts.states, init: t.elapsed(), counts: vec![(sector, counts)], ..Default::default() };
            progress.end_pair(&sector.to_string(), &report);
            summary.solved.push((sector, report));
        }
        Ok(summary)
    }

    /// Writes the finished table of `sector`.
    fn write(&self, sector: Sector, counts: crate::table::Counts, cells: &[u16]) -> Result<(), DbError> {
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

    fn solve_pair(&self, pair: MovingPair, progress: &dyn Progress) -> Result<PairReport, DbError> {
        let deps: Vec<(Sector, HugeCells)> = pair
            .dependencies()
            .into_iter()
            .map(|s| Ok((s, self.load_cells_huge(s)?)))
            .collect::<Result<_, DbError>>()?;
        let solved: Vec<SolvedSector> = deps.iter().map(|(s, c)| SolvedSector { sector: *s, cells: c }).collect();
        let mut maps = Vec::new();
        for sector in pair.sectors() {
            let slots = self.indexer.sector(sector).slots();
            maps.push((sector, huge_cells(slots).map_err(io_error(&self.dir, "allocate working memory"))?));
        }
        let sides: Vec<WorkingSector> = maps
            .iter()
            .map(|(s, m)| WorkingSector { sector: *s, cells: &atomic_cells(m)[..self.indexer.sector(*s).slots() as usize] })
            .collect();
        let report = solve::solve_pair(&self.variant, &self.indexer, &sides, &solved, progress)?;
        for ((sector, map), (_, counts)) in maps.iter().zip(&report.counts) {
            let slots = self.indexer.sector(*sector).slots() as usize;
            self.write(*sector, counts.clone(), &plain_cells(map)[..slots])?;
        }
        Ok(report)
    }

    /// A zeroed working file of `slots` cells, mapped into memory.
    fn working_map(&self, sector: Sector, slots: u64) -> Result<MmapMut, DbError> {
        let path = self.working_path(sector);
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(io_error(&path, "create the working file"))?;
        file.set_len(slots.max(1) * 2).map_err(io_error(&path, "size the working file"))?;
        // Safety: the file was just created by this process and is private
        // to this run (a second solver on the same directory would clobber
        // it; the design gives one solver per database). If it were
        // truncated underneath, accesses would raise SIGBUS.
        unsafe { MmapMut::map_mut(&file) }.map_err(io_error(&path, "map the working file"))
    }
}

/// `slots` zeroed cells in anonymous memory that asks for transparent
/// huge pages (the machine's THP mode is usually `madvise`): the solver's
/// accesses to them are random, and 2 MiB pages keep their translations
/// in the TLB. The advice is only a hint; without it the memory works the
/// same, slower.
fn huge_cells(slots: u64) -> std::io::Result<MmapMut> {
    let map = memmap2::MmapOptions::new().len((slots.max(1) * 2) as usize).map_anon()?;
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    Ok(map)
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

/// The mapped bytes as plain cells for a single writer.
fn plain_cells_mut(map: &mut MmapMut) -> &mut [u16] {
    let len = map.len() / 2;
    // Safety: page-aligned, u16-sized cells, exclusively borrowed.
    unsafe { std::slice::from_raw_parts_mut(map.as_mut_ptr() as *mut u16, len) }
}

/// What a placement run did.
#[derive(Debug, Default)]
pub struct PlacementSummary {
    pub solved: Vec<(Sector, PairReport)>,
    pub skipped: Vec<Sector>,
}

/// Progress of a whole `solve` run: pairs, and the phases within each.
pub trait PairProgress: Sync {
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
