//! Variants of the morris family: the board graph and the rule parameters.
//!
//! A board is a set of concentric squares ("rings"). Points are numbered
//! ring by ring, outer ring first, each ring clockwise from its top-left
//! corner - the same order as the position notation - so point `8 * r + k`
//! is the `k`-th point of ring `r`. Even `k` are corners, odd `k` midpoints.

use std::fmt;

/// A set of points, one bit per point.
pub type Bits = u32;

/// A point of the board, `0..board.points()`.
pub type Point = u8;

/// Error building or selecting a variant.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum VariantError {
    /// A variant name that is not known.
    #[error("unknown variant '{0}' (known: nine, twelve, eleven, six, five, lasker, morabaraba)")]
    Unknown(String),
    /// A `--fly-at` that is neither a number nor `never`.
    #[error("invalid flying threshold '{0}' (expected a number of stones or 'never')")]
    BadFlyAt(String),
    /// A `--fly-count` that is neither `board` nor `all`.
    #[error("invalid flying count '{0}' (expected 'board' or 'all')")]
    BadFlyCount(String),
    /// A flying count for a variant whose players never move with stones
    /// in hand, where both readings are the same rule.
    #[error("the flying count is a rule of lasker only: in {0} a side with stones in hand never moves, so it flies by the stones on the board either way")]
    FlyCountWithoutMoves(String),
    /// A board description that is not a board.
    #[error("board {board}: {what}")]
    BadBoard {
        /// The board's name.
        board: String,
        /// What is wrong with it.
        what: String,
    },
}

/// The board graph: points with their names, adjacency and mills.
#[derive(Clone, Debug)]
pub struct Board {
    name: String,
    rings: usize,
    diagonals: bool,
    names: Vec<String>,
    /// (column, row), 0-based, row 0 at the bottom.
    coords: Vec<(u8, u8)>,
    adjacent: Vec<Bits>,
    mills: Vec<Bits>,
    /// The mills through each point, padded with `NO_MILL`.
    mills_at: Vec<[Bits; 3]>,
    /// Every slide by the rank of its target among its origin's
    /// neighbours: see [`Slides`].
    slides: Slides,
}

/// A board's slides by lanes: lane `i` sends each point to its `i`-th
/// neighbour (in point order), so that the slides of a stone set into
/// the empty points are the bits of one mask per lane
/// ([`Board::for_each_step`]).
#[derive(Clone, Debug)]
struct Slides {
    /// Per lane, per point: its neighbour in that lane (`u8::MAX`: none).
    to: [[Point; 32]; SLIDE_LANES],
    /// Per lane, per byte of a set (four bytes) and its value: the points
    /// whose neighbour in that lane is one of the byte's points.
    from: Box<[[[Bits; 256]; 4]; SLIDE_LANES]>,
    /// Whether no point has more than [`SLIDE_LANES`] neighbours (true of
    /// every board of the crate's).
    fits: bool,
}

/// The neighbours a point may have for [`Slides`] to cover its slides.
const SLIDE_LANES: usize = 4;

impl Slides {
    fn of(adjacent: &[Bits]) -> Slides {
        let mut to = [[Point::MAX; 32]; SLIDE_LANES];
        let mut from = Box::new([[[0; 256]; 4]; SLIDE_LANES]);
        let mut fits = true;
        for (p, &adj) in adjacent.iter().enumerate() {
            fits &= adj.count_ones() as usize <= SLIDE_LANES;
            for (i, q) in points(adj).take(SLIDE_LANES).enumerate() {
                to[i][p] = q;
                let (byte, bit) = (q as usize / 8, q % 8);
                for (value, mask) in from[i][byte].iter_mut().enumerate() {
                    if value >> bit & 1 == 1 {
                        *mask |= 1 << p;
                    }
                }
            }
        }
        Slides { to, from, fits }
    }

    /// The points whose neighbour in lane `i` lies in `set`.
    #[inline(always)]
    fn reaching(&self, i: usize, set: Bits) -> Bits {
        let t = &self.from[i];
        t[0][(set & 0xff) as usize]
            | t[1][(set >> 8 & 0xff) as usize]
            | t[2][(set >> 16 & 0xff) as usize]
            | t[3][(set >> 24) as usize]
    }

