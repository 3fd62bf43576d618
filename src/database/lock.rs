//! The one-writer lock of a database directory: an OS file lock on
//! `<dir>/.lock`, held by `solve` for its whole run. The kernel drops it
//! when the process ends, however it ends, so a killed solver never
//! leaves a stale lock. Readers never take it.
//!
//! std's `File::try_lock` (flock on Unix, stable since Rust 1.89) does
//! this without a dependency.

use super::DbError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{ErrorKind, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The lock of a directory; dropping it (or the process ending) frees it.
pub struct DirLock {
    _file: File,
}

/// The lock file of `dir`.
pub fn lock_path(dir: &Path) -> PathBuf {
    dir.join(".lock")
}

/// Takes the lock of `dir`, or says who holds it. The file keeps the
/// holder's pid and start time for the message of the next one to try.
pub fn lock(dir: &Path) -> Result<DirLock, DbError> {
    let path = lock_path(dir);
    // Not truncated on opening: until the lock is ours, the text in it
    // is the holder's.
    let mut file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(|source| {
        match source.kind() {
            ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied => {
                DbError::ReadOnly { dir: dir.to_path_buf(), source }
            }
            _ => DbError::Io { path: path.clone(), op: "open the lock file", source },
        }
    })?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            return Err(DbError::Busy { dir: dir.to_path_buf(), holder: describe_holder(&holder) });
        }
        Err(TryLockError::Error(source)) => return Err(DbError::Io { path, op: "lock", source }),
    }
    let text = format!("pid {}\nsince {}\n", std::process::id(), utc_now());
    let written = file.set_len(0).and_then(|()| file.rewind()).and_then(|()| file.write_all(text.as_bytes()));
    written.map_err(|source| DbError::Io { path, op: "write the lock file", source })?;
    Ok(DirLock { _file: file })
}

/// `process 123 (since 2026-11-22 21:30:05 UTC)` from the lock file's text.
fn describe_holder(text: &str) -> String {
    let field = |key: &str| text.lines().find_map(|l| l.strip_prefix(key)).map(str::trim);
    match (field("pid "), field("since ")) {
        (Some(pid), Some(since)) => format!("process {pid} (since {since})"),
        (Some(pid), None) => format!("process {pid}"),
        _ => "another process".to_string(),
    }
}

/// The current time as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn utc_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC", rest / 3600, rest / 60 % 60, rest % 60)
}

/// The proleptic Gregorian date of a day count since 1970-01-01
/// (H. Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + (m <= 2) as i64, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_day_counts() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_779), (2026, 11, 22));
    }

    #[test]
    fn holder_from_the_lock_file() {
        assert_eq!(describe_holder("pid 42\nsince 2026-11-22 21:30:05 UTC\n"), "process 42 (since 2026-11-22 21:30:05 UTC)");
        assert_eq!(describe_holder(""), "another process");
    }

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock(dir.path()).unwrap();
        let err = lock(dir.path()).err().unwrap().to_string();
        assert!(err.contains(&format!("is being solved by process {}", std::process::id())), "{err}");
        drop(first);
        lock(dir.path()).unwrap();
    }
}
