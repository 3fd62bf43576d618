//! A derived sector's stub: the header of a table without its cells.
//!
//! A sector whose every successor sector holds a table gives back each of
//! its values by one ply of search over them (the best move's value, one
//! ply longer), so a database may leave its cells out (`morris compact
//! --derive`, `morris export --wdl --derive`; see
//! `crate::database::derived`). What stays is this file,
//! `<variant>-<sector>.derived`: the header a table of the sector would
//! have (magic `MORRISDV`, its own version, the rules, sector, index
//! version, slots and the counts of the table it replaces, 0 cells per
//! block, an offset table's CRC of nothing) and the CRC-32 of the header,
//! nothing after. The counts let `stats` report the sector and `verify`
//! check the values given back.

use std::path::Path;

use super::format::{
    check_identity, encode_header, parse_header, Header, Kind, TableError, TableInfo, CRC_LEN,
};
use super::reader::map_file;
use crate::atomic_file::write_atomically;

/// Version of the stub layout this build writes and reads.
pub const VERSION: u32 = 1;

const DERIVED: Kind = Kind {
    magic: *b"MORRISDV",
    version: VERSION,
    oldest: VERSION,
    what: "morris derived-sector stub",
};

/// A derived sector's stub, read and checked: what the table it stands
/// for held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DerivedStub {
    info: TableInfo,
    bytes: u64,
}

impl DerivedStub {
    /// Reads the stub at `path`, refusing it unless it is a stub of
    /// sector `expect_sector` under `expect_rules`, whole and unchanged.
    pub fn open(path: &Path, expect_rules: &str, expect_sector: &str) -> Result<Self, TableError> {
        let bytes = map_file(path)?;
        let (header, len) = parse_header(&bytes, path, &DERIVED)?;
        check_identity(&header, expect_rules, expect_sector, path)?;
        let corrupt = |what: String| TableError::Corrupt { path: path.to_owned(), what };
        if header.block_cells != 0 || header.offsets_crc != crc32fast::hash(&[]).to_le_bytes() {
            return Err(corrupt("a derived-sector stub with blocks".into()));
        }
        if bytes.len() != len + CRC_LEN {
            return Err(TableError::Length {
                path: path.to_owned(),
                expected: (len + CRC_LEN) as u64,
                found: bytes.len() as u64,
            });
        }
        Ok(DerivedStub { info: header.info(), bytes: bytes.len() as u64 })
    }

    /// Rules, sector, index version, slots and counts of the table the
    /// stub stands for.
    pub fn info(&self) -> &TableInfo {
        &self.info
    }

    /// Size of the file in bytes.
    pub fn bytes_on_disk(&self) -> u64 {
        self.bytes
    }
}

/// Writes the stub of a sector whose table held what `info` says, to
/// `path`, atomically (a temporary file renamed into place).
pub fn write_derived_stub(path: &Path, info: &TableInfo) -> Result<(), TableError> {
    let mut header = Header::new(&DERIVED, info, 0);
    header.offsets_crc = crc32fast::hash(&[]).to_le_bytes();
    let mut bytes = encode_header(&header);
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    write_atomically(
        path,
        |file, tmp| {
            use std::io::Write;
            file.write_all(&bytes).map_err(super::format::io_error(tmp, "write the stub"))
        },
        |path, op, source| TableError::Io { path: path.to_owned(), op, source },
    )
}
