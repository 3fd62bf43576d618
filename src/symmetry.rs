//! The symmetry group of a board: the permutations of its points that map
//! lines to lines and mills to mills, computed from the graph.

use crate::variant::{points, Bits, Board, Point};

/// The automorphisms of a board, with lookup tables that apply one to a
/// set of points with a few table reads.
pub struct Symmetries {
    perms: Vec<Vec<Point>>,
    /// `tables[s][j][x]`: the image under `s` of byte `j` of a set whose
    /// byte `j` is `x`.
    tables: Vec<[[Bits; 256]; 3]>,
    /// The same symmetries as ring moves, when every one of them is.
    rings: Option<RingMoves>,
}

/// Symmetries that send whole rings (bytes) to rings, turning every ring
/// the same way. The square boards' groups are all of this form, and then
/// a symmetry applies with three reads from a table of 256 bytes per
/// distinct turn (2 KiB in all, which stays in the L1 cache where the
/// general tables, 48 KiB, do not).
struct RingMoves {
    /// Per distinct turn of a ring: the image of each byte.
    turns: Vec<[u8; 256]>,
    /// Per symmetry: its turn, and where each ring goes (as a bit shift).
    moves: Vec<(usize, [u32; 3])>,
}

impl RingMoves {
    fn of(perms: &[Vec<Point>]) -> Option<RingMoves> {
        let n = perms.first()?.len();
        if n % 8 != 0 || n > 24 {
            return None;
        }
        let mut turns: Vec<[u8; 8]> = Vec::new();
        let mut moves = Vec::new();
        for perm in perms {
            let turn: [u8; 8] = std::array::from_fn(|k| perm[k] % 8);
            let mut shifts = [0u32; 3];
            for r in 0..n / 8 {
                let to_ring = perm[8 * r] / 8;
                let whole = (0..8).all(|k| perm[8 * r + k] == 8 * to_ring + turn[k]);
                if !whole {
                    return None;
                }
                shifts[r] = 8 * to_ring as u32;
            }
            let t = turns.iter().position(|&x| x == turn).unwrap_or_else(|| {
                turns.push(turn);
                turns.len() - 1
            });
            moves.push((t, shifts));
        }
        let turns = turns
            .iter()
            .map(|turn| {
                std::array::from_fn(|x| {
                    (0..8).filter(|k| x & (1 << k) != 0).fold(0u8, |acc, k| acc | 1 << turn[k])
                })
            })
            .collect();
        Some(RingMoves { turns, moves })
    }
}

impl Symmetries {
    /// Finds every permutation of the points that preserves adjacency and
    /// maps the set of mills onto itself. The identity comes first.
    pub fn of(board: &Board) -> Symmetries {
        let n = board.points();
        let mut perms = Vec::new();
        let mut image = vec![u8::MAX; n];
        search(board, 0, &mut image, 0, &mut perms);
        assert!(n <= 24, "symmetry tables cover boards of up to 24 points");
        let tables = perms.iter().map(|p| byte_tables(p)).collect();
        let rings = RingMoves::of(&perms);
        Symmetries { perms, tables, rings }
    }

    /// Number of symmetries.
    pub fn len(&self) -> usize {
        self.perms.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.perms.is_empty()
    }

    /// Where symmetry `s` sends each point.
    pub fn perm(&self, s: usize) -> &[Point] {
        &self.perms[s]
    }

    /// The image of `set` under symmetry `s`.
    #[inline(always)]
    pub fn apply(&self, s: usize, set: Bits) -> Bits {
        if let Some(rings) = &self.rings {
            let (turn, shifts) = rings.moves[s];
            let t = &rings.turns[turn];
            let byte = |j: u32| t[((set >> (8 * j)) & 0xff) as usize] as Bits;
            return byte(0) << shifts[0] | byte(1) << shifts[1] | byte(2) << shifts[2];
        }
        let t = &self.tables[s];
        t[0][(set & 0xff) as usize]
            | t[1][((set >> 8) & 0xff) as usize]
            | t[2][((set >> 16) & 0xff) as usize]
    }

    /// Whether the fast ring-move form applies (it does on square boards).
    pub fn moves_whole_rings(&self) -> bool {
        self.rings.is_some()
    }

    /// The image of `set` under symmetry `s`, point by point: the obviously
    /// correct reference for [`Symmetries::apply`].
    pub fn apply_slow(&self, s: usize, set: Bits) -> Bits {
        points(set).fold(0, |acc, p| acc | 1 << self.perms[s][p as usize])
    }

