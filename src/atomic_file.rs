//! Replacing a file so that a crash leaves either its old content or the
//! complete new one: the new content goes to `<path>.tmp`, which is synced
//! and renamed over `path`, and then the directory is synced, since the
//! rename lives in the directory, not in the file. Tables and checkpoints
//! are both written this way.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

/// Where the new content of `path` is written before it is renamed over it.
pub(crate) fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    PathBuf::from(name)
}

/// Runs `write` on a new `<path>.tmp` (given the file and its path), then
/// makes the result durable and renames it over `path`; on any failure
/// removes the temporary file. A failure of these steps becomes the
/// caller's error through `io_error`, given the file it concerns and what
/// was being done.
pub(crate) fn write_atomically<E>(
    path: &Path,
    write: impl FnOnce(&mut File, &Path) -> Result<(), E>,
    io_error: impl Fn(&Path, &'static str, io::Error) -> E,
) -> Result<(), E> {
    write_checked_atomically(path, write, |_| Ok(()), io_error)
}

/// [`write_atomically`], with `check` run on the temporary file (given its
/// path) once it is written and synced, before it is renamed over `path`:
/// an error there leaves `path` as it was and removes the temporary file.
pub(crate) fn write_checked_atomically<E>(
    path: &Path,
    write: impl FnOnce(&mut File, &Path) -> Result<(), E>,
    check: impl FnOnce(&Path) -> Result<(), E>,
    io_error: impl Fn(&Path, &'static str, io::Error) -> E,
) -> Result<(), E> {
    let tmp = tmp_path(path);
    let result = (|| {
        let mut file = File::create(&tmp).map_err(|e| io_error(&tmp, "create the file", e))?;
        write(&mut file, &tmp)?;
        file.sync_all().map_err(|e| io_error(&tmp, "sync the file", e))?;
        drop(file);
        check(&tmp)?;
        fs::rename(&tmp, path)
            .map_err(|e| io_error(path, "rename the temporary file into place", e))?;
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| io_error(dir, "sync the directory", e))
    })();
    if result.is_err() {
        // Best effort: the error being reported matters more than this one.
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn failed_write_keeps_old_file_and_removes_tmp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        fs::write(&path, b"old").unwrap();
        let err = write_atomically(
            &path,
            |file, _| {
                file.write_all(b"half a table").unwrap();
                Err(io::Error::other("disk full"))
            },
            |_, _, e| e,
        );
        assert!(err.is_err());
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert!(!tmp_path(&path).exists());
    }

    #[test]
    fn failed_check_keeps_old_file_and_removes_tmp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        fs::write(&path, b"old").unwrap();
        let err = write_checked_atomically(
            &path,
            |file, _| file.write_all(b"new but wrong"),
            |tmp| {
                assert_eq!(fs::read(tmp).unwrap(), b"new but wrong");
                Err(io::Error::other("does not check out"))
            },
            |_, _, e| e,
        );
        assert!(err.is_err());
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert!(!tmp_path(&path).exists());
    }

    #[test]
    fn finished_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        fs::write(&path, b"old").unwrap();
        write_atomically(&path, |file, _| file.write_all(b"new"), |_, _, e| e).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert!(!tmp_path(&path).exists());
    }
}
