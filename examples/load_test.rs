//! A bounded load test of `morris serve`: N clients (default 50) ask
//! `/api/query` as fast as they can for S seconds (default 10), each on
//! its own connection per request (as a page does without keep-alive),
//! then the query rate and latency percentiles are printed.
//!
//! ```console
//! $ morris --db /tmp/six serve --bind 127.0.0.1:8080 &
//! $ cargo run --release --example load_test -- 127.0.0.1:8080 six 50 10
//! ```
//!
//! The positions asked are those of the variant's start and the positions
//! its moves and perfect-play line lead to, so the answers come from the
//! tables (a variant whose start needs the placement search measures the
//! search instead). Every answer must be 200, or the run fails.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr = args.first().cloned().unwrap_or_else(|| "127.0.0.1:8080".to_string());
    let variant = args.get(1).cloned().unwrap_or_else(|| "six".to_string());
    let clients: usize = args.get(2).map_or(50, |a| a.parse().expect("clients: a number"));
    let seconds: u64 = args.get(3).map_or(10, |a| a.parse().expect("seconds: a number"));

    let targets = Arc::new(targets(&addr, &variant));
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            let (addr, targets, stop) = (addr.clone(), Arc::clone(&targets), Arc::clone(&stop));
            std::thread::spawn(move || client(&addr, &targets, c, &stop))
        })
        .collect();
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    let mut latencies: Vec<Duration> =
        workers.into_iter().flat_map(|w| w.join().expect("a client")).collect();
    let elapsed = started.elapsed();
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    let under_20 = latencies.iter().filter(|&&l| l < Duration::from_millis(20)).count();
    println!(
        "{clients} clients, {:.1} s, {} queries of {} positions of {variant}: {:.0} queries/s; \
         latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {:.2} % under 20 ms",
        elapsed.as_secs_f64(),
        latencies.len(),
        targets.len(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        ms(at(0.5)),
        ms(at(0.99)),
        ms(*latencies.last().unwrap()),
        100.0 * under_20 as f64 / latencies.len() as f64,
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// One client: requests in turn until told to stop; the latency of each.
fn client(addr: &str, targets: &[String], first: usize, stop: &AtomicBool) -> Vec<Duration> {
    let mut latencies = Vec::new();
    let mut i = first;
    while !stop.load(Ordering::Relaxed) {
        let t0 = Instant::now();
        let (status, body) = get(addr, &targets[i % targets.len()]);
        latencies.push(t0.elapsed());
        assert_eq!(status, 200, "{}: {body}", targets[i % targets.len()]);
        i += 1;
    }
    latencies
}

/// The `/api/query` targets: the start, the position after each of its
/// moves, and those along its perfect-play line.
fn targets(addr: &str, variant: &str) -> Vec<String> {
    let target =
        |position: &str| format!("/api/query?variant={variant}&position={}", encode(position));
    let (status, body) = get(addr, &target("start"));
    assert_eq!(status, 200, "the start of {variant}: {body}");
    let start: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let mut targets = vec![target("start")];
    for m in start["moves"].as_array().expect("moves") {
        targets.push(target(m["position"].as_str().expect("a position")));
    }
    let line: Vec<&str> =
        start["line"].as_array().expect("a line").iter().filter_map(|m| m.as_str()).collect();
    for n in 1..=line.len() {
        targets.push(format!(
            "/api/query?variant={variant}&position=start&moves={}",
            encode(&line[..n].join(" "))
        ));
    }
    targets
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
