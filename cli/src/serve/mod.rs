//! `morris serve`: a board page and a JSON API over a database directory,
//! from the same binary, safe to share with clients that misbehave.
//!
//! One thread talks HTTP on every connection (a tokio event loop that
//! accepts them, and hyper on each, a task per connection; [`conn`]) and
//! never computes an answer: table lookups and listings go to a pool of
//! workers, whole-table reads to a thread of their own, placement searches
//! to the search thread ([`lanes`]), each behind a bounded queue. Every
//! limit has a status: 408 for a request not sent in time, 413 for a body
//! too large, 414 for a request line too long, 431 for header fields too
//! large or too many, 503 for a full queue, for no room for another
//! connection, or for a search out of time.

mod api;
mod conn;
mod hosts;
mod http;
mod lanes;

use crate::common::{self, RuleOptions};
use anyhow::{Context, Result};
pub(crate) use api::PROBE_LIMIT;
use conn::Limits;
use http::Reply;
use morris::database::Database;
use morris::search::SearchOptions;
use morris::tiebreak::Style;
use morris::variant::{Variant, VARIANT_NAMES};
use std::collections::BTreeMap;
use std::future::Future;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::oneshot;

#[derive(clap::Args)]
pub struct Args {
    /// The address to listen on; the default answers this machine only.
    /// Port 0 takes a free port (the address is printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    bind: String,

    /// Open the page in the default browser once listening.
    #[arg(long)]
    open: bool,

    /// Memory for the transposition table of the placement search, in MiB
    /// (allocated as the search uses it); one table for all variants.
    #[arg(long, value_name = "MIB", default_value_t = 256)]
    transposition_mib: usize,

    /// The longest a placement search may run for a request, in seconds;
    /// the request is then answered 503.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    search_seconds: u64,

    /// Another name clients may reach the server by (the `Host` they
    /// send); may be given more than once. The bound address and
    /// localhost are always allowed (and, for a wildcard bind such as
    /// 0.0.0.0, this machine's name and addresses).
    #[arg(long, value_name = "NAME")]
    allow_host: Vec<String>,

    /// Connections open at once; beyond, an idle one is closed to make
    /// room, or the new one answered 503. Lowered to fit the limit on
    /// open files.
    #[arg(long, value_name = "N", default_value_t = 256)]
    max_connections: usize,

    /// Threads answering table lookups (default: the number of cores).
    #[arg(long, value_name = "N")]
    workers: Option<usize>,

    /// Requests that may wait for the lookup workers, and as many for the
    /// table-read thread; distinct placement searches that may wait;
    /// beyond, 503.
    #[arg(long, value_name = "N", default_value_t = 64)]
    queue: usize,

    /// Time a client has to send a request (head and body), in seconds;
    /// 408 after.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    request_seconds: f64,

    /// Time a client has to take a reply, in seconds; the connection is
    /// closed after.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    reply_seconds: f64,

    /// How the page's perfect player picks among drawing moves
    /// (`/api/move`): RULE or RULE:playon, as `morris play --tie-break`.
    #[arg(long, value_name = "STYLE", default_value_t = Style::DEFAULT)]
    tie_break: Style,

    /// For tests only: the search thread spins this long every 1,024
    /// nodes, so that a search on a small database is long.
    #[arg(long, value_name = "MS", hide = true)]
    test_search_throttle_ms: Option<u64>,
}

/// What every connection shares: made once, and never freed (the server
/// runs until the process ends), so that connections and threads borrow
/// it.
pub struct Shared {
    site: api::Site,
    hosts: hosts::Hosts,
    limits: Limits,
    connections: Connections,
    lookups: lanes::Lane,
    reads: lanes::Lane,
    searches: lanes::Searches,
    /// Whether a connection answers the requests it has read after the
    /// client closed its sending side (hyper's `half_close`): not for
    /// `morris serve`, where such a client counts as gone and its work is
    /// dropped; only for the fuzz target, which closes its side once it
    /// has written its bytes and then reads every reply.
    half_close: bool,
}

/// The threads and queues of a server.
struct Pools {
    /// Lookup workers.
    workers: usize,
    /// The capacity of each queue (`--queue`).
    queue: usize,
    /// Connections open at once.
    connections: usize,
    /// The search thread's options (its transposition table).
    search: SearchOptions,
    /// `--search-seconds`.
    search_seconds: u64,
    /// `--test-search-throttle-ms`.
    throttle: Option<Duration>,
}

