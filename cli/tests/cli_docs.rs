//! docs/cli.md shows what the binary prints: every `$ morris ...` command of
//! its `console` blocks is run against a small database solved here (six
//! whole and nine up to 8 stones, both phases, in `data/db` under a
//! temporary directory, as `scripts/demo.sh` solves them; and six's moving
//! phase alone in `six-moving`), and its output must have the shape the
//! block shows: the same lines in the same order, where a `...` line stands
//! for any lines (none included), numbers, times and sizes may differ, and
//! runs of spaces count as one. Blank lines are ignored, and a terminal's
//! `\r` keeps only what follows it, as on the screen.
//!
//! A command that serves (`morris serve`, and `curl` against it) is skipped
//! with its reason; `tests/cli_serve.rs` holds the server to the same output.

use std::path::{Path, PathBuf};
use std::process::Command;

const MORRIS: &str = env!("CARGO_BIN_EXE_morris");

/// One `$ ...` line of a block and the lines shown after it.
#[derive(Debug)]
struct Example {
    /// Line number in docs/cli.md, for messages.
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The examples of every ```console block, in order. Blocks may be indented
/// (inside a list); the fence's indentation is taken off every line.
fn examples(markdown: &str) -> Vec<Example> {
    let mut examples: Vec<Example> = Vec::new();
    let mut fence: Option<usize> = None;
    // Whether the last example belongs to the block being read.
    let mut in_example = false;
    for (number, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match fence {
            None if trimmed.starts_with("```console") => {
                fence = Some(indent);
                in_example = false;
            }
            None => {}
            Some(_) if trimmed.starts_with("```") => fence = None,
            Some(indent) => {
                let line = line.get(indent..).unwrap_or("").to_string();
                if let Some(command) = line.strip_prefix("$ ") {
                    examples.push(Example {
                        line: number + 1,
                        command: command.to_string(),
                        expected: Vec::new(),
                    });
                    in_example = true;
                } else if in_example {
                    examples.last_mut().unwrap().expected.push(line);
                }
                // Lines before a block's first `$` are output quoted without
                // its command (an excerpt of a long run): nothing to run.
            }
        }
    }
    examples
}

/// Why a command is not run here, if it is not.
fn skipped(command: &str) -> Option<&'static str> {
    if command.starts_with("curl ") {
        Some("asks a running `morris serve`; tests/cli_serve.rs checks every route")
    } else if command.split_whitespace().any(|word| word == "serve") {
        Some("serves until stopped; tests/cli_serve.rs runs the server")
    } else if command.starts_with("cargo ") {
        Some("builds and runs an example against a running server")
    } else {
        None
    }
}

/// A line reduced to its shape: what a terminal shows after the last `\r`,
/// every number `0`, size units `B`, rates `/s`, runs of spaces one space.
fn shape(line: &str) -> String {
    let line = line.rsplit('\r').next().unwrap_or("");
    let mut digits_folded = String::with_capacity(line.len());
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            // A number, with its decimal point or thousands separators.
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || ((chars[i] == '.' || chars[i] == ',')
                        && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit())))
            {
                i += 1;
            }
            digits_folded.push('0');
        } else {
            digits_folded.push(chars[i]);
            i += 1;
        }
    }
    let words: Vec<String> = digits_folded
        .split_whitespace()
        .map(|word| {
            for unit in ["KiB", "MiB", "GiB"] {
                if let Some(rest) = word.strip_prefix(unit) {
                    return format!("B{rest}");
                }
            }
            for rate in ["k/s", "M/s", "G/s"] {
                if let Some(rest) = word.strip_prefix(rate) {
                    return format!("/s{rest}");
                }
            }
            word.to_string()
        })
        .collect();
    words.join(" ")
}

fn is_gap(expected: &str) -> bool {
    expected == "..."
}

/// Whether `actual` has the shape of `expected` (both already reduced to
/// shapes, blank lines dropped): the lines equal in order, a `...` line
/// matching any run of lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    // Wildcard matching with backtracking to the last gap.
    let (mut e, mut a) = (0, 0);
    let mut last_gap: Option<(usize, usize)> = None;
    while a < actual.len() {
        if e < expected.len() && is_gap(&expected[e]) {
            last_gap = Some((e, a));
            e += 1;
        } else if e < expected.len() && expected[e] == actual[a] {
            e += 1;
            a += 1;
        } else if let Some((gap, start)) = last_gap {
            // Let the gap take one more line and try again after it.
            e = gap + 1;
            a = start + 1;
            last_gap = Some((gap, start + 1));
        } else {
            return false;
        }
    }
    expected[e..].iter().all(|line| is_gap(line))
}

fn shapes(lines: impl IntoIterator<Item = String>) -> Vec<String> {
    lines.into_iter().map(|line| shape(&line)).filter(|line| !line.is_empty()).collect()
}

