//! A deliberately simple reference solver for the moving phase, used by
//! the tests to check the fast solver.
//!
//! It knows nothing of symmetry, sector pairs, un-moves or counters: it
//! keeps one cell per raw state (every placement of the stones, no
//! canonical forms) and decides the states layer by layer with a forward
//! fixed-point iteration built on [`for_each_move`] and [`play`] alone.
//! Iteration `n` decides exactly the states of depth `n`, reading only the
//! values decided by earlier iterations (a snapshot taken before it):
//!
//! - `n = 0`: a state without a move is `Loss(0)` (a draw on a full board
//!   in a variant that says so);
//! - `n` even: an undecided state all of whose successors are decided wins
//!   for the opponent is `Loss(n)`;
//! - `n` odd: an undecided state with a successor decided `Loss(n - 1)` is
//!   `Win(n)`. A move that leaves the opponent with fewer than 3 stones
//!   leads to a `Loss(0)`, so it wins in 1.
//!
//! When two iterations in a row decide nothing, the rest are draws.
//!
//! Three shortcuts make it fast enough for tests. Each skips only tests
//! that must fail; the test itself is always the full one above.
//!
//! - From iteration 1 on, a state is tested only when one of its
//!   successors may have been decided by the previous iteration: an odd
//!   test needs such a successor, and an even test can only change its
//!   answer when a successor has just become a win. "May have been
//!   decided" is judged by the successor's sector and mover stone set: a
//!   quiet move leaves the next mover's stones (the opponent's) as they
//!   are, and a capture takes one of them (only states that have a
//!   capturing move, found at iteration 0, have such successors). A capture
//!   that ends the game counts as decided at iteration 0. States are stored
//!   grouped by the opponent's stone set, so the states to test form whole
//!   groups.
//! - An odd test looks up only the successors whose sector and mover set
//!   saw a decision in the previous iteration.
//! - An even test that fails remembers the successor that was not a win;
//!   while that one is still not a win, the test fails again without
//!   looking at the others.
//!
//! Nine 3-3 (2.7 million raw states, flying) takes a few seconds; the
//! 3-4 pair with it (27 million) and the whole moving phase of six (15
//! million) take well under a minute.
//!
//! ```
//! use morris::reference::solve_moving;
//! use morris::{Position, Value, Variant};
//! let five = Variant::named("five").unwrap();
//! let solution = solve_moving(&five, &[(3, 3)]);
//! // White slides e3-e5, closes a5-c5-e5 and leaves Black two stones.
//! let p = Position::parse("WW.W..../BBB..... w 0 0", &five).unwrap();
//! assert_eq!(solution.value(&p.state()), Value::Win(1));
//! ```

use crate::index::{colex_unrank, Sector, BINOMIAL};
use crate::position::State;
use crate::rules::{for_each_move, play};
use crate::value::{Cell, Value};
use crate::variant::{points, Bits, Variant};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Exact values of every state of some moving-phase sectors.
pub struct ReferenceSolution {
    all: Bits,
    tables: Vec<Table>,
    /// `lookup[mover][opponent]`: the table of that sector, if solved.
    lookup: Vec<Vec<Option<usize>>>,
    /// One cell per raw state of every table, table after table:
    /// `Cell::DRAW` stands for "undecided" while solving and for a draw
    /// afterwards.
    cells: Vec<Cell>,
    iterations: u16,
}

/// The raw states of one sector, in groups by the opponent's stone set:
/// the index of a state is the colex rank of the opponent's set times
/// `group_len`, plus the colex rank of the mover's set among the points
/// the opponent leaves free (numbered `0..` from the lowest).
struct Table {
    mover: u8,
    opponent: u8,
    /// Opponent sets: `C(points, opponent)`.
    groups: u64,
    /// Mover sets per opponent set: `C(points - opponent, mover)`.
    group_len: u64,
    /// Where the table's cells start.
    offset: u64,
}

impl Table {
    fn len(&self) -> u64 {
        self.groups * self.group_len
    }
}

/// Counts of one sector's raw states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Counts {
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Deepest win and loss (0 when there is none).
    pub max_win: u16,
    pub max_loss: u16,
}

