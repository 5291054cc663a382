//! End-to-end checks of the view-models on real bytes (the bundled sample, a cut-short file),
//! and a guard that no source of the page inserts HTML.

use crate::source::parse_bytes;
use crate::summary::summarize;
use crate::view::{facts, histogram, layer_grid, metadata, tensors};

const SAMPLE: &[u8] = include_bytes!("../../www/sample.gguf");

#[test]
fn the_bundled_sample_feeds_every_card() {
    let m = crate::open::OpenedModel::from(parse_bytes(SAMPLE).unwrap());
    assert!(m.error.is_none());
    let s = summarize(&m);
    let f = facts::summary_facts(&s, &m);
    let hook = |id: &str| {
        f.iter()
            .find(|x| x.testid == Some(id))
            .and_then(|x| x.value.clone())
    };
    assert_eq!(hook("tensor-count"), Some(s.tensor_count.to_string()));
    assert_eq!(hook("parameter-count"), Some(s.parameter_count.to_string()));
    assert!(hook("bits-per-weight").unwrap().parse::<f64>().unwrap() > 1.0);

    let c = histogram::chart(&s.dtypes, histogram::Measure::Bytes, 600.0);
    assert_eq!(c.bars.len(), s.dtypes.len());
    let total: u64 = c.bars.iter().map(|b| b.tensors).sum();
    assert_eq!(total, s.tensor_count);

    assert!(!layer_grid::grid(&s.layers).is_empty());
    assert_eq!(metadata::metadata_rows(&m, "").len(), m.metadata.len());
    let t = tensors::TensorTable::new(s.tensors.clone());
    assert_eq!(t.len() as u64, s.tensor_count);
    assert!(facts::arch_lines(s.architecture.as_ref().unwrap()).1.len() > 3);
}

#[test]
fn a_cut_short_file_says_how_much_was_read() {
    let m = parse_bytes(SAMPLE).unwrap();
    // Cut inside the tensor infos: metadata complete, tensors partly read.
    let cut = (m.header_size as usize) - 200;
    let part = crate::open::OpenedModel::from(parse_bytes(&SAMPLE[..cut]).unwrap());
    assert!(part.error.is_some());
    let s = summarize(&part);
    let f = facts::summary_facts(&s, &part);
    let tensors = f.iter().find(|x| x.testid == Some("tensor-count")).unwrap();
    assert!(
        tensors
            .detail
            .as_deref()
            .unwrap()
            .ends_with("read before the error"),
        "{tensors:?}"
    );
    let f = crate::view::errors::partial_failure(
        part.error.as_ref().unwrap(),
        "sample.gguf",
        crate::view::errors::Front::Page,
    );
    assert_eq!(
        f.headline,
        "This file is cut short: its header could not be read to the end."
    );
    assert!(f.details.contains("at byte"));
}

#[test]
fn no_page_source_inserts_html() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let banned = [
        concat!("inner", "_html"),
        concat!("inner", "HTML"),
        concat!("outer", "HTML"),
        concat!("outer", "_html"),
        concat!("insert", "AdjacentHTML"),
        concat!("insert_adjacent", "_html"),
        concat!("document", ".write"),
    ];
    let mut files = Vec::new();
    for dir in ["src", "www"] {
        collect(&root.join(dir), &mut files);
    }
    files.push(root.join("index.html"));
    assert!(files.len() > 10);
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for b in banned {
            assert!(!text.contains(b), "{} uses {b}", f.display());
        }
        // Listeners are gloo guards dropped with their view, never leaked closures.
        if f.starts_with(root.join("src/web")) {
            for b in [concat!("Closure", "::forget"), concat!(".forget", "()")] {
                assert!(!text.contains(b), "{} uses {b}", f.display());
            }
        }
    }
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p
            .extension()
            .is_some_and(|x| x == "rs" || x == "css" || x == "html" || x == "js")
        {
            out.push(p);
        }
    }
}
