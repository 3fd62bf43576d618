//! The on-disk table format: round trips, refusal of foreign tables, and
//! detection of every kind of damage.

use std::fs;
use std::path::{Path, PathBuf};

use morris::stats::Counts;
use morris::table::{
    write_table, write_table_with, Table, TableError, TableInfo, WriteOptions, BLOCK_CELLS,
    FORMAT_VERSION,
};
use morris::testing::synthetic_cells;
use proptest::prelude::*;

const RULES: &str = "nine men's morris; fly at 3; test";
const SECTOR: &str = "9-8";

/// Info for `cells`, treating a few zero cells as filler so that draws and
/// states differ.
fn info_for(cells: &[u16]) -> TableInfo {
    let zeros = cells.iter().filter(|&&c| c == 0).count() as u64;
    let states = cells.len() as u64 - zeros / 3;
    TableInfo {
        rules: RULES.into(),
        sector: SECTOR.into(),
        index_version: 3,
        slots: cells.len() as u64,
        counts: Counts::tally(cells, states),
    }
}

fn write(dir: &Path, name: &str, cells: &[u16], options: &WriteOptions) -> (PathBuf, TableInfo) {
    let path = dir.join(name);
    let info = info_for(cells);
    write_table_with(&path, &info, cells, options).unwrap();
    (path, info)
}

fn small_blocks(block_cells: u32) -> WriteOptions {
    WriteOptions { block_cells, ..WriteOptions::default() }
}

fn assert_round_trip(table: &Table<impl AsRef<[u8]>>, cells: &[u16]) {
    assert_eq!(table.info().slots, cells.len() as u64);
    for (i, &cell) in cells.iter().enumerate() {
        assert_eq!(table.get(i as u64).unwrap(), cell, "cell {i}");
    }
    assert_eq!(table.read_all().unwrap(), cells);
    table.verify().unwrap();
}

#[test]
fn round_trip_at_block_boundaries() {
    let dir = tempfile::tempdir().unwrap();
    let b = BLOCK_CELLS as usize;
    for (k, slots) in [0, 1, b - 1, b, b + 1, 3 * b + 17].into_iter().enumerate() {
        let cells = synthetic_cells(slots, k as u64);
        let (path, info) = write(dir.path(), &format!("t{k}"), &cells, &WriteOptions::default());
        let table = Table::open(&path, RULES, SECTOR).unwrap();
        assert_eq!(table.info(), &info);
        assert_round_trip(&table, &cells);
        assert_eq!(table.bytes_on_disk(), fs::metadata(&path).unwrap().len());
    }
}

#[test]
fn round_trip_of_extreme_values() {
    let dir = tempfile::tempdir().unwrap();
    let cells: Vec<u16> = (0..=u16::MAX).rev().chain([0, 1, 2, u16::MAX]).collect();
    let (path, _) = write(dir.path(), "extreme", &cells, &small_blocks(1000));
    assert_round_trip(&Table::open(&path, RULES, SECTOR).unwrap(), &cells);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn round_trip_of_any_cells(
        cells in proptest::collection::vec(prop_oneof![0u16..8, any::<u16>()], 0..600),
        block_cells in 1u32..100,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = write(dir.path(), "p", &cells, &small_blocks(block_cells));
        assert_round_trip(&Table::open(&path, RULES, SECTOR).unwrap(), &cells);
    }
}

#[test]
fn out_of_range_index_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write(dir.path(), "t", &[1, 2, 0], &WriteOptions::default());
    let table = Table::open(&path, RULES, SECTOR).unwrap();
    assert!(matches!(table.get(3), Err(TableError::OutOfRange { index: 3, slots: 3, .. })));
}

#[test]
fn table_is_shared_across_threads() {
    fn sync_and_send<T: Sync + Send>() {}
    sync_and_send::<Table<memmap2::Mmap>>();
    sync_and_send::<Table<Vec<u8>>>();

    let dir = tempfile::tempdir().unwrap();
    let cells = synthetic_cells(20_000, 9);
    let (path, _) = write(dir.path(), "t", &cells, &small_blocks(256));
    let table = Table::open(&path, RULES, SECTOR).unwrap();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (table, cells) = (&table, &cells);
            s.spawn(move || {
                for i in (t..cells.len()).step_by(7) {
                    assert_eq!(table.get(i as u64).unwrap(), cells[i]);
                }
            });
        }
    });
}

// ------------------------------------------------------------ refusals

