//! The placement search against the placement tables, and the start
//! positions of the small variants.

use morris::database::{Database, Quiet};
use morris::search::{Outcome, Search};
use morris::sectors::placement_sectors;
use morris::{Position, State, Value, Variant};

fn moving_only(v: Variant, max_stones: u32) -> Database {
    let db = Database::new(tempfile::tempdir().unwrap().keep(), v);
    db.solve_moving(max_stones, 2, &Quiet).unwrap();
    db
}

fn outcome_of(value: Value) -> Outcome {
    match value {
        Value::Win(_) => Outcome::Win,
        Value::Loss(_) => Outcome::Loss,
        Value::Draw => Outcome::Draw,
    }
}

/// Every `step`-th canonical state of every placement sector up to
/// `max_stones`: the search over moving tables only agrees with the
/// placement tables.
fn search_agrees_with_tables(v: Variant, max_stones: u32, step: u64) -> usize {
    let searched = moving_only(v.clone(), max_stones);
    let tabled = moving_only(v, max_stones);
    tabled.solve_placement(max_stones, 2, &Quiet).unwrap();
    let mut search = Search::new(&searched);
    let mut compared = 0;
    for sector in placement_sectors(tabled.variant()).into_iter().filter(|s| s.total_stones() <= max_stones) {
        let index = tabled.indexer().sector(sector);
        let mut k = 0u64;
        index.for_each_in(0..index.slots(), |_, mover, opponent| {
            k += 1;
            if k % step != 0 {
                return;
            }
            let state = State { mover, opponent, mover_hand: sector.mover_hand, opponent_hand: sector.opponent_hand };
            let table = tabled.value(&state).unwrap();
            let found = search.outcome(&state).unwrap();
            assert_eq!(found, outcome_of(table), "{sector} {state:?}");
            compared += 1;
        });
    }
    compared
}

#[test]
fn nine_late_placement_search_matches_tables() {
    let n = search_agrees_with_tables(Variant::named("nine").unwrap(), 8, 41);
    assert!(n > 1000, "compared {n}");
}

#[test]
fn six_placement_search_matches_tables() {
    let n = search_agrees_with_tables(Variant::named("six").unwrap(), 10, 29);
    assert!(n > 1000, "compared {n}");
}

#[test]
fn six_and_five_start_positions_are_draws_by_search() {
    for name in ["six", "five"] {
        let v = Variant::named(name).unwrap();
        let stones = 2 * v.stones() as u32;
        let db = moving_only(v, stones);
        let start = Position::start(db.variant()).state();
        assert_eq!(Search::new(&db).outcome(&start).unwrap(), Outcome::Draw, "{name}");
    }
}
