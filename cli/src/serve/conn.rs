//! HTTP/1.1 on one connection, under limits: the head is parsed by
//! `httparse` (hyper's parser) from a buffer that never grows past the
//! limits, every read and write has a deadline, and while a worker
//! answers, the connection is watched so that a client that goes away
//! takes its work with it.

use super::http::Reply;
use super::{api, hosts, Shared};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{timeout_at, Instant};

/// The sizes and times a request must keep to.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes of the request line (method, target, version): 414 beyond.
    pub line: usize,
    /// Bytes of the header fields together: 431 beyond.
    pub headers: usize,
    /// Header fields: 431 beyond.
    pub fields: usize,
    /// Bytes of a body: 413 beyond.
    pub body: usize,
    /// Time to send a request, head and body, from the moment the server
    /// waits for it: 408 after, or a silent close for a connection that
    /// sent nothing (an idle keep-alive).
    pub request: Duration,
    /// Time for the client to take a reply: the connection is closed
    /// after.
    pub reply: Duration,
}

/// How much a client may send past what the server reads before it
/// closes (so that the client sees the error reply, not a reset).
const LINGER_BYTES: usize = 1 << 20;
const LINGER: Duration = Duration::from_secs(1);

/// What the server needs from a request's head.
struct Head {
    method: String,
    target: String,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    version: u8,
    host: Option<String>,
    length: u64,
    keep_alive: bool,
    fetch_site: Option<String>,
    origin: Option<String>,
}

/// A request the server refuses before reading it whole: the reply, after
/// which the connection closes.
type Refusal = Reply;

/// Talks HTTP on `stream` until the client closes, breaks a limit or
/// goes quiet. `busy` is up while a request is being answered (a
/// connection that is not busy may be closed to make room for another).
pub async fn converse(shared: &'static Shared, mut stream: TcpStream, busy: Arc<AtomicBool>) {
    let limits = shared.limits;
    let mut buf: Vec<u8> = Vec::with_capacity(1024);
    loop {
        let deadline = Instant::now() + limits.request;
        let (head, used) = match read_head(&mut stream, &mut buf, &limits, deadline).await {
            Ok(Some(h)) => h,
            Ok(None) => return,
            Err(refusal) => return refuse(stream, refusal, &limits, LINGER).await,
        };
        busy.store(true, Ordering::Relaxed);
        buf.drain(..used);
        if head.length > limits.body as u64 {
            let message = format!(
                "the request's body is {} bytes; the most this server takes is {}",
                head.length, limits.body
            );
            return refuse(stream, Reply::error(413, &message), &limits, LINGER).await;
        }
        // Only `POST /api/probe` takes a body; any other is read (within
        // the limits, so the connection can go on) and dropped.
        let deadline = Instant::now() + limits.request;
        let keep = head.method == "POST" && api::takes_body(&head.target);
        let body = match read_body(&mut stream, &mut buf, head.length, keep, deadline).await {
            Ok(body) => body,
            Err(refusal) => return refuse(stream, refusal, &limits, LINGER).await,
        };
        let reply = match answer(shared, &head, body, &mut stream, &mut buf, &limits).await {
            Some(reply) => reply,
            None => return, // the client has gone
        };
        let keep_alive = head.keep_alive && reply.status != 503;
        let bytes = encode(&reply, head.method == "HEAD", keep_alive);
        match timeout_at(Instant::now() + limits.reply, stream.write_all(&bytes)).await {
            Ok(Ok(())) => {}
            _ => return,
        }
        busy.store(false, Ordering::Relaxed);
        if !keep_alive {
            let _ = stream.shutdown().await;
            return;
        }
    }
}

/// Reads until `buf` holds a whole head; the head and its length. `None`
/// when the client closed, or sent nothing before the deadline.
async fn read_head(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    limits: &Limits,
    deadline: Instant,
) -> Result<Option<(Head, usize)>, Refusal> {
    loop {
        if !buf.is_empty() {
            if let Some(parsed) = parse(buf, limits)? {
                return Ok(Some(parsed));
            }
        }
        match timeout_at(deadline, read_some(stream, buf)).await {
            Err(_) if buf.is_empty() => return Ok(None),
            Err(_) => {
                return Err(Reply::error(
                    408,
                    &format!("the request was not sent within {} s", limits.request.as_secs_f64()),
                ))
            }
            Ok(Ok(0)) | Ok(Err(_)) => return Ok(None),
            Ok(Ok(_)) => {}
        }
    }
}

/// Reads what the client sent, 4 KiB at most.
async fn read_some(stream: &mut TcpStream, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut chunk = [0u8; 4096];
    let n = stream.read(&mut chunk).await?;
    buf.extend_from_slice(&chunk[..n]);
    Ok(n)
}

