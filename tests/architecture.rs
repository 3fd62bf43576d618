//! ARCHITECTURE.md names the code as it is: every `src/...` and
//! `cli/src/...` path it writes in backticks exists, and every `.rs` file
//! under `src/` (the library) and `cli/src/` (the binary) is named there by
//! its whole path (in backticks, as in its module list). After moving,
//! adding or removing a file there, update that list.
//!
//! And the library's imports follow its layers: every `crate::` path in
//! the library's non-test code names a module of a lower layer of the
//! `layers` block of ARCHITECTURE.md, or one of the same layer that the
//! block allows (`may: A -> B`).

use std::collections::{BTreeMap, BTreeSet};
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
        let source = span.starts_with("src/") || span.starts_with("cli/src/");
        if i % 2 == 1 && source && !span.contains(char::is_whitespace) {
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
    rust_files(&root().join("cli/src"), &mut files);
    assert!(files.iter().any(|f| f.starts_with("cli/src/")));
    let unnamed: Vec<&String> = files.iter().filter(|f| !named.contains(*f)).collect();
    assert!(
        unnamed.is_empty(),
        "files under src/ that ARCHITECTURE.md does not name (add them to its module list, \
         by their whole path in backticks): {unnamed:?}"
    );
}

#[test]
fn the_check_reads_paths_in_backticks_only() {
    let named =
        named_paths("a `src/a.rs`, `cli/src/e.rs` and `src/b/` but not src/c.rs nor `src/d.rs x`");
    let expected: BTreeSet<String> =
        ["src/a.rs", "src/b/", "cli/src/e.rs"].iter().map(|s| s.to_string()).collect();
    assert_eq!(named, expected);
}

/// The layers of ARCHITECTURE.md's `layers` block: each module's layer
/// (0 the top) and the imports allowed within a layer.
struct Layers {
    layer: BTreeMap<String, usize>,
    allowed: BTreeSet<(String, String)>,
}

fn layers(text: &str) -> Layers {
    let block = text
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("ARCHITECTURE.md has a ```layers block");
    let (mut layer, mut allowed) = (BTreeMap::new(), BTreeSet::new());
    let mut n = 0;
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(rule) = line.strip_prefix("may:") {
            let (a, b) = rule.split_once("->").unwrap_or_else(|| panic!("bad rule: {line}"));
            allowed.insert((a.trim().to_string(), b.trim().to_string()));
        } else {
            for module in line.split_whitespace() {
                assert!(layer.insert(module.to_string(), n).is_none(), "{module} listed twice");
            }
            n += 1;
        }
    }
    Layers { layer, allowed }
}

/// A library source file's code without its comments and its test
/// modules (`#[cfg(test)] mod ... { ... }` at the top level).
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line == "#[cfg(test)]" && lines.peek().is_some_and(|l| l.starts_with("mod ")) {
            let header = lines.next().unwrap();
            if header.ends_with('{') {
                for l in lines.by_ref() {
                    if l == "}" {
                        break;
                    }
                }
            }
            continue;
        }
        let line = line.split("//").next().unwrap();
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// The modules the `crate::` paths of `code` name: `crate::a::...`, and
/// each `a` of `crate::{a::..., b}`.
fn imports(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let name = item.trim().split("::").next().unwrap().trim();
                if is_module_name(name) {
                    found.insert(name.to_string());
                }
            }
        } else {
            let name: String =
                rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// A module is named in snake case; types and functions brought in from
/// the crate root are not modules.
fn is_module_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_')
}

/// The library module a file under `src/` belongs to: its first path
/// component (`src/database/lock.rs` is in `database`).
fn module_of(relative: &str) -> String {
    let path = relative.strip_prefix("src/").unwrap();
    path.split('/').next().unwrap().trim_end_matches(".rs").to_string()
}

/// The imports of `module` (from `code`) that break the layers, each as
/// `module -> target (why)`; the imports checked are added to `edges`.
fn violations(layers: &Layers, module: &str, code: &str, edges: &mut usize) -> Vec<String> {
    let mut wrong = Vec::new();
    let Some(&own) = layers.layer.get(module) else {
        return vec![format!("{module} is in no layer of ARCHITECTURE.md")];
    };
    for target in imports(code).into_iter().filter(|t| t != module) {
        *edges += 1;
        match layers.layer.get(&target) {
            None => wrong.push(format!("{module} -> {target} (no layer names {target})")),
            Some(&l) if l < own => wrong.push(format!("{module} -> {target} (an upward import)")),
            Some(&l) if l == own && !layers.allowed.contains(&(module.into(), target.clone())) => {
                wrong.push(format!(
                    "{module} -> {target} (same layer, not allowed by a `may:` rule)"
                ))
            }
            _ => {}
        }
    }
    wrong
}

/// Every library source file's module and code (`src/lib.rs` is the
/// root, files named `tests.rs` test modules; the binary is in `cli/`).
fn library_code() -> Vec<(String, String)> {
    let mut files = BTreeSet::new();
    rust_files(&root().join("src"), &mut files);
    files
        .into_iter()
        .filter(|f| f != "src/lib.rs" && !f.ends_with("/tests.rs"))
        .map(|f| (module_of(&f), code_of(&fs::read_to_string(root().join(&f)).unwrap())))
        .collect()
}

#[test]
fn the_library_imports_only_from_lower_layers() {
    let layers = layers(&architecture());
    let mut edges = 0;
    let mut wrong = Vec::new();
    for (module, code) in library_code() {
        wrong.extend(violations(&layers, &module, &code, &mut edges));
    }
    // It read the imports: the library has well over this many.
    assert!(edges > 80, "only {edges} imports between modules found");
    assert!(wrong.is_empty(), "imports against ARCHITECTURE.md's layers: {wrong:#?}");
}

#[test]
fn an_upward_import_is_caught() {
    let layers = layers(&architecture());
    let mut edges = 0;
    let upward = "use crate::arena::Player;\nfn f() {}\n";
    let wrong = violations(&layers, "variant", &code_of(upward), &mut edges);
    assert_eq!(wrong, ["variant -> arena (an upward import)"]);
    // Grouped paths, and code in a comment or a test module, as the check reads them.
    let code = "use crate::{table::Tier, index};\n// crate::query\n#[cfg(test)]\nmod tests {\n    use crate::arena::X;\n}\n";
    assert_eq!(imports(&code_of(code)), ["index", "table"].map(String::from).into());
    let wrong = violations(&layers, "position", &code_of(code), &mut edges);
    assert_eq!(wrong, ["position -> index (an upward import)"]);
    // Within a layer only what a rule allows: stats may read value, not
    // value stats.
    assert!(violations(&layers, "stats", "crate::value::Cell", &mut edges).is_empty());
    let wrong = violations(&layers, "value", "crate::stats::Counts", &mut edges);
    assert_eq!(wrong.len(), 1, "{wrong:?}");
}
