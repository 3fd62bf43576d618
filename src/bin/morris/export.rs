//! `morris export --wdl OUT`: the win/draw/loss tier of every table in the
//! database, one `<variant>-<sector>.wdl` file per table in OUT. A file
//! already there that checks out is kept, so a stopped export goes on
//! where it stopped; files appear whole, by rename.

use crate::common::{describe, sectors_in, threads};
use crate::progress::sector_bar;
use crate::signals::{self, interrupted};
use crate::units;
use anyhow::{Context, Result};
use morris::database::{Database, DbError};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The directory to write the win/draw/loss tables into (created if
    /// need be): `<variant>-<sector>.wdl`, one per table of the database.
    #[arg(long, value_name = "OUT")]
    wdl: PathBuf,

    /// Worker threads. Default: all cores.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
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
    writeln!(
        out,
        "{:<10} {:>13} {:>10} {:>10} {:>10} {:>10}  file",
        "sector", "states", "full", "wdl", "bits/state", "time"
    )?;
    out.flush()?;

    let states = |s| db.indexer().sector(s).canonical_states();
    let bar = sector_bar(present.iter().map(|&s| states(s)).sum());

    let start = Instant::now();
    let cancelled = || signals::received().is_some();
    let (mut total, mut written, mut kept) = (Total::default(), 0, 0);
    for &sector in &present {
        bar.set_message(format!("exporting {sector}"));
        let t = Instant::now();
        let result = if cancelled() {
            Err(DbError::Interrupted(format!("before {sector}")))
        } else {
            pool.install(|| db.export_wdl(sector, dir, &cancelled))
        };
        let exported = match result {
            Ok(exported) => exported,
            Err(err) => {
                bar.finish_and_clear();
                let finished =
                    format!("of {} tables, {written} written, {kept} already there", present.len());
                return Err(interrupted(err, finished));
            }
        };
        let full = exported.full_bytes;
        let n = states(sector);
        total.add(n, full, exported.bytes);
        if exported.written {
            written += 1;
        } else {
            kept += 1;
        }
        let line = format!(
            "{:<10} {n:>13} {:>10} {:>10} {:>10.4} {:>10}  {}",
            sector.to_string(),
            units::bytes(full),
            units::bytes(exported.bytes),
            bits(exported.bytes, n),
            format!("{:.2} s", t.elapsed().as_secs_f64()),
            if exported.written { "written" } else { "already there, checked" }
        );
        bar.suspend(|| writeln!(out, "{line}").and_then(|()| out.flush()))?;
        bar.inc(n);
    }
    bar.finish_and_clear();
    writeln!(out, "{}", "-".repeat(70))?;
    writeln!(
        out,
        "{} tables ({written} written, {kept} already there) in {:.2} s: {} states, full tier {} ({:.4} bits/state), win/draw/loss tier {} bytes, {} ({:.4} bits/state)",
        present.len(),
        start.elapsed().as_secs_f64(),
        total.states,
        units::bytes(total.full),
        bits(total.full, total.states),
        total.wdl,
        units::bytes(total.wdl),
        bits(total.wdl, total.states),
    )?;
    Ok(())
}

#[derive(Default)]
struct Total {
    states: u64,
    full: u64,
    wdl: u64,
}

impl Total {
    fn add(&mut self, states: u64, full: u64, wdl: u64) {
        self.states += states;
        self.full += full;
        self.wdl += wdl;
    }
}

/// Bits per (canonical) state.
fn bits(bytes: u64, states: u64) -> f64 {
    bytes as f64 * 8.0 / states.max(1) as f64
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
