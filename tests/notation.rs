//! Position and move notation: round trips of random valid positions and
//! moves, no panic on any input, and errors that say what is wrong.

use morris::rules::legal_moves;
use morris::variant::VARIANT_NAMES;
use morris::{Color, Move, Position, Variant};
use proptest::prelude::*;

/// A valid position of a variant, built from random numbers: hands that
/// respect the order of placement (White first, in turn; in Lasker any
/// hands), then 3 to the variant's count of stones per side, hand
/// included, placed on shuffled points.
fn build(v: &Variant, order: &[u8], seeds: [u8; 5], white_to_move: bool) -> Position {
    let k = v.stones() as u32;
    let pick = |seed: u8, lo: u32, hi: u32| lo + seed as u32 % (hi - lo + 1);
    let to_move = if white_to_move { Color::White } else { Color::Black };
    let (wh, bh) = if v.move_while_placing() {
        (pick(seeds[0], 0, k), pick(seeds[1], 0, k))
    } else if seeds[4].is_multiple_of(3) {
        (0, 0)
    } else {
        // White to move: both hold h; Black to move: White h, Black h + 1.
        let extra = (to_move == Color::Black) as u32;
        let h = pick(seeds[0], 0, k - extra);
        (h, h + extra)
    };
    let wb = pick(seeds[2], 3u32.saturating_sub(wh), k - wh);
    let bb = pick(seeds[3], 3u32.saturating_sub(bh), k - bh);
    let bits = |points: &[u8]| points.iter().fold(0, |acc, &p| acc | 1 << p);
    let white = bits(&order[..wb as usize]);
    let black = bits(&order[wb as usize..(wb + bb) as usize]);
    Position { white, black, white_hand: wh as u8, black_hand: bh as u8, to_move }
}

