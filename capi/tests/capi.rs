//! The C interface against the library: every answer of the extern "C"
//! functions on the positions of tests/c/positions.txt (those the C test
//! asks about too) is the library's, from one thread and from several at
//! once on one handle; and each failure has its status and a message.
//!
//! The database is six's moving phase up to 7 stones (3-3 and 4-3),
//! solved here in about a second: its positions are answered from the
//! tables, its placement positions by the placement search (no
//! distance), `start` not at all (its sectors have no tables).

use morris::database::Database;
use morris::driver::Quiet;
use morris::game::{Game, Repetition};
use morris::query::{after, parse_move, Exactness, Query};
use morris::sectors::moving_sectors;
use morris::table::Compression;
use morris::tiebreak::Style;
use morris::{Position, Value, Variant};
use morris_capi::*;
use std::ffi::{c_char, CStr, CString};
use std::path::Path;
use std::ptr::{null, null_mut};

/// The positions both this test and the C test ask about.
fn positions() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/positions.txt");
    let text = std::fs::read_to_string(path).expect("tests/c/positions.txt");
    text.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect()
}

fn six() -> Variant {
    Variant::named("six").unwrap()
}

/// Six's moving phase up to 7 stones in `dir`.
fn solve(dir: &Path) -> Database {
    let db = Database::new(dir, six());
    db.solve_moving(7, 1, &Quiet).expect("solve six's 3-3 and 4-3");
    db
}

fn c(text: &str) -> CString {
    CString::new(text).unwrap()
}

/// A handle on `dir` for six with the flying rule `fly_at`, or the
/// status and message of the failure.
fn open(dir: &Path, fly_at: Option<&str>) -> Result<Handle, (MorrisStatus, String)> {
    let (dir, variant) = (c(dir.to_str().unwrap()), c("six"));
    let fly = fly_at.map(c);
    let mut db = null_mut();
    let status = unsafe {
        morris_db_open(
            dir.as_ptr(),
            variant.as_ptr(),
            fly.as_ref().map_or(null(), |f| f.as_ptr()),
            null(),
            &mut db,
        )
    };
    if status != MorrisStatus::Ok {
        assert!(db.is_null(), "a failed open leaves *out NULL");
        return Err((status, last_error()));
    }
    Ok(Handle(db))
}

/// A handle, closed when dropped; shared by threads as the C interface
/// allows.
struct Handle(*mut MorrisDb);
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}
impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { morris_db_close(self.0) }
    }
}

fn last_error() -> String {
    let mut needed = 0;
    let status = unsafe { morris_last_error(null_mut(), 0, &mut needed) };
    assert!(status == MorrisStatus::Ok || status == MorrisStatus::BufferTooSmall);
    let mut buf = vec![0 as c_char; needed];
    let status = unsafe { morris_last_error(buf.as_mut_ptr(), buf.len(), &mut needed) };
    assert_eq!(status, MorrisStatus::Ok);
    unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_string()
}

/// What the C interface answers about one position.
#[derive(Debug, PartialEq)]
struct Answer {
    value: MorrisValue,
    moves: Vec<(String, MorrisValue)>,
    /// The perfect player's move and its value; `None` when the game is
    /// over.
    best: Option<(String, MorrisValue)>,
    /// The position after the best move.
    after_best: Option<String>,
}

type Failure = (MorrisStatus, String);

impl Handle {
    fn value(&self, position: &str) -> Result<MorrisValue, Failure> {
        let p = c(position);
        let mut out = MorrisValue { kind: MorrisKind::Draw, plies: 99, exact: false };
        match unsafe { morris_value(self.0, p.as_ptr(), &mut out) } {
            MorrisStatus::Ok => Ok(out),
            status => Err((status, last_error())),
        }
    }

    fn moves(&self, position: &str) -> Result<Vec<(String, MorrisValue)>, Failure> {
        let p = c(position);
        let mut count = usize::MAX;
        let status = unsafe { morris_moves(self.0, p.as_ptr(), null_mut(), 0, &mut count) };
        if status != MorrisStatus::Ok && status != MorrisStatus::BufferTooSmall {
            return Err((status, last_error()));
        }
        assert_eq!(status == MorrisStatus::Ok, count == 0, "{position}: {count} moves");
        let blank = MorrisMove {
            notation: [0; MORRIS_MOVE_LEN],
            value: MorrisValue { kind: MorrisKind::Draw, plies: 0, exact: false },
        };
        let mut moves = vec![blank; count];
        let mut again = 0;
        let status = unsafe {
            morris_moves(self.0, p.as_ptr(), moves.as_mut_ptr(), moves.len(), &mut again)
        };
        assert_eq!((status, again), (MorrisStatus::Ok, count), "{position}");
        Ok(moves
            .iter()
            .map(|m| {
                let text = unsafe { CStr::from_ptr(m.notation.as_ptr()) };
                (text.to_str().unwrap().to_string(), m.value)
            })
            .collect())
    }

