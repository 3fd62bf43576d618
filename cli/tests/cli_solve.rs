//! `morris solve`, `stats` and `verify` as users run them: determinism
//! across thread counts, resumption after kill -9, small cases of several
//! variants solved and forward-checked, published figures, and corrupt
//! tables caught.

use morris::database::Database;
use morris::index::Sector;
use morris::stats::Counts;
use morris::table::write_table;
use morris::value::{Cell, Value};
use morris::variant::Variant;
use serde_json::Value as Json;
use std::fs;
use std::path::Path;
use std::process::{Child, Stdio};
use tempfile::TempDir;

mod common;
use common::{
    assert_same_tables, command, fails, fails_with_stdout, field, files, json, nine_up_to_8, ok,
    scratch, wait_for,
};

#[test]
fn tables_do_not_depend_on_the_thread_count() {
    let one = scratch();
    let out =
        ok(one.path(), &["solve", "--phase", "moving", "--max-stones", "8", "--threads", "1"]);
    assert!(out.contains("4 pairs, 4 to solve, 1 thread,"), "{out}");
    assert_same_tables(one.path(), nine_up_to_8());
}

/// Waits until `file` appears in `db` while `child` runs, then kills it
/// with SIGKILL (`Child::kill` on Unix).
fn kill_when_created(child: &mut Child, db: &Path, file: &str) {
    wait_for(child, db, file);
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn solve_killed_in_the_middle_of_a_pair_resumes_with_identical_tables() {
    let db = scratch();
    let solve = |db: &Path| {
        command(db, &["solve", "--phase", "moving", "--max-stones", "8", "--threads", "2"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };

    // Killed as soon as the second pair, {4,3}, is under way (its
    // dependency loaded: 3-3's table is there).
    let mut child = solve(db.path());
    kill_when_created(&mut child, db.path(), "nine-3-3.mtb");
    assert!(db.path().join("nine-3-3.mtb").exists());
    assert!(!db.path().join("nine-4-3.mtb").exists() && !db.path().join("nine-3-4.mtb").exists());

    // Resumed, and killed again in {5,3}, the last pair.
    let mut child = solve(db.path());
    kill_when_created(&mut child, db.path(), "nine-4-4.mtb");
    assert!(!db.path().join("nine-5-3.mtb").exists() && !db.path().join("nine-3-5.mtb").exists());

    // The third run starts from there and finishes.
    let out = ok(db.path(), &["solve", "--phase", "moving", "--max-stones", "8", "--threads", "2"]);
    assert!(out.contains("already solved: 3 pairs: {3,3} {4,3} {4,4}\n"), "{out}");
    assert!(out.contains("pair 4/4 {5,3}") && !out.contains("pair 3/4"), "{out}");
    assert!(out.contains("solved 1 pair, skipped 3 already solved"), "{out}");
    // No working file, no temporary file, and the tables of a run that
    // was never interrupted.
    assert_same_tables(db.path(), nine_up_to_8());
}

/// A pair checkpointed after every level (`--checkpoint-secs 0`), killed
/// with SIGKILL in the middle of `propagate` once a checkpoint exists:
/// a run with fewer stones keeps the checkpoint, the next run of the pair
/// goes on from it and ends with the tables of an undisturbed run.
#[test]
fn solve_killed_after_a_checkpoint_resumes_from_it_with_identical_tables() {
    let db = scratch();
    let args = [
        "solve",
        "--phase",
        "moving",
        "--max-stones",
        "8",
        "--threads",
        "2",
        "--checkpoint-secs",
        "0",
    ];
    let mut child =
        command(db.path(), &args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    kill_when_created(&mut child, db.path(), "nine-5-3.ckpt");
    assert!(!db.path().join("nine-5-3.mtb").exists() && !db.path().join("nine-3-5.ckpt").exists());

    let out = ok(db.path(), &["solve", "--phase", "moving", "--max-stones", "7"]);
    assert!(
        out.contains("kept nine-5-3.ckpt: the checkpoint of an interrupted run at depth "),
        "{out}"
    );
    assert!(db.path().join("nine-5-3.ckpt").exists());

    let out = ok(db.path(), &args);
    let resumed = out
        .lines()
        .find(|l| l.starts_with("pair {5,3}: resuming from its checkpoint at depth "))
        .expect(&out);
    let depth: u32 = resumed.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(depth >= 1, "{resumed}");
    assert!(out.contains("solved 1 pair, skipped 3 already solved"), "{out}");
    assert_same_tables(db.path(), nine_up_to_8());
    let out = ok(db.path(), &["verify", "--threads", "2"]);
    assert!(out.contains("every value agrees"), "{out}");
}

#[test]
fn solving_again_has_nothing_to_do() {
    let out = ok(nine_up_to_8(), &["solve", "--phase", "moving", "--max-stones", "8"]);
    assert_eq!(
        out,
        format!(
            "nine (flying at 3 stones): all 4 pairs up to 8 stones already solved in {}\n",
            nine_up_to_8().display()
        )
    );
    let out = ok(nine_up_to_8(), &["solve", "--phase", "moving", "--max-stones", "7"]);
    assert!(out.contains("all 2 pairs up to 7 stones already solved"), "{out}");
}

#[test]
fn verify_passes_on_nine_up_to_8_stones() {
    let out = ok(nine_up_to_8(), &["verify", "--threads", "2"]);
    for sector in ["3-3", "3-4", "3-5", "4-3", "4-4", "5-3"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{sector} ")))
            .unwrap_or_else(|| panic!("{sector}: {out}"));
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields[2..4], ["0", "agree"], "{line}");
    }
    assert!(out.contains("6 sectors, 10076799 states checked in"), "{out}");
    assert!(out.contains("every value agrees"), "{out}");
}

/// The object for `sector` in `stats`, the parsed `stats --json`.
fn stats_object<'a>(stats: &'a Json, sector: &str) -> &'a Json {
    let objects = stats.as_array().unwrap_or_else(|| panic!("not an array: {stats}"));
    objects
        .iter()
        .find(|o| field(o, "sector") == sector)
        .unwrap_or_else(|| panic!("no {sector} in {stats}"))
}

#[test]
fn stats_json_has_the_published_figures_of_nine_3_3() {
    let text = ok(nine_up_to_8(), &["stats", "--json"]);
    assert!(text.starts_with("[\n") && text.ends_with("]\n"), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains("\"sector\"")).count(), 6, "{text}");
    let stats = json(&text);
    assert_eq!(stats.as_array().map(Vec::len), Some(6), "one object per sector: {text}");
    let three = stats_object(&stats, "3-3");
    let number = |k: &str| field(three, k).as_f64().unwrap_or_else(|| panic!("{k}: {three}"));
    assert_eq!(number("states"), 169_626.0);
    assert_eq!((number("wins"), number("losses"), number("draws")), (140_621.0, 28_736.0, 269.0));
    assert_eq!((number("max_win"), number("max_loss")), (25.0, 26.0));
    let bytes = number("bytes");
    assert_eq!(bytes, fs::metadata(nine_up_to_8().join("nine-3-3.mtb")).unwrap().len() as f64);
    assert!((number("bits_per_state") - bytes * 8.0 / 169_626.0).abs() < 1e-3);
    // Every sector's values add up.
    for sector in ["3-4", "3-5", "4-3", "4-4", "5-3"] {
        let o = stats_object(&stats, sector);
        let n = |k: &str| field(o, k).as_u64().unwrap_or_else(|| panic!("{k}: {o}"));
        assert_eq!(n("wins") + n("losses") + n("draws"), n("states"), "{sector}");
    }
}

