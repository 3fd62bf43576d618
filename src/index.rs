//! Sectors and the symmetry-aware index of the positions in a sector.
//!
//! A slot is `class * per_class + rest`: `class` ranks the mover's stone
//! set among the canonical sets with that many stones (canonical = the
//! smallest image under the symmetry group), `rest` ranks the opponent's
//! stones among the remaining points in the combinatorial number system.
//! When the mover's set is symmetric (a non-trivial stabiliser), the
//! opponent's set takes the smallest image under the stabiliser; the other
//! slots of such a class are "non-canonical" and hold no position.

use crate::symmetry::{cycles, Symmetries};
use crate::variant::{points, Bits, Board};
use std::fmt;
use std::sync::OnceLock;
mod classes;
mod frame;
mod plus_one;
use classes::Classes;
pub use frame::{ImagesFrame, MoverFrame};

/// Version of the slot layout, stored in every table header.
pub const INDEX_VERSION: u32 = 1;

/// All positions with the same stones on the board and in hand, seen from
/// the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sector {
    /// Stones of the side to move on the board.
    pub mover: u8,
    /// Stones of the other side on the board.
    pub opponent: u8,
    /// Stones of the side to move in hand.
    pub mover_hand: u8,
    /// Stones of the other side in hand.
    pub opponent_hand: u8,
}

impl Sector {
    /// A moving-phase sector: nothing in hand.
    pub const fn moving(mover: u8, opponent: u8) -> Sector {
        Sector { mover, opponent, mover_hand: 0, opponent_hand: 0 }
    }

    /// The sector of a state.
    pub fn of(state: &crate::position::State) -> Sector {
        Sector {
            mover: state.mover.count_ones() as u8,
            opponent: state.opponent.count_ones() as u8,
            mover_hand: state.mover_hand,
            opponent_hand: state.opponent_hand,
        }
    }

    /// The state of this sector with the side to move's stones on
    /// `mover` and the other side's on `opponent` (the hands are the
    /// sector's): what a walk over a sector's slots hands out.
    pub fn state(&self, mover: Bits, opponent: Bits) -> crate::position::State {
        crate::position::State {
            mover,
            opponent,
            mover_hand: self.mover_hand,
            opponent_hand: self.opponent_hand,
        }
    }

    /// Whether both sides have placed all their stones.
    pub fn is_moving(&self) -> bool {
        self.mover_hand == 0 && self.opponent_hand == 0
    }

    /// Stones on the board and in hand, both sides together.
    pub fn total_stones(&self) -> u32 {
        (self.mover + self.opponent + self.mover_hand + self.opponent_hand) as u32
    }
}

impl fmt::Display for Sector {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.is_moving() {
            write!(f, "{}-{}", self.mover, self.opponent)
        } else {
            write!(f, "{}-{}-{}-{}", self.mover, self.opponent, self.mover_hand, self.opponent_hand)
        }
    }
}

impl std::str::FromStr for Sector {
    type Err = String;
    fn from_str(s: &str) -> Result<Sector, String> {
        let parts: Result<Vec<u8>, _> = s.split('-').map(str::parse).collect();
        match parts.as_deref() {
            Ok([m, o]) => Ok(Sector::moving(*m, *o)),
            Ok([m, o, mh, oh]) => {
                Ok(Sector { mover: *m, opponent: *o, mover_hand: *mh, opponent_hand: *oh })
            }
            _ => Err(format!("'{s}' is not a sector: expected M-O or M-O-MH-OH")),
        }
    }
}

/// Binomial coefficients `C(n, k)` for `n, k <= 32`.
pub struct Binomials([[u64; 33]; 33]);

impl Binomials {
    const fn new() -> Binomials {
        let mut c = [[0u64; 33]; 33];
        let mut n = 0;
        while n <= 32 {
            c[n][0] = 1;
            let mut k = 1;
            while k <= n {
                c[n][k] = c[n - 1][k - 1] + c[n - 1][k];
                k += 1;
            }
            n += 1;
        }
        Binomials(c)
    }