    fn best_move(
        &self,
        position: &str,
        style: Option<&str>,
    ) -> Result<(String, MorrisValue), Failure> {
        let p = c(position);
        let style = style.map(c);
        let mut buf = [0 as c_char; MORRIS_MOVE_LEN];
        let mut needed = 0;
        let mut value = MorrisValue { kind: MorrisKind::Draw, plies: 99, exact: false };
        let status = unsafe {
            morris_best_move(
                self.0,
                p.as_ptr(),
                style.as_ref().map_or(null(), |s| s.as_ptr()),
                buf.as_mut_ptr(),
                buf.len(),
                &mut needed,
                &mut value,
            )
        };
        if status != MorrisStatus::Ok {
            return Err((status, last_error()));
        }
        let text = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_string();
        assert_eq!(needed, text.len() + 1);
        Ok((text, value))
    }

    fn play(&self, position: &str, mv: &str) -> Result<String, Failure> {
        let (p, m) = (c(position), c(mv));
        let mut buf = [0 as c_char; MORRIS_POSITION_LEN];
        let mut needed = 0;
        let status = unsafe {
            morris_play(self.0, p.as_ptr(), m.as_ptr(), buf.as_mut_ptr(), buf.len(), &mut needed)
        };
        if status != MorrisStatus::Ok {
            return Err((status, last_error()));
        }
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_string())
    }

    fn answer(&self, position: &str) -> Answer {
        let value = self.value(position).unwrap();
        let moves = self.moves(position).unwrap();
        let best = match self.best_move(position, None) {
            Ok(best) => Some(best),
            Err((MorrisStatus::GameOver, _)) => None,
            Err(e) => panic!("{position}: {e:?}"),
        };
        let after_best = best.as_ref().map(|(mv, _)| self.play(position, mv).unwrap());
        Answer { value, moves, best, after_best }
    }
}

fn value_of(value: Value, exactness: Exactness) -> MorrisValue {
    let exact = exactness == Exactness::Exact;
    let kind = match value {
        Value::Win(_) => MorrisKind::Win,
        Value::Draw => MorrisKind::Draw,
        Value::Loss(_) => MorrisKind::Loss,
    };
    let plies = if exact { value.plies().map_or(-1, i32::from) } else { -1 };
    MorrisValue { kind, plies, exact }
}

/// What the library answers about `text`.
fn library(db: &Database, text: &str) -> Answer {
    let v = db.variant();
    let position = Position::parse(text, v).unwrap();
    let query = Query::new(db);
    let (value, exactness) = query.value(&position).unwrap();
    let moves = query
        .moves(&position)
        .unwrap()
        .iter()
        .map(|m| (m.mv.notation(v), value_of(m.value, m.exactness)))
        .collect();
    let choice =
        Game::new(position, Repetition::Board).choose_move_by(&query, Style::DEFAULT).unwrap();
    let best = choice.map(|m| (m.mv.notation(v), value_of(m.value, m.exactness)));
    let after_best = choice.map(|m| after(&position, m.mv).notation(v));
    Answer { value: value_of(value, exactness), moves, best, after_best }
}

#[test]
fn answers_are_the_librarys_from_one_thread_and_many() {
    let dir = tempfile::tempdir().unwrap();
    let db = solve(dir.path());
    let handle = open(dir.path(), None).unwrap();
    let expected: Vec<(String, Answer)> =
        positions().into_iter().map(|p| (p.clone(), library(&db, &p))).collect();
    assert!(expected.len() >= 8);
    // The list covers what it is meant to: exact wins, losses and draws,
    // searched values, and a game that is over.
    let values: Vec<MorrisValue> = expected.iter().map(|(_, a)| a.value).collect();
    for kind in [MorrisKind::Win, MorrisKind::Loss, MorrisKind::Draw] {
        assert!(values.iter().any(|v| v.kind == kind && v.exact), "{kind:?}");
    }
    assert!(values.iter().any(|v| !v.exact), "a searched value");
    assert!(expected.iter().any(|(_, a)| a.best.is_none()), "a game that is over");
    for (position, want) in &expected {
        assert_eq!(&handle.answer(position), want, "{position}");
    }

    // One handle, four threads at once, each through every position in
    // its own order, several times.
    std::thread::scope(|s| {
        for t in 0..4 {
            let (handle, expected) = (&handle, &expected);
            s.spawn(move || {
                for round in 0..3 {
                    for i in 0..expected.len() {
                        let (position, want) = &expected[(i + t + round) % expected.len()];
                        assert_eq!(&handle.answer(position), want, "thread {t}: {position}");
                    }
                }
            });
        }
    });
}

