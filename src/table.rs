//! Solved sectors on disk: one file per sector, its cells in zstd-compressed
//! blocks so that one cell is read by decompressing one block.
//!
//! A cell is a `u16`: `0` is a draw (and the filler of non-canonical slots),
//! otherwise `depth + 1`, where an odd depth is a win for the side to move
//! and an even depth a loss.
//!
//! # File layout
//!
//! | bytes            | content                                                        |
//! |------------------|----------------------------------------------------------------|
//! | header           | bincode (standard config) of `Header`: magic, format version, rules, sector, index version, slots, counts, cells per block, CRC-32 of the offset table |
//! | 4                | CRC-32 of the header bytes (little-endian)                     |
//! | 8 × blocks       | end of each block record, counted from the first record (u64 LE) |
//! | records          | per block: a zstd frame of the block's low bytes followed by its high bytes, then the CRC-32 of that frame (4 bytes LE) |
//!
//! Every byte is covered by a checksum (the header by the CRC after it, the
//! offset table by the CRC in the header, each record by its own CRC), and
//! the header and offset table determine the file length exactly, so
//! truncation and trailing bytes are detected too.
//!
//! # Why this encoding
//!
//! Measured on [`synthetic_cells`] (about 2.7 bits/slot at the settings
//! chosen): splitting each block into a low-byte and a high-byte plane saves
//! about 0.6 bits/slot over interleaved `u16`s, because the high plane is
//! almost all zero and compresses to nearly nothing while the low plane gets
//! byte-sized symbols. Remapping values by frequency rank gained nothing
//! (zstd's entropy coder does not care which byte values are common), so the
//! format does not do it. 16 Ki cells per block at zstd level 9 stays well
//! under 3 bits/slot while one block decompresses in about 20 µs; 64 Ki cells
//! would save only 0.07 bits/slot for a probe four times as slow.

use std::cell::RefCell;
use std::fs::{self, File};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use bincode::config::{Configuration, Limit, LittleEndian, Varint};
use rayon::prelude::*;

/// Version of the file layout written by this build; other versions are refused.
pub const FORMAT_VERSION: u32 = 1;

/// Cells per block written by [`write_table`].
pub const BLOCK_CELLS: u32 = 16 * 1024;

/// zstd level used by [`write_table`].
pub const ZSTD_LEVEL: i32 = 9;

const MAGIC: [u8; 8] = *b"MORRISTB";
const CRC_LEN: usize = 4;
const OFFSET_LEN: usize = 8;
/// Bounds what a damaged header can make the decoder allocate.
const MAX_HEADER_BYTES: usize = 1 << 16;
/// Bounds the block a reader decompresses, whatever the header says.
const MAX_BLOCK_CELLS: u32 = 1 << 20;
/// Blocks compressed in parallel before they are written out, so the writer
/// holds a bounded amount of compressed data in memory.
const WRITE_BATCH_BLOCKS: usize = 64;
/// Decompressed blocks `Table::get` keeps: a handful covers the locality of
/// a search that probes neighbouring positions.
const CACHED_BLOCKS: usize = 8;

const HEADER_CONFIG: Configuration<LittleEndian, Varint, Limit<MAX_HEADER_BYTES>> =
    bincode::config::standard().with_limit::<MAX_HEADER_BYTES>();

/// How many states of a sector are wins, losses and draws, and the longest
/// win and loss in plies (0 when there is none).
#[derive(Clone, Debug, PartialEq, Eq, Default, bincode::Encode, bincode::Decode)]
pub struct Counts {
    pub states: u64,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    pub max_win: u16,
    pub max_loss: u16,
}

impl Counts {
    /// The counts of `cells`, of which `states` slots hold canonical states
    /// and the rest are filler (stored as draws).
    pub fn tally(cells: &[u16], states: u64) -> Counts {
        let tally = Tally::of_parallel(cells);
        let filler = (cells.len() as u64).saturating_sub(states);
        Counts {
            states,
            wins: tally.wins,
            losses: tally.losses,
            draws: tally.zeros.saturating_sub(filler),
            max_win: tally.max_win,
            max_loss: tally.max_loss,
        }
    }
}

/// How many states of a sector lie at each distance from the end of the
/// game: `wins[d]` states win in `d` plies and `losses[d]` lose in `d`
/// plies. The headers keep only the totals ([`Counts`]); this is read
/// from the cells ([`Table::distances`]).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Distances {
    pub wins: Vec<u64>,
    pub losses: Vec<u64>,
    pub draws: u64,
}

impl Distances {
    /// The distances of `cells`, of which `states` slots hold canonical
    /// states and the rest are filler (stored as draws).
    pub fn tally(cells: &[u16], states: u64) -> Distances {
        let by_cell =
            cells.par_chunks(1 << 16).map(cell_histogram).reduce(Vec::new, add_histograms);
        Distances::of_cell_histogram(&by_cell, cells.len() as u64 - states)
    }

    /// Splits counts by stored cell (0 a draw, `c` the depth `c - 1`, a
    /// win when odd) into wins and losses by plies.
    fn of_cell_histogram(by_cell: &[u64], filler: u64) -> Distances {
        let mut d = Distances {
            draws: by_cell.first().map_or(0, |&z| z.saturating_sub(filler)),
            ..Default::default()
        };
        for (cell, &n) in by_cell.iter().enumerate().skip(1) {
            let plies = cell - 1;
            let side = if plies % 2 == 1 { &mut d.wins } else { &mut d.losses };
            if side.len() <= plies {
                side.resize(plies + 1, 0);
            }
            side[plies] += n;
        }
        // Wins are odd and losses even: drop the zero rows at the top.
        for side in [&mut d.wins, &mut d.losses] {
            while side.last() == Some(&0) {
                side.pop();
            }
        }
        d
    }