#[test]
fn stats_text_lists_the_sectors_and_notes_the_missing_ones() {
    let out = ok(nine_up_to_8(), &["stats"]);
    let three = out.lines().find(|l| l.starts_with("3-3 ")).unwrap();
    let fields: Vec<&str> = three.split_whitespace().collect();
    assert_eq!(fields[..7], ["3-3", "169626", "140621", "28736", "269", "25", "26"], "{three}");
    assert!(out.contains("\n6 sectors "), "{out}");
    assert!(out.contains("not in the database (43 of 49 sectors): 3-6 3-7"), "{out}");
}

#[test]
fn stats_and_verify_on_an_empty_database_fail() {
    let db = scratch();
    for command in ["stats", "verify"] {
        let err = fails(db.path(), &[command]);
        assert!(err.contains("no tables of nine") && err.contains("morris solve"), "{err}");
    }
}

/// Solves under `rules` (--variant, --fly-at) with the `solve` options
/// into a fresh directory, and checks it with `verify`, which must find
/// `sectors` sectors and no mismatch; returns the directory and the
/// report.
fn solve_and_verify(rules: &[&str], solve: &[&str], sectors: usize) -> (TempDir, String) {
    let db = scratch();
    ok(db.path(), &[&["solve", "--threads", "2"], rules, solve].concat());
    let out = ok(db.path(), &[&["verify", "--threads", "2"], rules].concat());
    assert!(
        out.contains(&format!("\n{sectors} sectors, ")) && out.contains("every value agrees"),
        "{out}"
    );
    (db, out)
}

