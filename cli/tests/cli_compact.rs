//! `morris compact` through the binary: after it, every reader gives the
//! answers it gave before (`query`, `probe`, `verify`, `export --wdl`,
//! `stats`), the placement search's leaf caches are made again rather
//! than refused; a compact killed mid-way leaves every table old or new
//! and whole, and the next run finishes, skipping what was done; a
//! compact is refused while the directory's lock is held. Every cell is
//! compared in `compact.rs`.

mod common;
// Shared with the library's tests.
#[path = "../../tests/nine7/mod.rs"]
mod nine7;

use common::{fails, ok, scratch, text};
use morris::database::lock;
use morris::table::Table;
use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Child;

/// Cells a block that `compact` writes by default, and `solve`.
const COMPACT_BLOCK: u64 = 64 * 1024;
const SOLVE_BLOCK: u64 = 16 * 1024;

/// The table `name` (`<variant>-<sector>.mtb`) from its bytes.
fn table(name: &str, bytes: Vec<u8>, rules: &str) -> Table<Vec<u8>> {
    let sector = name.split_once('-').unwrap().1.strip_suffix(".mtb").unwrap();
    Table::from_bytes(bytes, Path::new(name), rules, sector).unwrap()
}

/// The number of leaf caches the last placement search on stderr made.
fn caches_made(stderr: &str) -> usize {
    let line = stderr
        .lines()
        .map(|l| l.rsplit('\r').next().unwrap())
        .rfind(|l| l.starts_with("placement search ("))
        .unwrap_or_else(|| panic!("a search summary in {stderr}"));
    let head = &line[..line.find(" caches made").unwrap_or_else(|| panic!("{line}"))];
    head.rsplit([' ', '(']).next().unwrap().parse().unwrap()
}

/// What the readers answer on nine up to 8 stones: `probe --moves` on
/// some moving positions, `query --json` on three of them and on a late
/// placement position (by search, through leaf caches: it returns how
/// many it made), the counts of `stats`.
fn answers(db: &Path) -> (Vec<String>, usize) {
    let positions: Vec<String> = nine7::random_positions(40)
        .iter()
        .map(|p| p.notation(&nine7::nine()).to_string())
        .collect();
    let probe = common::morris_with_input(db, &["probe", "--moves"], &positions.join("\n"));
    assert!(probe.status.success(), "{}", text(&probe.stderr));
    let mut said = vec![text(&probe.stdout)];
    for p in &positions[..3] {
        said.push(ok(db, &["query", p, "--json"]));
    }
    let late = common::morris(db, &["query", "WW.B..../BW....../B....... w 1 1", "--json"]);
    assert!(late.status.success(), "{}", text(&late.stderr));
    said.push(text(&late.stdout));
    let stats = common::json(&ok(db, &["stats", "--json"]));
    for row in stats.as_array().unwrap() {
        let field = |k: &str| common::field(row, k).to_string();
        said.push(
            ["sector", "states", "wins", "losses", "draws", "max_win", "max_loss"]
                .map(field)
                .join(" "),
        );
    }
    (said, caches_made(&text(&late.stderr)))
}

/// The tables of `db` by name, with their bytes (the leaf caches aside).
fn mtb_files(db: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(db)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".mtb"))
        .map(|n| (n.clone(), fs::read(db.join(&n)).unwrap()))
        .collect()
}

fn block_cells(db: &Path) -> BTreeMap<String, u64> {
    mtb_files(db)
        .into_iter()
        .map(|(name, bytes)| {
            let t = table(&name, bytes, &nine7::nine().rules_key());
            (name, t.block_cells())
        })
        .collect()
}

