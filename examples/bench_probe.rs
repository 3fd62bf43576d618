//! Query speed on a solved database: the latency of one probe, cold and
//! warm; of a full query (value, every move, a perfect-play line); and of
//! the `morris` binary from process start to its first answer.
//!
//! ```text
//! cargo run --release --example bench_probe -- [--max-stones N] [--db DIR]
//!     [--samples N] [--morris PATH] [--runs N]
//! ```
//!
//! Without `--db` it solves nine's moving phase up to `--max-stones`
//! stones on the board (default 9: about 20 s on 2 cores) into a temporary
//! directory and removes it afterwards. Positions are drawn uniformly from
//! the positions of the solved sectors (each sector weighted by its
//! number of states), with a fixed seed. `scripts/bench.sh` runs it.

use morris::database::Database;

use morris::driver::Quiet;
use morris::index::Sector;
use morris::position::{Color, Position, State};
use morris::query::Query;
use morris::solve::moving_pairs;
use morris::variant::Variant;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;

#[path = "support/xorshift.rs"]
mod xorshift;
use std::time::{Duration, Instant};
use xorshift::XorShift;

struct Options {
    max_stones: u32,
    db: Option<PathBuf>,
    samples: usize,
    morris: Option<PathBuf>,
    runs: usize,
}

fn main() {
    let options = match parse_options(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!(
                "bench_probe: {e}\nusage: bench_probe [--max-stones N] [--db DIR] [--samples N] [--morris PATH] [--runs N]"
            );
            std::process::exit(2);
        }
    };
    let variant = Variant::named("nine").expect("nine is a known variant");
    let (dir, temporary) = match &options.db {
        Some(dir) => (dir.clone(), false),
        None => {
            (std::env::temp_dir().join(format!("morris-bench-probe-{}", std::process::id())), true)
        }
    };
    let db = Database::new(&dir, variant.clone());
    let start = Instant::now();
    let summary =
        db.solve_moving(options.max_stones, 2, &Quiet).unwrap_or_else(|e| die(&e.to_string()));
    let sectors: Vec<Sector> =
        moving_pairs(&variant, options.max_stones).iter().flat_map(|p| p.sectors()).collect();
    let bytes: u64 =
        sectors.iter().map(|&s| db.table(s).map(|t| t.bytes_on_disk()).unwrap_or(0)).sum();
    let states: u64 =
        sectors.iter().map(|&s| db.table(s).map(|t| t.info().counts.states).unwrap_or(0)).sum();
    println!(
        "probe: nine, moving phase up to {} stones: {} sectors, {} states, {} bytes on disk ({:.2} bits/state){}",
        options.max_stones,
        sectors.len(),
        states,
        bytes,
        bytes as f64 * 8.0 / states as f64,
        if summary.solved.is_empty() {
            String::new()
        } else {
            format!(", solved in {:.1} s on 2 threads", start.elapsed().as_secs_f64())
        }
    );
    let positions = random_positions(&variant, &db, &sectors, options.samples, 0x5eed_0f9c_e5e5);
    println!("{} random positions, latencies as median / 99th percentile", positions.len());

    // Cold: a new Database per probe, so the probe opens the table (map,
    // header, offsets) and decompresses one block; first with the index
    // tables of its stone counts built beforehand, then without. The file
    // itself is in the OS page cache, as it is for any table read recently.
    let (mut cold, mut fresh_process) = (Vec::new(), Vec::new());
    for p in positions.iter().take(1000) {
        let fresh = Database::new(&dir, variant.clone());
        fresh.indexer().sector(Sector::of(p));
        let t = Instant::now();
        black_box(fresh.value(p).unwrap_or_else(|e| die(&e.to_string())));
        cold.push(t.elapsed());
        let t = Instant::now();
        let fresh = Database::new(&dir, variant.clone());
        black_box(fresh.value(p).unwrap_or_else(|e| die(&e.to_string())));
        fresh_process.push(t.elapsed());
    }
    report("probe, cold (open table + one block)", &mut cold);
    report("probe, new Database (+ index tables)", &mut fresh_process);

    // Uncached: tables open, random positions in turn, so a probe mostly
    // finds its block out of the small block cache.
    let warm_db = Database::new(&dir, variant.clone());
    for &s in &sectors {
        warm_db.table(s).unwrap_or_else(|e| die(&e.to_string()));
    }
    let mut uncached = Vec::new();
    let mut warm = Vec::new();
    for p in &positions {
        let t = Instant::now();
        black_box(warm_db.value(p).unwrap_or_else(|e| die(&e.to_string())));
        uncached.push(t.elapsed());
        // Warm: the same probe again, its block now cached.
        let t = Instant::now();
        black_box(warm_db.value(p).unwrap_or_else(|e| die(&e.to_string())));
        warm.push(t.elapsed());
    }
    report("probe, table open, block not cached", &mut uncached);
    report("probe, warm (block cached)", &mut warm);

    // Full queries in a warm process: value, every move, the line.
    let query = Query::new(&warm_db);
    let queried: Vec<Position> = positions
        .iter()
        .take(options.samples.min(2000))
        .map(|s| Position::from_state(s, Color::White))
        .collect();
    let (mut first, mut again) = (Vec::new(), Vec::new());
    let (mut moves, mut plies) = (0usize, 0usize);
    for p in &queried {
        let t = Instant::now();
        let a = query.analyse(p).unwrap_or_else(|e| die(&e.to_string()));
        first.push(t.elapsed());
        moves += a.moves.len();
        plies += a.line.map_or(0, |l| l.moves.len());
        let t = Instant::now();
        black_box(query.analyse(p).unwrap_or_else(|e| die(&e.to_string())));
        again.push(t.elapsed());
    }
    println!(
        "full query: {} positions, {:.1} moves and a line of {:.1} plies on average",
        queried.len(),
        moves as f64 / queried.len() as f64,
        plies as f64 / queried.len() as f64
    );
    report("full query, first time", &mut first);
    report("full query, repeated", &mut again);

    // What a query of a larger sector adds to process start: the index
    // tables of a stone count are built on first use (the sectors solved
    // here need only the small counts).
    for stones in [8u8, 9] {
        let fresh = Database::new(&dir, variant.clone());
        let t = Instant::now();
        black_box(fresh.indexer().sector(Sector::moving(stones, 3)).slots());
        println!(
            "  index tables for a side of {stones} stones, built on first use: {}",
            show(t.elapsed())
        );
    }

    if let Some(morris) = &options.morris {
        bench_process(morris, &dir, &variant, &queried, options.runs);
    }
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Process start to first answer: `morris query` run as a user would,
/// wall time of the whole process.
fn bench_process(
    morris: &PathBuf,
    dir: &PathBuf,
    variant: &Variant,
    positions: &[Position],
    runs: usize,
) {
    for json in [false, true] {
        let mut times = Vec::new();
        for p in positions.iter().cycle().take(runs) {
            let mut cmd = Command::new(morris);
            cmd.arg("--db").arg(dir).arg("query").arg(p.notation(variant));
            if json {
                cmd.arg("--json");
            }
            let t = Instant::now();
            let out = cmd.output().unwrap_or_else(|e| die(&format!("{}: {e}", morris.display())));
            times.push(t.elapsed());
            if !out.status.success() {
                die(&String::from_utf8_lossy(&out.stderr));
            }
        }
        let what = if json { "morris query --json, process" } else { "morris query, process" };
        report(&format!("{what} start to answer ({runs} runs)"), &mut times);
    }
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!("  {what:<48} {:>10} / {:>10}", show(at(0.5)), show(at(0.99)));
}

