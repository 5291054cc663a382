//! A page element as plain data: a tree of [`Node`]s (tag, class, attributes, text, children)
//! that the view-models build and test natively, and that the page's one renderer
//! (`web::dom::render`) turns into DOM elements. Text is always text: the renderer sets it with
//! `set_text_content`, so nothing that comes from a file can become HTML.

/// One element: its tag, class (`""` for none), attributes in the order they are set, its text
/// (set before the children are appended) and its children.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// The HTML tag name (`"section"`, `"li"`).
    pub tag: &'static str,
    /// The class attribute; empty for none.
    pub class: String,
    /// Every other attribute (`data-testid`, `title`, `aria-*`), in order.
    pub attrs: Vec<(&'static str, String)>,
    /// Inline style properties (`background`), set through the CSSOM, which a
    /// Content-Security-Policy without `'unsafe-inline'` styles allows. Computed values
    /// (colours, sizes), never file text.
    pub styles: Vec<(&'static str, String)>,
    /// The element's text content, if any.
    pub text: Option<String>,
    /// Child elements, in order (after the text).
    pub children: Vec<Node>,
    /// An SVG element (created in the SVG namespace; its class goes in as an attribute).
    pub svg: bool,
}

/// A new element with a class (`""` for none).
pub fn el(tag: &'static str, class: &str) -> Node {
    Node {
        tag,
        class: class.to_string(),
        ..Node::default()
    }
}

/// A new SVG element (`svg`, `g`, `rect`, `text`, `title`).
pub fn svg(tag: &'static str) -> Node {
    Node {
        tag,
        svg: true,
        ..Node::default()
    }
}

/// A new element holding `text` as its text.
pub fn text(tag: &'static str, class: &str, text: &str) -> Node {
    el(tag, class).text(text)
}

/// A search box for a card's head: `type=search`, the placeholder (also its tooltip) and an
/// accessible label, class `filter`.
pub fn search_input(placeholder: &str, label: &str) -> Node {
    el("input", "")
        .attr("type", "search")
        .attr("placeholder", placeholder)
        .attr("aria-label", label)
        .attr("class", "filter")
}

/// A heading + body card: `section.card.<class>` holding `header.card-head` (with the `h2`
/// title) and `div.card-body`. Add to them with [`Node::head`] and [`Node::body`].
pub fn card(title: &str, class: &str) -> Node {
    el("section", &format!("card {class}"))
        .child(el("header", "card-head").child(text("h2", "", title)))
        .child(el("div", "card-body"))
}

/// A table (`table.<class>` with a `thead` holding `head` and a `tbody` holding `rows`) in a
/// `div.<scroller>` that the keyboard can reach and scroll (`tabindex="0"`, named by `label`
/// for assistive technology: axe's scrollable-region-focusable).
pub fn scrolling_table(
    scroller: &str,
    label: &str,
    class: &str,
    head: Node,
    rows: impl IntoIterator<Item = Node>,
) -> Node {
    el("div", scroller)
        .attr("tabindex", "0")
        .attr("aria-label", label)
        .child(
            el("table", class)
                .child(el("thead", "").child(head))
                .child(el("tbody", "").children(rows)),
        )
}

impl Node {
    /// Sets an attribute (a plain string; never parsed as HTML).
    pub fn attr(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.attrs.push((name, value.into()));
        self
    }

    /// Sets an inline style property (see [`Node::styles`]).
    pub fn style(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.styles.push((name, value.into()));
        self
    }

    /// Sets `data-testid`, the browser tests' hook.
    pub fn testid(self, id: &str) -> Self {
        self.attr("data-testid", id)
    }

    /// Sets the text content.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    /// Appends a child.
    pub fn child(mut self, child: Node) -> Self {
        self.children.push(child);
        self
    }

    /// Appends children.
    pub fn children(mut self, children: impl IntoIterator<Item = Node>) -> Self {
        self.children.extend(children);
        self
    }

    /// Appends a child in place.
    pub fn push(&mut self, child: Node) {
        self.children.push(child);
    }

    /// The header of a card made by [`card`] (for controls next to the title).
    pub fn head(&mut self) -> &mut Node {
        &mut self.children[0]
    }

    /// The body of a card made by [`card`].
    pub fn body(&mut self) -> &mut Node {
        &mut self.children[1]
    }

    /// The value of attribute `name`, if set.
    pub fn get_attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the class attribute lists `class`.
    pub fn has_class(&self, class: &str) -> bool {
        self.class.split_whitespace().any(|c| c == class)
    }

    /// This node and every descendant, depth first in document order.
    pub fn descendants(&self) -> Vec<&Node> {
        let mut out = vec![self];
        for c in &self.children {
            out.extend(c.descendants());
        }
        out
    }

    /// The first node (this or a descendant) with `data-testid` = `id`.
    pub fn find_testid(&self, id: &str) -> Option<&Node> {
        self.descendants()
            .into_iter()
            .find(|n| n.get_attr("data-testid") == Some(id))
    }

    /// Every node (this or a descendant) whose class lists `class`, in document order.
    pub fn find_class(&self, class: &str) -> Vec<&Node> {
        self.descendants()
            .into_iter()
            .filter(|n| n.has_class(class))
            .collect()
    }

    /// The text content as the DOM reports it: this node's text then its children's, joined.
    pub fn text_content(&self) -> String {
        let mut s = self.text.clone().unwrap_or_default();
        for c in &self.children {
            s.push_str(&c.text_content());
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_have_a_head_and_a_body() {
        let mut c = card("Title", "x").testid("x-card");
        c.head().push(text("span", "badge", "b"));
        c.body().push(text("p", "muted", "<b>not html</b>"));
        assert_eq!(c.class, "card x");
        assert_eq!(c.children[0].tag, "header");
        assert_eq!(c.children[0].children[0].text.as_deref(), Some("Title"));
        assert_eq!(c.find_class("badge").len(), 1);
        assert_eq!(c.find_testid("x-card").unwrap().tag, "section");
        assert_eq!(c.text_content(), "Titleb<b>not html</b>");
        assert!(c.has_class("card") && !c.has_class("car"));
    }
}
