//! SIGINT and SIGTERM during a solve or an export. The first asks the
//! solver (or the export) to stop at its next safe point (the solver polls
//! [`received`] through `Progress::cancelled`, the export before each
//! block); a second one exits at once with the same code,
//! which loses nothing finished: tables and checkpoints only ever appear
//! complete, by rename.
//!
//! signal-hook does the async-signal-safe part (a handler that only
//! stores into atomics, and the exit-on-second-signal pattern) in a small,
//! widely used crate, so no `unsafe` sigaction code lives here.

use morris::database::DbError;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The signal received first, 0 before any.
static RECEIVED: OnceLock<Arc<AtomicUsize>> = OnceLock::new();

/// Installs the handlers (once).
pub fn install() -> io::Result<()> {
    if RECEIVED.get().is_some() {
        return Ok(());
    }
    let stop = Arc::new(AtomicBool::new(false));
    let which = Arc::new(AtomicUsize::new(0));
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as an earlier signal left
        // it: the second signal exits, the first only sets the flag.
        flag::register_conditional_shutdown(signal, exit_code(signal) as i32, stop.clone())?;
        flag::register_usize(signal, which.clone(), signal as usize)?;
        flag::register(signal, stop.clone())?;
    }
    let _ = RECEIVED.set(which);
    Ok(())
}

/// The signal that asked to stop, if one did.
pub fn received() -> Option<i32> {
    let signal = RECEIVED.get()?.load(Ordering::Relaxed);
    (signal != 0).then_some(signal as i32)
}

/// The shell's convention: 128 plus the signal number (130, 143).
pub fn exit_code(signal: i32) -> u8 {
    (128 + signal) as u8
}

/// `SIGINT`, `SIGTERM`.
pub fn name(signal: i32) -> &'static str {
    match signal {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// A solve or an export stopped by a signal at a safe point: what is
/// finished and how to go on. `main` prints it and exits with `exit_code`.
#[derive(Debug)]
pub struct Interrupted {
    pub exit_code: u8,
    pub message: String,
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Interrupted {}

/// `err` as an [`Interrupted`] when a signal stopped the run, saying
/// `finished`; any other error as it is.
pub fn interrupted(err: DbError, finished: String) -> anyhow::Error {
    match (err, received()) {
        (DbError::Interrupted(stopped), Some(signal)) => Interrupted {
            exit_code: exit_code(signal),
            message: format!(
                "interrupted by {}: {stopped}; finished: {finished}; run the same command again to resume",
                name(signal)
            ),
        }
        .into(),
        (err, _) => err.into(),
    }
}
