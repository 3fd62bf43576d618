//! Questions to a solved database: what a position is worth, what every
//! legal move leads to, how perfect play goes on, and which move the
//! perfect player picks.
//!
//! Values are always for the side to move. A [`Position`] is turned into a
//! [`State`] on the way in; what comes back are [`Move`]s and [`Value`]s
//! for the side that moves, and colours appear only where a `Position`
//! does.
//!
//! Every value goes through one function, [`Query::state_value`]: the end
//! of the game first, then the tables of the [`Database`]. A position in a
//! sector that has no table is an error that names the sector and the
//! `morris solve` command that produces it.
//!
//! A directory may hold only the win/draw/loss tier of a sector
//! (`morris export --wdl`): its values are exact without a distance
//! ([`Exactness::ValueOnly`], as the search's), and moves are ranked win,
//! draw, loss. A perfect-play line and the perfect player need distances
//! (a win by kind alone may never be won), so there they are an error
//! that says so ([`DbError::NeedsFullTier`]); [`Query::analyse`] still
//! gives the value and the moves, and that error in place of the line.

use crate::database::{Database, DbError, FullTierNeeded, SectorTable, Stored};
use crate::index::Sector;
use crate::position::{Color, Move, NotationError, Position, State};
use crate::rules::{legal_moves, play, status, Status};
use crate::search::{Outcome, Search, SearchOptions, SearchStats};
use crate::tiebreak::{best_draws, TieBreak, Values};
use crate::value::Value;
use crate::variant::{points, Variant};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

mod memo;
mod progress;

use memo::Memo;

/// Plies of a drawn line before [`Query::analyse`] cuts it.
pub const DRAW_LINE_PLIES: usize = 40;

/// The longest line [`Query::analyse`] follows, whatever the value says: a
/// guard against tables that would lead round in circles.
pub const MAX_LINE_PLIES: usize = 2_000;

/// How far a value can be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exactness {
    /// Win, loss or draw, and the distance to the end, are exact: they come
    /// from a table or from the rules.
    Exact,
    /// Win, loss or draw is exact, the distance is unknown: a placement
    /// position answered by search instead of tables, or a position of a
    /// sector of which the database holds only the win/draw/loss tier.
    ValueOnly,
}

impl Exactness {
    /// Whether both are exact.
    pub fn and(self, other: Exactness) -> Exactness {
        if self == Exactness::Exact && other == Exactness::Exact {
            Exactness::Exact
        } else {
            Exactness::ValueOnly
        }
    }
}

/// A legal move and the result it leads to for the side that makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// The mover's result after the move (the value of the position it
    /// leads to, seen one ply earlier).
    pub value: Value,
    /// Whether that value's distance is exact.
    pub exactness: Exactness,
}

/// A perfect-play line: the winner takes the fastest win, the loser the
/// slowest loss, a drawing side a move that keeps the draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The moves, from the position the line starts at.
    pub moves: Vec<Move>,
    /// The position after the last move of the line.
    pub end: Position,
    /// Whether the line stopped before the end of the game.
    pub cut: bool,
}

/// Everything `morris query` tells about a position.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The position asked about.
    pub position: Position,
    /// The sector of the position, seen from the side to move.
    pub sector: Sector,
    /// The value for the side to move.
    pub value: Value,
    /// Whether the value and every move's value are exact.
    pub exactness: Exactness,
    /// Whether the game goes on, and if not, how it ended.
    pub status: Status,
    /// Every legal move, best first.
    pub moves: Vec<MoveValue>,
    /// A perfect-play line to the end of the game, or cut after
    /// [`DRAW_LINE_PLIES`] plies for a draw; or, where the database holds
    /// only the win/draw/loss tier of a sector the line needs, why there
    /// is none.
    pub line: Result<Line, FullTierNeeded>,
}

