//! `morris._morris`: the native half of the Python package `morris`.
//!
//! A thin layer over the `morris` crate: positions are read as `morris
//! query` reads them, values come from `morris::query::Query` and, in
//! bulk, `morris::probe`. Errors become Python exceptions carrying the
//! command line's message: `ValueError` for bad input, `DatabaseError`
//! for a missing or damaged table. The Python half (`morris/__init__.py`)
//! turns the tuples returned here into named tuples and, in
//! `probe_many`, the codes into a list or a NumPy array.

use morris::database::{Database as Db, DbError};
use morris::position::Position as Pos;
use morris::probe::{parse_position, probe, PositionError, ProbeOptions};
use morris::query::{after, parse_move, Exactness, Query, QueryError};
use morris::rules::legal_moves;
use morris::sectors::{extended_placement_sectors, moving_sectors, placement_sectors};
use morris::value::Value;
use morris::variant::{FlyCount, Flying, Variant, VariantError};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::collections::HashSet;
use std::error::Error;

create_exception!(
    _morris,
    DatabaseError,
    PyException,
    "A table is missing, damaged, or was solved under other rules; the message says which and how to solve it."
);

/// How a position of a game from another start is asked for here.
const HINT: &str = "solve its tables first (`morris solve --extended`)";

/// The error and its causes on one line, as the command line prints
/// them, with the command that makes what is missing.
fn message(e: &(dyn Error + 'static)) -> String {
    morris::hints::one_line_with_hints(e)
}

fn query_error(e: QueryError) -> PyErr {
    let text = message(&e);
    match e {
        QueryError::Notation(_) | QueryError::Illegal { .. } => PyValueError::new_err(text),
        QueryError::Db(DbError::Interrupted(_)) => PyRuntimeError::new_err(text),
        QueryError::Db(_) | QueryError::Inconsistent { .. } => DatabaseError::new_err(text),
    }
}

fn position_error(e: PositionError) -> PyErr {
    PyValueError::new_err(message(&e))
}

/// The variant named `name` with the flying rule `fly_at` (a number of
/// stones or "never") and the flying count `fly_count` ("board" or "all",
/// lasker only), as `--variant`, `--fly-at` and `--fly-count` give them.
fn variant(name: &str, fly_at: Option<&str>, fly_count: Option<&str>) -> PyResult<Variant> {
    let mut v = Variant::named(name).map_err(|e| PyValueError::new_err(message(&e)))?;
    if let Some(text) = fly_at {
        let flying: Flying = text.parse().map_err(|e: <Flying as std::str::FromStr>::Err| {
            PyValueError::new_err(format!("fly_at: {e}"))
        })?;
        v = v.with_flying(flying);
    }
    if let Some(text) = fly_count {
        let refused = |e: VariantError| PyValueError::new_err(format!("fly_count: {e}"));
        let count: FlyCount = text.parse().map_err(refused)?;
        v = v.with_fly_count(count).map_err(refused)?;
    }
    Ok(v)
}

/// `(value, plies, exact)`: plies `None` for a draw or a distance the
/// search did not find.
fn triple(value: Value, exactness: Exactness) -> (&'static str, Option<u16>, bool) {
    let exact = exactness == Exactness::Exact;
    (value.kind(), if exact { value.plies() } else { None }, exact)
}

/// A value as one integer: 0 a draw, `plies + 1` a win, `-(plies + 1)` a
/// loss; a win or loss proved without its distance is `±65536`.
fn code(value: Value, exactness: Exactness) -> i32 {
    let far = |d: u16| match exactness {
        Exactness::Exact => i32::from(d) + 1,
        Exactness::ValueOnly => 65536,
    };
    match value {
        Value::Draw => 0,
        Value::Win(d) => far(d),
        Value::Loss(d) => -far(d),
    }
}

/// A solved database directory of one variant.
#[pyclass(module = "morris._morris", name = "Database", frozen)]
struct Database {
    db: Db,
}

#[pymethods]
impl Database {
    #[new]
    #[pyo3(signature = (path, variant="nine", fly_at=None, fly_count=None))]
    fn new(
        path: std::path::PathBuf,
        variant: &str,
        fly_at: Option<&str>,
        fly_count: Option<&str>,
    ) -> PyResult<Self> {
        let v = self::variant(variant, fly_at, fly_count)?;
        if !path.is_dir() {
            return Err(DatabaseError::new_err(format!(
                "{}: no such database directory",
                path.display()
            )));
        }
        let db = Db::new(path, v);
        // An app set made under other rules is refused here, at once.
        db.app_manifest().map_err(|e| DatabaseError::new_err(e.to_string()))?;
        Ok(Database { db })
    }

    /// The variant's name.
    #[getter]
    fn variant(&self) -> &str {
        self.db.variant().name()
    }

    /// The directory.
    #[getter]
    fn path(&self) -> std::path::PathBuf {
        self.db.dir().to_path_buf()
    }

    /// `(value, plies, exact)` of the position `text` for the side to move.
    fn value(&self, py: Python<'_>, text: &str) -> PyResult<(&'static str, Option<u16>, bool)> {
        let p = self.parse(text)?;
        let db = &self.db;
        let (value, exactness) =
            py.allow_threads(|| Query::new(db).value(&p)).map_err(query_error)?;
        Ok(triple(value, exactness))
    }

    /// Every legal move, best first: `(move, value, plies, exact,
    /// position after)`, the value for the side that moves.
    #[allow(clippy::type_complexity)]
    fn moves(
        &self,
        py: Python<'_>,
        text: &str,
    ) -> PyResult<Vec<(String, &'static str, Option<u16>, bool, String)>> {
        let p = self.parse(text)?;
        let db = &self.db;
        let moves = py.allow_threads(|| Query::new(db).moves(&p)).map_err(query_error)?;
        let v = self.db.variant();
        Ok(moves
            .into_iter()
            .map(|m| {
                let (kind, plies, exact) = triple(m.value, m.exactness);
                (m.mv.notation(v), kind, plies, exact, after(&p, m.mv).notation(v))
            })
            .collect())
    }

    /// A perfect-play line of at most `max_plies` moves, and whether it
    /// was cut before the end of the game.
    #[pyo3(signature = (text, max_plies=40))]
    fn line(&self, py: Python<'_>, text: &str, max_plies: usize) -> PyResult<(Vec<String>, bool)> {
        let p = self.parse(text)?;
        let db = &self.db;
        let line = py.allow_threads(|| Query::new(db).line(&p, max_plies)).map_err(query_error)?;
        let v = self.db.variant();
        Ok((line.moves.iter().map(|m| m.notation(v)).collect(), line.cut))
    }

    /// The values of many positions as native-endian 32-bit codes (see
    /// `code`), in parallel without the GIL; the first position that
    /// cannot be answered raises, naming its index.
    fn probe_codes<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<String>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let db = &self.db;
        let result = py.allow_threads(|| -> Result<Vec<i32>, PyErrText> {
            use rayon::prelude::*;
            let positions: Vec<Pos> = texts
                .par_iter()
                .enumerate()
                .map(|(i, t)| {
                    parse_position(db, t, false, HINT)
                        .map_err(|e| PyErrText::Value(format!("position {i}: {}", message(&e))))
                })
                .collect::<Result<_, _>>()?;
            let query = Query::new(db);
            let answers = probe(db, &positions, ProbeOptions::default(), Some(&query), "");
            answers
                .into_iter()
                .enumerate()
                .map(|(i, a)| match a {
                    Ok(p) => Ok(code(p.value, p.exactness)),
                    Err(e) if e.is_database() => {
                        Err(PyErrText::Database(format!("position {i}: {}", message(&e))))
                    }
                    Err(e) => Err(PyErrText::Runtime(format!("position {i}: {}", message(&e)))),
                })
                .collect()
        });
        match result {
            Ok(codes) => {
                let bytes: Vec<u8> = codes.iter().flat_map(|c| c.to_ne_bytes()).collect();
                Ok(PyBytes::new(py, &bytes))
            }
            Err(PyErrText::Value(t)) => Err(PyValueError::new_err(t)),
            Err(PyErrText::Database(t)) => Err(DatabaseError::new_err(t)),
            Err(PyErrText::Runtime(t)) => Err(PyRuntimeError::new_err(t)),
        }
    }

    /// One dictionary per table in the directory: sector, states, wins,
    /// losses, draws, the longest win and loss in plies.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let v = self.db.variant();
        let mut seen = HashSet::new();
        let sectors = moving_sectors(v)
            .into_iter()
            .chain(placement_sectors(v))
            .chain(extended_placement_sectors(v))
            .filter(|s| seen.insert(*s) && self.db.table_path(*s).exists());
        let mut rows = Vec::new();
        for sector in sectors {
            let table = self.db.table(sector).map_err(|e| DatabaseError::new_err(message(&e)))?;
            let c = &table.info().counts;
            let row = PyDict::new(py);
            row.set_item("sector", sector.to_string())?;
            row.set_item("states", c.states)?;
            row.set_item("wins", c.wins)?;
            row.set_item("losses", c.losses)?;
            row.set_item("draws", c.draws)?;
            row.set_item("max_win", c.max_win)?;
            row.set_item("max_loss", c.max_loss)?;
            rows.push(row);
        }
        Ok(rows)
    }
}

