//! Queries on a solved database through the library: values, move lists,
//! perfect-play lines, the perfect player's choice, errors. The `query`
//! and `play` commands of the binary are in `cli_query.rs`.
//!
//! One database is solved for the whole file: nine's moving phase with at
//! most 7 stones on the board (sectors 3-3, 3-4, 4-3).

mod nine7;

use morris::database::Database;
use morris::index::Sector;
use morris::position::{Move, Position, State};
use morris::query::{after, play_moves, Exactness, Query, QueryError, DRAW_LINE_PLIES};
use morris::rules::{legal_moves, status, Status};
use morris::value::Value;
use morris::verify::value_from_successors;
use nine7::{db, nine, positions};
use std::path::Path;

const SECTORS: [(u8, u8); 3] = [(3, 3), (3, 4), (4, 3)];

fn dir() -> &'static Path {
    db().dir()
}

/// Some positions of every solved sector.
fn sample() -> Vec<Position> {
    SECTORS.iter().flat_map(|&(m, o)| positions(Sector::moving(m, o), 997, 13)).collect()
}

fn stored(state: &State) -> Value {
    db().value(state).unwrap()
}

#[test]
fn moves_come_best_first_with_the_values_of_the_tables() {
    let q = Query::new(db());
    let v = nine();
    let mut checked = 0;
    for p in sample() {
        let a = q.analyse(&p).unwrap();
        let state = p.state();
        assert_eq!(a.sector, Sector::of(&state));
        assert_eq!(a.exactness, Exactness::Exact);
        if status(&v, &state) != Status::Playing {
            assert!(a.moves.is_empty() && a.line.as_ref().unwrap().moves.is_empty());
            continue;
        }
        assert_eq!(a.value, stored(&state), "{}", p.notation(&v));
        assert_eq!(a.value, value_from_successors(&v, &state, &|s| stored(s)));
        let legal = legal_moves(&v, &state);
        assert_eq!(a.moves.len(), legal.len());
        for m in &a.moves {
            let next = morris::rules::play(&state, m.mv);
            let after_value = if next.mover_stones() < 3 { Value::Loss(0) } else { stored(&next) };
            assert_eq!(m.value, after_value.back());
        }
        assert_eq!(a.moves[0].value, a.value);
        for pair in a.moves.windows(2) {
            let (x, y) = (pair[0], pair[1]);
            assert!(x.value.preference() >= y.value.preference(), "not best first: {x:?} {y:?}");
            if x.value == y.value {
                let at = |m: Move| legal.iter().position(|&l| l == m).unwrap();
                assert!(at(x.mv) < at(y.mv), "ties keep the order of legal_moves");
            }
        }
        checked += 1;
    }
    assert!(checked > 500, "only {checked} positions checked");
}

#[test]
fn lines_are_perfect_play_to_the_end() {
    let q = Query::new(db());
    let v = nine();
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for p in sample() {
        let a = q.analyse(&p).unwrap();
        let mut at = p;
        let mut value = a.value;
        for (k, &mv) in a.line.as_ref().unwrap().moves.iter().enumerate() {
            assert!(legal_moves(&v, &at.state()).contains(&mv));
            at = after(&at, mv);
            let next =
                if at.state().mover_stones() < 3 { Value::Loss(0) } else { stored(&at.state()) };
            assert_eq!(next.back(), value, "ply {k} of the line from {}", p.notation(&v));
            value = next;
        }
        assert_eq!(at, a.line.as_ref().unwrap().end);
        match a.value {
            Value::Draw => {
                draws += 1;
                assert!(a.line.as_ref().unwrap().cut);
                assert_eq!(a.line.as_ref().unwrap().moves.len(), DRAW_LINE_PLIES);
            }
            Value::Win(d) | Value::Loss(d) => {
                if d > 0 {
                    if matches!(a.value, Value::Win(_)) {
                        wins += 1;
                    } else {
                        losses += 1;
                    }
                }
                assert!(!a.line.as_ref().unwrap().cut);
                assert_eq!(a.line.as_ref().unwrap().moves.len(), d as usize);
                assert_eq!(status(&v, &at.state()), Status::Lost);
                // The side that was winning moved last.
                let loser =
                    if matches!(a.value, Value::Win(_)) { p.to_move.other() } else { p.to_move };
                assert_eq!(at.to_move, loser);
            }
        }
        // `line` on its own gives the same moves.
        let line = q.line(&p, a.line.as_ref().unwrap().moves.len()).unwrap();
        assert_eq!(line.moves, a.line.as_ref().unwrap().moves);
    }
    assert!(wins > 50 && losses > 20 && draws > 0, "wins {wins} losses {losses} draws {draws}");
}

#[test]
fn drawn_lines_are_cut_and_say_so() {
    let q = Query::new(db());
    let draws: Vec<Position> = positions(Sector::moving(3, 3), 1, 0)
        .into_iter()
        .filter(|p| stored(&p.state()) == Value::Draw)
        .take(20)
        .collect();
    assert_eq!(draws.len(), 20);
    for p in draws {
        let line = q.line(&p, 7).unwrap();
        assert_eq!((line.moves.len(), line.cut), (7, true));
        let mut at = p;
        for &mv in &line.moves {
            at = after(&at, mv);
            assert_eq!(stored(&at.state()), Value::Draw);
        }
    }
}

