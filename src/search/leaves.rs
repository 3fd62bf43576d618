//! The leaves of the search: win, loss or draw of positions whose sector
//! has a table, from a 2-bit copy of that table made on first use.
//!
//! A probe is then a rank and one memory read instead of a block
//! decompression. The copies of nine's whole moving phase take 2.3 GB
//! (9.2 G slots at 2 bits). Which sectors have tables is asked of the
//! database once per sector, never per node.

use crate::database::{Database, DbError};
use crate::index::Sector;
use crate::value::{Cell, Value};
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
    loaded: usize,
    bytes: usize,
}

impl Leaves {
    pub fn new(stones: u8) -> Leaves {
        let dim = stones as usize + 1;
        Leaves { dim, sectors: (0..dim.pow(4)).map(|_| Leaf::Unknown).collect(), loaded: 0, bytes: 0 }
    }

    /// Sectors copied so far, and their bytes.
    pub fn loaded(&self) -> (usize, usize) {
        (self.loaded, self.bytes)
    }

    fn entry(&self, s: Sector) -> usize {
        let d = self.dim;
        ((s.mover as usize * d + s.opponent as usize) * d + s.mover_hand as usize) * d + s.opponent_hand as usize
    }

    /// The score of `state` (whose sector is `sector` and slot `slot`) if
    /// its sector has a table; moving-phase sectors must have one.
    #[inline]
    pub fn score(&mut self, db: &Database, sector: Sector, slot: u64) -> Result<Option<i8>, DbError> {
        let i = self.entry(sector);
        if let Leaf::Unknown = self.sectors[i] {
            self.sectors[i] = self.load(db, sector)?;
        }
        Ok(match &self.sectors[i] {
            Leaf::Scores(packed) => Some(decode(packed[(slot / 4) as usize] >> (2 * (slot % 4)) & 3)),
            _ => None,
        })
    }

    fn load(&mut self, db: &Database, sector: Sector) -> Result<Leaf, DbError> {
        if !sector.is_moving() && !db.has(sector) {
            return Ok(Leaf::Absent);
        }
        let packed = pack(&db.load_cells(sector)?);
        self.loaded += 1;
        self.bytes += packed.len();
        Ok(Leaf::Scores(packed))
    }
}

/// Cells as 2-bit scores, in parallel (nine's largest sectors have 600 M
/// cells).
fn pack(cells: &[u16]) -> Box<[u8]> {
    const BYTES: usize = 1 << 16;
    let mut packed = vec![0u8; cells.len().div_ceil(4)];
    packed.par_chunks_mut(BYTES).zip(cells.par_chunks(4 * BYTES)).for_each(|(out, cells)| {
        for (i, &c) in cells.iter().enumerate() {
            out[i / 4] |= encode(Value::from(Cell(c))) << (2 * (i % 4));
        }
    });
    packed.into_boxed_slice()
}

fn encode(value: Value) -> u8 {
    match value {
        Value::Loss(_) => 0,
        Value::Draw => 1,
        Value::Win(_) => 2,
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
        let values = [Value::Win(1), Value::Draw, Value::Loss(0), Value::Loss(4), Value::Win(7)];
        let cells: Vec<u16> = (0..100_003).map(|i| crate::value::Cell::from(values[i % 5]).0).collect();
        let packed = pack(&cells);
        for (i, _) in cells.iter().enumerate() {
            let want = match values[i % 5] {
                Value::Win(_) => 1,
                Value::Draw => 0,
                Value::Loss(_) => -1,
            };
            assert_eq!(decode(packed[i / 4] >> (2 * (i % 4)) & 3), want, "cell {i}");
        }
    }
}
