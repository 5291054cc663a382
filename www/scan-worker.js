// The scan of every weight (issue #22) in module Web Workers, so the page stays responsive
// while hundreds of megabytes are read and decoded. Started by the page's "Scan all weights"
// card (src/web/scan_card.rs) and by scan() of weightpeek.js; all logic is Rust
// (src/web/scan.rs). Cancelling is terminating this worker: its reads, and its helpers (nested
// Workers, which end with it), stop with it.
//
// Local files are scanned by one Worker per core but one (up to 4; `options.workers` sets the
// number): this one scans share 0 and starts
// the others as helpers, each scanning its share (the same split in every Worker, by bytes:
// weightpeek::scan::shares), and merges their results. A remote model is read by this Worker
// alone (four Range requests at a time already keep the network busy).
//
// In:  {source, options}  source: local Files/Blobs (an array) or URL strings, resolved;
//      options: {endpoint, token, name, workers} (plain values: a signal cannot cross).
// Out: {type: "progress", done, total}   bytes of tensor data read so far, and in all;
//      {type: "tensor", json, row}       one tensor's result and its table row (JSON text);
//      {type: "done", doc, lines}        the `weightpeek scan --json` document, finding lines;
//      {type: "error", message}          the model could not be opened (or the module loaded).
// A helper gets {source, options, share, shares} and answers progress, tensor (with index) and
// {type: "share-done"} or error.
import init, { scan_run, scan_merge } from "./weightpeek-web.js";

const MAX_WORKERS = 4;
// A helper reads a local file and says how far it got at least every chunk it reads (progress
// is told every 100 ms of work), so one silent this long has stalled: it never started (its
// module did not load) or stopped. The scan then fails with these words instead of waiting
// forever (once, in Firefox under load, a scan() on two Workers never answered).
const HELPER_SILENCE_MS = 60_000;
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

async function coordinate(source, options) {
  const local = !(typeof source === "string" || (Array.isArray(source) && source.every((s) => typeof s === "string")));
  // One core is left to the page and the browser's file reading (on two cores a second
  // scanning Worker was no faster: bench/scan_wasm.mjs); options.workers asks for a number.
  const cores = self.navigator?.hardwareConcurrency || 1;
  const asked = Number.isInteger(options.workers) && options.workers > 0 ? options.workers : cores - 1;
  const n = local && typeof Worker !== "undefined" ? Math.max(1, Math.min(MAX_WORKERS, asked)) : 1;
  const done = new Array(n).fill(0);
  const totals = new Array(n).fill(null);
  const results = [];
  // Told once every share has said its total (a Worker knows its own once it opened the
  // model), so `total` never grows under a caller's progress bar.
  const progress = (k, d, t) => {
    done[k] = d;
    totals[k] = t;
    if (totals.every((x) => x !== null)) self.postMessage({ type: "progress", done: sum(done), total: sum(totals) });
  };
  const tensor = (json, row, index) => {
    results[index] = json;
    self.postMessage({ type: "tensor", json, row });
  };
  const helpers = [];
  const shares = [];
  const timers = [];
  for (let k = 1; k < n; k++) {
    const w = new Worker(new URL(import.meta.url), { type: "module" });
    helpers.push(w);
    shares.push(new Promise((resolve, reject) => {
      const watch = () => {
        clearTimeout(timers[k]);
        timers[k] = setTimeout(() => reject(new Error(`a helper Worker (share ${k + 1} of ${n}) said nothing for ${HELPER_SILENCE_MS / 1000} s: it did not start or it stalled; scan() with {workers: 1} scans in one Worker`)), HELPER_SILENCE_MS);
      };
      watch();
      w.onmessage = ({ data: m }) => {
        watch();
        if (m.type === "progress") progress(k, m.done, m.total);
        else if (m.type === "tensor") tensor(m.json, m.row, m.index);
        else if (m.type === "share-done") resolve();
        else if (m.type === "error") reject(new Error(m.message));
      };
      w.onmessageerror = () => reject(new Error("a helper Worker's answer could not be read (messageerror)"));
      w.onerror = (e) => reject(new Error(`a helper Worker failed: ${e.message || "it did not start"}`));
    }));
    w.postMessage({ source, options, share: k, shares: n });
  }
  try {
    // A helper that fails ends the scan at once (not after this Worker's share).
    const [[doc, lines]] = await Promise.all([
      scan_run(source, options, 0, n, (d, t) => progress(0, d, t), tensor),
      ...shares,
    ]);
    if (n === 1) return { doc, lines };
    const { file, threads } = JSON.parse(doc);
    const all = `[${results.filter((r) => r !== undefined).join(",")}]`;
    const [merged, mergedLines] = scan_merge(file, all, threads);
    return { doc: merged, lines: mergedLines };
  } finally {
    for (const w of helpers) w.terminate();
    for (const t of timers) clearTimeout(t);
  }
}

// A message whose files could not be passed to this Worker (cloned) never reaches onmessage:
// say so, or the caller (the page, or the Worker that started this one as a helper) waits
// forever.
self.onmessageerror = () => {
  self.postMessage({ type: "error", message: "the scan's Worker could not receive its files (messageerror)" });
};

self.onmessage = async (event) => {
  const { source, options, share, shares } = event.data ?? {};
  try {
    await init({ module_or_path: new URL("./weightpeek-web_bg.wasm", import.meta.url) });
    if (share !== undefined) {
      await scan_run(
        source,
        options ?? {},
        share,
        shares,
        (done, total) => self.postMessage({ type: "progress", done, total }),
        (json, row, index) => self.postMessage({ type: "tensor", json, row, index }),
      );
      self.postMessage({ type: "share-done" });
      return;
    }
    const { doc, lines } = await coordinate(source, options ?? {});
    self.postMessage({ type: "done", doc, lines });
  } catch (e) {
    self.postMessage({ type: "error", message: String(e?.message ?? e) });
  }
};
