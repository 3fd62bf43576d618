//! The database that the query and repetition tests share: nine's moving
//! phase with at most 7 stones on the board (sectors 3-3, 3-4, 4-3),
//! solved once per test file on first use.

use morris::database::{Database, Quiet};
use morris::variant::Variant;
use std::sync::OnceLock;

pub const MAX_STONES: u32 = 7;

pub fn nine() -> Variant {
    Variant::named("nine").unwrap()
}

pub fn db() -> &'static Database {
    static DB: OnceLock<Database> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let db = Database::new(dir, nine());
        db.solve_moving(MAX_STONES, 2, &Quiet).unwrap();
        db
    })
}
