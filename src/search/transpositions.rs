//! A transposition table of fixed size: the bounds the search has proved,
//! keyed by sector and canonical slot.
//!
//! Each entry is one `u64` (key, lower and upper bound, and the work its
//! proof cost), four entries to a bucket of 32 bytes. A full bucket gives
//! up its cheapest entry, so the proofs that took the most nodes stay:
//! those near the root, which are also the ones worth the most when met
//! again. The memory is reserved at once but zeroed lazily by the
//! operating system, so a short search touches only the pages it uses.

use crate::index::Sector;

/// Bits of an entry: the key in bits 0..48, the lower bound + 1 in bits
/// 48..50, the upper bound + 1 in bits 50..52, the work in bits 52..58.
const KEY_BITS: u32 = 48;
const KEY_MASK: u64 = (1 << KEY_BITS) - 1;
const LOWER_SHIFT: u32 = 48;
const UPPER_SHIFT: u32 = 50;
const WORK_SHIFT: u32 = 52;
const WORK_MASK: u64 = 63;
const BUCKET: usize = 4;

/// The key of a position: its sector (four counts of at most 15, the
/// largest variant has 12 stones) above its slot (below 2^32: the largest
/// sector of the 24-point boards has under 2^30 slots). Never 0, since
/// every sector a search meets has stones somewhere.
pub fn key(sector: Sector, slot: u64) -> u64 {
    debug_assert!(slot < 1 << 32, "slot {slot} does not fit a key");
    let counts = [sector.mover, sector.opponent, sector.mover_hand, sector.opponent_hand];
    debug_assert!(counts.iter().all(|&c| c < 16), "sector {sector} does not fit a key");
    let packed = counts.iter().fold(0u64, |acc, &c| acc << 4 | c as u64);
    packed << 32 | slot
}

/// Proved bounds on a score (-1 loss, 0 draw, 1 win for the side to move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The score is at least this.
    pub lower: i8,
    /// The score is at most this.
    pub upper: i8,
}

impl Bounds {
    /// Nothing proved yet.
    pub const OPEN: Bounds = Bounds { lower: -1, upper: 1 };

    /// Both proofs together.
    fn meet(self, other: Bounds) -> Bounds {
        Bounds { lower: self.lower.max(other.lower), upper: self.upper.min(other.upper) }
    }
}

/// The table; see the module documentation.
pub struct Transpositions {
    entries: Vec<u64>,
    /// log2 of the number of buckets.
    bucket_bits: u32,
    occupied: u64,
}

impl Transpositions {
    /// A table of about `bytes` bytes (rounded down to a power of two, at
    /// least one bucket).
    pub fn with_bytes(bytes: usize) -> Transpositions {
        let buckets = (bytes / (8 * BUCKET)).max(1);
        let bucket_bits = usize::BITS - 1 - buckets.leading_zeros();
        // `vec!` of zeros is a calloc: the pages stay untouched until used.
        Transpositions { entries: vec![0; BUCKET << bucket_bits], bucket_bits, occupied: 0 }
    }

    /// Bytes the table reserves.
    pub fn bytes(&self) -> usize {
        self.entries.len() * 8
    }

    /// Entries in use.
    pub fn occupied(&self) -> u64 {
        self.occupied
    }

    fn bucket(&self, key: u64) -> std::ops::Range<usize> {
        // Fibonacci hashing: the slots of one sector are consecutive
        // integers, which the multiplication spreads over all buckets.
        let hash = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let start = if self.bucket_bits == 0 {
            0
        } else {
            (hash >> (64 - self.bucket_bits)) as usize * BUCKET
        };
        start..start + BUCKET
    }

    /// The bounds proved for `key`, if they are still in the table.
    #[inline]
    pub fn get(&self, key: u64) -> Option<Bounds> {
        self.entries[self.bucket(key)].iter().find(|&&e| e & KEY_MASK == key).map(|&e| decode(e))
    }

    /// Remembers `bounds` for `key`, proved with `nodes` nodes of search;
    /// merged with what is already known of it.
    pub fn put(&mut self, key: u64, bounds: Bounds, nodes: u64) {
        let work = (u64::BITS - nodes.leading_zeros()) as u64;
        let range = self.bucket(key);
        let bucket = &mut self.entries[range];
        if let Some(e) = bucket.iter_mut().find(|e| **e & KEY_MASK == key) {
            let merged = decode(*e).meet(bounds);
            *e = encode(key, merged, work.max(*e >> WORK_SHIFT & WORK_MASK));
            return;
        }
        // An empty entry (0) has work 0 and goes first; then the cheapest.
        let victim = bucket
            .iter_mut()
            .min_by_key(|e| (**e != 0, **e >> WORK_SHIFT & WORK_MASK))
            .expect("buckets are not empty");
        if *victim == 0 {
            self.occupied += 1;
        }
        *victim = encode(key, bounds, work);
    }
}

fn encode(key: u64, b: Bounds, work: u64) -> u64 {
    key | ((b.lower + 1) as u64) << LOWER_SHIFT
        | ((b.upper + 1) as u64) << UPPER_SHIFT
        | work.min(WORK_MASK) << WORK_SHIFT
}

fn decode(e: u64) -> Bounds {
    Bounds { lower: (e >> LOWER_SHIFT & 3) as i8 - 1, upper: (e >> UPPER_SHIFT & 3) as i8 - 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_separate_sectors_and_slots() {
        let a = key(Sector { mover: 2, opponent: 1, mover_hand: 7, opponent_hand: 8 }, 5);
        let b = key(Sector { mover: 1, opponent: 2, mover_hand: 7, opponent_hand: 8 }, 5);
        let c = key(Sector { mover: 2, opponent: 1, mover_hand: 8, opponent_hand: 7 }, 5);
        assert!(a != b && b != c && a != c);
        assert_ne!(a, key(Sector { mover: 2, opponent: 1, mover_hand: 7, opponent_hand: 8 }, 6));
        assert!(a < 1 << KEY_BITS);
    }

    #[test]
    fn bounds_are_merged_and_read_back() {
        let mut t = Transpositions::with_bytes(1 << 12);
        let k = key(Sector { mover: 1, opponent: 1, mover_hand: 8, opponent_hand: 8 }, 42);
        assert_eq!(t.get(k), None);
        t.put(k, Bounds { lower: 0, upper: 1 }, 10);
        t.put(k, Bounds { lower: -1, upper: 0 }, 3);
        assert_eq!(t.get(k), Some(Bounds { lower: 0, upper: 0 }));
        assert_eq!(t.occupied(), 1);
    }

    #[test]
    fn a_full_bucket_gives_up_its_cheapest_entry() {
        // One bucket: every key lands in it.
        let mut t = Transpositions::with_bytes(32);
        let keys: Vec<u64> = (1..=5)
            .map(|slot| {
                key(Sector { mover: 1, opponent: 0, mover_hand: 8, opponent_hand: 9 }, slot)
            })
            .collect();
        for (i, &k) in keys.iter().take(4).enumerate() {
            t.put(k, Bounds { lower: 1, upper: 1 }, 1000 >> i);
        }
        t.put(keys[4], Bounds { lower: -1, upper: -1 }, 500);
        assert_eq!(t.get(keys[3]), None, "the cheapest entry made room");
        for &k in &keys[..3] {
            assert_eq!(t.get(k), Some(Bounds { lower: 1, upper: 1 }));
        }
        assert_eq!(t.get(keys[4]), Some(Bounds { lower: -1, upper: -1 }));
        assert_eq!(t.occupied(), 4);
    }
}
