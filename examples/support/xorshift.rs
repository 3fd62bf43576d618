//! Marsaglia's xorshift64*, the inputs' generator of the probe benches
//! (`bench_probe`, `probe_inputs`): kept as it is so the inputs, and the
//! figures measured on them, stay the same.

use morris::variant::Bits;

/// The generator's state.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A set of `size` of the `points` points outside `taken`.
    pub fn subset(&mut self, points: u32, size: u32, taken: Bits) -> Bits {
        let mut set: Bits = 0;
        while set.count_ones() < size {
            let p = (self.next() >> 32) % points as u64;
            if (taken | set) & (1 << p) == 0 {
                set |= 1 << p;
            }
        }
        set
    }
}