    /// Calls `f(from, to)` for every slide of a stone of `stones` to a
    /// point of `empty`, lane by lane (the lanes must fit the board).
    #[inline(always)]
    fn for_each(&self, stones: Bits, empty: Bits, mut f: impl FnMut(Point, Point)) {
        let lane = |i: usize| u64::from(stones & self.reaching(i, empty));
        // Two lanes a word, each word's bits walked in one loop: a set's
        // slides cost two loops of varying length where a loop per stone
        // over its neighbours cost one per stone, each ending on a branch
        // the processor mostly guesses wrong.
        let mut words = [lane(0) | lane(1) << 32, lane(2) | lane(3) << 32];
        for (w, word) in words.iter_mut().enumerate() {
            while *word != 0 {
                let bit = word.trailing_zeros() as usize;
                *word &= *word - 1;
                let from = (bit % 32) as Point;
                f(from, self.to[2 * w + bit / 32][from as usize]);
            }
        }
    }
}

/// A mask no stone set can cover: pads `mills_at`.
const NO_MILL: Bits = 1 << 31;

impl Board {
    /// The board of `rings` concentric squares joined at the midpoints of
    /// their sides and, with `diagonals`, at their corners.
    pub fn squares(rings: usize, diagonals: bool) -> Result<Board, VariantError> {
        let grid = 2 * rings + 1;
        let mid = rings as u8;
        let last = (grid - 1) as u8;
        let mut coords = Vec::new();
        for r in 0..rings as u8 {
            let (lo, hi) = (r, last - r);
            coords.extend_from_slice(&[
                (lo, hi),
                (mid, hi),
                (hi, hi),
                (hi, mid),
                (hi, lo),
                (mid, lo),
                (lo, lo),
                (lo, mid),
            ]);
        }
        let names =
            coords.iter().map(|&(c, r)| format!("{}{}", (b'a' + c) as char, r + 1)).collect();
        let point = |r: usize, k: usize| 8 * r + (k % 8);
        let mut edges = Vec::new();
        let mut mills = Vec::new();
        for r in 0..rings {
            for k in 0..8 {
                edges.push((point(r, k), point(r, k + 1)));
            }
            for k in (0..8).step_by(2) {
                mills.push([point(r, k), point(r, k + 1), point(r, k + 2)]);
            }
        }
        for k in 0..8 {
            let joined = k % 2 == 1 || diagonals;
            if !joined {
                continue;
            }
            for r in 0..rings - 1 {
                edges.push((point(r, k), point(r + 1, k)));
            }
            if rings == 3 {
                mills.push([point(0, k), point(1, k), point(2, k)]);
            }
        }
        let name = format!("{}x8{}", rings, if diagonals { "+diagonals" } else { "" });
        Board::from_graph(name, rings, diagonals, names, coords, &edges, &mills)
    }

    fn from_graph(
        name: String,
        rings: usize,
        diagonals: bool,
        names: Vec<String>,
        coords: Vec<(u8, u8)>,
        edges: &[(usize, usize)],
        mills: &[[usize; 3]],
    ) -> Result<Board, VariantError> {
        let n = names.len();
        let mut adjacent = vec![0; n];
        for &(a, b) in edges {
            adjacent[a] |= 1 << b;
            adjacent[b] |= 1 << a;
        }
        let mut mills_at = vec![[NO_MILL; 3]; n];
        for m in mills {
            let bits = m.iter().fold(0, |acc, &p| acc | 1 << p);
            for &p in m {
                let slot = mills_at[p].iter().position(|&x| x == NO_MILL);
                let slot = slot.ok_or_else(|| VariantError::BadBoard {
                    board: name.clone(),
                    what: format!("point {} lies on more than 3 mills", names[p]),
                })?;
                mills_at[p][slot] = bits;
            }
        }
        let board = Board {
            mills: mills.iter().map(|m| m.iter().fold(0, |acc, &p| acc | 1 << p)).collect(),
            name,
            rings,
            diagonals,
            names,
            coords,
            slides: Slides::of(&adjacent),
            adjacent,
            mills_at,
        };
        board.check(mills)?;
        Ok(board)
    }