#[test]
fn twelve_up_to_8_stones_solves_and_verifies() {
    let (_db, out) =
        solve_and_verify(&["--variant", "twelve"], &["--phase", "moving", "--max-stones", "8"], 6);
    assert!(out.starts_with("twelve (flying at 4 stones)"), "{out}");
}

/// The committed per-sector figures of the 24-point games' moving phases
/// (`data/VARIANT/moving.tsv`, printed by `stats --tsv` from the
/// databases solved for the README) agree with what a solve here gives
/// for their sectors up to 8 stones, and cover every moving sector once.
#[test]
fn committed_moving_figures_of_the_diagonal_board_games_agree_with_a_solve() {
    for (variant, stones) in [("twelve", 12), ("eleven", 11), ("morabaraba", 12)] {
        committed_moving_rows_agree_with_a_solve(variant, stones);
    }
}

/// The same for Lasker's moving phase (`data/lasker/moving.tsv`, from the
/// whole solve in /var/tmp/lasker, 2026-11-26).
#[test]
fn committed_moving_figures_of_lasker_agree_with_a_solve() {
    committed_moving_rows_agree_with_a_solve("lasker", 10);
}

fn committed_moving_rows_agree_with_a_solve(variant: &str, stones: usize) {
    let path = format!("{}/../data/{variant}/moving.tsv", env!("CARGO_MANIFEST_DIR"));
    let committed = fs::read_to_string(&path).unwrap();
    let (db, _) =
        solve_and_verify(&["--variant", variant], &["--phase", "moving", "--max-stones", "8"], 6);
    let ours = ok(db.path(), &["stats", "--tsv", "--variant", variant]);
    assert_eq!(
        committed.lines().next(),
        ours.lines().next(),
        "{path}: the same columns as stats --tsv"
    );
    let sides = stones - 2;
    assert_eq!(committed.lines().count(), 1 + sides * sides, "{path}: one row per moving sector");
    for row in ours.lines().skip(1) {
        assert!(committed.lines().any(|l| l == row), "{row} is not in {path}");
    }
}

#[test]
fn five_and_six_whole_games_solve_and_verify_with_the_published_start_value() {
    let placement = |v| morris::sectors::placement_sectors(&Variant::named(v).unwrap()).len();
    let (db, out) = solve_and_verify(&["--variant", "five"], &[], 9 + placement("five"));
    assert!(!out.contains("not in the database"), "{out}");
    assert!(out.contains("start position of five: Draw, as published: it matches"), "{out}");
    let again = ok(db.path(), &["solve", "--variant", "five"]);
    assert!(again.contains("all 6 pairs up to 10 stones already solved"), "{again}");
    assert!(
        again.contains(&format!(
            "all {} placement sectors up to 10 stones already solved",
            placement("five")
        )),
        "{again}"
    );
    let (_, out) = solve_and_verify(&["--variant", "six"], &[], 16 + placement("six"));
    assert!(out.contains("start position of six: Draw, as published: it matches"), "{out}");
}

