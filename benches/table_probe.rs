//! Figures for the table format: bits per slot, cost of a probe that misses
//! the block cache, and write / read / verify throughput, on the synthetic
//! model of `morris::testing::synthetic_cells`.
//!
//! Stable Rust has no `#[bench]`, so this is a test target that prints:
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-storage cargo test -j 1 --bench table_probe -- --nocapture
//! ```

use std::time::Instant;

use morris::stats::Counts;
use morris::table::{write_table_with, Table, TableInfo, WriteOptions};
use morris::testing::synthetic_cells;

const SLOTS: usize = 1 << 23;

fn per_second(n: usize, since: Instant) -> f64 {
    n as f64 / since.elapsed().as_secs_f64() / 1e6
}

#[test]
fn table_figures() {
    let dir = tempfile::tempdir().unwrap();
    let cells = synthetic_cells(SLOTS, 2024);
    let info = TableInfo {
        rules: "bench".into(),
        sector: "9-9".into(),
        index_version: 0,
        slots: SLOTS as u64,
        counts: Counts::tally(&cells, SLOTS as u64),
    };
    for block_cells in [4096, 16384, 65536] {
        for zstd_level in [3, 9] {
            let options = WriteOptions { block_cells, zstd_level };
            let path = dir.path().join(format!("{block_cells}-{zstd_level}"));
            let t = Instant::now();
            write_table_with(&path, &info, &cells, &options).unwrap();
            let write = per_second(SLOTS, t);
            let table = Table::open(&path, "bench", "9-9").unwrap();
            let bits = table.bytes_on_disk() as f64 * 8.0 / SLOTS as f64;

            // Stride through blocks so every probe misses the small cache.
            let blocks = SLOTS / block_cells as usize;
            let probes = 2000.min(blocks * 8);
            let t = Instant::now();
            for p in 0..probes {
                let block = (p * 97) % blocks;
                let index = block * block_cells as usize + p % block_cells as usize;
                assert_eq!(table.get(index as u64).unwrap(), cells[index]);
            }
            let miss_us = t.elapsed().as_secs_f64() * 1e6 / probes as f64;

            let t = Instant::now();
            for i in 0..100_000u64 {
                std::hint::black_box(table.get(i % 1000).unwrap());
            }
            let hit_ns = t.elapsed().as_secs_f64() * 1e9 / 100_000.0;

            let t = Instant::now();
            assert_eq!(table.read_all().unwrap().len(), SLOTS);
            let read = per_second(SLOTS, t);
            let t = Instant::now();
            table.verify().unwrap();
            let verify = per_second(SLOTS, t);
            println!(
                "block {block_cells:6} level {zstd_level:2}: {bits:.3} bits/slot, probe {miss_us:5.1} us (miss) {hit_ns:4.0} ns (hit), \
                 write {write:4.0} / read_all {read:4.0} / verify {verify:4.0} Mcells/s"
            );
        }
    }
}
