//! The repetition rule: `Game` detects a repeated board (the rules text)
//! or a threefold repetition, and its perfect player takes a repetition
//! draw when it cannot win and never throws a win away by repeating. That
//! the `play` command applies the same rule is in `cli_repetition.rs`.
//!
//! One database for the file: nine's moving phase with at most 7 stones
//! on the board, where every side with 3 stones flies, so a stone can
//! always go back where it came from.

mod nine7;

use morris::game::{Game, Repetition};
use morris::position::Position;
use morris::query::{after, Query};
use morris::rules::{status, Status};
use morris::value::Value;
use nine7::{db, legal, nine, quiet_moves, random_positions};

/// From `p0`, the quiet moves `a-b` (side to move) and `c-d` (the other
/// side) and then `b-a`: the game of four positions after which `d-c`
/// would bring back the board of `p0`. Yields (game, the move `d-c`).
fn cycles(p0: &Position, rule: Repetition) -> Vec<(Game, String)> {
    let v = nine();
    let mut found = Vec::new();
    for m1 in quiet_moves(p0).into_iter().take(3) {
        let p1 = legal(p0, &m1).unwrap();
        for m2 in quiet_moves(&p1).into_iter().take(3) {
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
    let (game, back) = random_positions(20)
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
    for p0 in random_positions(60) {
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
