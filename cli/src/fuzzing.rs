//! The bodies of the fuzz targets of `morris serve` (`fuzz/`, cargo-fuzz
//! with libFuzzer; docs/fuzzing.md): one function per target, which the
//! target calls on the fuzzer's bytes and `cli/tests/fuzz_corpus.rs` calls
//! on every file of the target's corpus (`fuzz/corpus/<target>/`), so that
//! `cargo test` replays the corpora on stable. Not part of any API; public
//! only for those two. The library's targets are `morris::fuzzing`.
//!
//! Both serve the same directory: Five Men's Morris solved whole (both
//! phases, some 440 KB, under a second) into a directory of the system's
//! temporary one, once per process, and removed when the process exits;
//! every other variant is served too, with no table. The server is made
//! once per process as `morris serve` makes it, with its limits; see
//! `serve::fuzzing_server` for what differs.
//!
//! Every body returns whether the input was accepted (a 200), so that the
//! replay test can hold the valid inputs kept in the corpora to being
//! valid and the invalid ones to being refused. What a body checks beyond
//! "no panic, no abort, no hang" it checks with `assert!`, which the
//! fuzzer reports as a crash:
//!
//! - [`http_request`]: the bytes are sent as they are on an in-memory
//!   connection through hyper and the server's connection code, and every
//!   reply read back must be well-formed HTTP/1.1 (1.0 to a request in
//!   1.0) with a status the server
//!   gives ([`STATUSES`]; 500, a panic caught or a damaged table, is a
//!   failure here), the length it declares, and, where the server wrote
//!   it (hyper's own refusals have no body), the server's headers and a
//!   JSON body where it says JSON: `{"error": "..."}` for an error;
//! - [`probe_body`]: the bytes are the body of `POST /api/probe` of five
//!   (with `moves=1`) and of nine (no tables): a JSON list of strings, as
//!   serde_json reads it, is answered 200 with a JSON list of one item
//!   for each (an error object giving its place and input where it has no
//!   answer), or 413 beyond `PROBE_LIMIT`; anything else is 400 with a
//!   JSON error.

use crate::serve::{self, Shared, PROBE_LIMIT};
use morris::database::Database;
use morris::driver::Quiet;
use morris::Variant;
use serde_json::Value as Json;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A fuzz target's body: whether the input was accepted.
pub type Body = fn(&[u8]) -> bool;

/// The targets by name (as `fuzz/fuzz_targets/<name>.rs` and
/// `fuzz/corpus/<name>/` name them) with their bodies.
pub const TARGETS: [(&str, Body); 2] = [("http_request", http_request), ("probe_body", probe_body)];

/// The statuses the server answers with (docs/serve.md), but 500: the
/// routes, 403 for hosts and origins, 405, 408, 413, 414 and 431 for the
/// limits (400, 414 and 431 from hyper too), 503 for a search out of time.
pub const STATUSES: [u16; 10] = [200, 400, 403, 404, 405, 408, 413, 414, 431, 503];

/// How long one input may take before it counts as a hang (libFuzzer's
/// `-timeout` is longer, so that this says which).
const HANG: Duration = Duration::from_secs(8);

/// The directory served: five solved whole, once per process.
fn database_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("morris-fuzzing-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a directory for the database");
        let five = Variant::named("five").expect("five");
        let stones = 2 * u32::from(five.stones());
        let db = Database::new(&dir, five);
        db.solve_moving(stones, 1, &Quiet).expect("five's moving phase");
        db.solve_placement(stones, 1, &Quiet).expect("five's placement phase");
        extern "C" fn remove() {
            if let Some(dir) = DIR.get() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
        // SAFETY: `remove` is a plain function that neither unwinds nor
        // calls exit; atexit only keeps its address.
        unsafe { libc::atexit(remove) };
        dir
    })
}

/// The server, made once per process.
fn server() -> &'static Shared {
    static SERVER: OnceLock<&'static Shared> = OnceLock::new();
    SERVER.get_or_init(|| serve::fuzzing_server(database_dir()).expect("the server"))
}

