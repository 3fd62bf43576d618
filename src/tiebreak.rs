//! Tie-breaks: which of several moves of equal value the perfect player
//! picks.
//!
//! Every rule here chooses only among moves that all lead to the same
//! value, so none of them changes the game-theoretic result of a move;
//! they differ in how much room they leave a fallible opponent to go
//! wrong. The rules apply among drawing moves (a win is taken by its
//! shortest way, a loss by its longest, as the values already say); what
//! they look at is the opponent's replies and, for [`TieBreak::Traps2`],
//! one more exchange.
//!
//! The values come through the [`Values`] trait, so the same rules run
//! over a [`crate::query::Query`] (`morris play`, `morris serve`) and over
//! tables held in memory (`morris match`, [`crate::arena`]).

use crate::position::{Move, State};
use crate::rules::{for_each_move, play, status, Status};
use crate::value::Value;
use crate::variant::Variant;
use std::fmt;
use std::str::FromStr;

/// Where the values of positions come from.
pub trait Values {
    /// Why a value could not be had (a missing or damaged table).
    type Error;

    /// The value of `state` for the side to move; a state where the game
    /// is over by the rules has its end value (a loss in 0, or a draw on a
    /// full board).
    fn value(&self, state: &State) -> Result<Value, Self::Error>;
}

/// Every legal move of `state` with the value it leads to for the side
/// that makes it, best first (the fastest win, draws, the slowest loss);
/// moves of equal value keep the order of [`crate::rules::legal_moves`].
pub fn valued_moves<V: Values>(
    variant: &Variant,
    values: &V,
    state: &State,
) -> Result<Vec<(Move, Value)>, V::Error> {
    let mut moves = Vec::new();
    let mut error = None;
    for_each_move(variant, state, |mv| {
        if error.is_some() {
            return;
        }
        match values.value(&play(state, mv)) {
            Ok(v) => moves.push((mv, v.back())),
            Err(e) => error = Some(e),
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    moves.sort_by_key(|&(_, v)| std::cmp::Reverse(v.preference()));
    Ok(moves)
}

/// How the perfect player picks among drawing moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TieBreak {
    /// Any of them, at random (the baseline; without a random source, the
    /// first).
    Uniform,
    /// The one after which most of the opponent's replies lose, then the
    /// fewest draw: the rule `morris play` used first
    /// ([`crate::query::Query::choose_move`]).
    Replies,
    /// The one after which the largest share of the opponent's replies
    /// lose: the chance that a uniformly random reply is a mistake.
    Share,
    /// Two exchanges deep: the chance that the opponent errs at its next
    /// move or, if it keeps the draw there (each drawing reply counted
    /// alike), at the move after, when we answer with the drawing move
    /// that leaves it the largest share of losing replies.
    Traps2,
    /// The stone balance the continuation keeps: the most stones ahead
    /// (ours minus the opponent's, board and hand) after the opponent's
    /// worst-for-us drawing reply; then as [`TieBreak::Replies`]. In the
    /// spirit of storing the sector a drawn game ends in.
    Balance,
}

/// Every tie-break, the baseline first.
pub const TIE_BREAKS: [TieBreak; 5] =
    [TieBreak::Uniform, TieBreak::Replies, TieBreak::Share, TieBreak::Traps2, TieBreak::Balance];

impl TieBreak {
    /// The rule's name, as [`FromStr`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            TieBreak::Uniform => "uniform",
            TieBreak::Replies => "replies",
            TieBreak::Share => "share",
            TieBreak::Traps2 => "traps2",
            TieBreak::Balance => "balance",
        }
    }
}

impl FromStr for TieBreak {
    type Err = String;
    fn from_str(text: &str) -> Result<TieBreak, String> {
        TIE_BREAKS.iter().copied().find(|t| t.name() == text).ok_or_else(|| {
            let names: Vec<&str> = TIE_BREAKS.iter().map(|t| t.name()).collect();
            format!("tie-break '{text}': expected one of {}", names.join(", "))
        })
    }
}

impl fmt::Display for TieBreak {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the perfect player plays a draw: its tie-break, and whether it
/// declines a repetition draw while another move keeps the draw by the
/// tables (see [`crate::game::Game::best_moves`]). Written `RULE` or
/// `RULE:playon`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Style {
    /// The tie-break among drawing moves.
    pub tie_break: TieBreak,
    /// Whether it declines repetition draws while it can keep the draw.
    pub play_on: bool,
}

impl Style {
    /// The rule `morris play` and the page used before the matches of
    /// `docs/match.md`: most losing replies, and a repetition draw taken.
    pub const REPLIES: Style = Style { tie_break: TieBreak::Replies, play_on: false };
    /// The best of `docs/match.md` on six, averaged over its four
    /// opponents, at about 0.1 ms a move: the stone balance, and no
    /// repetition draw while the draw can be kept.
    pub const DEFAULT: Style = Style { tie_break: TieBreak::Balance, play_on: true };
}