/// Runs `command` with `sh` in `dir`, this build's `morris` first on the
/// path; stdout and stderr together, as a terminal shows them.
fn run(dir: &Path, command: &str) -> String {
    let bin_dir = Path::new(MORRIS).parent().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin_dir.to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("{{ {command}\n}} 2>&1"))
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).unwrap())
        .env_remove("MORRIS_DB")
        .env_remove("MORRIS_VARIANT")
        .env_remove("MORRIS_CHECKPOINT_SECS")
        .output()
        .expect("run sh");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The small database of the examples, solved into `dir`.
fn solve_examples_database(dir: &Path) {
    for args in [
        &["solve", "--variant", "six", "--threads", "2"][..],
        &["solve", "--variant", "nine", "--max-stones", "8", "--threads", "2"],
        &["solve", "--variant", "six", "--phase", "moving", "--db", "six-moving", "--threads", "2"],
    ] {
        let status = Command::new(MORRIS)
            .args(args)
            .current_dir(dir)
            .env_remove("MORRIS_DB")
            .env_remove("MORRIS_VARIANT")
            .stdout(std::process::Stdio::null())
            .status()
            .expect("run morris");
        assert!(status.success(), "morris {args:?} failed");
    }
}

fn cli_md() -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "docs", "cli.md"].iter().collect();
    std::fs::read_to_string(&path).expect("docs/cli.md")
}

#[test]
fn every_example_of_cli_md_prints_what_it_shows() {
    let examples = examples(&cli_md());
    let dir = tempfile::tempdir().unwrap();
    solve_examples_database(dir.path());
    let mut ran = 0;
    let mut failures = Vec::new();
    for example in &examples {
        if let Some(reason) = skipped(&example.command) {
            eprintln!("docs/cli.md:{}: skipped `{}`: {reason}", example.line, example.command);
            continue;
        }
        let output = run(dir.path(), &example.command);
        let output = output.replace(&dir.path().display().to_string(), "TMP");
        let expected = shapes(example.expected.iter().cloned());
        let actual = shapes(output.lines().map(str::to_string));
        if !matches(&expected, &actual) {
            failures.push(format!(
                "docs/cli.md:{}: `{}` printed\n{}\n--- which does not have the shape of the block:\n{}\n",
                example.line,
                example.command,
                output.trim_end(),
                example.expected.join("\n")
            ));
        }
        ran += 1;
    }
    assert!(ran >= 10, "only {ran} examples ran: has docs/cli.md lost its console blocks?");
    assert!(
        failures.is_empty(),
        "{} of {ran} examples differ:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn shapes_ignore_numbers_units_and_spacing_but_not_words() {
    assert_eq!(shape("3-3      169626    0.76 s  224.38 k/s"), shape("3-3 1 1.5 s 9.1 M/s"));
    assert_eq!(shape("disk 48.5 KiB, peak 1.2 GiB"), shape("disk 512 B, peak 7.0 MiB"));
    assert_eq!(shape("searching...\rplacement search: 12 nodes"), "placement search: 0 nodes");
    assert_ne!(shape("White wins in 11 plies"), shape("Black wins in 11 plies"));
    assert_ne!(shape("sector 3-3"), shape("sector 3-3-1-0"));
}

#[test]
fn a_gap_matches_any_lines_and_nothing_else_does() {
    let lines = |text: &str| -> Vec<String> { text.lines().map(str::to_string).collect() };
    let actual = lines("a\nb\nc\nd");
    assert!(matches(&lines("a\n...\nd"), &actual));
    assert!(matches(&lines("...\nb\n...\nd\n..."), &actual));
    assert!(matches(&lines("a\nb\nc\nd"), &actual));
    assert!(matches(&lines("..."), &actual));
    assert!(!matches(&lines("a\nc\nd"), &actual));
    assert!(!matches(&lines("a\n...\nc"), &actual));
    assert!(!matches(&lines("a\nb\nc\nd\ne"), &actual));
    assert!(!matches(&lines("d\n...\na"), &actual));
}

#[test]
fn blocks_are_read_with_their_commands() {
    let markdown = "text\n```console\n$ morris a\nout 1\n...\n$ morris b\n```\n```console\nquoted\n```\n  ```console\n  $ curl x\n  y\n  ```\n```sh\n$ not this\n```\n";
    let examples = examples(markdown);
    let commands: Vec<&str> = examples.iter().map(|e| e.command.as_str()).collect();
    assert_eq!(commands, ["morris a", "morris b", "curl x"]);
    assert_eq!(examples[0].expected, ["out 1", "..."]);
    assert_eq!(examples[2].expected, ["y"]);
    assert!(skipped("curl x").is_some() && skipped("morris --db d serve").is_some());
    assert!(skipped("morris query start").is_none());
}
