//! Single-thread throughput of the sector index on random positions of
//! nine's largest sectors: canonicalise, canonicalise-and-rank, unrank,
//! and the solver's sequential walk over slots.
//!
//! `cargo run --release --example bench_index -- [--samples N] [--rounds R]`
//! (`scripts/bench.sh` runs it). The positions are drawn up front, so the
//! timed loops do only index work; each figure is the best of R rounds.

use morris::index::{Indexer, Sector, SectorIndex};
use morris::variant::{Bits, Variant};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The sectors measured: the largest of nine's moving phase.
const SECTORS: [(u8, u8); 2] = [(9, 9), (9, 8)];

struct Options {
    samples: usize,
    rounds: usize,
}

fn main() {
    let options = match parse_options(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("bench_index: {e}\nusage: bench_index [--samples N] [--rounds R]");
            std::process::exit(2);
        }
    };
    let variant = Variant::named("nine").expect("nine is a known variant");
    let ix = Indexer::new(variant.board());
    println!(
        "index: nine, {} random positions per sector, one thread, best of {} rounds",
        options.samples, options.rounds
    );
    for (m, o) in SECTORS {
        bench_sector(&ix, Sector::moving(m, o), &options);
    }
}

fn parse_options(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options { samples: 4_000_000, rounds: 3 };
    while let Some(arg) = args.next() {
        let mut number = || -> Result<usize, String> {
            let value = args.next().ok_or(format!("{arg} needs a number"))?;
            value.parse().map_err(|_| format!("{arg} {value}: not a number"))
        };
        match arg.as_str() {
            "--samples" => options.samples = number()?.max(1),
            "--rounds" => options.rounds = number()?.max(1),
            _ => return Err(format!("unknown argument '{arg}'")),
        }
    }
    Ok(options)
}

fn bench_sector(ix: &Indexer, sector: Sector, options: &Options) {
    let start = Instant::now();
    let index = ix.sector(sector);
    let tables = start.elapsed();
    let positions =
        random_positions(options.samples, sector, 0x9e37_79b9_7f4a_7c15 ^ sector.mover as u64);
    let mut slots = vec![0u64; positions.len()];

    let n = positions.len() as f64;
    let canonical = best_of(options.rounds, || {
        let mut acc = 0;
        for &(mover, opponent) in &positions {
            let (m, o) = ix.canonical(mover, opponent);
            acc ^= m ^ o.rotate_left(7);
        }
        black_box(acc);
    });
    let rank = best_of(options.rounds, || {
        for (slot, &(mover, opponent)) in slots.iter_mut().zip(&positions) {
            *slot = index.rank(mover, opponent);
        }
        black_box(&slots);
    });
    let unrank = best_of(options.rounds, || {
        let mut acc = 0;
        for &slot in &slots {
            let (m, o) = index.unrank(slot).expect("a ranked position has a canonical slot");
            acc ^= m ^ o.rotate_left(7);
        }
        black_box(acc);
    });
    let walked = options.samples as u64;
    let walk = best_of(options.rounds, || walk_slots(&index, walked));

    // The tables of a stone count are built on first use and shared.
    let set_up = if tables.as_millis() == 0 {
        "tables already built".to_string()
    } else {
        format!("tables built in {:.3} s", tables.as_secs_f64())
    };
    println!("sector {sector}: {} slots, {set_up}", index.slots());
    figure("canonicalise", n / canonical.as_secs_f64(), "positions/s");
    figure("canonicalise + rank", n / rank.as_secs_f64(), "positions/s");
    figure("unrank", n / unrank.as_secs_f64(), "slots/s");
    figure("walk (for_each_in)", walked as f64 / walk.as_secs_f64(), "slots/s");
}

/// Visits the first `count` slots in order, as the solver's scans do.
fn walk_slots(index: &SectorIndex, count: u64) {
    let mut acc = 0;
    index.for_each_in(0..count.min(index.slots()), |slot, mover, opponent| {
        acc ^= slot as Bits ^ mover ^ opponent;
    });
    black_box(acc);
}

fn figure(what: &str, per_second: f64, unit: &str) {
    println!("  {what:<22} {:>8.2} M {unit}", per_second / 1e6);
}

/// The shortest of `rounds` timed runs of `f`.
fn best_of(rounds: usize, mut f: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .expect("at least one round")
}

/// `count` positions of `sector` on the 24 points, uniformly at random.
fn random_positions(count: usize, sector: Sector, seed: u64) -> Vec<(Bits, Bits)> {
    let mut rng = XorShift(seed);
    (0..count)
        .map(|_| {
            let mover = rng.subset(sector.mover as u32, 0);
            let opponent = rng.subset(sector.opponent as u32, mover);
            (mover, opponent)
        })
        .collect()
}

/// Marsaglia's xorshift64*: enough randomness for benchmark inputs.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A set of `size` of the 24 points outside `taken`.
    fn subset(&mut self, size: u32, taken: Bits) -> Bits {
        let mut set: Bits = 0;
        while set.count_ones() < size {
            let p = (self.next() >> 32) % 24;
            if (taken | set) & (1 << p) == 0 {
                set |= 1 << p;
            }
        }
        set
    }
}