fn show(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.1} µs")
    } else {
        format!("{:.2} ms", us / 1000.0)
    }
}

fn die(msg: &str) -> ! {
    eprintln!("bench_probe: {}", msg.trim_end());
    std::process::exit(1);
}

/// `count` positions of `sectors`: a sector chosen with probability
/// proportional to its states, then both stone sets uniformly at random.
fn random_positions(
    variant: &Variant,
    db: &Database,
    sectors: &[Sector],
    count: usize,
    seed: u64,
) -> Vec<State> {
    let weights: Vec<u64> =
        sectors.iter().map(|&s| db.table(s).map(|t| t.info().counts.states).unwrap_or(0)).collect();
    let total: u64 = weights.iter().sum();
    let points = variant.board().points() as u32;
    let mut rng = XorShift(seed);
    (0..count)
        .map(|_| {
            let mut pick = rng.next() % total.max(1);
            let sector = sectors
                .iter()
                .zip(&weights)
                .find(|(_, &w)| {
                    let hit = pick < w;
                    pick = pick.saturating_sub(w);
                    hit
                })
                .map_or(sectors[0], |(s, _)| *s);
            let mover = rng.subset(points, sector.mover as u32, 0);
            let opponent = rng.subset(points, sector.opponent as u32, mover);
            State { mover, opponent, mover_hand: 0, opponent_hand: 0 }
        })
        .collect()
}

fn parse_options(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options { max_stones: 9, db: None, samples: 10_000, morris: None, runs: 20 };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|_| format!("{v}: not a number"));
        match arg.as_str() {
            "--max-stones" => options.max_stones = number(value()?)? as u32,
            "--db" => options.db = Some(PathBuf::from(value()?)),
            "--samples" => options.samples = number(value()?)?.max(1),
            "--morris" => options.morris = Some(PathBuf::from(value()?)),
            "--runs" => options.runs = number(value()?)?.max(1),
            _ => return Err(format!("unknown argument '{arg}'")),
        }
    }
    Ok(options)
}
