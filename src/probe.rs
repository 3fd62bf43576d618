//! Many positions at once: the value of each (and, if asked, of every
//! legal move), from the tables, with each table block decompressed once
//! per batch.
//!
//! [`probe`] answers as [`Query::value`] and [`Query::moves`] answer one
//! position at a time, and is held to them in the tests. A batch is
//! turned into the states it needs (each position, and with moves each
//! position after each move), every state is ranked in its sector, the
//! states are sorted by sector and slot, and the runs that share a block
//! are read in parallel, each block checked and decompressed once. What
//! the tables cannot answer - a placement position whose sector has no
//! table - goes to the placement search once per distinct position, or is
//! an error when no search is given. A sector of which the database
//! holds only the win/draw/loss tier is read from that table, its values
//! without distances ([`Exactness::ValueOnly`], as the search's).
//! `morris probe`, `POST /api/probe` of `morris serve` and the Python
//! package answer through this module.

use crate::database::{Database, DbError, SectorTable, Stored};
use crate::fold_hash::FoldMap;
use crate::index::Sector;
use crate::position::{Move, NotationError, Position, State};
use crate::query::{sort_best_first, Exactness, MoveValue, Query, QueryError};
use crate::rules::{legal_moves, play, status, Status};
use crate::table::{cell_in_planes, WdlTable};
use crate::value::{Cell, Outcome, Value};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;

/// The largest run of one block that one thread reads: a batch whose
/// positions crowd into a few blocks is still shared out.
const RUN_LIMIT: usize = 1 << 14;

/// What a batch asks of each position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeOptions {
    /// Every legal move with its value, best first, besides the
    /// position's own value.
    pub moves: bool,
}

/// The answer for one position of a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probed {
    /// The position asked about.
    pub position: Position,
    /// Its value for the side to move.
    pub value: Value,
    /// Whether the value (and every move's value) is exact, or was proved
    /// by the placement search without a distance.
    pub exactness: Exactness,
    /// With [`ProbeOptions::moves`], every legal move best first, as
    /// [`Query::moves`] gives them; empty otherwise and when the game is
    /// over.
    pub moves: Vec<MoveValue>,
}

/// Why one position of a batch has no answer. The other positions of the
/// batch are answered all the same.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ProbeError {
    /// A table is missing, damaged, or solved under other rules; shared by
    /// every position that reads it.
    #[error(transparent)]
    Db(Arc<DbError>),
    /// The placement search failed.
    #[error("{0}")]
    Search(Arc<str>),
    /// A placement position that only the search could answer, and the
    /// batch was asked without one.
    #[error("{missing}; the placement search would answer it, but it is off{how}")]
    NoSearch {
        /// The missing table.
        missing: Arc<DbError>,
        /// How to turn the search on, for the reader (may be empty).
        how: &'static str,
    },
}

impl ProbeError {
    /// Whether the error is about the tables (missing, damaged or of
    /// other rules) rather than the search.
    pub fn is_database(&self) -> bool {
        !matches!(self, ProbeError::Search(_))
    }
}

/// Reads a position as `morris query` does: `start`, or `BOARD SIDE WH
/// BH`. A position whose hands do not alternate (from a game that
/// started with other numbers of stones to place) is taken with
/// `extended`, or when `db` holds its sector's table; otherwise it is
/// refused, and the error says so, `hint` telling how to ask for it.
pub fn parse_position(
    db: &Database,
    text: &str,
    extended: bool,
    hint: &str,
) -> Result<Position, PositionError> {
    let variant = db.variant();
    if text.trim() == "start" {
        return Ok(Position::start(variant));
    }
    let refused = match Position::parse(text, variant) {
        Ok(position) => return Ok(position),
        Err(refused) => refused,
    };
    match Position::parse_any_start(text, variant) {
        Ok(p) if extended || db.has_values(Sector::of(&p.state())) => Ok(p),
        Ok(_) => Err(PositionError::OtherStart { refused, hint: hint.to_string() }),
        Err(_) => Err(PositionError::Notation(refused)),
    }
}

/// A position that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum PositionError {
    /// Not a position of the variant.
    #[error(transparent)]
    Notation(#[from] NotationError),
    /// A position of a game from another start, not asked for.
    #[error("{refused}; for a game from another start, {hint}")]
    OtherStart {
        /// Why it is not a position of a game from the usual start.
        refused: NotationError,
        /// How to ask for it.
        hint: String,
    },
}

