//! The reference solver against published figures, hand-checked
//! positions, symmetry and a one-ply search.

use morris::reference::{solve_moving, solve_moving_phase, ReferenceSolution};
use morris::rules::{for_each_move, play};
use morris::{Indexer, Position, Sector, State, Value, Variant};
use rayon::prelude::*;
use std::sync::OnceLock;

fn nine() -> Variant {
    Variant::named("nine").unwrap()
}

/// Nine 3-3, solved once for the tests that read it.
fn nine_3_3() -> &'static ReferenceSolution {
    static SOLUTION: OnceLock<ReferenceSolution> = OnceLock::new();
    SOLUTION.get_or_init(|| solve_moving(&nine(), &[(3, 3)]))
}

/// The whole moving phase of five, solved once.
fn five() -> &'static (Variant, ReferenceSolution) {
    static SOLUTION: OnceLock<(Variant, ReferenceSolution)> = OnceLock::new();
    SOLUTION.get_or_init(|| {
        let v = Variant::named("five").unwrap();
        let solution = solve_moving_phase(&v);
        (v, solution)
    })
}

fn moving(mover: u32, opponent: u32) -> State {
    State { mover, opponent, mover_hand: 0, opponent_hand: 0 }
}

/// The value of a state from its successors' values in `sol`: the best
/// move by `Value::preference`, a loss in 0 without a move (a draw on a
/// full board where the variant says so).
fn one_ply(v: &Variant, sol: &ReferenceSolution, s: &State) -> Value {
    let mut best: Option<Value> = None;
    for_each_move(v, s, |m| {
        let value = sol.value(&play(s, m)).back();
        if best.is_none_or(|b| value.preference() > b.preference()) {
            best = Some(value);
        }
    });
    best.unwrap_or(if v.full_board_draw() && s.mover | s.opponent == v.board().all() {
        Value::Draw
    } else {
        Value::Loss(0)
    })
}

/// The canonical states of a sector (one per symmetry class).
fn canonical_states(v: &Variant, m: u8, o: u8) -> Vec<State> {
    let ix = Indexer::new(v.board());
    let sector = ix.sector(Sector::moving(m, o));
    let mut states = Vec::new();
    sector
        .for_each_in(0..sector.slots(), |_, mover, opponent| states.push(moving(mover, opponent)));
    states
}

/// Wins, losses, draws, longest win and longest loss over the canonical
/// states of a sector.
fn canonical_counts(
    v: &Variant,
    sol: &ReferenceSolution,
    m: u8,
    o: u8,
) -> (u64, u64, u64, u16, u16) {
    let (mut w, mut l, mut d, mut max_win, mut max_loss) = (0, 0, 0, 0, 0);
    for s in canonical_states(v, m, o) {
        match sol.value(&s) {
            Value::Win(x) => {
                w += 1;
                max_win = max_win.max(x);
            }
            Value::Loss(x) => {
                l += 1;
                max_loss = max_loss.max(x);
            }
            Value::Draw => d += 1,
        }
    }
    (w, l, d, max_win, max_loss)
}

/// Every state of the sector agrees with its image under a symmetry that
/// changes from one state to the next (so every symmetry is used many
/// times over a sector).
fn assert_symmetric(v: &Variant, sol: &ReferenceSolution, m: u8, o: u8) {
    let syms = Indexer::new(v.board());
    let syms = syms.symmetries();
    assert!(syms.len() > 1);
    let mut turn = 0;
    let mut checked = 0;
    sol.for_each_state(m, o, |s, value| {
        turn = (turn + 1) % syms.len();
        let image = moving(syms.apply(turn, s.mover), syms.apply(turn, s.opponent));
        assert_eq!(
            sol.value(&image),
            value,
            "{} {m}-{o}: {s:?} and its image under symmetry {turn}",
            v.name()
        );
        checked += 1;
    });
    assert!(checked > 0);
}

