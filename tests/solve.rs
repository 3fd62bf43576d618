//! The moving-phase solver on small sectors, checked by the forward check.

use morris::database::Database;

use morris::driver::Quiet;
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
            assert_eq!(
                check.mismatches,
                0,
                "{} {sector}: {:?}",
                db.variant().name(),
                check.examples
            );
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
    solve_both_phases(v, stones)
}

/// Solves both phases up to `stones` stones on the board and in hand, and
/// checks every table.
fn solve_both_phases(v: Variant, stones: u32) -> Database {
    let db = solve_and_verify(v, stones, 2);
    db.solve_placement(stones, 2, &Quiet).unwrap();
    for sector in morris::solve::placement_order(db.variant(), stones) {
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

/// Twelve Men's Morris with `--fly-at 3` has every rule of Morabaraba as
/// this crate plays it (board, stones, flying, the full-board draw): their
/// rules keys differ only in the name, and the solver gives every state
/// the same value, in the moving phase and in the placement sectors that
/// fit. The README quotes Morabaraba's verified start value for it on
/// that ground. Twelve with its own flying at 4 differs in these sectors,
/// so the comparison can tell two rule sets apart.
#[test]
fn twelve_flying_at_3_is_morabaraba() {
    let twelve3 = Variant::named("twelve").unwrap().with_flying(Flying::AtMost(3));
    let mora = Variant::named("morabaraba").unwrap();
    assert_eq!(
        twelve3.rules_key().strip_prefix("twelve "),
        mora.rules_key().strip_prefix("morabaraba ")
    );

    let stones = 8;
    let solve = |v: Variant| solve_both_phases(v, stones);
    let (a, b, twelve4) = (solve(twelve3), solve(mora), solve(Variant::named("twelve").unwrap()));
    let moving = moving_pairs(a.variant(), stones).into_iter().flat_map(|p| p.sectors());
    let placement = morris::solve::placement_order(a.variant(), stones);
    assert!(!placement.is_empty(), "some placement sectors have at most {stones} stones");
    let mut differ_at_4 = 0;
    for sector in moving.chain(placement) {
        let cells = a.load_cells(sector).unwrap();
        assert_eq!(
            cells,
            b.load_cells(sector).unwrap(),
            "{sector}: twelve at 3 against morabaraba"
        );
        differ_at_4 += (cells != twelve4.load_cells(sector).unwrap()) as usize;
    }
    assert!(differ_at_4 > 0, "flying at 4 changes some sector up to {stones} stones");
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
            assert_eq!(
                status(&v, s),
                Status::Drawn,
                "{name}: the only successor is the full board"
            );
            morris::Value::Draw
        };
        assert_eq!(value_from_successors(&v, &p.state(), &lookup), morris::Value::Draw, "{name}");
    }
}

/// Lasker's placement phase, solved by the library in pairs: without
/// the moving phase it leads to, an error that names the missing table
/// (not a panic); with it, every table written.
#[test]
fn lasker_placement_is_solved_in_pairs_after_the_moving_phase() {
    let dir = tempfile::tempdir().unwrap();
    let v = Variant::named("lasker").unwrap();
    let db = Database::new(dir.path(), v.clone());
    let err = db.solve_placement(7, 1, &Quiet).unwrap_err();
    assert!(err.to_string().contains("is not in the database"), "{err}");
    db.solve_moving(7, 1, &Quiet).unwrap();
    let summary = db.solve_placement(7, 1, &Quiet).unwrap();
    assert!(!summary.solved.is_empty());
    for sector in morris::sectors::placement_sectors(&v) {
        assert_eq!(db.has(sector), sector.total_stones() <= 7, "{sector}");
    }
}
