//! Matches between players: the perfect player under a tie-break, a
//! fallible one, a depth-limited alpha-beta player that never sees the
//! tables. `morris match` runs them.
//!
//! A game starts from a position, alternates the players' moves and ends
//! by the rules (a side with fewer than three stones or no move loses; a
//! full board is a draw where the variant says so), by repetition under a
//! [`Repetition`] rule, or at a ply limit (a draw). Each game draws its
//! random numbers from its own generator, seeded from the match's seed and
//! the game's number, so a match gives the same games on any number of
//! threads.

use crate::database::{Database, DbError};
use crate::game::{Game, Repetition};
use crate::index::Sector;
use crate::position::{Color, Move, Position, State};
use crate::query::after;
pub use crate::rng::Rng;
use crate::rules::{for_each_move, legal_moves, play, status, Status};
use crate::sectors::{moving_sectors, placement_sectors};
use crate::tiebreak::{valued_moves, TieBreak, Values, TIE_BREAKS};
use crate::value::{Cell, Value};
use crate::variant::Variant;
use rayon::prelude::*;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

/// Every table of a database read into memory once: a value is a rank
/// and an array read, with no block to decompress. For matches on a
/// variant whose tables fit in memory (six: 6 MiB).
pub struct Memory<'db> {
    db: &'db Database,
    cells: HashMap<Sector, Vec<u16>>,
}

impl<'db> Memory<'db> {
    /// Reads every reachable sector's table of `db`; a missing one is an
    /// error naming it and the command that solves it.
    pub fn load(db: &'db Database) -> Result<Memory<'db>, DbError> {
        let v = db.variant();
        let mut cells = HashMap::new();
        for sector in moving_sectors(v).into_iter().chain(placement_sectors(v)) {
            cells.insert(sector, db.load_cells(sector)?);
        }
        Ok(Memory { db, cells })
    }
}

/// Decompressed blocks of a database's tables, shared by every game of a
/// match and kept up to a memory budget: for variants whose tables do not
/// fit in memory as cells (nine: 27 G states). A game's positions keep to
/// a few sectors, and matches replay the same openings, so most values
/// come from blocks already decompressed; the table's own cache of 8
/// blocks is far too small for the thousands of positions a tie-break
/// looks at.
pub struct Blocks<'db> {
    db: &'db Database,
    /// Blocks each shard may hold before it drops one.
    per_shard: usize,
    shards: Vec<Mutex<BlockMap>>,
}

/// One shard of [`Blocks`]: decompressed cells by sector and block.
type BlockMap = HashMap<(Sector, u32), Arc<[u16]>>;

/// Shards of [`Blocks`]: enough that threads rarely wait on one lock.
const BLOCK_SHARDS: usize = 64;

impl<'db> Blocks<'db> {
    /// An empty cache over `db` holding at most about `budget_bytes` of
    /// decompressed cells.
    pub fn new(db: &'db Database, budget_bytes: u64) -> Blocks<'db> {
        // Blocks hold 16 Ki cells of 2 bytes in today's format; a smaller
        // block only makes the budget looser.
        let blocks = (budget_bytes / (2 * 16384)).max(BLOCK_SHARDS as u64) as usize;
        let shards = (0..BLOCK_SHARDS).map(|_| Mutex::new(HashMap::new())).collect();
        Blocks { db, per_shard: blocks / BLOCK_SHARDS, shards }
    }

    fn block(&self, sector: Sector, block: u32) -> Result<Arc<[u16]>, DbError> {
        let key = (sector, block);
        let shard = &self.shards[shard_of(key)];
        if let Some(cells) = lock(shard).get(&key) {
            return Ok(cells.clone());
        }
        // Decompressed without the lock, so other threads' hits go on.
        let cells: Arc<[u16]> = self.db.table(sector)?.block(block as usize)?.into();
        let mut map = lock(shard);
        if map.len() >= self.per_shard {
            // Any block will do: which ones a match needs again is not
            // worth tracking at this size.
            if let Some(&old) = map.keys().next() {
                map.remove(&old);
            }
        }
        map.insert(key, cells.clone());
        Ok(cells)
    }
}

fn shard_of((sector, block): (Sector, u32)) -> usize {
    let s = sector;
    let h = (u64::from(block) ^ (u64::from(s.mover) << 40) ^ (u64::from(s.opponent) << 48))
        .wrapping_add(u64::from(s.mover_hand) << 56 | u64::from(s.opponent_hand) << 60)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 58) as usize % BLOCK_SHARDS
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The maps only ever hold whole, checked blocks.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Values for Blocks<'_> {
    type Error = DbError;
    fn value(&self, state: &State) -> Result<Value, DbError> {
        if state.mover_stones() < 3 {
            return Ok(Value::Loss(0));
        }
        let sector = Sector::of(state);
        let per_block = match self.db.table(sector) {
            Ok(table) => table.block_cells(),
            // No blocks: its value is one ply over its successors' tables.
            Err(DbError::Derived { .. }) => return self.db.value(state),
            Err(e) => return Err(e),
        };
        let slot = self.db.indexer().sector(sector).rank(state.mover, state.opponent);
        let cells = self.block(sector, (slot / per_block) as u32)?;
        Ok(Value::from(Cell(cells[(slot % per_block) as usize])))
    }
}

