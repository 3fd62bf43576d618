//! The placement search's leaf caches (`<db>/leaves/*.wdl2`,
//! `morris::database::leaf_cache`) over a real database, six's moving
//! phase: made on first use, opened after, shared within a process,
//! made again when their table changes or a block is damaged, and a copy
//! in memory where none can be written; the search's answer is the same
//! each time. The binary's side is `cli_leaf_cache.rs`; the format's unit
//! tests are in the module.

use morris::database::{Database, LeafOrigin};
use morris::driver::Quiet;
use morris::search::{Outcome, Search};
use morris::{Position, Sector, Variant};
use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

fn six_moving(dir: &Path) -> Database {
    let db = Database::new(dir, Variant::named("six").unwrap());
    db.solve_moving(12, 2, &Quiet).unwrap();
    db
}

fn reopen(dir: &Path) -> Database {
    Database::new(dir, Variant::named("six").unwrap())
}

fn start_outcome(db: &Database) -> Outcome {
    Search::new(db).outcome(&Position::start(db.variant()).state()).unwrap()
}

/// Flips a byte of the scores (past the header, the block checksums and
/// the padding to 4 KiB) of the cache at `path`.
fn damage_data(path: &Path) {
    let mut bytes = fs::read(path).unwrap();
    assert!(bytes.len() > 4096 + 100, "{} has scores past 4 KiB", path.display());
    bytes[4096 + 100] ^= 0x55;
    fs::write(path, bytes).unwrap();
}

#[test]
fn caches_are_made_once_then_opened_and_shared() {
    let dir = tempfile::tempdir().unwrap();
    let db = six_moving(dir.path());
    let sector = Sector::moving(5, 4);
    let (first, origin) = db.leaf_scores(sector).unwrap();
    assert_eq!(origin, LeafOrigin::Built);
    assert!(db.leaf_cache_path(sector).exists());
    let (again, origin) = db.leaf_scores(sector).unwrap();
    assert_eq!(origin, LeafOrigin::Shared);
    assert!(std::sync::Arc::ptr_eq(&first, &again));
    let other = reopen(dir.path());
    let (opened, origin) = other.leaf_scores(sector).unwrap();
    assert_eq!(origin, LeafOrigin::Opened);
    opened.check_all().unwrap();
    let slots = db.indexer().sector(sector).slots();
    for slot in (0..slots).step_by(97) {
        assert_eq!(opened.score(slot).unwrap(), first.score(slot).unwrap(), "slot {slot}");
    }
    // The whole start by search, then again from the caches alone.
    assert_eq!(start_outcome(&db), Outcome::Draw);
    let mut search = Search::new(&other);
    assert_eq!(search.outcome(&Position::start(other.variant()).state()).unwrap(), Outcome::Draw);
    let stats = search.stats();
    assert!(stats.sectors_loaded > 1, "{stats:?}");
    assert_eq!((stats.leaf_caches_built, stats.leaf_copies), (0, 0), "the first search made them");
}

#[test]
fn a_rewritten_table_makes_its_cache_stale() {
    let dir = tempfile::tempdir().unwrap();
    let db = six_moving(dir.path());
    let sector = Sector::moving(4, 4);
    db.leaf_scores(sector).unwrap();
    let cache = fs::read(db.leaf_cache_path(sector)).unwrap();
    assert_eq!(reopen(dir.path()).leaf_scores(sector).unwrap().1, LeafOrigin::Opened);
    // The table written anew: same cells, a new time.
    let table = fs::File::options().write(true).open(db.table_path(sector)).unwrap();
    table.set_modified(SystemTime::now() + Duration::from_secs(5)).unwrap();
    drop(table);
    assert_eq!(reopen(dir.path()).leaf_scores(sector).unwrap().1, LeafOrigin::Built);
    let remade = fs::read(db.leaf_cache_path(sector)).unwrap();
    assert_ne!(cache, remade, "the header names the new table");
    assert_eq!(cache[4096..], remade[4096..], "the same scores");
    assert_eq!(reopen(dir.path()).leaf_scores(sector).unwrap().1, LeafOrigin::Opened);
}