    /// The symmetry that undoes `s`.
    pub fn inverse(&self, s: usize) -> usize {
        let n = self.perms[s].len();
        (0..self.len())
            .find(|&t| (0..n).all(|p| self.perms[t][self.perms[s][p] as usize] as usize == p))
            .expect("a group is closed under inverses")
    }

    /// The lengths of the cycles of symmetry `s`.
    pub fn cycle_lengths(&self, s: usize) -> Vec<usize> {
        cycles(&self.perms[s], !0)
    }
}

/// The cycle lengths of `perm` restricted to the points of `within`
/// (which must be a union of its cycles).
pub fn cycles(perm: &[Point], within: Bits) -> Vec<usize> {
    let mut seen: Bits = 0;
    let mut lengths = Vec::new();
    for start in 0..perm.len() {
        if seen & (1 << start) != 0 || within & (1 << start) == 0 {
            continue;
        }
        let mut len = 0;
        let mut p = start;
        while seen & (1 << p) == 0 {
            seen |= 1 << p;
            p = perm[p] as usize;
            len += 1;
        }
        lengths.push(len);
    }
    lengths
}

/// Backtracking over images of points `next..`, keeping adjacency between
/// already-mapped points intact.
fn search(
    board: &Board,
    next: usize,
    image: &mut Vec<Point>,
    used: Bits,
    out: &mut Vec<Vec<Point>>,
) {
    let n = board.points();
    if next == n {
        if maps_mills_to_mills(board, image) {
            out.push(image.clone());
        }
        return;
    }
    let degree = board.adjacent(next as Point).count_ones();
    for candidate in 0..n {
        if used & (1 << candidate) != 0 || board.adjacent(candidate as Point).count_ones() != degree
        {
            continue;
        }
        let keeps_lines = (0..next).all(|q| {
            let was = board.adjacent(next as Point) & (1 << q) != 0;
            let is = board.adjacent(candidate as Point) & (1 << image[q]) != 0;
            was == is
        });
        if keeps_lines {
            image[next] = candidate as Point;
            search(board, next + 1, image, used | 1 << candidate, out);
        }
    }
    image[next] = u8::MAX;
}

fn maps_mills_to_mills(board: &Board, image: &[Point]) -> bool {
    board.mills().iter().all(|&m| {
        let moved = points(m).fold(0, |acc, p| acc | 1 << image[p as usize]);
        board.mills().contains(&moved)
    })
}

fn byte_tables(perm: &[Point]) -> [[Bits; 256]; 3] {
    let mut t = [[0; 256]; 3];
    for (j, table) in t.iter_mut().enumerate() {
        for (x, entry) in table.iter_mut().enumerate() {
            for i in 0..8 {
                let p = 8 * j + i;
                if x & (1 << i) != 0 && p < perm.len() {
                    *entry |= 1 << perm[p];
                }
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::Variant;

    #[test]
    fn group_sizes() {
        for (name, size) in [("nine", 16), ("six", 16), ("twelve", 16)] {
            let v = Variant::named(name).unwrap();
            assert_eq!(Symmetries::of(v.board()).len(), size, "{name}");
        }
    }

    #[test]
    fn identity_first_and_closed_under_composition() {
        let v = Variant::named("nine").unwrap();
        let g = Symmetries::of(v.board());
        assert!(g.perm(0).iter().enumerate().all(|(p, &q)| p == q as usize));
        for a in 0..g.len() {
            for b in 0..g.len() {
                let composed: Vec<Point> =
                    (0..24).map(|p| g.perm(a)[g.perm(b)[p] as usize]).collect();
                assert!((0..g.len()).any(|c| g.perm(c) == composed.as_slice()));
            }
            let inv = g.inverse(a);
            assert_eq!(g.apply(inv, g.apply(a, 0x00f0_0f35)), 0x00f0_0f35);
        }
    }

    #[test]
    fn tables_agree_with_permutations_on_every_byte() {
        for name in ["nine", "six", "twelve"] {
            let v = Variant::named(name).unwrap();
            let g = Symmetries::of(v.board());
            assert!(g.moves_whole_rings());
            let n = v.board().points();
            for s in 0..g.len() {
                for j in 0..n / 8 {
                    for x in 0..256u32 {
                        let set = x << (8 * j);
                        assert_eq!(g.apply(s, set), g.apply_slow(s, set));
                    }
                }
                let mut x: u32 = 0x9e37_79b9;
                for _ in 0..10_000 {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    let set = x & v.board().all();
                    assert_eq!(g.apply(s, set), g.apply_slow(s, set));
                }
            }
        }
    }
}
