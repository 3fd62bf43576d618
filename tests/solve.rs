//! The moving-phase solver on small sectors, checked by the forward check.

use morris::database::{Database, Quiet};
use morris::solve::moving_pairs;
use morris::variant::{Flying, Variant};
use morris::verify::check_sector;

fn solve_and_verify(v: Variant, max_stones: u32, threads: usize) -> Database {
    let dir = tempfile::tempdir().unwrap().keep();
    let db = Database::new(&dir, v);
    db.solve_moving(max_stones, threads, &Quiet).unwrap();
    for pair in moving_pairs(db.variant(), max_stones) {
        for sector in pair.sectors() {
            let check = check_sector(&db, sector).unwrap();
            assert_eq!(check.mismatches, 0, "{} {sector}: {:?}", db.variant().name(), check.examples);
            assert!(check.counts_agree, "{sector}: header counts");
        }
    }
    db
}

#[test]
fn nine_3_3_matches_the_published_figures() {
    let db = solve_and_verify(Variant::named("nine").unwrap(), 6, 2);
    let c = &db.table("3-3".parse().unwrap()).unwrap().info().counts.clone();
    assert_eq!((c.wins, c.losses, c.draws), (140_621, 28_736, 269));
    assert_eq!((c.max_win, c.max_loss), (25, 26));
}

#[test]
fn nine_up_to_8_stones_verifies() {
    solve_and_verify(Variant::named("nine").unwrap(), 8, 2);
}

#[test]
fn six_moving_phase_verifies() {
    solve_and_verify(Variant::named("six").unwrap(), 12, 2);
    solve_and_verify(Variant::named("six").unwrap().with_flying(Flying::AtMost(3)), 12, 2);
}

/// Solves a whole variant, moving phase and placement, and checks every table.
fn solve_whole(v: Variant) -> Database {
    let stones = 2 * v.stones() as u32;
    let db = solve_and_verify(v, stones, 2);
    db.solve_placement(stones, 2, &Quiet).unwrap();
    for sector in morris::sectors::placement_sectors(db.variant()) {
        let check = check_sector(&db, sector).unwrap();
        assert_eq!(check.mismatches, 0, "{} {sector}: {:?}", db.variant().name(), check.examples);
        assert!(check.counts_agree, "{sector}: header counts");
    }
    db
}

#[test]
fn six_and_five_start_positions_are_draws() {
    for name in ["six", "five"] {
        let db = solve_whole(Variant::named(name).unwrap());
        let start = morris::Position::start(db.variant()).state();
        assert_eq!(db.value(&start).unwrap(), morris::Value::Draw, "{name}");
    }
}

#[test]
fn twelve_full_board_after_placement_is_a_draw() {
    use morris::rules::{status, Status};
    use morris::verify::value_from_successors;
    for name in ["twelve", "morabaraba"] {
        let v = Variant::named(name).unwrap();
        // Black places the last stone; no mill closes and White cannot move.
        let p = morris::Position::parse("WBWBWBWB/BWBWBWBW/WBWBWBW. b 0 1", &v).unwrap();
        let lookup = |s: &morris::State| {
            assert_eq!(status(&v, s), Status::Drawn, "{name}: the only successor is the full board");
            morris::Value::Draw
        };
        assert_eq!(value_from_successors(&v, &p.state(), &lookup), morris::Value::Draw, "{name}");
    }
}
