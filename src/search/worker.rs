//! One thread's share of a search: alpha-beta over win, draw and loss,
//! with its own leaves and move lists and the transposition table it
//! shares with the other threads of the search.

use super::budget;
use super::busy::{self, Busy};
use super::leaves::{Leaves, Loaded};
use super::order::{ordered_moves, Scored};
use super::transpositions::{self, Bounds, Transpositions};
use crate::database::{Database, DbError};
use crate::index::Sector;
use crate::position::State;
use crate::rules::{play, status, Status};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// Why a worker stopped before an answer.
pub(super) enum Stop {
    /// Another worker answered, or this one reached the nodes it was
    /// given alone: nothing is wrong.
    Halted,
    /// The database failed, or the caller's budget ran out.
    Failed(DbError),
}

impl From<DbError> for Stop {
    fn from(e: DbError) -> Stop {
        Stop::Failed(e)
    }
}

/// What a worker has done, as the other threads may read it while it
/// works (updated every [`budget::CHECK_EVERY`] nodes and at the end of
/// each question).
#[derive(Default)]
pub(super) struct Published {
    pub nodes: AtomicU64,
    pub probes: AtomicU64,
    pub transpositions: AtomicU64,
    /// Table entries this worker filled that were empty.
    pub remembered: AtomicU64,
    pub loaded: Mutex<Loaded>,
}

#[derive(Clone, Copy, Default)]
struct Counts {
    nodes: u64,
    probes: u64,
    transpositions: u64,
    remembered: u64,
}

pub(super) struct Worker<'a> {
    db: &'a Database,
    leaves: Leaves,
    table: Arc<Transpositions>,
    /// Move lists, one per ply from the root, reused from node to node.
    moves: Vec<Vec<Scored>>,
    counts: Counts,
    /// Raised when a worker has the answer, so the others stop.
    halt: Arc<AtomicBool>,
    /// Positions near the root that a worker is on; `None` alone.
    busy: Option<Arc<Busy>>,
    /// The moves left for later near the root, one list per ply.
    deferred: Vec<Vec<usize>>,
    /// Nodes after which this worker stops (`Stop::Halted`).
    node_limit: u64,
    published: Arc<Published>,
}

