//! `morris export --wdl OUT`: the win/draw/loss tier of every table in the
//! database, one `<variant>-<sector>.wdl` file per table in OUT. A file
//! already there that checks out is kept, so a stopped export goes on
//! where it stopped; files appear whole, by rename.
//!
//! Each block of a file is the smaller of its two layouts (a version-2
//! file, [`Compression::Smallest`]). With `--derive` every table is
//! first exported quickly (four codes a byte, a version-1 file: a sixth of
//! the CPU time), and the sectors to derive are then chosen by the sizes
//! of those files ([`plan_derived`]): the plan that leaves out the most
//! bytes, not the most states. Each derived sector is checked, gets its
//! stub, and loses its `.wdl` file; then the kept sectors' files are
//! rewritten as version 2. Stubs already in OUT (a stopped export's) stay
//! in the plan, and version-2 files are kept, so a stopped export goes on
//! with the same kind of plan.

use crate::common::{describe, sectors_in, threads};
use crate::progress::{table_by_table, table_line, Pass, Words};
use crate::signals;
use crate::units::{self, bits};
use anyhow::{Context, Result};
use morris::database::{plan_derived, Database, DbError, Exported, SectorTable};
use morris::index::Sector;
use morris::table::Compression;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

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
    /// the other tables gives back, chosen by the sizes of their `.wdl`
    /// files once every table is exported quickly (about 37% of nine's
    /// states, 70% of the tier's bytes): each is checked (recomputed from
    /// its successors' full tables, every slot equal to its own) and gets
    /// a stub of its header (`<variant>-<sector>.derived`) in place of its
    /// `.wdl` file. The kept tables are then compressed as hard as they
    /// go.
    #[arg(long)]
    derive: bool,

    /// Four states a byte in every block (version-1 files): about a sixth
    /// of the CPU time, 2-9% more bytes on nine's big sectors. With
    /// `--derive`, the kept tables are left so too.
    #[arg(long)]
    quick: bool,
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
    // Sectors derived already: in the database (their stubs are copied)
    // or in OUT by a stopped export.
    let fixed: BTreeSet<Sector> = if args.derive {
        present.iter().copied().filter(|&s| derived_before(db, s, dir)).collect()
    } else {
        BTreeSet::new()
    };
    let tables: Vec<Sector> = present.iter().copied().filter(|s| !fixed.contains(s)).collect();
    let mut bytes: BTreeMap<Sector, Exported> = BTreeMap::new();
    let words = ["exporting", "written", "already there"];
    let notes = ["written", "already there, checked"];
    let compression =
        if args.derive || args.quick { Compression::Quick } else { Compression::Smallest };
    let exported = pass(db, &tables, words, notes, out, |s, c| {
        pool.install(|| db.export_wdl(s, dir, compression, c))
    })?;
    bytes.extend(tables.iter().copied().zip(exported.done.iter().copied()));
    if !args.derive {
        return finish(db, &exported, &bytes, out);
    }
    let wdl_bytes = |s: Sector| bytes.get(&s).map_or(0, |e| e.bytes);
    let plan = plan_derived(db.variant(), &present, wdl_bytes, &fixed);
    let planned: u64 = plan.iter().map(|&s| wdl_bytes(s)).sum();
    let all: u64 = present.iter().map(|&s| wdl_bytes(s)).sum();
    writeln!(
        out,
        "deriving {} of the {} sectors, chosen by their win/draw/loss bytes ({planned} of {all} bytes{})",
        plan.len(),
        present.len(),
        if fixed.is_empty() { String::new() } else { format!("; {} derived before", fixed.len()) }
    )?;
    let plan: Vec<Sector> = plan.into_iter().collect();
    // Each checked against its full table, its stub written, its `.wdl` removed.
    let words = ["deriving", "derived", "already there"];
    let notes = ["derived: checked, stub written", "derived: stub already there"];
    let derived = pass(db, &plan, words, notes, out, |sector, _| {
        let d = pool.install(|| db.export_derived(sector, dir))?;
        Ok(Exported { bytes: d.stub_bytes, full_bytes: d.table_bytes, written: d.written })
    })?;
    bytes.extend(plan.iter().copied().zip(derived.done.iter().copied()));
    if args.quick {
        return finish(db, &derived, &bytes, out);
    }
    // The kept tables, each block now in the smaller of its layouts.
    let kept: Vec<Sector> = tables.iter().copied().filter(|s| !plan.contains(s)).collect();
    writeln!(out, "{}", derived.summary())?;
    writeln!(out, "compressing the {} kept tables as hard as they go", kept.len())?;
    let words = ["compressing", "rewritten", "already there"];
    let notes = ["rewritten, the smaller layout a block", "already there, checked"];
    let smallest = pass(db, &kept, words, notes, out, |s, c| {
        pool.install(|| db.export_wdl(s, dir, Compression::Smallest, c))
    })?;
    bytes.extend(kept.iter().copied().zip(smallest.done.iter().copied()));
    finish(db, &smallest, &bytes, out)
}

/// Whether `sector` is derived before this export: in the database, or in
/// `dir` by an export that stopped.
fn derived_before(db: &Database, sector: Sector, dir: &Path) -> bool {
    let stub = dir.join(db.derived_path(sector).file_name().expect("a file name"));
    stub.exists() || matches!(db.tier(sector), Ok(SectorTable::Derived(_)))
}

/// One pass over `sectors`: the column header, then `each` sector's
/// line (its sizes in both tiers, the time, and `notes[0]` when it was
/// written, `notes[1]` when it was kept).
fn pass(
    db: &Database,
    sectors: &[Sector],
    words: Words,
    notes: [&str; 2],
    out: &mut impl Write,
    each: impl FnMut(Sector, &(dyn Fn() -> bool + Sync)) -> Result<Exported, DbError>,
) -> Result<Pass<Exported>> {
    writeln!(
        out,
        "{:<10} {:>13} {:>10} {:>10} {:>10} {:>10}  file",
        "sector", "states", "full", "wdl", "bits/state", "time"
    )?;
    out.flush()?;
    table_by_table(
        db,
        sectors,
        words,
        out,
        each,
        |e| e.written,
        |sector, e, took| {
            let n = db.indexer().sector(sector).canonical_states();
            let columns = [
                (units::bytes(e.full_bytes), 10),
                (units::bytes(e.bytes), 10),
                (format!("{:.4}", bits(e.bytes, n)), 10),
            ];
            table_line(sector, n, &columns, took, notes[usize::from(!e.written)])
        },
    )
}

/// The last lines: `pass`'s summary, and both tiers' sizes over every
/// sector of `bytes` (its `.wdl` file or its stub).
fn finish(
    db: &Database,
    pass: &Pass<Exported>,
    bytes: &BTreeMap<Sector, Exported>,
    out: &mut impl Write,
) -> Result<()> {
    let states: u64 = bytes.keys().map(|&s| db.indexer().sector(s).canonical_states()).sum();
    let full: u64 = bytes.values().map(|e| e.full_bytes).sum();
    let wdl: u64 = bytes.values().map(|e| e.bytes).sum();
    let all = if bytes.len() == pass.done.len() {
        String::new()
    } else {
        format!("over all {} tables, {states} states: ", bytes.len())
    };
    pass.finish(
        out,
        format_args!(
            "{all}full tier {} ({:.4} bits/state), win/draw/loss tier {wdl} bytes, {} ({:.4} bits/state)",
            units::bytes(full),
            bits(full, states),
            units::bytes(wdl),
            bits(wdl, states),
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
