//! morris: retrograde-analysis solver and endgame databases for Nine Men's
//! Morris and its relatives.
//!
//! Solve the endgames of nine with three stones a side into a directory,
//! then ask what a position is worth, what each move leads to, and how
//! perfect play goes on:
//!
//! ```
//! use morris::database::Database;
//! use morris::driver::Quiet;
//! use morris::query::Query;
//! use morris::{Position, Value, Variant};
//!
//! let dir = std::env::temp_dir().join(format!("morris-doc-{}", std::process::id()));
//! let db = Database::new(&dir, Variant::named("nine")?);
//! db.solve_moving(6, 2, &Quiet)?; // sectors with at most 6 stones on the board: 3-3
//!
//! // White has a mill (a7 d7 g7), Black three stones; both sides fly.
//! let position = Position::parse("WWW..B../....B.B./........ w 0 0", db.variant())?;
//! let query = Query::new(&db);
//! assert_eq!(query.value(&position)?.0, Value::Win(11));
//!
//! // Every legal move with the result it leads to for White, best first:
//! // two moves win in 11 plies, one in 17, the rest lose.
//! let moves = query.moves(&position)?;
//! assert_eq!(moves[0].mv.notation(db.variant()), "a7-d2");
//! assert_eq!(moves[0].value, Value::Win(11));
//! assert_eq!(moves[2].value, Value::Win(17));
//! assert_eq!(moves[3].value, Value::Loss(2));
//!
//! // A perfect-play line to the end of the game.
//! let line = query.line(&position, 100)?;
//! assert_eq!((line.moves.len(), line.cut), (11, false));
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod index;
pub mod position;
#[doc(hidden)]
pub mod reference;
pub mod rules;
pub mod sectors;
pub mod symmetry;
pub mod value;
pub mod variant;

pub use index::{Indexer, Sector, SectorIndex};
pub use position::{Color, Move, Position, State};
pub use value::{Cell, Value};
pub use variant::{Bits, Board, FlyCount, Flying, Point, Variant};
pub mod arena;
pub mod database;
/// The solve driver, which lives with the database whose `solve_*`
/// methods it makes ([`database::driver`]); here too, where its users
/// have always found it.
pub use database::driver;
pub mod forward;
#[doc(hidden)]
pub mod fuzzing;
pub mod game;
pub mod hints;
pub mod huge;
pub mod probe;
pub mod progress;
pub mod query;
pub mod rng;
pub mod search;
pub mod solve;
pub mod stats;
pub mod table;
#[doc(hidden)]
pub mod testing;
pub mod tiebreak;
pub mod verify;

mod atomic_file;
mod fold_hash;
