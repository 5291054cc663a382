//! Tiny element-building helpers. Text only ever goes in through text nodes /
//! `set_text_content`; nothing here parses HTML.

use gloo::events::{EventListener, EventListenerOptions};
use gloo::timers::callback::Timeout;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Document, Element, Event, HtmlElement, KeyboardEvent};

use crate::view::node::Node;

/// The SVG namespace, for `create_element_ns`.
pub const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// The page's document.
pub fn document() -> Document {
    gloo::utils::document()
}

/// The page's `<body>`.
pub fn body() -> HtmlElement {
    gloo::utils::body()
}

/// An element found by id in the static page (index.html); the page is broken without it.
pub fn by_id(id: &str) -> Element {
    document()
        .get_element_by_id(id)
        .unwrap_or_else(|| panic!("index.html has no #{id}"))
}

/// A new HTML element.
pub fn el(tag: &str) -> Element {
    document()
        .create_element(tag)
        .unwrap_or_else(|_| panic!("cannot create <{tag}>"))
}

/// A new HTML element with a class (`""` for none).
pub fn el_class(tag: &str, class: &str) -> Element {
    let e = el(tag);
    if !class.is_empty() {
        e.set_class_name(class);
    }
    e
}

/// The element for `node` and its subtree: the class, the attributes in order, the styles, the text
/// as text (`set_text_content`, never HTML), then the children.
pub fn render(node: &Node) -> Element {
    let e = if node.svg {
        let e = svg(node.tag);
        if !node.class.is_empty() {
            attr(&e, "class", &node.class);
        }
        e
    } else {
        el_class(node.tag, &node.class)
    };
    for (name, value) in &node.attrs {
        attr(&e, name, value);
    }
    if !node.styles.is_empty() {
        let props: Vec<(&str, &str)> = node.styles.iter().map(|(k, v)| (*k, v.as_str())).collect();
        style(&e, &props);
    }
    if let Some(t) = &node.text {
        e.set_text_content(Some(t));
    }
    for c in &node.children {
        append(&e, &render(c));
    }
    e
}

/// Appends the element of each of `nodes` to `e`.
pub fn append_nodes<'a>(e: &Element, nodes: impl IntoIterator<Item = &'a Node>) {
    for n in nodes {
        append(e, &render(n));
    }
}

/// Replaces the children of `e` by the elements of `nodes`.
pub fn fill<'a>(e: &Element, nodes: impl IntoIterator<Item = &'a Node>) {
    clear(e);
    append_nodes(e, nodes);
}

/// Draws `node` onto `e`, an element already on the page (a status line, a card's output):
/// sets the node's attributes on it, in order (the others stay), and replaces its children by
/// the elements of the node's children. The node's tag, class and text are not drawn: they
/// are `e`'s own.
pub fn patch(e: &Element, node: &Node) {
    for (name, value) in &node.attrs {
        attr(e, name, value);
    }
    fill(e, &node.children);
}

/// Sets each attribute given a value and removes each given `None` (a view-model's attributes
/// of a state: `data-*` that only some states carry).
pub fn set_attrs<N: AsRef<str>>(e: &Element, attrs: impl IntoIterator<Item = (N, Option<String>)>) {
    for (name, value) in attrs {
        match value {
            Some(v) => attr(e, name.as_ref(), &v),
            None => {
                let _ = e.remove_attribute(name.as_ref());
            }
        }
    }
}

/// Every element under `root` matching `selector` (a literal of the page's own), in document
/// order.
pub fn all(root: &Element, selector: &str) -> Vec<Element> {
    let Ok(list) = root.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i)?.dyn_into().ok())
        .collect()
}

/// The element under `root` matching `selector`, as the element type `T` (an input, a
/// select); the card is broken without it.
pub fn find_as<T: JsCast>(root: &Element, selector: &str) -> T {
    find(root, selector).unchecked_into()
}

/// The text of an input, textarea or select (its `value` property).
pub fn value_of(e: &Element) -> String {
    let v = js_sys::Reflect::get(e, &"value".into());
    v.ok().and_then(|v| v.as_string()).unwrap_or_default()
}

