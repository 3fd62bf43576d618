//! `init`: every state of a pair works out its first cell. It counts its
//! moves inside the pair and looks up its exits (captures, and in
//! Lasker's placement phase every placement) in the sectors solved before;
//! a capture into a loss makes a (tentative) win, a state with no move is
//! lost. A side with stones in hand is walked by its opponent's stones,
//! so that its exits' frames are made once per opponent set.

use super::mover_moves::MoverMoves;
use super::*;
use crate::solve::supersets::{key, unkey, AfterMill, Layers};

/// The most stones a side has on the board in any variant.
pub(super) const MAX_STONES: usize = 12;

/// The sectors a state's exits lead to, framed by the exits' movers: for
/// a capture or a placement the next mover is this state's opponent set
/// (less the captured stone), so one set of frames serves every state
/// around one opponent set, and each exit is ranked with one symmetry
/// image and a compact rank.
pub(super) struct ExitFrames<'a> {
    /// Per stone the mover may capture, in point order: the capture
    /// sector's frame.
    pub(super) captures: [Option<MoverFrame<'a>>; MAX_STONES],
    /// The frame of a placement that captures nothing.
    pub(super) placement_quiet: Option<MoverFrame<'a>>,
    /// Per stone the mover may capture: the frame of a placement that
    /// captures it.
    pub(super) placement_captures: [Option<MoverFrame<'a>>; MAX_STONES],
    /// The mills free of the opponent's stones: the only ones a placement
    /// may close.
    pub(super) open: OpenMills,
}

impl<'a> Side<'a> {
    /// The exits' frames of the states whose opponent holds `opponent`
    /// on `board`, of which the stones `removable` may be captured.
    pub(super) fn exit_frames(
        &self,
        board: &Board,
        removable: Bits,
        opponent: Bits,
    ) -> ExitFrames<'a> {
        let mut frames = ExitFrames {
            captures: [None; MAX_STONES],
            placement_quiet: None,
            placement_captures: [None; MAX_STONES],
            open: OpenMills::of(board.mills(), opponent),
        };
        for (i, r) in points(removable).enumerate() {
            let rest = opponent ^ 1 << r;
            if let Some((index, _)) = &self.captures {
                frames.captures[i] = Some(index.frame(rest));
            }
            if let Some(Placements { captures: Some((index, _)), .. }) = &self.placements {
                frames.placement_captures[i] = Some(index.frame(rest));
            }
        }
        if let Some(placements) = &self.placements {
            frames.placement_quiet = Some(placements.quiet.0.frame(opponent));
        }
        frames
    }
}

/// How the capture successors of a state are ranked.
// One lives on the stack for the state being opened, its frames filled on
// the first capture: boxing them would allocate for every such state.
#[allow(clippy::large_enum_variant)]
pub(super) enum CaptureRanks<'f> {
    /// From the images of the state's own sets, made on its first capture:
    /// in slot order every state has another opponent set. The frames are
    /// made from the capture sector and the removable stones of that
    /// first call, which are the same for every capture of the state.
    Images {
        point_images: &'f PointImages,
        mover: Bits,
        opponent: Bits,
        frames: Option<CaptureFrames>,
    },
    /// From the frames shared by the states around one opponent set.
    Frames(&'f ExitFrames<'f>),
}

/// A state's captures framed from its images: a capture successor's
/// mover is the state's opponent less the stone taken, whatever the move
/// that closed the mill, so the symmetries of each such set are worked
/// out once for all of the state's mill-closing moves.
pub(super) struct CaptureFrames {
    /// The images of the state's mover set.
    mover: Images,
    /// Per stone that may be captured, in point order.
    by_stone: [ImagesFrame; MAX_STONES],
    stones: usize,
}

impl CaptureRanks<'_> {
    /// Gathers into `out` the successors of the mill-closing move from
    /// `from` to `to`, after which the mover holds `own`: one per stone of
    /// `removable`, ranked in the capture sector (`index`, `cells`).
    #[inline]
    pub(super) fn add(
        &mut self,
        index: &SectorIndex,
        cells: &[u16],
        (from, to): (u8, u8),
        own: Bits,
        removable: Bits,
        out: &mut impl Gather,
    ) {
        match self {
            CaptureRanks::Frames(frames) => {
                for frame in frames.captures.iter().flatten() {
                    out.add(frame.rank(own), cells);
                }
            }
            CaptureRanks::Images { point_images, mover, opponent, frames } => {
                let frames = frames.get_or_insert_with(|| {
                    let opponent_images = point_images.set(*opponent);
                    let mut by_stone = [ImagesFrame::default(); MAX_STONES];
                    let mut stones = 0;
                    for r in points(removable) {
                        by_stone[stones] =
                            index.images_frame(&opponent_images.toggle(point_images.point(r)));
                        stones += 1;
                    }
                    CaptureFrames { mover: point_images.set(*mover), by_stone, stones }
                });
                let own_images =
                    frames.mover.toggle(point_images.point(from)).toggle(point_images.point(to));
                for frame in &frames.by_stone[..frames.stones] {
                    out.add(frame.rank(&own_images), cells);
                }
            }
        }
    }
}

