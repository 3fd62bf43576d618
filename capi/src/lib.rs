//! `morris-capi`: a C interface to solved `morris` databases, for apps
//! and engines in any language that can call C (C, C++, Dart by FFI, ...).
//!
//! A database directory is opened once ([`morris_db_open`], any tier the
//! library reads: full tables, the win/draw/loss tier, derived sectors)
//! and asked, from any number of threads at once, for the value of a
//! position ([`morris_value`]), its legal moves with their values
//! ([`morris_moves`]), the perfect player's move ([`morris_best_move`])
//! and the position after a move ([`morris_play`]). Positions and moves
//! are written in the notation of `morris query` (docs/cli.md); the
//! answers are the library's (`morris::query::Query`,
//! `morris::game::Game::choose_move_by`).
//!
//! The rules of the interface (docs/capi.md says them for C):
//!
//! - Every function that can fail returns a [`MorrisStatus`]; on failure
//!   [`morris_last_error`] gives this thread's last message. No panic
//!   crosses the boundary: each entry point catches it and returns
//!   [`MorrisStatus::Internal`].
//! - Null pointers and text that is not UTF-8 are
//!   [`MorrisStatus::BadArgument`], never a crash.
//! - Strings come back in the caller's buffers only: `buf` of `len`
//!   bytes gets the text and its NUL, `*needed` the bytes that takes; a
//!   buffer too small is [`MorrisStatus::BufferTooSmall`] (and gets the
//!   empty string). Nothing is allocated for the caller to free but the
//!   handle, which [`morris_db_close`] frees.
//! - A handle may be used by several threads at once; it must not be
//!   closed while another thread uses it.

use morris::database::{Database, DbError};
use morris::game::{Game, Repetition};
use morris::hints::one_line_with_hints;
use morris::probe::{parse_position, PositionError};
use morris::query::{after, parse_move, Exactness, Query, QueryError, PERFECT_PLAYER};
use morris::table::TableError;
use morris::tiebreak::Style;
use morris::value::Value;
use morris::variant::{FlyCount, Flying, Variant};
use morris::Position;
use std::cell::RefCell;
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// What a call came to: `MORRIS_STATUS_OK`, or why not. Every code but
/// `MORRIS_STATUS_OK` leaves a message for [`morris_last_error`].
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MorrisStatus {
    /// Done.
    Ok = 0,
    /// A null pointer where one is not allowed, text that is not UTF-8,
    /// an unknown variant, rule option or tie-break style.
    BadArgument = 1,
    /// A position or move that does not parse, cannot occur in the
    /// variant, or (a move) is not legal in the position.
    BadNotation = 2,
    /// A table the answer needs is not in the database; the message names
    /// the sector and the `morris solve` command that makes it.
    NotSolved = 3,
    /// A table file that is damaged, truncated, of another sector or of a
    /// format this build does not read, or tables that contradict each
    /// other; the message names the file.
    Corrupt = 4,
    /// A table solved under other rules (another flying rule, say) than
    /// the handle's, or an app set whose manifest names other rules (or is
    /// damaged: the message says which).
    RulesMismatch = 5,
    /// A file or directory that cannot be read: a missing database
    /// directory, say.
    Io = 6,
    /// The answer needs distances, and the database holds only the
    /// win/draw/loss tier of a sector it meets (the perfect player).
    NoDistances = 7,
    /// The caller's buffer is too small; `*needed` (or `*count`) says how
    /// large it must be.
    BufferTooSmall = 8,
    /// The game is over at the position: there is no move to choose.
    GameOver = 9,
    /// Anything else: a panic caught at the boundary, a thread pool that
    /// would not start. A bug, if it happens.
    Internal = 10,
}

/// Win, draw or loss for the side to move.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MorrisKind {
    /// The side to move loses.
    Loss = -1,
    /// A draw.
    Draw = 0,
    /// The side to move wins.
    Win = 1,
}

/// A value for the side to move (after a move: for the side that made
/// it).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MorrisValue {
    /// Win, draw or loss.
    pub kind: MorrisKind,
    /// Plies to the end of the game under perfect play (the winner
    /// fastest, the loser slowest); -1 for a draw, and where the distance
    /// is not known (`exact` false).
    pub plies: i32,
    /// Whether the distance is known: false where the value was proved
    /// by the placement search without a table, or comes from the
    /// win/draw/loss tier (the kind is exact either way).
    pub exact: bool,
}

