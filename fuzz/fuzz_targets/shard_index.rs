#![no_main]
//! The remote entry points that read server or user text (shard index, listings, URLs, ranges).
use libfuzzer_sys::fuzz_target;

#[path = "../bodies.rs"]
mod bodies;

fuzz_target!(|data: &[u8]| {
    bodies::shard_index(data);
});
