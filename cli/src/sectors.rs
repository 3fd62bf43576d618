//! `morris sectors`: every sector with its index slots and canonical states.

use crate::common::{count, describe, Phase, Row};
use crate::json;
use anyhow::Result;
use morris::sectors::{moving_sectors, placement_sectors};
use morris::variant::Variant;
use serde::Serialize;
use std::io::Write;

#[derive(clap::Args)]
pub struct Args {
    /// Print a JSON array of {"sector", "slots", "states", ...} objects.
    #[arg(long)]
    json: bool,

    /// Which sectors: the moving phase only, or the placement phase too.
    #[arg(long, value_enum, default_value_t = Phase::Moving)]
    phase: Phase,
}

pub fn run(variant: &Variant, args: &Args, out: &mut impl Write) -> Result<()> {
    let mut sectors = moving_sectors(variant);
    if args.phase == Phase::All {
        sectors.extend(placement_sectors(variant));
    }
    let rows = count(variant, &sectors);
    if args.json {
        write_json(&rows, out)
    } else {
        write_table(variant, &rows, out)
    }
}

/// A sector of `sectors --json`.
#[derive(Serialize)]
struct SectorJson {
    sector: String,
    phase: &'static str,
    mover: u8,
    opponent: u8,
    mover_hand: u8,
    opponent_hand: u8,
    slots: u64,
    states: u64,
}

fn write_json(rows: &[Row], out: &mut impl Write) -> Result<()> {
    let sectors: Vec<SectorJson> = rows
        .iter()
        .map(|row| {
            let s = row.sector;
            SectorJson {
                sector: s.to_string(),
                phase: if s.is_moving() { "moving" } else { "placement" },
                mover: s.mover,
                opponent: s.opponent,
                mover_hand: s.mover_hand,
                opponent_hand: s.opponent_hand,
                slots: row.slots,
                states: row.states,
            }
        })
        .collect();
    // One sector a line.
    json::write(out, &sectors, 1)?;
    Ok(())
}

/// A line of the text table: a label and two counts.
struct Line {
    label: String,
    slots: u64,
    states: u64,
}

fn write_table(variant: &Variant, rows: &[Row], out: &mut impl Write) -> Result<()> {
    let (moving, placement): (Vec<&Row>, Vec<&Row>) =
        rows.iter().partition(|r| r.sector.is_moving());
    let line = |r: &&Row| Line { label: r.sector.to_string(), slots: r.slots, states: r.states };
    let total = |label: String, rows: &[&Row]| Line {
        label,
        slots: rows.iter().map(|r| r.slots).sum(),
        states: rows.iter().map(|r| r.states).sum(),
    };

    let mut lines: Vec<Line> = moving.iter().map(line).collect();
    let mut totals = vec![total(format!("moving phase ({} sectors)", moving.len()), &moving)];
    if !placement.is_empty() {
        lines.extend(placement.iter().map(line));
        totals.push(total(format!("placement phase ({} sectors)", placement.len()), &placement));
        let all: Vec<&Row> = rows.iter().collect();
        totals.push(total(format!("all ({} sectors)", rows.len()), &all));
    }

    let notation = if placement.is_empty() { "M-O" } else { "M-O[-MH-OH]" };
    writeln!(
        out,
        "{}: sectors {notation}, side to move first: stones on the board[, then in hand]",
        describe(variant)
    )?;
    let label_width =
        lines.iter().chain(&totals).map(|l| l.label.len()).max().unwrap_or(0).max("sector".len());
    let number_width =
        totals.iter().map(|l| l.slots.to_string().len()).max().unwrap_or(0).max("states".len());
    let header = format!(
        "{:<label_width$}  {:>number_width$}  {:>number_width$}  {:>12}",
        "sector", "slots", "states", "slots/states"
    );
    writeln!(out, "{header}")?;
    for l in &lines {
        write_line(l, label_width, number_width, out)?;
    }
    writeln!(out, "{}", "-".repeat(header.len()))?;
    for l in &totals {
        write_line(l, label_width, number_width, out)?;
    }
    Ok(())
}

fn write_line(
    l: &Line,
    label_width: usize,
    number_width: usize,
    out: &mut impl Write,
) -> Result<()> {
    let ratio = l.slots as f64 / l.states as f64;
    writeln!(
        out,
        "{:<label_width$}  {:>number_width$}  {:>number_width$}  {ratio:>12.4}",
        l.label, l.slots, l.states
    )?;
    Ok(())
}