/// The event loop the connections run on, as `morris serve`'s: one
/// thread, made once per process.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime")
    })
}

/// An HTTP request, or several, or anything: the bytes are written as
/// they are to a connection of the server (an in-memory stream, at most
/// 64 KiB in flight) whose sending side then closes, while every byte the
/// server sends back is read until it closes. Accepted: at least one
/// reply, and every reply a 200.
pub fn http_request(data: &[u8]) -> bool {
    let shared = server();
    let exchange = async {
        let (client, server_end) = tokio::io::duplex(64 << 10);
        let (mut from_server, mut to_server) = tokio::io::split(client);
        let send = async {
            // The server may close before it has read everything.
            let _ = to_server.write_all(data).await;
            let _ = to_server.shutdown().await;
        };
        let receive = async {
            let mut reply = Vec::new();
            from_server.read_to_end(&mut reply).await.expect("the reply");
            reply
        };
        let serving = serve::fuzzing_connection(shared, server_end);
        tokio::join!(serving, send, receive).2
    };
    let reply = runtime()
        .block_on(async { tokio::time::timeout(HANG, exchange).await })
        .unwrap_or_else(|_| panic!("no end to the reply within {HANG:?}"));
    let asked_in_1_0 = data.windows(8).any(|w| w == b"HTTP/1.0");
    let statuses = replies(&reply, asked_in_1_0);
    !statuses.is_empty() && statuses.iter().all(|&s| s == 200)
}

/// The statuses of the replies in `bytes`, each checked: a status line
/// `HTTP/1.1 NNN Reason` (or `HTTP/1.0` where the request was sent in
/// it, `asked_in_1_0`: hyper answers in the request's version), header
/// fields, a `Content-Length` and as many
/// bytes of body. The reply to a `HEAD` declares a length and sends no
/// body: a reply is taken to have none where nothing follows its head or
/// the next reply does (no body the server sends starts `HTTP/1.`). A
/// `100 Continue` (hyper's, to `Expect: 100-continue`) is not counted.
fn replies(mut bytes: &[u8], asked_in_1_0: bool) -> Vec<u16> {
    let mut statuses = Vec::new();
    while !bytes.is_empty() {
        let end = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| {
            panic!("a reply with no end to its head: {:?}", String::from_utf8_lossy(bytes))
        });
        let head = std::str::from_utf8(&bytes[..end]).expect("a head in ASCII");
        let rest = &bytes[end + 4..];
        let mut lines = head.split("\r\n");
        let line = lines.next().expect("a status line");
        // hyper answers an HTTP/1.0 request in its version.
        let version = line.get(..9).unwrap_or_else(|| panic!("a status line {line:?}"));
        assert!(
            version == "HTTP/1.1 " || version == "HTTP/1.0 " && asked_in_1_0,
            "a status line {line:?}"
        );
        let status: u16 = line
            .get(9..)
            .and_then(|s| s.get(..3))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("a status line {line:?}"));
        // hyper's interim reply to `Expect: 100-continue`, before it
        // reads the body: a status line alone.
        if status == 100 {
            assert_eq!(head, "HTTP/1.1 100 Continue", "an interim reply");
            bytes = rest;
            continue;
        }
        assert!(STATUSES.contains(&status), "a status the server does not give: {line:?}");
        assert!(line.len() > 13 && line.as_bytes()[12] == b' ', "a reason: {line:?}");
        let mut fields = Vec::new();
        for field in lines {
            let (name, value) =
                field.split_once(':').unwrap_or_else(|| panic!("a header field {field:?}"));
            assert!(
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic()),
                "a field name {field:?}"
            );
            fields.push((name.to_ascii_lowercase(), value.trim().to_string()));
        }
        let field = |name: &str| {
            let mut values = fields.iter().filter(|(n, _)| n == name).map(|(_, v)| v.as_str());
            let value = values.next();
            assert!(values.next().is_none(), "{name} twice: {head:?}");
            value
        };
        let length: usize = field("content-length")
            .and_then(|l| l.parse().ok())
            .unwrap_or_else(|| panic!("no Content-Length: {head:?}"));
        let bodiless = rest.is_empty() || rest.starts_with(b"HTTP/1.");
        let body = if bodiless && length > 0 {
            &[][..]
        } else {
            assert!(rest.len() >= length, "a body shorter than its length: {head:?}");
            &rest[..length]
        };
        bytes = &rest[body.len()..];
        // What the server wrote, as opposed to hyper's refusals of a head.
        if let Some(content_type) = field("content-type") {
            assert_eq!(field("x-content-type-options"), Some("nosniff"), "{head:?}");
            assert_eq!(field("cache-control"), Some("no-store"), "{head:?}");
            if status == 503 {
                assert_eq!(field("retry-after"), Some("1"), "{head:?}");
            }
            if content_type != "application/json" {
                assert_eq!(status, 200, "an error that is not JSON: {head:?}");
            } else if !body.is_empty() {
                let json: Json = serde_json::from_slice(body).unwrap_or_else(|e| {
                    panic!(
                        "{line}: a body that is not JSON ({e}): {}",
                        String::from_utf8_lossy(body)
                    )
                });
                if status != 200 {
                    assert!(json["error"].is_string(), "{line}: no error: {json}");
                }
            }
        } else {
            assert!(matches!(status, 400 | 414 | 431), "hyper's refusal: {head:?}");
            assert_eq!(length, 0, "hyper's refusal has no body: {head:?}");
        }
        if field("connection") == Some("close") {
            assert!(bytes.is_empty(), "a reply after one that closes: {head:?}");
        }
        statuses.push(status);
    }
    statuses
}

