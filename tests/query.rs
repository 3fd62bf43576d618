//! Queries on a solved database through the library: values, move lists,
//! perfect-play lines, the perfect player's choice, errors. The `query`
//! and `play` commands of the binary are in `cli_query.rs`.
//!
//! One database is solved for the whole file: nine's moving phase with at
//! most 7 stones on the board (sectors 3-3, 3-4, 4-3); its win/draw/loss
//! tier, exported alone into a directory of its own, answers the same
//! values without distances, and no line.

mod nine7;

use morris::database::{Database, DbError};
use morris::index::Sector;
use morris::position::{Move, Position, State};
use morris::query::{after, play_moves, Exactness, MoveValue, Query, QueryError, DRAW_LINE_PLIES};
use morris::rules::{legal_moves, status, Status};
use morris::table::Compression;
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
        // The library's message speaks of the table; the front ends'
        // rendering adds the command that makes it.
        let msg = err.to_string();
        assert!(msg.contains(&format!("sector {sector} ")) && !msg.contains("morris"), "{msg}");
        let msg = morris::hints::one_line_with_hints(&err);
        assert!(
            msg.contains(&format!("morris solve --variant nine --max-stones {stones} --db {dir}")),
            "{msg}"
        );
    }
}

/// The win/draw/loss tier of the shared database, alone in a directory of
/// its own inside the database's (made once per test file).
fn wdl_db() -> &'static Database {
    static DB: std::sync::OnceLock<Database> = std::sync::OnceLock::new();
    DB.get_or_init(|| {
        let dir = dir().join("wdl");
        std::fs::create_dir(&dir).unwrap();
        for (m, o) in SECTORS {
            db().export_wdl(Sector::moving(m, o), &dir, Compression::Smallest, &|| false).unwrap();
        }
        Database::new(dir, nine())
    })
}

