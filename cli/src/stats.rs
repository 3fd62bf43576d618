//! `morris stats`: what the tables in the database hold, sector by sector.

use crate::common::{describe, missing_names, sectors_in, wdl_sectors_in, NoTables};
use crate::{json, units};
use anyhow::Result;
use morris::database::{Database, SectorTable};
use morris::index::Sector;
use morris::sectors::{extended_placement_sectors, moving_sectors, placement_sectors};
use morris::stats::{Counts, Distances};
use morris::table::DerivedStub;
use serde::Serialize;
use std::io::Write;

#[derive(clap::Args)]
pub struct Args {
    /// Print a JSON array of {"sector", "states", "wins", "losses", "draws",
    /// "max_win", "max_loss", "bytes", "bits_per_state"} objects; the
    /// win/draw/loss tables (`<variant>-<sector>.wdl`, written by `morris
    /// export --wdl`) follow as objects with "tier": "wdl" added. A derived
    /// sector (`compact --derive`, `export --wdl --derive`) has "tier":
    /// "derived" ("wdl-derived"), its bytes those of its stub.
    #[arg(long, conflicts_with = "tsv")]
    json: bool,

    /// Print tab-separated rows under the header `sector states wins losses
    /// draws max_win max_loss`: the format of the per-sector figures the
    /// project keeps in `data/<variant>/`. Of the full tables; of the
    /// win/draw/loss tables in a directory that holds only those.
    #[arg(long)]
    tsv: bool,

    /// List every sector missing from the database, not only the first
    /// 12; with --json, as {"sector", "missing": true} objects after the
    /// others.
    #[arg(long)]
    all: bool,

    /// Count the states at each distance to the end of the game instead,
    /// one row per (sector, value, plies). This reads every cell of each
    /// table: seconds for a small database, about as long as `verify`'s
    /// table checks for nine's whole game. With --json, an array of
    /// {"sector", "states", "draws", "wins": [[plies, states], ...],
    /// "losses": [[plies, states], ...]} objects.
    #[arg(long, conflicts_with = "all")]
    distances: bool,

    /// With --distances: only this sector (M-O or M-O-MH-OH); repeat for
    /// more. Default: every sector in the database.
    #[arg(long = "sector", value_name = "SECTOR", requires = "distances")]
    sectors: Vec<String>,
}

struct Row {
    label: String,
    counts: Counts,
    bytes: u64,
    /// `None` for a full table, `Some("wdl")` for a win/draw/loss table.
    tier: Option<&'static str>,
}

impl Row {
    fn bits_per_state(&self) -> f64 {
        self.bytes as f64 * 8.0 / self.counts.states.max(1) as f64
    }
}

/// The row of each sector in `present`, read from its table's header.
fn rows_of(db: &Database, present: &[Sector]) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for &sector in present {
        rows.push(match db.tier(sector)? {
            SectorTable::Derived(stub) => derived_row(sector, &stub),
            _ => {
                let table = db.table(sector)?;
                Row {
                    label: sector.to_string(),
                    counts: table.info().counts.clone(),
                    bytes: table.bytes_on_disk(),
                    tier: None,
                }
            }
        });
    }
    Ok(rows)
}

/// The row of each win/draw/loss table in the directory, read from its
/// header (the counts of the full table it was made from).
fn wdl_rows_of(db: &Database) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for sector in wdl_sectors_in(db) {
        if let SectorTable::Derived(stub) = db.tier(sector)? {
            rows.push(Row { tier: Some("wdl-derived"), ..derived_row(sector, &stub) });
            continue;
        }
        let table = db.wdl_table(sector)?;
        rows.push(Row {
            label: sector.to_string(),
            counts: table.info().counts.clone(),
            bytes: table.bytes_on_disk(),
            tier: Some("wdl"),
        });
    }
    Ok(rows)
}

/// The row of a derived sector: its stub's counts and bytes.
fn derived_row(sector: Sector, stub: &DerivedStub) -> Row {
    Row {
        label: sector.to_string(),
        counts: stub.info().counts.clone(),
        bytes: stub.bytes_on_disk(),
        tier: Some("derived"),
    }
}

/// The full tables present and missing, or none at all when the
/// directory holds only win/draw/loss tables.
fn full_sectors(db: &Database, wdl: &[Row]) -> Result<(Vec<Sector>, Vec<Sector>)> {
    match sectors_in(db) {
        Err(err) if !wdl.is_empty() && err.is::<NoTables>() => Ok((Vec::new(), Vec::new())),
        result => result,
    }
}

