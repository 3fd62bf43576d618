//! The reader and writer together, and the reader against damaged files.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use super::format::*;
use super::reader::*;
use super::*;
use crate::stats::{Counts, Distances};
use crate::testing::synthetic_cells;

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
fn cache_evicts_least_recently_used() {
    let mut cache = BlockCache::<u16>::default();
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
fn cache_keeps_as_many_blocks_as_told() {
    let mut cache = BlockCache::<u16>::default();
    cache.set_capacity(64);
    for block in 0..64 {
        cache.insert(block, Arc::from(vec![block as u16]));
    }
    assert_eq!(cache.recent.len(), 64);
    assert!(cache.get(0).is_some() && cache.get(1).is_some());
    // Shrinking drops the least recent now: 2..=61 go, 62, 63, 0, 1 stay.
    cache.set_capacity(4);
    assert_eq!(cache.recent.len(), 4);
    assert!(cache.get(2).is_none() && cache.get(62).is_some() && cache.get(0).is_some());
    cache.set_capacity(0); // at least one
    cache.insert(7, Arc::from(vec![7]));
    assert_eq!(cache.recent.len(), 1);
    assert!(cache.get(7).is_some());
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
    let (_, header_len) = parse_header(&bytes, &path, &super::format::FULL).unwrap();
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

fn synthetic_table(path: &Path, cells: &[u16], block_cells: u32) -> TableInfo {
    let info = TableInfo {
        rules: "r".into(),
        sector: "s".into(),
        index_version: 0,
        slots: cells.len() as u64,
        counts: Counts::tally(cells, cells.len() as u64),
    };
    let options = WriteOptions { block_cells, ..WriteOptions::default() };
    write_table_with(path, &info, cells, &options).unwrap();
    info
}

#[test]
fn rewrite_in_place_keeps_every_cell_in_the_new_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let cells = synthetic_cells(10_007, 5);
    let info = synthetic_table(&path, &cells, 1000);
    let source = Table::open(&path, "r", "s").unwrap();
    let options = WriteOptions { block_cells: 4096, zstd_level: 19 };
    rewrite_table(&path, &source, &options, &|| false).unwrap();
    // The old file, still mapped, is untouched; the new one has it all.
    assert_eq!(source.read_all().unwrap(), cells);
    let new = Table::open(&path, "r", "s").unwrap();
    assert_eq!((new.info(), new.block_cells()), (&info, 4096));
    assert_eq!(new.read_all().unwrap(), cells);
    new.verify().unwrap();
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file");
}

#[test]
fn a_cancelled_rewrite_keeps_the_old_table_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let cells = synthetic_cells(5000, 3);
    synthetic_table(&path, &cells, 1000);
    let before = fs::read(&path).unwrap();
    let source = Table::open(&path, "r", "s").unwrap();
    let options = WriteOptions { block_cells: 2000, zstd_level: 3 };
    let err = rewrite_table(&path, &source, &options, &|| true).unwrap_err();
    assert!(
        matches!(&err, TableError::Io { source, .. } if source.kind() == std::io::ErrorKind::Interrupted),
        "{err}"
    );
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file");
}

#[test]
fn the_check_of_a_rewrite_refuses_a_copy_with_other_cells_or_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let (path, copy) = (dir.path().join("t"), dir.path().join("copy"));
    let cells = synthetic_cells(5000, 3);
    synthetic_table(&path, &cells, 1000);
    let source = Table::open(&path, "r", "s").unwrap();
    let options = WriteOptions { block_cells: 2000, zstd_level: 3 };
    // Two different cells swapped: the same counts, not the same table.
    let mut other = cells.clone();
    let j = (1..other.len()).find(|&j| other[j] != other[0]).unwrap();
    other.swap(0, j);
    synthetic_table(&copy, &other, 2000);
    let err = writer::check_copy(&copy, &source, &options).unwrap_err().to_string();
    assert!(err.contains("slot 0: cell"), "{err}");
    // The same cells in blocks of another size than asked for.
    synthetic_table(&copy, &cells, 1000);
    writer::check_copy(&copy, &source, &WriteOptions { block_cells: 1000, ..options.clone() })
        .unwrap();
    let err = writer::check_copy(&copy, &source, &options).unwrap_err().to_string();
    assert!(err.contains("1000 cells a block, not 2000"), "{err}");
}

/// Letting go of a table's mapped pages loses nothing: every cell reads
/// the same after it, from the page cache or the file.
#[test]
fn a_table_reads_the_same_after_its_pages_are_released() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let cells = synthetic_cells(50_000, 7);
    synthetic_table(&path, &cells, 1000);
    let table = Table::open(&path, "r", "s").unwrap();
    assert_eq!(table.read_all().unwrap(), cells);
    table.release_pages();
    assert_eq!(table.read_all().unwrap(), cells);
    table.verify().unwrap();
    table.release_pages();
    assert_eq!(table.get(49_999).unwrap(), cells[49_999]);
}
