//! The placement search's leaf scores (win, draw or loss of every slot of
//! a sector, 2 bits each), derived from a table (the full one, or the
//! win/draw/loss one where the directory holds only that tier:
//! [`pack_wdl`]) and kept beside it as a file the search maps, so that a query reads no table it has read
//! before and copies nothing.
//!
//! `<db>/leaves/<variant>-<sector>.wdl2`, little-endian:
//!
//! ```text
//!  0  magic "MORRISL2"          32  slots (u64)
//!  8  version (u32)             40  source table's length in bytes (u64)
//! 12  block bytes (u32)         48  source table's mtime, ns since 1970 (u64)
//! 16  sector: mover, opponent,  56  source table's fingerprint (u32): CRC-32 of
//!     hands (4 x u8)                its header and offset table
//! 20  CRC-32 of the rules key   60  CRC-32 of bytes 0..60
//! 24  index version (u32)       64  CRC-32 of each data block (u32 each)
//! 28  CRC-32 of the block CRCs  ..  zeros up to the next 4 KiB
//!                                   the scores, ceil(slots / 4) bytes, to the end
//! ```
//!
//! Scores are packed four to a byte (as in the win/draw/loss tier,
//! [`crate::table::wdl`], whose `code` and `pack` these are), slot `i` in bits `2 (i mod 4)` of
//! byte `i / 4`: 0 loss, 1 draw, 2 win for the side to move.
//!
//! What is checked when: opening a cache compares the header (its own
//! CRC, magic, version, rules, index, sector, slots), the file's length
//! and the identity of the table it came from (length, mtime and
//! fingerprint, so a rewritten table makes its cache stale) and checks
//! the CRC of the block CRCs: a few KiB, microseconds. The data itself
//! (600 MB for nine's largest sector, 2.3 GB for its moving phase) is
//! checked a block of 64 KiB at a time, the first time a probe lands in
//! the block ([`LeafScores::score`] looks at one bit per probe), so no
//! query reads or hashes data it never probes: a full check on every
//! open would cost a pass over 2.3 GB per query (about a second from the
//! page cache, much more from disk) for a search that touches a part of
//! it. A block that fails its check is never read: the search rebuilds
//! the cache from the table ([`crate::database::Database::repair_leaf_scores`]).
//! As with the tables, bytes changed in place after their block was
//! checked go unnoticed; the program itself never changes a cache in
//! place (it writes a new file and renames it over the old one).
//!
//! Building: the table's blocks are decompressed in parallel straight
//! into the packed scores (no 2-byte cells of a whole sector in memory),
//! and the file is written under `leaves/.lock` (an `flock`, so two
//! queries do not write the same `.tmp` at once; the second waits and
//! then finds the cache built) through `atomic_file` (temporary file,
//! sync, rename).

use crate::index::Sector;
pub use crate::table::wdl::{code, decode, pack};
use crate::table::{Table, TableError, WdlTable};
use memmap2::Mmap;
use rayon::prelude::*;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The file's first bytes.
pub const MAGIC: [u8; 8] = *b"MORRISL2";
/// The layout this build writes and reads.
pub const VERSION: u32 = 1;
/// Bytes of the fixed header.
pub const HEADER_BYTES: usize = 64;
/// Bytes of data per checksum.
pub const BLOCK_BYTES: usize = 1 << 16;
/// The data starts on a page boundary.
const ALIGN: usize = 4096;

/// The table a cache was made from, as it was then: any rewrite of the
/// table changes at least one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    /// The table file's length in bytes.
    pub len: u64,
    /// The table file's modification time, nanoseconds since 1970.
    pub mtime_ns: u64,
    /// [`Table::fingerprint`] or [`WdlTable::fingerprint`]: CRC-32 of its
    /// header and offset table.
    pub fingerprint: u32,
}

impl Source {
    /// The identity of an opened table (full or win/draw/loss) of `len`
    /// bytes and `fingerprint` whose file is `path`.
    pub fn of(len: u64, fingerprint: u32, path: &Path) -> std::io::Result<Source> {
        let meta = std::fs::metadata(path)?;
        let mtime_ns = meta
            .modified()?
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Ok(Source { len, mtime_ns, fingerprint })
    }
}

/// What a cache must say to be used: everything in its header but the
/// block checksums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The sector.
    pub sector: Sector,
    /// CRC-32 of the variant's rules key.
    pub rules_crc: u32,
    /// The index version the slots follow.
    pub index_version: u32,
    /// Slots of the sector.
    pub slots: u64,
    /// The table it comes from.
    pub source: Source,
}

/// Bytes of packed scores of `slots` slots.
pub fn data_bytes(slots: u64) -> usize {
    slots.div_ceil(4) as usize
}

fn blocks(data_bytes: usize) -> usize {
    data_bytes.div_ceil(BLOCK_BYTES)
}