impl Pair<'_> {
    /// Works out every state's first cell. A moving-phase side is walked
    /// in slot order. A side with stones in hand (Lasker's placement
    /// phase) is walked by its opponent's stones instead: each of its
    /// states looks up every placement (a dozen or more), and every
    /// placement and capture from a state (mover `M`, opponent `O`) leads
    /// to a state whose mover is `O` or `O` less a stone. Taking `O`
    /// canonical and then every mover set around it, those successors lie
    /// in one class of each successor sector, which stays in cache, and
    /// only each state's own cell is written at a scattered slot. (In the
    /// moving phase, with a few captures a state, the scattered own cells
    /// cost more than the walk saves: measured 15 % slower on nine's
    /// {7,6}.)
    pub(super) fn init(&self, progress: &dyn Progress) {
        for side in &self.sides {
            if side.placements.is_some() {
                self.init_by_opponents(side, progress);
                continue;
            }
            let flies = self.v.flies(side.sector.mover as u32, side.sector.mover_hand as u32);
            // Non-canonical slots are never written: they start as draws.
            (0..side.chunks()).into_par_iter().for_each(|c| {
                for slot in side.chunk(c) {
                    side.cells[slot as usize].store(0, Relaxed);
                }
            });
            let own_chunks = chunk_count(side.own.slots());
            (0..own_chunks).into_par_iter().for_each(|c| {
                // The caller throws the cells away when it cancels.
                if progress.cancelled() {
                    return;
                }
                let range = chunk_slots(side.own.slots(), c);
                let mut batch = InitBatch::default();
                // A class's slots share their mover set: its moves are
                // sorted once for all of them.
                let mut moves = MoverMoves::new();
                let mut mover_images = Images([0; crate::index::LANES]);
                side.own.for_each_in(range.clone(), |own_slot, mover, opponent| {
                    if mover != moves.mover {
                        moves.set(self.v.board(), flies, mover);
                        if self.transposed {
                            mover_images = self.images.set(mover);
                        }
                    }
                    // In the levels' layout, the state's cell is fetched
                    // while its value is worked out.
                    let slot = if self.transposed {
                        let slot = side.index.rank_mover(opponent, &mover_images);
                        prefetch(&side.cells[slot as usize]);
                        if let Some(memo) = &side.exit_memo {
                            memo.prefetch(slot);
                        }
                        slot
                    } else {
                        own_slot
                    };
                    debug_assert!(self.opens_alike(side, &moves, opponent));
                    let mut ranks = CaptureRanks::Images {
                        point_images: self.images,
                        mover,
                        opponent,
                        frames: None,
                    };
                    let start = batch.captures.slots.len();
                    match self.open_with(side, &mut ranks, &moves, opponent, &mut batch.captures) {
                        Opening::Decided(cell) => {
                            batch.captures.slots.truncate(start);
                            self.store_init(side, slot, cell);
                        }
                        Opening::Moves { quiet, any_move } => {
                            let orbit = side.own.orbit_size(own_slot, opponent);
                            let full = mover | opponent == self.v.board().all();
                            let end = batch.captures.slots.len();
                            let moves = Counted { quiet, any_move, orbit, full };
                            batch.states.push(Batched { slot, end, moves });
                            if batch.states.len() == BATCH_STATES || end >= BATCH_CAPTURES {
                                self.flush_init(side, &mut batch);
                            }
                        }
                    }
                });
                self.flush_init(side, &mut batch);
                progress.advance(range.end - range.start);
            });
        }
    }

    /// `init` of one side walked by its opponent's stones (see [`Pair::init`]).
    pub(super) fn init_by_opponents(&self, side: &Side, progress: &dyn Progress) {
        // Non-canonical slots are never visited: they start as draws.
        (0..side.chunks()).into_par_iter().for_each(|c| {
            for slot in side.chunk(c) {
                side.cells[slot as usize].store(0, Relaxed);
            }
        });
        let (opponents, stabilisers) = self.ix.set_classes(side.sector.opponent as u32);
        let (classes, slots) = (opponents.len() as u64, side.index.slots());
        (0..opponents.len()).into_par_iter().for_each_init(Layers::default, |layers, class| {
            // The caller throws the cells away when it cancels.
            if progress.cancelled() {
                return;
            }
            self.init_around(side, opponents[class], stabilisers[class], layers);
            let c = class as u64;
            progress.advance(slots * (c + 1) / classes - slots * c / classes);
        });
    }

    /// Initialises every state of `side` whose opponent holds the
    /// canonical set `opponent`, fixed by the symmetries in `stabiliser`.
    pub(super) fn init_around(
        &self,
        side: &Side,
        opponent: Bits,
        stabiliser: u32,
        layers: &mut Layers,
    ) {
        let board = self.v.board();
        let syms = self.ix.symmetries();
        let free = board.all() & !opponent;
        let group = syms.len() as u32;
        // In the levels' layout the states around `opponent` lie in its
        // class, one after the other; in the tables' layout each is ranked.
        let own_cells = self.transposed.then(|| side.index.frame(opponent));
        let opponent_images = self.images.set(opponent);
        let frames = side.exit_frames(board, board.removable(opponent), opponent);
        // The best placement of every state comes from one pass over the
        // sets of stones placed into.
        if let Some(placements) = &side.placements {
            self.best_placements(side, placements, &frames, opponent, layers);
        }
        let placed = |rank: u64| side.placements.is_some().then(|| layers.best()[rank as usize]);
        for_each_subset(free.count_ones(), side.sector.mover as u32, |rank, compact| {
            let mover = deposit_bits(compact, free);
            // Around a symmetric opponent, positions that a symmetry fixing
            // it maps onto each other are one state: take the smallest.
            let mut orbit = group;
            if stabiliser != 1 {
                if points(stabiliser & !1).any(|s| syms.apply(s as usize, mover) < mover) {
                    return;
                }
                let fixing = points(stabiliser).filter(|&s| syms.apply(s as usize, mover) == mover);
                orbit /= fixing.count() as u32;
            }
            // The state's own cell (and its byte of the exit memo) are the
            // walk's only scattered accesses: fetch them while the value is
            // worked out.
            let slot = match &own_cells {
                Some(frame) => frame.rank(mover),
                None => side.index.rank_mover(mover, &opponent_images),
            };
            prefetch(&side.cells[slot as usize]);
            if let Some(memo) = &side.exit_memo {
                memo.prefetch(slot);
            }
            let ranks = &mut CaptureRanks::Frames(&frames);
            let (cell, deepest_exit) =
                self.init_state(side, ranks, mover, opponent, orbit, placed(rank));
            debug_assert!(placed(rank).is_none_or(|best| {
                let by_placement = self.init_state(side, ranks, mover, opponent, orbit, None);
                // Only a pending state keeps its deepest exit, and one with
                // a drawing placement is never lost, so never needs it.
                let needs_deepest = cell & PENDING != 0 && best != key(0);
                cell == by_placement.0 && (!needs_deepest || deepest_exit == by_placement.1)
            }));
            side.cells[slot as usize].store(cell, Relaxed);
            if let (Some(memo), true) = (&side.exit_memo, cell & PENDING != 0) {
                memo.store(slot, deepest_exit);
            }
            if cell != 0 && cell & PENDING == 0 {
                side.note(slot, cell);
            }
        });
    }

    /// Works out into `layers` the key of the best placement of every
    /// state around `opponent` (see [`Layers`]).
    fn best_placements(
        &self,
        side: &Side,
        placements: &Placements,
        frames: &ExitFrames,
        opponent: Bits,
        layers: &mut Layers,
    ) {
        let board = self.v.board();
        let free = board.all() & !opponent;
        let stones = side.sector.mover as u32 + 1;
        let frame = frames.placement_quiet.as_ref().expect("frames of a side with placements");
        // With no opponent stone on the board a mill captures nothing.
        let open = (board.removable(opponent) != 0).then_some(&frames.open);
        let after_mill = match &placements.captures {
            Some((_, cells)) => {
                AfterMill::Captures { frames: frames.placement_captures.iter().flatten(), cells }
            }
            None => AfterMill::EndsTheGame,
        };
        layers.fill(free, stones, (frame, placements.quiet.1), open, after_mill);
        layers.lower(free.count_ones(), stones - 1);
    }

    /// The initial working cell of one state, whose position has `orbit`
    /// images under the symmetries, and the deepest cell among its exits
    /// (of use while the cell is pending); `ranks` ranks its captures.
    /// `placed`, where given, is the key of its best placement, worked
    /// out beforehand ([`Pair::best_placements`]); otherwise each
    /// placement is looked up.
    pub(super) fn init_state(
        &self,
        side: &Side,
        ranks: &mut CaptureRanks,
        mover: Bits,
        opponent: Bits,
        orbit: u32,
        placed: Option<u32>,
    ) -> (u16, u32) {
        let mut captures = Captures::default();
        let (quiet, mut any_move) =
            match self.open_state(side, ranks, mover, opponent, &mut captures) {
                Opening::Decided(cell) => return (cell, 0),
                Opening::Moves { quiet, any_move } => (quiet, any_move),
            };
        if let Some((_, cells)) = &side.captures {
            captures.look_up(cells);
        }
        if let Some(placements) = &side.placements {
            // A stone in hand always finds an empty point.
            any_move = true;
            if let Some(best) = placed {
                debug_assert!(best != u32::MAX, "a state with a stone in hand and no placement");
                captures.exits.take(unkey(best) as u32);
            } else {
                let framed;
                let frames = match ranks {
                    CaptureRanks::Frames(frames) => *frames,
                    CaptureRanks::Images { .. } => {
                        let board = self.v.board();
                        framed = side.exit_frames(board, board.removable(opponent), opponent);
                        &framed
                    }
                };
                if !self.placement_exits(placements, frames, mover, opponent, &mut captures) {
                    return (self.decided(1), 0);
                }
            }
        }
        let full = mover | opponent == self.v.board().all();
        let cell = self.close_state(Counted { quiet, any_move, orbit, full }, &captures.exits);
        (cell, captures.exits.deepest_loss)
    }

    /// A state's moves: its quiet moves counted, its captures ranked into
    /// `out` (whose reads are left to the caller), or its cell when a
    /// move decides it at once (a capture that leaves the opponent too
    /// few stones; what it gathered before is then of no use).
    #[inline]
    pub(super) fn open_state(
        &self,
        side: &Side,
        ranks: &mut CaptureRanks,
        mover: Bits,
        opponent: Bits,
        out: &mut impl Gather,
    ) -> Opening {
        let board = self.v.board();
        let empty = board.all() & !(mover | opponent);
        let flies = self.v.flies(side.sector.mover as u32, side.sector.mover_hand as u32);
        // Empty only when the opponent has no stone on the board: then a
        // mill captures nothing and its move is quiet.
        let removable = board.removable(opponent);
        let mut quiet = 0u32;
        let mut any_move = false;
        for from in points(mover) {
            let targets = if flies { empty } else { empty & board.adjacent(from) };
            for to in points(targets) {
                any_move = true;
                let own = mover ^ (1 << from) ^ (1 << to);
                if !board.closes_mill(own, to) || removable == 0 {
                    quiet += 1;
                    continue;
                }
                let Some((index, cells)) = &side.captures else {
                    return Opening::Decided(self.decided(1));
                };
                ranks.add(index, cells, (from, to), own, removable, out);
            }
        }
        Opening::Moves { quiet, any_move }
    }

    /// [`Pair::open_state`] of the state whose mover's moves are `moves`
    /// (sorted beforehand, [`MoverMoves`]) and whose opponent holds
    /// `opponent`: the same count, the same captures in the same order.
    #[inline]
    pub(super) fn open_with(
        &self,
        side: &Side,
        ranks: &mut CaptureRanks,
        moves: &MoverMoves,
        opponent: Bits,
        out: &mut impl Gather,
    ) -> Opening {
        let board = self.v.board();
        let empty = board.all() & !(moves.mover | opponent);
        let any_move = moves.any(empty);
        let mut quiet = moves.quiet(empty);
        // Empty only when the opponent has no stone on the board: then a
        // mill captures nothing and its move is quiet.
        let removable = board.removable(opponent);
        if removable == 0 {
            quiet += moves.closing(empty).count() as u32;
            return Opening::Moves { quiet, any_move };
        }
        for (from, to) in moves.closing(empty) {
            let Some((index, cells)) = &side.captures else {
                return Opening::Decided(self.decided(1));
            };
            let own = moves.mover ^ (1 << from) ^ (1 << to);
            ranks.add(index, cells, (from, to), own, removable, out);
        }
        Opening::Moves { quiet, any_move }
    }

    /// Whether [`Pair::open_with`] opens a state as [`Pair::open_state`]
    /// does, captures included: the debug builds' check of every state
    /// the tests solve.
    fn opens_alike(&self, side: &Side, moves: &MoverMoves, opponent: Bits) -> bool {
        let mover = moves.mover;
        let ranks =
            || CaptureRanks::Images { point_images: self.images, mover, opponent, frames: None };
        let (mut plain, mut sorted) = (GatheredSlots::default(), GatheredSlots::default());
        let a = self.open_state(side, &mut ranks(), mover, opponent, &mut plain);
        let b = self.open_with(side, &mut ranks(), moves, opponent, &mut sorted);
        a == b && plain.slots == sorted.slots
    }

    /// The initial working cell of a state whose moves `state` counted,
    /// from what its exits were found to be worth (`exits`).
    #[inline]
    pub(super) fn close_state(&self, state: Counted, exits: &ExitValues) -> u16 {
        let ExitValues { fastest_win, deepest_loss, can_draw } = *exits;
        if fastest_win != u32::MAX {
            // The successor lost at depth `fastest_win - 1`: a win one ply deeper.
            return self.decided(fastest_win);
        }
        if !state.any_move {
            return if state.full && self.v.full_board_draw() { 0 } else { self.decided(0) };
        }
        match (state.quiet, can_draw) {
            (0, true) => 0,
            // Every capture loses: lost one ply after the slowest of them.
            (0, false) => self.decided(deepest_loss),
            (n, draw) => PENDING | (n * state.orbit + draw as u32) as u16,
        }
    }

    /// Reads the captures of the states in `batch` (prefetched when they
    /// were gathered, a few states ago) and stores their cells.
    pub(super) fn flush_init(&self, side: &Side, batch: &mut InitBatch) {
        let cells = side.captures.as_ref().map_or(&[][..], |(_, cells)| *cells);
        let mut start = 0;
        for &state in &batch.states {
            let mut exits = ExitValues::default();
            exits.read(&batch.captures.slots[start..state.end], cells);
            start = state.end;
            let cell = self.close_state(state.moves, &exits);
            self.store_init(side, state.slot, cell);
            if let (Some(memo), true) = (&side.exit_memo, cell & PENDING != 0) {
                memo.store(state.slot, exits.deepest_loss);
            }
        }
        batch.states.clear();
        batch.captures.slots.clear();
    }

    /// Stores the initial cell of `slot`, noting it in its chunk when it
    /// is decided.
    #[inline]
    pub(super) fn store_init(&self, side: &Side, slot: u64, cell: u16) {
        side.cells[slot as usize].store(cell, Relaxed);
        if cell != 0 && cell & PENDING == 0 {
            side.note(slot, cell);
        }
    }

    /// Looks up every placement of the mover (all of which leave the
    /// pair) in `out`, ranked by the opponent's `frames`; `false` when one
    /// of them wins at once, by capturing a stone the opponent cannot
    /// spare.
    pub(super) fn placement_exits(
        &self,
        placements: &Placements,
        frames: &ExitFrames,
        mover: Bits,
        opponent: Bits,
        out: &mut Captures,
    ) -> bool {
        let board = self.v.board();
        let empty = board.all() & !(mover | opponent);
        let removable = board.removable(opponent);
        let quiet = frames.placement_quiet.as_ref().expect("frames of a side with placements");
        // With no opponent stone on the board a mill captures nothing.
        let closing = if removable == 0 { 0 } else { frames.open.closing_points(mover) };
        debug_assert_eq!(
            closing,
            points(empty)
                .filter(|&to| removable != 0 && board.closes_mill(mover | 1 << to, to))
                .fold(0, |c, to| c | 1 << to)
        );
        let (_, cells) = &placements.quiet;
        let mut slots = [0u64; 32];
        quiet.ranks_plus_one(mover, empty & !closing, &mut slots);
        for to in points(empty & !closing) {
            out.add(slots[to as usize], cells);
        }
        out.look_up(cells);
        if closing == 0 {
            return true;
        }
        let Some((_, cells)) = &placements.captures else {
            return false;
        };
        for to in points(closing) {
            for frame in frames.placement_captures.iter().flatten() {
                out.add(frame.rank(mover | 1 << to), cells);
            }
        }
        out.look_up(cells);
        true
    }
}

