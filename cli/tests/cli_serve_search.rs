//! `morris serve` while a placement search runs, through the binary and
//! over 127.0.0.1 only: table lookups and short searches are answered
//! meanwhile, a search stops with 503 at `--search-seconds`, requests for
//! the same position share one search, and a search whose clients have
//! all gone stops (its CPU time stops growing).
//!
//! The database is nine's moving phase up to 8 stones, solved once (a
//! few seconds). A placement position with 4 stones in each hand on an
//! empty board takes some 16,000 nodes to search, which the test-only
//! `--test-search-throttle-ms 1000` (a spin of 1 s every 1,024 nodes)
//! makes some 16 s of busy search; one with a stone in each hand takes 21
//! nodes, too few to be slowed.

mod common;

use common::{command, ok, served_address};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Nine's moving phase up to 8 stones.
fn nine8() -> &'static Path {
    static DB: OnceLock<tempfile::TempDir> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        ok(
            dir.path(),
            &[
                "--variant",
                "nine",
                "solve",
                "--phase",
                "moving",
                "--max-stones",
                "8",
                "--threads",
                "2",
            ],
        );
        dir
    })
    .path()
}

/// A search of seconds, throttled.
const LONG: &str = "......../......../........ w 4 4";
/// A search of milliseconds.
const SHORT: &str = "W..B..W./..B...../........ w 1 1";
/// A lookup in the 3-3 table.
const MOVING: &str = "WWW...../BBB...../........ w 0 0";

struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut all = vec!["serve", "--bind", "127.0.0.1:0", "--test-search-throttle-ms", "1000"];
        all.extend(args);
        let mut child = command(nine8(), &all)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("morris serve starts");
        let addr = served_address(&mut child);
        Server { child, addr }
    }

    /// Sends a query for `position` and leaves the connection open.
    fn ask(&self, position: &str) -> TcpStream {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        write!(
            stream,
            "GET /api/query?variant=nine&position={} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            encode(position),
            self.addr
        )
        // A server that refuses at once may close before the request is
        // written; its reply is still there to read.
        .ok();
        stream
    }

    /// The status and body of a query, and how long it took.
    fn query(&self, position: &str) -> (u16, String, Duration) {
        let started = Instant::now();
        let (status, body) = reply(&mut self.ask(position));
        (status, body, started.elapsed())
    }

    /// A lookup and a short search are answered within a second each.
    fn answers(&mut self) {
        for position in [MOVING, SHORT] {
            let (status, body, took) = self.query(position);
            assert_eq!(status, 200, "{position}: {body}");
            assert!(took < Duration::from_secs(1), "{position} took {took:?}");
        }
        assert!(self.child.try_wait().unwrap().is_none(), "the server has exited");
    }

    /// The CPU time the server has used.
    fn cpu(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        // SAFETY: sysconf has no preconditions.
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
        Duration::from_millis(ticks * 1000 / per_second)
    }

    /// CPU time used over the next `span`.
    fn cpu_over(&self, span: Duration) -> Duration {
        let before = self.cpu();
        std::thread::sleep(span);
        self.cpu() - before
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn reply(stream: &mut TcpStream) -> (u16, String) {
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).to_string();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string();
    (status, body)
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn lookups_are_answered_while_a_search_runs_and_the_search_times_out_503() {
    let mut server = Server::start(&["--search-seconds", "2"]);
    let started = Instant::now();
    let mut long = server.ask(LONG);
    for _ in 0..3 {
        server.answers();
    }
    let (status, body) = reply(&mut long);
    let took = started.elapsed();
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("--search-seconds"), "{body}");
    assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(6), "{took:?}");
    server.answers();
}

#[test]
fn a_search_is_shared_and_stops_when_its_last_client_goes() {
    let mut server = Server::start(&["--search-seconds", "60", "--queue", "1"]);
    let first = server.ask(LONG);
    std::thread::sleep(Duration::from_millis(300));
    // The same position joins the search under way: the queue of one
    // has room for one more distinct search, not two.
    let second = server.ask(LONG);
    // While `other` waits, the two searches take 20 ms turns, and each of
    // the long search's turns gets through 1,024 nodes before its spin:
    // keep that short, or the long search (some 16,000 nodes) may finish
    // before the test looks at it (it did, 1 run in 6, with 300 + 200 ms).
    let other = server.ask("W......./......../........ b 3 4");
    std::thread::sleep(Duration::from_millis(100));
    let (status, body, _) = server.query(".W....../......../........ b 3 4");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("busy"), "{body}");
    drop(other.shutdown(std::net::Shutdown::Both));
    std::thread::sleep(Duration::from_millis(100));
    server.answers();
    // One client of the search leaves: it goes on for the other. (The
    // search thread runs at nice 10, so on a busy machine it may get a
    // small share of a core; an idle server uses none.)
    drop(first);
    let busy = server.cpu_over(Duration::from_millis(2000));
    assert!(busy >= Duration::from_millis(30), "the search stopped early: {busy:?} of CPU");
    // The last leaves: the search stops.
    drop(second);
    std::thread::sleep(Duration::from_millis(500));
    let idle = server.cpu_over(Duration::from_millis(1500));
    assert!(idle <= Duration::from_millis(20), "the search goes on: {idle:?} of CPU");
    server.answers();
}

#[test]
fn with_every_connection_answering_a_new_one_is_503() {
    let mut server = Server::start(&["--search-seconds", "60", "--max-connections", "2"]);
    // Two connections wait for the one search: neither is idle.
    let (first, second) = (server.ask(LONG), server.ask(LONG));
    std::thread::sleep(Duration::from_millis(500));
    let (status, body, took) = server.query(MOVING);
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("no room for another connection"), "{body}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    // Once they go, there is room again.
    first.shutdown(std::net::Shutdown::Both).unwrap();
    second.shutdown(std::net::Shutdown::Both).unwrap();
    drop((first, second));
    std::thread::sleep(Duration::from_millis(300));
    server.answers();
}
