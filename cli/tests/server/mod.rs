//! A running `morris serve` for the tests that talk to it (the API tests
//! and the browser tests), and the database of Six Men's Morris they
//! share.

use super::common::{command, ok, scratch, served_address};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::OnceLock;

/// Six, moving and placement phase, solved once (a few seconds).
pub fn six() -> &'static Path {
    static DB: OnceLock<tempfile::TempDir> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = scratch();
        ok(dir.path(), &["--variant", "six", "solve", "--threads", "2"]);
        dir
    })
    .path()
}

/// A running `morris serve` on a free port, killed when dropped. Each
/// test file adds the requests it makes.
pub struct Server {
    child: Child,
    pub addr: String,
}

impl Server {
    /// Starts a server on `db` at `127.0.0.1:0`; the server prints the
    /// address it got.
    pub fn start(db: &Path) -> Server {
        let mut child = command(db, &["serve", "--bind", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("morris serve starts");
        let addr = served_address(&mut child);
        Server { child, addr }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `text` percent-encoded for a query string.
pub fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
