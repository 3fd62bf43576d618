//! The leaves of the search: win, loss or draw of positions whose sector
//! has a table, from a 2-bit copy of that table made on first use.
//!
//! A probe is then a rank and one memory read instead of a block
//! decompression. The copies of nine's whole moving phase take 2.3 GB
//! (9.2 G slots at 2 bits). Which sectors have tables is asked of the
//! database once per sector, never per node.

use crate::database::{Database, DbError};
use crate::index::Sector;
use crate::value::Cell;
use rayon::prelude::*;

/// What is known of one sector.
enum Leaf {
    /// Not asked yet.
    Unknown,
    /// A placement sector without a table: the search goes on below it.
    Absent,
    /// Scores packed four to a byte: 0 loss, 1 draw, 2 win.
    Scores(Box<[u8]>),
}

/// The 2-bit copies, one entry per possible sector.
pub struct Leaves {
    /// Counts run over `0..dim` (stones per side + 1).
    dim: usize,
    sectors: Vec<Leaf>,
    loaded: Loaded,
}

/// What copying the tables has cost.
#[derive(Clone, Copy, Debug, Default)]
pub struct Loaded {
    pub sectors: usize,
    pub bytes: usize,
    pub time: std::time::Duration,
}

impl Leaves {
    pub fn new(stones: u8) -> Leaves {
        let dim = stones as usize + 1;
        Leaves {
            dim,
            sectors: (0..dim.pow(4)).map(|_| Leaf::Unknown).collect(),
            loaded: Loaded::default(),
        }
    }

    /// Sectors copied so far, their bytes and the time it took.
    pub fn loaded(&self) -> Loaded {
        self.loaded
    }

    fn entry(&self, s: Sector) -> usize {
        let d = self.dim;
        ((s.mover as usize * d + s.opponent as usize) * d + s.mover_hand as usize) * d
            + s.opponent_hand as usize
    }

    /// The score of `state` (whose sector is `sector` and slot `slot`) if
    /// its sector has a table; moving-phase sectors must have one.
    #[inline]
    pub fn score(
        &mut self,
        db: &Database,
        sector: Sector,
        slot: u64,
    ) -> Result<Option<i8>, DbError> {
        let i = self.entry(sector);
        if let Leaf::Unknown = self.sectors[i] {
            self.sectors[i] = self.load(db, sector)?;
        }
        Ok(match &self.sectors[i] {
            Leaf::Scores(packed) => {
                Some(decode(packed[(slot / 4) as usize] >> (2 * (slot % 4)) & 3))
            }
            _ => None,
        })
    }

    fn load(&mut self, db: &Database, sector: Sector) -> Result<Leaf, DbError> {
        if !sector.is_moving() && !db.has(sector) {
            return Ok(Leaf::Absent);
        }
        let started = std::time::Instant::now();
        let packed = pack(&db.load_cells(sector)?);
        self.loaded.sectors += 1;
        self.loaded.bytes += packed.len();
        self.loaded.time += started.elapsed();
        Ok(Leaf::Scores(packed))
    }
}

/// Cells as 2-bit scores, in parallel (nine's largest sectors have 600 M
/// cells, the whole moving phase 9.2 G).
fn pack(cells: &[u16]) -> Box<[u8]> {
    const BYTES: usize = 1 << 16;
    let mut packed = vec![0u8; cells.len().div_ceil(4)];
    packed.par_chunks_mut(BYTES).zip(cells.par_chunks(4 * BYTES)).for_each(|(out, cells)| {
        for (byte, four) in out.iter_mut().zip(cells.chunks(4)) {
            *byte = four.iter().enumerate().fold(0, |acc, (i, &c)| acc | code(c) << (2 * i));
        }
    });
    packed.into_boxed_slice()
}

/// The 2-bit score of a stored cell: 0 loss, 1 draw, 2 win. A cell holds
/// the depth + 1 (0 for a draw) and odd depths are wins, so even cells
/// other than 0 are wins and odd cells losses (see [`Cell`]).
#[inline]
fn code(cell: u16) -> u8 {
    if cell == Cell::DRAW.0 {
        1
    } else {
        2 * (cell & 1 == 0) as u8
    }
}

fn decode(code: u8) -> i8 {
    code as i8 - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_keeps_every_cell() {
        use crate::value::Value;
        let values = [
            Value::Win(1),
            Value::Draw,
            Value::Loss(0),
            Value::Loss(4),
            Value::Win(7),
            Value::Win(201),
        ];
        let cells: Vec<u16> =
            (0..100_003).map(|i| Cell::from(values[i % values.len()]).0).collect();
        let packed = pack(&cells);
        for i in 0..cells.len() {
            let want = match values[i % values.len()] {
                Value::Win(_) => 1,
                Value::Draw => 0,
                Value::Loss(_) => -1,
            };
            assert_eq!(decode(packed[i / 4] >> (2 * (i % 4)) & 3), want, "cell {i}");
        }
    }
}
