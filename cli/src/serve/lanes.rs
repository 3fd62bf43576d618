//! Where the work of answering goes, away from the thread that talks
//! HTTP: a pool of workers for table lookups and listings, one thread for
//! whole-table reads, and one for placement searches. Each has a bounded
//! queue; a request that finds it full is answered 503 at once. Work whose
//! client has gone is dropped before it starts, and a search whose every
//! client has gone is stopped.

use super::api;
use super::http::{printable, Reply};
use morris::search::budget::{with_budget, Budget};
use morris::search::SearchOptions;
use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{oneshot, watch};

/// A request for a worker, and where its answer goes: a client that has
/// gone has dropped the other end, which the worker sees.
struct Job {
    method: String,
    url: String,
    /// The request's body (`POST /api/probe`; empty for the others).
    body: Vec<u8>,
    reply: oneshot::Sender<Reply>,
}

/// A queue and the threads that take from it.
pub struct Lane {
    queue: mpsc::SyncSender<Job>,
    what: &'static str,
    capacity: usize,
}

impl Lane {
    /// `threads` threads, each answering with the function `worker()`
    /// makes on it; at most `capacity` requests wait.
    pub fn start<W>(
        what: &'static str,
        threads: usize,
        capacity: usize,
        worker: impl Fn() -> W + Send + Sync + 'static,
    ) -> Lane
    where
        W: FnMut(&str, &str, &[u8]) -> Reply,
    {
        let (queue, jobs) = mpsc::sync_channel::<Job>(capacity);
        let jobs = Arc::new(Mutex::new(jobs));
        let worker = Arc::new(worker);
        for _ in 0..threads.max(1) {
            let (jobs, worker) = (Arc::clone(&jobs), Arc::clone(&worker));
            std::thread::spawn(move || {
                let mut answer = worker();
                loop {
                    let next = jobs.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok(job) = next else { return };
                    if job.reply.is_closed() {
                        continue; // its client has gone
                    }
                    let reply = answer(&job.method, &job.url, &job.body);
                    log_failure(&job.url, &reply);
                    let _ = job.reply.send(reply);
                }
            });
        }
        Lane { queue, what, capacity }
    }

    /// Queues a request; 503 if the queue is full.
    pub fn submit(
        &self,
        method: &str,
        url: &str,
        body: Vec<u8>,
    ) -> Result<oneshot::Receiver<Reply>, Reply> {
        let (reply, answer) = oneshot::channel();
        let job = Job { method: method.to_string(), url: url.to_string(), body, reply };
        match self.queue.try_send(job) {
            Ok(()) => Ok(answer),
            Err(_) => Err(busy(self.what, self.capacity)),
        }
    }
}

fn busy(what: &str, capacity: usize) -> Reply {
    Reply::error(
        503,
        &format!(
            "the server is busy: {capacity} {what} are already waiting (--queue); try again shortly"
        ),
    )
}

/// `answer()` under a budget of `seconds` for any search it makes, with a
/// panic turned into a 500 and a search stopped by its budget into a 503;
/// also whether it panicked.
pub fn budgeted(
    url: &str,
    budget: Budget,
    seconds: u64,
    answer: impl FnOnce() -> Reply,
) -> (Reply, bool) {
    let result = with_budget(budget.clone(), || catch_unwind(AssertUnwindSafe(answer)));
    match result {
        Ok(reply)
            if reply.status == 500 && budget.deadline.is_some_and(|d| Instant::now() >= d) =>
        {
            (
                Reply::error(
                    503,
                    &format!(
                        "the placement search for this position took more than {seconds} s \
                     (--search-seconds) and was stopped; what it proved is kept, so asking \
                     again goes further"
                    ),
                ),
                false,
            )
        }
        Ok(reply) => (reply, false),
        Err(panic) => (
            Reply::error(
                500,
                &format!(
                    "internal error answering {}: {}",
                    printable(url, 200),
                    panic_text(&*panic)
                ),
            ),
            true,
        ),
    }
}

/// A 500 on the terminal, with nothing from the client that could move
/// the cursor or hide text.
fn log_failure(url: &str, reply: &Reply) {
    if reply.status >= 500 && reply.status != 503 {
        eprintln!(
            "morris serve: {}: {}",
            printable(url, 200),
            printable(String::from_utf8_lossy(&reply.body).trim_end(), 1000)
        );
    }
}