/// The value of every canonical state of the sector is what a one-ply
/// search over the solution gives.
fn assert_one_ply_consistent(v: &Variant, sol: &ReferenceSolution, m: u8, o: u8) {
    canonical_states(v, m, o).par_iter().for_each(|s| {
        assert_eq!(sol.value(s), one_ply(v, sol, s), "{} {m}-{o}: {s:?}", v.name());
    });
}

#[test]
fn nine_3_3_matches_the_published_figures() {
    let sol = nine_3_3();
    // Gasser's figures for the 3-3 database, over symmetry classes.
    assert_eq!(canonical_counts(&nine(), sol, 3, 3), (140_621, 28_736, 269, 25, 26));
    let raw = sol.counts(3, 3);
    assert_eq!(raw.wins + raw.losses + raw.draws, 2024 * 1330, "C(24,3) * C(21,3) raw states");
    assert_eq!((raw.max_win, raw.max_loss), (25, 26));
}

#[test]
fn nine_3_3_values_are_symmetric() {
    assert_symmetric(&nine(), nine_3_3(), 3, 3);
}

#[test]
fn nine_3_3_values_agree_with_a_one_ply_search() {
    assert_one_ply_consistent(&nine(), nine_3_3(), 3, 3);
}

#[test]
fn nine_3_3_hand_checked_positions() {
    let v = nine();
    let sol = nine_3_3();
    let state = |text: &str| Position::parse(text, &v).unwrap_or_else(|e| panic!("{e}")).state();
    // White a7 d7 and e3: e3 flies to g7, closes the top mill and leaves
    // Black two stones.
    assert_eq!(sol.value(&state("WW....../B.B.B.../....W... w 0 0")), Value::Win(1));
    // Black threatens two mills (a7-d7-g7 with a1 flying to g7, a7-a4-a1
    // with d7 flying to a4); White's c5 e3 f4 share no mill and can block
    // only one.
    assert_eq!(sol.value(&state("BB....B./...W..../W...W... w 0 0")), Value::Loss(2));
    // The same with Black to move: Black closes a mill at once.
    assert_eq!(sol.value(&state("BB....B./...W..../W...W... b 0 0")), Value::Win(1));
}

#[test]
fn five_moving_phase_is_consistent() {
    let (v, sol) = five();
    assert_eq!(sol.sectors().len(), 9);
    for (m, o) in sol.sectors() {
        assert_symmetric(v, sol, m, o);
        assert_one_ply_consistent(v, sol, m, o);
        let c = sol.counts(m, o);
        assert!(c.wins + c.losses > 0, "{m}-{o}: {c:?}");
    }
}

#[test]
fn five_hand_checked_positions() {
    let (v, sol) = five();
    let state = |text: &str| Position::parse(text, v).unwrap_or_else(|e| panic!("{e}")).state();
    // White's four corners are boxed in by Black's midpoints (four stones
    // do not fly): no move.
    assert_eq!(sol.value(&state("WBWBWBWB/........ w 0 0")), Value::Loss(0));
    // White slides e3-e5 and closes a5-c5-e5; Black's b4 c4 d4 all stand
    // in a mill, so any may go, and Black is left with two.
    assert_eq!(sol.value(&state("WW.W..../BBB..... w 0 0")), Value::Win(1));
}

#[test]
fn a_full_board_draws_only_where_the_variant_says_so() {
    // 12 stones each fill the 24 points: nobody can move.
    let twelve = Variant::named("twelve").unwrap();
    let c = solve_moving(&twelve, &[(12, 12)]).counts(12, 12);
    assert_eq!((c.wins, c.losses, c.draws), (0, 0, 2_704_156));
    let c = solve_moving(&nine(), &[(12, 12)]).counts(12, 12);
    assert_eq!((c.wins, c.losses, c.draws, c.max_loss), (0, 2_704_156, 0, 0));
}

#[test]
#[should_panic(expected = "leads to 3-3")]
fn sectors_must_be_closed_under_moves() {
    solve_moving(&nine(), &[(3, 4), (4, 3)]);
}