fn variant_and_position() -> impl Strategy<Value = (Variant, Position)> {
    (0..VARIANT_NAMES.len()).prop_flat_map(|i| {
        let v = Variant::named(VARIANT_NAMES[i]).unwrap();
        let n = v.board().points() as u8;
        (Just(v), Just((0..n).collect::<Vec<u8>>()).prop_shuffle(), any::<[u8; 5]>(), any::<bool>())
            .prop_map(|(v, order, seeds, white)| {
                let p = build(&v, &order, seeds, white);
                (v, p)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn positions_round_trip((v, p) in variant_and_position()) {
        prop_assert_eq!(p.check(&v), Ok(()), "the generator made an invalid position");
        let text = p.notation(&v);
        prop_assert_eq!(Position::parse(&text, &v), Ok(p), "{}", text);
        // Extra blanks between the fields change nothing.
        let spaced = format!("  {}  ", text.split(' ').collect::<Vec<_>>().join("\t "));
        prop_assert_eq!(Position::parse(&spaced, &v), Ok(p));
    }

    #[test]
    fn legal_moves_round_trip((v, p) in variant_and_position(), pick in any::<prop::sample::Index>()) {
        let moves = legal_moves(&v, &p.state());
        if !moves.is_empty() {
            let m = moves[pick.index(moves.len())];
            let text = m.notation(&v);
            prop_assert_eq!(Move::parse(&text, &v), Ok(m), "{}", text);
        }
    }

    #[test]
    fn any_move_round_trips(i in 0..VARIANT_NAMES.len(), from in any::<Option<u8>>(), to in any::<u8>(), remove in any::<Option<u8>>()) {
        let v = Variant::named(VARIANT_NAMES[i]).unwrap();
        let n = v.board().points() as u8;
        let m = Move { from: from.map(|p| p % n), to: to % n, remove: remove.map(|p| p % n) };
        prop_assert_eq!(Move::parse(&m.notation(&v), &v), Ok(m));
    }

    #[test]
    fn any_text_never_panics(i in 0..VARIANT_NAMES.len(), text in any::<String>()) {
        let v = Variant::named(VARIANT_NAMES[i]).unwrap();
        let _ = Position::parse(&text, &v);
        let _ = Move::parse(&text, &v);
    }

    #[test]
    fn near_misses_never_panic_and_explain(
        i in 0..VARIANT_NAMES.len(),
        board in "[WB.wbx/ ♔é0-9]{0,40}",
        side in "[wbWB-]{0,3}|[^ ]{0,4}",
        hands in prop::collection::vec("[0-9]{1,25}|-[0-9]{1,3}|[^ ]{0,3}", 0..4),
    ) {
        let v = Variant::named(VARIANT_NAMES[i]).unwrap();
        let text = format!("{board} {side} {}", hands.join(" "));
        if let Err(e) = Position::parse(&text, &v) {
            let message = e.to_string();
            prop_assert!(message.starts_with("position '"), "{}", message);
            // Something after the quoted input says what is wrong.
            let reason = &message[format!("position '{text}': ").len()..];
            prop_assert!(reason.len() > 5, "{}", message);
        }
    }

    #[test]
    fn mutated_notation_never_panics((v, p) in variant_and_position(), edits in prop::collection::vec((any::<prop::sample::Index>(), any::<char>(), 0..3u8), 1..4)) {
        let mut chars: Vec<char> = p.notation(&v).chars().collect();
        for (at, c, op) in edits {
            let i = at.index(chars.len() + 1);
            match op {
                0 => chars.insert(i, c),
                1 if i < chars.len() => { chars.remove(i); }
                _ if i < chars.len() => chars[i] = c,
                _ => chars.push(c),
            }
        }
        let text: String = chars.into_iter().collect();
        match Position::parse(&text, &v) {
            Ok(q) => prop_assert_eq!(q.check(&v), Ok(())),
            Err(e) => prop_assert!(e.to_string().contains(&text)),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn long_inputs_never_panic(i in 0..VARIANT_NAMES.len(), unit in "[WB./ wb0-9x-]{1,8}", times in 1..10_000usize) {
        let v = Variant::named(VARIANT_NAMES[i]).unwrap();
        let text = unit.repeat(times);
        prop_assert!(Position::parse(&text, &v).is_err() || text.len() < 100);
        let _ = Move::parse(&text, &v);
    }
}

#[test]
fn errors_name_the_problem() {
    let nine = Variant::named("nine").unwrap();
    let six = Variant::named("six").unwrap();
    let lasker = Variant::named("lasker").unwrap();
    for (v, text, needle) in [
        (&nine, "", "expected 4 fields"),
        (&nine, "......../......../........ w 9", "found 3"),
        (&nine, "......../......../........ w 9 9 9", "found 5"),
        (&nine, "......../........ w 9 9", "expected 3 rings"),
        (&six, "......../......../........ w 6 6", "expected 2 rings"),
        (&nine, "......../......../......... w 9 9", "ring 3 has 9 points"),
        (&nine, "......../......../...é... w 9 9", "ring 3 has 7 points"),
        (&nine, "......../......../....é... w 9 9", "'é' is not a point"),
        (&nine, "......../......../........ B 9 9", "side to move 'B'"),
        (
            &nine,
            "......../......../........ w 300 9",
            "White stones in hand '300' is more than nine allows",
        ),
        (&nine, "......../......../........ w 9 99999999999999999999999", "Black stones in hand"),
        (&nine, "......../......../........ w -1 9", "'-1' is not a number"),
        (&nine, "......../......../........ w 9 nine", "'nine' is not a number"),
        (&nine, "......../......../........ w 10 10", "White has 10 stones"),
        (&nine, "WWWWWWWW/WW....../........ w 0 0", "White has 10 stones"),
        (&nine, "WWW...../BB....../........ w 0 0", "Black has 2 stones: the game is already over"),
        (
            &nine,
            "......../......../........ b 9 9",
            "Black to move with White holding 9 and Black 9 cannot happen",
        ),
        (&nine, "W......./......../........ w 8 9", "cannot happen"),
        (&lasker, "......../......../........ w 11 10", "lasker allows 10"),
    ] {
        let err = Position::parse(text, v).expect_err(text).to_string();
        assert!(err.contains(needle), "{text}: {err}");
        assert!(err.contains(&format!("'{text}'")), "the message quotes the input: {err}");
    }
    // Lasker has no order of placement to respect.
    assert!(Position::parse("W......./......../........ w 5 10", &lasker).is_ok());
    for (text, needle) in [
        ("z9", "'z9' is not a point of the nine board"),
        ("a7-", "'' is not a point"),
        ("a7-d7xq", "'q' is not a point"),
        ("", "'' is not a point"),
        ("a7-d7-g7", "'d7-g7' is not a point"),
    ] {
        let err = Move::parse(text, &nine).expect_err(text).to_string();
        assert!(err.contains(needle), "{text}: {err}");
    }
    // A six point name that nine does not have, and the other way round.
    assert!(Move::parse("b4", &six).is_ok());
    assert!(Move::parse("g7", &six).is_err());
}