impl<'a> Worker<'a> {
    pub fn new(
        db: &'a Database,
        table: Arc<Transpositions>,
        halt: Arc<AtomicBool>,
        busy: Option<Arc<Busy>>,
    ) -> Worker<'a> {
        Worker {
            db,
            leaves: Leaves::new(db.variant().stones()),
            table,
            moves: Vec::new(),
            counts: Counts::default(),
            halt,
            busy,
            deferred: Vec::new(),
            node_limit: u64::MAX,
            published: Arc::new(Published::default()),
        }
    }

    /// What the worker has done so far, readable from other threads.
    pub fn published(&self) -> Arc<Published> {
        self.published.clone()
    }

    /// The mover's score in `state` against the null window below
    /// `score` (fail-soft: at least `score` means it is at least that),
    /// stopping after `nodes` more nodes if given.
    pub fn ask(&mut self, state: &State, score: i8, nodes: Option<u64>) -> Result<i8, Stop> {
        self.node_limit = nodes.map_or(u64::MAX, |n| self.counts.nodes.saturating_add(n));
        let answer = self.negamax(state, score - 1, score, 0);
        self.publish();
        answer
    }

    fn publish(&self) {
        let p = &self.published;
        p.nodes.store(self.counts.nodes, Relaxed);
        p.probes.store(self.counts.probes, Relaxed);
        p.transpositions.store(self.counts.transpositions, Relaxed);
        p.remembered.store(self.counts.remembered, Relaxed);
        if let Ok(mut loaded) = p.loaded.lock() {
            *loaded = self.leaves.loaded();
        }
    }

    /// Every [`budget::CHECK_EVERY`] nodes: whether to stop, and what the
    /// worker has done, for the thread that reports progress.
    #[cold]
    fn check(&mut self) -> Result<(), Stop> {
        self.publish();
        if self.halt.load(Relaxed) || self.counts.nodes >= self.node_limit {
            return Err(Stop::Halted);
        }
        match budget::check() {
            Some(why) => Err(Stop::Failed(budget::stopped(why))),
            None => Ok(()),
        }
    }

    /// Fail-soft alpha-beta on scores -1..=1 with the window
    /// (`alpha`, `beta`); `ply` counts from the question's position.
    fn negamax(&mut self, state: &State, alpha: i8, beta: i8, ply: usize) -> Result<i8, Stop> {
        let sector = Sector::of(state);
        if state.mover_stones() < 3 {
            return Ok(-1);
        }
        let slot = self.db.indexer().sector(sector).rank(state.mover, state.opponent);
        if let Some(score) = self.leaves.score(self.db, sector, slot)? {
            self.counts.probes += 1;
            return Ok(score);
        }
        self.counts.nodes += 1;
        if self.counts.nodes.is_multiple_of(budget::CHECK_EVERY) {
            self.check()?;
        }
        // Positions one ply above the leaves are remembered too: the
        // cheapest proofs give way first when the table is full, and on
        // nine's board with 5 against 6 stones remembering them saved a
        // quarter of the nodes at the same time.
        let key = transpositions::key(sector, slot);
        let known = self.table.get(key);
        if known.is_some() {
            self.counts.transpositions += 1;
        }
        let known = known.unwrap_or(Bounds::OPEN);
        if known.lower >= beta || known.lower == known.upper {
            return Ok(known.lower);
        }
        if known.upper <= alpha {
            return Ok(known.upper);
        }
        let (alpha, beta) = (alpha.max(known.lower), beta.min(known.upper));
        let nodes_before = self.counts.nodes;
        let busy = self.busy.clone().filter(|_| ply < busy::PLIES);
        if let Some(busy) = &busy {
            busy.mark(key);
        }
        let best = self.best_reply(state, alpha, beta, ply);
        if let Some(busy) = &busy {
            busy.clear(key);
        }
        let best = best?;
        let proved = if best <= alpha {
            Bounds { lower: -1, upper: best }
        } else if best >= beta {
            Bounds { lower: best, upper: 1 }
        } else {
            Bounds { lower: best, upper: best }
        };
        if self.table.put(key, proved, self.counts.nodes - nodes_before) {
            self.counts.remembered += 1;
        }
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
    ) -> Result<i8, Stop> {
        if self.moves.len() <= ply {
            self.moves.resize_with(ply + 1, Vec::new);
            self.deferred.resize_with(ply + 1, Vec::new);
        }
        let mut moves = std::mem::take(&mut self.moves[ply]);
        ordered_moves(self.db.variant(), state, &mut moves);
        let mut best = -2;
        let mut result = Ok(());
        // Near the root, with other workers, a move (not the first) whose
        // position another worker is on now waits until the other moves
        // are done (asked just before the move, not when the node began:
        // the others move on meanwhile).
        let busy = self.busy.clone().filter(|_| ply < busy::PLIES);
        let mut deferred = std::mem::take(&mut self.deferred[ply]);
        deferred.clear();
        'search: for later in [false, true] {
            let count = if later { deferred.len() } else { moves.len() };
            for k in 0..count {
                let i = if later { deferred[k] } else { k };
                if !later && i > 0 {
                    if let Some(busy) = &busy {
                        if self.is_marked(busy, state, moves[i]) {
                            deferred.push(i);
                            continue;
                        }
                    }
                }
                let score = match self.negamax(&play(state, moves[i].mv), -beta, -alpha, ply + 1) {
                    Ok(s) => -s,
                    Err(e) => {
                        result = Err(e);
                        break 'search;
                    }
                };
                best = best.max(score);
                alpha = alpha.max(score);
                if alpha >= beta {
                    break 'search;
                }
            }
        }
        self.moves[ply] = moves;
        self.deferred[ply] = deferred;
        result?;
        if best == -2 {
            best = match status(self.db.variant(), state) {
                Status::Drawn => 0,
                _ => -1,
            };
        }
        Ok(best)
    }
}

impl Worker<'_> {
    /// Whether another worker is on the position `m` leads to.
    fn is_marked(&self, busy: &Busy, state: &State, m: Scored) -> bool {
        let child = play(state, m.mv);
        if child.mover_stones() < 3 {
            return false;
        }
        let sector = Sector::of(&child);
        let slot = self.db.indexer().sector(sector).rank(child.mover, child.opponent);
        busy.is_marked(transpositions::key(sector, slot))
    }
}