    /// The totals, to hold against a header's [`Counts`].
    pub fn counts(&self) -> Counts {
        let deepest = |side: &[u64]| side.iter().rposition(|&n| n > 0).map_or(0, |d| d as u16);
        Counts {
            states: self.wins.iter().sum::<u64>() + self.losses.iter().sum::<u64>() + self.draws,
            wins: self.wins.iter().sum(),
            losses: self.losses.iter().sum(),
            draws: self.draws,
            max_win: deepest(&self.wins),
            max_loss: deepest(&self.losses),
        }
    }
}

/// How many cells hold each value, indexed by the value.
fn cell_histogram(cells: &[u16]) -> Vec<u64> {
    let mut counts = vec![0u64; 1 + cells.iter().copied().max().unwrap_or(0) as usize];
    for &c in cells {
        counts[c as usize] += 1;
    }
    counts
}

fn add_histograms(mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    if a.len() < b.len() {
        return add_histograms(b, a);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

/// What a table holds: the rules it was solved under, its sector, and its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableInfo {
    /// Opaque description of the variant and its rule parameters.
    pub rules: String,
    /// Name of the sector, e.g. "9-8".
    pub sector: String,
    /// Version of the index scheme that maps positions to slots.
    pub index_version: u32,
    /// Number of cells.
    pub slots: u64,
    pub counts: Counts,
}

/// A table that cannot be written, opened or read; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("{}: cannot {op}", path.display())]
    Io {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: io::Error,
    },
    #[error("{}: not a morris table (wrong magic bytes)", path.display())]
    BadMagic { path: PathBuf },
    #[error("{}: table format version {found} is not supported (this build reads version {FORMAT_VERSION})", path.display())]
    UnsupportedVersion { path: PathBuf, found: u32 },
    #[error("{}: table was solved under other rules: it says {found:?}, expected {expected:?}", path.display())]
    WrongRules { path: PathBuf, expected: String, found: String },
    #[error("{}: table holds sector {found}, expected sector {expected}", path.display())]
    WrongSector { path: PathBuf, expected: String, found: String },
    #[error("{}: file is {found} bytes, its header and offset table say {expected} (truncated or trailing bytes)", path.display())]
    Length { path: PathBuf, expected: u64, found: u64 },
    #[error("{}: corrupt table: {what}", path.display())]
    Corrupt { path: PathBuf, what: String },
    #[error("{}: index {index} is out of range (the table has {slots} slots)", path.display())]
    OutOfRange { path: PathBuf, index: u64, slots: u64 },
    #[error("{}: refusing to write table: {what}", path.display())]
    BadInput { path: PathBuf, what: String },
}

/// Settings of the writer; the reader takes them from the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Cells per compressed block, 1 to 2^20.
    pub block_cells: u32,
    pub zstd_level: i32,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions { block_cells: BLOCK_CELLS, zstd_level: ZSTD_LEVEL }
    }
}

/// The first fields of `Header`, decodable before knowing whether the rest
/// of the header has a layout this build understands.
#[derive(bincode::Encode, bincode::Decode)]
struct Preamble {
    magic: [u8; 8],
    format_version: u32,
}

#[derive(bincode::Encode, bincode::Decode)]
struct Header {
    magic: [u8; 8],
    format_version: u32,
    rules: String,
    sector: String,
    index_version: u32,
    slots: u64,
    counts: Counts,
    block_cells: u32,
    /// CRC-32 of the offset table. Fixed-width bytes rather than a varint so
    /// the header keeps its length when it is rewritten after the blocks.
    offsets_crc: [u8; 4],
}

impl Header {
    fn info(&self) -> TableInfo {
        TableInfo {
            rules: self.rules.clone(),
            sector: self.sector.clone(),
            index_version: self.index_version,
            slots: self.slots,
            counts: self.counts.clone(),
        }
    }
}

/// Wins, losses and zero cells as found in the cells themselves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tally {
    wins: u64,
    losses: u64,
    zeros: u64,
    max_win: u16,
    max_loss: u16,
}

impl Tally {
    fn of(cells: &[u16]) -> Tally {
        // Branch-free so it vectorises: a win is an even non-zero cell, a
        // loss an odd one, and the deepest of each is its largest cell.
        let (mut odd, mut zeros, mut top_even, mut top_odd) = (0u64, 0u64, 0u16, 0u16);
        for &cell in cells {
            let odd_mask = 0u16.wrapping_sub(cell & 1);
            odd += u64::from(cell & 1);
            zeros += u64::from(cell == 0);
            top_odd = top_odd.max(cell & odd_mask);
            top_even = top_even.max(cell & !odd_mask);
        }
        Tally {
            wins: cells.len() as u64 - odd - zeros,
            losses: odd,
            zeros,
            max_win: top_even.saturating_sub(1),
            max_loss: top_odd.saturating_sub(1),
        }
    }

    fn of_parallel(cells: &[u16]) -> Tally {
        cells.par_chunks(1 << 16).map(Tally::of).reduce(Tally::default, Tally::merge)
    }

    fn merge(self, o: Tally) -> Tally {
        Tally {
            wins: self.wins + o.wins,
            losses: self.losses + o.losses,
            zeros: self.zeros + o.zeros,
            max_win: self.max_win.max(o.max_win),
            max_loss: self.max_loss.max(o.max_loss),
        }
    }