#[test]
fn other_sector_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write(dir.path(), "9-7.tbl", &[2, 0, 1], &WriteOptions::default());
    let err = Table::open(&path, RULES, "9-7").err().expect("sector 9-8 opened as 9-7");
    assert!(
        matches!(&err, TableError::WrongSector { found, expected, .. } if found == SECTOR && expected == "9-7")
    );
    assert!(err.to_string().contains(&path.display().to_string()), "{err}");
}

#[test]
fn other_rules_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write(dir.path(), "9-8.tbl", &[2, 0, 1], &WriteOptions::default());
    let err = Table::open(&path, "lasker morris", SECTOR).err().expect("other rules accepted");
    assert!(matches!(err, TableError::WrongRules { .. }));
    assert!(err.to_string().contains(&path.display().to_string()), "{err}");
}

#[test]
fn wrong_magic_and_version_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write(dir.path(), "t", &[2, 0, 1], &WriteOptions::default());
    let bytes = fs::read(&path).unwrap();

    let mut bad = bytes.clone();
    bad[0] ^= 0x20;
    let err = Table::from_bytes(bad, &path, RULES, SECTOR).err().unwrap();
    assert!(matches!(err, TableError::BadMagic { .. }), "{err}");

    // The version follows the 8 magic bytes as a one-byte varint.
    assert_eq!(bytes[8] as u32, FORMAT_VERSION);
    let mut bad = bytes.clone();
    bad[8] = FORMAT_VERSION as u8 + 1;
    let err = Table::from_bytes(bad, &path, RULES, SECTOR).err().unwrap();
    assert!(
        matches!(err, TableError::UnsupportedVersion { found, .. } if found == FORMAT_VERSION + 1),
        "{err}"
    );
}

#[test]
fn inconsistent_input_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let cells = [2, 0, 1];
    let mut info = info_for(&cells);
    info.counts.wins += 1;
    assert!(matches!(write_table(&path, &info, &cells), Err(TableError::BadInput { .. })));
    let mut info = info_for(&cells);
    info.slots = 4;
    assert!(matches!(write_table(&path, &info, &cells), Err(TableError::BadInput { .. })));
    assert!(fs::read_dir(dir.path()).unwrap().next().is_none(), "something was written");
}

// ------------------------------------------------------------ atomic writes

fn dir_entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

#[test]
fn write_leaves_no_tmp_and_replaces_whole_tables() {
    let dir = tempfile::tempdir().unwrap();
    let old = synthetic_cells(5000, 1);
    let (path, _) = write(dir.path(), "9-8.tbl", &old, &small_blocks(512));
    assert_eq!(dir_entries(dir.path()), ["9-8.tbl"]);

    // A refused write leaves the old table as it was.
    let mut info = info_for(&old);
    info.slots += 1;
    assert!(write_table(&path, &info, &old).is_err());
    assert_eq!(dir_entries(dir.path()), ["9-8.tbl"]);
    assert_eq!(Table::open(&path, RULES, SECTOR).unwrap().read_all().unwrap(), old);

    // A mapped old table stays readable while a new one replaces it.
    let mapped = Table::open(&path, RULES, SECTOR).unwrap();
    let new = synthetic_cells(7000, 2);
    write(dir.path(), "9-8.tbl", &new, &small_blocks(512));
    assert_eq!(dir_entries(dir.path()), ["9-8.tbl"]);
    assert_eq!(mapped.read_all().unwrap(), old);
    assert_eq!(Table::open(&path, RULES, SECTOR).unwrap().read_all().unwrap(), new);
}

#[test]
fn write_into_missing_directory_fails_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such-dir").join("t");
    let err = write_table(&path, &info_for(&[1]), &[1]).err().unwrap();
    assert!(err.to_string().contains("no-such-dir"), "{err}");
}

// ------------------------------------------------------------ damage

