//! A progress bar on stderr that appears only when stderr is a terminal
//! and the work has already taken a while, so short runs and pipes stay
//! quiet.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
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
