//! `morris solve --extended` and positions of games from other starts as
//! users meet them: the solve, a second run that finds everything there,
//! `stats --json` and `verify` over the extended tables, and `query`
//! taking such a position from its table, from the search with
//! `--extended`, and refusing it otherwise in one line that says how to ask.

mod common;

use common::{assert_same_tables, fails, json, morris_with_input, ok, text};
use serde_json::Value as Json;
use std::path::Path;

/// Six's moving phase and extended placement sectors up to 8 stones.
fn extended_six(dir: &Path) -> String {
    ok(dir, &["--variant", "six", "solve", "--extended", "--max-stones", "8", "--threads", "2"])
}

#[test]
fn solve_extended_then_stats_verify_and_query() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    let out = extended_six(db);
    assert!(
        out.contains("extended placement phase up to 8 stones, 95 sectors, 95 to solve"),
        "{out}"
    );
    let again = extended_six(db);
    assert!(
        again.contains("all 95 extended placement sectors up to 8 stones already solved"),
        "{again}"
    );

    // stats --json lists every table, the extended ones among them.
    let stats = json(&ok(db, &["--variant", "six", "stats", "--json"]));
    let names: Vec<&str> = stats
        .as_array()
        .expect("a list of sectors")
        .iter()
        .map(|s| s["sector"].as_str().unwrap())
        .collect();
    for sector in ["0-0-3-5", "3-3-0-2", "3-3-2-0", "4-4"] {
        assert!(names.contains(&sector), "{sector} not in {names:?}");
    }
    // Six moving sectors (pairs {3,3} {4,3} {4,4} {5,3}) and 95 placement.
    assert_eq!(names.len(), 6 + 95, "{names:?}");

    let verified = ok(db, &["--variant", "six", "verify", "--threads", "2"]);
    assert!(verified.contains("every value agrees"), "{verified}");

    // White 3, Black 4 to place: from its table, with a distance.
    let q = json(&ok(db, &["--variant", "six", "query", "--json", "......../........ w 3 4"]));
    assert_eq!(q["sector"], Json::from("0-0-3-4"));
    assert_eq!(q["exact"], Json::from(true), "{q}");
    assert!(
        !q["moves"].as_array().unwrap().is_empty() && !q["line"].as_array().unwrap().is_empty()
    );

    // A game from there against the perfect player.
    let args = ["--variant", "six", "play", "--from", "......../........ w 3 4"];
    let played = morris_with_input(db, &args, "a5\nquit\n");
    assert!(played.status.success(), "{}", text(&played.stderr));
}

#[test]
fn positions_of_other_starts_are_refused_unless_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path();
    ok(db, &["--variant", "six", "solve", "--phase", "moving", "--max-stones", "9"]);
    let text = "......../........ w 5 4";
    let err = fails(db, &["--variant", "six", "query", text]);
    assert!(
        err.contains("cannot happen: players place in turn") && err.contains("add --extended"),
        "{err}"
    );
    // Asked for: the search answers over the moving phase, and a line
    // goes on where White's hand runs out and White slides.
    let q = json(&ok(db, &["--variant", "six", "query", "--extended", "--json", text]));
    assert_eq!(q["sector"], Json::from("0-0-5-4"));
    assert_eq!(q["exact"], Json::from(false), "{q}");
    assert_eq!(q["moves"].as_array().unwrap().len(), 16);
    let err = fails(db, &["--variant", "six", "play", "--from", text]);
    assert!(err.contains("add --extended"), "{err}");
    // Still refused with --extended: more stones than six has.
    let err = fails(db, &["--variant", "six", "query", "--extended", "......../........ w 7 4"]);
    assert!(err.contains("six allows 6"), "{err}");
}

/// Lasker's placement sectors already cover every pair of hands, so
/// `--extended` solves the same tables as a plain solve (in pairs).
#[test]
fn lasker_extended_is_the_plain_placement_solve() {
    let (plain, extended) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let solve = |db: &Path, more: &[&str]| {
        let mut args = vec!["--variant", "lasker", "solve", "--max-stones", "6", "--threads", "2"];
        args.extend_from_slice(more);
        ok(db, &args)
    };
    solve(plain.path(), &[]);
    solve(extended.path(), &["--extended"]);
    assert_same_tables(extended.path(), plain.path());
}

/// `data/nine/extended-10.tsv`, `morris stats --tsv` of nine's moving
/// phase and every extended placement sector up to 10 stones (solved and
/// verified for docs/results.md), agrees with what the tests' own solve
/// gives up to 8 stones, and has one row per table up to 10.
#[test]
fn committed_extended_figures_of_nine_agree_with_a_solve() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/nine/extended-10.tsv");
    let committed = std::fs::read_to_string(path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    ok(dir.path(), &["solve", "--extended", "--max-stones", "8", "--threads", "2"]);
    let ours = ok(dir.path(), &["stats", "--tsv"]);
    assert_eq!(committed.lines().next(), ours.lines().next(), "the same columns as stats --tsv");
    let extended =
        morris::sectors::extended_placement_sectors(&morris::Variant::named("nine").unwrap());
    let placement = extended.iter().filter(|s| s.total_stones() <= 10).count();
    assert_eq!(placement, 335);
    assert_eq!(committed.lines().count(), 1 + 15 + placement, "one row per table up to 10 stones");
    assert!(ours.lines().count() > 50, "{ours}");
    for row in ours.lines().skip(1) {
        assert!(committed.lines().any(|l| l == row), "{row} is not in {path}");
    }
    // data/nine/extended-starts.tsv (the 49 starts by the search over the
    // whole moving phase): its games of at most 8 stones agree with these
    // tables, value and first moves.
    let starts = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/nine/extended-starts.tsv");
    let starts = std::fs::read_to_string(starts).unwrap();
    assert_eq!(starts.lines().count(), 1 + 49, "one row per start, 3 to 9 stones each");
    let mut checked = 0;
    for row in starts.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let (a, b): (u32, u32) = (cols[0].parse().unwrap(), cols[1].parse().unwrap());
        if a + b > 8 {
            continue;
        }
        let position = format!("......../......../........ w {a} {b}");
        let q = json(&ok(dir.path(), &["query", "--json", &position]));
        assert_eq!(q["value"].as_str().unwrap(), cols[2], "{row}");
        for first in cols[3].split(' ') {
            let m = q["moves"].as_array().unwrap().iter().find(|m| m["move"] == first).unwrap();
            assert_eq!(m["value"].as_str().unwrap(), cols[2], "{row}: {first}");
        }
        checked += 1;
    }
    assert_eq!(checked, 6);
}
