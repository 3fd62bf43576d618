//! Damaged databases: one flipped byte anywhere in a table file, a
//! truncated file, another sector's file in its place, a database solved
//! under other rules. Each must be an error that names the file and says
//! what is wrong - never a wrong value, never a panic - through the library
//! (`Database::value`, `Query::analyse`) and through `morris query` (exit
//! code 1, one line).
//!
//! A flipped byte in a block that a probe does not read leaves that probe
//! alone: its value must then be the value of the intact database.

use morris::database::{Database, Quiet};
use morris::index::Sector;
use morris::position::{Color, Position, State};
use morris::query::Query;
use morris::table::BLOCK_CELLS;
use morris::value::Value;
use morris::variant::{Flying, Variant};
use std::fs;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Nine with at most 7 stones on the board: sectors 3-3, 3-4 and 4-3.
const MAX_STONES: u32 = 7;

/// The sector whose table is damaged (58 blocks).
const TARGET: Sector = Sector::moving(3, 4);

fn nine() -> Variant {
    Variant::named("nine").unwrap()
}

/// The intact database and what it answers.
struct Pristine {
    dir: PathBuf,
    /// The bytes of the target table.
    bytes: Vec<u8>,
    layout: Layout,
    /// One canonical state in each block of the target, with its value.
    probes: Vec<(State, Value)>,
    /// Positions whose queries read the target table (3-4 with White to
    /// move, and 4-3 whose quiet moves lead into 3-4), with their
    /// analysis: value, moves and line.
    queries: Vec<(Position, Answer)>,
}

type Answer = (Value, Vec<(String, Value)>, Vec<String>);

/// Where the parts of a table file lie.
struct Layout {
    header: Range<usize>,
    offsets: Range<usize>,
    /// The record of each block.
    blocks: Vec<Range<usize>>,
}

impl Layout {
    /// Reads the layout of an intact file (see `morris::table`): header and
    /// its checksum, the offset table (the end of each block record, u64
    /// LE, counted from the first record), the records.
    fn of(bytes: &[u8], slots: u64) -> Layout {
        let blocks = slots.div_ceil(BLOCK_CELLS as u64) as usize;
        // The header's length is not known without decoding it: take the
        // first place where 8 * blocks bytes read as increasing record ends
        // whose last one reaches exactly the end of the file.
        for offsets_start in 0..bytes.len() {
            let data_start = offsets_start + 8 * blocks;
            if data_start > bytes.len() {
                break;
            }
            let end = |k: usize| {
                u64::from_le_bytes(
                    bytes[offsets_start + 8 * k..offsets_start + 8 * k + 8].try_into().unwrap(),
                ) as usize
            };
            if data_start + end(blocks - 1) == bytes.len()
                && (1..blocks).all(|k| end(k) > end(k - 1))
                && end(0) > 4
            {
                let blocks = (0..blocks)
                    .map(|k| data_start + if k == 0 { 0 } else { end(k - 1) }..data_start + end(k))
                    .collect();
                return Layout {
                    header: 0..offsets_start,
                    offsets: offsets_start..data_start,
                    blocks,
                };
            }
        }
        panic!("no offset table found");
    }

    /// The block whose record holds byte `at`.
    fn block_of(&self, at: usize) -> Option<usize> {
        self.blocks.iter().position(|r| r.contains(&at))
    }
}

fn pristine() -> &'static Pristine {
    static P: OnceLock<Pristine> = OnceLock::new();
    P.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let db = Database::new(&dir, nine());
        db.solve_moving(MAX_STONES, 2, &Quiet).unwrap();
        let bytes = fs::read(db.table_path(TARGET)).unwrap();
        let index = db.indexer().sector(TARGET);
        let layout = Layout::of(&bytes, index.slots());
        let probes = (0..layout.blocks.len() as u64)
            .map(|k| {
                let start = k * BLOCK_CELLS as u64;
                let (mover, opponent) = (start..(start + BLOCK_CELLS as u64).min(index.slots()))
                    .find_map(|slot| index.unrank(slot))
                    .expect("every block holds a canonical state");
                let state = State { mover, opponent, mover_hand: 0, opponent_hand: 0 };
                (state, db.value(&state).unwrap())
            })
            .collect::<Vec<_>>();
        let q = Query::new(&db);
        let into_target = db.indexer().sector(Sector::moving(4, 3));
        let queries = probes
            .iter()
            .step_by(6)
            .map(|(s, _)| *s)
            .chain((0..into_target.slots()).step_by(40_000).filter_map(|slot| {
                let (mover, opponent) = into_target.unrank(slot)?;
                Some(State { mover, opponent, mover_hand: 0, opponent_hand: 0 })
            }))
            .map(|s| {
                let p = Position::from_state(&s, Color::White);
                (p, answer(&q, &p).unwrap())
            })
            .collect();
        Pristine { dir, bytes, layout, probes, queries }
    })
}