/// Where the data starts in a file of `data_bytes` of scores.
fn data_start(data_bytes: usize) -> usize {
    (HEADER_BYTES + 4 * blocks(data_bytes)).next_multiple_of(ALIGN)
}

fn header_bytes(e: &Expected, crcs_crc: u32) -> [u8; HEADER_BYTES] {
    let mut h = [0u8; HEADER_BYTES];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(BLOCK_BYTES as u32).to_le_bytes());
    let s = e.sector;
    h[16..20].copy_from_slice(&[s.mover, s.opponent, s.mover_hand, s.opponent_hand]);
    h[20..24].copy_from_slice(&e.rules_crc.to_le_bytes());
    h[24..28].copy_from_slice(&e.index_version.to_le_bytes());
    h[28..32].copy_from_slice(&crcs_crc.to_le_bytes());
    h[32..40].copy_from_slice(&e.slots.to_le_bytes());
    h[40..48].copy_from_slice(&e.source.len.to_le_bytes());
    h[48..56].copy_from_slice(&e.source.mtime_ns.to_le_bytes());
    h[56..60].copy_from_slice(&e.source.fingerprint.to_le_bytes());
    let crc = crc32fast::hash(&h[..60]);
    h[60..64].copy_from_slice(&crc.to_le_bytes());
    h
}

/// The scores of `table`'s cells, its blocks decompressed in parallel.
pub fn pack_table<B: AsRef<[u8]> + Sync>(
    table: &Table<B>,
) -> Result<Vec<u8>, crate::table::TableError> {
    let slots = table.info().slots;
    let block_cells = table.block_cells() as usize;
    let mut packed = vec![0u8; data_bytes(slots)];
    if !block_cells.is_multiple_of(4) {
        // Not a layout this build writes; the slow way still works.
        return Ok(pack(&table.read_all()?));
    }
    packed.par_chunks_mut(block_cells / 4).enumerate().try_for_each_init(
        Vec::new,
        |planes, (block, out)| {
            table.read_block_planes(block, planes)?;
            pack_planes(planes, out);
            Ok(())
        },
    )?;
    Ok(packed)
}

/// The scores of a win/draw/loss table: its blocks' codes are the
/// caches' codes, decompressed in parallel one after the other (its
/// non-canonical slots hold fillers where a full table's hold draws; no
/// search probes them).
pub fn pack_wdl<B: AsRef<[u8]> + Sync>(wdl: &WdlTable<B>) -> Result<Vec<u8>, TableError> {
    let slots = wdl.info().slots;
    let block_cells = wdl.block_cells() as usize;
    let mut packed = vec![0u8; data_bytes(slots)];
    if !block_cells.is_multiple_of(4) {
        // Not a layout this build writes; the slow way still works.
        for slot in 0..slots {
            let code = (wdl.get(slot)?.score() + 1) as u8;
            packed[(slot / 4) as usize] |= code << (2 * (slot % 4));
        }
        return Ok(packed);
    }
    packed.par_chunks_mut(block_cells / 4).enumerate().try_for_each(|(block, out)| {
        out.copy_from_slice(&wdl.block_codes(block)?);
        Ok(())
    })?;
    Ok(packed)
}

/// Scores of the cells of a block's byte planes (low bytes, then high
/// bytes) into `out`, four to a byte.
fn pack_planes(planes: &[u8], out: &mut [u8]) {
    let (low, high) = planes.split_at(planes.len() / 2);
    for (i, byte) in out.iter_mut().enumerate() {
        let mut b = 0;
        for k in 0..4 {
            let j = 4 * i + k;
            if j < low.len() {
                b |= code(u16::from_le_bytes([low[j], high[j]])) << (2 * k);
            }
        }
        *byte = b;
    }
}

/// Writes the cache of `packed` (the scores of the sector `expected`
/// describes) to `path`, whole or not at all.
pub fn write(path: &Path, expected: &Expected, packed: &[u8]) -> std::io::Result<()> {
    assert_eq!(packed.len(), data_bytes(expected.slots), "scores of every slot");
    let crcs: Vec<u8> = packed
        .par_chunks(BLOCK_BYTES)
        .flat_map_iter(|b| crc32fast::hash(b).to_le_bytes())
        .collect();
    let mut front = header_bytes(expected, crc32fast::hash(&crcs)).to_vec();
    front.extend_from_slice(&crcs);
    front.resize(data_start(packed.len()), 0);
    crate::atomic_file::write_atomically(
        path,
        |file, _| {
            file.write_all(&front)?;
            file.write_all(packed)
        },
        |_, _, e| e,
    )
}

