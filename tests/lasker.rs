//! Lasker's placement phase, where a player with stones in hand may also
//! slide: the pair solver against the plain reference solver on small
//! Lasker-like games, every value and distance of every canonical state.

use morris::database::Database;
use morris::driver::Quiet;
use morris::reference::{solve_plain, PlainSolution};
use morris::sectors::{moving_sectors, placement_sectors};
use morris::{Flying, Sector, State, Value, Variant};

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
            let state = State {
                mover,
                opponent,
                mover_hand: sector.mover_hand,
                opponent_hand: sector.opponent_hand,
            };
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

#[test]
fn five_board_with_lasker_rule_4_stones_flying_at_3() {
    let v =
        Variant::named("five").unwrap().with_lasker().with_stones(4).with_flying(Flying::AtMost(3));
    let all = sectors(&v, 8);
    let reference = solve_plain(&v, &all);
    compare(&solved(&v, 8), &reference, &all);
}
