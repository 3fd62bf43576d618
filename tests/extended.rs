//! Games from every start (`solve --extended`): the extended placement
//! sectors hold every sector random games from other starts meet and are
//! closed under the solver's successors; the solver, and the forward
//! check of a sliding mover (empty hand, the opponent still placing),
//! agree with the plain forward rule on every extended sector with few
//! stones; the tables agree with
//! the placement search over the moving phase from every start and on
//! sampled positions; and the forward check passes on them.

use morris::database::Database;
use morris::driver::Quiet;
use morris::index::{Indexer, Sector};
use morris::rules::{legal_moves, play};
use morris::search::{Outcome, Search};
use morris::sectors::{extended_placement_sectors, moving_sectors, placement_sectors};
use morris::solve::placement::{solve_sector, successor_sectors, Successor};
use morris::solve::Silent;
use morris::value::{Cell, Value};
use morris::variant::Variant;
use morris::verify::{value_from_successors, MovingCheck, Verifier};
use morris::{Position, State};
use std::collections::{HashMap, HashSet};

mod cells;
use cells::arbitrary_cells;

fn variant(name: &str) -> Variant {
    Variant::named(name).unwrap()
}

fn outcome_of(value: Value) -> Outcome {
    match value {
        Value::Win(_) => Outcome::Win,
        Value::Loss(_) => Outcome::Loss,
        Value::Draw => Outcome::Draw,
    }
}

/// The empty board with White holding `a` and Black `b`, White to move.
fn start(a: u8, b: u8) -> State {
    State { mover: 0, opponent: 0, mover_hand: a, opponent_hand: b }
}

#[test]
fn extended_sectors_hold_the_standard_ones_and_are_closed() {
    for name in ["nine", "six", "twelve"] {
        let v = variant(name);
        let extended = extended_placement_sectors(&v);
        let listed: HashSet<Sector> = extended.iter().copied().collect();
        assert_eq!(listed.len(), extended.len(), "{name}: each sector once");
        for s in placement_sectors(&v) {
            assert!(listed.contains(&s), "{name}: standard {s} missing");
        }
        let moving: HashSet<Sector> = moving_sectors(&v).into_iter().collect();
        let at: HashMap<Sector, usize> =
            extended.iter().enumerate().map(|(i, &s)| (s, i)).collect();
        for (i, &s) in extended.iter().enumerate() {
            assert!(!s.is_moving(), "{name}: {s}");
            for t in successor_sectors(s) {
                if t.is_moving() {
                    assert!(moving.contains(&t), "{name}: {s} -> {t}");
                } else {
                    // In the order of play: what a sector leads to comes later.
                    assert!(at.get(&t).is_some_and(|&j| j > i), "{name}: {s} -> {t}");
                }
            }
        }
    }
    // Nine with at most 10 stones: 335 sectors, of which the standard
    // rule (`placement_sectors`) holds 50.
    let nine = variant("nine");
    let small = |sectors: Vec<Sector>| sectors.iter().filter(|s| s.total_stones() <= 10).count();
    assert_eq!(small(extended_placement_sectors(&nine)), 335);
    assert_eq!(small(placement_sectors(&nine)), 50);
}

/// Random games from every start of `name`, either side first: every
/// placement state met lies in an extended sector.
#[test]
fn random_games_from_every_start_stay_in_extended_sectors() {
    for name in ["nine", "six"] {
        let v = variant(name);
        let listed: HashSet<Sector> = extended_placement_sectors(&v).into_iter().collect();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for a in 3..=v.stones() {
            for b in 3..=v.stones() {
                for _ in 0..40 {
                    let mut state = start(a, b);
                    while !state.is_moving_phase() && state.mover_stones() >= 3 {
                        let sector = Sector::of(&state);
                        assert!(listed.contains(&sector), "{name} from {a},{b}: {sector}");
                        let moves = legal_moves(&v, &state);
                        if moves.is_empty() {
                            break;
                        }
                        state = play(&state, moves[(next() % moves.len() as u64) as usize]);
                    }
                }
            }
        }
    }
}

