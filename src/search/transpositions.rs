//! A transposition table of fixed size: the bounds the search has proved,
//! keyed by sector and canonical slot.
//!
//! Each entry is one `u64` (key, lower and upper bound, and the work its
//! proof cost), four entries to a bucket of 32 bytes. A full bucket gives
//! up its cheapest entry, so the proofs that took the most nodes stay:
//! those near the root, which are also the ones worth the most when met
//! again. The memory is reserved at once but zeroed lazily by the
//! operating system, so a short search touches only the pages it uses.
//! A long search may ask for huge pages ([`crate::huge`]): nearly every
//! lookup lands in a page no recent lookup touched, and misses the TLB
//! too on small pages.

use crate::huge::Huge;
use crate::index::Sector;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

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
///
/// The threads of one search share it without locks: an entry is one
/// word, read and written whole, that carries its own key, so a reader
/// sees either an entry some thread wrote or nothing for its key, and
/// every entry holds bounds that were proved. A race between two writers
/// of one bucket can lose an entry or leave a key twice; either costs
/// only work.
pub struct Transpositions {
    entries: Huge<u64>,
    /// log2 of the number of buckets.
    bucket_bits: u32,
}

impl Transpositions {
    /// A table of about `bytes` bytes (rounded down to a power of two, at
    /// least one bucket), on small pages.
    pub fn with_bytes(bytes: usize) -> Transpositions {
        Transpositions::on_pages(bytes, false)
    }

    /// As [`Transpositions::with_bytes`], on huge pages if `huge_pages`.
    pub fn on_pages(bytes: usize, huge_pages: bool) -> Transpositions {
        let buckets = (bytes / (8 * BUCKET)).max(1);
        let mut bucket_bits = usize::BITS - 1 - buckets.leading_zeros();
        // The table only saves work: where the kernel refuses the memory
        // asked for, a smaller one gives the same answers, later
        // (`bytes` says what it got).
        loop {
            match Huge::zeroed_on(BUCKET << bucket_bits, huge_pages) {
                Ok(entries) => return Transpositions { entries, bucket_bits },
                Err(_) if bucket_bits > 0 => bucket_bits -= 1,
                Err(e) => panic!("cannot reserve one bucket of transposition table: {e}"),
            }
        }
    }

    /// Bytes the table reserves.
    pub fn bytes(&self) -> usize {
        self.entries.len() * 8
    }

    fn words(&self) -> &[AtomicU64] {
        let entries: &[u64] = &self.entries;
        // Safety: `AtomicU64` has the size and alignment of `u64` on every
        // target with 64-bit atomics; every access goes through the atomic
        // view from here on, since the table is only ever borrowed shared.
        unsafe { &*(entries as *const [u64] as *const [AtomicU64]) }
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
        self.words()[self.bucket(key)]
            .iter()
            .map(|e| e.load(Relaxed))
            .find(|&e| e & KEY_MASK == key)
            .map(decode)
    }

    /// Remembers `bounds` for `key`, proved with `nodes` nodes of search;
    /// merged with what is already known of it. True if it took an entry
    /// that was empty.
    pub fn put(&self, key: u64, bounds: Bounds, nodes: u64) -> bool {
        let work = (u64::BITS - nodes.leading_zeros()) as u64;
        let bucket = &self.words()[self.bucket(key)];
        let seen: [u64; BUCKET] = std::array::from_fn(|i| bucket[i].load(Relaxed));
        if let Some(i) = seen.iter().position(|e| e & KEY_MASK == key) {
            let merged = decode(seen[i]).meet(bounds);
            bucket[i]
                .store(encode(key, merged, work.max(seen[i] >> WORK_SHIFT & WORK_MASK)), Relaxed);
            return false;
        }
        // An empty entry (0) has work 0 and goes first; then the cheapest.
        let victim = (0..BUCKET)
            .min_by_key(|&i| (seen[i] != 0, seen[i] >> WORK_SHIFT & WORK_MASK))
            .expect("buckets are not empty");
        bucket[victim].store(encode(key, bounds, work), Relaxed);
        seen[victim] == 0
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
        let t = Transpositions::with_bytes(1 << 12);
        let k = key(Sector { mover: 1, opponent: 1, mover_hand: 8, opponent_hand: 8 }, 42);
        assert_eq!(t.get(k), None);
        assert!(t.put(k, Bounds { lower: 0, upper: 1 }, 10), "a new entry");
        assert!(!t.put(k, Bounds { lower: -1, upper: 0 }, 3), "merged into the first");
        assert_eq!(t.get(k), Some(Bounds { lower: 0, upper: 0 }));
    }

    #[test]
    fn a_full_bucket_gives_up_its_cheapest_entry() {
        // One bucket: every key lands in it.
        let t = Transpositions::with_bytes(32);
        let keys: Vec<u64> = (1..=5)
            .map(|slot| {
                key(Sector { mover: 1, opponent: 0, mover_hand: 8, opponent_hand: 9 }, slot)
            })
            .collect();
        for (i, &k) in keys.iter().take(4).enumerate() {
            assert!(t.put(k, Bounds { lower: 1, upper: 1 }, 1000 >> i), "empty entries first");
        }
        assert!(!t.put(keys[4], Bounds { lower: -1, upper: -1 }, 500), "the bucket was full");
        assert_eq!(t.get(keys[3]), None, "the cheapest entry made room");
        for &k in &keys[..3] {
            assert_eq!(t.get(k), Some(Bounds { lower: 1, upper: 1 }));
        }
        assert_eq!(t.get(keys[4]), Some(Bounds { lower: -1, upper: -1 }));
    }
}
