//! What each perfect-player style costs a move, the way `morris play` and
//! `morris serve` ask it: `Game::choose_move_by` over a `Query` (a
//! compressed block decompressed per value, tables memory-mapped).
//!
//! `cargo run --release --example tiebreak_cost -- DB VARIANT [POSITIONS [GAMES]]`
//!
//! The positions are those where the perfect player moves in GAMES games
//! (default 40) of `perfect:uniform` against `fallible:0.2` from the start
//! (played over decompressed blocks kept in memory, `arena::Blocks`, so
//! nine's tables need not fit), at most POSITIONS of them
//! (default 400), every position timed once per style after one untimed
//! pass over all of them (so the tables' pages are in the page cache).
//! Prints the mean, the 95th percentile and the largest time per move.

use morris::arena::{Blocks, Player, Rng};
use morris::database::Database;
use morris::game::{Game, Repetition};
use morris::position::{Color, Position};
use morris::query::{after, Query};
use morris::tiebreak::{Style, TIE_BREAKS};
use morris::Variant;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: tiebreak_cost DB VARIANT [POSITIONS [GAMES]]");
        std::process::exit(2);
    }
    let variant = Variant::named(&args[1]).unwrap_or_else(|e| {
        eprintln!("tiebreak_cost: {e}");
        std::process::exit(2)
    });
    let count: usize = args.get(2).map_or(400, |a| a.parse().expect("POSITIONS: a number"));
    let games: u64 = args.get(3).map_or(40, |a| a.parse().expect("GAMES: a number"));
    let db = Database::new(&args[0], variant.clone());
    let memory = Blocks::new(&db, 4 << 30);
    let perfect: Player = "perfect:uniform".parse().unwrap();
    let fallible: Player = "fallible:0.2".parse().unwrap();
    let mut positions: Vec<Game> = Vec::new();
    for g in 0..games {
        let mut rng = Rng::for_game(1, g);
        let mut game = Game::new(Position::start(&variant), Repetition::Board);
        let perfect_side = if g % 2 == 0 { Color::White } else { Color::Black };
        while !game.is_over(&variant) && game.positions().len() < 400 {
            let p = *game.position();
            let player = if p.to_move == perfect_side { &perfect } else { &fallible };
            if p.to_move == perfect_side {
                positions.push(game.clone());
            }
            let mv = player.choose(&variant, &memory, &game, &mut rng).unwrap();
            game.push(after(&p, mv));
        }
    }
    let step = positions.len().div_ceil(count).max(1);
    let positions: Vec<Game> = positions.into_iter().step_by(step).collect();
    let query = Query::new(&db);
    println!(
        "{} positions of {} from {games} games; ms per move:",
        positions.len(),
        variant.name()
    );
    println!("{:<16} {:>8} {:>8} {:>8}", "style", "mean", "p95", "max");
    for tie_break in TIE_BREAKS {
        for play_on in [false, true] {
            let style = Style { tie_break, play_on };
            for game in &positions {
                game.choose_move_by(&query, style).unwrap();
            }
            let mut times: Vec<f64> = positions
                .iter()
                .map(|game| {
                    let began = Instant::now();
                    game.choose_move_by(&query, style).unwrap();
                    began.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            times.sort_by(f64::total_cmp);
            let mean = times.iter().sum::<f64>() / times.len() as f64;
            let p95 = times[(times.len() * 95 / 100).min(times.len() - 1)];
            let max = times[times.len() - 1];
            println!("{:<16} {mean:>8.2} {p95:>8.2} {max:>8.2}", style.to_string());
        }
    }
}