    /// n choose k.
    #[inline(always)]
    pub fn get(&self, n: u32, k: u32) -> u64 {
        self.0[n as usize][k as usize]
    }
}

/// `C(n, k)`, from a table built at compile time.
pub static BINOMIAL: Binomials = Binomials::new();

/// Colex rank terms of the points of one byte of a set, by the byte's
/// place `j` (points `8j..8j+8`) and the number `k` of the set's points
/// below it: `RANK_BYTES[j][k][b]` sums `C(8j + t, k + i + 1)` over the
/// points `t` of `b`, the `i`-th lowest being the set's `k + i + 1`-th.
/// A set of the 24-point boards ranks with three lookups instead of a
/// loop over its points (77 KiB, which stays in the L2 cache).
static RANK_BYTES: [[[u32; 256]; 25]; 3] = rank_bytes();

const fn rank_bytes() -> [[[u32; 256]; 25]; 3] {
    let mut t = [[[0u32; 256]; 25]; 3];
    let mut j = 0;
    while j < 3 {
        let mut k = 0;
        while k < 25 {
            let mut b = 0;
            while b < 256 {
                let (mut sum, mut i, mut bit) = (0u64, 0, 0);
                while bit < 8 {
                    if b & (1 << bit) != 0 {
                        sum += BINOMIAL.0[8 * j + bit][k + i + 1];
                        i += 1;
                    }
                    bit += 1;
                }
                // Only reachable combinations matter (k plus the byte's
                // points at most 24); those fit in 32 bits.
                t[j][k][b] = if k + i <= 24 { sum as u32 } else { 0 };
                b += 1;
            }
            k += 1;
        }
        j += 1;
    }
    t
}

/// Rank of `set` among sets of its size in colexicographic order.
/// Always inlined: the solvers rank a dozen sets a state through it.
#[inline(always)]
pub fn colex_rank(set: Bits) -> u64 {
    if set >> 24 == 0 {
        let bytes = [set & 0xff, (set >> 8) & 0xff, set >> 16];
        let below = [0, bytes[0].count_ones(), (set & 0xffff).count_ones()];
        return (0..3).map(|j| RANK_BYTES[j][below[j] as usize][bytes[j] as usize] as u64).sum();
    }
    colex_rank_of_points(set)
}

/// [`colex_rank`] point by point: for any set, and the reference for the
/// byte tables.
#[inline]
pub fn colex_rank_of_points(set: Bits) -> u64 {
    let mut rank = 0;
    for (i, p) in points(set).enumerate() {
        rank += BINOMIAL.get(p as u32, i as u32 + 1);
    }
    rank
}

/// The `k`-subset of `0..32` with colexicographic rank `rank`.
pub fn colex_unrank(rank: u64, k: u32) -> Bits {
    colex_unrank_below(rank, k, 32)
}

/// The `k`-subset of `0..n` with colexicographic rank `rank`.
#[inline]
fn colex_unrank_below(mut rank: u64, k: u32, n: u32) -> Bits {
    let mut set = 0;
    let mut c = n;
    for i in (1..=k).rev() {
        c -= 1;
        while BINOMIAL.get(c, i) > rank {
            c -= 1;
        }
        rank -= BINOMIAL.get(c, i);
        set |= 1 << c;
    }
    set
}

/// Rank of `set` (a subset of `free`) among the subsets of `free` of its
/// size, as if the points of `free` were renumbered `0..`.
#[inline(always)]
pub(crate) fn compact_rank(set: Bits, free: Bits) -> u64 {
    #[cfg(target_feature = "bmi2")]
    {
        // Safety: the instruction exists, as the target feature says.
        return colex_rank(unsafe { std::arch::x86_64::_pext_u32(set, free) });
    }
    #[allow(unreachable_code)]
    let mut rank = 0;
    for (i, p) in points(set).enumerate() {
        let below = (free & ((1 << p) - 1)).count_ones();
        rank += BINOMIAL.get(below, i as u32 + 1);
    }
    rank
}

