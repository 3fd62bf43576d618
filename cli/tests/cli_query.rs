//! `morris query` and `morris play` as users run them: the text and JSON
//! of a query, moves played first, refused moves, missing sectors, whole
//! games played from piped moves, and a query answered by a search.
//!
//! The database is the one of the library's query tests
//! (`tests/query.rs`): nine's moving phase with at most 7 stones on the
//! board (sectors 3-3, 3-4, 4-3), solved once for the file; the search
//! on six's start gets six's moving phase.

mod common;
// Shared with the library's tests.
#[path = "../../tests/nine7/mod.rs"]
mod nine7;

use common::{field, json, morris_with_input, scratch, text};
use morris::database::Database;
use morris::driver::Quiet;
use morris::game::{Game, Repetition};
use morris::index::Sector;
use morris::position::{Color, Move, Position};
use morris::query::{after, Query};
use morris::rules::{status, Status};
use morris::tiebreak::Style;
use morris::value::Value;
use morris::variant::Variant;
use nine7::{db, nine, positions};
use serde_json::Value as Json;
use std::process::Output;
use std::sync::OnceLock;

fn ok(args: &[&str]) -> String {
    common::ok(db().dir(), args)
}

fn fails(args: &[&str]) -> String {
    common::fails(db().dir(), args)
}

fn with_input(args: &[&str], input: &str) -> Output {
    morris_with_input(db().dir(), args, input)
}

/// A position with the longest win for White among some of 3-3 and 3-4.
fn long_win() -> Position {
    static WIN: OnceLock<Position> = OnceLock::new();
    *WIN.get_or_init(|| {
        let q = Query::new(db());
        [Sector::moving(3, 3), Sector::moving(3, 4)]
            .into_iter()
            .flat_map(|s| positions(s, 7, 0))
            .max_by_key(|p| match q.value(p).unwrap().0 {
                Value::Win(d) => d as i32,
                _ => -1,
            })
            .unwrap()
    })
}

#[test]
fn query_prints_value_moves_line_and_diagram() {
    let v = nine();
    let p = long_win();
    let Value::Win(d) = Query::new(db()).value(&p).unwrap().0 else { unreachable!() };
    let text = ok(&["query", &p.notation(&v)]);
    assert!(text.starts_with("7 "), "the diagram comes first: {text}");
    assert!(text.contains("  a   b   c   d   e   f   g"));
    assert!(text.contains(&format!("value      White wins in {d} plies")), "{text}");
    assert!(text.contains(&format!("sector     {}", Sector::of(&p.state()))));
    let moves = Query::new(db()).moves(&p).unwrap();
    assert!(text.contains(&format!("moves      {}, best first", moves.len())), "{text}");
    let best = moves[0].mv.notation(&v);
    assert!(text.contains(&format!("  {best} ")), "{text}");
    assert!(text.contains(&format!("line       {d} plies to the end: White wins")), "{text}");
    // Black to move in the same position: its value is for Black.
    let black = Position { to_move: Color::Black, ..p };
    let value = Query::new(db()).value(&black).unwrap().0;
    let text = ok(&["query", &black.notation(&v)]);
    assert!(
        text.contains(&format!(
            "value      {}",
            morris::query::describe_value(value, Color::Black)
        )),
        "{text}"
    );
}

#[test]
fn query_json_follows_the_design() {
    let v = nine();
    let q = Query::new(db());
    let draw = positions(Sector::moving(3, 4), 1, 0)
        .into_iter()
        .find(|p| q.value(p).unwrap().0 == Value::Draw)
        .unwrap();
    for p in [long_win(), draw, Position { to_move: Color::Black, ..long_win() }] {
        let a = q.analyse(&p).unwrap();
        let json = json(&ok(&["query", &p.notation(&v), "--json"]));
        let array = |key| field(&json, key).as_array().unwrap_or_else(|| panic!("{key}: {json}"));
        assert_eq!(*field(&json, "value"), a.value.kind());
        match a.value.plies() {
            Some(d) => assert_eq!(*field(&json, "plies"), d),
            None => assert!(field(&json, "plies").is_null(), "{json}"),
        }
        assert_eq!(*field(&json, "position"), p.notation(&v));
        assert_eq!(*field(&json, "sector"), a.sector.to_string());
        assert_eq!(*field(&json, "exact"), true);
        let moves = array("moves");
        assert_eq!(moves.len(), a.moves.len());
        for (j, m) in moves.iter().zip(&a.moves) {
            assert_eq!(*field(j, "move"), m.mv.notation(&v));
            assert_eq!(*field(j, "value"), m.value.kind());
            assert_eq!(*field(j, "position"), after(&p, m.mv).notation(&v));
            match m.value.plies() {
                Some(d) => assert_eq!(*field(j, "plies"), d),
                None => assert!(field(j, "plies").is_null(), "{j}"),
            }
        }
        let line: Vec<&Json> = array("line").iter().collect();
        let expected: Vec<Json> =
            a.line.as_ref().unwrap().moves.iter().map(|m| Json::from(m.notation(&v))).collect();
        assert_eq!(line, expected.iter().collect::<Vec<_>>());
        assert_eq!(*field(&json, "line_cut"), a.value == Value::Draw);
    }
}