/// Solves the moving-phase sectors `(mover stones, opponent stones)`: all
/// states with exactly those stones on the board and nothing in hand. The
/// set must be closed under successors: with `(m, o)` it holds `(o, m)`,
/// and `(o - 1, m)` unless `o - 1 < 3` (the game is over) or the stones
/// fill the board (no move at all).
///
/// # Panics
/// When a sector has fewer than 3 stones on a side or does not fit the
/// board, the sectors hold 2^32 states or more, or the set is not closed.
pub fn solve_moving(v: &Variant, sectors: &[(u8, u8)]) -> ReferenceSolution {
    let n = v.board().points() as u32;
    let mut lookup = vec![vec![None; n as usize + 1]; n as usize + 1];
    let mut tables: Vec<Table> = Vec::new();
    let mut offset = 0;
    for &(m, o) in sectors {
        assert!(
            m >= 3 && o >= 3,
            "sector {m}-{o}: a side with fewer than 3 stones has lost already"
        );
        assert!((m + o) as u32 <= n, "sector {m}-{o} does not fit the {} board", v.name());
        if lookup[m as usize][o as usize].is_some() {
            continue;
        }
        let groups = BINOMIAL.get(n, o as u32);
        let group_len = BINOMIAL.get(n - o as u32, m as u32);
        let table = Table { mover: m, opponent: o, groups, group_len, offset };
        offset += table.len();
        lookup[m as usize][o as usize] = Some(tables.len());
        tables.push(table);
    }
    assert!(offset < GAME_OVER as u64, "{offset} states are too many for the reference solver");
    for &(m, o) in sectors {
        if (m + o) as u32 == n {
            // A full board: nobody moves.
            continue;
        }
        let mut needed = vec![(o, m)];
        if o > 3 {
            needed.push((o - 1, m));
        }
        for (a, b) in needed {
            assert!(
                lookup[a as usize][b as usize].is_some(),
                "sector {m}-{o} leads to {a}-{b}, which is not in the list"
            );
        }
    }
    let mut solution = ReferenceSolution {
        all: v.board().all(),
        tables,
        lookup,
        cells: vec![Cell::DRAW; offset as usize],
        iterations: 0,
    };
    solution.solve(v);
    solution
}

/// The whole moving phase of a small variant: the sectors with 3 to
/// `stones` stones on each side (for six: 3..=6 x 3..=6).
pub fn solve_moving_phase(v: &Variant) -> ReferenceSolution {
    let k = v.stones();
    let sectors: Vec<(u8, u8)> = (3..=k).flat_map(|m| (3..=k).map(move |o| (m, o))).collect();
    solve_moving(v, &sectors)
}

/// "No successor remembered" in the witness array.
const NONE: u32 = u32::MAX;
/// A remembered successor that ends the game: never a win for its mover.
const GAME_OVER: u32 = u32::MAX - 1;

/// What one iteration reads.
struct Sweep<'a> {
    v: &'a Variant,
    depth: u16,
    /// The decided wins (even depth) or the losses decided by the previous
    /// iteration (odd depth).
    snapshot: &'a Bitset,
    /// Per table and mover set: whether a state was decided by the
    /// previous iteration.
    changed: &'a [Bitset],
    /// Per state: a successor that was not a win when last looked at.
    witness: &'a [AtomicU32],
}

/// A group of states to look at: table, opponent set rank, and whether
/// only the states with a capturing move.
type Group = (usize, u64, bool);

/// A state decided by an iteration: its index, table and mover set rank.
type Decided = (u64, usize, u64);

