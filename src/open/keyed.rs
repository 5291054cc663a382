//! What names one shared reading of remote files ([`Key`]) and who watches it
//! ([`Watchers`]), for [`super::shared::Readings`]: the web build's elements and API calls
//! share one reading per key, each told the reading's progress while it waits.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// What names one shared reading: the files given (name, resolved URL) and, with a token,
/// the token and the endpoint it goes to (another token may see another answer: a gated
/// repository). Without a token the endpoint changes no request (the URLs are resolved), so
/// two consumers on one URL share whatever endpoint each was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// The files given, as (name, URL).
    pub given: Vec<(String, String)>,
    /// (endpoint, token), when a token is given.
    pub token: Option<(String, String)>,
}

impl Key {
    /// The key of `given` read with `token` (if any) sent to `endpoint`.
    pub fn new(given: &[(String, String)], endpoint: &str, token: Option<&str>) -> Key {
        Key {
            given: given.to_vec(),
            token: token.map(|t| (endpoint.to_string(), t.to_string())),
        }
    }

    /// Whether this names the one file at `url` alone (whatever its token).
    pub fn is_only(&self, url: &str) -> bool {
        matches!(self.given.as_slice(), [(_, u)] if u == url)
    }
}

/// A consumer's progress display, told the shared reading's `T` (its counters).
pub type Watch<T> = Rc<dyn Fn(&T)>;

/// A display held weakly.
type WeakWatch<T> = Weak<dyn Fn(&T)>;

/// The progress displays of one shared reading and what they are told (`state`). Each is
/// held weakly: a consumer gone is skipped, and dropped at the next [`Watchers::watch`] or
/// [`Watchers::notify`].
pub struct Watchers<T> {
    /// What the displays are told (the reading's counters).
    pub state: T,
    listeners: RefCell<Vec<WeakWatch<T>>>,
}

impl<T> Watchers<T> {
    /// No display yet.
    pub fn new(state: T) -> Watchers<T> {
        Watchers {
            state,
            listeners: RefCell::new(Vec::new()),
        }
    }

    /// Adds `f`, told of every [`Watchers::notify`] while it lives.
    pub fn watch(&self, f: &Watch<T>) {
        let mut l = self.listeners.borrow_mut();
        l.retain(|w| w.strong_count() > 0);
        l.push(Rc::downgrade(f));
    }

    /// Tells every living display the state (no borrow is held meanwhile).
    pub fn notify(&self) {
        let live: Vec<Watch<T>> = {
            let mut l = self.listeners.borrow_mut();
            l.retain(|w| w.strong_count() > 0);
            l.iter().filter_map(Weak::upgrade).collect()
        };
        for f in live {
            f(&self.state);
        }
    }

    /// Displays alive now.
    pub fn len(&self) -> usize {
        let mut l = self.listeners.borrow_mut();
        l.retain(|w| w.strong_count() > 0);
        l.len()
    }

    /// Whether no display is alive.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn given(u: &str) -> Vec<(String, String)> {
        vec![("m.gguf".into(), u.into())]
    }

    #[test]
    fn the_token_and_its_endpoint_name_a_reading_the_endpoint_alone_does_not() {
        let a = Key::new(&given("https://h/m.gguf"), "https://hub.a", None);
        assert_eq!(
            a,
            Key::new(&given("https://h/m.gguf"), "https://hub.b", None)
        );
        let t = Key::new(&given("https://h/m.gguf"), "https://hub.a", Some("tok"));
        assert_ne!(a, t);
        assert_ne!(
            t,
            Key::new(&given("https://h/m.gguf"), "https://hub.b", Some("tok"))
        );
        assert!(t.is_only("https://h/m.gguf") && !t.is_only("https://h/x"));
        let two = Key::new(
            &[
                ("a".into(), "https://h/a".into()),
                ("b".into(), "https://h/b".into()),
            ],
            "",
            None,
        );
        assert!(!two.is_only("https://h/a"));
    }

    #[test]
    fn only_living_watchers_are_told() {
        let w = Watchers::new(7u32);
        let seen = Rc::new(Cell::new(0));
        let s = seen.clone();
        let a: Watch<u32> = Rc::new(move |v| s.set(s.get() + v));
        let s = seen.clone();
        let b: Watch<u32> = Rc::new(move |v| s.set(s.get() + 100 * v));
        w.watch(&a);
        w.watch(&b);
        w.notify();
        assert_eq!(seen.get(), 707);
        drop(b);
        w.notify();
        assert_eq!((seen.get(), w.len()), (714, 1));
        drop(a);
        assert!(w.is_empty());
    }
}
