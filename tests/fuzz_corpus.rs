//! The fuzz corpora replayed on stable, without cargo-fuzz: every file of
//! `fuzz/corpus/<target>/` through the target's body in
//! `morris::fuzzing` (the very function `fuzz/fuzz_targets/<target>.rs`
//! calls), which must neither panic nor hang on it. A file named `ok-...`
//! must be accepted and one named `bad-...` refused; the rest (what the
//! fuzzer found that adds coverage) only must not fail. A missing or empty
//! corpus fails, so that this cannot pass by reading nothing.
//! docs/fuzzing.md says how to run the fuzzer.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use morris::database::Database;
use morris::driver::{PairProgress, Quiet};
use morris::fuzzing::{self, Body, TARGETS};
use morris::solve::{moving_pairs, Progress};
use morris::table::Compression;
use morris::Variant;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
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
fn the_position_corpus_replays_clean() {
    replay("position");
}

#[test]
fn the_moves_corpus_replays_clean() {
    replay("moves");
}

#[test]
fn the_table_corpus_replays_clean() {
    replay("table");
}

#[test]
fn the_checkpoint_corpus_replays_clean() {
    replay("checkpoint");
}

/// Each target has its body, its corpus, its file in `fuzz/fuzz_targets/`
/// and its `[[bin]]` in `fuzz/Cargo.toml`, and the tests above replay
/// every corpus of the library's targets. (The server's targets, whose
/// bodies are in `morris-cli`, are checked and replayed by
/// `cli/tests/fuzz_corpus.rs`, which also checks that the two lists of
/// targets together name every corpus and target file.)
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
    assert!(names("corpus", "").is_superset(&bodies));
    assert!(names("fuzz_targets", ".rs").is_superset(&bodies));
    let manifest = fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    for name in &bodies {
        assert!(manifest.contains(&format!("name = \"{name}\"")), "{name}");
    }
    assert_eq!(bodies.len(), 4, "a new target needs its replay test above");
}

/// Stops a solve once the checkpoint at `path` is there.
struct StopAt(PathBuf);

impl Progress for StopAt {
    fn cancelled(&self) -> bool {
        self.0.exists()
    }
}

impl PairProgress for StopAt {
    fn phases(&self) -> &dyn Progress {
        self
    }
}

/// What this build writes is accepted by the targets' bodies, so the
/// corpora's valid files are not stale: the checkpoints of five's and
/// six's 3-3 (a solve stopped at its first checkpoint; with
/// `MORRIS_FUZZ_SEEDS=DIR` written into DIR as well, which is how the
/// checkpoint corpus got them), and six's 3-3 table with its
/// win/draw/loss tables of both layouts.
#[test]
fn what_this_build_writes_is_accepted() {
    let seeds = std::env::var_os("MORRIS_FUZZ_SEEDS").map(PathBuf::from);
    let seed = |name: &str, bytes: &[u8]| {
        if let Some(seeds) = &seeds {
            fs::write(seeds.join(name), bytes).unwrap();
        }
    };
    for name in ["five", "six"] {
        let dir = tempfile::tempdir().unwrap();
        let v = Variant::named(name).unwrap();
        let db = Database::new(dir.path(), v.clone()).with_checkpoints(Some(Duration::ZERO));
        let ckpt = db.checkpoint_path(moving_pairs(&v, 6)[0]);
        let stopped = db.solve_moving(6, 1, &StopAt(ckpt.clone()));
        assert!(stopped.is_err(), "the solve stops at its checkpoint");
        let checkpoint = fs::read(&ckpt).unwrap();
        assert!(fuzzing::checkpoint(&checkpoint), "{name}");
        seed(&format!("ok-{name}-3-3"), &checkpoint);
        // The header and a part of the body: read, and refused.
        let short = &checkpoint[..checkpoint.len().min(400)];
        assert!(!fuzzing::checkpoint(short), "{name}");
        seed(&format!("bad-{name}-3-3-short"), short);
    }

    let dir = tempfile::tempdir().unwrap();
    let six = Variant::named("six").unwrap();
    let pair = moving_pairs(&six, 6)[0];
    let db = Database::new(dir.path(), six.clone());
    db.solve_moving(6, 1, &Quiet).unwrap();
    let sector = pair.sectors()[0];
    let table = fs::read(db.table_path(sector)).unwrap();
    assert!(fuzzing::table(&[&[0], &table[..]].concat()));
    assert!(!fuzzing::table(&[&[1], &table[..]].concat()), "a full table is not a .wdl");
    for compression in [Compression::Quick, Compression::Smallest] {
        let out = dir.path().join(format!("{compression:?}"));
        fs::create_dir_all(&out).unwrap();
        db.export_wdl(sector, &out, compression, &|| false).unwrap();
        let wdl = fs::read(out.join(db.wdl_path(sector).file_name().unwrap())).unwrap();
        assert!(fuzzing::table(&[&[1], &wdl[..]].concat()), "{compression:?}");
        assert!(fuzzing::table(&[&[3], &wdl[..]].concat()), "{compression:?} repaired");
    }
}

/// Found by the table target in its first run: a header with a varint
/// written long (251, then a `u16` of a small number) decodes, and
/// encodes short; the target held the two to the same length and
/// failed. Such a file, its checksums made right, is read as it is.
#[test]
fn a_table_header_with_a_varint_written_long_is_read() {
    let bytes = fs::read(fuzz_dir().join("corpus/table/regression-long-varint")).unwrap();
    assert_eq!(bytes[0] & 2, 2, "its checksums are repaired");
    fuzzing::table(&bytes);
}
