//! The positions near the root that some thread of a search is working
//! on, so that another thread, with other moves to try first, leaves them
//! for later ("young brothers wait", as in ABDADA): by the time it comes
//! back to them their proof is usually in the transposition table.
//!
//! One word per entry, holding a position's key: a thread marks the
//! position when it starts on it and clears the mark when it is done.
//! Two positions may share an entry; the later mark wins and the earlier
//! position then looks free, which costs only duplicated work. The marks
//! only change the order of moves, never a value.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Entries: far more than the positions near the root being searched at
/// once (a few per thread), small enough to stay in cache.
const ENTRIES: usize = 1 << 14;

/// Positions this many plies from the question's position or nearer are
/// marked: their subtrees are large enough to be worth the rank of each
/// of their moves that finding a move's mark costs.
pub const PLIES: usize = 10;

pub struct Busy {
    entries: Box<[AtomicU64]>,
}

impl Busy {
    pub fn new() -> Busy {
        Busy { entries: (0..ENTRIES).map(|_| AtomicU64::new(0)).collect() }
    }

    fn entry(&self, key: u64) -> &AtomicU64 {
        let hash = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &self.entries[(hash >> (64 - ENTRIES.trailing_zeros())) as usize]
    }

    /// Some thread is working on the position of `key`.
    pub fn mark(&self, key: u64) {
        self.entry(key).store(key, Relaxed);
    }

    /// The work on `key` is over (its mark is cleared unless another
    /// position took the entry since).
    pub fn clear(&self, key: u64) {
        let _ = self.entry(key).compare_exchange(key, 0, Relaxed, Relaxed);
    }

    /// Whether some thread is working on `key`.
    pub fn is_marked(&self, key: u64) -> bool {
        self.entry(key).load(Relaxed) == key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_set_and_cleared() {
        let busy = Busy::new();
        assert!(!busy.is_marked(12345));
        busy.mark(12345);
        assert!(busy.is_marked(12345));
        assert!(!busy.is_marked(12346));
        busy.clear(12346);
        assert!(busy.is_marked(12345), "clearing another key leaves the mark");
        busy.clear(12345);
        assert!(!busy.is_marked(12345));
    }
}
