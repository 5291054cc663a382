//! The web page's wasm entry point. Trunk builds this binary (`data-bin="weightpeek-web"` in
//! index.html): the library and the CLI binary are both named `weightpeek`, so Trunk cannot
//! tell their wasm artifacts apart, and a binary's wasm only exports its own `main`.

#[cfg(target_arch = "wasm32")]
fn main() {
    weightpeek::web::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    eprintln!("weightpeek-web is the browser build of weightpeek: build it with `trunk build`; the command-line tool is `weightpeek`");
    std::process::ExitCode::from(2)
}
