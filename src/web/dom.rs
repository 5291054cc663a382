//! Tiny element-building helpers. Text only ever goes in through text nodes /
//! `set_text_content`; nothing here parses HTML.

use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement};

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

/// A new element holding `text` as its text.
pub fn el_text(tag: &str, class: &str, text: &str) -> Element {
    let e = el_class(tag, class);
    e.set_text_content(Some(text));
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
    clear(e);
    set_hidden(e, failure.is_none());
    for n in failure.iter().flat_map(|f| f.nodes()) {
        append(e, &render(&n));
    }
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

/// A heading + body card: returns (card, body).
pub fn card(title: &str, class: &str) -> (Element, Element) {
    let card = el_class("section", &format!("card {class}"));
    let head = el_class("header", "card-head");
    append(&head, &el_text("h2", "", title));
    append(&card, &head);
    let body = el_class("div", "card-body");
    append(&card, &body);
    (card, body)
}

/// The header element of a card made by [`card`] (for extra controls next to the title).
pub fn card_head(card: &Element) -> Element {
    card.first_element_child().expect("card has a head")
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

/// Rewrites the address bar's query with `edit` (no reload, no history entry).
pub(super) fn edit_page_url(edit: impl FnOnce(&web_sys::UrlSearchParams)) {
    let w = gloo::utils::window();
    let Ok(href) = w.location().href() else {
        return;
    };
    let Ok(u) = web_sys::Url::new(&href) else {
        return;
    };
    edit(&u.search_params());
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&u.href()));
    }
}
