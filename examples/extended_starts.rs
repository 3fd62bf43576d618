//! The values of games that start with other numbers of stones to place:
//! White holds `a`, Black `b`, the board is empty and White moves first,
//! for every `a` and `b` in `LOW..=HIGH` (default 3..=9).
//!
//! ```text
//! cargo run --release --example extended_starts -- DB [LOW HIGH [VARIANT [FLY_AT]]]
//! ```
//!
//! `DB` must hold the variant's whole moving phase (or enough of it for
//! the games asked: `a + b` stones). Each game is answered by the
//! placement search over the tables (and any placement tables the
//! database holds), then each of White's first placements up to symmetry,
//! so the row names every first move that keeps the value. One search
//! (one transposition table) serves all games, smallest first, because
//! the larger games' subtrees pass through the smaller games' positions
//! (with other stone counts on the board, so they share less than all).
//! `TT_MIB` sets the transposition table's size (default 4096).
//!
//! It prints one tab-separated row per game: `a`, `b`, White's value, the
//! first moves that keep it (one per symmetry class, every one of them
//! shown), the number of symmetry classes of first moves, the nodes
//! searched and the seconds.

use morris::database::Database;
use morris::rules::play;
use morris::search::{Outcome, Search, SearchOptions};
use morris::variant::Flying;
use morris::{Sector, State, Variant};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        eprintln!("usage: extended_starts DB [LOW HIGH [VARIANT [FLY_AT]]]");
        std::process::exit(2);
    }
    let number =
        |i: usize, default: u8| args.get(i).map_or(default, |s| s.parse().expect("a number"));
    let (low, high) = (number(1, 3), number(2, 9));
    let mut variant =
        Variant::named(args.get(3).map_or("nine", |s| s.as_str())).expect("a variant");
    if let Some(fly) = args.get(4) {
        let flying = if fly == "never" {
            Flying::Never
        } else {
            Flying::AtMost(fly.parse().expect("FLY_AT"))
        };
        variant = variant.with_flying(flying);
    }
    let db = Database::new(&args[0], variant);
    let mib: usize = std::env::var("TT_MIB").ok().and_then(|s| s.parse().ok()).unwrap_or(4096);
    let mut search = Search::with_options(
        &db,
        SearchOptions { transposition_bytes: mib << 20, ..SearchOptions::default() },
    );
    println!("a\tb\tvalue\tkeeping\tclasses\tnodes\tseconds");
    let mut games: Vec<(u8, u8)> =
        (low..=high).flat_map(|a| (low..=high).map(move |b| (a, b))).collect();
    games.sort_by_key(|&(a, b)| (a + b, a));
    for (a, b) in games {
        let began = Instant::now();
        let nodes = search.stats().nodes;
        let start = State { mover: 0, opponent: 0, mover_hand: a, opponent_hand: b };
        let value = search.outcome(&start).expect("the moving phase is in the database");
        let mut classes = Vec::new();
        let mut keeping = Vec::new();
        for m in search.ordered_moves(&start) {
            let next = play(&start, m);
            let class = (
                Sector::of(&next),
                db.indexer().sector(Sector::of(&next)).rank(next.mover, next.opponent),
            );
            if classes.contains(&class) {
                continue;
            }
            classes.push(class);
            // The value after the move, for White: the reply's outcome, turned.
            let after: Outcome = search.outcome(&next).expect("tables").back();
            if after == value {
                keeping.push(m.notation(db.variant()));
            }
        }
        println!(
            "{a}\t{b}\t{}\t{}\t{}\t{}\t{:.1}",
            value.kind(),
            keeping.join(" "),
            classes.len(),
            search.stats().nodes - nodes,
            began.elapsed().as_secs_f64()
        );
    }
}
