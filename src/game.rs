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

use crate::position::Position;
use crate::query::{after, MoveValue, Query, QueryError};
use crate::rules::{legal_moves, status, Status};
use crate::value::Value;
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
    /// `None` when the game is over.
    ///
    /// A move that repeats ends the game in a draw, whatever the tables
    /// say of the position it leads to, so it is valued as a draw. When
    /// the player cannot win (by the tables) with another move, it takes
    /// the draw. Otherwise it plays the best of the
    /// other moves, preferring among those of equal value one after which
    /// the opponent cannot repeat, and among draws the one
    /// [`Query::choose_move`] would pick.
    pub fn choose_move(&self, query: &Query) -> Result<Option<MoveValue>, QueryError> {
        let position = *self.position();
        if status(query.variant(), &position.state()) != Status::Playing
            || self.repeated().is_some()
        {
            return Ok(None);
        }
        let moves = query.moves(&position)?;
        let (repeating, others): (Vec<MoveValue>, Vec<MoveValue>) =
            moves.into_iter().partition(|m| self.would_repeat(&after(&position, m.mv)));
        let best_other = others.first().map(|m| m.value);
        if let Some(&draw) = repeating.first() {
            if !matches!(best_other, Some(Value::Win(_))) {
                return Ok(Some(MoveValue { value: Value::Draw, ..draw }));
            }
        }
        let Some(best) = best_other else { return Ok(None) };
        let equal: Vec<MoveValue> = others.into_iter().take_while(|m| m.value == best).collect();
        let safe: Vec<MoveValue> = equal
            .iter()
            .copied()
            .filter(|m| !self.lets_opponent_repeat(query, &position, m))
            .collect();
        let pool = if safe.is_empty() { equal } else { safe };
        if best != Value::Draw || pool.len() == 1 {
            return Ok(Some(pool[0]));
        }
        // Among draws, the one leaving the opponent most chances to go wrong.
        let first_choice = query.choose_move(&position)?.map(|m| m.mv);
        Ok(Some(pool.iter().copied().find(|m| Some(m.mv) == first_choice).unwrap_or(pool[0])))
    }

    /// Whether, after `m`, the opponent has a reply that repeats.
    fn lets_opponent_repeat(&self, query: &Query, position: &Position, m: &MoveValue) -> bool {
        let next = after(position, m.mv);
        let mut game = self.clone();
        game.push(next);
        if status(query.variant(), &next.state()) != Status::Playing {
            return false;
        }
        legal_moves(query.variant(), &next.state())
            .into_iter()
            .any(|r| game.would_repeat(&after(&next, r)))
    }
}