/// What a state's captures lead to. Slots are gathered first and looked
/// up together, so the scattered reads overlap instead of waiting in turn.
pub(super) struct Captures {
    pub(super) slots: [u64; 64],
    pub(super) pending: usize,
    pub(super) exits: ExitValues,
}

impl Default for Captures {
    fn default() -> Captures {
        Captures { slots: [0; 64], pending: 0, exits: ExitValues::default() }
    }
}

/// What the exits read so far are worth to the state they leave.
#[derive(Clone, Copy)]
pub(super) struct ExitValues {
    /// The cell of the fastest win (a successor's loss, one ply deeper);
    /// `u32::MAX` when none wins.
    pub(super) fastest_win: u32,
    /// The deepest loss (a successor's win), 0 when none loses.
    pub(super) deepest_loss: u32,
    /// Whether some exit draws.
    pub(super) can_draw: bool,
}

impl Default for ExitValues {
    fn default() -> ExitValues {
        ExitValues { fastest_win: u32::MAX, deepest_loss: 0, can_draw: false }
    }
}

impl ExitValues {
    /// Takes in the cells of `slots`: a successor's loss is a win for this
    /// state, its win a loss, its draw a draw.
    #[inline]
    pub(super) fn read(&mut self, slots: &[u64], cells: &[u16]) {
        // Without branches on the values, so the reads are not held up by
        // mispredictions. An odd cell is a loss of the successor (its depth
        // is even), an even one a win, zero a draw.
        for &slot in slots {
            self.take(cells[slot as usize] as u32);
        }
    }

