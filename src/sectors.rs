//! The sectors of a variant: which stone counts a game can reach.
//!
//! A [`Sector`] is seen from the side to move: stones of the mover and of
//! the opponent on the board, then in hand. Moving-phase sectors have
//! nothing in hand; placement sectors have at least one stone in a hand.

use crate::index::Sector;
use crate::variant::Variant;
use std::collections::HashSet;

/// Every moving-phase sector `M-O` with `M` and `O` from 3 to the number of
/// stones per side (fewer than 3 has lost), where both fit the board;
/// ordered by `M`, then `O`.
///
/// ```
/// use morris::{sectors::moving_sectors, Variant};
/// let nine = Variant::named("nine").unwrap();
/// let sectors = moving_sectors(&nine);
/// assert_eq!(sectors.len(), 49);
/// assert_eq!(sectors[0].to_string(), "3-3");
/// ```
pub fn moving_sectors(v: &Variant) -> Vec<Sector> {
    let points = v.board().points() as u32;
    let mut sectors = Vec::new();
    for m in 3..=v.stones() {
        for o in 3..=v.stones() {
            if (m + o) as u32 <= points {
                sectors.push(Sector::moving(m, o));
            }
        }
    }
    sectors
}

/// The placement sectors `M-O-MH-OH` (at least one stone in a hand) that a
/// game from the start can reach, in the order of play.
///
/// The rule, seen from the side to move, with `S` stones per side:
///
/// - Placement alternates and White places first, so White is to move with
///   equal hands and Black with one stone more in hand than White: the
///   mover holds as many stones as the opponent, or one more. (Lasker
///   Morris, where a turn may move instead of place, ties the hands to
///   nothing: any pair of hands except both empty.)
/// - Each side has `S - hand` stones placed; those not on the board were
///   captured, so on the board there are at most `S - hand`.
/// - Each side still has at least 3 stones on the board and in hand (with
///   fewer the game is over), and the stones fit the board.
/// - Without Lasker's moves, a stone is captured only by a placement that
///   closes a mill, one capture per placement, and the first mill needs a
///   side's third stone: a side that has placed `p` stones has captured at
///   most `p - 2` (none before its third).
///
/// These are necessary conditions: a sector that passes may still hold no
/// reachable position (the placement solver may later narrow the list).
pub fn placement_sectors(v: &Variant) -> Vec<Sector> {
    let s = v.stones();
    let mut sectors = Vec::new();
    for (mover_hand, opponent_hand) in hands_in_order(v) {
        for mover in 0..=s - mover_hand {
            for opponent in 0..=s - opponent_hand {
                let sector = Sector { mover, opponent, mover_hand, opponent_hand };
                if placement_reachable(v, &sector) {
                    sectors.push(sector);
                }
            }
        }
    }
    sectors
}

/// The placement sectors `M-O-MH-OH` that a game from any start can
/// reach, not only the standard one: every game that begins on an empty
/// board with White holding `a` stones and Black `b`, `3 <= a, b <= S`,
/// either side first (Malom's "extended" solution). The standard sectors
/// of [`placement_sectors`] that hold a position are among them.
///
/// Hands no longer alternate, and a side whose hand is empty while the
/// other still places slides (or flies) on its turns, so the set is found
/// as a closure over stone counts rather than by a formula: from every
/// start sector `0-0-a-b`, a sector `m-o-mh-oh` leads to
///
/// - with stones in hand (`mh > 0`), by a placement: `o-(m+1)-oh-(mh-1)`
///   when the board has an empty point, and with a capture
///   `(o-1)-(m+1)-oh-(mh-1)`;
/// - with an empty hand (`mh = 0`, `oh > 0`), by a slide or fly:
///   `o-m-oh-0`, and with a capture `(o-1)-m-oh-0`;
///
/// where a capture needs only a stone of the opponent's on the board and
/// must leave it at least 3 stones (fewer ends the game). How many stones
/// were placed since the start, which bounds the captures of a standard
/// game, is unknown for an arbitrary start, so captures are bounded by
/// nothing else: the set may hold a sector no game reaches, never miss one
/// a game reaches. The closure stops at the moving phase (both hands
/// empty), which nothing leads back from.
///
/// The rule allows a capture even before its side has three stones on the
/// board, as the sector graph of Malom does, so every sector of Malom's
/// graph is here too. In the order of play, as [`placement_sectors`]:
/// fuller hands first, and of as many stones in hand, a side to move with
/// an empty hand before the placing side its slide leads to; each sector
/// comes before the sectors it leads to. Lasker Morris, whose placement
/// sectors already take every
/// pair of hands, gets [`placement_sectors`].
///
/// ```
/// use morris::{sectors::{extended_placement_sectors, placement_sectors}, Sector, Variant};
/// let nine = Variant::named("nine").unwrap();
/// let extended = extended_placement_sectors(&nine);
/// // White 3 and Black 5 to place, White first: after three placements
/// // each White's hand is empty, White slides, Black places.
/// assert!(extended.contains(&"3-3-0-2".parse::<Sector>().unwrap()));
/// assert!(extended.contains(&"3-3-2-0".parse::<Sector>().unwrap()));
/// let standard = placement_sectors(&nine);
/// assert!(extended.len() > standard.len());
/// ```
pub fn extended_placement_sectors(v: &Variant) -> Vec<Sector> {
    if v.move_while_placing() {
        return placement_sectors(v);
    }
    let s = v.stones();
    let mut seen: HashSet<Sector> = HashSet::new();
    let mut queue: Vec<Sector> = Vec::new();
    for a in 3..=s {
        for b in 3..=s {
            let start = Sector { mover: 0, opponent: 0, mover_hand: a, opponent_hand: b };
            if seen.insert(start) {
                queue.push(start);
            }
        }
    }
    while let Some(sector) = queue.pop() {
        for next in count_successors(v, sector) {
            if !next.is_moving() && seen.insert(next) {
                queue.push(next);
            }
        }
    }
    let mut sectors: Vec<Sector> = seen.into_iter().collect();
    sectors.sort_by_key(|t| {
        let hands = t.mover_hand + t.opponent_hand;
        (std::cmp::Reverse(hands), t.mover_hand > 0, *t)
    });
    sectors
}