impl FromStr for Style {
    type Err = String;
    fn from_str(text: &str) -> Result<Style, String> {
        let (rule, play_on) = match text.strip_suffix(":playon") {
            Some(rule) => (rule, true),
            None => (text, false),
        };
        Ok(Style { tie_break: rule.parse()?, play_on })
    }
}

impl fmt::Display for Style {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}{}", self.tie_break, if self.play_on { ":playon" } else { "" })
    }
}

/// A rule's score of a move: larger is better, compared element by element.
pub type Score = [i64; 3];

/// Fixed point for shares: parts per billion.
const ONE: f64 = 1e9;

/// What the side to move in `state` can do: replies that lose, replies
/// that draw, and all of them.
struct Replies {
    losing: usize,
    drawing: usize,
    all: usize,
}

fn replies<V: Values>(variant: &Variant, values: &V, state: &State) -> Result<Replies, V::Error> {
    let mut r = Replies { losing: 0, drawing: 0, all: 0 };
    if status(variant, state) != Status::Playing {
        return Ok(r);
    }
    for (_, v) in valued_moves(variant, values, state)? {
        r.all += 1;
        match v {
            Value::Loss(_) => r.losing += 1,
            Value::Draw => r.drawing += 1,
            Value::Win(_) => {}
        }
    }
    Ok(r)
}

/// The share of the replies of the side to move in `state` that lose.
fn losing_share<V: Values>(variant: &Variant, values: &V, state: &State) -> Result<f64, V::Error> {
    let r = replies(variant, values, state)?;
    Ok(if r.all == 0 { 0.0 } else { r.losing as f64 / r.all as f64 })
}

/// The score under `rule` of the drawing move that leads to `next` (the
/// opponent to move).
pub fn score<V: Values>(
    rule: TieBreak,
    variant: &Variant,
    values: &V,
    next: &State,
) -> Result<Score, V::Error> {
    Ok(match rule {
        TieBreak::Uniform => [0; 3],
        TieBreak::Replies => {
            let r = replies(variant, values, next)?;
            [r.losing as i64, -(r.drawing as i64), 0]
        }
        TieBreak::Share => [(losing_share(variant, values, next)? * ONE) as i64, 0, 0],
        TieBreak::Traps2 => {
            if status(variant, next) != Status::Playing {
                return Ok([0; 3]);
            }
            let moves = valued_moves(variant, values, next)?;
            let losing = moves.iter().filter(|(_, v)| matches!(v, Value::Loss(_))).count();
            let first = losing as f64 / moves.len() as f64;
            let (mut later, mut drawing) = (0.0, 0usize);
            for &(reply, v) in &moves {
                if v != Value::Draw {
                    continue;
                }
                drawing += 1;
                let ours = play(next, reply);
                if status(variant, &ours) != Status::Playing {
                    continue;
                }
                let mut best: f64 = 0.0;
                for (mv, v) in valued_moves(variant, values, &ours)? {
                    if v == Value::Draw {
                        best = best.max(losing_share(variant, values, &play(&ours, mv))?);
                    }
                }
                later += best;
            }
            let later = if drawing == 0 { 0.0 } else { later / drawing as f64 };
            let chance = first + (1.0 - first) * later;
            [(chance * ONE) as i64, losing as i64, 0]
        }
        TieBreak::Balance => {
            let r = replies(variant, values, next)?;
            // Ours minus theirs after the opponent's worst-for-us drawing
            // reply (`next` is seen from the opponent; after its reply, from us).
            let mut worst = next.opponent_stones() as i64 - next.mover_stones() as i64;
            if status(variant, next) == Status::Playing {
                for (reply, v) in valued_moves(variant, values, next)? {
                    if v == Value::Draw {
                        let ours = play(next, reply);
                        worst =
                            worst.min(ours.mover_stones() as i64 - ours.opponent_stones() as i64);
                    }
                }
            }
            [worst, r.losing as i64, -(r.drawing as i64)]
        }
    })
}

/// Of `pool`, moves of `state` that all lead to a draw, the ones with the
/// best score under `rule`, in the order of `pool`.
pub fn best_draws<V: Values>(
    rule: TieBreak,
    variant: &Variant,
    values: &V,
    state: &State,
    pool: &[Move],
) -> Result<Vec<Move>, V::Error> {
    if rule == TieBreak::Uniform || pool.len() <= 1 {
        return Ok(pool.to_vec());
    }
    let mut best: Option<Score> = None;
    let mut chosen = Vec::new();
    for &mv in pool {
        let s = score(rule, variant, values, &play(state, mv))?;
        if best.is_none_or(|b| s > b) {
            best = Some(s);
            chosen.clear();
        }
        if best == Some(s) {
            chosen.push(mv);
        }
    }
    Ok(chosen)
}