impl Shared {
    /// What connections share, with its workers, table-read thread and
    /// search thread started; never freed.
    fn start(
        site: api::Site,
        hosts: hosts::Hosts,
        limits: Limits,
        pools: Pools,
        half_close: bool,
    ) -> &'static Shared {
        let shared: &'static Shared = Box::leak(Box::new(Shared {
            site,
            hosts,
            limits,
            connections: Connections::new(pools.connections),
            lookups: lanes::Lane::new("requests", pools.queue),
            reads: lanes::Lane::new("table reads", pools.queue),
            searches: lanes::Searches::new(pools.queue),
            half_close,
        }));
        lanes::start_lookups(&shared.lookups, &shared.site, pools.workers, pools.search_seconds);
        lanes::start_reads(&shared.reads, &shared.site);
        shared.searches.start(&shared.site, pools.search, pools.search_seconds, pools.throttle);
        shared
    }
}

/// Serves every known variant from `db_dir`, each under its own rules or
/// the rule options given; runs until the process is stopped.
pub fn run(db_dir: &Path, rules: RuleOptions, args: &Args, out: &mut impl Write) -> Result<()> {
    let seconds = |s: f64, what: &str| {
        Duration::try_from_secs_f64(s)
            .ok()
            .filter(|d| !d.is_zero())
            .with_context(|| format!("{what} must be a positive number of seconds"))
    };
    let limits = Limits::new(
        seconds(args.request_seconds, "--request-seconds")?,
        seconds(args.reply_seconds, "--reply-seconds")?,
    );
    let site = api::Site::new(databases(db_dir, rules)?, args.tie_break);
    let listener = std::net::TcpListener::bind(&args.bind)
        .with_context(|| format!("cannot listen on {}", args.bind))?;
    listener.set_nonblocking(true).context("a non-blocking socket")?;
    let bound = listener.local_addr().context("the bound address")?;
    let workers = args
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1);
    let pools = Pools {
        workers,
        queue: args.queue.max(1),
        connections: connection_cap(args.max_connections),
        search: SearchOptions {
            transposition_bytes: args.transposition_mib << 20,
            ..SearchOptions::default()
        },
        search_seconds: args.search_seconds,
        throttle: args.test_search_throttle_ms.map(Duration::from_millis),
    };
    let hosts = hosts::Hosts::new(bound, &args.allow_host);
    let shared = Shared::start(site, hosts, limits, pools, false);
    let url = format!("http://{bound}/");
    // Tests and scripts read this line to learn the port.
    writeln!(out, "morris serve: {} on {url}", db_dir.display())?;
    out.flush()?;
    if args.open {
        open_browser(&url);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the server's event loop")?;
    runtime.block_on(async move {
        let listener =
            tokio::net::TcpListener::from_std(listener).context("listening with tokio")?;
        accept(listener, shared).await
    })
}

/// The databases served from `dir`, one per known variant, each under its
/// own rules or the rule options given: `--fly-at` for all of them,
/// `--fly-count` for lasker, the one variant it applies to.
fn databases(dir: &Path, rules: RuleOptions) -> Result<Vec<Database>> {
    let of = |name: &str| {
        let moves_with_hand = Variant::named(name).is_ok_and(|v| v.move_while_placing());
        let fly_count = rules.fly_count.filter(|_| moves_with_hand);
        common::database(dir, name, RuleOptions { fly_count, ..rules })
    };
    VARIANT_NAMES.iter().map(|name| of(name)).collect()
}

/// Files kept for other uses than connections: standard streams, tables,
/// the event loop.
const RESERVED_FILES: u64 = 64;

/// `asked`, lowered so that connections leave room under the limit on
/// open files.
fn connection_cap(asked: usize) -> usize {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return asked.max(1);
    }
    let soft = limit.rlim_cur;
    let room = soft.saturating_sub(RESERVED_FILES).max(soft / 2);
    asked.min(usize::try_from(room).unwrap_or(usize::MAX)).max(1)
}

/// Takes connections for ever; an error taking one (out of files, most
/// likely) is reported and waited out, never the end of the server.
async fn accept(listener: tokio::net::TcpListener, shared: &'static Shared) -> Result<()> {
    let mut last_report: Option<Instant> = None;
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                if last_report.is_none_or(|t| t.elapsed() > Duration::from_secs(10)) {
                    eprintln!("morris serve: accepting a connection: {e} (going on)");
                    last_report = Some(Instant::now());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(shared, stream));
    }
}

