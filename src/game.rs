//! A game in progress: the positions played so far and the repetition rule
//! that ends it in a draw.
//!
//! The tables know nothing of repetition: their values are those of a
//! position on its own. The rules text of nine men's morris draws a game
//! as soon as the board repeats an earlier arrangement
//! ([`Repetition::Board`], the default); many players use threefold
//! repetition of the whole position instead ([`Repetition::Threefold`]).
//! [`Game::choose_move`] is the perfect player under such a rule, as far
//! as the tables allow: it takes a repetition draw when it cannot win, and
//! among moves of equal value avoids those that let the opponent repeat.

use crate::fold_hash::FoldMap;
use crate::position::{Color, Move, Position};
use crate::query::{after, Exactness, MoveValue, Query, QueryError, PERFECT_PLAYER};
use crate::rules::{legal_moves, status, Status};
use crate::tiebreak::{best_draws, Style, TieBreak, Values};
use crate::value::Value;
use crate::variant::Variant;
use std::fmt;
use std::str::FromStr;

/// When a repetition ends the game in a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Repetition {
    /// The stones on the board stand as they stood at an earlier point of
    /// the game (whoever is to move, whatever is in hand).
    #[default]
    Board,
    /// The same position (board, side to move, stones in hand) occurs for
    /// the third time.
    Threefold,
}

impl FromStr for Repetition {
    type Err = String;
    fn from_str(text: &str) -> Result<Repetition, String> {
        match text {
            "board" => Ok(Repetition::Board),
            "threefold" => Ok(Repetition::Threefold),
            other => Err(format!("repetition rule '{other}': expected 'board' or 'threefold'")),
        }
    }
}

impl fmt::Display for Repetition {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Repetition::Board => "board",
            Repetition::Threefold => "threefold",
        })
    }
}

/// How many moves of its own ahead the app set's winner makes sure that
/// the opponent cannot force a repetition ([`Game::holds`]), once both
/// hands are empty: 2 looks four plies past the move. Depth 1 (two
/// plies) lost 6 of 20,003 won starts of six to repetitions
/// (docs/progress.md).
const SAFE_DEPTH: u32 = 2;

/// The same while a side has stones in hand: 4 looks eight plies past
/// the move. Captures that balance placements bring back boards of the
/// placement phase, and on nine's board such traps close up to ten
/// plies after the move that walks into them: depth 2 lost 1 of 500
/// sampled won starts, depth 3 lost 9 of 90,001 that the search does not
/// prove drawn, depth 4 won the 8 of them replayed (and looking 3 deep
/// everywhere cost 9 times as much as 2).
const PLACING_SAFE_DEPTH: u32 = 4;

/// [`Game::keeps_win`]'s answers within one search, so that lines that
/// transpose share them. The answer at a position depends on the
/// position, the depth, and only those earlier positions whose boards
/// the game could come back to within the plies the search looks at
/// ([`Game::reachable_history`]); all three are the key.
type Answers = FoldMap<(Position, u32, Vec<Position>), bool>;

/// The positions of a game from its first, under a repetition rule.
#[derive(Clone, Debug)]
pub struct Game {
    rule: Repetition,
    positions: Vec<Position>,
}

impl Game {
    /// A game that starts at `position`.
    pub fn new(position: Position, rule: Repetition) -> Game {
        Game { rule, positions: vec![position] }
    }

    /// The repetition rule in force.
    pub fn rule(&self) -> Repetition {
        self.rule
    }