fn panic_text(panic: &(dyn Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => s.to_string(),
        (_, Some(s)) => s.clone(),
        _ => "a panic".to_string(),
    }
}

/// The pool answering lookups (`/api/query` from tables, `/api/probe`)
/// and listings:
/// `threads` workers, each with its own queries on the shared tables. A
/// lookup that needs a search after all (a move into a sector without a
/// table) gets a small transposition table and `seconds`.
pub fn lookups(site: &'static api::Site, threads: usize, capacity: usize, seconds: u64) -> Lane {
    Lane::start("requests", threads, capacity, move || {
        let options = SearchOptions { transposition_bytes: 4 << 20, ..SearchOptions::default() };
        let mut queries = api::Queries::new(site, options);
        move |method: &str, url: &str, body: &[u8]| {
            let path = url.split('?').next().unwrap_or("");
            if !api::is_query(path) {
                return budgeted(url, Budget::default(), seconds, || {
                    api::answer(site, method, url, body)
                })
                .0;
            }
            let budget = Budget { deadline: Some(deadline(seconds)), ..Budget::default() };
            let (reply, panicked) =
                budgeted(url, budget, seconds, || api::answer_query(&mut queries, method, url));
            if panicked {
                queries.forget();
            }
            reply
        }
    })
}

/// The thread reading whole tables (`/api/distances`: seconds for nine's
/// largest sectors), remembering each answer.
pub fn reads(site: &'static api::Site, capacity: usize) -> Lane {
    Lane::start("table reads", 1, capacity, move || {
        lower_priority();
        let mut reads = api::Reads::new(site);
        move |method: &str, url: &str, _body: &[u8]| {
            budgeted(url, Budget::default(), 0, || api::answer_table_read(&mut reads, method, url))
                .0
        }
    })
}

/// Makes the calling thread give way to the others on a busy machine (a
/// nice of 10 on Linux): a search takes what lookups leave.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on this thread's id changes only its priority;
    // a failure leaves it as it was.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}

fn deadline(seconds: u64) -> Instant {
    Instant::now() + Duration::from_secs(seconds)
}

/// Requests for the same position share one search.
type Key = (String, String);

/// One search, waited for by one or more requests.
struct SearchJob {
    key: Key,
    method: String,
    url: String,
    stop: Arc<AtomicBool>,
    /// When its time is up, set when it first runs.
    deadline: Mutex<Option<Instant>>,
    done: watch::Sender<Option<Reply>>,
}

struct Hub {
    /// Searches queued or running, by position, and how many requests
    /// wait for each.
    jobs: HashMap<Key, (Arc<SearchJob>, usize)>,
    queue: VecDeque<Arc<SearchJob>>,
}

/// The search thread and its queue of distinct positions. The thread
/// takes turns: a search that has run for [`SLICE`] while others wait
/// pauses and goes to the back of the queue (what it proved stays in the
/// transposition table, so it goes on where it was), so that a quick
/// search (a late placement position) is not stuck behind a long one.
pub struct Searches {
    hub: Mutex<Hub>,
    ready: Condvar,
    /// Up while a search waits in the queue.
    others: Arc<AtomicBool>,
    capacity: usize,
}

/// A search's turn on the thread before it lets a waiting one run.
const SLICE: Duration = Duration::from_millis(20);

/// A request's share of a search; dropping the last share of a search
/// stops it.
pub struct Waiter {
    searches: &'static Searches,
    job: Arc<SearchJob>,
    done: watch::Receiver<Option<Reply>>,
}

