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
//! A question that takes more than a million nodes is answered
//! by several threads at once ([`SearchOptions::threads`]; `worker`):
//! each searches the whole question in the same order and all share the
//! transposition table, so each finds there what the others proved; near
//! the root a thread leaves for later a move whose position another
//! thread is on (`busy`), so they split the moves that must all be
//! searched instead of following each other; the first to answer stops
//! the rest. The search is bound by memory latency (a transposition table
//! and leaf scores of gigabytes, read at random), so a second core adds
//! reads in flight: nine's start, 2 threads against 1, takes about the
//! same nodes in half the time (docs/results.md).
//!
//! A caller may bound a search in time or stop it from another thread
//! ([`budget`]).

pub mod budget;
mod busy;
mod leaves;
pub mod order;
pub mod transpositions;
mod worker;

use crate::database::{Database, DbError};
use crate::position::{Move, State};
pub use crate::value::Outcome;
use leaves::Loaded;
use order::ordered_moves;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};
use transpositions::Transpositions;
use worker::{Published, Stop, Worker};

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

/// How a search may use memory and threads.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// Bytes of the transposition table.
    pub transposition_bytes: usize,
    /// Threads for a question that takes long (at least 1).
    pub threads: usize,
    /// Nodes a question is given on the caller's thread alone before the
    /// other threads join: most questions (a late position's moves, each
    /// ply of a line, six's start) end before, and would pay more for
    /// threads than they save (a short search is bound by the page faults
    /// of its first touches of the table, which threads of one process
    /// take in turn: six's start took 0.91 s on two threads against 0.74 s
    /// on one).
    pub alone_nodes: u64,
    /// The transposition table on huge pages: faster for a search that
    /// fills it (nine's start), slower for short ones, which then zero
    /// 2 MiB for each entry they touch (`morris serve` keeps small pages).
    pub huge_pages: bool,
}

impl Default for SearchOptions {
    /// 64 MiB and one thread: plenty for the small variants and late
    /// placement positions; nine's start wants more (`morris query` takes
    /// both as options).
    fn default() -> SearchOptions {
        SearchOptions {
            transposition_bytes: 64 << 20,
            threads: 1,
            alone_nodes: 1 << 20,
            huge_pages: false,
        }
    }
}

/// A search over one database; keeps what it learns between questions.
pub struct Search<'a> {
    db: &'a Database,
    table: Arc<Transpositions>,
    /// The first worker answers alone, on the caller's thread, until its
    /// question takes more than `alone_nodes`.
    first: Worker<'a>,
    helpers: Vec<Worker<'a>>,
    /// Raised when one worker has answered; lowered before each question.
    halt: Arc<AtomicBool>,
    /// What each worker has done, first worker first.
    published: Vec<Arc<Published>>,
    alone_nodes: u64,
    /// Time spent answering, not counting the question under way.
    elapsed: Duration,
    /// When the question under way began.
    started: Option<Instant>,
    report: Option<&'a dyn Fn(&SearchStats)>,
    next_report: Instant,
}

/// How often progress is reported.
const REPORT_EVERY: Duration = Duration::from_secs(1);

/// How often the caller's thread looks at the workers while they search.
const POLL_EVERY: Duration = Duration::from_millis(2);

