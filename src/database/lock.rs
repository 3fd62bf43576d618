//! The locks of a database directory: OS file locks, which the kernel
//! drops when the process ends, however it ends, so a killed solver never
//! leaves a stale lock. Readers never take them.
//!
//! - A whole-directory `solve` holds `<dir>/.lock` exclusively for its
//!   whole run: one such writer per directory.
//! - A single job (`solve --job`) holds `<dir>/.lock` shared, so several
//!   jobs - on several machines sharing the directory - run at once while
//!   a whole-directory solve cannot start, and holds its own
//!   `<dir>/.locks/<variant>-<job>.lock` exclusively, so two runs of the
//!   same job cannot collide. Different jobs write different files.
//!
//! std's `File::try_lock` (flock on Unix, stable since Rust 1.89) does
//! this without a dependency. On NFS, Linux turns flock into POSIX record
//! locks that the server keeps, so the locks hold across machines; a file
//! system without locks (Lustre mounted without `flock`) makes taking
//! one an error, never a silent go-ahead.

use super::DbError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{ErrorKind, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// A held lock; dropping it (or the process ending) frees it.
pub struct DirLock {
    _file: File,
}

/// The lock file of `dir`.
pub fn lock_path(dir: &Path) -> PathBuf {
    dir.join(".lock")
}

/// The lock file of one job in `dir`, `name` being e.g. `nine-4-3`.
pub fn job_lock_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(".locks").join(format!("{name}.lock"))
}

/// What shared holders write into `.lock`: all of them the same bytes at
/// the same offset, so their writes cannot garble each other.
const SHARED_TEXT: &str = "single jobs\n";

/// Takes the lock of `dir` for a whole-directory solve, or says who holds
/// it. The file keeps the holder's pid, host and start time for the
/// message of the next one to try.
pub fn lock(dir: &Path) -> Result<DirLock, DbError> {
    take(&lock_path(dir), dir, Mode::Exclusive, |holder| DbError::Busy {
        dir: dir.to_path_buf(),
        holder,
    })
}

/// Takes the lock of `dir` shared, as single jobs do: refused only while
/// a whole-directory solve holds it.
pub fn lock_shared(dir: &Path) -> Result<DirLock, DbError> {
    take(&lock_path(dir), dir, Mode::Shared, |holder| DbError::Busy {
        dir: dir.to_path_buf(),
        holder,
    })
}

/// Takes the lock of job `name` in `dir` (`job` names it in the message),
/// or says who holds it.
pub fn lock_job(dir: &Path, name: &str, job: &str) -> Result<DirLock, DbError> {
    let path = job_lock_path(dir, name);
    let locks = path.parent().expect("a job lock lives in .locks");
    std::fs::create_dir_all(locks)
        .map_err(|source| open_error(dir, locks, "create the directory of job locks", source))?;
    take(&path, dir, Mode::Exclusive, |holder| DbError::JobBusy {
        job: job.to_string(),
        dir: dir.to_path_buf(),
        holder,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Exclusive,
    Shared,
}

fn open_error(dir: &Path, path: &Path, op: &'static str, source: std::io::Error) -> DbError {
    match source.kind() {
        ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied => {
            DbError::ReadOnly { dir: dir.to_path_buf(), source }
        }
        _ => DbError::Io { path: path.to_path_buf(), op, source },
    }
}

/// Locks the file at `path` (created if need be) in `mode`; when someone
/// else holds it, `busy` gets the holder's description.
fn take(
    path: &Path,
    dir: &Path,
    mode: Mode,
    busy: impl FnOnce(String) -> DbError,
) -> Result<DirLock, DbError> {
    // Not truncated on opening: until the lock is ours, the text in it
    // is the holder's.
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|source| open_error(dir, path, "open the lock file", source))?;
    let taken = match mode {
        Mode::Exclusive => file.try_lock(),
        Mode::Shared => file.try_lock_shared(),
    };
    match taken {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            return Err(busy(describe_holder(&holder)));
        }
        Err(TryLockError::Error(source)) => {
            return Err(DbError::Io { path: path.to_path_buf(), op: "lock", source })
        }
    }
    let text = match mode {
        Mode::Exclusive => {
            format!(
                "pid {}\nhost {}\nsince {}\ncommand {}\n",
                std::process::id(),
                hostname(),
                utc_now(),
                command_line()
            )
        }
        Mode::Shared => SHARED_TEXT.to_string(),
    };
    let written =
        file.set_len(0).and_then(|()| file.rewind()).and_then(|()| file.write_all(text.as_bytes()));
    written.map_err(|source| DbError::Io {
        path: path.to_path_buf(),
        op: "write the lock file",
        source,
    })?;
    Ok(DirLock { _file: file })
}

