//! Work of one view done in later tasks, one job per task, so that opening a model never blocks
//! the page for long (issue #23: no main-thread task over 50 ms): the first task draws what is
//! seen first, each job after it one card. Dropping the [`Later`] (with its view) drops the jobs
//! not yet run; none runs after.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

type Job = Box<dyn FnOnce()>;

/// A queue of jobs run in order, each in its own task (`setTimeout(0)`), or at once.
pub struct Later {
    /// The jobs waiting; `None`: run each job when it is added (the embedded view, whose tabs
    /// show one card at a time).
    queue: Option<Rc<Queue>>,
}

#[derive(Default)]
struct Queue {
    jobs: RefCell<VecDeque<Job>>,
    /// A task is scheduled to run the next job.
    scheduled: Cell<bool>,
}

impl Later {
    /// A queue whose jobs run in later tasks, or, with `at_once`, as they are added.
    pub fn new(at_once: bool) -> Later {
        Later {
            queue: (!at_once).then(Rc::default),
        }
    }

    /// Runs `job` after the jobs added before it, in a task of its own.
    pub fn then(&self, job: impl FnOnce() + 'static) {
        let Some(queue) = &self.queue else {
            return job();
        };
        queue.jobs.borrow_mut().push_back(Box::new(job));
        schedule(queue);
    }
}

/// Schedules a task for the next job unless one is scheduled. The task holds the queue weakly:
/// once the view (and its `Later`) is gone it does nothing.
fn schedule(inner: &Rc<Queue>) {
    if inner.scheduled.replace(true) {
        return;
    }
    let weak: Weak<Queue> = Rc::downgrade(inner);
    wasm_bindgen_futures::spawn_local(async move {
        loop {
            gloo_timers::future::TimeoutFuture::new(0).await;
            let Some(inner) = weak.upgrade() else { return };
            let job = inner.jobs.borrow_mut().pop_front();
            let Some(job) = job else {
                inner.scheduled.set(false);
                return;
            };
            // The queue is not borrowed while the job runs (it may add jobs).
            drop(inner);
            job();
        }
    });
}
