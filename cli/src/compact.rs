//! `morris compact`: every full table of the database rewritten in place
//! with larger blocks at a higher zstd level (smaller files, dearer block
//! reads), one table at a time, each checked against the old one before
//! it replaces it. A table already in the blocks asked for is skipped, so
//! a stopped run goes on where it stopped. Holds the directory's lock,
//! as a solve does.

use crate::common::{derived_sectors, describe, sectors_in, threads};
use crate::progress::{table_by_table, table_line};
use crate::signals;
use crate::units::{self, bits};
use anyhow::{Context, Result};
use morris::database::{Compacted, Database, SectorTable};
use morris::table::WriteOptions;
use std::io::Write;

/// Cells per block that `compact` writes by default.
const BLOCK_CELLS: u32 = 64 * 1024;

/// zstd level that `compact` writes at by default.
const LEVEL: i32 = 19;

#[derive(clap::Args)]
pub struct Args {
    /// Worker threads. Default: all cores.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,

    /// Cells per block of the rewritten tables (`solve` writes 16384). A
    /// table whose header already says this many is skipped.
    #[arg(long, value_name = "N", default_value_t = BLOCK_CELLS,
          value_parser = clap::value_parser!(u32).range(1..=1 << 20))]
    block_cells: u32,

    /// zstd level of the rewritten tables (`solve` writes at 5).
    #[arg(long, value_name = "L", default_value_t = LEVEL,
          value_parser = clap::value_parser!(i32).range(1..=22))]
    level: i32,

    /// Also leave out the cells of the sectors whose every value one ply
    /// of search over the other tables gives back (about half of nine's
    /// states): each is recomputed from its successors, checked against
    /// its table slot by slot, and only then replaced by a stub of its
    /// header (`<variant>-<sector>.derived`). Probes of those states read
    /// their successors instead (10-30 reads).
    #[arg(long)]
    derive: bool,
}

pub fn run(db: &Database, args: &Args, out: &mut impl Write) -> Result<()> {
    let (present, _) = sectors_in(db)?;
    // The lock first: a solve or another compact stops here.
    let leftovers = db.begin_solve()?;
    signals::install().context("installing the SIGINT and SIGTERM handlers")?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads(args.threads)).build()?;
    let options = WriteOptions { block_cells: args.block_cells, zstd_level: args.level };
    writeln!(
        out,
        "{}: compacting {} tables of {} to {} cells a block at zstd level {}",
        describe(db.variant()),
        present.len(),
        db.dir().display(),
        options.block_cells,
        options.zstd_level
    )?;
    for note in leftovers {
        writeln!(out, "{note}")?;
    }
    let states = |s| db.indexer().sector(s).canonical_states();
    let derive = derived_sectors(db, &present, args.derive, out)?;
    writeln!(
        out,
        "{:<10} {:>13} {:>10} {:>10} {:>11} {:>10} {:>10}  table",
        "sector", "states", "before", "after", "bits before", "bits after", "time"
    )?;
    out.flush()?;

    let compact = |sector, cancelled: &(dyn Fn() -> bool + Sync)| {
        if derive.contains(&sector) {
            let d = db.derive_sector(sector)?;
            let before = if d.written { d.table_bytes } else { d.stub_bytes };
            return Ok(Compacted { before, after: d.stub_bytes, written: d.written });
        }
        if let Ok(SectorTable::Derived(stub)) = db.tier(sector) {
            let bytes = stub.bytes_on_disk();
            return Ok(Compacted { before: bytes, after: bytes, written: false });
        }
        db.compact_table(sector, &options, cancelled)
    };
    let pass = table_by_table(
        db,
        &present,
        ["compacting", "rewritten", "already compact"],
        out,
        |sector, cancelled| pool.install(|| compact(sector, cancelled)),
        |compacted| compacted.written,
        |sector, c, took| {
            let n = states(sector);
            table_line(
                sector,
                n,
                &[
                    (units::bytes(c.before), 10),
                    (units::bytes(c.after), 10),
                    (format!("{:.4}", bits(c.before, n)), 11),
                    (format!("{:.4}", bits(c.after, n)), 10),
                ],
                took,
                match (derive.contains(&sector), c.written) {
                    (true, true) => "derived, checked, table removed",
                    (true, false) => "derived before, skipped",
                    (false, true) => "rewritten, checked",
                    (false, false) => "already compact, skipped",
                },
            )
        },
    )?;
    let before: u64 = pass.done.iter().map(|c| c.before).sum();
    let after: u64 = pass.done.iter().map(|c| c.after).sum();
    pass.finish(
        out,
        format_args!(
            "{before} → {after} bytes ({} → {}), {:.4} → {:.4} bits/state",
            units::bytes(before),
            units::bytes(after),
            bits(before, pass.states),
            bits(after, pass.states),
        ),
    )?;
    Ok(())
}