/// The points of `set` (a subset of `free`) as if the points of `free`
/// were renumbered `0..`: one `pext` where the CPU has it. The inverse of
/// [`deposit_bits`].
#[inline(always)]
pub(crate) fn extract_bits(set: Bits, free: Bits) -> Bits {
    #[cfg(target_feature = "bmi2")]
    {
        // Safety: the instruction exists, as the target feature says.
        return unsafe { std::arch::x86_64::_pext_u32(set, free) };
    }
    #[allow(unreachable_code)]
    points(set).fold(0, |acc, p| acc | 1 << (free & ((1 << p) - 1)).count_ones())
}

/// Spreads the bits of `compact` over the points of `free`, lowest first:
/// one `pdep` where the CPU has it.
#[inline]
pub(crate) fn deposit_bits(compact: Bits, free: Bits) -> Bits {
    #[cfg(target_feature = "bmi2")]
    {
        // Safety: the instruction exists, as the target feature says.
        return unsafe { std::arch::x86_64::_pdep_u32(compact, free) };
    }
    #[allow(unreachable_code)]
    deposit(compact, FreePoints::of(free).as_slice())
}

/// [`deposit_bits`] for many sets over one `free` set, whose points
/// `free_points` lists (made once for them all): one `pdep` where the CPU
/// has it, the list otherwise.
#[inline(always)]
fn deposit_listed(compact: Bits, free: Bits, free_points: &FreePoints) -> Bits {
    #[cfg(target_feature = "bmi2")]
    {
        let _ = free_points;
        // Safety: the instruction exists, as the target feature says.
        return unsafe { std::arch::x86_64::_pdep_u32(compact, free) };
    }
    #[allow(unreachable_code)]
    deposit(compact, free_points.as_slice())
}

/// Spreads the bits of `compact` over the points of `free`, lowest first.
#[inline]
fn deposit(compact: Bits, free_points: &[u8]) -> Bits {
    points(compact).fold(0, |acc, i| acc | 1 << free_points[i as usize])
}

/// Calls `f(rank, set)` for every `size`-subset of `0..n` in colex order.
pub(crate) fn for_each_subset(n: u32, size: u32, mut f: impl FnMut(u64, Bits)) {
    if size > n {
        return;
    }
    if size == 0 {
        f(0, 0);
        return;
    }
    let mut set: u64 = (1 << size) - 1;
    let mut rank = 0;
    while set < 1 << n {
        f(rank, set as Bits);
        rank += 1;
        set = next_subset(set);
    }
}

/// The next set with as many points in colex order (Gosper's hack).
#[inline(always)]
fn next_subset(set: u64) -> u64 {
    let low = set & set.wrapping_neg();
    let ripple = set + low;
    (((ripple ^ set) >> 2) / low) | ripple
}

/// The smallest image of `set` and the symmetries that give it.
#[inline(always)]
fn canonical_set(syms: &Symmetries, set: Bits) -> (Bits, u32) {
    // Two branch-free passes: the images, then which of them is smallest.
    let n = syms.len().min(32);
    let mut images = [0; 32];
    let mut best = set;
    for (s, image) in images.iter_mut().enumerate().take(n) {
        *image = syms.apply(s, set);
        best = best.min(*image);
    }
    let mut which = 0;
    for (s, &image) in images.iter().enumerate().take(n) {
        which |= ((image == best) as u32) << s;
    }
    (best, which)
}

/// The index of every sector of one board.
pub struct Indexer {
    syms: Symmetries,
    points: u32,
    all: Bits,
    classes: Vec<OnceLock<Classes>>,
    /// By `size`: the subsets of `size` points of `0..points - m`, by
    /// colex rank, for unranking the opponents of a sector with `m`
    /// mover stones. One lookup instead of a search per point: the solver
    /// unranks every state it decides.
    subsets: Vec<Vec<OnceLock<Vec<Bits>>>>,
    images: Option<PointImages>,
    /// By `size`: every set of `size` points as a mover, by colex rank
    /// ([`MoverClass`]); built on first use, for sizes of at most
    /// [`MOVER_CLASS_SETS`] sets.
    mover_classes: Vec<OnceLock<Vec<MoverClass>>>,
}