/// Checks that a damaged file is refused on opening or, if it opens, that
/// every read of a damaged part fails while undamaged blocks read correctly.
fn assert_damage_detected(bytes: Vec<u8>, path: &Path, cells: &[u16], block: usize, what: &str) {
    let names_path = |e: &TableError| {
        assert!(e.to_string().contains(&path.display().to_string()), "{what}: {e}")
    };
    let table = match Table::from_bytes(bytes, path, RULES, SECTOR) {
        Err(e) => return names_path(&e),
        Ok(table) => table,
    };
    let mut failed_gets = 0;
    for start in (0..cells.len()).step_by(block) {
        for i in [start, (start + block).min(cells.len()) - 1] {
            match table.get(i as u64) {
                Ok(v) => assert_eq!(v, cells[i], "{what}: wrong value at {i}"),
                Err(e) => {
                    names_path(&e);
                    failed_gets += 1;
                }
            }
        }
    }
    let verify = table.verify().err().unwrap_or_else(|| panic!("{what}: verify accepted it"));
    names_path(&verify);
    let read_all = table.read_all().err().unwrap_or_else(|| panic!("{what}: read_all accepted it"));
    names_path(&read_all);
    assert!(failed_gets > 0, "{what}: every probed cell read fine");
}

const SMALL_BLOCK: u32 = 64;

/// A small table of several blocks, with a partial last block.
fn small_table(dir: &Path) -> (PathBuf, Vec<u16>, Vec<u8>) {
    let cells = synthetic_cells(5 * SMALL_BLOCK as usize - 9, 77);
    let (path, _) = write(dir, "9-8.tbl", &cells, &small_blocks(SMALL_BLOCK));
    let bytes = fs::read(&path).unwrap();
    (path, cells, bytes)
}

#[test]
fn every_flipped_byte_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let (path, cells, bytes) = small_table(dir.path());
    for pos in 0..bytes.len() {
        for mask in [0x01, 0x80, 0xff] {
            let mut bad = bytes.clone();
            bad[pos] ^= mask;
            assert_damage_detected(
                bad,
                &path,
                &cells,
                SMALL_BLOCK as usize,
                &format!("byte {pos} ^ {mask:#x}"),
            );
        }
    }
}

#[test]
fn every_flipped_byte_is_detected_at_full_block_size() {
    let dir = tempfile::tempdir().unwrap();
    let cells = synthetic_cells(BLOCK_CELLS as usize + 1000, 5);
    let (path, _) = write(dir.path(), "9-8.tbl", &cells, &WriteOptions::default());
    let bytes = fs::read(&path).unwrap();
    for pos in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[pos] ^= 0x01 << (pos % 8);
        assert_damage_detected(bad, &path, &cells, BLOCK_CELLS as usize, &format!("byte {pos}"));
    }
}

#[test]
fn truncation_at_every_length_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let (path, cells, bytes) = small_table(dir.path());
    for len in 0..bytes.len() {
        let what = format!("truncated to {len}");
        assert_damage_detected(bytes[..len].to_vec(), &path, &cells, SMALL_BLOCK as usize, &what);
    }
}

#[test]
fn truncated_file_on_disk_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, bytes) = small_table(dir.path());
    for len in [0, 5, bytes.len() / 2, bytes.len() - 1] {
        fs::write(&path, &bytes[..len]).unwrap();
        let err = Table::open(&path, RULES, SECTOR).err().unwrap();
        assert!(err.to_string().contains(&path.display().to_string()), "{err}");
    }
}

#[test]
fn trailing_garbage_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, bytes) = small_table(dir.path());
    let tails: Vec<Vec<u8>> = (1..=16)
        .flat_map(|n| [vec![0u8; n], vec![0xff; n]])
        .chain([bytes.clone(), bytes[bytes.len() - 4..].to_vec()])
        .collect();
    for tail in tails {
        let mut bad = bytes.clone();
        bad.extend_from_slice(&tail);
        let err =
            Table::from_bytes(bad, &path, RULES, SECTOR).err().expect("trailing bytes accepted");
        assert!(matches!(err, TableError::Length { .. }), "{err}");
    }
}

// ------------------------------------------------------------ size

/// The format stays under 3 bits per slot on the synthetic model (see
/// `synthetic_cells`), seeded, 2^22 slots.
#[test]
fn synthetic_table_takes_under_3_bits_per_slot() {
    let dir = tempfile::tempdir().unwrap();
    let cells = synthetic_cells(1 << 22, 2024);
    let (path, _) = write(dir.path(), "9-8.tbl", &cells, &WriteOptions::default());
    let table = Table::open(&path, RULES, SECTOR).unwrap();
    let bits = table.bytes_on_disk() as f64 * 8.0 / cells.len() as f64;
    println!(
        "table format: {bits:.3} bits/slot on {} synthetic slots ({} bytes)",
        cells.len(),
        table.bytes_on_disk()
    );
    assert!(bits < 3.0, "{bits:.3} bits/slot");
    table.verify().unwrap();
}