    /// Takes in one exit's cell `c`.
    #[inline(always)]
    pub(super) fn take(&mut self, c: u32) {
        let odd = c & 1 == 1;
        self.fastest_win = self.fastest_win.min(if odd { c } else { u32::MAX });
        self.deepest_loss = self.deepest_loss.max(if odd { 0 } else { c });
        self.can_draw |= c == 0;
    }
}

/// Where the slots of a state's exits are gathered (each prefetched as
/// it is added) until their cells are read.
pub(super) trait Gather {
    fn add(&mut self, slot: u64, cells: &[u16]);
}

impl Gather for Captures {
    #[inline]
    fn add(&mut self, slot: u64, cells: &[u16]) {
        if self.pending == self.slots.len() {
            self.look_up(cells);
        }
        self.slots[self.pending] = slot;
        self.pending += 1;
        prefetch_u16(&cells[slot as usize]);
    }
}

impl Captures {
    /// Reads the cells of the gathered slots into `exits`.
    #[inline]
    pub(super) fn look_up(&mut self, cells: &[u16]) {
        self.exits.read(&self.slots[..self.pending], cells);
        self.pending = 0;
    }
}

/// States of `init`'s walk in slot order whose moves were counted and
/// whose capture slots were gathered and prefetched, their cells not yet
/// read: a state's scattered reads are made a few states after they were
/// asked for, so they overlap with the work in between rather than with
/// the end of their own state's.
#[derive(Default)]
pub(super) struct InitBatch {
    pub(super) states: Vec<Batched>,
    pub(super) captures: GatheredSlots,
}

