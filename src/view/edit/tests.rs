//! The header editor's review, form and nodes, with real models.

use super::*;

#[test]
fn save_failures_say_why() {
    assert_eq!(
        plan_failed_text(&crate::edit::EditError::NotGguf),
        "Cannot make this edit: only GGUF headers can be edited"
    );
    assert_eq!(
        data_unreadable_text("NotReadableError"),
        "Cannot read the data section: NotReadableError"
    );
    assert_eq!(NO_FILE_MADE, "The browser could not make the file.");
}

#[test]
fn a_form_that_makes_no_header_says_why() {
    let m = crate::source::parse_bytes(&crate::view::testutil::gguf(&[], &[])).unwrap();
    let mut f = EditForm::new(&m);
    f.added
        .push(("bad.k".into(), Some(ValueType::U32), "not a number".into()));
    let why = plan_failed_text(&f.plan(&m).unwrap_err());
    assert!(why.starts_with("Cannot make this edit: "), "{why}");
    let mut not_gguf = m.clone();
    not_gguf.bytes[0] = b'X';
    assert_eq!(
        plan_failed_text(&EditForm::new(&m).plan(&not_gguf).unwrap_err()),
        "Cannot make this edit: only GGUF headers can be edited"
    );
}

#[test]
fn line_numbers_count_newlines() {
    assert_eq!(line_numbers("a"), "1");
    assert_eq!(line_numbers("a\nb\n"), "1\n2\n3");
}

#[test]
fn the_form_gives_edits_only_for_what_changed() {
    use crate::view::testutil::{gguf, Kv};
    let bytes = gguf(
        &[
            ("general.architecture", Kv::Str("llama")),
            ("llama.block_count", Kv::U32(2)),
            ("tokenizer.ggml.token_type", Kv::I32Array(vec![3, 1])),
        ],
        &[("a", 0, vec![4], 16)],
    );
    let m = crate::source::parse_bytes(&bytes).unwrap();
    let mut f = EditForm::new(&m);
    assert!(f.edits().is_empty(), "an untouched form edits nothing");
    let t = f.keys.iter().position(|k| k.key == TEMPLATE_KEY).unwrap();
    f.keys[t].value = "{{ x }}".into();
    f.keys[0].delete = true;
    f.added.push(("new.k".into(), None, "3".into()));
    let e = f.edits();
    assert_eq!(e.len(), 3, "{e:?}");
    assert!(matches!(&e[0], Edit::Delete { key } if *key == f.keys[0].key));
    assert!(
        matches!(&e[1], Edit::Set { key, value: NewValue::Verbatim(v), .. } if key == TEMPLATE_KEY && v == "{{ x }}")
    );
    assert!(
        matches!(&e[2], Edit::Set { key, ty: None, value: NewValue::Text(v) } if key == "new.k" && v == "3")
    );
    f.keys[1].value = "4".into();
    f.elements
        .push(("tokenizer.ggml.token_type".into(), 1, "3".into()));
    let p = f.plan(&m).unwrap();
    assert_eq!(
        p,
        crate::edit::plan(&m.bytes, m.file_size, &f.edits()).unwrap()
    );
    let sizes = saved_attrs(&p);
    assert_eq!(sizes[0], ("data-header-bytes", p.header.len().to_string()));
    assert_eq!(sizes[1], ("data-data-offset", p.data_offset.to_string()));
    assert_eq!(sizes[2], ("data-file-size", p.file_size().to_string()));
    let r = review("m.gguf", &m, "m.edited.gguf", &p);
    let kinds: Vec<&str> = r.changes.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, ["removed", "changed", "added", "changed", "added"]);
    assert_eq!(r.changes[3].name, "tokenizer.ggml.token_type[1]");
    assert_eq!(r.compare.counts.keys_removed, 1);
    assert_eq!(r.compare.counts.keys_added, 2);
    assert_eq!(r.compare.counts.keys_changed, 2);
    assert_eq!(edited_file_name("dir/m.gguf"), "m.edited.gguf");
}

#[test]
fn the_editor_tree_matches_the_input_order_of_the_sample() {
    let m = crate::source::parse_bytes(include_bytes!("../../../www/sample.gguf")).unwrap();
    let form = EditForm::new(&m);
    let nodes = editor(&form);
    let root = el("div", "").children(nodes);
    let (values, deletes) = form.input_order();
    // Value elements: the template textarea, every textarea and line input of the table.
    let value_nodes: Vec<&Node> = root
        .descendants()
        .into_iter()
        .filter(|n| {
            (n.tag == "textarea" && n.has_class("edit-text"))
                || (n.tag == "input"
                    && n.get_attr("class") == Some("edit-input mono")
                    && n.get_attr("data-key").is_some())
        })
        .collect();
    assert_eq!(value_nodes.len(), values.len());
    assert_eq!(
        value_nodes[0].get_attr("data-testid"),
        Some("edit-template")
    );
    for (n, &i) in value_nodes.iter().zip(&values).skip(1) {
        assert_eq!(n.get_attr("data-key"), Some(form.keys[i].key.as_str()));
    }
    let boxes: Vec<&Node> = root
        .descendants()
        .into_iter()
        .filter(|n| n.get_attr("data-remove").is_some())
        .collect();
    assert_eq!(boxes.len(), deletes.len());
    for (n, &i) in boxes.iter().zip(&deletes) {
        assert_eq!(n.get_attr("data-remove"), Some(form.keys[i].key.as_str()));
    }
    // One table row per key but the template offered to a file without one.
    let rows = root
        .find_testid("edit-keys")
        .unwrap()
        .find_class("col-type")
        .len();
    assert_eq!(rows, deletes.len());
    let arrays = form
        .keys
        .iter()
        .filter(|k| matches!(k.editor, Editor::Elements { .. }))
        .count();
    assert_eq!(root.find_class("edit-element").len(), arrays);
    for id in [
        "edit-add-key",
        "edit-add-type",
        "edit-add-value",
        "edit-add",
        "edit-pending",
        "edit-status",
        "edit-review-out",
    ] {
        assert!(root.find_testid(id).is_some(), "{id}");
    }
    assert_eq!(
        root.find_testid("edit-add-type").unwrap().children.len(),
        ADD_TYPES.len()
    );
    assert_eq!(
        root.find_testid("edit-status").unwrap().class,
        "edit-status muted"
    );
}

