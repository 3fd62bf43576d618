//! Lasker's placement phase, where a player with stones in hand may also
//! slide: the pair solver against the plain reference solver on small
//! Lasker-like games, every value and distance of every canonical state;
//! the fast forward check of its sectors against the plain rule, state by
//! state on arbitrary cells and verdict by verdict on solved tables, one
//! of them damaged.

use morris::database::Database;
use morris::driver::Quiet;
use morris::index::Indexer;
use morris::reference::{solve_plain, PlainSolution};
use morris::sectors::{moving_sectors, placement_sectors};
use morris::solve::{
    exit_sectors, partner_of, solve_pair, Progress, ResumePoint, Silent, SolveError, SolvedSector,
    WorkingSector,
};
use morris::stats::Counts;
use morris::table::write_table;
use morris::verify::{
    cell_key, check_sector_generic, successor_sectors, value_from_successors, MovingCheck, Verifier,
};
use morris::{Cell, FlyCount, Flying, Sector, State, Value, Variant};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};
use std::sync::Mutex;

mod cells;
use cells::arbitrary_cells;

/// Every sector of `v` with at most `max_stones` stones, board and hand.
fn sectors(v: &Variant, max_stones: u32) -> Vec<Sector> {
    moving_sectors(v)
        .into_iter()
        .chain(placement_sectors(v))
        .filter(|s| s.total_stones() <= max_stones)
        .collect()
}

fn solved(v: &Variant, max_stones: u32) -> Database {
    let db = Database::new(tempfile::tempdir().unwrap().keep(), v.clone());
    db.solve_moving(max_stones, 2, &Quiet).unwrap();
    db.solve_placement(max_stones, 2, &Quiet).unwrap();
    db
}

fn compare(db: &Database, reference: &PlainSolution, sectors: &[Sector]) {
    let mut decided = 0;
    for &sector in sectors {
        let cells = db.load_cells(sector).unwrap();
        let index = db.indexer().sector(sector);
        let mut compared = 0u64;
        index.for_each_in(0..index.slots(), |slot, mover, opponent| {
            let state = sector.state(mover, opponent);
            let fast = Value::from(morris::Cell(cells[slot as usize]));
            assert_eq!(fast, reference.value(&state), "{sector} slot {slot}");
            decided += (fast != Value::Draw) as u64;
            compared += 1;
        });
        assert_eq!(compared, index.canonical_states(), "{sector}");
    }
    // Not all draws: the comparison has something to compare.
    assert!(decided > 1000, "{decided} decided states");
}

fn holds_to_the_reference(v: &Variant, max_stones: u32) {
    let all = sectors(v, max_stones);
    let reference = solve_plain(v, &all);
    compare(&solved(v, max_stones), &reference, &all);
}

/// Four stones a side fly at 3 once their hand is empty (never with a
/// stone in hand); captures lead to sectors that go on.
#[test]
fn five_board_with_lasker_rule_4_stones_flying_at_3() {
    let v = Variant::named("five").unwrap().with_lasker().with_stones(4);
    holds_to_the_reference(&v.with_flying(Flying::AtMost(3)), 7);
}

/// The same game as published Lasker reads flying: three stones left in
/// all, board and hand, fly (two on the board and one in hand too).
#[test]
fn five_board_with_lasker_rule_4_stones_flying_at_3_left_in_all() {
    holds_to_the_reference(&five_board_flying_at_3_in_all(), 7);
}

/// Five's board with Lasker's moves, four stones a side, flying with
/// three left on the board and in hand together.
fn five_board_flying_at_3_in_all() -> Variant {
    let v = Variant::named("five").unwrap().with_lasker().with_stones(4);
    v.with_flying(Flying::AtMost(3)).with_fly_count(FlyCount::All).unwrap()
}

/// Five's own rules (no flying) with Lasker's moves.
#[test]
fn five_board_with_lasker_rule_without_flying() {
    let v = Variant::named("five").unwrap().with_lasker();
    holds_to_the_reference(&v, 7);
}

/// Every sector up to 8 stones (4.2 million raw states, some two minutes
/// on two busy cores): `cargo test --test lasker -- --ignored`.
#[test]
#[ignore]
fn five_board_with_lasker_rule_4_stones_flying_at_3_up_to_8_stones() {
    let v = Variant::named("five").unwrap().with_lasker().with_stones(4);
    holds_to_the_reference(&v.with_flying(Flying::AtMost(3)), 8);
}

