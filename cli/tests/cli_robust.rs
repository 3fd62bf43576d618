//! `morris solve` when things go wrong around it, through the binary: a
//! second solver on the same directory, a file system too small, SIGINT
//! and SIGTERM in the middle of a pair, leftovers of other runs, a
//! read-only directory. Each case ends in its documented exit code and
//! one line, and after recovery `verify` passes and the tables are byte
//! for byte those of an undisturbed run.
//!
//! The file-system cases mount a tmpfs, which needs root (CI runs as
//! root); without it they print why and pass without checking.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use tempfile::TempDir;

mod common;
use common::{
    assert_same_tables, fails, field, files, json, nine_up_to_8, ok, scratch, signal, spawn, text,
    wait_for, SOLVE_NINE_8,
};

fn assert_verifies(db: &Path, args: &[&str]) {
    let out = ok(db, &[&["verify", "--threads", "2"], args].concat());
    assert!(out.contains("every value agrees"), "{out}");
}

/// Stops `child` when `file` appears and delivers `signals` to it while
/// it is stopped (so it cannot finish the pair meanwhile), then lets it
/// run; returns its exit code and stderr.
fn interrupt_when(
    mut child: Child,
    db: &Path,
    file: &str,
    signals: &[i32],
) -> (Option<i32>, String) {
    wait_for(&mut child, db, file);
    signal(&child, libc::SIGSTOP);
    for &s in signals {
        signal(&child, s);
    }
    signal(&child, libc::SIGCONT);
    let output = child.wait_with_output().unwrap();
    (output.status.code(), text(&output.stderr))
}

#[test]
fn a_second_solve_on_the_same_directory_is_refused_while_readers_go_on() {
    let db = scratch();
    let mut first = spawn(db.path(), SOLVE_NINE_8);
    // Held still once it has tables, so it is sure to hold the lock.
    wait_for(&mut first, db.path(), "nine-4-4.mtb");
    signal(&first, libc::SIGSTOP);

    let err = fails(db.path(), SOLVE_NINE_8);
    let holder = format!(
        "database {} is being solved by process {} (since 20",
        db.path().display(),
        first.id()
    );
    // The holder's command closes the line.
    let command =
        format!(" UTC; `morris {} --db {}`)", SOLVE_NINE_8.join(" "), db.path().display());
    assert!(err.contains(&holder) && err.trim_end().ends_with(&command), "{err}");
    // Readers take no lock and see only complete tables.
    let stats = ok(db.path(), &["stats"]);
    assert!(
        stats.lines().any(|l| l.starts_with("3-4 "))
            && stats.lines().any(|l| l.starts_with("4-4 ")),
        "{stats}"
    );
    let query = ok(db.path(), &["query", "WWW...../BBBB..../........ w 0 0", "--json"]);
    assert_eq!(*field(&json(&query), "value"), "draw", "{query}");

    signal(&first, libc::SIGCONT);
    let output = first.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    // The lock went with the process: the next solve gets it.
    let again = ok(db.path(), SOLVE_NINE_8);
    assert!(again.contains("all 4 pairs up to 8 stones already solved"), "{again}");
    assert_same_tables(db.path(), nine_up_to_8());
    assert_verifies(db.path(), &[]);
}

#[test]
fn sigterm_and_sigint_stop_at_a_safe_point_and_the_next_run_resumes() {
    let db = scratch();
    let solve: Vec<&str> = [SOLVE_NINE_8, &["--checkpoint-secs", "0"]].concat();

    let (code, err) =
        interrupt_when(spawn(db.path(), &solve), db.path(), "nine-4-3.ckpt", &[libc::SIGTERM]);
    assert_eq!(code, Some(143), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(
            "morris: interrupted by SIGTERM: stopped in pair {4,3}; its checkpoint at depth "
        ),
        "{err}"
    );
    assert!(
        err.ends_with("; finished: 1 of 4 pairs; run the same command again to resume\n"),
        "{err}"
    );
    assert!(db.path().join("nine-3-3.mtb").exists() && !db.path().join("nine-4-3.mtb").exists());

    // A second Ctrl-C exits at once, with the same code; nothing finished
    // is lost.
    let mut child = spawn(db.path(), &solve);
    wait_for(&mut child, db.path(), "nine-5-3.ckpt");
    signal(&child, libc::SIGINT);
    signal(&child, libc::SIGINT);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", text(&output.stderr));
    for name in ["nine-3-3.mtb", "nine-3-4.mtb", "nine-4-3.mtb", "nine-4-4.mtb"] {
        assert_eq!(
            fs::read(db.path().join(name)).unwrap(),
            fs::read(nine_up_to_8().join(name)).unwrap(),
            "{name}"
        );
    }
    // Its checkpoint goes, so that the next run makes a fresh one.
    for name in ["nine-5-3.ckpt", "nine-5-3.ckpt.tmp"] {
        let _ = fs::remove_file(db.path().join(name));
    }

    let (code, err) =
        interrupt_when(spawn(db.path(), &solve), db.path(), "nine-5-3.ckpt", &[libc::SIGINT]);
    assert_eq!(code, Some(130), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(
            "morris: interrupted by SIGINT: stopped in pair {5,3}; its checkpoint at depth "
        ),
        "{err}"
    );
    assert!(err.contains("finished: 3 of 4 pairs"), "{err}");

    let out = ok(db.path(), SOLVE_NINE_8);
    assert!(out.contains("already solved: 3 pairs: {3,3} {4,3} {4,4}\n"), "{out}");
    assert!(
        out.contains("kept nine-5-3.ckpt: the checkpoint of an interrupted run at depth "),
        "{out}"
    );
    assert!(out.contains("pair {5,3}: resuming from its checkpoint at depth "), "{out}");
    assert_same_tables(db.path(), nine_up_to_8());
    assert_verifies(db.path(), &[]);
}

