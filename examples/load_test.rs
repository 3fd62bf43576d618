//! A bounded load test of `morris serve`: N clients (default 50) ask
//! `/api/query` as fast as they can for S seconds (default 10), each on
//! its own connection per request (as a page does without keep-alive),
//! then the query rate and latency percentiles are printed, for
//! moving-phase and placement positions apart.
//!
//! ```console
//! $ morris --db /tmp/six serve --bind 127.0.0.1:8080 &
//! $ cargo run --release --example load_test -- 127.0.0.1:8080 six 50 10
//! ```
//!
//! The positions asked are those of each `--from` position (default the
//! start), of its moves, and along its perfect-play line, so the answers
//! come from the tables or from short placement searches. Every answer
//! must be 200, or the run fails.
//!
//! With `--search POSITION`, one more client asks a position whose
//! placement search is long, over and over while the others run (each
//! answer 200, or 503 when the search runs out of `--search-seconds`):
//! the latencies are then those of lookups while a search runs.
//!
//! ```console
//! $ morris --variant nine --fly-at never --db nine-10 serve --bind 127.0.0.1:8080 --search-seconds 5 &
//! $ cargo run --release --example load_test -- 127.0.0.1:8080 nine 50 10 \
//!     --from 'WWW.B.../BB.W..../........ b 0 0' --from 'W..B..W./..B...../........ w 1 1' \
//!     --search '......../......../........ w 4 4'
//! ```

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A request and whether its position is in the placement phase.
struct Target {
    path: String,
    placement: bool,
}

fn main() {
    let mut positional = Vec::new();
    let (mut from, mut search) = (Vec::new(), None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--from" => from.push(args.next().expect("--from POSITION")),
            "--search" => search = Some(args.next().expect("--search POSITION")),
            _ => positional.push(arg),
        }
    }
    let addr = positional.first().cloned().unwrap_or_else(|| "127.0.0.1:8080".to_string());
    let variant = positional.get(1).cloned().unwrap_or_else(|| "six".to_string());
    let clients: usize = positional.get(2).map_or(50, |a| a.parse().expect("clients: a number"));
    let seconds: u64 = positional.get(3).map_or(10, |a| a.parse().expect("seconds: a number"));
    if from.is_empty() {
        from.push("start".to_string());
    }

    let targets: Vec<Target> = from.iter().flat_map(|p| targets(&addr, &variant, p)).collect();
    let targets = Arc::new(targets);
    let stop = Arc::new(AtomicBool::new(false));
    let searcher = search.map(|position| {
        let (addr, stop) = (addr.clone(), Arc::clone(&stop));
        let target = format!("/api/query?variant={variant}&position={}", encode(&position));
        std::thread::spawn(move || searches(&addr, &target, &stop))
    });
    // Let the search start before the clocks do.
    if searcher.is_some() {
        std::thread::sleep(Duration::from_millis(500));
    }
    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let (addr, targets, stop) = (addr.clone(), Arc::clone(&targets), Arc::clone(&stop));
            std::thread::spawn(move || client(&addr, &targets, c, &stop))
        })
        .collect();
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    let mut all: Vec<(Duration, bool)> =
        workers.into_iter().flat_map(|w| w.join().expect("a client")).collect();
    let elapsed = started.elapsed();
    let placements = targets.iter().filter(|t| t.placement).count();
    println!(
        "{clients} clients, {:.1} s, {} queries of {} positions of {variant} ({placements} in the \
         placement phase): {:.0} queries/s",
        elapsed.as_secs_f64(),
        all.len(),
        targets.len(),
        all.len() as f64 / elapsed.as_secs_f64(),
    );
    all.sort();
    for (name, which) in [("all", None), ("moving", Some(false)), ("placement", Some(true))] {
        let latencies: Vec<Duration> =
            all.iter().filter(|(_, p)| which.is_none_or(|w| w == *p)).map(|(d, _)| *d).collect();
        if latencies.is_empty() {
            continue;
        }
        let at =
            |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
        let under_50 = latencies.iter().filter(|&&l| l < Duration::from_millis(50)).count();
        println!(
            "  {name:9} {:7} queries: latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {:.2} % under 50 ms",
            latencies.len(),
            ms(at(0.5)),
            ms(at(0.99)),
            ms(*latencies.last().unwrap()),
            100.0 * under_50 as f64 / latencies.len() as f64,
        );
    }
    if let Some(searcher) = searcher {
        let (answered, timed_out, running) = searcher.join().expect("the searcher");
        println!(
            "  while a search ran: {answered} searches answered, {timed_out} ran out of time (503), \
             the last {}",
            if running { "still running at the end" } else { "finished" }
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// One client: requests in turn until told to stop; the latency of each.
fn client(
    addr: &str,
    targets: &[Target],
    first: usize,
    stop: &AtomicBool,
) -> Vec<(Duration, bool)> {
    let mut latencies = Vec::new();
    let mut i = first;
    while !stop.load(Ordering::Relaxed) {
        let target = &targets[i % targets.len()];
        let t0 = Instant::now();
        let (status, body) = get(addr, &target.path);
        latencies.push((t0.elapsed(), target.placement));
        assert_eq!(status, 200, "{}: {body}", target.path);
        i += 1;
    }
    latencies
}

/// The search client: asks `target` until told to stop; how many answers
/// came (200), how many ran out of time (503), and whether one was still
/// running at the end.
fn searches(addr: &str, target: &str, stop: &AtomicBool) -> (u64, u64, bool) {
    let (answered, timed_out) = (AtomicU64::new(0), AtomicU64::new(0));
    while !stop.load(Ordering::Relaxed) {
        let mut stream = TcpStream::connect(addr).expect("the server accepts");
        write!(stream, "GET {target} HTTP/1.0\r\nHost: {addr}\r\n\r\n").expect("request sent");
        stream.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
        let mut response = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => response.extend_from_slice(&buf[..n]),
                Err(_) if stop.load(Ordering::Relaxed) => {
                    return (answered.into_inner(), timed_out.into_inner(), true)
                }
                Err(_) => {}
            }
        }
        let text = String::from_utf8_lossy(&response);
        match text.split(' ').nth(1) {
            Some("200") => answered.fetch_add(1, Ordering::Relaxed),
            Some("503") => timed_out.fetch_add(1, Ordering::Relaxed),
            _ => panic!("the search: {text}"),
        };
    }
    (answered.into_inner(), timed_out.into_inner(), false)
}

