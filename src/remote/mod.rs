//! Remote model files: what a pasted URL or repo id points at, and how a repository's files
//! group into models (single files, split GGUF sets, safetensors shard sets).
#![forbid(unsafe_code)]

pub mod hub;
pub mod shards;