#[test]
fn nine_without_flying_solves_and_verifies() {
    let (db, out) =
        solve_and_verify(&["--fly-at", "never"], &["--phase", "moving", "--max-stones", "7"], 3);
    assert!(out.starts_with("nine (no flying)"), "{out}");
    // The tables record their rules: without --fly-at they are refused.
    let err = fails(db.path(), &["stats"]);
    assert!(err.contains("nine-3-3.mtb") && err.contains("other rules"), "{err}");
}

#[test]
fn solve_refuses_to_overwrite_tables_of_other_rules() {
    let db = scratch();
    ok(db.path(), &["solve", "--phase", "moving", "--max-stones", "6"]);
    let before = files(db.path());
    let err =
        fails(db.path(), &["solve", "--phase", "moving", "--max-stones", "6", "--fly-at", "never"]);
    assert!(err.contains("refusing to overwrite") && err.contains("nine-3-3.mtb"), "{err}");
    assert_eq!(files(db.path()), before);
}

#[test]
fn verify_fails_on_a_flipped_byte() {
    let db = scratch();
    ok(db.path(), &["solve", "--phase", "moving", "--max-stones", "6"]);
    ok(db.path(), &["verify"]);
    let path = db.path().join("nine-3-3.mtb");
    let mut bytes = fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    fs::write(&path, bytes).unwrap();
    let (out, err) = fails_with_stdout(db.path(), &["verify"]);
    assert!(out.contains("3-3      error: ") && out.contains("nine-3-3.mtb"), "{out}");
    assert!(err.contains("verify: 1 of 1 sectors failed (3-3)"), "{err}");
}

/// A table whose checksums and counts are right but one value is wrong is
/// caught by the forward check.
#[test]
fn verify_fails_on_a_wrong_value() {
    let dir = scratch();
    ok(dir.path(), &["solve", "--phase", "moving", "--max-stones", "6"]);
    let db = Database::new(dir.path(), Variant::named("nine").unwrap());
    let sector = Sector::moving(3, 3);
    let mut cells = db.load_cells(sector).unwrap();
    let info = db.table(sector).unwrap().info().clone();
    // The first canonical slot: every state whose recomputed value the
    // change can affect comes later, so it is the first mismatch listed.
    let index = db.indexer().sector(sector);
    let victim = (0..index.slots()).find(|&slot| index.unrank(slot).is_some()).unwrap();
    let was = Value::from(Cell(cells[victim as usize]));
    let wrong = if was == Value::Draw { 2 } else { 0 }; // A win in 1, or a draw.
    cells[victim as usize] = wrong;
    let info =
        morris::table::TableInfo { counts: Counts::tally(&cells, info.counts.states), ..info };
    drop(db);
    write_table(&dir.path().join("nine-3-3.mtb"), &info, &cells).unwrap();

    let (out, err) = fails_with_stdout(dir.path(), &["verify"]);
    let line = out.lines().find(|l| l.starts_with("3-3 ")).unwrap();
    assert_ne!(line.split_whitespace().nth(2), Some("0"), "{out}");
    let example = format!("  slot {victim} (");
    let example = out.lines().find(|l| l.starts_with(&example)).unwrap_or_else(|| panic!("{out}"));
    assert!(
        example
            .ends_with(&format!("): stored {}, successors give {was}", Value::from(Cell(wrong)))),
        "{example}"
    );
    assert!(err.contains("verify: 1 of 1 sectors failed (3-3)"), "{err}");
}

#[test]
fn max_stones_below_the_smallest_pair_fails() {
    let db = scratch();
    let err = fails(db.path(), &["solve", "--max-stones", "5"]);
    assert!(err.contains("--max-stones 5") && err.contains("{3,3}"), "{err}");
}

