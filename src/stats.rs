//! What a solved sector holds, counted: wins, losses and draws with the
//! longest of each ([`Counts`], kept in every table's header), and how many
//! states lie at each distance from the end ([`Distances`], read from the
//! cells). The solver counts as it finishes a sector, the table writer and
//! `verify` check the counts against the cells, and the `stats` command
//! prints them.

use rayon::prelude::*;

use crate::value::Value;

/// How many states of a sector are wins, losses and draws, and the longest
/// win and loss in plies (0 when there is none).
///
/// Part of the table header on disk (bincode, in field order): a change
/// here is a change of the table format.
#[derive(Clone, Debug, PartialEq, Eq, Default, bincode::Encode, bincode::Decode)]
pub struct Counts {
    /// Canonical states of the sector.
    pub states: u64,
    /// States the side to move wins.
    pub wins: u64,
    /// States the side to move loses.
    pub losses: u64,
    /// States that are draws.
    pub draws: u64,
    /// The longest win, in plies.
    pub max_win: u16,
    /// The longest loss, in plies.
    pub max_loss: u16,
}

impl Counts {
    /// The counts of `cells`, of which `states` slots hold canonical states
    /// and the rest are filler (stored as draws).
    pub fn tally(cells: &[u16], states: u64) -> Counts {
        let tally = Tally::of_parallel(cells);
        let filler = (cells.len() as u64).saturating_sub(states);
        Counts {
            states,
            wins: tally.wins,
            losses: tally.losses,
            draws: tally.zeros.saturating_sub(filler),
            max_win: tally.max_win,
            max_loss: tally.max_loss,
        }
    }
}

/// How many states of a sector lie at each distance from the end of the
/// game: `wins[d]` states win in `d` plies and `losses[d]` lose in `d`
/// plies. The headers keep only the totals ([`Counts`]); this is read
/// from the cells ([`crate::table::Table::distances`]).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Distances {
    /// States that win in `d` plies, by `d`.
    pub wins: Vec<u64>,
    /// States that lose in `d` plies, by `d`.
    pub losses: Vec<u64>,
    /// States that are draws.
    pub draws: u64,
}

impl Distances {
    /// The distances of `cells`, of which `states` slots hold canonical
    /// states and the rest are filler (stored as draws).
    pub fn tally(cells: &[u16], states: u64) -> Distances {
        let by_cell =
            cells.par_chunks(1 << 16).map(cell_histogram).reduce(Vec::new, add_histograms);
        Distances::of_cell_histogram(&by_cell, cells.len() as u64 - states)
    }

    /// Splits counts by stored cell (0 a draw, `c` the depth `c - 1`, a
    /// win when odd) into wins and losses by plies.
    pub(crate) fn of_cell_histogram(by_cell: &[u64], filler: u64) -> Distances {
        let mut d = Distances {
            draws: by_cell.first().map_or(0, |&z| z.saturating_sub(filler)),
            ..Default::default()
        };
        for (cell, &n) in by_cell.iter().enumerate().skip(1) {
            let plies = cell - 1;
            let side = if plies % 2 == 1 { &mut d.wins } else { &mut d.losses };
            if side.len() <= plies {
                side.resize(plies + 1, 0);
            }
            side[plies] += n;
        }
        // Wins are odd and losses even: drop the zero rows at the top.
        for side in [&mut d.wins, &mut d.losses] {
            while side.last() == Some(&0) {
                side.pop();
            }
        }
        d
    }

    /// The totals, to hold against a header's [`Counts`].
    pub fn counts(&self) -> Counts {
        let deepest = |side: &[u64]| side.iter().rposition(|&n| n > 0).map_or(0, |d| d as u16);
        Counts {
            states: self.wins.iter().sum::<u64>() + self.losses.iter().sum::<u64>() + self.draws,
            wins: self.wins.iter().sum(),
            losses: self.losses.iter().sum(),
            draws: self.draws,
            max_win: deepest(&self.wins),
            max_loss: deepest(&self.losses),
        }
    }
}

/// How many cells hold each value, indexed by the value.
pub(crate) fn cell_histogram(cells: &[u16]) -> Vec<u64> {
    let mut counts = vec![0u64; 1 + cells.iter().copied().max().unwrap_or(0) as usize];
    for &c in cells {
        counts[c as usize] += 1;
    }
    counts
}

