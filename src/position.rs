//! Positions and moves, their notation and the board diagram.
//!
//! A [`Position`] is what a user sees: White and Black, whose turn it is.
//! A [`State`] is the same position seen from the side to move ("mover" and
//! "opponent"): the rules, the index and the solver only know states, and
//! colours are swapped at this boundary.

use crate::variant::{points, Bits, Point, Variant};
use std::fmt;

/// The two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// The side that moves first.
    White,
    /// The side that moves second.
    Black,
}

impl Color {
    /// The opponent.
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// "White" or "Black".
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }
}

/// Appends `n` in decimal, without the formatting machinery.
fn push_number(s: &mut String, n: u8) {
    if n >= 100 {
        s.push(char::from(b'0' + n / 100));
    }
    if n >= 10 {
        s.push(char::from(b'0' + n / 10 % 10));
    }
    s.push(char::from(b'0' + n % 10));
}

/// A position seen from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State {
    /// Points with a stone of the side to move.
    pub mover: Bits,
    /// Points with a stone of the other side.
    pub opponent: Bits,
    /// Stones of the side to move in hand.
    pub mover_hand: u8,
    /// Stones of the other side in hand.
    pub opponent_hand: u8,
}

impl State {
    /// Stones of the side to move, on the board and in hand.
    pub fn mover_stones(&self) -> u32 {
        self.mover.count_ones() + self.mover_hand as u32
    }

    /// Stones of the other side, on the board and in hand.
    pub fn opponent_stones(&self) -> u32 {
        self.opponent.count_ones() + self.opponent_hand as u32
    }

    /// Whether both sides have placed all their stones.
    pub fn is_moving_phase(&self) -> bool {
        self.mover_hand == 0 && self.opponent_hand == 0
    }
}

/// A position as players see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Points with a white stone.
    pub white: Bits,
    /// Points with a black stone.
    pub black: Bits,
    /// White's stones in hand.
    pub white_hand: u8,
    /// Black's stones in hand.
    pub black_hand: u8,
    /// The side to move.
    pub to_move: Color,
}

/// Error reading a position or a move.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NotationError {
    /// A position that does not parse or cannot occur.
    #[error("position '{text}': {what}")]
    Position {
        /// The text read.
        text: String,
        /// What is wrong with it.
        what: String,
    },
    /// A move that does not parse.
    #[error("move '{text}': {what}")]
    Move {
        /// The text read.
        text: String,
        /// What is wrong with it.
        what: String,
    },
}

impl Position {
    /// The empty board, White to move, every stone in hand.
    pub fn start(variant: &Variant) -> Position {
        Position {
            white: 0,
            black: 0,
            white_hand: variant.stones(),
            black_hand: variant.stones(),
            to_move: Color::White,
        }
    }

    /// The position seen from the side to move.
    pub fn state(&self) -> State {
        match self.to_move {
            Color::White => State {
                mover: self.white,
                opponent: self.black,
                mover_hand: self.white_hand,
                opponent_hand: self.black_hand,
            },
            Color::Black => State {
                mover: self.black,
                opponent: self.white,
                mover_hand: self.black_hand,
                opponent_hand: self.white_hand,
            },
        }
    }

    /// The position of `state` with `to_move` to move.
    pub fn from_state(state: &State, to_move: Color) -> Position {
        let (white, black, white_hand, black_hand) = match to_move {
            Color::White => (state.mover, state.opponent, state.mover_hand, state.opponent_hand),
            Color::Black => (state.opponent, state.mover, state.opponent_hand, state.mover_hand),
        };
        Position { white, black, white_hand, black_hand, to_move }
    }

    /// Reads `BOARD SIDE WH BH`; checks that the position can occur in
    /// a game of `variant` from its start ([`Position::check`]).
    pub fn parse(text: &str, variant: &Variant) -> Result<Position, NotationError> {
        Position::parse_with(text, variant, false)
    }

