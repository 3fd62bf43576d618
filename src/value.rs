//! Game-theoretic values and their storage encoding.

use std::fmt;

/// The value of a position for the side to move, with the number of plies
/// to the end of the game under perfect play (the winner hurries, the
/// loser delays).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins in this many plies.
    Win(u16),
    /// The side to move loses in this many plies.
    Loss(u16),
    /// Neither side can force a win.
    Draw,
}

impl Value {
    /// The value that stands for `outcome` where no distance is known
    /// (the placement search's answers, the win/draw/loss tier's): the
    /// placeholder distances 1 for a win and 0 for a loss, shown as bare
    /// win/draw/loss wherever such values are marked inexact.
    pub fn of_outcome(outcome: Outcome) -> Value {
        match outcome {
            Outcome::Win => Value::Win(1),
            Outcome::Draw => Value::Draw,
            Outcome::Loss => Value::Loss(0),
        }
    }

    /// The value one ply earlier, for the side that moved into `self`.
    pub fn back(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// Plies to the end, `None` for a draw.
    pub fn plies(self) -> Option<u16> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }

    /// `"win"`, `"loss"` or `"draw"`.
    pub fn kind(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Loss(_) => "loss",
            Value::Draw => "draw",
        }
    }

    /// An order in which larger is better for the side to move: faster
    /// wins, then draws, then slower losses.
    pub fn preference(self) -> i32 {
        match self {
            Value::Win(d) => 100_000 - d as i32,
            Value::Draw => 0,
            Value::Loss(d) => -100_000 + d as i32,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win in {d}"),
            Value::Loss(d) => write!(f, "loss in {d}"),
            Value::Draw => write!(f, "draw"),
        }
    }
}

/// A stored value: `0` is a draw (and fills non-canonical slots); any
/// other `c` is the depth `c - 1`, a win when the depth is odd and a loss
/// when it is even (the loser always moves last at an even distance).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Cell(pub u16);

impl Cell {
    /// A draw, and the filler of slots that hold no state.
    pub const DRAW: Cell = Cell(0);
    /// The deepest distance a cell holds.
    pub const MAX_DEPTH: u16 = u16::MAX - 1;

    /// The distance in plies; `None` for a draw.
    pub fn depth(self) -> Option<u16> {
        self.0.checked_sub(1)
    }
}

impl From<Cell> for Value {
    fn from(c: Cell) -> Value {
        match c.depth() {
            None => Value::Draw,
            Some(d) if d % 2 == 1 => Value::Win(d),
            Some(d) => Value::Loss(d),
        }
    }
}

impl From<Value> for Cell {
    fn from(v: Value) -> Cell {
        match v {
            Value::Draw => Cell::DRAW,
            Value::Win(d) | Value::Loss(d) => {
                debug_assert_eq!(
                    d % 2 == 1,
                    matches!(v, Value::Win(_)),
                    "{v}: wins are odd, losses even"
                );
                Cell(d + 1)
            }
        }
    }
}

/// A game-theoretic outcome without its distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The side to move wins.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The side to move loses.
    Loss,
}

impl Outcome {
    /// The outcome of score 1, 0 or -1.
    pub fn from_score(score: i8) -> Outcome {
        match score {
            1 => Outcome::Win,
            0 => Outcome::Draw,
            _ => Outcome::Loss,
        }
    }

    /// 1, 0 or -1.
    pub fn score(self) -> i8 {
        match self {
            Outcome::Win => 1,
            Outcome::Draw => 0,
            Outcome::Loss => -1,
        }
    }

    /// The outcome for the other side.
    pub fn back(self) -> Outcome {
        Outcome::from_score(-self.score())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_round_trip() {
        for v in [
            Value::Draw,
            Value::Loss(0),
            Value::Win(1),
            Value::Loss(26),
            Value::Win(25),
            Value::Win(1001),
        ] {
            assert_eq!(Value::from(Cell::from(v)), v);
        }
    }

    #[test]
    fn preference_orders_fast_wins_first_and_slow_losses_last() {
        let mut vs =
            vec![Value::Loss(2), Value::Win(5), Value::Draw, Value::Loss(10), Value::Win(1)];
        vs.sort_by_key(|v| -v.preference());
        assert_eq!(
            vs,
            vec![Value::Win(1), Value::Win(5), Value::Draw, Value::Loss(10), Value::Loss(2)]
        );
    }
}