/// Bytes of [`MorrisMove::notation`]: every move's notation and its NUL
/// fit.
pub const MORRIS_MOVE_LEN: usize = 16;

/// Bytes that hold any position's notation and its NUL, in every
/// variant: a buffer this long never gets [`MorrisStatus::BufferTooSmall`]
/// from [`morris_play`].
pub const MORRIS_POSITION_LEN: usize = 64;

/// A legal move and the value it leads to for the side that makes it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MorrisMove {
    /// The move in notation (`a7-d2`, `d3`, `e3-e5xb4`), NUL-terminated.
    pub notation: [c_char; MORRIS_MOVE_LEN],
    /// The mover's result after the move.
    pub value: MorrisValue,
}

/// An open database directory: a variant with its rules and the tables
/// in one directory, opened on first use and kept. Opaque to C.
pub struct MorrisDb {
    db: Database,
}

/// A failure: its status and its message.
struct Failure {
    status: MorrisStatus,
    message: String,
}

impl Failure {
    fn new(status: MorrisStatus, message: impl Into<String>) -> Failure {
        Failure { status, message: message.into() }
    }
}

fn bad_argument(message: impl Into<String>) -> Failure {
    Failure::new(MorrisStatus::BadArgument, message)
}

impl From<QueryError> for Failure {
    fn from(e: QueryError) -> Failure {
        let message = one_line_with_hints(&e);
        let status = match &e {
            QueryError::Notation(_) | QueryError::Illegal { .. } => MorrisStatus::BadNotation,
            QueryError::Inconsistent { .. } => MorrisStatus::Corrupt,
            QueryError::Db(db) => db_status(db),
        };
        Failure { status, message }
    }
}

impl From<PositionError> for Failure {
    fn from(e: PositionError) -> Failure {
        Failure::new(MorrisStatus::BadNotation, one_line_with_hints(&e))
    }
}

/// The status of a database error.
fn db_status(e: &DbError) -> MorrisStatus {
    match e {
        DbError::Missing { .. } | DbError::MissingDependency { .. } => MorrisStatus::NotSolved,
        DbError::NeedsFullTier(_) => MorrisStatus::NoDistances,
        DbError::Io { .. } | DbError::ReadOnly { .. } => MorrisStatus::Io,
        DbError::Table(TableError::WrongRules { .. }) | DbError::AppSet { .. } => {
            MorrisStatus::RulesMismatch
        }
        DbError::Table(TableError::Io { .. }) => MorrisStatus::Io,
        DbError::Table(_) => MorrisStatus::Corrupt,
        _ => MorrisStatus::Internal,
    }
}

thread_local! {
    /// This thread's last failure's message.
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
}

fn set_last_error(message: String) {
    LAST_ERROR.with(|m| *m.borrow_mut() = message);
}

/// Runs `body` as an entry point: its failure, or a panic, becomes a
/// status and this thread's last message.
fn entry(body: impl FnOnce() -> Result<(), Failure>) -> MorrisStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => MorrisStatus::Ok,
        Ok(Err(f)) => {
            set_last_error(f.message);
            f.status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            set_last_error(format!("internal error (a bug in morris): {what}"));
            MorrisStatus::Internal
        }
    }
}

/// The text at `ptr`, named `what` in the message where it is null or
/// not UTF-8.
///
/// # Safety
/// `ptr` is null or points to a NUL-terminated string.
unsafe fn text<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(bad_argument(format!("{what}: a null pointer")));
    }
    CStr::from_ptr(ptr).to_str().map_err(|e| bad_argument(format!("{what}: not UTF-8 text: {e}")))
}

/// As [`text`], where null means "not given".
unsafe fn optional_text<'a>(ptr: *const c_char, what: &str) -> Result<Option<&'a str>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    text(ptr, what).map(Some)
}

/// The handle at `db`.
unsafe fn handle<'a>(db: *const MorrisDb) -> Result<&'a MorrisDb, Failure> {
    db.as_ref().ok_or_else(|| bad_argument("db: a null pointer"))
}

