//! HTTP/1.1 on one connection, by hyper, under limits: hyper parses heads
//! and bodies (chunked ones too) within a buffer that never grows past
//! [`Limits::buffer`], the request's head must come within
//! `--request-seconds` (hyper's header timeout) and its body within as
//! long again, and a reply the client does not take within
//! `--reply-seconds` closes the connection. While a worker answers, hyper
//! watches the connection: a client that goes away drops the request,
//! and with it its work.

use super::http::Reply;
use super::{api, hosts, Shared};
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Version};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::sync::oneshot;
use tokio::time::{sleep, timeout, timeout_at, Instant, Sleep};

/// The sizes and times a request must keep to.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes of the request line (method, target, version): 414 beyond.
    pub line: usize,
    /// Bytes of the header fields together: 431 beyond.
    pub headers: usize,
    /// Header fields: 431 beyond (hyper's own refusal, with no body).
    pub fields: usize,
    /// Bytes of a body: 413 beyond.
    pub body: usize,
    /// Time to send a request's head, from the moment the server waits
    /// for it, and as long again for its body: 408 after, or a silent
    /// close for a connection that sent nothing (an idle keep-alive).
    pub request: Duration,
    /// Time for the client to take a reply: the connection is closed
    /// after.
    pub reply: Duration,
}

impl Limits {
    /// The limits of `morris serve`: 16 KiB of request line, 32 KiB and
    /// 100 header fields, 1 MiB of body, and the times given.
    pub fn new(request: Duration, reply: Duration) -> Limits {
        Limits { line: 16 << 10, headers: 32 << 10, fields: 100, body: 1 << 20, request, reply }
    }

    /// hyper's read buffer: room for a head at both limits, and some. A
    /// head that does not fit is refused by hyper itself, with a 431 and
    /// no body.
    pub fn buffer(&self) -> usize {
        (self.line + self.headers).next_multiple_of(16 << 10) + (16 << 10)
    }
}

/// How much a client may send past what the server reads before it
/// closes (so that the client sees the error reply, not a reset).
const LINGER_BYTES: usize = 1 << 20;
const LINGER: Duration = Duration::from_secs(1);

/// What the server and a connection's requests know of it.
#[derive(Debug, Default)]
pub struct State {
    /// Up while a request is being answered (a connection that is not
    /// busy may be closed to make room for another).
    pub busy: AtomicBool,
    /// Up once the client has sent something since the last request was
    /// answered: a head that does not come in time is then a 408, not an
    /// idle keep-alive closed.
    heard: AtomicBool,
    /// Up when a reply refused the request before reading it whole: the
    /// connection lingers after it.
    refused: AtomicBool,
}

/// Talks HTTP on `stream` (a TCP connection; an in-memory one for the
/// fuzz target) until the client closes, breaks a limit or goes quiet, or
/// `evicted` fires (its sender dropped).
pub async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    shared: &'static Shared,
    stream: S,
    state: Arc<State>,
    evicted: oneshot::Receiver<()>,
) {
    let limits = shared.limits;
    let mut io = Io { stream, state: Arc::clone(&state), reply: limits.reply, stalled: None };
    let ended = {
        let service_state = Arc::clone(&state);
        let service = hyper::service::service_fn(move |request| {
            let state = Arc::clone(&service_state);
            async move { Ok::<_, Infallible>(respond(shared, &state, request).await) }
        });
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.request)
            .max_buf_size(limits.buffer())
            .max_headers(limits.fields)
            .half_close(shared.half_close)
            .title_case_headers(true)
            .serve_connection(TokioIo::new(&mut io), service);
        tokio::select! {
            _ = evicted => return,
            ended = connection => ended,
        }
    };
    let stream = &mut io.stream;
    match ended {
        // hyper's timer ran out on a head begun: the 408 hyper does not send.
        Err(e) if e.is_timeout() && state.heard.load(Ordering::Relaxed) => {
            let message =
                format!("the request was not sent within {} s", limits.request.as_secs_f64());
            refuse(stream, Reply::error(408, &message), &limits, LINGER).await;
        }
        // hyper has answered a head it could not take (400, 414, 431).
        Err(e) if e.is_parse() => linger(stream, LINGER).await,
        _ if state.refused.load(Ordering::Relaxed) => linger(stream, LINGER).await,
        _ => {}
    }
}

