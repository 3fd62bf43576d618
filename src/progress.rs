//! The progress tier: how a player that knows only the outcomes (win,
//! draw, loss) still wins every won position.
//!
//! Keeping a win is not enough where play can go round in circles: the
//! moving phase's pairs, and Lasker's placement pairs, where slides keep
//! the position inside the pair. Two kinds of move leave a pair for good:
//! a capture (one stone fewer on the board) and a placement (one fewer in
//! hand). Call both *progress*. The progress tier holds, for each won or
//! lost state of a pair, its **progress distance**: the plies until the
//! pair is left, the winner hastening it and the loser delaying it, with
//! every move that leaves the pair counted by the outcome it leads to:
//!
//! - a move that leaves the pair into a state lost for the opponent (or
//!   that ends the game, as a capture down to two stones does) counts as
//!   a win in one ply;
//! - a move that leaves the pair into a state won for the opponent counts
//!   as a loss in two (the opponent, to move there, "wins in one");
//! - a move into a draw counts as a draw.
//!
//! That is the pair's own game with every exit cut short at its outcome:
//! the sector pair solver ([`crate::solve::solve_pair`]) run over the
//! exits' outcome cells (a loss at depth 0, a win at depth 1) instead of
//! their full cells. Its cells are the progress distances: odd depths are
//! wins, even depths losses, 0 a draw, exactly as in a full table, and
//! each state's outcome is its outcome in the real game (a retrograde
//! solve's outcomes depend on its exits' outcomes only, never on their
//! depths).
//!
//! **Why a player that follows it wins.** In a won state `P` (progress
//! depth `d`, odd), the player moves out of the pair into a state lost
//! for the opponent when it can (a conversion; then `d = 1`), else to a
//! state `Q` in the pair with the least progress depth among the states
//! lost for the opponent; by the solver's rule that depth is `d - 1`.
//! From `Q` (a loss at `d - 1`) every reply either leaves the pair (into a
//! state won for the player: the game moved down a sector for good) or
//! slides to a state `R` won at a depth of at most `d - 2`. So inside a
//! pair the depth falls by at least one every ply, and the pair is left
//! within `d` plies; each time it is left, a stone was captured or placed,
//! which no move undoes. The stones are finite, so the game ends, and it
//! ends in a win: every state on the way was won for the player. The
//! acyclic placement phase of the standard games needs no distance:
//! every move there is a placement. In a drawn state the player keeps to
//! drawn successors (one always exists), so it never loses one.

use crate::database::{Database, DbError, SectorTable};
use crate::huge::HugeCells;
use crate::index::Sector;
use crate::solve::{MovingPair, PairReport, Silent, SolvedSector, WorkingSector};
use crate::table::Tier;
use rayon::prelude::*;
use std::sync::atomic::AtomicU16;

/// The progress cells of one pair's sectors, in the order of
/// [`MovingPair::sectors`], and the solver's report (its counts are the
/// pair's outcomes; its depths are progress depths).
pub struct ProgressPair {
    /// Per sector of the pair: the sector and one cell per slot (0 draw,
    /// else the progress depth plus one; non-canonical slots 0).
    pub sectors: Vec<(Sector, Vec<u16>)>,
    /// What the solve took and counted.
    pub report: PairReport,
}

/// The progress cells of `pair` (a moving-phase pair, or one of Lasker's
/// placement pairs) from the outcomes of the sectors its moves leave it
/// for, read from `db` in whatever tier it holds them: full tables,
/// win/draw/loss tables or derived sectors. Runs on the current rayon
/// pool.
pub fn solve_progress_pair(db: &Database, pair: MovingPair) -> Result<ProgressPair, DbError> {
    let exits: Vec<(Sector, HugeCells)> = pair
        .dependencies()
        .into_iter()
        .map(|s| Ok((s, exit_outcomes(db, s)?)))
        .collect::<Result<_, DbError>>()?;
    let solved: Vec<SolvedSector> =
        exits.iter().map(|(s, c)| SolvedSector { sector: *s, cells: c }).collect();
    let sectors = pair.sectors();
    let mut working: Vec<Vec<AtomicU16>> = sectors
        .iter()
        .map(|&s| (0..db.indexer().sector(s).slots()).map(|_| AtomicU16::new(0)).collect())
        .collect();
    let sides: Vec<WorkingSector> = sectors
        .iter()
        .zip(&working)
        .map(|(&sector, cells)| WorkingSector { sector, cells })
        .collect();
    let report =
        crate::solve::solve_pair(db.variant(), db.indexer(), &sides, &solved, &Silent, None)?;
    drop(sides);
    let sectors = sectors
        .into_iter()
        .zip(working.iter_mut())
        .map(|(s, cells)| (s, cells.iter_mut().map(|c| *c.get_mut()).collect()))
        .collect();
    Ok(ProgressPair { sectors, report })
}

/// The cells of an exit sector as outcomes only: a loss at depth 0, a win
/// at depth 1, a draw.
fn exit_outcomes(db: &Database, sector: Sector) -> Result<HugeCells, DbError> {
    match db.tier(sector)? {
        SectorTable::Full(_) => {
            let mut cells = db.load_cells_huge(sector)?;
            cells.par_iter_mut().for_each(|c| *c = Tier::Wdl.stored_as(u32::from(*c)) as u16);
            Ok(cells)
        }
        SectorTable::Wdl(_) | SectorTable::Derived(_) => db.load_outcome_cells_huge(sector),
    }
}
