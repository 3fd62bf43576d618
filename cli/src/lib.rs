//! The `morris` command as a library: its commands, the server, and the
//! one entry point, [`main`], that the binary (`src/main.rs`) calls. The
//! modules are private; besides `main`, only [`fuzzing`] (doc-hidden: the
//! bodies of the fuzz targets of the server) is public, for the fuzz
//! crate (`fuzz/`) and `cli/tests/fuzz_corpus.rs`. Not a library to build on:
//! the command's documentation is docs/cli.md.
//!
//! Only this crate knows about clap, indicatif and the terminal. Every
//! command gets the variant (with the global options applied) and a
//! buffered stdout; errors come back as `anyhow` chains and are printed on
//! one line.

mod common;
mod compact;
mod export;
mod json;
mod match_;
mod plan;
mod play;
mod playouts;
mod probe;
mod progress;
mod query;
mod sectors;
mod serve;
mod show;
mod signals;
mod solve;
mod stats;
mod units;
mod verify;

#[doc(hidden)]
pub mod fuzzing;

use anyhow::Result;
use clap::{Parser, Subcommand};
use common::{one_line, Global};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

/// Retrograde-analysis solver and endgame databases for Nine Men's Morris
/// and its relatives.
#[derive(Parser)]
#[command(name = "morris", version)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Sectors with their index slots and canonical state counts.
    Sectors(sectors::Args),
    /// A position: diagram, sector, canonical form, index, status and legal moves.
    Show(show::Args),
    /// Solve the sectors missing from the database, bottom-up, or one job of the plan.
    Solve(solve::Args),
    /// The solve as independent jobs, with what each depends on and needs, for a cluster.
    Plan(plan::Args),
    /// Per sector in the database: states, wins, losses, draws, longest win and loss.
    Stats(stats::Args),
    /// Write the database's win/draw/loss tier (2 bits a state before compression) into a directory.
    Export(export::Args),
    /// Rewrite every table in place in larger blocks at a higher zstd level, each checked before it replaces the old one.
    Compact(compact::Args),
    /// Check every table: checksums, then every value recomputed from its successors.
    Verify(verify::Args),
    /// The value of a position, every legal move with its value, and a perfect-play line.
    Query(query::Args),
    /// Values of many positions, one per line of input, as JSON lines or TSV.
    Probe(probe::Args),
    /// A game against the perfect player in the terminal.
    Play(play::Args),
    /// A board page and a JSON API over the database, on localhost.
    Serve(serve::Args),
    /// Games between two players (perfect with a tie-break, fallible, alpha-beta), counted with 95 % intervals.
    Match(match_::Args),
}

/// The command: parses the arguments, runs what they ask and says how it
/// ended. The binary's `main` is this.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`morris sectors | head`): nothing to report.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        // Stopped by a signal at a safe point: not an error, but not done.
        Err(err) if err.downcast_ref::<signals::Interrupted>().is_some() => {
            let stopped = err.downcast_ref::<signals::Interrupted>().expect("checked above");
            let _ = writeln!(io::stderr(), "morris: {stopped}");
            ExitCode::from(stopped.exit_code)
        }
        Err(err) => {
            // If stderr is gone too there is no one left to tell.
            let _ = writeln!(io::stderr(), "morris: error: {}", one_line(&err));
            ExitCode::from(1)
        }
    }
}

fn run(cli: &Cli) -> Result<()> {
    let global = &cli.global;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match &cli.command {
        Command::Sectors(args) => sectors::run(&global.variant()?, args, &mut out)?,
        Command::Show(args) => show::run(&global.variant()?, args, &mut out)?,
        Command::Solve(args) => solve::run(global.database()?, args, &mut out)?,
        Command::Plan(args) => plan::run(&global.database()?, args, &mut out)?,
        Command::Stats(args) => stats::run(&global.database()?, args, &mut out)?,
        Command::Export(args) => export::run(&global.database()?, args, &mut out)?,
        Command::Compact(args) => compact::run(&global.database()?, args, &mut out)?,
        Command::Verify(args) => verify::run(&global.database()?, args, &mut out)?,
        Command::Query(args) => query::run(&global.database()?, args, &mut out)?,
        Command::Probe(args) => probe::run(&global.database()?, args, &mut out)?,
        Command::Play(args) => {
            let echo = !io::stdin().is_terminal();
            play::run(&global.database()?, args, &mut io::stdin().lock(), echo, &mut out)?
        }
        Command::Match(args) => match_::run(&global.database()?, args, &mut out)?,
        Command::Serve(args) => {
            // Serves every variant, but a bad `--variant` is still an error.
            global.variant()?;
            serve::run(&global.db, global.rules(), args, &mut out)?
        }
    }
    out.flush()?;
    Ok(())
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|cause| cause.downcast_ref::<io::Error>())
        .any(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

#[cfg(test)]
mod tests {
    use super::*;
    use morris::variant::VARIANT_NAMES;

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn variant_help_names_every_variant() {
        use clap::CommandFactory;
        let help = Cli::command().render_long_help().to_string();
        for name in VARIANT_NAMES {
            assert!(help.contains(name), "{name} missing from --help");
        }
    }
}
