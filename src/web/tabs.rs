//! The tab bar of the embedded view (WAI-ARIA tabs: `role="tablist"`, `tab`, `tabpanel`;
//! roving `tabindex`; Left/Right/Home/End move between tabs, as [`crate::view::tabs::moved`]
//! says). Each tab has one panel that the report places its cards in.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

use super::dom::{self, append, attr};
use crate::view::tabs::{self, moved, Tab};

/// Told the tab the person selected.
pub type OnSelect = Rc<dyn Fn(Tab)>;

/// The tab bar and its panels; listeners live as long as it.
pub struct TabsView {
    tabs: Vec<Tab>,
    buttons: Vec<Element>,
    panels: Vec<Element>,
    current: Cell<Tab>,
    on_select: RefCell<Option<OnSelect>>,
    /// Told every tab shown, by the person or by code ([`TabsView::on_show`]).
    on_show: RefCell<Vec<OnSelect>>,
    listeners: RefCell<Vec<EventListener>>,
}

impl TabsView {
    /// Builds the tab bar and one (hidden) panel per tab into `root`; shows `first`.
    pub fn new(root: &Element, tabs: Vec<Tab>, first: Tab) -> Rc<TabsView> {
        let bar = dom::render(&tabs::bar(&tabs));
        append(root, &bar);
        let buttons = dom::all(&bar, "[role=tab]");
        let panels: Vec<Element> = (tabs.iter().map(|t| dom::render(&tabs::panel(*t))))
            .inspect(|p| append(root, p))
            .collect();
        let view = Rc::new(TabsView {
            tabs,
            buttons,
            panels,
            current: Cell::new(first),
            on_select: RefCell::new(None),
            on_show: RefCell::new(Vec::new()),
            listeners: RefCell::new(Vec::new()),
        });
        let mut ls: Vec<EventListener> = (view.tabs.iter().zip(&view.buttons))
            .map(|(t, b)| {
                let t = *t;
                dom::on_click(b, &view, move |v| v.select(t, true))
            })
            .collect();
        let w = Rc::downgrade(&view);
        // Not passive: the keys it handles must not also scroll the page.
        ls.push(dom::on_keydown(&bar, move |_, k| {
            let Some(v) = w.upgrade() else { return false };
            let t = moved(&v.tabs, v.current.get(), &k.key());
            t.inspect(|t| {
                v.select(*t, true);
                v.focus(*t);
            })
            .is_some()
        }));
        *view.listeners.borrow_mut() = ls;
        view.show(first);
        view
    }

    /// The panel of `tab`, if the model has that tab.
    pub fn panel(&self, tab: Tab) -> Option<&Element> {
        self.panels.get(self.tabs.iter().position(|t| *t == tab)?)
    }

    /// Appends `card` to the panel of `tab` (nothing if the model has no such tab).
    pub fn place(&self, tab: Tab, card: &Element) {
        if let Some(panel) = self.panel(tab) {
            append(panel, card);
        }
    }

    /// An empty, hidden element where `tab`'s card will go (replaced by the card once built,
    /// so that cards built later keep their order).
    pub fn slot(&self, tab: Tab) -> Element {
        let slot = dom::el_class("div", "slot");
        dom::set_hidden(&slot, true);
        self.place(tab, &slot);
        slot
    }

    /// The tab shown now.
    pub fn current(&self) -> Tab {
        self.current.get()
    }

    /// Calls `f` after every selection by the person (click or key), e.g. to reflect it in the
    /// element's `tab` attribute.
    pub fn set_on_select(&self, f: OnSelect) {
        *self.on_select.borrow_mut() = Some(f);
    }

    /// Calls `f` after every tab shown, whoever chose it (a card that waits to be seen).
    pub fn on_show(&self, f: OnSelect) {
        self.on_show.borrow_mut().push(f);
    }

    /// Shows `tab` (nothing if the model has no such tab); `by_person` tells the listener.
    pub fn select(&self, tab: Tab, by_person: bool) {
        if !self.tabs.contains(&tab) {
            return;
        }
        self.show(tab);
        if by_person {
            let f = self.on_select.borrow().clone();
            if let Some(f) = f {
                f(tab);
            }
        }
    }

    fn show(&self, tab: Tab) {
        self.current.set(tab);
        for ((t, b), p) in self.tabs.iter().zip(&self.buttons).zip(&self.panels) {
            for (name, value) in tabs::button_state(*t == tab) {
                attr(b, name, value);
            }
            dom::set_hidden(p, *t != tab);
        }
        // Charts and virtualised lists measure their containers: a panel that was hidden has
        // none, so everything redraws at its real size now (the cards listen to `resize`).
        if let Ok(ev) = web_sys::Event::new("resize") {
            let _ = gloo::utils::window().dispatch_event(&ev);
        }
        let hooks: Vec<OnSelect> = self.on_show.borrow().clone();
        for f in hooks {
            f(tab);
        }
    }

    /// Moves keyboard focus into the panel of `tab` (when the element that had it, in another
    /// panel, was just hidden).
    pub fn focus_panel(&self, tab: Tab) {
        if let Some(p) = self.panel(tab) {
            dom::focus_quietly(p);
        }
    }

    fn focus(&self, tab: Tab) {
        let i = self.tabs.iter().position(|t| *t == tab);
        if let Some(b) = i.and_then(|i| self.buttons.get(i)?.dyn_ref::<HtmlElement>()) {
            let _ = b.focus();
        }
    }
}
