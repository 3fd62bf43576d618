//! `morris probe` as programs run it: many positions in, one answer per
//! line out, in input order; the bulk values against `Query` one by one;
//! bad lines answered by error objects with `morris query`'s message while
//! the run goes on; the placement search, or its refusal with
//! `--no-search`; TSV; the input from a file.
//!
//! The databases are six's, solved once for the file through the binary:
//! the whole game (3.1 million positions, about 2 s), and its moving
//! phase alone (so that placement positions need the search).

mod common;

use common::{field, json, morris_with_input, scratch, text};
use morris::database::Database;
use morris::position::Position;
use morris::query::{after, Exactness, Query};
use morris::rng::Rng;
use morris::rules::legal_moves;
use morris::value::Value;
use morris::variant::Variant;
use serde_json::Value as Json;
use std::collections::HashSet;
use std::path::Path;
use std::process::Output;
use std::sync::OnceLock;
use tempfile::TempDir;

fn six() -> Variant {
    Variant::named("six").unwrap()
}

/// Six solved through the binary, once per file: the whole game, or
/// (`moving_only`) its moving phase.
fn six_db(moving_only: bool) -> &'static Path {
    static WHOLE: OnceLock<TempDir> = OnceLock::new();
    static MOVING: OnceLock<TempDir> = OnceLock::new();
    let cell = if moving_only { &MOVING } else { &WHOLE };
    cell.get_or_init(|| {
        let dir = scratch();
        let mut args = vec!["--variant", "six", "solve", "--threads", "2"];
        if moving_only {
            args.extend(["--phase", "moving"]);
        }
        common::ok(dir.path(), &args);
        dir
    })
    .path()
}

fn probe(db: &Path, args: &[&str], input: &str) -> Output {
    morris_with_input(db, &[&["--variant", "six", "probe"], args].concat(), input)
}

/// Positions of six from random games played from the start, placement
/// and moving phase, each once.
fn positions(games: usize) -> Vec<Position> {
    let v = six();
    let mut rng = Rng::new(2929);
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for _ in 0..games {
        let mut p = Position::start(&v);
        for _ in 0..80 {
            // A side with fewer than 3 stones has no notation: the game
            // is over.
            if Position::parse(&p.notation(&v), &v).is_err() {
                break;
            }
            if seen.insert(p) {
                found.push(p);
            }
            let moves = legal_moves(&v, &p.state());
            if moves.is_empty() {
                break;
            }
            p = after(&p, moves[(rng.next_u64() % moves.len() as u64) as usize]);
        }
    }
    found
}

fn lines(output: &Output) -> Vec<Json> {
    text(&output.stdout).lines().map(json).collect()
}

fn plies(value: Value, exactness: Exactness) -> Json {
    match (exactness, value.plies()) {
        (Exactness::Exact, Some(d)) => Json::from(d),
        _ => Json::Null,
    }
}

