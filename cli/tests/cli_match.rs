//! `morris match`: the same output for the same seed on any number of
//! threads, one line per pairing with `--tsv`, and bad player specs,
//! start files and game counts refused in one line. The harness itself,
//! through the library, is in `arena.rs`.

mod common;

use common::{fails, morris, ok, scratch, text};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Six, solved once for the file.
fn db() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-match-six");
        let _ = std::fs::remove_dir_all(&dir);
        ok(&dir, &["--variant", "six", "solve", "--threads", "2"]);
        dir
    })
}

fn matched(args: &[&str]) -> String {
    let mut all = vec!["--variant", "six", "match"];
    all.extend_from_slice(args);
    ok(db(), &all)
}

#[test]
fn the_same_seed_gives_the_same_games_on_any_number_of_threads() {
    let args =
        ["--player", "perfect:balance:playon", "--opponent", "fallible:0.2", "--games", "40"];
    let one = matched(&[&args[..], &["--seed", "5", "--threads", "1"]].concat());
    let three = matched(&[&args[..], &["--seed", "5", "--threads", "3"]].concat());
    assert_eq!(one, three);
    assert!(
        one.contains("perfect:balance:playon against fallible:0.2, 40 games each colour"),
        "{one}"
    );
    assert!(one.contains("as White    40  "), "{one}");
    assert!(one.contains("total       80  "), "{one}");
    let other = matched(&[&args[..], &["--seed", "6", "--threads", "2"]].concat());
    assert_ne!(one, other, "another seed, other games");
    // The tables by block give the same games as the tables in memory.
    let blocks = matched(&[&args[..], &["--seed", "5", "--lookup", "tables"]].concat());
    assert_eq!(one, blocks);
}

#[test]
fn tsv_is_one_line_of_counts() {
    let line = matched(&["--opponent", "alphabeta:1", "--games", "10", "--tsv"]);
    let fields: Vec<&str> = line.trim_end().split('\t').collect();
    assert_eq!(fields.len(), 12, "{line}");
    assert_eq!(&fields[..2], ["perfect:balance:playon", "alphabeta:1"]);
    let n: Vec<u64> = fields[2..11].iter().map(|f| f.parse().unwrap()).collect();
    assert_eq!(n[0] + n[1] + n[2], 10);
    assert_eq!(n[3] + n[4] + n[5], 10);
    assert_eq!([n[6], n[7], n[8]], [n[0] + n[3], n[1] + n[4], n[2] + n[5]]);
    assert_eq!(n[2] + n[5], 0, "the perfect player never loses: {line}");
}

#[test]
fn bad_player_specs_are_refused_in_one_line() {
    for (spec, needle) in [
        (
            "perfect:best",
            "tie-break 'best': expected one of uniform, replies, share, traps2, balance",
        ),
        ("fallible:1.5", "error rate '1.5' is not a number from 0 to 1"),
        ("fallible:x", "error rate 'x' is not a number from 0 to 1"),
        ("alphabeta:0", "depth '0' is not a number from 1 to 8"),
        ("alphabeta:99", "depth '99' is not a number from 1 to 8"),
        ("human", "player 'human': expected perfect:RULE[:playon]"),
        ("perfect:replies:sometimes", "expected perfect:RULE[:playon]"),
    ] {
        for option in ["--player", "--opponent"] {
            let out = morris(db(), &["--variant", "six", "match", option, spec]);
            assert_eq!(out.status.code(), Some(2), "clap's usage error for {spec}");
            let err = text(&out.stderr);
            let first = err.lines().next().unwrap();
            assert!(first.contains(needle), "{spec}: {err}");
            assert!(first.contains(&format!("player '{spec}'")), "{spec}: {err}");
        }
    }
}

#[test]
fn bad_starts_and_counts_are_refused_in_one_line() {
    let dir = scratch();
    let file = dir.path().join("starts.txt");
    std::fs::write(&file, "# two starts\nstart\n\n......../.......x w 6 6\n").unwrap();
    let f = file.to_str().unwrap();
    let err = fails(db(), &["--variant", "six", "match", "--from", f]);
    assert!(err.contains("starts.txt line 4"), "{err}");
    std::fs::write(&file, "# nothing\n").unwrap();
    let err = fails(db(), &["--variant", "six", "match", "--from", f]);
    assert!(err.contains("no positions in the file"), "{err}");
    let err = fails(db(), &["--variant", "six", "match", "--from", "/no/such/file"]);
    assert!(err.contains("--from /no/such/file: cannot read"), "{err}");
    let err = fails(db(), &["--variant", "six", "match", "--games", "0"]);
    assert!(err.contains("--games 0"), "{err}");
    // A database without the tables: the missing sector, named.
    let err = fails(dir.path(), &["--variant", "six", "match"]);
    assert!(err.contains("morris"), "{err}");
    // Starts from a file, in turn.
    std::fs::write(&file, "start\nW......./......B. w 5 5\n").unwrap();
    let out = matched(&["--from", f, "--games", "4"]);
    assert!(out.contains("from 2 positions of"), "{out}");
}

#[test]
fn play_takes_a_tie_break_and_refuses_an_unknown_one_in_one_line() {
    let out = common::morris_with_input(
        db(),
        &["--variant", "six", "play", "--human", "black", "--tie-break", "replies"],
        "quit\n",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("White plays "));
    let out = morris(db(), &["--variant", "six", "play", "--tie-break", "best"]);
    assert_eq!(out.status.code(), Some(2), "clap's usage error");
    let err = text(&out.stderr);
    assert!(
        err.lines()
            .next()
            .unwrap()
            .contains("tie-break 'best': expected one of uniform, replies, share, traps2, balance"),
        "{err}"
    );
}