    /// Reads `BOARD SIDE WH BH` as a position of a game from any start
    /// ([`Position::check_any_start`]): the hands need not alternate.
    ///
    /// ```
    /// use morris::{Position, Variant};
    /// let nine = Variant::named("nine").unwrap();
    /// let text = "......../......../........ w 9 8";
    /// assert!(Position::parse(text, &nine).is_err());
    /// assert_eq!(Position::parse_any_start(text, &nine).unwrap().black_hand, 8);
    /// ```
    pub fn parse_any_start(text: &str, variant: &Variant) -> Result<Position, NotationError> {
        Position::parse_with(text, variant, true)
    }

    fn parse_with(
        text: &str,
        variant: &Variant,
        any_start: bool,
    ) -> Result<Position, NotationError> {
        let bad = |what: String| NotationError::Position { text: text.to_string(), what };
        // Well-formed text is read without allocating (`morris probe`
        // reads millions); anything else takes the long way, which says
        // what is wrong.
        if let Some(position) = Position::parse_plain(text.as_bytes(), variant.board().rings()) {
            return match any_start {
                true => position.check_any_start(variant),
                false => position.check(variant),
            }
            .map(|()| position)
            .map_err(bad);
        }
        Position::parse_words(text, variant, any_start)
    }

    /// [`Position::parse_with`] the long way: word by word, saying what
    /// is wrong.
    fn parse_words(
        text: &str,
        variant: &Variant,
        any_start: bool,
    ) -> Result<Position, NotationError> {
        let bad = |what: String| NotationError::Position { text: text.to_string(), what };
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 4 {
            return Err(bad(format!(
                "expected 4 fields 'BOARD SIDE WH BH', found {}",
                fields.len()
            )));
        }
        let board = variant.board();
        let rings: Vec<&str> = fields[0].split('/').collect();
        if rings.len() != board.rings() {
            return Err(bad(format!(
                "expected {} rings separated by '/', found {}",
                board.rings(),
                rings.len()
            )));
        }
        let (mut white, mut black) = (0, 0);
        for (r, ring) in rings.iter().enumerate() {
            if ring.chars().count() != 8 {
                return Err(bad(format!(
                    "ring {} has {} points, expected 8",
                    r + 1,
                    ring.chars().count()
                )));
            }
            for (k, c) in ring.chars().enumerate() {
                let bit = 1 << (8 * r + k);
                match c {
                    'W' => white |= bit,
                    'B' => black |= bit,
                    '.' => {}
                    _ => return Err(bad(format!("'{c}' is not a point: use W, B or ."))),
                }
            }
        }
        let to_move = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            s => return Err(bad(format!("side to move '{s}' is not 'w' or 'b'"))),
        };
        let hand = |s: &str, who: &str| {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad(format!("{who} stones in hand '{s}' is not a number")));
            }
            s.parse::<u8>().map_err(|_| {
                bad(format!(
                    "{who} stones in hand '{s}' is more than {} allows ({})",
                    variant.name(),
                    variant.stones()
                ))
            })
        };
        let white_hand = hand(fields[2], "White")?;
        let black_hand = hand(fields[3], "Black")?;
        let position = Position { white, black, white_hand, black_hand, to_move };
        match any_start {
            true => position.check_any_start(variant),
            false => position.check(variant),
        }
        .map_err(bad)?;
        Ok(position)
    }

    /// `BOARD SIDE WH BH` with `rings` rings of 8 points of `W`, `B` or
    /// `.`, single spaces (and any outer white space), hands of at most
    /// 3 digits that fit a `u8`; `None` for anything else, which
    /// [`Position::parse_with`] then reads the long way.
    fn parse_plain(text: &[u8], rings: usize) -> Option<Position> {
        let text = text.trim_ascii();
        let board_len = 9 * rings - 1;
        if text.len() < board_len + 6 {
            return None;
        }
        let (mut white, mut black) = (0, 0);
        for (i, &c) in text[..board_len].iter().enumerate() {
            let (r, k) = (i / 9, i % 9);
            if k == 8 {
                if c != b'/' {
                    return None;
                }
                continue;
            }
            let bit = 1 << (8 * r + k);
            match c {
                b'W' => white |= bit,
                b'B' => black |= bit,
                b'.' => {}
                _ => return None,
            }
        }
        let rest = &text[board_len..];
        let to_move = match rest.get(..3)? {
            b" w " => Color::White,
            b" b " => Color::Black,
            _ => return None,
        };
        let (wh, bh) = rest[3..].split_at(rest[3..].iter().position(|&c| c == b' ')?);
        let hand = |digits: &[u8]| -> Option<u8> {
            if digits.is_empty() || digits.len() > 3 || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let n = digits.iter().fold(0u32, |n, &d| 10 * n + u32::from(d - b'0'));
            u8::try_from(n).ok()
        };
        let (white_hand, black_hand) = (hand(wh)?, hand(&bh[1..])?);
        Some(Position { white, black, white_hand, black_hand, to_move })
    }

    /// Why this position cannot occur in a game of `variant` from its
    /// start, if it cannot: [`Position::check_any_start`], and placement
    /// alternates, White first.
    pub fn check(&self, variant: &Variant) -> Result<(), String> {
        self.check_any_start(variant)?;
        let (wh, bh) = (self.white_hand, self.black_hand);
        if !variant.move_while_placing() && (wh, bh) != (0, 0) {
            // Placement alternates, White first: White to move has placed as
            // many stones as Black, Black to move one fewer than White.
            let consistent = match self.to_move {
                Color::White => wh == bh,
                Color::Black => wh + 1 == bh,
            };
            if !consistent {
                return Err(format!(
                    "{} to move with White holding {wh} and Black {bh} cannot happen: players place in turn, White first",
                    self.to_move.name()
                ));
            }
        }
        Ok(())
    }

    /// Why this position cannot occur in a game of `variant` from any
    /// start (each side with at most the variant's stones to place, on an
    /// empty board), if it cannot: each side has 3 to that many stones on
    /// the board and in hand, and the stones stand on distinct points of
    /// the board. The hands are free: a game may start with other numbers
    /// of stones to place than the standard one (an "extended" start).
    pub fn check_any_start(&self, variant: &Variant) -> Result<(), String> {
        let n = variant.stones() as u32;
        for (who, board, hand) in
            [("White", self.white, self.white_hand), ("Black", self.black, self.black_hand)]
        {
            let total = board.count_ones() + hand as u32;
            if total > n {
                return Err(format!(
                    "{who} has {total} stones on the board and in hand; {} allows {n}",
                    variant.name()
                ));
            }
            if total < 3 {
                return Err(format!("{who} has {total} stones: the game is already over"));
            }
        }
        if self.white & self.black != 0 || (self.white | self.black) & !variant.board().all() != 0 {
            return Err("stones outside the board or on top of each other".into());
        }
        Ok(())
    }

    /// Writes the position in notation.
    pub fn notation(&self, variant: &Variant) -> String {
        let mut s = String::with_capacity(9 * variant.board().rings() + 8);
        self.write_notation(variant, &mut s);
        s
    }

    /// Appends the position in notation to `s`.
    pub fn write_notation(&self, variant: &Variant, s: &mut String) {
        for r in 0..variant.board().rings() {
            if r > 0 {
                s.push('/');
            }
            for k in 0..8 {
                let bit = 1 << (8 * r + k);
                s.push(if self.white & bit != 0 {
                    'W'
                } else if self.black & bit != 0 {
                    'B'
                } else {
                    '.'
                });
            }
        }
        s.push_str(match self.to_move {
            Color::White => " w ",
            Color::Black => " b ",
        });
        push_number(s, self.white_hand);
        s.push(' ');
        push_number(s, self.black_hand);
    }

    /// The board in the style of the classic diagram, with the stones on it.
    pub fn diagram(&self, variant: &Variant) -> String {
        let board = variant.board();
        let g = board.grid();
        let (w, h) = (4 * (g - 1) + 1, 2 * (g - 1) + 1);
        let mut canvas = vec![vec![' '; w]; h];
        let at = |p: Point| {
            let (c, r) = board.coords(p);
            (4 * c as usize, 2 * (g - 1 - r as usize))
        };
        for p in 0..board.points() as Point {
            for q in points(board.adjacent(p)).filter(|&q| q > p) {
                let ((x0, y0), (x1, y1)) = (at(p), at(q));
                if y0 == y1 {
                    for cell in &mut canvas[y0][x0.min(x1) + 1..x0.max(x1)] {
                        *cell = '-';
                    }
                } else if x0 == x1 {
                    for row in &mut canvas[y0.min(y1) + 1..y0.max(y1)] {
                        row[x0] = '|';
                    }
                } else {
                    let falling = (x1 > x0) == (y1 > y0);
                    canvas[(y0 + y1) / 2][(x0 + x1) / 2] = if falling { '\\' } else { '/' };
                }
            }
        }
        for p in 0..board.points() as Point {
            let (x, y) = at(p);
            let bit = 1 << p;
            canvas[y][x] = if self.white & bit != 0 {
                'W'
            } else if self.black & bit != 0 {
                'B'
            } else {
                'o'
            };
        }
        let mut out = String::new();
        for (y, line) in canvas.iter().enumerate() {
            let label = if y % 2 == 0 { format!("{}", g - y / 2) } else { " ".into() };
            let line: String = line.iter().collect();
            out.push_str(&format!("{label} {}\n", line.trim_end()));
        }
        let cols: Vec<String> = (0..g).map(|c| ((b'a' + c as u8) as char).to_string()).collect();
        out.push_str(&format!("  {}\n", cols.join("   ")));
        out
    }
}

