//! What one probe of a table file costs, cold and warm, whatever its
//! block size: for `morris compact`'s figures in docs/compression.md.
//!
//! ```text
//! cargo run --release --example table_probe_cost -- TABLE... [--variant V] [--probes N]
//! ```
//!
//! Per table, N random slots (a fixed seed, the same for every table of
//! the same size): **warm**, one `Table::get` each on a table opened
//! once, its pages in the page cache (each probe decodes a block: random
//! slots almost never share one); **cold**, for each probe the file's
//! pages dropped from the page cache (`posix_fadvise(DONTNEED)`, this
//! file only, nothing else of the machine's cache), then the table
//! opened (header and offset table read) and the slot read; and the cold
//! opening alone, the same way. Mean and median wall-clock times; thread
//! CPU time of the warm probes too.

use morris::table::Table;
use morris::variant::Variant;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut tables, mut variant, mut probes) = (Vec::new(), "nine".to_string(), 200usize);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--variant" => variant = args.next().expect("--variant V"),
            "--probes" => probes = args.next().and_then(|n| n.parse().ok()).expect("--probes N"),
            _ => tables.push(PathBuf::from(arg)),
        }
    }
    let rules = Variant::named(&variant).expect("a variant").rules_key();
    println!("table\tblock_cells\tbytes\twarm_mean_us\twarm_median_us\twarm_cpu_us\tcold_mean_us\tcold_median_us\tcold_open_median_us");
    for path in tables {
        // `<variant>-<sector>.mtb`
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let sector = name.split_once('-').expect("<variant>-<sector>.mtb").1.to_string();
        let table = Table::open(&path, &rules, &sector).unwrap();
        let slots = table.info().slots;
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            seed >> 11
        };
        let picks: Vec<u64> = (0..probes).map(|_| next() % slots).collect();
        // Warm: every page read once first.
        table.verify().unwrap();
        let cpu = thread_cpu();
        let warm: Vec<Duration> = picks
            .iter()
            .map(|&slot| {
                let t = Instant::now();
                std::hint::black_box(table.get(slot).unwrap());
                t.elapsed()
            })
            .collect();
        let warm_cpu = (thread_cpu() - cpu) / probes as u32;
        let (block_cells, bytes) = (table.block_cells(), table.bytes_on_disk());
        drop(table);
        let cold: Vec<Duration> = picks
            .iter()
            .map(|&slot| {
                drop_from_page_cache(&path);
                let t = Instant::now();
                let table = Table::open(&path, &rules, &sector).unwrap();
                std::hint::black_box(table.get(slot).unwrap());
                t.elapsed()
            })
            .collect();
        let cold_open: Vec<Duration> = picks
            .iter()
            .map(|_| {
                drop_from_page_cache(&path);
                let t = Instant::now();
                std::hint::black_box(Table::open(&path, &rules, &sector).unwrap());
                t.elapsed()
            })
            .collect();
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "{}\t{block_cells}\t{bytes}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{:.1}\t{:.1}",
            path.display(),
            us(mean(&warm)),
            us(median(warm)),
            us(warm_cpu),
            us(mean(&cold)),
            us(median(cold)),
            us(median(cold_open))
        );
    }
}

fn mean(times: &[Duration]) -> Duration {
    times.iter().sum::<Duration>() / times.len() as u32
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// This thread's CPU time.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // Safety: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Drops the clean pages of the file at `path` from the page cache.
fn drop_from_page_cache(path: &std::path::Path) {
    let file = File::open(path).unwrap();
    // Safety: a valid descriptor, the whole file.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(rc, 0, "posix_fadvise");
}
