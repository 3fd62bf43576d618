//! `morris query`: the value of a position, every legal move with the value
//! it leads to, a perfect-play line and the diagram, as text or JSON.

use crate::common::{describe, ending, parse_position_in, threads};
use crate::json;
use anyhow::Result;
use morris::database::{Database, SectorTable};
use morris::hints::one_line_with_hints;
use morris::index::Sector;
use morris::position::{Move, Position};
use morris::query::{after, describe_result, play_moves, Analysis, Exactness, Query};
use morris::rules::Status;
use morris::search::{SearchOptions, SearchStats};
use morris::value::Value;
use morris::variant::Variant;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

#[derive(clap::Args)]
pub struct Args {
    /// The position as `BOARD SIDE WH BH` (quoted, or as four words), or
    /// `start`. Example: "WW....B./W......./BB...... w 0 0".
    #[arg(required = true, num_args = 1.., value_name = "POSITION")]
    position: Vec<String>,

    /// Moves to play from the position first, e.g. "d6 d5 d2" or "b6-g7xa1".
    #[arg(long, value_name = "MOVES")]
    moves: Option<String>,

    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,

    /// Memory for the transposition table of the placement search, in MiB
    /// (besides it, the search maps the 2-bit leaf cache of each
    /// moving-phase table it reads, made beside the tables in `leaves/`
    /// the first time: 2.3 GB for the whole of nine, page cache rather
    /// than memory of its own; copied into memory where no cache can be
    /// written).
    #[arg(long, value_name = "MIB", default_value_t = 2048)]
    transposition_mib: usize,

    /// Threads for the placement search of a position it takes long to
    /// prove (they share the transposition table). Default: all cores.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,

    /// Take a position of a game that started with other numbers of
    /// stones to place (hands that do not alternate, e.g. `w 9 8`),
    /// answered from its table if the database holds it (such positions
    /// are taken without this option then), else by the placement search.
    #[arg(long)]
    extended: bool,
}

pub fn run(db: &Database, args: &Args, out: &mut impl Write) -> Result<()> {
    let variant = db.variant();
    let text = args.position.join(" ");
    let position = parse_position_in(db, &text, args.extended, "add --extended")?;
    let (position, played) = match &args.moves {
        Some(text) => play_moves(variant, &position, text)?,
        None => (position, Vec::new()),
    };
    let reported = std::cell::Cell::new(false);
    let report = |stats: &SearchStats| {
        reported.set(true);
        eprint!("\rsearching the placement phase: {} ", summary(stats));
    };
    // A long search is expected where 14 or more stones are still to be
    // placed (nine's start: 76 M nodes). Its table is worth huge pages
    // (about a sixth faster), and its threads are worth starting early.
    // A shorter search is bound by the page faults of its first touches
    // of the table: with huge pages it zeroes 2 MiB for each entry it
    // touches (six's start, 12 stones and 260 k nodes, took twice as long
    // and 2 GiB instead of 0.45 GiB), and threads take the faults in turn
    // (docs/results.md).
    let long = stones_in_hand(&position) >= 14;
    let options = SearchOptions {
        transposition_bytes: args.transposition_mib << 20,
        threads: threads(args.threads),
        huge_pages: long,
        alone_nodes: if long { 1 << 16 } else { SearchOptions::default().alone_nodes },
    };
    let query = Query::with_search(db, options, &report);
    let end_progress = |what: &str| {
        if reported.replace(false) {
            eprintln!();
        }
        let stats = query.search_stats();
        if stats.nodes > 0 {
            eprintln!("placement search ({what}): {}", summary(&stats));
        }
    };
    if args.json {
        let analysis = query.analyse(&position);
        end_progress("value, moves and line");
        return write_json(variant, &analysis?, out);
    }
    // The value first: a search proves it well before every move's result
    // (each needs a proof of its own), and a reader waiting on nine's
    // start should see it as soon as it is known.
    let value = query.value(&position);
    end_progress("value");
    let (value, exactness) = value?;
    let from_wdl = matches!(db.tier(Sector::of(&position.state())), Ok(SectorTable::Wdl(_)));
    let how = match exactness {
        Exactness::Exact => "",
        Exactness::ValueOnly if from_wdl => {
            " (from the win/draw/loss tier; distances need the full tables)"
        }
        Exactness::ValueOnly => {
            " (proved by a search down to the moving-phase tables; distances need placement tables)"
        }
    };
    write_head(variant, db.dir(), &played, &position, (value, exactness, how), out)?;
    out.flush()?;
    let analysis = query.analyse(&position);
    end_progress("value, moves and line");
    write_moves(variant, &analysis?, out)
}

/// What a placement search did, on one line.
fn summary(s: &SearchStats) -> String {
    format!(
        "{} nodes, {} transpositions ({} positions remembered), {} leaf probes, {} leaf tables ({}, {} caches made, {} copied; {:.1} s), {:.1} s in all, {} nodes",
        s.nodes,
        s.transpositions,
        s.remembered,
        s.probes,
        s.sectors_loaded,
        crate::units::bytes(s.leaf_bytes as u64),
        s.leaf_caches_built,
        s.leaf_copies,
        s.loading.as_secs_f64(),
        s.elapsed.as_secs_f64(),
        crate::units::rate(s.nodes_per_second())
    )
}