/// The sectors one move leads to from `sector`, by stone counts alone
/// (see [`extended_placement_sectors`]): those where the side to move has
/// at least 3 stones.
fn count_successors(v: &Variant, sector: Sector) -> Vec<Sector> {
    let Sector { mover, opponent, mover_hand, opponent_hand } = sector;
    let mut out = Vec::with_capacity(2);
    let after = |captured: u8| {
        if mover_hand > 0 {
            Sector {
                mover: opponent - captured,
                opponent: mover + 1,
                mover_hand: opponent_hand,
                opponent_hand: mover_hand - 1,
            }
        } else {
            Sector {
                mover: opponent - captured,
                opponent: mover,
                mover_hand: opponent_hand,
                opponent_hand: 0,
            }
        }
    };
    let room = mover_hand == 0 || ((mover + opponent) as usize) < v.board().points();
    if room {
        out.push(after(0));
        if opponent > 0 {
            out.push(after(1));
        }
    }
    out.retain(|t| t.mover + t.mover_hand >= 3);
    out
}

/// The pairs (mover's hand, opponent's hand) of the placement phase: for
/// alternating placement in the order they occur, (S, S), (S, S-1),
/// (S-1, S-1), ... (1, 0); for Lasker every pair but (0, 0), fuller hands
/// first.
fn hands_in_order(v: &Variant) -> Vec<(u8, u8)> {
    let s = v.stones();
    if v.move_while_placing() {
        let mut pairs: Vec<(u8, u8)> = (0..=s).flat_map(|m| (0..=s).map(move |o| (m, o))).collect();
        pairs.retain(|&p| p != (0, 0));
        pairs.sort_by_key(|&(m, o)| (std::cmp::Reverse(m + o), std::cmp::Reverse(m)));
        return pairs;
    }
    (0..2 * s)
        .map(|ply| {
            let hand = s - ply / 2;
            if ply % 2 == 0 {
                (hand, hand)
            } else {
                (hand, hand - 1)
            }
        })
        .collect()
}