fn answer(q: &Query, p: &Position) -> Result<Answer, morris::query::QueryError> {
    let v = q.variant();
    let a = q.analyse(p)?;
    Ok((
        a.value,
        a.moves.iter().map(|m| (m.mv.notation(v), m.value)).collect(),
        a.line.moves.iter().map(|m| m.notation(v)).collect(),
    ))
}

/// A copy of the intact database in a fresh directory.
fn copy() -> PathBuf {
    let dir = tempfile::tempdir().unwrap().keep();
    for entry in fs::read_dir(&pristine().dir).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    dir
}

fn target_path(dir: &Path) -> PathBuf {
    Database::new(dir, nine()).table_path(TARGET)
}

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
        let got = catch_unwind(AssertUnwindSafe(|| db.value(state)))
            .unwrap_or_else(|_| panic!("{what}: a probe panicked"));
        match got {
            Ok(value) => {
                assert_eq!(value, *expected, "{what}: wrong value, no error");
                failed.push(false);
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains(&file_name), "{what}: error does not name {file_name}: {msg}");
                failed.push(true);
            }
        }
    }
    let q = Query::new(&db);
    for (position, expected) in &p.queries {
        let got = catch_unwind(AssertUnwindSafe(|| answer(&q, position)))
            .unwrap_or_else(|_| panic!("{what}: a query panicked"));
        match got {
            Ok(answer) => assert_eq!(&answer, expected, "{what}: wrong answer, no error"),
            Err(e) => {
                let msg = e.to_string();
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
        let err = db.table(TARGET).and_then(|t| Ok(t.verify()?)).expect_err(&what).to_string();
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

/// A database of nine up to 6 stones solved without flying.
fn no_flying_db() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        Database::new(&dir, nine().with_flying(Flying::Never)).solve_moving(6, 2, &Quiet).unwrap();
        dir
    })
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

// ------------------------------------------------------------ the binary

fn morris(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_morris"))
        .arg("--db")
        .arg(dir)
        .args(args)
        .env_remove("MORRIS_VARIANT")
        .env_remove("MORRIS_DB")
        .output()
        .expect("the binary runs")
}

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
    let err = String::from_utf8(out.stderr).unwrap();
    match out.status.code() {
        Some(0) => {
            assert_eq!(
                String::from_utf8(out.stdout).unwrap(),
                intact,
                "{what}: different output, no error"
            );
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
        String::from_utf8(out.stdout).unwrap()
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
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("table holds sector 4-3, expected sector 3-4")
            && err.contains(&file.display().to_string()),
        "{err}"
    );
    fs::remove_dir_all(dir).unwrap();

    let three = "WWW..B../....B.B./........ w 0 0";
    let out = morris(no_flying_db(), &["query", three]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!((out.status.code(), err.lines().count()), (Some(1), 1), "{err}");
    let file = Database::new(no_flying_db(), nine()).table_path(Sector::moving(3, 3));
    assert!(
        err.contains(&format!("{}: table was solved under other rules", file.display())),
        "{err}"
    );
    let out = morris(no_flying_db(), &["--fly-at", "never", "query", three]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_wrong_value_under_good_checksums_is_caught_by_the_query_check() {
    use morris::stats::Counts;
    use morris::table::{write_table, TableInfo};
    use morris::value::Cell;
    let v = nine();
    let dir = copy();
    let sector = Sector::moving(3, 3);
    let p = Position::parse("WWW..B../....B.B./........ w 0 0", &v).unwrap();
    let db = Database::new(&dir, nine());
    let path = db.table_path(sector);
    let (mut cells, info) = {
        let table = db.table(sector).unwrap();
        (table.read_all().unwrap(), table.info().clone())
    };
    let slot = db.indexer().sector(sector).rank(p.white, p.black) as usize;
    drop(db);
    assert_eq!(Value::from(Cell(cells[slot])), Value::Win(11));
    cells[slot] = Cell::from(Value::Win(13)).0;
    let info = TableInfo { counts: Counts::tally(&cells, info.counts.states), ..info };
    write_table(&path, &info, &cells).unwrap();

    let db = Database::new(&dir, nine());
    // The checksums cannot tell: the table was written that way.
    assert_eq!(db.value(&p.state()).unwrap(), Value::Win(13));
    let expected = format!(
        "{}: the tables disagree: {} is stored as win in 13, but its best move gives win in 11",
        path.display(),
        p.notation(&v)
    );
    let q = Query::new(&db);
    for err in [q.analyse(&p).unwrap_err(), q.line(&p, 40).unwrap_err()] {
        assert!(err.to_string().starts_with(&expected), "{err}");
    }
    let out = morris(&dir, &["query", &p.notation(&v)]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!((out.status.code(), err.lines().count()), (Some(1), 1), "{err}");
    assert!(err.contains(&expected), "{err}");
    fs::remove_dir_all(dir).unwrap();
}