    /// Checks the invariants the rest of the crate relies on.
    fn check(&self, mills: &[[usize; 3]]) -> Result<(), VariantError> {
        let bad = |what: String| VariantError::BadBoard { board: self.name.clone(), what };
        let n = self.points();
        if n > 31 {
            return Err(bad(format!("{n} points; at most 31 fit a bitboard")));
        }
        for p in 0..n {
            if self.adjacent[p] & (1 << p) != 0 {
                return Err(bad(format!("{} is adjacent to itself", self.names[p])));
            }
            for q in 0..n {
                if self.adjacent(p as Point) & (1 << q) != 0
                    && self.adjacent(q as Point) & (1 << p) == 0
                {
                    return Err(bad(format!(
                        "adjacency {}-{} is one-way",
                        self.names[p], self.names[q]
                    )));
                }
            }
        }
        for m in mills {
            let [a, b, c] = *m;
            let (pa, pb, pc) = (self.coords[a], self.coords[b], self.coords[c]);
            let d1 = (pb.0 as i32 - pa.0 as i32, pb.1 as i32 - pa.1 as i32);
            let d2 = (pc.0 as i32 - pb.0 as i32, pc.1 as i32 - pb.1 as i32);
            let collinear = d1.0 * d2.1 == d1.1 * d2.0 && d1.0 * d2.0 + d1.1 * d2.1 > 0;
            let along_lines = self.adjacent[a] & (1 << b) != 0 && self.adjacent[b] & (1 << c) != 0;
            if !collinear || !along_lines {
                let names = [&self.names[a], &self.names[b], &self.names[c]];
                return Err(bad(format!(
                    "mill {names:?} is not three points in a row along lines"
                )));
            }
        }
        let mut reached: Bits = 1;
        loop {
            let next = reached | self.neighbours(reached);
            if next == reached {
                break;
            }
            reached = next;
        }
        if reached != self.all() {
            return Err(bad("the graph is not connected".into()));
        }
        Ok(())
    }

    /// A short name of the graph, e.g. `3x8+diagonals`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of points.
    pub fn points(&self) -> usize {
        self.names.len()
    }

    /// Number of concentric squares.
    pub fn rings(&self) -> usize {
        self.rings
    }

    /// Whether the corners of the squares are joined.
    pub fn has_diagonals(&self) -> bool {
        self.diagonals
    }

    /// All points.
    pub fn all(&self) -> Bits {
        ((1u64 << self.points()) - 1) as Bits
    }

    /// Coordinate name of a point, e.g. `d7`.
    pub fn point_name(&self, p: Point) -> &str {
        &self.names[p as usize]
    }

    /// The point with the given coordinate name.
    pub fn point_named(&self, name: &str) -> Option<Point> {
        self.names.iter().position(|n| n == name).map(|p| p as Point)
    }

    /// (column, row) of a point, 0-based from the bottom-left corner.
    pub fn coords(&self, p: Point) -> (u8, u8) {
        self.coords[p as usize]
    }

    /// Width and height of the coordinate grid.
    pub fn grid(&self) -> usize {
        2 * self.rings + 1
    }

    /// Calls `f(from, to)` for every step of a stone of `stones` to a
    /// point of `empty`: to a neighbour, or anywhere where `flies`. The
    /// order is unspecified. The solver's un-moves and the check's moves
    /// walk every state's steps this way.
    #[inline(always)]
    pub fn for_each_step(
        &self,
        stones: Bits,
        empty: Bits,
        flies: bool,
        f: impl FnMut(Point, Point),
    ) {
        if !flies && self.slides.fits {
            return self.slides.for_each(stones, empty, f);
        }
        self.for_each_step_by_stones(stones, empty, flies, f);
    }

    /// [`Board::for_each_step`] stone by stone: the way for flying, and
    /// the reference the lanes are tested against.
    #[inline]
    pub fn for_each_step_by_stones(
        &self,
        stones: Bits,
        empty: Bits,
        flies: bool,
        mut f: impl FnMut(Point, Point),
    ) {
        for from in points(stones) {
            let targets = if flies { empty } else { empty & self.adjacent(from) };
            for to in points(targets) {
                f(from, to);
            }
        }
    }

    /// The points joined to `p` by a line.
    #[inline]
    pub fn adjacent(&self, p: Point) -> Bits {
        self.adjacent[p as usize]
    }

    /// Points adjacent to any point of `set`.
    pub fn neighbours(&self, set: Bits) -> Bits {
        points(set).fold(0, |acc, p| acc | self.adjacent(p))
    }

    /// All mills.
    pub fn mills(&self) -> &[Bits] {
        &self.mills
    }