#[test]
fn each_thread_has_its_own_last_error() {
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path());
    let handle = open(dir.path(), None).unwrap();
    std::thread::scope(|s| {
        for t in 0..4 {
            let handle = &handle;
            s.spawn(move || {
                for _ in 0..50 {
                    let bad = format!("bogus{t}");
                    let (status, message) = handle.value(&bad).unwrap_err();
                    assert_eq!(status, MorrisStatus::BadNotation);
                    assert!(message.contains(&bad), "thread {t}: {message}");
                    // A success leaves the message as it was.
                    handle.value("WW.W..../B.B.B... w 0 0").unwrap();
                    assert!(last_error().contains(&bad));
                }
            });
        }
    });
}

#[test]
fn failures_have_their_status_and_a_message() {
    let dir = tempfile::tempdir().unwrap();
    solve(dir.path());
    let handle = open(dir.path(), None).unwrap();
    let win = "WW.W..../B.B.B... w 0 0";

    // Notation.
    let (status, message) = handle.value("bogus").unwrap_err();
    assert_eq!(status, MorrisStatus::BadNotation);
    assert!(message.contains("position 'bogus'"), "{message}");
    let (status, message) = handle.play(win, "a5-e1").unwrap_err();
    assert_eq!(status, MorrisStatus::BadNotation);
    assert!(message.contains("not legal"), "{message}");
    // A table that is not there names the command that makes it.
    let (status, message) = handle.value("start").unwrap_err();
    assert_eq!(status, MorrisStatus::NotSolved);
    assert!(message.contains("morris solve --variant six"), "{message}");
    assert_eq!(handle.moves("start").unwrap_err().0, MorrisStatus::NotSolved);
    // The game is over: no move to choose.
    let (status, message) = handle.best_move("BBBWW..W/.W...... b 0 0", None).unwrap_err();
    assert_eq!(status, MorrisStatus::GameOver);
    assert!(message.contains("game is over"), "{message}");
    // A tie-break style that is none.
    assert_eq!(handle.best_move(win, Some("nope")).unwrap_err().0, MorrisStatus::BadArgument);
    assert!(handle.best_move(win, Some("replies")).is_ok());

    // Opening: a directory that is not there, a variant or rule that is
    // none.
    let (status, message) = open(&dir.path().join("nowhere"), None).err().unwrap();
    assert_eq!(status, MorrisStatus::Io);
    assert!(message.contains("no such database directory"), "{message}");
    let (status, message) = open(dir.path(), Some("often")).err().unwrap();
    assert_eq!(status, MorrisStatus::BadArgument);
    assert!(message.contains("fly_at"), "{message}");
    let mut db = null_mut();
    let (d, nine, bad) = (c(dir.path().to_str().unwrap()), c("ninety"), c("lasker"));
    let status = unsafe { morris_db_open(d.as_ptr(), nine.as_ptr(), null(), null(), &mut db) };
    assert_eq!(status, MorrisStatus::BadArgument);
    assert!(last_error().contains("unknown variant 'ninety'"));
    // --fly-count is lasker's alone.
    let (six_name, board) = (c("six"), c("board"));
    let status =
        unsafe { morris_db_open(d.as_ptr(), six_name.as_ptr(), null(), board.as_ptr(), &mut db) };
    assert_eq!(status, MorrisStatus::BadArgument);
    let status =
        unsafe { morris_db_open(d.as_ptr(), bad.as_ptr(), null(), board.as_ptr(), &mut db) };
    assert_eq!(status, MorrisStatus::Ok);
    unsafe { morris_db_close(db) };

    // Tables solved under other rules (six does not fly; these ask for
    // flying at 3).
    let flying = open(dir.path(), Some("3")).unwrap();
    let (status, message) = flying.value(win).unwrap_err();
    assert_eq!(status, MorrisStatus::RulesMismatch);
    assert!(message.contains("other rules"), "{message}");

    // Null pointers and text that is not UTF-8.
    let p = c(win);
    let mut out = MorrisValue { kind: MorrisKind::Draw, plies: 0, exact: false };
    let status = unsafe { morris_value(null(), p.as_ptr(), &mut out) };
    assert_eq!(status, MorrisStatus::BadArgument);
    assert!(last_error().contains("db: a null pointer"));
    assert_eq!(unsafe { morris_value(handle.0, null(), &mut out) }, MorrisStatus::BadArgument);
    assert_eq!(
        unsafe { morris_value(handle.0, p.as_ptr(), null_mut()) },
        MorrisStatus::BadArgument
    );
    let latin1 = CString::new(b"WW.W..../B.B.B... w 0 0 \xe9".to_vec()).unwrap();
    let status = unsafe { morris_value(handle.0, latin1.as_ptr(), &mut out) };
    assert_eq!(status, MorrisStatus::BadArgument);
    assert!(last_error().contains("not UTF-8"));
    assert_eq!(
        unsafe { morris_db_open(null(), null(), null(), null(), null_mut()) },
        MorrisStatus::BadArgument
    );
    let mut count = 0;
    let status = unsafe { morris_moves(handle.0, p.as_ptr(), null_mut(), 3, &mut count) };
    assert_eq!(status, MorrisStatus::BadArgument);
    assert_eq!(
        unsafe { morris_moves(handle.0, p.as_ptr(), null_mut(), 0, null_mut()) },
        MorrisStatus::BadArgument
    );
    unsafe { morris_db_close(null_mut()) };

    // Buffers too small: the size needed, the empty string.
    let position = Position::parse(win, &six()).unwrap();
    let capture = parse_move(&six(), &position, "e3-e5xb4").unwrap();
    let next = after(&position, capture).notation(&six());
    let mut buf = [b'?' as c_char; 4];
    let mut needed = 0;
    let mv = c("e3-e5xb4");
    let status = unsafe {
        morris_play(handle.0, p.as_ptr(), mv.as_ptr(), buf.as_mut_ptr(), buf.len(), &mut needed)
    };
    assert_eq!(status, MorrisStatus::BufferTooSmall);
    assert_eq!(needed, next.len() + 1);
    assert_eq!(buf[0], 0);
    assert_eq!(handle.play(win, "e3-e5xb4").unwrap(), next);
    let mut moves = [MorrisMove { notation: [0; MORRIS_MOVE_LEN], value: out }; 2];
    let status = unsafe { morris_moves(handle.0, p.as_ptr(), moves.as_mut_ptr(), 2, &mut count) };
    assert_eq!((status, count), (MorrisStatus::BufferTooSmall, 8));
    assert!(last_error().contains("room for 2 moves"));

    // Names of the statuses.
    let name = |s: i32| unsafe { CStr::from_ptr(morris_status_name(s)) }.to_str().unwrap();
    assert_eq!(name(MorrisStatus::Ok as i32), "ok");
    assert_eq!(name(MorrisStatus::NotSolved as i32), "not solved");
    assert_eq!(name(-5), "unknown status");
    let version = unsafe { CStr::from_ptr(morris_version()) }.to_str().unwrap();
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
}

