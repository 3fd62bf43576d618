//! The database that the query and repetition tests share, through the
//! library and the binary: nine's moving phase with at most 7 stones on
//! the board (sectors 3-3, 3-4, 4-3), solved once per test file on first
//! use; and positions to ask it about.
#![allow(dead_code)]

use morris::database::Database;

use morris::driver::Quiet;
use morris::index::Sector;
use morris::position::{Color, Position, State};
use morris::query::{after, parse_move};
use morris::rules::{legal_moves, status, Status};
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

/// Canonical positions of `sector`, every `step`-th slot from `offset`,
/// with White to move.
pub fn positions(sector: Sector, step: u64, offset: u64) -> Vec<Position> {
    let ix = db().indexer().sector(sector);
    (offset..ix.slots())
        .step_by(step as usize)
        .filter_map(|slot| ix.unrank(slot))
        .map(|(mover, opponent)| {
            Position::from_state(
                &State { mover, opponent, mover_hand: 0, opponent_hand: 0 },
                Color::White,
            )
        })
        .collect()
}

/// Positions of 3 against 3 or 4 stones, nothing in hand, from a fixed
/// pseudo-random sequence; only those where the game goes on.
pub fn random_positions(count: usize) -> Vec<Position> {
    let v = nine();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) % n
    };
    let mut found = Vec::new();
    while found.len() < count {
        let mut cells = ['.'; 24];
        let (white, black) = [(3, 3), (3, 4), (4, 3)][next(3) as usize];
        for (stone, n) in [('W', white), ('B', black)] {
            let mut placed = 0;
            while placed < n {
                let i = next(24) as usize;
                if cells[i] == '.' {
                    cells[i] = stone;
                    placed += 1;
                }
            }
        }
        let board: String =
            cells.chunks(8).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join("/");
        let side = if next(2) == 0 { 'w' } else { 'b' };
        // Random stones may be refused (a side that could not have got
        // there): skip those.
        let Ok(p) = Position::parse(&format!("{board} {side} 0 0"), &v) else { continue };
        if status(&v, &p.state()) == Status::Playing {
            found.push(p);
        }
    }
    found
}

/// A move in notation, legal in `p`, or `None`.
pub fn legal(p: &Position, text: &str) -> Option<Position> {
    parse_move(&nine(), p, text).ok().map(|m| after(p, m))
}

/// The quiet moves (no capture) of the side to move.
pub fn quiet_moves(p: &Position) -> Vec<String> {
    let v = nine();
    legal_moves(&v, &p.state())
        .into_iter()
        .map(|m| m.notation(&v))
        .filter(|m| m.contains('-') && !m.contains('x'))
        .collect()
}
