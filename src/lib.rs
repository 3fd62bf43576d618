//! morris: retrograde-analysis solver for Nine Men's Morris and its relatives.
pub mod table;