    /// Whether `own` (which contains `p`) has a complete mill through `p`.
    #[inline]
    // A false positive: what it suggests tests another value.
    #[allow(clippy::manual_contains)]
    pub fn closes_mill(&self, own: Bits, p: Point) -> bool {
        self.mills_at[p as usize].iter().any(|&m| own & m == m)
    }

    /// The stones of `own` that stand in a complete mill.
    #[inline]
    pub fn in_mills(&self, own: Bits) -> Bits {
        self.mills.iter().filter(|&&m| own & m == m).fold(0, |acc, &m| acc | m)
    }

    /// The stones of `opponent` that may be removed: those not in a mill,
    /// or all of them when every one is in a mill.
    #[inline]
    pub fn removable(&self, opponent: Bits) -> Bits {
        let free = opponent & !self.in_mills(opponent);
        if free != 0 {
            free
        } else {
            opponent
        }
    }
}

/// Iterates the points of a set, lowest first.
#[inline]
pub fn points(mut set: Bits) -> impl Iterator<Item = Point> {
    std::iter::from_fn(move || {
        if set == 0 {
            return None;
        }
        let p = set.trailing_zeros() as Point;
        set &= set - 1;
        Some(p)
    })
}

/// When a player may fly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flying {
    /// Nobody flies.
    Never,
    /// With at most this many stones: on the board with an empty hand, or
    /// on the board and in hand together, as the [`FlyCount`] says.
    AtMost(u8),
}

impl fmt::Display for Flying {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Flying::Never => write!(f, "never"),
            Flying::AtMost(n) => write!(f, "{n}"),
        }
    }
}

impl std::str::FromStr for Flying {
    type Err = VariantError;
    fn from_str(s: &str) -> Result<Flying, VariantError> {
        match s {
            "never" => Ok(Flying::Never),
            _ => match s.parse::<u8>() {
                Ok(n) if (3..=12).contains(&n) => Ok(Flying::AtMost(n)),
                _ => Err(VariantError::BadFlyAt(s.to_string())),
            },
        }
    }
}

/// Which of a side's stones count towards the flying threshold. The two
/// readings differ only where a side with stones in hand may move
/// (Lasker): elsewhere such a side only places, and a side whose hand is
/// empty has on the board all it has left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlyCount {
    /// The stones on the board, and only with an empty hand: a side with
    /// stones in hand never flies.
    Board,
    /// The stones left in all, on the board and in hand: the published
    /// reading of Lasker Morris (Malom's move generator, Stahlhacke's
    /// solve), where two stones on the board and one in hand fly.
    All,
}

impl FlyCount {
    /// The name `--fly-count` takes.
    pub fn name(self) -> &'static str {
        match self {
            FlyCount::Board => "board",
            FlyCount::All => "all",
        }
    }
}

impl fmt::Display for FlyCount {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for FlyCount {
    type Err = VariantError;
    fn from_str(s: &str) -> Result<FlyCount, VariantError> {
        match s {
            "board" => Ok(FlyCount::Board),
            "all" => Ok(FlyCount::All),
            _ => Err(VariantError::BadFlyCount(s.to_string())),
        }
    }
}

/// A game of the morris family: a board and the rules played on it.
#[derive(Clone, Debug)]
pub struct Variant {
    name: String,
    board: Board,
    stones: u8,
    flying: Flying,
    fly_count: FlyCount,
    full_board_draw: bool,
    move_while_placing: bool,
}

/// The variants this crate knows, by name.
pub const VARIANT_NAMES: [&str; 7] =
    ["nine", "twelve", "eleven", "six", "five", "lasker", "morabaraba"];

impl Variant {
    /// A known variant with its default rules.
    pub fn named(name: &str) -> Result<Variant, VariantError> {
        let (rings, diagonals, stones, flying, full_board_draw, lasker) = match name {
            "nine" => (3, false, 9, Flying::AtMost(3), false, false),
            "twelve" => (3, true, 12, Flying::AtMost(4), true, false),
            "eleven" => (3, true, 11, Flying::AtMost(4), true, false),
            "six" => (2, false, 6, Flying::Never, false, false),
            "five" => (2, false, 5, Flying::Never, false, false),
            "lasker" => (3, false, 10, Flying::AtMost(3), false, true),
            "morabaraba" => (3, true, 12, Flying::AtMost(3), true, false),
            _ => return Err(VariantError::Unknown(name.to_string())),
        };
        Ok(Variant {
            name: name.to_string(),
            board: Board::squares(rings, diagonals)?,
            stones,
            flying,
            // Lasker as published; the other variants never move with
            // stones in hand, where the readings agree.
            fly_count: if lasker { FlyCount::All } else { FlyCount::Board },
            full_board_draw,
            move_while_placing: lasker,
        })
    }

