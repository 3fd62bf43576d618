//! morris: retrograde-analysis solver and endgame databases for Nine Men's
//! Morris and its relatives.

pub mod index;
pub mod position;
pub mod reference;
pub mod rules;
pub mod symmetry;
pub mod value;
pub mod variant;

pub use index::{Indexer, Sector, SectorIndex};
pub use position::{Color, Move, Position, State};
pub use value::{Cell, Value};
pub use variant::{Bits, Board, Flying, Point, Variant};