#[test]
fn stats_tsv_matches_the_json_row_for_row() {
    let tsv = ok(nine_up_to_8(), &["stats", "--tsv"]);
    let stats = json(&ok(nine_up_to_8(), &["stats", "--json"]));
    let mut lines = tsv.lines();
    assert_eq!(lines.next(), Some("sector\tstates\twins\tlosses\tdraws\tmax_win\tmax_loss"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 6, "{tsv}");
    for row in rows {
        let fields: Vec<&str> = row.split('\t').collect();
        let o = stats_object(&stats, fields[0]);
        let keys = ["states", "wins", "losses", "draws", "max_win", "max_loss"];
        let expected: Vec<String> = keys
            .iter()
            .map(|k| match field(o, k) {
                Json::String(s) => s.clone(),
                value => value.to_string(),
            })
            .collect();
        assert_eq!(fields[1..], expected[..], "{row}");
    }
}

/// The committed per-sector figures of nine's moving phase agree with
/// what the tests' own solve gives for the sectors both have, and cover
/// every moving sector once.
#[test]
fn committed_moving_figures_of_nine_agree_with_a_solve() {
    let committed =
        fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/nine/moving.tsv"))
            .unwrap();
    let ours = ok(nine_up_to_8(), &["stats", "--tsv"]);
    let header = "sector\tstates\twins\tlosses\tdraws\tmax_win\tmax_loss";
    assert_eq!(committed.lines().next(), Some(header));
    assert_eq!(committed.lines().count(), 1 + 49, "one row per moving sector");
    for row in ours.lines().skip(1) {
        assert!(committed.lines().any(|l| l == row), "{row} is not in data/nine/moving.tsv");
    }
}

/// `data/nine-fly-never/moving.tsv`, nine without flying solved whole for
/// the results, agrees with a solve here of its sectors up to 8 stones
/// (verified), differs there from nine with flying (so the file cannot be
/// nine's under another name), and covers every moving sector once.
#[test]
fn committed_moving_figures_of_nine_without_flying_agree_with_a_solve() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/nine-fly-never/moving.tsv");
    let committed = fs::read_to_string(path).unwrap();
    let rules = ["--variant", "nine", "--fly-at", "never"];
    let (db, out) = solve_and_verify(&rules, &["--phase", "moving", "--max-stones", "8"], 6);
    assert!(out.starts_with("nine (no flying)"), "{out}");
    let ours = ok(db.path(), &[&["stats", "--tsv"], &rules[..]].concat());
    assert_eq!(committed.lines().next(), ours.lines().next(), "the same columns as stats --tsv");
    assert_eq!(committed.lines().count(), 1 + 49, "one row per moving sector");
    for row in ours.lines().skip(1) {
        assert!(committed.lines().any(|l| l == row), "{row} is not in {path}");
    }
    let flying = ok(nine_up_to_8(), &["stats", "--tsv"]);
    let three = |tsv: &str| tsv.lines().find(|l| l.starts_with("3-3\t")).unwrap().to_string();
    assert_ne!(three(&ours), three(&flying), "3-3 differs with and without flying");
}

/// `data/nine-fly-never/placement.tsv`, the placement phase of nine
/// without flying from its whole solve (docs/results.md), has exactly one
/// row for each placement sector that `morris sectors --phase all` lists,
/// and its rows up to 9 stones agree with a solve here; it differs from
/// nine's with flying (so the file is not nine's under another name).
#[test]
fn committed_placement_figures_of_nine_without_flying_agree_with_a_solve() {
    let committed = committed_placement_rows_agree_with_a_solve(
        &["--variant", "nine", "--fly-at", "never"],
        "nine-fly-never",
        9,
        30,
    );
    let flying =
        fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/nine/placement.tsv"))
            .unwrap();
    assert_ne!(committed, flying, "nine without flying is another game");
}

/// `data/morabaraba/placement.tsv`, Morabaraba's placement phase from its
/// whole solve (docs/results.md), the same way: one row per placement
/// sector, and its rows up to 8 stones (16 sectors, every table verified)
/// as a solve here gives them.
#[test]
fn committed_placement_figures_of_morabaraba_agree_with_a_solve() {
    committed_placement_rows_agree_with_a_solve(&["--variant", "morabaraba"], "morabaraba", 8, 16);
}

