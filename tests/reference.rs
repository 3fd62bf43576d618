//! The reference solver against published figures, and its values against
//! symmetry and a one-ply search.

use morris::reference::{solve_moving, ReferenceSolution};
use morris::rules::{for_each_move, play};
use morris::{Indexer, Sector, State, Value, Variant};
use std::time::Instant;

/// Wins, losses, draws, longest win and longest loss over the canonical
/// states of a sector.
fn canonical_counts(v: &Variant, sol: &ReferenceSolution, m: u8, o: u8) -> (u64, u64, u64, u16, u16) {
    let ix = Indexer::new(v.board());
    let sector = ix.sector(Sector::moving(m, o));
    let (mut w, mut l, mut d, mut mw, mut ml) = (0, 0, 0, 0, 0);
    sector.for_each_in(0..sector.slots(), |_, mover, opponent| {
        match sol.value(&State { mover, opponent, mover_hand: 0, opponent_hand: 0 }) {
            Value::Win(x) => {
                w += 1;
                mw = mw.max(x);
            }
            Value::Loss(x) => {
                l += 1;
                ml = ml.max(x);
            }
            Value::Draw => d += 1,
        }
    });
    (w, l, d, mw, ml)
}

#[test]
fn nine_3_3_matches_the_published_figures() {
    let v = Variant::named("nine").unwrap();
    let t = Instant::now();
    let sol = solve_moving(&v, &[(3, 3)]);
    eprintln!("solved in {:?}, {} iterations", t.elapsed(), sol.iterations());
    assert_eq!(canonical_counts(&v, &sol, 3, 3), (140_621, 28_736, 269, 25, 26));
}

#[test]
#[ignore]
fn nine_3_4_timing() {
    let v = Variant::named("nine").unwrap();
    let t = Instant::now();
    let sol = solve_moving(&v, &[(3, 3), (3, 4), (4, 3)]);
    eprintln!("solved in {:?}, {} iterations", t.elapsed(), sol.iterations());
    for (m, o) in [(3, 3), (3, 4), (4, 3)] {
        eprintln!("{m}-{o} raw {:?} canonical {:?}", sol.counts(m, o), canonical_counts(&v, &sol, m, o));
    }
}

#[test]
#[ignore]
fn six_timing() {
    for name in ["six", "five"] {
        for fly in [false, true] {
            let mut v = Variant::named(name).unwrap();
            if fly {
                v = v.with_flying(morris::Flying::AtMost(3));
            }
            let t = Instant::now();
            let sol = morris::reference::solve_moving_phase(&v);
            eprintln!("{name} fly={fly} solved in {:?}, {} iterations", t.elapsed(), sol.iterations());
            for (m, o) in sol.sectors() {
                eprintln!("{m}-{o} raw {:?}", sol.counts(m, o));
            }
        }
    }
}
