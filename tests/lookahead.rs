//! The winner's look-ahead against repetition (`Game::keeps_win`) shares
//! its answers between lines that transpose, keyed by the position, the
//! depth and the earlier positions the game could still come back to.
//! Here it is held to the plain search without shared answers, on games
//! of six and of Lasker five with four stones (where a side with stones in
//! hand may slide) played at random from the start, captures preferred,
//! so that boards come back while stones are still placed.

use morris::database::Database;
use morris::driver::Quiet;
use morris::game::{Game, Repetition};
use morris::position::{Move, Position};
use morris::query::{after, Query};
use morris::rng::Rng;
use morris::rules::{legal_moves, status, Status};
use morris::value::Value;
use morris::Variant;

/// The plain search: whether the side to move keeps the win against
/// repetition for `depth` more of its moves (as `Game::keeps_win` says).
fn keeps_win(game: &Game, query: &Query, depth: u32) -> bool {
    let v = query.variant();
    let position = game.position();
    legal_moves(v, &position.state()).into_iter().any(|mv| {
        let ahead = after(position, mv);
        let won = status(v, &ahead.state()) == Status::Lost
            || matches!(query.state_value(&ahead.state()).unwrap().0, Value::Loss(_));
        !game.would_repeat(&ahead) && won && holds(game, query, mv, depth)
    })
}

/// Whether the winning move `mv` holds against every reply for `depth`.
fn holds(game: &Game, query: &Query, mv: Move, depth: u32) -> bool {
    let v = query.variant();
    let next = after(game.position(), mv);
    if status(v, &next.state()) != Status::Playing {
        return true;
    }
    let mut game = game.clone();
    game.push(next);
    let replies = legal_moves(v, &next.state());
    if replies.iter().any(|&r| game.would_repeat(&after(&next, r))) {
        return false;
    }
    depth == 0
        || replies.into_iter().all(|r| {
            let back = after(&next, r);
            if status(v, &back.state()) != Status::Playing {
                return true;
            }
            let mut later = game.clone();
            later.push(back);
            keeps_win(&later, query, depth - 1)
        })
}

/// Plays `games` random games of `v` (a whole game solved) and compares
/// both searches at every won position, depths 0 to `deepest`; returns
/// how many answers were compared and how many of them were "no".
fn compare(v: &Variant, games: u64, deepest: u32, rule: Repetition) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::new(dir.path(), v.clone());
    let all = 2 * u32::from(v.stones());
    db.solve_moving(all, 2, &Quiet).unwrap();
    db.solve_placement(all, 2, &Quiet).unwrap();
    let query = Query::new(&db);
    let (mut compared, mut refused) = (0, 0);
    for seed in 0..games {
        let mut rng = Rng::new(seed);
        let mut game = Game::new(Position::start(v), rule);
        for _ply in 0..24 {
            if game.is_over(v) {
                break;
            }
            let position = *game.position();
            if matches!(query.state_value(&position.state()).unwrap().0, Value::Win(_)) {
                // The game as played, and the same position after a
                // made-up past: the boards of random lines from it, which
                // the search can come back to within a few plies.
                let mut made_up = Game::new(walk(v, &position, &mut rng)[0], rule);
                for _ in 0..3 {
                    for p in walk(v, &position, &mut rng) {
                        made_up.push(p);
                    }
                }
                made_up.push(position);
                for past in [&game, &made_up] {
                    for depth in 0..=deepest {
                        let plain = keeps_win(past, &query, depth);
                        assert_eq!(
                            past.keeps_win(&query, depth).unwrap(),
                            plain,
                            "game {seed}, {position:?}, depth {depth}, {} earlier positions",
                            past.positions().len() - 1
                        );
                        compared += 1;
                        refused += u64::from(!plain);
                    }
                }
            }
            game.push(after(&position, random_move(v, &position, &mut rng)));
        }
    }
    (compared, refused)
}

/// A random legal move, a capture three times in four where there is one.
fn random_move(v: &Variant, position: &Position, rng: &mut Rng) -> Move {
    let moves = legal_moves(v, &position.state());
    let captures: Vec<Move> = moves.iter().copied().filter(|m| m.remove.is_some()).collect();
    if !captures.is_empty() && rng.below(4) > 0 {
        captures[rng.below(captures.len())]
    } else {
        moves[rng.below(moves.len())]
    }
}