/// Lasker itself: every sector with at most 9 stones (board and hand)
/// solved and verified (under a minute on two busy cores, mostly the
/// solve; CI runs 8 stones through the binary in `cli_solve`):
/// `cargo test --test lasker -- --ignored`.
#[test]
#[ignore]
fn lasker_up_to_9_stones_solves_and_verifies() {
    let v = Variant::named("lasker").unwrap();
    let db = solved(&v, 9);
    let all = sectors(&v, 9);
    let mut checked = 0;
    for (sector, check) in morris::verify::Verifier::new(&db, &all) {
        let check = check.unwrap();
        assert_eq!(check.mismatches, 0, "{sector}: {:?}", check.examples);
        assert!(check.counts_agree, "{sector}");
        checked += 1;
    }
    assert_eq!(checked, 10 + 235);
}

/// A value as a cell, wide enough for any depth `back()` makes.
fn wide_cell(v: Value) -> u32 {
    match v {
        Value::Draw => 0,
        Value::Win(d) | Value::Loss(d) => d as u32 + 1,
    }
}

/// The fast check against the plain rule on every sector of `v` (moving
/// and placement) with at most `max_stones` stones, with arbitrary cells
/// in the sectors moves lead to: every canonical state gets the cell
/// `value_from_successors` gives through the generic move generator and
/// ranking, the check's own walk finds no mismatch on those cells, and
/// one changed cell is one mismatch at its slot. Returns the placement
/// states compared.
fn fast_check_agrees_with_the_plain_rule(v: &Variant, max_stones: u32) -> u64 {
    let ix = Indexer::new(v.board());
    let seed = |s: Sector| {
        u64::from_le_bytes([s.mover, s.opponent, s.mover_hand, s.opponent_hand, 0, 1, 0, 1])
    };
    let all = sectors(v, max_stones);
    let mut cells: HashMap<Sector, Vec<u16>> = HashMap::new();
    for &sector in &all {
        let next = successor_sectors(v, sector);
        for leads in [next.slides, next.placements].into_iter().flatten() {
            for t in std::iter::once(leads.quiet).chain(leads.capture) {
                cells.entry(t).or_insert_with(|| arbitrary_cells(ix.sector(t).slots(), seed(t)));
            }
        }
    }
    let lookup = |s: &State| {
        let sector = Sector::of(s);
        let table = cells.get(&sector).unwrap_or_else(|| panic!("no cells for {sector}"));
        Value::from(Cell(table[ix.sector(sector).rank(s.mover, s.opponent) as usize]))
    };
    // The same cells keyed, for the check as `verify` runs it (each
    // state's best placement folded from the sets placed into).
    let keyed = |c: &[u16]| c.iter().map(|&c| cell_key(c)).collect::<Vec<u16>>();
    let keyed_cells: HashMap<Sector, Vec<u16>> =
        cells.iter().map(|(&s, c)| (s, keyed(c))).collect();
    let mut placement = 0;
    for &sector in &all {
        let check = MovingCheck::of(v, &ix, sector, |s| cells[&s].as_slice());
        let check_keyed = MovingCheck::of(v, &ix, sector, |s| keyed_cells[&s].as_slice()).keyed();
        let index = ix.sector(sector);
        let mut own = vec![u16::MAX; index.slots() as usize];
        let mut canonical = 0;
        index.for_each_in(0..index.slots(), |slot, mover, opponent| {
            let state = sector.state(mover, opponent);
            let slow = wide_cell(value_from_successors(v, &state, &lookup));
            assert_eq!(check.expected(mover, opponent), slow, "{} {sector} slot {slot}", v.name());
            own[slot as usize] = u16::try_from(slow).unwrap();
            canonical += 1;
        });
        let (found, counts) = check.check_all(&own);
        assert_eq!((found.states, found.mismatches), (canonical, 0), "{} {sector}", v.name());
        assert_eq!(counts.states, canonical, "{} {sector}", v.name());
        let keyed_found = check_keyed.check_all(&keyed(&own));
        assert_eq!(keyed_found, (found, counts), "{} {sector}: keyed", v.name());
        let slot = own.iter().rposition(|&c| c != u16::MAX).unwrap();
        own[slot] = if own[slot] == 0 { 2 } else { 0 };
        let (found, _) = check.check_all(&own);
        assert_eq!(found.mismatches, 1, "{} {sector}", v.name());
        assert_eq!(found.examples[0].0, slot as u64, "{} {sector}", v.name());
        assert_eq!(check_keyed.check_all(&keyed(&own)).0, found, "{} {sector}: keyed", v.name());
        if !sector.is_moving() {
            placement += canonical;
        }
    }
    placement
}