/// The sum of two histograms of [`cell_histogram`].
pub(crate) fn add_histograms(mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    if a.len() < b.len() {
        return add_histograms(b, a);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

/// Wins, losses and zero cells as found in the cells themselves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) wins: u64,
    pub(crate) losses: u64,
    pub(crate) zeros: u64,
    pub(crate) max_win: u16,
    pub(crate) max_loss: u16,
}

impl Tally {
    pub(crate) fn of(cells: &[u16]) -> Tally {
        // Branch-free so it vectorises: a win is an even non-zero cell, a
        // loss an odd one, and the deepest of each is its largest cell.
        let (mut odd, mut zeros, mut top_even, mut top_odd) = (0u64, 0u64, 0u16, 0u16);
        for &cell in cells {
            let odd_mask = 0u16.wrapping_sub(cell & 1);
            odd += u64::from(cell & 1);
            zeros += u64::from(cell == 0);
            top_odd = top_odd.max(cell & odd_mask);
            top_even = top_even.max(cell & !odd_mask);
        }
        Tally {
            wins: cells.len() as u64 - odd - zeros,
            losses: odd,
            zeros,
            max_win: top_even.saturating_sub(1),
            max_loss: top_odd.saturating_sub(1),
        }
    }

    pub(crate) fn of_parallel(cells: &[u16]) -> Tally {
        cells.par_chunks(1 << 16).map(Tally::of).reduce(Tally::default, Tally::merge)
    }

    pub(crate) fn merge(self, o: Tally) -> Tally {
        Tally {
            wins: self.wins + o.wins,
            losses: self.losses + o.losses,
            zeros: self.zeros + o.zeros,
            max_win: self.max_win.max(o.max_win),
            max_loss: self.max_loss.max(o.max_loss),
        }
    }

    /// Says what disagrees between these cells and `counts`, if anything.
    pub(crate) fn check(&self, counts: &Counts, slots: u64) -> Result<(), String> {
        let c = counts;
        let classified = c.wins.checked_add(c.losses).and_then(|n| n.checked_add(c.draws));
        if c.states > slots {
            return Err(format!("{} states in {slots} slots", c.states));
        }
        if classified != Some(c.states) {
            return Err(format!(
                "wins {} + losses {} + draws {} != states {}",
                c.wins, c.losses, c.draws, c.states
            ));
        }
        let found = (self.wins, self.losses, self.max_win, self.max_loss);
        let claimed = (c.wins, c.losses, c.max_win, c.max_loss);
        if found != claimed {
            return Err(format!(
                "cells have (wins, losses, max_win, max_loss) = {found:?}, counts say {claimed:?}"
            ));
        }
        // The zero cells are then the draws plus the filler: nothing to check.
        Ok(())
    }
}

/// Adds one state of value `value` to `counts`.
pub fn tally(counts: &mut Counts, value: Value) {
    counts.states += 1;
    match value {
        Value::Win(d) => {
            counts.wins += 1;
            counts.max_win = counts.max_win.max(d);
        }
        Value::Loss(d) => {
            counts.losses += 1;
            counts.max_loss = counts.max_loss.max(d);
        }
        Value::Draw => counts.draws += 1,
    }
}

/// The sum of two sets of counts.
pub fn add_counts(a: Counts, b: Counts) -> Counts {
    Counts {
        states: a.states + b.states,
        wins: a.wins + b.wins,
        losses: a.losses + b.losses,
        draws: a.draws + b.draws,
        max_win: a.max_win.max(b.max_win),
        max_loss: a.max_loss.max(b.max_loss),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::synthetic_cells;
    use crate::value::Cell;

    #[test]
    fn tally_classifies_by_parity_of_depth() {
        // 0 draw, 1 = loss in 0, 2 = win in 1, 3 = loss in 2, 8 = win in 7
        let t = Tally::of(&[0, 1, 2, 3, 8, 0]);
        let expected = Tally { wins: 2, losses: 2, zeros: 2, max_win: 7, max_loss: 2 };
        assert_eq!(t, expected);
    }

    /// The obvious count, one cell at a time by its meaning.
    fn plain_tally(cells: &[u16]) -> Tally {
        let mut t = Tally::default();
        for &cell in cells {
            if cell == 0 {
                t.zeros += 1;
                continue;
            }
            let depth = cell - 1;
            if depth % 2 == 1 {
                t.wins += 1;
                t.max_win = t.max_win.max(depth);
            } else {
                t.losses += 1;
                t.max_loss = t.max_loss.max(depth);
            }
        }
        t
    }

    #[test]
    fn fast_tally_agrees_with_plain_count() {
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let cases =
            [synthetic_cells(100_000, 4), all, vec![], vec![0; 9], vec![1, 1], vec![u16::MAX - 1]];
        for cells in cases {
            assert_eq!(Tally::of(&cells), plain_tally(&cells));
            assert_eq!(Tally::of_parallel(&cells), plain_tally(&cells));
        }
    }

    /// The obvious histogram, one cell at a time by its value.
    fn plain_distances(cells: &[u16], filler: u64) -> Distances {
        let mut d = Distances::default();
        for &cell in cells {
            let bump = |side: &mut Vec<u64>, plies: u16| {
                let plies = plies as usize;
                side.resize(side.len().max(plies + 1), 0);
                side[plies] += 1;
            };
            match Value::from(Cell(cell)) {
                Value::Win(p) => bump(&mut d.wins, p),
                Value::Loss(p) => bump(&mut d.losses, p),
                Value::Draw => d.draws += 1,
            }
        }
        d.draws -= filler;
        d
    }

    #[test]
    fn distances_agree_with_plain_count_and_with_the_totals() {
        let cases = [
            synthetic_cells(300_000, 7),
            vec![0; 9],
            vec![1, 1, 0],
            vec![0, 1, 2, 3, 8, 0],
            vec![9000, 0],
        ];
        for cells in cases {
            let filler =
                (cells.len() as u64).min(2).min(cells.iter().filter(|&&c| c == 0).count() as u64);
            let states = cells.len() as u64 - filler;
            let d = Distances::tally(&cells, states);
            assert_eq!(d, plain_distances(&cells, filler));
            assert_eq!(d.counts(), Counts::tally(&cells, states));
        }
    }

    #[test]
    fn check_rejects_each_kind_of_disagreement() {
        let cells = [0, 1, 2, 3, 8, 0];
        let good = Counts { states: 5, wins: 2, losses: 2, draws: 1, max_win: 7, max_loss: 2 };
        let t = Tally::of(&cells);
        assert_eq!(t.check(&good, 6), Ok(()));
        assert_eq!(Counts::tally(&cells, 5), good);
        let bad = [
            Counts { states: 7, draws: 3, ..good.clone() },
            Counts { draws: 2, ..good.clone() },
            Counts { wins: 1, draws: 2, ..good.clone() },
            Counts { max_win: 5, ..good.clone() },
            Counts { max_loss: 0, ..good.clone() },
        ];
        for counts in bad {
            assert!(t.check(&counts, 6).is_err(), "{counts:?} accepted");
        }
    }
}