    /// Says what disagrees between these cells and `counts`, if anything.
    fn check(&self, counts: &Counts, slots: u64) -> Result<(), String> {
        let c = counts;
        let classified = c.wins.checked_add(c.losses).and_then(|n| n.checked_add(c.draws));
        if c.states > slots {
            return Err(format!("{} states in {slots} slots", c.states));
        }
        if classified != Some(c.states) {
            return Err(format!(
                "wins {} + losses {} + draws {} != states {}",
                c.wins, c.losses, c.draws, c.states
            ));
        }
        let found = (self.wins, self.losses, self.max_win, self.max_loss);
        let claimed = (c.wins, c.losses, c.max_win, c.max_loss);
        if found != claimed {
            return Err(format!(
                "cells have (wins, losses, max_win, max_loss) = {found:?}, counts say {claimed:?}"
            ));
        }
        // The zero cells are then the draws plus the filler: nothing to check.
        Ok(())
    }
}

// ---------------------------------------------------------------- writing

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
    write_atomically(path, |file, tmp| write_contents(file, tmp, header, cells, options))
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
    let header = Header {
        magic: MAGIC,
        format_version: FORMAT_VERSION,
        rules: info.rules.clone(),
        sector: info.sector.clone(),
        index_version: info.index_version,
        slots: info.slots,
        counts: info.counts.clone(),
        block_cells: options.block_cells,
        offsets_crc: [0; 4],
    };
    let len = encode_header(&header).len();
    if len > MAX_HEADER_BYTES {
        return Err(refuse(format!("header of {len} bytes exceeds {MAX_HEADER_BYTES}")));
    }
    Ok(header)
}

fn encode_header(header: &Header) -> Vec<u8> {
    // Encoding plain integers, strings and arrays into a Vec cannot fail.
    bincode::encode_to_vec(header, HEADER_CONFIG).expect("header encodes")
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    PathBuf::from(name)
}

fn io_error<'a>(path: &'a Path, op: &'static str) -> impl FnOnce(io::Error) -> TableError + 'a {
    move |source| TableError::Io { path: path.to_owned(), op, source }
}