/// The response to one request, its body read whole first.
async fn respond(
    shared: &'static Shared,
    state: &State,
    request: Request<Incoming>,
) -> Response<Full<Bytes>> {
    state.busy.store(true, Ordering::Relaxed);
    let (head, body) = request.into_parts();
    let (reply, refused) = match checked(shared, &head, body).await {
        Ok(body) => (answer(shared, &head, body).await, false),
        Err(refusal) => (refusal, true),
    };
    state.refused.store(refused, Ordering::Relaxed);
    state.heard.store(false, Ordering::Relaxed);
    state.busy.store(false, Ordering::Relaxed);
    // A refusal closes the connection, and so does a busy server.
    response(reply, refused)
}

/// The body of a request that keeps to the limits on its head and body
/// (kept only for `POST /api/probe`; any other is read and dropped);
/// the refusal of one that does not.
async fn checked(
    shared: &'static Shared,
    head: &hyper::http::request::Parts,
    body: Incoming,
) -> Result<Vec<u8>, Reply> {
    let limits = &shared.limits;
    let target = head.uri.to_string();
    if head.method.as_str().len() + target.len() + 10 > limits.line {
        return Err(Reply::error(
            414,
            &format!("the request line is longer than {} bytes", limits.line),
        ));
    }
    let fields: usize = head.headers.iter().map(|(n, v)| n.as_str().len() + v.len() + 4).sum();
    if fields > limits.headers || head.headers.len() > limits.fields {
        return Err(Reply::error(
            431,
            &format!(
                "the request's header fields are more than {} bytes or {} fields",
                limits.headers, limits.fields
            ),
        ));
    }
    let too_large = |length: &dyn std::fmt::Display| {
        Reply::error(
            413,
            &format!(
                "the request's body is {length} bytes; the most this server takes is {}",
                limits.body
            ),
        )
    };
    // From `Content-Length`, at once.
    let length = body.size_hint().lower();
    if length > limits.body as u64 {
        return Err(too_large(&length));
    }
    let url = head.uri.path_and_query().map_or("/", |p| p.as_str());
    let keep = head.method == Method::POST && api::takes_body(url);
    match timeout(limits.request, read_body(body, limits.body, keep)).await {
        Err(_) => Err(Reply::error(408, "the request's body was not sent in time")),
        Ok(Err(BodyError::TooLarge)) => Err(too_large(&format!("more than {}", limits.body))),
        Ok(Err(BodyError::Broken)) => Err(Reply::bad_request("the request's body ended early")),
        Ok(Ok(body)) => Ok(body),
    }
}

enum BodyError {
    TooLarge,
    Broken,
}

/// The bytes of `body`, up to `limit` (dropped unless `keep`).
async fn read_body(mut body: Incoming, limit: usize, keep: bool) -> Result<Vec<u8>, BodyError> {
    let mut kept = Vec::new();
    let mut read = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| BodyError::Broken)?;
        if let Ok(data) = frame.into_data() {
            read += data.len();
            if read > limit {
                return Err(BodyError::TooLarge);
            }
            if keep {
                kept.extend_from_slice(&data);
            }
        }
    }
    Ok(kept)
}

