//! The win/draw/loss tier: a sector's outcome for the side to move at
//! every slot, without distances, made from its full table
//! (`morris export --wdl`): a fifth to a third of its size on nine's big
//! sectors.
//! A database directory that holds a sector's `.wdl` file and not its
//! full table answers from it (`Database::tier`): values without
//! distances, and the search's leaf caches made from its blocks.
//!
//! A `<variant>-<sector>.wdl` file has the layout of a full table (see
//! [`super`]): the same bincode header (magic `MORRISWD`, its own version,
//! the rules, sector, index version, slots and counts of the table it was
//! made from, cells per block, CRC-32 of the offset table), the CRC-32 of
//! the header, the end of each block record, and the records, each a zstd
//! frame and its CRC-32. Only a block differs: [`BLOCK_CELLS`] slots
//! (256 Ki), each slot's 2-bit code (0 loss, 1 draw, 2 win, as in the
//! search's leaf caches) in one of two layouts, compressed at level
//! [`ZSTD_LEVEL`] (19):
//! - four codes a byte (slot `i` in bits `2 (i mod 4)` of byte `i / 4`),
//!   the only layout of version 1;
//! - one code a byte (slot `i` in byte `i`), since version 2.
//!
//! The writer compresses a block both ways and keeps the smaller frame;
//! the length of the decompressed frame tells the reader which it is (a
//! block of one slot is the same byte either way). Runs of one outcome
//! are runs of one byte that zstd codes in a few bits either way; one
//! code a byte lets zstd's matches and entropy coder see each slot, which
//! pays on mixed blocks (by 2-9% on samples of nine's kept sectors), and
//! four a byte keeps a quarter of the bytes, which pays on others (by
//! about 2% on the mover-ahead sectors of nine without flying). A reader
//! keeps every block in the first layout once decoded, so what reads the
//! codes does not see the difference.
//!
//! Slots that hold no position (non-canonical: their mover set has a
//! symmetry that maps the opponent's stones to a smaller set) are a draw
//! in the full tier; here they take the code of the next canonical slot
//! of the block (the last canonical one at the block's end), so that they
//! never break a run: the "lookahead" filler of `docs/compression.md`.
//! A reader never asks for them.
//!
//! The choice follows `docs/compression.md` (`wdl 2b 256Ki L19 nc` and
//! `wdl 1B 256Ki L19 nc`, the better of the two a block); the
//! opponent-major order and capture "don't care" cells gain more on some
//! sectors but need a choice per table and a probe, and are not done
//! here.

use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::format::{check_cancelled, frame_record, io_error, Header, Kind, TableError, TableInfo};
use super::reader::{map_for_probes, BlockCache, Blocks, Readahead};
use super::writer::write_records_and_front;
use super::Table;
use crate::atomic_file::write_atomically;
use crate::value::{Cell, Outcome};

/// Version of the win/draw/loss layout this build writes (blocks of
/// either layout); it reads version 1 too (four codes a byte only).
pub const VERSION: u32 = 2;

/// Slots per block.
pub const BLOCK_CELLS: u32 = 256 * 1024;

/// zstd level of the blocks.
pub const ZSTD_LEVEL: i32 = 19;

/// The win/draw/loss tier's files.
pub(super) const WDL: Kind =
    Kind { magic: *b"MORRISWD", version: VERSION, oldest: 1, what: "morris win/draw/loss table" };

/// The 2-bit code of a stored cell: 0 loss, 1 draw, 2 win. A cell holds
/// the depth + 1 (0 for a draw) and odd depths are wins, so even cells
/// other than 0 are wins and odd cells losses (see [`Cell`]).
#[inline]
pub fn code(cell: u16) -> u8 {
    if cell == Cell::DRAW.0 {
        1
    } else {
        2 * (cell & 1 == 0) as u8
    }
}

/// The cell of each 2-bit code's outcome at its shortest distance: a
/// loss at 0 (cell 1), a draw (0), a win at 1 (cell 2).
const OUTCOME_CELLS: [u16; 3] = [1, 0, 2];

/// The score (-1, 0, 1) of a 2-bit code.
#[inline]
pub fn decode(code: u8) -> i8 {
    code as i8 - 1
}

