//! Writing a table: the cells compressed block by block in parallel, the
//! header and offset table written last over placeholders, the whole file
//! replaced atomically.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

use rayon::prelude::*;

use super::format::{
    block_record, check_cancelled, encode_header, io_error, Header, TableError, TableInfo,
    BLOCK_CELLS, CRC_LEN, FULL, MAX_BLOCK_CELLS, MAX_HEADER_BYTES, OFFSET_LEN, ZSTD_LEVEL,
};
use super::reader::Table;
use crate::atomic_file::{write_atomically, write_checked_atomically};
use crate::stats::Tally;

/// Blocks compressed in parallel before they are written out, so the writer
/// holds a bounded amount of compressed data in memory.
const WRITE_BATCH_BLOCKS: usize = 64;

/// Settings of the writer; the reader takes them from the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Cells per compressed block, 1 to 2^20.
    pub block_cells: u32,
    /// zstd compression level of the blocks.
    pub zstd_level: i32,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions { block_cells: BLOCK_CELLS, zstd_level: ZSTD_LEVEL }
    }
}

/// Writes a table atomically: to `<path>.tmp`, fsync, then rename over
/// `path`, so `path` holds either its old content or the complete new table.
/// `cells.len()` must equal `info.slots`, and `info.counts` must agree with
/// the cells.
pub fn write_table(path: &Path, info: &TableInfo, cells: &[u16]) -> Result<(), TableError> {
    write_table_with(path, info, cells, &WriteOptions::default())
}

/// More bytes than the table of `slots` cells takes on disk with the
/// default block size, whatever its values: every block stored at zstd's
/// worst case (its input plus 1/128 and a frame), with its CRC and offset,
/// and the largest header.
pub fn max_table_bytes(slots: u64) -> u64 {
    let blocks = slots.div_ceil(BLOCK_CELLS as u64);
    2 * slots
        + slots / 64
        + blocks * (128 + CRC_LEN as u64 + OFFSET_LEN as u64)
        + MAX_HEADER_BYTES as u64
        + CRC_LEN as u64
}

/// [`write_table`] with other block size or compression level.
pub fn write_table_with(
    path: &Path,
    info: &TableInfo,
    cells: &[u16],
    options: &WriteOptions,
) -> Result<(), TableError> {
    let header = checked_header(path, info, cells, options)?;
    write_atomically(
        path,
        |file, tmp| write_contents(file, tmp, header, cells, options),
        |path, op, source| TableError::Io { path: path.to_owned(), op, source },
    )
}