#[test]
fn after_compact_every_reader_answers_the_same_and_leaf_caches_are_made_again() {
    let dir = scratch();
    let db = dir.path().join("db");
    ok(&db, common::SOLVE_NINE_8);
    assert!(block_cells(&db).values().all(|&b| b == SOLVE_BLOCK), "solve's default blocks");
    let (before, made) = answers(&db);
    assert!(made > 0, "the search made leaf caches");
    let wdl_before = dir.path().join("wdl-before");
    ok(&db, &["export", "--wdl", wdl_before.to_str().unwrap(), "--threads", "2"]);
    let sizes: u64 = mtb_files(&db).values().map(|b| b.len() as u64).sum();

    let out = ok(&db, &["compact", "--threads", "2"]);
    let blocks = block_cells(&db);
    let n = blocks.len();
    assert!(out.contains(&format!("{n} tables ({n} rewritten, 0 already compact)")), "{out}");
    assert!(out.contains("rewritten, checked") && out.contains("bits/state"), "{out}");
    assert!(blocks.values().all(|&b| b == COMPACT_BLOCK), "{blocks:?}");
    let now: u64 = mtb_files(&db).values().map(|b| b.len() as u64).sum();
    assert!(now < sizes, "{sizes} bytes became {now}");

    // The same answers; each leaf cache the search reads is stale (its
    // table was rewritten) and made again, not an error.
    let (after, made_again) = answers(&db);
    assert_eq!(after, before);
    assert_eq!(made_again, made, "every cache the search reads made again");
    let (_, made_now) = answers(&db);
    assert_eq!(made_now, 0, "and then used");
    let verify = ok(&db, &["verify", "--threads", "2"]);
    assert!(verify.contains("every value agrees"), "{verify}");
    let wdl_after = dir.path().join("wdl-after");
    ok(&db, &["export", "--wdl", wdl_after.to_str().unwrap(), "--threads", "2"]);
    assert!(common::files(&wdl_after) == common::files(&wdl_before), "the same WDL tier");

    // Run again: nothing to do, nothing touched.
    let files = common::files(&db.join("leaves"));
    let tables_now = mtb_files(&db);
    let again = ok(&db, &["compact", "--threads", "2"]);
    assert!(again.contains(&format!("({} rewritten, {n} already compact)", 0)), "{again}");
    assert!(mtb_files(&db) == tables_now && common::files(&db.join("leaves")) == files);
}

/// Six's whole game solved in a scratch directory: the directory, its
/// database and its tables as `solve` wrote them.
fn six_whole() -> (tempfile::TempDir, PathBuf, BTreeMap<String, Vec<u8>>) {
    let dir = scratch();
    let db = dir.path().join("db");
    ok(&db, &["--variant", "six", "solve", "--threads", "2"]);
    let old = common::tables(&db);
    (dir, db, old)
}

const SIX_COMPACT: [&str; 5] = ["--variant", "six", "compact", "--threads", "1"];

/// `morris compact` on six started, and stopped (SIGSTOP) once its first
/// table is done (the line after the header) and it writes another one;
/// with its stdout, which must stay open while it runs.
fn compact_stopped_in_its_second_table(db: &Path) -> (Child, impl Sized) {
    let mut child = common::spawn(db, &SIX_COMPACT);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    lines.find(|l| l.as_ref().unwrap().starts_with("3-3 ")).unwrap().unwrap();
    let writing = || common::files(db).keys().any(|n| n.ends_with(".mtb.tmp"));
    while !writing() {
        assert!(child.try_wait().unwrap().is_none(), "compact ended before it was stopped");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    common::signal(&child, libc::SIGSTOP);
    (child, lines)
}

/// Checks that every table of six in `db` is there, the old one (as in
/// `old`) or a compacted one holding the same cells; returns how many are
/// compacted and the temporary files there.
fn old_or_new(db: &Path, old: &BTreeMap<String, Vec<u8>>) -> (usize, Vec<String>) {
    let rules = morris::Variant::named("six").unwrap().rules_key();
    let files = common::files(db);
    let (mut done, mut stray) = (0, Vec::new());
    for (name, bytes) in &files {
        if !name.ends_with(".mtb") {
            assert!(name.ends_with(".mtb.tmp"), "only a temporary table: {name}");
            stray.push(name.clone());
            continue;
        }
        let was = &old[name];
        if bytes != was {
            let t = table(name, bytes.clone(), &rules);
            assert_eq!(t.block_cells(), COMPACT_BLOCK, "{name}");
            t.verify().unwrap();
            let cells = table(name, was.clone(), &rules).read_all().unwrap();
            assert!(t.read_all().unwrap() == cells, "{name} holds its cells");
            done += 1;
        }
    }
    let names: Vec<&String> = files.keys().filter(|n| n.ends_with(".mtb")).collect();
    assert_eq!(names, old.keys().collect::<Vec<_>>(), "no table missing");
    (done, stray)
}

#[test]
fn a_killed_compact_leaves_every_table_old_or_new_and_the_next_run_finishes() {
    let (_dir, db, old) = six_whole();
    let (child, _stdout) = compact_stopped_in_its_second_table(&db);
    common::signal(&child, libc::SIGKILL);
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), None, "killed");
    let (done, mut stray) = old_or_new(&db, &old);
    assert!(done >= 1 && done < old.len(), "{done} of {} compacted when killed", old.len());

    // The next run removes the temporary file (one is made if the kill
    // came just after a rename), skips what was done and compacts the
    // rest.
    if stray.is_empty() {
        fs::write(db.join("six-6-6.mtb.tmp"), "half a table").unwrap();
        stray.push("six-6-6.mtb.tmp".to_string());
    }
    let again = ok(&db, &SIX_COMPACT);
    for name in &stray {
        assert!(again.contains(&format!("removed {name}")), "{again}");
    }
    let want = format!("({} rewritten, {done} already compact)", old.len() - done);
    assert!(again.contains(&want), "{want} in {again}");
    let (done, stray) = old_or_new(&db, &old);
    assert_eq!((done, stray.len()), (old.len(), 0), "every table compacted, no stray file");
    let verify = ok(&db, &["--variant", "six", "verify", "--threads", "2"]);
    assert!(verify.contains("every value agrees"), "{verify}");
}