/// Writes `out` to `*slot`.
unsafe fn put<T>(slot: *mut T, what: &str, out: T) -> Result<(), Failure> {
    if slot.is_null() {
        return Err(bad_argument(format!("{what}: a null pointer")));
    }
    slot.write(out);
    Ok(())
}

/// Writes `s` and a NUL into `buf` of `len` bytes, and the bytes that
/// takes into `*needed` (when `needed` is not null); a buffer too small
/// gets the empty string (when `len` > 0).
unsafe fn put_string(
    s: &str,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> Result<(), Failure> {
    let bytes = s.len() + 1;
    if !needed.is_null() {
        needed.write(bytes);
    }
    if buf.is_null() && len > 0 {
        return Err(bad_argument("buf: a null pointer with a length"));
    }
    if len < bytes {
        if len > 0 {
            buf.write(0);
        }
        return Err(Failure::new(
            MorrisStatus::BufferTooSmall,
            format!("the buffer holds {len} bytes, the answer needs {bytes}"),
        ));
    }
    std::ptr::copy_nonoverlapping(s.as_ptr(), buf.cast::<u8>(), s.len());
    buf.add(s.len()).write(0);
    Ok(())
}

/// The variant called `name` with the flying rule `fly_at` (a number of
/// stones or `never`) and the flying count `fly_count` (`board` or
/// `all`, lasker only), as `--variant`, `--fly-at` and `--fly-count`.
fn variant(name: &str, fly_at: Option<&str>, fly_count: Option<&str>) -> Result<Variant, Failure> {
    let mut v = Variant::named(name).map_err(|e| bad_argument(one_line_with_hints(&e)))?;
    if let Some(text) = fly_at {
        let flying: Flying = text.parse().map_err(|e| bad_argument(format!("fly_at: {e}")))?;
        v = v.with_flying(flying);
    }
    if let Some(text) = fly_count {
        let count: FlyCount = text.parse().map_err(|e| bad_argument(format!("fly_count: {e}")))?;
        v = v.with_fly_count(count).map_err(|e| bad_argument(format!("fly_count: {e}")))?;
    }
    Ok(v)
}

/// The value as C sees it.
fn c_value(value: Value, exactness: Exactness) -> MorrisValue {
    let exact = exactness == Exactness::Exact;
    let kind = match value {
        Value::Win(_) => MorrisKind::Win,
        Value::Draw => MorrisKind::Draw,
        Value::Loss(_) => MorrisKind::Loss,
    };
    let plies = match value.plies() {
        Some(d) if exact => i32::from(d),
        _ => -1,
    };
    MorrisValue { kind, plies, exact }
}

/// How positions are refused that come from games with other numbers of
/// stones to place, unless the database holds their sector.
const OTHER_START: &str = "solve its tables first (`morris solve --extended`)";

impl MorrisDb {
    /// `start`, or a position in notation, as `morris query` reads it.
    fn position(&self, text: &str) -> Result<Position, Failure> {
        Ok(parse_position(&self.db, text, false, OTHER_START)?)
    }
}

/// Opens the database in the directory `dir` for the variant `variant`
/// (`nine`, `twelve`, `eleven`, `six`, `five`, `lasker`, `morabaraba`)
/// under the rule options of the command line: `fly_at` a number of
/// stones or `never` (`--fly-at`), `fly_count` `board` or `all`
/// (`--fly-count`, lasker only); NULL for the variant's own rule.
/// Any tier `morris` writes opens this way (full tables, the
/// win/draw/loss tier, derived sectors). Tables are opened when an
/// answer first needs them, so tables of other rules or damaged ones are
/// reported then. On success `*out` is a handle for [`morris_db_close`];
/// on failure it is NULL.
///
/// # Safety
/// `dir` and `variant` are NUL-terminated strings, `fly_at` and
/// `fly_count` too or NULL, `out` points to writable memory for a pointer.
#[no_mangle]
pub unsafe extern "C" fn morris_db_open(
    dir: *const c_char,
    variant: *const c_char,
    fly_at: *const c_char,
    fly_count: *const c_char,
    out: *mut *mut MorrisDb,
) -> MorrisStatus {
    entry(|| {
        if out.is_null() {
            return Err(bad_argument("out: a null pointer"));
        }
        out.write(std::ptr::null_mut());
        let dir = PathBuf::from(text(dir, "dir")?);
        let v = self::variant(
            text(variant, "variant")?,
            optional_text(fly_at, "fly_at")?,
            optional_text(fly_count, "fly_count")?,
        )?;
        if !dir.is_dir() {
            return Err(Failure::new(
                MorrisStatus::Io,
                format!("{}: no such database directory", dir.display()),
            ));
        }
        let db = Database::new(dir, v);
        // An app set made under other rules is refused here, at once.
        db.app_manifest().map_err(|e| Failure::new(db_status(&e), e.to_string()))?;
        out.write(Box::into_raw(Box::new(MorrisDb { db })));
        Ok(())
    })
}

/// Closes a handle of [`morris_db_open`] and frees it; NULL is allowed
/// and does nothing. No other thread may be using the handle.
///
/// # Safety
/// `db` is NULL or a handle of `morris_db_open` not closed before.
#[no_mangle]
pub unsafe extern "C" fn morris_db_close(db: *mut MorrisDb) {
    if !db.is_null() {
        // Dropping the database unmaps its tables; nothing there panics,
        // and a panic must not cross the boundary all the same.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(db))));
    }
}

/// The value of `position` (in notation, or `start`) for the side to
/// move, into `*out`. A game that is over is answered by the rules; a
/// placement position whose sector has no table by the placement search
/// over the moving-phase tables (exact in kind, no distance).
///
/// # Safety
/// `db` is a handle of `morris_db_open`, `position` a NUL-terminated
/// string, `out` points to a writable `MorrisValue`.
#[no_mangle]
pub unsafe extern "C" fn morris_value(
    db: *const MorrisDb,
    position: *const c_char,
    out: *mut MorrisValue,
) -> MorrisStatus {
    entry(|| {
        let h = handle(db)?;
        if out.is_null() {
            return Err(bad_argument("out: a null pointer"));
        }
        let p = h.position(text(position, "position")?)?;
        let (value, exactness) = Query::new(&h.db).value(&p)?;
        put(out, "out", c_value(value, exactness))
    })
}

/// Every legal move of `position` with the value it leads to for the
/// side to move, best first (the fastest win, draws, the slowest loss;
/// moves of equal value in the order of `morris show`), as `morris query`
/// lists them. `*count` gets the number of legal moves (0 when the game
/// is over); the first of them are written to `moves` (room for
/// `capacity`). Where `capacity` is less than `*count` the call returns
/// `MORRIS_STATUS_BUFFER_TOO_SMALL`, having written none: ask again
/// with room for `*count` (`capacity` 0 and `moves` NULL ask only for
/// the count).
///
/// # Safety
/// `db` is a handle of `morris_db_open`, `position` a NUL-terminated
/// string, `moves` points to `capacity` writable `MorrisMove`s (or is
/// NULL with `capacity` 0), `count` to a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn morris_moves(
    db: *const MorrisDb,
    position: *const c_char,
    moves: *mut MorrisMove,
    capacity: usize,
    count: *mut usize,
) -> MorrisStatus {
    entry(|| {
        let h = handle(db)?;
        if count.is_null() {
            return Err(bad_argument("count: a null pointer"));
        }
        if moves.is_null() && capacity > 0 {
            return Err(bad_argument("moves: a null pointer with a capacity"));
        }
        let p = h.position(text(position, "position")?)?;
        let valued = Query::new(&h.db).moves(&p)?;
        count.write(valued.len());
        if capacity < valued.len() {
            return Err(Failure::new(
                MorrisStatus::BufferTooSmall,
                format!("room for {capacity} moves, the position has {}", valued.len()),
            ));
        }
        let v = h.db.variant();
        for (i, m) in valued.iter().enumerate() {
            let mut notation = [0 as c_char; MORRIS_MOVE_LEN];
            let text = m.mv.notation(v);
            if text.len() >= MORRIS_MOVE_LEN {
                return Err(Failure::new(
                    MorrisStatus::Internal,
                    format!("move {text} is longer than MORRIS_MOVE_LEN - 1 bytes"),
                ));
            }
            for (slot, byte) in notation.iter_mut().zip(text.bytes()) {
                *slot = byte as c_char;
            }
            moves.add(i).write(MorrisMove { notation, value: c_value(m.value, m.exactness) });
        }
        Ok(())
    })
}

