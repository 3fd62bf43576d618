//! Damaged databases: one flipped byte anywhere in a table file, a
//! truncated file, another sector's file in its place, a database solved
//! under other rules. Each must be an error that names the file and says
//! what is wrong - never a wrong value, never a panic - through the library
//! (`Database::value`, `Query::analyse`). The same through `morris query`
//! is in `cli_faults.rs`.
//!
//! A flipped byte in a block that a probe does not read leaves that probe
//! alone: its value must then be the value of the intact database.
mod damage;

use damage::{copy, nine, no_flying_db, pristine, target_path, wrong_value_copy, Layout, TARGET};
use morris::database::Database;
use morris::index::Sector;
use morris::position::Position;
use morris::query::Query;
use morris::value::Value;
use morris::variant::Flying;
use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// What the library says about the damaged database in `dir`: every probe
/// and query is either the intact answer or an error naming `file`.
/// Returns how many probes failed, and whether the probe in each block
/// failed.
fn check_library(dir: &Path, file: &Path, what: &str) -> (usize, Vec<bool>) {
    let p = pristine();
    let file_name = file.display().to_string();
    let db = Database::new(dir, nine());
    let mut failed = Vec::new();
    for (state, expected) in &p.probes {
        let got = catch_unwind(AssertUnwindSafe(|| db.value(state).map_err(|e| e.to_string())))
            .unwrap_or_else(|_| panic!("{what}: a probe panicked"));
        match got {
            Ok(value) => {
                assert_eq!(value, *expected, "{what}: wrong value, no error");
                failed.push(false);
            }
            Err(msg) => {
                assert!(msg.contains(&file_name), "{what}: error does not name {file_name}: {msg}");
                failed.push(true);
            }
        }
    }
    let q = Query::new(&db);
    for (position, expected) in &p.queries {
        let got = catch_unwind(AssertUnwindSafe(|| damage::answer(&q, position)))
            .unwrap_or_else(|_| panic!("{what}: a query panicked"));
        match got {
            Ok(answer) => assert_eq!(&answer, expected, "{what}: wrong answer, no error"),
            Err(msg) => {
                assert!(msg.contains(&file_name), "{what}: error does not name {file_name}: {msg}");
            }
        }
    }
    (failed.iter().filter(|&&f| f).count(), failed)
}

/// A byte of the file in a few places of each part: every header byte,
/// every third byte of the offset table, and the first, a middle and the
/// last (checksum) byte of every block record.
fn flip_positions(layout: &Layout) -> Vec<usize> {
    let mut at: Vec<usize> = layout.header.clone().collect();
    at.extend(layout.offsets.clone().step_by(3));
    for r in &layout.blocks {
        at.extend([r.start, (r.start + r.end) / 2, r.end - 1]);
    }
    at
}

