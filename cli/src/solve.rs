//! `morris solve`: solves the missing sector pairs of the moving phase,
//! bottom-up, then the placement sectors, with a progress bar and one
//! summary line per pair or sector. It holds the database's lock for the
//! whole run and stops at a safe point on SIGINT or SIGTERM.

use crate::common::{check_max_stones, describe, threads, Phase};
use crate::signals::{self, interrupted};
use crate::units;
use anyhow::{bail, Context, Result};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use morris::database::Database;
use morris::driver::{JobOutcome, PairProgress};
use morris::index::Sector;
use morris::sectors::{extended_placement_sectors, placement_sectors};
use morris::solve::plan::Job;
use morris::solve::{moving_pairs, MovingPair, PairReport, Progress};
use std::io::{self, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Solve only the sectors with at most N stones on the board and in
    /// hand, both sides together (and what they depend on). Default: all.
    #[arg(long, value_name = "N")]
    max_stones: Option<u32>,

    /// Worker threads. Default: all cores.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,

    /// Which phase to solve: the moving phase, or all (placement too).
    #[arg(long, value_enum, default_value_t = Phase::All)]
    phase: Phase,

    /// Solve the placement sectors of games from every start, not only
    /// the standard one: White and Black each holding 3 to the variant's
    /// stones to place, either side first (hands need not alternate, and
    /// a side with an empty hand slides while the other places).
    #[arg(long, conflicts_with_all = ["job", "pair"])]
    extended: bool,

    /// Checkpoint a pair being solved at the first depth level boundary
    /// after every S seconds (0: after every level), so a killed run
    /// loses at most about that much of the pair.
    #[arg(long, value_name = "S", env = "MORRIS_CHECKPOINT_SECS", default_value_t = 300)]
    checkpoint_secs: u64,

    /// Solve one job of `morris plan` only: a pair M-O (or M,O) or a
    /// placement sector M-O-MH-OH. The jobs it depends on must be solved;
    /// other jobs may run at the same time on the same directory.
    #[arg(long, value_name = "JOB", conflicts_with_all = ["max_stones", "phase", "pair"])]
    job: Option<String>,

    /// Solve one moving-phase pair only: `--job` for a pair.
    #[arg(long, value_name = "M,O", conflicts_with_all = ["max_stones", "phase"])]
    pair: Option<String>,
}

pub fn run(db: Database, args: &Args, out: &mut impl Write) -> Result<()> {
    let threads = threads(args.threads);
    let every = Duration::from_secs(args.checkpoint_secs);
    let db = db.with_checkpoints(Some(every));
    let variant = db.variant();
    if let Some(text) = &args.job {
        return run_job(&db, Job::parse(variant, text)?, threads, out);
    }
    if let Some(text) = &args.pair {
        return match Job::parse(variant, text)? {
            Job::Placement(sector) => {
                bail!("--pair {text}: {sector} is a placement sector, not a pair; use --job")
            }
            pair => run_job(&db, pair, threads, out),
        };
    }
    let max_stones = check_max_stones(variant, args.max_stones)?;
    // The lock first: a second solver, or a directory that cannot be
    // written, stops here before anything else is done.
    for note in db.begin_solve()? {
        writeln!(out, "{note}")?;
    }
    signals::install().context("installing the SIGINT and SIGTERM handlers")?;
    run_moving(&db, max_stones, threads, out)?;
    if args.phase == Phase::All {
        run_placement(&db, max_stones, threads, args.extended, out)?;
    }
    Ok(())
}

