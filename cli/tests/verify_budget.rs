//! The verifier's budget of tables kept between sectors
//! (`Verifier::with_budget`): the checks are the same whatever it is;
//! with room for every table each is read once, with none some are read
//! again; and a changed value is found either way.

mod common;

use common::scratch;
use morris::database::Database;
use morris::index::Sector;
use morris::stats::Counts;
use morris::table::{write_table, TableInfo};
use morris::verify::{successors_of, SectorCheck, TableReads, Verifier};
use std::collections::HashSet;

/// Every sector's check in the verifier's order, with what it read.
fn checks(db: &Database, sectors: &[Sector], budget: u64) -> (Vec<SectorCheck>, TableReads) {
    let mut verifier = Verifier::new(db, sectors).with_budget(budget);
    let mut found = Vec::new();
    for (sector, check) in verifier.by_ref() {
        found.push(check.unwrap_or_else(|e| panic!("{sector}: {e}")));
    }
    (found, verifier.reads())
}

/// The tables a check of `sectors` needs: theirs and their successors'.
fn needed(db: &Database, sectors: &[Sector]) -> HashSet<Sector> {
    let v = db.variant();
    sectors.iter().flat_map(|&s| std::iter::once(s).chain(successors_of(v, s))).collect()
}

#[test]
fn the_budget_changes_how_often_a_table_is_read_and_nothing_else() {
    let dir = scratch();
    let (db, sectors) = common::solved_both_phases(&dir.path().join("db"), "six", 12);
    let tables = needed(&db, &sectors).len() as u64;

    let (all, roomy) = checks(&db, &sectors, u64::MAX);
    assert_eq!(all.len(), sectors.len());
    assert!(all.iter().all(|c| c.mismatches == 0 && c.counts_agree), "{all:?}");
    assert_eq!(roomy.tables, tables, "with room for all, each table once");

    let (none, tight) = checks(&db, &sectors, 0);
    assert_eq!(none, all);
    assert!(tight.tables > tables, "{tight:?} against {tables} tables");
    assert!(tight.slots > roomy.slots);

    // A budget of a few tables reads between the two.
    let (some, between) = checks(&db, &sectors, 64 << 10);
    assert_eq!(some, all);
    assert!(roomy.tables <= between.tables && between.tables <= tight.tables, "{between:?}");
}

#[test]
fn a_changed_value_is_found_whether_its_table_was_kept_or_read_again() {
    let dir = scratch();
    let (db, sectors) = common::solved_both_phases(&dir.path().join("db"), "six", 12);
    // The largest moving sector: read as its own table and as the
    // successor of its partner and of the placements that lead to it.
    let sector = *sectors
        .iter()
        .filter(|s| s.is_moving())
        .max_by_key(|&&s| db.indexer().sector(s).canonical_states())
        .unwrap();
    let index = db.indexer().sector(sector);
    let mut cells = db.load_cells(sector).unwrap();
    let slot = (0..cells.len())
        .find(|&slot| cells[slot] != 0 && index.unrank(slot as u64).is_some())
        .expect("a decided canonical state");
    // Said to be a draw, with header counts that agree: only the forward
    // check can tell.
    cells[slot] = 0;
    let info = db.table(sector).unwrap().info().clone();
    let info = TableInfo { counts: Counts::tally(&cells, info.counts.states), ..info };
    write_table(&db.table_path(sector), &info, &cells).unwrap();
    let db = Database::new(db.dir(), db.variant().clone());

    let (kept, _) = checks(&db, &sectors, u64::MAX);
    let (read_again, _) = checks(&db, &sectors, 0);
    assert_eq!(kept, read_again);
    let own = kept.iter().find(|c| c.sector == sector).unwrap();
    assert!(own.mismatches >= 1 && own.counts_agree, "{own:?}");
}