/// Solves the game of `rules` up to `stones` and verifies it, then holds
/// `data/DIR/placement.tsv` to it: the columns of `stats --tsv`, one row for
/// each placement sector of the whole game (`sectors --phase all`), and
/// the `compared` placement rows of the solve among them. Returns the file.
fn committed_placement_rows_agree_with_a_solve(
    rules: &[&str],
    dir: &str,
    stones: u32,
    compared: usize,
) -> String {
    let path = format!("{}/../data/{dir}/placement.tsv", env!("CARGO_MANIFEST_DIR"));
    let committed = fs::read_to_string(&path).unwrap();
    let stones = stones.to_string();
    let db = scratch();
    ok(db.path(), &[rules, &["solve", "--max-stones", &stones, "--threads", "2"]].concat());
    let out = ok(db.path(), &[rules, &["verify", "--threads", "2"]].concat());
    assert!(out.contains("every value agrees"), "{out}");
    let ours = ok(db.path(), &[rules, &["stats", "--tsv"]].concat());
    assert_eq!(committed.lines().next(), ours.lines().next(), "the same columns as stats --tsv");
    let is_placement = |sector: &str| sector.split('-').count() == 4;
    let listed = ok(db.path(), &[rules, &["sectors", "--phase", "all"]].concat());
    let mut listed: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|s| is_placement(s) && s.split('-').all(|n| n.parse::<u8>().is_ok()))
        .collect();
    let mut rows: Vec<&str> =
        committed.lines().skip(1).map(|l| l.split('\t').next().unwrap()).collect();
    listed.sort_unstable();
    rows.sort_unstable();
    assert_eq!(rows, listed, "{path}: one row per placement sector");
    let placement_rows: Vec<&str> =
        ours.lines().skip(1).filter(|l| is_placement(l.split('\t').next().unwrap())).collect();
    assert_eq!(placement_rows.len(), compared, "the placement sectors up to {stones} stones");
    for row in &placement_rows {
        assert!(committed.lines().any(|l| l == *row), "{row} is not in {path}");
    }
    committed
}

/// `data/nine/placement.tsv`, the figures of the whole placement phase of
/// nine as `morris stats --tsv` printed them from the database solved for
/// the README, agrees with what the tests' own solve gives for the
/// placement sectors up to 9 stones, and covers every placement sector
/// once.
#[test]
fn committed_placement_figures_of_nine_agree_with_a_solve() {
    let committed =
        fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/nine/placement.tsv"))
            .unwrap();
    let db = scratch();
    ok(db.path(), &["solve", "--max-stones", "9", "--threads", "2"]);
    let ours = ok(db.path(), &["stats", "--tsv"]);
    assert_eq!(committed.lines().next(), ours.lines().next(), "the same columns as stats --tsv");
    assert_eq!(committed.lines().count(), 1 + 305, "one row per placement sector");
    let placement_rows: Vec<&str> = ours
        .lines()
        .skip(1)
        .filter(|l| l.split('\t').next().unwrap().split('-').count() == 4)
        .collect();
    assert_eq!(placement_rows.len(), 30, "nine's placement sectors up to 9 stones");
    for row in placement_rows {
        assert!(committed.lines().any(|l| l == row), "{row} is not in data/nine/placement.tsv");
    }

    // verify by phase and stones: the placement tables alone, the moving
    // tables up to 6 stones alone, and none at all is an error.
    let out = ok(db.path(), &["verify", "--phase", "placement", "--threads", "2"]);
    assert!(out.contains("30 sectors, ") && out.contains("every value agrees"), "{out}");
    assert!(!out.lines().any(|l| l.starts_with("3-3 ")), "{out}");
    let out = ok(db.path(), &["verify", "--phase", "moving", "--max-stones", "6"]);
    assert!(out.contains("1 sectors, 169626 states checked"), "{out}");
    let err = fails(db.path(), &["verify", "--phase", "moving", "--max-stones", "5"]);
    assert!(err.contains("no table in") && err.lines().count() == 1, "{err}");
    // Slices by stones add up to the whole: 7 and 8 stones, then 9.
    let low =
        ok(db.path(), &["verify", "--phase", "moving", "--min-stones", "7", "--max-stones", "8"]);
    let high = ok(db.path(), &["verify", "--phase", "moving", "--min-stones", "9"]);
    let all = ok(db.path(), &["verify", "--phase", "moving", "--min-stones", "7"]);
    let sectors = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.split_whitespace().nth(2) == Some("0"))
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    let (mut low, high, mut all) = (sectors(&low), sectors(&high), sectors(&all));
    assert!(
        !low.is_empty() && !high.is_empty() && !low.contains(&"3-3".to_string()),
        "{low:?} {high:?}"
    );
    low.extend(high);
    low.sort();
    all.sort();
    assert_eq!(low, all);
}

