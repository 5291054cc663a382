//! Work of one view done in later tasks, one job per task, so that opening a model never blocks
//! the page for long (issue #23: no main-thread task over 50 ms): the first task draws what is
//! seen first, each job after it one card. Dropping the [`Later`] (with its view) drops the jobs
//! not yet run; none runs after.

use std::cell::RefCell;

use gloo::timers::callback::Timeout;

/// Jobs run in order, each in a task of its own (a `setTimeout(0)`: timers of one delay fire
/// in the order they were set), or at once.
pub struct Later {
    /// The jobs' timers (gloo's: dropping one cancels it and frees its job); `None`: each job
    /// runs when it is added (the embedded view, whose tabs show one card at a time).
    timers: Option<RefCell<Vec<Timeout>>>,
}

impl Later {
    /// Jobs that run in later tasks, or, with `at_once`, as they are added.
    pub fn new(at_once: bool) -> Later {
        Later {
            timers: (!at_once).then(RefCell::default),
        }
    }

    /// Runs `job` after the jobs added before it, in a task of its own.
    pub fn then(&self, job: impl FnOnce() + 'static) {
        match &self.timers {
            Some(timers) => timers.borrow_mut().push(Timeout::new(0, job)),
            None => job(),
        }
    }
}