/// Rewrites the table `source` into `path` with `options`, block by block
/// (no more than a batch of blocks in memory): written to `<path>.tmp`,
/// then checked before it is renamed over `path` - the new file must
/// open, hold the same header (rules, sector, index version, slots,
/// counts) with `options.block_cells`, and decode to every cell of
/// `source`, which must add up to the header's counts. `path` may be
/// `source`'s own file: a reader that has it mapped keeps the old one.
/// `cancelled` is asked before each block; once it says yes the write
/// stops with an error of kind [`std::io::ErrorKind::Interrupted`] and
/// no temporary file is left.
pub fn rewrite_table<B: AsRef<[u8]> + Sync>(
    path: &Path,
    source: &Table<B>,
    options: &WriteOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<(), TableError> {
    let info = source.info();
    if !(1..=MAX_BLOCK_CELLS).contains(&options.block_cells) {
        return Err(TableError::BadInput {
            path: path.to_owned(),
            what: format!("block size {} is not in 1..={MAX_BLOCK_CELLS}", options.block_cells),
        });
    }
    let header = Header::new(&FULL, info, options.block_cells);
    let block_cells = u64::from(options.block_cells);
    let blocks = usize::try_from(info.slots.div_ceil(block_cells)).expect("blocks fit in memory");
    write_checked_atomically(
        path,
        |file, tmp| {
            write_records_and_front(file, tmp, header, blocks, |block| {
                check_cancelled(cancelled, tmp)?;
                let start = block as u64 * block_cells;
                let cells = source.cells(start..(start + block_cells).min(info.slots))?;
                block_record(&cells, options.zstd_level).map_err(io_error(tmp, "write the blocks"))
            })
        },
        |tmp| check_copy(tmp, source, options),
        |path, op, source| TableError::Io { path: path.to_owned(), op, source },
    )
}

/// Checks that the table file `copy` holds what `source` holds, in
/// blocks of `options.block_cells`: the same header, every cell decoded
/// the same, the cells adding up to the header's counts.
pub(super) fn check_copy<B: AsRef<[u8]> + Sync>(
    copy: &Path,
    source: &Table<B>,
    options: &WriteOptions,
) -> Result<(), TableError> {
    let info = source.info();
    let corrupt = |what: String| TableError::Corrupt { path: copy.to_owned(), what };
    let new = Table::open(copy, &info.rules, &info.sector)?;
    if new.info() != info {
        return Err(corrupt(format!(
            "its header says {:?}, the table it copies {info:?}",
            new.info()
        )));
    }
    let block_cells = new.block_cells();
    if block_cells != u64::from(options.block_cells) {
        return Err(corrupt(format!("{block_cells} cells a block, not {}", options.block_cells)));
    }
    let blocks = info.slots.div_ceil(block_cells);
    (0..blocks)
        .into_par_iter()
        .map(|block| {
            let cells = new.block(block as usize)?;
            let start = block * block_cells;
            let want = source.cells(start..start + cells.len() as u64)?;
            if let Some(i) = cells.iter().zip(&want).position(|(a, b)| a != b) {
                return Err(corrupt(format!(
                    "slot {}: cell {} where the table it copies has {}",
                    start + i as u64,
                    cells[i],
                    want[i]
                )));
            }
            Ok(Tally::of(&cells))
        })
        .try_reduce(Tally::default, |a, b| Ok(a.merge(b)))?
        .check(&info.counts, info.slots)
        .map_err(|why| corrupt(format!("header counts disagree with the cells: {why}")))
}

fn checked_header(
    path: &Path,
    info: &TableInfo,
    cells: &[u16],
    options: &WriteOptions,
) -> Result<Header, TableError> {
    let refuse = |what: String| TableError::BadInput { path: path.to_owned(), what };
    if cells.len() as u64 != info.slots {
        return Err(refuse(format!("{} cells for {} slots", cells.len(), info.slots)));
    }
    if !(1..=MAX_BLOCK_CELLS).contains(&options.block_cells) {
        return Err(refuse(format!(
            "block size {} is not in 1..={MAX_BLOCK_CELLS}",
            options.block_cells
        )));
    }
    Tally::of_parallel(cells)
        .check(&info.counts, info.slots)
        .map_err(|why| refuse(format!("counts disagree with the cells: {why}")))?;
    let header = Header::new(&FULL, info, options.block_cells);
    let len = encode_header(&header).len();
    if len > MAX_HEADER_BYTES {
        return Err(refuse(format!("header of {len} bytes exceeds {MAX_HEADER_BYTES}")));
    }
    Ok(header)
}

/// Writes header and offset-table placeholders, the records, then the real
/// header and offset table over the placeholders.
fn write_contents(
    file: &mut File,
    tmp: &Path,
    header: Header,
    cells: &[u16],
    options: &WriteOptions,
) -> Result<(), TableError> {
    let block_cells = options.block_cells as usize;
    let blocks = cells.len().div_ceil(block_cells);
    write_records_and_front(file, tmp, header, blocks, |block| {
        let end = ((block + 1) * block_cells).min(cells.len());
        block_record(&cells[block * block_cells..end], options.zstd_level)
            .map_err(io_error(tmp, "write the blocks"))
    })
}

/// Writes header and offset-table placeholders, the `blocks` records that
/// `record` makes (in parallel, in batches, written in order), then the
/// real header and offset table over the placeholders. Shared by both
/// tiers.
pub(super) fn write_records_and_front(
    file: &mut File,
    tmp: &Path,
    mut header: Header,
    blocks: usize,
    record: impl Fn(usize) -> Result<Vec<u8>, TableError> + Sync,
) -> Result<(), TableError> {
    let placeholder = encode_header(&header);
    let prefix_len = placeholder.len() + CRC_LEN + blocks * OFFSET_LEN;

    let mut out = BufWriter::with_capacity(1 << 20, &mut *file);
    out.write_all(&vec![0; prefix_len]).map_err(io_error(tmp, "write the blocks"))?;
    let mut ends = Vec::with_capacity(blocks);
    let mut end = 0u64;
    for batch in (0..blocks).collect::<Vec<_>>().chunks(WRITE_BATCH_BLOCKS) {
        let records: Vec<Vec<u8>> =
            batch.par_iter().map(|&block| record(block)).collect::<Result<_, _>>()?;
        for record in records {
            out.write_all(&record).map_err(io_error(tmp, "write the blocks"))?;
            end += record.len() as u64;
            ends.push(end);
        }
    }
    out.flush().map_err(io_error(tmp, "write the blocks"))?;
    drop(out);

    let offsets: Vec<u8> = ends.iter().flat_map(|end| end.to_le_bytes()).collect();
    header.offsets_crc = crc32fast::hash(&offsets).to_le_bytes();
    let head = encode_header(&header);
    debug_assert_eq!(head.len(), placeholder.len());
    file.seek(SeekFrom::Start(0))
        .and_then(|_| file.write_all(&head))
        .and_then(|_| file.write_all(&crc32fast::hash(&head).to_le_bytes()))
        .and_then(|_| file.write_all(&offsets))
        .map_err(io_error(tmp, "write the header"))
}
