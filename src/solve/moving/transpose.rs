//! The levels' layout: each side's cells indexed by its opponent's stones.
//!
//! `init`, the checkpoints and `finish` keep a side's cells where its
//! table has them, indexed by the mover's stones (class of the mover set,
//! then the opponent set around it). Every predecessor of a state, though,
//! has that state's mover set as its opponent set, and a mover set with
//! one stone moved back: ranked in the usual layout, each predecessor
//! needs its own mover set's class (the smallest of its 16 images and a
//! table look-up), while indexed by the opponent's stones all the
//! predecessors of one state share their key set, framed once, and each
//! costs one image and a compact rank. So the levels run with each side's
//! cells in the other layout: the cells of `m-o` indexed as the positions
//! of `o-m` with the two sets' roles swapped. That is the partner's index
//! (the other side of the pair, with the same numbers of stones swapped),
//! and it has exactly as many slots as the partner's own cells: one pass
//! swaps every cell of one side with its place among the other's, and
//! the same pass undoes it ([`Pair::transpose`]).

use super::*;

/// Cells swapped between fetches: their places in the other side are
/// prefetched while the batch is ranked.
const SWAP_BATCH: usize = 64;

impl Pair<'_> {
    /// Moves every side's cells into the other layout (the usual one to
    /// the levels', or back; see the module's text), with the exit memos
    /// when `memos` (otherwise they are dropped), and marks the chunks
    /// again for the levels from depth `depth` on.
    ///
    /// With two sides `m-o` and `o-m`, the state of slot `s` of the first
    /// side (mover `M`, opponent `O`) has the slot `t` of `(O, M)` in the
    /// second side's index: the cells `first[s]` and `second[t]` trade
    /// places, and the first side's cells then live in the second's array
    /// and the other way round. A side that is its own partner (`m-m`)
    /// swaps its cells in pairs within its array.
    pub(super) fn transpose(&mut self, depth: u16, memos: bool) -> Result<(), SolveError> {
        let single = self.sides.len() == 1;
        let other = usize::from(!single);
        let memo_for = |side: &Side, slots: u64| -> Result<Option<ExitMemo>, SolveError> {
            match (&side.exit_memo, memos) {
                (Some(_), true) => ExitMemo::new(slots).map(Some).map_err(|e| {
                    SolveError::OutOfMemory { sector: side.sector.to_string(), reason: e.to_string() }
                }),
                _ => Ok(None),
            }
        };
        let (first, second) = (&self.sides[0], &self.sides[other]);
        let new_memos = [
            memo_for(first, second.index.slots())?,
            if single { None } else { memo_for(second, first.index.slots())? },
        ];
        let images = self.images;
        (0..first.chunks()).into_par_iter().for_each(|c| {
            let mut batch = [(0u64, 0u64); SWAP_BATCH];
            let mut len = 0;
            let mut mover_images: Option<(Bits, Images)> = None;
            let swap = |batch: &[(u64, u64)]| {
                for &(s, t) in batch {
                    if !single || t > s {
                        let (a, b) = (&first.cells[s as usize], &second.cells[t as usize]);
                        let kept = a.load(Relaxed);
                        a.store(b.load(Relaxed), Relaxed);
                        b.store(kept, Relaxed);
                    }
                    if let (Some(old), Some(new)) = (&first.exit_memo, &new_memos[0]) {
                        new.set_byte(t, old.byte(s));
                    }
                    if let (Some(old), Some(new)) = (&second.exit_memo, &new_memos[1]) {
                        new.set_byte(s, old.byte(t));
                    }
                }
            };
            first.index.for_each_in(first.chunk(c), |slot, mover, opponent| {
                // A class's slots share their mover set.
                let mover_images = match mover_images {
                    Some((set, images)) if set == mover => images,
                    _ => mover_images.insert((mover, images.set(mover))).1,
                };
                let t = second.index.rank_images(&images.set(opponent), &mover_images);
                prefetch(&second.cells[t as usize]);
                batch[len] = (slot, t);
                len += 1;
                if len == SWAP_BATCH {
                    swap(&batch);
                    len = 0;
                }
            });
            swap(&batch[..len]);
        });
        if !single {
            let (a, b) = self.sides.split_at_mut(1);
            std::mem::swap(&mut a[0].cells, &mut b[0].cells);
            std::mem::swap(&mut a[0].index, &mut b[0].index);
        }
        for (side, memo) in self.sides.iter_mut().zip(new_memos) {
            side.exit_memo = memo;
            side.mark_from(depth + 1);
        }
        self.transposed = !self.transposed;
        Ok(())
    }
}

impl Side<'_> {
    /// Marks the chunks afresh from the cells: each chunk's deepest cell,
    /// and the depths of its decided cells from `from` on (those a level
    /// still has to find).
    fn mark_from(&mut self, from: u16) {
        let chunks = self.chunks();
        let side = &*self;
        let (marks, deepest): (Vec<u64>, Vec<u16>) = (0..chunks)
            .into_par_iter()
            .map(|c| {
                let (mut marks, mut deepest) = (0u64, 0u16);
                for slot in side.chunk(c) {
                    let cell = side.cells[slot as usize].load(Relaxed);
                    if cell != 0 && cell & PENDING == 0 {
                        deepest = deepest.max(cell);
                        if cell >= from {
                            marks |= 1 << (cell % 64);
                        }
                    }
                }
                (marks, deepest)
            })
            .unzip();
        self.marks = marks.into_iter().map(AtomicU64::new).collect();
        self.deepest = deepest.into_iter().map(AtomicU16::new).collect();
    }
}