/// One job of the plan, as one of many processes that may share the
/// directory: solved, or found already solved.
fn run_job(db: &Database, job: Job, threads: usize, out: &mut impl Write) -> Result<()> {
    let variant = db.variant();
    let what = match job {
        Job::Pair(pair) => format!("pair {pair}"),
        Job::Placement(_) => "placement sector".to_string(),
    };
    let sectors: Vec<String> = job.sectors().iter().map(|s| s.to_string()).collect();
    signals::install().context("installing the SIGINT and SIGTERM handlers")?;
    let states: u64 =
        job.sectors().iter().map(|&s| db.indexer().sector(s).canonical_states()).sum();
    let unit = if matches!(job, Job::Placement(_)) { "sector" } else { "pair" };
    let progress = SolveProgress::new(db, states, unit);
    // Said only once the job is sure to run: a job already solved, or
    // missing a dependency, says so in one line.
    *progress.preamble.lock().unwrap() = Some(format!(
        "{}: job {job}, {what} (tables {}), {threads} thread{}, database {}\n{}",
        describe(variant),
        sectors.join(" "),
        if threads == 1 { "" } else { "s" },
        db.dir().display(),
        Row::header().replacen("pair  ", &format!("{unit:<6}"), 1)
    ));
    let result = db.solve_job(job, threads, &progress);
    progress.clear();
    // The errors of a job name the job, or the file, already.
    let outcome = result.map_err(|e| interrupted(e, format!("nothing of job {job}")))?;
    if let Some(err) = progress.write_error.lock().unwrap().take() {
        return Err(err.into());
    }
    match outcome {
        JobOutcome::AlreadySolved => writeln!(
            out,
            "{}: job {job} already solved in {} (tables {})",
            describe(variant),
            db.dir().display(),
            sectors.join(" ")
        )?,
        JobOutcome::Solved(_) => {
            let on_disk: u64 = job.sectors().iter().filter_map(|&s| file_size(db, s)).sum();
            writeln!(
                out,
                "solved job {job}: tables {} take {} on disk",
                sectors.join(" "),
                units::bytes(on_disk)
            )?
        }
    }
    Ok(())
}

