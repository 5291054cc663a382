//! Every text that names the formats read names all of them, as `weightpeek::format::registry`
//! lists them (issue #19): the page's title, description, tagline, drop zone and file pickers
//! (`index.html`, read before the module loads, so it is checked here rather than made from
//! the list), the document title the module sets, and the CLI's `--help`.

use std::path::Path;

use weightpeek::format::registry::{accept, labels, labels_text};

fn index_html() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("index.html")).unwrap()
}

/// The value of `attr` on the element whose `id` is `id` (the page's markup is simple:
/// attributes in double quotes).
fn attr_of(html: &str, id: &str, attr: &str) -> String {
    let at = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let tag_start = html[..at].rfind('<').unwrap();
    let tag_end = at + html[at..].find('>').unwrap();
    let tag = &html[tag_start..tag_end];
    let key = format!("{attr}=\"");
    let from = tag
        .find(&key)
        .unwrap_or_else(|| panic!("#{id} has no {attr}"))
        + key.len();
    tag[from..from + tag[from..].find('"').unwrap()].to_string()
}

/// The text between `open` and the next `close`.
fn between<'a>(html: &'a str, open: &str, close: &str) -> &'a str {
    let from = html.find(open).unwrap_or_else(|| panic!("no {open}")) + open.len();
    &html[from..from + html[from..].find(close).unwrap()]
}

#[test]
fn the_page_names_every_format_and_its_pickers_take_every_ending() {
    let html = index_html();
    assert_eq!(attr_of(&html, "file-input", "accept"), accept(true));
    assert_eq!(attr_of(&html, "compare-input", "accept"), accept(false));
    assert_eq!(
        between(&html, "<title>", "</title>"),
        weightpeek::view::facts::page_title(None)
    );
    let tagline = between(&html, "<span class=\"tagline\">", "</span>");
    assert!(tagline.contains(&labels_text("and")), "{tagline}");
    let description = between(&html, "<meta name=\"description\" content=\"", "\"");
    assert!(description.contains(&labels_text("or")), "{description}");
    let drop = between(&html, "<p class=\"drop-title\">", "</p>");
    for label in labels() {
        assert!(
            drop.contains(label),
            "the drop zone does not name {label}: {drop}"
        );
    }
}

#[test]
fn the_cli_help_names_every_format() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_weightpeek"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains(&labels_text("or")), "{help}");
}