/// What `morris stats --json` (with `all`: `--all`) prints; `morris serve`
/// answers `/api/stats` with it.
pub fn json(db: &Database, all: bool, out: &mut impl Write) -> Result<()> {
    let (present, missing) = sectors_in(db)?;
    write_json(&rows_of(db, &present)?, if all { &missing } else { &[] }, out)
}

pub fn run(db: &Database, args: &Args, out: &mut impl Write) -> Result<()> {
    if args.distances {
        let sectors = if args.sectors.is_empty() {
            sectors_in(db)?.0
        } else {
            args.sectors.iter().map(|s| sector_of(db, s)).collect::<Result<_>>()?
        };
        return if args.json {
            distances_json(db, &sectors, out)
        } else {
            write_distances_tsv(db, &sectors, out)
        };
    }
    let wdl = wdl_rows_of(db)?;
    let (present, missing) = full_sectors(db, &wdl)?;
    let mut rows = rows_of(db, &present)?;
    if args.json {
        rows.extend(wdl);
        return write_json(&rows, if args.all { &missing } else { &[] }, out);
    }
    if args.tsv {
        return write_tsv(if rows.is_empty() { &wdl } else { &rows }, out);
    }
    writeln!(
        out,
        "{}: {}; values for the side to move, depths in plies",
        describe(db.variant()),
        db.dir().display()
    )?;
    if !rows.is_empty() {
        write_text(&rows, &missing, args.all, out)?;
    }
    if !wdl.is_empty() {
        writeln!(out, "win/draw/loss tier (`morris export --wdl`; counts and longest from the full tables it was made from):")?;
        write_text(&wdl, &[], false, out)?;
    }
    Ok(())
}

/// A row of `stats --json`: a table's, or (`--all`) a missing sector's.
#[derive(Serialize)]
#[serde(untagged)]
enum RowJson<'a> {
    Table {
        sector: &'a str,
        states: u64,
        wins: u64,
        losses: u64,
        draws: u64,
        max_win: u16,
        max_loss: u16,
        bytes: u64,
        bits_per_state: json::Decimals4,
        /// Absent for a full table.
        #[serde(skip_serializing_if = "Option::is_none")]
        tier: Option<&'static str>,
    },
    Missing {
        sector: String,
        missing: bool,
    },
}

fn write_json(rows: &[Row], missing: &[Sector], out: &mut impl Write) -> Result<()> {
    let tables = rows.iter().map(|row| {
        let c = &row.counts;
        RowJson::Table {
            sector: &row.label,
            states: c.states,
            wins: c.wins,
            losses: c.losses,
            draws: c.draws,
            max_win: c.max_win,
            max_loss: c.max_loss,
            bytes: row.bytes,
            bits_per_state: json::Decimals4(row.bits_per_state()),
            tier: row.tier,
        }
    });
    let missing = missing.iter().map(|s| RowJson::Missing { sector: s.to_string(), missing: true });
    let rows: Vec<RowJson> = tables.chain(missing).collect();
    // One row a line.
    json::write(out, &rows, 1)?;
    Ok(())
}

fn write_tsv(rows: &[Row], out: &mut impl Write) -> Result<()> {
    writeln!(out, "sector\tstates\twins\tlosses\tdraws\tmax_win\tmax_loss")?;
    for row in rows {
        let c = &row.counts;
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}",
            row.label, c.states, c.wins, c.losses, c.draws, c.max_win, c.max_loss
        )?;
    }
    Ok(())
}

