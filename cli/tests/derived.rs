//! Derived sectors (`compact --derive`, `export --wdl --derive`): sectors
//! whose cells a database leaves out because one ply over the sectors
//! their moves lead to gives them back. Every cell of six's whole game
//! and of nine up to 8 stones comes back exactly, in the full tier
//! (values and distances, slot by slot, through the bulk read and the
//! single probe) and in the win/draw/loss tier (outcomes); `verify`
//! passes on both and finds a stub whose counts were changed; a stub
//! that would need two plies is an error, never a wrong value; a run
//! stopped between the stub and the removal of the table goes on. The
//! command is in `cli_compact.rs`.

mod common;

use common::scratch;
use morris::database::{plan_derived, Database, DbError, SectorTable, Stored};
use morris::index::Sector;
use morris::position::Position;
use morris::query::Query;
use morris::table::{write_derived_stub, Compression};
use morris::value::{Cell, Outcome, Value};
use morris::verify::{Tier, Verifier};
use std::collections::HashMap;
use std::fs;

fn outcome(value: Value) -> Outcome {
    match value {
        Value::Win(_) => Outcome::Win,
        Value::Draw => Outcome::Draw,
        Value::Loss(_) => Outcome::Loss,
    }
}

/// Every cell of every sector before deriving.
fn all_cells(db: &Database, sectors: &[Sector]) -> HashMap<Sector, Vec<u16>> {
    sectors.iter().map(|&s| (s, db.load_cells(s).unwrap())).collect()
}

/// The plan of `db`'s sectors, by states.
fn plan(db: &Database, sectors: &[Sector]) -> Vec<Sector> {
    plan_derived(
        db.variant(),
        sectors,
        |s| db.indexer().sector(s).canonical_states(),
        &Default::default(),
    )
    .into_iter()
    .collect()
}

/// Every canonical slot of every derived sector of `db` against `before`:
/// the bulk read (`load_cells_huge`, or the outcome cells), and every
/// `step`-th slot through `Database::stored` (one ply each). Returns the
/// states compared.
fn compare(
    db: &Database,
    derived: &[Sector],
    before: &HashMap<Sector, Vec<u16>>,
    tier: Tier,
    step: u64,
) -> u64 {
    let mut states = 0;
    for &sector in derived {
        assert!(matches!(db.tier(sector), Ok(SectorTable::Derived(_))), "{sector} is derived");
        let cells = match tier {
            Tier::Full => db.load_cells_huge(sector).unwrap(),
            Tier::Wdl => db.load_outcome_cells_huge(sector).unwrap(),
        };
        let index = db.indexer().sector(sector);
        let want = &before[&sector];
        index.for_each_in(0..index.slots(), |slot, mover, opponent| {
            let (got, was) =
                (Value::from(Cell(cells[slot as usize])), Value::from(Cell(want[slot as usize])));
            match tier {
                Tier::Full => assert_eq!(got, was, "{sector} slot {slot}"),
                Tier::Wdl => assert_eq!(outcome(got), outcome(was), "{sector} slot {slot}"),
            }
            if slot % step == 0 {
                let stored = db.stored(&sector.state(mover, opponent)).unwrap();
                match (tier, stored) {
                    (Tier::Full, stored) => {
                        assert_eq!(stored, Stored::Exact(was), "{sector} slot {slot}")
                    }
                    (Tier::Wdl, Stored::Outcome(o)) => {
                        assert_eq!(o, outcome(was), "{sector} slot {slot}")
                    }
                    // Every move ends the game (or there is none): the
                    // rules' answer, exact in either tier.
                    (Tier::Wdl, Stored::Exact(v)) => assert_eq!(v, was, "{sector} slot {slot}"),
                }
            }
            states += 1;
        });
    }
    states
}

/// Derives `db`'s planned sectors in place; returns them.
fn derive_in_place(db: &Database, sectors: &[Sector]) -> Vec<Sector> {
    let derived = plan(db, sectors);
    db.begin_solve().unwrap();
    for &s in &derived {
        let d = db.derive_sector(s).unwrap();
        assert!(d.written && d.table_bytes > 0, "{s}: {d:?}");
        assert!(!db.table_path(s).exists() && db.derived_path(s).exists(), "{s}");
    }
    derived
}

fn verify_all(db: &Database, sectors: &[Sector], tier: Tier) {
    for (sector, check) in Verifier::of_tier(db, sectors, tier) {
        let check = check.unwrap_or_else(|e| panic!("{sector}: {e}"));
        assert!(check.mismatches == 0 && check.counts_agree, "{sector}: {check:?}");
    }
}

