#![no_main]
//! The remote entry points that read server or user text: the safetensors shard index
//! (`model.safetensors.index.json`), Hub tree listings, pasted URLs, and a server's
//! Content-Range header.
use libfuzzer_sys::fuzz_target;
use weightpeek::open::merge;
use weightpeek::remote::{hub, shards};
use weightpeek::source::http as fetch;

fuzz_target!(|data: &[u8]| {
    let _ = merge::parse_index(data);
    let text = String::from_utf8_lossy(data);
    if let Ok(files) = shards::parse_tree_listing(&text) {
        let _ = shards::group(&files);
    }
    let _ = hub::parse_input(&text, hub::DEFAULT_ENDPOINT);
    let _ = fetch::parse_content_range(&text);
    let _ = fetch::read_timeout_ms(Some(&text));
});
