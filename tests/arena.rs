//! The match harness and the tie-breaks, on six's whole tables (solved
//! once for the file, about a second): every tie-break keeps the value of
//! the position move by move, the fallible player at p = 1 is uniform over
//! the legal moves, a match gives the same games on any number of threads,
//! and the intervals are the Wilson intervals. The command is in
//! `cli_match.rs`.

use morris::arena::{
    difference, play_game, run_match, wilson, Blocks, MatchSpec, Memory, Player, Rng,
};
use morris::database::Database;
use morris::driver::Quiet;
use morris::game::{Game, Repetition};
use morris::position::{Position, State};
use morris::query::{after, Query};
use morris::rules::{legal_moves, play, status, Status};
use morris::tiebreak::{best_draws, valued_moves, TieBreak, Values, TIE_BREAKS};
use morris::value::Value;
use morris::Variant;
use std::path::Path;
use std::sync::OnceLock;

fn six() -> Variant {
    Variant::named("six").unwrap()
}

/// Six, moving phase and placement, solved once for the file.
fn db() -> &'static Database {
    static DB: OnceLock<Database> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("arena-six");
        let _ = std::fs::remove_dir_all(&dir);
        let db = Database::new(&dir, six());
        db.solve_moving(12, 2, &Quiet).unwrap();
        db.solve_placement(12, 2, &Quiet).unwrap();
        db
    })
}

fn memory() -> &'static Memory<'static> {
    static MEMORY: OnceLock<Memory<'static>> = OnceLock::new();
    MEMORY.get_or_init(|| Memory::load(db()).unwrap())
}

/// Positions of six reached by random moves from the start, placement and
/// moving phase, games that go on.
fn random_positions(count: usize, seed: u64) -> Vec<Position> {
    let v = six();
    let mut rng = Rng::new(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let mut p = Position::start(&v);
        let plies = rng.below(40);
        for _ in 0..plies {
            let moves = legal_moves(&v, &p.state());
            if moves.is_empty() || status(&v, &p.state()) != Status::Playing {
                break;
            }
            p = after(&p, moves[rng.below(moves.len())]);
        }
        if status(&v, &p.state()) == Status::Playing {
            found.push(p);
        }
    }
    found
}

#[test]
fn tables_in_memory_agree_with_the_database() {
    let v = six();
    for p in random_positions(300, 1) {
        let s = p.state();
        assert_eq!(memory().value(&s).unwrap(), db().value(&s).unwrap());
        for mv in legal_moves(&v, &s) {
            let next: State = play(&s, mv);
            assert_eq!(memory().value(&next).unwrap(), db().value(&next).unwrap());
        }
    }
}

#[test]
fn every_tie_break_keeps_the_value_of_the_position() {
    let v = six();
    let mut draws_with_choice = 0;
    for p in random_positions(400, 2) {
        let state = p.state();
        let value = memory().value(&state).unwrap();
        let moves = valued_moves(&v, memory(), &state).unwrap();
        assert_eq!(moves[0].1, value, "the best move keeps the value of {p:?}");
        for tie_break in TIE_BREAKS {
            for play_on in [false, true] {
                // A game with no history: no move repeats.
                let game = Game::new(p, Repetition::Board);
                let best =
                    game.best_moves(&v, moves.clone(), memory(), tie_break, play_on).unwrap();
                assert!(!best.is_empty());
                for (mv, v_after) in best {
                    assert_eq!(v_after, value, "{tie_break} at {p:?}");
                    assert_eq!(memory().value(&play(&state, mv)).unwrap().back(), value);
                }
            }
        }
        if value == Value::Draw && moves.iter().filter(|m| m.1 == Value::Draw).count() > 1 {
            draws_with_choice += 1;
        }
    }
    assert!(draws_with_choice > 50, "only {draws_with_choice} positions to choose among draws");
}

