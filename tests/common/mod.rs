//! Running the `morris` binary from the CLI tests: a command with the
//! environment cleared of the variables that would change its defaults.

use std::path::Path;
use std::process::{Command, Output};

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

pub fn morris(db: &Path, args: &[&str]) -> Output {
    command(db, args).output().expect("the binary runs")
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
#[allow(dead_code)] // Not every test file checks failures.
pub fn fails(db: &Path, args: &[&str]) -> String {
    let output = morris(db, args);
    let (out, err) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "morris {args:?}: {out}{err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err}");
    assert!(err.starts_with("morris: error: ") && !err.contains("panicked"), "{err}");
    err
}
