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

/// What a pass of [`Pair::transpose`] does besides moving the cells.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Pass {
    /// Into the levels' layout, or out and back in around a checkpoint:
    /// the exit memos move with the cells.
    Keep,
    /// Out of the levels for good: the exit memos are dropped, and each
    /// cell, at its place in the table, is made final (a state still
    /// pending is a draw) and counted.
    Finish,
}

/// Slots ranked ahead of their swap: their places in the other side are
/// fetched meanwhile.
const SWAP_AHEAD: usize = 32;

impl Pair<'_> {
    /// Moves every side's cells into the other layout (the usual one to
    /// the levels', or back; see the module's text), doing besides what
    /// `pass` asks. The chunks' marks are left as they were:
    /// [`Pair::mark_from`] makes them for the new layout. Returns each
    /// side's counts after [`Pass::Finish`], nothing otherwise.
    ///
    /// With two sides `m-o` and `o-m`, the state of slot `s` of the first
    /// side (mover `M`, opponent `O`) has the slot `t` of `(O, M)` in the
    /// second side's index: the cells `first[s]` and `second[t]` trade
    /// places, and the first side's cells then live in the second's array
    /// and the other way round. A side that is its own partner (`m-m`)
    /// swaps its cells in pairs within its array.
    pub(super) fn transpose(&mut self, pass: Pass) -> Result<Vec<Counts>, SolveError> {
        let single = self.sides.len() == 1;
        let other = usize::from(!single);
        let finish = pass == Pass::Finish;
        if finish {
            for side in &mut self.sides {
                side.exit_memo = None;
            }
        }
        // Exit memos trade places as the cells do where both sides have
        // one (or the side is its own partner); a side whose partner has
        // none gets a new one, sized for its new layout.
        let (first, second) = (&self.sides[0], &self.sides[other]);
        let in_place = single || (first.exit_memo.is_some() && second.exit_memo.is_some());
        let new_memos = if in_place {
            [None, None]
        } else {
            [new_memo(first, second.index.slots())?, new_memo(second, first.index.slots())?]
        };
        // Trades the cells (and memo bytes) of first-side slot `s` and
        // second-side slot `t`; when finishing, counts the first side's
        // cell into `counts[0]` and the second's into `counts[other]`.
        let swap = |(s, t): (u64, u64), counts: &mut [Counts; 2]| {
            if single && t < s {
                return;
            }
            let (a, b) = (&first.cells[s as usize], &second.cells[t as usize]);
            let (mut x, mut y) = (a.load(Relaxed), b.load(Relaxed));
            if finish {
                (x, y) = (final_cell(x), final_cell(y));
                tally(&mut counts[0], Value::from(Cell(x)));
                // A state of a side of its own that the swap maps onto
                // itself is one cell, counted once.
                if !(single && t == s) {
                    tally(&mut counts[other], Value::from(Cell(y)));
                }
            }
            a.store(y, Relaxed);
            b.store(x, Relaxed);
            // (A finishing pass dropped the memos: nothing below applies.)
            if in_place {
                if let (Some(a), Some(b)) = (&first.exit_memo, &second.exit_memo) {
                    let (x, y) = (a.byte(s), b.byte(t));
                    a.set_byte(s, y);
                    b.set_byte(t, x);
                }
                return;
            }
            if let (Some(old), Some(new)) = (&first.exit_memo, &new_memos[0]) {
                new.set_byte(t, old.byte(s));
            }
            if let (Some(old), Some(new)) = (&second.exit_memo, &new_memos[1]) {
                new.set_byte(s, old.byte(t));
            }
        };
        let counts = (0..first.chunks())
            .into_par_iter()
            .map(|c| {
                let mut counts = [Counts::default(), Counts::default()];
                self.partners_ahead(first, second, c, |slots| swap(slots, &mut counts));
                counts
            })
            .reduce(
                || [Counts::default(), Counts::default()],
                |[a, b], [c, d]| [add_counts(a, c), add_counts(b, d)],
            );
        if !single {
            let (a, b) = self.sides.split_at_mut(1);
            std::mem::swap(&mut a[0].cells, &mut b[0].cells);
            std::mem::swap(&mut a[0].index, &mut b[0].index);
            if in_place {
                std::mem::swap(&mut a[0].exit_memo, &mut b[0].exit_memo);
            }
        }
        if !in_place {
            for (side, memo) in self.sides.iter_mut().zip(new_memos) {
                side.exit_memo = memo;
            }
        }
        self.transposed = !self.transposed;
        if !finish {
            return Ok(Vec::new());
        }
        debug_assert!(self.sides.iter().all(|side| self.non_canonical_are_draws(side)));
        Ok(counts.into_iter().take(self.sides.len()).collect())
    }

    /// Calls `f((s, t))` for every canonical slot `s` of chunk `c` of
    /// `first`, in order, with `t` the slot of the same state in
    /// `second`'s index (roles swapped): `SWAP_AHEAD` slots after `t` was
    /// ranked and its cell (and memo byte) fetched, from a ring whose
    /// oldest entry goes as each new one comes, so that the fetches stay
    /// that deep all along.
    fn partners_ahead(&self, first: &Side, second: &Side, c: u64, mut f: impl FnMut((u64, u64))) {
        let mut ring = [(0u64, 0u64); SWAP_AHEAD];
        let mut queued = 0usize;
        let mut mover_images: Option<(Bits, Images)> = None;
        first.index.for_each_in(first.chunk(c), |slot, mover, opponent| {
            // A class's slots share their mover set.
            let mover_images = match mover_images {
                Some((set, images)) if set == mover => images,
                _ => mover_images.insert((mover, self.images.set(mover))).1,
            };
            let t = second.index.rank_mover(opponent, &mover_images);
            prefetch(&second.cells[t as usize]);
            if let Some(memo) = &second.exit_memo {
                memo.prefetch(t);
            }
            let place = &mut ring[queued % SWAP_AHEAD];
            if queued >= SWAP_AHEAD {
                f(*place);
            }
            *place = (slot, t);
            queued += 1;
        });
        for q in queued.saturating_sub(SWAP_AHEAD)..queued {
            f(ring[q % SWAP_AHEAD]);
        }
    }

    /// Marks every side's chunks afresh from the cells, for the levels
    /// after depth `depth`.
    pub(super) fn mark_from(&mut self, depth: u16) {
        for side in &mut self.sides {
            side.mark_from(depth + 1);
        }
    }
}