/// Sets the text of an input or textarea, or the choice of a select (its `value` property;
/// text, never markup).
pub fn set_value(e: &Element, v: &str) {
    let _ = js_sys::Reflect::set(e, &"value".into(), &v.into());
}

/// The element an event happened on.
pub fn target(e: &Event) -> Option<Element> {
    e.target().and_then(|t| t.dyn_into().ok())
}

/// The value of the first of `names` set on the closest element to the event's target (itself
/// or an ancestor) matching `selector`: the row or bar a delegated listener acts for.
pub fn closest_attr(e: &Event, selector: &str, names: &[&str]) -> Option<String> {
    let el = target(e)?.closest(selector).ok().flatten()?;
    names.iter().find_map(|n| el.get_attribute(n))
}

/// A keydown listener on `target` that may prevent the key's default (not passive, as gloo's
/// default is): `f` says whether it handled the key, and a handled key's default is prevented.
pub fn on_keydown(
    target: &web_sys::EventTarget,
    mut f: impl FnMut(&Event, &KeyboardEvent) -> bool + 'static,
) -> EventListener {
    let opts = EventListenerOptions::enable_prevent_default();
    EventListener::new_with_options(target, "keydown", opts, move |e| {
        if let Some(k) = e.dyn_ref::<KeyboardEvent>() {
            if f(e, k) {
                e.prevent_default();
            }
        }
    })
}

/// The two delegated listeners of a list whose items act when picked: a click on (or in) an
/// element matching `selector`, or a key that `keys` accepts on one, calls `pick` with its
/// first attribute of `names` (see [`closest_attr`]); a key so handled has its default
/// prevented.
pub fn on_pick(
    root: &Element,
    selector: &'static str,
    names: &'static [&'static str],
    keys: impl Fn(&KeyboardEvent) -> bool + 'static,
    pick: impl Fn(&str) + 'static,
) -> [EventListener; 2] {
    let pick = std::rc::Rc::new(pick);
    let p = pick.clone();
    let click = EventListener::new(root, "click", move |e| {
        if let Some(v) = closest_attr(e, selector, names) {
            p(&v);
        }
    });
    let key = on_keydown(root, move |e, k| {
        let v = keys(k).then(|| closest_attr(e, selector, names)).flatten();
        v.map(|v| pick(&v)).is_some()
    });
    [click, key]
}

/// A listener for `event` on `target` that runs `f` once the events stop for `delay_ms`
/// (typing in a search box): each event replaces (and so cancels) the pending run, which is
/// dropped with the listener.
pub fn debounced(
    target: &web_sys::EventTarget,
    event: &'static str,
    delay_ms: u32,
    f: impl Fn() + 'static,
) -> EventListener {
    let f = std::rc::Rc::new(f);
    let mut pending: Option<Timeout> = None;
    EventListener::new(target, event, move |_| {
        let f = f.clone();
        let _ = pending.replace(Timeout::new(delay_ms, move || f()));
    })
}

/// A click listener on `target` that calls `f` with `owner` while it lives (the listener
/// holds it weakly: an owner's own listeners do not keep it alive).
pub fn on_click<T: 'static>(
    target: &web_sys::EventTarget,
    owner: &std::rc::Rc<T>,
    f: impl Fn(&std::rc::Rc<T>) + 'static,
) -> EventListener {
    let w = std::rc::Rc::downgrade(owner);
    EventListener::new(target, "click", move |_| {
        if let Some(o) = w.upgrade() {
            f(&o);
        }
    })
}

