//! Lasker's placement phase, where a player with stones in hand may also
//! slide: the pair solver against the plain reference solver on small
//! Lasker-like games, every value and distance of every canonical state.

use morris::database::Database;
use morris::driver::Quiet;
use morris::reference::{solve_plain, PlainSolution};
use morris::sectors::{moving_sectors, placement_sectors};
use morris::{Flying, Sector, Value, Variant};

/// Every sector of `v` with at most `max_stones` stones, board and hand.
fn sectors(v: &Variant, max_stones: u32) -> Vec<Sector> {
    moving_sectors(v)
        .into_iter()
        .chain(placement_sectors(v))
        .filter(|s| s.total_stones() <= max_stones)
        .collect()
}

fn solved(v: &Variant, max_stones: u32) -> Database {
    let db = Database::new(tempfile::tempdir().unwrap().keep(), v.clone());
    db.solve_moving(max_stones, 2, &Quiet).unwrap();
    db.solve_placement(max_stones, 2, &Quiet).unwrap();
    db
}

fn compare(db: &Database, reference: &PlainSolution, sectors: &[Sector]) {
    let mut decided = 0;
    for &sector in sectors {
        let cells = db.load_cells(sector).unwrap();
        let index = db.indexer().sector(sector);
        let mut compared = 0u64;
        index.for_each_in(0..index.slots(), |slot, mover, opponent| {
            let state = sector.state(mover, opponent);
            let fast = Value::from(morris::Cell(cells[slot as usize]));
            assert_eq!(fast, reference.value(&state), "{sector} slot {slot}");
            decided += (fast != Value::Draw) as u64;
            compared += 1;
        });
        assert_eq!(compared, index.canonical_states(), "{sector}");
    }
    // Not all draws: the comparison has something to compare.
    assert!(decided > 1000, "{decided} decided states");
}

fn holds_to_the_reference(v: &Variant, max_stones: u32) {
    let all = sectors(v, max_stones);
    let reference = solve_plain(v, &all);
    compare(&solved(v, max_stones), &reference, &all);
}

/// Four stones a side fly at 3 once their hand is empty (never with a
/// stone in hand); captures lead to sectors that go on.
#[test]
fn five_board_with_lasker_rule_4_stones_flying_at_3() {
    let v = Variant::named("five").unwrap().with_lasker().with_stones(4);
    holds_to_the_reference(&v.with_flying(Flying::AtMost(3)), 7);
}

/// Five's own rules (no flying) with Lasker's moves.
#[test]
fn five_board_with_lasker_rule_without_flying() {
    let v = Variant::named("five").unwrap().with_lasker();
    holds_to_the_reference(&v, 7);
}

/// Every sector up to 8 stones (4.2 million raw states, some two minutes
/// on two busy cores): `cargo test --test lasker -- --ignored`.
#[test]
#[ignore]
fn five_board_with_lasker_rule_4_stones_flying_at_3_up_to_8_stones() {
    let v = Variant::named("five").unwrap().with_lasker().with_stones(4);
    holds_to_the_reference(&v.with_flying(Flying::AtMost(3)), 8);
}

/// Lasker itself: every sector with at most 9 stones (board and hand)
/// solved and verified (some six minutes on two busy cores, mostly the
/// generic forward check; CI runs 8 stones through the binary in
/// `cli_solve`): `cargo test --test lasker -- --ignored`.
#[test]
#[ignore]
fn lasker_up_to_9_stones_solves_and_verifies() {
    let v = Variant::named("lasker").unwrap();
    let db = solved(&v, 9);
    let all = sectors(&v, 9);
    let mut checked = 0;
    for (sector, check) in morris::verify::Verifier::new(&db, &all) {
        let check = check.unwrap();
        assert_eq!(check.mismatches, 0, "{sector}: {:?}", check.examples);
        assert!(check.counts_agree, "{sector}");
        checked += 1;
    }
    assert_eq!(checked, 10 + 235);
}