impl Values for Memory<'_> {
    type Error = DbError;
    fn value(&self, state: &State) -> Result<Value, DbError> {
        if state.mover_stones() < 3 {
            return Ok(Value::Loss(0));
        }
        let sector = Sector::of(state);
        let Some(cells) = self.cells.get(&sector) else { return Err(self.db.missing(sector)) };
        let slot = self.db.indexer().sector(sector).rank(state.mover, state.opponent);
        Ok(Value::from(Cell(cells[slot as usize])))
    }
}

/// Values straight from the database's tables (a block decompressed per
/// value): for tables too large to hold in memory.
impl Values for Database {
    type Error = DbError;
    fn value(&self, state: &State) -> Result<Value, DbError> {
        Database::value(self, state)
    }
}

/// A player of a match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Player {
    /// The perfect player (by the tables, under the repetition rule as
    /// [`Game::best_moves`] keeps it) with a tie-break among drawing moves;
    /// what ties remain are broken at random.
    Perfect {
        /// The tie-break among drawing moves.
        tie_break: TieBreak,
        /// Whether it declines a repetition draw while another move keeps
        /// the draw ([`Game::best_moves`]).
        play_on: bool,
    },
    /// With probability `error` a uniformly random legal move, otherwise
    /// the perfect player's with `tie_break`.
    Fallible {
        /// The chance of a random move.
        error: f64,
        /// The perfect moves' tie-break.
        tie_break: TieBreak,
    },
    /// Alpha-beta to this depth over stones, mills and mobility; never
    /// reads a table. Ties between equal moves are broken at random.
    AlphaBeta(u32),
}

/// The deepest alpha-beta search a player may ask for.
pub const MAX_ALPHABETA_DEPTH: u32 = 8;

impl FromStr for Player {
    type Err = String;
    fn from_str(text: &str) -> Result<Player, String> {
        let rules: Vec<&str> = TIE_BREAKS.iter().map(|t| t.name()).collect();
        let expected = format!(
            "expected perfect:RULE[:playon], fallible:P[:RULE], random or alphabeta:DEPTH (RULE: {}; P from 0 to 1; DEPTH 1 to {MAX_ALPHABETA_DEPTH})",
            rules.join(", ")
        );
        let bad = |why: String| format!("player '{text}': {why}");
        let parts: Vec<&str> = text.split(':').collect();
        match parts.as_slice() {
            ["perfect"] => Ok(Player::Perfect { tie_break: TieBreak::Uniform, play_on: false }),
            ["perfect", rule] => {
                Ok(Player::Perfect { tie_break: rule.parse().map_err(bad)?, play_on: false })
            }
            ["perfect", rule, "playon"] => {
                Ok(Player::Perfect { tie_break: rule.parse().map_err(bad)?, play_on: true })
            }
            ["random"] => Ok(Player::Fallible { error: 1.0, tie_break: TieBreak::Uniform }),
            ["fallible", p] | ["fallible", p, _] => {
                let error: f64 =
                    p.parse().ok().filter(|e| (0.0..=1.0).contains(e)).ok_or_else(|| {
                        bad(format!("error rate '{p}' is not a number from 0 to 1"))
                    })?;
                let tie_break = match parts.get(2) {
                    Some(rule) => rule.parse().map_err(bad)?,
                    None => TieBreak::Uniform,
                };
                Ok(Player::Fallible { error, tie_break })
            }
            ["alphabeta", d] => {
                let depth: u32 = d
                    .parse()
                    .ok()
                    .filter(|d| (1..=MAX_ALPHABETA_DEPTH).contains(d))
                    .ok_or_else(|| {
                    bad(format!("depth '{d}' is not a number from 1 to {MAX_ALPHABETA_DEPTH}"))
                })?;
                Ok(Player::AlphaBeta(depth))
            }
            _ => Err(bad(expected)),
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Player::Perfect { tie_break, play_on: false } => write!(f, "perfect:{tie_break}"),
            Player::Perfect { tie_break, play_on: true } => write!(f, "perfect:{tie_break}:playon"),
            Player::Fallible { error, tie_break: TieBreak::Uniform } => {
                write!(f, "fallible:{error}")
            }
            Player::Fallible { error, tie_break } => write!(f, "fallible:{error}:{tie_break}"),
            Player::AlphaBeta(d) => write!(f, "alphabeta:{d}"),
        }
    }
}

