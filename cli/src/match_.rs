//! `morris match`: games between two players, counted with 95 % intervals.

use crate::common::{describe, parse_position, threads};
use crate::playouts::{self, Playouts};
use anyhow::{bail, Context, Result};
use morris::arena::{
    run_match, wilson, Blocks, End, MatchResult, MatchSpec, Memory, Player, Tally,
};
use morris::database::Database;
use morris::game::Repetition;
use morris::position::Position;
use morris::query::PERFECT_PLAYER;
use morris::sectors::{moving_sectors, placement_sectors};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The player whose results are counted: perfect:RULE[:playon] (RULE,
    /// the tie-break among drawing moves: uniform, replies, share, traps2,
    /// balance; playon: declines repetition draws while another move keeps
    /// the draw), fallible:P[:RULE] (a random legal move with probability
    /// P, else perfect), random, or alphabeta:DEPTH (stones, mills and
    /// mobility; no tables).
    #[arg(long, value_name = "SPEC", default_value = "perfect:balance:playon")]
    player: Player,

    /// Its opponent, written as --player.
    #[arg(long, value_name = "SPEC", default_value = "fallible:0.05")]
    opponent: Player,

    /// Games with the player as White, and as many again as Black.
    #[arg(long, value_name = "N", default_value_t = 100)]
    games: u64,

    /// Seeds every game's random choices (game i from the seed and i): the
    /// same seed gives the same games on any number of threads.
    #[arg(long, default_value_t = 1)]
    seed: u64,

    /// A game not over after this many plies is a draw.
    #[arg(long, value_name = "N", default_value_t = 400)]
    max_plies: usize,

    /// Start the games from the positions in FILE (one per line, `start`
    /// or `BOARD SIDE WH BH`; blank lines and lines from `#` skipped), in
    /// turn, instead of the start.
    #[arg(long, value_name = "FILE")]
    from: Option<PathBuf>,

    /// When a repetition draws the game: `board` (the rules text) or
    /// `threefold`.
    #[arg(long, value_name = "RULE", default_value = "board")]
    repetition: Repetition,

    /// Where values come from: `memory` (every table read into memory
    /// first; fast, needs the tables' size in memory), `tables` (a
    /// compressed block read per value, as `query` does) or `blocks`
    /// (decompressed blocks kept for every game, up to --cache-mib: for
    /// nine, whose tables do not fit in memory).
    #[arg(long, value_enum, default_value = "memory")]
    lookup: Lookup,

    /// With `--lookup blocks`: the memory the decompressed blocks may
    /// take, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    cache_mib: u64,

    /// Worker threads (games run in parallel). Default: all cores.
    #[arg(long, value_name = "T")]
    threads: Option<u32>,

    /// One line of tab-separated figures instead of the table.
    #[arg(long)]
    tsv: bool,

    /// Measure an app set (`morris export --app`): from every position of
    /// --from, each won for the side to move by the full tables of --db,
    /// the player that opens only DIR plays the side to move against
    /// --opponent (`perfect`: the slowest loss), once; a game not won (a
    /// repetition draw, the ply cap, a loss) is a failure. Prints the
    /// games won and the plies they took against perfect play's.
    #[arg(long, value_name = "DIR", requires = "from", conflicts_with_all = ["tsv", "player"])]
    app: Option<PathBuf>,

    /// With --app: writes every start the app player failed to FILE, one
    /// a line as --from reads them (how it failed and the moves played
    /// after a '#'), so that they can be played again.
    #[arg(long, value_name = "FILE", requires = "app")]
    failures: Option<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Lookup {
    Memory,
    Tables,
    Blocks,
}

pub fn run(db: &Database, args: &Args, out: &mut impl Write) -> Result<()> {
    let variant = db.variant();
    if args.games == 0 {
        bail!("--games 0: a match needs at least one game each colour");
    }
    let starts = match &args.from {
        None => vec![Position::start(variant)],
        Some(path) => read_positions(variant, path)?,
    };
    let spec = MatchSpec {
        player: args.player,
        opponent: args.opponent,
        games: args.games,
        seed: args.seed,
        max_plies: args.max_plies,
        starts,
        repetition: args.repetition,
    };
    if needs_tables(&spec) {
        // Before any game: a player that reads the tables needs their
        // distances, which a win/draw/loss tier does not hold.
        let sectors = moving_sectors(variant).into_iter().chain(placement_sectors(variant));
        db.check_distances(sectors, PERFECT_PLAYER)?;
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads(args.threads)).build()?;
    if let Some(app) = &args.app {
        let from = args.from.as_deref().expect("clap requires --from");
        let p = Playouts {
            app,
            from,
            starts: &spec.starts,
            opponent: spec.opponent,
            max_plies: spec.max_plies,
            repetition: spec.repetition,
            seed: spec.seed,
            failures: args.failures.as_deref(),
        };
        return match args.lookup {
            Lookup::Memory => {
                let memory = pool.install(|| Memory::load(db))?;
                playouts::run(db, &memory, &p, &pool, out)
            }
            Lookup::Blocks => {
                playouts::run(db, &Blocks::new(db, args.cache_mib << 20), &p, &pool, out)
            }
            Lookup::Tables => playouts::run(db, db, &p, &pool, out),
        };
    }
    let began = Instant::now();
    let needs_tables = needs_tables(&spec);
    let result = pool.install(|| -> Result<MatchResult> {
        Ok(match args.lookup {
            Lookup::Memory if needs_tables => run_match(variant, &Memory::load(db)?, &spec)?,
            Lookup::Blocks if needs_tables => {
                run_match(variant, &Blocks::new(db, args.cache_mib << 20), &spec)?
            }
            _ => run_match(variant, db, &spec)?,
        })
    })?;
    let seconds = began.elapsed().as_secs_f64();
    if args.tsv {
        let t = result.total();
        let mut fields = vec![spec.player.to_string(), spec.opponent.to_string()];
        for tally in [&result.as_white, &result.as_black, &t] {
            fields.extend([tally.wins, tally.draws, tally.losses].map(|n| n.to_string()));
        }
        fields.push(format!("{:.1}", result.plies as f64 / t.games() as f64));
        writeln!(out, "{}", fields.join("\t"))?;
        return Ok(());
    }
    let from = match &args.from {
        None => "the start".to_string(),
        Some(path) => format!("{} positions of {}", spec.starts.len(), path.display()),
    };
    writeln!(
        out,
        "{}: {} against {}, {} games each colour from {from}, seed {}, draw at {} plies, repetition {}",
        describe(variant),
        spec.player,
        spec.opponent,
        spec.games,
        spec.seed,
        spec.max_plies,
        spec.repetition
    )?;
    writeln!(
        out,
        "{:<8} {:>5}  {:<23}  {:<23}  losses (95 % CI)",
        "", "games", "wins (95 % CI)", "draws (95 % CI)"
    )?;
    for (name, tally) in
        [("as White", result.as_white), ("as Black", result.as_black), ("total", result.total())]
    {
        writeln!(
            out,
            "{name:<8} {:>5}  {}  {}  {}",
            tally.games(),
            share(tally.wins, &tally),
            share(tally.draws, &tally),
            share(tally.losses, &tally).trim_end()
        )?;
    }
    let ends: Vec<String> = result
        .ends
        .iter()
        .map(|&(end, n)| {
            let what = match end {
                End::Rules => "by the rules",
                End::FullBoard => "full board",
                End::Repetition => "repetition",
                End::PlyLimit => "ply limit",
            };
            format!("{what} {n}")
        })
        .collect();
    writeln!(
        out,
        "{:.1} plies a game; ended: {}",
        result.plies as f64 / result.total().games() as f64,
        ends.join(", ")
    )?;
    // The time goes to stderr, after the table: stdout is the same for
    // the same seed.
    out.flush()?;
    eprintln!("morris match: {} games in {seconds:.1} s", result.total().games());
    Ok(())
}

/// `k` of the tally's games: the count, the percentage and its 95 %
/// Wilson interval, in a column 23 wide.
fn share(k: u64, tally: &Tally) -> String {
    let n = tally.games();
    let (lo, hi) = wilson(k, n);
    let text =
        format!("{k} {:.1} % [{:.1}, {:.1}]", 100.0 * k as f64 / n as f64, 100.0 * lo, 100.0 * hi);
    format!("{text:<23}")
}

/// The positions of `path`, one a line.
fn read_positions(variant: &morris::Variant, path: &PathBuf) -> Result<Vec<Position>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--from {}: cannot read", path.display()))?;
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let p = parse_position(variant, line)
            .with_context(|| format!("{} line {}", path.display(), i + 1))?;
        if morris::rules::status(variant, &p.state()) != morris::rules::Status::Playing {
            bail!("{} line {}: the game is over in {line}", path.display(), i + 1);
        }
        positions.push(p);
    }
    if positions.is_empty() {
        bail!("--from {}: no positions in the file", path.display());
    }
    Ok(positions)
}

/// Whether a player of the match reads the tables.
fn needs_tables(spec: &MatchSpec) -> bool {
    spec.player.reads_tables() || spec.opponent.reads_tables()
}
