//! `morris export --wdl OUT`: the win/draw/loss tier of every table in the
//! database, one `<variant>-<sector>.wdl` file per table in OUT. A file
//! already there that checks out is kept, so a stopped export goes on
//! where it stopped; files appear whole, by rename.

use crate::common::{derived_sectors, describe, sectors_in, threads};
use crate::progress::{table_by_table, table_line};
use crate::signals;
use crate::units::{self, bits};
use anyhow::{Context, Result};
use morris::database::{Database, DbError, Exported};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The directory to write the win/draw/loss tables into (created if
    /// need be): `<variant>-<sector>.wdl`, one per table of the database.
    #[arg(long, value_name = "OUT")]
    wdl: PathBuf,

    /// Worker threads. Default: all cores.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,

    /// Leave out the sectors whose every outcome one ply of search over
    /// the other tables gives back (about half of nine's states): each is
    /// checked (recomputed from its successors' full tables, every slot
    /// equal to its own) and gets a stub of its header
    /// (`<variant>-<sector>.derived`) instead of a `.wdl` file.
    #[arg(long)]
    derive: bool,
}

pub fn run(db: &Database, args: &Args, out: &mut impl Write) -> Result<()> {
    let (present, _) = sectors_in(db)?;
    let dir = &args.wdl;
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let leftovers = remove_leftovers(db, dir)?;
    signals::install()?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads(args.threads)).build()?;
    writeln!(
        out,
        "{}: win/draw/loss tier of {} tables of {} into {}",
        describe(db.variant()),
        present.len(),
        db.dir().display(),
        dir.display()
    )?;
    for name in &leftovers {
        writeln!(out, "removed {name}: left by an export that was killed")?;
    }
    let states = |s| db.indexer().sector(s).canonical_states();
    let derive = derived_sectors(db, &present, args.derive, out)?;
    writeln!(
        out,
        "{:<10} {:>13} {:>10} {:>10} {:>10} {:>10}  file",
        "sector", "states", "full", "wdl", "bits/state", "time"
    )?;
    out.flush()?;

    let export = |sector, cancelled: &(dyn Fn() -> bool + Sync)| {
        if derive.contains(&sector) {
            let d = db.export_derived(sector, dir)?;
            return Ok::<_, DbError>(Exported {
                bytes: d.stub_bytes,
                full_bytes: d.table_bytes,
                written: d.written,
            });
        }
        db.export_wdl(sector, dir, cancelled)
    };
    let pass = table_by_table(
        db,
        &present,
        ["exporting", "written", "already there"],
        out,
        |sector, cancelled| pool.install(|| export(sector, cancelled)),
        |exported| exported.written,
        |sector, exported, took| {
            let n = states(sector);
            table_line(
                sector,
                n,
                &[
                    (units::bytes(exported.full_bytes), 10),
                    (units::bytes(exported.bytes), 10),
                    (format!("{:.4}", bits(exported.bytes, n)), 10),
                ],
                took,
                match (derive.contains(&sector), exported.written) {
                    (true, true) => "derived: checked, stub written",
                    (true, false) => "derived: stub already there",
                    (false, true) => "written",
                    (false, false) => "already there, checked",
                },
            )
        },
    )?;
    let full: u64 = pass.done.iter().map(|e| e.full_bytes).sum();
    let wdl: u64 = pass.done.iter().map(|e| e.bytes).sum();
    pass.finish(
        out,
        format_args!(
            "full tier {} ({:.4} bits/state), win/draw/loss tier {wdl} bytes, {} ({:.4} bits/state)",
            units::bytes(full),
            bits(full, pass.states),
            units::bytes(wdl),
            bits(wdl, pass.states),
        ),
    )?;
    Ok(())
}

/// Removes the temporary files (`<variant>-*.wdl.tmp`) of an export that
/// was killed before it could clean up; returns their names.
fn remove_leftovers(db: &Database, dir: &std::path::Path) -> Result<Vec<String>> {
    let prefix = format!("{}-", db.variant().name());
    let mut removed = Vec::new();
    for entry in
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))?
    {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(&prefix) && name.ends_with(".wdl.tmp") {
            std::fs::remove_file(entry.path())
                .with_context(|| format!("{}: cannot remove", entry.path().display()))?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
}
