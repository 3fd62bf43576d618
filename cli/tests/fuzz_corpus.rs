//! The corpora of the server's fuzz targets replayed on stable, without
//! cargo-fuzz: every file of `fuzz/corpus/<target>/` through the target's
//! body in `morris_cli::fuzzing` (the very function
//! `fuzz/fuzz_targets/<target>.rs` calls), which must neither panic nor
//! hang on it. A file named `ok-...` must be accepted (answered 200) and
//! one named `bad-...` refused; the rest (what the fuzzer found that adds
//! coverage) only must not fail. A missing or empty corpus fails, so that
//! this cannot pass by reading nothing. The library's targets are
//! replayed by the root's `tests/fuzz_corpus.rs`; docs/fuzzing.md says how
//! to run the fuzzer.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use morris_cli::fuzzing::{self, Body, TARGETS};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

fn body(target: &str) -> Body {
    TARGETS.iter().find(|(name, _)| *name == target).expect("a target").1
}

/// Replays `fuzz/corpus/<target>/`; returns how many files it holds.
fn replay(target: &str) -> usize {
    let dir = fuzz_dir().join("corpus").join(target);
    let entries = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: the corpus of {target} is missing: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    let body = body(target);
    let (mut ok, mut bad) = (0, 0);
    for file in &files {
        let bytes = fs::read(file).unwrap();
        let name = file.file_name().unwrap().to_string_lossy();
        let accepted = std::panic::catch_unwind(|| body(&bytes))
            .unwrap_or_else(|_| panic!("{target}: {} makes the target fail", file.display()));
        if name.starts_with("ok-") {
            assert!(accepted, "{target}: {name} is refused, and should be accepted");
            ok += 1;
        } else if name.starts_with("bad-") {
            assert!(!accepted, "{target}: {name} is accepted, and should be refused");
            bad += 1;
        }
    }
    assert!(ok >= 2 && bad >= 2, "{target}: {ok} valid and {bad} invalid inputs kept");
    files.len()
}

#[test]
fn the_http_request_corpus_replays_clean() {
    replay("http_request");
}

#[test]
fn the_probe_body_corpus_replays_clean() {
    replay("probe_body");
}

/// Each target has its body, its corpus, its file in `fuzz/fuzz_targets/`
/// and its `[[bin]]` in `fuzz/Cargo.toml`; and the corpora, the target
/// files and the bodies of the library's targets and of these are the
/// same names.
#[test]
fn every_target_has_a_body_a_corpus_and_a_fuzz_target() {
    let names = |dir: &str, suffix: &str| -> BTreeSet<String> {
        fs::read_dir(fuzz_dir().join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter_map(|n| n.strip_suffix(suffix).map(str::to_owned))
            .collect()
    };
    let bodies: BTreeSet<String> = TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    let library: BTreeSet<String> =
        morris::fuzzing::TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    let all: BTreeSet<String> = bodies.union(&library).cloned().collect();
    assert_eq!(all.len(), bodies.len() + library.len(), "a name used twice");
    assert_eq!(names("corpus", ""), all);
    assert_eq!(names("fuzz_targets", ".rs"), all);
    let manifest = fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    for name in &all {
        assert!(manifest.contains(&format!("name = \"{name}\"")), "{name}");
    }
    assert_eq!(bodies.len(), 2, "a new target needs its replay test above");
}

/// The corpora's valid requests are real ones: every `ok-` request is
/// answered 200 on its own, and so is each of them sent twice on one
/// connection where the first keeps it open.
#[test]
fn valid_requests_are_answered_again_on_one_connection() {
    let dir = fuzz_dir().join("corpus/http_request");
    let mut kept = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        if !name.starts_with("ok-") || text.contains("HTTP/1.0") || text.contains("close\r\n") {
            continue;
        }
        kept += 1;
        assert!(fuzzing::http_request(&[&bytes[..], &bytes[..]].concat()), "{name} twice");
    }
    assert!(kept >= 5, "{kept} requests that keep the connection open");
}