#[test]
fn query_moves_plays_a_sequence_first() {
    let v = nine();
    let p = long_win();
    let q = Query::new(db());
    let first = q.best_move(&p).unwrap().unwrap().mv;
    let reply = q.best_move(&after(&p, first)).unwrap().unwrap().mv;
    let sequence = format!("{} {}", first.notation(&v), reply.notation(&v));
    let text = ok(&["query", &p.notation(&v), "--moves", &sequence]);
    let reached = after(&after(&p, first), reply);
    assert!(text.contains(&format!("after      {sequence}")), "{text}");
    assert!(text.contains(&format!("position   {}", reached.notation(&v))), "{text}");
    let Value::Win(d) = q.value(&p).unwrap().0 else { unreachable!() };
    assert!(text.contains(&format!("White wins in {} plies", d - 2)), "{text}");
}

#[test]
fn query_refuses_an_illegal_move_naming_it_and_the_position() {
    let v = nine();
    let p = Position::parse("WW....B./W......./BB...... w 0 0", &v).unwrap();
    let err = fails(&["query", &p.notation(&v), "--moves", "b6-g7xa1 a1-a4"]);
    assert!(
        err.contains("move 'a1-a4' is not legal in WWW...../......../BB...... b 0 0: the game is over: Black has fewer than 3 stones"),
        "{err}"
    );
    let err = fails(&["query", &p.notation(&v), "--moves", "b6-g7"]);
    assert!(
        err.contains(&format!("move 'b6-g7' is not legal in {}: it closes a mill", p.notation(&v))),
        "{err}"
    );
    let err = fails(&["query", "start", "--moves", "d6 d6"]);
    assert!(
        err.contains("move 'd6' is not legal in ......../.W....../........ b 8 9: d6 is not empty"),
        "{err}"
    );
}

#[test]
fn query_of_a_missing_sector_is_one_line_naming_sector_and_command() {
    let err = fails(&["query", "start"]);
    assert!(err.contains("sector 4-4 of nine is not in the database"), "{err}");
    assert!(
        err.contains(&format!(
            "morris solve --variant nine --max-stones 18 --db {}",
            db().dir().display()
        )),
        "{err}"
    );
    let err = fails(&["query", "WWWWW.../BBB...../........ w 0 0"]);
    assert!(err.contains("sector 5-3 ") && err.contains("--max-stones 8"), "{err}");
}

/// The human's moves of a game from `start` in which the human plays
/// `human` perfectly (fastest win, slowest loss) against the perfect
/// player, found with the library; the game's moves come second.
/// The game `play` must show: the human plays the tables' best move, the
/// perfect player `Game::choose_move_by` in `style` under the default
/// repetition rule (a repeated board draws). Also whether it ended by
/// repetition.
fn scripted_game(start: Position, human: Color, style: Style) -> (Vec<String>, Vec<Move>, bool) {
    let v = nine();
    let q = Query::new(db());
    let mut game = Game::new(start, Repetition::Board);
    let (mut said, mut all) = (Vec::new(), Vec::new());
    while status(&v, &game.position().state()) == Status::Playing && game.repeated().is_none() {
        let at = *game.position();
        let mv = if at.to_move == human {
            let mv = q.best_move(&at).unwrap().unwrap().mv;
            said.push(mv.notation(&v));
            mv
        } else {
            game.choose_move_by(&q, style).unwrap().unwrap().mv
        };
        all.push(mv);
        game.push(after(&at, mv));
    }
    (said, all, game.repeated().is_some())
}

#[test]
fn play_a_whole_game_from_piped_moves() {
    let v = nine();
    let start = long_win();
    // The default style, and the rule of earlier versions by name.
    for (human, style) in [
        (Color::White, Style::DEFAULT),
        (Color::Black, Style::DEFAULT),
        (Color::White, Style::REPLIES),
        (Color::Black, Style::REPLIES),
    ] {
        let (typed, all, repeated) = scripted_game(start, human, style);
        let input = typed.join("\n") + "\n";
        let side = human.name().to_lowercase();
        let style_name = style.to_string();
        let from = start.notation(&v);
        let args = ["play", "--human", &side, "--from", &from, "--tie-break", &style_name];
        let out = with_input(&args, &input);
        let said = text(&out.stdout);
        assert!(out.status.success(), "{}", text(&out.stderr));
        for mv in &all {
            assert!(
                said.contains(&format!(" plays {}\n", mv.notation(&v))),
                "{} missing: {said}",
                mv.notation(&v)
            );
        }
        assert_eq!(said.matches(" plays ").count(), all.len());
        let end = said.trim_end();
        assert!(
            if repeated {
                end.contains("Game over: a draw by repetition, the board repeats at ply ")
            } else {
                end.ends_with("Game over: White wins, Black is left with 2 stones.")
                    || end.contains("Game over: White wins, Black cannot move.")
            },
            "{said}"
        );
        assert_eq!(said.matches("\n7 ").count(), all.len() + 1, "a diagram after each move");
    }
}

