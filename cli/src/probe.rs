//! `morris probe`: positions in, values out, in bulk. One position per
//! input line, one JSON object (or TSV row) per line out, in input order;
//! a line that cannot be answered gets an error object and the run goes
//! on. The batches go through `morris::probe`, which reads each table
//! block once per batch.

use crate::common::one_line;
use crate::json;
use anyhow::{Context, Result};
use clap::ValueEnum;
use morris::database::Database;
use morris::probe::{parse_position, probe_distinct, ProbeError, ProbeOptions, Probed};
use morris::query::{Exactness, Query};
use morris::search::{SearchOptions, SearchStats};
use morris::value::Value;
use morris::variant::Variant;
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Read the positions from FILE instead of standard input.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,

    /// Every legal move with the value it leads to, best first.
    #[arg(long)]
    moves: bool,

    /// Output: one JSON object per line, or a TSV table with a header.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,

    /// Refuse placement positions whose tables are missing instead of
    /// answering them by the placement search.
    #[arg(long)]
    no_search: bool,

    /// Worker threads. Default: all cores.
    #[arg(long)]
    threads: Option<u32>,

    /// Memory for the transposition table of the placement search, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 2048)]
    transposition_mib: usize,

    /// Take positions of games that started with other numbers of stones
    /// to place, as `query --extended` does.
    #[arg(long)]
    extended: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Tsv,
}

/// Positions per batch: each batch's blocks are read once. Smaller with
/// moves, which look up some twenty positions for each one asked.
const BATCH: usize = 1 << 20;
const BATCH_WITH_MOVES: usize = 1 << 13;

/// The positions of one run failed to answer, counted; the output says
/// which and why.
#[derive(Debug)]
pub struct Failed {
    pub failed: u64,
    pub total: u64,
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{} of {} positions could not be answered (their lines in the output say why)",
            self.failed, self.total
        )
    }
}

impl std::error::Error for Failed {}

pub fn run(db: &Database, args: &Args, out: &mut impl Write) -> Result<()> {
    let threads = crate::common::threads(args.threads);
    // The global pool: the placement search, which the batches may call,
    // stays on this thread (its query is not shared), so the batches run
    // from here rather than inside a pool's `install`.
    rayon::ThreadPoolBuilder::new().num_threads(threads).build_global()?;
    let mut input: Box<dyn BufRead> = match &args.input {
        Some(path) => Box::new(std::io::BufReader::new(
            std::fs::File::open(path).with_context(|| format!("{}", path.display()))?,
        )),
        None => Box::new(std::io::stdin().lock()),
    };
    let report = |stats: &SearchStats| {
        if std::io::stderr().is_terminal() {
            eprint!("\rsearching the placement phase: {} nodes ", stats.nodes);
        }
    };
    let options = SearchOptions {
        transposition_bytes: args.transposition_mib << 20,
        ..SearchOptions::default()
    };
    let query = Query::with_search(db, options, &report);
    let search = (!args.no_search).then_some(&query);
    let batch = if args.moves { BATCH_WITH_MOVES } else { BATCH };
    let show_progress = std::io::stderr().is_terminal();
    let start = Instant::now();
    let (mut total, mut failed, mut line_no) = (0u64, 0u64, 0u64);
    if args.format == Format::Tsv {
        writeln!(out, "position\tvalue\tplies\texact{}", if args.moves { "\tmoves" } else { "" })?;
    }
    let mut text = String::new();
    let mut bytes = Vec::new();
    loop {
        // The next batch: its lines (blank ones skipped) and their numbers.
        // A line that is not UTF-8 is kept, its bad bytes shown as U+FFFD,
        // and answered with its own error: the lines around it go on.
        text.clear();
        let mut lines: Vec<Line> = Vec::new();
        while lines.len() < batch {
            let at = text.len();
            bytes.clear();
            let n = input.read_until(b'\n', &mut bytes).context("reading the positions")?;
            if n == 0 {
                break;
            }
            line_no += 1;
            let utf8 = match std::str::from_utf8(&bytes) {
                Ok(line) => {
                    text.push_str(line);
                    true
                }
                Err(_) => {
                    text.push_str(&String::from_utf8_lossy(&bytes));
                    false
                }
            };
            let line = text[at..].trim();
            if !line.is_empty() || !utf8 {
                let start = at + (text[at..].len() - text[at..].trim_start().len());
                lines.push(Line { number: line_no, start, end: start + line.len(), utf8 });
            }
        }
        if lines.is_empty() {
            break;
        }
        let (written, bad) =
            answer_batch(db, &text, &lines, args, search, args.format == Format::Json);
        for chunk in &written {
            out.write_all(chunk.as_bytes())?;
        }
        total += lines.len() as u64;
        failed += bad;
        if show_progress {
            let rate = total as f64 / start.elapsed().as_secs_f64().max(1e-9);
            eprint!("\rprobed {total} positions ({})   ", crate::units::rate(rate));
        }
    }
    if show_progress && total > 0 {
        eprintln!();
    }
    out.flush()?;
    if failed > 0 {
        return Err(Failed { failed, total }.into());
    }
    Ok(())
}

/// One line of input: its number, where it lies in the batch's text, and
/// whether it was UTF-8 text.
#[derive(Clone, Copy)]
struct Line {
    number: u64,
    start: usize,
    end: usize,
    utf8: bool,
}

