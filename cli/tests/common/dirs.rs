//! Scratch directories under the target directory, and the tables in them.

use super::ok;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use tempfile::TempDir;

/// A fresh directory under the target directory, named after the test
/// file, removed when dropped.
pub fn scratch() -> TempDir {
    tempfile::Builder::new()
        .prefix(concat!(env!("CARGO_CRATE_NAME"), "-"))
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

/// An empty directory, for the commands that read no database: they get
/// this one rather than the default `data/db`, which may hold tables.
pub fn empty_db() -> &'static Path {
    static DIR: OnceLock<TempDir> = OnceLock::new();
    DIR.get_or_init(scratch).path()
}

/// Every file of a directory by name, with its bytes; the locks aside
/// (`.lock`, whose text names the last solver, and the job locks in
/// `.locks`), and a file system's `lost+found`.
pub fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| ![".lock", ".locks", "lost+found"].iter().any(|n| e.file_name() == *n))
        .map(|e| (e.file_name().into_string().unwrap(), fs::read(e.path()).unwrap()))
        .collect()
}

/// The tables of a directory by name, with their bytes; any other file
/// but the locks fails the test as a stray file.
pub fn tables(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let files = files(dir);
    for name in files.keys() {
        assert!(name.ends_with(".mtb"), "stray file {name} in {}", dir.display());
    }
    files
}

/// `dir` holds tables only, the tables of `reference`, byte for byte.
pub fn assert_same_tables(dir: &Path, reference: &Path) {
    let (a, b) = (tables(dir), tables(reference));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "the same tables in {} and {}",
        dir.display(),
        reference.display()
    );
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{name} differs from {}'s", reference.display());
    }
}

/// Nine's moving phase up to 8 stones with 2 threads.
pub const SOLVE_NINE_8: &[&str] =
    &["solve", "--phase", "moving", "--max-stones", "8", "--threads", "2"];

/// Nine up to 8 stones solved by [`SOLVE_NINE_8`] undisturbed, once per
/// test file: what the runs the tests disturb must give. No test writes
/// to it.
pub fn nine_up_to_8() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(concat!(env!("CARGO_CRATE_NAME"), "-nine-8"));
        let _ = fs::remove_dir_all(&dir);
        ok(&dir, SOLVE_NINE_8);
        dir
    })
}

/// The database of `variant` in `dir`, solved through the library up to
/// `max_stones` stones, both phases, and its sectors that have tables
/// (moving first): six whole (12), nine up to 8 stones.
pub fn solved_both_phases(
    dir: &Path,
    variant: &str,
    max_stones: u32,
) -> (morris::database::Database, Vec<morris::index::Sector>) {
    use morris::sectors::{moving_sectors, placement_sectors};
    let db = morris::database::Database::new(dir, morris::Variant::named(variant).unwrap());
    db.solve_moving(max_stones, 2, &morris::driver::Quiet).unwrap();
    db.solve_placement(max_stones, 2, &morris::driver::Quiet).unwrap();
    let mut sectors: Vec<_> = moving_sectors(db.variant())
        .into_iter()
        .filter(|s| s.total_stones() <= max_stones)
        .collect();
    sectors.extend(placement_sectors(db.variant()).into_iter().filter(|&s| db.has(s)));
    assert!(sectors.iter().any(|s| !s.is_moving()), "placement sectors too");
    (db, sectors)
}
