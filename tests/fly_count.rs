//! Which stones count towards flying. In Lasker Morris a side with stones
//! in hand may move, so "three stones fly" is read two ways: three left
//! in all, on the board and in hand (the published game, and lasker's
//! default here), or three on the board with an empty hand. These tests
//! show that the readings give different moves and values in Lasker, pin
//! the published figure that tells them apart (the reference solver
//! shares `Variant::flies`, so only a pinned figure can catch a wrong
//! rule), and show that in every other variant, where a side with stones
//! in hand never moves, the readings are one rule: the same moves in
//! every state, extended starts included, and the same tables byte for
//! byte.

use morris::database::Database;
use morris::driver::Quiet;
use morris::rules::{legal_moves, status};
use morris::sectors::{extended_placement_sectors, moving_sectors};
use morris::variant::{rules_hint, VariantError};
use morris::{FlyCount, Indexer, Position, Sector, State, Variant};

fn lasker() -> Variant {
    Variant::named("lasker").unwrap()
}

fn moves(v: &Variant, s: &State) -> Vec<String> {
    let mut list: Vec<String> = legal_moves(v, s).iter().map(|m| m.notation(v)).collect();
    list.sort();
    list
}

#[test]
fn lasker_counts_the_stones_left_in_all_by_default_and_the_key_says_so() {
    let all = lasker();
    assert_eq!(all.fly_count(), FlyCount::All);
    let board = all.clone().with_fly_count(FlyCount::Board).unwrap();
    // The board-only key is the key of every Lasker table from before the
    // option existed, so those tables stay valid under it.
    assert_eq!(
        board.rules_key(),
        "lasker board=3x8 points=24 mills=16 stones=10 fly=3 fullboard=normal lasker=true"
    );
    assert_eq!(all.rules_key(), format!("{} fly-count=all", board.rules_key()));
    // The keys of the other variants do not change.
    let nine = Variant::named("nine").unwrap();
    assert_eq!(
        nine.rules_key(),
        "nine board=3x8 points=24 mills=16 stones=9 fly=3 fullboard=normal lasker=false"
    );
}

#[test]
fn the_option_is_refused_where_nobody_moves_with_stones_in_hand() {
    for name in ["nine", "twelve", "eleven", "six", "five", "morabaraba"] {
        for count in [FlyCount::Board, FlyCount::All] {
            let err = Variant::named(name).unwrap().with_fly_count(count).unwrap_err();
            assert_eq!(err, VariantError::FlyCountWithoutMoves(name.to_string()));
            assert!(err.to_string().contains("lasker only"), "{err}");
        }
    }
    assert_eq!("board".parse(), Ok(FlyCount::Board));
    assert_eq!("all".parse(), Ok(FlyCount::All));
    assert!(matches!("hand".parse::<FlyCount>(), Err(VariantError::BadFlyCount(_))));
}

/// White has two stones on the board and one in hand: three left in all.
/// Under the published reading White may fly a stone to any empty point
/// (as well as place); under the board's it may only slide to a neighbour.
#[test]
fn two_stones_on_the_board_and_one_in_hand_fly_only_when_all_stones_count() {
    let all = lasker();
    let board = all.clone().with_fly_count(FlyCount::Board).unwrap();
    let text = "WW.B..../B......./B....... w 1 1";
    let state = Position::parse(text, &all).unwrap().state();
    let (flying, sliding) = (moves(&all, &state), moves(&board, &state));
    // Placements are the same; only the moves of a stone differ.
    let placed = |list: &[String]| -> Vec<String> {
        list.iter().filter(|m| !m.contains('-')).cloned().collect()
    };
    assert_eq!(placed(&flying), placed(&sliding));
    let moved = |list: &[String]| -> Vec<String> {
        list.iter().filter(|m| m.contains('-')).cloned().collect()
    };
    // Slides: a7-a4, d7-d6, d7-g7.
    assert_eq!(moved(&sliding), ["a7-a4", "d7-d6", "d7-g7"]);
    // Flights: either stone to any of the 19 empty points.
    assert_eq!(moved(&flying).len(), 2 * 19, "{flying:?}");
    assert!(flying.contains(&"a7-e3".to_string()) && !sliding.contains(&"a7-e3".to_string()));
    // With two stones in hand (four left in all) nobody flies.
    let four = Position::parse("WW.B..../B......./B....... w 2 1", &all).unwrap().state();
    assert_eq!(moves(&all, &four), moves(&board, &four));
}

