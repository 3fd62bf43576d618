//! `morris export --wdl OUT`: the win/draw/loss tier of every table in the
//! database, one `<variant>-<sector>.wdl` file per table in OUT. A file
//! already there that checks out is kept, so a stopped export goes on
//! where it stopped; files appear whole, by rename.
//!
//! `morris export --app DIR` writes an app set: the same outcome tier
//! with derived sectors (as `--wdl DIR --derive`), then the progress tier
//! of every cyclic pair (`<variant>-<sector>.prg`, made from the full
//! tables: `morris::progress`), then the manifest
//! (`<variant>-app.manifest`: the rules key, every file's size and
//! CRC-32). A stopped export goes on where it stopped, as `--wdl` does.
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
use morris::progress::export_progress_pair;
use morris::solve::{cyclic_pairs, MovingPair};
use morris::table::Compression;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The directory to write the win/draw/loss tables into (created if
    /// need be): `<variant>-<sector>.wdl`, one per table of the database.
    #[arg(long, value_name = "OUT", required_unless_present = "app", conflicts_with = "app")]
    wdl: Option<PathBuf>,

    /// Write an app set into DIR (created if need be) instead: what an
    /// app ships to play perfectly without the full tables. The
    /// win/draw/loss tier with derived sectors (as `--wdl DIR --derive`),
    /// the progress tier of every cyclic pair (`<variant>-<sector>.prg`:
    /// for each won state, the plies to the next capture or placement
    /// under perfect play), and a manifest (`<variant>-app.manifest`: the
    /// rules key, every file's size and checksum). `query`, `probe`,
    /// `play`, `match`, `serve` and `verify` take DIR as `--db`.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["derive", "quick"])]
    app: Option<PathBuf>,

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
    let dir = args.wdl.as_ref().or(args.app.as_ref()).expect("clap asks for one");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads(args.threads)).build()?;
    outcomes(db, args, dir, &pool, out)?;
    if args.app.is_some() {
        app_set(db, dir, &pool, out)?;
    }
    Ok(())
}

/// The win/draw/loss tier (`--wdl`, and the first part of `--app`).
fn outcomes(
    db: &Database,
    args: &Args,
    dir: &Path,
    pool: &rayon::ThreadPool,
    out: &mut impl Write,
) -> Result<()> {
    let derive = args.derive || args.app.is_some();
    let (present, _) = sectors_in(db)?;
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let leftovers = remove_leftovers(db, dir)?;
    signals::install()?;
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
    let fixed: BTreeSet<Sector> = if derive {
        present.iter().copied().filter(|&s| derived_before(db, s, dir)).collect()
    } else {
        BTreeSet::new()
    };
    let tables: Vec<Sector> = present.iter().copied().filter(|s| !fixed.contains(s)).collect();
    let mut bytes: BTreeMap<Sector, Exported> = BTreeMap::new();
    let words = ["exporting", "written", "already there"];
    let notes = ["written", "already there, checked"];
    let compression = if derive || args.quick { Compression::Quick } else { Compression::Smallest };
    let exported = pass(db, &tables, words, notes, out, |s, c| {
        pool.install(|| db.export_wdl(s, dir, compression, c))
    })?;
    bytes.extend(tables.iter().copied().zip(exported.done.iter().copied()));
    if !derive {
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

/// The rest of an app set, once its outcome tier is in `dir`: the
/// progress tables of every cyclic pair the database holds whole, pair by
/// pair (a signal stops it before the next pair), then the manifest.
fn app_set(
    db: &Database,
    dir: &Path,
    pool: &rayon::ThreadPool,
    out: &mut impl Write,
) -> Result<()> {
    let app = Database::new(dir, db.variant().clone());
    let (present, _) = sectors_in(db)?;
    let pairs: Vec<MovingPair> = cyclic_pairs(db.variant(), db.variant().stones() as u32 * 2)
        .into_iter()
        .filter(|p| p.sectors().iter().all(|s| present.contains(s)))
        .collect();
    writeln!(out, "progress tier of {} cyclic pairs into {}", pairs.len(), dir.display())?;
    writeln!(
        out,
        "{:<12} {:>13} {:>10} {:>10} {:>10}  file",
        "pair", "states", "progress", "bits/state", "time"
    )?;
    let start = std::time::Instant::now();
    let (mut states, mut bytes, mut written) = (0u64, 0u64, 0usize);
    for (i, &pair) in pairs.iter().enumerate() {
        if let Some(signal) = signals::received() {
            anyhow::bail!(
                "interrupted by {} before pair {pair}; finished: {i} of {} pairs' progress tables; run the same command again to resume",
                signals::name(signal),
                pairs.len()
            );
        }
        let t = std::time::Instant::now();
        let done = pool.install(|| export_progress_pair(db, pair, &app))?;
        let n: u64 =
            pair.sectors().iter().map(|&s| db.indexer().sector(s).canonical_states()).sum();
        let b: u64 = done.bytes.iter().map(|(_, b)| b).sum();
        (states, bytes, written) = (states + n, bytes + b, written + usize::from(done.written));
        writeln!(
            out,
            "{:<12} {n:>13} {:>10} {:>10.4} {:>10}  {}",
            pair.to_string(),
            units::bytes(b),
            bits(b, n),
            format!("{:.2} s", t.elapsed().as_secs_f64()),
            if done.written { "written" } else { "already there, checked" }
        )?;
        out.flush()?;
    }
    writeln!(out, "{}", "-".repeat(70))?;
    writeln!(
        out,
        "{} pairs ({written} written, {} already there) in {:.2} s: {states} states, progress tier {bytes} bytes, {} ({:.4} bits/state)",
        pairs.len(),
        pairs.len() - written,
        start.elapsed().as_secs_f64(),
        units::bytes(bytes),
        bits(bytes, states)
    )?;
    let manifest = app.write_manifest(&describe(db.variant()))?;
    let total: u64 = manifest.files.iter().map(|f| f.bytes).sum();
    let all: u64 = present.iter().map(|&s| db.indexer().sector(s).canonical_states()).sum();
    writeln!(
        out,
        "app set {}: {} files, {total} bytes, {} ({:.4} bits/state over {all} states); manifest {}",
        dir.display(),
        manifest.files.len(),
        units::bytes(total),
        bits(total, all),
        app.manifest_path().display()
    )?;
    Ok(())
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

/// Removes the temporary files (`<variant>-*.wdl.tmp`, `.prg.tmp`, the
/// manifest's) of an export that
/// was killed before it could clean up; returns their names.
fn remove_leftovers(db: &Database, dir: &std::path::Path) -> Result<Vec<String>> {
    let prefix = format!("{}-", db.variant().name());
    let mut removed = Vec::new();
    for entry in
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))?
    {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let leftover = [".wdl.tmp", ".prg.tmp", "-app.manifest.tmp"];
        if name.starts_with(&prefix) && leftover.iter().any(|end| name.ends_with(end)) {
            std::fs::remove_file(entry.path())
                .with_context(|| format!("{}: cannot remove", entry.path().display()))?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
}