#[test]
fn fast_lasker_check_agrees_with_the_plain_rule_on_the_five_board() {
    let v = Variant::named("five").unwrap().with_lasker().with_stones(4);
    assert_eq!(fast_check_agrees_with_the_plain_rule(&v, 7), 61_487);
    assert_eq!(fast_check_agrees_with_the_plain_rule(&v.with_flying(Flying::AtMost(3)), 7), 61_487);
    assert_eq!(fast_check_agrees_with_the_plain_rule(&five_board_flying_at_3_in_all(), 7), 61_487);
}

/// Lasker itself, flying with 3 stones left in all, on the 24-point board.
#[test]
fn fast_lasker_check_agrees_with_the_plain_rule_on_lasker_up_to_7_stones() {
    let v = Variant::named("lasker").unwrap();
    assert_eq!(fast_check_agrees_with_the_plain_rule(&v, 7), 818_935);
}

/// The check works out where moves lead by itself; it agrees with the
/// solver's pairs and exits wherever a move can get there (the solver
/// also names capture sectors a mover with fewer than three stones on
/// the board cannot reach, having no mill to close).
#[test]
fn successor_sectors_agree_with_the_solvers_exits() {
    let v = Variant::named("lasker").unwrap();
    for sector in placement_sectors(&v).into_iter().chain(moving_sectors(&v)) {
        let ours = successor_sectors(&v, sector);
        let exits = exit_sectors(sector);
        let slides = ours.slides.unwrap();
        assert_eq!(slides.quiet, partner_of(sector), "{sector}");
        let can_mill = |after: u8| after >= 3;
        assert_eq!(slides.capture, exits.capture.filter(|_| can_mill(sector.mover)), "{sector}");
        assert_eq!(ours.placements.map(|p| p.quiet), exits.placement, "{sector}");
        assert_eq!(
            ours.placements.and_then(|p| p.capture),
            exits.placement_capture.filter(|_| can_mill(sector.mover + 1)),
            "{sector}"
        );
    }
}

/// Writes `cells` as the table of `sector`, with header counts that
/// agree, so only the forward check can tell.
fn rewrite(db: &Database, sector: Sector, cells: &[u16]) {
    let info = db.table(sector).unwrap().info().clone();
    let info =
        morris::table::TableInfo { counts: Counts::tally(cells, info.counts.states), ..info };
    write_table(&db.table_path(sector), &info, cells).unwrap();
}

/// Solved tables checked both ways, the fast check and the plain rule,
/// give the same verdict, sector by sector: none at first, then, with one
/// value changed in a placement table, the same mismatches in the damaged
/// sector and in the sectors whose moves lead to it.
#[test]
fn fast_and_generic_checks_give_the_same_verdicts_on_lasker_tables() {
    let v = Variant::named("five").unwrap().with_lasker().with_stones(4);
    same_verdicts_on_tables(&v.with_flying(Flying::AtMost(3)));
}

/// The same under the published reading of flying (three left in all).
#[test]
fn fast_and_generic_checks_give_the_same_verdicts_on_lasker_tables_flying_in_all() {
    same_verdicts_on_tables(&five_board_flying_at_3_in_all());
}

fn same_verdicts_on_tables(v: &Variant) {
    let all = sectors(v, 7);
    let dir = tempfile::tempdir().unwrap();
    let verdicts = |damaged: Option<(Sector, Vec<u16>)>| {
        let db = Database::new(dir.path(), v.clone());
        if let Some((sector, cells)) = &damaged {
            rewrite(&db, *sector, cells);
        }
        let db = Database::new(dir.path(), v.clone());
        let mut failed = Vec::new();
        for (sector, fast) in Verifier::new(&db, &all) {
            let fast = fast.unwrap();
            let slow = check_sector_generic(&db, sector).unwrap();
            assert_eq!(fast.states, slow.states, "{sector}");
            assert_eq!(fast.mismatches, slow.mismatches, "{sector}");
            assert_eq!(fast.examples, slow.examples, "{sector}");
            assert_eq!(fast.counts_agree, slow.counts_agree, "{sector}");
            if fast.mismatches > 0 {
                failed.push((sector, fast.examples[0].0));
            }
        }
        failed
    };
    {
        let db = Database::new(dir.path(), v.clone());
        db.solve_moving(7, 2, &Quiet).unwrap();
        db.solve_placement(7, 2, &Quiet).unwrap();
    }
    assert_eq!(verdicts(None), vec![]);

    // A state with stones in both hands whose value is decided: say it
    // is a draw. The first such slot: the states of lower slots are
    // draws, which a successor turned draw leaves draws, so it is the
    // first mismatch listed.
    let target: Sector = "2-2-1-1".parse().unwrap();
    let db = Database::new(dir.path(), v.clone());
    let mut cells = db.load_cells(target).unwrap();
    let index = db.indexer().sector(target);
    let victim = (0..index.slots())
        .find(|&slot| index.unrank(slot).is_some() && cells[slot as usize] != 0)
        .unwrap();
    cells[victim as usize] = 0;
    drop(db);
    let failed = verdicts(Some((target, cells)));
    assert!(failed.contains(&(target, victim)), "{failed:?}");
}