/// The head at the start of `buf`, if whole; a refusal if it breaks a
/// limit or is not HTTP.
fn parse(buf: &[u8], limits: &Limits) -> Result<Option<(Head, usize)>, Refusal> {
    // Empty lines before a request are allowed (RFC 9112, 2.2).
    let skipped = buf.iter().take_while(|&&b| b == b'\r' || b == b'\n').count();
    let line = buf[skipped..].windows(2).position(|w| w == b"\r\n").map(|p| p + skipped);
    let line_len = line.unwrap_or(buf.len()) - skipped;
    if line_len > limits.line {
        return Err(Reply::error(
            414,
            &format!("the request line is longer than {} bytes", limits.line),
        ));
    }
    let too_many = || {
        Reply::error(
            431,
            &format!(
                "the request's header fields are more than {} bytes or {} fields",
                limits.headers, limits.fields
            ),
        )
    };
    let mut fields = vec![httparse::EMPTY_HEADER; limits.fields];
    let mut request = httparse::Request::new(&mut fields);
    let used = match request.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => {
            if buf.len() - skipped - line_len > limits.headers {
                return Err(too_many());
            }
            return Ok(None);
        }
        Err(httparse::Error::TooManyHeaders) => return Err(too_many()),
        Err(e) => return Err(Reply::bad_request(&format!("not an HTTP request: {e}"))),
    };
    if used - skipped - line_len > limits.headers {
        return Err(too_many());
    }
    let version = request.version.unwrap_or(1);
    let mut head = Head {
        method: request.method.unwrap_or("").to_string(),
        target: request.path.unwrap_or("").to_string(),
        version,
        host: None,
        length: 0,
        keep_alive: version == 1,
        fetch_site: None,
        origin: None,
    };
    let mut length: Option<u64> = None;
    for field in request.headers.iter() {
        let value = String::from_utf8_lossy(field.value).trim().to_string();
        let name = field.name.to_ascii_lowercase();
        match name.as_str() {
            "host" if head.host.is_some() => {
                return Err(Reply::bad_request("more than one Host field"))
            }
            "host" => head.host = Some(value),
            "content-length" => {
                if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(Reply::bad_request(&format!("bad Content-Length '{value}'")));
                }
                // A length too large to count is too large to take.
                let n = value.parse::<u64>().unwrap_or(u64::MAX);
                if length.is_some_and(|l| l != n) {
                    return Err(Reply::bad_request("Content-Length fields disagree"));
                }
                length = Some(n);
            }
            "transfer-encoding" => {
                return Err(Reply::error(
                    501,
                    "Transfer-Encoding is not supported: send a body with Content-Length",
                ))
            }
            "connection" => {
                for token in value.split(',').map(|t| t.trim().to_ascii_lowercase()) {
                    match token.as_str() {
                        "close" => head.keep_alive = false,
                        "keep-alive" => head.keep_alive = true,
                        _ => {}
                    }
                }
            }
            "sec-fetch-site" => head.fetch_site = Some(value),
            "origin" => head.origin = Some(value),
            _ => {}
        }
    }
    head.length = length.unwrap_or(0);
    Ok(Some((head, used)))
}

/// Reads `length` bytes of body (already held under the body limit),
/// part of which may be in `buf`: kept when `keep`, else dropped.
async fn read_body(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    length: u64,
    keep: bool,
    deadline: Instant,
) -> Result<Vec<u8>, Refusal> {
    let mut body = Vec::new();
    let mut left = length;
    let have = (buf.len() as u64).min(left);
    if keep {
        body.reserve_exact(length as usize);
        body.extend_from_slice(&buf[..have as usize]);
    }
    buf.drain(..have as usize);
    left -= have;
    let mut chunk = [0u8; 8192];
    while left > 0 {
        let want = (left as usize).min(chunk.len());
        match timeout_at(deadline, stream.read(&mut chunk[..want])).await {
            Err(_) => return Err(Reply::error(408, "the request's body was not sent in time")),
            Ok(Ok(0)) | Ok(Err(_)) => return Err(Reply::bad_request("the body ended early")),
            Ok(Ok(n)) => {
                left -= n as u64;
                if keep {
                    body.extend_from_slice(&chunk[..n]);
                }
            }
        }
    }
    Ok(body)
}

