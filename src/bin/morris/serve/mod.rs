//! `morris serve`: a board page and a JSON API over a database directory,
//! from the same binary.
//!
//! Two threads: the main one accepts every request and answers all but
//! `/api/query` itself (assets, listings, stats: all quick); one query
//! thread answers `/api/query` in turn, keeping one `Query` per variant so
//! that the placement search's memory (its transposition table and leaf
//! copies, gigabytes for nine) exists once. A long search thus delays
//! other queries but never the page. Each answer runs under
//! `catch_unwind`: a panic becomes a 500 for that request, not the end of
//! the server.

mod api;
mod http;

use anyhow::{Context, Result};
use http::Reply;
use morris::search::SearchOptions;
use morris::variant::{Flying, Variant, VARIANT_NAMES};
use std::any::Any;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc;

#[derive(clap::Args)]
pub struct Args {
    /// The address to listen on; the default answers this machine only.
    /// Port 0 takes a free port (the address is printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    bind: String,

    /// Open the page in the default browser once listening.
    #[arg(long)]
    open: bool,

    /// Memory for the transposition table of the placement search, per
    /// variant queried, in MiB (allocated as the search uses it).
    #[arg(long, value_name = "MIB", default_value_t = 256)]
    transposition_mib: usize,
}

/// Serves every known variant from `db_dir`, each under its own rules or,
/// with `fly_at`, that flying rule; runs until the process is stopped.
pub fn run(db_dir: &Path, fly_at: Option<&str>, args: &Args, out: &mut impl Write) -> Result<()> {
    let site = api::Site::new(db_dir, variants(fly_at)?);
    let server = tiny_http::Server::http(&args.bind)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("cannot listen on {}", args.bind))?;
    let url = match server.server_addr().to_ip() {
        Some(addr) => format!("http://{addr}/"),
        None => format!("http://{}/", args.bind),
    };
    // Tests and scripts read this line to learn the port.
    writeln!(out, "morris serve: {} on {url}", db_dir.display())?;
    out.flush()?;
    if args.open {
        open_browser(&url);
    }
    let options = SearchOptions { transposition_bytes: args.transposition_mib << 20 };
    let (to_queries, queued) = mpsc::channel::<tiny_http::Request>();
    let (to_reads, reads) = mpsc::channel::<tiny_http::Request>();
    std::thread::scope(|scope| {
        let site = &site;
        scope.spawn(move || answer_queries(site, options, queued));
        scope.spawn(move || answer_table_reads(site, reads));
        accept(&server, site, Queues { queries: to_queries, reads: to_reads })
    })
}

/// The variants served, with `fly_at` applied to each when given.
fn variants(fly_at: Option<&str>) -> Result<Vec<Variant>> {
    let flying: Option<Flying> = fly_at.map(str::parse).transpose().context("--fly-at")?;
    VARIANT_NAMES
        .iter()
        .map(|name| -> Result<Variant> {
            let v = Variant::named(name)?;
            Ok(match flying {
                Some(f) => v.with_flying(f),
                None => v,
            })
        })
        .collect()
}

/// Where the slow requests go: each kind to a thread of its own, so that
/// neither waits for the other and the quick routes wait for neither.
struct Queues {
    queries: mpsc::Sender<tiny_http::Request>,
    reads: mpsc::Sender<tiny_http::Request>,
}

/// Takes requests for ever: queries go to the query thread, whole-table
/// reads to theirs, everything else is answered here.
fn accept(server: &tiny_http::Server, site: &api::Site, queues: Queues) -> Result<()> {
    loop {
        let request = server.recv().context("accepting a request")?;
        let path = request.url().split('?').next().unwrap_or("");
        // The worker threads live as long as this loop, unless one died
        // outside `catch_unwind`, which would be a bug.
        if api::is_query(path) {
            queues
                .queries
                .send(request)
                .map_err(|_| anyhow::anyhow!("the query thread has stopped"))?;
            continue;
        }
        if api::is_table_read(path) {
            queues
                .reads
                .send(request)
                .map_err(|_| anyhow::anyhow!("the table-reading thread has stopped"))?;
            continue;
        }
        let reply = guarded(request.url(), || api::answer(site, request.method(), request.url()));
        send(request, reply);
    }
}

/// The query thread: answers `/api/query` requests in the order they came.
fn answer_queries(
    site: &api::Site,
    options: SearchOptions,
    queued: mpsc::Receiver<tiny_http::Request>,
) {
    let mut queries = api::Queries::new(site, options);
    for request in queued {
        let reply = guarded(request.url(), || {
            api::answer_query(&mut queries, request.method(), request.url())
        });
        if reply.status == 500 {
            // A panic or damaged tables: start afresh rather than trust a
            // search left half-way.
            queries.forget();
        }
        send(request, reply);
    }
}

/// The table-reading thread: answers `/api/distances` requests in turn,
/// remembering each answer.
fn answer_table_reads(site: &api::Site, queued: mpsc::Receiver<tiny_http::Request>) {
    let mut reads = api::Reads::new(site);
    for request in queued {
        let reply = guarded(request.url(), || {
            api::answer_table_read(&mut reads, request.method(), request.url())
        });
        send(request, reply);
    }
}

/// `answer()`, or a 500 naming the panic if it panicked.
fn guarded(url: &str, answer: impl FnOnce() -> Reply) -> Reply {
    let reply = catch_unwind(AssertUnwindSafe(answer)).unwrap_or_else(|panic| {
        Reply::error(500, &format!("internal error answering {url}: {}", panic_text(&*panic)))
    });
    if reply.status >= 500 {
        eprintln!("morris serve: {url}: {}", String::from_utf8_lossy(&reply.body).trim_end());
    }
    reply
}

fn panic_text(panic: &(dyn Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "a panic".to_string(),
    }
}

fn send(request: tiny_http::Request, reply: Reply) {
    let header = |name: &str, value: &str| {
        tiny_http::Header::from_bytes(name, value).expect("a valid header")
    };
    let response = tiny_http::Response::from_data(reply.body)
        .with_status_code(reply.status)
        .with_header(header("Content-Type", reply.content_type))
        .with_header(header("X-Content-Type-Options", "nosniff"))
        .with_header(header("Cache-Control", "no-store"));
    // A client that went away needs no answer.
    let _ = request.respond(response);
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
