//! The leaf caches of the placement search: one per sector, mapped and
//! shared by every search on the database, made again from its table when
//! missing, stale or damaged.

use super::*;

/// The directory of the leaf caches, inside the database directory.
pub const LEAF_DIR: &str = "leaves";

/// Leaf scores one database shares among its searches.
pub(super) enum SharedLeaves {
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

impl Database {
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

    pub(super) fn shared_leaf_scores(&self, sector: Sector) -> Option<Arc<LeafScores>> {
        match self.leaves.lock().unwrap().get(&sector)? {
            SharedLeaves::Mapped(s) => Some(s.clone()),
            SharedLeaves::Copied(s) => s.upgrade(),
        }
    }

    pub(super) fn share_leaf_scores(&self, sector: Sector, scores: &Arc<LeafScores>) {
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
    pub(super) fn load_leaf_scores(
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
    pub(super) fn lock_leaf_dir(&self) -> std::io::Result<fs::File> {
        let dir = self.dir.join(LEAF_DIR);
        fs::create_dir_all(&dir)?;
        let file =
            fs::File::options().create(true).truncate(false).write(true).open(dir.join(".lock"))?;
        file.lock()?;
        Ok(file)
    }
}
