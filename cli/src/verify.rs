//! `morris verify`: every table's checksums, then the independent forward
//! check of every stored value; a non-zero exit when anything is wrong.

use crate::common::{describe, missing_names, sectors_of_tier, threads, tier_held};
use crate::progress::sector_bar;
use crate::units;
use anyhow::{anyhow, bail, Result};
use morris::database::{Database, Stored};
use morris::index::Sector;
use morris::position::{Color, Position, State};
use morris::progress::check_progress_pair;
use morris::solve::{cyclic_pairs, MovingPair};
use morris::value::{Outcome, Value};
use morris::verify::{SectorCheck, Tier, Verifier};
use std::io::Write;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Worker threads. Default: all cores.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,

    /// List every sector missing from the database, not only the first 12.
    #[arg(long)]
    all: bool,

    /// Check the tables of one phase only (a whole game's moving phase
    /// checked once need not be checked again with its placement phase).
    #[arg(long, value_enum, default_value = "all")]
    phase: Phase,

    /// Check only the sectors with at most N stones on the board and in
    /// hand, both sides together. Default: all.
    #[arg(long, value_name = "N")]
    max_stones: Option<u32>,

    /// Check only the sectors with at least N stones, both sides
    /// together. With --max-stones it splits a long check into runs (each
    /// table is checked against its successors as they are stored, so
    /// checks of disjoint slices add up to the check of the whole).
    #[arg(long, value_name = "N")]
    min_stones: Option<u32>,
}

/// The phases whose tables `verify` checks.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Phase {
    Moving,
    Placement,
    All,
}

impl Args {
    /// Whether the arguments ask for `sector` to be checked.
    fn wants(&self, sector: morris::index::Sector) -> bool {
        let phase = match self.phase {
            Phase::Moving => sector.is_moving(),
            Phase::Placement => !sector.is_moving(),
            Phase::All => true,
        };
        let stones = sector.total_stones();
        phase
            && self.max_stones.is_none_or(|n| stones <= n)
            && self.min_stones.is_none_or(|n| stones >= n)
    }
}

pub fn run(db: &Database, args: &Args, out: &mut impl Write) -> Result<()> {
    // A directory `export --wdl` wrote holds only the win/draw/loss tier:
    // that is checked then, outcome by outcome, against itself.
    let tier = tier_held(db);
    let (tables, value) = match tier {
        Tier::Full => ("tables", "value"),
        Tier::Wdl => ("win/draw/loss tables", "outcome"),
    };
    let (mut present, missing) = sectors_of_tier(db, tier)?;
    present.retain(|&s| args.wants(s));
    if present.is_empty() {
        bail!("no table in {} is of the phase and stones asked for", db.dir().display());
    }
    let threads = threads(args.threads);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    writeln!(
        out,
        "{}: checking {} {tables} in {}: checksums, header counts, and every {value} recomputed from its successors",
        describe(db.variant()),
        present.len(),
        db.dir().display(),
    )?;
    writeln!(
        out,
        "{}",
        columns(["sector", "states", "mismatches", "header counts", "time", "states/s"])
    )?;
    out.flush()?;

    let states = |s| db.indexer().sector(s).canonical_states();
    let bar = sector_bar(present.iter().map(|&s| states(s)).sum());

    let start = Instant::now();
    let (mut checked, mut mismatches, mut failed) = (0u64, 0u64, Vec::new());
    // Sectors that read the same tables one after the other (see `Verifier`).
    let mut verifier = Verifier::of_tier(db, &present, tier);
    while let Some(sector) = verifier.peek() {
        bar.set_message(format!("checking {sector}"));
        let t = Instant::now();
        let (_, result) = pool.install(|| verifier.next()).expect("a sector is left");
        let secs = t.elapsed().as_secs_f64();
        let lines = match result {
            Ok(check) => {
                checked += check.states;
                mismatches += check.mismatches;
                if check.mismatches > 0 || !check.counts_agree {
                    failed.push(sector.to_string());
                }
                let mut lines = vec![check_line(&check, secs)];
                lines.extend(examples(db, &check));
                lines
            }
            Err(err) => {
                failed.push(sector.to_string());
                vec![format!("{:<8} error: {:#}", sector.to_string(), anyhow!(err))]
            }
        };
        bar.suspend(|| {
            lines.iter().try_for_each(|l| writeln!(out, "{l}")).and_then(|()| out.flush())
        })?;
        bar.inc(states(sector));
    }
    bar.finish_and_clear();

    writeln!(out, "{}", "-".repeat(60))?;
    writeln!(
        out,
        "{} sectors, {checked} states checked in {:.2} s: {}",
        present.len(),
        start.elapsed().as_secs_f64(),
        if failed.is_empty() {
            format!("every {value} agrees")
        } else {
            format!("{mismatches} mismatches")
        }
    )?;
    // Only the missing sectors of the slice asked for: a slice's run does
    // not report the sectors another slice checks.
    let missing_asked: Vec<_> = missing.iter().copied().filter(|&s| args.wants(s)).collect();
    if !missing_asked.is_empty() {
        writeln!(
            out,
            "not in the database, not checked ({}): {}",
            missing_asked.len(),
            missing_names(&missing_asked, args.all)
        )?;
    }
    if db.is_app_set() {
        mismatches += app_set(db, args, &present, &pool, out, &mut failed)?;
    }
    start_position(db, tier, &missing, out)?;
    out.flush()?;
    if !failed.is_empty() {
        bail!(
            "verify: {} of {} sectors failed ({}), {mismatches} mismatching values",
            failed.len(),
            present.len(),
            failed.join(" ")
        );
    }
    Ok(())
}