/// Why a cache file cannot be used (it is then rebuilt).
pub fn check_front(bytes: &[u8], expected: &Expected) -> Result<Vec<u32>, String> {
    let data = data_bytes(expected.slots);
    let start = data_start(data);
    let h = bytes.get(..HEADER_BYTES).ok_or("shorter than a header")?;
    if h[..8] != MAGIC {
        return Err("not a leaf cache (wrong magic bytes)".into());
    }
    if crc32fast::hash(&h[..60]).to_le_bytes() != h[60..64] {
        return Err("header checksum mismatch".into());
    }
    let crcs = bytes.get(HEADER_BYTES..HEADER_BYTES + 4 * blocks(data)).ok_or("truncated")?;
    let crcs_crc = u32::from_le_bytes(h[28..32].try_into().expect("4 bytes"));
    if h != header_bytes(expected, crcs_crc) {
        return Err("made from another table, rules, index or version".into());
    }
    if bytes.len() != start + data {
        return Err(format!("{} bytes long, not {}", bytes.len(), start + data));
    }
    if crc32fast::hash(crcs) != crcs_crc {
        return Err("block checksums' checksum mismatch".into());
    }
    Ok(crcs.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect())
}

/// Where the scores of a sector are.
enum Data {
    /// In memory: a copy made from the table this run.
    Copied(Box<[u8]>),
    /// A cache file, its data from byte `start`, its blocks checked on first use.
    Mapped {
        map: Mmap,
        start: usize,
        path: PathBuf,
        crcs: Vec<u32>,
        /// One bit per block: set once its checksum has been found right.
        checked: Box<[AtomicU64]>,
    },
}

/// A block of a cache file that fails its checksum.
#[derive(Debug)]
pub struct BadBlock {
    /// The file.
    pub path: PathBuf,
    /// The block.
    pub block: usize,
}

/// The scores of one sector, from a cache file or a copy in memory;
/// shared by every search on the database.
pub struct LeafScores {
    data: Data,
}

impl LeafScores {
    /// Scores in memory.
    pub fn copied(packed: Vec<u8>) -> LeafScores {
        LeafScores { data: Data::Copied(packed.into_boxed_slice()) }
    }