/// The diagram, where the position comes from, and its value, how exact
/// it is and, where it is not, how it was found (`how`).
fn write_head(
    variant: &Variant,
    db_dir: &Path,
    played: &[Move],
    position: &Position,
    (value, exactness, how): (Value, Exactness, &str),
    out: &mut impl Write,
) -> Result<()> {
    let me = position.to_move;
    write!(out, "{}", position.diagram(variant))?;
    writeln!(out)?;
    field(out, "variant", &describe(variant))?;
    field(out, "database", &db_dir.display().to_string())?;
    if !played.is_empty() {
        field(out, "after", &notation(variant, played))?;
    }
    field(out, "position", &position.notation(variant))?;
    field(out, "to move", me.name())?;
    let state = position.state();
    field(out, "sector", &Sector::of(&state).to_string())?;
    let mut text = match morris::rules::status(variant, &state) {
        Status::Playing => describe_result(value, exactness, me),
        Status::Lost if state.mover_stones() < 3 => {
            format!("{me} has lost: fewer than 3 stones")
        }
        Status::Lost => format!("{me} has lost: no legal move"),
        Status::Drawn => "Draw: the board is full".to_string(),
    };
    text.push_str(how);
    field(out, "value", &text)
}

/// Every move with its result, and the perfect-play line (or why there
/// is none: a sector of which the database holds only the win/draw/loss
/// tier).
fn write_moves(variant: &Variant, a: &Analysis, out: &mut impl Write) -> Result<()> {
    let me = a.position.to_move;
    if a.moves.is_empty() {
        return Ok(());
    }
    field(out, "moves", &format!("{}, best first, with {me}'s result after each", a.moves.len()))?;
    let width = a.moves.iter().map(|m| m.mv.notation(variant).len()).max().unwrap_or(0);
    for m in &a.moves {
        let result = match m.exactness {
            Exactness::Exact => m.value.to_string(),
            Exactness::ValueOnly => m.value.kind().to_string(),
        };
        writeln!(out, "  {:<width$}  {result}", m.mv.notation(variant))?;
    }
    let line = match &a.line {
        Ok(line) => line,
        Err(needed) => {
            return field(out, "line", &format!("none: {}", one_line_with_hints(needed)))
        }
    };
    let summary = if line.cut {
        format!("{}, cut there (the game is drawn)", plies(line.moves.len()))
    } else {
        format!("{} to the end: {}", plies(line.moves.len()), ending(variant, &line.end))
    };
    field(out, "line", &summary)?;
    write_wrapped(out, &line.moves.iter().map(|m| m.notation(variant)).collect::<Vec<_>>())
}

fn plies(n: usize) -> String {
    if n == 1 {
        "1 ply".to_string()
    } else {
        format!("{n} plies")
    }
}

fn notation(variant: &Variant, moves: &[Move]) -> String {
    moves.iter().map(|m| m.notation(variant)).collect::<Vec<_>>().join(" ")
}

fn field(out: &mut impl Write, name: &str, value: &str) -> Result<()> {
    writeln!(out, "{name:<10} {value}")?;
    Ok(())
}

/// Words on indented lines of about 72 columns.
fn write_wrapped(out: &mut impl Write, words: &[String]) -> Result<()> {
    let mut line = String::new();
    for w in words {
        if !line.is_empty() && line.len() + 1 + w.len() > 72 {
            writeln!(out, " {line}")?;
            line.clear();
        }
        line.push(' ');
        line.push_str(w);
    }
    if !line.is_empty() {
        writeln!(out, " {line}")?;
    }
    Ok(())
}

/// The plies to the end, `null` unless the value is exact.
fn plies_json(value: Value, exactness: Exactness) -> Option<u16> {
    match exactness {
        Exactness::Exact => value.plies(),
        Exactness::ValueOnly => None,
    }
}

/// The object of `query --json`, its fields in the order printed.
#[derive(Serialize)]
struct QueryJson {
    position: String,
    to_move: String,
    sector: String,
    value: &'static str,
    plies: Option<u16>,
    exact: bool,
    /// One a line.
    moves: Vec<MoveJson>,
    /// On one line, beside `moves`.
    line: json::OneLine<Vec<String>>,
    line_cut: bool,
    /// Where the line needs the full tier: why there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    line_missing: Option<String>,
}

/// One legal move of `query --json`.
#[derive(Serialize)]
struct MoveJson {
    #[serde(rename = "move")]
    mv: String,
    value: &'static str,
    plies: Option<u16>,
    position: String,
}

/// The object of `query --json` (docs/cli.md), with `position`, `sector`, `exact`,
/// `to_move` and `line_cut` besides, and each move's resulting position
/// (so a client can follow a move without knowing the rules). `morris
/// serve` answers `/api/query` with the same bytes.
pub fn write_json(variant: &Variant, a: &Analysis, out: &mut impl Write) -> Result<()> {
    let moves = a
        .moves
        .iter()
        .map(|m| MoveJson {
            mv: m.mv.notation(variant),
            value: m.value.kind(),
            plies: plies_json(m.value, m.exactness),
            position: after(&a.position, m.mv).notation(variant),
        })
        .collect();
    let (line, line_cut, line_missing) = match &a.line {
        Ok(line) => (&line.moves[..], line.cut, None),
        Err(needed) => (&[][..], false, Some(one_line_with_hints(needed))),
    };
    let object = QueryJson {
        position: a.position.notation(variant),
        to_move: a.position.to_move.name().to_lowercase(),
        sector: a.sector.to_string(),
        value: a.value.kind(),
        plies: plies_json(a.value, a.exactness),
        exact: a.exactness == Exactness::Exact,
        moves,
        line: json::OneLine(line.iter().map(|m| m.notation(variant)).collect()),
        line_cut,
        line_missing,
    };
    // The object and its list of moves break lines; a move is one line.
    json::write(out, &object, 2)?;
    Ok(())
}

/// Stones both sides still have to place.
fn stones_in_hand(position: &morris::Position) -> u32 {
    let sector = morris::index::Sector::of(&position.state());
    sector.mover_hand as u32 + sector.opponent_hand as u32
}