/// Whether a placement sector passes the rule of [`placement_sectors`].
fn placement_reachable(v: &Variant, sector: &Sector) -> bool {
    let s = v.stones();
    let Sector { mover, opponent, mover_hand, opponent_hand } = *sector;
    let fits = (mover + opponent) as usize <= v.board().points();
    let placed = |hand: u8| s - hand;
    let alive = mover + mover_hand >= 3 && opponent + opponent_hand >= 3;
    let on_board_ok = mover <= placed(mover_hand) && opponent <= placed(opponent_hand);
    if !(fits && alive && on_board_ok) {
        return false;
    }
    if v.move_while_placing() {
        return true;
    }
    let max_captures = |placed: u8| placed.saturating_sub(2);
    let captured_by_mover = placed(opponent_hand) - opponent;
    let captured_by_opponent = placed(mover_hand) - mover;
    captured_by_mover <= max_captures(placed(mover_hand))
        && captured_by_opponent <= max_captures(placed(opponent_hand))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{Position, State};
    use crate::rules::{legal_moves, play};

    fn variant(name: &str) -> Variant {
        Variant::named(name).unwrap()
    }

    #[test]
    fn moving_sector_counts() {
        assert_eq!(moving_sectors(&variant("nine")).len(), 49);
        assert_eq!(moving_sectors(&variant("six")).len(), 16);
        // 12 + 12 stones still fit the 24 points.
        let twelve = moving_sectors(&variant("twelve"));
        assert_eq!(twelve.len(), 100);
        assert!(twelve.contains(&Sector::moving(12, 12)));
    }

    #[test]
    fn placement_starts_at_the_start_and_alternates() {
        let v = variant("nine");
        let sectors = placement_sectors(&v);
        let names: Vec<String> = sectors.iter().map(|s| s.to_string()).collect();
        assert_eq!(names[..3], ["0-0-9-9", "0-1-9-8", "1-1-8-8"]);
        assert!(names.contains(&"8-9-1-0".to_string()));
        for s in &sectors {
            assert!(!s.is_moving());
            assert!(s.mover_hand == s.opponent_hand || s.mover_hand == s.opponent_hand + 1, "{s}");
        }
    }

    #[test]
    fn captures_need_three_placed_stones() {
        let v = variant("nine");
        let sectors: HashSet<Sector> = placement_sectors(&v).into_iter().collect();
        // White to move after 3 placements each: Black lost one stone to White's third.
        assert!(sectors.contains(&"3-2-6-6".parse().unwrap()));
        // Black to move after White's third placement captured a Black stone.
        assert!(sectors.contains(&"1-3-7-6".parse().unwrap()));
        // After two placements each nobody can have captured.
        assert!(!sectors.contains(&"2-1-7-7".parse().unwrap()));
    }

    /// The closure by stone counts from the standard start alone is the
    /// sector graph of Malom (captures by counts), which has 95 placement
    /// sectors of nine with at most 10 stones: the extended sectors hold
    /// them all, and they hold the 50 of the standard rule.
    #[test]
    fn the_closure_from_the_standard_start_is_malom_graph() {
        let v = variant("nine");
        let start = Sector { mover: 0, opponent: 0, mover_hand: 9, opponent_hand: 9 };
        let mut seen: HashSet<Sector> = HashSet::from([start]);
        let mut queue = vec![start];
        while let Some(s) = queue.pop() {
            for t in count_successors(&v, s) {
                if !t.is_moving() && seen.insert(t) {
                    queue.push(t);
                }
            }
        }
        let small: HashSet<Sector> = seen.into_iter().filter(|s| s.total_stones() <= 10).collect();
        assert_eq!(small.len(), 95);
        let extended: HashSet<Sector> = extended_placement_sectors(&v).into_iter().collect();
        assert!(small.is_subset(&extended));
        let standard: Vec<Sector> =
            placement_sectors(&v).into_iter().filter(|s| s.total_stones() <= 10).collect();
        assert_eq!(standard.len(), 50);
        assert!(standard.iter().all(|s| small.contains(s)));
    }

    /// Plays random games through the placement phase: every state met
    /// lies in a listed sector.
    fn random_games_stay_in_listed_sectors(name: &str, games: usize) {
        let v = variant(name);
        let listed: HashSet<Sector> =
            placement_sectors(&v).into_iter().chain(moving_sectors(&v)).collect();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..games {
            let mut state: State = Position::start(&v).state();
            while !state.is_moving_phase() && state.mover_stones() >= 3 {
                assert!(
                    listed.contains(&Sector::of(&state)),
                    "{name}: {} not listed",
                    Sector::of(&state)
                );
                let moves = legal_moves(&v, &state);
                if moves.is_empty() {
                    break;
                }
                state = play(&state, moves[(next() % moves.len() as u64) as usize]);
            }
        }
    }

    #[test]
    fn random_placements_of_nine_six_and_twelve_are_listed() {
        random_games_stay_in_listed_sectors("nine", 3000);
        random_games_stay_in_listed_sectors("six", 3000);
        random_games_stay_in_listed_sectors("twelve", 3000);
    }

    #[test]
    fn random_lasker_games_are_listed() {
        random_games_stay_in_listed_sectors("lasker", 1000);
    }

    /// Every successor of a listed placement sector (a placement, with or
    /// without a capture) is listed too, unless it ends the game.
    #[test]
    fn placement_sectors_are_closed_under_placements() {
        for name in ["nine", "six", "twelve"] {
            let v = variant(name);
            let placement = placement_sectors(&v);
            let listed: HashSet<Sector> =
                placement.iter().copied().chain(moving_sectors(&v)).collect();
            for s in &placement {
                let placed = v.stones() - s.mover_hand + 1;
                let quiet = Sector {
                    mover: s.opponent,
                    opponent: s.mover + 1,
                    mover_hand: s.opponent_hand,
                    opponent_hand: s.mover_hand - 1,
                };
                let mut successors = vec![quiet];
                if placed >= 3 && s.opponent > 0 {
                    successors.push(Sector { mover: s.opponent - 1, ..quiet });
                }
                for next in successors {
                    let ends = next.mover + next.mover_hand < 3;
                    let full = (s.mover + s.opponent) as usize == v.board().points();
                    assert!(ends || full || listed.contains(&next), "{name}: {s} -> {next}");
                }
            }
        }
    }
}
