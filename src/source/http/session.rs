//! What the requests of one opening share, without I/O ([`Session`]: the Hub endpoint and
//! token, the read timeout, progress), their cancellation ([`Cancel`]: one call stops the
//! requests in flight, those to come, the openings made from it and whoever asked to be told)
//! and their per-file counters ([`Counter`], [`Counters`]). The web build's `Fetcher` is a
//! session; its `AbortController`s and child sessions are the [`Abort`]s.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use super::{request_headers, Problem};

/// Settings and cancellation shared by every request of one opening (one model, all shards).
pub struct Session {
    /// The configured Hub endpoint (the only origin that receives the token).
    pub endpoint: String,
    /// The access token, if one was entered.
    pub token: Option<String>,
    /// Called after every request start and every received chunk (progress display); shared
    /// with the children that tell the same display ([`Session::child_with_progress`]).
    pub on_progress: Rc<dyn Fn()>,
    /// The read timeout in milliseconds ([`super::READ_TIMEOUT_MS`], or a page's test hook).
    pub timeout_ms: u32,
    /// Aborts the requests in flight and the child sessions, and tells who asked.
    stop: Rc<Cancel>,
}

impl Session {
    /// A session of `endpoint` and `token`, telling `on_progress` of every request and chunk.
    pub fn new(
        endpoint: String,
        token: Option<String>,
        on_progress: Box<dyn Fn()>,
        timeout_ms: u32,
    ) -> Session {
        Session {
            endpoint,
            token,
            on_progress: Rc::from(on_progress),
            timeout_ms,
            stop: Rc::default(),
        }
    }

    /// A session with the same endpoint, token and timeout and no progress display (the
    /// previews of a model), cancelled when this one is.
    pub fn child(&self) -> Session {
        self.child_of(Rc::new(|| {}))
    }

    /// As [`Session::child`], telling this session's progress display of each request
    /// started and chunk received (the page's progress line counts its previews' reads). The
    /// display outlives this session when the child does.
    pub fn child_with_progress(&self) -> Session {
        self.child_of(self.on_progress.clone())
    }

    fn child_of(&self, on_progress: Rc<dyn Fn()>) -> Session {
        let c = Session {
            endpoint: self.endpoint.clone(),
            token: self.token.clone(),
            on_progress,
            timeout_ms: self.timeout_ms,
            stop: Rc::default(),
        };
        self.stop.hold(&c.stop);
        c
    }

    /// Stops every request of this opening (and of its children), in flight or to come.
    pub fn cancel(&self) {
        self.stop.cancel();
    }

    /// Calls `f` once when this session is cancelled (at once if it is already).
    pub fn on_cancel(&self, f: Box<dyn FnOnce()>) {
        self.stop.on_cancel(f);
    }

    /// Whether [`Session::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.stop.is_cancelled()
    }

    /// Aborts `item` (a request's abort handle) when this session is cancelled. Errors:
    /// [`Problem::Cancelled`] when it already is (no request is to be made).
    pub fn hold<T: Abort + 'static>(&self, item: &Rc<T>) -> Result<(), Problem> {
        if self.is_cancelled() {
            return Err(Problem::Cancelled);
        }
        self.stop.hold(item);
        Ok(())
    }

    /// The headers of a request of `url` ([`request_headers`] with this session's token).
    pub fn headers(&self, url: &str, range: Option<(u64, u64)>) -> Vec<(&'static str, String)> {
        request_headers(url, range, self.token.as_deref(), &self.endpoint)
    }
}

/// Something a [`Cancel`] stops: a request's abort handle, or another [`Cancel`].
pub trait Abort {
    /// Stops it (called at most once by a given [`Cancel`]).
    fn abort(&self);
}

/// The cancellation of one opening: once [`Cancel::cancel`]led, it stays so, every item it
/// holds ([`Cancel::hold`]) is aborted and every hook ([`Cancel::on_cancel`]) called, once.
/// Items are held weakly: one dropped when its request ended is not kept.
#[derive(Default)]
pub struct Cancel {
    cancelled: Cell<bool>,
    held: RefCell<Vec<Weak<dyn Abort>>>,
    hooks: RefCell<Vec<Box<dyn FnOnce()>>>,
}

impl Abort for Cancel {
    fn abort(&self) {
        self.cancel();
    }
}

impl Cancel {
    /// Whether [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.get()
    }

    /// Aborts `item` when this is cancelled (at once if it is already).
    pub fn hold<T: Abort + 'static>(&self, item: &Rc<T>) {
        if self.is_cancelled() {
            return item.abort();
        }
        let item: Rc<dyn Abort> = item.clone();
        let mut held = self.held.borrow_mut();
        held.retain(|w| w.strong_count() > 0);
        held.push(Rc::downgrade(&item));
    }

    /// Calls `f` once when this is cancelled (at once if it is already).
    pub fn on_cancel(&self, f: Box<dyn FnOnce()>) {
        if self.is_cancelled() {
            f();
        } else {
            self.hooks.borrow_mut().push(f);
        }
    }

    /// Cancels: aborts the items held, then calls the hooks (no borrow is held meanwhile).
    pub fn cancel(&self) {
        self.cancelled.set(true);
        let held: Vec<_> = self.held.borrow_mut().drain(..).collect();
        for item in held.iter().filter_map(Weak::upgrade) {
            item.abort();
        }
        let hooks: Vec<_> = self.hooks.borrow_mut().drain(..).collect();
        for f in hooks {
            f();
        }
    }
}

