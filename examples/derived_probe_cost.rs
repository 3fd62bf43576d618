//! What one probe of a state costs through `Database::stored`, warm and
//! cold, in a directory where its sector keeps its table and in one where
//! it is derived (`morris compact --derive`): for docs/compression.md.
//!
//! ```text
//! cargo run --release --example derived_probe_cost -- DIR... --sectors 9-8,8-8-1-1 [--variant V] [--probes N]
//! ```
//!
//! Per directory and sector, N random canonical states (a fixed seed, the
//! same states in every directory): **warm**, `Database::stored` on a
//! database opened once, after one pass over the same states (tables
//! open, their pages cached; each read still decodes its block, since
//! random states almost never share one); **cold**, for each probe every
//! table file of the directory dropped from the page cache
//! (`posix_fadvise(DONTNEED)`, those files only) after a new `Database`
//! is made (its index built outside the timing), so the probe opens each
//! table it reads, its header and offsets and its block from the disk. Median and mean wall-clock times, and whether the
//! sector was derived there.

use morris::database::{Database, SectorTable};
use morris::index::Sector;
use morris::position::State;
use morris::variant::Variant;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut dirs, mut variant, mut probes, mut sectors) =
        (Vec::new(), "nine".to_string(), 200usize, Vec::new());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--variant" => variant = args.next().expect("--variant V"),
            "--probes" => probes = args.next().and_then(|n| n.parse().ok()).expect("--probes N"),
            "--sectors" => {
                let list = args.next().expect("--sectors S,S");
                sectors = list.split(',').map(|s| s.parse::<Sector>().expect("a sector")).collect();
            }
            _ => dirs.push(PathBuf::from(arg)),
        }
    }
    let variant = Variant::named(&variant).expect("a variant");
    println!("dir\tsector\tderived\twarm_median_us\twarm_mean_us\tcold_median_us\tcold_mean_us");
    for &sector in &sectors {
        let states = pick(&Database::new(&dirs[0], variant.clone()), sector, probes);
        for dir in &dirs {
            let db = Database::new(dir, variant.clone());
            let derived = matches!(db.tier(sector), Ok(SectorTable::Derived(_)));
            for s in &states {
                db.stored(s).expect("a value");
            }
            let warm: Vec<Duration> = states
                .iter()
                .map(|s| {
                    let t = Instant::now();
                    db.stored(s).expect("a value");
                    t.elapsed()
                })
                .collect();
            // Its maps would keep their pages: the kernel drops no page a
            // mapping holds.
            drop(db);
            let cold: Vec<Duration> = states
                .iter()
                .map(|s| {
                    // A new database (its index made before the clock
                    // starts: the canonical sets of every size a probe
                    // ranks, built on first use, take tens of ms once per
                    // process): no table open, no block cached.
                    let db = Database::new(dir, variant.clone());
                    for size in 0..=u32::from(variant.stones()) {
                        db.indexer().set_classes(size);
                    }
                    drop_cache(dir);
                    let t = Instant::now();
                    db.stored(s).expect("a value");
                    t.elapsed()
                })
                .collect();
            let (wm, wa) = summary(warm);
            let (cm, ca) = summary(cold);
            println!("{}\t{sector}\t{derived}\t{wm:.1}\t{wa:.1}\t{cm:.1}\t{ca:.1}", dir.display());
        }
    }
}

/// `n` canonical states of `sector`, at random slots (a fixed seed).
fn pick(db: &Database, sector: Sector, n: usize) -> Vec<State> {
    let index = db.indexer().sector(sector);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut states = Vec::new();
    while states.len() < n {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let slot = (seed >> 11) % index.slots();
        index.for_each_in(slot..slot + 1, |_, m, o| states.push(sector.state(m, o)));
    }
    states
}

/// Drops every table file of `dir` from the page cache.
fn drop_cache(dir: &Path) {
    for entry in std::fs::read_dir(dir).expect("a directory").flatten() {
        if let Ok(file) = File::open(entry.path()) {
            // Safety: a plain advisory call on an open descriptor.
            unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
    }
}

/// Median and mean in microseconds.
fn summary(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let mean = times.iter().map(|&d| us(d)).sum::<f64>() / times.len() as f64;
    (us(times[times.len() / 2]), mean)
}
