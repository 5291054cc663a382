//! Opening a model: recognising what the given files are (one model file, the parts of a split
//! GGUF, safetensors shards with or without their index, a `config.json`), planning the reads,
//! reading every header through the one [`crate::source::ByteSource`] driver, merging sets into
//! one [`OpenedModel`], and saying what is missing or does not belong. Plain Rust, tested
//! natively, but for the openers that name each front end's byte sources: the CLI's
//! (`native.rs`: file, HTTP with `ureq`) and the browser's (`browser.rs`, wasm32: Blob, HTTP
//! with `fetch`).
#![forbid(unsafe_code)]

#[cfg(target_arch = "wasm32")]
pub mod browser;
pub mod findings;
pub mod keyed;
pub mod merge;
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
pub mod pool;
pub mod read;
pub mod recognise;
pub mod set;
pub mod shared;
pub mod urls;

pub use set::{
    OpenedModel, Part, SetInfo, ShardIndex, Sidecar, SplitKeys, Stray, MAX_CONFIG_BYTES,
};
