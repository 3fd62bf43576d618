//! What a solve writes and how it stays safe: the directory's lock and
//! the leftovers of a killed run, the space checks, checkpoint files, a
//! finished table written whole, and what a job needs.

use super::*;
use std::fs::File;
use std::io::{BufReader, Read};

impl Database {
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

    pub(super) fn clear_leftovers(&self) -> Result<Vec<String>, DbError> {
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
    pub(super) fn foreign_checkpoint(&self, sector: &str, path: &Path) -> Result<u16, String> {
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
    pub(crate) fn checkpoint_header(&self, pair: MovingPair, depth: u16) -> checkpoint::Header {
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
    pub(super) fn pair_space(&self, pair: MovingPair) -> (u64, u64) {
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
        // A side of a pair with exits (captures, or placements)
        // remembers what they are worth, a byte a slot (`solve::moving`'s
        // exit memo).
        let memos: u64 = match job {
            Job::Pair(_) => job
                .sectors()
                .iter()
                .filter(|&&s| crate::solve::exit_sectors(s).any())
                .map(|&s| self.indexer.sector(s).slots())
                .sum(),
            Job::Placement(_) => 0,
        };
        JobNeeds { memory: cells(job.sectors()) + cells(job.reads()) + memos, disk }
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
        let input = File::open(&path).map_err(|e| e.to_string())?;
        self.resume_point(pair, BufReader::with_capacity(1 << 20, input), maps)
    }

    /// [`Database::read_checkpoint`] of the checkpoint `input` reads:
    /// its header checked against `pair` under these rules, its cells read
    /// into `maps` (one a side, each at least as long as its side's cells),
    /// its checksum checked. The fuzz target (`crate::fuzzing`) reads
    /// bytes in memory through it.
    pub(crate) fn resume_point<M: AsMut<[u8]>>(
        &self,
        pair: MovingPair,
        input: impl Read,
        maps: &mut [M],
    ) -> Result<ResumePoint, String> {
        let (header, input) = checkpoint::read_header_from(input).map_err(|e| e.to_string())?;
        if let Some(why) = header.mismatch(&self.checkpoint_header(pair, 0)) {
            return Err(why);
        }
        let mut cells: Vec<&mut [u8]> = maps
            .iter_mut()
            .zip(&header.slots)
            .map(|(m, &s)| &mut m.as_mut()[..2 * s as usize])
            .collect();
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
pub(super) fn stopped_if_cancelled(
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

/// What a job needs while it runs ([`Database::job_needs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobNeeds {
    /// Bytes of memory for cells: the working cells of its sectors and
    /// the cells of the tables it reads, 2 bytes per index slot each, and
    /// in Lasker's placement pairs a byte per slot of a side with stones
    /// in hand (the mapped tables come on top, as page cache).
    pub memory: u64,
    /// Bytes free on disk that it checks for before it starts: a safe
    /// bound on its tables (2 bytes per slot; they come out far smaller)
    /// and, for a pair, two checkpoints.
    pub disk: u64,
}
