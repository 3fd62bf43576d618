//! `morris export --wdl` through the binary: it writes a win/draw/loss
//! table per full table, a second run keeps them all, a damaged one is
//! written again and a killed run's temporary file removed; `morris
//! stats` reads the tier's files and `morris verify` checks them; `query` and `probe` answer from them
//! without distances, `play` and `match` refuse them. The values themselves are compared
//! with the full tier's in `wdl.rs`.

mod common;

use common::{ok, scratch};
use serde_json::Value as Json;
use std::fs;
use std::path::Path;

fn wdl_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = common::files(dir).into_keys().collect();
    names.retain(|n| n.ends_with(".wdl"));
    names
}

#[test]
fn export_writes_every_table_resumes_and_stats_reads_the_tier() {
    let dir = scratch();
    let db = dir.path().join("db");
    let out = dir.path().join("wdl");
    let out_arg = out.to_str().unwrap();
    ok(&db, &["--variant", "six", "solve", "--phase", "moving", "--threads", "2"]);
    let tables = common::tables(&db).len();
    assert!(tables > 10);
    let export = ["--variant", "six", "export", "--wdl", out_arg, "--threads", "2"];

    let first = ok(&db, &export);
    assert!(
        first.contains(&format!("{tables} tables ({tables} written, 0 already there)")),
        "{first}"
    );
    assert!(first.contains("bits/state"), "{first}");
    let names = wdl_files(&out);
    assert_eq!(names.len(), tables);
    assert!(names.iter().all(|n| n.starts_with("six-")), "{names:?}");
    let written = common::files(&out);

    // A killed run's temporary file, and a damaged table.
    fs::write(out.join("six-4-4.wdl.tmp"), "half a table").unwrap();
    let damaged = out.join("six-4-4.wdl");
    let mut bytes = fs::read(&damaged).unwrap();
    let at = bytes.len() - 6;
    bytes[at] ^= 0x11;
    fs::write(&damaged, &bytes).unwrap();
    let second = ok(&db, &export);
    assert!(second.contains("removed six-4-4.wdl.tmp"), "{second}");
    let rest = tables - 1;
    assert!(second.contains(&format!("({} written, {rest} already there)", 1)), "{second}");
    assert!(common::files(&out) == written, "the same files, the damaged one whole again");

    let third = ok(&db, &export);
    assert!(third.contains(&format!("(0 written, {tables} already there)")), "{third}");

    // `stats` on the tier's directory: text, JSON and TSV.
    let text = ok(&out, &["--variant", "six", "stats"]);
    assert!(text.contains("win/draw/loss tier"), "{text}");
    assert!(text.contains(&format!("{tables} sectors")), "{text}");
    let json: Json =
        serde_json::from_str(&ok(&out, &["--variant", "six", "stats", "--json"])).unwrap();
    let rows = json.as_array().unwrap();
    assert_eq!(rows.len(), tables);
    assert!(rows.iter().all(|r| r["tier"] == "wdl"), "{json}");
    let bytes: u64 = rows.iter().map(|r| r["bytes"].as_u64().unwrap()).sum();
    let on_disk: u64 = written.values().map(|b| b.len() as u64).sum();
    assert_eq!(bytes, on_disk);
    let tsv = ok(&out, &["--variant", "six", "stats", "--tsv"]);
    assert_eq!(tsv.lines().count(), tables + 1, "{tsv}");
    // `verify` on the tier's directory checks the tier against itself.
    let verified = ok(&out, &["--variant", "six", "verify", "--threads", "2"]);
    assert!(verified.contains(&format!("checking {tables} win/draw/loss tables")), "{verified}");
    assert!(verified.contains("every outcome recomputed from its successors"), "{verified}");
    assert!(verified.contains("every outcome agrees"), "{verified}");

    // The full tier's JSON and TSV are as they were: no tier, no WDL rows.
    let full: Json =
        serde_json::from_str(&ok(&db, &["--variant", "six", "stats", "--json"])).unwrap();
    assert!(full.as_array().unwrap().iter().all(|r| r.get("tier").is_none()), "{full}");
}

#[test]
fn export_of_a_database_without_tables_is_an_error_that_says_so() {
    let dir = scratch();
    let out = dir.path().join("wdl");
    let output =
        common::morris(dir.path(), &["--variant", "six", "export", "--wdl", out.to_str().unwrap()]);
    assert!(!output.status.success());
    let err = common::text(&output.stderr);
    assert!(err.contains("no tables of six"), "{err}");
}