#[test]
fn a_damaged_cache_is_made_again_and_the_answer_stays() {
    let dir = tempfile::tempdir().unwrap();
    let db = six_moving(dir.path());
    assert_eq!(start_outcome(&db), Outcome::Draw);
    let caches: Vec<_> = fs::read_dir(dir.path().join("leaves"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wdl2"))
        .filter(|p| fs::metadata(p).unwrap().len() > 4096 + 100)
        .collect();
    assert!(!caches.is_empty());
    let damaged: Vec<Vec<u8>> = caches
        .iter()
        .map(|path| {
            damage_data(path);
            fs::read(path).unwrap()
        })
        .collect();
    // The header and length still match: opened, and the damage found
    // at the first probe of the block, never read as a score.
    let db = reopen(dir.path());
    let sector = Sector::moving(4, 4);
    let (scores, origin) = db.leaf_scores(sector).unwrap();
    assert_eq!(origin, LeafOrigin::Opened);
    assert!(scores.check_all().is_err());
    let db = reopen(dir.path());
    let mut search = Search::new(&db);
    assert_eq!(search.outcome(&Position::start(db.variant()).state()).unwrap(), Outcome::Draw);
    assert!(search.stats().leaf_caches_built > 0, "{:?}", search.stats());
    // Those the search read were made again from the tables, and every
    // block checks; those it never read are as they were.
    let db = reopen(dir.path());
    let mut remade = 0;
    for (path, damaged) in caches.iter().zip(&damaged) {
        if fs::read(path).unwrap() == *damaged {
            continue;
        }
        remade += 1;
        let name = path.file_stem().unwrap().to_str().unwrap();
        let sector: Sector = name.strip_prefix("six-").unwrap().parse().unwrap();
        let (scores, origin) = db.leaf_scores(sector).unwrap();
        assert_eq!(origin, LeafOrigin::Opened);
        scores.check_all().unwrap_or_else(|e| panic!("{e:?}"));
    }
    assert_eq!(remade, search.stats().leaf_caches_built);
}

#[test]
fn a_damaged_header_is_made_again_when_opened() {
    let dir = tempfile::tempdir().unwrap();
    let db = six_moving(dir.path());
    let sector = Sector::moving(5, 5);
    db.leaf_scores(sector).unwrap();
    let path = db.leaf_cache_path(sector);
    let good = fs::read(&path).unwrap();
    for at in [0, 9, 17, 33, 61, 64] {
        let mut bad = good.clone();
        bad[at] ^= 1;
        fs::write(&path, bad).unwrap();
        assert_eq!(reopen(dir.path()).leaf_scores(sector).unwrap().1, LeafOrigin::Built, "{at}");
        assert_eq!(fs::read(&path).unwrap(), good, "{at}");
    }
    fs::write(&path, &good[..good.len() - 1]).unwrap();
    assert_eq!(reopen(dir.path()).leaf_scores(sector).unwrap().1, LeafOrigin::Built);
}

#[test]
fn without_a_writable_cache_the_tables_are_copied() {
    let dir = tempfile::tempdir().unwrap();
    let db = six_moving(dir.path());
    // A file where the cache directory would go: nothing can be written
    // (a read-only directory would do, but the tests may run as root).
    fs::write(dir.path().join("leaves"), b"not a directory").unwrap();
    let mut search = Search::new(&db);
    assert_eq!(search.outcome(&Position::start(db.variant()).state()).unwrap(), Outcome::Draw);
    let stats = search.stats();
    assert_eq!(stats.leaf_caches_built, 0, "{stats:?}");
    assert_eq!(stats.leaf_copies, stats.sectors_loaded, "{stats:?}");
    // A copy is shared while a search holds it.
    let (held, origin) = db.leaf_scores(Sector::moving(6, 6)).unwrap();
    assert_eq!(origin, LeafOrigin::Shared);
    assert!(!held.is_mapped());
    drop(search);
    drop(held);
    assert_eq!(db.leaf_scores(Sector::moving(6, 6)).unwrap().1, LeafOrigin::Copied);
}