    /// The same variant with another flying rule.
    pub fn with_flying(mut self, flying: Flying) -> Variant {
        self.flying = flying;
        self
    }

    /// The same variant with another reading of which stones count
    /// towards flying; refused where a side with stones in hand never
    /// moves, since there both readings are one rule.
    pub fn with_fly_count(self, fly_count: FlyCount) -> Result<Variant, VariantError> {
        if !self.move_while_placing {
            return Err(VariantError::FlyCountWithoutMoves(self.name.clone()));
        }
        Ok(self.with_fly_count_unchecked(fly_count))
    }

    /// [`Variant::with_fly_count`] for any variant: the tests show with it
    /// that the readings agree where nobody moves with stones in hand.
    #[doc(hidden)]
    pub fn with_fly_count_unchecked(mut self, fly_count: FlyCount) -> Variant {
        self.fly_count = fly_count;
        self
    }

    /// The same variant where a player with stones in hand may also move
    /// (Lasker's rule): small Lasker-like games for the tests. The rules
    /// key says so, so its tables are told apart. The flying count stays
    /// as it was (the board's, for the variants this is built from).
    #[doc(hidden)]
    pub fn with_lasker(mut self) -> Variant {
        self.move_while_placing = true;
        self
    }

    /// The same variant with `stones` stones a side (at least 3, and both
    /// sides' stones fit the board): small games for the tests.
    #[doc(hidden)]
    pub fn with_stones(mut self, stones: u8) -> Variant {
        assert!(stones >= 3 && 2 * stones as usize <= self.board.points(), "{stones} stones");
        self.stones = stones;
        self
    }

    /// The variant's name, as `--variant` takes it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Stones per side at the start.
    pub fn stones(&self) -> u8 {
        self.stones
    }

    /// When a player may fly.
    pub fn flying(&self) -> Flying {
        self.flying
    }

    /// Whether a full board at the end of placement is a draw.
    pub fn full_board_draw(&self) -> bool {
        self.full_board_draw
    }

    /// Whether a player with stones in hand may also move (Lasker).
    pub fn move_while_placing(&self) -> bool {
        self.move_while_placing
    }

    /// Which stones count towards the flying threshold.
    pub fn fly_count(&self) -> FlyCount {
        self.fly_count
    }

    /// Whether a side with `on_board` stones and `in_hand` in hand flies
    /// (when it moves a stone rather than placing one).
    #[inline]
    pub fn flies(&self, on_board: u32, in_hand: u32) -> bool {
        match (self.flying, self.fly_count) {
            (Flying::Never, _) => false,
            (Flying::AtMost(f), FlyCount::Board) => in_hand == 0 && on_board <= f as u32,
            (Flying::AtMost(f), FlyCount::All) => on_board + in_hand <= f as u32,
        }
    }

