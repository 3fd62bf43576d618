//! What one code a byte costs against four a byte in the win/draw/loss
//! tier's blocks, by zstd's settings: bytes and this thread's CPU time to
//! compress every block of real `.wdl` files.
//!
//! ```text
//! cargo run --release --example wdl_layout_cost -- --wdl OUT [--variant nine] --sectors 7-6,6-7
//! ```
//!
//! OUT holds what `morris export --wdl OUT` wrote. The figures are in
//! `docs/compression.md`.

use morris::database::Database;
use morris::index::Sector;
use morris::Variant;
use zstd::stream::raw::CParameter;

/// A way to compress a block: its name, whether one code a byte, the
/// level and parameters set on top of it.
struct Setting {
    name: &'static str,
    one_a_byte: bool,
    level: i32,
    params: Vec<CParameter>,
}

fn settings() -> Vec<Setting> {
    let s = |name, one_a_byte, level, params| Setting { name, one_a_byte, level, params };
    vec![
        s("2b L19", false, 19, vec![]),
        s("1B L19", true, 19, vec![]),
        s("1B L18", true, 18, vec![]),
        s("1B L19 search 4", true, 19, vec![CParameter::SearchLog(4)]),
        s("1B L19 search 2", true, 19, vec![CParameter::SearchLog(2)]),
        s("1B L19 search 1", true, 19, vec![CParameter::SearchLog(1)]),
        s(
            "1B L19 search 2 chain 12",
            true,
            19,
            vec![CParameter::SearchLog(2), CParameter::ChainLog(12)],
        ),
        s(
            "1B btopt L19 search 2",
            true,
            19,
            vec![
                CParameter::SearchLog(2),
                CParameter::Strategy(zstd::zstd_safe::Strategy::ZSTD_btopt),
            ],
        ),
    ]
}

fn cpu_secs() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // Safety: `ts` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut wdl, mut variant, mut sectors) = (None, "nine".to_string(), Vec::<Sector>::new());
    while let Some(a) = args.next() {
        let value = args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--wdl" => wdl = Some(value),
            "--variant" => variant = value,
            "--sectors" => sectors = value.split(',').map(|s| s.parse().unwrap()).collect(),
            _ => panic!("unknown argument {a}"),
        }
    }
    let tier = Database::new(wdl.expect("--wdl"), Variant::named(&variant).unwrap());
    let settings = settings();
    let mut totals = vec![(0u64, 0f64); settings.len()];
    let mut best = 0u64;
    println!("sector\tsetting\tbytes\tcpu_s");
    for sector in sectors {
        let table = tier.wdl_table(sector).unwrap();
        let mut per = vec![(0u64, 0f64); settings.len()];
        for block in 0..table.blocks() {
            let packed = table.block_codes(block).unwrap();
            let cells =
                (table.info().slots - block as u64 * table.block_cells()).min(table.block_cells());
            let codes: Vec<u8> =
                (0..cells as usize).map(|i| packed[i / 4] >> (2 * (i % 4)) & 3).collect();
            let mut smallest = u64::MAX;
            for (k, s) in settings.iter().enumerate() {
                let mut c = zstd::bulk::Compressor::new(s.level).unwrap();
                for p in &s.params {
                    c.set_parameter(*p).unwrap();
                }
                let t = cpu_secs();
                let n =
                    c.compress(if s.one_a_byte { &codes } else { &packed }).unwrap().len() as u64;
                per[k].1 += cpu_secs() - t;
                per[k].0 += n;
                if k < 2 {
                    smallest = smallest.min(n);
                }
            }
            best += smallest;
        }
        for (k, s) in settings.iter().enumerate() {
            println!("{sector}\t{}\t{}\t{:.2}", s.name, per[k].0, per[k].1);
            totals[k].0 += per[k].0;
            totals[k].1 += per[k].1;
        }
    }
    for (k, s) in settings.iter().enumerate() {
        println!("all\t{}\t{}\t{:.2}", s.name, totals[k].0, totals[k].1);
    }
    println!("all\tsmaller of 2b L19 and 1B L19 a block\t{best}\t-");
}