/// Cells as 2-bit codes, four to a byte, in parallel.
pub fn pack(cells: &[u16]) -> Vec<u8> {
    const BYTES: usize = 1 << 16;
    let mut packed = vec![0u8; cells.len().div_ceil(4)];
    packed.par_chunks_mut(BYTES).zip(cells.par_chunks(4 * BYTES)).for_each(|(out, cells)| {
        for (byte, four) in out.iter_mut().zip(cells.chunks(4)) {
            *byte = four.iter().enumerate().fold(0, |acc, (i, &c)| acc | code(c) << (2 * i));
        }
    });
    packed
}

/// Codes (one a byte, each below 4) packed four to a byte. A warm probe
/// of a block of one code a byte spends a third of its time here, so four
/// codes are read as one word and their bits gathered by shifts (which
/// the compiler turns into vector code).
fn pack_codes(codes: &[u8]) -> Vec<u8> {
    let mut packed = Vec::with_capacity(codes.len().div_ceil(4));
    let mut fours = codes.chunks_exact(4);
    packed.extend(fours.by_ref().map(|four| {
        let word = u32::from_le_bytes(four.try_into().expect("chunks of 4"));
        (word | word >> 6 | word >> 12 | word >> 18) as u8
    }));
    let rest = fours.remainder();
    if !rest.is_empty() {
        packed.push(rest.iter().rev().fold(0, |acc, &c| acc << 2 | c));
    }
    packed
}

/// The code-3 slots of a packed byte (which no cell has), as a nonzero
/// mask; 0 when its four codes are all outcomes.
#[inline]
fn bad_codes(byte: u8) -> u8 {
    byte & (byte >> 1) & 0x55
}

// The two checks below scan a whole block without stopping early: a
// vectorised reduction, several times faster than a search byte by byte
// (which took half of the app player's time). Only a damaged block pays
// for the second scan that finds the place.

/// The first byte of a block of four codes a byte that holds the code 3.
fn first_bad_packed(packed: &[u8]) -> Option<usize> {
    if packed.iter().fold(0, |bad, &byte| bad | bad_codes(byte)) == 0 {
        return None;
    }
    packed.iter().position(|&byte| bad_codes(byte) != 0)
}

/// The first slot of a block of one code a byte whose code is no
/// outcome (above 2).
fn first_bad_code(codes: &[u8]) -> Option<usize> {
    if codes.iter().fold(0, |most, &code| most.max(code)) <= 2 {
        return None;
    }
    codes.iter().position(|&code| code > 2)
}

/// A win/draw/loss table opened for reading: the header and offset table
/// checked on opening, each block when it is read.
pub struct WdlTable<B: AsRef<[u8]>> {
    bytes: B,
    blocks: Blocks,
    cache: Mutex<BlockCache<u8>>,
}

impl WdlTable<memmap2::Mmap> {
    /// Opens `path` (mapped), refusing it unless it is a win/draw/loss
    /// table of sector `expect_sector` under `expect_rules`.
    pub fn open(path: &Path, expect_rules: &str, expect_sector: &str) -> Result<Self, TableError> {
        let (bytes, readahead) = map_for_probes(path)?;
        let blocks = Blocks::parse(&bytes, path, &WDL, expect_rules, expect_sector, readahead)?;
        Ok(WdlTable { bytes, blocks, cache: Mutex::new(BlockCache::default()) })
    }

    /// Lets go of the mapped pages a whole-table read touched (see
    /// [`super::Table::release_pages`]).
    pub fn release_pages(&self) {
        super::reader::release_mapped_pages(&self.bytes);
    }
}

impl<B: AsRef<[u8]>> WdlTable<B> {
    /// Reads a win/draw/loss table from `bytes` (the whole file), naming
    /// `path_for_errors` in errors. Checks as [`WdlTable::open`] does.
    pub fn from_bytes(
        bytes: B,
        path_for_errors: &Path,
        expect_rules: &str,
        expect_sector: &str,
    ) -> Result<Self, TableError> {
        let blocks = Blocks::parse(
            bytes.as_ref(),
            path_for_errors,
            &WDL,
            expect_rules,
            expect_sector,
            Readahead::NONE,
        )?;
        Ok(WdlTable { bytes, blocks, cache: Mutex::new(BlockCache::default()) })
    }