#[test]
fn bulk_values_and_moves_equal_queries_one_by_one() {
    let db_dir = six_db(false);
    let positions = positions(60);
    assert!(positions.len() > 1000, "{} positions", positions.len());
    let v = six();
    let input: String = positions.iter().map(|p| p.notation(&v) + "\n").collect();
    let output = probe(db_dir, &["--moves"], &input);
    let errors: Vec<&str> = std::str::from_utf8(&output.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"error\""))
        .take(3)
        .collect();
    assert!(output.status.success(), "{}{errors:?}", text(&output.stderr));
    let answers = lines(&output);
    assert_eq!(answers.len(), positions.len());

    let db = Database::new(db_dir, v.clone());
    let query = Query::new(&db);
    let mut placement = 0;
    for (p, answer) in positions.iter().zip(&answers) {
        let (value, exactness) = query.value(p).unwrap();
        assert_eq!(field(answer, "position"), &Json::from(p.notation(&v)), "{answer}");
        assert_eq!(field(answer, "value"), &Json::from(value.kind()), "{answer}");
        assert_eq!(field(answer, "plies"), &plies(value, exactness), "{answer}");
        assert_eq!(field(answer, "exact"), &Json::from(true), "{answer}");
        let moves = query.moves(p).unwrap();
        let listed = answer.get("moves").and_then(Json::as_array).cloned().unwrap_or_default();
        assert_eq!(listed.len(), moves.len(), "{answer}");
        for (m, listed) in moves.iter().zip(&listed) {
            assert_eq!(field(listed, "move"), &Json::from(m.mv.notation(&v)), "{answer}");
            assert_eq!(field(listed, "value"), &Json::from(m.value.kind()), "{answer}");
            assert_eq!(field(listed, "plies"), &plies(m.value, m.exactness), "{answer}");
        }
        placement += usize::from(!p.state().is_moving_phase());
    }
    assert!(placement > 100, "{placement} placement positions");

    // Values alone: the same values, on one thread as on two.
    let one = probe(db_dir, &["--threads", "1"], &input);
    let two = probe(db_dir, &["--threads", "2"], &input);
    assert!(one.status.success() && two.status.success());
    assert_eq!(one.stdout, two.stdout);
    for (answer, with_moves) in lines(&one).iter().zip(&answers) {
        for key in ["position", "value", "plies", "exact"] {
            assert_eq!(field(answer, key), field(with_moves, key));
        }
        assert!(answer.get("moves").is_none(), "{answer}");
    }

    // The same as `morris query --json` says, for a few.
    for p in positions.iter().step_by(150) {
        let queried =
            json(&common::ok(db_dir, &["--variant", "six", "query", &p.notation(&v), "--json"]));
        let answer = &answers[positions.iter().position(|q| q == p).unwrap()];
        for key in ["position", "value", "plies", "exact"] {
            assert_eq!(field(answer, key), field(&queried, key), "{p:?}");
        }
    }
}

#[test]
fn a_bad_line_gets_the_query_error_and_the_run_goes_on() {
    let db = six_db(false);
    let bad = [
        "bogus",
        "WWW..B../....B.B./........ w 0 0",
        "WW....B./W....... w 9 0",
        "WWW...../BBB..... x 0 0",
    ];
    let good = "WWW...../BBB..... w 0 0";
    let mut input = String::from("start\n\n");
    for b in bad {
        input.push_str(b);
        input.push('\n');
        input.push_str(good);
        input.push('\n');
    }
    let output = probe(db, &[], &input);
    assert_eq!(output.status.code(), Some(1));
    let err = text(&output.stderr);
    assert_eq!(
        err,
        "morris: error: 4 of 9 positions could not be answered (their lines in the output say why)\n"
    );
    let answers = lines(&output);
    assert_eq!(answers.len(), 9, "a blank line gets no answer");
    assert_eq!(field(&answers[0], "value"), &Json::from("draw"));
    for (k, b) in bad.iter().enumerate() {
        let error = &answers[1 + 2 * k];
        // The line number counts the blank line too.
        assert_eq!(field(error, "line"), &Json::from(3 + 2 * k), "{error}");
        assert_eq!(field(error, "input"), &Json::from(*b), "{error}");
        let cli = common::fails(db, &["--variant", "six", "query", b]);
        let message = cli.trim_end().strip_prefix("morris: error: ").unwrap();
        assert_eq!(field(error, "error"), &Json::from(message), "{error}");
        assert!(error.get("value").is_none(), "{error}");
        assert_eq!(field(&answers[2 + 2 * k], "position"), &Json::from(good));
    }
}

/// Regression: a line that is not UTF-8 stopped the whole run ("stream did
/// not contain valid UTF-8"); now it gets its own error, with its line
/// number, and the lines around it are answered, in JSON and in TSV.
#[test]
fn a_line_that_is_not_utf8_gets_its_own_error_and_the_run_goes_on() {
    let db = six_db(false);
    let dir = scratch();
    let path = dir.path().join("input.txt");
    std::fs::write(&path, b"start\n\xff\xfe\nstart\n").unwrap();
    let input = ["--input", path.to_str().unwrap()];
    let output = probe(db, &input, "");
    assert_eq!(output.status.code(), Some(1));
    let answers = lines(&output);
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(field(&answers[0], "value"), &Json::from("draw"));
    assert_eq!(field(&answers[1], "line"), &Json::from(2));
    assert_eq!(field(&answers[1], "error"), &Json::from("the line is not UTF-8 text"));
    assert_eq!(field(&answers[1], "input"), &Json::from("\u{fffd}\u{fffd}"));
    assert_eq!(field(&answers[2], "value"), &Json::from("draw"));
    let output = probe(db, &[&input[..], &["--format", "tsv"]].concat(), "");
    let rows: Vec<String> = text(&output.stdout).lines().map(String::from).collect();
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(rows[2].ends_with("\terror\t\t\tline 2: the line is not UTF-8 text"), "{rows:?}");
    assert!(rows[3].ends_with("\tdraw\t\ttrue"), "{rows:?}");
}