    /// The position to move from.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game has a position")
    }

    /// The positions so far, the first one first.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// Adds the position a move led to.
    pub fn push(&mut self, position: Position) {
        self.positions.push(position);
    }

    /// Whether the game is drawn by repetition at its last position: the
    /// ply (index in [`Game::positions`]) of the earlier position it
    /// repeats, if so.
    pub fn repeated(&self) -> Option<usize> {
        let (last, earlier) = self.positions.split_last()?;
        self.repeats(earlier, last)
    }

    /// Whether playing to `next` would end the game by repetition.
    pub fn would_repeat(&self, next: &Position) -> bool {
        self.repeats(&self.positions, next).is_some()
    }

    /// The first of `earlier` that `next` repeats under the rule; under
    /// threefold, only once `next` occurs for the third time.
    fn repeats(&self, earlier: &[Position], next: &Position) -> Option<usize> {
        match self.rule {
            Repetition::Board => {
                earlier.iter().position(|p| p.white == next.white && p.black == next.black)
            }
            Repetition::Threefold => {
                let same: Vec<usize> =
                    (0..earlier.len()).filter(|&i| earlier[i] == *next).collect();
                (same.len() >= 2).then(|| same[0])
            }
        }
    }

    /// The perfect player's move at the last position under the rule, or
    /// `None` when the game is over; among drawing moves it takes the one
    /// that leaves the opponent the most losing replies
    /// ([`TieBreak::Replies`]). See [`Game::choose_move_by`].
    pub fn choose_move(&self, query: &Query) -> Result<Option<MoveValue>, QueryError> {
        self.choose_move_by(query, Style::REPLIES)
    }

    /// The perfect player's move at the last position under the rule, in
    /// `style` (tie-break among drawing moves, repetition draws declined or
    /// not), or `None` when the game is over: the first of
    /// [`Game::best_moves`]. Where a move's value comes from the placement
    /// search (a placement table missing), the tie-break is left out: the
    /// first drawing move is taken. Where a value would come from the
    /// win/draw/loss tier alone (no distance), an error says that the
    /// perfect player needs the full tier ([`Query::check_distances`]).
    pub fn choose_move_by(
        &self,
        query: &Query,
        style: Style,
    ) -> Result<Option<MoveValue>, QueryError> {
        let position = *self.position();
        if self.is_over(query.variant()) {
            return Ok(None);
        }
        query.check_distances(&position, PERFECT_PLAYER)?;
        if let Some(chosen) = self.progress_choice(query, &position)? {
            return Ok(Some(chosen));
        }
        let moves = query.moves(&position)?;
        let valued: Vec<(Move, Value)> = moves.iter().map(|m| (m.mv, m.value)).collect();
        // Searched values (no placement table) cost a search each: no
        // tie-break looks further ahead then.
        let searched = moves.iter().any(|m| m.exactness != Exactness::Exact);
        let tie_break = if searched { TieBreak::Uniform } else { style.tie_break };
        let best = self.best_moves(query.variant(), valued, query, tie_break, style.play_on)?;
        Ok(best.first().map(|&(mv, value)| {
            let m = moves.iter().find(|m| m.mv == mv).expect("one of the moves");
            MoveValue { value, ..*m }
        }))
    }

    /// In an app set, at a won or lost position of a cyclic pair: the
    /// move of [`Query::progress_moves`] under the rule. The loser takes a
    /// repetition draw where it has one (as [`Game::best_moves`] does). The
    /// winner leaves out a move that repeats (it would draw); of the rest, those after which
    /// the opponent cannot repeat come first; then the best progress key.
    /// A won position whose every winning move repeats takes the rules'
    /// way ([`Game::best_moves`]). `None` where the tier does not apply.
    fn progress_choice(
        &self,
        query: &Query,
        position: &Position,
    ) -> Result<Option<MoveValue>, QueryError> {
        let state = position.state();
        let (value, exactness) = query.state_value(&state)?;
        if exactness == Exactness::Exact {
            return Ok(None);
        }
        let moves = match query.progress_moves(&state, value)? {
            Some(moves) => moves,
            // Outside the cyclic pairs an app set's winner keeps the win,
            // every winning move alike; the repetition rule still orders
            // them (a capture can bring back an earlier board).
            None if matches!(value, Value::Win(_)) && query.database().is_app_set() => {
                self.winning_moves(query, position)?
            }
            None => return Ok(None),
        };
        let repeats = |m: &MoveValue| self.would_repeat(&after(position, m.mv));
        if matches!(value, Value::Loss(_)) && moves.iter().any(|(m, _)| repeats(m)) {
            // The loser takes the repetition draw: the rules' way.
            return Ok(None);
        }
        let fresh: Vec<&(MoveValue, u32)> = moves.iter().filter(|(m, _)| !repeats(m)).collect();
        if matches!(value, Value::Loss(_)) {
            return Ok(fresh.first().map(|(m, _)| *m));
        }
        // The winner: the first move (by progress key) that keeps the win
        // against every defence by repetition for the most plies ahead.
        let deepest = if state.is_moving_phase() { SAFE_DEPTH } else { PLACING_SAFE_DEPTH };
        let (mut answers, mut game) = (Answers::default(), self.clone());
        for depth in (0..=deepest).rev() {
            for (m, _) in &fresh {
                if game.holds(query, m.mv, depth, &mut answers)? {
                    return Ok(Some(*m));
                }
            }
        }
        Ok(fresh.first().map(|(m, _)| *m))
    }

    /// The moves of an app set's won position into states lost for the
    /// opponent, all with key 0, in the order of [`legal_moves`].
    fn winning_moves(
        &self,
        query: &Query,
        position: &Position,
    ) -> Result<Vec<(MoveValue, u32)>, QueryError> {
        let moves = query.moves(position)?;
        Ok(moves.into_iter().filter(|m| matches!(m.value, Value::Win(_))).map(|m| (m, 0)).collect())
    }

    /// Whether the winning move `mv` (from the game's last position, won
    /// for the side to move) holds against repetition for `depth` more
    /// moves of the winner: the game ends at once, or the opponent has no
    /// reply that repeats and, with `depth` above 0, after every reply the
    /// winner again has a winning move that holds for `depth - 1`. The
    /// search pushes the positions of its line onto this game and takes
    /// them off again.
    fn holds(
        &mut self,
        query: &Query,
        mv: Move,
        depth: u32,
        answers: &mut Answers,
    ) -> Result<bool, QueryError> {
        let next = after(self.position(), mv);
        // No reply: the game is over (as `status` says).
        let replies = legal_moves(query.variant(), &next.state());
        if replies.is_empty() {
            return Ok(true);
        }
        self.push(next);
        let holds = self.holds_against(query, &replies, depth, answers);
        self.positions.pop();
        holds
    }

    /// [`Game::holds`] once its move is played: against each of `replies`.
    fn holds_against(
        &mut self,
        query: &Query,
        replies: &[Move],
        depth: u32,
        answers: &mut Answers,
    ) -> Result<bool, QueryError> {
        let next = *self.position();
        if replies.iter().any(|&r| self.would_repeat(&after(&next, r))) {
            return Ok(false);
        }
        if depth == 0 {
            return Ok(true);
        }
        for &reply in replies {
            let back = after(&next, reply);
            let moves = legal_moves(query.variant(), &back.state());
            if moves.is_empty() {
                continue;
            }
            self.push(back);
            let keeps = self.keeps_win_among(query, depth - 1, moves, answers);
            self.positions.pop();
            if !keeps? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether the side to move, at the game's last position (won by the
    /// tables), has a move that keeps the win against repetition for
    /// `depth` more of its own moves: a move into a state lost for the
    /// opponent, not a repetition, after which the opponent has no reply
    /// that repeats and, while `depth` lasts, after every reply the winner
    /// again has such a move. The app player looks 2 deep. `false` proves
    /// that the win cannot be kept under the rule: whatever the winner
    /// plays, within `depth + 1` of its moves the opponent can force a
    /// repetition, or the winner must leave the states the tables call
    /// won (and a state the tables do not call won lets the opponent hold
    /// at least the draw). `true` proves nothing beyond that horizon.
    pub fn keeps_win(&self, query: &Query, depth: u32) -> Result<bool, QueryError> {
        let moves = legal_moves(query.variant(), &self.position().state());
        self.clone().keeps_win_among(query, depth, moves, &mut Answers::default())
    }

    /// [`Game::keeps_win`] given the position's legal `moves`, with the
    /// answers found so far in this search.
    fn keeps_win_among(
        &mut self,
        query: &Query,
        depth: u32,
        moves: Vec<Move>,
        answers: &mut Answers,
    ) -> Result<bool, QueryError> {
        let position = *self.position();
        // The search looks at the winner's move and the reply, then
        // `depth` more of each. At depth 0 that is quicker than the key.
        let key = (depth > 0)
            .then(|| (position, depth, self.reachable_history(query.variant(), 2 * depth + 2)));
        if let Some(&known) = key.as_ref().and_then(|key| answers.get(key)) {
            return Ok(known);
        }
        let mut keeps = false;
        for mv in moves {
            let ahead = after(&position, mv);
            if self.would_repeat(&ahead) {
                continue;
            }
            // Lost for the opponent: left with two stones, or so by the
            // tables (a blocked side's state is a loss there).
            let state = ahead.state();
            let won =
                state.mover_stones() < 3 || matches!(query.state_value(&state)?.0, Value::Loss(_));
            if won && self.holds(query, mv, depth, answers)? {
                keeps = true;
                break;
            }
        }
        if let Some(key) = key {
            answers.insert(key, keeps);
        }
        Ok(keeps)
    }

    /// The positions before the last whose boards the game could stand in
    /// again within `plies` plies, in a fixed order; the others cannot be
    /// repeated in that time, so nothing within it depends on them.
    ///
    /// A ply places or moves one stone and captures at most one. So each
    /// side's stones on the board rise at most by its placements (no more
    /// than its hand) and fall at most by the other side's plies, and the
    /// stones of both together fall only by a capture with a moved stone:
    /// never while both sides must place. In a placement phase the boards
    /// before the last placement that captured nothing are out of reach.
    pub fn reachable_history(&self, variant: &Variant, plies: u32) -> Vec<Position> {
        let now = self.position();
        let plies_of = |side: Color| {
            if side == now.to_move {
                plies.div_ceil(2)
            } else {
                plies / 2
            }
        };
        let hand = |side: Color| {
            u32::from(if side == Color::White { now.white_hand } else { now.black_hand })
        };
        let placements = |side: Color| hand(side).min(plies_of(side));
        let moves = |side: Color| {
            if variant.move_while_placing() {
                plies_of(side)
            } else {
                plies_of(side).saturating_sub(hand(side))
            }
        };
        let (white, black) = (now.white.count_ones(), now.black.count_ones());
        let white_range =
            white.saturating_sub(plies_of(Color::Black))..=white + placements(Color::White);
        let black_range =
            black.saturating_sub(plies_of(Color::White))..=black + placements(Color::Black);
        let both = white + black;
        let both_range = both.saturating_sub(moves(Color::White) + moves(Color::Black))
            ..=both + placements(Color::White) + placements(Color::Black);
        let (_, earlier) = self.positions.split_last().expect("a game has a position");
        let mut reachable: Vec<Position> = earlier
            .iter()
            .filter(|p| {
                let (w, b) = (p.white.count_ones(), p.black.count_ones());
                white_range.contains(&w)
                    && black_range.contains(&b)
                    && both_range.contains(&(w + b))
            })
            .copied()
            .collect();
        reachable.sort_unstable_by_key(|p| {
            (p.white, p.black, p.white_hand, p.black_hand, p.to_move == Color::White)
        });
        reachable
    }

    /// Whether the game is over at its last position: by the rules or by
    /// repetition.
    pub fn is_over(&self, variant: &Variant) -> bool {
        status(variant, &self.position().state()) != Status::Playing || self.repeated().is_some()
    }

    /// The moves the perfect player chooses among at the last position,
    /// all of the same value, given `moves`, the position's every legal
    /// move with its value, best first; empty when the game is over.
    ///
    /// A move that repeats ends the game in a draw, whatever the tables
    /// say of the position it leads to, so it is valued as a draw. When
    /// the player cannot win (by the tables) with another move, it takes
    /// that draw (the first such move), unless `play_on` and another move
    /// keeps the draw by the tables: then the game goes on, and the
    /// opponent keeps its chances to go wrong. Otherwise it keeps the best of the
    /// other moves, preferring among those of equal value the ones after
    /// which the opponent cannot repeat, and among draws those `tie_break`
    /// scores best. The value given with each move is its value under the
    /// rule (a draw for a repetition). No tie-break changes the value.
    pub fn best_moves<V: Values>(
        &self,
        variant: &Variant,
        moves: Vec<(Move, Value)>,
        values: &V,
        tie_break: TieBreak,
        play_on: bool,
    ) -> Result<Vec<(Move, Value)>, V::Error> {
        if self.is_over(variant) {
            return Ok(Vec::new());
        }
        let position = *self.position();
        let (repeating, others): (Vec<_>, Vec<_>) =
            moves.into_iter().partition(|&(mv, _)| self.would_repeat(&after(&position, mv)));
        let best_other = others.first().map(|&(_, v)| v);
        if let Some(&(draw, _)) = repeating.first() {
            let keeps_draw = play_on && best_other == Some(Value::Draw);
            if !matches!(best_other, Some(Value::Win(_))) && !keeps_draw {
                return Ok(vec![(draw, Value::Draw)]);
            }
        }
        let Some(best) = best_other else { return Ok(Vec::new()) };
        let equal: Vec<Move> =
            others.iter().take_while(|&&(_, v)| v == best).map(|&(mv, _)| mv).collect();
        let safe: Vec<Move> = equal
            .iter()
            .copied()
            .filter(|&mv| !self.lets_opponent_repeat(variant, &position, mv))
            .collect();
        let pool = if safe.is_empty() { equal } else { safe };
        let chosen = if best == Value::Draw {
            best_draws(tie_break, variant, values, &position.state(), &pool)?
        } else {
            pool
        };
        Ok(chosen.into_iter().map(|mv| (mv, best)).collect())
    }

    /// Whether, after `m`, the opponent has a reply that repeats.
    fn lets_opponent_repeat(&self, variant: &Variant, position: &Position, mv: Move) -> bool {
        let next = after(position, mv);
        let mut game = self.clone();
        game.push(next);
        if status(variant, &next.state()) != Status::Playing {
            return false;
        }
        legal_moves(variant, &next.state()).into_iter().any(|r| game.would_repeat(&after(&next, r)))
    }
}