/// A table refused for its flying count names the option that reads it.
#[test]
fn a_refusal_for_the_other_reading_names_the_option() {
    let all = lasker().rules_key();
    let board = lasker().with_fly_count(FlyCount::Board).unwrap().rules_key();
    assert_eq!(
        rules_hint(&board, &all),
        " (it was solved with --fly-count board; give the same to read it)"
    );
    assert_eq!(
        rules_hint(&all, &board),
        " (it was solved with --fly-count all; give the same to read it)"
    );
    let nine = Variant::named("nine").unwrap();
    let never = nine.clone().with_flying(morris::Flying::Never).rules_key();
    assert_eq!(
        rules_hint(&never, &nine.rules_key()),
        " (it was solved with --fly-at never; give the same to read it)"
    );
    // Keys of other games: no option reads them.
    assert_eq!(rules_hint(&nine.rules_key(), &all), "");
}

/// The published figure that tells the readings apart: in sector 4-2-1-2
/// (White to move with 4 on the board and 1 in hand, Black 2 and 2) the
/// side to move wins nowhere under the published reading (an independent
/// solver's figures agree), and in 92 states when only the board counts.
/// Every state's value is from a solve of Lasker up to 9 stones.
#[test]
fn lasker_4_2_1_2_has_no_win_as_published_and_92_when_only_the_board_counts() {
    let sector: Sector = "4-2-1-2".parse().unwrap();
    let wins = |v: Variant| {
        let db = Database::new(tempfile::tempdir().unwrap().keep(), v);
        db.solve_moving(9, 2, &Quiet).unwrap();
        db.solve_placement(9, 2, &Quiet).unwrap();
        let counts = db.table(sector).unwrap().info().counts.clone();
        assert_eq!(counts.states, 127_568);
        std::fs::remove_dir_all(db.dir()).unwrap();
        counts.wins
    };
    assert_eq!(wins(lasker()), 0);
    assert_eq!(wins(lasker().with_fly_count(FlyCount::Board).unwrap()), 92);
}

/// Every canonical state of every moving and extended placement sector of
/// `board` (a variant under the board's reading) with at most `max_stones` stones has the same moves and status
/// under both readings. Returns the states compared where a side has
/// stones in hand and the other none (one hand emptied first).
fn readings_agree_on_every_state(board: Variant, max_stones: u32) -> u64 {
    let name = board.name().to_string();
    let all = board.clone().with_fly_count_unchecked(FlyCount::All);
    assert_eq!(board.rules_key(), all.rules_key(), "{name}");
    let ix = Indexer::new(board.board());
    let sectors = moving_sectors(&board).into_iter().chain(extended_placement_sectors(&board));
    let mut uneven = 0;
    for sector in sectors.filter(|s| s.total_stones() <= max_stones) {
        let index = ix.sector(sector);
        index.for_each_in(0..index.slots(), |_, mover, opponent| {
            let state = sector.state(mover, opponent);
            assert_eq!(moves(&board, &state), moves(&all, &state), "{name} {sector}");
            assert_eq!(status(&board, &state), status(&all, &state), "{name} {sector}");
            uneven += ((state.mover_hand == 0) != (state.opponent_hand == 0)) as u64;
        });
    }
    uneven
}

#[test]
fn the_readings_agree_in_every_other_variant_extended_starts_included() {
    // Six and five fly at 3 here, so that an emptied hand can fly.
    let named = |name: &str| Variant::named(name).unwrap();
    let at_3 = |name: &str| named(name).with_flying(morris::Flying::AtMost(3));
    assert!(readings_agree_on_every_state(at_3("six"), 9) > 10_000);
    assert!(readings_agree_on_every_state(at_3("five"), 10) > 1_000);
    assert!(readings_agree_on_every_state(named("nine"), 7) > 10_000);
    assert!(readings_agree_on_every_state(named("twelve"), 7) > 10_000);
}

/// Six whole, from every start (`--extended`), solved under each reading:
/// the same table files byte for byte.
#[test]
fn six_from_every_start_solves_into_the_same_tables_under_both_readings() {
    let solve = |v: Variant| {
        let db = Database::new(tempfile::tempdir().unwrap().keep(), v);
        db.solve_moving(12, 2, &Quiet).unwrap();
        db.solve_extended_placement(12, 2, &Quiet).unwrap();
        db
    };
    let six = Variant::named("six").unwrap().with_flying(morris::Flying::AtMost(3));
    let (board, all) = (solve(six.clone()), solve(six.with_fly_count_unchecked(FlyCount::All)));
    let tables = |db: &Database| {
        let mut names: Vec<_> = std::fs::read_dir(db.dir())
            .unwrap()
            .map(|f| f.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".mtb"))
            .collect();
        names.sort();
        names
    };
    let names = tables(&board);
    assert_eq!(names, tables(&all));
    assert!(names.len() > 100, "{}", names.len());
    for name in &names {
        let read = |db: &Database| std::fs::read(db.dir().join(name)).unwrap();
        assert!(read(&board) == read(&all), "{name:?} differs");
    }
    for db in [board, all] {
        std::fs::remove_dir_all(db.dir()).unwrap();
    }
}