/// A move: a placement (`from` is `None`), a slide or a fly, with the
/// opponent stone it removes when it closes a mill.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Where the stone comes from; `None` for a placement.
    pub from: Option<Point>,
    /// Where the stone goes.
    pub to: Point,
    /// The opponent's stone removed when the move closes a mill.
    pub remove: Option<Point>,
}

impl Move {
    /// The move in notation: `d6`, `d6-d5`, `d6-d5xg7`.
    pub fn notation(&self, variant: &Variant) -> String {
        let b = variant.board();
        let mut s = String::new();
        if let Some(from) = self.from {
            s.push_str(b.point_name(from));
            s.push('-');
        }
        s.push_str(b.point_name(self.to));
        if let Some(r) = self.remove {
            s.push('x');
            s.push_str(b.point_name(r));
        }
        s
    }

    /// Reads a move in notation (not checking that it is legal anywhere).
    pub fn parse(text: &str, variant: &Variant) -> Result<Move, NotationError> {
        let bad = |what: String| NotationError::Move { text: text.to_string(), what };
        let b = variant.board();
        let point = |s: &str| {
            b.point_named(s)
                .ok_or_else(|| bad(format!("'{s}' is not a point of the {} board", variant.name())))
        };
        let (body, remove) = match text.split_once('x') {
            Some((body, r)) => (body, Some(point(r)?)),
            None => (text, None),
        };
        let (from, to) = match body.split_once('-') {
            Some((f, t)) => (Some(point(f)?), point(t)?),
            None => (None, point(body)?),
        };
        Ok(Move { from, to, remove })
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nine() -> Variant {
        Variant::named("nine").unwrap()
    }

    #[test]
    fn start_position_round_trips() {
        let v = nine();
        let p = Position::parse("......../......../........ w 9 9", &v).unwrap();
        assert_eq!(p, Position::start(&v));
        assert_eq!(p.notation(&v), "......../......../........ w 9 9");
    }

    /// The quick reading of well-formed text and the word-by-word one
    /// agree on every text, and the quick one declines what it does not
    /// read exactly.
    #[test]
    fn plain_notation_is_read_as_the_long_way_reads_it() {
        let mut rng = crate::rng::Rng::new(7);
        for name in ["nine", "six", "twelve"] {
            let v = Variant::named(name).unwrap();
            let rings = v.board().rings();
            let mut texts: Vec<String> = vec![
                " ......../......../........ w 9 9 ".into(),
                "......../......../........  w 9 9".into(),
                "......../......../........ w 09 9".into(),
                "......../......../........ w 300 9".into(),
                "......../......../........ w 9 9 x".into(),
                "......../......../........\tw 9 9".into(),
                "......../......../........ x 9 9".into(),
                "WWW..B../....B.B./........ b 0 0".into(),
                "WWW..B../....B.B/........ b 0 0".into(),
                "WWW..B../....B.B./.......é b 0 0".into(),
                "......../........ b 5 6".into(),
            ];
            for _ in 0..2000 {
                let mut t: String = (0..9 * rings - 1)
                    .map(|i| match (i % 9, rng.next_u64() % 3) {
                        (8, _) => '/',
                        (_, 0) => 'W',
                        (_, 1) => 'B',
                        _ => '.',
                    })
                    .collect();
                let side = if rng.next_u64().is_multiple_of(2) { " w " } else { " b " };
                t.push_str(side);
                t.push_str(&format!("{} {}", rng.next_u64() % 13, rng.next_u64() % 13));
                texts.push(t);
            }
            for t in &texts {
                let slow = Position::parse_words(t, &v, true);
                let quick = Position::parse_with(t, &v, true);
                assert_eq!(quick, slow, "{t:?} in {name}");
                if let Some(p) = Position::parse_plain(t.as_bytes(), rings) {
                    assert!(slow.is_err() || slow == Ok(p), "{t:?}");
                }
                if let Ok(p) = slow {
                    assert_eq!(Position::parse_with(&p.notation(&v), &v, true), Ok(p));
                }
            }
        }
    }

    #[test]
    fn bad_positions_are_refused_with_a_reason() {
        let v = nine();
        for (text, needle) in [
            ("......../......../....... w 9 9", "ring 3 has 7 points"),
            ("......../........ w 9 9", "expected 3 rings"),
            ("......../......../........ x 9 9", "side to move"),
            ("......../......../........ w 9", "4 fields"),
            ("......../......../........ w 10 10", "allows 9"),
            ("......../......../........ w 9 8", "cannot happen"),
            ("......../......../......X. w 9 9", "not a point"),
            ("WWW...../......../........ w 0 0", "game is already over"),
            ("......../......../........ w nine 9", "not a number"),
        ] {
            let err = Position::parse(text, &v).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn diagram_of_nine_matches_the_classic_board() {
        let v = nine();
        let p = Position::parse("W......./......../.......B w 8 8", &v).unwrap();
        let expected = "\
7 W-----------o-----------o
  |           |           |
6 |   o-------o-------o   |
  |   |       |       |   |
5 |   |   o---o---o   |   |
  |   |   |       |   |   |
4 o---o---B       o---o---o
  |   |   |       |   |   |
3 |   |   o---o---o   |   |
  |   |       |       |   |
2 |   o-------o-------o   |
  |           |           |
1 o-----------o-----------o
  a   b   c   d   e   f   g
";
        assert_eq!(p.diagram(&v), expected);
    }

    #[test]
    fn twelve_diagram_draws_diagonals() {
        let v = Variant::named("twelve").unwrap();
        let d = Position::start(&v).diagram(&v);
        assert!(d.lines().nth(1).unwrap().starts_with("  | \\"), "{d}");
    }

    #[test]
    fn moves_round_trip() {
        let v = nine();
        for m in ["d6", "d6-d5", "d6-d5xg7", "b4xa1"] {
            assert_eq!(Move::parse(m, &v).unwrap().notation(&v), m);
        }
        assert!(Move::parse("z9", &v).is_err());
        assert!(Move::parse("d6-", &v).is_err());
    }
}