/// The reply to a whole request: the host and origin checks, then the
/// route's answer, from a worker or the search thread where it takes one.
/// hyper drops this future if the client goes away meanwhile, and with it
/// the request's place in a queue or its share of a search.
async fn answer(
    shared: &'static Shared,
    head: &hyper::http::request::Parts,
    body: Vec<u8>,
) -> Reply {
    let field = |name: header::HeaderName| {
        let mut values = head.headers.get_all(name).iter();
        let first = values.next().map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string());
        (first, values.next().is_some())
    };
    let (host, hosts_twice) = field(header::HOST);
    if hosts_twice {
        return Reply::bad_request("more than one Host field");
    }
    if head.version == Version::HTTP_11 && host.is_none() {
        return Reply::bad_request("an HTTP/1.1 request must have a Host field");
    }
    if let Some(host) = &host {
        if !shared.hosts.allows(host) {
            return Reply::error(
                403,
                &format!(
                    "this server does not answer for the host '{}'; to reach it by that name, \
                     start it with --allow-host NAME",
                    super::http::printable(host, 100)
                ),
            );
        }
    }
    // The target as sent, or, sent whole (`http://host/path`), its path.
    let url = head.uri.path_and_query().map_or("/", |p| p.as_str());
    let path = url.split('?').next().unwrap_or("");
    let (fetch_site, origin) =
        (field(header::HeaderName::from_static("sec-fetch-site")).0, field(header::ORIGIN).0);
    if path.starts_with("/api")
        && !hosts::same_origin(host.as_deref(), fetch_site.as_deref(), origin.as_deref())
    {
        return Reply::error(403, "cross-site requests to /api are refused");
    }
    let method = head.method.as_str();
    if api::is_query(path) {
        if let Some(key) = api::search_key(&shared.site, url) {
            return match shared.searches.join(key, method, url) {
                Ok(mut waiter) => waiter.reply().await,
                Err(reply) => reply,
            };
        }
    }
    let lane = if api::is_table_read(path) {
        &shared.reads
    } else if path.starts_with("/api/") {
        &shared.lookups
    } else {
        return api::answer(&shared.site, method, url, &body);
    };
    match lane.submit(method, url, body) {
        Ok(reply) => reply.await.unwrap_or_else(|_| Reply::error(500, "a worker died")),
        Err(reply) => reply,
    }
}

/// `reply` as hyper sends it (with no body to a `HEAD`); the connection
/// closes after it if `refused`, or if the server is busy.
fn response(reply: Reply, refused: bool) -> Response<Full<Bytes>> {
    let close = refused || reply.status == 503;
    let status = reply.status;
    let content_type = reply.content_type;
    let mut response = Response::new(Full::new(Bytes::from(reply.body)));
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if status == 503 {
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    if close {
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Sends `refusal` on a connection hyper does not hold (one there is no
/// room for, or one whose head did not come in time, to which hyper sends
/// nothing) and closes it, reading for up to `linger` what the client
/// still sends so that it gets the reply rather than a reset.
pub async fn refuse<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    refusal: Reply,
    limits: &Limits,
    linger_for: Duration,
) {
    let status = StatusCode::from_u16(refusal.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut bytes = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
         X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n{}\r\n",
        refusal.content_type,
        refusal.body.len(),
        if refusal.status == 503 { "Retry-After: 1\r\n" } else { "" },
    )
    .into_bytes();
    bytes.extend_from_slice(&refusal.body);
    if timeout(limits.reply, stream.write_all(&bytes)).await.is_ok() {
        linger(stream, linger_for).await;
    }
}

/// Closes the sending side, then reads for up to `within` what the client
/// still sends.
async fn linger<S: AsyncRead + AsyncWrite + Unpin>(stream: &mut S, within: Duration) {
    let _ = stream.shutdown().await;
    let deadline = Instant::now() + within;
    let mut drained = 0;
    let mut chunk = [0u8; 8192];
    while drained < LINGER_BYTES {
        match timeout_at(deadline, stream.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => drained += n,
            _ => break,
        }
    }
}

/// The connection as hyper reads and writes it: what it reads marks the
/// connection heard, and a write that cannot go on for `reply` (the
/// client takes nothing) fails.
struct Io<S> {
    stream: S,
    state: Arc<State>,
    reply: Duration,
    /// Running from the first write that had to wait until the next flush.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<S> Io<S> {
    /// `result`, or a time-out once writes have waited for `reply`.
    fn deadline<T>(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if result.is_pending() {
            let reply = self.reply;
            let timer = self.stalled.get_or_insert_with(|| Box::pin(sleep(reply)));
            if timer.as_mut().poll(cx).is_ready() {
                let e = io::Error::new(io::ErrorKind::TimedOut, "the client took no reply");
                return Poll::Ready(Err(e));
            }
        }
        result
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Io<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.state.heard.store(true, Ordering::Relaxed);
        }
        result
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Io<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.deadline(cx, result)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.deadline(cx, result)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let result = Pin::new(&mut self.stream).poll_flush(cx);
        if result.is_ready() {
            self.stalled = None;
        }
        result
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