#[test]
fn leftovers_of_runs_under_other_rules_are_removed_and_said() {
    // The checkpoint of nine without flying, from a run killed in {4,3}.
    let other = scratch();
    let mut child = spawn(
        other.path(),
        &[
            "solve",
            "--phase",
            "moving",
            "--max-stones",
            "7",
            "--threads",
            "2",
            "--fly-at",
            "never",
            "--checkpoint-secs",
            "0",
        ],
    );
    wait_for(&mut child, other.path(), "nine-4-3.ckpt");
    signal(&child, libc::SIGSTOP);
    let db = scratch();
    fs::copy(other.path().join("nine-4-3.ckpt"), db.path().join("nine-4-3.ckpt")).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    // And what a kill leaves mid-write, plus another variant's file.
    fs::write(db.path().join("nine-5-3.mtb.tmp"), b"half a table").unwrap();
    fs::write(db.path().join("nine-4-4.work"), b"cells").unwrap();
    fs::write(db.path().join("nine-4-4.ckpt"), b"not a checkpoint").unwrap();
    fs::write(db.path().join("nine-4-4.ckpt.tmp"), b"half a checkpoint").unwrap();
    fs::write(db.path().join("six-3-3.work"), b"six's business").unwrap();

    let out = ok(db.path(), SOLVE_NINE_8);
    for (name, why) in [
        ("nine-4-3.ckpt", "a checkpoint solved under other rules"),
        ("nine-4-4.ckpt", "a checkpoint that cannot be read"),
        ("nine-4-4.ckpt.tmp", "an unfinished write of an interrupted run"),
        ("nine-4-4.work", "working cells of an interrupted run"),
        ("nine-5-3.mtb.tmp", "an unfinished write of an interrupted run"),
    ] {
        assert!(out.contains(&format!("removed {name}: {why}")), "{name}: {out}");
    }
    assert!(!out.contains("resuming"), "{out}");
    assert_eq!(fs::read(db.path().join("six-3-3.work")).unwrap(), b"six's business");
    fs::remove_file(db.path().join("six-3-3.work")).unwrap();
    assert_same_tables(db.path(), nine_up_to_8());
    assert_verifies(db.path(), &[]);
}

