//! Placement sectors: stones in hand only decrease, so every state's
//! value follows from its successors', which lie in sectors with one
//! stone fewer in hand (or in the moving phase) and are solved before.
//!
//! The successors are generated here by direct bit operations on the
//! mover's placements, apart from the rules module's generic generator
//! that the forward check (`verify`) uses.

use super::{add_counts, tally, Progress, SolveError};
use crate::index::{Indexer, Sector};
use crate::table::Counts;
use crate::value::{Cell, Value};
use crate::variant::{points, Bits, Variant};
use rayon::prelude::*;

/// Slots handled by one rayon task.
const CHUNK: u64 = 1 << 14;

/// A solved sector that placements lead to.
pub struct Successor<'a> {
    pub sector: Sector,
    pub cells: &'a [u16],
}

/// The sectors a placement from `sector` leads to: without and with a
/// capture (the second only when the mover can close a mill, and the
/// opponent has a stone to lose and keeps at least 3).
pub fn successor_sectors(sector: Sector) -> Vec<Sector> {
    assert!(sector.mover_hand > 0, "{sector} is not a placement sector of the mover");
    let next = |opponent: u8| Sector {
        mover: opponent,
        opponent: sector.mover + 1,
        mover_hand: sector.opponent_hand,
        opponent_hand: sector.mover_hand - 1,
    };
    let mut out = vec![next(sector.opponent)];
    if sector.mover + 1 >= 3 && sector.opponent > 0 && sector.opponent - 1 + sector.opponent_hand >= 3 {
        out.push(next(sector.opponent - 1));
    }
    out
}

/// Computes every cell of the placement `sector` into `cells` (one per
/// slot; non-canonical slots get 0) and returns its counts. Variants where
/// a player may move while placing (Lasker) have cycles here and are not
/// handled by this solver.
pub fn solve_sector(
    v: &Variant,
    ix: &Indexer,
    sector: Sector,
    successors: &[Successor],
    cells: &mut [u16],
    progress: &dyn Progress,
) -> Result<Counts, SolveError> {
    if v.move_while_placing() {
        return Err(SolveError::Cyclic(sector.to_string()));
    }
    let index = ix.sector(sector);
    if cells.len() as u64 != index.slots() {
        return Err(SolveError::BadPair(sector.to_string()));
    }
    let lookup = |s: Sector| successors.iter().find(|t| t.sector == s).map(|t| (ix.sector(s), t.cells));
    let quiet = lookup(successor_sectors(sector)[0]).ok_or_else(|| SolveError::BadPair(sector.to_string()))?;
    let capture = successor_sectors(sector).get(1).and_then(|&s| lookup(s));
    let opponent_survives_capture = sector.opponent + sector.opponent_hand > 3;
    progress.start("placement", index.slots());
    let counts = cells
        .par_chunks_mut(CHUNK as usize)
        .enumerate()
        .map(|(c, chunk)| {
            let mut counts = Counts::default();
            // The caller throws the cells away when it cancels.
            if progress.cancelled() {
                return counts;
            }
            let start = c as u64 * CHUNK;
            chunk.fill(0);
            index.for_each_in(start..start + chunk.len() as u64, |slot, mover, opponent| {
                let value = best_placement(v, mover, opponent, &quiet, capture.as_ref(), opponent_survives_capture);
                chunk[(slot - start) as usize] = Cell::from(value).0;
                tally(&mut counts, value);
            });
            progress.advance(chunk.len() as u64);
            counts
        })
        .reduce(Counts::default, add_counts);
    if progress.cancelled() {
        return Err(SolveError::Interrupted(sector.to_string()));
    }
    Ok(counts)
}

type Table<'a> = (crate::index::SectorIndex<'a>, &'a [u16]);

/// The best value over every placement of the mover. The successors'
/// cells are first located (with a prefetch each) and then read, so the
/// scattered reads overlap.
#[inline]
fn best_placement(
    v: &Variant,
    mover: Bits,
    opponent: Bits,
    quiet: &Table,
    capture: Option<&Table>,
    opponent_survives_capture: bool,
) -> Value {
    let board = v.board();
    let empty = board.all() & !(mover | opponent);
    let removable = board.removable(opponent);
    // At most 24 placements, each removing one of at most 12 stones:
    // (whether by capture, slot).
    let mut found = [(false, 0u64); 24 * 12];
    let mut n = 0;
    let mut locate = |by_capture: bool, mover: Bits, opponent: Bits| {
        let table = if by_capture { capture.expect("a capture sector when the opponent survives a capture") } else { quiet };
        let slot = table.0.rank(mover, opponent);
        prefetch(&table.1[slot as usize]);
        found[n] = (by_capture, slot);
        n += 1;
    };
    for to in points(empty) {
        let own = mover | 1 << to;
        if !board.closes_mill(own, to) || opponent == 0 {
            locate(false, opponent, own);
            continue;
        }
        if !opponent_survives_capture {
            return Value::Win(1);
        }
        for r in points(removable) {
            locate(true, opponent ^ (1 << r), own);
        }
    }
    let cell = |(by_capture, slot): (bool, u64)| {
        let table = if by_capture { capture.expect("located above") } else { quiet };
        table.1[slot as usize]
    };
    found[..n]
        .iter()
        .map(|&f| Value::from(Cell(cell(f))).back())
        .max_by_key(|v| v.preference())
        // A placement always has an empty point: the board cannot be full
        // while stones remain in hand.
        .unwrap_or(Value::Loss(0))
}

/// Hints the CPU to fetch the cache line of `cell`.
#[inline(always)]
fn prefetch(cell: &u16) {
    #[cfg(target_arch = "x86_64")]
    // Safety: a prefetch is only a hint; any address is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch(cell as *const u16 as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
}

