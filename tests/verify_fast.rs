//! The fast moving-phase forward check against the obvious one: on whole
//! small sectors, for every canonical state, the value `MovingCheck`
//! recomputes from its successors' cells equals the value
//! `value_from_successors` gives through the generic move generator and
//! ranking. The successors' cells are arbitrary (not a solution), so
//! every way of choosing the best successor is exercised, not only those
//! a consistent table happens to need.

use morris::index::{Indexer, Sector};
use morris::solve::moving_pairs;
use morris::value::{Cell, Value};
use morris::variant::{Flying, Variant};
use morris::verify::{cell_key, value_from_successors, MovingCheck};
use morris::State;
use std::collections::HashMap;

mod cells;
use cells::arbitrary_cells;

/// A value as a cell, wide enough for any depth `back()` makes.
fn wide_cell(v: Value) -> u32 {
    match v {
        Value::Draw => 0,
        Value::Win(d) | Value::Loss(d) => d as u32 + 1,
    }
}

/// Compares the two checks on every moving sector with at most
/// `max_stones` stones; returns how many states were compared.
fn compare(v: &Variant, max_stones: u32) -> u64 {
    let ix = Indexer::new(v.board());
    let sectors: Vec<Sector> =
        moving_pairs(v, max_stones).iter().flat_map(|p| p.sectors()).collect();
    let mut cells: HashMap<Sector, Vec<u16>> = HashMap::new();
    let mut cells_of = |s: Sector| {
        cells.entry(s).or_insert_with(|| {
            arbitrary_cells(ix.sector(s).slots(), (s.mover as u64) << 8 | s.opponent as u64)
        });
    };
    for &s in &sectors {
        cells_of(s);
        if s.opponent > 3 {
            cells_of(Sector::moving(s.opponent - 1, s.mover));
        }
    }
    // The same cells keyed, for the check as `verify` runs it.
    let keyed: HashMap<Sector, Vec<u16>> =
        cells.iter().map(|(&s, c)| (s, c.iter().map(|&c| cell_key(c)).collect())).collect();
    let lookup = |s: &State| {
        Value::from(Cell(
            cells[&Sector::of(s)][ix.sector(Sector::of(s)).rank(s.mover, s.opponent) as usize],
        ))
    };
    let mut compared = 0;
    for &sector in &sectors {
        let partner = &cells[&Sector::moving(sector.opponent, sector.mover)];
        let captures = (sector.opponent > 3)
            .then(|| cells[&Sector::moving(sector.opponent - 1, sector.mover)].as_slice());
        let fast = MovingCheck::new(v, &ix, sector, partner, captures);
        let keyed_partner = &keyed[&Sector::moving(sector.opponent, sector.mover)];
        let keyed_captures = (sector.opponent > 3)
            .then(|| keyed[&Sector::moving(sector.opponent - 1, sector.mover)].as_slice());
        let fast_keyed = MovingCheck::new(v, &ix, sector, keyed_partner, keyed_captures).keyed();
        let index = ix.sector(sector);
        let mut own = vec![u16::MAX; index.slots() as usize];
        let mut canonical = 0;
        index.for_each_in(0..index.slots(), |slot, mover, opponent| {
            let state = State { mover, opponent, mover_hand: 0, opponent_hand: 0 };
            let slow = wide_cell(value_from_successors(v, &state, &lookup));
            assert_eq!(fast.expected(mover, opponent), slow, "{} {sector} slot {slot}", v.name());
            assert_eq!(fast_keyed.expected(mover, opponent), slow, "{} {sector} keyed", v.name());
            own[slot as usize] = u16::try_from(slow).unwrap();
            canonical += 1;
        });
        // The check's own walk: every canonical state once, no mismatch
        // on cells that hold what it recomputes; one changed cell is one
        // mismatch, at its slot.
        let (found, counts) = fast.check_all(&own);
        assert_eq!((found.states, found.mismatches), (canonical, 0), "{} {sector}", v.name());
        assert_eq!(counts.states, canonical, "{} {sector}", v.name());
        let own_keyed: Vec<u16> = own.iter().map(|&c| cell_key(c)).collect();
        assert_eq!(fast_keyed.check_all(&own_keyed), (found, counts), "{} {sector}", v.name());
        let slot = own.iter().rposition(|&c| c != u16::MAX).unwrap();
        own[slot] = if own[slot] == 0 { 2 } else { 0 };
        let (found, _) = fast.check_all(&own);
        assert_eq!(found.mismatches, 1, "{} {sector}", v.name());
        assert_eq!(found.examples[0].0, slot as u64, "{} {sector}", v.name());
        let own_keyed: Vec<u16> = own.iter().map(|&c| cell_key(c)).collect();
        assert_eq!(fast_keyed.check_all(&own_keyed).0, found, "{} {sector}", v.name());
        compared += canonical;
    }
    compared
}

#[test]
fn fast_check_agrees_with_the_generic_one_on_nine_up_to_7_stones() {
    assert_eq!(compare(&Variant::named("nine").unwrap(), 7), 1_690_422);
}

#[test]
fn fast_check_agrees_with_the_generic_one_on_six_with_and_without_flying() {
    let six = Variant::named("six").unwrap();
    assert!(compare(&six, 12) > 0);
    assert!(compare(&six.with_flying(Flying::AtMost(3)), 12) > 0);
}

/// Diagonals, flying at four stones, and the full-board rule (a full
/// board cannot occur in the moving phase below 12 stones a side, but the
/// flying threshold and the diagonal mills are exercised).
#[test]
fn fast_check_agrees_with_the_generic_one_on_twelve_up_to_7_stones() {
    assert!(compare(&Variant::named("twelve").unwrap(), 7) > 0);
}

/// Twelve's full board in the moving phase: with twelve stones a side
/// nothing can move, and the variant calls it a draw.
#[test]
fn fast_check_gives_the_full_twelve_board_a_draw() {
    let v = Variant::named("twelve").unwrap();
    let ix = Indexer::new(v.board());
    let full = morris::Position::parse("WBWBWBWB/BWBWBWBW/WBWBWBWB w 0 0", &v).unwrap().state();
    let partner = vec![1u16; ix.sector(Sector::moving(12, 12)).slots() as usize];
    let below = vec![1u16; ix.sector(Sector::moving(11, 12)).slots() as usize];
    let fast = MovingCheck::new(&v, &ix, Sector::moving(12, 12), &partner, Some(&below));
    assert_eq!(fast.expected(full.mover, full.opponent), 0);
    assert_eq!(value_from_successors(&v, &full, &|_| Value::Loss(0)), Value::Draw);
}

/// The frame ranks as the sector index does, symmetric mover sets
/// included.
#[test]
fn mover_frame_ranks_as_the_index_does() {
    for name in ["nine", "twelve", "six"] {
        let v = Variant::named(name).unwrap();
        let ix = Indexer::new(v.board());
        for sector in [Sector::moving(4, 3), Sector::moving(3, 5), Sector::moving(4, 4)] {
            let index = ix.sector(sector);
            let mut symmetric = 0;
            index.for_each_in(0..index.slots(), |slot, mover, opponent| {
                // Some image of the position, so the frame has work to do.
                let s = (slot % ix.symmetries().len() as u64) as usize;
                let (m, o) = (ix.symmetries().apply(s, mover), ix.symmetries().apply(s, opponent));
                let frame = index.frame(m);
                assert_eq!(frame.rank(o), slot, "{name} {sector}");
                symmetric +=
                    (index.orbit_size(slot, opponent) < ix.symmetries().len() as u32) as u64;
            });
            assert!(symmetric > 0);
        }
    }
}
