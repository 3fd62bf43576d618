//! Tables opened once and kept (the full tier, the win/draw/loss tier),
//! the choice of tier for a sector, one state's value, and whole tables
//! read as cells.

use super::*;

impl Database {
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
    pub(super) fn open_unkept(&self, sector: Sector) -> Result<Table<Mmap>, DbError> {
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
    pub(super) fn check_slots(
        &self,
        sector: Sector,
        info: &TableInfo,
        path: &Path,
    ) -> Result<(), DbError> {
        let slots = self.indexer.sector(sector).slots();
        if slots == info.slots {
            return Ok(());
        }
        Err(DbError::Table(TableError::Corrupt {
            path: path.to_owned(),
            what: format!("{} slots, where the index of {sector} has {slots}", info.slots),
        }))
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
        table.keep_blocks(self.kept_blocks);
        self.open.lock().unwrap().insert(sector, table.clone());
        Ok(table)
    }

    /// Where the values of `sector` come from: its full table when the
    /// directory has one (whether or not a win/draw/loss table is there
    /// too), else its win/draw/loss table, opened once and kept. The one
    /// place that chooses between the tiers; a damaged file of the tier
    /// chosen is an error, never a reason to read the other.
    ///
    /// A sector whose win/draw/loss table or stub was opened before is
    /// answered from it without looking at the directory again: a player
    /// over an app set asks this of every position it reads, and the
    /// look for a full table is two system calls.
    pub fn tier(&self, sector: Sector) -> Result<SectorTable, DbError> {
        if !self.open.lock().unwrap().contains_key(&sector) {
            if let Some(t) = self.open_wdl.lock().unwrap().get(&sector) {
                return Ok(SectorTable::Wdl(t.clone()));
            }
            if let Some(d) = self.open_derived.lock().unwrap().get(&sector) {
                return Ok(SectorTable::Derived(d.clone()));
            }
        }
        match self.table(sector) {
            Ok(table) => Ok(SectorTable::Full(table)),
            Err(DbError::NeedsFullTier(_)) => Ok(SectorTable::Wdl(self.kept_wdl_table(sector)?)),
            Err(DbError::Derived { .. }) => Ok(SectorTable::Derived(self.kept_derived(sector)?)),
            Err(e) => Err(e),
        }
    }

    /// The win/draw/loss table of `sector`, opened once and kept, its
    /// slots checked against the index.
    pub(super) fn kept_wdl_table(&self, sector: Sector) -> Result<Arc<WdlTable<Mmap>>, DbError> {
        if let Some(t) = self.open_wdl.lock().unwrap().get(&sector) {
            return Ok(t.clone());
        }
        let wdl = self.wdl_table(sector)?;
        self.check_slots(sector, wdl.info(), &self.wdl_path(sector))?;
        wdl.keep_blocks(self.kept_blocks);
        let wdl = Arc::new(wdl);
        self.open_wdl.lock().unwrap().insert(sector, wdl.clone());
        Ok(wdl)
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
    pub(super) fn stored_in_table(&self, state: &State) -> Result<Stored, DbError> {
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
}