/// The `/api/query` targets: `position`, the position after each of its
/// moves, and those along its perfect-play line.
fn targets(addr: &str, variant: &str, position: &str) -> Vec<Target> {
    let target =
        |position: &str| format!("/api/query?variant={variant}&position={}", encode(position));
    let (status, body) = get(addr, &target(position));
    assert_eq!(status, 200, "{position} of {variant}: {body}");
    let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let mut paths = vec![target(position)];
    for m in json["moves"].as_array().expect("moves") {
        paths.push(target(m["position"].as_str().expect("a position")));
    }
    let line: Vec<&str> =
        json["line"].as_array().expect("a line").iter().filter_map(|m| m.as_str()).collect();
    for n in 1..=line.len() {
        paths.push(format!("{}&moves={}", target(position), encode(&line[..n].join(" "))));
    }
    paths
        .into_iter()
        .map(|path| {
            let (status, body) = get(addr, &path);
            assert_eq!(status, 200, "{path}: {body}");
            let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
            let notation = json["position"].as_str().expect("a position");
            let hands: Vec<u32> =
                notation.split(' ').skip(2).filter_map(|h| h.parse().ok()).collect();
            Target { path, placement: hands.iter().any(|&h| h > 0) }
        })
        .collect()
}

/// A GET over a fresh connection: (status, body).
fn get(addr: &str, target: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("the server accepts");
    write!(stream, "GET {target} HTTP/1.0\r\nHost: {addr}\r\n\r\n").expect("request sent");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("a response");
    let status = response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = response.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string();
    (status, body)
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
