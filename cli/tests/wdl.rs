//! The win/draw/loss tier against the full tier it is made from: every
//! canonical slot of six's whole game and of nine up to 8 stones (both
//! phases) decodes to the full tier's outcome; an export run again keeps
//! what checks out and writes again what does not; the placement search
//! over six's win/draw/loss moving phase alone finds the tables' values.
//! The command is in `cli_export.rs`, the format's own tests in
//! `src/table/wdl.rs`.

mod common;

use common::scratch;
use morris::database::{Database, Exported, LeafOrigin, SectorTable};
use morris::index::Sector;
use morris::position::Position;
use morris::query::{Exactness, Query};
use morris::stats::Counts;
use morris::table::{write_table, Compression};
use morris::value::{Cell, Outcome, Value};
use morris::verify::{Tier, Verifier};
use std::fs;
use std::path::{Path, PathBuf};

fn outcome(cell: u16) -> Outcome {
    match Value::from(Cell(cell)) {
        Value::Win(_) => Outcome::Win,
        Value::Draw => Outcome::Draw,
        Value::Loss(_) => Outcome::Loss,
    }
}

/// Exports every sector of `sectors` into `out`, compressed as hard as
/// `Compression::Smallest`; what each export did.
fn export(db: &Database, sectors: &[Sector], out: &Path) -> Vec<Exported> {
    export_as(db, sectors, out, Compression::Smallest)
}

/// Exports every sector of `sectors` into `out` as `compression` asks.
fn export_as(
    db: &Database,
    sectors: &[Sector],
    out: &Path,
    compression: Compression,
) -> Vec<Exported> {
    sectors.iter().map(|&s| db.export_wdl(s, out, compression, &|| false).unwrap()).collect()
}

/// Every canonical slot of every sector's win/draw/loss table in `out`
/// against its full table; returns the states compared.
fn compare_every_slot(db: &Database, sectors: &[Sector], out: &Path) -> u64 {
    let wdl_db = Database::new(out, db.variant().clone());
    let mut states = 0;
    for &sector in sectors {
        let cells = db.load_cells(sector).unwrap();
        let wdl = wdl_db.wdl_table(sector).unwrap();
        assert_eq!(wdl.info(), db.table(sector).unwrap().info(), "{sector}");
        let index = db.indexer().sector(sector);
        index.for_each_in(0..index.slots(), |slot, _, _| {
            let got = wdl.get(slot).unwrap();
            assert_eq!(got, outcome(cells[slot as usize]), "{sector} slot {slot}");
            states += 1;
        });
        assert!(states > 0, "{sector} has states");
    }
    states
}

/// Six's whole game solved in `dir/db`, its sectors, and an empty
/// directory `dir/wdl` for its win/draw/loss tier.
fn six_whole(dir: &Path) -> (Database, Vec<Sector>, PathBuf) {
    let (db, sectors) = common::solved_both_phases(&dir.join("db"), "six", 12);
    let out = dir.join("wdl");
    fs::create_dir(&out).unwrap();
    (db, sectors, out)
}

#[test]
fn every_state_of_six_whole_keeps_its_outcome_in_both_versions() {
    let dir = scratch();
    let (db, sectors, out) = six_whole(dir.path());
    let want: u64 = sectors.iter().map(|&s| db.indexer().sector(s).canonical_states()).sum();
    // Version 1 (four codes a byte), as the builds before version 2 wrote.
    let quick = export_as(&db, &sectors, &out, Compression::Quick);
    assert!(quick.iter().all(|e| e.written));
    let wdl_db = Database::new(&out, db.variant().clone());
    assert!(sectors.iter().all(|&s| wdl_db.wdl_table(s).unwrap().version() == 1));
    assert_eq!(compare_every_slot(&db, &sectors, &out), want);
    // Asked for the smallest, every version-1 file is rewritten as version 2.
    let smallest = export(&db, &sectors, &out);
    assert!(smallest.iter().all(|e| e.written));
    assert!(sectors.iter().all(|&s| wdl_db.wdl_table(s).unwrap().version() == 2));
    assert_eq!(compare_every_slot(&db, &sectors, &out), want);
    let (before, after): (u64, u64) =
        quick.iter().zip(&smallest).fold((0, 0), |(b, a), (q, s)| (b + q.bytes, a + s.bytes));
    assert!(after <= before, "version 2 {after} bytes, version 1 {before}");
    // Version 2 files are kept whatever is asked.
    for compression in [Compression::Smallest, Compression::Quick] {
        assert!(export_as(&db, &sectors, &out, compression).iter().all(|e| !e.written));
    }
}

#[test]
fn every_state_of_nine_up_to_8_stones_both_phases_keeps_its_outcome_and_export_resumes() {
    let dir = scratch();
    let (db, sectors) = common::solved_both_phases(&dir.path().join("db"), "nine", 8);
    let out = dir.path().join("wdl");
    fs::create_dir(&out).unwrap();
    let first = export(&db, &sectors, &out);
    assert!(first.iter().all(|e| e.written));
    compare_every_slot(&db, &sectors, &out);

    // Run again: every file is kept, byte for byte.
    let before = common::files(&out);
    let second = export(&db, &sectors, &out);
    assert!(second.iter().all(|e| !e.written), "{second:?}");
    assert_eq!(
        second.iter().map(|e| e.bytes).collect::<Vec<_>>(),
        first.iter().map(|e| e.bytes).collect::<Vec<_>>()
    );
    assert!(common::files(&out) == before, "nothing rewritten");

    // A damaged file is written again, the others kept; a damaged file is
    // never read as values.
    let wdl_db = Database::new(&out, db.variant().clone());
    let damaged = *sectors.iter().max_by_key(|&&s| db.indexer().sector(s).slots()).unwrap();
    let path = wdl_db.wdl_path(damaged);
    let mut bytes = fs::read(&path).unwrap();
    let at = bytes.len() - 10;
    bytes[at] ^= 0x40;
    fs::write(&path, &bytes).unwrap();
    let err = wdl_db.wdl_table(damaged).and_then(|t| Ok(t.verify()?)).unwrap_err();
    assert!(err.to_string().contains(&path.display().to_string()), "{err}");
    let third = export(&db, &sectors, &out);
    for (&sector, e) in sectors.iter().zip(&third) {
        assert_eq!(e.written, sector == damaged, "{sector}");
    }
    assert!(common::files(&out) == before, "the damaged file is whole again");
}