/// One stone set as a sector's mover: its canonical form, its class and
/// the symmetries (lanes of [`Images`]) that send it there. Looked up by
/// the set's colex rank, it replaces the set's sixteen images, their
/// minimum and the class's bitmap: a walk around one opponent set ranks
/// every mover set in colex order, so it reads the table in order.
#[derive(Clone, Copy, Debug, Default)]
struct MoverClass {
    canonical: Bits,
    class: u32,
    which: u32,
}

/// The most sets of one size a [`MoverClass`] table covers (12 bytes
/// each; the 24-point boards' largest size, 12 stones, has 2.7 M).
const MOVER_CLASS_SETS: u64 = 1 << 22;

impl Indexer {
    /// An indexer for `board`; the tables of each stone count are built on
    /// first use.
    pub fn new(board: &Board) -> Indexer {
        let points = board.points() as u32;
        let syms = Symmetries::of(board);
        let images = PointImages::of(&syms, points);
        let classes = (0..=points).map(|_| OnceLock::new()).collect();
        let subsets =
            (0..=points).map(|_| (0..=points).map(|_| OnceLock::new()).collect()).collect();
        let mover_classes = (0..=points).map(|_| OnceLock::new()).collect();
        Indexer { syms, points, all: board.all(), classes, subsets, images, mover_classes }
    }

    /// The symmetries of the board.
    pub fn symmetries(&self) -> &Symmetries {
        &self.syms
    }

    /// The point images for ranking by [`SectorIndex::rank_images`], when
    /// the group is small enough for one vector (16 lanes; every board of
    /// the crate's variants).
    pub fn point_images(&self) -> Option<&PointImages> {
        self.images.as_ref()
    }

    /// The canonical sets of `size` points (each the smallest image of its
    /// orbit), in class order, and the symmetries that fix each. These are
    /// the classes of a sector's mover; a solver that walks a sector by its
    /// opponent's stones uses them for the opponent instead.
    pub fn set_classes(&self, size: u32) -> (&[Bits], &[u32]) {
        let classes = self.classes(size);
        (&classes.reps, &classes.stabilisers)
    }

    fn classes(&self, size: u32) -> &Classes {
        self.classes[size as usize].get_or_init(|| Classes::build(&self.syms, self.points, size))
    }

    /// The `size`-subsets of `0..n` in colex order (built on first use).
    fn subsets(&self, n: u32, size: u32) -> &[Bits] {
        self.subsets[n as usize][size as usize].get_or_init(|| {
            let mut sets = Vec::with_capacity(BINOMIAL.get(n, size) as usize);
            for_each_subset(n, size, |_, set| sets.push(set));
            sets
        })
    }

    /// Every set of `size` points as a mover, by colex rank; `None` for
    /// sizes with too many sets.
    fn mover_classes(&self, size: u32) -> Option<&[MoverClass]> {
        if BINOMIAL.get(self.points, size) > MOVER_CLASS_SETS {
            return None;
        }
        let table = self.mover_classes[size as usize].get_or_init(|| {
            let classes = self.classes(size);
            let mut table = Vec::with_capacity(BINOMIAL.get(self.points, size) as usize);
            for_each_subset(self.points, size, |_, set| {
                let (canonical, which) = canonical_set(&self.syms, set);
                let class = classes.class_of(canonical) as u32;
                table.push(MoverClass { canonical, class, which });
            });
            table
        });
        Some(table)
    }