/// The capture slots of the states of an [`InitBatch`], in order.
#[derive(Default)]
pub(super) struct GatheredSlots {
    pub(super) slots: Vec<u64>,
}

impl Gather for GatheredSlots {
    #[inline]
    fn add(&mut self, slot: u64, cells: &[u16]) {
        self.slots.push(slot);
        prefetch_u16(&cells[slot as usize]);
    }
}

/// A state of an [`InitBatch`]: its slot, where its captures end among
/// the batch's slots, and what its moves counted.
#[derive(Clone, Copy)]
pub(super) struct Batched {
    pub(super) slot: u64,
    pub(super) end: usize,
    pub(super) moves: Counted,
}

/// What a state's moves counted, before its captures are read.
#[derive(Clone, Copy)]
pub(super) struct Counted {
    pub(super) quiet: u32,
    pub(super) any_move: bool,
    pub(super) orbit: u32,
    /// Whether the board is full (a draw where the rules say so).
    pub(super) full: bool,
}

/// A state's moves: decided by one of them, or counted.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Opening {
    Decided(u16),
    Moves { quiet: u32, any_move: bool },
}

/// States an [`InitBatch`] holds before their captures are read.
pub(super) const BATCH_STATES: usize = 64;
/// Capture slots after which a batch is read whatever its states.
pub(super) const BATCH_CAPTURES: usize = 512;