impl Searches {
    /// Starts the search thread: one search at a time, each under
    /// `seconds` from when it first runs, with one transposition table of
    /// `options` for all variants; at most `capacity` distinct positions
    /// wait.
    pub fn start(
        site: &'static api::Site,
        options: SearchOptions,
        seconds: u64,
        capacity: usize,
        throttle: Option<Duration>,
    ) -> &'static Searches {
        let searches: &'static Searches = Box::leak(Box::new(Searches {
            hub: Mutex::new(Hub { jobs: HashMap::new(), queue: VecDeque::new() }),
            ready: Condvar::new(),
            others: Arc::new(AtomicBool::new(false)),
            capacity,
        }));
        std::thread::spawn(move || {
            lower_priority();
            let mut queries = api::Queries::new(site, options);
            loop {
                let job = searches.next();
                if job.stop.load(Ordering::Relaxed) {
                    continue; // every client has gone
                }
                let deadline = *job
                    .deadline
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert_with(|| Instant::now() + Duration::from_secs(seconds));
                let budget = Budget {
                    stop: Some(Arc::clone(&job.stop)),
                    deadline: Some(deadline),
                    yield_to: Some((Arc::clone(&searches.others), Instant::now() + SLICE)),
                    throttle,
                };
                let (reply, panicked) = budgeted(&job.url, budget.clone(), seconds, || {
                    api::answer_query(&mut queries, &job.method, &job.url)
                });
                // Only a panic resets the search: a damaged table is a 500
                // for the positions that reach it, and the rest of what the
                // search proved stays good.
                if panicked {
                    queries.forget();
                }
                let paused = reply.status == 500
                    && !job.stop.load(Ordering::Relaxed)
                    && budget.exceeded().is_some();
                if paused {
                    searches.requeue(job);
                    continue;
                }
                if job.stop.load(Ordering::Relaxed) {
                    continue;
                }
                log_failure(&job.url, &reply);
                searches.finish(&job);
                job.done.send_replace(Some(reply));
            }
        });
        searches
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Hub> {
        self.hub.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn next(&self) -> Arc<SearchJob> {
        let mut hub = self.lock();
        loop {
            if let Some(job) = hub.queue.pop_front() {
                self.others.store(!hub.queue.is_empty(), Ordering::Relaxed);
                return job;
            }
            hub = self.ready.wait(hub).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A paused search back in the queue, unless every client has gone.
    fn requeue(&self, job: Arc<SearchJob>) {
        let mut hub = self.lock();
        if hub.jobs.get(&job.key).is_some_and(|(j, _)| Arc::ptr_eq(j, &job)) {
            hub.queue.push_back(job);
        }
    }

    fn finish(&self, job: &Arc<SearchJob>) {
        let mut hub = self.lock();
        if hub.jobs.get(&job.key).is_some_and(|(j, _)| Arc::ptr_eq(j, job)) {
            hub.jobs.remove(&job.key);
        }
    }

    /// A share of the search for `key`, joining one queued or running;
    /// 503 if a new search finds the queue full.
    pub fn join(&'static self, key: Key, method: &str, url: &str) -> Result<Waiter, Reply> {
        let mut hub = self.lock();
        if let Some((job, waiters)) = hub.jobs.get_mut(&key) {
            *waiters += 1;
            let job = Arc::clone(job);
            let done = job.done.subscribe();
            return Ok(Waiter { searches: self, job, done });
        }
        // The search running and those waiting: all but one wait.
        if hub.jobs.len() > self.capacity {
            return Err(Reply::error(
                503,
                &format!(
                    "the server is busy: {} placement searches are already waiting; try again later",
                    self.capacity
                ),
            ));
        }
        let (done, receiver) = watch::channel(None);
        let job = Arc::new(SearchJob {
            key: key.clone(),
            method: method.to_string(),
            url: url.to_string(),
            stop: Arc::new(AtomicBool::new(false)),
            deadline: Mutex::new(None),
            done,
        });
        hub.jobs.insert(key, (Arc::clone(&job), 1));
        hub.queue.push_back(Arc::clone(&job));
        self.others.store(true, Ordering::Relaxed);
        self.ready.notify_one();
        Ok(Waiter { searches: self, job, done: receiver })
    }
}

impl Waiter {
    /// The search's answer, once there is one.
    pub async fn reply(&mut self) -> Reply {
        match self.done.wait_for(Option::is_some).await {
            Ok(reply) => reply.clone().expect("waited for"),
            Err(_) => Reply::error(500, "the search thread has stopped"),
        }
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        let mut hub = self.searches.lock();
        let key = &self.job.key;
        let last = match hub.jobs.get_mut(key) {
            Some((job, waiters)) if Arc::ptr_eq(job, &self.job) => {
                *waiters -= 1;
                *waiters == 0
            }
            // Finished: nothing to stop.
            _ => false,
        };
        if last {
            hub.jobs.remove(key);
            hub.queue.retain(|j| !Arc::ptr_eq(j, &self.job));
            self.job.stop.store(true, Ordering::Relaxed);
        }
    }
}