#[test]
fn every_cell_of_six_whole_comes_back_in_both_tiers_and_verify_passes() {
    let dir = scratch();
    let (db, sectors) = common::solved_both_phases(&dir.path().join("db"), "six", 12);
    let before = all_cells(&db, &sectors);
    let start = Query::new(&db).analyse(&Position::start(db.variant())).unwrap();

    // The win/draw/loss tier, from the full tables.
    let out = dir.path().join("wdl");
    fs::create_dir(&out).unwrap();
    let derived = plan(&db, &sectors);
    assert!(derived.len() * 3 > sectors.len(), "{} of {}", derived.len(), sectors.len());
    for &s in &sectors {
        if derived.contains(&s) {
            assert!(db.export_derived(s, &out).unwrap().written, "{s}");
        } else {
            db.export_wdl(s, &out, Compression::Smallest, &|| false).unwrap();
        }
    }
    let wdl = Database::new(&out, db.variant().clone());
    let n = compare(&wdl, &derived, &before, Tier::Wdl, 97);
    assert!(n > 1_000_000, "{n} states");
    verify_all(&wdl, &sectors, Tier::Wdl);
    assert_eq!(
        Query::new(&wdl).analyse(&Position::start(db.variant())).unwrap().value,
        start.value
    );

    // The full tier, in place.
    derive_in_place(&db, &sectors);
    let db = Database::new(db.dir(), db.variant().clone());
    compare(&db, &derived, &before, Tier::Full, 97);
    verify_all(&db, &sectors, Tier::Full);
    let again = Query::new(&db).analyse(&Position::start(db.variant())).unwrap();
    assert_eq!(format!("{again:?}"), format!("{start:?}"), "the start's analysis");
}

#[test]
fn every_cell_of_nine_up_to_8_stones_comes_back_and_a_changed_stub_is_found() {
    let dir = scratch();
    let (db, sectors) = common::solved_both_phases(&dir.path().join("db"), "nine", 8);
    let before = all_cells(&db, &sectors);
    let derived = derive_in_place(&db, &sectors);
    assert!(derived.iter().any(|s| s.is_moving()) && derived.iter().any(|s| !s.is_moving()));
    let db = Database::new(db.dir(), db.variant().clone());
    compare(&db, &derived, &before, Tier::Full, 1);
    verify_all(&db, &sectors, Tier::Full);

    // A stub that says one win more than its successors give.
    let largest = *derived.iter().max_by_key(|&&s| db.indexer().sector(s).slots()).unwrap();
    let mut info = morris::table::DerivedStub::open(
        &db.derived_path(largest),
        &db.variant().rules_key(),
        &largest.to_string(),
    )
    .unwrap()
    .info()
    .clone();
    assert_ne!(info.counts.wins, info.counts.losses, "{largest}");
    std::mem::swap(&mut info.counts.wins, &mut info.counts.losses);
    write_derived_stub(&db.derived_path(largest), &info).unwrap();
    let db = Database::new(db.dir(), db.variant().clone());
    let err = db.load_cells_huge(largest).err().expect("an error");
    assert!(err.to_string().contains("not those its stub records"), "{err}");
    let failed = Verifier::new(&db, &[largest]).next().unwrap().1;
    assert!(failed.is_err(), "{failed:?}");
}

#[test]
fn a_stub_whose_successor_is_derived_too_is_an_error_and_a_stopped_derive_goes_on() {
    let dir = scratch();
    let (db, sectors) = common::solved_both_phases(&dir.path().join("db"), "nine", 7);
    let derived = plan(&db, &sectors);
    let sector = *derived.iter().find(|s| s.is_moving()).unwrap();
    let partner = Sector { mover: sector.opponent, opponent: sector.mover, ..sector };
    db.begin_solve().unwrap();

    // Stopped after the stub was written: the table is still read, and
    // the next run removes it.
    let info = db.table(sector).unwrap().info().clone();
    write_derived_stub(&db.derived_path(sector), &info).unwrap();
    assert!(matches!(db.tier(sector), Ok(SectorTable::Full(_))));
    let d = db.derive_sector(sector).unwrap();
    assert!(d.written && !db.table_path(sector).exists());
    assert!(!db.derive_sector(sector).unwrap().written, "done once");

    // Its partner derived by hand as well: a state of either now needs
    // two plies, which the database refuses.
    let info = db.table(partner).unwrap().info().clone();
    write_derived_stub(&db.derived_path(partner), &info).unwrap();
    fs::remove_file(db.table_path(partner)).unwrap();
    let db = Database::new(db.dir(), db.variant().clone());
    let index = db.indexer().sector(sector);
    let mut state = None;
    index.for_each_in(0..index.slots(), |_, m, o| {
        state.get_or_insert(sector.state(m, o));
    });
    let err = db.stored(&state.unwrap()).unwrap_err();
    assert!(matches!(err, DbError::Table(_)), "{err:?}");
    assert!(err.to_string().contains("is derived, and so is"), "{err}");
    assert!(db.load_cells_huge(sector).is_err());
}

#[test]
fn a_derived_sector_is_not_a_table() {
    let dir = scratch();
    let (db, sectors) = common::solved_both_phases(&dir.path().join("db"), "nine", 6);
    let derived = derive_in_place(&db, &sectors);
    let db = Database::new(db.dir(), db.variant().clone());
    let err = db.table(derived[0]).err().unwrap();
    assert!(err.to_string().contains("is derived"), "{err}");
    assert!(db.has_values(derived[0]));
}