/// Error of a query; every message says what is wrong and where.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// A table is missing, damaged, or solved under other rules.
    #[error(transparent)]
    Db(#[from] DbError),
    /// A move that does not parse.
    #[error(transparent)]
    Notation(#[from] NotationError),
    /// A move that parses but cannot be played in the position.
    #[error("move '{text}' is not legal in {position}: {why}")]
    Illegal {
        /// The move as given.
        text: String,
        /// The position, in notation.
        position: String,
        /// Why the move cannot be played.
        why: String,
    },
    /// Stored values that contradict each other: a position's value and the
    /// best of its moves' values differ.
    #[error("{}: the tables disagree: {position} is stored as {stored}, but its best move gives {from_moves}; the tables may be damaged", path.display())]
    Inconsistent {
        /// The table of the position.
        path: PathBuf,
        /// The position, in notation.
        position: String,
        /// Its stored value.
        stored: Value,
        /// The value its best move gives.
        from_moves: Value,
    },
}

/// Queries on the tables of one database.
///
/// Opening tables and decompressing blocks happens on demand and is kept
/// by the [`Database`], so one `Query` (or several over the same database)
/// answers later questions faster.
pub struct Query<'db> {
    db: &'db Database,
    /// Answers placement positions whose sectors have no table; keeps its
    /// transposition table between questions.
    search: RefCell<Search<'db>>,
    /// Table answers already read ([`Memo`]).
    memo: RefCell<Memo>,
}

impl<'db> Query<'db> {
    /// Queries on `db`.
    pub fn new(db: &'db Database) -> Query<'db> {
        Query { db, search: RefCell::new(Search::new(db)), memo: RefCell::default() }
    }

    /// Queries on `db` that call `report` about once a second while a
    /// placement search runs.
    pub fn with_search_progress(
        db: &'db Database,
        report: &'db dyn Fn(&SearchStats),
    ) -> Query<'db> {
        Query::with_search(db, SearchOptions::default(), report)
    }

