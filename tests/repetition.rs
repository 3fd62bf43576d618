//! The repetition rule: `Game` detects a repeated board (the rules text)
//! or a threefold repetition, and its perfect player takes a repetition
//! draw when it cannot win and never throws a win away by repeating; the
//! `play` command applies the same rule.
//!
//! One database for the file: nine's moving phase with at most 7 stones
//! on the board, where every side with 3 stones flies, so a stone can
//! always go back where it came from.

#[allow(dead_code)]
mod common;
mod nine7;

use common::{command, text};
use morris::game::{Game, Repetition};
use morris::position::Position;
use morris::query::{after, parse_move, Query};
use morris::rules::{status, Status};
use morris::value::Value;
use nine7::{db, nine};
use std::io::Write;
use std::process::Stdio;

/// Positions of 3 against 3 or 4 stones, nothing in hand, from a fixed
/// pseudo-random sequence; only those where the game goes on.
fn positions(count: usize) -> Vec<Position> {
    let v = nine();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let mut found = Vec::new();
    while found.len() < count {
        let mut cells = ['.'; 24];
        let (white, black) = [(3, 3), (3, 4), (4, 3)][next(3) as usize];
        for (stone, n) in [('W', white), ('B', black)] {
            let mut placed = 0;
            while placed < n {
                let i = next(24) as usize;
                if cells[i] == '.' {
                    cells[i] = stone;
                    placed += 1;
                }
            }
        }
        let board: String =
            cells.chunks(8).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join("/");
        let side = if next(2) == 0 { 'w' } else { 'b' };
        // Random stones may be refused (a side that could not have got
        // there): skip those.
        let Ok(p) = Position::parse(&format!("{board} {side} 0 0"), &v) else { continue };
        if status(&v, &p.state()) == Status::Playing {
            found.push(p);
        }
    }
    found
}

/// A move in notation, legal in `p`, or `None`.
fn legal(p: &Position, text: &str) -> Option<Position> {
    parse_move(&nine(), p, text).ok().map(|m| after(p, m))
}

/// From `p0`, the quiet moves `a-b` (side to move) and `c-d` (the other
/// side) and then `b-a`: the game of four positions after which `d-c`
/// would bring back the board of `p0`. Yields (game, the move `d-c`).
fn cycles(p0: &Position, rule: Repetition) -> Vec<(Game, String)> {
    let v = nine();
    let quiet = |p: &Position| -> Vec<String> {
        morris::rules::legal_moves(&v, &p.state())
            .into_iter()
            .map(|m| m.notation(&v))
            .filter(|m| m.contains('-') && !m.contains('x'))
            .collect()
    };
    let mut found = Vec::new();
    for m1 in quiet(p0).into_iter().take(3) {
        let p1 = legal(p0, &m1).unwrap();
        for m2 in quiet(&p1).into_iter().take(3) {
            let p2 = legal(&p1, &m2).unwrap();
            let back = |m: &str| m.split_once('-').map(|(a, b)| format!("{b}-{a}")).unwrap();
            let Some(p3) = legal(&p2, &back(&m1)) else { continue };
            if legal(&p3, &back(&m2)).is_none() || status(&v, &p3.state()) != Status::Playing {
                continue;
            }
            let mut game = Game::new(*p0, rule);
            for p in [p1, p2, p3] {
                game.push(p);
            }
            found.push((game, back(&m2)));
        }
    }
    found
}

