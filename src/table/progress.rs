//! The progress tier on disk: for every won state of a cyclic pair's
//! sector, its progress depth (see [`crate::progress`]), made by `morris
//! export --app`.
//!
//! A `<variant>-<sector>.prg` file has the layout of a full table (see
//! [`super`]): the same bincode header (magic `MORRISPG`, its own version,
//! the rules, sector, index version, slots, the counts of the sector's
//! outcomes, cells per block, CRC-32 of the offset table), the CRC-32 of
//! the header, the end of each block record, and the records, each a zstd
//! frame of the block's low and high byte planes and its CRC-32. Only the
//! cells differ:
//! - a **won** state's cell is its progress depth halved, `(depth - 1) / 2`
//!   (won depths are odd, so no bit is lost);
//! - every other slot (lost, drawn, non-canonical) repeats the cell
//!   before it, so that it costs a run and nothing else. The reader takes
//!   the outcome from the outcome tier and asks this file for won states
//!   only; a lost state's depth follows by one ply (the deepest of its
//!   replies, plus one), and a drawn one has none.
//!
//! Blocks of [`BLOCK_CELLS`] slots (256 Ki) at zstd level [`ZSTD_LEVEL`]
//! (19), as the win/draw/loss tier's: on nine's moving phase up to 11
//! stones this stores 0.36 bits per state, where the lost states' depths
//! take 0.44 and both 0.90 (docs/progress.md).

use std::path::Path;

use super::format::{block_record, io_error, Header, Kind, TableError, TableInfo};
use super::reader::Table;
use super::writer::write_records_and_front;
use crate::atomic_file::write_atomically;

/// Version of the progress layout this build writes and reads.
pub const VERSION: u32 = 1;

/// Slots per block.
pub const BLOCK_CELLS: u32 = 256 * 1024;

/// zstd level of the blocks.
pub const ZSTD_LEVEL: i32 = 19;

const PROGRESS: Kind =
    Kind { magic: *b"MORRISPG", version: VERSION, oldest: VERSION, what: "morris progress table" };

/// Whether a progress cell (as [`crate::progress::solve_progress_pair`]
/// gives it: 0 draw, else depth + 1, odd depths wins) is a win.
#[inline]
pub fn is_won(cell: u16) -> bool {
    cell != 0 && cell.is_multiple_of(2)
}

/// What the file stores of the progress cells `cells`: a won state's depth
/// halved, any other slot the value before it (0 at the start).
pub fn stored_values(cells: &[u16]) -> Vec<u16> {
    let mut last = 0;
    cells
        .iter()
        .map(|&c| {
            if is_won(c) {
                last = (c - 2) / 2;
            }
            last
        })
        .collect()
}

/// Writes the progress table of a sector atomically (to `<path>.tmp`,
/// fsync, rename): `info` names the sector and its outcomes' counts,
/// `cells` are its progress cells, one per slot.
pub fn write_progress(path: &Path, info: &TableInfo, cells: &[u16]) -> Result<(), TableError> {
    if cells.len() as u64 != info.slots {
        return Err(TableError::BadInput {
            path: path.to_owned(),
            what: format!("{} cells for {} slots", cells.len(), info.slots),
        });
    }
    let values = stored_values(cells);
    let header = Header::new(&PROGRESS, info, BLOCK_CELLS);
    let block = BLOCK_CELLS as usize;
    let blocks = values.len().div_ceil(block);
    write_atomically(
        path,
        |file, tmp| {
            write_records_and_front(file, tmp, header, blocks, |b| {
                let end = ((b + 1) * block).min(values.len());
                block_record(&values[b * block..end], ZSTD_LEVEL)
                    .map_err(io_error(tmp, "write the blocks"))
            })
        },
        |path, op, source| TableError::Io { path: path.to_owned(), op, source },
    )
}

/// A progress table opened for reading: the header and offset table
/// checked on opening, each block when it is read.
pub struct ProgressTable<B: AsRef<[u8]>> {
    table: Table<B>,
}

impl ProgressTable<memmap2::Mmap> {
    /// Opens `path` (mapped), refusing it unless it is a progress table
    /// of sector `expect_sector` under `expect_rules`.
    pub fn open(path: &Path, expect_rules: &str, expect_sector: &str) -> Result<Self, TableError> {
        Ok(ProgressTable { table: Table::open_kind(path, &PROGRESS, expect_rules, expect_sector)? })
    }
}

impl<B: AsRef<[u8]>> ProgressTable<B> {
    /// Reads a progress table from `bytes` (the whole file), naming
    /// `path_for_errors` in errors.
    pub fn from_bytes(
        bytes: B,
        path_for_errors: &Path,
        expect_rules: &str,
        expect_sector: &str,
    ) -> Result<Self, TableError> {
        let table =
            Table::from_bytes_kind(bytes, path_for_errors, &PROGRESS, expect_rules, expect_sector)?;
        Ok(ProgressTable { table })
    }

    /// Rules, sector, index version, slots and the counts of the sector's
    /// outcomes.
    pub fn info(&self) -> &TableInfo {
        self.table.info()
    }

    /// Size of the file in bytes.
    pub fn bytes_on_disk(&self) -> u64 {
        self.table.bytes_on_disk()
    }

    /// Keeps up to `blocks` decompressed blocks for reads from now on
    /// ([`Table::keep_blocks`](super::Table::keep_blocks)).
    pub fn keep_blocks(&self, blocks: usize) {
        self.table.keep_blocks(blocks);
    }

    /// The progress depth of the state at `slot`, which must be a won
    /// state (any other slot gives a filler's depth).
    pub fn won_depth(&self, slot: u64) -> Result<u32, TableError> {
        Ok(2 * u32::from(self.table.get(slot)?) + 1)
    }

    /// Every slot's stored value (a won state's depth halved, a filler
    /// elsewhere), every block checked: what the forward check of the
    /// tier reads.
    pub fn read_all(&self) -> Result<Vec<u16>, TableError> {
        self.table.read_all()
    }

    /// Reads and checks every block.
    pub fn verify(&self) -> Result<(), TableError> {
        self.table.fold_blocks(|_| (), || (), |_, _| ())
    }
}