/// This process's command line, the program by its file name: what the
/// next one refused is told is running (`morris compact --db D`).
fn command_line() -> String {
    let mut args = std::env::args();
    let program = args.next().unwrap_or_default();
    let name = Path::new(&program)
        .file_name()
        .map_or(program.clone(), |n| n.to_string_lossy().into_owned());
    std::iter::once(name).chain(args).collect::<Vec<_>>().join(" ").replace('\n', " ")
}

/// This machine's name, or `?` when it cannot be found out.
fn hostname() -> String {
    let mut buf = [0u8; 256];
    // Safety: the buffer is valid for its whole length; gethostname
    // writes at most that many bytes.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) } == 0;
    let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    if ok && len > 0 {
        String::from_utf8_lossy(&buf[..len]).into_owned()
    } else {
        "?".to_string()
    }
}

/// `process 123 (since 2026-11-22 21:30:05 UTC)` from the lock file's
/// text, with `on HOST` when the holder runs on another machine.
fn describe_holder(text: &str) -> String {
    if text == SHARED_TEXT {
        return "single jobs (`morris solve --job`)".to_string();
    }
    let field = |key: &str| text.lines().find_map(|l| l.strip_prefix(key)).map(str::trim);
    let host = match field("host ") {
        Some(host) if host != hostname() => format!(" on {host}"),
        _ => String::new(),
    };
    let command = match field("command ") {
        Some(command) if !command.is_empty() => format!("; `{command}`"),
        _ => String::new(),
    };
    match (field("pid "), field("since ")) {
        (Some(pid), Some(since)) => format!("process {pid}{host} (since {since}{command})"),
        (Some(pid), None) => format!("process {pid}{host}"),
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
        assert_eq!(
            describe_holder("pid 42\nsince 2026-11-22 21:30:05 UTC\n"),
            "process 42 (since 2026-11-22 21:30:05 UTC)"
        );
        assert_eq!(describe_holder(""), "another process");
        let elsewhere = format!("pid 7\nhost not-{}\nsince 2026-11-22 21:30:05 UTC\n", hostname());
        assert_eq!(
            describe_holder(&elsewhere),
            format!("process 7 on not-{} (since 2026-11-22 21:30:05 UTC)", hostname())
        );
        let here = format!("pid 7\nhost {}\n", hostname());
        assert_eq!(describe_holder(&here), "process 7");
        assert_eq!(
            describe_holder(
                "pid 7\nsince 2026-11-22 21:30:05 UTC\ncommand morris compact --db d\n"
            ),
            "process 7 (since 2026-11-22 21:30:05 UTC; `morris compact --db d`)"
        );
    }

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock(dir.path()).unwrap();
        let err = lock(dir.path()).err().unwrap().to_string();
        assert!(
            err.contains(&format!("is being solved by process {}", std::process::id())),
            "{err}"
        );
        drop(first);
        lock(dir.path()).unwrap();
    }

    #[test]
    fn single_jobs_share_the_directory_but_not_a_job() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (lock_shared(dir.path()).unwrap(), lock_shared(dir.path()).unwrap());
        let err = lock(dir.path()).err().unwrap().to_string();
        assert!(err.ends_with("is being solved by single jobs (`morris solve --job`)"), "{err}");
        let job = lock_job(dir.path(), "nine-4-3", "4-3").unwrap();
        lock_job(dir.path(), "nine-4-4", "4-4").unwrap();
        let err = lock_job(dir.path(), "nine-4-3", "4-3").err().unwrap().to_string();
        assert!(
            err.contains(&format!(
                "job 4-3 is being solved in {} by process {}",
                dir.path().display(),
                std::process::id()
            )),
            "{err}"
        );
        drop((a, b, job));
        let whole = lock(dir.path()).unwrap();
        assert!(lock_shared(dir.path()).err().unwrap().to_string().contains("by process"));
        drop(whole);
    }
}