    /// Rules, sector, index version, slots and counts of the full table
    /// it was made from.
    pub fn info(&self) -> &TableInfo {
        &self.blocks.info
    }

    /// Size of the file in bytes.
    pub fn bytes_on_disk(&self) -> u64 {
        self.bytes.as_ref().len() as u64
    }

    /// The file's format version: 1 (four codes a byte), or 2 (each block
    /// the smaller layout, what [`Compression::Smallest`] writes).
    pub fn version(&self) -> u32 {
        self.blocks.version
    }

    /// Blocks in the file.
    pub fn blocks(&self) -> usize {
        self.blocks.count()
    }

    /// Slots per block: the codes of slots `b * block_cells ..` lie in
    /// block `b`.
    pub fn block_cells(&self) -> u64 {
        self.blocks.block_cells
    }

    /// CRC-32 of the header and the offset table, as
    /// [`Table::fingerprint`]: what tells the search's leaf cache made
    /// from this file that the file has been rewritten.
    pub fn fingerprint(&self) -> u32 {
        crc32fast::hash(&self.bytes.as_ref()[..self.blocks.data_start])
    }

    /// The outcome for the side to move at `slot` (a canonical slot: a
    /// non-canonical one gives a filler).
    pub fn get(&self, slot: u64) -> Result<Outcome, TableError> {
        let b = &self.blocks;
        if slot >= b.info.slots {
            return Err(TableError::OutOfRange {
                path: b.path.clone(),
                index: slot,
                slots: b.info.slots,
            });
        }
        let block = (slot / b.block_cells) as usize;
        let packed = self.cached_block(block)?;
        let i = (slot % b.block_cells) as usize;
        let code = packed[i / 4] >> (2 * (i % 4)) & 3;
        if code == 3 {
            return Err(b.corrupt(format!("block {block}: slot {slot} holds no outcome")));
        }
        Ok(Outcome::from_score(decode(code)))
    }

    /// Block `block`'s codes, four to a byte whatever the block's layout,
    /// checked and decompressed, bypassing the cache.
    pub fn block_codes(&self, block: usize) -> Result<Vec<u8>, TableError> {
        let b = &self.blocks;
        if block >= b.count() {
            return Err(TableError::OutOfRange {
                path: b.path.clone(),
                index: block as u64 * b.block_cells,
                slots: b.info.slots,
            });
        }
        let len = b.block_len(block);
        let four_a_byte = len.div_ceil(4);
        let most = if b.version >= 2 { len } else { four_a_byte }; // len >= four_a_byte
        let mut frame = Vec::new();
        let n = b.decode_frame_upto(self.bytes.as_ref(), block, most, &mut frame)?;
        let packed = if n == four_a_byte {
            if let Some(at) = first_bad_packed(&frame) {
                return Err(
                    b.corrupt(format!("block {block}: byte {at} holds a code of no outcome"))
                );
            }
            frame
        } else if n == len && b.version >= 2 {
            if let Some(at) = first_bad_code(&frame) {
                return Err(
                    b.corrupt(format!("block {block}: slot {at} holds a code of no outcome"))
                );
            }
            // Codes of 0 to 2 pack into bytes that hold no code 3.
            pack_codes(&frame)
        } else {
            return Err(b.corrupt(format!(
                "block {block}: decompressed to {n} bytes, expected {four_a_byte}{}",
                if b.version >= 2 {
                    format!(" (four slots a byte) or {len} (one a byte)")
                } else {
                    String::new()
                }
            )));
        };
        Ok(packed)
    }

    /// Reads and checks every block (its CRC, its length decompressed,
    /// its codes), in parallel.
    pub fn verify(&self) -> Result<(), TableError>
    where
        B: Sync,
    {
        (0..self.blocks.count()).into_par_iter().try_for_each(|block| {
            self.block_codes(block)?;
            Ok(())
        })
    }