impl ReferenceSolution {
    fn solve(&mut self, v: &Variant) {
        let total = self.cells.len() as u64;
        let (mut last, captures) = self.init(v);
        let witness: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(NONE)).collect();
        let mut wins = Bitset::new(total);
        let mut idle = 0;
        let mut depth: u16 = 1;
        while idle < 2 {
            let changed = self.changed_mover_sets(&last);
            let just_lost;
            let snapshot = if depth.is_multiple_of(2) {
                &wins
            } else {
                just_lost = Bitset::of(total, last.iter().map(|d| d.0));
                &just_lost
            };
            let sweep = Sweep { v, depth, snapshot, changed: &changed, witness: &witness };
            let decided = self.iteration(&sweep, &captures);
            for &(i, _, _) in &decided {
                self.cells[i as usize] = Cell(depth + 1);
                if !depth.is_multiple_of(2) {
                    wins.set(i);
                }
            }
            idle = if decided.is_empty() { idle + 1 } else { 0 };
            last = decided;
            depth = depth.checked_add(1).expect("depth overflow");
        }
        self.iterations = depth;
    }

    /// The states of depth `sweep.depth`.
    fn iteration(&self, sweep: &Sweep, captures: &Bitset) -> Vec<Decided> {
        self.groups_to_test(sweep.changed, sweep.depth)
            .into_par_iter()
            .flat_map_iter(|(t, group, capturing)| {
                let mut found = Vec::new();
                self.for_each_state_of_group(t, group, |i, s| {
                    if self.cells[i as usize] == Cell::DRAW
                        && (!capturing || captures.get(i))
                        && self.decides(sweep, i, s)
                    {
                        found.push((i, t, mover_set_rank(s.mover)));
                    }
                });
                found
            })
            .collect()
    }

    /// Per table, the mover sets (by colex rank) of the states decided.
    fn changed_mover_sets(&self, decided: &[Decided]) -> Vec<Bitset> {
        let sets = |t: &Table| BINOMIAL.get(self.all.count_ones(), t.mover as u32);
        let mut changed: Vec<Bitset> = self.tables.iter().map(|t| Bitset::new(sets(t))).collect();
        for &(_, t, mover_set) in decided {
            changed[t].set(mover_set);
        }
        changed
    }

    /// Iteration 0: the states without a move lose at once (or draw, on a
    /// full board where the variant says so). Returns them (as `solve`
    /// keeps the states decided: index, table, mover set rank), and the
    /// states that have a capturing move.
    fn init(&mut self, v: &Variant) -> (Vec<Decided>, Bitset) {
        let groups: Vec<Group> = (0..self.tables.len())
            .flat_map(|t| (0..self.tables[t].groups).map(move |g| (t, g, false)))
            .collect();
        // (index, table, mover set, stuck, capturing) for the states that
        // are either.
        let found: Vec<(u64, usize, u64, bool, bool)> = groups
            .into_par_iter()
            .flat_map_iter(|(t, group, _)| {
                let mut found = Vec::new();
                self.for_each_state_of_group(t, group, |i, s| {
                    let (mut moves, mut capture) = (0, false);
                    for_each_move(v, s, |m| {
                        moves += 1;
                        capture |= m.remove.is_some();
                    });
                    let full = s.mover | s.opponent == self.all;
                    let stuck = moves == 0 && !(full && v.full_board_draw());
                    if stuck || capture {
                        found.push((i, t, mover_set_rank(s.mover), stuck, capture));
                    }
                });
                found
            })
            .collect();
        let mut captures = Bitset::new(self.cells.len() as u64);
        let mut stuck = Vec::new();
        for &(i, t, mover_set, is_stuck, capture) in &found {
            if capture {
                captures.set(i);
            }
            if is_stuck {
                self.cells[i as usize] = Cell::from(Value::Loss(0));
                stuck.push((i, t, mover_set));
            }
        }
        (stuck, captures)
    }

    /// The groups of states to test at iteration `depth`: those with a
    /// successor that may have been decided by the previous iteration,
    /// judged by the sector and mover set of the successor. A quiet
    /// successor's mover set is the state's opponent set, the one that
    /// names its group; a capture's is that set less a stone, and only the
    /// states with a capturing move have one. A capture that ends the game
    /// counts as decided at iteration 0.
    fn groups_to_test(&self, changed: &[Bitset], depth: u16) -> Vec<Group> {
        let mut groups: Vec<Group> = Vec::new();
        for (t, table) in self.tables.iter().enumerate() {
            let (m, o) = (table.mover as u32, table.opponent as u32);
            // (Only a full board, where nobody moves, may lack these.)
            if let Some(quiet) = self.lookup[o as usize][m as usize] {
                groups.extend(changed[quiet].ones().map(|k| (t, k, false)));
            }
            match self.lookup[o as usize - 1][m as usize] {
                Some(capture) => {
                    for k in changed[capture].ones() {
                        let rest = colex_unrank(k, o - 1);
                        for r in points(self.all & !rest) {
                            groups.push((t, mover_set_rank(rest | 1 << r), true));
                        }
                    }
                }
                None if depth == 1 => groups.extend((0..table.groups).map(|g| (t, g, true))),
                None => {}
            }
        }
        // A group listed for every state and for those with a capture
        // needs one look at every state.
        groups.sort_unstable();
        groups.dedup_by(|later, earlier| later.0 == earlier.0 && later.1 == earlier.1);
        groups
    }

    /// Whether state `i` (undecided) has depth exactly `sweep.depth`,
    /// given the snapshot of the values decided at smaller depths.
    fn decides(&self, sweep: &Sweep, i: u64, state: &State) -> bool {
        // A successor where the side to move has fewer than 3 stones is a
        // loss in 0 for it, whatever the tables say.
        let game_over = |s: &State| s.mover_stones() < 3;
        if sweep.depth.is_multiple_of(2) {
            // Every successor is a decided win for the opponent.
            let witness = &sweep.witness[i as usize];
            match witness.load(Relaxed) {
                GAME_OVER => return false,
                NONE => {}
                w if !sweep.snapshot.get(w as u64) => return false,
                _ => {}
            }
            let mut moves = 0;
            let mut not_win = None;
            for_each_move(sweep.v, state, |m| {
                moves += 1;
                if not_win.is_none() {
                    let next = play(state, m);
                    if game_over(&next) {
                        not_win = Some(GAME_OVER);
                    } else {
                        let j = self.locate(&next);
                        if !sweep.snapshot.get(j) {
                            not_win = Some(j as u32);
                        }
                    }
                }
            });
            if moves == 0 {
                // Settled by iteration 0, or a full board's draw.
                return false;
            }
            match not_win {
                Some(w) => {
                    witness.store(w, Relaxed);
                    false
                }
                None => true,
            }
        } else {
            // Some successor is a loss decided by the previous iteration.
            // Only the successors whose sector and mover set saw a decision
            // then can be one (the quiet moves share one mover set:
            // remember the last answer).
            let mut found = false;
            let mut last: Option<(Bits, bool)> = None;
            for_each_move(sweep.v, state, |m| {
                if found {
                    return;
                }
                let next = play(state, m);
                if game_over(&next) {
                    found = sweep.depth == 1;
                    return;
                }
                let fresh = match last {
                    Some((set, fresh)) if set == next.mover => fresh,
                    _ => {
                        let t = self.table_of(next.mover.count_ones(), next.opponent.count_ones());
                        let fresh = sweep.changed[t].get(mover_set_rank(next.mover));
                        last = Some((next.mover, fresh));
                        fresh
                    }
                };
                found = fresh && sweep.snapshot.get(self.locate(&next));
            });
            found
        }
    }

    /// The index of a state in `cells`.
    #[inline]
    fn locate(&self, s: &State) -> u64 {
        let (mut opponent_rank, mut mover_rank) = (0, 0);
        let (mut o, mut m) = (0, 0);
        for p in points(s.opponent) {
            o += 1;
            opponent_rank += BINOMIAL.get(p as u32, o);
        }
        for p in points(s.mover) {
            m += 1;
            // The free points below p: p less the opponent's stones below.
            let below = p as u32 - (s.opponent & ((1 << p) - 1)).count_ones();
            mover_rank += BINOMIAL.get(below, m);
        }
        let table = &self.tables[self.table_of(m, o)];
        table.offset + opponent_rank * table.group_len + mover_rank
    }

    /// The table of sector `m-o`.
    #[inline]
    fn table_of(&self, m: u32, o: u32) -> usize {
        let t = self.lookup.get(m as usize).and_then(|row| row.get(o as usize)).copied().flatten();
        t.unwrap_or_else(|| panic!("sector {m}-{o} is not among the solved sectors"))
    }

    /// Calls `f(index, state)` for the states of table `t` whose opponent
    /// set has colex rank `group`, in index order.
    fn for_each_state_of_group(&self, t: usize, group: u64, mut f: impl FnMut(u64, &State)) {
        let table = &self.tables[t];
        let opponent = colex_unrank(group, table.opponent as u32);
        let mut i = table.offset + group * table.group_len;
        for_each_subset_of(self.all & !opponent, table.mover as u32, |mover| {
            f(i, &State { mover, opponent, mover_hand: 0, opponent_hand: 0 });
            i += 1;
        });
    }

    /// The value of a moving-phase state for the side to move: `Loss(0)`
    /// when it has fewer than 3 stones.
    ///
    /// # Panics
    /// When the state has stones in hand or lies in a sector not solved.
    pub fn value(&self, s: &State) -> Value {
        assert!(s.is_moving_phase(), "the reference solver knows only the moving phase");
        assert_eq!((s.mover | s.opponent) & !self.all, 0, "stones off the board");
        assert_eq!(s.mover & s.opponent, 0, "stones on top of each other");
        if s.mover_stones() < 3 {
            return Value::Loss(0);
        }
        Value::from(self.cells[self.locate(s) as usize])
    }

    /// Whether the sector `mover-opponent` was solved.
    pub fn has_sector(&self, mover: u8, opponent: u8) -> bool {
        self.table(mover, opponent).is_some()
    }

    fn table(&self, mover: u8, opponent: u8) -> Option<usize> {
        self.lookup
            .get(mover as usize)
            .and_then(|row| row.get(opponent as usize))
            .copied()
            .flatten()
    }

    /// The solved sectors.
    pub fn sectors(&self) -> Vec<(u8, u8)> {
        self.tables.iter().map(|t| (t.mover, t.opponent)).collect()
    }

    /// Counts over the raw states (every placement of the stones, symmetric
    /// images counted apart) of one solved sector.
    ///
    /// # Panics
    /// When the sector was not solved.
    pub fn counts(&self, mover: u8, opponent: u8) -> Counts {
        let t = self
            .table(mover, opponent)
            .unwrap_or_else(|| panic!("sector {mover}-{opponent} not solved"));
        let t = &self.tables[t];
        let mut c = Counts::default();
        for &cell in &self.cells[t.offset as usize..(t.offset + t.len()) as usize] {
            match Value::from(cell) {
                Value::Win(d) => {
                    c.wins += 1;
                    c.max_win = c.max_win.max(d);
                }
                Value::Loss(d) => {
                    c.losses += 1;
                    c.max_loss = c.max_loss.max(d);
                }
                Value::Draw => c.draws += 1,
            }
        }
        c
    }

    /// Calls `f` with every raw state of a solved sector and its value.
    ///
    /// # Panics
    /// When the sector was not solved.
    pub fn for_each_state(&self, mover: u8, opponent: u8, mut f: impl FnMut(&State, Value)) {
        let t = self
            .table(mover, opponent)
            .unwrap_or_else(|| panic!("sector {mover}-{opponent} not solved"));
        for group in 0..self.tables[t].groups {
            self.for_each_state_of_group(t, group, |i, s| {
                f(s, Value::from(self.cells[i as usize]))
            });
        }
    }

    /// Number of iterations run: the deepest value plus the two that
    /// decided nothing.
    pub fn iterations(&self) -> u16 {
        self.iterations
    }
}