/// Requests made and bytes received for one file.
#[derive(Default, Debug)]
pub struct Counter {
    /// Requests started.
    pub requests: Cell<u32>,
    /// Body bytes received.
    pub bytes: Cell<u64>,
}

impl Counter {
    /// One more request started.
    pub fn add_request(&self) {
        self.requests.set(self.requests.get().saturating_add(1));
    }

    /// `n` more body bytes received.
    pub fn add_bytes(&self, n: u64) {
        self.bytes.set(self.bytes.get().saturating_add(n));
    }
}

/// Per-file counters of one opening, by file name, in the order the files were first asked
/// for.
pub type Counters = Rc<RefCell<Vec<(String, Rc<Counter>)>>>;

/// The counter of `name` in `counters`, added when it is new.
pub fn counter_of(counters: &Counters, name: &str) -> Rc<Counter> {
    if let Some((_, c)) = counters.borrow().iter().find(|(n, _)| n == name) {
        return c.clone();
    }
    let c = Rc::new(Counter::default());
    counters.borrow_mut().push((name.to_string(), c.clone()));
    c
}

/// Requests and bytes over every file of `counters`.
pub fn totals(counters: &[(String, Rc<Counter>)]) -> (u32, u64) {
    counters.iter().fold((0, 0), |(r, b), (_, c)| {
        (
            r.saturating_add(c.requests.get()),
            b.saturating_add(c.bytes.get()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Flag(Cell<u32>);
    impl Abort for Flag {
        fn abort(&self) {
            self.0.set(self.0.get() + 1);
        }
    }

    #[test]
    fn cancelling_aborts_what_is_held_and_its_children_once() {
        let c = Cancel::default();
        let req = Rc::new(Flag(Cell::new(0)));
        let child = Rc::new(Cancel::default());
        let child_req = Rc::new(Flag(Cell::new(0)));
        c.hold(&req);
        c.hold(&child);
        child.hold(&child_req);
        let told = Rc::new(Cell::new(0));
        let t = told.clone();
        c.on_cancel(Box::new(move || t.set(t.get() + 1)));
        // A finished request (dropped) is not aborted.
        let gone = Rc::new(Flag(Cell::new(0)));
        c.hold(&gone);
        drop(gone);
        c.cancel();
        c.cancel();
        assert_eq!((req.0.get(), child_req.0.get(), told.get()), (1, 1, 1));
        assert!(child.is_cancelled());
        // Held or hooked after: at once.
        let late = Rc::new(Flag(Cell::new(0)));
        c.hold(&late);
        let t = told.clone();
        c.on_cancel(Box::new(move || t.set(t.get() + 10)));
        assert_eq!((late.0.get(), told.get()), (1, 11));
    }

    #[test]
    fn a_session_cancels_its_children_and_refuses_requests_after() {
        let s = Session::new(
            "https://huggingface.co".into(),
            Some("t".into()),
            Box::new(|| {}),
            3000,
        );
        let child = s.child();
        assert_eq!(
            (child.endpoint.as_str(), child.timeout_ms),
            ("https://huggingface.co", 3000)
        );
        assert_eq!(
            child.headers("https://huggingface.co/o/m/resolve/main/x", Some((0, 9))),
            [
                ("Range", "bytes=0-9".to_string()),
                ("Authorization", "Bearer t".to_string())
            ]
        );
        assert_eq!(child.headers("https://cdn.example/x", None), []);
        let req = Rc::new(Flag(Cell::new(0)));
        assert_eq!(child.hold(&req), Ok(()));
        let told = Rc::new(Cell::new(false));
        let t = told.clone();
        child.on_cancel(Box::new(move || t.set(true)));
        s.cancel();
        assert!(child.is_cancelled() && told.get());
        assert_eq!(req.0.get(), 1);
        let late = Rc::new(Flag(Cell::new(0)));
        assert_eq!(child.hold(&late), Err(Problem::Cancelled));
        assert_eq!(late.0.get(), 0);
    }

    #[test]
    fn a_child_with_progress_tells_the_display_after_its_parent_is_gone() {
        let told = Rc::new(Cell::new(0u32));
        let t = told.clone();
        let s = Session::new(
            "https://huggingface.co".into(),
            None,
            Box::new(move || t.set(t.get() + 1)),
            3000,
        );
        let quiet = s.child();
        let previews = s.child_with_progress();
        (quiet.on_progress)();
        assert_eq!(told.get(), 0);
        drop(s);
        (previews.on_progress)();
        (previews.on_progress)();
        assert_eq!(told.get(), 2);
    }

    #[test]
    fn counters_are_per_file_in_first_asked_order() {
        let cs: Counters = Rc::default();
        let a = counter_of(&cs, "a.gguf");
        a.add_request();
        a.add_bytes(100);
        let b = counter_of(&cs, "b.gguf");
        b.add_request();
        counter_of(&cs, "a.gguf").add_bytes(5);
        let names: Vec<String> = cs.borrow().iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(names, ["a.gguf", "b.gguf"]);
        assert_eq!(totals(&cs.borrow()), (2, 105));
    }
}