impl<'a> Search<'a> {
    /// A search with the default options.
    pub fn new(db: &'a Database) -> Search<'a> {
        Search::with_options(db, SearchOptions::default())
    }

    /// A search over `db` with the memory and threads of `options`.
    pub fn with_options(db: &'a Database, options: SearchOptions) -> Search<'a> {
        let table =
            Arc::new(Transpositions::on_pages(options.transposition_bytes, options.huge_pages));
        let workers = options.threads.max(1);
        let halt = Arc::new(AtomicBool::new(false));
        let busy = (workers > 1).then(|| Arc::new(busy::Busy::new()));
        let worker = || Worker::new(db, table.clone(), halt.clone(), busy.clone());
        let first = worker();
        let helpers: Vec<Worker> = (1..workers).map(|_| worker()).collect();
        let published = std::iter::once(&first).chain(&helpers).map(|w| w.published()).collect();
        Search {
            db,
            table,
            first,
            helpers,
            halt,
            published,
            alone_nodes: options.alone_nodes,
            elapsed: Duration::ZERO,
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

    /// What all questions so far have cost, over all threads. The
    /// leaves' figures are those of the thread that read the most sectors
    /// (each thread finds the same maps); caches made and copies are
    /// summed.
    pub fn stats(&self) -> SearchStats {
        stats_of(&self.published, self.started, self.elapsed)
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
        let found = self.ask(state, score);
        self.elapsed += self.started.take().map_or(Duration::ZERO, |t| t.elapsed());
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

    /// The fail-soft score of `state` against the null window below
    /// `score`: alone first, then with every worker.
    fn ask(&mut self, state: &State, score: i8) -> Result<i8, DbError> {
        self.halt.store(false, Relaxed);
        match self.first.ask(state, score, Some(self.alone_nodes)) {
            Ok(found) => return Ok(found),
            Err(Stop::Failed(e)) => return Err(e),
            Err(Stop::Halted) => {}
        }
        self.maybe_report();
        let budget = budget::current();
        let halt = &self.halt;
        let workers = std::iter::once(&mut self.first).chain(self.helpers.iter_mut());
        let (report, published, started, elapsed) =
            (self.report, &self.published, self.started, self.elapsed);
        let mut next_report = self.next_report;
        let answers: Vec<Result<i8, Stop>> = std::thread::scope(|scope| {
            let running: Vec<_> = workers
                .map(|worker| {
                    let budget = budget.clone();
                    scope.spawn(move || {
                        let answer = match budget {
                            Some(b) => budget::with_budget(b, || worker.ask(state, score, None)),
                            None => worker.ask(state, score, None),
                        };
                        // An answer or a failure ends the question for all.
                        if !matches!(answer, Err(Stop::Halted)) {
                            halt.store(true, Relaxed);
                        }
                        answer
                    })
                })
                .collect();
            while !running.iter().all(|t| t.is_finished()) {
                std::thread::sleep(POLL_EVERY);
                if let Some(report) = report.filter(|_| Instant::now() >= next_report) {
                    next_report = Instant::now() + REPORT_EVERY;
                    report(&stats_of(published, started, elapsed));
                }
            }
            running
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        });
        self.next_report = next_report;
        let mut failure = None;
        for answer in answers {
            match answer {
                Ok(found) => return Ok(found),
                Err(Stop::Failed(e)) => failure = failure.or(Some(e)),
                Err(Stop::Halted) => {}
            }
        }
        Err(failure.unwrap_or_else(|| {
            DbError::Interrupted("every thread of the search stopped without an answer".into())
        }))
    }

    fn maybe_report(&mut self) {
        if let Some(report) = self.report {
            if Instant::now() >= self.next_report {
                self.next_report = Instant::now() + REPORT_EVERY;
                report(&self.stats());
            }
        }
    }
}

/// What workers have published, summed; see [`Search::stats`].
fn stats_of(
    published: &[Arc<Published>],
    started: Option<Instant>,
    elapsed: Duration,
) -> SearchStats {
    let running = started.map_or(Duration::ZERO, |t| t.elapsed());
    let mut stats = SearchStats { elapsed: elapsed + running, ..SearchStats::default() };
    for p in published {
        stats.nodes += p.nodes.load(Relaxed);
        stats.probes += p.probes.load(Relaxed);
        stats.transpositions += p.transpositions.load(Relaxed);
        stats.remembered += p.remembered.load(Relaxed);
        let loaded: Loaded = p.loaded.lock().map(|l| *l).unwrap_or_default();
        if loaded.sectors > stats.sectors_loaded {
            stats.sectors_loaded = loaded.sectors;
            stats.leaf_bytes = loaded.bytes;
            stats.loading = loaded.time;
        }
        stats.leaf_caches_built += loaded.built;
        stats.leaf_copies += loaded.copied;
    }
    stats
}