    /// The cache at `path` if it is there and is the one `expected`
    /// describes; `Ok(None)` if it is missing, `Err` (why) if it is stale
    /// or damaged.
    pub fn open(path: &Path, expected: &Expected) -> Result<Option<LeafScores>, String> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.to_string()),
        };
        // Safety: a cache is never changed in place by this program (a new
        // one is renamed over it, leaving this map on the old file); bytes
        // changed by another program are caught by the block checksums
        // unless they change after their block was checked, as with tables.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| e.to_string())?;
        let crcs = check_front(&map, expected)?;
        // The search's probes land all over a sector, and most of a
        // sector's pages are probed in the end: read the file ahead (a
        // page cache already holding it makes this cheap), so that a cold
        // start reads it in large requests, not a page per fault.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::WillNeed);
        let start = data_start(data_bytes(expected.slots));
        let checked = (0..crcs.len().div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        Ok(Some(LeafScores {
            data: Data::Mapped { map, start, path: path.to_owned(), crcs, checked },
        }))
    }

    /// Bytes of scores.
    pub fn len(&self) -> usize {
        match &self.data {
            Data::Copied(b) => b.len(),
            Data::Mapped { map, start, .. } => map.len() - start,
        }
    }

    /// Whether there are no scores (a sector without slots).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the scores come from a cache file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.data, Data::Mapped { .. })
    }

    /// The score of `slot` (-1, 0, 1 for the side to move), or the block
    /// of the cache file that fails its checksum.
    #[inline]
    pub fn score(&self, slot: u64) -> Result<i8, BadBlock> {
        let byte = (slot / 4) as usize;
        let shift = 2 * (slot % 4);
        match &self.data {
            Data::Copied(b) => Ok(decode(b[byte] >> shift & 3)),
            Data::Mapped { map, start, checked, .. } => {
                let block = byte / BLOCK_BYTES;
                if checked[block / 64].load(Ordering::Relaxed) & 1 << (block % 64) == 0 {
                    self.check_block(block)?;
                }
                Ok(decode(map[start + byte] >> shift & 3))
            }
        }
    }

    /// Checks block `block` of a cache file against its checksum.
    #[cold]
    fn check_block(&self, block: usize) -> Result<(), BadBlock> {
        let Data::Mapped { map, start, path, crcs, checked } = &self.data else {
            return Ok(());
        };
        let from = start + block * BLOCK_BYTES;
        let to = (from + BLOCK_BYTES).min(map.len());
        if crc32fast::hash(&map[from..to]) != crcs[block] {
            return Err(BadBlock { path: path.clone(), block });
        }
        // Any thread may set it: the bytes checked do not change.
        checked[block / 64].fetch_or(1 << (block % 64), Ordering::Relaxed);
        Ok(())
    }

    /// Checks every block not checked yet (the tests; `Ok` for a copy).
    pub fn check_all(&self) -> Result<(), BadBlock> {
        if let Data::Mapped { crcs, .. } = &self.data {
            (0..crcs.len()).try_for_each(|b| self.check_block(b))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Cell, Value};

    fn cells(n: usize) -> Vec<u16> {
        let values = [
            Value::Win(1),
            Value::Draw,
            Value::Loss(0),
            Value::Loss(4),
            Value::Win(7),
            Value::Win(201),
        ];
        (0..n).map(|i| Cell::from(values[(i * 7 + i / 5) % values.len()]).0).collect()
    }

    fn want(cell: u16) -> i8 {
        match Value::from(Cell(cell)) {
            Value::Win(_) => 1,
            Value::Draw => 0,
            Value::Loss(_) => -1,
        }
    }

    fn expected(slots: u64) -> Expected {
        Expected {
            sector: Sector::moving(5, 4),
            rules_crc: 7,
            index_version: 3,
            slots,
            source: Source { len: 1000, mtime_ns: 12345, fingerprint: 99 },
        }
    }

    #[test]
    fn packing_keeps_every_cell() {
        let cells = cells(100_003);
        let packed = pack(&cells);
        for (i, &c) in cells.iter().enumerate() {
            assert_eq!(decode(packed[i / 4] >> (2 * (i % 4)) & 3), want(c), "cell {i}");
        }
        // The planes of a block give the same bytes.
        let planes: Vec<u8> =
            cells.iter().map(|&c| c as u8).chain(cells.iter().map(|&c| (c >> 8) as u8)).collect();
        let mut out = vec![0; packed.len()];
        pack_planes(&planes, &mut out);
        assert_eq!(out, packed);
    }

    #[test]
    fn a_cache_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.wdl2");
        // More than two blocks, the last one short, slots not a multiple of 4.
        let n = 4 * (2 * BLOCK_BYTES + 1000) + 3;
        let cells = cells(n);
        let e = expected(n as u64);
        write(&path, &e, &pack(&cells)).unwrap();
        let scores = LeafScores::open(&path, &e).unwrap().expect("there");
        assert!(scores.is_mapped());
        assert_eq!(scores.len(), data_bytes(n as u64));
        for (i, &c) in cells.iter().enumerate() {
            assert_eq!(scores.score(i as u64).unwrap(), want(c), "slot {i}");
        }
        scores.check_all().unwrap();
        assert!(LeafScores::open(&dir.path().join("none"), &e).unwrap().is_none());
    }

    #[test]
    fn a_cache_of_another_table_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.wdl2");
        let e = expected(1000);
        write(&path, &e, &pack(&cells(1000))).unwrap();
        let changes = [
            Expected { source: Source { len: 1001, ..e.source }, ..e },
            Expected { source: Source { mtime_ns: 1, ..e.source }, ..e },
            Expected { source: Source { fingerprint: 98, ..e.source }, ..e },
            Expected { sector: Sector::moving(4, 5), ..e },
            Expected { rules_crc: 8, ..e },
            Expected { index_version: 4, ..e },
            Expected { slots: 999, ..e },
        ];
        for other in changes {
            assert!(LeafScores::open(&path, &other).is_err(), "{other:?}");
        }
        assert!(LeafScores::open(&path, &e).unwrap().is_some());
    }

    #[test]
    fn every_damaged_byte_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.wdl2");
        let n = 4 * (BLOCK_BYTES + 100);
        let e = expected(n as u64);
        let cells = cells(n);
        write(&path, &e, &pack(&cells)).unwrap();
        let good = std::fs::read(&path).unwrap();
        let start = data_start(data_bytes(n as u64));
        // Every byte of the header and block checksums, and bytes of both
        // data blocks, and the padding left alone (it carries nothing).
        let places = (0..HEADER_BYTES + 8).chain([start, start + 77, start + BLOCK_BYTES + 5]);
        for at in places {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            match LeafScores::open(&path, &e) {
                Err(_) => assert!(at < start, "byte {at}: refused on opening"),
                Ok(Some(scores)) => {
                    assert!(at >= start, "byte {at} of the front went unnoticed");
                    let slot = 4 * (at - start) as u64;
                    let err = scores.score(slot).expect_err("a damaged block is not read");
                    assert_eq!(err.block, (at - start) / BLOCK_BYTES);
                    assert!(scores.check_all().is_err());
                }
                Ok(None) => unreachable!(),
            }
        }
        // Cut short or grown.
        for len in [good.len() - 1, 10] {
            std::fs::write(&path, &good[..len]).unwrap();
            assert!(LeafScores::open(&path, &e).is_err(), "{len} bytes");
        }
        let mut longer = good.clone();
        longer.push(0);
        std::fs::write(&path, &longer).unwrap();
        assert!(LeafScores::open(&path, &e).is_err());
    }
}