    /// The index of the positions with `mover` and `opponent` stones on the
    /// board (stones in hand do not change the layout).
    pub fn sector(&self, sector: Sector) -> SectorIndex<'_> {
        let (m, o) = (sector.mover as u32, sector.opponent as u32);
        assert!(m + o <= self.points, "sector {sector} does not fit the board");
        SectorIndex {
            ix: self,
            classes: self.classes(m),
            m,
            o,
            per_class: BINOMIAL.get(self.points - m, o),
        }
    }

    /// The canonical form of a position: the smallest mover set over the
    /// group, then the smallest opponent set over that set's stabiliser.
    #[inline]
    pub fn canonical(&self, mover: Bits, opponent: Bits) -> (Bits, Bits) {
        let (m, which) = canonical_set(&self.syms, mover);
        (m, self.min_image(opponent, which))
    }

    #[inline(always)]
    fn min_image(&self, set: Bits, which: u32) -> Bits {
        // The identity alone: most sets of a walk by canonical sets.
        if which == 1 {
            return set;
        }
        if which & (which - 1) == 0 {
            return self.syms.apply(which.trailing_zeros() as usize, set);
        }
        points(which).map(|s| self.syms.apply(s as usize, set)).min().unwrap_or(set)
    }
}

/// Lanes of an [`Images`] vector: the largest group the fast path covers.
pub const LANES: usize = 16;

/// The images of one stone set under every symmetry of the group, one
/// lane per symmetry (lanes beyond the group repeat the identity).
///
/// Symmetries act on sets point by point, so the images of a set that
/// differs from another by a few points follow from the other's images by
/// XOR with the images of those points. The solver and the forward check
/// rank many positions that share one side and differ in a stone or two
/// of the other: they compute a state's images once and each neighbour's
/// with two vector XORs, instead of applying sixteen symmetries to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(64))]
pub struct Images(pub [Bits; LANES]);

impl Images {
    /// The images of `self` with `other`'s points toggled (`other` given
    /// by its own images).
    #[inline(always)]
    pub fn toggle(&self, other: &Images) -> Images {
        Images(std::array::from_fn(|s| self.0[s] ^ other.0[s]))
    }

    /// The smallest of the images in the lanes `which` (at least one): the
    /// canonical form of a set in a frame that those symmetries make
    /// canonical.
    #[inline(always)]
    pub(crate) fn smallest_of(&self, which: u32) -> Bits {
        if which & (which - 1) == 0 {
            self.0[which.trailing_zeros() as usize]
        } else {
            points(which).map(|s| self.0[s as usize]).min().unwrap_or(self.0[0])
        }
    }

    /// The smallest image, and the lanes that give it.
    #[inline(always)]
    fn smallest(&self) -> (Bits, u32) {
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            use std::arch::x86_64::{
                _mm512_cmpeq_epi32_mask, _mm512_load_si512, _mm512_reduce_min_epu32,
                _mm512_set1_epi32,
            };
            // One vector: the compiler's own code for the loops below is
            // a long chain of blends and shuffles, and the solver takes
            // the smallest image of every edge.
            // Safety: the target feature is there, and `Images` is 64
            // bytes, aligned to 64.
            unsafe {
                let lanes = _mm512_load_si512(self.0.as_ptr().cast());
                let best = _mm512_reduce_min_epu32(lanes);
                let which = _mm512_cmpeq_epi32_mask(lanes, _mm512_set1_epi32(best as i32));
                return (best, which as u32);
            }
        }
        #[cfg(all(
            target_arch = "x86_64",
            target_feature = "avx2",
            not(target_feature = "avx512f")
        ))]
        {
            // Safety: the target feature is there.
            return unsafe { self.smallest_avx2() };
        }
        #[allow(unreachable_code)]
        self.smallest_scalar()
    }

    /// [`Images::smallest`] without vectors: the reference the vector
    /// paths are tested against, and the path of other CPUs.
    #[inline(always)]
    fn smallest_scalar(&self) -> (Bits, u32) {
        let best = self.0.iter().copied().fold(Bits::MAX, Bits::min);
        let mut which = 0u32;
        for (s, &image) in self.0.iter().enumerate() {
            which |= ((image == best) as u32) << s;
        }
        (best, which)
    }

    /// [`Images::smallest`] in two AVX2 vectors of eight lanes, for the
    /// CPUs without AVX-512 (the compiler's code for the scalar loops is a
    /// chain of shuffles there too).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    // Built on AVX-512 CPUs too, where only the tests call it.
    #[cfg_attr(any(target_feature = "avx512f", not(target_feature = "avx2")), allow(dead_code))]
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn smallest_avx2(&self) -> (Bits, u32) {
        use std::arch::x86_64::*;
        // Safety (of the loads): `Images` is 64 bytes, aligned to 64.
        let (low, high) = unsafe {
            let p: *const __m256i = self.0.as_ptr().cast();
            (_mm256_load_si256(p), _mm256_load_si256(p.add(1)))
        };
        // The minimum of all 16 lanes, spread to every lane by halving.
        let mut min = _mm256_min_epu32(low, high);
        min = _mm256_min_epu32(min, _mm256_permute2x128_si256::<0x01>(min, min));
        min = _mm256_min_epu32(min, _mm256_shuffle_epi32::<0b01_00_11_10>(min));
        min = _mm256_min_epu32(min, _mm256_shuffle_epi32::<0b10_11_00_01>(min));
        // One bit per lane of each half (movemask sets only the low 8 bits).
        let low_lanes =
            _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(low, min))) as u32;
        let high_lanes =
            _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(high, min))) as u32;
        let which = low_lanes | high_lanes << 8;
        (_mm256_cvtsi256_si32(min) as Bits, which)
    }
}

