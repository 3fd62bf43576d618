//! `morris match --app DIR --from FILE`: the app set's player measured.
//! From every position of FILE, each won for the side to move by the
//! full tables of `--db`, the player that opens only DIR (outcomes and
//! the progress tier under the repetition rule, `Game::choose_move`) plays the side to move
//! against `--opponent` (by default the perfect defender: the full
//! tier's slowest loss), under the repetition rule, until the game ends
//! or reaches the ply cap. Every game not won counts as a failure: a
//! repetition draw, the ply cap, a loss. The plies each win took are
//! set against the start's distance to the end under perfect play.

use crate::common::describe;
use crate::progress::Progress;
use anyhow::{anyhow, Result};
use morris::arena::Player;
use morris::database::Database;
use morris::game::{Game, Repetition};
use morris::position::{Color, Move, Position};
use morris::query::{after, Query};
use morris::rng::Rng;
use morris::rules::{status, Status};
use morris::tiebreak::Values;
use morris::value::Value;
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;

/// Said of a failed start that no line keeps the win under the rule.
const DRAWN_BY_RULE: &str = "; drawn under the rule: against every line that keeps the win, the defender forces a repetition within 5 of the winner's moves";

/// Decompressed blocks each of the app set's tables keeps: the player's
/// look-ahead reads around its position in many tables at once, and with
/// 64 instead of 8 nine's games ran 1.6 times as fast (up to 4 MiB an
/// outcome table, 32 MiB a progress table).
const APP_KEPT_BLOCKS: usize = 64;

/// What is played: the starts, the opponent, the rules of a game.
pub struct Playouts<'a> {
    pub app: &'a Path,
    pub from: &'a Path,
    pub starts: &'a [Position],
    pub opponent: Player,
    pub max_plies: usize,
    pub repetition: Repetition,
    pub seed: u64,
    /// Where to write the failed starts, if anywhere.
    pub failures: Option<&'a Path>,
}

/// How many of its own moves ahead a failed start is searched for a line
/// that keeps the win against every repetition ([`Game::keeps_win`]):
/// twice as deep as the player looks ([`DRAWN_BY_RULE`] says 5 moves).
const PROOF_DEPTH: u32 = 4;

/// One game: the start's distance to the end with perfect play, the
/// plies played and how it ended (`None`: the app player won); for a
/// repetition, whether the search proved the start drawn under the rule.
struct Played {
    start: usize,
    optimal: u16,
    plies: usize,
    failure: Option<&'static str>,
    drawn_by_rule: bool,
    /// The moves played (kept for failures only).
    line: Vec<Move>,
}

/// Plays every start of `p` (in parallel on `pool`) and prints
/// the counts; an error where a start is not won, or a table cannot be
/// read. `values` reads the full tables of `db` for the opponent.
pub fn run<V>(
    db: &Database,
    values: &V,
    p: &Playouts,
    pool: &rayon::ThreadPool,
    out: &mut impl Write,
) -> Result<()>
where
    V: Values + Sync,
    V::Error: std::error::Error + Send + Sync + 'static,
{
    let variant = db.variant();
    let app = Database::new(p.app, variant.clone()).with_kept_blocks(APP_KEPT_BLOCKS);
    if app.app_manifest()?.is_none() {
        anyhow::bail!(
            "--app {}: not an app set (no {})",
            p.app.display(),
            app.manifest_path().display()
        );
    }
    writeln!(
        out,
        "{}: the app set {} against {} from {} won positions of {}, repetition {}, a game not over after {} plies a failure",
        describe(variant),
        p.app.display(),
        p.opponent,
        p.starts.len(),
        p.from.display(),
        p.repetition,
        p.max_plies
    )?;
    // Nine's 100,000 games take a while: a bar on a terminal.
    let progress = Progress::new(p.starts.len() as u64, "games");
    let played: Vec<Played> = pool.install(|| {
        p.starts
            .par_iter()
            .enumerate()
            .map_init(
                || Query::new(&app),
                |query, (i, start)| {
                    let game = play_one(values, query, p, i, start);
                    progress.inc();
                    game
                },
            )
            .collect::<Result<_>>()
    })?;
    progress.finish();
    let games = played.len() as u64;
    let failed: Vec<&Played> = played.iter().filter(|g| g.failure.is_some()).collect();
    let count = |what: &str| failed.iter().filter(|g| g.failure == Some(what)).count();
    writeln!(
        out,
        "won {} of {games} ({:.4} %); failures {} (repetition {}, {} of them proved drawn under the rule; ply cap {}, lost {})",
        games - failed.len() as u64,
        100.0 * (games - failed.len() as u64) as f64 / games as f64,
        failed.len(),
        count("repetition"),
        failed.iter().filter(|g| g.drawn_by_rule).count(),
        count("ply cap"),
        count("lost")
    )?;
    if let Some(path) = p.failures {
        let lines: String = failed.iter().map(|g| failure_line(variant, p, g) + "\n").collect();
        std::fs::write(path, lines)
            .map_err(|e| anyhow!("--failures {}: cannot write: {e}", path.display()))?;
    }
    for g in failed.iter().take(10) {
        writeln!(
            out,
            "  failed: position {} ({}), {} after {} plies (perfect play wins in {}){}; played: {}",
            g.start + 1,
            p.starts[g.start].notation(variant),
            g.failure.unwrap_or_default(),
            g.plies,
            g.optimal,
            if g.drawn_by_rule { DRAWN_BY_RULE } else { "" },
            moves_played(variant, g)
        )?;
    }
    let won: Vec<&Played> = played.iter().filter(|g| g.failure.is_none()).collect();
    if !won.is_empty() {
        let n = won.len() as f64;
        let plies: f64 = won.iter().map(|g| g.plies as f64).sum::<f64>() / n;
        let optimal: f64 = won.iter().map(|g| f64::from(g.optimal)).sum::<f64>() / n;
        let worst = won.iter().map(|g| g.plies as i64 - i64::from(g.optimal)).max().unwrap_or(0);
        let ratio = won.iter().map(|g| g.plies as f64 / f64::from(g.optimal)).fold(0.0, f64::max);
        writeln!(
            out,
            "plies to win: mean {plies:.2} against {optimal:.2} with perfect play (mean excess {:.2}); worst excess {worst} plies, worst ratio {ratio:.2}",
            plies - optimal
        )?;
    }
    Ok(())
}