impl Player {
    /// Whether the player reads the tables.
    pub fn reads_tables(&self) -> bool {
        !matches!(self, Player::AlphaBeta(_))
    }

    /// The player's move at the last position of `game` (which must go on).
    pub fn choose<V: Values>(
        &self,
        variant: &Variant,
        values: &V,
        game: &Game,
        rng: &mut Rng,
    ) -> Result<Move, V::Error> {
        let state = game.position().state();
        match *self {
            Player::Perfect { tie_break, play_on } => {
                perfect(variant, values, game, tie_break, play_on, rng)
            }
            Player::Fallible { error, tie_break } => {
                if error > 0.0 && rng.chance(error) {
                    let moves = legal_moves(variant, &state);
                    Ok(moves[rng.below(moves.len())])
                } else {
                    perfect(variant, values, game, tie_break, false, rng)
                }
            }
            Player::AlphaBeta(depth) => Ok(alphabeta_move(variant, &state, depth, rng)),
        }
    }
}

/// The perfect player's move: one of [`Game::best_moves`] at random.
fn perfect<V: Values>(
    variant: &Variant,
    values: &V,
    game: &Game,
    tie_break: TieBreak,
    play_on: bool,
    rng: &mut Rng,
) -> Result<Move, V::Error> {
    let moves = valued_moves(variant, values, &game.position().state())?;
    let best = game.best_moves(variant, moves, values, tie_break, play_on)?;
    assert!(!best.is_empty(), "a game that goes on has a move");
    Ok(best[rng.below(best.len())].0)
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// A side lost by the rules (fewer than three stones, or no move).
    Rules,
    /// A full board, drawn by the variant's rules.
    FullBoard,
    /// Drawn by the repetition rule.
    Repetition,
    /// Drawn at the ply limit.
    PlyLimit,
}

/// The result of one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// The winner; `None` for a draw.
    pub winner: Option<Color>,
    /// Plies played.
    pub plies: usize,
    /// How it ended.
    pub end: End,
}

/// Plays one game from `start`, White's moves by `white` and Black's by
/// `black`, until the rules, `repetition` or `max_plies` end it.
pub fn play_game<V: Values>(
    variant: &Variant,
    values: &V,
    [white, black]: [&Player; 2],
    start: Position,
    repetition: Repetition,
    max_plies: usize,
    rng: &mut Rng,
) -> Result<GameResult, V::Error> {
    let mut game = Game::new(start, repetition);
    let mut plies = 0;
    loop {
        let position = *game.position();
        let result = |winner, end| Ok(GameResult { winner, plies, end });
        match status(variant, &position.state()) {
            Status::Lost => return result(Some(position.to_move.other()), End::Rules),
            Status::Drawn => return result(None, End::FullBoard),
            Status::Playing => {}
        }
        if game.repeated().is_some() {
            return result(None, End::Repetition);
        }
        if plies >= max_plies {
            return result(None, End::PlyLimit);
        }
        let player = match position.to_move {
            Color::White => white,
            Color::Black => black,
        };
        let mv = player.choose(variant, values, &game, rng)?;
        game.push(after(&position, mv));
        plies += 1;
    }
}

/// Wins, draws and losses of one player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Tally {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// The sum of two tallies.
    pub fn plus(&self, other: &Tally) -> Tally {
        Tally {
            wins: self.wins + other.wins,
            draws: self.draws + other.draws,
            losses: self.losses + other.losses,
        }
    }
}

/// The 95 % Wilson score interval of `k` successes in `n` trials, as
/// fractions; `(0, 1)` when `n` is 0.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The 95 % interval of the difference of two proportions, `k1/n1 -
/// k2/n2`, from their Wilson intervals (Newcombe's hybrid score method).
pub fn difference(k1: u64, n1: u64, k2: u64, n2: u64) -> (f64, f64, f64) {
    let (p1, p2) = (k1 as f64 / n1.max(1) as f64, k2 as f64 / n2.max(1) as f64);
    let ((l1, u1), (l2, u2)) = (wilson(k1, n1), wilson(k2, n2));
    let d = p1 - p2;
    (
        d,
        d - ((p1 - l1).powi(2) + (u2 - p2).powi(2)).sqrt(),
        d + ((u1 - p1).powi(2) + (p2 - l2).powi(2)).sqrt(),
    )
}

/// What a match plays.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    /// The player whose results are counted.
    pub player: Player,
    /// Its opponent.
    pub opponent: Player,
    /// Games with the player as White, and as many as Black.
    pub games: u64,
    /// The seed of every game's generator.
    pub seed: u64,
    /// Plies after which a game is a draw.
    pub max_plies: usize,
    /// The positions games start from, in turn (game `i` of each colour
    /// starts from the `i % len`-th).
    pub starts: Vec<Position>,
    /// The repetition rule.
    pub repetition: Repetition,
}