#[test]
fn ctrl_c_stops_the_export_without_a_half_file_and_the_next_run_resumes() {
    let dir = scratch();
    let db = dir.path().join("db");
    let out = dir.path().join("wdl");
    ok(&db, &["--variant", "six", "solve", "--threads", "2"]);
    let tables = common::tables(&db).len();
    let export = ["--variant", "six", "export", "--wdl", out.to_str().unwrap(), "--threads", "2"];

    // Stopped once its first table is there, so that it cannot finish
    // while the signal is delivered.
    let mut child = common::spawn(&db, &export);
    common::wait_for(&mut child, &out, "six-3-3.wdl");
    common::signal(&child, libc::SIGSTOP);
    common::signal(&child, libc::SIGINT);
    common::signal(&child, libc::SIGCONT);
    let output = child.wait_with_output().unwrap();
    let err = common::text(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{err}");
    assert!(err.starts_with("morris: interrupted by SIGINT: "), "{err}");
    assert!(err.contains(&format!("finished: of {tables} tables, ")), "{err}");
    assert!(err.contains("run the same command again to resume"), "{err}");
    let names: Vec<String> = common::files(&out).into_keys().collect();
    assert!(names.iter().all(|n| n.ends_with(".wdl")), "no half file: {names:?}");
    let done = names.len();
    assert!(done >= 1 && done < tables, "{done} of {tables}");

    // Every file it left checks out and is kept.
    let again = ok(&db, &export);
    let want = format!("{tables} tables ({} written, {done} already there)", tables - done);
    assert!(again.contains(&want), "{again}");
}

/// `--derive`: every table is exported, then the sectors to derive are
/// planned by the `.wdl` files' bytes (the plan `plan_derived` makes with
/// those weights), each gets its stub and loses its file; the tier is no
/// larger than the plan by states would make it, a stopped run goes on
/// with the same plan, and `verify` passes on the result.
#[test]
fn export_with_derive_plans_by_the_tier_s_bytes_and_resumes() {
    use morris::database::{plan_derived, Database};
    use morris::index::Sector;
    use morris::variant::Variant;
    use std::collections::{BTreeMap, BTreeSet};

    let dir = scratch();
    let db = dir.path().join("db");
    let (plain, out) = (dir.path().join("plain"), dir.path().join("derived"));
    ok(&db, &["--variant", "six", "solve", "--threads", "2"]);
    let export = |to: &Path, flag: &str| {
        let mut args = vec!["--variant", "six", "export", "--wdl", to.to_str().unwrap()];
        args.extend(["--threads", "2", flag]);
        ok(&db, &args)
    };
    // The plan is made by the sizes of the quick export's files.
    export(&plain, "--quick");
    let size = |dir: &Path, name: &str| fs::metadata(dir.join(name)).unwrap().len();
    let bytes: BTreeMap<Sector, u64> = wdl_files(&plain)
        .iter()
        .map(|n| (n["six-".len()..n.len() - 4].parse().unwrap(), size(&plain, n)))
        .collect();
    let sectors: Vec<Sector> = bytes.keys().copied().collect();
    let six = Variant::named("six").unwrap();
    let by_bytes = plan_derived(&six, &sectors, |s| bytes[&s], &BTreeSet::new());
    let states = |s: Sector| Database::new(&db, six.clone()).indexer().sector(s).canonical_states();
    let by_states = plan_derived(&six, &sectors, states, &BTreeSet::new());
    let kept = |plan: &BTreeSet<Sector>| -> u64 {
        bytes.iter().filter(|(s, _)| !plan.contains(s)).map(|(_, b)| b).sum()
    };
    assert!(kept(&by_bytes) < kept(&by_states), "{by_bytes:?} against {by_states:?}");

    let stubs = |dir: &Path| -> BTreeSet<Sector> {
        common::files(dir)
            .into_keys()
            .filter_map(|n| n.strip_suffix(".derived").map(|n| n["six-".len()..].parse().unwrap()))
            .collect()
    };
    let first = export(&out, "--derive");
    assert!(first.contains("chosen by their win/draw/loss bytes"), "{first}");
    assert_eq!(stubs(&out), by_bytes);
    let files = wdl_files(&out);
    assert_eq!(files.len() + by_bytes.len(), sectors.len(), "{files:?}");
    let on_disk: u64 = common::files(&out).values().map(|b| b.len() as u64).sum();
    assert!(on_disk < kept(&by_states), "{on_disk} bytes");
    // The kept tables were then compressed as hard as they go: version 2,
    // none larger than its quick version.
    let kept_tables = files.len();
    assert!(first.contains(&format!("compressing the {kept_tables} kept tables")), "{first}");
    let tier = Database::new(&out, six.clone());
    for name in &files {
        let sector: Sector = name["six-".len()..name.len() - 4].parse().unwrap();
        assert_eq!(tier.wdl_table(sector).unwrap().version(), 2, "{name}");
        assert!(size(&out, name) <= size(&plain, name), "{name}");
    }

    // As if stopped while deriving: one stub not yet written.
    let last = *by_bytes.iter().next_back().unwrap();
    fs::remove_file(out.join(format!("six-{last}.derived"))).unwrap();
    fs::copy(plain.join(format!("six-{last}.wdl")), out.join(format!("six-{last}.wdl"))).unwrap();
    let again = export(&out, "--derive");
    assert!(again.contains(&format!("{} derived before", by_bytes.len() - 1)), "{again}");
    assert!(again.contains("1 derived, "), "{again}");
    assert_eq!(stubs(&out), by_bytes);
    let verified = ok(&out, &["--variant", "six", "verify", "--threads", "2"]);
    assert!(verified.contains("every outcome agrees"), "{verified}");
}

#[test]
fn query_probe_and_play_on_the_tier_alone_give_values_moves_and_say_the_line_needs_the_full_tier() {
    let dir = scratch();
    let db = dir.path().join("db");
    let out = dir.path().join("wdl");
    ok(&db, &["--variant", "six", "solve", "--phase", "moving", "--threads", "2"]);
    ok(&db, &["--variant", "six", "export", "--wdl", out.to_str().unwrap(), "--threads", "2"]);
    let needs = |what: &str| {
        format!(
            "{} holds only the win/draw/loss tier of sector 3-3: {what} needs distances, from the full tables (`morris solve --variant six --max-stones 6 --db {}`)",
            out.display(),
            out.display()
        )
    };

    // White to move closes a mill by e3-e5 (Black is left with 2
    // stones); its other moves win too, in more plies.
    let position = "WW.W..../B.B.B... w 0 0";
    let text = ok(&out, &["--variant", "six", "query", position]);
    let full = ok(&db, &["--variant", "six", "query", position]);
    assert!(full.contains("value      White wins in 1 ply\n"), "{full}");
    for line in [
        "value      White wins (from the win/draw/loss tier; distances need the full tables)\n",
        "moves      8, best first, with White's result after each\n",
        "  e3-e5xb4  win in 1\n",
        "  a5-a3     win\n",
        &format!("line       none: {}\n", needs("a perfect-play line")),
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    let json = common::json(&ok(&out, &["--variant", "six", "query", "--json", position]));
    assert_eq!(json["value"], "win");
    assert_eq!((&json["plies"], &json["exact"]), (&Json::Null, &Json::Bool(false)));
    assert_eq!(json["line"], Json::Array(Vec::new()));
    assert_eq!(json["line_missing"], Json::from(needs("a perfect-play line")));
    let full = common::json(&ok(&db, &["--variant", "six", "query", "--json", position]));
    assert!(full.get("line_missing").is_none(), "{full}");
    let kinds = |j: &Json| -> Vec<(String, String)> {
        let mut m: Vec<_> = j["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["move"].to_string(), m["value"].to_string()))
            .collect();
        m.sort();
        m
    };
    assert_eq!(kinds(&json), kinds(&full));

    // The start: the placement search over the tier's moving phase.
    let start = common::json(&ok(&out, &["--variant", "six", "query", "--json", "start"]));
    let full_start = common::json(&ok(&db, &["--variant", "six", "query", "--json", "start"]));
    assert_eq!(start["value"], full_start["value"]);
    assert_eq!(kinds(&start), kinds(&full_start));
    assert_eq!(start["exact"], false);
    assert!(start["line_missing"]
        .as_str()
        .unwrap()
        .contains("a perfect-play line needs distances"));

    // probe: the values without distances, marked inexact.
    let output = common::morris_with_input(
        &out,
        &["--variant", "six", "probe", "--moves"],
        &format!("{position}\n"),
    );
    assert!(output.status.success(), "{}", common::text(&output.stderr));
    let probed = common::json(&common::text(&output.stdout));
    assert_eq!((&probed["value"], &probed["plies"]), (&Json::from("win"), &Json::Null));
    assert_eq!(probed["exact"], false);
    assert_eq!(kinds(&probed), kinds(&full));

    // The perfect player needs the distances: play and match refuse.
    let err = common::fails(&out, &["--variant", "six", "play", "--from", position]);
    assert!(err.contains(&needs("the perfect player")), "{err}");
    let err = common::fails(&out, &["--variant", "six", "match", "--games", "1"]);
    assert!(err.contains("the perfect player needs distances"), "{err}");
}