#[test]
fn placement_positions_without_tables_are_searched_or_refused() {
    let db = six_db(true);
    let start = Position::start(&six()).notation(&six());
    let input = format!("{start}\nstart\nWWW...../BBB..... w 0 0\n");
    let output = probe(db, &[], &input);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let answers = lines(&output);
    for answer in &answers[..2] {
        assert_eq!(field(answer, "position"), &Json::from(start.as_str()));
        // Six is a draw; the search proves it without a distance.
        assert_eq!(field(answer, "value"), &Json::from("draw"));
        assert_eq!(field(answer, "plies"), &Json::Null);
        assert_eq!(field(answer, "exact"), &Json::from(false));
    }
    assert_eq!(field(&answers[2], "exact"), &Json::from(true));

    let output = probe(db, &["--no-search"], &input);
    assert_eq!(output.status.code(), Some(1));
    let answers = lines(&output);
    for answer in &answers[..2] {
        let error = field(answer, "error").as_str().unwrap();
        assert!(
            error.contains("sector 0-0-6-6 of six is not in the database")
                && error.contains("morris solve --variant six")
                && error
                    .ends_with("the placement search would answer it, but it is off (--no-search)"),
            "{error}"
        );
    }
    assert_eq!(field(&answers[2], "exact"), &Json::from(true));
}

#[test]
fn tsv_has_a_header_and_a_row_per_line() {
    let db = six_db(false);
    let output =
        probe(db, &["--format", "tsv", "--moves"], "start\nbogus\nWWW...../BBB..... w 0 0\n");
    assert_eq!(output.status.code(), Some(1));
    let out = text(&output.stdout);
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows[0], ["position", "value", "plies", "exact", "moves"]);
    assert_eq!(rows.len(), 4, "{out}");
    assert_eq!(&rows[1][..4], ["......../........ w 6 6", "draw", "", "true"]);
    assert_eq!(rows[1][4].split(' ').count(), 16, "{out}");
    assert!(rows[1][4].split(' ').all(|m| m.ends_with(":draw")), "{out}");
    assert_eq!(&rows[2][..4], ["bogus", "error", "", ""]);
    assert!(rows[2][4].starts_with("line 2: position 'bogus'"), "{out}");
    assert_eq!(rows[3][0], "WWW...../BBB..... w 0 0");
    assert!(rows[3][2].parse::<u16>().is_ok(), "{out}");
}

#[test]
fn input_from_a_file_is_answered_as_from_stdin() {
    let db = six_db(false);
    let dir = scratch();
    let input: String = positions(5).iter().map(|p| p.notation(&six()) + "\n").collect::<String>();
    let file = dir.path().join("positions.txt");
    std::fs::write(&file, &input).unwrap();
    let from_file = probe(db, &["--input", file.to_str().unwrap()], "");
    let from_stdin = probe(db, &[], &input);
    assert!(from_file.status.success(), "{}", text(&from_file.stderr));
    assert_eq!(from_file.stdout, from_stdin.stdout);
    assert_eq!(text(&from_file.stdout).lines().count(), input.lines().count());

    let missing = dir.path().join("nothing.txt");
    let err =
        common::fails(db, &["--variant", "six", "probe", "--input", missing.to_str().unwrap()]);
    assert!(err.contains("nothing.txt") && err.contains("No such file"), "{err}");
}

#[test]
fn a_missing_moving_table_is_an_error_object_naming_the_solve() {
    let db = common::empty_db();
    let output = morris_with_input(db, &["probe"], "WW....B./W......./BB...... w 0 0\n");
    assert_eq!(output.status.code(), Some(1));
    let answers = lines(&output);
    let error = field(&answers[0], "error").as_str().unwrap();
    let cli = common::fails(db, &["query", "WW....B./W......./BB...... w 0 0"]);
    assert_eq!(error, cli.trim_end().strip_prefix("morris: error: ").unwrap());
    assert!(error.contains("morris solve --variant nine"), "{error}");
}
