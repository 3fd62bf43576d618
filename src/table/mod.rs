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
//! Measured on `testing::synthetic_cells` (about 2.7 bits/slot at the
//! settings chosen): splitting each block into a low-byte and a high-byte plane saves
//! about 0.6 bits/slot over interleaved `u16`s, because the high plane is
//! almost all zero and compresses to nearly nothing while the low plane gets
//! byte-sized symbols. Remapping values by frequency rank gained nothing
//! (zstd's entropy coder does not care which byte values are common), so the
//! format does not do it. 16 Ki cells per block at zstd level 1 stays well
//! under 3 bits/slot while one block decompresses in about 20 µs; 64 Ki cells
//! would save only 0.07 bits/slot for a probe four times as slow.
//!
//! # Code map
//!
//! - `format`: the constants, header, offset table and block encoding.
//! - `reader`: [`Table`], opened from a file or bytes.
//! - `writer`: [`write_table`], replacing the file atomically, and
//!   [`rewrite_table`], a table again in other blocks, checked before it
//!   replaces the old file (`morris compact`).
//! - [`derived`]: the stub left where a derived sector's table was
//!   ([`DerivedStub`], [`write_derived_stub`]): its header, no cells.
//! - [`progress`]: the progress tier of an app set, in files of the same
//!   layout whose cells are won states' progress depths:
//!   [`ProgressTable`], [`write_progress`].
//! - [`wdl`]: the win/draw/loss tier, in files of the same layout whose
//!   blocks hold 2-bit outcomes, four or one a byte: [`WdlTable`],
//!   [`write_wdl`].
//!
//! The counts in the header are [`crate::stats::Counts`].

pub mod derived;
mod format;
pub mod progress;
mod reader;
pub mod wdl;
mod writer;

#[cfg(test)]
mod tests;

pub use derived::{write_derived_stub, DerivedStub};
pub(crate) use format::{decode_for_fuzzing, repair_checksums_for_fuzzing};
pub use format::{TableError, TableInfo, Tier, BLOCK_CELLS, FORMAT_VERSION, ZSTD_LEVEL};
pub use progress::{write_progress, ProgressTable};
pub use reader::{cell_in_planes, Table, CACHED_BLOCKS};
pub use wdl::{upgrade_wdl, write_wdl, Compression, WdlTable};
pub use writer::{max_table_bytes, rewrite_table, write_table, write_table_with, WriteOptions};