/// A failed start as a line of a `--from` file: the position, then after
/// a '#' the start's number, how the game failed and its moves.
fn failure_line(variant: &morris::Variant, p: &Playouts, g: &Played) -> String {
    format!(
        "{}  # position {}: {} after {} plies (perfect play wins in {}){}; played: {}",
        p.starts[g.start].notation(variant),
        g.start + 1,
        g.failure.unwrap_or_default(),
        g.plies,
        g.optimal,
        if g.drawn_by_rule { "; drawn under the rule" } else { "" },
        moves_played(variant, g)
    )
}

/// A failed game's moves in notation, a space between two.
fn moves_played(variant: &morris::Variant, g: &Played) -> String {
    g.line.iter().map(|m| m.notation(variant)).collect::<Vec<_>>().join(" ")
}

/// The game from start `i`: the app player moves first.
fn play_one<V>(
    values: &V,
    query: &mut Query,
    p: &Playouts,
    i: usize,
    start: &Position,
) -> Result<Played>
where
    V: Values + Sync,
    V::Error: std::error::Error + Send + Sync + 'static,
{
    let variant = query.variant().clone();
    let optimal = match values.value(&start.state())? {
        Value::Win(d) => d,
        other => anyhow::bail!(
            "{} position {}: {} is not won for the side to move ({other:?} by the full tables)",
            p.from.display(),
            i + 1,
            start.notation(&variant)
        ),
    };
    let app_side: Color = start.to_move;
    let mut rng = Rng::for_game(p.seed, i as u64);
    let mut game = Game::new(*start, p.repetition);
    let mut plies = 0;
    let mut line = Vec::new();
    loop {
        let position = *game.position();
        let end = match status(&variant, &position.state()) {
            Status::Lost if position.to_move != app_side => Some(None),
            Status::Lost => Some(Some("lost")),
            Status::Drawn => Some(Some("full board")),
            Status::Playing if game.repeated().is_some() => Some(Some("repetition")),
            Status::Playing if plies >= p.max_plies => Some(Some("ply cap")),
            Status::Playing => None,
        };
        if let Some(failure) = end {
            let drawn_by_rule = failure == Some("repetition")
                && !Game::new(*start, p.repetition).keeps_win(query, PROOF_DEPTH)?;
            let line = if failure.is_some() { line } else { Vec::new() };
            return Ok(Played { start: i, optimal, plies, failure, drawn_by_rule, line });
        }
        let mv = if position.to_move == app_side {
            game.choose_move(query)?.ok_or_else(|| anyhow!("no move in a game not over"))?.mv
        } else {
            p.opponent.choose(&variant, values, &game, &mut rng)?
        };
        line.push(mv);
        game.push(after(&position, mv));
        plies += 1;
    }
}
