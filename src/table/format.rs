//! The bytes of a table file, as laid out in [`super`]: the constants of
//! the format, the header, the offset table, the checksums and the
//! encoding of one block. The reader and the writer share this and
//! nothing else.

use std::io;
use std::path::{Path, PathBuf};

use bincode::config::{Configuration, Limit, LittleEndian, Varint};

use crate::stats::Counts;

/// Version of the file layout written by this build; other versions are refused.
pub const FORMAT_VERSION: u32 = 1;

/// Cells per block written by [`super::write_table`].
pub const BLOCK_CELLS: u32 = 16 * 1024;

/// zstd level used by [`super::write_table`]. The solver writes every
/// table it solves at this level, so its speed counts: on the cells'
/// 32 KiB blocks of byte planes, level 1 compresses about 3 times as fast
/// as level 5 and 7 times as fast as level 9, for 1-3 % fewer bytes than
/// level 5 and 1-6 % more than level 9 (`examples/zstd_levels.rs`;
/// docs/benchmarks.md, "Writing the tables"), and `compact` rewrites a
/// finished database at level 19 anyway.
pub const ZSTD_LEVEL: i32 = 1;

pub(super) const MAGIC: [u8; 8] = *b"MORRISTB";

/// What tells one kind of file of this layout from another: the full
/// tier's tables and the win/draw/loss tier's ([`super::wdl`]) share the
/// header, offset table and checksums, and differ in magic, version and
/// what a block holds.
pub(super) struct Kind {
    pub(super) magic: [u8; 8],
    /// The version this build writes, and the newest it reads.
    pub(super) version: u32,
    /// The oldest version this build reads.
    pub(super) oldest: u32,
    /// The file's kind in words, for errors.
    pub(super) what: &'static str,
}

/// The full tier: value and distance of every slot.
pub(super) const FULL: Kind =
    Kind { magic: MAGIC, version: FORMAT_VERSION, oldest: FORMAT_VERSION, what: "morris table" };
pub(super) const CRC_LEN: usize = 4;
pub(super) const OFFSET_LEN: usize = 8;
/// Bounds what a damaged header can make the decoder allocate.
pub(super) const MAX_HEADER_BYTES: usize = 1 << 16;
/// Bounds the block a reader decompresses, whatever the header says.
pub(super) const MAX_BLOCK_CELLS: u32 = 1 << 20;

pub(super) const HEADER_CONFIG: Configuration<LittleEndian, Varint, Limit<MAX_HEADER_BYTES>> =
    bincode::config::standard().with_limit::<MAX_HEADER_BYTES>();

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
    /// Wins, losses and draws among its states.
    pub counts: Counts,
}

/// A table that cannot be written, opened or read; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// A file operation that failed.
    #[error("{}: cannot {op}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// Why it failed.
        #[source]
        source: io::Error,
    },
    /// Not a table file (of the kind asked for).
    #[error("{}: not a {what} (wrong magic bytes)", path.display())]
    BadMagic {
        /// The file.
        path: PathBuf,
        /// The kind of file expected, e.g. "morris table".
        what: &'static str,
    },
    /// A table of another format version.
    #[error("{}: table format version {found} is not supported (this build reads {})", path.display(), versions(*.oldest, *.supported))]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u32,
        /// The oldest version this build reads.
        oldest: u32,
        /// The newest version this build reads (the one it writes).
        supported: u32,
    },
    /// A table solved under other rules.
    #[error("{}: table was solved under other rules: it says {found:?}, expected {expected:?}{}", path.display(), crate::variant::rules_hint(found, expected))]
    WrongRules {
        /// The file.
        path: PathBuf,
        /// The rules asked for.
        expected: String,
        /// The rules it holds.
        found: String,
    },
    /// A table of another sector.
    #[error("{}: table holds sector {found}, expected sector {expected}", path.display())]
    WrongSector {
        /// The file.
        path: PathBuf,
        /// The sector asked for.
        expected: String,
        /// The sector it holds.
        found: String,
    },
    /// A file longer or shorter than its header says.
    #[error("{}: file is {found} bytes, its header and offset table say {expected} (truncated or trailing bytes)", path.display())]
    Length {
        /// The file.
        path: PathBuf,
        /// Bytes its header and offsets say.
        expected: u64,
        /// Bytes it has.
        found: u64,
    },
    /// Bytes that fail a check.
    #[error("{}: corrupt table: {what}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// An index past the last slot.
    #[error("{}: index {index} is out of range (the table has {slots} slots)", path.display())]
    OutOfRange {
        /// The file.
        path: PathBuf,
        /// The index asked for.
        index: u64,
        /// Slots in the table.
        slots: u64,
    },
    /// Cells and counts that do not make a table.
    #[error("{}: refusing to write table: {what}", path.display())]
    BadInput {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
}