/// Exact values of every raw state of some sectors, with stones in hand
/// or not: the plainest solver, for the tests of Lasker's placement phase
/// (where a player with stones in hand may also slide, so placement
/// sectors reach each other in cycles). No shortcuts at all: iteration
/// `n` looks at every undecided state and every one of its moves.
pub struct PlainSolution {
    all: Bits,
    /// Per sector: where its cells start, and the mover sets per opponent
    /// set (states are stored as in [`ReferenceSolution`]).
    tables: std::collections::HashMap<Sector, (u64, u64)>,
    cells: Vec<Cell>,
}

/// Solves `sectors` (a set closed under successors: every sector a move
/// leads to, unless the move ends the game, is in it) by the layered
/// fixed point of the module's documentation, on [`for_each_move`] and
/// [`play`] alone.
///
/// # Panics
/// When a sector has a side with fewer than 3 stones, does not fit the
/// board, or the set is not closed.
pub fn solve_plain(v: &Variant, sectors: &[Sector]) -> PlainSolution {
    let n = v.board().points() as u32;
    let mut tables = std::collections::HashMap::new();
    let mut offset = 0;
    for &s in sectors {
        assert!(s.mover + s.mover_hand >= 3 && s.opponent + s.opponent_hand >= 3, "{s}: lost");
        assert!((s.mover + s.opponent) as u32 <= n, "{s} does not fit the board");
        let group_len = BINOMIAL.get(n - s.opponent as u32, s.mover as u32);
        if tables.insert(s, (offset, group_len)).is_none() {
            offset += BINOMIAL.get(n, s.opponent as u32) * group_len;
        }
    }
    let mut solution =
        PlainSolution { all: v.board().all(), tables, cells: vec![Cell::DRAW; offset as usize] };
    let states = solution.states();
    // Iteration 0: no move loses (a full board draws where the variant
    // says so; then it has no move either and stays a "draw").
    let stuck: Vec<u64> = states
        .par_iter()
        .filter(|(_, s)| {
            let mut moves = 0;
            for_each_move(v, s, |_| moves += 1);
            let full = s.mover | s.opponent == solution.all;
            moves == 0 && !(full && v.full_board_draw())
        })
        .map(|&(i, _)| i)
        .collect();
    for i in stuck {
        solution.cells[i as usize] = Cell::from(Value::Loss(0));
    }
    let (mut depth, mut idle) = (1u16, 0);
    while idle < 2 {
        let decided: Vec<u64> = states
            .par_iter()
            .filter(|(i, s)| {
                solution.cells[*i as usize] == Cell::DRAW && solution.decided_at(v, s, depth)
            })
            .map(|&(i, _)| i)
            .collect();
        idle = if decided.is_empty() { idle + 1 } else { 0 };
        for i in decided {
            solution.cells[i as usize] = Cell(depth + 1);
        }
        depth += 1;
    }
    solution
}

