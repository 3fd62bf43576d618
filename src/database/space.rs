//! Disk space: what a file system has free, and space given to a file for
//! real. A sparse file that is memory-mapped turns a full disk into
//! SIGBUS on the first write to an unbacked page; allocated blocks cannot
//! run out.

use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Bytes an unprivileged process may still write on the file system of
/// `dir` (statvfs: available blocks times the fragment size).
pub fn free_bytes(dir: &Path) -> io::Result<u64> {
    let mut path = dir.as_os_str().as_bytes().to_vec();
    path.push(0);
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // Safety: `path` is NUL-terminated and `stat` is written by the call
    // before it is read, only when the call succeeds.
    let stat = unsafe {
        if libc::statvfs(path.as_ptr() as *const libc::c_char, stat.as_mut_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
        stat.assume_init()
    };
    Ok(stat.f_bavail as u64 * stat.f_frsize as u64)
}

/// Gives `file` its first `len` bytes on disk (posix_fallocate), growing
/// it if shorter; fails with ENOSPC when they are not there.
pub fn allocate(file: &File, len: u64) -> io::Result<()> {
    if len == 0 {
        return Ok(());
    }
    // Safety: a plain system call on an open descriptor.
    let errno = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len as libc::off_t) };
    match errno {
        0 => Ok(()),
        e => Err(io::Error::from_raw_os_error(e)),
    }
}