/// Where a looked-up state's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Looked {
    /// A stored cell, or the rules' answer.
    Value(Value),
    /// A win/draw/loss table's answer: no distance.
    Outcome(Outcome),
    /// The error with this number, of the batch's list.
    Error(u32),
    /// A placement state without its table: the search's.
    Search,
    /// Not read yet.
    Pending,
}

/// Values of `positions` from the tables of `db`: one answer per
/// position, in order. With `options.moves` every legal move's value too.
/// A placement position that has no table (or whose moves lead into a
/// sector without one) goes to `search` once per distinct position; with
/// no `search` it is a [`ProbeError::NoSearch`] whose message ends with
/// `no_search_how`. Runs on the current rayon pool.
pub fn probe(
    db: &Database,
    positions: &[Position],
    options: ProbeOptions,
    search: Option<&Query>,
    no_search_how: &'static str,
) -> Vec<Result<Probed, ProbeError>> {
    let (which, answers) = probe_distinct(db, positions, options, search, no_search_how);
    which.par_iter().map(|&i| answers[i as usize].clone()).collect()
}

/// As [`probe`], each distinct position answered once: the answers of the
/// distinct positions, in order of first appearance, and for each
/// position of `positions` the number of its answer. Lets a caller that
/// writes the answers out do so once per distinct position.
pub fn probe_distinct(
    db: &Database,
    positions: &[Position],
    options: ProbeOptions,
    search: Option<&Query>,
    no_search_how: &'static str,
) -> (Vec<u32>, Vec<Result<Probed, ProbeError>>) {
    let (which, distinct) = distinct(positions);
    (which, probe_each(db, &distinct, options, search, no_search_how))
}

/// The distinct positions of `positions`, in order of first appearance,
/// and the number of each position's among them.
fn distinct(positions: &[Position]) -> (Vec<u32>, Vec<Position>) {
    let mut seen: FoldMap<Position, u32> =
        HashMap::with_capacity_and_hasher(positions.len().min(1 << 16), Default::default());
    let mut distinct = Vec::new();
    let which = positions
        .iter()
        .map(|p| {
            *seen.entry(*p).or_insert_with(|| {
                distinct.push(*p);
                distinct.len() as u32 - 1
            })
        })
        .collect();
    (which, distinct)
}

/// [`probe`] of positions that are all distinct.
fn probe_each(
    db: &Database,
    positions: &[Position],
    options: ProbeOptions,
    search: Option<&Query>,
    no_search_how: &'static str,
) -> Vec<Result<Probed, ProbeError>> {
    let v = db.variant();
    // What each position needs: its own state first (absent when the game
    // is over), then, with moves, the state after each move.
    let needs: Vec<(Status, Vec<Move>)> = positions
        .par_iter()
        .map(|p| {
            let state = p.state();
            let st = status(v, &state);
            let moves = if options.moves && st == Status::Playing {
                legal_moves(v, &state)
            } else {
                Vec::new()
            };
            (st, moves)
        })
        .collect();
    let mut starts = Vec::with_capacity(positions.len() + 1);
    let mut total = 0usize;
    for (st, moves) in &needs {
        starts.push(total);
        total += usize::from(*st == Status::Playing) + moves.len();
    }
    starts.push(total);
    let mut states = vec![State { mover: 0, opponent: 0, mover_hand: 0, opponent_hand: 0 }; total];
    {
        let mut rest: &mut [State] = &mut states;
        let mut slices = Vec::with_capacity(positions.len());
        for i in 0..positions.len() {
            let (head, tail) = rest.split_at_mut(starts[i + 1] - starts[i]);
            slices.push(head);
            rest = tail;
        }
        slices.into_par_iter().zip(positions.par_iter()).zip(needs.par_iter()).for_each(
            |((out, p), (st, moves))| {
                if *st != Status::Playing {
                    return;
                }
                let state = p.state();
                out[0] = state;
                for (o, &mv) in out[1..].iter_mut().zip(moves) {
                    *o = play(&state, mv);
                }
            },
        );
    }
    let (looked, errors) = lookup(db, &states);

    let answers: Vec<Result<Probed, Looked>> = positions
        .par_iter()
        .zip(needs.par_iter())
        .enumerate()
        .map(|(i, (p, (st, moves)))| {
            let looked = &looked[starts[i]..starts[i + 1]];
            assemble(*p, *st, moves, looked)
        })
        .collect();

    // What the tables could not answer: by search, once per position.
    let mut searched: HashMap<Position, Result<Probed, ProbeError>> = HashMap::new();
    answers
        .into_iter()
        .zip(positions)
        .map(|(answer, p)| match answer {
            Ok(probed) => Ok(probed),
            Err(Looked::Error(e)) => Err(errors[e as usize].clone()),
            Err(_) => {
                let Some(query) = search else {
                    let state = p.state();
                    let missing = Arc::new(db.missing(first_missing(db, &state, options)));
                    return Err(ProbeError::NoSearch { missing, how: no_search_how });
                };
                searched.entry(*p).or_insert_with(|| by_search(query, p, options)).clone()
            }
        })
        .collect()
}