/// What becomes of a connection taken: a slot is taken for it at once
/// (not when the future first runs), and the future talks HTTP on it
/// until it closes; with no room for it, the future answers 503 and
/// closes it.
fn connection<S: AsyncRead + AsyncWrite + Unpin>(
    shared: &'static Shared,
    mut stream: S,
) -> impl Future<Output = ()> {
    let admitted = shared.connections.admit();
    async move {
        match admitted {
            Some((held, evicted)) => {
                conn::serve(shared, stream, Arc::clone(&held.state), evicted).await;
                drop(held);
            }
            None => {
                let reply = Reply::error(
                    503,
                    "the server has no room for another connection; try again shortly",
                );
                // A short linger: these connections hold files outside the cap.
                let linger = Duration::from_millis(200);
                conn::refuse(&mut stream, reply, &shared.limits, linger).await
            }
        }
    }
}

/// The connections open, oldest first, and the most there may be.
struct Connections {
    open: Mutex<(u64, BTreeMap<u64, Slot>)>,
    cap: usize,
}

/// A connection's place: what it tells of itself (whether it is
/// answering a request), and the sender whose drop closes it.
struct Slot {
    state: Arc<conn::State>,
    _close: oneshot::Sender<()>,
}

/// A slot held by a connection task; given back when dropped.
struct Held {
    connections: &'static Connections,
    id: u64,
    state: Arc<conn::State>,
}

impl Connections {
    fn new(cap: usize) -> Connections {
        Connections { open: Mutex::new((0, BTreeMap::new())), cap }
    }

    /// A slot for a new connection, and what fires when it is to close:
    /// when all are taken, the oldest connection not answering a request
    /// (an idle keep-alive, or a client still sending its head) is closed
    /// to make room; `None` when every connection is busy.
    fn admit(&'static self) -> Option<(Held, oneshot::Receiver<()>)> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.1.len() >= self.cap {
            let idle = open
                .1
                .iter()
                .find(|(_, s)| !s.state.busy.load(Ordering::Relaxed))
                .map(|(&id, _)| id);
            // Dropping its slot drops the sender: the connection closes.
            open.1.remove(&idle?)?;
        }
        open.0 += 1;
        let id = open.0;
        let state = Arc::new(conn::State::default());
        let (close, evicted) = oneshot::channel();
        open.1.insert(id, Slot { state: Arc::clone(&state), _close: close });
        Some((Held { connections: self, id, state }, evicted))
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut open = self.connections.open.lock().unwrap_or_else(|e| e.into_inner());
        open.1.remove(&self.id);
    }
}

/// For the fuzz targets (`crate::fuzzing`): a server of every known
/// variant from `db_dir` under its own rules, as `morris serve --db DIR`
/// with its defaults and limits, bound to 127.0.0.1:8080 (for the `Host`
/// checks), but with one lookup worker, a transposition table of 16 MiB,
/// searches stopped after a second, and `half_close` (see [`Shared`]).
pub(crate) fn fuzzing_server(db_dir: &Path) -> Result<&'static Shared> {
    let site = api::Site::new(databases(db_dir, RuleOptions::default())?, Style::DEFAULT);
    let ten = Duration::from_secs(10);
    let pools = Pools {
        workers: 1,
        queue: 64,
        connections: 256,
        search: SearchOptions { transposition_bytes: 16 << 20, ..SearchOptions::default() },
        search_seconds: 1,
        throttle: None,
    };
    let hosts = hosts::Hosts::new(([127, 0, 0, 1], 8080).into(), &[]);
    Ok(Shared::start(site, hosts, Limits::new(ten, ten), pools, true))
}

/// For the fuzz targets: a connection on `stream` (an in-memory one), as
/// the event loop hands a TCP connection over.
pub(crate) async fn fuzzing_connection<S: AsyncRead + AsyncWrite + Unpin>(
    shared: &'static Shared,
    stream: S,
) {
    connection(shared, stream).await
}

/// For the fuzz targets: the routes' answer to a request, as a lookup
/// worker gives it (no HTTP): status, content type and body.
pub(crate) fn fuzzing_answer(
    shared: &Shared,
    method: &str,
    url: &str,
    body: &[u8],
) -> (u16, &'static str, Vec<u8>) {
    let reply = api::answer(&shared.site, method, url, body);
    (reply.status, reply.content_type, reply.body)
}

/// Starts the system's browser on `url`, without waiting for it; a failure
/// is reported and the server goes on.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    match std::process::Command::new(opener)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(e) => {
            eprintln!("morris serve: cannot open a browser with {opener}: {e}; open {url} yourself")
        }
    }
}