/// Regression: `solve --variant lasker` with the placement phase panicked in
/// the placement solver ("6-2-0-1 is not a placement sector of the mover")
/// after solving the moving phase, and was then refused. Now it solves the
/// placement phase pair by pair, `verify` passes, and `query` answers
/// placement positions from the tables, with distances. Without the
/// placement tables a query says which table is missing, in one line.
#[test]
fn lasker_placement_solves_verifies_and_answers_from_the_tables() {
    let lasker = ["--variant", "lasker"];
    // 6 moving sectors and 123 placement sectors up to 8 stones.
    let (db, _) = solve_and_verify(&lasker, &["--max-stones", "8"], 6 + 123);
    // White (2 on the board, 1 in hand) closes a7-d7-g7 by placing g7 and
    // takes g4; Black keeps 3 stones and loses 10 plies later. Sliding
    // is a move here too (d7-... is among the moves). Every answer is
    // exact, from a table.
    let position = "WW.B..../B......./B....... w 1 1";
    let out = ok(db.path(), &[&lasker[..], &["query", position]].concat());
    assert!(out.contains("White wins in 11 plies") && out.contains("g7xg4  win in 11"), "{out}");
    assert!(out.contains("d7-"), "{out}");
    let json = ok(db.path(), &[&lasker[..], &["query", "--json", position]].concat());
    assert!(!json.contains("value_only"), "{json}");

    let empty = scratch();
    let err = fails(empty.path(), &[&lasker[..], &["query", position]].concat());
    assert!(err.contains("is not in the database") && err.lines().count() == 1, "{err}");
}

