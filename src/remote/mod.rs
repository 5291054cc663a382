//! Remote model files: what a pasted URL or repo id points at, how a repository's files
//! group into models (single files, split GGUF sets, safetensors shard sets), and how several
//! files' headers merge into one model.
#![forbid(unsafe_code)]

pub mod hub;
pub mod shards;