/// The perfect player's move at `position`, as `morris play` and `morris
/// serve`'s `/api/move` choose it for a game that reaches the position
/// with no earlier positions to repeat (the repetition rule `board`):
/// the fastest win, the slowest loss, and among drawing moves the one
/// the tie-break `style` picks: NULL for the default (`balance:playon`),
/// else `RULE` or `RULE:playon` as `morris play --tie-break` takes it.
/// The move's notation goes into `buf` (the rules on buffers
/// above; `MORRIS_MOVE_LEN` bytes always suffice), its value for the
/// mover into `*value` unless `value` is NULL. A game that is over is
/// `MORRIS_STATUS_GAME_OVER`. The perfect player needs distances: a
/// sector of which the database holds only the win/draw/loss tier is
/// `MORRIS_STATUS_NO_DISTANCES`.
///
/// # Safety
/// `db` is a handle of `morris_db_open`, `position` a NUL-terminated
/// string, `style` too or NULL, `buf` points to `len` writable bytes (or
/// is NULL with `len` 0), `needed` and `value` to writable memory or NULL.
#[no_mangle]
pub unsafe extern "C" fn morris_best_move(
    db: *const MorrisDb,
    position: *const c_char,
    style: *const c_char,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
    value: *mut MorrisValue,
) -> MorrisStatus {
    entry(|| {
        let h = handle(db)?;
        let p = h.position(text(position, "position")?)?;
        let style = match optional_text(style, "style")? {
            Some(s) => s.parse::<Style>().map_err(|e| bad_argument(format!("style: {e}")))?,
            None => Style::DEFAULT,
        };
        let query = Query::new(&h.db);
        let game = Game::new(p, Repetition::Board);
        let Some(choice) = game.choose_move_by(&query, style)? else {
            return Err(Failure::new(
                MorrisStatus::GameOver,
                format!(
                    "the game is over at {}: no move for {}",
                    p.notation(h.db.variant()),
                    PERFECT_PLAYER
                ),
            ));
        };
        if !value.is_null() {
            value.write(c_value(choice.value, choice.exactness));
        }
        put_string(&choice.mv.notation(h.db.variant()), buf, len, needed)
    })
}