/// The placement sectors with at most `max_stones` stones (with
/// `extended`, those of games from every start): after the moving phase,
/// which they lead into.
fn run_placement(
    db: &Database,
    max_stones: u32,
    threads: usize,
    extended: bool,
    out: &mut impl Write,
) -> Result<()> {
    let variant = db.variant();
    let all =
        if extended { extended_placement_sectors(variant) } else { placement_sectors(variant) };
    let sectors: Vec<Sector> = all.into_iter().filter(|s| s.total_stones() <= max_stones).collect();
    let kind = if extended { "extended placement" } else { "placement" };
    if sectors.is_empty() {
        return Ok(());
    }
    refuse_foreign_sectors(db, &sectors)?;
    let todo: Vec<Sector> = sectors.iter().copied().filter(|&s| !db.has(s)).collect();
    if todo.is_empty() {
        writeln!(
            out,
            "{}: all {} {kind} sectors up to {max_stones} stones already solved",
            describe(variant),
            sectors.len()
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "{}: {kind} phase up to {max_stones} stones, {} sectors, {} to solve",
        describe(variant),
        sectors.len(),
        todo.len()
    )?;
    // Lasker's placement sectors are solved in pairs, as the moving phase.
    let unit = if variant.move_while_placing() { "pair" } else { "sector" };
    writeln!(out, "{}", Row::header().replacen("pair  ", &format!("{unit:<6}"), 1))?;
    out.flush()?;
    let total_states: u64 = todo.iter().map(|&s| db.indexer().sector(s).canonical_states()).sum();
    let progress = SolveProgress::new(db, total_states, unit);
    let start = Instant::now();
    let result = if extended {
        db.solve_extended_placement(max_stones, threads, &progress)
    } else {
        db.solve_placement(max_stones, threads, &progress)
    };
    progress.clear();
    let finished = || {
        let n = sectors.iter().filter(|&&s| db.has(s)).count();
        format!("the moving phase and {n} of {} {kind} sectors", sectors.len())
    };
    let summary = result.map_err(|e| interrupted(e, finished())).with_context(|| {
        format!("solving the placement phase of {} in {}", describe(variant), db.dir().display())
    })?;
    if let Some(err) = progress.write_error.lock().unwrap().take() {
        return Err(err.into());
    }
    let total = progress.total(plural(summary.solved.len(), unit), start);
    writeln!(out, "{}", "-".repeat(Row::header().len()))?;
    writeln!(out, "{}", total.line())?;
    let on_disk: u64 = sectors.iter().filter_map(|&s| file_size(db, s)).sum();
    let states: u64 = sectors.iter().map(|&s| db.indexer().sector(s).canonical_states()).sum();
    writeln!(
        out,
        "{kind}: the {} sectors up to {max_stones} stones take {} on disk ({:.2} bits per state)",
        sectors.len(),
        units::bytes(on_disk),
        on_disk as f64 * 8.0 / states.max(1) as f64
    )?;
    Ok(())
}

/// The moving-phase pairs with at most `max_stones` on the board.
fn run_moving(db: &Database, max_stones: u32, threads: usize, out: &mut impl Write) -> Result<()> {
    let variant = db.variant();
    let dir = db.dir();
    let most = 2 * variant.stones() as u32;
    let pairs = moving_pairs(variant, max_stones);
    if pairs.is_empty() {
        bail!(
            "--max-stones {max_stones}: no pair has that few stones (the smallest, {{3,3}}, has 6)"
        );
    }
    let max_stones = max_stones.min(pairs.iter().map(MovingPair::stones).max().unwrap_or(most));

    refuse_foreign_sectors(db, &pairs.iter().flat_map(|p| p.sectors()).collect::<Vec<_>>())?;
    let done: Vec<&MovingPair> =
        pairs.iter().filter(|p| p.sectors().iter().all(|&s| db.has(s))).collect();
    if done.len() == pairs.len() {
        writeln!(
            out,
            "{}: all {} pairs up to {max_stones} stones already solved in {}",
            describe(variant),
            pairs.len(),
            dir.display()
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "{}: moving phase up to {max_stones} stones, {} pairs, {} to solve, {threads} thread{}, database {}",
        describe(variant),
        pairs.len(),
        pairs.len() - done.len(),
        if threads == 1 { "" } else { "s" },
        dir.display()
    )?;
    if !done.is_empty() {
        let list: Vec<String> = done.iter().map(|p| p.to_string()).collect();
        writeln!(out, "already solved: {}: {}", plural(done.len(), "pair"), list.join(" "))?;
    }
    writeln!(out, "{}", Row::header())?;
    // The pair lines are written from the progress callbacks, straight to
    // stdout: what is buffered so far must come first.
    out.flush()?;

    let total_states: u64 = pairs
        .iter()
        .filter(|p| !done.contains(p))
        .flat_map(|p| p.sectors())
        .map(|s| db.indexer().sector(s).canonical_states())
        .sum();
    let progress = SolveProgress::new(db, total_states, "pair");
    let start = Instant::now();
    let result = db.solve_moving(max_stones, threads, &progress);
    progress.clear();
    let finished = || {
        let n = pairs.iter().filter(|p| p.sectors().iter().all(|&s| db.has(s))).count();
        format!("{n} of {} pairs", pairs.len())
    };
    let summary = result
        .map_err(|e| interrupted(e, finished()))
        .with_context(|| format!("solving {} in {}", describe(variant), dir.display()))?;
    if let Some(err) = progress.write_error.lock().unwrap().take() {
        return Err(err.into());
    }

    let total = progress.total(plural(summary.solved.len(), "pair"), start);
    writeln!(out, "{}", "-".repeat(Row::header().len()))?;
    writeln!(out, "{}", total.line())?;
    let on_disk: u64 =
        pairs.iter().flat_map(|p| p.sectors()).filter_map(|s| file_size(db, s)).sum();
    let states_on_disk: u64 = pairs
        .iter()
        .flat_map(|p| p.sectors())
        .map(|s| db.indexer().sector(s).canonical_states())
        .sum();
    writeln!(
        out,
        "solved {}, skipped {} already solved; the {} pairs up to {max_stones} stones take {} on disk ({:.2} bits per state)",
        plural(summary.solved.len(), "pair"),
        summary.skipped.len(),
        pairs.len(),
        units::bytes(on_disk),
        on_disk as f64 * 8.0 / states_on_disk as f64
    )?;
    Ok(())
}

/// `1 pair`, `2 pairs`.
fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Stops before a table that exists but does not open under these rules
/// (another `--fly-at`, say, or a damaged file) would be solved again and
/// overwritten.
fn refuse_foreign_sectors(db: &Database, sectors: &[Sector]) -> Result<()> {
    for &sector in sectors {
        if db.table_path(sector).exists() {
            db.table(sector)
                .context("refusing to overwrite a table that does not open (move it away, or use another --db)")?;
        }
    }
    Ok(())
}

fn file_size(db: &Database, sector: Sector) -> Option<u64> {
    std::fs::metadata(db.table_path(sector)).ok().map(|m| m.len())
}

/// One line of the summary table.
struct Row {
    label: String,
    states: u64,
    edges: u64,
    levels: Option<u32>,
    time: Duration,
    peak_rss: Option<u64>,
    bytes: u64,
    /// Where the time went, when the solver says (placement sectors).
    detail: String,
}

impl Row {
    fn header() -> String {
        format!(
            "{:<16} {:>13} {:>9} {:>11} {:>11} {:>6} {:>10} {:>10}",
            "pair", "states", "time", "states/s", "edges/s", "levels", "peak RSS", "disk"
        )
    }

    fn line(&self) -> String {
        let secs = self.time.as_secs_f64().max(1e-9);
        format!(
            "{:<16} {:>13} {:>9} {:>11} {:>11} {:>6} {:>10} {:>10}",
            self.label,
            self.states,
            format!("{secs:.2} s"),
            units::rate(self.states as f64 / secs),
            units::rate(self.edges as f64 / secs),
            self.levels.map_or("-".to_string(), |l| l.to_string()),
            self.peak_rss.map_or("-".to_string(), units::bytes),
            units::bytes(self.bytes),
        ) + &self.detail
    }
}

/// Where a pair's (or a placement sector's) time went: loading the
/// tables it reads, its phases, writing its tables.
fn phase_detail(report: &PairReport, placement: bool) -> String {
    let secs = |d: std::time::Duration| d.as_secs_f64();
    if placement {
        format!(
            "  (load {:.2} s, walk {:.2} s, write {:.2} s)",
            secs(report.load),
            secs(report.propagate),
            secs(report.write)
        )
    } else {
        format!(
            "  (load {:.2} s, init {:.2} s, levels {:.2} s, finish {:.2} s, write {:.2} s)",
            secs(report.load),
            secs(report.init),
            secs(report.propagate),
            secs(report.finish),
            secs(report.write)
        )
    }
}

/// The bars (the current pair's phase, and the whole run) and the pair
/// lines. States per second and edges per second are taken over a pair's
/// wall time, loading its dependencies and writing its tables included.
struct SolveProgress<'a> {
    db: &'a Database,
    bars: MultiProgress,
    phase: ProgressBar,
    overall: ProgressBar,
    /// The current pair, e.g. `pair 7/9 {6,3}`, and when it began.
    current: Mutex<(String, Instant)>,
    /// What the units of work are called: `pair` or `sector`.
    unit: &'static str,
    rows: Mutex<Vec<Row>>,
    /// The first failed write to stdout (a closed pipe, say); the solve
    /// goes on and the error is reported at the end.
    write_error: Mutex<Option<io::Error>>,
    /// Lines printed before the first pair begins, if it does.
    preamble: Mutex<Option<String>>,
}

impl<'a> SolveProgress<'a> {
    fn new(db: &'a Database, total_states: u64, unit: &'static str) -> SolveProgress<'a> {
        // Drawn on stderr when it is a terminal, hidden otherwise.
        let bars = MultiProgress::new();
        let style = |template: &str| {
            ProgressStyle::with_template(template)
                .expect("the template is valid")
                .progress_chars("=> ")
        };
        let phase = bars.add(ProgressBar::new(1));
        phase.set_style(style("{msg:<32} [{bar:30}] {percent:>3}% {elapsed:>4} (eta {eta})"));
        let overall = bars.add(ProgressBar::new(total_states.max(1)));
        overall.set_style(style("{msg:<32} [{bar:30}] {percent:>3}% {elapsed:>4} (eta {eta})"));
        overall.set_message(format!("all {unit}s (by states)"));
        phase.enable_steady_tick(Duration::from_millis(200));
        SolveProgress {
            db,
            bars,
            phase,
            overall,
            current: Mutex::new((String::new(), Instant::now())),
            unit,
            rows: Mutex::new(Vec::new()),
            write_error: Mutex::new(None),
            preamble: Mutex::new(None),
        }
    }

    /// The total line over the rows so far.
    fn total(&self, label: String, start: Instant) -> Row {
        let rows = self.rows.lock().unwrap();
        Row {
            label,
            states: rows.iter().map(|r| r.states).sum(),
            edges: rows.iter().map(|r| r.edges).sum(),
            levels: None,
            time: start.elapsed(),
            peak_rss: rows.iter().filter_map(|r| r.peak_rss).max(),
            bytes: rows.iter().map(|r| r.bytes).sum(),
            detail: String::new(),
        }
    }

    fn clear(&self) {
        self.phase.finish_and_clear();
        self.overall.finish_and_clear();
        let _ = self.bars.clear();
    }

    fn print(&self, line: &str) {
        let mut error = self.write_error.lock().unwrap();
        if error.is_none() {
            let result = self.bars.suspend(|| {
                let mut stdout = io::stdout().lock();
                writeln!(stdout, "{line}").and_then(|()| stdout.flush())
            });
            *error = result.err();
        }
    }
}

