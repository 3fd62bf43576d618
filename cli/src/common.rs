//! What the commands share: the global options and the one place that
//! turns them into a variant and a database, reading positions, counting
//! sectors, finding the tables in a database, and the words for rules and
//! errors. The commands use this module and not each other.

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use morris::database::{plan_derived, Database};
use morris::hints::one_line_with_hints;
use morris::index::{Indexer, Sector, BINOMIAL};
use morris::position::Position;
use morris::rules::Status;
use morris::sectors::{extended_placement_sectors, moving_sectors, placement_sectors};
use morris::solve::moving_pairs;
use morris::table::Tier;
use morris::variant::{FlyCount, Flying, Variant};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::progress::Progress;

/// Options every command takes.
#[derive(clap::Args)]
pub struct Global {
    /// The game: nine, twelve, eleven, six, five, lasker or morabaraba.
    #[arg(long, global = true, env = "MORRIS_VARIANT", default_value = "nine")]
    pub variant: String,

    /// Fly with at most this many stones (3, 4, ...) or `never`; overrides
    /// the variant's rule.
    #[arg(long, global = true, value_name = "N|never")]
    pub fly_at: Option<String>,

    /// Which stones count towards --fly-at in lasker, where a side with
    /// stones in hand may move: `all` (on the board and in hand, the
    /// published game and the default) or `board` (on the board, and
    /// never with stones in hand).
    #[arg(long, global = true, value_name = "board|all")]
    pub fly_count: Option<String>,

    /// The database directory.
    #[arg(long, global = true, env = "MORRIS_DB", default_value = "data/db")]
    pub db: PathBuf,
}

/// The rule options of the command line: `--fly-at` and `--fly-count`.
#[derive(Clone, Copy, Default)]
pub struct RuleOptions<'a> {
    /// The `--fly-at` argument, if given.
    pub fly_at: Option<&'a str>,
    /// The `--fly-count` argument, if given.
    pub fly_count: Option<&'a str>,
}

impl Global {
    /// The rule options given.
    pub fn rules(&self) -> RuleOptions<'_> {
        RuleOptions { fly_at: self.fly_at.as_deref(), fly_count: self.fly_count.as_deref() }
    }

    /// The variant named by `--variant`, with `--fly-at` and `--fly-count`
    /// applied.
    pub fn variant(&self) -> Result<Variant> {
        variant(&self.variant, self.rules())
    }

    /// The database in `--db` of the variant named by `--variant`, with
    /// `--fly-at` and `--fly-count` applied.
    pub fn database(&self) -> Result<Database> {
        database(&self.db, &self.variant, self.rules())
    }
}

/// The flying rule of a `--fly-at` argument: a number of stones or `never`.
pub fn parse_fly_at(text: &str) -> Result<Flying> {
    text.parse().context("--fly-at")
}

/// The variant called `name` with the rule options given; a
/// `--fly-count` is refused where it changes nothing (every variant but
/// lasker).
pub fn variant(name: &str, rules: RuleOptions) -> Result<Variant> {
    let mut variant = Variant::named(name)?;
    if let Some(text) = rules.fly_at {
        variant = variant.with_flying(parse_fly_at(text)?);
    }
    if let Some(text) = rules.fly_count {
        let count: FlyCount = text.parse().context("--fly-count")?;
        variant = variant.with_fly_count(count).context("--fly-count")?;
    }
    Ok(variant)
}

/// The database in `dir` of the variant called `name`, with the rule
/// options given: how every command opens `--db`.
/// An app set's manifest is read and checked here, so that a set made
/// under other rules is refused before anything reads it.
pub fn database(dir: &Path, name: &str, rules: RuleOptions) -> Result<Database> {
    let db = Database::new(dir, variant(name, rules)?);
    db.app_manifest()?;
    Ok(db)
}

/// A short description of the rules in force, e.g. `nine (flying at 3
/// stones)`; where a side with stones in hand may move, which stones count.
pub fn describe(variant: &Variant) -> String {
    let flying = match variant.flying() {
        Flying::Never => "no flying".to_string(),
        Flying::AtMost(n) if !variant.move_while_placing() => format!("flying at {n} stones"),
        Flying::AtMost(n) => match variant.fly_count() {
            FlyCount::All => format!("flying at {n} stones left, on the board and in hand"),
            FlyCount::Board => format!("flying at {n} stones on the board and none in hand"),
        },
    };
    format!("{} ({flying})", variant.name())
}