/// An error made without the GIL, raised once it is held again.
enum PyErrText {
    Value(String),
    Database(String),
    Runtime(String),
}

impl Database {
    fn parse(&self, text: &str) -> PyResult<Pos> {
        parse_position(&self.db, text, false, HINT).map_err(position_error)
    }
}

/// A position of a variant, in the notation of `morris query`.
#[pyclass(module = "morris._morris", name = "Position", frozen)]
struct Position {
    variant: Variant,
    position: Pos,
}

#[pymethods]
impl Position {
    #[new]
    #[pyo3(signature = (text="start", variant="nine", fly_at=None, fly_count=None))]
    fn new(
        text: &str,
        variant: &str,
        fly_at: Option<&str>,
        fly_count: Option<&str>,
    ) -> PyResult<Self> {
        let v = self::variant(variant, fly_at, fly_count)?;
        let position = if text.trim() == "start" {
            Pos::start(&v)
        } else {
            Pos::parse(text, &v).map_err(|e| PyValueError::new_err(message(&e)))?
        };
        Ok(Position { variant: v, position })
    }

    /// The variant's name.
    #[getter]
    fn variant(&self) -> &str {
        self.variant.name()
    }

    /// "white" or "black".
    #[getter]
    fn to_move(&self) -> String {
        self.position.to_move.name().to_lowercase()
    }

    /// Every legal move in notation, in the order of the move generator.
    fn legal_moves(&self) -> Vec<String> {
        legal_moves(&self.variant, &self.position.state())
            .iter()
            .map(|m| m.notation(&self.variant))
            .collect()
    }

    /// The position after `mv` (in notation); `ValueError` if it is not legal.
    fn play(&self, mv: &str) -> PyResult<Position> {
        let m = parse_move(&self.variant, &self.position, mv).map_err(query_error)?;
        Ok(Position { variant: self.variant.clone(), position: after(&self.position, m) })
    }

    fn __str__(&self) -> String {
        self.position.notation(&self.variant)
    }

    fn __repr__(&self) -> String {
        format!("Position('{}', variant='{}')", self.__str__(), self.variant.name())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.downcast::<Position>() {
            Ok(o) => {
                let o = o.get();
                o.position == self.position && o.variant.rules_key() == self.variant.rules_key()
            }
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.position.hash(&mut h);
        self.variant.name().hash(&mut h);
        h.finish()
    }
}

#[pymodule]
fn _morris(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Database>()?;
    m.add_class::<Position>()?;
    m.add("DatabaseError", m.py().get_type::<DatabaseError>())?;
    Ok(())
}
