//! A progress bar on stderr that appears only when stderr is a terminal
//! and the work has already taken a while, so short runs and pipes stay
//! quiet.

use crate::signals;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use morris::database::{Database, DbError};
use morris::index::Sector;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long work runs before its bar appears.
const REVEAL_AFTER: Duration = Duration::from_millis(500);

/// Counts finished items of a known total; usable from many threads.
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    /// Whether the bar may ever be drawn (stderr is a terminal).
    drawable: bool,
    shown: AtomicBool,
}

impl Progress {
    /// A hidden bar for `len` items, labelled `what`.
    pub fn new(len: u64, what: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
        let style =
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed} (eta {eta})")
                .expect("the template is valid")
                .progress_chars("=> ");
        bar.set_style(style);
        bar.set_message(what.to_string());
        Progress {
            bar,
            start: Instant::now(),
            drawable: std::io::stderr().is_terminal(),
            shown: AtomicBool::new(false),
        }
    }

    /// One more item done.
    pub fn inc(&self) {
        self.bar.inc(1);
        if self.drawable
            && self.start.elapsed() >= REVEAL_AFTER
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(200));
        }
    }

    /// Removes the bar; the command prints its own summary.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The bar of a command that goes sector by sector, weighted by
/// `states`: drawn on stderr when it is a terminal, hidden otherwise
/// (`verify`, `export`).
pub fn sector_bar(states: u64) -> ProgressBar {
    let bar = ProgressBar::new(states.max(1));
    bar.set_style(
        ProgressStyle::with_template("{msg:<20} [{bar:30}] {percent:>3}% {elapsed:>4} (eta {eta})")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// What a pass over tables ([`table_by_table`]) calls what it did with
/// one: `["exporting", "written", "already there"]`.
pub type Words = [&'static str; 3];

/// What a pass over tables did: each table's result, in order.
pub struct Pass<T> {
    pub done: Vec<T>,
    /// How many were written (the others were kept).
    pub written: usize,
    /// Canonical states of the tables.
    pub states: u64,
    pub elapsed: Duration,
    words: Words,
}

impl<T> Pass<T> {
    /// `N tables (W written, K already there) in S s: N states`, the
    /// start of the pass's last line.
    pub fn summary(&self) -> String {
        format!(
            "{} tables ({}) in {:.2} s: {} states",
            self.done.len(),
            written_kept(self.written, self.done.len(), self.words),
            self.elapsed.as_secs_f64(),
            self.states
        )
    }

    /// Writes the pass's last lines: a rule, then the summary followed by
    /// `tail`.
    pub fn finish(&self, out: &mut impl Write, tail: std::fmt::Arguments) -> std::io::Result<()> {
        writeln!(out, "{}", "-".repeat(70))?;
        writeln!(out, "{}, {tail}", self.summary())
    }
}

/// A table's line in a pass: its sector and states, the `columns`
/// (right-aligned in `widths`), the time it took and `note`.
pub fn table_line(
    sector: Sector,
    states: u64,
    columns: &[(String, usize)],
    took: Duration,
    note: &str,
) -> String {
    let mut line = format!("{:<10} {states:>13}", sector.to_string());
    for (text, width) in columns {
        line += &format!(" {text:>width$}");
    }
    line + &format!(" {:>10}  {note}", format!("{:.2} s", took.as_secs_f64()))
}

fn written_kept(written: usize, done: usize, [_, did, kept]: Words) -> String {
    format!("{written} {did}, {} {kept}", done - written)
}

/// A pass over the tables of `sectors`, one at a time in that order, with
/// the sector bar: `each` does one table, given whether to stop
/// (a SIGINT or SIGTERM arrived; the handlers must be installed),
/// `written` says whether it wrote it, and `line` gives the line printed
/// for it, with the time it took. A signal stops the pass before the next
/// table, or inside one where `each` stops; the error then says how many
/// were done (`export`, `compact`).
pub fn table_by_table<T>(
    db: &Database,
    sectors: &[Sector],
    words: Words,
    out: &mut impl Write,
    mut each: impl FnMut(Sector, &(dyn Fn() -> bool + Sync)) -> Result<T, DbError>,
    written: impl Fn(&T) -> bool,
    mut line: impl FnMut(Sector, &T, Duration) -> String,
) -> anyhow::Result<Pass<T>> {
    let states = |s| db.indexer().sector(s).canonical_states();
    let total = sectors.iter().map(|&s| states(s)).sum();
    let bar = sector_bar(total);
    let cancelled = || signals::received().is_some();
    let start = Instant::now();
    let (mut done, mut wrote) = (Vec::with_capacity(sectors.len()), 0);
    for &sector in sectors {
        bar.set_message(format!("{} {sector}", words[0]));
        let t = Instant::now();
        let result = if cancelled() {
            Err(DbError::Interrupted(format!("before {sector}")))
        } else {
            each(sector, &cancelled)
        };
        let result = match result {
            Ok(result) => result,
            Err(err) => {
                bar.finish_and_clear();
                let finished = format!(
                    "of {} tables, {}",
                    sectors.len(),
                    written_kept(wrote, done.len(), words)
                );
                return Err(signals::interrupted(err, finished));
            }
        };
        let text = line(sector, &result, t.elapsed());
        bar.suspend(|| writeln!(out, "{text}").and_then(|()| out.flush()))?;
        bar.inc(states(sector));
        wrote += usize::from(written(&result));
        done.push(result);
    }
    bar.finish_and_clear();
    Ok(Pass { done, written: wrote, states: total, elapsed: start.elapsed(), words })
}