#[test]
fn missing_sector_hints_name_the_rules_and_lists_can_be_whole() {
    let db = scratch();
    ok(db.path(), &["solve", "--phase", "moving", "--max-stones", "6", "--fly-at", "never"]);
    let err = fails(db.path(), &["query", "WWWW..../BBB...../........ w 0 0", "--fly-at", "never"]);
    let command = format!(
        "run `morris solve --variant nine --fly-at never --max-stones 7 --db {}`",
        db.path().display()
    );
    assert!(
        err.contains("sector 4-3 of nine is not in the database") && err.contains(&command),
        "{err}"
    );

    let out = ok(db.path(), &["stats", "--fly-at", "never", "--all"]);
    let note = out
        .lines()
        .find(|l| l.starts_with("not in the database (48 of 49 sectors): "))
        .expect(&out);
    assert_eq!(note.split(": ").nth(1).unwrap().split(' ').count(), 48, "{note}");
    assert!(note.ends_with(" 9-8 9-9"), "{note}");
    let short = ok(db.path(), &["stats", "--fly-at", "never"]);
    assert!(short.contains(": 3-4 3-5 3-6 3-7 3-8 3-9 4-3 4-4 4-5 4-6 4-7 4-8 ...\n"), "{short}");
    let out = ok(db.path(), &["verify", "--fly-at", "never", "--all"]);
    assert!(
        out.contains("not in the database, not checked (48): 3-4 3-5 ")
            && out.contains(" 9-8 9-9\n"),
        "{out}"
    );
    // A slice lists only its own missing sectors (of 6 and 7 stones).
    let out = ok(db.path(), &["verify", "--fly-at", "never", "--max-stones", "7"]);
    assert!(out.contains("\nnot in the database, not checked (2): 3-4 4-3\n"), "{out}");
    let listed = ok(db.path(), &["stats", "--fly-at", "never", "--all", "--json"]);
    let stats = json(&listed);
    let objects = stats.as_array().unwrap_or_else(|| panic!("not an array: {listed}"));
    let missing = objects.iter().filter(|o| o.get("missing") == Some(&true.into())).count();
    assert_eq!(missing, 48, "{listed}");
    assert!(listed.contains("{\"sector\": \"9-9\", \"missing\": true}\n]\n"), "{listed}");
    assert!(!ok(db.path(), &["stats", "--fly-at", "never", "--json"]).contains("missing"));
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted when dropped;
/// `None` (with the reason printed) where mounting is not possible.
struct Tmpfs {
    dir: TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = scratch();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::piped())
            .output();
        match status {
            Ok(o) if o.status.success() => Some(Tmpfs { dir }),
            Ok(o) => {
                eprintln!("skipped: cannot mount a tmpfs (needs root): {}", text(&o.stderr).trim());
                None
            }
            Err(e) => {
                eprintln!("skipped: cannot run mount: {e}");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn remount(&self, options: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(self.path())
            .status()
            .unwrap();
        assert!(status.success(), "remount {options}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.path()).status();
    }
}

#[test]
fn a_file_system_too_small_for_a_pair_fails_before_it_and_resumes_once_there_is_space() {
    // {4,4} needs about 22 MB (checkpoints and a bound on its tables),
    // {5,3} about 36 MB.
    let Some(fs) = Tmpfs::mount("30m") else { return };
    let err = fails(fs.path(), SOLVE_NINE_8);
    assert!(
        err.contains(&format!(
            "not enough space in {} for pair {{5,3}}: it needs ",
            fs.path().display()
        )),
        "{err}"
    );
    assert!(
        err.contains(" bytes (two checkpoints per side and a safe bound on the tables), "),
        "{err}"
    );
    assert!(err.contains(" are free; free some and run the same command again"), "{err}");
    let before = files(fs.path());
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        ["nine-3-3.mtb", "nine-3-4.mtb", "nine-4-3.mtb", "nine-4-4.mtb"]
    );
    // Still too small: nothing changes.
    fails(fs.path(), SOLVE_NINE_8);
    assert_eq!(files(fs.path()), before);

    fs.remount("size=64m");
    let out = ok(fs.path(), SOLVE_NINE_8);
    assert!(out.contains("solved 1 pair, skipped 3 already solved"), "{out}");
    assert_same_tables(fs.path(), nine_up_to_8());
    assert_verifies(fs.path(), &[]);
}

#[test]
fn a_read_only_directory_fails_to_solve_in_one_line_and_still_answers_queries() {
    let Some(fs) = Tmpfs::mount("16m") else { return };
    let six = ["--variant", "six"];
    ok(
        fs.path(),
        &[&six[..], &["solve", "--phase", "moving", "--max-stones", "7", "--threads", "2"]]
            .concat(),
    );
    fs.remount("ro");
    let before = files(fs.path());
    let err = fails(
        fs.path(),
        &[&six[..], &["solve", "--phase", "moving", "--max-stones", "8"]].concat(),
    );
    let expected = format!("morris: error: database {} is not writable, so it cannot be solved into (queries still work): ", fs.path().display());
    assert!(err.starts_with(&expected) && err.contains("Read-only file system"), "{err}");
    assert_eq!(files(fs.path()), before);
    let stats = ok(fs.path(), &[&six[..], &["stats"]].concat());
    assert!(stats.contains("\n3 sectors "), "{stats}");
    ok(fs.path(), &[&six[..], &["query", "WWW...../BBBB.... w 0 0"]].concat());
    assert_verifies(fs.path(), &six);

    // Writable again, the same command goes on, to the tables of a run
    // that never met a read-only directory.
    fs.remount("rw");
    let solve_8 =
        [&six[..], &["solve", "--phase", "moving", "--max-stones", "8", "--threads", "2"]].concat();
    let out = ok(fs.path(), &solve_8);
    assert!(out.contains("already solved: 2 pairs: {3,3} {4,3}\n"), "{out}");
    let undisturbed = scratch();
    ok(undisturbed.path(), &solve_8);
    assert_same_tables(fs.path(), undisturbed.path());
    assert_verifies(fs.path(), &six);
}