/// The error chain joined by ": ", on one line, each error followed by
/// the command that makes what it found missing, where there is one
/// (`morris::hints`: the library's errors carry the data, not the
/// command).
pub fn one_line(err: &anyhow::Error) -> String {
    let err: &(dyn std::error::Error + 'static) = err.as_ref();
    one_line_with_hints(err)
}

/// `start`, or a position in notation.
pub fn parse_position(variant: &Variant, text: &str) -> Result<Position> {
    if text.trim() == "start" {
        return Ok(Position::start(variant));
    }
    Ok(Position::parse(text, variant)?)
}

/// `start`, or a position in notation, read for a query of `db`. A
/// position whose hands do not alternate, from a game that started with
/// other numbers of stones to place, is taken when `extended` says such
/// games are meant or when `db` holds its sector's table (`solve
/// --extended` wrote it); otherwise it is refused as [`parse_position`]
/// refuses it, with `hint` saying how to ask for it.
pub fn parse_position_in(
    db: &Database,
    text: &str,
    extended: bool,
    hint: &str,
) -> Result<Position> {
    Ok(morris::probe::parse_position(db, text, extended, hint)?)
}

/// How the game ended in `end`.
pub fn ending(variant: &Variant, end: &Position) -> String {
    let (loser, winner) = (end.to_move, end.to_move.other());
    let state = end.state();
    match morris::rules::status(variant, &state) {
        Status::Lost if state.mover_stones() < 3 => {
            format!("{winner} wins, {loser} is left with {} stones", state.mover_stones())
        }
        Status::Lost => format!("{winner} wins, {loser} cannot move"),
        Status::Drawn => "a draw, the board is full".to_string(),
        Status::Playing => "the game goes on".to_string(),
    }
}

/// All cores, or 1 when that cannot be found out.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// `--threads`, or all cores.
pub fn threads(arg: Option<u32>) -> usize {
    arg.map(|t| t as usize).unwrap_or_else(default_threads)
}

/// `--max-stones`, or every stone of the variant; an error when no pair
/// has that few stones.
pub fn check_max_stones(variant: &Variant, arg: Option<u32>) -> Result<u32> {
    let max_stones = arg.unwrap_or(2 * variant.stones() as u32);
    if moving_pairs(variant, max_stones).is_empty() {
        bail!(
            "--max-stones {max_stones}: no pair has that few stones (the smallest, {{3,3}}, has 6)"
        );
    }
    Ok(max_stones)
}

/// The phases of the game a command covers.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Phase {
    Moving,
    All,
}

/// One sector with its counts.
pub struct Row {
    pub sector: Sector,
    pub slots: u64,
    pub states: u64,
}

/// Slots and canonical states of every sector. The index layout depends
/// only on the stones on the board, so each (mover, opponent) pair is
/// counted once, in parallel, largest first.
pub fn count(variant: &Variant, sectors: &[Sector]) -> Vec<Row> {
    let ix = Indexer::new(variant.board());
    let points = variant.board().points() as u32;
    let mut layouts: Vec<(u8, u8)> = sectors.iter().map(|s| (s.mover, s.opponent)).collect();
    layouts.sort_unstable();
    layouts.dedup();
    let raw_size = |&(m, o): &(u8, u8)| {
        BINOMIAL.get(points, m as u32) * BINOMIAL.get(points - m as u32, o as u32)
    };
    layouts.sort_by_key(|layout| std::cmp::Reverse(raw_size(layout)));

    let progress = Progress::new(layouts.len() as u64, "counting canonical states");
    let counts: HashMap<(u8, u8), (u64, u64)> = layouts
        .par_iter()
        .map(|&(m, o)| {
            let index = ix.sector(Sector::moving(m, o));
            let counts = (index.slots(), index.canonical_states());
            progress.inc();
            ((m, o), counts)
        })
        .collect();
    progress.finish();

    sectors
        .iter()
        .map(|&sector| {
            let (slots, states) = counts[&(sector.mover, sector.opponent)];
            Row { sector, slots, states }
        })
        .collect()
}

/// The sectors of the variant that have a table in the database, and
/// those that have none, in the order of `morris sectors`: the moving
/// phase, then the placement phase (whose missing sectors count once one
/// of them is there), then the tables of games from other starts that
/// `solve --extended` wrote (never counted missing). An empty database
/// is an error.
pub fn sectors_in(db: &Database) -> Result<(Vec<Sector>, Vec<Sector>)> {
    sectors_of_tier(db, Tier::Full)
}