    /// Checks every block (as [`WdlTable::verify`]) and that the outcomes
    /// of the canonical slots (as `canonical` says) add up to the wins,
    /// draws and losses of the header: what tells a file made from this
    /// table from one that only has its header.
    pub fn verify_counts(&self, canonical: &Canonical) -> Result<(), TableError>
    where
        B: Sync,
    {
        let b = &self.blocks;
        let tally = (0..b.count())
            .into_par_iter()
            .map(|block| {
                let packed = self.block_codes(block)?;
                let start = block as u64 * b.block_cells;
                let slots = start..start + b.block_len(block) as u64;
                let mask = canonical(slots.clone());
                let mut by_code = [0u64; 3];
                for i in 0..b.block_len(block) {
                    if mask.as_ref().is_none_or(|m| m[i]) {
                        by_code[(packed[i / 4] >> (2 * (i % 4)) & 3) as usize] += 1;
                    }
                }
                Ok(by_code)
            })
            .try_reduce(|| [0; 3], |x, y| Ok([x[0] + y[0], x[1] + y[1], x[2] + y[2]]))?;
        let c = &b.info.counts;
        if tally != [c.losses, c.draws, c.wins] {
            return Err(b.corrupt(format!(
                "its outcomes (losses, draws, wins) {tally:?} disagree with the header's {:?}",
                [c.losses, c.draws, c.wins]
            )));
        }
        Ok(())
    }

    /// Every slot's outcome as a cell of its own kind and the shortest
    /// distance a cell of that kind has (a loss at 0, a win at 1, a draw),
    /// into `out` (one cell a slot), every block checked, in parallel: what
    /// the forward check of this tier reads, with the full tier's code.
    pub fn read_outcome_cells_into(&self, out: &mut [u16]) -> Result<(), TableError>
    where
        B: Sync,
    {
        let b = &self.blocks;
        if out.len() as u64 != b.info.slots {
            return Err(TableError::BadInput {
                path: b.path.clone(),
                what: format!("{} cells asked for a table of {} slots", out.len(), b.info.slots),
            });
        }
        out.par_chunks_mut(b.block_cells as usize).enumerate().try_for_each(|(block, cells)| {
            let packed = self.block_codes(block)?;
            for (i, cell) in cells.iter_mut().enumerate() {
                *cell = OUTCOME_CELLS[(packed[i / 4] >> (2 * (i % 4)) & 3) as usize];
            }
            Ok(())
        })
    }

    /// Keeps up to `blocks` decompressed blocks (at least one) for
    /// [`WdlTable::get`] from now on, instead of
    /// [`CACHED_BLOCKS`](super::CACHED_BLOCKS).
    pub fn keep_blocks(&self, blocks: usize) {
        self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).set_capacity(blocks);
    }

    fn cached_block(&self, block: usize) -> Result<Arc<[u8]>, TableError> {
        let cache = || self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(packed) = cache().get(block) {
            return Ok(packed);
        }
        // Decompress without holding the lock, so other threads' hits proceed.
        if block < self.blocks.count() {
            self.blocks.will_read(block);
        }
        let packed: Arc<[u8]> = self.block_codes(block)?.into();
        cache().insert(block, packed.clone());
        Ok(packed)
    }
}

/// Which slots of a range hold a position (are canonical), as a mask of
/// the range, or `None` when they all do: what the index knows and the
/// table layer does not (`Database::export_wdl` asks the sector's index).
pub type Canonical<'a> = dyn Fn(Range<u64>) -> Option<Vec<bool>> + Sync + 'a;

/// Writes the win/draw/loss table of the full table `table` to `path`,
/// atomically (a temporary file renamed into place; nothing is left at
/// `path` or beside it on an error), its non-canonical slots (as
/// `canonical` says) filled so as to continue runs. Blocks are made in
/// parallel (the calling thread pool's threads), each from the full
/// table's blocks it covers. `cancelled` is asked before each block; once
/// it says yes the write stops with an error of kind
/// [`std::io::ErrorKind::Interrupted`].
pub fn write_wdl<B: AsRef<[u8]> + Sync>(
    path: &Path,
    table: &Table<B>,
    canonical: &Canonical,
    cancelled: &(dyn Fn() -> bool + Sync),
    compression: Compression,
) -> Result<(), TableError> {
    match compression {
        Compression::Quick => write_as(path, table, canonical, cancelled, 1, Layout::FourAByte),
        Compression::Smallest => {
            write_as(path, table, canonical, cancelled, VERSION, Layout::Smaller)
        }
    }
}