/// The sector a placement position needs that has no table: its own, or
/// that of a position after one of its moves.
fn first_missing(db: &Database, state: &State, options: ProbeOptions) -> Sector {
    let own = Sector::of(state);
    if !db.has_values(own) || !options.moves {
        return own;
    }
    legal_moves(db.variant(), state)
        .into_iter()
        .map(|mv| Sector::of(&play(state, mv)))
        .find(|&s| !db.has_values(s))
        .unwrap_or(own)
}

/// One position's answer from its looked-up states, or what stops it.
fn assemble(
    position: Position,
    st: Status,
    moves: &[Move],
    looked: &[Looked],
) -> Result<Probed, Looked> {
    let (value, exactness) = match st {
        Status::Lost => (Value::Loss(0), Exactness::Exact),
        Status::Drawn => (Value::Draw, Exactness::Exact),
        Status::Playing => read(looked[0])?,
    };
    let mut probed = Probed { position, value, exactness, moves: Vec::new() };
    if moves.is_empty() {
        return Ok(probed);
    }
    let mut valued = Vec::with_capacity(moves.len());
    for (&mv, &l) in moves.iter().zip(&looked[1..]) {
        let (after, exactness) = read(l)?;
        valued.push(MoveValue { mv, value: after.back(), exactness });
    }
    sort_best_first(&mut valued);
    probed.exactness = valued.iter().fold(exactness, |e, m| e.and(m.exactness));
    probed.moves = valued;
    Ok(probed)
}

/// A looked-up state's value and how exact it is, as
/// [`Query::state_value`] gives it, or what stops it.
fn read(looked: Looked) -> Result<(Value, Exactness), Looked> {
    match looked {
        Looked::Value(v) => Ok((v, Exactness::Exact)),
        Looked::Outcome(o) => Ok((Value::of_outcome(o), Exactness::ValueOnly)),
        other => Err(other),
    }
}

/// A position the tables cannot answer, by the placement search.
fn by_search(
    query: &Query,
    position: &Position,
    options: ProbeOptions,
) -> Result<Probed, ProbeError> {
    let wrap = |e: QueryError| match e {
        QueryError::Db(db) => ProbeError::Db(Arc::new(db)),
        other => ProbeError::Search(other.to_string().into()),
    };
    let (value, mut exactness) = query.value(position).map_err(wrap)?;
    let moves = if options.moves { query.moves(position).map_err(wrap)? } else { Vec::new() };
    exactness = moves.iter().fold(exactness, |e, m| e.and(m.exactness));
    Ok(Probed { position: *position, value, exactness, moves })
}

/// A state's place: its sector packed in the high bits, its slot in the
/// low [`SLOT_BITS`].
const SLOT_BITS: u32 = 40;

fn pack(sector: Sector, slot: u64) -> u64 {
    let s = (u64::from(sector.mover) << 18)
        | (u64::from(sector.opponent) << 12)
        | (u64::from(sector.mover_hand) << 6)
        | u64::from(sector.opponent_hand);
    s << SLOT_BITS | slot
}

fn unpack_sector(key: u64) -> Sector {
    let s = key >> SLOT_BITS;
    Sector {
        mover: (s >> 18 & 63) as u8,
        opponent: (s >> 12 & 63) as u8,
        mover_hand: (s >> 6 & 63) as u8,
        opponent_hand: (s & 63) as u8,
    }
}

fn slot_of(key: u64) -> u64 {
    key & ((1 << SLOT_BITS) - 1)
}