/// Lasker flies by the stones left in all (board and hand), as published;
/// `--fly-count board` is the other reading. Tables of one are refused
/// under the other in one line that names the option, and read with it;
/// the option is refused where it changes nothing.
#[test]
fn lasker_tables_of_one_flying_count_are_refused_under_the_other() {
    let board = ["--variant", "lasker", "--fly-count", "board"];
    let db = scratch();
    ok(db.path(), &[&board[..], &["solve", "--max-stones", "7", "--threads", "2"]].concat());
    let position = "WW.B..../B......./B....... w 1 1";
    let err = fails(db.path(), &["--variant", "lasker", "query", position]);
    assert!(err.contains("solved with --fly-count board") && err.lines().count() == 1, "{err}");
    let out = ok(db.path(), &[&board[..], &["query", position]].concat());
    assert!(out.contains("lasker (flying at 3 stones on the board and none in hand)"), "{out}");
    // Two stones on the board and one in hand slide here: d7-g7, not a7-e3.
    assert!(out.contains("d7-g7") && !out.contains("a7-e3"), "{out}");
    let out = ok(db.path(), &[&board[..], &["verify", "--threads", "2"]].concat());
    assert!(out.contains("every value agrees"), "{out}");

    for variant in ["nine", "morabaraba", "six"] {
        let err = fails(db.path(), &["--variant", variant, "--fly-count", "all", "stats"]);
        assert!(err.contains("--fly-count") && err.contains("lasker only"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let err = fails(db.path(), &["--variant", "lasker", "--fly-count", "hand", "stats"]);
    assert!(err.contains("invalid flying count 'hand'"), "{err}");
}

/// The committed per-sector figures of Lasker up to 10 stones, board and
/// hand, under the published flying rule (`data/lasker/placement-10.tsv`,
/// `stats --tsv` of the solve recorded in docs/results.md): every
/// placement sector up to 10 stones has one row, and the rows up to 8
/// stones agree with a fresh solve.
#[test]
fn committed_lasker_figures_up_to_10_stones_agree_with_a_solve() {
    let path = format!("{}/../data/lasker/placement-10.tsv", env!("CARGO_MANIFEST_DIR"));
    let committed = fs::read_to_string(&path).unwrap();
    let lasker = ["--variant", "lasker"];
    let db = scratch();
    ok(db.path(), &[&lasker[..], &["solve", "--max-stones", "8", "--threads", "2"]].concat());
    let ours = ok(db.path(), &[&lasker[..], &["stats", "--tsv"]].concat());
    assert_eq!(committed.lines().next(), ours.lines().next(), "{path}: the columns of stats --tsv");
    let sectors = ok(db.path(), &[&lasker[..], &["sectors", "--phase", "all"]].concat());
    let listed: Vec<&str> = sectors
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|s| {
            let n: Vec<u32> = s.split('-').filter_map(|x| x.parse().ok()).collect();
            n.len() == 4 && n.iter().sum::<u32>() <= 10
        })
        .collect();
    let rows: Vec<&str> =
        committed.lines().skip(1).map(|l| l.split('\t').next().unwrap()).collect();
    let mut sorted = (listed.clone(), rows.clone());
    sorted.0.sort();
    sorted.1.sort();
    assert_eq!(sorted.0, sorted.1, "{path}: one row per placement sector up to 10 stones");
    let mut compared = 0;
    for row in ours.lines().skip(1).filter(|r| r.split('-').count() == 4) {
        assert!(committed.lines().any(|l| l == row), "{row} is not in {path}");
        compared += 1;
    }
    assert_eq!(compared, 123, "the placement sectors up to 8 stones");
}

/// A distance changed in a Lasker placement table (its checksums and
/// header counts rewritten to agree) is caught by `verify`'s fast check
/// of Lasker's placement phase, at its slot, and in no moving sector.
#[test]
fn verify_fails_on_a_wrong_distance_in_a_lasker_placement_table() {
    let lasker = ["--variant", "lasker"];
    let dir = scratch();
    ok(dir.path(), &[&lasker[..], &["solve", "--max-stones", "7", "--threads", "2"]].concat());
    let db = Database::new(dir.path(), Variant::named("lasker").unwrap());
    let sector: Sector = "3-2-1-1".parse().unwrap();
    let mut cells = db.load_cells(sector).unwrap();
    let info = db.table(sector).unwrap().info().clone();
    // The first canonical decided state: a state whose value the change
    // can affect is a draw or comes later, so it is the first listed.
    let index = db.indexer().sector(sector);
    let victim = (0..index.slots())
        .find(|&slot| index.unrank(slot).is_some() && cells[slot as usize] != 0)
        .unwrap();
    let was = Value::from(Cell(cells[victim as usize]));
    cells[victim as usize] += 2; // The same side wins, two plies later.
    let info =
        morris::table::TableInfo { counts: Counts::tally(&cells, info.counts.states), ..info };
    let path = db.table_path(sector);
    drop(db);
    write_table(&path, &info, &cells).unwrap();

    let (out, err) = fails_with_stdout(dir.path(), &[&lasker[..], &["verify"]].concat());
    let line = out.lines().find(|l| l.starts_with("3-2-1-1 ")).unwrap();
    assert_ne!(line.split_whitespace().nth(2), Some("0"), "{out}");
    let example = format!("  slot {victim} (");
    let example = out.lines().find(|l| l.starts_with(&example)).unwrap_or_else(|| panic!("{out}"));
    let stored = Value::from(Cell(cells[victim as usize]));
    assert!(example.ends_with(&format!("): stored {stored}, successors give {was}")), "{example}");
    let failed = err.split_once("sectors failed (").unwrap_or_else(|| panic!("{err}")).1;
    let failed = failed.split_once(')').unwrap().0;
    // The damaged sector, and perhaps placement sectors whose moves lead
    // to it; no moving sector.
    assert!(failed.split(' ').any(|s| s == "3-2-1-1"), "{err}");
    assert!(failed.split(' ').all(|s| s.split('-').count() == 4), "{err}");
}
