//! What the test files share: running the `morris` binary (this file),
//! scratch directories and their tables ([`dirs`]).
//!
//! The files here run the binary (and may use the library too); the
//! library's own tests are in the root's `tests/`. Fixtures that a few
//! files share: `server/` and `chromium/` beside this module (a running
//! `morris serve` and a headless browser); `nine7/` (a small solved
//! database, for the query and repetition tests) and `damage/` (a
//! database to damage, for the fault tests) in the root's `tests/`, which
//! the library's tests use too (by `#[path]` from here).
//!
//! Each test file is a crate of its own that uses a part of this module;
//! the rest would be dead code, and unused re-exports, there.
#![allow(dead_code, unused_imports)]

mod dirs;

pub use dirs::{
    assert_same_tables, empty_db, files, nine_up_to_8, scratch, solved_both_phases, tables,
    SOLVE_NINE_8,
};

use serde_json::Value as Json;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `morris ARGS --db DB`, its environment cleared of the variables that
/// would change its defaults (variant, database, checkpoint interval).
pub fn command(db: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_morris"));
    command
        .args(args)
        .arg("--db")
        .arg(db)
        .env_remove("MORRIS_VARIANT")
        .env_remove("MORRIS_DB")
        .env_remove("MORRIS_CHECKPOINT_SECS");
    command
}

/// `morris ARGS --db DB` run to its end with nothing on stdin.
pub fn morris(db: &Path, args: &[&str]) -> Output {
    command(db, args).output().expect("the binary runs")
}

/// `morris ARGS --db DB` run to its end with `input` on stdin.
pub fn morris_with_input(db: &Path, args: &[&str], input: &str) -> Output {
    let mut child = command(db, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    // The binary may stop reading (or never start) when it fails.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// `morris ARGS --db DB` started with stdout and stderr piped.
pub fn spawn(db: &Path, args: &[&str]) -> Child {
    command(db, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("output is UTF-8")
}

/// A successful run's stdout.
pub fn ok(db: &Path, args: &[&str]) -> String {
    let output = morris(db, args);
    assert!(
        output.status.success(),
        "morris {args:?} failed: {}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// A failed run: exit code 1 and one line on stderr, which it returns.
pub fn fails(db: &Path, args: &[&str]) -> String {
    fails_with_stdout(db, args).1
}

/// A failed run: exit code 1 and one line on stderr, `morris: error: `
/// and no panic; returns stdout and stderr.
pub fn fails_with_stdout(db: &Path, args: &[&str]) -> (String, String) {
    let output = morris(db, args);
    let (out, err) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "morris {args:?}: {out}{err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err}");
    assert!(err.starts_with("morris: error: ") && !err.contains("panicked"), "{err}");
    (out, err)
}

/// `text` parsed as JSON.
pub fn json(text: &str) -> Json {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The member `key` of the JSON object `object`, which must have it.
pub fn field<'a>(object: &'a Json, key: &str) -> &'a Json {
    object.get(key).unwrap_or_else(|| panic!("no {key} in {object}"))
}

/// Sends `signal` to `child`.
pub fn signal(child: &Child, signal: i32) {
    // Safety: kill(2) on a child this test started and has not reaped.
    let status = unsafe { libc::kill(child.id() as i32, signal) };
    assert_eq!(status, 0, "kill {}", child.id());
}

/// Waits until `file` is in `db` while `child` runs.
pub fn wait_for(child: &mut Child, db: &Path, file: &str) {
    let deadline = Instant::now() + Duration::from_secs(300);
    while !db.join(file).exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("morris ended ({status}) before {file} appeared");
        }
        assert!(Instant::now() < deadline, "{file} never appeared");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The address a `morris serve` started with `--bind 127.0.0.1:0` and a
/// piped stdout listens on, from the first line it prints.
pub fn served_address(server: &mut Child) -> String {
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut first).unwrap();
    first
        .trim()
        .rsplit_once("http://")
        .and_then(|(_, rest)| rest.strip_suffix('/'))
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_string()
}