/// The first fields of `Header`, decodable before knowing whether the rest
/// of the header has a layout this build understands.
#[derive(bincode::Encode, bincode::Decode)]
pub(super) struct Preamble {
    magic: [u8; 8],
    format_version: u32,
}

#[derive(bincode::Encode, bincode::Decode)]
pub(super) struct Header {
    pub(super) magic: [u8; 8],
    pub(super) format_version: u32,
    pub(super) rules: String,
    pub(super) sector: String,
    pub(super) index_version: u32,
    pub(super) slots: u64,
    pub(super) counts: Counts,
    pub(super) block_cells: u32,
    /// CRC-32 of the offset table. Fixed-width bytes rather than a varint so
    /// the header keeps its length when it is rewritten after the blocks.
    pub(super) offsets_crc: [u8; 4],
}

impl Header {
    /// The header of a file of `kind` holding what `info` says, in blocks
    /// of `block_cells`; its offset table's CRC still to fill in.
    pub(super) fn new(kind: &Kind, info: &TableInfo, block_cells: u32) -> Header {
        Header {
            magic: kind.magic,
            format_version: kind.version,
            rules: info.rules.clone(),
            sector: info.sector.clone(),
            index_version: info.index_version,
            slots: info.slots,
            counts: info.counts.clone(),
            block_cells,
            offsets_crc: [0; 4],
        }
    }

    /// What the table holds, as its header says.
    pub(super) fn info(&self) -> TableInfo {
        TableInfo {
            rules: self.rules.clone(),
            sector: self.sector.clone(),
            index_version: self.index_version,
            slots: self.slots,
            counts: self.counts.clone(),
        }
    }
}

pub(super) fn encode_header(header: &Header) -> Vec<u8> {
    // Encoding plain integers, strings and arrays into a Vec cannot fail.
    bincode::encode_to_vec(header, HEADER_CONFIG).expect("header encodes")
}

pub(super) fn io_error<'a>(
    path: &'a Path,
    op: &'static str,
) -> impl FnOnce(io::Error) -> TableError + 'a {
    move |source| TableError::Io { path: path.to_owned(), op, source }
}

/// An error of kind [`io::ErrorKind::Interrupted`] naming `tmp` once
/// `cancelled` says to stop: what a cancellable writer checks before
/// each block.
pub(super) fn check_cancelled(
    cancelled: &(dyn Fn() -> bool + Sync),
    tmp: &Path,
) -> Result<(), TableError> {
    if cancelled() {
        let stop = io::Error::new(io::ErrorKind::Interrupted, "interrupted");
        return Err(io_error(tmp, "write the blocks")(stop));
    }
    Ok(())
}

/// One block on disk: the zstd frame of its byte planes, then the frame's CRC.
pub(super) fn block_record(block: &[u16], level: i32) -> io::Result<Vec<u8>> {
    let planes: Vec<u8> =
        block.iter().map(|&c| c as u8).chain(block.iter().map(|&c| (c >> 8) as u8)).collect();
    frame_record(&planes, level)
}