/// A `POST /api/probe` body: answered for five with the moves
/// (`moves=1`) and for nine, which has no table. Accepted: a 200.
pub fn probe_body(data: &[u8]) -> bool {
    let shared = server();
    // How serde_json reads it on its own.
    let strings: Option<Vec<String>> = serde_json::from_slice(data).ok();
    let mut accepted = true;
    for url in ["/api/probe?variant=five&moves=1", "/api/probe?variant=nine"] {
        let (status, content_type, body) = serve::fuzzing_answer(shared, "POST", url, data);
        assert_eq!(content_type, "application/json", "{url}");
        let json: Json = serde_json::from_slice(&body).unwrap_or_else(|e| {
            panic!("{url}: {status}, not JSON ({e}): {}", String::from_utf8_lossy(&body))
        });
        match &strings {
            Some(strings) if strings.len() <= PROBE_LIMIT => {
                assert_eq!(status, 200, "{url}: {json}");
                let items = json.as_array().unwrap_or_else(|| panic!("{url}: not a list: {json}"));
                assert_eq!(items.len(), strings.len(), "{url}: one answer a position");
                for (i, (item, text)) in items.iter().zip(strings).enumerate() {
                    if item.get("error").is_some() {
                        assert!(item["error"].is_string(), "{url}: {item}");
                        assert_eq!(item["line"], i + 1, "{url}: {item}");
                        assert_eq!(item["input"], text.as_str(), "{url}: {item}");
                    } else {
                        assert!(item["position"].is_string(), "{url}: {item}");
                        assert!(item["value"].is_string(), "{url}: {item}");
                        assert!(item["exact"].is_boolean(), "{url}: {item}");
                    }
                }
            }
            Some(_) => assert_eq!(status, 413, "{url}: {json}"),
            None => {
                assert_eq!(status, 400, "{url}: {json}");
                let error = json["error"].as_str().unwrap_or_else(|| panic!("{url}: {json}"));
                assert!(error.starts_with("the body must be a JSON list of positions"), "{error}");
            }
        }
        accepted &= status == 200;
    }
    accepted
}