impl PlainSolution {
    /// Every raw state with its index.
    fn states(&self) -> Vec<(u64, State)> {
        let mut out = Vec::with_capacity(self.cells.len());
        for (&s, &(offset, _)) in &self.tables {
            let mut i = offset;
            for_each_subset_of(self.all, s.opponent as u32, |opponent| {
                for_each_subset_of(self.all & !opponent, s.mover as u32, |mover| {
                    let state = State {
                        mover,
                        opponent,
                        mover_hand: s.mover_hand,
                        opponent_hand: s.opponent_hand,
                    };
                    out.push((i, state));
                    i += 1;
                });
            });
        }
        out
    }

    /// Whether the undecided `state` has depth exactly `depth`, from the
    /// values decided at smaller depths: with `depth` odd, a move to a
    /// loss at `depth - 1`; even, every move to a win.
    fn decided_at(&self, v: &Variant, state: &State, depth: u16) -> bool {
        let mut moves = 0;
        let mut wins = 0;
        let mut to_loss = false;
        for_each_move(v, state, |m| {
            moves += 1;
            match self.value(&play(state, m)) {
                Value::Loss(d) if d + 1 == depth => to_loss = true,
                Value::Win(d) if d < depth => wins += 1,
                _ => {}
            }
        });
        if depth % 2 == 1 {
            to_loss
        } else {
            moves > 0 && wins == moves
        }
    }