/// How hard [`write_wdl`] works for its bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Compression {
    /// Four codes a byte, a version-1 file: about a sixth of the CPU time
    /// of [`Compression::Smallest`] (level 19 on a quarter of the bytes),
    /// and 2-9% larger on nine's big sectors. What `export --derive`
    /// writes first, to choose the sectors it derives by.
    Quick,
    /// Each block in the smaller of the two layouts, a version-2 file.
    Smallest,
}

/// Rewrites the version-1 win/draw/loss table at `path` as version 2,
/// atomically: each block's record kept when four codes a byte is the
/// smaller layout, else replaced by the frame of one code a byte. The
/// old records are not compressed again, so this costs what the second
/// layout costs. Every block is checked as it is read. Returns whether it
/// rewrote the file (a version-2 file is left alone). `cancelled` is
/// asked before each block, as [`write_wdl`] does.
pub fn upgrade_wdl(
    path: &Path,
    expect_rules: &str,
    expect_sector: &str,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> Result<bool, TableError> {
    let old = WdlTable::open(path, expect_rules, expect_sector)?;
    if old.version() >= VERSION {
        return Ok(false);
    }
    let b = &old.blocks;
    let header = Header::new(&WDL, &b.info, b.block_cells as u32);
    write_atomically(
        path,
        |file, tmp| {
            write_records_and_front(file, tmp, header, b.count(), |block| {
                check_cancelled(cancelled, tmp)?;
                let packed = old.block_codes(block)?;
                let codes: Vec<u8> =
                    (0..b.block_len(block)).map(|i| packed[i / 4] >> (2 * (i % 4)) & 3).collect();
                let four = b.record(old.bytes.as_ref(), block);
                let one =
                    frame_record(&codes, ZSTD_LEVEL).map_err(io_error(tmp, "compress a block"))?;
                Ok(if one.len() < four.len() { one } else { four.to_vec() })
            })
        },
        |path, op, source| TableError::Io { path: path.to_owned(), op, source },
    )?;
    Ok(true)
}

/// Which layout a writer gives a block's codes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Layout {
    /// Four codes a byte: every block of a version-1 file.
    FourAByte,
    /// One code a byte (what tests need to reach the reader's handling
    /// of it whatever the compressor prefers).
    #[cfg(test)]
    OneAByte,
    /// The smaller of the two, four a byte on a tie (the faster to decode).
    Smaller,
}

/// [`write_wdl`] with the header's `version` and each block's `layout`
/// given: version 1 with four codes a byte writes the files of the builds
/// before version 2 (what tests of those files need).
fn write_as<B: AsRef<[u8]> + Sync>(
    path: &Path,
    table: &Table<B>,
    canonical: &Canonical,
    cancelled: &(dyn Fn() -> bool + Sync),
    version: u32,
    layout: Layout,
) -> Result<(), TableError> {
    let info = table.info();
    let header = Header::new(&Kind { version, ..WDL }, info, BLOCK_CELLS);
    let block_cells = u64::from(BLOCK_CELLS);
    let blocks = info.slots.div_ceil(block_cells) as usize;
    write_atomically(
        path,
        |file, tmp| {
            write_records_and_front(file, tmp, header, blocks, |block| {
                check_cancelled(cancelled, tmp)?;
                let start = block as u64 * block_cells;
                let slots = start..(start + block_cells).min(info.slots);
                let mut cells = table.cells(slots.clone())?;
                if let Some(mask) = canonical(slots) {
                    if mask.len() != cells.len() {
                        return Err(TableError::BadInput {
                            path: path.to_owned(),
                            what: format!(
                                "block {block}: a mask of {} slots for {}",
                                mask.len(),
                                cells.len()
                            ),
                        });
                    }
                    fill_non_canonical(&mut cells, &mask);
                }
                block_record(&cells, layout).map_err(io_error(tmp, "compress a block"))
            })
        },
        |path, op, source| TableError::Io { path: path.to_owned(), op, source },
    )
}

