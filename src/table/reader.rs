//! Reading a table: the header and offset table checked on opening, each
//! block checked and decompressed when it is read, a few recent blocks
//! kept for probes that land near each other.

use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::ops::Range;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rayon::prelude::*;

use super::format::{
    cells_of_planes, check_identity, io_error, parse_header, parse_offsets, Kind, TableError,
    TableInfo, CRC_LEN, FULL, OFFSET_LEN,
};
use crate::stats::{add_histograms, cell_histogram, Distances, Tally};

/// Decompressed blocks `Table::get` keeps unless told otherwise
/// ([`Table::keep_blocks`]): a handful covers the locality of a search
/// that probes neighbouring positions.
pub const CACHED_BLOCKS: usize = 8;

/// Bytes read ahead for a header before it is parsed: more than any
/// header takes, and one read of the disk.
const HEADER_READ: usize = 64 * 1024;

/// A table file opened for reading: the header and offset table are checked
/// on opening, each block when it is read.
pub struct Table<B: AsRef<[u8]>> {
    bytes: B,
    pub(super) blocks: Blocks,
    cache: Mutex<BlockCache<u16>>,
}

/// Where the blocks of a table are, apart from the bytes themselves (which
/// need not be `Sync`), so parallel readers can share it.
pub(super) struct Blocks {
    pub(super) path: PathBuf,
    /// The file, to read ahead what a probe is about to touch.
    pub(super) readahead: Readahead,
    pub(super) info: TableInfo,
    /// The file's format version (of its kind).
    pub(super) version: u32,
    pub(super) block_cells: u64,
    pub(super) data_start: usize,
    /// End of each block record, counted from `data_start`.
    pub(super) ends: Vec<usize>,
}

impl Table<memmap2::Mmap> {
    /// Opens a table file, refusing it unless it was solved under
    /// `expect_rules` and holds sector `expect_sector`. Reads only the header
    /// and the offset table.
    pub fn open(path: &Path, expect_rules: &str, expect_sector: &str) -> Result<Self, TableError> {
        Self::open_kind(path, &FULL, expect_rules, expect_sector)
    }

    /// [`Table::open`] of a file of another kind in the same layout (the
    /// progress tier's).
    pub(super) fn open_kind(
        path: &Path,
        kind: &Kind,
        expect_rules: &str,
        expect_sector: &str,
    ) -> Result<Self, TableError> {
        let (bytes, readahead) = map_for_probes(path)?;
        let blocks = Blocks::parse(&bytes, path, kind, expect_rules, expect_sector, readahead)?;
        Ok(Table { bytes, blocks, cache: Mutex::new(BlockCache::default()) })
    }

    /// Lets go of the mapped pages a whole-table read touched, once the
    /// table is in memory as cells: they stay in the page cache, so a
    /// later probe faults them back from there, but no longer count in
    /// the process's resident set, which a long solve or verify, reading
    /// every table once, would otherwise fill with gigabytes of them.
    /// Only advice.
    pub fn release_pages(&self) {
        release_mapped_pages(&self.bytes);
    }
}

/// The file a table is mapped from, kept open to tell the kernel which of
/// its bytes a probe is about to read.
///
/// Why: a page fault in a file mapping that misses the page cache makes
/// the kernel read around the page, as much as the device's read-ahead
/// setting (8 MiB on this project's VMs), and wait for all of it. A cold
/// probe of one cell took two such reads, the header and offset table
/// and then its block: about 10 ms for what is some 300 KB. Asked first
/// for exactly the bytes it needs, the kernel reads those, and the faults
/// find their pages. Whole-table passes do not ask: the large windows of
/// the kernel's own read-ahead are what they want.
pub(super) struct Readahead(Option<File>);

impl Readahead {
    /// For bytes that are not a mapped file: nothing to ask.
    pub(super) const NONE: Readahead = Readahead(None);

    /// Starts reading `range` of the file into the page cache, without
    /// waiting for it. Only a hint: a failure changes nothing but speed.
    pub(super) fn will_need(&self, range: Range<usize>) {
        let Some(file) = &self.0 else { return };
        if range.is_empty() {
            return;
        }
        let (Ok(start), Ok(len)) = (range.start.try_into(), range.len().try_into()) else {
            return;
        };
        // Safety: an advisory call on a descriptor this value owns.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), start, len, libc::POSIX_FADV_WILLNEED) };
    }
}

