//! The placement search against the placement tables: sampled positions,
//! the start positions of six and five with every first move and the
//! perfect-play line `morris query` gives, and the same answers from a
//! transposition table too small to keep anything. `morris query` answered
//! by a search is in `cli_query.rs`.

use morris::database::Database;

use morris::driver::Quiet;
use morris::query::{after, Exactness, Query};
use morris::rules::{legal_moves, play, status, Status};
use morris::search::{Outcome, Search, SearchOptions, SearchStats};
use morris::sectors::placement_sectors;
use morris::{Position, Value, Variant};

fn moving_only(v: Variant, max_stones: u32) -> Database {
    let db = Database::new(tempfile::tempdir().unwrap().keep(), v);
    db.solve_moving(max_stones, 2, &Quiet).unwrap();
    db
}

/// The moving phase, and the placement phase too (`max_stones` stones).
fn with_placement(v: Variant, max_stones: u32) -> Database {
    let db = moving_only(v, max_stones);
    db.solve_placement(max_stones, 2, &Quiet).unwrap();
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
/// placement tables; so do its null-window questions.
fn search_agrees_with_tables(
    v: Variant,
    max_stones: u32,
    step: u64,
    options: SearchOptions,
) -> usize {
    let searched = moving_only(v.clone(), max_stones);
    let tabled = with_placement(v, max_stones);
    let mut search = Search::with_options(&searched, options);
    let mut compared = 0;
    for sector in
        placement_sectors(tabled.variant()).into_iter().filter(|s| s.total_stones() <= max_stones)
    {
        let index = tabled.indexer().sector(sector);
        let mut k = 0u64;
        index.for_each_in(0..index.slots(), |_, mover, opponent| {
            k += 1;
            if !k.is_multiple_of(step) {
                return;
            }
            let state = sector.state(mover, opponent);
            let table = outcome_of(tabled.value(&state).unwrap());
            assert_eq!(search.outcome(&state).unwrap(), table, "{sector} {state:?}");
            let score = table.score();
            assert!(
                search.at_least(&state, score).unwrap() && search.at_most(&state, score).unwrap(),
                "{sector} {state:?}"
            );
            if score < 1 {
                assert!(!search.at_least(&state, score + 1).unwrap(), "{sector} {state:?}");
            }
            compared += 1;
        });
    }
    compared
}

#[test]
fn nine_late_placement_search_matches_tables() {
    let n =
        search_agrees_with_tables(Variant::named("nine").unwrap(), 8, 41, SearchOptions::default());
    assert!(n > 1000, "compared {n}");
}

#[test]
fn six_placement_search_matches_tables() {
    let n =
        search_agrees_with_tables(Variant::named("six").unwrap(), 10, 29, SearchOptions::default());
    assert!(n > 1000, "compared {n}");
}

#[test]
fn five_placement_search_matches_tables() {
    let n =
        search_agrees_with_tables(Variant::named("five").unwrap(), 10, 7, SearchOptions::default());
    assert!(n > 1000, "compared {n}");
}

/// Regression guard for the replacement of entries: a table of one bucket
/// (four entries) forgets nearly everything, and must still be right.
#[test]
fn a_transposition_table_of_one_bucket_gives_the_same_values() {
    let n = search_agrees_with_tables(
        Variant::named("six").unwrap(),
        9,
        97,
        SearchOptions { transposition_bytes: 32, ..SearchOptions::default() },
    );
    assert!(n > 100, "compared {n}");
}

/// Threads sharing the transposition table: every question of more than
/// a thousand nodes goes to three threads at once, with a large table
/// and with a table of one bucket that they fight over.
#[test]
fn threads_sharing_the_table_give_the_same_values() {
    for bytes in [64 << 20, 32] {
        let options = SearchOptions {
            transposition_bytes: bytes,
            threads: 3,
            alone_nodes: 0,
            huge_pages: bytes > 32,
        };
        let n = search_agrees_with_tables(Variant::named("six").unwrap(), 9, 97, options);
        assert!(n > 100, "compared {n}");
    }
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

/// `morris query start` without placement tables: the value and every
/// first move's result agree with the tables in kind, and the line keeps
/// the value at every ply by the tables.
#[test]
fn six_and_five_start_analysis_by_search_matches_the_tables() {
    for name in ["six", "five"] {
        let v = Variant::named(name).unwrap();
        let stones = 2 * v.stones() as u32;
        let searched = moving_only(v.clone(), stones);
        let tabled = with_placement(v, stones);
        let start = Position::start(tabled.variant());
        let by_tables = Query::new(&tabled).analyse(&start).unwrap();
        assert_eq!(by_tables.value, Value::Draw, "{name}");
        // Alone, and with two threads on every question of over a
        // thousand nodes.
        let threads = SearchOptions { threads: 2, alone_nodes: 0, ..SearchOptions::default() };
        for by_search in [
            Query::new(&searched).analyse(&start).unwrap(),
            Query::with_search(&searched, threads, &quiet).analyse(&start).unwrap(),
        ] {
            compare_analyses(name, &tabled, &start, by_search, &by_tables);
        }
    }
}

fn quiet(_: &SearchStats) {}

fn compare_analyses(
    name: &str,
    tabled: &Database,
    start: &Position,
    by_search: morris::query::Analysis,
    by_tables: &morris::query::Analysis,
) {
    {
        assert_eq!(
            (by_search.value, by_search.exactness),
            (Value::Draw, Exactness::ValueOnly),
            "{name}"
        );
        assert_eq!(by_search.moves.len(), by_tables.moves.len(), "{name}");
        for m in &by_search.moves {
            let table = by_tables.moves.iter().find(|t| t.mv == m.mv).unwrap();
            assert_eq!(
                m.value.kind(),
                table.value.kind(),
                "{name} {}",
                m.mv.notation(tabled.variant())
            );
            assert_eq!(m.exactness, Exactness::ValueOnly, "{name}");
        }
        assert_line_keeps_the_draw(tabled, start, &by_search.line.as_ref().unwrap().moves);
    }
}

/// Every move of `line` is legal and leads to a position the tables call
/// a draw.
fn assert_line_keeps_the_draw(tabled: &Database, start: &Position, line: &[morris::Move]) {
    let v = tabled.variant();
    assert!(
        line.len() > v.stones() as usize * 2,
        "the line goes past the placement phase: {}",
        line.len()
    );
    let mut at = *start;
    for &mv in line {
        assert!(
            legal_moves(v, &at.state()).contains(&mv),
            "{} in {}",
            mv.notation(v),
            at.notation(v)
        );
        at = after(&at, mv);
        assert_eq!(status(v, &at.state()), Status::Playing);
        assert_eq!(
            tabled.value(&at.state()).unwrap(),
            Value::Draw,
            "after {}: {}",
            mv.notation(v),
            at.notation(v)
        );
    }
}

/// Every first placement of six and five, and every reply to it: the
/// search's value agrees with the placement tables.
#[test]
fn every_first_two_placements_of_six_and_five_match_the_tables() {
    for name in ["six", "five"] {
        let v = Variant::named(name).unwrap();
        let stones = 2 * v.stones() as u32;
        let searched = moving_only(v.clone(), stones);
        let tabled = with_placement(v, stones);
        let mut search = Search::new(&searched);
        let start = Position::start(tabled.variant()).state();
        for first in legal_moves(tabled.variant(), &start) {
            let one = play(&start, first);
            assert_eq!(
                search.outcome(&one).unwrap(),
                outcome_of(tabled.value(&one).unwrap()),
                "{name} {first:?}"
            );
            for second in legal_moves(tabled.variant(), &one) {
                let two = play(&one, second);
                assert_eq!(
                    search.outcome(&two).unwrap(),
                    outcome_of(tabled.value(&two).unwrap()),
                    "{name} {first:?} {second:?}"
                );
            }
        }
    }
}
