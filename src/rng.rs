//! A small seeded pseudo-random generator (SplitMix64), shared by the
//! match harness (each game its own stream) and the synthetic test data.
//! Not for anything that needs unpredictability: the point is that a
//! seed gives the same sequence on every machine and thread count.

/// SplitMix64: one 64-bit word of state, a new number per call.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The generator of game `game` of a match seeded with `seed`: the
    /// seed and the game number are mixed so neighbouring games do not
    /// share a stream.
    pub fn for_game(seed: u64, game: u64) -> Rng {
        let mut mix = Rng(seed);
        let a = mix.next_u64();
        let mut mix = Rng(a ^ game.wrapping_mul(0xD6E8_FEB8_6659_FD93));
        Rng(mix.next_u64())
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// The number of failures before the first success, each try a
    /// success with probability `p`.
    pub fn geometric(&mut self, p: f64) -> u64 {
        let mut k = 0;
        while !self.chance(p) {
            k += 1;
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn below_stays_in_range_and_seeds_repeat() {
        let mut a = Rng::new(5);
        let mut b = Rng::new(5);
        for _ in 0..1000 {
            let x = a.below(7);
            assert!(x < 7);
            assert_eq!(x, b.below(7));
        }
        assert_ne!(Rng::for_game(1, 0).next_u64(), Rng::for_game(1, 1).next_u64());
    }
}