/// The sectors of six's moving phase that `db` has tables of.
fn solved(db: &Database) -> Vec<morris::Sector> {
    moving_sectors(db.variant()).into_iter().filter(|s| db.table_path(*s).exists()).collect()
}

#[test]
fn a_damaged_table_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let db = solve(dir.path());
    let win = "WW.W..../B.B.B... w 0 0";
    for sector in solved(&db) {
        let path = db.table_path(sector);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(&path, bytes).unwrap();
    }
    let handle = open(dir.path(), None).unwrap();
    let (status, message) = handle.value(win).unwrap_err();
    assert_eq!(status, MorrisStatus::Corrupt, "{message}");
    assert!(message.contains(".mtb"), "{message}");
}

#[test]
fn the_win_draw_loss_tier_opens_the_same_way() {
    let full = tempfile::tempdir().unwrap();
    let db = solve(full.path());
    let wdl = tempfile::tempdir().unwrap();
    for sector in solved(&db) {
        db.export_wdl(sector, wdl.path(), Compression::Quick, &|| false).unwrap();
    }
    let handle = open(wdl.path(), None).unwrap();
    let wdl_db = Database::new(wdl.path(), six());
    for position in positions() {
        let want = library(&db, &position).value;
        let got = handle.value(&position).unwrap();
        assert_eq!(got.kind, want.kind, "{position}");
        assert_eq!(got, library_value(&wdl_db, &position), "{position}");
    }
    // The perfect player needs distances.
    let (status, message) = handle.best_move("W.W.W.W./B.B.B... b 0 0", None).unwrap_err();
    assert_eq!(status, MorrisStatus::NoDistances);
    assert!(message.contains("win/draw/loss tier"), "{message}");
}

fn library_value(db: &Database, text: &str) -> MorrisValue {
    let position = Position::parse(text, db.variant()).unwrap();
    let (value, exactness) = Query::new(db).value(&position).unwrap();
    value_of(value, exactness)
}
