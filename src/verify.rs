//! The independent forward check: every stored value is recomputed from
//! the stored values of its successors and the end-of-game rules. It
//! shares the move generator with the solver and nothing of its
//! propagation.

use crate::database::{Database, DbError};
use crate::index::Sector;
use crate::position::State;
use crate::rules::{for_each_move, play};
use crate::solve::{add_counts, tally};
use crate::table::Counts;
use crate::value::{Cell, Value};
use crate::variant::Variant;
use rayon::prelude::*;
use std::collections::HashMap;

/// The value of `state` from the values of its successors (`lookup`
/// gives the value of any state that is not over).
pub fn value_from_successors(v: &Variant, state: &State, lookup: &impl Fn(&State) -> Value) -> Value {
    if state.mover_stones() < 3 {
        return Value::Loss(0);
    }
    let mut best: Option<Value> = None;
    for_each_move(v, state, |m| {
        let next = play(state, m);
        let after = if next.mover_stones() < 3 { Value::Loss(0) } else { lookup(&next) };
        let mine = after.back();
        if best.is_none_or(|b| mine.preference() > b.preference()) {
            best = Some(mine);
        }
    });
    best.unwrap_or_else(|| {
        let full = state.mover | state.opponent == v.board().all();
        if full && v.full_board_draw() && state.is_moving_phase() {
            Value::Draw
        } else {
            Value::Loss(0)
        }
    })
}

/// What checking one sector found.
#[derive(Debug, Default, Clone)]
pub struct SectorCheck {
    pub sector: Sector,
    pub states: u64,
    pub mismatches: u64,
    /// A few mismatching states: (slot, stored, recomputed).
    pub examples: Vec<(u64, Value, Value)>,
    /// Whether the counts in the header agree with the cells.
    pub counts_agree: bool,
}

/// The sectors whose tables the forward check of `sector` reads: its own
/// and those its moves lead to (a capture that ends the game needs none).
fn sectors_to_read(sector: Sector) -> Vec<Sector> {
    let mut needed = vec![sector];
    if sector.is_moving() {
        needed.push(Sector::moving(sector.opponent, sector.mover));
        if sector.opponent > 3 {
            needed.push(Sector::moving(sector.opponent - 1, sector.mover));
        }
    } else {
        needed.extend(crate::solve::placement::successor_sectors(sector));
    }
    needed
}

/// Recomputes every canonical state of `sector` from its successors'
/// stored values.
pub fn check_sector(db: &Database, sector: Sector) -> Result<SectorCheck, DbError> {
    let v = db.variant();
    let ix = db.indexer();
    let table = db.table(sector)?;
    table.verify()?;
    let needed = sectors_to_read(sector);
    let mut cells: HashMap<Sector, Vec<u16>> = HashMap::new();
    for s in needed {
        if let std::collections::hash_map::Entry::Vacant(e) = cells.entry(s) {
            e.insert(db.load_cells(s)?);
        }
    }
    let lookup = |s: &State| {
        let sec = Sector::of(s);
        let table = cells.get(&sec).unwrap_or_else(|| panic!("successor in unexpected sector {sec}"));
        Value::from(Cell(table[ix.sector(sec).rank(s.mover, s.opponent) as usize]))
    };
    let index = ix.sector(sector);
    let own = &cells[&sector];
    const CHUNK: u64 = 1 << 14;
    let found = (0..index.slots().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut check = SectorCheck { sector, ..Default::default() };
            let mut counts = Counts::default();
            let range = c * CHUNK..((c + 1) * CHUNK).min(index.slots());
            index.for_each_in(range, |slot, mover, opponent| {
                let state = State { mover, opponent, mover_hand: sector.mover_hand, opponent_hand: sector.opponent_hand };
                let stored = Value::from(Cell(own[slot as usize]));
                let expected = value_from_successors(v, &state, &lookup);
                tally(&mut counts, stored);
                check.states += 1;
                if stored != expected {
                    check.mismatches += 1;
                    if check.examples.len() < 5 {
                        check.examples.push((slot, stored, expected));
                    }
                }
            });
            (check, counts)
        })
        .reduce(
            || (SectorCheck { sector, ..Default::default() }, Counts::default()),
            |(mut a, ca), (b, cb)| {
                a.states += b.states;
                a.mismatches += b.mismatches;
                a.examples.extend(b.examples);
                a.examples.truncate(5);
                (a, add_counts(ca, cb))
            },
        );
    let (mut check, counts) = found;
    check.counts_agree = counts == table.info().counts;
    Ok(check)
}

