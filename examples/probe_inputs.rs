//! The two inputs of the `morris probe` benchmark, one position per line:
//!
//! - `shared.txt`: the test positions of `tests/query.rs` (its fixed
//!   positions and the random 3-3, 3-4 and 4-3 positions its
//!   `random_positions` draws) repeated to COUNT lines, so that the
//!   positions share a few blocks;
//! - `uniform.txt`: COUNT positions drawn uniformly from the whole moving
//!   phase of nine in DB (a sector with probability proportional to its
//!   states, then both stone sets uniformly), White to move, fixed seed.
//!
//! ```text
//! cargo run --release --example probe_inputs -- DB OUT_DIR [COUNT]
//! ```
//!
//! COUNT defaults to 1,000,000. DB needs nine's moving-phase tables (only
//! their headers are read, for the weights). `scripts/bench.sh probe DB`
//! writes the inputs with this and times `morris probe` on them.

use morris::database::Database;
use morris::position::{Color, Position, State};
use morris::sectors::moving_sectors;
use morris::variant::Variant;
use std::io::Write;
use std::path::PathBuf;

// The positions of tests/query.rs, from the module that makes them there.
#[path = "../tests/nine7/mod.rs"]
mod nine7;
#[path = "support/xorshift.rs"]
mod xorshift;
use xorshift::XorShift;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 || args.len() > 3 {
        eprintln!("usage: probe_inputs DB OUT_DIR [COUNT]");
        std::process::exit(2);
    }
    let (db_dir, out) = (PathBuf::from(&args[0]), PathBuf::from(&args[1]));
    let count: usize = args.get(2).map_or(1_000_000, |c| c.parse().expect("COUNT: a number"));
    let v = Variant::named("nine").expect("nine");
    std::fs::create_dir_all(&out).expect("OUT_DIR");

    // The test positions of tests/query.rs: its fixed ones, and its random
    // positions of 3 against 3 or 4 stones (the same generator).
    let mut tests: Vec<String> = [
        "WBWBWBWB/......../........ w 0 0",
        "WW....B./W......./BB...... w 0 0",
        "WWWWW.../BBB...../........ w 0 0",
        "WWWW..../BBBB..../........ b 0 0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    tests.extend(nine7::random_positions(60).iter().map(|p| p.notation(&v)));
    write(&out.join("shared.txt"), tests.iter().cycle().take(count));

    let db = Database::new(&db_dir, v.clone());
    let sectors = moving_sectors(&v);
    let weights: Vec<u64> = sectors
        .iter()
        .map(|&s| match db.table(s) {
            Ok(t) => t.info().counts.states,
            Err(e) => {
                eprintln!("probe_inputs: {e}");
                std::process::exit(1);
            }
        })
        .collect();
    let total: u64 = weights.iter().sum();
    let mut rng = XorShift(0x5eed_0f9c_e5e5);
    let mut uniform = Vec::with_capacity(count);
    while uniform.len() < count {
        let mut pick = rng.next() % total;
        let mut i = 0;
        while pick >= weights[i] {
            pick -= weights[i];
            i += 1;
        }
        let sector = sectors[i];
        let mover = rng.subset(24, sector.mover as u32, 0);
        let opponent = rng.subset(24, sector.opponent as u32, mover);
        let state = State { mover, opponent, mover_hand: 0, opponent_hand: 0 };
        let p = Position::from_state(&state, Color::White);
        // Positions the notation refuses (none expected) are drawn again.
        if p.check(&v).is_ok() {
            uniform.push(p.notation(&v));
        }
    }
    write(&out.join("uniform.txt"), uniform.iter());
    println!(
        "wrote {} lines each to {} and {} ({} distinct test positions; uniform over {} states of {} sectors)",
        count,
        out.join("shared.txt").display(),
        out.join("uniform.txt").display(),
        tests.len(),
        total,
        sectors.len()
    );
}

fn write<'a>(path: &std::path::Path, lines: impl Iterator<Item = &'a String>) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    for line in lines {
        writeln!(f, "{line}").expect("write");
    }
    f.flush().expect("write");
}
