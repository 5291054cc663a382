//! One reading per key, shared by everyone who asks for it: the header of a remote model is
//! read once per page however many `<weightpeek-view>` elements and API calls name it
//! (issue #21 item 3). Plain Rust without I/O, tested natively; `src/web/load.rs` keys it by
//! the URLs given, the Hub endpoint and the token, and drives the readings it starts.
//!
//! - [`Readings::join`] answers with a [`Ticket`] (a future of the value) and, when no reading
//!   of the key is in flight or kept, the [`Driver`] of a new one, which the caller runs (on
//!   the page: `spawn_local`). Joining a reading in flight shares its requests.
//! - Every ticket is a waiter. A waiter leaves when its ticket is dropped or its [`Leave`]
//!   handle is called (an element removed, an `AbortSignal` fired); its ticket then answers
//!   [`Joined::Left`] at once. When the last waiter of a reading in flight leaves, the
//!   reading is cancelled (its `cancel` is called) and forgotten: the next join starts anew.
//! - A value the `keep` rule accepts is kept for later joins, at most [`Readings::new`]'s
//!   `keep` of them (the least recently joined goes first); a failure is never kept, so
//!   asking again reads again.
//!
//! Nothing here panics or recurses; borrows end before any callback (`cancel`, a waker) runs.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::{Rc, Weak};
use std::task::{Context, Poll, Waker};

/// What a ticket answers besides a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Joined<E> {
    /// The reading failed (as its future said).
    Failed(E),
    /// This waiter left before the reading finished.
    Left,
}

/// A new reading, as the caller's `start` makes it: its context (shared with every waiter:
/// counters, progress listeners), the future that reads, and how to cancel it.
pub struct Start<V, E, C> {
    /// Shared with every ticket of the reading ([`Ticket::context`]).
    pub context: C,
    /// The reading itself.
    pub reading: Pin<Box<dyn Future<Output = Result<V, E>>>>,
    /// Stops the reading's I/O (called once, when its last waiter leaves).
    pub cancel: Box<dyn FnOnce()>,
}

/// The future that runs a reading and hands its result to every waiter; the caller polls it
/// to completion (it never needs anything else to make progress).
pub type Driver = Pin<Box<dyn Future<Output = ()>>>;

/// One waiter's place: its answer once there is one, and who to wake.
struct Slot<V, E> {
    answer: Option<Result<V, Joined<E>>>,
    waker: Option<Waker>,
}

type SlotRef<V, E> = Rc<RefCell<Slot<V, E>>>;

enum State<V, E> {
    Reading {
        waiters: Vec<SlotRef<V, E>>,
        cancel: Option<Box<dyn FnOnce()>>,
    },
    Read(V),
}

struct Entry<K, V, E, C> {
    id: u64,
    key: K,
    context: C,
    /// The clock at the last join (least recently joined values go first).
    used: u64,
    state: State<V, E>,
}

struct Inner<K, V, E, C> {
    entries: Vec<Entry<K, V, E, C>>,
    next_id: u64,
    clock: u64,
    keep: usize,
    kept: Box<dyn Fn(&V) -> bool>,
}

/// The readings of one page, by key.
pub struct Readings<K, V, E, C> {
    inner: Rc<RefCell<Inner<K, V, E, C>>>,
}

/// A join: the ticket, and the driver of a reading this join started (`None` when it shares
/// one in flight or a kept value).
pub struct Join<V, E, C> {
    /// The waiter's future of the value.
    pub ticket: Ticket<V, E, C>,
    /// Run this to completion when present.
    pub driver: Option<Driver>,
}