/// What a match came to, for [`MatchSpec::player`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchResult {
    /// Its results as White.
    pub as_white: Tally,
    /// Its results as Black.
    pub as_black: Tally,
    /// Plies played in all games.
    pub plies: u64,
    /// How many games ended each way.
    pub ends: Vec<(End, u64)>,
}

impl MatchResult {
    /// Both colours together.
    pub fn total(&self) -> Tally {
        self.as_white.plus(&self.as_black)
    }
}

/// Plays a match: game `i` (counted from 0; the first `games` with the
/// player as White) on its own generator, [`Rng::for_game`]`(seed, i)`,
/// in parallel on rayon's current pool. The result does not depend on
/// the number of threads.
pub fn run_match<V>(
    variant: &Variant,
    values: &V,
    spec: &MatchSpec,
) -> Result<MatchResult, V::Error>
where
    V: Values + Sync,
    V::Error: Send,
{
    assert!(!spec.starts.is_empty(), "a match needs a start position");
    let games: Vec<(u64, GameResult)> = (0..2 * spec.games)
        .into_par_iter()
        .map(|i| {
            let as_white = i < spec.games;
            let start = spec.starts[(i % spec.games.max(1)) as usize % spec.starts.len()];
            let players = if as_white {
                [&spec.player, &spec.opponent]
            } else {
                [&spec.opponent, &spec.player]
            };
            let mut rng = Rng::for_game(spec.seed, i);
            let r = play_game(
                variant,
                values,
                players,
                start,
                spec.repetition,
                spec.max_plies,
                &mut rng,
            )?;
            Ok((i, r))
        })
        .collect::<Result<Vec<_>, V::Error>>()?;
    let mut result = MatchResult::default();
    let mut ends: Vec<(End, u64)> = Vec::new();
    for (i, r) in games {
        let colour = if i < spec.games { Color::White } else { Color::Black };
        let tally =
            if colour == Color::White { &mut result.as_white } else { &mut result.as_black };
        match r.winner {
            None => tally.draws += 1,
            Some(w) if w == colour => tally.wins += 1,
            Some(_) => tally.losses += 1,
        }
        result.plies += r.plies as u64;
        match ends.iter_mut().find(|(e, _)| *e == r.end) {
            Some((_, n)) => *n += 1,
            None => ends.push((r.end, 1)),
        }
    }
    ends.sort_by_key(|&(e, _)| e as u8);
    result.ends = ends;
    Ok(result)
}

/// A score beyond any evaluation: a won game.
const WON: i32 = 1_000_000;

/// The alpha-beta player's move: the best by a depth-`depth` search, one
/// of the equal best at random.
fn alphabeta_move(variant: &Variant, state: &State, depth: u32, rng: &mut Rng) -> Move {
    let moves = legal_moves(variant, state);
    let mut best = -WON - 1;
    let mut chosen = Vec::new();
    for &mv in &moves {
        // A window just below the best so far: a move as good as the best
        // gets its exact score, a worse one only a bound below it.
        let s = -negamax(variant, &play(state, mv), depth - 1, 1, -WON - 1, -(best - 1));
        if s > best {
            best = s;
            chosen.clear();
        }
        if s == best {
            chosen.push(mv);
        }
    }
    chosen[rng.below(chosen.len())]
}

fn negamax(v: &Variant, state: &State, depth: u32, ply: i32, mut alpha: i32, beta: i32) -> i32 {
    match status(v, state) {
        Status::Lost => return -(WON - ply),
        Status::Drawn => return 0,
        Status::Playing => {}
    }
    if depth == 0 {
        return evaluate(v, state);
    }
    let mut best = -WON - 1;
    for mv in legal_moves(v, state) {
        let s = -negamax(v, &play(state, mv), depth - 1, ply + 1, -beta, -alpha);
        best = best.max(s);
        alpha = alpha.max(s);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The alpha-beta player's evaluation for the side to move: stones (board
/// and hand) 100 each, closed mills 10 each, legal moves 1 each, the
/// opponent's taken off.
pub fn evaluate(v: &Variant, state: &State) -> i32 {
    let mills = |own| v.board().mills().iter().filter(|&&m| own & m == m).count() as i32;
    let mobility = |s: &State| {
        let mut n = 0;
        for_each_move(v, s, |_| n += 1);
        n
    };
    let swapped = State {
        mover: state.opponent,
        opponent: state.mover,
        mover_hand: state.opponent_hand,
        opponent_hand: state.mover_hand,
    };
    100 * (state.mover_stones() as i32 - state.opponent_stones() as i32)
        + 10 * (mills(state.mover) - mills(state.opponent))
        + (mobility(state) - mobility(&swapped))
}
