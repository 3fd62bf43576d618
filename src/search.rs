//! The value of a placement-phase position without placement tables: an
//! alpha-beta search over the rest of the placement phase that probes the
//! moving-phase tables at its leaves.
//!
//! The search knows only win, loss and draw (-1, 0, +1 for the side to
//! move), which is all it needs to prove and lets alpha-beta cut hard.
//! Leaves read a 2-bit win/loss/draw copy of each sector it touches, made
//! on first use, so a probe is one memory read instead of a block
//! decompression. A transposition table keyed by sector and canonical slot
//! keeps the bounds already proved; mill-closing moves are tried first.

use crate::database::{Database, DbError};
use crate::index::Sector;
use crate::position::State;
use crate::rules::{legal_moves, play, status, Status};
use crate::value::{Cell, Value};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A game-theoretic outcome without its distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win,
    Draw,
    Loss,
}

impl Outcome {
    fn from_score(score: i8) -> Outcome {
        match score {
            1 => Outcome::Win,
            0 => Outcome::Draw,
            _ => Outcome::Loss,
        }
    }

    fn score(value: Value) -> i8 {
        match value {
            Value::Win(_) => 1,
            Value::Draw => 0,
            Value::Loss(_) => -1,
        }
    }

    /// `"win"`, `"loss"` or `"draw"`.
    pub fn kind(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        }
    }
}

/// How far a search has got.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchStats {
    pub nodes: u64,
    pub probes: u64,
    pub transpositions: usize,
    pub elapsed: Duration,
}

/// Proved bounds on a position's score.
#[derive(Clone, Copy)]
struct Bounds {
    lower: i8,
    upper: i8,
}

/// A search over one database; keeps what it learns between questions.
pub struct Search<'a> {
    db: &'a Database,
    transpositions: HashMap<u64, Bounds>,
    /// Per sector, its win/loss/draw scores packed four to a byte.
    leaves: HashMap<Sector, Vec<u8>>,
    stats: SearchStats,
    started: Instant,
    report: Option<&'a dyn Fn(&SearchStats)>,
    next_report: Instant,
}

/// How often progress is reported.
const REPORT_EVERY: Duration = Duration::from_secs(1);

impl<'a> Search<'a> {
    pub fn new(db: &'a Database) -> Search<'a> {
        Search {
            db,
            transpositions: HashMap::new(),
            leaves: HashMap::new(),
            stats: SearchStats::default(),
            started: Instant::now(),
            report: None,
            next_report: Instant::now() + REPORT_EVERY,
        }
    }

    /// Calls `report` about once a second while searching.
    pub fn with_progress(mut self, report: &'a dyn Fn(&SearchStats)) -> Search<'a> {
        self.report = Some(report);
        self
    }

    pub fn stats(&self) -> SearchStats {
        SearchStats { transpositions: self.transpositions.len(), elapsed: self.started.elapsed(), ..self.stats }
    }

    /// The outcome of `state` under perfect play.
    pub fn outcome(&mut self, state: &State) -> Result<Outcome, DbError> {
        Ok(Outcome::from_score(self.negamax(state, -1, 1)?))
    }

    fn negamax(&mut self, state: &State, mut alpha: i8, beta: i8) -> Result<i8, DbError> {
        self.stats.nodes += 1;
        self.maybe_report();
        if let Some(score) = self.leaf(state)? {
            return Ok(score);
        }
        let key = self.key(state);
        let mut bounds = self.transpositions.get(&key).copied().unwrap_or(Bounds { lower: -1, upper: 1 });
        if bounds.lower >= beta || bounds.lower == bounds.upper {
            return Ok(bounds.lower);
        }
        if bounds.upper <= alpha {
            return Ok(bounds.upper);
        }
        alpha = alpha.max(bounds.lower);
        let beta = beta.min(bounds.upper);
        let alpha_in = alpha;
        let mut moves = legal_moves(self.db.variant(), state);
        // Mill-closing moves first: they decide most positions.
        moves.sort_by_key(|m| m.remove.is_none());
        let mut best = -2;
        for m in moves {
            let score = -self.negamax(&play(state, m), -beta, -alpha)?;
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        if best == -2 {
            best = match status(self.db.variant(), state) {
                Status::Drawn => 0,
                _ => -1,
            };
        }
        if best <= alpha_in {
            bounds.upper = best;
        } else if best >= beta {
            bounds.lower = best;
        } else {
            bounds = Bounds { lower: best, upper: best };
        }
        self.transpositions.insert(key, bounds);
        Ok(best)
    }

    /// The score of a state the tables answer: the game is over, the
    /// moving phase has begun, or its placement sector is solved.
    fn leaf(&mut self, state: &State) -> Result<Option<i8>, DbError> {
        if state.mover_stones() < 3 {
            return Ok(Some(-1));
        }
        let sector = Sector::of(state);
        if !state.is_moving_phase() && !self.leaves.contains_key(&sector) && !self.db.has(sector) {
            return Ok(None);
        }
        if !self.leaves.contains_key(&sector) {
            let packed = pack_scores(&self.db.load_cells(sector)?);
            self.leaves.insert(sector, packed);
        }
        self.stats.probes += 1;
        let slot = self.db.indexer().sector(sector).rank(state.mover, state.opponent);
        let byte = self.leaves[&sector][(slot / 4) as usize];
        Ok(Some(decode_score((byte >> (2 * (slot % 4))) & 3)))
    }

    fn key(&self, state: &State) -> u64 {
        let sector = Sector::of(state);
        let slot = self.db.indexer().sector(sector).rank(state.mover, state.opponent);
        // Slots of 24-point boards stay below 2^30 (the largest sector, 8-8,
        // has under 6 * 10^8), so sector and slot share one word.
        debug_assert!(slot < 1 << 32);
        let packed = u32::from_le_bytes([sector.mover, sector.opponent, sector.mover_hand, sector.opponent_hand]) as u64;
        packed << 32 | slot
    }

    fn maybe_report(&mut self) {
        if self.stats.nodes % 4096 != 0 {
            return;
        }
        if let Some(report) = self.report {
            if Instant::now() >= self.next_report {
                self.next_report = Instant::now() + REPORT_EVERY;
                report(&self.stats());
            }
        }
    }
}

/// Scores as 2-bit codes: 0 loss, 1 draw, 2 win.
fn pack_scores(cells: &[u16]) -> Vec<u8> {
    let mut packed = vec![0u8; cells.len().div_ceil(4)];
    for (i, &c) in cells.iter().enumerate() {
        let code = (Outcome::score(Value::from(Cell(c))) + 1) as u8;
        packed[i / 4] |= code << (2 * (i % 4));
    }
    packed
}

fn decode_score(code: u8) -> i8 {
    code as i8 - 1
}
