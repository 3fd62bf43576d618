//! `morris plan`: the solve as independent jobs (each moving-phase pair,
//! each placement sector) in an order that works, with the jobs each one
//! depends on and what it needs, for a scheduler that runs
//! `morris solve --job ID` on many machines over a shared directory.

use crate::common::{check_max_stones, count, describe, Phase};
use crate::{json, units};
use anyhow::Result;
use morris::database::{Database, JobNeeds};
use morris::index::Sector;
use morris::solve::plan::{plan, PlannedJob};
use morris::variant::Variant;
use serde::Serialize;
use std::collections::HashMap;
use std::io::Write;

#[derive(clap::Args)]
pub struct Args {
    /// Print a JSON array of {"job", "wave", "sectors", "depends_on", "states", "memory", "disk", ...} objects.
    #[arg(long)]
    json: bool,

    /// Which jobs: the moving phase, or all (placement sectors too), as `solve --phase`.
    #[arg(long, value_enum, default_value_t = Phase::All)]
    phase: Phase,

    /// Only the jobs with at most N stones on the board and in hand, both
    /// sides together, as `solve --max-stones`. Default: all.
    #[arg(long, value_name = "N")]
    max_stones: Option<u32>,
}

/// A job with its figures.
struct Row {
    planned: PlannedJob,
    slots: u64,
    states: u64,
    needs: JobNeeds,
}

pub fn run(db: &Database, args: &Args, out: &mut impl Write) -> Result<()> {
    let variant = db.variant();
    let max_stones = check_max_stones(variant, args.max_stones)?;
    let jobs = plan(variant, max_stones, args.phase == Phase::All)?;
    let rows = figures(db, jobs);
    if args.json {
        write_json(&rows, out)
    } else {
        write_table(variant, max_stones, &rows, out)
    }
}

/// States and slots of each job's sectors (counted once per index
/// layout, as `morris sectors` does) and what each job needs.
fn figures(db: &Database, jobs: Vec<PlannedJob>) -> Vec<Row> {
    // The estimates do not look at the directory: only at the index.
    let variant = db.variant();
    let sectors: Vec<Sector> = jobs.iter().flat_map(|j| j.job.sectors()).collect();
    let counts: HashMap<Sector, (u64, u64)> =
        count(variant, &sectors).into_iter().map(|r| (r.sector, (r.slots, r.states))).collect();
    jobs.into_iter()
        .map(|planned| {
            let (slots, states) = planned
                .job
                .sectors()
                .iter()
                .map(|s| counts[s])
                .fold((0, 0), |a, c| (a.0 + c.0, a.1 + c.1));
            let needs = db.job_needs(planned.job);
            Row { planned, slots, states, needs }
        })
        .collect()
}

/// A job of `plan --json`.
#[derive(Serialize)]
struct JobJson {
    job: String,
    phase: &'static str,
    wave: u32,
    sectors: Vec<String>,
    depends_on: Vec<String>,
    reads: Vec<String>,
    states: u64,
    slots: u64,
    memory: u64,
    disk: u64,
}

fn names<T: ToString>(items: impl IntoIterator<Item = T>) -> Vec<String> {
    items.into_iter().map(|i| i.to_string()).collect()
}

fn write_json(rows: &[Row], out: &mut impl Write) -> Result<()> {
    let jobs: Vec<JobJson> = rows
        .iter()
        .map(|row| {
            let job = row.planned.job;
            JobJson {
                job: job.to_string(),
                phase: if job.is_placement() { "placement" } else { "moving" },
                wave: row.planned.wave,
                sectors: names(job.sectors()),
                depends_on: names(&row.planned.depends_on),
                reads: names(job.reads()),
                states: row.states,
                slots: row.slots,
                memory: row.needs.memory,
                disk: row.needs.disk,
            }
        })
        .collect();
    // One job a line.
    json::write(out, &jobs, 1)?;
    Ok(())
}

fn write_table(
    variant: &Variant,
    max_stones: u32,
    rows: &[Row],
    out: &mut impl Write,
) -> Result<()> {
    let waves = rows.iter().map(|r| r.planned.wave + 1).max().unwrap_or(0);
    writeln!(
        out,
        "{}: {} jobs up to {max_stones} stones in {waves} waves; run each with `morris solve --job JOB` once those it depends on are done",
        describe(variant),
        rows.len()
    )?;
    let header = format!(
        "{:<12} {:>4} {:>13} {:>10} {:>10}  depends on",
        "job", "wave", "states", "memory", "disk"
    );
    writeln!(out, "{header}")?;
    for row in rows {
        let deps: Vec<String> = row.planned.depends_on.iter().map(|d| d.to_string()).collect();
        writeln!(
            out,
            "{:<12} {:>4} {:>13} {:>10} {:>10}  {}",
            row.planned.job.to_string(),
            row.planned.wave,
            row.states,
            units::bytes(row.needs.memory),
            units::bytes(row.needs.disk),
            if deps.is_empty() { "-".to_string() } else { deps.join(" ") }
        )?;
    }
    writeln!(out, "{}", "-".repeat(header.len()))?;
    let states: u64 = rows.iter().map(|r| r.states).sum();
    let most = rows.iter().max_by_key(|r| r.needs.memory);
    writeln!(
        out,
        "{} jobs, {states} states; the most memory a job needs: {}",
        rows.len(),
        most.map_or("-".to_string(), |r| format!(
            "{} ({})",
            units::bytes(r.needs.memory),
            r.planned.job
        ))
    )?;
    Ok(())
}