/// The position after the legal move `mv` (in notation) at `position`,
/// in notation, into `buf` (the rules on buffers above;
/// `MORRIS_POSITION_LEN` bytes always suffice). A move that does not
/// parse or is not legal there is `MORRIS_STATUS_BAD_NOTATION`, and the
/// message says why. Reads no table. A capture that leaves the other
/// side two stones ends the game, and the position it leaves is one the
/// notation refuses (`the game is already over`) when it is passed back:
/// the move's value says as much (a win in 1 ply).
///
/// # Safety
/// `db` is a handle of `morris_db_open`, `position` and `mv`
/// NUL-terminated strings, `buf` points to `len` writable bytes (or is
/// NULL with `len` 0), `needed` to a writable `size_t` or is NULL.
#[no_mangle]
pub unsafe extern "C" fn morris_play(
    db: *const MorrisDb,
    position: *const c_char,
    mv: *const c_char,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> MorrisStatus {
    entry(|| {
        let h = handle(db)?;
        let p = h.position(text(position, "position")?)?;
        let v = h.db.variant();
        let m = parse_move(v, &p, text(mv, "mv")?)?;
        put_string(&after(&p, m).notation(v), buf, len, needed)
    })
}

/// This thread's last failure's message (one line, naming the file,
/// sector or text at fault, and where a table is missing the `morris
/// solve` command that makes it) into `buf`, as the rules on buffers
/// above say; the empty string when no call on this thread has
/// failed. Reading it changes nothing: the message stays until the next
/// failure on this thread.
///
/// # Safety
/// `buf` points to `len` writable bytes (or is NULL with `len` 0),
/// `needed` to a writable `size_t` or is NULL.
#[no_mangle]
pub unsafe extern "C" fn morris_last_error(
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> MorrisStatus {
    let message = LAST_ERROR.with(|m| m.borrow().clone());
    match catch_unwind(AssertUnwindSafe(|| put_string(&message, buf, len, needed))) {
        Ok(Ok(())) => MorrisStatus::Ok,
        // Leaves the last message as it was: it is what was asked for.
        Ok(Err(f)) => f.status,
        Err(_) => MorrisStatus::Internal,
    }
}

/// The name of a status code (`"ok"`, `"bad argument"`, ...), a static
/// string the caller must not free; `"unknown status"` for a number that
/// is none.
#[no_mangle]
pub extern "C" fn morris_status_name(status: i32) -> *const c_char {
    let name: &'static CStr = match status {
        0 => c"ok",
        1 => c"bad argument",
        2 => c"bad notation",
        3 => c"not solved",
        4 => c"corrupt table",
        5 => c"rules mismatch",
        6 => c"io",
        7 => c"no distances",
        8 => c"buffer too small",
        9 => c"game over",
        10 => c"internal error",
        _ => c"unknown status",
    };
    name.as_ptr()
}

/// The version of this library (the crate's), a static string the caller
/// must not free.
#[no_mangle]
pub extern "C" fn morris_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("the version has no NUL"),
        };
    VERSION.as_ptr()
}

