//! Retrograde analysis: which sectors to solve in which order, the
//! solvers themselves. Nothing here opens a file: tables come in and go
//! out as slices; [`crate::driver`] runs the solvers over a database, which
//! stores them.

pub mod moving;
pub mod placement;
pub mod plan;
mod supersets;

use crate::index::Sector;
use crate::variant::{Bits, Variant};

pub use moving::{
    exit_sectors, partner_of, solve_pair, ChunkMarks, Exits, PairReport, ResumePoint, SolvedSector,
    WorkingSector,
};

/// Error while solving.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// Working tables that do not fit the pair.
    #[error("sector pair {0}: the working tables do not match the sectors")]
    BadPair(String),
    /// A sector read before it is solved.
    #[error("sector {0} must be solved first")]
    Unsolved(String),
    /// Placement with moves while placing, which this solver does not handle.
    #[error("sector {0}: players may move while placing, so placement sectors have cycles; this solver handles acyclic placement only")]
    Cyclic(String),
    /// A distance too long for a cell.
    #[error("sector {sector}: a distance exceeds {limit} plies, more than a cell holds")]
    DepthOverflow {
        /// The sector.
        sector: String,
        /// The longest distance a cell holds.
        limit: u16,
    },
    /// [`Progress::cancelled`] said stop, or [`Progress::checkpoint`]
    /// could not store a checkpoint; the working cells are then of no use.
    #[error("sector {0}: interrupted")]
    Interrupted(String),
    /// A resume point that does not fit the pair.
    #[error("sector {0}: the resume point does not fit the pair")]
    BadResume(String),
    /// Memory the solver's own working arrays could not get.
    #[error("sector {sector}: no memory for the solver's working arrays: {reason}")]
    OutOfMemory {
        /// The sector.
        sector: String,
        /// What the system said.
        reason: String,
    },
}

/// Reports the progress of long work; the binary draws it, tests ignore it.
pub trait Progress: Sync {
    /// A phase of `total` units begins.
    fn start(&self, _phase: &str, _total: u64) {}
    /// `n` more units are done.
    fn advance(&self, _n: u64) {}
    /// Whether the work should stop now. Solvers ask between chunks of
    /// slots and between depth levels, and then return
    /// [`SolveError::Interrupted`]; the caller decides why (a signal, say).
    fn cancelled(&self) -> bool {
        false
    }
    /// Whether a checkpoint is wanted at the level boundary just reached.
    fn checkpoint_due(&self) -> bool {
        false
    }
    /// Stores a checkpoint: the working cells the caller handed in are
    /// fixed until the next level starts, and `point` says where to go on
    /// from. `false` stops the solve with [`SolveError::Interrupted`] (the
    /// caller keeps the reason).
    fn checkpoint(&self, _point: &ResumePoint) -> bool {
        true
    }
}

/// Progress that goes nowhere.
pub struct Silent;

impl Progress for Silent {}

/// A sector pair: two sectors that reach each other by quiet moves (slides
/// that capture nothing) and are solved together. In the moving phase
/// `m-o` and `o-m` (one sector when `m == o`); in Lasker's placement
/// phase, where a player with stones in hand may slide, `m-o-mh-oh` and
/// `o-m-oh-mh` (slides keep the hands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MovingPair {
    /// Stones on the board of the first side: the side with more stones on
    /// the board, or with as many and more in hand.
    pub larger: u8,
    /// Stones on the board of the other side.
    pub smaller: u8,
    /// Stones in hand of the first side, then of the other: `(0, 0)` in
    /// the moving phase.
    pub hands: (u8, u8),
}

impl MovingPair {
    /// The moving-phase pair of sides with `a` and `b` stones.
    pub fn moving(a: u8, b: u8) -> MovingPair {
        MovingPair { larger: a.max(b), smaller: a.min(b), hands: (0, 0) }
    }

    /// The pair that holds `sector`.
    pub fn of(sector: Sector) -> MovingPair {
        // The first side: more stones on the board, then more in hand.
        let other = moving::partner_of(sector);
        let key = |s: &Sector| (s.mover, s.mover_hand);
        let first = if key(&other) > key(&sector) { other } else { sector };
        MovingPair {
            larger: first.mover,
            smaller: first.opponent,
            hands: (first.mover_hand, first.opponent_hand),
        }
    }

    /// The sectors of the pair, the first side's first.
    pub fn sectors(&self) -> Vec<Sector> {
        let a = Sector {
            mover: self.larger,
            opponent: self.smaller,
            mover_hand: self.hands.0,
            opponent_hand: self.hands.1,
        };
        let b = moving::partner_of(a);
        if a == b {
            vec![a]
        } else {
            vec![a, b]
        }
    }