/// The rest of an app set (`export --app`): every file against the
/// manifest's size and checksum, then the progress tables of every cyclic
/// pair among `present` by the forward check ([`check_progress_pair`]).
/// Failures go into `failed`; returns the mismatching progress values.
fn app_set(
    db: &Database,
    args: &Args,
    present: &[Sector],
    pool: &rayon::ThreadPool,
    out: &mut impl Write,
    failed: &mut Vec<String>,
) -> Result<u64> {
    let manifest = db.app_manifest()?.expect("an app set");
    let wrong = pool.install(|| db.check_app_files(&manifest));
    writeln!(
        out,
        "app set: {} files against the manifest {}: {}",
        manifest.files.len(),
        db.manifest_path().display(),
        if wrong.is_empty() {
            "every size and checksum agrees".to_string()
        } else {
            format!("{} wrong", wrong.len())
        }
    )?;
    for w in &wrong {
        writeln!(out, "  {w}")?;
    }
    if !wrong.is_empty() {
        failed.push("manifest".into());
    }
    let pairs: Vec<MovingPair> = cyclic_pairs(db.variant(), u32::from(db.variant().stones()) * 2)
        .into_iter()
        .filter(|p| p.sectors().iter().all(|s| present.contains(s) && args.wants(*s)))
        .collect();
    writeln!(
        out,
        "progress tier of {} cyclic pairs: every won or lost state's progress depth recomputed from its successors",
        pairs.len()
    )?;
    writeln!(
        out,
        "{}",
        columns(["sector", "states", "mismatches", "header counts", "time", "states/s"])
    )?;
    let (mut states, mut mismatches) = (0u64, 0u64);
    let start = Instant::now();
    for pair in pairs {
        let t = Instant::now();
        let checks = match pool.install(|| check_progress_pair(db, pair)) {
            Ok(checks) => checks,
            Err(err) => {
                failed.push(format!("{pair}"));
                writeln!(out, "{:<8} error: {:#}", pair.to_string(), anyhow!(err))?;
                continue;
            }
        };
        let secs = t.elapsed().as_secs_f64();
        for check in checks {
            states += check.states;
            mismatches += check.mismatches;
            if check.mismatches > 0 || !check.counts_agree {
                failed.push(format!("{}.prg", check.sector));
            }
            writeln!(out, "{}", check_line(&check, secs))?;
            for line in examples(db, &check) {
                writeln!(out, "{line}")?;
            }
        }
        out.flush()?;
    }
    writeln!(
        out,
        "progress tier: {states} states checked in {:.2} s: {}",
        start.elapsed().as_secs_f64(),
        if mismatches == 0 {
            "every progress depth agrees".to_string()
        } else {
            format!("{mismatches} mismatches")
        }
    )?;
    Ok(mismatches)
}