#[test]
fn perfect_players_keep_the_value_move_by_move_in_games() {
    // Against a random opponent, every move of the perfect player keeps
    // the value it has when it moves: a win the same win, a draw a draw
    // (by the tables, or a repetition), a loss a loss no faster, or a draw.
    let v = six();
    let opponent = Player::Fallible { error: 1.0, tie_break: TieBreak::Uniform };
    for (k, tie_break) in TIE_BREAKS.into_iter().enumerate() {
        for play_on in [false, true] {
            let perfect = Player::Perfect { tie_break, play_on };
            for g in 0..20u64 {
                let mut rng = Rng::for_game(k as u64, g);
                let mut game = Game::new(Position::start(&v), Repetition::Board);
                let mut plies = 0;
                while !game.is_over(&v) && plies < 300 {
                    let p = *game.position();
                    let white_perfect = g % 2 == 0;
                    let perfect_moves = (p.to_move == morris::Color::White) == white_perfect;
                    let player = if perfect_moves { &perfect } else { &opponent };
                    let mv = player.choose(&v, memory(), &game, &mut rng).unwrap();
                    let next = after(&p, mv);
                    if perfect_moves {
                        let before = memory().value(&p.state()).unwrap();
                        let repeats = game.would_repeat(&next);
                        let got = if repeats {
                            Value::Draw
                        } else {
                            memory().value(&next.state()).unwrap().back()
                        };
                        if repeats {
                            assert!(got.preference() >= before.preference(), "{tie_break}");
                        } else {
                            assert_eq!(got, before, "{tie_break} {play_on} at {p:?}");
                        }
                    }
                    game.push(next);
                    plies += 1;
                }
            }
        }
    }
}

#[test]
fn the_fallible_player_at_p_1_is_uniform_over_the_legal_moves() {
    // Placement with two stones on the board: 14 legal moves. 14,000
    // choices, about 1,000 each: a chi-square with 13 degrees of freedom
    // above 34.5 has a chance of 1 in 1,000 under uniform choice (the seed
    // is fixed, so the test passes or fails for good), while a
    // player that never picks one of the moves scores about 1,080, and one
    // that picks one move twice as often as the others about 810.
    let v = six();
    let p = Position::parse("W......./......B. w 5 5", &v).unwrap();
    let moves = legal_moves(&v, &p.state());
    assert_eq!(moves.len(), 14);
    let game = Game::new(p, Repetition::Board);
    let player = Player::Fallible { error: 1.0, tie_break: TieBreak::Uniform };
    let mut counts = vec![0u64; moves.len()];
    let mut rng = Rng::new(7);
    let n = 14_000;
    for _ in 0..n {
        let mv = player.choose(&v, memory(), &game, &mut rng).unwrap();
        counts[moves.iter().position(|&m| m == mv).unwrap()] += 1;
    }
    let expected = n as f64 / moves.len() as f64;
    let chi2: f64 = counts.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
    assert!(chi2 < 34.5, "chi-square {chi2:.1} over {counts:?}");
    // And the test can fail: the perfect player's choice is far from uniform.
    let perfect = Player::Perfect { tie_break: TieBreak::Replies, play_on: false };
    let mut counts = vec![0u64; moves.len()];
    for _ in 0..n {
        let mv = perfect.choose(&v, memory(), &game, &mut rng).unwrap();
        counts[moves.iter().position(|&m| m == mv).unwrap()] += 1;
    }
    let chi2: f64 = counts.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
    assert!(chi2 > 1000.0, "the perfect player is not uniform: {chi2:.1}");
}

#[test]
fn a_match_is_the_same_on_any_number_of_threads() {
    let v = six();
    let spec = MatchSpec {
        player: "perfect:replies".parse().unwrap(),
        opponent: "fallible:0.2".parse().unwrap(),
        games: 60,
        seed: 11,
        max_plies: 200,
        starts: vec![Position::start(&v)],
        repetition: Repetition::Board,
    };
    let on = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| run_match(&v, memory(), &spec).unwrap())
    };
    let one = on(1);
    assert_eq!(one, on(3));
    assert_eq!(one.total().games(), 120);
    assert!(one.total().wins > 0, "{one:?}");
    // Another seed, other games.
    let other = MatchSpec { seed: 12, ..spec.clone() };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let two = pool.install(|| run_match(&v, memory(), &other).unwrap());
    assert_ne!((one.plies, one.as_white), (two.plies, two.as_white));
}