/// The final cell of a working cell: a state still pending after the
/// last level is a draw.
#[inline]
fn final_cell(cell: u16) -> u16 {
    if cell & PENDING != 0 {
        0
    } else {
        cell
    }
}

/// A zeroed exit memo of `slots` bytes for `side`, if it has one.
fn new_memo(side: &Side, slots: u64) -> Result<Option<ExitMemo>, SolveError> {
    side.exit_memo.as_ref().map(|_| ExitMemo::new(slots)).transpose().map_err(|e| {
        SolveError::OutOfMemory { sector: side.sector.to_string(), reason: e.to_string() }
    })
}

impl Pair<'_> {
    /// Takes the levels' layout without moving a cell, for `init` to write
    /// it: the sides trade arrays and indexes, the chunks' marks start
    /// empty and the exit memos are made for the new layout.
    pub(super) fn relabel(&mut self) -> Result<(), SolveError> {
        if self.sides.len() == 2 {
            let (a, b) = self.sides.split_at_mut(1);
            std::mem::swap(&mut a[0].cells, &mut b[0].cells);
            std::mem::swap(&mut a[0].index, &mut b[0].index);
        }
        for side in &mut self.sides {
            side.exit_memo = new_memo(side, side.index.slots())?;
            let chunks = side.chunks() as usize;
            side.marks = (0..chunks).map(|_| AtomicU64::new(0)).collect();
            side.deepest = (0..chunks).map(|_| AtomicU16::new(0)).collect();
        }
        self.transposed = true;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A value for each slot, distinct enough to catch a cell moved to the
    /// wrong place: decided cells, pending ones and draws.
    fn cell_of(sector: Sector, slot: u64) -> u16 {
        let x = (slot * 7 + sector.mover as u64 * 1000 + sector.opponent as u64 * 13) % 20_011;
        if x.is_multiple_of(3) {
            PENDING | (x % 200) as u16
        } else {
            (x % 30_000) as u16
        }
    }

    /// The transposition moves each state's cell (and exit memo byte) to
    /// its slot among the opponent-first positions, checked state by state
    /// with `rank`, and a second one brings every cell back.
    #[test]
    fn the_levels_layout_holds_each_state_at_its_opponent_first_slot_and_comes_back() {
        let v = Variant::named("nine").unwrap();
        let ix = Indexer::new(v.board());
        let sector = |m, o| Sector { mover: m, opponent: o, mover_hand: 0, opponent_hand: 0 };
        // {4,3} has two sides, one with exits (into 3-3); {5,4} two with
        // exits, whose memos trade places; {4,4} is its own partner.
        for pair in
            [vec![sector(4, 3), sector(3, 4)], vec![sector(5, 4), sector(4, 5)], vec![sector(4, 4)]]
        {
            let exits: Vec<Sector> = pair.iter().flat_map(|&s| exit_sectors(s).sectors()).collect();
            let exit_cells: Vec<Vec<u16>> =
                exits.iter().map(|&s| vec![0; ix.sector(s).slots() as usize]).collect();
            let solved: Vec<SolvedSector> = exits
                .iter()
                .zip(&exit_cells)
                .map(|(&sector, cells)| SolvedSector { sector, cells })
                .collect();
            let cells: Vec<Vec<AtomicU16>> = pair
                .iter()
                .map(|&s| (0..ix.sector(s).slots()).map(|_| AtomicU16::new(0)).collect())
                .collect();
            let working: Vec<WorkingSector> = pair
                .iter()
                .zip(&cells)
                .map(|(&sector, cells)| WorkingSector { sector, cells })
                .collect();
            let mut p = Pair::new(&v, &ix, &working, &solved).unwrap();
            let mut states = 0;
            for side in &p.sides {
                side.index.for_each_in(0..side.index.slots(), |slot, _, _| {
                    side.cells[slot as usize].store(cell_of(side.sector, slot), Relaxed);
                    if let Some(memo) = &side.exit_memo {
                        memo.set_byte(slot, cell_of(side.sector, slot) as u8);
                    }
                    states += 1;
                });
            }
            assert!(p.sides.iter().any(|s| s.exit_memo.is_some()));
            let before: Vec<Vec<u16>> =
                cells.iter().map(|c| c.iter().map(|c| c.load(Relaxed)).collect()).collect();

            p.transpose(Pass::Keep).unwrap();
            let mut seen = 0;
            for side in &p.sides {
                let own = ix.sector(side.sector);
                own.for_each_in(0..own.slots(), |slot, mover, opponent| {
                    let there = side.index.rank(opponent, mover);
                    let want = cell_of(side.sector, slot);
                    assert_eq!(side.cells[there as usize].load(Relaxed), want, "{}", side.sector);
                    if let Some(memo) = &side.exit_memo {
                        assert_eq!(memo.byte(there), want as u8, "{}", side.sector);
                    }
                    seen += 1;
                });
            }
            assert_eq!(seen, states);

            p.transpose(Pass::Keep).unwrap();
            let after: Vec<Vec<u16>> =
                cells.iter().map(|c| c.iter().map(|c| c.load(Relaxed)).collect()).collect();
            assert_eq!(after, before);
            for side in &p.sides {
                assert_eq!(side.index.slots(), ix.sector(side.sector).slots());
            }
        }
    }
}