#[test]
fn card_pending_and_review_nodes() {
    use crate::view::testutil::{gguf, Kv};
    let c = card();
    let actions = &c.children[0].children[1];
    assert_eq!(actions.get_attr("hidden"), Some(""));
    assert_eq!(
        c.find_testid("edit-save").unwrap().text.as_deref(),
        Some("Save edited file")
    );
    assert!(c
        .find_testid("edit-open")
        .unwrap()
        .get_attr("title")
        .is_none());
    let bytes = gguf(
        &[
            ("general.architecture", Kv::Str("llama")),
            ("tokenizer.ggml.token_type", Kv::I32Array(vec![3, 1])),
        ],
        &[("a", 0, vec![4], 16)],
    );
    let m = crate::source::parse_bytes(&bytes).unwrap();
    assert_eq!(element_at(&m, "tokenizer.ggml.token_type", "1"), "1");
    assert_eq!(element_at(&m, "tokenizer.ggml.token_type", "2"), "");
    assert_eq!(element_at(&m, "tokenizer.ggml.token_type", "x"), "");
    let mut f = EditForm::new(&m);
    // The template is offered with a note, and has no remove box.
    let nodes = editor(&f);
    assert!(nodes.iter().any(|n| n.has_class("edit-note")));
    assert_eq!(f.input_order().1, vec![0, 1]);
    assert_eq!(
        f.set_element("tokenizer.ggml.token_type", "x", "1"),
        Err("Type the element's index (0, 1, …) first.")
    );
    f.set_element("tokenizer.ggml.token_type", "1", "<3>")
        .unwrap();
    assert_eq!(
        f.add_key("", "UINT32", "1"),
        Err("Type the new key's name first.")
    );
    f.add_key("a\nb", "UINT32", "7").unwrap();
    f.add_key("c", "from the value", "x").unwrap();
    let items: Vec<String> = pending_items(&f).iter().map(Node::text_content).collect();
    assert_eq!(
        items,
        [
            "tokenizer.ggml.token_type[1] = <3>",
            "+ a\\nb:UINT32 = 7",
            "+ c = x"
        ]
    );
    f.elements[0].2 = "3".into();
    f.keys[0].delete = true;
    let p = crate::edit::plan(&m.bytes, m.file_size, &f.edits()).unwrap();
    let r = review("m.gguf", &m, "m.edited.gguf", &p);
    let out = review_out(&r);
    assert_eq!(out.get_attr("data-changes"), Some("4"));
    assert_eq!(out.get_attr("data-keys-removed"), Some("1"));
    assert_eq!(out.get_attr("data-keys-added"), Some("2"));
    assert_eq!(out.get_attr("data-tensors-changed"), Some("0"));
    let rows = out
        .find_testid("edit-changes")
        .unwrap()
        .find_class("col-name");
    let names: Vec<String> = rows.iter().map(|n| n.text_content()).collect();
    assert_eq!(
        names,
        [
            "general.architecture",
            "tokenizer.ggml.token_type[1]",
            "a\\nb",
            "c"
        ]
    );
    assert!(out.find_testid("edit-diff").is_some());
    let checks = out.find_testid("edit-checks").unwrap();
    assert!(checks.has_class("checks"));
    assert_eq!(
        checks
            .attrs
            .iter()
            .filter(|(k, _)| *k == "data-testid")
            .count(),
        1
    );
    assert_eq!(review_status(&r), format!("4 change(s); {}", r.sizes));
    assert!(saved_text("m.edited.gguf", &p).starts_with("Saved m.edited.gguf ("));
    assert_eq!(status_class(true), "edit-status warn");
}

#[test]
fn the_editor_is_filled_and_read_back_in_document_order() {
    let m = crate::source::parse_bytes(include_bytes!("../../../www/sample.gguf")).unwrap();
    let mut form = EditForm::new(&m);
    let (values, deletes) = form.input_order();
    let shown = form.input_values();
    assert_eq!(shown.len(), values.len());
    assert_eq!(shown[0], form.keys[values[0]].value);
    assert_eq!(
        shown.last().copied(),
        Some(form.keys[*values.last().unwrap()].value.as_str())
    );
    // Typed: a new first value; the second "remove" box ticked.
    let mut typed: Vec<String> = shown.iter().map(|v| v.to_string()).collect();
    typed[0] = "edited".into();
    let mut ticks = vec![false; deletes.len()];
    ticks[1] = true;
    form.keys[deletes[0]].delete = true;
    form.read_inputs(typed, ticks);
    assert_eq!(form.keys[values[0]].value, "edited");
    let removed: Vec<usize> = (0..form.keys.len())
        .filter(|&i| form.keys[i].delete)
        .collect();
    assert_eq!(removed, [deletes[1]]);
}
