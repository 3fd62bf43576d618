//! The fast solver against the deliberately simple reference solver:
//! every value and every distance of every canonical state.

use morris::database::Database;

use morris::driver::Quiet;
use morris::reference::{solve_moving, solve_moving_phase, ReferenceSolution};
use morris::{Flying, Sector, State, Variant};

fn compare(db: &Database, reference: &ReferenceSolution, sectors: &[(u8, u8)]) {
    let v = db.variant().name().to_string();
    for &(m, o) in sectors {
        let sector = Sector::moving(m, o);
        let cells = db.load_cells(sector).unwrap();
        let index = db.indexer().sector(sector);
        let mut compared = 0u64;
        index.for_each_in(0..index.slots(), |slot, mover, opponent| {
            let state = State { mover, opponent, mover_hand: 0, opponent_hand: 0 };
            let fast = morris::Value::from(morris::Cell(cells[slot as usize]));
            assert_eq!(fast, reference.value(&state), "{v} {sector} slot {slot}");
            compared += 1;
        });
        assert_eq!(compared, index.canonical_states());
    }
}

fn solved(v: Variant, max_stones: u32) -> Database {
    let db = Database::new(tempfile::tempdir().unwrap().keep(), v);
    db.solve_moving(max_stones, 2, &Quiet).unwrap();
    db
}

#[test]
fn nine_3_3_and_the_4_3_pair() {
    let v = Variant::named("nine").unwrap();
    let sectors = [(3, 3), (3, 4), (4, 3)];
    let reference = solve_moving(&v, &sectors);
    compare(&solved(v, 7), &reference, &sectors);
}

#[test]
fn six_and_five_whole_moving_phase() {
    for (name, flying) in
        [("five", Flying::Never), ("six", Flying::Never), ("six", Flying::AtMost(3))]
    {
        let v = Variant::named(name).unwrap().with_flying(flying);
        let reference = solve_moving_phase(&v);
        let db = solved(v, 2 * reference_stones(name));
        compare(&db, &reference, &reference.sectors());
    }
}

fn reference_stones(name: &str) -> u32 {
    Variant::named(name).unwrap().stones() as u32
}