    /// The solved sectors that moves from this pair lead to: captures,
    /// and placements while stones are in hand.
    pub fn dependencies(&self) -> Vec<Sector> {
        let mut out: Vec<Sector> = Vec::new();
        for s in self.sectors().into_iter().flat_map(|s| moving::exit_sectors(s).sectors()) {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }

    /// Stones on the board, both sides together.
    pub fn stones(&self) -> u32 {
        (self.larger + self.smaller) as u32
    }

    /// Stones in hand, both sides together (0 in the moving phase).
    pub fn in_hand(&self) -> u32 {
        (self.hands.0 + self.hands.1) as u32
    }

    /// Whether it is a pair of the moving phase (nothing in hand).
    pub fn is_moving(&self) -> bool {
        self.hands == (0, 0)
    }
}

impl std::fmt::Display for MovingPair {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        if self.is_moving() {
            write!(f, "{{{},{}}}", self.larger, self.smaller)
        } else {
            write!(f, "{{{}}}", self.sectors()[0])
        }
    }
}

/// Every moving-phase pair with at most `max_stones` on the board, in an
/// order where each pair comes after the pairs its captures lead to.
pub fn moving_pairs(v: &Variant, max_stones: u32) -> Vec<MovingPair> {
    let n = v.stones();
    let mut pairs: Vec<MovingPair> = (3..=n)
        .flat_map(|larger| (3..=larger).map(move |smaller| MovingPair::moving(larger, smaller)))
        .filter(|p| p.stones() <= max_stones && p.stones() as usize <= v.board().points())
        .collect();
    pairs.sort_by_key(|p| (p.stones(), p.larger));
    pairs
}

/// Every placement sector with at most `max_stones` stones on the board
/// and in hand, fewest stones in hand first: each after the sectors its
/// placements lead to.
pub fn placement_order(v: &Variant, max_stones: u32) -> Vec<Sector> {
    let mut sectors: Vec<Sector> = crate::sectors::placement_sectors(v)
        .into_iter()
        .filter(|s| s.total_stones() <= max_stones)
        .collect();
    sectors.reverse();
    sectors
}

/// Lasker's placement phase as pairs ([`MovingPair`] with stones in hand):
/// every pair of placement sectors with at most `max_stones` stones on the
/// board and in hand, fewest stones in hand first, then as the moving
/// phase orders them, so each pair comes after the pairs its placements
/// (one stone fewer in hand) and captures (one fewer on the board) lead to.
/// Empty for a variant whose placement is acyclic.
pub fn placement_pairs(v: &Variant, max_stones: u32) -> Vec<MovingPair> {
    if !v.move_while_placing() {
        return Vec::new();
    }
    let mut pairs: Vec<MovingPair> = crate::sectors::placement_sectors(v)
        .into_iter()
        .filter(|s| s.total_stones() <= max_stones)
        .map(MovingPair::of)
        .collect();
    pairs.sort_by_key(|p| (p.in_hand(), p.stones(), p.larger, p.hands));
    pairs.dedup();
    pairs
}

/// Every pair of sectors up to `max_stones` that quiet moves keep play
/// in, so that it can go round in circles: the moving phase's pairs, and
/// Lasker's placement pairs ([`placement_pairs`]). The progress tier
/// (`crate::progress`) covers them.
pub fn cyclic_pairs(v: &Variant, max_stones: u32) -> Vec<MovingPair> {
    let mut pairs = moving_pairs(v, max_stones);
    pairs.extend(placement_pairs(v, max_stones));
    pairs
}

/// Whether `sector` lies in one of [`cyclic_pairs`]: a moving-phase
/// sector, or any sector of a variant whose players may slide while they
/// place (Lasker's hands take every pair of counts). A game from another
/// start, where one side's hand is empty and the other places, is not:
/// every second ply is a placement.
pub fn is_cyclic(v: &Variant, sector: Sector) -> bool {
    sector.is_moving() || v.move_while_placing()
}

/// Every placement sector that a game from any start reaches
/// ([`crate::sectors::extended_placement_sectors`]) with at most
/// `max_stones` stones on the board and in hand, each after the sectors
/// its moves lead to: fewest stones in hand first, and of as many, a side
/// to move with stones in hand before one that slides into it.
pub fn extended_placement_order(v: &Variant, max_stones: u32) -> Vec<Sector> {
    let mut sectors: Vec<Sector> = crate::sectors::extended_placement_sectors(v)
        .into_iter()
        .filter(|s| s.total_stones() <= max_stones)
        .collect();
    sectors.reverse();
    sectors
}