#[test]
fn the_placement_search_over_six_whole_s_win_draw_loss_moving_phase_finds_the_tables_values() {
    let dir = scratch();
    let (db, sectors, out) = six_whole(dir.path());
    // The moving phase's win/draw/loss tier alone: the placement phase is
    // searched, its leaves read from caches made from the .wdl files.
    let moving: Vec<Sector> = sectors.iter().copied().filter(|s| s.is_moving()).collect();
    export(&db, &moving, &out);
    let wdl_db = Database::new(&out, db.variant().clone());
    let (full, wdl) = (Query::new(&db), Query::new(&wdl_db));
    let start = Position::start(db.variant());
    let (value, exactness) = wdl.value(&start).unwrap();
    assert_eq!(exactness, Exactness::ValueOnly);
    assert_eq!(value.kind(), full.value(&start).unwrap().0.kind());
    let kinds = |q: &Query| -> Vec<(String, &'static str)> {
        let mut m: Vec<_> = q
            .moves(&start)
            .unwrap()
            .iter()
            .map(|m| (m.mv.notation(db.variant()), m.value.kind()))
            .collect();
        m.sort();
        m
    };
    assert_eq!(kinds(&wdl), kinds(&full));
    assert!(wdl.search_stats().leaf_caches_built > 0, "caches made from the .wdl files");
    // No line: the search ends in the moving phase, which has no distances.
    let needed = wdl.analyse(&start).unwrap().line.unwrap_err();
    assert!(needed.sector.is_moving(), "{needed}");
    assert!(needed.to_string().contains("a perfect-play line needs distances"), "{needed}");

    // A cache made from a .wdl file is kept while that file is there, and
    // made again once a full table stands beside it (which then wins).
    let sector = moving[moving.len() - 1];
    let origin =
        |dir: &Path| Database::new(dir, db.variant().clone()).leaf_scores(sector).unwrap().1;
    assert_eq!(origin(&out), LeafOrigin::Opened);
    fs::copy(db.table_path(sector), wdl_db.table_path(sector)).unwrap();
    assert!(matches!(
        Database::new(&out, db.variant().clone()).tier(sector),
        Ok(SectorTable::Full(_))
    ));
    assert_eq!(origin(&out), LeafOrigin::Built);
    assert_eq!(origin(&out), LeafOrigin::Opened);
}

#[test]
fn the_forward_check_of_the_tier_passes_and_finds_an_outcome_changed_under_good_checksums() {
    let dir = scratch();
    let (db, sectors) = common::solved_both_phases(&dir.path().join("db"), "nine", 8);
    let out = dir.path().join("wdl");
    fs::create_dir(&out).unwrap();
    export(&db, &sectors, &out);
    let tier = Database::new(&out, db.variant().clone());
    let mut checked = 0;
    for (sector, check) in Verifier::of_tier(&tier, &sectors, Tier::Wdl) {
        let check = check.unwrap();
        assert_eq!(check.mismatches, 0, "{sector}: {:?}", check.examples);
        assert!(check.counts_agree, "{sector}");
        assert_eq!(check.states, db.indexer().sector(sector).canonical_states(), "{sector}");
        checked += 1;
    }
    assert_eq!(checked, sectors.len());

    // One win of 4-4 made a loss in a full table whose header and
    // checksums agree with it, and exported over the good file.
    let sector = Sector::moving(4, 4);
    let mut cells = db.load_cells(sector).unwrap();
    let index = db.indexer().sector(sector);
    let mut win = None;
    index.for_each_in(0..index.slots(), |slot, _, _| {
        if win.is_none() && Value::from(Cell(cells[slot as usize])).kind() == "win" {
            win = Some(slot);
        }
    });
    let win = win.expect("4-4 has a win");
    cells[win as usize] = Cell::from(Value::Loss(0)).0;
    let mut info = db.table(sector).unwrap().info().clone();
    info.counts = Counts::tally(&cells, info.counts.states);
    let changed = Database::new(dir.path().join("changed"), db.variant().clone());
    fs::create_dir(changed.dir()).unwrap();
    write_table(&changed.table_path(sector), &info, &cells).unwrap();
    fs::remove_file(tier.wdl_path(sector)).unwrap();
    changed.export_wdl(sector, &out, Compression::Smallest, &|| false).unwrap();

    let tier = Database::new(&out, db.variant().clone());
    let check = Verifier::of_tier(&tier, &[sector], Tier::Wdl).next().unwrap().1.unwrap();
    assert!(check.counts_agree, "the header was made to agree");
    assert!(check.mismatches >= 1, "the changed outcome is found");
    // The examples are the lowest mismatching slots: the changed one is
    // among them, stored as a loss that its successors make a win, unless
    // five states before it (its predecessors, now wrong) fill the list.
    let reported = check.examples.iter().any(|&(slot, stored, recomputed)| {
        slot == win && stored == Value::Loss(0) && recomputed.kind() == "win"
    });
    let crowded = check.examples.len() == 5 && check.examples.iter().all(|e| e.0 < win);
    assert!(reported || crowded, "slot {win}: {:?}", check.examples);
}
