//! `morris plan` and `morris solve --job`, as a scheduler runs them: the
//! plan's dependencies are complete, solving job by job in the printed
//! order gives the tables of one `solve` byte for byte, a job missing a
//! dependency fails before doing anything, a solved job is left alone,
//! and several jobs share a directory while the same job twice cannot.

use serde_json::Value as Json;
use std::collections::HashMap;
use std::fs;
use std::path::Path;
use tempfile::TempDir;

mod common;
use common::{
    assert_same_tables, fails, json, morris, ok, scratch, signal, spawn, tables, text, wait_for,
};

/// `morris plan --json` with `args`, parsed.
fn plan(db: &Path, args: &[&str]) -> Vec<Json> {
    let mut all = vec!["plan", "--json"];
    all.extend_from_slice(args);
    json(&ok(db, &all)).as_array().expect("an array").clone()
}

fn strings(value: &Json) -> Vec<String> {
    value
        .as_array()
        .expect("an array")
        .iter()
        .map(|s| s.as_str().expect("a string").to_string())
        .collect()
}

/// Every job's dependencies come before it, in an earlier wave, and are
/// exactly the jobs that write the tables it reads; every sector is
/// written by one job. Returns the job ids in order.
fn check_plan(jobs: &[Json]) -> Vec<String> {
    let mut writer: HashMap<String, String> = HashMap::new();
    let mut wave: HashMap<String, u64> = HashMap::new();
    let mut ids = Vec::new();
    for job in jobs {
        let id = job["job"].as_str().unwrap().to_string();
        let my_wave = job["wave"].as_u64().unwrap();
        let depends_on = strings(&job["depends_on"]);
        for dep in &depends_on {
            let dep_wave = wave
                .get(dep)
                .unwrap_or_else(|| panic!("{id} depends on {dep}, which does not come before it"));
            assert!(
                *dep_wave < my_wave,
                "{id} in wave {my_wave}, its dependency {dep} in {dep_wave}"
            );
        }
        for sector in strings(&job["reads"]) {
            let by = writer
                .get(&sector)
                .unwrap_or_else(|| panic!("{id} reads {sector}, written by no job before it"));
            assert!(
                depends_on.contains(by),
                "{id} reads {sector} of job {by}, not in its depends_on {depends_on:?}"
            );
        }
        for sector in strings(&job["sectors"]) {
            assert!(
                writer.insert(sector.clone(), id.clone()).is_none(),
                "{sector} written by two jobs"
            );
        }
        for key in ["states", "slots", "memory", "disk"] {
            assert!(job[key].as_u64().unwrap() > 0, "{id}: {key}");
        }
        assert!(wave.insert(id.clone(), my_wave).is_none(), "{id} twice");
        ids.push(id);
    }
    ids
}

#[test]
fn the_plan_lists_each_job_after_the_jobs_whose_tables_it_reads() {
    let db = scratch();
    let six = plan(db.path(), &["--variant", "six"]);
    check_plan(&six);
    let sectors: usize = six.iter().map(|j| strings(&j["sectors"]).len()).sum();
    assert_eq!(sectors, 16 + 70, "six: every moving and placement sector");
    let states: u64 = six.iter().map(|j| j["states"].as_u64().unwrap()).sum();
    let listed = plan(db.path(), &["--variant", "nine", "--phase", "moving", "--max-stones", "8"]);
    let ids = check_plan(&listed);
    assert_eq!(ids, ["3-3", "4-3", "4-4", "5-3"]);
    assert_eq!(strings(&listed[1]["sectors"]), ["4-3", "3-4"]);
    assert_eq!(strings(&listed[3]["depends_on"]), ["4-3"]);
    check_plan(&plan(db.path(), &["--variant", "nine"]));
    check_plan(&plan(db.path(), &["--variant", "twelve", "--max-stones", "12"]));

    // The text form: one line per job, id and wave first, for awk.
    let table = ok(db.path(), &["plan", "--variant", "six"]);
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| l.split_whitespace().nth(1).is_some_and(|w| w.parse::<u32>().is_ok()))
        .collect();
    assert_eq!(rows.len(), six.len(), "{table}");
    assert!(rows[0].starts_with("3-3 ") && rows[0].trim_end().ends_with(" -"), "{table}");
    assert!(table.contains(&format!("{} jobs, {states} states;", six.len())), "{table}");
    // The plan neither needs nor touches the directory.
    assert!(fs::read_dir(db.path()).unwrap().next().is_none());

    // Lasker's placement phase is planned as pairs, after the moving phase.
    let lasker = plan(db.path(), &["--variant", "lasker", "--max-stones", "7"]);
    let moving =
        plan(db.path(), &["--variant", "lasker", "--phase", "moving", "--max-stones", "7"]);
    assert_eq!(moving.len(), 2);
    assert!(lasker.len() > moving.len(), "{lasker:?}");
    assert!(lasker.iter().any(|j| j["job"] == "1-1-3-2"), "{lasker:?}");
    fails(db.path(), &["plan", "--max-stones", "5"]);
}

/// Solves every job of `plan_args`' plan one by one into a fresh
/// directory, in the printed order, and compares with one `solve` of
/// `solve_args`.
fn job_by_job_equals_one_solve(variant: &str, plan_args: &[&str], solve_args: &[&str]) -> TempDir {
    let (jobs_db, whole) = (scratch(), scratch());
    let mut args = vec!["--variant", variant];
    args.extend_from_slice(plan_args);
    let ids = check_plan(&plan(jobs_db.path(), &args));
    for id in &ids {
        let out =
            ok(jobs_db.path(), &["solve", "--variant", variant, "--job", id, "--threads", "1"]);
        assert!(out.contains(&format!("solved job {id}: tables ")), "{out}");
    }
    let mut args = vec!["solve", "--variant", variant, "--threads", "2"];
    args.extend_from_slice(solve_args);
    ok(whole.path(), &args);
    assert_same_tables(jobs_db.path(), whole.path());
    jobs_db
}

