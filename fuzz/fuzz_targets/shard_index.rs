#![no_main]
//! Hub tree listings and pasted URLs (the remote entry points that read server/user text).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(files) = weightpeek::remote::shards::parse_tree_listing(&text) {
        let _ = weightpeek::remote::shards::group(&files);
    }
    let _ = weightpeek::remote::hub::parse_input(&text, weightpeek::remote::hub::DEFAULT_ENDPOINT);
});