#[test]
fn ctrl_c_stops_the_compact_at_a_safe_point_and_the_next_run_resumes() {
    let (_dir, db, old) = six_whole();
    let (child, _stdout) = compact_stopped_in_its_second_table(&db);
    // A second compact meanwhile is refused, naming the first.
    let err = fails(&db, &SIX_COMPACT);
    let want = format!("is being solved by process {} (since ", child.id());
    assert!(err.contains(&want) && err.contains("; `morris --variant six compact"), "{err}");
    common::signal(&child, libc::SIGINT);
    common::signal(&child, libc::SIGCONT);
    let output = child.wait_with_output().unwrap();
    let err = text(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{err}");
    assert!(err.starts_with("morris: interrupted by SIGINT: "), "{err}");
    assert!(err.contains(&format!("finished: of {} tables, ", old.len())), "{err}");
    assert!(err.contains("run the same command again to resume"), "{err}");
    let (done, stray) = old_or_new(&db, &old);
    assert!(stray.is_empty(), "no temporary file: {stray:?}");
    assert!(done >= 1 && done < old.len(), "{done} of {} compacted when stopped", old.len());
    let again = ok(&db, &SIX_COMPACT);
    let want = format!("({} rewritten, {done} already compact)", old.len() - done);
    assert!(again.contains(&want), "{want} in {again}");
}

/// A lock that `take` takes, as soon as it is free. A flock lock follows
/// its file descriptor, and a child process that another test thread
/// spawns holds a copy of every descriptor from its fork to its exec: a
/// lock just dropped may outlive the drop by that moment (seen once in
/// CI, the holder this very process).
fn soon<E: std::fmt::Debug>(take: impl Fn() -> Result<lock::DirLock, E>) -> lock::DirLock {
    for _ in 0..100 {
        if let Ok(held) = take() {
            return held;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    take().unwrap()
}

#[test]
fn compact_is_refused_while_the_directory_is_locked() {
    let dir = scratch();
    let db = dir.path().join("db");
    ok(&db, &["--variant", "six", "solve", "--phase", "moving", "--max-stones", "8"]);
    let tables = common::tables(&db);
    let held = lock::lock(&db).unwrap();
    let err = fails(&db, &["--variant", "six", "compact"]);
    let want =
        format!("database {} is being solved by process {}", db.display(), std::process::id());
    assert!(err.contains(&want), "{err}");
    assert!(common::tables(&db) == tables, "nothing rewritten");
    // Single jobs of a solve hold it shared: refused too.
    drop(held);
    let shared = soon(|| lock::lock_shared(&db));
    let err = fails(&db, &["--variant", "six", "compact"]);
    assert!(err.contains("is being solved by single jobs"), "{err}");
    drop(shared);
    // The same moment may pass before the lock is free for the command.
    drop(soon(|| lock::lock(&db)));
    let out = ok(&db, &["--variant", "six", "compact"]);
    assert!(out.contains("already compact)"), "{out}");
}