#[test]
fn six_solved_job_by_job_has_the_tables_of_one_solve() {
    let db = job_by_job_equals_one_solve("six", &[], &[]);
    // Done is done: a job whose tables exist does nothing, and says so.
    let before = tables(db.path());
    let out = ok(db.path(), &["solve", "--variant", "six", "--job", "5-4"]);
    assert!(
        out.contains("job 5-4 already solved in ") && out.contains("(tables 5-4 4-5)"),
        "{out}"
    );
    let out = ok(db.path(), &["solve", "--variant", "six", "--job", "1-1-5-5"]);
    assert!(out.contains("job 1-1-5-5 already solved"), "{out}");
    assert!(tables(db.path()) == before);
    // And a whole-directory solve finds nothing left to do.
    let out = ok(db.path(), &["solve", "--variant", "six"]);
    assert!(out.contains("already solved") && !out.contains("solved 1"), "{out}");
}

#[test]
fn nine_up_to_8_stones_solved_job_by_job_has_the_tables_of_one_solve() {
    job_by_job_equals_one_solve("nine", &["--max-stones", "8"], &["--max-stones", "8"]);
}

#[test]
fn a_job_whose_dependency_is_missing_fails_naming_it_and_does_nothing() {
    let db = scratch();
    let err = fails(db.path(), &["solve", "--variant", "six", "--pair", "4,3"]);
    assert!(
        err.contains("job 4-3 of six needs sector 3-3, which is not in the database "),
        "{err}"
    );
    assert!(
        err.contains("solve job 3-3 first (`morris solve --variant six --job 3-3 --db "),
        "{err}"
    );
    assert!(tables(db.path()).is_empty());
    ok(db.path(), &["solve", "--variant", "six", "--job", "3-3"]);
    // Pair {5,3}: a capture from 3-5 leads to 4-3, which job 4-3 writes.
    let err = fails(db.path(), &["solve", "--variant", "six", "--job", "5-3"]);
    assert!(
        err.contains("job 5-3 of six needs sector 4-3,") && err.contains("--job 4-3 "),
        "{err}"
    );
    // A placement sector reads the sectors its placements lead to.
    let err = fails(db.path(), &["solve", "--variant", "six", "--job", "3-3-1-0"]);
    assert!(err.contains("job 3-3-1-0 of six needs sector 3-4,"), "{err}");
    assert_eq!(tables(db.path()).keys().collect::<Vec<_>>(), ["six-3-3.mtb"]);
    // Other rules name their --fly-at in the command (in a directory of
    // their own: six-3-3 above is of the usual rules, and a table of other
    // rules is refused before any dependency is looked at).
    let other = scratch();
    let err = fails(other.path(), &["solve", "--variant", "six", "--fly-at", "3", "--job", "4-3"]);
    assert!(err.contains("--variant six --fly-at 3 --job 3-3"), "{err}");
}

#[test]
fn bad_jobs_are_refused_in_one_line() {
    let db = scratch();
    for (args, says) in [
        (
            &["solve", "--job", "10-3"][..],
            "10-3 is not a job of nine: a pair has 3 to 9 stones a side",
        ),
        (&["solve", "--job", "4-3-0-0"][..], "solved with its pair"),
        (&["solve", "--job", "2-1-7-7"][..], "no game from the start reaches"),
        (&["solve", "--job", "four"][..], "'four' is not a job"),
        (
            &["solve", "--pair", "3-3-1-0", "--variant", "six"][..],
            "3-3-1-0 is a placement sector, not a pair; use --job",
        ),
    ] {
        let err = fails(db.path(), args);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // A job is one job: the options of a whole solve do not go with it.
    let output = morris(db.path(), &["solve", "--job", "3-3", "--max-stones", "8"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(tables(db.path()).is_empty());
}

/// Two machines on one directory, played by two processes: while job 5-3
/// runs (held still), job 4-4 runs beside it, a second run of 5-3 is
/// refused, and so is a whole-directory solve; in the end the tables are
/// those of one solve.
#[test]
fn different_jobs_share_a_directory_and_the_same_job_twice_is_refused() {
    let (db, whole) = (scratch(), scratch());
    for id in ["3-3", "4-3"] {
        ok(db.path(), &["solve", "--job", id]);
    }
    // A checkpoint after every level: once one is there, 5-3 is sure to
    // be under way, holding its lock.
    let mut running =
        spawn(db.path(), &["solve", "--job", "5-3", "--threads", "1", "--checkpoint-secs", "0"]);
    wait_for(&mut running, db.path(), "nine-5-3.ckpt");
    signal(&running, libc::SIGSTOP);

    let out = ok(db.path(), &["solve", "--job", "4-4", "--threads", "1"]);
    assert!(out.contains("solved job 4-4"), "{out}");
    let err = fails(db.path(), &["solve", "--job", "3-5"]);
    let holder = format!(
        "job 5-3 is being solved in {} by process {} (since 20",
        db.path().display(),
        running.id()
    );
    assert!(err.contains(&holder), "{err}");
    let err = fails(db.path(), &["solve", "--phase", "moving", "--max-stones", "8"]);
    assert!(err.contains("is being solved by single jobs (`morris solve --job`)"), "{err}");

    signal(&running, libc::SIGCONT);
    let output = running.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("solved job 5-3"), "{}", text(&output.stdout));
    ok(whole.path(), &["solve", "--phase", "moving", "--max-stones", "8"]);
    assert_same_tables(db.path(), whole.path());
}
