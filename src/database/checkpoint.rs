//! Checkpoints inside a pair: `<variant>-<sector>.ckpt`, named after the
//! pair's first sector, one file for both sides, holding the working cells
//! at a level boundary of `propagate` together with the chunks' marks and
//! maxima and the depth to go on from. One file, not one per side, so a
//! single rename replaces the whole checkpoint: a kill can never leave
//! the two sides at different depths.
//!
//! Layout: `MORRISCK`, a little-endian `u32` header length, the bincode
//! header, then per side the cells (native `u16`s; the header records the
//! byte order), the marks (`u64`s) and the maxima (`u16`s). The header's
//! CRC-32 covers the body. The file is replaced atomically (its space
//! allocated first; see `crate::atomic_file`), so a kill leaves the
//! previous checkpoint or the new one, never half of one.

use super::space::allocate;
use crate::solve::ChunkMarks;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"MORRISCK";
const VERSION: u32 = 1;
/// Written natively: read back as 0x0102 only on a machine of the same
/// byte order.
const BYTE_ORDER: u16 = 0x0102;
const MAX_HEADER: u32 = 1 << 16;

/// What a checkpoint is of; all of it must match for the file to be used.
#[derive(Clone, Debug, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct Header {
    /// Version of the checkpoint layout.
    pub version: u32,
    /// A fixed number, as written by the machine: its byte order.
    pub byte_order: u16,
    /// The rules the pair is solved under.
    pub rules: String,
    /// The pair's sectors, and per sector its slots and chunks.
    pub sectors: Vec<String>,
    /// Version of the index scheme.
    pub index_version: u32,
    /// Slots per sector.
    pub slots: Vec<u64>,
    /// Chunks per sector.
    pub chunks: Vec<u64>,
    /// The levels before this depth are done.
    pub depth: u16,
    /// CRC-32 of the body.
    pub crc: u32,
}

impl Header {
    /// The header of a checkpoint at `depth` (its CRC still to be filled in).
    pub fn new(
        rules: String,
        sectors: Vec<String>,
        index_version: u32,
        slots: Vec<u64>,
        chunks: Vec<u64>,
        depth: u16,
    ) -> Header {
        Header {
            version: VERSION,
            byte_order: BYTE_ORDER,
            rules,
            sectors,
            index_version,
            slots,
            chunks,
            depth,
            crc: 0,
        }
    }

    /// Why a checkpoint with this header cannot be used where `expected`
    /// is wanted (whose depth and crc do not matter), if it cannot.
    pub fn mismatch(&self, expected: &Header) -> Option<String> {
        if self.version != VERSION || self.byte_order != BYTE_ORDER {
            return Some("written by another version of morris or machine".to_string());
        }
        if self.rules != expected.rules {
            return Some(format!(
                "solved under other rules ({}, not {}){}",
                self.rules,
                expected.rules,
                crate::variant::rules_hint(&self.rules, &expected.rules)
            ));
        }
        if self.sectors != expected.sectors
            || self.slots != expected.slots
            || self.chunks != expected.chunks
        {
            return Some(format!(
                "of sectors {:?} with {:?} slots, not {:?} with {:?}",
                self.sectors, self.slots, expected.sectors, expected.slots
            ));
        }
        if self.index_version != expected.index_version {
            return Some(format!(
                "of index version {}, not {}",
                self.index_version, expected.index_version
            ));
        }
        None
    }
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<{ MAX_HEADER as usize }>()
}

/// The magic bytes and the header length before the header.
const PREFIX_BYTES: u64 = 8 + 4;

/// The size of a checkpoint file of sides of `slots` cells each, header
/// included (an upper bound on it).
pub fn file_bytes(slots: &[u64], chunks: &[u64]) -> u64 {
    PREFIX_BYTES
        + MAX_HEADER as u64 / 64
        + body_bytes(slots.iter().zip(chunks).map(|(&s, &c)| (2 * s, c)))
}

/// The bytes of the body of sides of (cell bytes, chunks): per chunk a
/// `u64` mark and a `u16` maximum.
fn body_bytes(sides: impl Iterator<Item = (u64, u64)>) -> u64 {
    sides.map(|(cell_bytes, chunks)| cell_bytes + 10 * chunks).sum()
}

