//! The `play` command under the repetition rules: the perfect player
//! takes a repetition draw when it is losing, threefold lets the game go
//! on, and an unknown rule is refused. The rule itself, through the
//! library, is in `repetition.rs`.
//!
//! One database for the file: nine's moving phase with at most 7 stones
//! on the board, where every side with 3 stones flies.

mod common;
// Shared with the library's tests.
#[path = "../../tests/nine7/mod.rs"]
mod nine7;

use common::{morris, morris_with_input, text};
use morris::game::{Game, Repetition};
use morris::position::Position;
use morris::query::{after, Query};
use morris::rules::{status, Status};
use morris::value::Value;
use nine7::{db, legal, nine, quiet_moves, random_positions};

#[test]
fn play_ends_in_a_draw_when_the_losing_perfect_player_can_repeat() {
    let v = nine();
    let query = Query::new(db());
    // A cycle in which the human (the side to move at p0) plays a-b, the
    // perfect player its own choice c-d, the human b-a, and the perfect
    // player cannot win by the tables: it must take d-c, a draw.
    let try_cycle = |p0: Position, m1: String| -> Option<(Position, String, String)> {
        let p1 = legal(&p0, &m1)?;
        let mut game1 = Game::new(p0, Repetition::Board);
        game1.push(p1);
        let reply = game1.choose_move(&query).ok()??;
        let m2 = reply.mv.notation(&v);
        if !m2.contains('-') || m2.contains('x') {
            return None;
        }
        let p2 = after(&p1, reply.mv);
        let m1_back = m1.split_once('-').map(|(a, b)| format!("{b}-{a}"))?;
        let p3 = legal(&p2, &m1_back)?;
        let cannot_win = !matches!(query.value(&p3).ok()?.0, Value::Win(_));
        (cannot_win && status(&v, &p3.state()) == Status::Playing).then_some((p0, m1, m1_back))
    };
    let case = random_positions(200)
        .into_iter()
        .find_map(|p0| quiet_moves(&p0).into_iter().take(8).find_map(|m1| try_cycle(p0, m1)));
    let (p0, m1, m1_back) = case.expect("a position where the losing side can repeat");
    let human = if p0.to_move == morris::position::Color::White { "white" } else { "black" };
    let out = morris_with_input(
        db().dir(),
        // The rule of earlier versions, which takes a repetition draw
        // whenever it cannot win (`:playon` declines one while it can keep
        // the draw otherwise).
        &["play", "--human", human, "--from", &p0.notation(&v), "--tie-break", "replies"],
        &format!("{m1}\n{m1_back}\n"),
    );
    let said = text(&out.stdout);
    assert!(out.status.success(), "{said}{}", text(&out.stderr));
    assert!(
        said.contains("Repetition: a board that repeats an earlier one draws the game"),
        "{said}"
    );
    assert!(
        said.trim_end().ends_with("Game over: a draw by repetition, the board repeats at ply 0."),
        "{said}"
    );

    // Under threefold the game goes on to the end of the input instead.
    let out = morris(
        db().dir(),
        &["play", "--human", human, "--from", &p0.notation(&v), "--repetition", "threefold"],
    );
    assert!(text(&out.stdout).contains("Repetition: the same position 3 times draws the game"));
}

#[test]
fn play_refuses_an_unknown_repetition_rule_in_one_line() {
    let out = morris(db().dir(), &["play", "--repetition", "twice"]);
    assert_eq!(out.status.code(), Some(2), "clap's usage error");
    let err = text(&out.stderr);
    assert!(err.contains("repetition rule 'twice': expected 'board' or 'threefold'"), "{err}");
}