/// A line of the table of checked sectors, its six columns aligned.
fn columns(c: [&str; 6]) -> String {
    format!("{:<8} {:>12} {:>11}  {:<14} {:>9} {:>12}", c[0], c[1], c[2], c[3], c[4], c[5])
}

/// The line of a sector checked in `secs` seconds.
fn check_line(check: &SectorCheck, secs: f64) -> String {
    columns([
        &check.sector.to_string(),
        &check.states.to_string(),
        &check.mismatches.to_string(),
        if check.counts_agree { "agree" } else { "DISAGREE" },
        &format!("{secs:.2} s"),
        &units::rate(check.states as f64 / secs.max(1e-9)),
    ])
}

/// The first few mismatching states of a sector, as positions with White
/// to move.
fn examples(db: &Database, check: &SectorCheck) -> Vec<String> {
    let index = db.indexer().sector(check.sector);
    check
        .examples
        .iter()
        .map(|&(slot, stored, recomputed)| {
            let position = index.unrank(slot).map(|(mover, opponent)| {
                let state = State {
                    mover,
                    opponent,
                    mover_hand: check.sector.mover_hand,
                    opponent_hand: check.sector.opponent_hand,
                };
                Position::from_state(&state, Color::White).notation(db.variant())
            });
            format!(
                "  slot {slot} ({}): stored {stored}, successors give {recomputed}",
                position.unwrap_or_else(|| "not canonical".to_string())
            )
        })
        .collect()
}

/// The value of the start position, once the database is complete, with
/// the published value where there is one (by outcome alone when the
/// database holds the win/draw/loss tier).
fn start_position(
    db: &Database,
    tier: Tier,
    missing: &[morris::index::Sector],
    out: &mut impl Write,
) -> Result<()> {
    let v = db.variant();
    let start = Position::start(v);
    let start_sector = morris::index::Sector::of(&start.state());
    if !missing.is_empty() || !db.has_values(start_sector) {
        let why = if db.has_values(start_sector) {
            "the database is incomplete"
        } else {
            "the placement phase is not solved"
        };
        writeln!(out, "start position of {}: not checked ({why})", v.name())?;
        return Ok(());
    }
    let (value, text) = match db.stored(&start.state())? {
        Stored::Exact(value) => (value, morris::query::describe_value(value, start.to_move)),
        Stored::Outcome(outcome) => {
            let to_move = start.to_move;
            let text = match outcome {
                Outcome::Win => format!("{to_move} wins (no distance in this tier)"),
                Outcome::Loss => format!("{to_move} loses (no distance in this tier)"),
                Outcome::Draw => "Draw".to_string(),
            };
            (Value::of_outcome(outcome), text)
        }
    };
    let same = |published: Value| match tier {
        Tier::Full => published == value,
        Tier::Wdl => published.kind() == value.kind(),
    };
    match published_start_value(v) {
        Some(published) if same(published) => {
            writeln!(out, "start position of {}: {text}, as published: it matches", v.name())?;
        }
        Some(published) => {
            writeln!(
                out,
                "start position of {}: {text}; published: {published}: it DOES NOT match",
                v.name()
            )?;
            bail!(
                "the start position of {} is {text}, but the published value is {published}",
                v.name()
            );
        }
        None => {
            writeln!(out, "start position of {}: {text} (no published value to compare)", v.name())?
        }
    }
    Ok(())
}

/// The value of the start position found by others: nine (Gasser, 1996)
/// and five are draws under their usual rules, six with or without flying.
fn published_start_value(v: &morris::Variant) -> Option<morris::Value> {
    let default = morris::Variant::named(v.name()).ok()?;
    let usual_rules = default.rules_key() == v.rules_key();
    let draw = match v.name() {
        "six" => true,
        "nine" | "five" => usual_rules,
        _ => false,
    };
    draw.then_some(morris::Value::Draw)
}