/// Each kind of result ("win", "draw", "loss"), best first, with its
/// moves in notation, sorted.
fn moves_by_kind(moves: &[MoveValue]) -> Vec<(&'static str, Vec<String>)> {
    let v = nine();
    let mut kinds: Vec<(&'static str, Vec<String>)> = Vec::new();
    for m in moves {
        match kinds.last_mut() {
            Some((kind, ms)) if *kind == m.value.kind() => ms.push(m.mv.notation(&v)),
            _ => kinds.push((m.value.kind(), vec![m.mv.notation(&v)])),
        }
    }
    kinds.iter_mut().for_each(|(_, ms)| ms.sort());
    kinds
}

#[test]
fn the_win_draw_loss_tier_alone_gives_the_values_and_ranks_the_moves_by_kind() {
    let (full, wdl) = (Query::new(db()), Query::new(wdl_db()));
    let v = nine();
    let mut playing = 0;
    for p in sample() {
        let (value, _) = full.value(&p).unwrap();
        let (kind, exactness) = wdl.value(&p).unwrap();
        assert_eq!(kind.kind(), value.kind(), "{}", p.notation(&v));
        if status(&v, &p.state()) != Status::Playing {
            assert_eq!(exactness, Exactness::Exact, "the rules answer");
            continue;
        }
        playing += 1;
        assert_eq!(exactness, Exactness::ValueOnly);
        let bare = match value {
            Value::Win(_) => Value::Win(1),
            Value::Draw => Value::Draw,
            Value::Loss(_) => Value::Loss(0),
        };
        assert_eq!(kind, bare, "the placeholders of bare win/draw/loss");
        let moves = wdl.moves(&p).unwrap();
        assert_eq!(moves_by_kind(&moves), moves_by_kind(&full.moves(&p).unwrap()));
        // A position after a move that the rules end is exact.
        for m in &moves {
            let over = after(&p, m.mv).state().mover_stones() < 3;
            assert_eq!(m.exactness == Exactness::Exact, over, "{}", m.mv.notation(&v));
        }
    }
    assert!(playing > 500, "only {playing} positions");
}

#[test]
fn the_line_and_the_perfect_player_say_they_need_the_full_tier() {
    let q = Query::new(wdl_db());
    let v = nine();
    let dir = wdl_db().dir().display().to_string();
    let mut asked = 0;
    for p in sample().into_iter().step_by(11) {
        let state = p.state();
        if status(&v, &state) != Status::Playing {
            continue;
        }
        let sector = Sector::of(&state);
        // The library's message, and the front ends' rendering of it with
        // the command that makes the full table.
        let says = |err: &(dyn std::error::Error + 'static), what: &str| {
            let plain = format!(
                "{dir} holds only the win/draw/loss tier of sector {sector}: {what} needs distances, from the full tables"
            );
            let text = err.to_string();
            assert!(text.contains(&plain) && !text.contains("morris solve"), "{text}");
            let text = morris::hints::one_line_with_hints(err);
            let command = format!(
                " (`morris solve --variant nine --max-stones {} --db {dir}`)",
                sector.total_stones()
            );
            assert!(text.contains(&format!("{plain}{command}")), "{text}");
        };
        // The analysis keeps the value and the moves, and says why there
        // is no line.
        let a = q.analyse(&p).unwrap();
        assert_eq!(a.exactness, Exactness::ValueOnly);
        assert!(!a.moves.is_empty());
        // The best move by kind is still there.
        assert_eq!(q.best_move(&p).unwrap().unwrap().value.kind(), a.value.kind());
        let needed = a.line.unwrap_err();
        assert_eq!(needed.sector, sector);
        says(&needed, "a perfect-play line");
        let err = q.line(&p, 100).unwrap_err();
        assert!(matches!(err, QueryError::Db(DbError::NeedsFullTier(_))), "{err}");
        says(&err, "a perfect-play line");
        says(&q.choose_move(&p).unwrap_err(), "the perfect player");
        let game = morris::game::Game::new(p, morris::game::Repetition::Board);
        says(&game.choose_move(&q).unwrap_err(), "the perfect player");
        // Distances straight from the database: the same error.
        let err = wdl_db().value(&state).unwrap_err();
        says(&err, "what was asked");
        asked += 1;
    }
    assert!(asked > 50, "only {asked} positions");
}

#[test]
fn a_damaged_win_draw_loss_table_is_reported_never_read() {
    let v = nine();
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(wdl_db().dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wdl") {
            std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let damaged = Database::new(dir.path(), nine());
    let sector = Sector::moving(4, 3);
    let path = damaged.wdl_path(sector);
    let mut bytes = std::fs::read(&path).unwrap();
    // A byte of every block's record: the last few bytes of the file
    // (the last block's checksum) and one in the middle (a block's data).
    for at in [bytes.len() / 2, bytes.len() - 3] {
        bytes[at] ^= 0x24;
    }
    std::fs::write(&path, &bytes).unwrap();
    let q = Query::new(&damaged);
    let (mut errors, mut answered) = (0, 0);
    for p in positions(sector, 997, 13) {
        if status(&v, &p.state()) != Status::Playing {
            continue;
        }
        match q.value(&p) {
            Ok((value, _)) => {
                assert_eq!(value.kind(), stored(&p.state()).kind());
                answered += 1;
            }
            Err(err) => {
                let msg = err.to_string();
                assert!(msg.contains(&path.display().to_string()), "{msg}");
                errors += 1;
            }
        }
    }
    assert!(errors > 0 && answered > 0, "{errors} errors, {answered} answered");
    // A damaged front: the table does not open.
    bytes[20] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();
    let fresh = Database::new(dir.path(), nine());
    let p = positions(sector, 997, 13)
        .into_iter()
        .find(|p| status(&v, &p.state()) == Status::Playing)
        .unwrap();
    let err = Query::new(&fresh).value(&p).unwrap_err().to_string();
    assert!(err.contains(&path.display().to_string()), "{err}");
}

#[test]
fn probe_answers_from_the_win_draw_loss_tier_as_the_query_does() {
    use morris::probe::{probe, ProbeOptions};
    let q = Query::new(wdl_db());
    let positions = sample();
    let answers = probe(wdl_db(), &positions, ProbeOptions { moves: true }, None, "");
    for (p, answer) in positions.iter().zip(answers) {
        let probed = answer.unwrap();
        let moves = q.moves(p).unwrap_or_default();
        let (value, exactness) = q.value(p).unwrap();
        let exactness = moves.iter().fold(exactness, |e, m| e.and(m.exactness));
        assert_eq!((probed.value, probed.exactness), (value, exactness), "{}", p.notation(&nine()));
        assert_eq!(probed.moves, moves);
    }
}
