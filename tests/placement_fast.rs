//! The placement solver and the placement forward check against the
//! obvious rule: on whole placement sectors, with arbitrary cells in the
//! sectors placements lead to (not a solution, so every way of choosing
//! the best successor is exercised), every canonical state gets the value
//! `value_from_successors` gives through the generic move generator and
//! ranking.

use morris::index::{Indexer, Sector};
use morris::sectors::placement_sectors;
use morris::solve::placement::{solve_sector, successor_sectors, Successor};
use morris::solve::Silent;
use morris::value::{Cell, Value};
use morris::variant::Variant;
use morris::verify::{cell_key, value_from_successors, PlacementCheck};
use morris::State;
use std::collections::HashMap;

mod cells;
use cells::arbitrary_cells;

fn seed(s: Sector) -> u64 {
    u64::from_le_bytes([s.mover, s.opponent, s.mover_hand, s.opponent_hand, 0, 0, 0, 1])
}

/// Compares the solver and the check with the generic rule on every
/// placement sector with at most `max_stones` stones (board and hand);
/// returns how many states were compared.
fn compare(v: &Variant, max_stones: u32) -> u64 {
    let ix = Indexer::new(v.board());
    let sectors: Vec<Sector> =
        placement_sectors(v).into_iter().filter(|s| s.total_stones() <= max_stones).collect();
    let mut cells: HashMap<Sector, Vec<u16>> = HashMap::new();
    for &s in &sectors {
        for t in successor_sectors(s) {
            cells.entry(t).or_insert_with(|| arbitrary_cells(ix.sector(t).slots(), seed(t)));
        }
    }
    let lookup = |s: &State| {
        let sector = Sector::of(s);
        Value::from(Cell(cells[&sector][ix.sector(sector).rank(s.mover, s.opponent) as usize]))
    };
    let mut compared = 0;
    for &sector in &sectors {
        let next = successor_sectors(sector);
        let successors: Vec<Successor> =
            next.iter().map(|&t| Successor { sector: t, cells: &cells[&t] }).collect();
        let index = ix.sector(sector);
        let mut solved = vec![u16::MAX; index.slots() as usize];
        solve_sector(v, &ix, sector, &successors, &mut solved, &Silent).unwrap();
        let captures =
            PlacementCheck::captures_need_cells(sector).then(|| cells[&next[1]].as_slice());
        let check = PlacementCheck::new(v, &ix, sector, &cells[&next[0]], captures);
        // The same check over keyed cells, as `verify` runs it.
        let keyed = |c: &[u16]| c.iter().map(|&c| cell_key(c)).collect::<Vec<u16>>();
        let (keyed_quiet, keyed_captures) = (keyed(&cells[&next[0]]), captures.map(keyed));
        let check_keyed =
            PlacementCheck::new(v, &ix, sector, &keyed_quiet, keyed_captures.as_deref()).keyed();
        let mut canonical = vec![false; solved.len()];
        index.for_each_in(0..index.slots(), |slot, mover, opponent| {
            let state = sector.state(mover, opponent);
            let slow = Cell::from(value_from_successors(v, &state, &lookup)).0;
            assert_eq!(solved[slot as usize], slow, "{} {sector} slot {slot}: solver", v.name());
            assert_eq!(
                check.expected(mover, opponent),
                slow as u32,
                "{} {sector} slot {slot}: check",
                v.name()
            );
            assert_eq!(check_keyed.expected(mover, opponent), slow as u32, "{sector}: keyed");
            canonical[slot as usize] = true;
            compared += 1;
        });
        for (slot, &c) in solved.iter().enumerate() {
            assert!(
                c == 0 || canonical[slot],
                "{} {sector}: non-canonical slot {slot} written",
                v.name()
            );
        }
        // The check's own walk: every canonical state once, no mismatch on
        // the solver's cells; one changed cell is one mismatch, at its slot.
        let (found, counts) = check.check_all(&solved);
        assert_eq!(
            (found.states, found.mismatches),
            (canonical.iter().filter(|&&c| c).count() as u64, 0),
            "{sector}"
        );
        assert_eq!(counts.states, found.states, "{sector}");
        assert_eq!(check_keyed.check_all(&keyed(&solved)), (found, counts), "{sector}: keyed");
        let slot = canonical.iter().rposition(|&c| c).unwrap();
        solved[slot] = if solved[slot] == 0 { 2 } else { 0 };
        let (found, _) = check.check_all(&solved);
        assert_eq!(found.mismatches, 1, "{sector}");
        assert_eq!(found.examples[0].0, slot as u64, "{sector}");
        assert_eq!(check_keyed.check_all(&keyed(&solved)).0, found, "{sector}: keyed");
    }
    compared
}

#[test]
fn placement_agrees_with_the_generic_rule_on_nine_up_to_8_stones() {
    assert!(compare(&Variant::named("nine").unwrap(), 8) > 100_000);
}

#[test]
fn placement_agrees_with_the_generic_rule_on_six_and_five() {
    for name in ["six", "five"] {
        let v = Variant::named(name).unwrap();
        assert!(compare(&v, 2 * v.stones() as u32) > 0, "{name}");
    }
}

/// Diagonal mills and symmetric boards with another group.
#[test]
fn placement_agrees_with_the_generic_rule_on_twelve_up_to_7_stones() {
    assert!(compare(&Variant::named("twelve").unwrap(), 7) > 0);
}