#[test]
fn play_explains_bad_input_and_asks_again() {
    let v = nine();
    let p = Position::parse("WW....B./W......./BB...... w 0 0", &v).unwrap();
    let input = "hello\n\nd6\nmoves\nb6-g7\nb6-g7xa1\n";
    let out = with_input(&["play", "--from", &p.notation(&v)], input);
    let said = text(&out.stdout);
    assert!(out.status.success());
    assert!(
        said.contains("move 'hello': 'hello' is not a point of the nine board. Try again"),
        "{said}"
    );
    assert!(said.contains("White has no stones in hand"), "{said}");
    assert!(said.contains("legal moves: a7-g7 "), "{said}");
    assert!(said.contains("it closes a mill: add the Black stone it removes"), "{said}");
    assert!(said.contains("White plays b6-g7xa1"), "{said}");
    assert!(said.contains("Game over: White wins, Black is left with 2 stones."), "{said}");
}

#[test]
fn play_ends_cleanly_at_the_end_of_input() {
    let v = nine();
    let p = long_win();
    let out = with_input(&["play", "--from", &p.notation(&v)], "");
    let said = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(said.trim_end().ends_with("End of input: the game is left unfinished."), "{said}");
    // The perfect player moves first when the human takes Black.
    let out = with_input(&["play", "--human", "black", "--from", &p.notation(&v)], "quit\n");
    let said = text(&out.stdout);
    assert!(out.status.success());
    let game = Game::new(p, Repetition::Board);
    let best = game.choose_move_by(&Query::new(db()), Style::DEFAULT).unwrap().unwrap();
    let best = best.mv.notation(&v);
    assert!(said.contains(&format!("White plays {best}\n")), "{said}");
    assert!(said.trim_end().ends_with("Black resigns."), "{said}");
}

#[test]
fn play_without_tables_is_a_one_line_error_before_the_game() {
    let err = {
        let out = with_input(&["play"], "d6\n");
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty(), "nothing printed before the error");
        text(&out.stderr)
    };
    assert_eq!(err.lines().count(), 1);
    assert!(
        err.contains("sector 4-4") && err.contains("morris solve --variant nine --max-stones 18"),
        "{err}"
    );
}

/// The binary on six's start without placement tables: the value, every
/// first placement as a draw without distance, and what the search did on
/// stderr; the same as JSON.
#[test]
fn query_start_by_search_prints_value_moves_and_what_the_search_did() {
    let dir = scratch();
    Database::new(dir.path(), Variant::named("six").unwrap()).solve_moving(12, 2, &Quiet).unwrap();
    let run = |extra: &[&str]| {
        let out =
            common::morris(dir.path(), &[&["--variant", "six", "query", "start"], extra].concat());
        assert!(out.status.success(), "{}", text(&out.stderr));
        (text(&out.stdout), text(&out.stderr))
    };
    let (text, err) = run(&[]);
    assert!(text.contains("value      Draw (proved by a search"), "{text}");
    assert!(text.contains("moves      16, best first"), "{text}");
    assert_eq!(text.lines().filter(|l| l.ends_with("  draw")).count(), 16, "{text}");
    for what in ["placement search (value): ", "placement search (value, moves and line): "] {
        let line =
            err.lines().find(|l| l.starts_with(what)).unwrap_or_else(|| panic!("{what} in {err}"));
        for field in [" nodes, ", " transpositions (", " leaf probes, ", " s in all, "] {
            assert!(line.contains(field), "{field} in {line}");
        }
    }
    let (text, _) = run(&["--json"]);
    let json = json(&text);
    assert_eq!(
        (field(&json, "value"), field(&json, "exact")),
        (&Json::from("draw"), &false.into())
    );
    let moves = field(&json, "moves").as_array().unwrap_or_else(|| panic!("moves: {json}"));
    assert_eq!(moves.len(), 16, "{json}");
    for m in moves {
        assert_eq!(*field(m, "value"), "draw", "{m}");
        assert!(field(m, "plies").is_null() && field(m, "position").is_string(), "{m}");
    }
    // The layout: each move's members in the order of the design.
    let in_order = "\"value\": \"draw\", \"plies\": null, \"position\": ";
    assert_eq!(text.matches(in_order).count(), 16, "{text}");
}
