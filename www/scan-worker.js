// The scan of every weight (issue #22) in a module Web Worker, so the page stays responsive
// while hundreds of megabytes are read and decoded. Started by the page's "Scan all weights"
// card (src/web/scan_card.rs) and by scan() of weightpeek.js; all logic is Rust
// (src/web/scan.rs). Cancelling is terminating this worker: its reads stop with it.
//
// In:  {source, options}  source: local Files/Blobs (an array) or URL strings, resolved;
//      options: {endpoint, token, name} (plain strings: a signal cannot cross to a worker).
// Out: {type: "progress", done, total}   bytes of tensor data read so far, and in all;
//      {type: "tensor", json, row}       one tensor's result and its table row (JSON text);
//      {type: "done", doc, lines}        the `weightpeek scan --json` document, finding lines;
//      {type: "error", message}          the model could not be opened (or the module loaded).
import init, { scan_run } from "./weightpeek-web.js";

self.onmessage = async (event) => {
  const { source, options } = event.data ?? {};
  try {
    await init({ module_or_path: new URL("./weightpeek-web_bg.wasm", import.meta.url) });
    const [doc, lines] = await scan_run(
      source,
      options ?? {},
      (done, total) => self.postMessage({ type: "progress", done, total }),
      (json, row) => self.postMessage({ type: "tensor", json, row }),
    );
    self.postMessage({ type: "done", doc, lines });
  } catch (e) {
    self.postMessage({ type: "error", message: String(e?.message ?? e) });
  }
};