/// One batch: parsed and probed in parallel, written in input order.
/// Returns the output, in pieces to be written one after the other, and
/// how many lines failed.
fn answer_batch(
    db: &Database,
    text: &str,
    lines: &[Line],
    args: &Args,
    search: Option<&Query>,
    json_lines: bool,
) -> (Vec<String>, u64) {
    let parsed: Vec<Result<morris::position::Position, String>> = lines
        .par_iter()
        .map(|line| match line.utf8 {
            true => {
                parse_position(db, &text[line.start..line.end], args.extended, "add --extended")
                    .map_err(|e| one_line(&e.into()))
            }
            false => Err("the line is not UTF-8 text".to_string()),
        })
        .collect();
    let positions: Vec<_> = parsed.iter().filter_map(|p| p.as_ref().ok().copied()).collect();
    let options = ProbeOptions { moves: args.moves };
    let (which, probed) = probe_distinct(db, &positions, options, search, " (--no-search)");
    // Each distinct position's answer written once.
    let variant = db.variant();
    let written: Vec<Result<String, String>> = probed
        .par_iter()
        .map(|answer| match answer {
            Ok(p) => {
                let mut s = String::with_capacity(if args.moves { 600 } else { 100 });
                match json_lines {
                    true => write_json(variant, p, &mut s),
                    false => write_tsv(variant, p, args.moves, &mut s),
                }
                s.push('\n');
                Ok(s)
            }
            Err(e) => Err(error_text(e)),
        })
        .collect();
    // Each line's answer: a parse error, or its position's.
    let mut answers: Vec<Result<&str, &str>> = Vec::with_capacity(lines.len());
    let mut next = which.iter();
    for p in &parsed {
        answers.push(match p {
            Err(e) => Err(e),
            Ok(_) => match &written[*next.next().expect("one per position") as usize] {
                Ok(line) => Ok(line),
                Err(e) => Err(e),
            },
        });
    }
    let bad = answers.iter().filter(|a| a.is_err()).count() as u64;
    let chunks: Vec<String> = answers
        .par_chunks(4096)
        .zip(lines.par_chunks(4096))
        .map(|(answers, lines)| {
            let size = answers.iter().map(|a| a.map_or(200, str::len)).sum();
            let mut s = String::with_capacity(size);
            for (answer, &Line { number: line, start: a, end: b, .. }) in answers.iter().zip(lines)
            {
                match (answer, json_lines) {
                    (Ok(written), _) => s.push_str(written),
                    (Err(e), true) => {
                        write_json_error(line, &text[a..b], e, &mut s);
                        s.push('\n');
                    }
                    (Err(e), false) => {
                        let _ = writeln!(
                            s,
                            "{}\terror\t\t\t{}",
                            tsv_field(&text[a..b]),
                            tsv_field(&format!("line {line}: {e}"))
                        );
                    }
                }
            }
            s
        })
        .collect();
    (chunks, bad)
}

/// The message of a probe error, as the CLI prints errors.
pub fn error_text(e: &ProbeError) -> String {
    one_line(&anyhow::Error::new(e.clone()))
}

/// The plies to the end when they are known.
fn plies_of(value: Value, exactness: Exactness) -> Option<u16> {
    match exactness {
        Exactness::Exact => value.plies(),
        Exactness::ValueOnly => None,
    }
}

/// One answer's JSON object (`morris probe`'s line, an item of
/// `/api/probe`'s list).
#[derive(Serialize)]
pub struct ProbedJson {
    position: String,
    value: &'static str,
    plies: Option<u16>,
    exact: bool,
    /// With `--moves` (`moves=1`), and where the game goes on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    moves: Vec<MoveJson>,
}

/// A move of [`ProbedJson`]: unlike `query --json`'s, without the
/// position it leads to.
#[derive(Serialize)]
struct MoveJson {
    #[serde(rename = "move")]
    mv: String,
    value: &'static str,
    plies: Option<u16>,
}

impl ProbedJson {
    pub fn new(variant: &Variant, p: &Probed) -> ProbedJson {
        ProbedJson {
            position: p.position.notation(variant),
            value: p.value.kind(),
            plies: plies_of(p.value, p.exactness),
            exact: p.exactness == Exactness::Exact,
            moves: p
                .moves
                .iter()
                .map(|m| MoveJson {
                    mv: m.mv.notation(variant),
                    value: m.value.kind(),
                    plies: plies_of(m.value, m.exactness),
                })
                .collect(),
        }
    }
}

/// The object of a line (an item) that has no answer: its number (from
/// 1), the text as given, the message.
#[derive(Serialize)]
pub struct ErrorJson<'a> {
    pub line: u64,
    pub input: &'a str,
    pub error: &'a str,
}

/// One answer as a JSON object on one line (no newline).
pub fn write_json(variant: &Variant, p: &Probed, s: &mut String) {
    json::push(s, &ProbedJson::new(variant, p));
}

/// An error object: the line number, the line as given, the message.
pub fn write_json_error(line: u64, input: &str, error: &str, s: &mut String) {
    json::push(s, &ErrorJson { line, input, error });
}

fn write_tsv(variant: &Variant, p: &Probed, moves: bool, s: &mut String) {
    p.position.write_notation(variant, s);
    let _ = write!(s, "\t{}\t", p.value.kind());
    if let Some(d) = plies_of(p.value, p.exactness) {
        let _ = write!(s, "{d}");
    }
    let _ = write!(s, "\t{}", p.exactness == Exactness::Exact);
    if moves {
        s.push('\t');
        for (i, m) in p.moves.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            let _ = write!(s, "{}:{}", m.mv.notation(variant), m.value.kind());
            if let Some(d) = plies_of(m.value, m.exactness) {
                let _ = write!(s, ":{d}");
            }
        }
    }
}

/// A field without the tabs and line breaks that would break the table.
fn tsv_field(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}
