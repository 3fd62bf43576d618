//! A limit on a search from outside it: a deadline and a flag another
//! thread may raise. The search looks at them every [`CHECK_EVERY`] nodes
//! (a fraction of a millisecond) and, once either says stop, unwinds with
//! [`DbError::Interrupted`]; what it proved so far stays in its
//! transposition table, so asking again goes on from there.
//!
//! The budget is the calling thread's, set around a piece of work with
//! [`with_budget`]: a caller that reaches the search through
//! [`crate::query::Query`] limits it without a change to that API.

use crate::database::DbError;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Nodes between two looks at the budget.
pub const CHECK_EVERY: u64 = 1024;

/// When a search must stop.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// Stop once this flag is raised.
    pub stop: Option<Arc<AtomicBool>>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Pause once this flag is up (others wait for the thread) and the
    /// instant has passed (the search had its slice of time).
    pub yield_to: Option<(Arc<AtomicBool>, Instant)>,
    /// For tests of what serves searches: every look at the budget first
    /// spins this long (still looking), which makes a search on a small
    /// database as slow, and as busy, as a long one on a large database.
    pub throttle: Option<std::time::Duration>,
}

impl Budget {
    /// Why the search must stop now, if it must.
    pub fn exceeded(&self) -> Option<&'static str> {
        if self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Some("the search was cancelled");
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some("the search ran out of time");
        }
        if let Some((others, after)) = &self.yield_to {
            if others.load(Ordering::Relaxed) && Instant::now() >= *after {
                return Some("the search paused for others");
            }
        }
        None
    }
}

thread_local! {
    static BUDGET: RefCell<Option<Budget>> = const { RefCell::new(None) };
}

/// Runs `work` with every search it makes on this thread under `budget`;
/// the budget before is restored afterwards, even if `work` panics.
pub fn with_budget<R>(budget: Budget, work: impl FnOnce() -> R) -> R {
    struct Restore(Option<Budget>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            BUDGET.with(|b| *b.borrow_mut() = before);
        }
    }
    let _restore = Restore(BUDGET.with(|b| b.borrow_mut().replace(budget)));
    work()
}

/// This thread's budget, for the threads a search starts to share it.
pub(super) fn current() -> Option<Budget> {
    BUDGET.with(|b| b.borrow().clone())
}

/// Why this thread's budget says stop, if it does.
pub(super) fn check() -> Option<&'static str> {
    BUDGET.with(|b| {
        let budget = b.borrow();
        let budget = budget.as_ref()?;
        let spin_until = budget.throttle.map(|t| Instant::now() + t);
        loop {
            if let Some(why) = budget.exceeded() {
                return Some(why);
            }
            if spin_until.is_none_or(|t| Instant::now() >= t) {
                return None;
            }
            std::hint::spin_loop();
        }
    })
}

/// The error a search stopped by its budget returns.
pub(super) fn stopped(why: &str) -> DbError {
    DbError::Interrupted(why.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_budget_holds_inside_its_scope_only() {
        assert_eq!(check(), None);
        let stop = Arc::new(AtomicBool::new(false));
        with_budget(Budget { stop: Some(stop.clone()), ..Budget::default() }, || {
            assert_eq!(check(), None);
            stop.store(true, Ordering::Relaxed);
            assert_eq!(check(), Some("the search was cancelled"));
        });
        assert_eq!(check(), None);
        let past = Instant::now() - Duration::from_millis(1);
        with_budget(Budget { deadline: Some(past), ..Budget::default() }, || {
            assert_eq!(check(), Some("the search ran out of time"));
        });
        assert_eq!(check(), None);
        // A throttled search spins, and still stops when told.
        let started = Instant::now();
        let throttle = Some(Duration::from_millis(30));
        with_budget(Budget { throttle, ..Budget::default() }, || assert_eq!(check(), None));
        assert!(started.elapsed() >= Duration::from_millis(30));
        let soon = Some(Instant::now() + Duration::from_millis(10));
        let throttle = Some(Duration::from_secs(60));
        with_budget(Budget { deadline: soon, throttle, ..Budget::default() }, || {
            assert_eq!(check(), Some("the search ran out of time"));
        });
    }
}
