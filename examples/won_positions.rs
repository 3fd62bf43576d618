//! Won positions for `morris match --app DIR --from FILE`, drawn from every
//! sector of a solved database in proportion to its won states, uniformly
//! within each (a random slot until one holds a won state), White to move
//! unless the side to move holds more stones in hand (then Black, as in a
//! game from the start):
//!
//!   cargo run --release --example won_positions -- VARIANT DB N SEED > won.txt
//!
//! Each sector gets `round(N * wins / all wins)` positions, so the file
//! holds about N; the first line says how many and from where.

use morris::database::{Database, SectorTable};
use morris::position::{Color, Position};
use morris::rng::Rng;
use morris::sectors::{moving_sectors, placement_sectors};
use morris::value::Value;
use morris::{State, Variant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, variant, dir, n, seed] = &args[..] else {
        eprintln!("usage: won_positions VARIANT DB N SEED");
        std::process::exit(2);
    };
    let v = Variant::named(variant).expect("a variant");
    let db = Database::new(dir, v.clone());
    let n: u64 = n.parse().expect("a count");
    let mut rng = Rng::new(seed.parse().expect("a seed"));
    let sectors: Vec<_> = moving_sectors(&v)
        .into_iter()
        .chain(placement_sectors(&v))
        .filter_map(|s| match db.tier(s) {
            Ok(SectorTable::Full(t)) => Some((s, t.info().counts.wins)),
            _ => None,
        })
        .filter(|&(_, wins)| wins > 0)
        .collect();
    let all: u64 = sectors.iter().map(|&(_, w)| w).sum();
    println!(
        "# {n} won positions of {variant} from {} sectors of {dir} ({all} won states), seed {seed}",
        sectors.len()
    );
    for (sector, wins) in sectors {
        let k = ((n as f64) * wins as f64 / all as f64).round() as u64;
        let index = db.indexer().sector(sector);
        let mut found = 0;
        while found < k {
            let slot = rng.next_u64() % index.slots();
            let Some((mover, opponent)) = index.unrank(slot) else { continue };
            let state = State {
                mover,
                opponent,
                mover_hand: sector.mover_hand,
                opponent_hand: sector.opponent_hand,
            };
            if matches!(db.value(&state), Ok(Value::Win(_))) {
                // White places first: a side to move with one stone more
                // in hand than the other is Black.
                let side = if sector.mover_hand > sector.opponent_hand {
                    Color::Black
                } else {
                    Color::White
                };
                println!("{}", Position::from_state(&state, side).notation(&v));
                found += 1;
            }
        }
    }
}
