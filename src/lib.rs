//! morris: retrograde-analysis solver and endgame databases for Nine Men's
//! Morris and its relatives.
//!
//! Solve the endgames of nine with three stones a side into a directory,
//! then ask what a position is worth, what each move leads to, and how
//! perfect play goes on:
//!
//! ```
//! use morris::database::{Database, Quiet};
//! use morris::query::Query;
//! use morris::{Position, Value, Variant};
//!
//! let dir = std::env::temp_dir().join(format!("morris-doc-{}", std::process::id()));
//! let db = Database::new(&dir, Variant::named("nine")?);
//! db.solve_moving(6, 2, &Quiet)?; // sectors with at most 6 stones on the board: 3-3
//!
//! // White (a7 d7 b6) flies b6 to g7, closes a mill and leaves Black two stones.
//! let position = Position::parse("WW....B./W......./BB...... w 0 0", db.variant())?;
//! let query = Query::new(&db);
//! assert_eq!(query.value(&position)?.0, Value::Win(1));
//! let best = query.moves(&position)?[0];
//! assert_eq!((best.mv.notation(db.variant()), best.value), ("b6-g7xa1".to_string(), Value::Win(1)));
//!
//! // Black to move instead: a perfect-play line to the end of the game.
//! let position = Position::parse("WW....B./W......./BB...... b 0 0", db.variant())?;
//! let analysis = query.analyse(&position)?;
//! println!("{}: {:?}", analysis.value, analysis.line.moves);
//! assert_eq!(analysis.line.moves.len() as u16, analysis.value.plies().unwrap());
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod index;
pub mod position;
pub mod rules;
pub mod sectors;
pub mod symmetry;
pub mod value;
pub mod variant;

pub use index::{Indexer, Sector, SectorIndex};
pub use position::{Color, Move, Position, State};
pub use value::{Cell, Value};
pub use variant::{Bits, Board, Flying, Point, Variant};
pub mod database;
pub mod query;
pub mod solve;
pub mod table;
pub mod verify;