/// A record: the zstd frame of `data` at `level`, then the frame's CRC.
pub(super) fn frame_record(data: &[u8], level: i32) -> io::Result<Vec<u8>> {
    thread_local! {
        // A context per block would be made, zeroed and dropped for
        // every 32 KiB compressed; the frames come out the same either
        // way (zstd's output depends only on the data and the level).
        static CONTEXT: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    let mut record = CONTEXT.with_borrow_mut(|context| {
        let compressor = match context {
            Some(compressor) => compressor,
            None => context.insert(zstd::bulk::Compressor::new(level)?),
        };
        compressor.set_compression_level(level)?;
        compressor.compress(data)
    })?;
    let crc = crc32fast::hash(&record);
    record.extend_from_slice(&crc.to_le_bytes());
    Ok(record)
}

/// The cells of a block from its decompressed byte planes (all low bytes,
/// then all high bytes) into `out` (half as long as `planes`).
pub(super) fn cells_of_planes(planes: &[u8], out: &mut [u16]) {
    let (low, high) = planes.split_at(out.len());
    for (cell, (&lo, &hi)) in out.iter_mut().zip(low.iter().zip(high)) {
        *cell = u16::from_le_bytes([lo, hi]);
    }
}

/// "version 1" or "versions 1 to 2", for the error of a version not read.
fn versions(oldest: u32, newest: u32) -> String {
    if oldest == newest {
        format!("version {newest}")
    } else {
        format!("versions {oldest} to {newest}")
    }
}

/// Decodes and checks the header of a file of `kind`; returns it with its
/// length in bytes.
pub(super) fn parse_header(
    bytes: &[u8],
    path: &Path,
    kind: &Kind,
) -> Result<(Header, usize), TableError> {
    let corrupt = |what: String| TableError::Corrupt { path: path.to_owned(), what };
    if bytes.len() < MAGIC.len() {
        return Err(corrupt(format!("{} bytes are too short for a header", bytes.len())));
    }
    if bytes[..MAGIC.len()] != kind.magic {
        return Err(TableError::BadMagic { path: path.to_owned(), what: kind.what });
    }
    let (preamble, _): (Preamble, usize) = bincode::decode_from_slice(bytes, HEADER_CONFIG)
        .map_err(|e| corrupt(format!("unreadable header: {e}")))?;
    if !(kind.oldest..=kind.version).contains(&preamble.format_version) {
        return Err(TableError::UnsupportedVersion {
            path: path.to_owned(),
            found: preamble.format_version,
            oldest: kind.oldest,
            supported: kind.version,
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

pub(super) fn check_identity(
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
pub(super) fn parse_offsets(
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
pub(super) fn record_ends(table: &[u8]) -> Result<Vec<usize>, String> {
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

/// For the fuzz target of the table format (`crate::fuzzing`): the rules
/// and sector the header of `bytes` names, and the header decoded and
/// encoded again with its length as read, where the header decodes at
/// all (nothing checked: magic, version and checksums may be anything).
pub(crate) fn decode_for_fuzzing(bytes: &[u8]) -> Option<(String, String, Vec<u8>, usize)> {
    let (header, len): (Header, usize) = bincode::decode_from_slice(bytes, HEADER_CONFIG).ok()?;
    Some((header.rules.clone(), header.sector.clone(), encode_header(&header), len))
}

/// For the fuzz target of the table format (`crate::fuzzing`): every
/// checksum of `bytes` made right where the header decodes (the offset
/// table's in the header, the header's after it, each record's where
/// the offsets say it is), so that the fuzzer gets past them to the
/// offsets, the lengths and the blocks.
pub(crate) fn repair_checksums_for_fuzzing(bytes: &mut [u8]) {
    let Ok((header, len)) = bincode::decode_from_slice::<Header, _>(bytes, HEADER_CONFIG) else {
        return;
    };
    let blocks = header.slots.div_ceil(u64::from(header.block_cells.max(1)));
    let start = len + CRC_LEN;
    let table_len = usize::try_from(blocks).ok().and_then(|n| n.checked_mul(OFFSET_LEN));
    let table = table_len.and_then(|n| bytes.get(start..start.checked_add(n)?));
    let (crc, ends) = match table {
        Some(table) => (crc32fast::hash(table).to_le_bytes(), record_ends(table).ok()),
        None => (header.offsets_crc, None),
    };
    // The offset table's CRC is the header's last field, four bytes.
    bytes[len - 4..len].copy_from_slice(&crc);
    let header_crc = crc32fast::hash(&bytes[..len]).to_le_bytes();
    if let Some(at) = bytes.get_mut(len..start) {
        at.copy_from_slice(&header_crc);
    }
    let data_start = start + table_len.unwrap_or(0);
    let mut prev = 0;
    for end in ends.unwrap_or_default() {
        let record =
            data_start.checked_add(end).and_then(|stop| bytes.get_mut(data_start + prev..stop));
        let Some(record) = record else { break };
        let (frame, crc) = record.split_at_mut(record.len() - CRC_LEN);
        crc.copy_from_slice(&crc32fast::hash(frame).to_le_bytes());
        prev = end;
    }
}

/// Which tier of tables a check reads: the full tier (values with their
/// distances), or the win/draw/loss tier (`morris export --wdl`), whose
/// outcomes are read as cells of their kind at its shortest distance (a
/// loss at 0, a win at 1) and compared by kind: a state's recomputed
/// outcome is a win when a successor is lost, else a draw when one is
/// drawn, else a loss, as with distances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Tier {
    /// `<variant>-<sector>.mtb`: value and distance.
    #[default]
    Full,
    /// `<variant>-<sector>.wdl`: the outcome only.
    Wdl,
}

impl Tier {
    /// A recomputed cell as this tier stores it: itself in the full tier,
    /// its outcome's cell in the win/draw/loss tier.
    #[inline(always)]
    pub(crate) fn stored_as(self, cell: u32) -> u32 {
        match self {
            Tier::Full => cell,
            Tier::Wdl if cell == 0 => 0,
            // Odd cells are losses (even depths), even ones wins.
            Tier::Wdl => 2 - (cell & 1),
        }
    }

    /// Whether the header's `counts` are those the check `found`: every
    /// count in the full tier, the states, wins, draws and losses in the
    /// win/draw/loss tier, which keeps the full table's header but not its
    /// distances.
    pub fn counts_agree(self, found: &Counts, header: &Counts) -> bool {
        match self {
            Tier::Full => found == header,
            Tier::Wdl => {
                (found.states, found.wins, found.draws, found.losses)
                    == (header.states, header.wins, header.draws, header.losses)
            }
        }
    }
}