    /// A description of every rule parameter: tables solved under other
    /// rules carry another string and are refused. The flying count is
    /// named only where it changes the game (a side with stones in hand
    /// may move) and is not the board's, so every key from before it
    /// existed still means what it meant.
    pub fn rules_key(&self) -> String {
        let count = match self.fly_count {
            FlyCount::All if self.move_while_placing => " fly-count=all",
            _ => "",
        };
        format!(
            "{} board={} points={} mills={} stones={} fly={} fullboard={} lasker={}{count}",
            self.name,
            self.board.name(),
            self.board.points(),
            self.board.mills().len(),
            self.stones,
            self.flying,
            if self.full_board_draw { "draw" } else { "normal" },
            self.move_while_placing,
        )
    }
}

/// What tells a table's rules key `found` from the key `expected`, in the
/// options that choose them (`--fly-at`, `--fly-count`), when they differ
/// only there: the rest of a refusal's message for a reader who solved
/// under the other option. Empty when the keys differ elsewhere too.
pub fn rules_hint(found: &str, expected: &str) -> String {
    fn token<'k>(key: &'k str, name: &str) -> Option<&'k str> {
        key.split(' ').find_map(|t| t.strip_prefix(name))
    }
    fn count(key: &str) -> &str {
        token(key, "fly-count=").unwrap_or("board")
    }
    /// The key without the flying rule's tokens.
    fn rest(key: &str) -> Vec<&str> {
        key.split(' ').filter(|t| !t.starts_with("fly=") && !t.starts_with("fly-count=")).collect()
    }
    if rest(found) != rest(expected) {
        return String::new();
    }
    let mut options = Vec::new();
    let fly_found = token(found, "fly=");
    if fly_found != token(expected, "fly=") {
        options.push(format!("--fly-at {}", fly_found.unwrap_or_default()));
    }
    if token(found, "lasker=") == Some("true") && count(found) != count(expected) {
        options.push(format!("--fly-count {}", count(found)));
    }
    if options.is_empty() {
        return String::new();
    }
    format!(" (it was solved with {}; give the same to read it)", options.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_have_the_published_shapes() {
        let nine = Variant::named("nine").unwrap();
        assert_eq!(nine.board().points(), 24);
        assert_eq!(nine.board().mills().len(), 16);
        let twelve = Variant::named("twelve").unwrap();
        assert_eq!(twelve.board().mills().len(), 20);
        let six = Variant::named("six").unwrap();
        assert_eq!(six.board().points(), 16);
        assert_eq!(six.board().mills().len(), 8);
        let adjacency: u32 = (0..24).map(|p| nine.board().adjacent(p).count_ones()).sum();
        assert_eq!(adjacency / 2, 32);
        let adjacency: u32 = (0..24).map(|p| twelve.board().adjacent(p).count_ones()).sum();
        assert_eq!(adjacency / 2, 40);
    }

    #[test]
    fn steps_by_lanes_are_the_steps_stone_by_stone() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as Bits
        };
        for name in VARIANT_NAMES {
            let v = Variant::named(name).unwrap();
            let b = v.board();
            assert!(b.slides.fits, "{name}: a point with more than {SLIDE_LANES} neighbours");
            for _ in 0..20_000 {
                let stones = next() & b.all();
                let empty = next() & b.all() & !stones;
                for flies in [false, true] {
                    let mut by_lanes = Vec::new();
                    b.for_each_step(stones, empty, flies, |f, t| by_lanes.push((f, t)));
                    by_lanes.sort_unstable();
                    let mut by_stones = Vec::new();
                    b.for_each_step_by_stones(stones, empty, flies, |f, t| by_stones.push((f, t)));
                    assert_eq!(by_lanes, by_stones, "{name}: {stones:x} into {empty:x}");
                }
            }
        }
    }

    #[test]
    fn coordinates_follow_the_classic_diagram() {
        let nine = Variant::named("nine").unwrap();
        let b = nine.board();
        let names: Vec<&str> = (0..24).map(|p| b.point_name(p)).collect();
        assert_eq!(names[..8], ["a7", "d7", "g7", "g4", "g1", "d1", "a1", "a4"]);
        assert_eq!(names[8..16], ["b6", "d6", "f6", "f4", "f2", "d2", "b2", "b4"]);
        assert_eq!(names[16..], ["c5", "d5", "e5", "e4", "e3", "d3", "c3", "c4"]);
        let six = Variant::named("six").unwrap();
        let names: Vec<&str> = (0..16).map(|p| six.board().point_name(p)).collect();
        assert_eq!(names[..8], ["a5", "c5", "e5", "e3", "e1", "c1", "a1", "a3"]);
        assert_eq!(names[8..], ["b4", "c4", "d4", "d3", "d2", "c2", "b2", "b3"]);
    }

    #[test]
    fn a_bent_mill_is_refused() {
        let board = Board::squares(3, false).unwrap();
        let err = Board::from_graph(
            "bent".into(),
            3,
            false,
            board.names.clone(),
            board.coords.clone(),
            &[(0, 1), (1, 9)],
            &[[0, 1, 9]],
        );
        assert!(matches!(err, Err(VariantError::BadBoard { .. })));
    }

    #[test]
    fn removal_prefers_stones_outside_mills() {
        let nine = Variant::named("nine").unwrap();
        let b = nine.board();
        let mill = 0b111; // a7 d7 g7
        assert_eq!(b.removable(mill | 1 << 10), 1 << 10);
        assert_eq!(b.removable(mill), mill);
    }
}