/// [`Table::release_pages`] for any table's map (full or win/draw/loss):
/// a failure changes nothing.
pub(super) fn release_mapped_pages(map: &memmap2::Mmap) {
    // Safety: `MADV_DONTNEED` on a shared, read-only file mapping only
    // unmaps its pages: nothing was written through it, so nothing is
    // lost, and a later read finds the same bytes in the file.
    let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
}

/// The whole file at `path`, mapped, with its file kept for
/// [`Readahead`]: for the tables that answer probes.
pub(super) fn map_for_probes(path: &Path) -> Result<(memmap2::Mmap, Readahead), TableError> {
    let file = File::open(path).map_err(io_error(path, "open the table"))?;
    let map = map_open(&file, path)?;
    Ok((map, Readahead(Some(file))))
}

/// The whole file at `path`, mapped.
pub(super) fn map_file(path: &Path) -> Result<memmap2::Mmap, TableError> {
    let file = File::open(path).map_err(io_error(path, "open the table"))?;
    map_open(&file, path)
}

/// `file` (the one at `path`), mapped whole.
fn map_open(file: &File, path: &Path) -> Result<memmap2::Mmap, TableError> {
    // Safety: the map is only sound while nobody changes the file. Tables
    // are never modified in place: writers make a new file and rename it
    // over the old one, which leaves this mapping on the old, unchanged
    // inode. If some other program truncates the file anyway, touching a
    // page past the new end raises SIGBUS and kills the process; if it
    // rewrites bytes, block checksums catch most changes, but a change
    // between a block's checksum and its decompression can go unnoticed.
    unsafe { memmap2::Mmap::map(file) }.map_err(io_error(path, "map the table"))
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
        Self::from_bytes_kind(bytes, path_for_errors, &FULL, expect_rules, expect_sector)
    }

    /// [`Table::from_bytes`] of a file of another kind in the same layout.
    pub(super) fn from_bytes_kind(
        bytes: B,
        path_for_errors: &Path,
        kind: &Kind,
        expect_rules: &str,
        expect_sector: &str,
    ) -> Result<Self, TableError> {
        let blocks = Blocks::parse(
            bytes.as_ref(),
            path_for_errors,
            kind,
            expect_rules,
            expect_sector,
            Readahead::NONE,
        )?;
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

    /// CRC-32 of the header and the offset table (every block's length),
    /// as they are in the file: with the file's length and time, what
    /// tells a derived file (the search's leaf cache) that the table it
    /// was made from has been rewritten. Hashes only the front of the
    /// file (half a MiB for nine's largest sectors).
    pub fn fingerprint(&self) -> u32 {
        crc32fast::hash(&self.bytes.as_ref()[..self.blocks.data_start])
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

    /// Cells per block: the cells of slots `b * block_cells ..` lie in
    /// block `b`.
    pub fn block_cells(&self) -> u64 {
        self.blocks.block_cells
    }

    /// Checks and decompresses block `block` into `planes`, bypassing the
    /// block cache: for readers that visit each block once, as a batch of
    /// probes grouped by block does. `planes` is resized to twice the
    /// block's cells: their low bytes, then their high bytes
    /// ([`cell_in_planes`] reads one), so that a reader that needs a few
    /// cells of the block does not interleave them all.
    pub fn read_block_planes(&self, block: usize, planes: &mut Vec<u8>) -> Result<(), TableError> {
        let b = &self.blocks;
        if block >= b.ends.len() {
            return Err(TableError::OutOfRange {
                path: b.path.clone(),
                index: block as u64 * b.block_cells,
                slots: b.info.slots,
            });
        }
        b.decode_planes(self.bytes.as_ref(), block, b.block_len(block), planes)
    }

    /// Block `block`'s cells, checked and decompressed, bypassing the
    /// block cache: for callers that keep blocks themselves.
    pub fn block(&self, block: usize) -> Result<Vec<u16>, TableError> {
        let mut planes = Vec::new();
        self.read_block_planes(block, &mut planes)?;
        let mut cells = vec![0; planes.len() / 2];
        cells_of_planes(&planes, &mut cells);
        Ok(cells)
    }

    /// The cells of `slots`, every block they lie in checked and
    /// decompressed, bypassing the block cache.
    pub fn cells(&self, slots: Range<u64>) -> Result<Vec<u16>, TableError> {
        let b = &self.blocks;
        if slots.start > slots.end || slots.end > b.info.slots {
            return Err(TableError::OutOfRange {
                path: b.path.clone(),
                index: slots.end,
                slots: b.info.slots,
            });
        }
        let mut out = Vec::with_capacity((slots.end - slots.start) as usize);
        if slots.is_empty() {
            return Ok(out);
        }
        for block in slots.start / b.block_cells..=(slots.end - 1) / b.block_cells {
            let cells = self.block(block as usize)?;
            let first = block * b.block_cells;
            let from = (slots.start.max(first) - first) as usize;
            let to = (slots.end.min(first + cells.len() as u64) - first) as usize;
            out.extend_from_slice(&cells[from..to]);
        }
        Ok(out)
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
    pub(super) fn fold_blocks<T: Send>(
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
        self.blocks.will_read(block);
        let mut cells = vec![0; self.blocks.block_len(block)];
        self.blocks.decode(self.bytes.as_ref(), block, &mut cells)?;
        let cells: Arc<[u16]> = cells.into();
        self.cache().insert(block, cells.clone());
        Ok(cells)
    }

    /// Keeps up to `blocks` decompressed blocks (at least one) for
    /// [`Table::get`] from now on, instead of [`CACHED_BLOCKS`].
    pub fn keep_blocks(&self, blocks: usize) {
        self.cache().set_capacity(blocks);
    }

    fn cache(&self) -> MutexGuard<'_, BlockCache<u16>> {
        // A panic elsewhere cannot leave the cache inconsistent: it only holds
        // complete, checked blocks.
        self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Blocks {
    /// The header and offset table of the file `data`, of `kind`, checked,
    /// and its identity (`rules`, `sector`); each read ahead by
    /// `readahead` before it is touched.
    pub(super) fn parse(
        data: &[u8],
        path: &Path,
        kind: &Kind,
        rules: &str,
        sector: &str,
        readahead: Readahead,
    ) -> Result<Blocks, TableError> {
        readahead.will_need(0..data.len().min(HEADER_READ));
        let (header, header_len) = parse_header(data, path, kind)?;
        check_identity(&header, rules, sector, path)?;
        let blocks = header.slots.div_ceil(u64::from(header.block_cells.max(1)));
        // A damaged header may say anything: no arithmetic may overflow
        // (parse_offsets refuses it next).
        let offsets_end = ((header_len + CRC_LEN) as u64)
            .saturating_add(blocks.saturating_mul(OFFSET_LEN as u64));
        let offsets_end = usize::try_from(offsets_end).unwrap_or(usize::MAX);
        readahead.will_need(HEADER_READ..data.len().min(offsets_end));
        let (data_start, ends) = parse_offsets(data, &header, header_len, path)?;
        Ok(Blocks {
            readahead,
            info: header.info(),
            version: header.format_version,
            block_cells: u64::from(header.block_cells),
            data_start,
            ends,
            path: path.to_owned(),
        })
    }

    pub(super) fn corrupt(&self, what: String) -> TableError {
        TableError::Corrupt { path: self.path.clone(), what }
    }

    /// Blocks in the file.
    pub(super) fn count(&self) -> usize {
        self.ends.len()
    }

    /// Cells of block `block`: every block but the last holds `block_cells`.
    pub(super) fn block_len(&self, block: usize) -> usize {
        let start = block as u64 * self.block_cells;
        (self.info.slots - start).min(self.block_cells) as usize
    }

    /// Starts reading block `block`'s record into the page cache
    /// ([`Readahead`]): for a probe, before it decodes the block.
    pub(super) fn will_read(&self, block: usize) {
        let start = if block == 0 { 0 } else { self.ends[block - 1] };
        self.readahead.will_need(self.data_start + start..self.data_start + self.ends[block]);
    }

    /// Block `block`'s record (its frame and the frame's CRC), unchecked.
    pub(super) fn record<'a>(&self, bytes: &'a [u8], block: usize) -> &'a [u8] {
        let start = if block == 0 { 0 } else { self.ends[block - 1] };
        &bytes[self.data_start + start..self.data_start + self.ends[block]]
    }

    /// Checks block `block` of the file `bytes` and decompresses it into
    /// `out` (exactly its length).
    fn decode(&self, bytes: &[u8], block: usize, out: &mut [u16]) -> Result<(), TableError> {
        let mut planes = Vec::new();
        self.decode_planes(bytes, block, out.len(), &mut planes)?;
        cells_of_planes(&planes, out);
        Ok(())
    }

    /// Checks block `block` of the file `bytes`, of `cells` cells, and
    /// decompresses its byte planes into `planes` (resized to fit).
    fn decode_planes(
        &self,
        bytes: &[u8],
        block: usize,
        cells: usize,
        planes: &mut Vec<u8>,
    ) -> Result<(), TableError> {
        self.decode_frame(bytes, block, 2 * cells, planes)
    }

    /// Checks block `block` of the file `bytes` and decompresses its frame
    /// into `out`, resized to `len`, the bytes it must hold.
    pub(super) fn decode_frame(
        &self,
        bytes: &[u8],
        block: usize,
        len: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), TableError> {
        let n = self.decode_frame_upto(bytes, block, len, out)?;
        if n != len {
            return Err(
                self.corrupt(format!("block {block}: decompressed to {n} bytes, expected {len}"))
            );
        }
        Ok(())
    }

    /// Checks block `block` of the file `bytes` and decompresses its frame
    /// into `out`, which it leaves as long as the frame's content: at most
    /// `most` bytes (more is an error). Returns that length.
    pub(super) fn decode_frame_upto(
        &self,
        bytes: &[u8],
        block: usize,
        most: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize, TableError> {
        let record = self.record(bytes, block);
        let (frame, crc) = record.split_at(record.len() - CRC_LEN);
        if crc32fast::hash(frame).to_le_bytes() != crc {
            return Err(self.corrupt(format!("block {block}: checksum mismatch")));
        }
        out.resize(most, 0);
        let n = decompress(frame, out)
            .map_err(|e| self.corrupt(format!("block {block}: cannot decompress: {e}")))?;
        out.truncate(n);
        Ok(n)
    }
}

/// Cell `i` of a block read by [`Table::read_block_planes`].
#[inline]
pub fn cell_in_planes(planes: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([planes[i], planes[planes.len() / 2 + i]])
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

/// The most recently used decompressed blocks, most recent last, up to
/// `capacity` of them.
pub(super) struct BlockCache<T> {
    pub(super) recent: Vec<(usize, Arc<[T]>)>,
    capacity: usize,
}

impl<T> Default for BlockCache<T> {
    fn default() -> Self {
        BlockCache { recent: Vec::new(), capacity: CACHED_BLOCKS }
    }
}

impl<T> BlockCache<T> {
    /// Keeps up to `blocks` (at least one), the least recent dropped now
    /// where there are more.
    pub(super) fn set_capacity(&mut self, blocks: usize) {
        self.capacity = blocks.max(1);
        let excess = self.recent.len().saturating_sub(self.capacity);
        self.recent.drain(..excess);
    }

    pub(super) fn get(&mut self, block: usize) -> Option<Arc<[T]>> {
        let pos = self.recent.iter().position(|(b, _)| *b == block)?;
        let entry = self.recent.remove(pos);
        let cells = entry.1.clone();
        self.recent.push(entry);
        Some(cells)
    }

    pub(super) fn insert(&mut self, block: usize, cells: Arc<[T]>) {
        if self.recent.iter().any(|(b, _)| *b == block) {
            return; // another thread decoded it meanwhile
        }
        if self.recent.len() >= self.capacity {
            self.recent.remove(0);
        }
        self.recent.push((block, cells));
    }
}