#[test]
fn games_end_by_the_rules_by_repetition_or_at_the_ply_limit() {
    let v = six();
    let random = Player::Fallible { error: 1.0, tie_break: TieBreak::Uniform };
    let mut rng = Rng::new(3);
    let r = play_game(
        &v,
        memory(),
        [&random, &random],
        Position::start(&v),
        Repetition::Board,
        5,
        &mut rng,
    )
    .unwrap();
    assert_eq!((r.winner, r.plies, r.end), (None, 5, morris::arena::End::PlyLimit));
    // Alpha-beta against itself never reads a table (a database with none).
    let empty = Database::new(Path::new(env!("CARGO_TARGET_TMPDIR")).join("arena-none"), six());
    let ab = Player::AlphaBeta(2);
    let r =
        play_game(&v, &empty, [&ab, &ab], Position::start(&v), Repetition::Board, 400, &mut rng)
            .unwrap();
    assert!(r.plies > 12, "{r:?}");
}

#[test]
fn the_intervals_are_wilson_intervals() {
    // Reference values: 5 of 10 gives [0.2366, 0.7634]; 0 of 100 gives [0, 0.0370].
    let (lo, hi) = wilson(5, 10);
    assert!((lo - 0.2366).abs() < 1e-4 && (hi - 0.7634).abs() < 1e-4, "{lo} {hi}");
    let (lo, hi) = wilson(0, 100);
    assert!(lo.abs() < 1e-12 && (hi - 0.0370).abs() < 1e-4, "{lo} {hi}");
    let (d, lo, hi) = difference(60, 100, 40, 100);
    assert!((d - 0.2).abs() < 1e-12 && lo > 0.05 && lo < 0.07 && hi > 0.32 && hi < 0.34);
}

#[test]
fn query_and_memory_give_the_same_perfect_choice() {
    // `morris play`'s player (through a Query) and the harness's (tables in
    // memory) choose the same moves for every rule, ties to the first.
    let v = six();
    let query = Query::new(db());
    for p in random_positions(60, 4) {
        let game = Game::new(p, Repetition::Board);
        for tie_break in TIE_BREAKS {
            let style = morris::tiebreak::Style { tie_break, play_on: false };
            let by_query = game.choose_move_by(&query, style).unwrap().unwrap();
            let moves = valued_moves(&v, memory(), &p.state()).unwrap();
            let best = game.best_moves(&v, moves, memory(), tie_break, false).unwrap();
            assert_eq!(by_query.mv, best[0].0, "{tie_break}");
        }
        let _ = best_draws(TieBreak::Replies, &v, memory(), &p.state(), &[]).unwrap();
    }
}

#[test]
fn blocks_kept_under_a_small_budget_give_the_same_match_as_memory() {
    // The block cache `--lookup blocks` uses for nine, here so small (64
    // blocks of six's 200-odd) that it drops blocks all the time: every
    // value, and so every game, must be the same as from the cells in
    // memory.
    let v = six();
    let spec = MatchSpec {
        player: "perfect:balance:playon".parse().unwrap(),
        opponent: "fallible:0.2".parse().unwrap(),
        games: 30,
        seed: 5,
        max_plies: 200,
        starts: vec![Position::start(&v)],
        repetition: Repetition::Board,
    };
    let blocks = Blocks::new(db(), 0);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let from_blocks = pool.install(|| run_match(&v, &blocks, &spec).unwrap());
    assert_eq!(from_blocks, pool.install(|| run_match(&v, memory(), &spec).unwrap()));
    for p in random_positions(300, 9) {
        assert_eq!(blocks.value(&p.state()).unwrap(), memory().value(&p.state()).unwrap());
    }
}