fn working<'a>(pair: &[Sector], cells: &'a [Vec<AtomicU16>]) -> Vec<WorkingSector<'a>> {
    pair.iter().zip(cells).map(|(&sector, cells)| WorkingSector { sector, cells }).collect()
}

/// Stops a pair at its first checkpoint past depth 2, keeping a copy of
/// its working cells there.
struct StopAtCheckpoint<'a> {
    sides: &'a [Vec<AtomicU16>],
    taken: Mutex<Option<(ResumePoint, Vec<Vec<u16>>)>>,
}

impl Progress for StopAtCheckpoint<'_> {
    fn checkpoint_due(&self) -> bool {
        true
    }

    fn checkpoint(&self, point: &ResumePoint) -> bool {
        if point.depth < 3 {
            return true;
        }
        let cells =
            self.sides.iter().map(|s| s.iter().map(|c| c.load(Relaxed)).collect()).collect();
        *self.taken.lock().unwrap() = Some((point.clone(), cells));
        false
    }
}

/// A placement pair of Lasker's rule (the side with a stone in hand
/// remembers what its exits are worth from `init`; a resumed solve has no
/// such memory and looks them up again) stopped at a checkpoint and
/// resumed from it ends with the cells of a solve straight through, and
/// both with its table.
#[test]
fn a_placement_pair_resumed_from_a_checkpoint_ends_as_one_solved_straight_through() {
    let v = five_board_flying_at_3_in_all();
    let db = solved(&v, 7);
    let ix = db.indexer();
    let mut resumed_pairs = 0;
    for first in placement_sectors(&v) {
        if first.total_stones() > 7 || first.mover_hand == 0 {
            continue;
        }
        let pair: Vec<Sector> =
            if partner_of(first) == first { vec![first] } else { vec![first, partner_of(first)] };
        let exits: Vec<Sector> = pair
            .iter()
            .flat_map(|&s| exit_sectors(s).sectors())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let exit_cells: Vec<Vec<u16>> = exits.iter().map(|&s| db.load_cells(s).unwrap()).collect();
        let solved_exits: Vec<SolvedSector> = exits
            .iter()
            .zip(&exit_cells)
            .map(|(&sector, cells)| SolvedSector { sector, cells })
            .collect();
        let fresh = || -> Vec<Vec<AtomicU16>> {
            pair.iter()
                .map(|&s| (0..ix.sector(s).slots()).map(|_| AtomicU16::new(0)).collect())
                .collect()
        };
        let plain = |cells: &[Vec<AtomicU16>]| -> Vec<Vec<u16>> {
            cells.iter().map(|s| s.iter().map(|c| c.load(Relaxed)).collect()).collect()
        };

        let straight = fresh();
        let report =
            solve_pair(&v, ix, &working(&pair, &straight), &solved_exits, &Silent, None).unwrap();
        // Losses in the side with a stone in hand come from its memory of
        // its exits, or without it from looking them up again.
        let losses = report.counts.iter().find(|(s, _)| *s == first).unwrap().1.losses;
        if report.levels < 6 || losses == 0 {
            continue;
        }

        let stopped = fresh();
        let stop = StopAtCheckpoint { sides: &stopped, taken: Mutex::new(None) };
        let interrupted = solve_pair(&v, ix, &working(&pair, &stopped), &solved_exits, &stop, None);
        assert!(matches!(interrupted, Err(SolveError::Interrupted(_))), "{interrupted:?}");
        let (point, cells) = stop.taken.into_inner().unwrap().expect("a checkpoint past depth 2");
        let resumed: Vec<Vec<AtomicU16>> =
            cells.iter().map(|s| s.iter().map(|&c| AtomicU16::new(c)).collect()).collect();
        solve_pair(&v, ix, &working(&pair, &resumed), &solved_exits, &Silent, Some(&point))
            .unwrap();

        assert_eq!(plain(&resumed), plain(&straight), "{first}");
        for (&sector, cells) in pair.iter().zip(plain(&straight)) {
            assert_eq!(cells, db.load_cells(sector).unwrap(), "{sector}");
        }
        resumed_pairs += 1;
    }
    assert!(resumed_pairs >= 3, "{resumed_pairs} pairs resumed");
}
