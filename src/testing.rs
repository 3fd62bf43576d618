//! Test support shared by the unit tests, the integration tests and the
//! benchmarks: synthetic table cells. Not part of the documented API;
//! public only so that tests outside the library can use it.

use crate::rng::Rng;

/// Deterministic cells shaped like a solved sector in index order, for tests
/// and measurements of the table format ([`crate::table`]). The model:
///
/// - the slots are a sequence of runs; a run is filler (value 0) with
///   probability 1.7% and then has length 1 + Geometric(1/16) (mean 16), so
///   about 10% of slots are filler;
/// - otherwise the run has length 1 + Geometric(0.4) (mean 2.5: neighbouring
///   indices often, but not mostly, share a value) and one value: a draw
///   with probability 0.3, a win 0.4, a loss 0.3;
/// - a win has depth 2k + 1 and a loss depth 2k, k ~ Geometric(1/3)
///   (mean 2); one run in 500 instead gets a depth up to 301 of the right
///   parity, so blocks carry some cells above 255.
///
/// Geometric(p) counts failures before the first success.
pub fn synthetic_cells(slots: usize, seed: u64) -> Vec<u16> {
    let mut rng = Rng::new(seed);
    let mut cells = Vec::with_capacity(slots);
    while cells.len() < slots {
        let (value, len) = if rng.chance(0.017) {
            (0, 1 + rng.geometric(1.0 / 16.0))
        } else {
            (synthetic_value(&mut rng), 1 + rng.geometric(0.4))
        };
        cells.extend(std::iter::repeat_n(value, len as usize));
    }
    cells.truncate(slots);
    cells
}

fn synthetic_value(rng: &mut Rng) -> u16 {
    let class = rng.unit();
    if class < 0.3 {
        return 0;
    }
    let win = class < 0.7;
    let depth = if rng.chance(1.0 / 500.0) {
        let d = 1 + (rng.next_u64() % 300) as u16;
        if (d % 2 == 1) == win {
            d
        } else {
            d + 1
        }
    } else {
        let k = rng.geometric(1.0 / 3.0) as u16;
        if win {
            2 * k + 1
        } else {
            2 * k
        }
    };
    depth + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_cells_follow_the_model() {
        let cells = synthetic_cells(1 << 20, 1);
        let zeros = cells.iter().filter(|&&c| c == 0).count() as f64 / cells.len() as f64;
        // draws are 30% of 90% plus 10% filler
        assert!((0.33..0.41).contains(&zeros), "zero fraction {zeros}");
        assert!(cells.iter().any(|&c| c > 255));
        assert_eq!(cells, synthetic_cells(1 << 20, 1));
    }
}