/// Calls the element's method `method` with an options object of `options`
/// (`focus({preventScroll: true})`, `scrollIntoView({block: "nearest"})`; looked up by name,
/// so no web-sys feature is needed).
pub fn call_with_options(e: &Element, method: &str, options: &[(&str, JsValue)]) {
    use js_sys::{Function, Object, Reflect};
    let opts = Object::new();
    for (k, v) in options {
        let _ = Reflect::set(&opts, &(*k).into(), v);
    }
    if let Some(f) = Reflect::get(e, &method.into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
    {
        let _ = f.call1(e, &opts);
    }
}

/// Focuses `e` without scrolling (its container is already scrolled where it should be).
pub fn focus_quietly(e: &Element) {
    call_with_options(e, "focus", &[("preventScroll", true.into())]);
}

/// Dispatches a `CustomEvent` named `name` with `detail` on `target` (`bubbles`: bubbling and
/// composed, out of a shadow root).
pub fn dispatch(target: &Element, name: &str, detail: &JsValue, bubbles: bool) {
    let init = web_sys::CustomEventInit::new();
    init.set_bubbles(bubbles);
    init.set_composed(bubbles);
    init.set_detail(detail);
    if let Ok(e) = web_sys::CustomEvent::new_with_event_init_dict(name, &init) {
        let _ = target.dispatch_event(&e);
    }
}

/// The browser window's inner height in CSS px (800 if unknown).
pub fn window_height() -> f64 {
    gloo::utils::window()
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .unwrap_or(800.0)
}

/// The first element under `root` (or `root` itself) with `data-testid` = `id`, to attach
/// listeners to a rendered [`Node`]. Test ids are literals of the view-models.
pub fn find_testid(root: &Element, id: &str) -> Option<Element> {
    if root.get_attribute("data-testid").as_deref() == Some(id) {
        return Some(root.clone());
    }
    root.query_selector(&format!("[data-testid=\"{id}\"]"))
        .ok()
        .flatten()
}

/// The first element under `root` matching `selector` (a literal of the page's own); the card
/// is broken without it.
pub fn find(root: &Element, selector: &str) -> Element {
    root.query_selector(selector)
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("no {selector} in the card"))
}

/// A new SVG element.
pub fn svg(tag: &str) -> Element {
    document()
        .create_element_ns(Some(SVG_NS), tag)
        .unwrap_or_else(|_| panic!("cannot create <svg:{tag}>"))
}

/// Sets an attribute (values are plain strings; attributes are never parsed as HTML).
pub fn attr(e: &Element, name: &str, value: &str) {
    // Only fails for invalid attribute names, which are all literals here.
    let _ = e.set_attribute(name, value);
}

/// Appends `child` to `parent`.
pub fn append(parent: &Element, child: &Element) {
    let _ = parent.append_child(child);
}

/// Removes every child.
pub fn clear(e: &Element) {
    e.set_text_content(None);
}

/// Shows or hides an element (the `hidden` attribute).
pub fn set_hidden(e: &Element, hidden: bool) {
    if let Some(h) = e.dyn_ref::<HtmlElement>() {
        h.set_hidden(hidden);
    }
}

/// Shows `failure` in the error box `e` ([`crate::view::errors::Failure::nodes`]), or hides
/// and empties it.
pub fn show_failure(e: &Element, failure: Option<crate::view::errors::Failure>) {
    set_hidden(e, failure.is_none());
    fill(e, &failure.map(|f| f.nodes().to_vec()).unwrap_or_default());
}

/// The page's clock, `performance.now()` (ms since the page started; 0 without one): for
/// timing stages and throttling redraws.
pub fn now() -> f64 {
    gloo::utils::window().performance().map_or(0.0, |p| p.now())
}

/// Sets `data-<name>` on `<body>` (`data-state`, `data-file`).
pub fn set_body_data(name: &str, value: &str) {
    let _ = body().dataset().set(name, value);
}

/// Whether `e` lives in a shadow root (an embedded `<weightpeek-view>`), where scrolling it into
/// view would scroll the host page.
pub fn in_shadow_root(e: &Element) -> bool {
    e.get_root_node().dyn_ref::<web_sys::ShadowRoot>().is_some()
}

/// Sets inline style properties through the CSSOM (`element.style.setProperty`), which a
/// Content-Security-Policy without `'unsafe-inline'` styles allows, unlike a `style`
/// attribute. Values are computed by the view-models (colours, sizes), never file text.
pub fn style(e: &Element, props: &[(&str, &str)]) {
    let Ok(decl) = js_sys::Reflect::get(e, &"style".into()) else {
        return;
    };
    let decl: web_sys::CssStyleDeclaration = decl.unchecked_into();
    for (name, value) in props {
        let _ = decl.set_property(name, value);
    }
}