fn write_text(rows: &[Row], missing: &[Sector], all: bool, out: &mut impl Write) -> Result<()> {
    let total = Row {
        label: format!("{} sectors", rows.len()),
        counts: rows
            .iter()
            .fold(Counts::default(), |a, r| morris::stats::add_counts(a, r.counts.clone())),
        bytes: rows.iter().map(|r| r.bytes).sum(),
        tier: None,
    };
    let width = total.counts.states.to_string().len().max("states".len());
    let label = total.label.len().max("sector".len());
    let header = format!(
        "{:<label$}  {:>width$}  {:>width$}  {:>width$}  {:>width$}  {:>7}  {:>8}  {:>10}  {:>10}",
        "sector", "states", "wins", "losses", "draws", "max win", "max loss", "disk", "bits/state"
    );
    writeln!(out, "{header}")?;
    let line = |row: &Row| {
        let c = &row.counts;
        format!(
            "{:<label$}  {:>width$}  {:>width$}  {:>width$}  {:>width$}  {:>7}  {:>8}  {:>10}  {:>10.3}",
            row.label,
            c.states,
            c.wins,
            c.losses,
            c.draws,
            c.max_win,
            c.max_loss,
            units::bytes(row.bytes),
            row.bits_per_state()
        )
    };
    for row in rows {
        writeln!(out, "{}", line(row))?;
    }
    writeln!(out, "{}", "-".repeat(header.len()))?;
    writeln!(out, "{}", line(&total))?;
    let derived: Vec<&Row> =
        rows.iter().filter(|r| r.tier.is_some_and(|t| t.ends_with("derived"))).collect();
    if !derived.is_empty() {
        let states: u64 = derived.iter().map(|r| r.counts.states).sum();
        writeln!(
            out,
            "derived ({} of {} sectors, {states} states): their cells left out, each value one ply of search over the tables their moves lead to; disk is their stubs'",
            derived.len(),
            rows.len()
        )?;
    }
    if !missing.is_empty() {
        writeln!(
            out,
            "not in the database ({} of {} sectors): {}",
            missing.len(),
            missing.len() + rows.len(),
            missing_names(missing, all)
        )?;
    }
    Ok(())
}

/// The sector named `name`, if the variant has it.
pub fn sector_of(db: &Database, name: &str) -> Result<Sector> {
    let sector: Sector = name.parse().map_err(anyhow::Error::msg)?;
    let v = db.variant();
    if !moving_sectors(v).contains(&sector)
        && !placement_sectors(v).contains(&sector)
        && !extended_placement_sectors(v).contains(&sector)
    {
        anyhow::bail!(
            "{} has no sector {name} (`morris sectors --variant {} --phase all` lists them)",
            describe(v),
            v.name()
        );
    }
    Ok(sector)
}

/// What `morris stats --distances --json` prints for `sectors`: an array
/// of [`distances_object`]s, one a line.
fn distances_json(db: &Database, sectors: &[Sector], out: &mut impl Write) -> Result<()> {
    let objects = sectors.iter().map(|&s| distances_of(db, s)).collect::<Result<Vec<_>>>()?;
    json::write(out, &objects, 1)?;
    Ok(())
}

/// A sector's distances: `wins` and `losses` as `[plies, states]` pairs,
/// the distances no state has left out.
#[derive(Serialize)]
struct DistancesJson {
    sector: String,
    states: u64,
    draws: u64,
    wins: Vec<(usize, u64)>,
    losses: Vec<(usize, u64)>,
}

fn distances_of(db: &Database, sector: Sector) -> Result<DistancesJson> {
    let d = db.table(sector)?.distances()?;
    let pairs = |side: &[u64]| side.iter().copied().enumerate().filter(|&(_, n)| n > 0).collect();
    Ok(DistancesJson {
        sector: sector.to_string(),
        states: d.counts().states,
        draws: d.draws,
        wins: pairs(&d.wins),
        losses: pairs(&d.losses),
    })
}

/// The JSON object of one sector's distances, on one line; `morris serve`
/// answers `/api/distances` with it.
pub fn distances_object(db: &Database, sector: Sector) -> Result<String> {
    Ok(json::to_string(&distances_of(db, sector)?, 0))
}

/// `sector value plies states` rows, a draw's plies `-`; distances with no
/// state are left out.
fn write_distances_tsv(db: &Database, sectors: &[Sector], out: &mut impl Write) -> Result<()> {
    writeln!(out, "sector\tvalue\tplies\tstates")?;
    for &sector in sectors {
        let d: Distances = db.table(sector)?.distances()?;
        for (kind, side) in [("win", &d.wins), ("loss", &d.losses)] {
            for (plies, &n) in side.iter().enumerate().filter(|(_, &n)| n > 0) {
                writeln!(out, "{sector}\t{kind}\t{plies}\t{n}")?;
            }
        }
        if d.draws > 0 {
            writeln!(out, "{sector}\tdraw\t-\t{}", d.draws)?;
        }
    }
    Ok(())
}