/// The positions of a random line of 1 to 8 plies from `from`.
fn walk(v: &Variant, from: &Position, rng: &mut Rng) -> Vec<Position> {
    let mut line = vec![];
    let mut at = *from;
    for _ in 0..1 + rng.below(8) {
        if status(v, &at.state()) != Status::Playing {
            break;
        }
        at = after(&at, random_move(v, &at, rng));
        line.push(at);
    }
    if line.is_empty() {
        line.push(*from);
    }
    line
}

/// Every board that comes back in long random games of `v`: at each
/// position of the game, the earlier position it repeats later on (within
/// `horizon` plies) is among those `Game::reachable_history` keeps.
/// Returns how many repetitions were checked, and how many of them came
/// back to a board with fewer stones than the position it was seen from.
fn every_repetition_is_kept(v: &Variant, games: u64, horizon: usize) -> (u64, u64) {
    let (mut checked, mut fewer) = (0, 0);
    for seed in 0..games {
        let mut rng = Rng::new(seed);
        let mut line = vec![Position::start(v)];
        while line.len() < 200 && status(v, &line[line.len() - 1].state()) == Status::Playing {
            // Captures preferred half the time: boards with fewer stones
            // come back, and games still last.
            let at = line[line.len() - 1];
            let moves = legal_moves(v, &at.state());
            let pick = if rng.below(2) == 0 {
                random_move(v, &at, &mut rng)
            } else {
                moves[rng.below(moves.len())]
            };
            line.push(after(&at, pick));
        }
        let board = |p: &Position| (p.white, p.black);
        let stones = |p: &Position| (p.white | p.black).count_ones();
        for now in 1..line.len() {
            let mut game = Game::new(line[0], Repetition::Board);
            for p in &line[1..=now] {
                game.push(*p);
            }
            for plies in 1..=horizon.min(line.len() - 1 - now) {
                let later = &line[now + plies];
                let kept = game.reachable_history(v, plies as u32);
                for earlier in line[..now].iter().filter(|e| board(e) == board(later)) {
                    assert!(
                        kept.contains(earlier),
                        "game {seed}: {earlier:?} comes back {plies} plies after {:?}",
                        line[now]
                    );
                    checked += 1;
                    fewer += u64::from(stones(earlier) < stones(&line[now]));
                }
            }
        }
    }
    (checked, fewer)
}

#[test]
fn every_board_that_comes_back_is_kept() {
    for (v, games) in [
        (Variant::named("five").unwrap().with_lasker().with_stones(4), 1000),
        (Variant::named("six").unwrap(), 1000),
        (Variant::named("nine").unwrap(), 3000),
    ] {
        let (checked, fewer) = every_repetition_is_kept(&v, games, 10);
        eprintln!("{}: {checked} repetitions checked, {fewer} to fewer stones", v.name());
        assert!(checked > 1000 && fewer > 10, "{}: {checked} checked, {fewer} fewer", v.name());
    }
}

#[test]
fn shared_answers_change_no_answer_in_six() {
    let v = Variant::named("six").unwrap();
    let (compared, refused) = compare(&v, 100, 3, Repetition::Board);
    eprintln!("six, board: {compared} compared, {refused} refused");
    assert!(compared > 1000 && refused > 10, "{compared} compared, {refused} refused");
    // Under threefold the look-ahead of a few moves rarely meets a third
    // occurrence: the answers are compared all the same.
    let (compared, refused) = compare(&v, 30, 2, Repetition::Threefold);
    eprintln!("six, threefold: {compared} compared, {refused} refused");
    assert!(compared > 200, "{compared} compared");
}

#[test]
fn shared_answers_change_no_answer_in_lasker_five() {
    let v = Variant::named("five").unwrap().with_lasker().with_stones(4);
    let (compared, refused) = compare(&v, 200, 3, Repetition::Board);
    eprintln!("Lasker five with 4 stones, board: {compared} compared, {refused} refused");
    assert!(compared > 1000 && refused > 10, "{compared} compared, {refused} refused");
}