/// The images of every point, so that a set's images can be updated
/// point by point; built once per indexer.
pub struct PointImages {
    points: Vec<Images>,
    /// Per byte of a set (points `8 j .. 8 j + 8`) and per value of that
    /// byte: the images of those points together, so that a whole set's
    /// images are one XOR a byte (48 KiB for 24 points) instead of one a
    /// point.
    bytes: Vec<[Images; 256]>,
    /// The lanes that are real symmetries.
    lanes: u32,
}

impl PointImages {
    fn of(syms: &Symmetries, points: u32) -> Option<PointImages> {
        let n = syms.len();
        if n == 0 || n > LANES {
            return None;
        }
        let images =
            |set: Bits| Images(std::array::from_fn(|s| syms.apply(if s < n { s } else { 0 }, set)));
        let bytes = (0..points.div_ceil(8))
            .map(|j| {
                let mut table = [Images([0; LANES]); 256];
                for (b, entry) in table.iter_mut().enumerate() {
                    *entry = images(((b as Bits) << (8 * j)) & all_points(points));
                }
                table
            })
            .collect();
        Some(PointImages {
            points: (0..points).map(|p| images(1 << p)).collect(),
            bytes,
            lanes: if n == 32 { u32::MAX } else { (1u32 << n) - 1 },
        })
    }

    /// The images of one point.
    #[inline(always)]
    pub fn point(&self, p: crate::variant::Point) -> &Images {
        &self.points[p as usize]
    }

    /// The images of a set, a byte of its points at a time.
    #[inline]
    pub fn set(&self, set: Bits) -> Images {
        let mut acc = Images([0; LANES]);
        for (j, table) in self.bytes.iter().enumerate() {
            acc = acc.toggle(&table[((set >> (8 * j)) & 0xff) as usize]);
        }
        acc
    }

    /// [`PointImages::set`] point by point: the reference the byte
    /// tables are tested against.
    pub fn set_by_points(&self, set: Bits) -> Images {
        let mut acc = Images([0; LANES]);
        for p in points(set) {
            acc = acc.toggle(self.point(p));
        }
        acc
    }
}

/// The set of points `0..n`.
fn all_points(n: u32) -> Bits {
    if n >= Bits::BITS {
        Bits::MAX
    } else {
        (1 << n) - 1
    }
}

/// The slots of one sector.
#[derive(Clone, Copy)]
pub struct SectorIndex<'a> {
    ix: &'a Indexer,
    classes: &'a Classes,
    m: u32,
    o: u32,
    per_class: u64,
}