impl<K, V, E, C> Readings<K, V, E, C>
where
    K: PartialEq + 'static,
    V: Clone + 'static,
    E: Clone + 'static,
    C: Clone + 'static,
{
    /// No readings yet; at most `keep` values are kept, those `kept` accepts (a model read
    /// whole, not one cut short by an error).
    pub fn new(keep: usize, kept: Box<dyn Fn(&V) -> bool>) -> Self {
        Readings {
            inner: Rc::new(RefCell::new(Inner {
                entries: Vec::new(),
                next_id: 0,
                clock: 0,
                keep,
                kept,
            })),
        }
    }

    /// Joins the reading of `key`: its kept value, the reading in flight, or a new one made
    /// by `start` (called only then).
    pub fn join(&self, key: K, start: impl FnOnce() -> Start<V, E, C>) -> Join<V, E, C> {
        if let Some(ticket) = self.join_existing(|k| *k == key) {
            return Join {
                ticket,
                driver: None,
            };
        }
        let slot = Rc::new(RefCell::new(Slot {
            answer: None,
            waker: None,
        }));
        let mut inner = self.inner.borrow_mut();
        inner.clock = inner.clock.wrapping_add(1);
        let now = inner.clock;
        let id = inner.next_id;
        inner.next_id = inner.next_id.wrapping_add(1);
        drop(inner);
        // `start` runs with no borrow held (it may look at anything).
        let Start {
            context,
            reading,
            cancel,
        } = start();
        self.inner.borrow_mut().entries.push(Entry {
            id,
            key,
            context: context.clone(),
            used: now,
            state: State::Reading {
                waiters: vec![slot.clone()],
                cancel: Some(cancel),
            },
        });
        let weak = Rc::downgrade(&self.inner);
        let driver: Driver = Box::pin(async move {
            let result = reading.await;
            if let Some(inner) = weak.upgrade() {
                finish(&inner, id, result);
            }
        });
        Join {
            ticket: Ticket {
                slot,
                id,
                context,
                inner: self.leaving(),
                started: true,
            },
            driver: Some(driver),
        }
    }

    /// The readings, as a waiter sees them (to leave).
    fn leaving(&self) -> Weak<dyn Leaving<V, E>> {
        let inner: Rc<dyn Leaving<V, E>> = self.inner.clone();
        Rc::downgrade(&inner)
    }

    /// Joins the reading in flight or the kept value of the first key `wanted` accepts, if
    /// there is one; starts nothing (another module asking for what this one read).
    pub fn join_existing(&self, wanted: impl Fn(&K) -> bool) -> Option<Ticket<V, E, C>> {
        let slot = Rc::new(RefCell::new(Slot {
            answer: None,
            waker: None,
        }));
        let mut inner = self.inner.borrow_mut();
        inner.clock = inner.clock.wrapping_add(1);
        let now = inner.clock;
        let e = inner.entries.iter_mut().find(|e| wanted(&e.key))?;
        e.used = now;
        match &mut e.state {
            State::Read(v) => slot.borrow_mut().answer = Some(Ok(v.clone())),
            State::Reading { waiters, .. } => waiters.push(slot.clone()),
        }
        let (id, context) = (e.id, e.context.clone());
        drop(inner);
        Some(Ticket {
            slot,
            id,
            context,
            inner: self.leaving(),
            started: false,
        })
    }

    /// How many keys have a reading in flight or a kept value (for tests).
    pub fn len(&self) -> usize {
        self.inner.borrow().entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The reading `id` ended with `result`: every waiter gets it; a value `kept` accepts stays
/// (the least recently joined beyond `keep` go), anything else is forgotten.
fn finish<K, V: Clone, E: Clone, C>(
    inner: &RefCell<Inner<K, V, E, C>>,
    id: u64,
    result: Result<V, E>,
) {
    let mut wake = Vec::new();
    {
        let mut g = inner.borrow_mut();
        let Some(at) = g.entries.iter().position(|e| e.id == id) else {
            // Everyone left: the reading was cancelled and forgotten.
            return;
        };
        let keep_it = matches!(&result, Ok(v) if (g.kept)(v));
        let entry = &mut g.entries[at];
        let waiters = match &mut entry.state {
            State::Reading { waiters, .. } => std::mem::take(waiters),
            State::Read(_) => Vec::new(),
        };
        for w in waiters {
            let mut s = w.borrow_mut();
            s.answer = Some(result.clone().map_err(Joined::Failed));
            if let Some(k) = s.waker.take() {
                wake.push(k);
            }
        }
        if let (true, Ok(v)) = (keep_it, result) {
            entry.state = State::Read(v);
            evict(&mut g);
        } else {
            g.entries.remove(at);
        }
    }
    for k in wake {
        k.wake();
    }
}

/// Drops the least recently joined kept values beyond `keep`.
fn evict<K, V, E, C>(g: &mut Inner<K, V, E, C>) {
    loop {
        let kept = g
            .entries
            .iter()
            .filter(|e| matches!(e.state, State::Read(_)))
            .count();
        if kept <= g.keep {
            return;
        }
        let oldest = g
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.state, State::Read(_)))
            .min_by_key(|(_, e)| e.used)
            .map(|(i, _)| i);
        match oldest {
            Some(i) => {
                g.entries.remove(i);
            }
            None => return,
        }
    }
}

/// One waiter of a reading: a future of its value (or [`Joined`]). Dropping it leaves.
pub struct Ticket<V, E, C> {
    slot: SlotRef<V, E>,
    id: u64,
    context: C,
    inner: Weak<dyn Leaving<V, E>>,
    started: bool,
}

impl<V, E, C> Ticket<V, E, C> {
    /// The reading's context (the same for every waiter).
    pub fn context(&self) -> &C {
        &self.context
    }

    /// Whether this join started the reading (the others share it or a kept value).
    pub fn started(&self) -> bool {
        self.started
    }

