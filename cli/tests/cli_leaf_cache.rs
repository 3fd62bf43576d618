//! `morris query` over a database without placement tables gives the same
//! answers whatever state its leaf caches (`<db>/leaves/`) are in: none
//! yet (made by the query), present, damaged (a byte of the scores of
//! every cache, or of every header), stale (a table rewritten), or
//! impossible to write (copied into memory instead). What the search did
//! with them is on stderr. Six's moving phase, nine's moving phase up to
//! 8 stones.

mod common;

use common::{scratch, text};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// stdout of `query` and the numbers of caches made and copies of the
/// second summary line on stderr.
fn query(db: &Path, args: &[&str]) -> (String, usize, usize) {
    let out = common::morris(db, args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let line = err
        .lines()
        .map(|l| l.rsplit('\r').next().unwrap())
        .rfind(|l| l.starts_with("placement search ("))
        .unwrap_or_else(|| panic!("a summary in {err}"))
        .to_string();
    let number_before = |what: &str| -> usize {
        let head = &line[..line.find(what).unwrap_or_else(|| panic!("{what} in {line}"))];
        head.rsplit([' ', '(']).next().unwrap().parse().unwrap()
    };
    (text(&out.stdout), number_before(" caches made"), number_before(" copied;"))
}

fn caches(db: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = fs::read_dir(db.join("leaves"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wdl2"))
        .collect();
    paths.sort();
    paths
}

fn flip(path: &Path, at: usize) {
    let mut bytes = fs::read(path).unwrap();
    if at < bytes.len() {
        bytes[at] ^= 0x24;
        fs::write(path, bytes).unwrap();
    }
}

fn same_answers_whatever_the_caches(db: &Path, args: &[&str]) {
    // No cache can be written: the tables are copied, as before caches.
    fs::write(db.join("leaves"), "in the way").unwrap();
    let (copied, made, copies) = query(db, args);
    assert!(made == 0 && copies > 0, "{made} made, {copies} copied");
    fs::remove_file(db.join("leaves")).unwrap();
    // Absent: made.
    let (first, made, copies) = query(db, args);
    assert_eq!(first, copied);
    assert!(made > 0 && copies == 0, "{made} made, {copies} copied");
    let built = caches(db);
    assert_eq!(built.len(), made);
    // Present: opened.
    let (second, made, copies) = query(db, args);
    assert_eq!(second, copied);
    assert_eq!((made, copies), (0, 0));
    // A byte of the scores of every cache damaged: each one the query
    // reads is found out and made again.
    for path in &built {
        flip(path, 4096 + 7);
    }
    let (damaged, made, _) = query(db, args);
    assert_eq!(damaged, copied);
    assert!(made > 0, "the damage found");
    // A byte of every header: made again on opening.
    for path in &built {
        flip(path, 20);
    }
    let (header, made, _) = query(db, args);
    assert_eq!(header, copied);
    assert_eq!(made, built.len());
    // A table rewritten (its time changes): its cache is stale.
    let table = built[0].file_stem().unwrap().to_str().unwrap().to_string() + ".mtb";
    let file = fs::File::options().write(true).open(db.join(&table)).unwrap();
    file.set_modified(SystemTime::now() + Duration::from_secs(5)).unwrap();
    drop(file);
    let (stale, made, _) = query(db, args);
    assert_eq!(stale, copied);
    assert_eq!(made, 1, "{table}'s cache made again");
    let (last, made, copies) = query(db, args);
    assert_eq!(last, copied);
    assert_eq!((made, copies), (0, 0));
}

#[test]
fn six_start_gives_the_same_answers_whatever_the_caches() {
    let dir = scratch();
    common::ok(dir.path(), &["--variant", "six", "solve", "--phase", "moving"]);
    same_answers_whatever_the_caches(dir.path(), &["--variant", "six", "query", "start", "--json"]);
}

#[test]
fn nine_late_placement_gives_the_same_answers_whatever_the_caches() {
    let dir = scratch();
    common::ok(dir.path(), common::SOLVE_NINE_8);
    // Four stones each, one of them in hand: the search reads sectors of
    // up to 8 stones.
    same_answers_whatever_the_caches(
        dir.path(),
        &["--variant", "nine", "query", "WW.B..../BW....../B....... w 1 1"],
    );
}
