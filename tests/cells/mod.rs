//! Arbitrary successor cells for the tests that hold a fast path to the
//! generic rule: not a solution, so every way of choosing the best
//! successor is exercised.

/// Arbitrary cells: about a fifth draws, the rest wins and losses up to
/// depth 49, from a fixed seed.
pub fn arbitrary_cells(slots: u64, seed: u64) -> Vec<u16> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..slots)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x.is_multiple_of(5) {
                0
            } else {
                1 + (x >> 8) as u16 % 50
            }
        })
        .collect()
}
