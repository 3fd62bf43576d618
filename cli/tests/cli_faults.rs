//! Damaged databases through `morris query`: one flipped byte, a
//! truncated file, another sector's file, other rules, a wrong value under
//! good checksums. Each is either the intact answer or exit code 1 and
//! one line naming the file, never a panic. The same through the library
//! is in `faults.rs`.

mod common;
// Shared with the library's tests.
#[path = "../../tests/damage/mod.rs"]
mod damage;

use common::{morris, text};
use damage::{copy, nine, no_flying_db, pristine, target_path, wrong_value_copy};
use morris::database::Database;
use morris::index::Sector;
use morris::position::{Color, Position};
use std::fs;
use std::path::Path;

/// `morris query` of `position`: either the intact output or exit code 1
/// with one line naming `file`; returns whether it failed.
fn query_binary(
    dir: &Path,
    file: &Path,
    position: &str,
    intact: &str,
    what: &str,
    extra: &[&str],
) -> bool {
    let out = morris(dir, &[&["query", position], extra].concat());
    let err = text(&out.stderr);
    match out.status.code() {
        Some(0) => {
            assert_eq!(text(&out.stdout), intact, "{what}: different output, no error");
            false
        }
        Some(1) => {
            assert_eq!(err.lines().count(), 1, "{what}: one line: {err}");
            assert!(
                err.starts_with("morris: error: ") && !err.contains("panicked"),
                "{what}: {err}"
            );
            assert!(
                err.contains(&file.display().to_string()),
                "{what}: names {}: {err}",
                file.display()
            );
            true
        }
        code => panic!("{what}: exit code {code:?}: {err}"),
    }
}

#[test]
fn morris_query_reports_damage_in_one_line_naming_the_file() {
    let p = pristine();
    let v = nine();
    let dir = copy();
    let file = target_path(&dir);
    let layout = &p.layout;
    // The intact output of a query of the position in each probed block.
    let position = |k: usize| Position::from_state(&p.probes[k].0, Color::White).notation(&v);
    let intact = |k: usize| {
        let out = morris(&pristine().dir, &["query", &position(k)]);
        assert!(out.status.success());
        text(&out.stdout)
    };
    let mut cases: Vec<usize> = layout.header.clone().step_by(7).collect();
    cases.extend(layout.offsets.clone().step_by(97));
    cases.extend(layout.blocks.iter().step_by(5).flat_map(|r| [r.start, r.end - 2]));
    for (i, &at) in cases.iter().enumerate() {
        let mut bytes = p.bytes.clone();
        bytes[at] ^= [0x04, 0xff][i % 2];
        fs::write(&file, &bytes).unwrap();
        let what = format!("byte {at} flipped");
        let k = layout.block_of(at).unwrap_or(i % layout.blocks.len());
        let failed = query_binary(&dir, &file, &position(k), &intact(k), &what, &[]);
        assert!(failed, "{what}: the query of a position in block {k} did not notice");
        let failed_json = query_binary(&dir, &file, &position(k), "", &what, &["--json"]);
        assert!(failed_json, "{what}: --json did not notice");
    }
    // Truncated, another sector's file, other rules.
    fs::write(&file, &p.bytes[..p.bytes.len() / 2]).unwrap();
    assert!(query_binary(&dir, &file, &position(0), "", "truncated", &[]));
    fs::copy(Database::new(&dir, nine()).table_path(Sector::moving(4, 3)), &file).unwrap();
    let out = morris(&dir, &["query", &position(0)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("table holds sector 4-3, expected sector 3-4")
            && err.contains(&file.display().to_string()),
        "{err}"
    );
    fs::remove_dir_all(dir).unwrap();

    let three = "WWW..B../....B.B./........ w 0 0";
    let out = morris(no_flying_db(), &["query", three]);
    let err = text(&out.stderr);
    assert_eq!((out.status.code(), err.lines().count()), (Some(1), 1), "{err}");
    let file = Database::new(no_flying_db(), nine()).table_path(Sector::moving(3, 3));
    assert!(
        err.contains(&format!("{}: table was solved under other rules", file.display())),
        "{err}"
    );
    let out = morris(no_flying_db(), &["--fly-at", "never", "query", three]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn morris_query_reports_a_wrong_value_under_good_checksums_in_one_line() {
    let (dir, _, p, expected) = wrong_value_copy();
    let out = morris(&dir, &["query", &p.notation(&nine())]);
    let err = text(&out.stderr);
    assert_eq!((out.status.code(), err.lines().count()), (Some(1), 1), "{err}");
    assert!(err.contains(&expected), "{err}");
    fs::remove_dir_all(dir).unwrap();
}
