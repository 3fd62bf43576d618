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
use crate::forward::{derive_cells, MovingCheck, SectorCheck};
use crate::huge::HugeCells;
use crate::index::{Sector, INDEX_VERSION};
use crate::solve::{MovingPair, PairReport, Silent, SolvedSector, WorkingSector};
use crate::stats::Counts;
use crate::table::{write_progress, TableInfo, Tier};
use rayon::prelude::*;
use std::collections::HashMap;
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

/// The counts of `sector`'s outcomes as the tier that holds its values
/// says (its header, or its stub's).
fn outcome_counts(db: &Database, sector: Sector) -> Result<Counts, DbError> {
    Ok(match db.tier(sector)? {
        SectorTable::Full(t) => t.info().counts.clone(),
        SectorTable::Wdl(t) => t.info().counts.clone(),
        SectorTable::Derived(t) => t.info().counts.clone(),
    })
}

/// Whether two counts have the same states, wins, losses and draws (the
/// depths aside: a progress table's are progress depths).
fn same_outcomes(a: &Counts, b: &Counts) -> bool {
    (a.states, a.wins, a.losses, a.draws) == (b.states, b.wins, b.losses, b.draws)
}

/// What [`export_progress_pair`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgressExported {
    /// The bytes of each sector's progress table.
    pub bytes: Vec<(Sector, u64)>,
    /// Whether they were written now (else they were there and checked
    /// out: every block reads, and their counts are the sectors'
    /// outcomes).
    pub written: bool,
}

/// Writes the progress tables of `pair`'s sectors into the directory of
/// `out` (an app set being made, of the same variant), computed from the
/// outcomes of `source`, unless tables there already open, read whole and
/// count the sectors' outcomes of `source`. Runs on the current rayon
/// pool; the files appear whole, by rename.
pub fn export_progress_pair(
    source: &Database,
    pair: MovingPair,
    out: &Database,
) -> Result<ProgressExported, DbError> {
    if let Some(bytes) = kept_progress(source, pair, out) {
        return Ok(ProgressExported { bytes, written: false });
    }
    let progress = solve_progress_pair(source, pair)?;
    let counts: HashMap<Sector, Counts> = progress.report.counts.iter().cloned().collect();
    let mut bytes = Vec::new();
    for (sector, cells) in &progress.sectors {
        let info = TableInfo {
            rules: source.variant().rules_key(),
            sector: sector.to_string(),
            index_version: INDEX_VERSION,
            slots: cells.len() as u64,
            counts: counts[sector].clone(),
        };
        let path = out.progress_path(*sector);
        write_progress(&path, &info, cells)?;
        out.forget_progress(*sector);
        bytes.push((*sector, out.progress_table(*sector)?.bytes_on_disk()));
    }
    Ok(ProgressExported { bytes, written: true })
}

/// The sizes of `pair`'s progress tables in `out` where every one of them
/// opens, reads whole and counts its sector's outcomes of `source`.
fn kept_progress(
    source: &Database,
    pair: MovingPair,
    out: &Database,
) -> Option<Vec<(Sector, u64)>> {
    pair.sectors()
        .into_iter()
        .map(|s| {
            let table = out.progress_table(s).ok()?;
            table.verify().ok()?;
            let counts = outcome_counts(source, s).ok()?;
            same_outcomes(&table.info().counts, &counts).then(|| (s, table.bytes_on_disk()))
        })
        .collect()
}

/// The forward check of the progress tables of `pair` in the app set
/// `app`, against its outcome tier: each sector's won states take their
/// depths from its progress table, its lost states theirs by one ply of
/// search over those (the deepest reply, plus one: what a reader does),
/// its draws none; then every state's progress cell is recomputed from
/// its successors' (the pair's own, and the outcomes of the sectors its
/// moves leave it for, a loss at depth 0 and a win at 1) by the forward
/// check's walks, which share no code with the solver that made the
/// tables. A table whose header does not count the sector's outcomes is
/// reported as such ([`SectorCheck::counts_agree`]).
pub fn check_progress_pair(app: &Database, pair: MovingPair) -> Result<Vec<SectorCheck>, DbError> {
    let (v, ix) = (app.variant(), app.indexer());
    let exits: HashMap<Sector, HugeCells> = pair
        .dependencies()
        .into_iter()
        .map(|s| Ok((s, exit_outcomes(app, s)?)))
        .collect::<Result<_, DbError>>()?;
    let sectors = pair.sectors();
    // The pair's cells as stored: won depths from the progress tables,
    // losses at 0 and draws from the outcome tier.
    let mut own: HashMap<Sector, HugeCells> = HashMap::new();
    let mut counts_agree = HashMap::new();
    for &s in &sectors {
        let mut cells = exit_outcomes(app, s)?;
        let table = app.progress_table(s)?;
        let stored = table.read_all()?;
        cells.par_iter_mut().zip(stored.par_iter()).for_each(|(c, &p)| {
            if *c == 2 {
                *c = 2 * p + 2;
            }
        });
        counts_agree.insert(s, same_outcomes(&table.info().counts, &outcome_counts(app, s)?));
        own.insert(s, cells);
    }
    // The lost states' depths, by one ply over the won ones. A state the
    // outcome tier calls lost whose successors say otherwise keeps its
    // loss at 0, which the check then finds wrong.
    let mut lost_depths: HashMap<Sector, HugeCells> = HashMap::new();
    for &s in &sectors {
        let cells = |t: Sector| -> &[u16] { own.get(&t).or_else(|| exits.get(&t)).expect("cells") };
        let mut derived = HugeCells::zeroed(own[&s].len())
            .map_err(crate::database::io_error(app.dir(), "allocate memory for the cells"))?;
        derive_cells(v, ix, s, cells, &mut derived, Tier::Full);
        lost_depths.insert(s, derived);
    }
    for (s, derived) in lost_depths {
        let cells = own.get_mut(&s).expect("own cells");
        cells.par_iter_mut().zip(derived.par_iter()).for_each(|(c, &d)| {
            if *c == 1 && d % 2 == 1 {
                *c = d;
            }
        });
    }
    let cells = |t: Sector| -> &[u16] { own.get(&t).or_else(|| exits.get(&t)).expect("cells") };
    Ok(sectors
        .iter()
        .map(|&s| {
            let (mut check, _) = MovingCheck::of(v, ix, s, cells).check_all(&own[&s]);
            check.counts_agree = counts_agree[&s];
            check
        })
        .collect())
}