/// Runs `write` on `<path>.tmp`, then makes the result durable and renames
/// it over `path`; on any failure removes the temporary file.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut File, &Path) -> Result<(), TableError>,
) -> Result<(), TableError> {
    let tmp = tmp_path(path);
    let result = (|| {
        let mut file = File::create(&tmp).map_err(io_error(&tmp, "create the file"))?;
        write(&mut file, &tmp)?;
        file.sync_all().map_err(io_error(&tmp, "sync the file"))?;
        drop(file);
        fs::rename(&tmp, path).map_err(io_error(path, "rename the temporary file into place"))?;
        sync_parent_dir(path)
    })();
    if result.is_err() {
        // Best effort: the error being reported matters more than this one.
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Makes the rename durable: it lives in the directory, not in the file.
fn sync_parent_dir(path: &Path) -> Result<(), TableError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    File::open(dir).and_then(|d| d.sync_all()).map_err(io_error(dir, "sync the directory"))
}

/// Writes header and offset-table placeholders, the records, then the real
/// header and offset table over the placeholders.
fn write_contents(
    file: &mut File,
    tmp: &Path,
    mut header: Header,
    cells: &[u16],
    options: &WriteOptions,
) -> Result<(), TableError> {
    let block_cells = options.block_cells as usize;
    let blocks = cells.len().div_ceil(block_cells);
    let placeholder = encode_header(&header);
    let prefix_len = placeholder.len() + CRC_LEN + blocks * OFFSET_LEN;

    let mut out = BufWriter::with_capacity(1 << 20, &mut *file);
    let ends = (|| {
        out.write_all(&vec![0; prefix_len])?;
        write_records(&mut out, cells, block_cells, options.zstd_level)
    })()
    .map_err(io_error(tmp, "write the blocks"))?;
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

/// Compresses and writes the blocks in order; returns the end of each record.
fn write_records(
    out: &mut impl Write,
    cells: &[u16],
    block_cells: usize,
    level: i32,
) -> io::Result<Vec<u64>> {
    let mut ends = Vec::with_capacity(cells.len().div_ceil(block_cells));
    let mut end = 0u64;
    for batch in cells.chunks(block_cells * WRITE_BATCH_BLOCKS) {
        let records: Vec<Vec<u8>> = batch
            .par_chunks(block_cells)
            .map(|block| block_record(block, level))
            .collect::<io::Result<_>>()?;
        for record in records {
            out.write_all(&record)?;
            end += record.len() as u64;
            ends.push(end);
        }
    }
    Ok(ends)
}

/// One block on disk: the zstd frame of its byte planes, then the frame's CRC.
fn block_record(block: &[u16], level: i32) -> io::Result<Vec<u8>> {
    let planes: Vec<u8> =
        block.iter().map(|&c| c as u8).chain(block.iter().map(|&c| (c >> 8) as u8)).collect();
    let mut record = zstd::bulk::compress(&planes, level)?;
    let crc = crc32fast::hash(&record);
    record.extend_from_slice(&crc.to_le_bytes());
    Ok(record)
}

// ---------------------------------------------------------------- reading

/// A table file opened for reading: the header and offset table are checked
/// on opening, each block when it is read.
pub struct Table<B: AsRef<[u8]>> {
    bytes: B,
    blocks: Blocks,
    cache: Mutex<BlockCache>,
}

/// Where the blocks of a table are, apart from the bytes themselves (which
/// need not be `Sync`), so parallel readers can share it.
struct Blocks {
    path: PathBuf,
    info: TableInfo,
    block_cells: u64,
    data_start: usize,
    /// End of each block record, counted from `data_start`.
    ends: Vec<usize>,
}

impl Table<memmap2::Mmap> {
    /// Opens a table file, refusing it unless it was solved under
    /// `expect_rules` and holds sector `expect_sector`. Reads only the header
    /// and the offset table.
    pub fn open(path: &Path, expect_rules: &str, expect_sector: &str) -> Result<Self, TableError> {
        let file = File::open(path).map_err(io_error(path, "open the table"))?;
        // Safety: the map is only sound while nobody changes the file. Tables
        // are never modified in place: writers make a new file and rename it
        // over the old one, which leaves this mapping on the old, unchanged
        // inode. If some other program truncates the file anyway, touching a
        // page past the new end raises SIGBUS and kills the process; if it
        // rewrites bytes, block checksums catch most changes, but a change
        // between a block's checksum and its decompression can go unnoticed.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io_error(path, "map the table"))?;
        Table::from_bytes(map, path, expect_rules, expect_sector)
    }
}

impl<B: AsRef<[u8]>> Table<B> {
    /// Reads a table from `bytes` (the whole file), naming `path_for_errors`
    /// in errors. Checks as [`Table::open`] does.
    pub fn from_bytes(
        bytes: B,
        path_for_errors: &Path,
        expect_rules: &str,
        expect_sector: &str,
    ) -> Result<Self, TableError> {
        let path = path_for_errors.to_owned();
        let data = bytes.as_ref();
        let (header, header_len) = parse_header(data, &path)?;
        check_identity(&header, expect_rules, expect_sector, &path)?;
        let (data_start, ends) = parse_offsets(data, &header, header_len, &path)?;
        let blocks = Blocks {
            info: header.info(),
            block_cells: u64::from(header.block_cells),
            data_start,
            ends,
            path,
        };
        Ok(Table { bytes, blocks, cache: Mutex::new(BlockCache::default()) })
    }

    /// Rules, sector, index version, size and counts from the header.
    pub fn info(&self) -> &TableInfo {
        &self.blocks.info
    }

    /// Size of the file in bytes.
    pub fn bytes_on_disk(&self) -> u64 {
        self.bytes.as_ref().len() as u64
    }

    /// The cell at `index`.
    pub fn get(&self, index: u64) -> Result<u16, TableError> {
        let b = &self.blocks;
        if index >= b.info.slots {
            return Err(TableError::OutOfRange {
                path: b.path.clone(),
                index,
                slots: b.info.slots,
            });
        }
        let cells = self.cached_block((index / b.block_cells) as usize)?;
        Ok(cells[(index % b.block_cells) as usize])
    }

    /// All cells, every block checked.
    pub fn read_all(&self) -> Result<Vec<u16>, TableError> {
        let b = &self.blocks;
        let slots = usize::try_from(b.info.slots)
            .map_err(|_| b.corrupt(format!("{} slots do not fit in memory", b.info.slots)))?;
        let mut cells = vec![0; slots];
        self.read_all_into(&mut cells)?;
        Ok(cells)
    }

    /// All cells into `out` (exactly as many as the table has slots),
    /// every block checked; for callers that choose where the cells live.
    pub fn read_all_into(&self, out: &mut [u16]) -> Result<(), TableError> {
        let (b, bytes) = (&self.blocks, self.bytes.as_ref());
        if out.len() as u64 != b.info.slots {
            return Err(b.corrupt(format!(
                "{} slots read into room for {}",
                b.info.slots,
                out.len()
            )));
        }
        out.par_chunks_mut(b.block_cells as usize)
            .enumerate()
            .try_for_each(|(block, out)| b.decode(bytes, block, out))
    }

    /// Reads and checks every block, and that the counts in the header agree
    /// with the cells.
    pub fn verify(&self) -> Result<(), TableError> {
        let b = &self.blocks;
        self.fold_blocks(Tally::of, Tally::default, Tally::merge)?
            .check(&b.info.counts, b.info.slots)
            .map_err(|why| b.corrupt(format!("header counts disagree with the cells: {why}")))
    }

    /// How many states lie at each distance, every block read and checked
    /// (a pass over the whole table, a block at a time); an error if the
    /// totals disagree with the header's counts.
    pub fn distances(&self) -> Result<Distances, TableError> {
        let b = &self.blocks;
        let by_cell = self.fold_blocks(cell_histogram, Vec::new, add_histograms)?;
        let distances = Distances::of_cell_histogram(
            &by_cell,
            b.info.slots.saturating_sub(b.info.counts.states),
        );
        if distances.counts() != b.info.counts {
            return Err(b.corrupt(format!(
                "header counts {:?} disagree with the cells' {:?}",
                b.info.counts,
                distances.counts()
            )));
        }
        Ok(distances)
    }

    /// Every block read, checked and summarised by `summary` in parallel
    /// (one block's cells in memory per thread), the summaries joined by
    /// `join` from `empty`.
    fn fold_blocks<T: Send>(
        &self,
        summary: impl Fn(&[u16]) -> T + Sync + Send,
        empty: impl Fn() -> T + Sync + Send,
        join: impl Fn(T, T) -> T + Sync + Send,
    ) -> Result<T, TableError> {
        let (b, bytes) = (&self.blocks, self.bytes.as_ref());
        (0..b.ends.len())
            .into_par_iter()
            .map_init(Vec::new, |buf, block| {
                buf.resize(b.block_len(block), 0);
                b.decode(bytes, block, buf)?;
                Ok(summary(buf))
            })
            .try_reduce(empty, |x, y| Ok(join(x, y)))
    }

    fn cached_block(&self, block: usize) -> Result<Arc<[u16]>, TableError> {
        if let Some(cells) = self.cache().get(block) {
            return Ok(cells);
        }
        // Decompress without holding the lock, so other threads' hits proceed.
        let mut cells = vec![0; self.blocks.block_len(block)];
        self.blocks.decode(self.bytes.as_ref(), block, &mut cells)?;
        let cells: Arc<[u16]> = cells.into();
        self.cache().insert(block, cells.clone());
        Ok(cells)
    }

    fn cache(&self) -> MutexGuard<'_, BlockCache> {
        // A panic elsewhere cannot leave the cache inconsistent: it only holds
        // complete, checked blocks.
        self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Blocks {
    fn corrupt(&self, what: String) -> TableError {
        TableError::Corrupt { path: self.path.clone(), what }
    }

    fn block_len(&self, block: usize) -> usize {
        let start = block as u64 * self.block_cells;
        (self.info.slots - start).min(self.block_cells) as usize
    }

    fn record<'a>(&self, bytes: &'a [u8], block: usize) -> &'a [u8] {
        let start = if block == 0 { 0 } else { self.ends[block - 1] };
        &bytes[self.data_start + start..self.data_start + self.ends[block]]
    }

    /// Checks block `block` of the file `bytes` and decompresses it into
    /// `out` (exactly its length).
    fn decode(&self, bytes: &[u8], block: usize, out: &mut [u16]) -> Result<(), TableError> {
        let record = self.record(bytes, block);
        let (frame, crc) = record.split_at(record.len() - CRC_LEN);
        if crc32fast::hash(frame).to_le_bytes() != crc {
            return Err(self.corrupt(format!("block {block}: checksum mismatch")));
        }
        let mut planes = vec![0u8; 2 * out.len()];
        let n = decompress(frame, &mut planes)
            .map_err(|e| self.corrupt(format!("block {block}: cannot decompress: {e}")))?;
        if n != planes.len() {
            return Err(self.corrupt(format!(
                "block {block}: decompressed to {n} bytes, expected {}",
                planes.len()
            )));
        }
        let (low, high) = planes.split_at(out.len());
        for (cell, (&lo, &hi)) in out.iter_mut().zip(low.iter().zip(high)) {
            *cell = u16::from_le_bytes([lo, hi]);
        }
        Ok(())
    }
}

/// Decompresses one zstd frame into `out`, returning its decompressed size.
fn decompress(frame: &[u8], out: &mut [u8]) -> io::Result<usize> {
    thread_local! {
        // Creating a zstd context per block would cost as much as the
        // decompression itself.
        static CONTEXT: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
    }
    CONTEXT.with_borrow_mut(|context| {
        let context = match context {
            Some(context) => context,
            None => context.insert(zstd::bulk::Decompressor::new()?),
        };
        context.decompress_to_buffer(frame, out)
    })
}

/// The most recently used decompressed blocks, most recent last.
#[derive(Default)]
struct BlockCache {
    recent: Vec<(usize, Arc<[u16]>)>,
}

impl BlockCache {
    fn get(&mut self, block: usize) -> Option<Arc<[u16]>> {
        let pos = self.recent.iter().position(|(b, _)| *b == block)?;
        let entry = self.recent.remove(pos);
        let cells = entry.1.clone();
        self.recent.push(entry);
        Some(cells)
    }

    fn insert(&mut self, block: usize, cells: Arc<[u16]>) {
        if self.recent.iter().any(|(b, _)| *b == block) {
            return; // another thread decoded it meanwhile
        }
        if self.recent.len() == CACHED_BLOCKS {
            self.recent.remove(0);
        }
        self.recent.push((block, cells));
    }
}

/// Decodes and checks the header; returns it with its length in bytes.
fn parse_header(bytes: &[u8], path: &Path) -> Result<(Header, usize), TableError> {
    let corrupt = |what: String| TableError::Corrupt { path: path.to_owned(), what };
    if bytes.len() < MAGIC.len() {
        return Err(corrupt(format!("{} bytes are too short for a header", bytes.len())));
    }
    if bytes[..MAGIC.len()] != MAGIC {
        return Err(TableError::BadMagic { path: path.to_owned() });
    }
    let (preamble, _): (Preamble, usize) = bincode::decode_from_slice(bytes, HEADER_CONFIG)
        .map_err(|e| corrupt(format!("unreadable header: {e}")))?;
    if preamble.format_version != FORMAT_VERSION {
        return Err(TableError::UnsupportedVersion {
            path: path.to_owned(),
            found: preamble.format_version,
        });
    }
    let (header, len): (Header, usize) = bincode::decode_from_slice(bytes, HEADER_CONFIG)
        .map_err(|e| corrupt(format!("unreadable header: {e}")))?;
    let crc = bytes
        .get(len..len + CRC_LEN)
        .ok_or_else(|| corrupt("truncated after the header".into()))?;
    if crc32fast::hash(&bytes[..len]).to_le_bytes() != crc {
        return Err(corrupt("header checksum mismatch".into()));
    }
    Ok((header, len))
}

fn check_identity(
    header: &Header,
    expect_rules: &str,
    expect_sector: &str,
    path: &Path,
) -> Result<(), TableError> {
    if header.rules != expect_rules {
        return Err(TableError::WrongRules {
            path: path.to_owned(),
            expected: expect_rules.to_owned(),
            found: header.rules.clone(),
        });
    }
    if header.sector != expect_sector {
        return Err(TableError::WrongSector {
            path: path.to_owned(),
            expected: expect_sector.to_owned(),
            found: header.sector.clone(),
        });
    }
    Ok(())
}

/// Checks the offset table and the file length; returns where the records
/// start and where each ends.
fn parse_offsets(
    bytes: &[u8],
    header: &Header,
    header_len: usize,
    path: &Path,
) -> Result<(usize, Vec<usize>), TableError> {
    let corrupt = |what: String| TableError::Corrupt { path: path.to_owned(), what };
    if !(1..=MAX_BLOCK_CELLS).contains(&header.block_cells) {
        return Err(corrupt(format!("block size {} is out of range", header.block_cells)));
    }
    let blocks = header.slots.div_ceil(u64::from(header.block_cells));
    let start = header_len + CRC_LEN;
    let table = usize::try_from(blocks)
        .ok()
        .and_then(|n| n.checked_mul(OFFSET_LEN))
        .and_then(|len| bytes.get(start..start.checked_add(len)?))
        .ok_or_else(|| {
            corrupt(format!(
                "file of {} bytes ends inside the offset table of {blocks} blocks",
                bytes.len()
            ))
        })?;
    if crc32fast::hash(table).to_le_bytes() != header.offsets_crc {
        return Err(corrupt("offset table checksum mismatch".into()));
    }
    let data_start = start + table.len();
    let ends = record_ends(table).map_err(corrupt)?;
    let records_len = ends.last().map_or(0, |&end| end as u64);
    let expected = (data_start as u64).saturating_add(records_len);
    if expected != bytes.len() as u64 {
        return Err(TableError::Length {
            path: path.to_owned(),
            expected,
            found: bytes.len() as u64,
        });
    }
    Ok((data_start, ends))
}

/// Decodes the offset table, checking that every record has room for its CRC.
fn record_ends(table: &[u8]) -> Result<Vec<usize>, String> {
    let mut prev = 0u64;
    let mut ends = Vec::with_capacity(table.len() / OFFSET_LEN);
    for (block, raw) in table.chunks_exact(OFFSET_LEN).enumerate() {
        let end = u64::from_le_bytes(raw.try_into().expect("chunks are 8 bytes"));
        // A damaged table could hold any value: no arithmetic may overflow.
        if prev.checked_add(CRC_LEN as u64 + 1).is_none_or(|min| end < min) {
            return Err(format!(
                "block {block} ends at {end}, before its start {prev} plus a checksum"
            ));
        }
        let end_usize = usize::try_from(end)
            .map_err(|_| format!("block {block} ends past the address space"))?;
        ends.push(end_usize);
        prev = end;
    }
    Ok(ends)
}

// ---------------------------------------------------------------- test data

/// Deterministic cells shaped like a solved sector in index order, for tests
/// and measurements of the format. The model:
///
/// - the slots are a sequence of runs; a run is filler (value 0) with
///   probability 1.7% and then has length 1 + Geometric(1/16) (mean 16), so
///   about 10% of slots are filler;
/// - otherwise the run has length 1 + Geometric(0.4) (mean 2.5: neighbouring
///   indices often, but not mostly, share a value) and one value: a draw
///   with probability 0.3, a win 0.4, a loss 0.3;
/// - a win has depth 2k + 1 and a loss depth 2k, k ~ Geometric(1/3)
///   (mean 2); one run in 500 instead gets a depth up to 301 of the right
///   parity, so blocks carry some cells above 255.
///
/// Geometric(p) counts failures before the first success.
pub fn synthetic_cells(slots: usize, seed: u64) -> Vec<u16> {
    let mut rng = SplitMix64(seed);
    let mut cells = Vec::with_capacity(slots);
    while cells.len() < slots {
        let (value, len) = if rng.chance(0.017) {
            (0, 1 + rng.geometric(1.0 / 16.0))
        } else {
            (synthetic_value(&mut rng), 1 + rng.geometric(0.4))
        };
        cells.extend(std::iter::repeat_n(value, len as usize));
    }
    cells.truncate(slots);
    cells
}

fn synthetic_value(rng: &mut SplitMix64) -> u16 {
    let class = rng.unit();
    if class < 0.3 {
        return 0;
    }
    let win = class < 0.7;
    let depth = if rng.chance(1.0 / 500.0) {
        let d = 1 + (rng.next() % 300) as u16;
        if (d % 2 == 1) == win {
            d
        } else {
            d + 1
        }
    } else {
        let k = rng.geometric(1.0 / 3.0) as u16;
        if win {
            2 * k + 1
        } else {
            2 * k
        }
    };
    depth + 1
}

/// A small, fixed pseudo-random sequence for synthetic data and tests.
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    fn geometric(&mut self, p: f64) -> u64 {
        let mut k = 0;
        while !self.chance(p) {
            k += 1;
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_classifies_by_parity_of_depth() {
        // 0 draw, 1 = loss in 0, 2 = win in 1, 3 = loss in 2, 8 = win in 7
        let t = Tally::of(&[0, 1, 2, 3, 8, 0]);
        let expected = Tally { wins: 2, losses: 2, zeros: 2, max_win: 7, max_loss: 2 };
        assert_eq!(t, expected);
    }

    /// The obvious count, one cell at a time by its meaning.
    fn plain_tally(cells: &[u16]) -> Tally {
        let mut t = Tally::default();
        for &cell in cells {
            if cell == 0 {
                t.zeros += 1;
                continue;
            }
            let depth = cell - 1;
            if depth % 2 == 1 {
                t.wins += 1;
                t.max_win = t.max_win.max(depth);
            } else {
                t.losses += 1;
                t.max_loss = t.max_loss.max(depth);
            }
        }
        t
    }

    #[test]
    fn fast_tally_agrees_with_plain_count() {
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let cases =
            [synthetic_cells(100_000, 4), all, vec![], vec![0; 9], vec![1, 1], vec![u16::MAX - 1]];
        for cells in cases {
            assert_eq!(Tally::of(&cells), plain_tally(&cells));
            assert_eq!(Tally::of_parallel(&cells), plain_tally(&cells));
        }
    }

    /// The obvious histogram, one cell at a time by its value.
    fn plain_distances(cells: &[u16], filler: u64) -> Distances {
        let mut d = Distances::default();
        for &cell in cells {
            let bump = |side: &mut Vec<u64>, plies: u16| {
                let plies = plies as usize;
                side.resize(side.len().max(plies + 1), 0);
                side[plies] += 1;
            };
            match crate::value::Value::from(crate::value::Cell(cell)) {
                crate::value::Value::Win(p) => bump(&mut d.wins, p),
                crate::value::Value::Loss(p) => bump(&mut d.losses, p),
                crate::value::Value::Draw => d.draws += 1,
            }
        }
        d.draws -= filler;
        d
    }

    #[test]
    fn distances_agree_with_plain_count_and_with_the_totals() {
        let cases = [
            synthetic_cells(300_000, 7),
            vec![0; 9],
            vec![1, 1, 0],
            vec![0, 1, 2, 3, 8, 0],
            vec![9000, 0],
        ];
        for cells in cases {
            let filler =
                (cells.len() as u64).min(2).min(cells.iter().filter(|&&c| c == 0).count() as u64);
            let states = cells.len() as u64 - filler;
            let d = Distances::tally(&cells, states);
            assert_eq!(d, plain_distances(&cells, filler));
            assert_eq!(d.counts(), Counts::tally(&cells, states));
        }
    }

    #[test]
    fn table_distances_read_every_block_and_check_the_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let cells = synthetic_cells(10_000, 5);
        let mut info = TableInfo {
            rules: "r".into(),
            sector: "s".into(),
            index_version: 0,
            slots: cells.len() as u64,
            counts: Counts::tally(&cells, cells.len() as u64),
        };
        let options = WriteOptions { block_cells: 1000, ..WriteOptions::default() };
        write_table_with(&path, &info, &cells, &options).unwrap();
        let table = Table::open(&path, "r", "s").unwrap();
        assert_eq!(table.distances().unwrap(), Distances::tally(&cells, cells.len() as u64));
        // Totals that are not the cells' are refused.
        info.counts.wins -= 1;
        info.counts.draws += 1;
        let mut forged = Table::open(&path, "r", "s").unwrap();
        forged.blocks.info.counts = info.counts.clone();
        let err = forged.distances().unwrap_err().to_string();
        assert!(err.contains("disagree"), "{err}");
    }

    #[test]
    fn check_rejects_each_kind_of_disagreement() {
        let cells = [0, 1, 2, 3, 8, 0];
        let good = Counts { states: 5, wins: 2, losses: 2, draws: 1, max_win: 7, max_loss: 2 };
        let t = Tally::of(&cells);
        assert_eq!(t.check(&good, 6), Ok(()));
        assert_eq!(Counts::tally(&cells, 5), good);
        let bad = [
            Counts { states: 7, draws: 3, ..good.clone() },
            Counts { draws: 2, ..good.clone() },
            Counts { wins: 1, draws: 2, ..good.clone() },
            Counts { max_win: 5, ..good.clone() },
            Counts { max_loss: 0, ..good.clone() },
        ];
        for counts in bad {
            assert!(t.check(&counts, 6).is_err(), "{counts:?} accepted");
        }
    }

    #[test]
    fn cache_evicts_least_recently_used() {
        let mut cache = BlockCache::default();
        for block in 0..CACHED_BLOCKS {
            cache.insert(block, Arc::from(vec![block as u16]));
        }
        assert!(cache.get(0).is_some()); // 0 is now the most recent
        cache.insert(CACHED_BLOCKS, Arc::from(vec![0]));
        assert!(cache.get(1).is_none());
        assert!(cache.get(0).is_some());
        assert_eq!(cache.recent.len(), CACHED_BLOCKS);
    }

    #[test]
    fn failed_write_keeps_old_file_and_removes_tmp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        fs::write(&path, b"old").unwrap();
        let err = write_atomically(&path, |file, tmp| {
            file.write_all(b"half a table").unwrap();
            Err(TableError::Io {
                path: tmp.to_owned(),
                op: "test",
                source: io::Error::other("disk full"),
            })
        });
        assert!(err.is_err());
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert!(!tmp_path(&path).exists());
    }

    /// Damage to the header or the offset table must stop `open`, not only
    /// the block reads that a shifted offset would break.
    #[test]
    fn open_refuses_any_flip_before_the_first_block() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        let cells = synthetic_cells(1000, 3);
        let info = TableInfo {
            rules: "r".into(),
            sector: "s".into(),
            index_version: 0,
            slots: cells.len() as u64,
            counts: Counts::tally(&cells, cells.len() as u64),
        };
        let options = WriteOptions { block_cells: 100, ..WriteOptions::default() };
        write_table_with(&path, &info, &cells, &options).unwrap();
        let bytes = fs::read(&path).unwrap();
        let data_start = Table::from_bytes(&bytes[..], &path, "r", "s").unwrap().blocks.data_start;
        let (_, header_len) = parse_header(&bytes, &path).unwrap();
        for pos in 0..data_start {
            let mut bad = bytes.clone();
            bad[pos] ^= 0x04;
            let err = Table::from_bytes(bad, &path, "r", "s").err().expect("damaged prefix opened");
            if pos >= header_len + CRC_LEN {
                assert!(err.to_string().contains("offset table checksum"), "byte {pos}: {err}");
            }
        }
    }

    fn header(slots: u64, block_cells: u32, counts: Counts) -> Header {
        Header {
            magic: MAGIC,
            format_version: FORMAT_VERSION,
            rules: "r".into(),
            sector: "s".into(),
            index_version: 0,
            slots,
            counts,
            block_cells,
            offsets_crc: [0; 4],
        }
    }

    /// A file with correct checksums around whatever header, offsets and
    /// records it is given: what a writer bug could produce.
    fn assemble(mut header: Header, ends: &[u64], records: &[u8]) -> Vec<u8> {
        let offsets: Vec<u8> = ends.iter().flat_map(|e| e.to_le_bytes()).collect();
        header.offsets_crc = crc32fast::hash(&offsets).to_le_bytes();
        let mut bytes = encode_header(&header);
        bytes.extend_from_slice(&crc32fast::hash(&bytes).to_le_bytes());
        bytes.extend_from_slice(&offsets);
        bytes.extend_from_slice(records);
        bytes
    }

    fn record_of(planes: &[u8]) -> Vec<u8> {
        let mut record = zstd::bulk::compress(planes, 3).unwrap();
        let crc = crc32fast::hash(&record);
        record.extend_from_slice(&crc.to_le_bytes());
        record
    }

    fn open(bytes: Vec<u8>) -> Result<Table<Vec<u8>>, TableError> {
        Table::from_bytes(bytes, Path::new("t"), "r", "s")
    }

    #[test]
    fn nonsense_with_valid_checksums_is_refused_at_open() {
        let zero = Counts::default();
        let garbage = [0u8; 64];
        let cases = [
            assemble(header(u64::MAX, 1, zero.clone()), &[], &[]),
            assemble(header(10, 0, zero.clone()), &[], &[]),
            assemble(header(10, MAX_BLOCK_CELLS + 1, zero.clone()), &[8], &garbage[..8]),
            assemble(header(20, 10, zero.clone()), &[30, 20], &garbage[..20]),
            assemble(header(20, 10, zero.clone()), &[3, 20], &garbage[..20]),
            assemble(header(20, 10, zero.clone()), &[u64::MAX - 2, u64::MAX], &garbage),
            assemble(header(20, 10, zero.clone()), &[10, 20], &garbage[..30]),
        ];
        for (k, bytes) in cases.into_iter().enumerate() {
            assert!(open(bytes).is_err(), "case {k} opened");
        }
    }

    #[test]
    fn blocks_of_wrong_content_are_refused_when_read() {
        let counts = Counts { states: 4, draws: 4, ..Counts::default() };
        let good = record_of(&[0; 8]);
        let cases = [garbage_with_crc(), record_of(&[0; 7]), record_of(&[0; 9]), record_of(&[])];
        for (k, bad) in cases.into_iter().enumerate() {
            let records = [good.clone(), bad.clone()].concat();
            let ends = [good.len() as u64, records.len() as u64];
            let table = open(assemble(header(8, 4, counts.clone()), &ends, &records)).unwrap();
            assert_eq!(table.get(0).unwrap(), 0, "case {k}");
            assert!(table.get(4).is_err(), "case {k}");
            assert!(table.read_all().is_err(), "case {k}");
            assert!(table.verify().is_err(), "case {k}");
        }
    }

    fn garbage_with_crc() -> Vec<u8> {
        let mut record = b"not a zstd frame".to_vec();
        let crc = crc32fast::hash(&record);
        record.extend_from_slice(&crc.to_le_bytes());
        record
    }

    #[test]
    fn verify_refuses_counts_that_disagree_with_cells() {
        // One win in 1 (cell 2) among four slots, but the header says draws.
        let record = record_of(&[2, 0, 0, 0, 0, 0, 0, 0]);
        let counts = Counts { states: 4, draws: 4, ..Counts::default() };
        let table = open(assemble(header(4, 4, counts), &[record.len() as u64], &record)).unwrap();
        assert_eq!(table.read_all().unwrap(), [2, 0, 0, 0]);
        let err = table.verify().unwrap_err().to_string();
        assert!(err.contains("counts disagree"), "{err}");
    }

    #[test]
    fn header_length_does_not_depend_on_offsets_crc() {
        let mut h = Header {
            magic: MAGIC,
            format_version: FORMAT_VERSION,
            rules: "r".into(),
            sector: "9-9".into(),
            index_version: 1,
            slots: 1 << 40,
            counts: Counts::default(),
            block_cells: BLOCK_CELLS,
            offsets_crc: [0; 4],
        };
        let len = encode_header(&h).len();
        h.offsets_crc = [0xff; 4];
        assert_eq!(encode_header(&h).len(), len);
    }

    #[test]
    fn synthetic_cells_follow_the_model() {
        let cells = synthetic_cells(1 << 20, 1);
        let zeros = cells.iter().filter(|&&c| c == 0).count() as f64 / cells.len() as f64;
        // draws are 30% of 90% plus 10% filler
        assert!((0.33..0.41).contains(&zeros), "zero fraction {zeros}");
        assert!(cells.iter().any(|&c| c > 255));
        assert_eq!(cells, synthetic_cells(1 << 20, 1));
    }
}