#[test]
fn a_flipped_byte_anywhere_is_an_error_naming_the_file_never_a_wrong_value() {
    let p = pristine();
    let dir = copy();
    let file = target_path(&dir);
    let positions = flip_positions(&p.layout);
    assert!(positions.len() > 300);
    for (i, &at) in positions.iter().enumerate() {
        let mut bytes = p.bytes.clone();
        bytes[at] ^= [0x01, 0x80, 0xff, 0x10][i % 4];
        fs::write(&file, &bytes).unwrap();
        let what = format!("byte {at} of {} flipped", bytes.len());
        let (failures, failed) = check_library(&dir, &file, &what);
        match p.layout.block_of(at) {
            // Only the probe that reads the damaged block notices.
            Some(k) => {
                assert!(
                    failed[k],
                    "{what}: the probe of block {k} read a damaged block without error"
                );
                assert_eq!(failures, 1, "{what}: only block {k} is damaged");
            }
            // A damaged header or offset table: the table does not open.
            None => assert_eq!(failures, p.probes.len(), "{what}: header or offsets damaged"),
        }
        // The full check of the table finds it too.
        let db = Database::new(&dir, nine());
        let verified = match db.table(TARGET) {
            Ok(table) => table.verify().map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let err = verified.expect_err(&what);
        assert!(err.contains(&file.display().to_string()), "{what}: {err}");
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn flipped_bytes_in_each_part_say_what_is_wrong() {
    let p = pristine();
    let dir = copy();
    let file = target_path(&dir);
    let layout = &p.layout;
    let message = |at: usize| {
        let mut bytes = p.bytes.clone();
        bytes[at] ^= 0x01;
        fs::write(&file, &bytes).unwrap();
        let db = Database::new(&dir, nine());
        let k = layout.block_of(at).unwrap_or(0);
        db.value(&p.probes[k].0).unwrap_err().to_string()
    };
    let name = file.display().to_string();
    for (at, needle) in [
        (0, "not a morris table (wrong magic bytes)"),
        (layout.header.end - 1, "header checksum mismatch"),
        (layout.offsets.start + 1, "offset table checksum mismatch"),
        (layout.blocks[3].start + 2, "block 3: checksum mismatch"),
        (layout.blocks[57].end - 1, "block 57: checksum mismatch"),
    ] {
        let msg = message(at);
        assert!(msg.starts_with(&format!("{name}: ")) && msg.contains(needle), "byte {at}: {msg}");
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_truncated_or_extended_file_is_refused_naming_the_file() {
    let p = pristine();
    let dir = copy();
    let file = target_path(&dir);
    let len = p.bytes.len();
    let l = &p.layout;
    let mut lengths = vec![
        0,
        1,
        7,
        8,
        12,
        l.header.end - 1,
        l.header.end,
        l.offsets.start + 5,
        l.offsets.end,
        l.offsets.end + 1,
    ];
    lengths.extend([l.blocks[10].start + 3, l.blocks[57].start, len - 4, len - 1]);
    for cut in lengths {
        fs::write(&file, &p.bytes[..cut]).unwrap();
        let what = format!("cut to {cut} of {len} bytes");
        let (failures, _) = check_library(&dir, &file, &what);
        assert_eq!(failures, p.probes.len(), "{what}: every probe fails");
        let msg = Database::new(&dir, nine()).value(&p.probes[0].0).unwrap_err().to_string();
        assert!(
            ["bytes", "truncated", "too short", "ends inside", "unreadable header", "checksum"]
                .iter()
                .any(|w| msg.contains(w)),
            "{what}: says what is wrong? {msg}"
        );
    }
    for extra in [1, 100] {
        let mut bytes = p.bytes.clone();
        bytes.extend(std::iter::repeat_n(0u8, extra));
        fs::write(&file, &bytes).unwrap();
        let what = format!("{extra} bytes appended");
        let (failures, _) = check_library(&dir, &file, &what);
        assert_eq!(failures, p.probes.len(), "{what}");
        let msg = Database::new(&dir, nine()).value(&p.probes[0].0).unwrap_err().to_string();
        assert!(
            msg.contains(&format!("file is {} bytes", len + extra))
                && msg.contains("trailing bytes"),
            "{msg}"
        );
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn another_sectors_file_in_its_place_is_refused() {
    let p = pristine();
    let dir = copy();
    let file = target_path(&dir);
    let db = Database::new(&dir, nine());
    fs::copy(db.table_path(Sector::moving(4, 3)), &file).unwrap();
    let (failures, _) = check_library(&dir, &file, "4-3 renamed to 3-4");
    assert_eq!(failures, p.probes.len());
    let msg = Database::new(&dir, nine()).value(&p.probes[0].0).unwrap_err().to_string();
    assert!(
        msg.contains(&format!("{}: table holds sector 4-3, expected sector 3-4", file.display())),
        "{msg}"
    );
    // Not a table at all.
    fs::write(&file, "# notes\nnot a table\n").unwrap();
    let msg = Database::new(&dir, nine()).value(&p.probes[0].0).unwrap_err().to_string();
    assert!(msg.contains("not a morris table"), "{msg}");
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_database_solved_under_other_rules_is_refused() {
    let v = nine();
    let three = Position::parse("WWW..B../....B.B./........ w 0 0", &v).unwrap();
    // Solved without flying, opened with nine's rules (flying at 3).
    let dir = no_flying_db();
    let db = Database::new(dir, nine());
    let msg = Query::new(&db).analyse(&three).unwrap_err().to_string();
    let file = db.table_path(Sector::moving(3, 3));
    assert!(
        msg.starts_with(&format!("{}: table was solved under other rules", file.display())),
        "{msg}"
    );
    assert!(msg.contains("fly=never") || msg.contains("never"), "{msg}");
    // And the other way round.
    let db = Database::new(&pristine().dir, nine().with_flying(Flying::Never));
    let msg = db.value(&three.state()).unwrap_err().to_string();
    assert!(
        msg.contains(&format!(
            "{}: table was solved under other rules",
            db.table_path(Sector::moving(3, 3)).display()
        )),
        "{msg}"
    );
    // Under its own rules the same files answer.
    let own = Database::new(dir, nine().with_flying(Flying::Never));
    assert!(Query::new(&own).analyse(&three).is_ok());
}

#[test]
fn a_wrong_value_under_good_checksums_is_caught_by_the_query_check() {
    let (dir, _, p, expected) = wrong_value_copy();
    let db = Database::new(&dir, nine());
    // The checksums cannot tell: the table was written that way.
    assert_eq!(db.value(&p.state()).unwrap(), Value::Win(13));
    let q = Query::new(&db);
    for err in [q.analyse(&p).unwrap_err(), q.line(&p, 40).unwrap_err()] {
        assert!(err.to_string().starts_with(&expected), "{err}");
    }
    fs::remove_dir_all(dir).unwrap();
}