/// The reply to a whole request, or `None` if the client went away while
/// a worker was at it (the work is then dropped).
async fn answer(
    shared: &'static Shared,
    head: &Head,
    body: Vec<u8>,
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    limits: &Limits,
) -> Option<Reply> {
    if head.version == 1 && head.host.is_none() {
        return Some(Reply::bad_request("an HTTP/1.1 request must have a Host field"));
    }
    if let Some(host) = &head.host {
        if !shared.hosts.allows(host) {
            return Some(Reply::error(
                403,
                &format!(
                    "this server does not answer for the host '{}'; to reach it by that name, \
                     start it with --allow-host NAME",
                    super::http::printable(host, 100)
                ),
            ));
        }
    }
    let path = head.target.split('?').next().unwrap_or("");
    if path.starts_with("/api")
        && !hosts::same_origin(
            head.host.as_deref(),
            head.fetch_site.as_deref(),
            head.origin.as_deref(),
        )
    {
        return Some(Reply::error(403, "cross-site requests to /api are refused"));
    }
    let (method, url) = (head.method.as_str(), head.target.as_str());
    let cap = limits.line + limits.headers;
    if api::is_query(path) {
        if let Some(key) = api::search_key(shared.site, url) {
            let mut waiter = match shared.searches.join(key, method, url) {
                Ok(w) => w,
                Err(reply) => return Some(reply),
            };
            return watching(waiter.reply(), stream, buf, cap).await;
        }
    }
    let lane = if api::is_table_read(path) {
        &shared.reads
    } else if path.starts_with("/api/") {
        &shared.lookups
    } else {
        return Some(api::answer(shared.site, method, url, &body));
    };
    match lane.submit(method, url, body) {
        Ok(reply) => {
            let reply =
                async { reply.await.unwrap_or_else(|_| Reply::error(500, "a worker died")) };
            watching(reply, stream, buf, cap).await
        }
        Err(reply) => Some(reply),
    }
}

/// Waits for `reply` while reading ahead on `stream` (pipelined requests,
/// kept in `buf` up to `cap` bytes): `None` if the client closes first.
async fn watching(
    reply: impl std::future::Future<Output = Reply>,
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    cap: usize,
) -> Option<Reply> {
    tokio::pin!(reply);
    loop {
        tokio::select! {
            reply = &mut reply => return Some(reply),
            read = read_some(stream, buf), if buf.len() < cap => match read {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            },
        }
    }
}

/// Sends `refusal` and closes, reading for up to `linger` what the client
/// still sends so that it gets the reply rather than a reset.
pub async fn refuse(mut stream: TcpStream, refusal: Refusal, limits: &Limits, linger: Duration) {
    let bytes = encode(&refusal, false, false);
    if timeout_at(Instant::now() + limits.reply, stream.write_all(&bytes)).await.is_err() {
        return;
    }
    let _ = stream.shutdown().await;
    let deadline = Instant::now() + linger;
    let mut drained = 0;
    let mut chunk = [0u8; 8192];
    while drained < LINGER_BYTES {
        match timeout_at(deadline, stream.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => drained += n,
            _ => break,
        }
    }
}

/// The reply on the wire.
pub fn encode(reply: &Reply, head_only: bool, keep_alive: bool) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
         X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: {}\r\n",
        reply.status,
        reason(reply.status),
        reply.content_type,
        reply.body.len(),
        if keep_alive { "keep-alive" } else { "close" },
    );
    if reply.status == 503 {
        out.push_str("Retry-After: 1\r\n");
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    if !head_only {
        out.extend_from_slice(&reply.body);
    }
    out
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            line: 100,
            headers: 200,
            fields: 8,
            body: 1000,
            request: Duration::from_secs(1),
            reply: Duration::from_secs(1),
        }
    }

    fn status(bytes: &[u8]) -> Option<u16> {
        match parse(bytes, &limits()) {
            Ok(Some(_)) => Some(200),
            Ok(None) => None,
            Err(reply) => Some(reply.status),
        }
    }

    #[test]
    fn heads_are_held_to_the_limits() {
        assert_eq!(status(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"), Some(200));
        assert_eq!(status(b"GET / HTTP/1.1\r\nHost: a\r\n"), None);
        assert_eq!(status(format!("GET /{} HTTP/1.1", "a".repeat(100)).as_bytes()), Some(414));
        let fat = format!("GET / HTTP/1.1\r\nX: {}\r\n", "a".repeat(300));
        assert_eq!(status(fat.as_bytes()), Some(431));
        let many = format!("GET / HTTP/1.1\r\n{}\r\n", "X: 1\r\n".repeat(9));
        assert_eq!(status(many.as_bytes()), Some(431));
        assert_eq!(status(b"\x00\x01 / HTTP/1.1\r\n\r\n"), Some(400));
        let huge = b"GET / HTTP/1.1\r\nContent-Length: 18446744073709551616\r\n\r\n";
        let (head, _) = parse(huge, &limits()).unwrap().unwrap();
        assert_eq!(head.length, u64::MAX);
        assert_eq!(status(b"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), Some(400));
        assert_eq!(status(b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), Some(501));
    }
}