/// The runs of `keys` (sorted, of one sector) that lie in one block of
/// `per` cells, each at most `limit` long: (start, end, block).
fn block_runs(
    keys: &[(u64, u32)],
    per: u64,
    limit: usize,
) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        if i == keys.len() {
            return None;
        }
        let block = slot_of(keys[i].0) / per;
        let mut j = i + 1;
        while j < keys.len() && j - i < limit && slot_of(keys[j].0) / per == block {
            j += 1;
        }
        let run = (i, j, block as usize);
        i = j;
        Some(run)
    })
}

/// The value of every state as [`Query::state_value`] would give it from
/// the tables, each block read once, and the errors they refer to. A
/// placement state without its table is `Search`.
fn lookup(db: &Database, states: &[State]) -> (Vec<Looked>, Vec<ProbeError>) {
    let indexer = db.indexer();
    // Sector and slot of each state; states that the rules answer get no
    // key.
    let mut keys: Vec<(u64, u32)> = states
        .par_iter()
        .enumerate()
        .filter(|(_, s)| s.mover_stones() >= 3)
        .map(|(i, s)| {
            let sector = Sector::of(s);
            (pack(sector, indexer.sector(sector).rank(s.mover, s.opponent)), i as u32)
        })
        .collect();
    // By key alone: the positions of a batch often repeat, and equal keys
    // are what the sort then sees, which it partitions at once.
    keys.par_sort_unstable_by_key(|k| k.0);

    // A side with fewer than 3 stones has lost; the others are read.
    let mut looked = vec![Looked::Value(Value::Loss(0)); states.len()];
    for &(_, i) in &keys {
        looked[i as usize] = Looked::Pending;
    }
    let mut errors: Vec<ProbeError> = Vec::new();
    // Runs of one block (at most RUN_LIMIT long), with their table.
    // start, end, table, block
    let mut runs: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut tables = Vec::new();
    let mut at = 0;
    while at < keys.len() {
        let sector_bits = keys[at].0 >> SLOT_BITS;
        let end = at + keys[at..].partition_point(|k| k.0 >> SLOT_BITS == sector_bits);
        let sector = unpack_sector(keys[at].0);
        match db.tier(sector) {
            Ok(SectorTable::Wdl(wdl)) => read_wdl(&wdl, &keys[at..end], &mut looked, &mut errors),
            Ok(SectorTable::Derived(_)) => {
                read_derived(db, states, &keys[at..end], &mut looked, &mut errors)
            }
            Ok(SectorTable::Full(table)) => {
                let t = tables.len();
                let per = table.block_cells();
                tables.push(table);
                runs.extend(
                    block_runs(&keys[at..end], per, RUN_LIMIT)
                        .map(|(i, j, block)| (at + i, at + j, t, block)),
                );
            }
            Err(e) => {
                // As `Query::state_value`: a placement sector without its
                // table is searched, but not Lasker's (its placement has
                // cycles, which the search does not handle).
                let searchable = !sector.is_moving() && !db.variant().move_while_placing();
                let answer = match e {
                    DbError::Missing { .. } if searchable => Looked::Search,
                    e => {
                        errors.push(ProbeError::Db(Arc::new(e)));
                        Looked::Error(errors.len() as u32 - 1)
                    }
                };
                for &(_, i) in &keys[at..end] {
                    looked[i as usize] = answer;
                }
            }
        }
        at = end;
    }

    // Each run's block read once; the cells in the order of `keys`.
    let mut cells = vec![0u16; keys.len()];
    let mut slices = Vec::with_capacity(runs.len());
    let mut rest: &mut [u16] = &mut cells;
    let mut taken = 0;
    for &(start, end, _, _) in &runs {
        let (_, tail) = rest.split_at_mut(start - taken);
        let (run, tail) = tail.split_at_mut(end - start);
        slices.push(run);
        rest = tail;
        taken = end;
    }
    let failed: Vec<(usize, DbError)> = runs
        .par_iter()
        .zip(slices)
        .enumerate()
        .map_init(Vec::new, |planes, (r, (&(start, end, t, block), out))| {
            let table = &tables[t];
            if let Err(e) = table.read_block_planes(block, planes) {
                return Some((r, DbError::from(e)));
            }
            let per = table.block_cells();
            for (o, k) in out.iter_mut().zip(&keys[start..end]) {
                *o = cell_in_planes(planes, (slot_of(k.0) % per) as usize);
            }
            None
        })
        .flatten()
        .collect();
    for (&(_, i), &c) in keys.iter().zip(&cells) {
        if looked[i as usize] == Looked::Pending {
            looked[i as usize] = Looked::Value(Value::from(Cell(c)));
        }
    }
    for (r, e) in failed {
        errors.push(ProbeError::Db(Arc::new(e)));
        let answer = Looked::Error(errors.len() as u32 - 1);
        for &(_, i) in &keys[runs[r].0..runs[r].1] {
            looked[i as usize] = answer;
        }
    }
    (looked, errors)
}

