//! `morris serve` against clients that misbehave, through the binary and
//! over 127.0.0.1 only: each attack of the issue "a server safe to share"
//! is made, and meanwhile another client must be answered within a
//! second, and the server must still be running after. Every test is
//! bounded in connections (a few hundred at most) and in time (seconds).

mod common;

use common::{command, served_address};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A `morris serve` on an empty database at 127.0.0.1:0, killed when
/// dropped; its stderr goes to a file.
struct Server {
    child: Child,
    addr: String,
    stderr: tempfile::NamedTempFile,
    _db: tempfile::TempDir,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        Server::start_with(args, None)
    }

    /// With `files`, the server runs under that limit on open files.
    fn start_with(args: &[&str], files: Option<u64>) -> Server {
        let db = tempfile::tempdir().unwrap();
        let stderr = tempfile::NamedTempFile::new().unwrap();
        let mut all = vec!["serve", "--bind", "127.0.0.1:0"];
        all.extend(args);
        let mut cmd = command(db.path(), &all);
        cmd.stdout(Stdio::piped()).stderr(stderr.reopen().unwrap());
        if let Some(files) = files {
            // SAFETY: setrlimit is async-signal-safe; nothing else runs in
            // the child before exec.
            unsafe {
                cmd.pre_exec(move || {
                    let limit = libc::rlimit { rlim_cur: files, rlim_max: files };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = cmd.spawn().expect("morris serve starts");
        let addr = served_address(&mut child);
        Server { child, addr, stderr, _db: db }
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(&self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        stream
    }

    /// Sends `request` and reads the reply to its end: (status, reply).
    fn raw(&self, request: &[u8]) -> (u16, String) {
        let mut stream = self.connect();
        let _ = stream.write_all(request);
        read_reply(&mut stream)
    }

    /// A GET of `target` with this server's Host and `extra` header lines.
    fn get(&self, target: &str, extra: &str) -> (u16, String) {
        self.raw(
            format!(
                "GET {target} HTTP/1.1\r\nHost: {}\r\n{extra}Connection: close\r\n\r\n",
                self.addr
            )
            .as_bytes(),
        )
    }

    /// The server answers a listing (through its workers) and the page
    /// within a second each, and is still running.
    fn answers(&mut self) {
        for target in ["/api/variants", "/"] {
            let started = Instant::now();
            let (status, body) = self.get(target, "");
            let took = started.elapsed();
            assert_eq!(status, 200, "{target}: {body}");
            assert!(took < Duration::from_secs(1), "{target} took {took:?}");
        }
        self.running();
    }

    fn running(&mut self) {
        assert!(self.child.try_wait().unwrap().is_none(), "the server has exited");
    }

    fn stderr(&self) -> Vec<u8> {
        std::fs::read(self.stderr.path()).unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads a reply to the end of the connection: its status and all of it.
fn read_reply(stream: &mut TcpStream) -> (u16, String) {
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).to_string();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, text)
}

/// The JSON error of a reply, which must be there.
fn error_of(reply: &str) -> String {
    let body = reply.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    let json: serde_json::Value =
        serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {reply}"));
    json["error"].as_str().expect("an error").to_string()
}

#[test]
fn a_body_that_never_comes_stalls_no_one_and_times_out_408() {
    let mut server = Server::start(&["--request-seconds", "2"]);
    let mut stalled = server.connect();
    write!(stalled, "GET / HTTP/1.1\r\nHost: {}\r\nContent-Length: 100000\r\n\r\n", server.addr)
        .unwrap();
    for _ in 0..3 {
        server.answers();
    }
    let started = Instant::now();
    let (status, reply) = read_reply(&mut stalled);
    assert_eq!(status, 408, "{reply}");
    assert!(error_of(&reply).contains("not sent in time"));
    assert!(started.elapsed() < Duration::from_secs(5));
    server.answers();
}

#[test]
fn a_head_sent_slowly_is_408_and_stalls_no_one() {
    let mut server = Server::start(&["--request-seconds", "1"]);
    let mut slow = server.connect();
    write!(slow, "GET / HTTP/1.1\r\nHost: {}\r\nX-Slow: ", server.addr).unwrap();
    server.answers();
    // A byte now and then does not keep the request alive.
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(200));
        let _ = slow.write_all(b"a");
    }
    let (status, reply) = read_reply(&mut slow);
    assert_eq!(status, 408, "{reply}");
    // A connection that says nothing is closed without a word.
    let mut silent = server.connect();
    let (status, reply) = read_reply(&mut silent);
    assert_eq!((status, reply.as_str()), (0, ""));
    server.answers();
}

#[test]
fn a_content_length_too_large_is_413_not_a_crash() {
    let mut server = Server::start(&[]);
    let (status, reply) = server.get("/", "Content-Length: 1048577\r\n");
    assert_eq!(status, 413, "{reply}");
    assert!(error_of(&reply).contains("the most this server takes is 1048576"), "{reply}");
    server.answers();
    // Lengths beyond what hyper counts are refused by hyper itself, before
    // the server sees the request, with a status of its own and no body: a
    // length past its largest (2^64 - 3) is 431, one past what 64 bits
    // hold is not a number, 400. (The hand-written server answered 413 to
    // both; each is still refused at once, and the connection closed.)
    for (length, refused) in [
        ("18446744073709551615", 431),
        ("18446744073709551616", 400),
        ("99999999999999999999999", 400),
    ] {
        let (status, reply) = server.get("/", &format!("Content-Length: {length}\r\n"));
        assert_eq!(status, refused, "{length}: {reply}");
        server.answers();
    }
    // A body within the limit (a batch of 10,000 positions is some 500 KB)
    // is read and the request answered.
    let body = vec![b'x'; 600_000];
    let mut stream = server.connect();
    let head = format!(
        "GET /api/variants HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        server.addr,
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&body).unwrap();
    assert_eq!(read_reply(&mut stream).0, 200);
    let (status, reply) = server.get("/", "Content-Length: 12\r\nContent-Length: 13\r\n");
    assert_eq!(status, 400, "{reply}");
    server.answers();
}

/// `request` (a head without its end) with `body` sent in chunks of
/// `chunk` bytes, `Transfer-Encoding: chunked`: the reply.
fn chunked(server: &Server, request: &str, body: &[u8], chunk: usize) -> (u16, String) {
    let mut stream = server.connect();
    let mut bytes = format!(
        "{request}Host: {}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        server.addr
    )
    .into_bytes();
    for part in body.chunks(chunk) {
        bytes.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
        bytes.extend_from_slice(part);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(b"0\r\n\r\n");
    // A server that refuses may close before all is written.
    let _ = stream.write_all(&bytes);
    read_reply(&mut stream)
}

#[test]
fn chunked_bodies_are_taken_within_the_limit() {
    let mut server = Server::start(&[]);
    // A list of positions to probe, in chunks of 3 bytes: answered (here,
    // with the error of the table that is missing).
    let post = "POST /api/probe?variant=six HTTP/1.1\r\n";
    let (status, reply) = chunked(&server, post, br#"["start", "start"]"#, 3);
    assert_eq!(status, 200, "{reply}");
    let body = reply.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    let list: serde_json::Value = serde_json::from_str(body).expect("a JSON list");
    assert_eq!(list.as_array().map(Vec::len), Some(2), "{reply}");
    // A body of more than 1 MiB, which no length announced: 413 once the
    // server has read 1 MiB of it.
    let (status, reply) = chunked(&server, post, &vec![b' '; (1 << 20) + 100], 64 << 10);
    assert_eq!(status, 413, "{reply}");
    assert!(error_of(&reply).contains("the most this server takes is 1048576"), "{reply}");
    server.answers();
}

#[test]
fn long_request_lines_and_headers_are_414_and_431() {
    let mut server = Server::start(&[]);
    let (status, reply) = server.get(&format!("/api/query?position={}", "W".repeat(20_000)), "");
    assert_eq!(status, 414, "{}", &reply[..200.min(reply.len())]);
    assert!(error_of(&reply).contains("longer than 16384 bytes"));
    let (status, reply) = server.get("/", &format!("X-Big: {}\r\n", "a".repeat(40_000)));
    assert_eq!(status, 431, "{}", &reply[..200.min(reply.len())]);
    let (status, reply) = server.get("/", &"X-Many: 1\r\n".repeat(150));
    assert_eq!(status, 431, "{}", &reply[..200.min(reply.len())]);
    // A client streaming an endless request line is cut off at the limit,
    // not buffered.
    let mut endless = server.connect();
    endless.write_all(b"GET /").unwrap();
    let chunk = vec![b'a'; 64 << 10];
    let mut sent = 0;
    while sent < 16 << 20 {
        if endless.write_all(&chunk).is_err() {
            break;
        }
        sent += chunk.len();
    }
    assert!(sent < 16 << 20, "the server took 16 MiB of request line");
    // hyper refuses a head that overflows its buffer (64 KiB) with a 431
    // of its own (no body), where the hand-written server said 414: the
    // line was never whole, so hyper cannot tell a line from a field.
    let (status, _) = read_reply(&mut endless);
    assert!(status == 431 || status == 0, "{status}");
    server.answers();
}

#[test]
fn idle_connections_past_the_open_files_limit_end_nothing() {
    // 128 open files: room for 64 connections; 300 are opened and left.
    let mut server = Server::start_with(&[], Some(128));
    let idle: Vec<TcpStream> = (0..300).map(|_| server.connect()).collect();
    // Every connection is taken, the oldest idle ones closed to make room.
    std::thread::sleep(Duration::from_millis(300));
    server.answers();
    let half_open: Vec<TcpStream> = (0..100)
        .map(|_| {
            let mut s = server.connect();
            let _ = write!(s, "GET / HTTP/1.1\r\nHost: {}\r\n", server.addr);
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    server.answers();
    drop((idle, half_open));
    server.answers();
}

#[test]
fn pipelined_requests_are_answered_in_order_on_one_connection() {
    let mut server = Server::start(&[]);
    let mut stream = server.connect();
    let host = &server.addr;
    let requests = format!(
        "GET /api/variants HTTP/1.1\r\nHost: {host}\r\n\r\nGET /nothing HTTP/1.1\r\nHost: {host}\r\n\r\n\
         GET /style.css HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(requests.as_bytes()).unwrap();
    let (_, reply) = read_reply(&mut stream);
    let statuses: Vec<&str> =
        reply.match_indices("HTTP/1.1 ").map(|(i, _)| &reply[i + 9..i + 12]).collect();
    assert_eq!(statuses, ["200", "404", "200"], "{reply}");
    server.answers();
}

#[test]
fn other_hosts_and_cross_site_requests_are_refused() {
    let mut server = Server::start(&["--allow-host", "board.example"]);
    let port = server.addr.rsplit_once(':').unwrap().1.to_string();
    let request = |host: &str, target: &str, extra: &str| {
        server.raw(
            format!("GET {target} HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n")
                .as_bytes(),
        )
    };
    // DNS rebinding: another site's name pointed at this machine.
    let (status, reply) = request("evil.example", "/api/variants", "");
    assert_eq!(status, 403, "{reply}");
    assert!(error_of(&reply).contains("--allow-host"), "{reply}");
    assert!(!reply.contains("\"database\""));
    assert_eq!(request("evil.example", "/", "").0, 403);
    for host in [format!("localhost:{port}"), "board.example".into(), server.addr.clone()] {
        assert_eq!(request(&host, "/api/variants", "").0, 200, "{host}");
    }
    // HTTP/1.1 without a Host is wrong.
    assert_eq!(server.raw(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n").0, 400);
    let me = server.addr.clone();
    let (status, reply) = request(&me, "/api/variants", "Sec-Fetch-Site: cross-site\r\n");
    assert_eq!(status, 403, "{reply}");
    assert!(error_of(&reply).contains("cross-site"));
    let origin = "Origin: http://evil.example\r\n";
    assert_eq!(request(&me, "/api/variants", origin).0, 403);
    let origin = format!("Origin: http://{me}\r\nSec-Fetch-Site: same-origin\r\n");
    assert_eq!(request(&me, "/api/variants", &origin).0, 200);
    // A link from elsewhere to the page is fine.
    assert_eq!(request(&me, "/", "Sec-Fetch-Site: cross-site\r\n").0, 200);
    server.answers();
}

#[test]
fn control_characters_from_clients_never_reach_the_terminal() {
    let mut server = Server::start(&[]);
    for request in [
        &b"GET /\x1b[2J HTTP/1.1\r\nHost: x\r\n\r\n"[..],
        b"GET /%1b%5b2J%0d HTTP/1.1\r\nHost: \x1b]0;owned\x07\r\n\r\n",
        b"GET /api/query?variant=six&position=%1b%5b31m HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        b"\x1b[2J\r\n\r\n",
    ] {
        let (status, _) = server.raw(request);
        assert!((400..500).contains(&status), "{status}");
    }
    server.answers();
    let stderr = server.stderr();
    assert!(
        !stderr.iter().any(|&b| b < 0x20 && b != b'\n'),
        "{}",
        String::from_utf8_lossy(&stderr)
    );
}

#[test]
fn bad_options_are_one_line_errors() {
    let db = tempfile::tempdir().unwrap();
    for args in [&["serve", "--request-seconds", "0"][..], &["serve", "--reply-seconds", "nan"]] {
        let output = command(db.path(), args).output().unwrap();
        assert!(!output.status.success());
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(err.starts_with("morris: error: --") && err.lines().count() == 1, "{err}");
    }
}

#[test]
fn a_client_that_never_reads_its_replies_is_dropped_after_reply_seconds() {
    let mut server = Server::start(&["--reply-seconds", "1"]);
    let mut greedy = server.connect();
    let one = format!("GET /app.js HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr);
    // Far more replies than socket buffers hold, none of them read.
    greedy.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
    for _ in 0..400 {
        if greedy.write_all(one.as_bytes()).is_err() {
            break;
        }
    }
    server.answers();
    std::thread::sleep(Duration::from_millis(1500));
    server.answers();
    // The server has given up on it: what it sent ends, with no more.
    let started = Instant::now();
    let mut sink = Vec::new();
    let _ = greedy.read_to_end(&mut sink);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(sink.len() < 400 * 10_000, "all {} bytes were sent", sink.len());
}