impl SectorIndex<'_> {
    /// Number of classes of mover sets: blocks of `slots / classes` slots.
    pub fn classes(&self) -> u64 {
        self.classes.reps.len() as u64
    }

    /// Number of slots, canonical or not.
    pub fn slots(&self) -> u64 {
        self.classes() * self.per_class
    }

    /// The slot of a position (any of its symmetric images gives the same).
    #[inline]
    pub fn rank(&self, mover: Bits, opponent: Bits) -> u64 {
        debug_assert_eq!((mover.count_ones(), opponent.count_ones()), (self.m, self.o));
        let (m, o) = self.ix.canonical(mover, opponent);
        self.classes.class_of(m) * self.per_class + compact_rank(o, self.ix.all & !m)
    }

    /// The slot of the position whose mover and opponent sets have the
    /// images `mover` and `opponent` (from this indexer's
    /// [`PointImages`]): the same slot as [`SectorIndex::rank`] gives.
    #[inline(always)]
    pub fn rank_images(&self, mover: &Images, opponent: &Images) -> u64 {
        self.images_frame(mover).rank(opponent)
    }

    /// The slot of the position with the stones `mover` and the opponent
    /// set whose images are `opponent`: the same slot as
    /// [`SectorIndex::rank_images`] gives, with the mover's class looked
    /// up by its colex rank instead of worked out from its images.
    #[inline(always)]
    pub fn rank_mover(&self, mover: Bits, opponent: &Images) -> u64 {
        let Some(movers) = self.ix.mover_classes(self.m) else {
            let images = self.ix.images.as_ref().expect("point images with the opponent's");
            return self.rank_images(&images.set(mover), opponent);
        };
        let entry = movers[colex_rank(mover) as usize];
        let o = opponent.smallest_of(entry.which);
        entry.class as u64 * self.per_class + compact_rank(o, self.ix.all & !entry.canonical)
    }

    /// The position of a slot; `None` for a non-canonical slot.
    pub fn unrank(&self, slot: u64) -> Option<(Bits, Bits)> {
        let class = (slot / self.per_class) as usize;
        let mover = self.classes.reps[class];
        let free = self.ix.all & !mover;
        let compact =
            self.ix.subsets(self.ix.points - self.m, self.o)[(slot % self.per_class) as usize];
        let opponent = deposit_bits(compact, free);
        self.is_canonical(class, opponent).then_some((mover, opponent))
    }

    /// How many distinct positions the symmetries make of the canonical
    /// position in `slot` (whose opponent stones are `opponent`).
    #[inline]
    pub fn orbit_size(&self, slot: u64, opponent: Bits) -> u32 {
        let group = self.ix.syms.len() as u32;
        let stab = self.classes.stabilisers[(slot / self.per_class) as usize];
        if stab == 1 {
            return group;
        }
        group
            / points(stab).filter(|&s| self.ix.syms.apply(s as usize, opponent) == opponent).count()
                as u32
    }

    #[inline]
    fn is_canonical(&self, class: usize, opponent: Bits) -> bool {
        let stab = self.classes.stabilisers[class];
        stab == 1 || points(stab & !1).all(|s| self.ix.syms.apply(s as usize, opponent) >= opponent)
    }

    /// Whether every slot of `range` is canonical: its mover sets have no
    /// symmetry but the identity, as most have.
    pub fn all_canonical(&self, range: std::ops::Range<u64>) -> bool {
        if range.is_empty() {
            return true;
        }
        let (first, last) = (range.start / self.per_class, (range.end - 1) / self.per_class);
        self.classes.stabilisers[first as usize..=last as usize].iter().all(|&stab| stab == 1)
    }

    /// Calls `f(slot, mover, opponent)` for every canonical slot in
    /// `range`, in order, without ranking each one.
    pub fn for_each_in(&self, range: std::ops::Range<u64>, mut f: impl FnMut(u64, Bits, Bits)) {
        if range.is_empty() {
            return;
        }
        let mut slot = range.start;
        let mut class = (slot / self.per_class) as usize;
        let mut compact = colex_unrank(slot % self.per_class, self.o) as u64;
        while slot < range.end {
            let mover = self.classes.reps[class];
            let free = self.ix.all & !mover;
            let free_points = FreePoints::of(free);
            let class_end = (class as u64 + 1) * self.per_class;
            while slot < class_end.min(range.end) {
                let opponent = deposit_listed(compact as Bits, free, &free_points);
                if self.is_canonical(class, opponent) {
                    f(slot, mover, opponent);
                }
                slot += 1;
                compact = if self.o == 0 { 0 } else { next_subset(compact) };
            }
            class += 1;
            compact = if self.o == 0 { 0 } else { (1 << self.o) - 1 };
        }
    }

    /// Number of canonical positions: per class, the orbits of the
    /// stabiliser on the opponent sets (Burnside over the stabiliser).
    pub fn canonical_states(&self) -> u64 {
        let mut total = 0;
        for (class, &stab) in self.classes.stabilisers.iter().enumerate() {
            if stab == 1 {
                total += self.per_class;
                continue;
            }
            let free = self.ix.all & !self.classes.reps[class];
            let fixed: u64 = points(stab)
                .map(|s| {
                    subsets_of_cycles(&cycles(self.ix.syms.perm(s as usize), free), self.o as usize)
                })
                .sum();
            total += fixed / stab.count_ones() as u64;
        }
        total
    }
}

