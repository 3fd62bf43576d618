//! How many scattered cell accesses per second the machine serves, by how
//! many are in flight: the ceiling under the solver's levels, whose
//! predecessor updates are such accesses.
//!
//! ```text
//! cargo run --release --example random_access -- [GIB] [THREADS] [read|write|atomic]
//! ```
//!
//! Each thread walks its own part of a GIB-GiB array of `u16` cells (on
//! huge pages, as the solver's are: [`HugeCells`]), at random slots,
//! prefetching each slot `distance` accesses before it reads (and with
//! `write` or `atomic`, adds one to) the cell, for distances 1 to 64 and
//! each prefetch hint. Prints accesses per second over all threads.
//! Measured figures: docs/benchmarks.md, "How many scattered accesses the
//! memory serves".

use morris::huge::HugeCells;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};
use std::time::Instant;

/// Accesses per thread and measurement.
const ACCESSES: usize = 20_000_000;

#[derive(Clone, Copy, PartialEq)]
enum Access {
    Read,
    Write,
    Atomic,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let gib: usize = args.first().map_or(Ok(4), |a| a.parse()).expect("GIB: a whole number");
    let threads: usize = args.get(1).map_or(Ok(2), |a| a.parse()).expect("THREADS: a whole number");
    let access = match args.get(2).map(String::as_str) {
        None | Some("read") => Access::Read,
        Some("write") => Access::Write,
        Some("atomic") => Access::Atomic,
        Some(other) => panic!("'{other}': expected read, write or atomic"),
    };
    let mut cells = HugeCells::zeroed(gib << 29).expect("the cells fit in memory");
    // Written once, so that every page is the array's own: untouched pages
    // all read the kernel's one zero page, which stays in cache.
    cells.fill(1);
    let part = cells.len() / threads.max(1);
    for (hint, name) in [(Hint::T0, "T0"), (Hint::T2, "T2"), (Hint::Nta, "NTA")] {
        for distance in [1, 4, 16, 32, 64] {
            let start = Instant::now();
            std::thread::scope(|scope| {
                for (t, part) in cells.chunks_mut(part).take(threads).enumerate() {
                    scope.spawn(move || {
                        std::hint::black_box(walk(part, distance, hint, access, t as u64 + 1))
                    });
                }
            });
            let per_second = (ACCESSES * threads) as f64 / start.elapsed().as_secs_f64();
            println!("{name:>3}, {distance:>2} in flight: {:6.1} M accesses/s", per_second / 1e6);
        }
    }
}

#[derive(Clone, Copy)]
enum Hint {
    T0,
    T2,
    Nta,
}

/// `ACCESSES` accesses at random slots of `cells`, each prefetched
/// `distance` accesses ahead; the sum of the cells read.
fn walk(cells: &mut [u16], distance: usize, hint: Hint, access: Access, seed: u64) -> u64 {
    // Safety: `AtomicU16` has the size and alignment of `u16`, and the
    // exclusive borrow means no other access while `cells` is in use.
    let cells = unsafe { &*(cells as *mut [u16] as *const [AtomicU16]) };
    let mut state = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(seed);
    let mut next = || {
        // xorshift64: cheap, and enough to defeat the hardware prefetchers.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % cells.len() as u64) as usize
    };
    let mut ring = vec![0usize; distance];
    let mut sum = 0u64;
    for i in 0..ACCESSES + distance {
        let k = i % distance;
        if i >= distance {
            let cell = &cells[ring[k]];
            sum += match access {
                Access::Read => cell.load(Relaxed),
                Access::Write => {
                    let c = cell.load(Relaxed);
                    cell.store(c.wrapping_add(1), Relaxed);
                    c
                }
                Access::Atomic => cell.fetch_add(1, Relaxed),
            } as u64;
        }
        if i < ACCESSES {
            ring[k] = next();
            prefetch(&cells[ring[k]], hint);
        }
    }
    sum
}

#[inline(always)]
fn prefetch(cell: &AtomicU16, hint: Hint) {
    #[cfg(target_arch = "x86_64")]
    // Safety: a prefetch is only a hint; any address is allowed.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_NTA, _MM_HINT_T0, _MM_HINT_T2};
        let at = cell.as_ptr() as *const i8;
        match hint {
            Hint::T0 => _mm_prefetch(at, _MM_HINT_T0),
            Hint::T2 => _mm_prefetch(at, _MM_HINT_T2),
            Hint::Nta => _mm_prefetch(at, _MM_HINT_NTA),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (cell, hint);
}