// A handle is shared by the threads that use it: the database must be.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<MorrisDb>();
};

#[cfg(test)]
mod tests {
    use super::*;

    fn last() -> String {
        LAST_ERROR.with(|m| m.borrow().clone())
    }

    #[test]
    fn a_panic_is_caught_at_the_boundary_and_named() {
        let status = entry(|| panic!("boom {}", 42));
        assert_eq!(status, MorrisStatus::Internal);
        assert_eq!(last(), "internal error (a bug in morris): boom 42");
        let status = entry(|| std::panic::panic_any(7u8));
        assert_eq!(status, MorrisStatus::Internal);
        assert!(last().ends_with("a panic"));
    }

    #[test]
    fn strings_fit_their_buffers_or_say_what_they_need() {
        let mut buf = [b'?' as c_char; 6];
        let mut needed = 0;
        unsafe {
            assert!(put_string("abcde", buf.as_mut_ptr(), 6, &mut needed).is_ok());
            assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str(), Ok("abcde"));
            assert_eq!(needed, 6);
            let f = put_string("abcdef", buf.as_mut_ptr(), 6, &mut needed).err().unwrap();
            assert_eq!((f.status, needed, buf[0]), (MorrisStatus::BufferTooSmall, 7, 0));
            let f = put_string("a", std::ptr::null_mut(), 0, &mut needed).err().unwrap();
            assert_eq!((f.status, needed), (MorrisStatus::BufferTooSmall, 2));
            let f = put_string("a", std::ptr::null_mut(), 2, std::ptr::null_mut()).err().unwrap();
            assert_eq!(f.status, MorrisStatus::BadArgument);
            assert!(put_string("", buf.as_mut_ptr(), 1, std::ptr::null_mut()).is_ok());
            assert_eq!(buf[0], 0);
        }
    }

    #[test]
    fn every_status_has_a_name() {
        for code in 0..=10 {
            let name = unsafe { CStr::from_ptr(morris_status_name(code)) };
            assert_ne!(name.to_str(), Ok("unknown status"), "{code}");
        }
        assert_eq!(
            unsafe { CStr::from_ptr(morris_status_name(11)) }.to_str(),
            Ok("unknown status")
        );
    }

    #[test]
    fn the_longest_notations_fit_the_constants() {
        for name in ["nine", "twelve", "eleven", "six", "five", "lasker", "morabaraba"] {
            let v = Variant::named(name).unwrap();
            // Every position's notation is as long as the start's, or
            // shorter (hands of one digit where the start has two).
            let start = Position::start(&v).notation(&v);
            assert!(start.len() < MORRIS_POSITION_LEN, "{start}");
            // The longest move: from, to and a capture (`a7-d7xg7`).
            let board = v.board();
            let point = (0..board.points()).map(|p| board.point_name(p as _).len()).max().unwrap();
            assert!(3 * point + 2 < MORRIS_MOVE_LEN, "{name}: points of {point} bytes");
        }
    }
}