/// Number of ways to choose cycles whose lengths sum to `size`.
pub fn subsets_of_cycles(lengths: &[usize], size: usize) -> u64 {
    let mut ways = vec![0u64; size + 1];
    ways[0] = 1;
    for &len in lengths {
        for s in (len..=size).rev() {
            ways[s] += ways[s - len];
        }
    }
    ways[size]
}

/// The points of a set as a list, so slot iteration allocates nothing.
struct FreePoints {
    points: [u8; 32],
    len: usize,
}

impl FreePoints {
    fn of(set: Bits) -> FreePoints {
        let mut fp = FreePoints { points: [0; 32], len: 0 };
        for p in points(set) {
            fp.points[fp.len] = p;
            fp.len += 1;
        }
        fp
    }

    fn as_slice(&self) -> &[u8] {
        &self.points[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colex_rank_by_bytes_agrees_with_the_points() {
        // Every third subset of 24 points: every byte pattern, with every
        // count of points below it.
        for set in (0..1 << 24).step_by(3) {
            assert_eq!(colex_rank(set), colex_rank_of_points(set), "{set:x}");
        }
        assert_eq!(colex_rank(1 << 31 | 1), colex_rank_of_points(1 << 31 | 1));
    }

    #[test]
    fn colex_round_trips() {
        for k in 0..=5 {
            for_each_subset(10, k, |rank, set| {
                assert_eq!(colex_rank(set), rank);
                assert_eq!(colex_unrank(rank, k), set);
            });
        }
    }

    /// Lane sets with ties, equal lanes and the top bit set (the vector
    /// paths compare unsigned), from a fixed pseudo-random sequence.
    fn sample_images() -> Vec<Images> {
        let mut rng = crate::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
        (0..100_000)
            .map(|_| {
                let spread = [u32::MAX, 1 << 31 | 0xff, 15, 1][(rng.next_u64() % 4) as usize];
                let base = [0, 1 << 31, u32::MAX - 15][(rng.next_u64() % 3) as usize];
                Images(std::array::from_fn(|_| base.wrapping_add(rng.next_u64() as u32 % spread)))
            })
            .collect()
    }

    #[test]
    fn smallest_image_agrees_with_the_scalar_reference() {
        for images in sample_images() {
            assert_eq!(images.smallest(), images.smallest_scalar(), "{images:x?}");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // Safety: the CPU has AVX2.
                assert_eq!(
                    unsafe { images.smallest_avx2() },
                    images.smallest_scalar(),
                    "{images:x?}"
                );
            }
        }
    }

    #[test]
    fn sector_names_round_trip() {
        for s in ["9-8", "3-3", "4-3-5-5", "0-0-9-9"] {
            assert_eq!(s.parse::<Sector>().unwrap().to_string(), s);
        }
        assert!("9".parse::<Sector>().is_err());
        assert!("a-b".parse::<Sector>().is_err());
    }
}
