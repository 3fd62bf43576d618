//! The leaves of the search: win, loss or draw of positions whose sector
//! has a table, full or win/draw/loss ([`Database::tier`]), from the
//! sector's 2-bit scores.
//!
//! A probe is then a rank and one memory read instead of a block
//! decompression. The scores of nine's whole moving phase take 2.3 GB
//! (9.2 G slots at 2 bits). They live in leaf cache files beside the
//! tables (`<db>/leaves/<variant>-<sector>.wdl2`,
//! [`crate::database::leaf_cache`]), made from a table the first time a
//! search needs it and mapped from then on, so a query copies no table
//! it has read before; the database shares the maps among all its
//! searches, so `morris serve` opens each once. Where no cache can be
//! written the scores are copied from the table into memory, as every
//! query once did. A cache block that fails its checksum is never read:
//! the sector's cache is made again from the table (once; a second
//! failure is an error). Which sectors have tables is asked of the
//! database once per sector, never per node.

use crate::database::leaf_cache::LeafScores;
use crate::database::{Database, DbError, LeafOrigin};
use crate::index::Sector;
use crate::table::TableError;
use std::sync::Arc;

/// What is known of one sector.
enum Leaf {
    /// Not asked yet.
    Unknown,
    /// A placement sector without a table: the search goes on below it.
    Absent,
    /// Its scores; `repaired` once a damaged cache has been made again.
    Scores { scores: Arc<LeafScores>, repaired: bool },
}

/// The sectors' scores, one entry per possible sector.
pub struct Leaves {
    /// Counts run over `0..dim` (stones per side + 1).
    dim: usize,
    sectors: Vec<Leaf>,
    loaded: Loaded,
}

/// What getting the leaves' scores has cost.
#[derive(Clone, Copy, Debug, Default)]
pub struct Loaded {
    /// Sectors whose scores the search reads.
    pub sectors: usize,
    /// Their bytes (mapped or copied).
    pub bytes: usize,
    /// Of those sectors, the ones whose cache file was made from the table.
    pub built: usize,
    /// Of those sectors, the ones copied into memory.
    pub copied: usize,
    /// The time it all took.
    pub time: std::time::Duration,
}

impl Leaves {
    pub fn new(stones: u8) -> Leaves {
        let dim = stones as usize + 1;
        Leaves {
            dim,
            sectors: (0..dim.pow(4)).map(|_| Leaf::Unknown).collect(),
            loaded: Loaded::default(),
        }
    }

    /// What the sectors' scores have cost so far.
    pub fn loaded(&self) -> Loaded {
        self.loaded
    }

    fn entry(&self, s: Sector) -> usize {
        let d = self.dim;
        ((s.mover as usize * d + s.opponent as usize) * d + s.mover_hand as usize) * d
            + s.opponent_hand as usize
    }

    /// The score of `state` (whose sector is `sector` and slot `slot`) if
    /// its sector has a table; moving-phase sectors must have one.
    #[inline]
    pub fn score(
        &mut self,
        db: &Database,
        sector: Sector,
        slot: u64,
    ) -> Result<Option<i8>, DbError> {
        let i = self.entry(sector);
        loop {
            match &self.sectors[i] {
                Leaf::Scores { scores, repaired } => match scores.score(slot) {
                    Ok(score) => return Ok(Some(score)),
                    Err(bad) => {
                        if *repaired {
                            return Err(DbError::Table(TableError::Corrupt {
                                path: bad.path,
                                what: format!(
                                    "leaf cache block {} fails its checksum again after the cache was made anew from the table",
                                    bad.block
                                ),
                            }));
                        }
                        let bad = scores.clone();
                        let started = std::time::Instant::now();
                        let (scores, origin) = db.repair_leaf_scores(sector, &bad)?;
                        self.count(&scores, origin, started, false);
                        self.sectors[i] = Leaf::Scores { scores, repaired: true };
                    }
                },
                Leaf::Absent => return Ok(None),
                Leaf::Unknown => self.sectors[i] = self.load(db, sector)?,
            }
        }
    }

    #[cold]
    fn load(&mut self, db: &Database, sector: Sector) -> Result<Leaf, DbError> {
        if !sector.is_moving() && !db.has_values(sector) {
            return Ok(Leaf::Absent);
        }
        let started = std::time::Instant::now();
        let (scores, origin) = db.leaf_scores(sector)?;
        self.count(&scores, origin, started, true);
        Ok(Leaf::Scores { scores, repaired: false })
    }

    fn count(
        &mut self,
        scores: &LeafScores,
        origin: LeafOrigin,
        started: std::time::Instant,
        new: bool,
    ) {
        if new {
            self.loaded.sectors += 1;
            self.loaded.bytes += scores.len();
        }
        self.loaded.built += (origin == LeafOrigin::Built) as usize;
        self.loaded.copied += (origin == LeafOrigin::Copied) as usize;
        self.loaded.time += started.elapsed();
    }
}