/// As [`sectors_in`], for the tables of `tier`.
/// A derived sector (its stub, `morris compact --derive` or `export --wdl
/// --derive`) counts as present in the tier the directory holds.
pub fn sectors_of_tier(db: &Database, tier: Tier) -> Result<(Vec<Sector>, Vec<Sector>)> {
    sectors_with(db, tier, tier == tier_held(db))
}

/// As [`sectors_of_tier`], derived sectors counted or not.
fn sectors_with(db: &Database, tier: Tier, stubs: bool) -> Result<(Vec<Sector>, Vec<Sector>)> {
    let has = |s: &Sector| {
        let file = match tier {
            Tier::Full => db.table_path(*s),
            Tier::Wdl => db.wdl_path(*s),
        };
        file.exists() || (stubs && db.derived_path(*s).exists())
    };
    let (mut present, mut missing): (Vec<Sector>, Vec<Sector>) =
        moving_sectors(db.variant()).into_iter().partition(has);
    let (placed, unplaced): (Vec<Sector>, Vec<Sector>) =
        placement_sectors(db.variant()).into_iter().partition(has);
    if !placed.is_empty() {
        present.extend(placed);
        missing.extend(unplaced);
    }
    let standard: std::collections::HashSet<Sector> =
        placement_sectors(db.variant()).into_iter().collect();
    present.extend(
        extended_placement_sectors(db.variant())
            .into_iter()
            .filter(|s| !standard.contains(s) && has(s)),
    );
    if present.is_empty() {
        let (v, dir) = (db.variant(), db.dir().display());
        let why = match tier {
            Tier::Full => format!(
                "no tables of {} in {dir}: solve some first, e.g. `morris solve --variant {} --max-stones 8 --db {dir}`",
                describe(v),
                v.name()
            ),
            Tier::Wdl => format!(
                "no win/draw/loss tables of {} in {dir}: write them from a solved database, e.g. `morris --variant {} --db SOLVED export --wdl {dir}`",
                describe(v),
                v.name()
            ),
        };
        return Err(NoTables(why).into());
    }
    Ok((present, missing))
}

/// The tier a command that reads one tier works on: the full tables when
/// the directory holds any, else the win/draw/loss tables when it holds
/// those (a directory `morris export --wdl` wrote).
pub fn tier_held(db: &Database) -> Tier {
    let any = |tier| sectors_with(db, tier, false).is_ok();
    if !any(Tier::Full) && any(Tier::Wdl) {
        Tier::Wdl
    } else {
        Tier::Full
    }
}

/// The sectors of the variant that have a win/draw/loss table
/// (`<variant>-<sector>.wdl`, what `morris export --wdl` writes) in the
/// database's directory, in the order of [`sectors_in`].
pub fn wdl_sectors_in(db: &Database) -> Vec<Sector> {
    sectors_of_tier(db, Tier::Wdl).map(|(present, _)| present).unwrap_or_default()
}

/// The database holds no table of the variant; the message names the
/// command that solves some. A type of its own so that `morris serve` can
/// answer it with 404 (nothing is wrong with the request).
#[derive(Debug)]
pub struct NoTables(String);

impl std::fmt::Display for NoTables {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoTables {}

/// The names of the `missing` sectors for a note: every one with `all`,
/// else the first 12 and `...`.
pub fn missing_names(missing: &[Sector], all: bool) -> String {
    let shown = if all { missing.len() } else { 12 };
    let mut names: Vec<String> = missing.iter().take(shown).map(|s| s.to_string()).collect();
    if missing.len() > names.len() {
        names.push("...".to_string());
    }
    names.join(" ")
}

/// The sectors of `present` that `compact --derive` leaves to one ply of
/// search ([`plan_derived`], by states, with those derived already),
/// announced on `out`; none without `derive`.
pub fn derived_sectors(
    db: &Database,
    present: &[Sector],
    derive: bool,
    out: &mut impl std::io::Write,
) -> Result<std::collections::BTreeSet<Sector>> {
    if !derive {
        return Ok(Default::default());
    }
    let states = |s| db.indexer().sector(s).canonical_states();
    let fixed = present.iter().copied().filter(|&s| db.derived_path(s).exists()).collect();
    let plan = plan_derived(db.variant(), present, states, &fixed);
    let n: u64 = plan.iter().map(|&s| states(s)).sum();
    let all: u64 = present.iter().map(|&s| states(s)).sum();
    writeln!(
        out,
        "deriving {} of the {} sectors ({n} of {all} states)",
        plan.len(),
        present.len()
    )?;
    Ok(plan)
}