    /// Queries on `db` whose placement search has `options` and calls
    /// `report` about once a second.
    pub fn with_search(
        db: &'db Database,
        options: SearchOptions,
        report: &'db dyn Fn(&SearchStats),
    ) -> Query<'db> {
        let search = RefCell::new(Search::with_options(db, options).with_progress(report));
        Query { db, search, memo: RefCell::default() }
    }

    /// What the placement search has done so far (all zero when no
    /// position needed it).
    pub fn search_stats(&self) -> SearchStats {
        self.search.borrow().stats()
    }

    /// The database asked.
    pub fn database(&self) -> &'db Database {
        self.db
    }

    /// The variant of the database, with its rules.
    pub fn variant(&self) -> &'db Variant {
        self.db.variant()
    }

    /// The value of `state` for the side to move. The one place values come
    /// from: a side with fewer than 3 stones has lost, anything else is read
    /// from its sector's table; a placement position whose sector has no
    /// table is searched down to the moving-phase tables, which proves win,
    /// loss or draw but no distance (`ValueOnly`; its `Value` then carries
    /// the placeholder distance 0 for a loss and 1 for a win). A sector of
    /// which the database holds only the win/draw/loss table is answered
    /// from it, `ValueOnly` with the same placeholders.
    pub fn state_value(&self, state: &State) -> Result<(Value, Exactness), QueryError> {
        self.bounded_value(state, None, &mut HashMap::new())
    }

    /// As [`Query::state_value`], knowing that the position's value for
    /// the side to move is at least the reverse of `parent` (the value of
    /// the position before, whose mover does no better than that). A
    /// searched position then needs one or two null-window proofs instead
    /// of a full search. Searched outcomes are remembered in `seen` by
    /// canonical position, so symmetric moves are searched once.
    fn bounded_value(
        &self,
        state: &State,
        parent: Option<Outcome>,
        seen: &mut HashMap<(Sector, u64), Outcome>,
    ) -> Result<(Value, Exactness), QueryError> {
        if state.mover_stones() < 3 {
            return Ok((Value::Loss(0), Exactness::Exact));
        }
        match self.memo.borrow_mut().stored(state, || self.db.stored(state)) {
            Ok(Stored::Exact(value)) => Ok((value, Exactness::Exact)),
            Ok(Stored::Outcome(outcome)) => Ok((Value::of_outcome(outcome), Exactness::ValueOnly)),
            // Lasker's placement phase has cycles (a player may slide
            // while placing), which the search does not handle: its
            // values come from its tables, and a missing one is an error.
            Err(DbError::Missing { .. })
                if !state.is_moving_phase() && !self.variant().move_while_placing() =>
            {
                let sector = Sector::of(state);
                let key =
                    (sector, self.db.indexer().sector(sector).rank(state.mover, state.opponent));
                let outcome = match seen.get(&key) {
                    Some(&o) => o,
                    None => {
                        let o = self.search_outcome(state, parent)?;
                        seen.insert(key, o);
                        o
                    }
                };
                Ok((Value::of_outcome(outcome), Exactness::ValueOnly))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The outcome of a placement position without a table, by search;
    /// `parent` as in [`Query::bounded_value`].
    fn search_outcome(
        &self,
        state: &State,
        parent: Option<Outcome>,
    ) -> Result<Outcome, QueryError> {
        // The search may reach any moving sector up to the position's
        // stones: ask for all of them up front, not node by node.
        self.db.check_moving_phase(state.mover_stones() + state.opponent_stones())?;
        let mut search = self.search.borrow_mut();
        let outcome = match parent.map(|p| -p.score()) {
            // Nothing known: the win is asked first. A win is then one
            // proof instead of two, a draw still two (the mover holds the
            // draw, the other side holds it too) and only a loss costs one
            // more. Morabaraba's start is a win; nine's a draw.
            None => {
                if search.at_least(state, 1)? {
                    Outcome::Win
                } else if search.at_least(state, 0)? {
                    Outcome::Draw
                } else {
                    Outcome::Loss
                }
            }
            // The parent's outcome bounds this one from below, and the
            // likeliest answer is that bound (most moves keep the value):
            // asked upwards from it, that answer is one proof.
            Some(1) => Outcome::Win,
            Some(floor) => {
                if !search.at_least(state, floor + 1)? {
                    Outcome::from_score(floor)
                } else if floor == 0 || !search.at_least(state, 1)? {
                    Outcome::from_score(floor + 1)
                } else {
                    Outcome::Win
                }
            }
        };
        Ok(outcome)
    }

    /// The value of `position` for the side to move. A game that is over is
    /// answered by the rules, without a table.
    pub fn value(&self, position: &Position) -> Result<(Value, Exactness), QueryError> {
        self.value_of(&position.state())
    }

    // The methods that take a `Position` turn it into a `State` once and go
    // on with these, which work on states; a colour comes along only where
    // a position has to be shown.

    fn value_of(&self, state: &State) -> Result<(Value, Exactness), QueryError> {
        match status(self.variant(), state) {
            Status::Lost => Ok((Value::Loss(0), Exactness::Exact)),
            Status::Drawn => Ok((Value::Draw, Exactness::Exact)),
            Status::Playing => self.state_value(state),
        }
    }

    /// Every legal move with the result it leads to for the side to move,
    /// best first: the fastest win, then draws, then the slowest loss;
    /// results without a distance by kind ([`sort_best_first`]). Moves of
    /// equal value keep the order of [`legal_moves`].
    pub fn moves(&self, position: &Position) -> Result<Vec<MoveValue>, QueryError> {
        self.moves_of(&position.state())
    }

    fn moves_of(&self, state: &State) -> Result<Vec<MoveValue>, QueryError> {
        self.moves_below(state, None)
    }

    /// Every legal move of `state` with its result, best first; `known`,
    /// when a search found the position's outcome, bounds every move's
    /// result from above and spares proofs.
    fn moves_below(
        &self,
        state: &State,
        known: Option<Outcome>,
    ) -> Result<Vec<MoveValue>, QueryError> {
        let mut seen = HashMap::new();
        let mut moves = legal_moves(self.variant(), state)
            .into_iter()
            .map(|mv| {
                let (after, exactness) = self.bounded_value(&play(state, mv), known, &mut seen)?;
                Ok(MoveValue { mv, value: after.back(), exactness })
            })
            .collect::<Result<Vec<_>, QueryError>>()?;
        sort_best_first(&mut moves);
        Ok(moves)
    }

    /// The first of [`Query::moves`]: the fastest win, the slowest loss, or
    /// a move that keeps the draw; where the values have no distance (a
    /// search's, the win/draw/loss tier's), a move that keeps the value.
    /// `None` when the game is over.
    pub fn best_move(&self, position: &Position) -> Result<Option<MoveValue>, QueryError> {
        let state = position.state();
        if status(self.variant(), &state) != Status::Playing {
            return Ok(None);
        }
        let (value, exactness) = self.state_value(&state)?;
        self.best_of(&state, position.to_move, value, exactness).map(Some)
    }

    /// The best move of a state that is not over, whose value is `value`
    /// (`to_move` moves, for the error message). With exact values it stops
    /// at the first move (in the order of [`legal_moves`]) that leads to
    /// `value`, which is the first of the sorted move list when the tables
    /// are consistent.
    fn best_of(
        &self,
        state: &State,
        to_move: Color,
        value: Value,
        exactness: Exactness,
    ) -> Result<MoveValue, QueryError> {
        if exactness == Exactness::Exact {
            for mv in legal_moves(self.variant(), state) {
                let (after, e) = self.state_value(&play(state, mv))?;
                if e == Exactness::Exact && after.back() == value {
                    return Ok(MoveValue { mv, value, exactness });
                }
            }
        }
        if exactness == Exactness::ValueOnly {
            if let Some(best) = self.progress_move(state, value)? {
                return Ok(best);
            }
            if let Some(best) = self.first_keeping(state, value)? {
                return Ok(best);
            }
        }
        let moves = self.moves_of(state)?;
        let best = *moves.first().expect("a position that is not over has a legal move");
        self.check_agrees(state, to_move, value, exactness, &best)?;
        Ok(best)
    }

    /// The first move, in the search's order, whose result is as good as
    /// `value` (of a searched position): the move the search's own proof
    /// used, so its proof is still in the transposition table.
    fn first_keeping(&self, state: &State, value: Value) -> Result<Option<MoveValue>, QueryError> {
        let known = Some(outcome_of(value));
        let moves = self.search.borrow().ordered_moves(state);
        let mut seen = HashMap::new();
        for mv in moves {
            let (after, exactness) = self.bounded_value(&play(state, mv), known, &mut seen)?;
            if after.back().kind() == value.kind() {
                return Ok(Some(MoveValue { mv, value: after.back(), exactness }));
            }
        }
        Ok(None)
    }

    /// An error unless the best move's result agrees with the state's
    /// value (fully when both are exact, in kind otherwise).
    fn check_agrees(
        &self,
        state: &State,
        to_move: Color,
        value: Value,
        exactness: Exactness,
        best: &MoveValue,
    ) -> Result<(), QueryError> {
        let agree = if exactness.and(best.exactness) == Exactness::Exact {
            best.value == value
        } else {
            best.value.kind() == value.kind()
        };
        if agree {
            return Ok(());
        }
        Err(QueryError::Inconsistent {
            path: self.db.values_path(Sector::of(state)),
            position: Position::from_state(state, to_move).notation(self.variant()),
            stored: value,
            from_moves: best.value,
        })
    }

    /// A perfect-play line from `position`, at most `max_plies` long: the
    /// winner takes the fastest win, the loser the slowest loss, a drawing
    /// side the first move that keeps the draw. `cut` says whether it
    /// stopped before the end of the game.
    pub fn line(&self, position: &Position, max_plies: usize) -> Result<Line, QueryError> {
        let state = position.state();
        let (value, exactness) = self.value_of(&state)?;
        self.line_from(state, position.to_move, value, exactness, max_plies)
    }

    /// The line from `at`, with `to_move` to move, whose value is `value`.
    fn line_from(
        &self,
        mut at: State,
        mut to_move: Color,
        mut value: Value,
        mut exactness: Exactness,
        max_plies: usize,
    ) -> Result<Line, QueryError> {
        let v = self.variant();
        let mut moves = Vec::new();
        loop {
            if status(v, &at) != Status::Playing {
                return Ok(Line { moves, end: Position::from_state(&at, to_move), cut: false });
            }
            if moves.len() >= max_plies {
                return Ok(Line { moves, end: Position::from_state(&at, to_move), cut: true });
            }
            // Values without distances would let a won line go round in
            // circles: it stops at the first position that has none.
            self.distances_needed(&at, LINE)?;
            let best = self.best_of(&at, to_move, value, exactness)?;
            moves.push(best.mv);
            at = play(&at, best.mv);
            to_move = to_move.other();
            (value, exactness) = self.state_value(&at)?;
        }
    }

    /// The value, every move and a perfect-play line of `position`; a drawn
    /// line is cut after [`DRAW_LINE_PLIES`] plies. Checks that the value
    /// agrees with the best move's.
    pub fn analyse(&self, position: &Position) -> Result<Analysis, QueryError> {
        let state = position.state();
        let sector = Sector::of(&state);
        let status = status(self.variant(), &state);
        if status != Status::Playing {
            let (value, exactness) = self.value_of(&state)?;
            let line = Ok(Line { moves: Vec::new(), end: *position, cut: false });
            return Ok(Analysis {
                position: *position,
                sector,
                value,
                exactness,
                status,
                moves: Vec::new(),
                line,
            });
        }
        let (value, exactness) = self.state_value(&state)?;
        let known = (exactness == Exactness::ValueOnly).then(|| outcome_of(value));
        let moves = self.moves_below(&state, known)?;
        let best = moves[0];
        self.check_agrees(&state, position.to_move, value, exactness, &best)?;
        let line = match self.line_after(position, value, best, known) {
            Ok(line) => Ok(line),
            Err(QueryError::Db(DbError::NeedsFullTier(needed))) => Err(needed),
            Err(e) => return Err(e),
        };
        let exactness = moves.iter().fold(exactness, |e, m| e.and(m.exactness));
        Ok(Analysis { position: *position, sector, value, exactness, status, moves, line })
    }

    /// The line of [`Query::analyse`] from `position` (not over), whose
    /// value is `value` and best move `best`; `known` as in
    /// [`Query::moves_below`].
    fn line_after(
        &self,
        position: &Position,
        value: Value,
        best: MoveValue,
        known: Option<Outcome>,
    ) -> Result<Line, QueryError> {
        let state = position.state();
        // Asked first, before a searched position's line costs searches.
        self.distances_needed(&state, LINE)?;
        let max_plies = match value {
            Value::Draw => DRAW_LINE_PLIES,
            _ => MAX_LINE_PLIES,
        };
        // The first ply of the line is the best move already found; for a
        // searched position the one the search's proof used, whose proof
        // the line then follows through the transposition table.
        let first = match known {
            Some(_) => match self.progress_move(&state, value)? {
                Some(m) => m,
                None => self.first_keeping(&state, value)?.unwrap_or(best),
            },
            None => best,
        };
        let next = play(&state, first.mv);
        let (next_value, next_exactness) = self.state_value(&next)?;
        let mut line = self.line_from(
            next,
            position.to_move.other(),
            next_value,
            next_exactness,
            max_plies - 1,
        )?;
        line.moves.insert(0, first.mv);
        Ok(line)
    }

    /// An error ([`DbError::NeedsFullTier`], naming the sector) unless
    /// `position` and the position after each of its moves have
    /// distances, as `what` (the perfect player, which needs them to turn
    /// a win into a victory) needs: none is in a sector of which the
    /// database holds only the win/draw/loss tier, nor is a searched
    /// placement position whose moving phase has such a sector.
    pub fn check_distances(
        &self,
        position: &Position,
        what: &'static str,
    ) -> Result<(), QueryError> {
        let state = position.state();
        self.distances_needed(&state, what)?;
        if status(self.variant(), &state) != Status::Playing {
            return Ok(());
        }
        for mv in legal_moves(self.variant(), &state) {
            self.distances_needed(&play(&state, mv), what)?;
        }
        Ok(())
    }

    /// An error ([`DbError::NeedsFullTier`]) where `what` would meet
    /// values without distances from `state` on: a position of a sector
    /// of which the database holds only the win/draw/loss tier, or a
    /// searched placement position (no table) whose moving phase, where
    /// the search and the line end, has such a sector.
    fn distances_needed(&self, state: &State, what: &'static str) -> Result<(), QueryError> {
        if state.mover_stones() < 3 || status(self.variant(), state) != Status::Playing {
            return Ok(());
        }
        let sector = Sector::of(state);
        // An app set plays from outcomes, with its progress tier where
        // play could go round in circles.
        if self.db.is_app_set() && self.db.has_values(sector) {
            return Ok(());
        }
        match self.db.tier(sector) {
            Ok(SectorTable::Full(_)) => Ok(()),
            Ok(SectorTable::Wdl(_)) => Err(self.db.needs_full_tier(sector, what).into()),
            // Exact where its successors are: their tier decides.
            Ok(SectorTable::Derived(_)) => match self.db.stored(state)? {
                Stored::Exact(_) => Ok(()),
                Stored::Outcome(_) => Err(self.db.needs_full_tier(sector, what).into()),
            },
            Err(DbError::Missing { .. }) if !state.is_moving_phase() => {
                let stones = state.mover_stones() + state.opponent_stones();
                Ok(self.db.check_moving_distances(stones, what)?)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The perfect player's move: the fastest win, the slowest loss, and
    /// when the position is a draw, the draw move that leaves the opponent
    /// the most losing replies, then the fewest drawing ones
    /// ([`TieBreak::Replies`]); ties go to the earlier move of
    /// [`legal_moves`]. `None` when the game is over.
    pub fn choose_move(&self, position: &Position) -> Result<Option<MoveValue>, QueryError> {
        let state = position.state();
        if status(self.variant(), &state) != Status::Playing {
            return Ok(None);
        }
        self.check_distances(position, PERFECT_PLAYER)?;
        let (value, exactness) = self.state_value(&state)?;
        if exactness == Exactness::ValueOnly {
            if let Some(m) = self.progress_move(&state, value)? {
                return Ok(Some(m));
            }
        }
        let moves = self.moves_of(&state)?;
        let best = moves[0];
        if best.value != Value::Draw {
            return Ok(Some(best));
        }
        let draws: Vec<Move> =
            moves.iter().take_while(|m| m.value == Value::Draw).map(|m| m.mv).collect();
        let chosen = best_draws(TieBreak::Replies, self.variant(), self, &state, &draws)?[0];
        Ok(moves.into_iter().find(|m| m.mv == chosen))
    }
}

/// The tie-breaks read values through a query: the tables, or the
/// placement search where a table is missing.
impl Values for Query<'_> {
    type Error = QueryError;
    fn value(&self, state: &State) -> Result<Value, QueryError> {
        Ok(self.value_of(state)?.0)
    }
}

/// Sorts `moves` best first: by [`Value::preference`] (a value without a
/// distance, [`Exactness::ValueOnly`], by its placeholder: its kind, win,
/// draw, loss), and among equal ones the exact before the others (a
/// capture that ends the game before a win of unknown length); the sort
/// is stable, so ties keep their order. [`Query::moves`] and
/// [`crate::probe`] rank moves this way.
pub fn sort_best_first(moves: &mut [MoveValue]) {
    moves.sort_by_key(|m| {
        (std::cmp::Reverse(m.value.preference()), m.exactness != Exactness::Exact)
    });
}

/// What a line needs distances for, in [`DbError::NeedsFullTier`].
const LINE: &str = "a perfect-play line";

/// What the perfect player needs distances for, in
/// [`DbError::NeedsFullTier`]: a win by kind alone may never be won.
pub const PERFECT_PLAYER: &str = "the perfect player";

/// Win, loss or draw, without the distance.
fn outcome_of(value: Value) -> Outcome {
    match value {
        Value::Win(_) => Outcome::Win,
        Value::Draw => Outcome::Draw,
        Value::Loss(_) => Outcome::Loss,
    }
}

/// The position after `mv` (which must be legal in `position`).
pub fn after(position: &Position, mv: Move) -> Position {
    Position::from_state(&play(&position.state(), mv), position.to_move.other())
}

/// Reads `text` as a move and checks that it is legal in `position`; the
/// error says why not.
pub fn parse_move(variant: &Variant, position: &Position, text: &str) -> Result<Move, QueryError> {
    let mv = Move::parse(text, variant)?;
    let state = position.state();
    if legal_moves(variant, &state).contains(&mv) {
        return Ok(mv);
    }
    Err(QueryError::Illegal {
        text: text.to_string(),
        position: position.notation(variant),
        why: why_illegal(variant, position, mv),
    })
}

/// Plays the moves in `text` (separated by spaces or commas) from
/// `position`; returns the position reached and the moves played.
pub fn play_moves(
    variant: &Variant,
    position: &Position,
    text: &str,
) -> Result<(Position, Vec<Move>), QueryError> {
    let mut at = *position;
    let mut played = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()) {
        let mv = parse_move(variant, &at, word)?;
        played.push(mv);
        at = after(&at, mv);
    }
    Ok((at, played))
}

/// Why `mv` cannot be played in `position`, in words.
fn why_illegal(v: &Variant, position: &Position, mv: Move) -> String {
    let b = v.board();
    let state = position.state();
    let (me, them) = (position.to_move, position.to_move.other());
    let name = |p| b.point_name(p).to_string();
    match status(v, &state) {
        Status::Lost if state.mover_stones() < 3 => {
            return format!("the game is over: {me} has fewer than 3 stones")
        }
        Status::Lost => return format!("the game is over: {me} has no legal move"),
        Status::Drawn => return "the game is over: the board is full, a draw".to_string(),
        Status::Playing => {}
    }
    let occupied = state.mover | state.opponent;
    match mv.from {
        None if state.mover_hand == 0 => {
            return format!("{me} has no stones in hand: move a stone{}", example(v, &state));
        }
        Some(_) if state.mover_hand > 0 && !v.move_while_placing() => {
            return format!(
                "{me} still has {} stone(s) in hand and must place one{}",
                state.mover_hand,
                example(v, &state)
            );
        }
        Some(from) if state.mover & 1 << from == 0 => {
            return format!("there is no {me} stone on {}", name(from));
        }
        _ => {}
    }
    if occupied & 1 << mv.to != 0 {
        return format!("{} is not empty", name(mv.to));
    }
    if let Some(from) = mv.from {
        if crate::rules::destinations(v, &state, from) & 1 << mv.to == 0 {
            return format!(
                "{} is not next to {} ({me} has {} stones on the board and does not fly)",
                name(mv.to),
                name(from),
                state.mover.count_ones()
            );
        }
    }
    let own_after = match mv.from {
        Some(from) => state.mover ^ (1 << from) ^ (1 << mv.to),
        None => state.mover | 1 << mv.to,
    };
    let removable = b.removable(state.opponent);
    let closes = b.closes_mill(own_after, mv.to) && removable != 0;
    match (closes, mv.remove) {
        (true, None) => {
            let example: Vec<String> =
                points(removable).take(3).map(|p| format!("{}x{}", body(v, mv), name(p))).collect();
            format!(
                "it closes a mill: add the {them} stone it removes, e.g. {}",
                example.join(" or ")
            )
        }
        (false, Some(_)) => "it closes no mill, so it removes nothing".to_string(),
        (true, Some(r)) if state.opponent & 1 << r == 0 => {
            format!("there is no {them} stone on {} to remove", name(r))
        }
        (true, Some(r)) if removable & 1 << r == 0 => {
            format!("{} stands in a mill and {them} has stones outside mills, which must be removed first", name(r))
        }
        _ => "it is not among the legal moves".to_string(),
    }
}

/// ", e.g. MOVE" with the first legal move, or nothing.
fn example(v: &Variant, state: &State) -> String {
    legal_moves(v, state).first().map_or(String::new(), |m| format!(", e.g. {}", m.notation(v)))
}

/// A move without its removal, in notation.
fn body(v: &Variant, mv: Move) -> String {
    Move { remove: None, ..mv }.notation(v)
}

/// Like [`describe_value`], without the distance when it is not exact.
pub fn describe_result(value: Value, exactness: Exactness, to_move: Color) -> String {
    match (exactness, value) {
        (Exactness::Exact, _) | (_, Value::Draw) => describe_value(value, to_move),
        (Exactness::ValueOnly, Value::Win(_)) => format!("{to_move} wins"),
        (Exactness::ValueOnly, Value::Loss(_)) => format!("{to_move} loses"),
    }
}

/// "White wins in 37 plies", "Black loses in 12 plies", "Draw": a value
/// for the side to move, `to_move`, in words.
pub fn describe_value(value: Value, to_move: Color) -> String {
    let plies = |d: u16| {
        if d == 1 {
            "1 ply".to_string()
        } else {
            format!("{d} plies")
        }
    };
    match value {
        Value::Win(d) => format!("{to_move} wins in {}", plies(d)),
        Value::Loss(d) => format!("{to_move} loses in {}", plies(d)),
        Value::Draw => "Draw".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nine() -> Variant {
        Variant::named("nine").unwrap()
    }

    #[test]
    fn illegal_moves_are_explained() {
        let v = nine();
        // White: a7 d7 b6, Black: c5 d5 e5 (a mill) and a1; White flies? no: 3 stones fly.
        let p = Position::parse("WW....B./W......./BBB..... w 0 0", &v).unwrap();
        for (text, needle) in [
            ("d6", "no stones in hand"),
            ("c5-c4", "no White stone on c5"),
            ("a7-d7", "d7 is not empty"),
            ("b6-g7", "closes a mill: add the Black stone it removes, e.g. b6-g7xa1"),
            ("b6-d6xa1", "closes no mill"),
            ("b6-g7xd5", "d5 stands in a mill"),
            ("b6-g7xg4", "no Black stone on g4"),
            ("z1", "not a point"),
        ] {
            let err = parse_move(&v, &p, text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
            assert!(err.contains("move '"), "{text}: {err}");
        }
        assert!(parse_move(&v, &p, "b6-g7xa1").is_ok());
    }

    #[test]
    fn slides_must_go_to_a_neighbour_without_flying() {
        let v = nine();
        let p = Position::parse("WWW.W.../B......./BBB..... b 0 0", &v).unwrap();
        let err = parse_move(&v, &p, "b6-g4").unwrap_err().to_string();
        assert!(
            err.contains("g4 is not next to b6 (Black has 4 stones on the board and does not fly)"),
            "{err}"
        );
        let p = Position::parse("......../......../........ w 9 9", &v).unwrap();
        let err = parse_move(&v, &p, "d6-d5").unwrap_err().to_string();
        assert!(err.contains("must place"), "{err}");
    }

    #[test]
    fn play_moves_names_the_bad_move_and_its_position() {
        let v = nine();
        let start = Position::start(&v);
        let (p, moves) = play_moves(&v, &start, "d6, d5 d2").unwrap();
        assert_eq!(moves.len(), 3);
        assert_eq!(p.notation(&v), "......../.W...W../.B...... b 7 8");
        let err = play_moves(&v, &start, "d6 d6").unwrap_err().to_string();
        assert!(
            err.contains(
                "move 'd6' is not legal in ......../.W....../........ b 8 9: d6 is not empty"
            ),
            "{err}"
        );
    }

    #[test]
    fn values_are_described_for_the_side_to_move() {
        assert_eq!(describe_value(Value::Win(37), Color::White), "White wins in 37 plies");
        assert_eq!(describe_value(Value::Loss(12), Color::Black), "Black loses in 12 plies");
        assert_eq!(describe_value(Value::Win(1), Color::Black), "Black wins in 1 ply");
        assert_eq!(describe_value(Value::Draw, Color::White), "Draw");
    }
}
