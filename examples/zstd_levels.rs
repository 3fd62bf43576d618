//! What each zstd level costs the solver's writer: the cells of real
//! tables laid out as the writer lays them out (each block of
//! `BLOCK_CELLS` cells as its low-byte plane, then its high-byte plane),
//! compressed block by block on one thread with one kept context, as
//! `table::writer` does, at each level in turn, several rounds.
//!
//! ```text
//! cargo run --release --example zstd_levels -- --db DIR [--variant nine]
//!     --sectors 7-5,6-6-1-0 [--levels 1,2,3,4,5] [--mib 200] [--rounds 3]
//! ```
//!
//! Prints, per level, the compressed bytes (each block's frame plus the
//! 12 bytes of offset and CRC the table adds) and the fastest round's
//! rate in MB/s of input. The levels alternate within each round, so a
//! machine that changes speed mid-run shows in every level alike. The
//! `zstd` command's own benchmark (`zstd -b1 -e9`) prints its levels
//! over carriage returns, which is easy to misread; this measures the
//! library the solver links.

use morris::database::Database;
use morris::index::Sector;
use morris::table::BLOCK_CELLS;
use morris::variant::Variant;
use std::time::Instant;

fn main() {
    let mut db = String::new();
    let mut variant = "nine".to_string();
    let mut sectors: Vec<Sector> = Vec::new();
    let mut levels = vec![1, 2, 3, 4, 5];
    let mut mib = 200usize;
    let mut rounds = 3;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| fail(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--db" => db = value,
            "--variant" => variant = value,
            "--sectors" => {
                sectors = value
                    .split(',')
                    .map(|s| s.parse().unwrap_or_else(|e| fail(&format!("sector {s}: {e}"))))
                    .collect()
            }
            "--levels" => {
                levels = value
                    .split(',')
                    .map(|l| l.parse().unwrap_or_else(|_| fail(&format!("level {l}"))))
                    .collect()
            }
            "--mib" => mib = value.parse().unwrap_or_else(|_| fail("--mib")),
            "--rounds" => rounds = value.parse().unwrap_or_else(|_| fail("--rounds")),
            _ => fail(&format!("unknown flag {flag}")),
        }
    }
    if db.is_empty() || sectors.is_empty() {
        fail("--db and --sectors are needed");
    }
    let variant = Variant::named(&variant).unwrap_or_else(|e| fail(&format!("{e}")));
    let db = Database::new(&db, variant);
    let blocks = sample_blocks(&db, &sectors, mib << 20);
    let input: usize = blocks.iter().map(Vec::len).sum();
    println!("{} blocks, {input} bytes of planes", blocks.len());
    let mut best = vec![(f64::MAX, f64::MAX); levels.len()];
    let mut bytes = vec![0; levels.len()];
    let mut planes = vec![0u8; BLOCK_CELLS as usize * 2];
    for _ in 0..rounds {
        for (i, &level) in levels.iter().enumerate() {
            let mut compressor = zstd::bulk::Compressor::new(level).expect("compressor");
            let t = Instant::now();
            let frames: Vec<Vec<u8>> =
                blocks.iter().map(|b| compressor.compress(b).expect("compress")).collect();
            let compress = t.elapsed().as_secs_f64();
            let mut decompressor = zstd::bulk::Decompressor::new().expect("decompressor");
            let t = Instant::now();
            for frame in &frames {
                decompressor.decompress_to_buffer(frame, &mut planes).expect("decompress");
            }
            let decompress = t.elapsed().as_secs_f64();
            best[i] = (best[i].0.min(compress), best[i].1.min(decompress));
            bytes[i] = frames.iter().map(|f| f.len() + 12).sum::<usize>();
        }
    }
    println!("level bytes bits/cell compress-MB/s decompress-MB/s (fastest of {rounds})");
    for (i, level) in levels.iter().enumerate() {
        let bits = 8.0 * bytes[i] as f64 / (input / 2) as f64;
        let rate = |seconds: f64| input as f64 / seconds / 1e6;
        println!("{level} {} {bits:.3} {:.1} {:.1}", bytes[i], rate(best[i].0), rate(best[i].1));
    }
}

/// The first `limit` bytes of planes of the sectors' tables, a block each.
fn sample_blocks(db: &Database, sectors: &[Sector], limit: usize) -> Vec<Vec<u8>> {
    let mut blocks = Vec::new();
    let mut total = 0;
    for &sector in sectors {
        let table = db.table(sector).unwrap_or_else(|e| fail(&format!("{sector}: {e}")));
        let cells = table.read_all().unwrap_or_else(|e| fail(&format!("{sector}: {e}")));
        for block in cells.chunks(BLOCK_CELLS as usize) {
            if total >= limit {
                return blocks;
            }
            let planes: Vec<u8> = block
                .iter()
                .map(|&c| c as u8)
                .chain(block.iter().map(|&c| (c >> 8) as u8))
                .collect();
            total += planes.len();
            blocks.push(planes);
        }
    }
    blocks
}

fn fail(message: &str) -> ! {
    eprintln!("zstd_levels: {message}");
    std::process::exit(2)
}