#[test]
fn values_are_for_the_side_to_move_whatever_its_colour() {
    let q = Query::new(db());
    let v = nine();
    for p in sample().into_iter().take(300) {
        let swapped = Position {
            white: p.black,
            black: p.white,
            white_hand: p.black_hand,
            black_hand: p.white_hand,
            to_move: p.to_move.other(),
        };
        assert_eq!(q.value(&p).unwrap(), q.value(&swapped).unwrap());
        let (a, b) = (q.moves(&p).unwrap(), q.moves(&swapped).unwrap());
        assert_eq!(a, b, "{}", p.notation(&v));
    }
}

#[test]
fn symmetric_positions_have_the_same_value_and_move_values() {
    let q = Query::new(db());
    let syms = db().indexer().symmetries();
    for p in sample().into_iter().step_by(7).take(100) {
        let values = |p: &Position| {
            let mut vs: Vec<Value> = q.moves(p).unwrap().iter().map(|m| m.value).collect();
            vs.sort_by_key(|v| v.preference());
            (q.value(p).unwrap().0, vs)
        };
        for s in 0..syms.len() {
            let image =
                Position { white: syms.apply(s, p.white), black: syms.apply(s, p.black), ..p };
            assert_eq!(values(&image), values(&p));
        }
    }
}

#[test]
fn the_perfect_player_wins_fastest_loses_slowest_and_sets_traps_when_drawing() {
    let q = Query::new(db());
    let mut draws = 0;
    for p in sample().into_iter().step_by(3) {
        let Some(choice) = q.choose_move(&p).unwrap() else {
            continue;
        };
        let moves = q.moves(&p).unwrap();
        assert_eq!(choice.value, moves[0].value);
        if choice.value != Value::Draw {
            assert_eq!(choice, moves[0], "fastest win or slowest loss, first in move order");
            continue;
        }
        draws += 1;
        // Brute force: most losing replies, then fewest drawing ones.
        let score = |mv: Move| {
            let replies = q.moves(&after(&p, mv)).unwrap();
            let losing = replies.iter().filter(|r| matches!(r.value, Value::Loss(_))).count();
            let drawing = replies.iter().filter(|r| r.value == Value::Draw).count();
            (losing, std::cmp::Reverse(drawing))
        };
        let best =
            moves.iter().filter(|m| m.value == Value::Draw).map(|m| score(m.mv)).max().unwrap();
        assert_eq!(score(choice.mv), best);
        let first = moves.iter().find(|m| m.value == Value::Draw && score(m.mv) == best).unwrap();
        assert_eq!(choice.mv, first.mv, "ties go to the earlier move");
    }
    let three = positions(Sector::moving(3, 3), 1, 0);
    for p in three.iter().filter(|p| stored(&p.state()) == Value::Draw).take(10) {
        let choice = q.choose_move(p).unwrap().unwrap();
        assert_eq!(choice.value, Value::Draw);
        draws += 1;
    }
    assert!(draws >= 10);
}

#[test]
fn a_game_that_is_over_needs_no_table() {
    let v = nine();
    // An empty database: the rules answer.
    let empty = Database::new(tempfile::tempdir().unwrap().path(), nine());
    let q = Query::new(&empty);
    // White's corners are boxed in by Black's midpoints.
    let blocked = Position::parse("WBWBWBWB/......../........ w 0 0", &v).unwrap();
    let a = q.analyse(&blocked).unwrap();
    assert_eq!((a.value, a.status, a.moves.len()), (Value::Loss(0), Status::Lost, 0));
    assert!(q.choose_move(&blocked).unwrap().is_none());
    // After a capture that leaves Black two stones.
    let p = Position::parse("WW....B./W......./BB...... w 0 0", &v).unwrap();
    let (end, _) = play_moves(&v, &p, "b6-g7xa1").unwrap();
    assert_eq!(q.value(&end).unwrap(), (Value::Loss(0), Exactness::Exact));
    assert!(q.best_move(&end).unwrap().is_none());
}

#[test]
fn a_missing_sector_names_itself_and_the_solve_command() {
    let v = nine();
    let q = Query::new(db());
    let dir = dir().display().to_string();
    for (text, sector, stones) in [
        // 5 White stones against 3: sector 5-3, which needs 8 stones.
        ("WWWWW.../BBB...../........ w 0 0", "5-3", 8),
        ("WWWW..../BBBB..../........ b 0 0", "4-4", 8),
        // The start is searched down to the moving phase, which is missing
        // from its first sector past the database's 7 stones.
        ("......../......../........ w 9 9", "4-4", 18),
    ] {
        let p = Position::parse(text, &v).unwrap();
        let err = q.analyse(&p).unwrap_err();
        assert!(matches!(err, QueryError::Db(morris::database::DbError::Missing { .. })), "{err}");
        let msg = err.to_string();
        assert!(msg.contains(&format!("sector {sector} ")), "{msg}");
        assert!(
            msg.contains(&format!("morris solve --variant nine --max-stones {stones} --db {dir}")),
            "{msg}"
        );
    }
}
