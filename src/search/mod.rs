//! The value of a placement-phase position without placement tables: an
//! alpha-beta search over the rest of the placement phase that probes the
//! moving-phase tables at its leaves.
//!
//! The search knows only win, loss and draw (scores 1, 0, -1 for the side
//! to move), which is all it needs to prove and lets alpha-beta cut hard.
//! Every question is asked as null-window tests ("is the score at least
//! s?"): a draw is proved by two of them, White holds at least the draw
//! and Black holds at least the draw, which is the least any proof of a
//! draw can show. Between questions the search keeps what it proved, so
//! the moves of a position and a perfect-play line cost little more than
//! its value.
//!
//! What makes the search of nine's start feasible is the order of moves
//! ([`order`]); the rest keeps each node cheap: a transposition table of
//! fixed size ([`transpositions`]), leaves read from 2-bit scores mapped
//! from cache files beside the tables (`leaves`,
//! [`crate::database::leaf_cache`]; copied from the tables where no cache
//! can be written), no allocation per node, and no question to the file
//! system after a sector's first use.
//!
//! A caller may bound a search in time or stop it from another thread
//! ([`budget`]).

pub mod budget;
mod leaves;
pub mod order;
pub mod transpositions;

use crate::database::{Database, DbError};
use crate::index::Sector;
use crate::position::{Move, State};
use crate::rules::{play, status, Status};
pub use crate::value::Outcome;
use leaves::Leaves;
use order::{ordered_moves, Scored};
use std::time::{Duration, Instant};
use transpositions::{Bounds, Transpositions};

/// How far a search has got.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchStats {
    /// Positions searched (not counting leaves).
    pub nodes: u64,
    /// Leaves read from a table copy.
    pub probes: u64,
    /// Positions answered by the transposition table.
    pub transpositions: u64,
    /// Entries the transposition table holds.
    pub remembered: u64,
    /// Sectors whose 2-bit scores the leaves read.
    pub sectors_loaded: usize,
    /// The bytes of those scores (mapped cache files or copies).
    pub leaf_bytes: usize,
    /// Of those sectors, the ones whose leaf cache was made from the
    /// table during this search.
    pub leaf_caches_built: usize,
    /// Of those sectors, the ones copied into memory (no cache could be
    /// written).
    pub leaf_copies: usize,
    /// The time getting the scores took (opening, making or copying).
    pub loading: Duration,
    /// Time spent searching (copying tables included).
    pub elapsed: Duration,
}

impl SearchStats {
    /// Nodes per second of search, not counting the time spent getting
    /// the leaves' scores.
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.elapsed.saturating_sub(self.loading).as_secs_f64().max(1e-9)
    }
}

/// How a search may use memory.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// Bytes of the transposition table.
    pub transposition_bytes: usize,
}

impl Default for SearchOptions {
    /// 64 MiB: plenty for the small variants and late placement positions;
    /// nine's start wants more (`morris query` takes it as an option).
    fn default() -> SearchOptions {
        SearchOptions { transposition_bytes: 64 << 20 }
    }
}

/// A search over one database; keeps what it learns between questions.
pub struct Search<'a> {
    db: &'a Database,
    leaves: Leaves,
    table: Transpositions,
    /// Move lists, one per ply from the root, reused from node to node.
    moves: Vec<Vec<Scored>>,
    stats: SearchStats,
    /// When the current question began; its time joins `stats.elapsed`
    /// when it ends.
    started: Option<Instant>,
    report: Option<&'a dyn Fn(&SearchStats)>,
    next_report: Instant,
}

/// How often progress is reported.
const REPORT_EVERY: Duration = Duration::from_secs(1);