/// The solver against `value_from_successors` on every extended sector of
/// `v` with at most `max_stones` stones, with arbitrary successor cells;
/// returns (states compared, states of sliding movers among them).
fn solver_agrees(v: &Variant, max_stones: u32) -> (u64, u64) {
    let ix = Indexer::new(v.board());
    let sectors: Vec<Sector> = extended_placement_sectors(v)
        .into_iter()
        .filter(|s| s.total_stones() <= max_stones)
        .collect();
    let seed = |s: Sector| {
        u64::from_le_bytes([s.mover, s.opponent, s.mover_hand, s.opponent_hand, 0, 0, 1, 1])
    };
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
    let (mut compared, mut sliding) = (0, 0);
    for &sector in &sectors {
        let successors: Vec<Successor> = successor_sectors(sector)
            .iter()
            .map(|&t| Successor { sector: t, cells: &cells[&t] })
            .collect();
        let next = successor_sectors(sector);
        let check = (sector.mover_hand == 0).then(|| {
            let capture = next.get(1).map(|t| cells[t].as_slice());
            MovingCheck::sliding(v, &ix, sector, &cells[&next[0]], capture)
        });
        let index = ix.sector(sector);
        let mut solved = vec![u16::MAX; index.slots() as usize];
        solve_sector(v, &ix, sector, &successors, &mut solved, &Silent).unwrap();
        let mut canonical = vec![false; solved.len()];
        index.for_each_in(0..index.slots(), |slot, mover, opponent| {
            let state = sector.state(mover, opponent);
            let slow = Cell::from(value_from_successors(v, &state, &lookup)).0;
            assert_eq!(solved[slot as usize], slow, "{} {sector} slot {slot}", v.name());
            if let Some(check) = &check {
                assert_eq!(check.expected(mover, opponent), slow as u32, "{sector}: check");
            }
            canonical[slot as usize] = true;
            compared += 1;
            sliding += u64::from(sector.mover_hand == 0);
        });
        for (slot, &c) in solved.iter().enumerate() {
            assert!(c == 0 || canonical[slot], "{} {sector}: slot {slot} written", v.name());
        }
    }
    (compared, sliding)
}

#[test]
fn solver_agrees_with_the_forward_rule_on_extended_sectors() {
    let (states, sliding) = solver_agrees(&variant("six"), 7);
    assert!(states > 10_000 && sliding > 1_000, "{states} {sliding}");
    // Nine with flying at 3: a sliding mover with 3 stones flies.
    let (states, sliding) = solver_agrees(&variant("nine"), 6);
    assert!(states > 10_000 && sliding > 1_000, "{states} {sliding}");
}

/// The moving phase of `v` up to `max_stones` alone, and a copy of it
/// with the extended placement sectors too.
fn solved(v: Variant, max_stones: u32) -> (Database, Database) {
    let moving = Database::new(tempfile::tempdir().unwrap().keep(), v.clone());
    moving.solve_moving(max_stones, 2, &Quiet).unwrap();
    let dir = tempfile::tempdir().unwrap().keep();
    for file in std::fs::read_dir(moving.dir()).unwrap() {
        let path = file.unwrap().path();
        if path.extension().is_some_and(|e| e == "mtb") {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
    }
    let extended = Database::new(dir, v);
    extended.solve_extended_placement(max_stones, 2, &Quiet).unwrap();
    (moving, extended)
}

/// Every start with at most `max_stones` stones, either side first, and
/// every `step`-th state of every extended sector: the tables and the
/// search over the moving phase alone agree. Returns the states compared.
fn tables_agree_with_search(v: Variant, max_stones: u32, step: u64) -> usize {
    let (searched, tabled) = solved(v.clone(), max_stones);
    let mut search = Search::new(&searched);
    let mut compared = 0;
    for a in 3..=v.stones() {
        for b in 3..=v.stones() {
            if (a + b) as u32 > max_stones {
                continue;
            }
            let state = start(a, b);
            let table = outcome_of(tabled.value(&state).unwrap());
            assert_eq!(search.outcome(&state).unwrap(), table, "{} start {a},{b}", v.name());
            compared += 1;
        }
    }
    for sector in
        extended_placement_sectors(&v).into_iter().filter(|s| s.total_stones() <= max_stones)
    {
        let index = tabled.indexer().sector(sector);
        let mut k = 0u64;
        index.for_each_in(0..index.slots(), |_, mover, opponent| {
            k += 1;
            if !k.is_multiple_of(step) {
                return;
            }
            let state = sector.state(mover, opponent);
            let table = outcome_of(tabled.value(&state).unwrap());
            assert_eq!(search.outcome(&state).unwrap(), table, "{sector} {state:?}");
            compared += 1;
        });
    }
    // The forward check passes on every placement table.
    let sectors: Vec<Sector> = extended_placement_sectors(&v)
        .into_iter()
        .filter(|s| s.total_stones() <= max_stones)
        .collect();
    for (sector, check) in Verifier::new(&tabled, &sectors) {
        let check = check.unwrap();
        assert_eq!(check.mismatches, 0, "{sector}: {:?}", check.examples);
        assert!(check.counts_agree, "{sector}");
    }
    compared
}

#[test]
fn tables_agree_with_the_search_from_every_start() {
    assert!(tables_agree_with_search(variant("six"), 8, 499) > 400);
    assert!(tables_agree_with_search(variant("nine"), 6, 97) > 100);
}

#[test]
fn a_start_from_the_tables_is_the_start_of_its_position() {
    // Positions of such games parse only as positions of any start.
    let nine = variant("nine");
    let text = "......../......../........ b 4 3";
    assert!(Position::parse(text, &nine).unwrap_err().to_string().contains("cannot happen"));
    let p = Position::parse_any_start(text, &nine).unwrap();
    assert_eq!(Sector::of(&p.state()).to_string(), "0-0-3-4");
    // Still refused: too many stones, or too few.
    assert!(Position::parse_any_start("......../......../........ w 10 3", &nine).is_err());
    assert!(Position::parse_any_start("......../......../........ w 2 9", &nine)
        .unwrap_err()
        .to_string()
        .contains("already over"));
}
