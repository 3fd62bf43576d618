//! The `morris` binary as users and scripts run it: output, exit codes and
//! error messages.

use serde_json::Value as Json;
use std::io::Read;
use std::process::{Output, Stdio};

mod common;
use common::{command, empty_db, field, json, text};

// These commands need no database: each gets an empty one rather than
// the default `data/db`, which may hold tables.

fn morris(args: &[&str]) -> Output {
    common::morris(empty_db(), args)
}

fn ok(args: &[&str]) -> String {
    common::ok(empty_db(), args)
}

fn fails(args: &[&str]) -> String {
    common::fails(empty_db(), args)
}

/// (sector, slots, states) of each object of `sectors --json`, which
/// prints one object a line.
fn parse_sectors_json(text: &str) -> Vec<(String, u64, u64)> {
    let objects = json(text);
    let objects = objects.as_array().unwrap_or_else(|| panic!("not an array: {text}"));
    let lines = text.lines().filter(|l| l.trim_start().starts_with('{')).count();
    assert_eq!(lines, objects.len(), "one object a line: {text}");
    let number = |o: &Json, key| field(o, key).as_u64().unwrap_or_else(|| panic!("{key}: {o}"));
    objects
        .iter()
        .map(|o| {
            let sector = field(o, "sector").as_str().unwrap_or_else(|| panic!("sector: {o}"));
            (sector.to_string(), number(o, "slots"), number(o, "states"))
        })
        .collect()
}

#[test]
fn sectors_json_of_nine_has_the_published_counts() {
    let sectors = parse_sectors_json(&ok(&["sectors", "--json"]));
    assert_eq!(sectors.len(), 49);
    let three = sectors.iter().find(|s| s.0 == "3-3").expect("3-3 is listed");
    assert_eq!(three.2, 169_626);
    assert_eq!(sectors.iter().map(|s| s.2).sum::<u64>(), 8_904_593_601);
    assert!(sectors.iter().all(|s| s.1 >= s.2), "slots never fewer than states");
}

#[test]
fn sectors_json_of_six_lists_its_16_moving_sectors() {
    let sectors = parse_sectors_json(&ok(&["--variant", "six", "sectors", "--json"]));
    assert_eq!(sectors.len(), 16);
    assert!(sectors.iter().all(|s| s.2 > 0 && s.1 >= s.2));
    let names: Vec<&str> = sectors.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(names[..2], ["3-3", "3-4"]);
    assert_eq!(names[15], "6-6");
}

#[test]
fn sectors_with_placement_start_at_the_empty_board() {
    let sectors =
        parse_sectors_json(&ok(&["sectors", "--json", "--phase", "all", "--variant", "six"]));
    assert!(sectors.iter().any(|s| s == &("0-0-6-6".to_string(), 1, 1)));
}

#[test]
fn sectors_table_ends_with_the_total() {
    let table = ok(&["sectors"]);
    let last = table.lines().last().unwrap();
    assert!(
        last.starts_with("moving phase (49 sectors)") && last.contains(" 8904593601 "),
        "{last}"
    );
}

#[test]
fn variant_comes_from_the_environment_too() {
    let output =
        command(empty_db(), &["show", "start"]).env("MORRIS_VARIANT", "six").output().unwrap();
    let out = text(&output.stdout);
    assert!(out.contains("......../........ w 6 6"), "{out}");
}

#[test]
fn show_start() {
    let out = ok(&["show", "start"]);
    assert!(out.starts_with("7 o-----------o-----------o\n"), "{out}");
    for line in [
        "position   ......../......../........ w 9 9",
        "sector     0-0-9-9",
        "canonical  ......../......../........ w 9 9",
        "index      0 of 1 slots",
        "status     playing",
        "moves      24",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
}

#[test]
fn show_a_position_written_as_four_words() {
    let quoted = ok(&["show", "W......./......../.......B w 8 8"]);
    let words = ok(&["show", "W......./......../.......B", "w", "8", "8"]);
    assert_eq!(quoted, words);
    assert!(quoted.contains("sector     1-1-8-8"), "{quoted}");
}

#[test]
fn show_a_lost_position() {
    let out = ok(&["show", "WBWBWBWB/......../........ w 0 0"]);
    assert!(out.contains("status     lost: White has no legal move"), "{out}");
    assert!(out.contains("moves      0"), "{out}");
}

#[test]
fn show_with_a_bad_position_fails_on_one_line() {
    let err = fails(&["show", "......../......../........ w 9 8"]);
    assert!(err.contains("cannot happen"), "{err}");
    let err = fails(&["show", "not a position"]);
    assert!(err.contains("position 'not a position'"), "{err}");
}

#[test]
fn unknown_variant_fails_on_one_line() {
    let err = fails(&["--variant", "ten", "sectors"]);
    assert!(err.contains("unknown variant 'ten'"), "{err}");
}

#[test]
fn bad_fly_at_fails_on_one_line() {
    let err = fails(&["show", "start", "--fly-at", "two"]);
    assert!(err.contains("--fly-at") && err.contains("'two'"), "{err}");
}

#[test]
fn usage_errors_exit_with_2() {
    assert_eq!(morris(&["sectors", "--phase", "sometimes"]).status.code(), Some(2));
    assert_eq!(morris(&["no-such-command"]).status.code(), Some(2));
}

/// Regression guard for `morris ... | head`: a reader that goes away must
/// not make the binary panic on its next write.
#[test]
fn closed_stdout_pipe_exits_quietly() {
    for args in [&["sectors", "--phase", "all"][..], &["show", "start"][..]] {
        let mut child = command(empty_db(), args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // The reader goes away before the first write.
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}");
    }
}
