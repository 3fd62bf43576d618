//! `Database::compact_table` (what `morris compact` does to each table)
//! against the tables it rewrites: every cell of six's whole game and of
//! nine up to 8 stones (both phases) decodes the same after compaction,
//! in the new blocks; the compacted database verifies; a second pass
//! skips every table. The command itself is in `cli_compact.rs`.

mod common;

use common::scratch;
use morris::database::Database;
use morris::index::Sector;
use morris::table::{Table, WriteOptions, BLOCK_CELLS};
use morris::verify::check_sector;

const COMPACT: WriteOptions = WriteOptions { block_cells: 64 * 1024, zstd_level: 19 };

/// Compacts every table of `sectors` and checks each against its cells
/// before; then a second pass, which must skip them all.
fn compact_and_compare(db: &Database, sectors: &[Sector]) {
    let before: Vec<Vec<u16>> = sectors.iter().map(|&s| db.load_cells(s).unwrap()).collect();
    let infos: Vec<_> = sectors.iter().map(|&s| db.table(s).unwrap().info().clone()).collect();
    for &sector in sectors {
        assert_eq!(db.table(sector).unwrap().block_cells(), u64::from(BLOCK_CELLS), "{sector}");
    }
    let (mut was, mut now) = (0, 0);
    for (i, &sector) in sectors.iter().enumerate() {
        let done = db.compact_table(sector, &COMPACT, &|| false).unwrap();
        assert!(done.written, "{sector}");
        (was, now) = (was + done.before, now + done.after);
        // Through the database, whose kept table must be the new one, and
        // through a table opened afresh.
        let kept = db.table(sector).unwrap();
        assert_eq!(kept.block_cells(), u64::from(COMPACT.block_cells), "{sector}");
        assert_eq!(kept.info(), &infos[i], "{sector}");
        assert_eq!(kept.bytes_on_disk(), done.after, "{sector}");
        let path = db.table_path(sector);
        let fresh = Table::open(&path, &db.variant().rules_key(), &sector.to_string()).unwrap();
        let cells = fresh.read_all().unwrap();
        assert!(cells == before[i], "{sector}: a cell differs after compaction");
        assert_eq!(db.load_cells(sector).unwrap(), before[i], "{sector}");
        fresh.verify().unwrap();
    }
    assert!(now < was, "compaction made {was} bytes into {now}");
    // Nothing left but the tables (no temporary file).
    let names: Vec<String> = common::files(db.dir())
        .into_keys()
        .filter(|n| n != "leaves" && !n.starts_with('.'))
        .collect();
    assert!(names.iter().all(|n| n.ends_with(".mtb")), "{names:?}");
    // Every value still agrees with its successors.
    for &sector in sectors {
        let check = check_sector(db, sector).unwrap();
        assert_eq!(check.mismatches, 0, "{sector}: {:?}", check.examples);
        assert!(check.counts_agree, "{sector}");
    }
    // A second pass leaves every table alone, byte for byte.
    let files = common::files(db.dir());
    for &sector in sectors {
        let again = db.compact_table(sector, &COMPACT, &|| false).unwrap();
        assert!(!again.written && again.before == again.after, "{sector}: {again:?}");
    }
    assert!(common::files(db.dir()) == files, "nothing rewritten");
}

#[test]
fn every_cell_of_six_whole_survives_compaction() {
    let dir = scratch();
    let (db, sectors) = common::solved_both_phases(&dir.path().join("db"), "six", 12);
    compact_and_compare(&db, &sectors);
}

#[test]
fn every_cell_of_nine_up_to_8_stones_both_phases_survives_compaction() {
    let dir = scratch();
    let (db, sectors) = common::solved_both_phases(&dir.path().join("db"), "nine", 8);
    compact_and_compare(&db, &sectors);
}