fn as_bytes<T: Copy>(values: &[T]) -> &[u8] {
    // Safety: u16 and u64 have no padding; any initialised value is bytes.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr() as *const u8, std::mem::size_of_val(values))
    }
}

fn as_bytes_mut<T: Copy>(values: &mut [T]) -> &mut [u8] {
    // Safety: as in `as_bytes`; every bit pattern is a valid u16 or u64.
    unsafe {
        std::slice::from_raw_parts_mut(
            values.as_mut_ptr() as *mut u8,
            std::mem::size_of_val(values),
        )
    }
}

fn body_crc(cells: &[&[u8]], marks: &[ChunkMarks]) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    for (cells, marks) in cells.iter().zip(marks) {
        crc.update(cells);
        crc.update(as_bytes(&marks.marks));
        crc.update(as_bytes(&marks.deepest));
    }
    crc.finalize()
}

/// Writes a checkpoint of the sides' `cells` and `marks` into `file`, a
/// new empty file, allocating its space first; the caller syncs it and
/// renames it into place.
pub fn write(
    file: &File,
    mut header: Header,
    cells: &[&[u8]],
    marks: &[ChunkMarks],
) -> io::Result<()> {
    header.crc = body_crc(cells, marks);
    let encoded = encode_header(&header)?;
    let body =
        body_bytes(cells.iter().zip(marks).map(|(c, m)| (c.len() as u64, m.marks.len() as u64)));
    allocate(file, PREFIX_BYTES + encoded.len() as u64 + body)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.write_all(MAGIC)?;
    out.write_all(&(encoded.len() as u32).to_le_bytes())?;
    out.write_all(&encoded)?;
    for (cells, marks) in cells.iter().zip(marks) {
        out.write_all(cells)?;
        out.write_all(as_bytes(&marks.marks))?;
        out.write_all(as_bytes(&marks.deepest))?;
    }
    out.flush()
}

/// The header of a checkpoint file, and the reader positioned at its body.
pub fn read_header(path: &Path) -> io::Result<(Header, BufReader<File>)> {
    read_header_from(BufReader::with_capacity(1 << 20, File::open(path)?))
}

/// The header of the checkpoint `input` reads, and `input` positioned at
/// its body: [`read_header`] of bytes from anywhere (the fuzz target,
/// `crate::fuzzing`, hands it bytes in memory).
pub fn read_header_from<R: Read>(mut input: R) -> io::Result<(Header, R)> {
    let mut magic = [0u8; 8];
    let mut len = [0u8; 4];
    input.read_exact(&mut magic)?;
    input.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len);
    if &magic != MAGIC || len > MAX_HEADER {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "not a checkpoint file"));
    }
    let mut encoded = vec![0; len as usize];
    input.read_exact(&mut encoded)?;
    let (header, _) = bincode::decode_from_slice(&encoded, config())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("bad header: {e}")))?;
    Ok((header, input))
}

/// The bytes of `header` as a checkpoint file holds them after its magic
/// and length (what [`read_header_from`] decodes).
pub fn encode_header(header: &Header) -> io::Result<Vec<u8>> {
    bincode::encode_to_vec(header, config()).map_err(io::Error::other)
}

/// Reads the body of a checkpoint whose header is `header` into `cells`
/// (one per side, each `2 * slots` bytes) and returns the sides' marks; a
/// wrong CRC or a short file is an error.
pub fn read_body(
    header: &Header,
    mut input: impl Read,
    cells: &mut [&mut [u8]],
) -> io::Result<Vec<ChunkMarks>> {
    let mut sides = Vec::new();
    for (cells, &chunks) in cells.iter_mut().zip(&header.chunks) {
        let mut marks =
            ChunkMarks { marks: vec![0; chunks as usize], deepest: vec![0; chunks as usize] };
        input.read_exact(cells)?;
        input.read_exact(as_bytes_mut(&mut marks.marks))?;
        input.read_exact(as_bytes_mut(&mut marks.deepest))?;
        sides.push(marks);
    }
    let views: Vec<&[u8]> = cells.iter().map(|c| &**c).collect();
    if body_crc(&views, &sides) != header.crc {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "checksum mismatch"));
    }
    Ok(sides)
}