    /// The value of a state for the side to move: `Loss(0)` when it has
    /// fewer than 3 stones (on the board and in hand).
    ///
    /// # Panics
    /// When the state lies in a sector not solved.
    pub fn value(&self, s: &State) -> Value {
        if s.mover_stones() < 3 {
            return Value::Loss(0);
        }
        let sector = Sector::of(s);
        let &(offset, group_len) =
            self.tables.get(&sector).unwrap_or_else(|| panic!("sector {sector} is not solved"));
        let compact = points(s.mover)
            .fold(0, |acc, p| acc | 1 << (!s.opponent & ((1 << p) - 1)).count_ones());
        Value::from(
            self.cells[(offset + mover_set_rank(s.opponent) * group_len + mover_set_rank(compact))
                as usize],
        )
    }
}

/// A fixed-size set of indices.
struct Bitset(Vec<u64>);

impl Bitset {
    fn new(len: u64) -> Bitset {
        Bitset(vec![0; len.div_ceil(64) as usize])
    }

    fn of(len: u64, members: impl Iterator<Item = u64>) -> Bitset {
        let mut set = Bitset::new(len);
        members.for_each(|i| set.set(i));
        set
    }

    #[inline]
    fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    fn set(&mut self, i: u64) {
        self.0[(i / 64) as usize] |= 1 << (i % 64);
    }

