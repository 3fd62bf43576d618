//! The placement search on a smaller game of the same board: every stone
//! in hand, `K` a side, the moving phase solved up to `2K` stones.
//!
//! ```text
//! cargo run --release --example bench_search -- DB K [VARIANT]
//! ```
//!
//! `DB` must hold the moving phase of VARIANT (default nine) up to `2K`
//! stones (`morris solve --phase moving --max-stones 2K`). It prints the
//! outcome of the empty board with K stones a side, then what the search
//! did. Nine's board with 5 or 6 stones a side is a stand-in for the
//! start of nine while its moving phase is not solved: the same board,
//! the same ordering, 10 or 12 plies instead of 18. `TT_MIB` sets the
//! transposition table's size (default 1024).

use morris::database::Database;
use morris::search::{Search, SearchOptions};
use morris::{State, Variant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: bench_search DB K [VARIANT]");
        std::process::exit(2);
    }
    let k: u8 = args[1].parse().expect("K is a number of stones");
    let variant = Variant::named(args.get(2).map_or("nine", |s| s.as_str())).expect("a variant");
    let db = Database::new(&args[0], variant);
    // The table's pages are zeroed by the kernel on first touch, which
    // costs more than the search itself on these small games: 1 GiB is
    // the default, TT_MIB=16 shows the node rate of a warm table.
    let mib: usize = std::env::var("TT_MIB").ok().and_then(|s| s.parse().ok()).unwrap_or(1024);
    let mut search = Search::with_options(
        &db,
        SearchOptions { transposition_bytes: mib << 20, ..SearchOptions::default() },
    );
    let k2: u8 = args.get(3).map_or(k, |s| s.parse().expect("K2"));
    let start = State { mover: 0, opponent: 0, mover_hand: k, opponent_hand: k2 };
    let outcome = search.outcome(&start).expect("the moving phase is in the database");
    let s = search.stats();
    println!(
        "{} with {k} against {k2} stones in hand: {} ({} nodes, {} transpositions, {} remembered, {} leaf probes, {:.2} s of which {:.2} s copying tables, {:.2} M nodes/s)",
        db.variant().name(),
        outcome.kind(),
        s.nodes,
        s.transpositions,
        s.remembered,
        s.probes,
        s.elapsed.as_secs_f64(),
        s.loading.as_secs_f64(),
        s.nodes_per_second() / 1e6
    );
}