impl<'a> Search<'a> {
    /// A search with the default options.
    pub fn new(db: &'a Database) -> Search<'a> {
        Search::with_options(db, SearchOptions::default())
    }

    /// A search over `db` with the memory and limits of `options`.
    pub fn with_options(db: &'a Database, options: SearchOptions) -> Search<'a> {
        Search {
            db,
            leaves: Leaves::new(db.variant().stones()),
            table: Transpositions::with_bytes(options.transposition_bytes),
            moves: Vec::new(),
            stats: SearchStats::default(),
            started: None,
            report: None,
            next_report: Instant::now() + REPORT_EVERY,
        }
    }

    /// Calls `report` about once a second while searching.
    pub fn with_progress(mut self, report: &'a dyn Fn(&SearchStats)) -> Search<'a> {
        self.report = Some(report);
        self
    }

    /// What all questions so far have cost.
    pub fn stats(&self) -> SearchStats {
        let loaded = self.leaves.loaded();
        let running = self.started.map_or(Duration::ZERO, |t| t.elapsed());
        SearchStats {
            remembered: self.table.occupied(),
            sectors_loaded: loaded.sectors,
            leaf_bytes: loaded.bytes,
            leaf_caches_built: loaded.built,
            leaf_copies: loaded.copied,
            loading: loaded.time,
            elapsed: self.stats.elapsed + running,
            ..self.stats
        }
    }

    /// Bytes the transposition table reserves.
    pub fn transposition_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// The outcome of `state` under perfect play: whether the mover holds
    /// the draw, then whether it wins (or, failing the first, whether it
    /// loses for certain, which it then does).
    pub fn outcome(&mut self, state: &State) -> Result<Outcome, DbError> {
        if self.at_least(state, 0)? {
            Ok(if self.at_least(state, 1)? { Outcome::Win } else { Outcome::Draw })
        } else {
            Ok(Outcome::Loss)
        }
    }

    /// Whether the mover's score in `state` is at least `score` (-1, 0
    /// or 1): one null-window search.
    pub fn at_least(&mut self, state: &State, score: i8) -> Result<bool, DbError> {
        if score <= -1 {
            return Ok(true);
        }
        self.started = Some(Instant::now());
        let found = self.negamax(state, score - 1, score, 0);
        self.stats.elapsed += self.started.take().map_or(Duration::ZERO, |t| t.elapsed());
        Ok(found? >= score)
    }

    /// Whether the mover's score in `state` is at most `score`.
    pub fn at_most(&mut self, state: &State, score: i8) -> Result<bool, DbError> {
        Ok(score >= 1 || !self.at_least(state, score + 1)?)
    }

    /// The legal moves of `state` in the order the search tries them.
    pub fn ordered_moves(&self, state: &State) -> Vec<Move> {
        let mut scored = Vec::new();
        ordered_moves(self.db.variant(), state, &mut scored);
        scored.into_iter().map(|s| s.mv).collect()
    }

    /// Fail-soft alpha-beta on scores -1..=1 with the window
    /// (`alpha`, `beta`); `ply` counts from the question's position.
    fn negamax(&mut self, state: &State, alpha: i8, beta: i8, ply: usize) -> Result<i8, DbError> {
        let sector = Sector::of(state);
        if state.mover_stones() < 3 {
            return Ok(-1);
        }
        let slot = self.db.indexer().sector(sector).rank(state.mover, state.opponent);
        if let Some(score) = self.leaves.score(self.db, sector, slot)? {
            self.stats.probes += 1;
            return Ok(score);
        }
        self.stats.nodes += 1;
        if self.stats.nodes.is_multiple_of(budget::CHECK_EVERY) {
            if let Some(why) = budget::check() {
                return Err(budget::stopped(why));
            }
        }
        self.maybe_report();
        // Positions one ply above the leaves are remembered too: the
        // cheapest proofs give way first when the table is full, and on
        // nine's board with 5 against 6 stones remembering them saved a
        // quarter of the nodes at the same time.
        let key = transpositions::key(sector, slot);
        let known = self.table.get(key);
        if known.is_some() {
            self.stats.transpositions += 1;
        }
        let known = known.unwrap_or(Bounds::OPEN);
        if known.lower >= beta || known.lower == known.upper {
            return Ok(known.lower);
        }
        if known.upper <= alpha {
            return Ok(known.upper);
        }
        let (alpha, beta) = (alpha.max(known.lower), beta.min(known.upper));
        let nodes_before = self.stats.nodes;
        let best = self.best_reply(state, alpha, beta, ply)?;
        let proved = if best <= alpha {
            Bounds { lower: -1, upper: best }
        } else if best >= beta {
            Bounds { lower: best, upper: 1 }
        } else {
            Bounds { lower: best, upper: best }
        };
        self.table.put(key, proved, self.stats.nodes - nodes_before);
        Ok(best)
    }

    /// The best score of the moves of `state` within (`alpha`, `beta`),
    /// fail-soft; the rules' verdict when there is no move.
    fn best_reply(
        &mut self,
        state: &State,
        mut alpha: i8,
        beta: i8,
        ply: usize,
    ) -> Result<i8, DbError> {
        if self.moves.len() <= ply {
            self.moves.resize_with(ply + 1, Vec::new);
        }
        let mut moves = std::mem::take(&mut self.moves[ply]);
        ordered_moves(self.db.variant(), state, &mut moves);
        let mut best = -2;
        let mut result = Ok(());
        for m in &moves {
            let score = match self.negamax(&play(state, m.mv), -beta, -alpha, ply + 1) {
                Ok(s) => -s,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        self.moves[ply] = moves;
        result?;
        if best == -2 {
            best = match status(self.db.variant(), state) {
                Status::Drawn => 0,
                _ => -1,
            };
        }
        Ok(best)
    }

    fn maybe_report(&mut self) {
        if !self.stats.nodes.is_multiple_of(4096) {
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
