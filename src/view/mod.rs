//! View-models shared by the page and the CLI. Free of web crates.
#![forbid(unsafe_code)]