/// Hints the CPU to fetch the cache line of `value`.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // Safety: a prefetch is only a hint; any address is allowed.
    unsafe {
        std::arch::x86_64::_mm_prefetch(
            value as *const T as *const i8,
            std::arch::x86_64::_MM_HINT_T0,
        );
    }
}

/// The mills that hold no stone of one opponent set.
pub(crate) struct OpenMills {
    mills: [Bits; MAX_MILLS],
    len: usize,
}

/// More mills than any board has (Morabaraba's 20).
const MAX_MILLS: usize = 32;

impl OpenMills {
    pub(crate) fn of(mills: &[Bits], opponent: Bits) -> OpenMills {
        let mut open = OpenMills { mills: [0; MAX_MILLS], len: 0 };
        for &mill in mills.iter().filter(|&&mill| mill & opponent == 0) {
            open.mills[open.len] = mill;
            open.len += 1;
        }
        open
    }

    /// `placement::closing_points` over these mills: every point of a mill free of
    /// the opponent is empty or the mover's, so a mill with one point
    /// left has it empty.
    #[inline(always)]
    pub(crate) fn closing_points(&self, mover: Bits) -> Bits {
        self.mills[..self.len].iter().fold(0, |closing, &mill| {
            let rest = mill & !mover;
            let one_left = ((rest.count_ones() == 1) as Bits).wrapping_neg();
            closing | (rest & one_left)
        })
    }

    /// These mills with the points `free` numbered `0..` in order (as a
    /// walk around the opponent set numbers them), for [`CompactMills::within`].
    pub(crate) fn compact(&self, free: Bits) -> CompactMills {
        // A filler is never wholly within a set of the free points.
        let mut mills = [Bits::MAX; MAX_MILLS];
        for (compact, &mill) in mills.iter_mut().zip(&self.mills[..self.len]) {
            *compact = crate::index::extract_bits(mill, free);
        }
        CompactMills(mills)
    }
}

/// Open mills in the numbering of the free points, padded to
/// [`MAX_MILLS`]: the walk by supersets tests every set of stones placed
/// into against all of them, and a fixed length lets the compiler test
/// them in a few vector instructions rather than one mill at a time.
pub(crate) struct CompactMills([Bits; MAX_MILLS]);

impl CompactMills {
    /// The points of the mills that lie wholly within `stones` (a set of
    /// the free points, in their numbering): where a stone placed last
    /// into `stones` closed a mill.
    #[inline(always)]
    pub(crate) fn within(&self, stones: Bits) -> Bits {
        self.0.iter().fold(0, |points, &mill| {
            let whole = ((mill & !stones == 0) as Bits).wrapping_neg();
            points | (mill & whole)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_come_after_their_dependencies() {
        let v = Variant::named("nine").unwrap();
        let pairs = moving_pairs(&v, 18);
        assert_eq!(pairs.len(), 28);
        for (i, p) in pairs.iter().enumerate() {
            for dep in p.dependencies() {
                let pos = pairs.iter().position(|q| q.sectors().contains(&dep)).unwrap();
                assert!(pos < i, "{p} needs {dep}");
            }
        }
        assert_eq!(moving_pairs(&v, 10).len(), 9);
    }

    /// The open mills in the free points' numbering find, for every set
    /// of those points, the points of the mills wholly within it, as the
    /// board's mills say on the board itself.
    #[test]
    fn compact_mills_find_the_mills_within_a_set() {
        use crate::index::{deposit_bits, extract_bits};
        let mut rng = crate::rng::Rng::new(259);
        for name in ["nine", "morabaraba", "six"] {
            let variant = Variant::named(name).unwrap();
            let board = variant.board();
            let all = board.all();
            for _ in 0..2000 {
                let opponent = rng.next_u64() as Bits & rng.next_u64() as Bits & all;
                let free = all & !opponent;
                let open = OpenMills::of(board.mills(), opponent).compact(free);
                let stones = rng.next_u64() as Bits & free;
                let whole = board.mills().iter().filter(|&&m| m & !stones == 0);
                let expected = whole.fold(0, |points, &m| points | m);
                let found = open.within(extract_bits(stones, free));
                assert_eq!(deposit_bits(found, free), expected, "{name}: {opponent:b} {stones:b}");
            }
        }
    }
}