/// The states of `keys` (of one sector, sorted by slot) from its
/// win/draw/loss table, into `looked`: one after the other, so that each
/// block is decompressed once (the table keeps the last ones read). The
/// first block that fails is the answer of the states left.
fn read_wdl<B: AsRef<[u8]>>(
    wdl: &WdlTable<B>,
    keys: &[(u64, u32)],
    looked: &mut [Looked],
    errors: &mut Vec<ProbeError>,
) {
    for (n, &(key, i)) in keys.iter().enumerate() {
        match wdl.get(slot_of(key)) {
            Ok(outcome) => looked[i as usize] = Looked::Outcome(outcome),
            Err(e) => {
                errors.push(ProbeError::Db(Arc::new(DbError::from(e))));
                let answer = Looked::Error(errors.len() as u32 - 1);
                for &(_, j) in &keys[n..] {
                    looked[j as usize] = answer;
                }
                return;
            }
        }
    }
}

/// The states of `keys` (of one derived sector) by one ply over their
/// successors' tables ([`Database::stored`]), into `looked`, in parallel.
fn read_derived(
    db: &Database,
    states: &[State],
    keys: &[(u64, u32)],
    looked: &mut [Looked],
    errors: &mut Vec<ProbeError>,
) {
    let found: Vec<(u32, Result<Stored, DbError>)> =
        keys.par_iter().map(|&(_, i)| (i, db.stored(&states[i as usize]))).collect();
    for (i, result) in found {
        looked[i as usize] = match result {
            Ok(Stored::Exact(value)) => Looked::Value(value),
            Ok(Stored::Outcome(outcome)) => Looked::Outcome(outcome),
            Err(e) => {
                errors.push(ProbeError::Db(Arc::new(e)));
                Looked::Error(errors.len() as u32 - 1)
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sectors_and_slots_pack_and_unpack() {
        for sector in [
            Sector::moving(3, 3),
            Sector::moving(12, 12),
            Sector { mover: 0, opponent: 1, mover_hand: 9, opponent_hand: 8 },
            Sector { mover: 5, opponent: 4, mover_hand: 12, opponent_hand: 11 },
        ] {
            for slot in [0, 1, 16_383, 16_384, (1 << SLOT_BITS) - 1] {
                let key = pack(sector, slot);
                assert_eq!(unpack_sector(key), sector);
                assert_eq!(slot_of(key), slot);
            }
        }
        // Sorting by key sorts by sector first, then by slot.
        assert!(pack(Sector::moving(3, 4), 0) > pack(Sector::moving(3, 3), (1 << SLOT_BITS) - 1));
    }

    #[test]
    fn runs_cover_every_key_once_and_never_span_blocks() {
        let mut rng = crate::rng::Rng::new(29);
        let sector = Sector::moving(5, 4);
        let mut keys: Vec<(u64, u32)> =
            (0..5_000).map(|i| (pack(sector, rng.next_u64() % 200_000), i)).collect();
        // Many keys in one block, more than a run may hold.
        keys.extend((0..300).map(|i| (pack(sector, 70_000 + i % 7), 5_000 + i as u32)));
        keys.sort_unstable();
        let per = 16_384;
        for limit in [usize::MAX, 100] {
            let runs: Vec<_> = block_runs(&keys, per, limit).collect();
            let mut next = 0;
            for &(start, end, block) in &runs {
                assert_eq!(start, next);
                assert!(end > start && end - start <= limit);
                for k in &keys[start..end] {
                    assert_eq!(slot_of(k.0) / per, block as u64);
                }
                next = end;
            }
            assert_eq!(next, keys.len());
            let mut blocks: Vec<u64> = keys.iter().map(|k| slot_of(k.0) / per).collect();
            blocks.dedup();
            if limit == usize::MAX {
                // One run, so one decompression, per block.
                assert_eq!(runs.len(), blocks.len());
            } else {
                assert!(runs.len() > blocks.len());
            }
        }
    }
}
