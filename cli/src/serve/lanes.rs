//! Where the work of answering goes, away from the thread that talks
//! HTTP: a pool of workers for table lookups and listings, one thread for
//! whole-table reads, and one for placement searches. One model for all
//! three: threads that take work from a bounded [`Queue`] (a request that
//! finds it full is answered 503 at once) and hand each answer back by a
//! `oneshot` channel, whose other end the connection drops when its client
//! goes. Work whose client has gone is dropped before it starts, and a
//! search whose every client has gone is stopped.

use super::api;
use super::http::{printable, Reply};
use morris::search::budget::{with_budget, Budget};
use morris::search::SearchOptions;
use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// Work waiting for threads, at most `capacity` items; `waiting` is up
/// while any waits (the search thread yields to it).
pub struct Queue<T> {
    items: Mutex<VecDeque<T>>,
    ready: Condvar,
    capacity: usize,
    waiting: Arc<AtomicBool>,
}

impl<T> Queue<T> {
    pub fn new(capacity: usize) -> Queue<T> {
        Queue {
            items: Mutex::new(VecDeque::new()),
            ready: Condvar::new(),
            capacity,
            waiting: Arc::new(AtomicBool::new(false)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<T>> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds `item` at the back; `Err(item)` when the queue is full.
    fn push(&self, item: T) -> Result<(), T> {
        let mut items = self.lock();
        if items.len() >= self.capacity {
            return Err(item);
        }
        items.push_back(item);
        self.waiting.store(true, Ordering::Relaxed);
        self.ready.notify_one();
        Ok(())
    }

    /// The item at the front, waiting for one.
    fn pop(&self) -> T {
        let mut items = self.lock();
        loop {
            if let Some(item) = items.pop_front() {
                self.waiting.store(!items.is_empty(), Ordering::Relaxed);
                return item;
            }
            items = self.ready.wait(items).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Drops the items `keep` says no to.
    fn retain(&self, keep: impl FnMut(&T) -> bool) {
        let mut items = self.lock();
        items.retain(keep);
        self.waiting.store(!items.is_empty(), Ordering::Relaxed);
    }
}

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
    queue: Queue<Job>,
    what: &'static str,
}

impl Lane {
    /// A lane whose queue holds `capacity` requests; no thread takes
    /// them before [`Lane::start`].
    pub fn new(what: &'static str, capacity: usize) -> Lane {
        Lane { queue: Queue::new(capacity), what }
    }

    /// Starts `threads` threads, each answering with the function
    /// `worker()` makes on it.
    pub fn start<W>(&'static self, threads: usize, worker: impl Fn() -> W + Send + Sync + 'static)
    where
        W: FnMut(&str, &str, &[u8]) -> Reply,
    {
        let worker = Arc::new(worker);
        for _ in 0..threads.max(1) {
            let worker = Arc::clone(&worker);
            std::thread::spawn(move || {
                let mut answer = worker();
                loop {
                    let job = self.queue.pop();
                    if job.reply.is_closed() {
                        continue; // its client has gone
                    }
                    let reply = answer(&job.method, &job.url, &job.body);
                    log_failure(&job.url, &reply);
                    let _ = job.reply.send(reply);
                }
            });
        }
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
        match self.queue.push(job) {
            Ok(()) => Ok(answer),
            Err(_) => Err(busy(self.what, self.queue.capacity)),
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

/// Starts the pool answering lookups (`/api/query` from tables,
/// `/api/probe`) and listings on `lane`: `threads` workers, each with its
/// own queries on the shared tables. A lookup that needs a search after
/// all (a move into a sector without a table) gets a small transposition
/// table and `seconds`.
pub fn start_lookups(lane: &'static Lane, site: &'static api::Site, threads: usize, seconds: u64) {
    lane.start(threads, move || {
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

/// Starts the thread reading whole tables (`/api/distances`: seconds for
/// nine's largest sectors) on `lane`, remembering each answer.
pub fn start_reads(lane: &'static Lane, site: &'static api::Site) {
    lane.start(1, move || {
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
}

/// A search queued or running, and the requests that wait for it.
struct Shares {
    job: Arc<SearchJob>,
    /// How many requests wait (a request that goes drops its count).
    waiters: usize,
    /// Where the answer goes, one end per request.
    replies: Vec<oneshot::Sender<Reply>>,
}

/// The search thread and its queue of distinct positions. The thread
/// takes turns: a search that has run for [`SLICE`] while others wait
/// pauses and goes to the back of the queue (what it proved stays in the
/// transposition table, so it goes on where it was), so that a quick
/// search (a late placement position) is not stuck behind a long one.
pub struct Searches {
    /// Searches queued or running, by position (locked before `queue`).
    jobs: Mutex<HashMap<Key, Shares>>,
    queue: Queue<Arc<SearchJob>>,
    /// Distinct searches that may wait beside the one running.
    capacity: usize,
}

/// A search's turn on the thread before it lets a waiting one run.
const SLICE: Duration = Duration::from_millis(20);

/// A request's share of a search; dropping the last share of a search
/// stops it.
pub struct Waiter {
    searches: &'static Searches,
    job: Arc<SearchJob>,
    reply: oneshot::Receiver<Reply>,
}

impl Searches {
    /// Searches of which at most `capacity` distinct positions wait; none
    /// runs before [`Searches::start`].
    pub fn new(capacity: usize) -> Searches {
        Searches { jobs: Mutex::new(HashMap::new()), queue: Queue::new(usize::MAX), capacity }
    }

    /// Starts the search thread: one search at a time, each under
    /// `seconds` from when it first runs, with one transposition table of
    /// `options` for all variants.
    pub fn start(
        &'static self,
        site: &'static api::Site,
        options: SearchOptions,
        seconds: u64,
        throttle: Option<Duration>,
    ) {
        std::thread::spawn(move || {
            lower_priority();
            let mut queries = api::Queries::new(site, options);
            loop {
                let job = self.queue.pop();
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
                    yield_to: Some((Arc::clone(&self.queue.waiting), Instant::now() + SLICE)),
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
                    self.requeue(job);
                    continue;
                }
                if job.stop.load(Ordering::Relaxed) {
                    continue;
                }
                log_failure(&job.url, &reply);
                self.finish(&job, reply);
            }
        });
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Key, Shares>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A paused search back in the queue, unless every client has gone.
    fn requeue(&self, job: Arc<SearchJob>) {
        let jobs = self.lock();
        if jobs.get(&job.key).is_some_and(|s| Arc::ptr_eq(&s.job, &job)) {
            let _ = self.queue.push(job);
        }
    }

    /// The search's answer to every request that waits for it.
    fn finish(&self, job: &Arc<SearchJob>, reply: Reply) {
        let mut jobs = self.lock();
        if jobs.get(&job.key).is_some_and(|s| Arc::ptr_eq(&s.job, job)) {
            let shares = jobs.remove(&job.key).expect("just seen");
            for waiting in shares.replies {
                let _ = waiting.send(reply.clone());
            }
        }
    }

    /// A share of the search for `key`, joining one queued or running;
    /// 503 if a new search finds the queue full.
    pub fn join(&'static self, key: Key, method: &str, url: &str) -> Result<Waiter, Reply> {
        let mut jobs = self.lock();
        let (sender, reply) = oneshot::channel();
        if let Some(shares) = jobs.get_mut(&key) {
            shares.waiters += 1;
            shares.replies.push(sender);
            return Ok(Waiter { searches: self, job: Arc::clone(&shares.job), reply });
        }
        // The search running and those waiting: all but one wait.
        if jobs.len() > self.capacity {
            return Err(Reply::error(
                503,
                &format!(
                    "the server is busy: {} placement searches are already waiting; try again later",
                    self.capacity
                ),
            ));
        }
        let job = Arc::new(SearchJob {
            key: key.clone(),
            method: method.to_string(),
            url: url.to_string(),
            stop: Arc::new(AtomicBool::new(false)),
            deadline: Mutex::new(None),
        });
        jobs.insert(key, Shares { job: Arc::clone(&job), waiters: 1, replies: vec![sender] });
        let _ = self.queue.push(Arc::clone(&job));
        Ok(Waiter { searches: self, job, reply })
    }
}

impl Waiter {
    /// The search's answer, once there is one.
    pub async fn reply(&mut self) -> Reply {
        (&mut self.reply)
            .await
            .unwrap_or_else(|_| Reply::error(500, "the search thread has stopped"))
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        let mut jobs = self.searches.lock();
        let key = &self.job.key;
        let last = match jobs.get_mut(key) {
            Some(shares) if Arc::ptr_eq(&shares.job, &self.job) => {
                shares.waiters -= 1;
                shares.waiters == 0
            }
            // Finished: nothing to stop.
            _ => false,
        };
        if last {
            jobs.remove(key);
            self.job.stop.store(true, Ordering::Relaxed);
            self.searches.queue.retain(|j| !Arc::ptr_eq(j, &self.job));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_holds_its_capacity_in_order_and_says_when_work_waits() {
        let queue = Queue::new(2);
        assert!(!queue.waiting.load(Ordering::Relaxed));
        assert_eq!((queue.push(1), queue.push(2), queue.push(3)), (Ok(()), Ok(()), Err(3)));
        assert!(queue.waiting.load(Ordering::Relaxed));
        assert_eq!(queue.pop(), 1);
        assert!(queue.waiting.load(Ordering::Relaxed));
        queue.retain(|&i| i != 2);
        assert!(!queue.waiting.load(Ordering::Relaxed));
        assert_eq!(queue.push(4), Ok(()));
        assert_eq!(queue.pop(), 4);
    }
}