    /// The members, lowest first.
    fn ones(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut word = word;
            std::iter::from_fn(move || {
                let bit = (word != 0).then(|| w as u64 * 64 + word.trailing_zeros() as u64);
                word &= word.wrapping_sub(1);
                bit
            })
        })
    }
}

/// Colex rank of a stone set among the sets of its size.
#[inline]
fn mover_set_rank(set: Bits) -> u64 {
    points(set).enumerate().map(|(i, p)| BINOMIAL.get(p as u32, i as u32 + 1)).sum()
}

/// Calls `f` with every `k`-subset of `set`, in colex order.
fn for_each_subset_of(set: Bits, k: u32, mut f: impl FnMut(Bits)) {
    let mut free = [0u8; 32];
    let mut n = 0;
    for p in points(set) {
        free[n] = p;
        n += 1;
    }
    if k as usize > n {
        return;
    }
    let mut compact: u64 = (1 << k) - 1;
    while compact < 1 << n {
        f(points(compact as Bits).fold(0, |acc, j| acc | 1 << free[j as usize]));
        if k == 0 {
            break;
        }
        compact = next_subset(compact);
    }
}

/// The next set with as many elements in colex order (Gosper's hack).
#[inline]
fn next_subset(set: u64) -> u64 {
    let low = set & set.wrapping_neg();
    let ripple = set + low;
    (((ripple ^ set) >> 2) / low) | ripple
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::colex_rank;

    /// The index of a state in its table, from the definition.
    fn raw_index(all: Bits, group_len: u64, s: &State) -> u64 {
        let free = all & !s.opponent;
        let compact =
            points(s.mover).fold(0, |acc, p| acc | 1 << (free & ((1 << p) - 1)).count_ones());
        colex_rank(s.opponent) * group_len + colex_rank(compact)
    }

    #[test]
    fn bitsets_list_their_members() {
        let mut b = Bitset::new(200);
        for i in [0, 5, 63, 64, 127, 130, 199] {
            b.set(i);
        }
        assert_eq!(b.ones().collect::<Vec<_>>(), [0, 5, 63, 64, 127, 130, 199]);
        assert!(b.get(130) && !b.get(131));
    }

    #[test]
    fn raw_index_round_trips() {
        let six = Variant::named("six").unwrap();
        for (m, o) in [(3u8, 4u8), (6, 6), (3, 3), (10, 6), (4, 12)] {
            let offset = 1000;
            let groups = BINOMIAL.get(16, o as u32);
            let group_len = BINOMIAL.get(16 - o as u32, m as u32);
            let table = Table { mover: m, opponent: o, groups, group_len, offset };
            let size = table.len();
            let mut lookup = vec![vec![None; 17]; 17];
            lookup[m as usize][o as usize] = Some(0);
            let sol = ReferenceSolution {
                all: six.board().all(),
                tables: vec![table],
                lookup,
                cells: Vec::new(),
                iterations: 0,
            };
            let mut next = offset;
            let mut seen = std::collections::HashSet::new();
            for g in 0..groups {
                sol.for_each_state_of_group(0, g, |i, s| {
                    assert_eq!(i, next);
                    next += 1;
                    assert_eq!(
                        (s.mover.count_ones(), s.opponent.count_ones()),
                        (m as u32, o as u32)
                    );
                    assert_eq!(s.mover & s.opponent, 0);
                    assert_eq!((s.mover | s.opponent) & !0xffff, 0);
                    assert_eq!(offset + raw_index(0xffff, group_len, s), i);
                    assert_eq!(sol.locate(s), i);
                    assert_eq!(mover_set_rank(s.opponent), g);
                    assert!(seen.insert((s.mover, s.opponent)));
                });
            }
            assert_eq!(next, offset + size);
        }
    }
}
