//! ARCHITECTURE.md names the code as it is: every `src/...` path it writes
//! in backticks exists, and every `.rs` file under `src/` is named there by
//! its whole path (in backticks, as in its module list). After moving,
//! adding or removing a file under `src/`, update that list.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `src/...` paths written in backticks in ARCHITECTURE.md, outside
/// fenced blocks; a span with a space in it is not a path.
fn named_paths(text: &str) -> BTreeSet<String> {
    // Fenced blocks (the layer diagram) are pictures, not names.
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    let mut named = BTreeSet::new();
    for (i, span) in prose.split('`').enumerate() {
        if i % 2 == 1 && span.starts_with("src/") && !span.contains(char::is_whitespace) {
            named.insert(span.to_string());
        }
    }
    named
}

fn rust_files(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root()).unwrap();
            out.insert(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

fn architecture() -> String {
    fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

#[test]
fn every_path_architecture_md_names_exists() {
    let named = named_paths(&architecture());
    assert!(named.len() > 10, "ARCHITECTURE.md names too few src/ paths: {named:?}");
    let missing: Vec<&String> = named.iter().filter(|p| !root().join(p).exists()).collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist (update its module list): {missing:?}"
    );
}

#[test]
fn every_source_file_is_named_in_architecture_md() {
    let named = named_paths(&architecture());
    let mut files = BTreeSet::new();
    rust_files(&root().join("src"), &mut files);
    assert!(!files.is_empty());
    let unnamed: Vec<&String> = files.iter().filter(|f| !named.contains(*f)).collect();
    assert!(
        unnamed.is_empty(),
        "files under src/ that ARCHITECTURE.md does not name (add them to its module list, \
         by their whole path in backticks): {unnamed:?}"
    );
}

#[test]
fn the_check_reads_paths_in_backticks_only() {
    let named = named_paths("a `src/a.rs` and `src/b/` but not src/c.rs nor `src/d.rs x`");
    let expected: BTreeSet<String> = ["src/a.rs", "src/b/"].iter().map(|s| s.to_string()).collect();
    assert_eq!(named, expected);
}