#[test]
fn a_repeated_board_is_found_at_once_and_threefold_at_the_third_time() {
    let (game, back) = positions(20)
        .iter()
        .find_map(|p| cycles(p, Repetition::Board).into_iter().next())
        .expect("a cycle");
    assert_eq!(game.repeated(), None);
    let p4 = legal(game.position(), &back).unwrap();
    assert!(game.would_repeat(&p4));
    let mut board = game.clone();
    board.push(p4);
    assert_eq!(board.repeated(), Some(0));

    // Threefold: the same four moves twice more bring the start back a
    // second and a third time.
    let mut three = Game::new(game.positions()[0], Repetition::Threefold);
    let cycle: Vec<Position> = game.positions()[1..].iter().copied().chain([p4]).collect();
    for round in 0..2 {
        for (i, p) in cycle.iter().enumerate() {
            assert_eq!(three.repeated(), None, "round {round}, ply {i}");
            three.push(*p);
        }
    }
    assert_eq!(three.repeated(), Some(0));
    assert_eq!("board".parse::<Repetition>(), Ok(Repetition::Board));
    assert!("twice".parse::<Repetition>().unwrap_err().contains("'board' or 'threefold'"));
}

#[test]
fn the_perfect_player_takes_a_repetition_draw_only_when_it_cannot_win() {
    let query = Query::new(db());
    let (mut rescued, mut kept_win) = (0, 0);
    for p0 in positions(60) {
        for (game, back) in cycles(&p0, Repetition::Board) {
            let p = *game.position();
            let moves = query.moves(&p).unwrap();
            let best = moves[0].value;
            let best_other =
                moves.iter().find(|m| !game.would_repeat(&after(&p, m.mv))).map(|m| m.value);
            let chosen = game.choose_move(&query).unwrap().expect("the game goes on");
            let repeats = game.would_repeat(&after(&p, chosen.mv));
            match best_other {
                Some(win @ Value::Win(_)) => {
                    // A win by the tables is never given up for a draw.
                    assert!(
                        !repeats,
                        "{}: chose {back} and a draw over a win",
                        p.notation(&nine())
                    );
                    assert_eq!(chosen.value, win);
                    kept_win += 1;
                }
                _ => {
                    // The way back to an earlier board is on offer: a draw.
                    assert!(
                        repeats,
                        "{}: {back} would draw, the tables say {best}",
                        p.notation(&nine())
                    );
                    assert_eq!(chosen.value, Value::Draw);
                    rescued += usize::from(best != Value::Draw);
                }
            }
            // Under threefold the same move is only a second occurrence:
            // the player plays by the tables.
            let three = {
                let mut g = Game::new(game.positions()[0], Repetition::Threefold);
                game.positions()[1..].iter().for_each(|q| g.push(*q));
                g
            };
            assert_eq!(three.choose_move(&query).unwrap().unwrap().value, best);
        }
    }
    assert!(
        rescued > 0 && kept_win > 0,
        "too few cases: {rescued} losses drawn, {kept_win} wins kept"
    );
}

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
    let case = positions(200)
        .into_iter()
        .find_map(|p0| quiet_moves(&p0).into_iter().take(8).find_map(|m1| try_cycle(p0, m1)));
    let (p0, m1, m1_back) = case.expect("a position where the losing side can repeat");
    let human = if p0.to_move == morris::position::Color::White { "white" } else { "black" };
    let mut child = command(db().dir(), &["play", "--human", human, "--from", &p0.notation(&v)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(format!("{m1}\n{m1_back}\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
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
    let out = command(
        db().dir(),
        &["play", "--human", human, "--from", &p0.notation(&v), "--repetition", "threefold"],
    )
    .stdin(Stdio::null())
    .output()
    .unwrap();
    assert!(text(&out.stdout).contains("Repetition: the same position 3 times draws the game"));
}

/// The quiet moves (no capture) of the side to move.
fn quiet_moves(p: &Position) -> Vec<String> {
    let v = nine();
    morris::rules::legal_moves(&v, &p.state())
        .into_iter()
        .map(|m| m.notation(&v))
        .filter(|m| m.contains('-') && !m.contains('x'))
        .collect()
}

#[test]
fn play_refuses_an_unknown_repetition_rule_in_one_line() {
    let out = command(db().dir(), &["play", "--repetition", "twice"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "clap's usage error");
    let err = text(&out.stderr);
    assert!(err.contains("repetition rule 'twice': expected 'board' or 'threefold'"), "{err}");
}