/// The record of a block of `cells`, its codes in `layout`.
fn block_record(cells: &[u16], layout: Layout) -> std::io::Result<Vec<u8>> {
    let codes: Vec<u8> = cells.iter().map(|&c| code(c)).collect();
    let four = || frame_record(&pack_codes(&codes), ZSTD_LEVEL);
    let one = || frame_record(&codes, ZSTD_LEVEL);
    match layout {
        Layout::FourAByte => four(),
        #[cfg(test)]
        Layout::OneAByte => one(),
        Layout::Smaller => {
            let (four, one) = (four()?, one()?);
            Ok(if one.len() < four.len() { one } else { four })
        }
    }
}

/// Gives each non-canonical slot of `cells` (where `canonical` is false)
/// the cell of the next canonical slot, or of the last one when none
/// follows: the filler that continues runs.
pub fn fill_non_canonical(cells: &mut [u16], canonical: &[bool]) {
    let Some(last) = canonical.iter().rposition(|&c| c) else {
        return; // no position in the block: any filler does
    };
    let mut upcoming = cells[last];
    for (cell, &canonical) in cells.iter_mut().zip(canonical).rev() {
        if canonical {
            upcoming = *cell;
        } else {
            *cell = upcoming;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Counts;
    use crate::table::{write_table, TableInfo};
    use crate::testing::synthetic_cells;
    use std::path::PathBuf;

    /// Slots: 3 blocks and a short one.
    const SLOTS: u64 = 3 * BLOCK_CELLS as u64 + 12_345;

    /// Whether a slot of the test's tables holds a position: single slots
    /// and runs of a thousand do not, except in the second block, where
    /// all do.
    fn is_canonical(slot: u64) -> bool {
        slot / u64::from(BLOCK_CELLS) == 1 || (slot % 11 != 5 && !(slot / 1000).is_multiple_of(9))
    }

    fn canonical(slots: Range<u64>) -> Option<Vec<bool>> {
        let mask: Vec<bool> = slots.map(is_canonical).collect();
        (!mask.iter().all(|&c| c)).then_some(mask)
    }

    /// A full table of synthetic cells in `dir`; its cells and path.
    fn full_table(dir: &Path) -> (Vec<u16>, PathBuf) {
        // Non-canonical slots hold the full tier's filler, a draw.
        let mut cells = synthetic_cells(SLOTS as usize, 28);
        for (slot, cell) in cells.iter_mut().enumerate() {
            if !is_canonical(slot as u64) {
                *cell = 0;
            }
        }
        let states = (0..SLOTS).filter(|&s| is_canonical(s)).count() as u64;
        let info = TableInfo {
            rules: "r".into(),
            sector: "4-3".into(),
            index_version: 1,
            slots: SLOTS,
            counts: Counts::tally(&cells, states),
        };
        let path = dir.join("t.mtb");
        write_table(&path, &info, &cells).unwrap();
        (cells, path)
    }

    /// The full table and its win/draw/loss table in `dir`.
    fn both(dir: &Path) -> (Vec<u16>, PathBuf, PathBuf) {
        let (cells, full) = full_table(dir);
        let table = Table::open(&full, "r", "4-3").unwrap();
        let path = dir.join("t.wdl");
        write_wdl(&path, &table, &canonical, &|| false, Compression::Smallest).unwrap();
        (cells, full, path)
    }

    #[test]
    fn a_code_of_no_outcome_is_found_in_either_layout() {
        let mut codes = [0, 1, 2, 1].repeat(1000);
        assert_eq!(first_bad_code(&codes), None);
        let mut packed = pack_codes(&codes);
        assert_eq!(first_bad_packed(&packed), None);
        codes[2345] = 3;
        codes[3000] = 200;
        assert_eq!(first_bad_code(&codes), Some(2345));
        packed[999] = 0b11_00_00_00;
        packed[700] = 0b00_11_00_00;
        assert_eq!(first_bad_packed(&packed), Some(700));
        // Codes 2 and 1 side by side (bits 10 01) are no code 3.
        assert_eq!(first_bad_packed(&[0b0110_0110]), None);
    }

    #[test]
    fn codes_pack_as_the_obvious_loop_packs_them() {
        let mut seed = 7u32;
        for len in 0..=41usize {
            let codes: Vec<u8> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (seed >> 29) as u8 & 3
                })
                .collect();
            let mut obvious = vec![0u8; len.div_ceil(4)];
            for (i, &c) in codes.iter().enumerate() {
                obvious[i / 4] |= c << (2 * (i % 4));
            }
            assert_eq!(pack_codes(&codes), obvious, "{len} codes");
        }
    }

    #[test]
    fn every_canonical_slot_keeps_its_outcome_and_fillers_continue_runs() {
        let dir = tempfile::tempdir().unwrap();
        let (cells, full, path) = both(dir.path());
        let wdl = WdlTable::open(&path, "r", "4-3").unwrap();
        assert_eq!(wdl.info(), Table::open(&full, "r", "4-3").unwrap().info());
        assert_eq!(wdl.blocks(), 4);
        wdl.verify().unwrap();
        for (slot, &cell) in cells.iter().enumerate() {
            if is_canonical(slot as u64) {
                let want = Outcome::from_score(decode(code(cell)));
                assert_eq!(wdl.get(slot as u64).unwrap(), want, "slot {slot}");
            }
        }
        // A non-canonical slot holds the next canonical slot's code in its
        // block, or the last one's at the block's end.
        let block = BLOCK_CELLS as usize;
        for b in 0..wdl.blocks() {
            let packed = wdl.block_codes(b).unwrap();
            let at = |i: usize| packed[i / 4] >> (2 * (i % 4)) & 3;
            let range = b * block..(b * block + block).min(cells.len());
            let canonical = |s: usize| is_canonical(s as u64);
            let last = range.clone().rev().find(|&s| canonical(s)).unwrap();
            for slot in range.clone().filter(|&s| !canonical(s)) {
                let source = (slot..range.end).find(|&s| canonical(s)).unwrap_or(last);
                assert_eq!(at(slot - range.start), code(cells[source]), "slot {slot}");
            }
        }
        assert!(wdl.get(SLOTS).is_err());
        // The outcomes of the canonical slots add up to the header's
        // counts; with the fillers counted too they do not.
        wdl.verify_counts(&canonical).unwrap();
        let err = wdl.verify_counts(&|_| None).unwrap_err();
        assert!(err.to_string().contains("disagree with the header"), "{err}");
    }

    /// The win/draw/loss file of the full table `full`, named `name` in
    /// `dir`, with the header's `version` and each block in `layout`.
    fn written(dir: &Path, full: &Path, name: &str, version: u32, layout: Layout) -> PathBuf {
        let table = Table::open(full, "r", "4-3").unwrap();
        let path = dir.join(name);
        write_as(&path, &table, &canonical, &|| false, version, layout).unwrap();
        path
    }

    #[test]
    fn both_layouts_and_version_1_files_read_the_same_codes() {
        let dir = tempfile::tempdir().unwrap();
        let (_, full) = full_table(dir.path());
        let open = |name: &str, version: u32, layout: Layout| {
            WdlTable::open(&written(dir.path(), &full, name, version, layout), "r", "4-3").unwrap()
        };
        let v1 = open("v1.wdl", 1, Layout::FourAByte);
        let one = open("one.wdl", 2, Layout::OneAByte);
        let smaller = open("smaller.wdl", 2, Layout::Smaller);
        for block in 0..v1.blocks() {
            let want = v1.block_codes(block).unwrap();
            assert_eq!(one.block_codes(block).unwrap(), want, "block {block}");
            assert_eq!(smaller.block_codes(block).unwrap(), want, "block {block}");
        }
        for table in [&v1, &one, &smaller] {
            table.verify_counts(&canonical).unwrap();
        }
        // Each block the smaller of the two, so the file too.
        assert!(smaller.bytes_on_disk() <= v1.bytes_on_disk().min(one.bytes_on_disk()));
    }

    #[test]
    fn an_upgraded_version_1_file_is_the_version_2_file() {
        let dir = tempfile::tempdir().unwrap();
        let (_, full) = full_table(dir.path());
        let v1 = written(dir.path(), &full, "v1.wdl", 1, Layout::FourAByte);
        let v2 = written(dir.path(), &full, "v2.wdl", 2, Layout::Smaller);
        assert!(upgrade_wdl(&v1, "r", "4-3", &|| false).unwrap());
        assert_eq!(std::fs::read(&v1).unwrap(), std::fs::read(&v2).unwrap());
        assert!(!upgrade_wdl(&v1, "r", "4-3", &|| false).unwrap(), "version 2 is left alone");
        // Stopped, it leaves the old file.
        let v1 = written(dir.path(), &full, "v1.wdl", 1, Layout::FourAByte);
        let before = std::fs::read(&v1).unwrap();
        assert!(upgrade_wdl(&v1, "r", "4-3", &|| true).is_err());
        assert_eq!(std::fs::read(&v1).unwrap(), before);
    }

    #[test]
    fn a_version_1_file_of_one_code_a_byte_and_a_newer_version_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (_, full) = full_table(dir.path());
        let mixed = written(dir.path(), &full, "mixed.wdl", 1, Layout::OneAByte);
        let err = WdlTable::open(&mixed, "r", "4-3").unwrap().verify().unwrap_err();
        let err = err.to_string();
        assert!(err.contains("mixed.wdl") && err.contains("block 0: cannot decompress"), "{err}");
        let newer = written(dir.path(), &full, "newer.wdl", VERSION + 1, Layout::Smaller);
        let err = WdlTable::open(&newer, "r", "4-3").err().expect("a newer version refused");
        assert!(err.to_string().contains("(this build reads versions 1 to 2)"), "{err}");
    }

    #[test]
    fn every_damaged_byte_is_caught_and_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let (_, full, smaller) = both(dir.path());
        let one = written(dir.path(), &full, "one.wdl", VERSION, Layout::OneAByte);
        for path in [smaller, one] {
            every_damaged_byte_is_caught(&path, &full);
        }
    }

    fn every_damaged_byte_is_caught(path: &Path, full: &Path) {
        let path = path.to_owned();
        let name = path.file_name().unwrap().to_str().unwrap();
        let good = std::fs::read(&path).unwrap();
        let wdl = WdlTable::from_bytes(&good[..], &path, "r", "4-3").unwrap();
        let (start, ends) = (wdl.blocks.data_start, wdl.blocks.ends.clone());
        // Every byte of the front; the first, middle and last bytes of
        // every record and of its checksum.
        let mut places: Vec<usize> = (0..start).collect();
        let mut from = start;
        for end in ends.iter().map(|&e| start + e) {
            places.extend([from, (from + end) / 2, end - 5, end - 4, end - 1]);
            from = end;
        }
        for at in places {
            let mut bad = good.clone();
            bad[at] ^= 0x21;
            let err = WdlTable::from_bytes(&bad[..], &path, "r", "4-3")
                .and_then(|t| t.verify())
                .expect_err(&format!("byte {at} went unnoticed"));
            assert!(err.to_string().contains(name), "byte {at}: {err}");
        }
        // Cut short, grown, or a full table given for one.
        for bad in [&good[..good.len() - 1], &[good.clone(), vec![0]].concat()[..]] {
            assert!(WdlTable::from_bytes(bad, &path, "r", "4-3").is_err());
        }
        let err = WdlTable::open(full, "r", "4-3").err().expect("a full table refused");
        assert!(err.to_string().contains("not a morris win/draw/loss table"), "{err}");
        // Other rules or sector.
        assert!(WdlTable::open(&path, "other", "4-3").is_err());
        assert!(WdlTable::open(&path, "r", "3-4").is_err());
    }

    #[test]
    fn a_cancelled_or_refused_write_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let (_, full) = full_table(dir.path());
        let table = Table::open(&full, "r", "4-3").unwrap();
        let path = dir.path().join("t.wdl");
        let err =
            write_wdl(&path, &table, &canonical, &|| true, Compression::Smallest).unwrap_err();
        assert!(
            matches!(&err, TableError::Io { source, .. } if source.kind() == std::io::ErrorKind::Interrupted),
            "{err}"
        );
        let short = |slots: Range<u64>| Some(vec![true; (slots.end - slots.start) as usize - 1]);
        let err = write_wdl(&path, &table, &short, &|| false, Compression::Quick);
        assert!(matches!(err, Err(TableError::BadInput { .. })), "{err:?}");
        let names: Vec<_> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec!["t.mtb"], "nothing but the full table");
    }
}
