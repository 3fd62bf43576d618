//! The win/draw/loss tier of real sectors against their full tables:
//! every canonical slot's outcome compared (`WdlTable::get` against the
//! full table's cell), and what a block costs to decode (this thread's
//! CPU time, the machine may be shared: the fastest of two passes over
//! every block).
//!
//! ```text
//! cargo run --release --example wdl_check -- --db DIR --wdl OUT
//!     [--variant nine] [--fly-at N|never] --sectors 3-3,6-5,...
//! ```
//!
//! OUT holds what `morris export --wdl OUT` wrote from DIR. The figures
//! are in `docs/compression.md`.

use morris::database::Database;
use morris::index::Sector;
use morris::value::{Cell, Outcome, Value};
use morris::Variant;
use std::time::Instant;

fn outcome(cell: u16) -> Outcome {
    match Value::from(Cell(cell)) {
        Value::Win(_) => Outcome::Win,
        Value::Draw => Outcome::Draw,
        Value::Loss(_) => Outcome::Loss,
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut db, mut wdl, mut variant, mut fly_at, mut sectors) =
        (None, None, "nine".to_string(), None, Vec::<Sector>::new());
    while let Some(a) = args.next() {
        let value = args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--db" => db = Some(value),
            "--wdl" => wdl = Some(value),
            "--variant" => variant = value,
            "--fly-at" => fly_at = Some(value),
            "--sectors" => sectors = value.split(',').map(|s| s.parse().unwrap()).collect(),
            _ => panic!("unknown argument {a}"),
        }
    }
    let mut v = Variant::named(&variant).unwrap();
    if let Some(f) = fly_at {
        v = v.with_flying(f.parse().unwrap());
    }
    let full = Database::new(db.expect("--db"), v.clone());
    let tier = Database::new(wdl.expect("--wdl"), v);
    println!("sector\tstates\tmismatches\tblocks\tdecode_us_per_block\tget_ns\tcheck_s");
    for sector in sectors {
        let t = Instant::now();
        let table = full.table(sector).unwrap();
        let wdl = tier.wdl_table(sector).unwrap();
        let index = full.indexer().sector(sector);
        let block_cells = table.block_cells();
        let (mut states, mut mismatches, mut get_secs) = (0u64, 0u64, 0.0);
        for block in 0..index.slots().div_ceil(block_cells) {
            let cells = table.block(block as usize).unwrap();
            let first = block * block_cells;
            let mut slots = Vec::with_capacity(cells.len());
            index.for_each_in(first..first + cells.len() as u64, |slot, _, _| slots.push(slot));
            let g = cpu_secs();
            for &slot in &slots {
                if wdl.get(slot).unwrap() != outcome(cells[(slot - first) as usize]) {
                    mismatches += 1;
                }
            }
            get_secs += cpu_secs() - g;
            states += slots.len() as u64;
        }
        let mut best = f64::INFINITY;
        for _ in 0..2 {
            let c = cpu_secs();
            for block in 0..wdl.blocks() {
                wdl.block_codes(block).unwrap();
            }
            best = best.min(cpu_secs() - c);
        }
        println!(
            "{sector}\t{states}\t{mismatches}\t{}\t{:.1}\t{:.1}\t{:.1}",
            wdl.blocks(),
            best * 1e6 / wdl.blocks() as f64,
            get_secs * 1e9 / states.max(1) as f64,
            t.elapsed().as_secs_f64()
        );
    }
}

fn cpu_secs() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // Safety: `ts` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
