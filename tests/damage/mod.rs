//! The damaged-database tests' fixtures (`faults.rs` through the
//! library, `cli_faults.rs` through the binary): nine up to 7 stones
//! solved once per test file, what it answers, where the parts of its
//! table files lie, copies of it to damage, and a database solved under
//! other rules.
#![allow(dead_code)]

use morris::database::Database;

use morris::driver::Quiet;
use morris::index::Sector;
use morris::position::{Color, Position, State};
use morris::query::Query;
use morris::stats::Counts;
use morris::table::{write_table, TableInfo, BLOCK_CELLS};
use morris::value::Cell;
use morris::value::Value;
use morris::variant::{Flying, Variant};
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Nine with at most 7 stones on the board: sectors 3-3, 3-4 and 4-3.
pub const MAX_STONES: u32 = 7;

/// The sector whose table is damaged (58 blocks).
pub const TARGET: Sector = Sector::moving(3, 4);

pub fn nine() -> Variant {
    Variant::named("nine").unwrap()
}

/// The intact database and what it answers.
pub struct Pristine {
    pub dir: PathBuf,
    /// The bytes of the target table.
    pub bytes: Vec<u8>,
    pub layout: Layout,
    /// One canonical state in each block of the target, with its value.
    pub probes: Vec<(State, Value)>,
    /// Positions whose queries read the target table (3-4 with White to
    /// move, and 4-3 whose quiet moves lead into 3-4), with their
    /// analysis: value, moves and line.
    pub queries: Vec<(Position, Answer)>,
}

pub type Answer = (Value, Vec<(String, Value)>, Vec<String>);

/// Where the parts of a table file lie.
pub struct Layout {
    pub header: Range<usize>,
    pub offsets: Range<usize>,
    /// The record of each block.
    pub blocks: Vec<Range<usize>>,
}

impl Layout {
    /// Reads the layout of an intact file (see `morris::table`): header and
    /// its checksum, the offset table (the end of each block record, u64
    /// LE, counted from the first record), the records.
    pub fn of(bytes: &[u8], slots: u64) -> Layout {
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
    pub fn block_of(&self, at: usize) -> Option<usize> {
        self.blocks.iter().position(|r| r.contains(&at))
    }
}

pub fn pristine() -> &'static Pristine {
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

/// The analysis of `p`: value, moves and line; or the error's message.
pub fn answer(q: &Query, p: &Position) -> Result<Answer, String> {
    let v = q.variant();
    let a = q.analyse(p).map_err(|e| e.to_string())?;
    let line = a.line.map_err(|e| e.to_string())?;
    Ok((
        a.value,
        a.moves.iter().map(|m| (m.mv.notation(v), m.value)).collect(),
        line.moves.iter().map(|m| m.notation(v)).collect(),
    ))
}

/// A copy of the intact database in a fresh directory.
pub fn copy() -> PathBuf {
    let dir = tempfile::tempdir().unwrap().keep();
    for entry in fs::read_dir(&pristine().dir).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    dir
}

pub fn target_path(dir: &Path) -> PathBuf {
    Database::new(dir, nine()).table_path(TARGET)
}

/// A database of nine up to 6 stones solved without flying.
pub fn no_flying_db() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        Database::new(&dir, nine().with_flying(Flying::Never)).solve_moving(6, 2, &Quiet).unwrap();
        dir
    })
}

/// A copy of the intact database in which one position of 3-3, a win in
/// 11, is stored as a win in 13, under checksums and counts that match:
/// the directory, the table's path, the position, and the start of the
/// error that the check of a query must give.
pub fn wrong_value_copy() -> (PathBuf, PathBuf, Position, String) {
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
    let expected = format!(
        "{}: the tables disagree: {} is stored as win in 13, but its best move gives win in 11",
        path.display(),
        p.notation(&v)
    );
    (dir, path, p, expected)
}