impl Drop for SolveProgress<'_> {
    fn drop(&mut self) {
        self.clear();
    }
}

impl PairProgress for SolveProgress<'_> {
    fn note(&self, line: &str) {
        self.print(line);
    }

    fn begin_pair(&self, pair: &str, number: usize, of: usize) {
        if let Some(lines) = self.preamble.lock().unwrap().take() {
            self.print(&lines);
        }
        *self.current.lock().unwrap() =
            (format!("{} {number}/{of} {pair}", self.unit), Instant::now());
        reset_peak_rss();
    }

    fn end_pair(&self, _pair: &str, report: &PairReport) {
        let (label, began) = self.current.lock().unwrap().clone();
        let row = Row {
            label,
            states: report.states,
            edges: report.edges,
            levels: (report.levels > 0).then_some(report.levels),
            time: began.elapsed(),
            peak_rss: peak_rss(),
            bytes: report.counts.iter().filter_map(|(s, _)| file_size(self.db, *s)).sum(),
            detail: phase_detail(report, self.unit == "sector"),
        };
        self.overall.inc(report.states);
        self.print(&row.line());
        self.rows.lock().unwrap().push(row);
    }

    fn phases(&self) -> &dyn Progress {
        self
    }
}

impl Progress for SolveProgress<'_> {
    fn start(&self, phase: &str, total: u64) {
        let label = &self.current.lock().unwrap().0;
        self.phase.set_message(format!("{label} {phase}"));
        // Elapsed time and ETA are the phase's own.
        self.phase.reset();
        self.phase.set_length(total.max(1));
    }

    fn advance(&self, n: u64) {
        self.phase.inc(n);
    }

    fn cancelled(&self) -> bool {
        signals::received().is_some()
    }
}

/// Starts a new peak of the resident set (Linux; elsewhere nothing).
fn reset_peak_rss() {
    // Writing 5 to clear_refs resets VmHWM and touches nothing else.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The peak resident set since the last reset, in bytes (Linux only).
/// Mapped table and working files count while their pages are resident.
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
