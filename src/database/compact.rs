//! Rewriting a database's tables in place with other blocks (`morris
//! compact`), one table at a time: each is written to a temporary file,
//! checked against the table it copies and only then renamed over it
//! ([`crate::table::rewrite_table`]), so a killed run leaves every table
//! old or new, complete. A table already in the blocks asked for is
//! left alone, so a stopped run goes on where it stopped. The caller
//! holds the directory's lock ([`Database::begin_solve`]), which also
//! removes a killed run's temporary file.

use super::{stopped_if_cancelled, Database, DbError};
use crate::index::Sector;
use crate::table::{rewrite_table, WriteOptions};

/// What [`Database::compact_table`] did with one table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compacted {
    /// Bytes of the table before.
    pub before: u64,
    /// Bytes of the table after (`before` when it was left alone).
    pub after: u64,
    /// Whether it was rewritten now (else it already had the blocks asked for).
    pub written: bool,
}

impl Database {
    /// Rewrites the table of `sector` in place with `options` (block size
    /// and zstd level), unless its header says it already has blocks of
    /// `options.block_cells`, after checking that the disk has room for
    /// the copy beside the old table. The new file replaces the old one only once
    /// it has been checked: the same header and every cell decoded equal
    /// to the old table's. Blocks are compressed on the calling thread
    /// pool; `cancelled` is asked before each, and a yes stops with
    /// [`DbError::Interrupted`], the old table in place and no temporary
    /// file left. This process's readers get the new table from then on.
    pub fn compact_table(
        &self,
        sector: Sector,
        options: &WriteOptions,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<Compacted, DbError> {
        let table = self.open_unkept(sector)?;
        let before = table.bytes_on_disk();
        if table.block_cells() == u64::from(options.block_cells) {
            return Ok(Compacted { before, after: before, written: false });
        }
        // The new copy lies beside the old table until the rename: about
        // its size at most (zstd's worst case is a little more).
        let needed = before + before / 64 + 4096;
        self.check_space(format!("compacting {sector}"), "a new copy of the table", needed)?;
        let path = self.table_path(sector);
        stopped_if_cancelled(rewrite_table(&path, &table, options, cancelled), &path, cancelled)?;
        drop(table);
        // A table kept open here maps the old file, now unlinked.
        self.open.lock().unwrap().remove(&sector);
        let after = self.open_unkept(sector)?.bytes_on_disk();
        Ok(Compacted { before, after, written: true })
    }
}