    /// A handle that makes this waiter leave (an abort, a removed element) while the ticket
    /// is being awaited elsewhere.
    pub fn leaver(&self) -> Leave<V, E> {
        Leave {
            slot: self.slot.clone(),
            id: self.id,
            inner: self.inner.clone(),
        }
    }
}

impl<V, E, C> Future for Ticket<V, E, C> {
    type Output = Result<V, Joined<E>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut s = self.slot.borrow_mut();
        match s.answer.take() {
            Some(a) => Poll::Ready(a),
            None => {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl<V, E, C> Drop for Ticket<V, E, C> {
    fn drop(&mut self) {
        leave(&self.inner, &self.slot, self.id);
    }
}

/// Makes one waiter leave ([`Ticket::leaver`]); calling it again, or after the answer came,
/// does nothing.
pub struct Leave<V, E> {
    slot: SlotRef<V, E>,
    id: u64,
    inner: Weak<dyn Leaving<V, E>>,
}

impl<V, E> Leave<V, E> {
    /// This waiter leaves: its ticket answers [`Joined::Left`] unless it has its answer.
    pub fn leave(&self) {
        leave(&self.inner, &self.slot, self.id);
    }
}

/// The part of [`Inner`] a waiter needs to leave, without its key and context types.
trait Leaving<V, E> {
    /// Removes `slot` from reading `id`'s waiters; the cancel to call when it was the last.
    fn remove(&self, id: u64, slot: &SlotRef<V, E>) -> Option<Box<dyn FnOnce()>>;
}

impl<K, V, E, C> Leaving<V, E> for RefCell<Inner<K, V, E, C>> {
    fn remove(&self, id: u64, slot: &SlotRef<V, E>) -> Option<Box<dyn FnOnce()>> {
        let mut g = self.borrow_mut();
        let at = g.entries.iter().position(|e| e.id == id)?;
        let State::Reading { waiters, cancel } = &mut g.entries[at].state else {
            return None;
        };
        waiters.retain(|w| !Rc::ptr_eq(w, slot));
        if !waiters.is_empty() {
            return None;
        }
        let cancel = cancel.take();
        g.entries.remove(at);
        cancel
    }
}

fn leave<V, E>(inner: &Weak<dyn Leaving<V, E>>, slot: &SlotRef<V, E>, id: u64) {
    let waker = {
        let mut s = slot.borrow_mut();
        if s.answer.is_none() {
            s.answer = Some(Err(Joined::Left));
        }
        s.waker.take()
    };
    let cancel = inner.upgrade().and_then(|i| i.remove(id, slot));
    if let Some(c) = cancel {
        c();
    }
    if let Some(w) = waker {
        w.wake();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A reading that ends when the test says (`gate`), counting cancels.
    struct Gate {
        value: RefCell<Option<Result<u32, &'static str>>>,
        waker: RefCell<Option<Waker>>,
    }

    struct Wait(Rc<Gate>);

    impl Future for Wait {
        type Output = Result<u32, &'static str>;
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            match self.0.value.borrow_mut().take() {
                Some(v) => Poll::Ready(v),
                None => {
                    *self.0.waker.borrow_mut() = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        }
    }

    fn gate() -> Rc<Gate> {
        Rc::new(Gate {
            value: RefCell::new(None),
            waker: RefCell::new(None),
        })
    }

    type R = Readings<&'static str, u32, &'static str, &'static str>;

    fn readings(keep: usize) -> R {
        Readings::new(keep, Box::new(|v: &u32| *v != 13))
    }

    fn poll<F: Future + Unpin>(f: &mut F) -> Poll<F::Output> {
        let mut cx = Context::from_waker(Waker::noop());
        Pin::new(f).poll(&mut cx)
    }

    /// Starts readings through `g`, counting starts and cancels.
    fn starter(
        g: &Rc<Gate>,
        starts: &Rc<Cell<u32>>,
        cancels: &Rc<Cell<u32>>,
    ) -> impl FnOnce() -> Start<u32, &'static str, &'static str> {
        let (g, starts, cancels) = (g.clone(), starts.clone(), cancels.clone());
        move || {
            starts.set(starts.get() + 1);
            Start {
                context: "ctx",
                reading: Box::pin(Wait(g)),
                cancel: Box::new(move || cancels.set(cancels.get() + 1)),
            }
        }
    }

    #[test]
    fn joiners_share_one_reading_and_later_ones_its_kept_value() {
        let r = readings(4);
        let (g, starts, cancels) = (gate(), Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
        let mut a = r.join("u", starter(&g, &starts, &cancels));
        let mut b = r.join("u", starter(&g, &starts, &cancels));
        assert!(a.ticket.started() && !b.ticket.started());
        assert!(b.driver.is_none());
        assert_eq!(*b.ticket.context(), "ctx");
        let mut driver = a.driver.take().unwrap();
        assert!(poll(&mut driver).is_pending());
        assert!(poll(&mut a.ticket).is_pending());
        *g.value.borrow_mut() = Some(Ok(7));
        assert!(poll(&mut driver).is_ready());
        assert_eq!(poll(&mut a.ticket), Poll::Ready(Ok(7)));
        assert_eq!(poll(&mut b.ticket), Poll::Ready(Ok(7)));
        // Later: the kept value, with no new reading.
        let mut c = r.join("u", starter(&g, &starts, &cancels));
        assert!(c.driver.is_none());
        assert_eq!(poll(&mut c.ticket), Poll::Ready(Ok(7)));
        assert_eq!((starts.get(), cancels.get(), r.len()), (1, 0, 1));
    }

    #[test]
    fn the_last_waiter_leaving_cancels_and_forgets_the_reading() {
        let r = readings(4);
        let (g, starts, cancels) = (gate(), Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
        let mut a = r.join("u", starter(&g, &starts, &cancels));
        let b = r.join("u", starter(&g, &starts, &cancels));
        let mut driver = a.driver.take().unwrap();
        assert!(poll(&mut driver).is_pending());
        // One leaves by its handle: its ticket answers Left; the reading goes on.
        a.ticket.leaver().leave();
        assert_eq!(poll(&mut a.ticket), Poll::Ready(Err(Joined::Left)));
        assert_eq!(cancels.get(), 0);
        // The other drops its ticket: the last one, so the reading is cancelled.
        drop(b.ticket);
        assert_eq!((cancels.get(), r.len()), (1, 0));
        // The cancelled reading ends later: nothing is kept, nobody is told.
        *g.value.borrow_mut() = Some(Ok(7));
        assert!(poll(&mut driver).is_ready());
        assert!(r.is_empty());
        // Leaving again does nothing.
        a.ticket.leaver().leave();
        drop(a.ticket);
        assert_eq!(cancels.get(), 1);
        // The next join reads anew.
        let g2 = gate();
        let c = r.join("u", starter(&g2, &starts, &cancels));
        assert!(c.ticket.started());
        assert_eq!(starts.get(), 2);
    }

    #[test]
    fn joining_an_existing_reading_starts_none() {
        let r = readings(4);
        let (g, starts, cancels) = (gate(), Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
        assert!(r.join_existing(|k| *k == "u").is_none());
        let mut a = r.join("u", starter(&g, &starts, &cancels));
        let mut b = r.join_existing(|k| k.starts_with('u')).unwrap();
        assert!(r.join_existing(|k| *k == "v").is_none());
        let mut driver = a.driver.take().unwrap();
        assert!(poll(&mut driver).is_pending());
        // The first waiter leaving does not cancel: the joined one still waits.
        drop(a.ticket);
        assert_eq!(cancels.get(), 0);
        *g.value.borrow_mut() = Some(Ok(5));
        assert!(poll(&mut driver).is_ready());
        assert_eq!(poll(&mut b), Poll::Ready(Ok(5)));
        let mut c = r.join_existing(|k| *k == "u").unwrap();
        assert_eq!(poll(&mut c), Poll::Ready(Ok(5)));
        assert_eq!(starts.get(), 1);
    }

    #[test]
    fn failures_and_values_not_kept_are_read_again() {
        let r = readings(4);
        let (starts, cancels) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
        for (outcome, want) in [(Err("404"), Err(Joined::Failed("404"))), (Ok(13), Ok(13))] {
            let g = gate();
            let mut a = r.join("u", starter(&g, &starts, &cancels));
            *g.value.borrow_mut() = Some(outcome);
            assert!(poll(&mut a.driver.take().unwrap()).is_ready());
            assert_eq!(poll(&mut a.ticket), Poll::Ready(want));
            assert!(r.is_empty());
        }
        assert_eq!((starts.get(), cancels.get()), (2, 0));
    }

    #[test]
    fn at_most_keep_values_stay_the_least_recently_joined_go_first() {
        let r = readings(2);
        let (starts, cancels) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
        let read = |key: &'static str, v: u32| {
            let g = gate();
            let mut j = r.join(key, starter(&g, &starts, &cancels));
            if let Some(mut d) = j.driver.take() {
                *g.value.borrow_mut() = Some(Ok(v));
                assert!(poll(&mut d).is_ready());
            }
            poll(&mut j.ticket)
        };
        assert_eq!(read("a", 1), Poll::Ready(Ok(1)));
        assert_eq!(read("b", 2), Poll::Ready(Ok(2)));
        assert_eq!(read("a", 99), Poll::Ready(Ok(1)), "kept: not read again");
        assert_eq!(read("c", 3), Poll::Ready(Ok(3)));
        // "b" was joined least recently: it went.
        assert_eq!(r.len(), 2);
        assert_eq!(read("b", 22), Poll::Ready(Ok(22)));
        assert_eq!(starts.get(), 4);
    }
}
