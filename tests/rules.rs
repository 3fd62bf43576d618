//! The rules engine: un-moves against moves over whole sectors, move
//! counts from the start position against numbers computed independently
//! (perft), and the special rules on constructed positions.

use morris::rules::{for_each_move, for_each_quiet_unmove, legal_moves, play, status, Status};
use morris::{Flying, Indexer, Move, Position, Sector, State, Variant};
use rayon::prelude::*;

fn variant(name: &str) -> Variant {
    Variant::named(name).unwrap()
}

fn state(v: &Variant, text: &str) -> State {
    Position::parse(text, v).unwrap_or_else(|e| panic!("{e}")).state()
}

fn moves(v: &Variant, s: &State) -> Vec<String> {
    let mut list: Vec<String> = legal_moves(v, s).iter().map(|m| m.notation(v)).collect();
    list.sort();
    list
}

// ---------------------------------------------------------------------
// Un-moves against moves

/// Over every canonical position of a moving-phase sector (every
/// `stride`-th one if `stride > 1`): each quiet successor (a slide or fly
/// that removes nothing) lists the position among its predecessors
/// exactly once, and each predecessor has exactly one quiet move to the
/// position. Returns the number of quiet moves and of predecessors seen.
fn check_unmoves(v: &Variant, m: u8, o: u8, stride: usize) -> (u64, u64) {
    let ix = Indexer::new(v.board());
    let sector = ix.sector(Sector::moving(m, o));
    let mut states = Vec::new();
    sector.for_each_in(0..sector.slots(), |_, mover, opponent| {
        states.push(State { mover, opponent, mover_hand: 0, opponent_hand: 0 })
    });
    assert_eq!(states.len() as u64, sector.canonical_states());
    let states: Vec<State> = states.into_iter().step_by(stride).collect();
    states
        .par_iter()
        .map(|s| {
            let mut successors = 0;
            for_each_move(v, s, |mv| {
                if mv.remove.is_some() {
                    return;
                }
                successors += 1;
                let t = play(s, mv);
                let mut listed = 0;
                for_each_quiet_unmove(v, &t, |p| listed += (p == *s) as u32);
                assert_eq!(listed, 1, "{} {m}-{o}: {s:?} --{}--> {t:?}", v.name(), mv.notation(v));
            });
            let mut predecessors = Vec::new();
            for_each_quiet_unmove(v, s, |p| predecessors.push(p));
            for p in &predecessors {
                assert!(p.is_moving_phase());
                assert_eq!((p.mover.count_ones(), p.opponent.count_ones()), (o as u32, m as u32));
                let mut leading = 0;
                for_each_move(v, p, |mv| {
                    leading += (mv.remove.is_none() && play(p, mv) == *s) as u32
                });
                assert_eq!(leading, 1, "{} {m}-{o}: predecessor {p:?} of {s:?}", v.name());
            }
            let count = predecessors.len();
            predecessors.sort();
            predecessors.dedup();
            assert_eq!(
                predecessors.len(),
                count,
                "{} {m}-{o}: a predecessor listed twice for {s:?}",
                v.name()
            );
            (successors, count as u64)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

fn check_all(name: &str, cases: &[(Flying, u8, u8)]) {
    for &(flying, m, o) in cases {
        let v = variant(name).with_flying(flying);
        let (moves, unmoves) = check_unmoves(&v, m, o, 1);
        assert!(moves > 0 && unmoves > 0, "{name} {m}-{o} flying {flying}");
    }
}

// A sector m-o checks the un-moves of its own positions (the last mover
// had o stones) and of its successors (m stones): 4-3 covers 3-4 too.

#[test]
fn nine_unmoves_match_moves() {
    check_all("nine", &[(Flying::AtMost(3), 3, 3), (Flying::Never, 3, 3), (Flying::Never, 4, 3)]);
}

#[test]
fn six_unmoves_match_moves() {
    // Flying at 3 and at 4 mixes flying and sliding sides cheaply on the
    // small board; 6-6 is a crowded board.
    check_all(
        "six",
        &[
            (Flying::Never, 6, 6),
            (Flying::Never, 4, 4),
            (Flying::AtMost(3), 3, 4),
            (Flying::AtMost(4), 4, 4),
            (Flying::AtMost(4), 5, 4),
        ],
    );
}

#[test]
fn twelve_unmoves_match_moves() {
    // Sliding along the diagonals, over the whole sector.
    check_all("twelve", &[(Flying::Never, 4, 3)]);
    // Twelve's own rule, both sides flying with four and three stones:
    // every 32nd canonical position (the whole sector takes too long).
    let (moves, unmoves) = check_unmoves(&variant("twelve"), 4, 3, 32);
    assert!(moves > 1_000_000 && unmoves > 1_000_000, "{moves} {unmoves}");
}

// ---------------------------------------------------------------------
// Perft

/// Number of sequences of `depth` legal moves from `s` (a move closing a
/// mill counts once per stone it may remove).
fn perft(v: &Variant, s: &State, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => {
            let mut n = 0;
            for_each_move(v, s, |_| n += 1);
            n
        }
        _ => legal_moves(v, s).iter().map(|&m| perft(v, &play(s, m), depth - 1)).sum(),
    }
}

fn perft_parallel(v: &Variant, depth: u32) -> u64 {
    let start = Position::start(v).state();
    if depth <= 1 {
        return perft(v, &start, depth);
    }
    legal_moves(v, &start).par_iter().map(|&m| perft(v, &play(&start, m), depth - 1)).sum()
}

/// The rows of data/perft/perft.csv: variant, plies, sequences. The
/// numbers come from tools/perft.py, a separate implementation of
/// the rules (in Python, from the rules texts).
fn perft_table() -> Vec<(String, u32, u64)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/perft/perft.csv");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("variant,plies,sequences"));
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 3, "{path}: {line}");
            (f[0].to_string(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

#[test]
fn perft_matches_the_independent_counts() {
    let table = perft_table();
    for name in ["nine", "twelve", "six", "lasker"] {
        let rows: Vec<_> = table.iter().filter(|r| r.0 == name).collect();
        assert!(rows.len() >= 5, "{name}: {} plies in the table", rows.len());
        let v = variant(name);
        for (_, plies, expected) in rows {
            assert_eq!(perft_parallel(&v, *plies), *expected, "{name} perft({plies})");
        }
    }
}

#[test]
fn perft_agrees_with_hand_counts() {
    // Nobody can close a mill in the first four plies: falling factorials.
    let table = perft_table();
    let get = |name: &str, plies: u32| {
        table.iter().find(|r| r.0 == name && r.1 == plies).map(|r| r.2).unwrap()
    };
    for name in ["nine", "twelve", "lasker"] {
        assert_eq!(get(name, 1), 24);
        assert_eq!(get(name, 2), 24 * 23);
    }
    for name in ["nine", "twelve"] {
        assert_eq!(get(name, 3), 24 * 23 * 22);
        assert_eq!(get(name, 4), 24 * 23 * 22 * 21);
    }
    assert_eq!(
        (get("six", 1), get("six", 2), get("six", 3), get("six", 4)),
        (16, 240, 3360, 43680)
    );
    // Ply 5: White's third stone closes a mill when White's first two lie
    // on one mill (3 pairs per mill, 2 orders) and Black's two stones are
    // elsewhere than its third point; such a placement is two moves, one
    // per Black stone to remove.
    let closing = |mills: u64, points: u64| mills * 3 * 2 * (points - 3) * (points - 4);
    assert_eq!(get("nine", 5), 255_024 * 20 + closing(16, 24));
    assert_eq!(get("twelve", 5), 255_024 * 20 + closing(20, 24));
    assert_eq!(get("six", 5), 43_680 * 12 + closing(8, 16));
    // Lasker, ply 3: White places on one of 22 empty points or slides its
    // stone to an empty neighbour: 22 * 24 * 23 plus, over every stone
    // pair, White's free neighbours = 23 * 64 (the degrees sum to 2 * 32
    // lines) less the 64 ordered pairs where Black sits next to White.
    assert_eq!(get("lasker", 3), 22 * 24 * 23 + 23 * 64 - 64);
}

// ---------------------------------------------------------------------
// Lasker: moving while placing

#[test]
fn lasker_may_slide_with_stones_in_hand() {
    let lasker = variant("lasker");
    // At the start there is nothing to slide: 24 placements.
    let start = Position::start(&lasker).state();
    let first = legal_moves(&lasker, &start);
    assert_eq!(first.len(), 24);
    assert!(first.iter().all(|m| m.from.is_none()));
    // White a7 and Black g1, each with 9 in hand: White may place on 22
    // points or slide a7 to d7 or a4.
    let s = state(&lasker, "W...B.../......../........ w 9 9");
    let ms = legal_moves(&lasker, &s);
    let slides: Vec<String> =
        ms.iter().filter(|m| m.from.is_some()).map(|m| m.notation(&lasker)).collect();
    assert_eq!(ms.len(), 22 + 2);
    assert_eq!(slides.len(), 2);
    assert!(slides.contains(&"a7-d7".to_string()) && slides.contains(&"a7-a4".to_string()));
    // Nine, same stones: placements only.
    let nine = variant("nine");
    let s = state(&nine, "W...B.../......../........ w 8 8");
    assert!(legal_moves(&nine, &s).iter().all(|m| m.from.is_none()));
    // A Lasker slide that closes a mill removes a stone: White a7 a1 and
    // b4, which slides to a4 (as a placement on a4 would).
    let s = state(&lasker, "W...B.W./.......W/........ w 7 9");
    let closing: Vec<String> = legal_moves(&lasker, &s)
        .iter()
        .filter(|m| m.remove.is_some())
        .map(|m| m.notation(&lasker))
        .collect();
    assert_eq!(closing, vec!["a4xg1".to_string(), "b4-a4xg1".to_string()]);
}

// ---------------------------------------------------------------------
// Mills and removals

#[test]
fn stones_in_mills_are_removed_only_when_all_are() {
    let nine = variant("nine");
    // White d7 g7 a4 closes a7-d7-g7 with a4-a7 (the only move that closes
    // a mill). Black's e3 d3 c3 is a mill; d6 is not in one: only d6 may go.
    let s = state(&nine, ".WW....W/.B....../....BBB. w 0 0");
    let removals: Vec<String> = legal_moves(&nine, &s)
        .iter()
        .filter(|m| m.remove.is_some())
        .map(|m| m.notation(&nine))
        .collect();
    assert_eq!(removals, vec!["a4-a7xd6".to_string()]);
    // Every Black stone in a mill (c5 d5 e5 and e3 d3 c3): any may go.
    let s = state(&nine, ".WW....W/......../BBB.BBB. w 0 0");
    let removals: Vec<String> = legal_moves(&nine, &s)
        .iter()
        .filter(|m| m.remove.is_some())
        .map(|m| m.notation(&nine))
        .collect();
    assert_eq!(removals.len(), 6, "{removals:?}");
    assert!(
        removals.contains(&"a4-a7xc5".to_string()) && removals.contains(&"a4-a7xe3".to_string())
    );
}

#[test]
fn closing_two_mills_at_once_removes_one_stone() {
    let nine = variant("nine");
    // White d7 g7 and a4 a1: placing on a7 closes the top row and the left
    // column at once. Black's b6 f6 f2 d2 stand in no mill.
    let s = state(&nine, ".WW...WW/B.B.BB../........ w 5 5");
    let at_a7: Vec<Move> = legal_moves(&nine, &s).into_iter().filter(|m| m.to == 0).collect();
    assert_eq!(at_a7.len(), 4, "one move per Black stone: {at_a7:?}");
    for m in at_a7 {
        assert!(m.remove.is_some());
        let after = play(&s, m);
        // Black, now to move, lost exactly one stone.
        assert_eq!((after.mover.count_ones(), after.mover_hand), (3, 5));
        assert_eq!((after.opponent.count_ones(), after.opponent_hand), (5, 4));
    }
}

#[test]
fn a_move_that_closes_no_mill_removes_nothing() {
    let nine = variant("nine");
    // Breaking a mill and sliding along it closes nothing.
    let s = state(&nine, "WWW...../B.B.B.../........ w 0 0");
    for m in legal_moves(&nine, &s) {
        assert!(m.remove.is_none(), "{}", m.notation(&nine));
    }
}

// ---------------------------------------------------------------------
// The end of the game

#[test]
fn fewer_than_three_stones_lose() {
    let nine = variant("nine");
    let two = State { mover: 0b11, opponent: 0b111 << 8, mover_hand: 0, opponent_hand: 0 };
    assert_eq!(status(&nine, &two), Status::Lost);
    assert!(legal_moves(&nine, &two).is_empty());
    // Two on the board and one in hand make three: still playing.
    let three = State { mover_hand: 1, opponent_hand: 1, ..two };
    assert_eq!(status(&nine, &three), Status::Playing);
    // A capture against three stones ends the game.
    let s = state(&nine, "WW....../B.B.B.../....W... w 0 0");
    let m = Move::parse("e3-g7xb6", &nine).unwrap();
    assert!(legal_moves(&nine, &s).contains(&m));
    let after = play(&s, m);
    assert_eq!(status(&nine, &after), Status::Lost);
}

#[test]
fn no_legal_move_loses() {
    let nine = variant("nine");
    // White's corners boxed in by Black's midpoints; four stones do not fly.
    let s = state(&nine, "WBWBWBWB/......../........ w 0 0");
    assert!(legal_moves(&nine, &s).is_empty());
    assert_eq!(status(&nine, &s), Status::Lost);
    // Twelve's White moves: along the diagonals, and it flies with four.
    let s12 = state(&variant("twelve"), "WBWBWBWB/......../........ w 0 0");
    assert_eq!(status(&variant("twelve"), &s12), Status::Playing);
    // Six: the same box on the outer square.
    let six = variant("six");
    let s = state(&six, "WBWBWBWB/........ w 0 0");
    assert_eq!(status(&six, &s), Status::Lost);
}

#[test]
fn a_full_twelve_board_after_placement_is_a_draw() {
    let twelve = variant("twelve");
    // Black places its last stone on the last empty point, c4, and closes
    // no mill: the board is full and nobody can move.
    let before = state(&twelve, "WBWBWBWB/BWBWBWBW/WBWBWBW. b 0 1");
    assert_eq!(status(&twelve, &before), Status::Playing);
    assert_eq!(moves(&twelve, &before), vec!["c4".to_string()]);
    let after = play(&before, legal_moves(&twelve, &before)[0]);
    assert_eq!(after.mover | after.opponent, twelve.board().all());
    assert_eq!(status(&twelve, &after), Status::Drawn);
    // Nine's rules have no such draw: a side without a move loses.
    let nine = variant("nine");
    assert_eq!(status(&nine, &after), Status::Lost);
    // Morabaraba has the rule too.
    assert_eq!(status(&variant("morabaraba"), &after), Status::Drawn);
}
