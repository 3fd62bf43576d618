//! How small the progress tier (`morris::progress`) can be stored: the
//! moving pairs of a solved database, their progress cells computed, then
//! each way of storing them compressed in blocks with zstd, against the
//! win/draw/loss codes of the same states stored the same way.
//!
//!   cargo run --release --example progress_size -- VARIANT DB MAX_STONES
//!
//! The ways, each one byte a slot before compression (a run of non-canonical
//! slots, and of the states a way leaves out, repeats the byte before it):
//! - `lost`: the progress depth of lost states only, halved (they are even);
//!   what the winner reads of its successors;
//! - `won`: that of won states only, halved (odd): the loser's, from which a
//!   lost state's follows by one ply;
//! - `both`: every decided state's depth (capped at 255).
//!
//! Blocks of 256 Ki slots at zstd level 19, as the win/draw/loss tier's.

use morris::database::Database;
use morris::progress::solve_progress_pair;
use morris::solve::moving_pairs;
use morris::Variant;
use rayon::prelude::*;

const BLOCK: usize = 256 * 1024;
const LEVEL: i32 = 19;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, variant, dir, max] = &args[..] else {
        eprintln!("usage: progress_size VARIANT DB MAX_STONES");
        std::process::exit(2);
    };
    let v = Variant::named(variant).expect("a variant");
    let db = Database::new(dir, v.clone());
    let max: u32 = max.parse().expect("a number of stones");
    let mut totals = [0u64; 5];
    println!(
        "{:<10} {:>12} {:>10} {:>10} {:>10} {:>10}",
        "pair", "states", "wdl", "lost", "won", "both"
    );
    for pair in moving_pairs(&v, max) {
        let progress = solve_progress_pair(&db, pair).expect("the pair's exits are solved");
        let mut row = [0u64; 5];
        for (sector, cells) in &progress.sectors {
            let index = db.indexer().sector(*sector);
            let canonical: Vec<bool> =
                (0..index.slots()).into_par_iter().map(|s| index.unrank(s).is_some()).collect();
            row[0] += canonical.iter().filter(|&&c| c).count() as u64;
            let wdl = codes(cells, &canonical, |c| Some(outcome_code(c)));
            row[1] += packed_bytes(&wdl);
            row[2] += bytes(&codes(cells, &canonical, |c| (c != 0 && c % 2 == 1).then(|| half(c))));
            row[3] += bytes(&codes(cells, &canonical, |c| (c != 0 && c % 2 == 0).then(|| half(c))));
            row[4] += bytes(&codes(cells, &canonical, |c| Some(c.min(255) as u8)));
        }
        println!(
            "{:<10} {:>12} {:>10} {:>10} {:>10} {:>10}",
            pair.to_string(),
            row[0],
            row[1],
            row[2],
            row[3],
            row[4]
        );
        for (t, r) in totals.iter_mut().zip(row) {
            *t += r;
        }
    }
    let bits = |b: u64| 8.0 * b as f64 / totals[0] as f64;
    println!(
        "total: {} states; bytes (bits per state): wdl {} ({:.4}), lost {} ({:.4}), won {} ({:.4}), both {} ({:.4})",
        totals[0],
        totals[1],
        bits(totals[1]),
        totals[2],
        bits(totals[2]),
        totals[3],
        bits(totals[3]),
        totals[4],
        bits(totals[4])
    );
}

/// A cell's depth, halved: a loss at `2k` or a win at `2k + 1` gives `k`.
fn half(cell: u16) -> u8 {
    ((cell - 1) / 2).min(255) as u8
}

/// 0 loss, 1 draw, 2 win.
fn outcome_code(cell: u16) -> u8 {
    match cell {
        0 => 1,
        c if c % 2 == 0 => 2,
        _ => 0,
    }
}

/// One byte a slot: `keep`'s byte where it gives one at a canonical slot,
/// else the byte before (so that what is left out costs a run).
fn codes(cells: &[u16], canonical: &[bool], keep: impl Fn(u16) -> Option<u8>) -> Vec<u8> {
    let mut last = 0;
    cells
        .iter()
        .zip(canonical)
        .map(|(&c, &canon)| {
            if let (true, Some(b)) = (canon, keep(c)) {
                last = b;
            }
            last
        })
        .collect()
}

/// The compressed size of `bytes` in blocks of [`BLOCK`] slots.
fn bytes(bytes: &[u8]) -> u64 {
    bytes
        .par_chunks(BLOCK)
        .map(|b| zstd::bulk::compress(b, LEVEL).expect("zstd compresses").len() as u64)
        .sum()
}

/// The compressed size of 2-bit codes packed four a byte.
fn packed_bytes(codes: &[u8]) -> u64 {
    let packed: Vec<u8> = codes
        .chunks(4)
        .map(|q| q.iter().enumerate().fold(0, |acc, (i, &c)| acc | c << (2 * i)))
        .collect();
    packed
        .par_chunks(BLOCK / 4)
        .map(|b| zstd::bulk::compress(b, LEVEL).expect("zstd compresses").len() as u64)
        .sum()
}
