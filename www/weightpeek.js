// weightpeek as a module for other pages: the <weightpeek-view> element and the JavaScript
// API. Load it with one tag from the built assets (dist/ of `trunk build`):
//
//   <script type="module" src="weightpeek/weightpeek.js"></script>
//   <weightpeek-view src="https://huggingface.co/…/model.gguf" tab="tensors"></weightpeek-view>
//
// or import it:  import { inspect, preview, fit, scan } from "./weightpeek/weightpeek.js";
// Types: weightpeek.d.ts beside this file. All logic is Rust (src/web/widget.rs, api.rs); this
// file only defines the element and forwards its attributes.
//
// Two WebAssembly modules of the same code (issue #21, README "Size of the web build"): the
// lean one (weightpeek-lite, GGUF and safetensors headers and the element's first view) is
// what a page loads first; the full one (weightpeek-web: every format, previews, the doctor,
// fit, memory, the tokenizer, the API) loads on first use — an element's tab, row or button
// that needs it, another format, or an API call — once per page, and then serves every new
// element too. An element moving to the full module keeps its attributes and reads nothing
// again: the full module's reading asks the lean one for the header bytes it holds
// (`globalThis.__weightpeekHeaderPrefix`, src/source/fetch/handover.rs).
import initLite, { Widget as LiteWidget, live_widgets as liteLive, header_prefix } from "./weightpeek-lite.js";

let ready = null;
let fullReady = null;
/** The full module's exports, once loaded. */
let full = null;
// Starts the scan's module Worker, the script beside this module (src/web/scan_card.rs calls it:
// an element's "Scan all weights" on any page, whatever the page's own address). Written as
// `new Worker(new URL(…, import.meta.url), {type: "module"})` so that bundlers (Vite, webpack 5)
// build the worker with its imports instead of copying it as a file.
const startScanWorker = () => new Worker(new URL("./scan-worker.js", import.meta.url), { type: "module" });
globalThis.__weightpeekStartScanWorker = startScanWorker;

// The modules' WebAssembly, beside this file.
const LITE_URL = new URL("./weightpeek-lite_bg.wasm", import.meta.url);
const WASM_URL = new URL("./weightpeek-web_bg.wasm", import.meta.url);

/** Runs `start()` (a module's loading) keeping the CSP violations seen meanwhile (whyNotLoaded
 * reads them). */
function watched(start) {
  const keep = (e) => blocked.push(e);
  const doc = typeof document === "undefined" ? null : document;
  doc?.addEventListener("securitypolicyviolation", keep);
  const p = start();
  p.then(() => doc?.removeEventListener("securitypolicyviolation", keep), () => {});
  return p;
}

/** Loads the lean module once per page (the elements' first view). */
export function load() {
  ready ??= watched(() => initLite({ module_or_path: LITE_URL }));
  return ready;
}

/** Loads the full module once per page (resolves to its exports): every API call, and every
 * element from then on, shares one instance. Its readings take the lean module's header bytes.
 * `beforeStart` (the page's, www/page.js: the first call's only) runs once the module's code is
 * here, just before it starts. */
export function loadFull(beforeStart) {
  fullReady ??= watched(async () => {
    const m = await import("./weightpeek-web.js");
    beforeStart?.();
    // Before the module starts: the page's app opens what it was given as it starts.
    globalThis.__weightpeekHeaderPrefix = (url) => (ready ? ready.then(() => header_prefix(url), () => null) : Promise.resolve(null));
    const wasm = await m.default({ module_or_path: WASM_URL });
    // For tests and tools that watch the module (its memory): the full module runs.
    globalThis.dispatchEvent?.(new CustomEvent("weightpeek-started", { detail: { module: "full", wasm } }));
    full = m;
    return m;
  });
  return fullReady;
}

// Why the module could not start, in words a site author can act on (issue #21: a module that
// cannot load says why inside the element). Content-Security-Policy violations seen while it
// loaded are kept: a blocked fetch only says "Failed to fetch".
const blocked = [];
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

/** The reason loading the module whose WebAssembly is at `wasm` failed with `error`, as one
 * sentence (or two). */
async function whyNotLoaded(error, wasm = LITE_URL) {
  if (!globalThis.WebAssembly) return "this browser has no WebAssembly.";
  // A violation's event is queued as a task of its own: let it arrive.
  await new Promise((r) => setTimeout(r, 50));
  if (!WebAssembly.validate(SIMD_PROBE)) {
    return "this browser cannot run WebAssembly SIMD, which weightpeek needs (Chrome or Edge 91+, Firefox 89+, Safari 16.4+).";
  }
  const csp = blocked.find((v) => v.effectiveDirective?.startsWith("connect-src") && v.blockedURI && wasm.href.startsWith(v.blockedURI));
  if (csp) {
    return `the page's Content-Security-Policy (connect-src) does not allow fetching ${wasm.href}: add 'self' (or ${wasm.origin}) to connect-src.`;
  }
  const wasmEval = blocked.find((v) => v.effectiveDirective?.startsWith("script-src") && /^(wasm-eval|eval)$/.test(v.blockedURI));
  if (wasmEval || /wasm-unsafe-eval|Refused to compile/i.test(String(error))) {
    return "the page's Content-Security-Policy does not allow compiling WebAssembly: add 'wasm-unsafe-eval' to script-src.";
  }
  let answer;
  try {
    answer = await fetch(wasm, { method: "HEAD", cache: "no-store" });
  } catch (e) {
    return `${wasm.href} could not be fetched (${e.message || e}): a network error, or a Content-Security-Policy connect-src without 'self'.`;
  }
  if (!answer.ok) {
    return `${wasm.href} answered ${answer.status} ${answer.statusText}: copy every file of the package into the folder of weightpeek.js.`;
  }
  const type = (answer.headers.get("content-type") || "").split(";")[0].trim();
  if (type && type !== "application/wasm") {
    return `${wasm.href} is served as ${type}, not application/wasm${type === "text/html" ? " (an HTML page: the file is probably missing and the server answers with its index page)" : ""}: serve .wasm files as application/wasm.`;
  }
  return `${error?.message || error}`;
}

/**
 * Reads the header of a model and summarises it, as `weightpeek FILE --json` does.
 * @param {string | string[] | Blob | Blob[] | FileList} source a URL (Hugging Face URL forms
 *   included), a list of shard URLs, or local files: a File/Blob, or Files given together (an
 *   array or a FileList) read as one model when they form a set (only headers are read).
 * @param {{endpoint?: string, token?: string, signal?: AbortSignal, name?: string}} [options]
 * @returns {Promise<object>} the CLI's --json schema.
 */
export async function inspect(source, options = {}) {
  checkSource(source);
  checkOptions(options);
  const { inspect_json } = await loadFull();
  try {
    return parseExact(await inspect_json(source, options));
  } catch (e) {
    // A header read only in part: what was read is in e.partial.
    if (typeof e?.partial === "string") e.partial = parseExact(e.partial);
    throw e;
  }
}

/**
 * JSON.parse, except that an integer a double cannot hold exactly (past 2^53, e.g. a UINT64
 * metadata value) becomes a string of its digits instead of a rounded number: the CLI's JSON
 * writes every digit, and so does this. (One pass over the text, skipping strings.)
 */
function parseExact(text) {
  let out = "";
  let last = 0;
  let i = 0;
  const n = text.length;
  const isDigit = (c) => c >= 48 && c <= 57;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: to its closing quote, over escapes.
      i += 1;
      while (i < n && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 ? 2 : 1;
      i += 1;
    } else if (c === 45 || isDigit(c)) {
      const start = i;
      i += 1;
      while (i < n && (isDigit(text.charCodeAt(i)) || ".eE+-".includes(text[i]))) i += 1;
      const token = text.slice(start, i);
      if (/^-?\d{16,}$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(last, start)}"${token}"`;
        last = i;
      }
    } else {
      i += 1;
    }
  }
  return JSON.parse(last === 0 ? text : out + text.slice(last));
}

/** A File/Blob, a FileList, or a non-empty array of Files/Blobs. */
function isFiles(v) {
  if (v instanceof Blob) return true;
  if (typeof FileList !== "undefined" && v instanceof FileList) return v.length > 0;
  return Array.isArray(v) && v.length > 0 && v.every((x) => x instanceof Blob);
}

/** A URL, a non-empty array of URLs, or local files (see isFiles). */
function checkSource(source) {
  if (typeof source === "string" || isFiles(source)) return;
  if (Array.isArray(source) && source.length > 0 && source.every((x) => typeof x === "string")) return;
  throw new TypeError("source must be a URL, an array of URLs, a File or Blob, an array of them, or a FileList");
}

/** Argument checks the Rust side cannot make (wrong types are TypeErrors, as in the DOM). */
function checkOptions(options) {
  if (options === undefined || options === null) return;
  if (typeof options !== "object") throw new TypeError("options must be an object");
  for (const k of ["endpoint", "token", "name"]) {
    if (options[k] !== undefined && typeof options[k] !== "string") throw new TypeError(`options.${k} must be a string`);
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new TypeError("options.signal must be an AbortSignal");
  }
  if (options.endpoint !== undefined && !/^https?:\/\/[^/]/.test(options.endpoint)) {
    throw new TypeError(`options.endpoint must be an http(s) URL, not ${JSON.stringify(options.endpoint.slice(0, 100))}`);
  }
}

function checkWindow(window) {
  if (window === undefined || window === null) return;
  if (typeof window !== "object" || Array.isArray(window)) throw new TypeError("window must be an object {rows, cols, field}");
  const extra = Object.keys(window).filter((k) => k !== "rows" && k !== "cols" && k !== "field");
  if (extra.length) throw new TypeError(`window has rows, cols and field only, not ${extra.join(", ")}`);
  if (window.field !== undefined && typeof window.field !== "string") throw new TypeError("window.field must be a string");
}

/**
 * Decodes a window of one tensor, reading only its bytes.
 * @param {string | string[] | Blob | Blob[] | FileList} source as for inspect()
 * @param {string} tensorName
 * @param {{rows?: [number, number] | string, cols?: [number, number] | string, field?: string}} [window]
 *   end-exclusive ranges; default: the page's default window. `field`: a NumPy structured
 *   array's field (numpy's `arr['x']`); rows and columns are then the field's.
 * @param {{endpoint?: string, token?: string, signal?: AbortSignal, name?: string}} [options]
 * @returns {Promise<object>} the CLI's `--tensor NAME --json` schema plus `values`
 *   (a Float32Array, row-major, rows × cols of the window).
 */
export async function preview(source, tensorName, window = {}, options = {}) {
  checkSource(source);
  if (typeof tensorName !== "string") throw new TypeError("tensorName must be a string");
  checkWindow(window);
  checkOptions(options);
  const { preview_values } = await loadFull();
  const [json, values] = await preview_values(source, tensorName, window, options);
  return { ...JSON.parse(json), values };
}

/**
 * Plans a GGUF model on your GPUs and RAM from its header alone, as `weightpeek fit … --json`
 * does: how many layers go to the GPUs (-ngl), the tensor split, a MoE model's --n-cpu-moe,
 * each device's bytes, whether it fits, the largest context, and the llama.cpp command line.
 * @param {string | string[] | Blob | Blob[] | FileList} source as for inspect()
 * @param {{gpus?: ({name?: string, bytes?: number, size?: string} | string | number)[],
 *   ram?: number | string}} [devices] default: one 8 GiB GPU and 16 GiB RAM; sizes such as
 *   "24GiB" or a card ("rtx4090"); `gpus: []` for none.
 * @param {{context?: number, kv?: "f16" | "q8_0" | "q4_0", margin?: number | string,
 *   endpoint?: string, token?: string, signal?: AbortSignal, name?: string}} [options]
 * @returns {Promise<object>} the plan (see FitPlan in weightpeek.d.ts).
 */
export async function fit(source, devices = {}, options = {}) {
  checkSource(source);
  if (devices !== undefined && devices !== null && (typeof devices !== "object" || Array.isArray(devices))) {
    throw new TypeError("devices must be an object {gpus, ram}");
  }
  checkOptions(options);
  if (options?.context !== undefined && !Number.isInteger(options.context)) throw new TypeError("options.context must be a whole number");
  if (options?.kv !== undefined && typeof options.kv !== "string") throw new TypeError("options.kv must be a string");
  const { fit_plan } = await loadFull();
  return fit_plan(source, devices ?? {}, options ?? {});
}

/**
 * Scans every tensor's data in a Web Worker, as `weightpeek scan MODEL --json` does: NaN,
 * infinite and zero values, the block scales llama.cpp rejects, min, max, mean and standard
 * deviation per tensor, and the findings (NaN/Inf: error; all-zero and outlying tensors:
 * warning). Reads the whole data section once: a remote model's tensor data is downloaded
 * (in Range requests, a few at a time), and its header read again by the worker.
 * @param {string | string[] | Blob | Blob[] | FileList} source as for inspect()
 * @param {{signal?: AbortSignal, onProgress?: (p: {done: number, total: number}) => void,
 *   onTensor?: (t: object) => void, workers?: number, endpoint?: string, token?: string,
 *   name?: string}} [options] aborting the signal ends the workers (their reads stop) and
 *   rejects with the signal's reason; `workers`: Web Workers scanning local files (default: the
 *   cores but one, at most 4).
 * @returns {Promise<object>} `{file, bytes_read, threads, tensors, findings}` (ScanResult in
 *   weightpeek.d.ts).
 */
export function scan(source, options = {}) {
  checkSource(source);
  checkOptions(options);
  const { signal, onProgress, onTensor } = options ?? {};
  for (const [k, f] of [["onProgress", onProgress], ["onTensor", onTensor]]) {
    if (f !== undefined && typeof f !== "function") throw new TypeError(`options.${k} must be a function`);
  }
  const abortReason = () => signal.reason ?? new DOMException("The scan was aborted", "AbortError");
  if (signal?.aborted) return Promise.reject(abortReason());
  const base = typeof document === "undefined" ? location.href : document.baseURI;
  const given = typeof source === "string" ? new URL(source, base).href
    : Array.isArray(source) && typeof source[0] === "string" ? source.map((u) => new URL(u, base).href)
      : source instanceof Blob ? [source] : Array.from(source);
  const plain = {};
  for (const k of ["endpoint", "token", "name"]) if (typeof options?.[k] === "string") plain[k] = options[k];
  if (options?.workers !== undefined) {
    if (!Number.isInteger(options.workers) || options.workers < 1) throw new TypeError("options.workers must be a whole number from 1");
    plain.workers = options.workers;
  }
  return new Promise((resolve, reject) => {
    const worker = startScanWorker();
    const onAbort = () => {
      stop();
      reject(abortReason());
    };
    const stop = () => {
      worker.terminate();
      signal?.removeEventListener("abort", onAbort);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.onmessage = ({ data }) => {
      if (data.type === "progress") onProgress?.({ done: data.done, total: data.total });
      else if (data.type === "tensor") onTensor?.(JSON.parse(data.json));
      else if (data.type === "done") {
        stop();
        resolve(JSON.parse(data.doc));
      } else if (data.type === "error") {
        stop();
        reject(new Error(data.message));
      }
    };
    worker.onerror = (e) => {
      stop();
      reject(new Error(`the scan's worker could not start: ${e.message || "scan-worker.js did not load"}`));
    };
    worker.onmessageerror = () => {
      stop();
      reject(new Error("the scan's worker answered with a message that could not be read (messageerror)"));
    };
    worker.postMessage({ source: given, options: plain });
  });
}

/** Test hook: how many views, and preview panels open in them, are alive (0 after every element was removed). */
export async function liveViews() {
  await load();
  return liteLive() + (full ? full.live_widgets() : 0);
}

const STYLE_URL = new URL("./style.css", import.meta.url).href;
const ATTRS = ["src", "tab", "tensor", "filter", "endpoint", "gpu", "ram", "ctx", "kv", "margin"];

/** `<weightpeek-view src tab tensor filter height theme endpoint gpu ram ctx kv margin>`; see
 * the README. */
export class WeightpeekView extends HTMLElement {
  static observedAttributes = [...ATTRS, "height"];

  #widget = null;
  #container;
  #connecting = false;
  #pending = null;
  /** The local files shown ([files, name]), to show again in the full module. */
  #files = null;
  /** Whether this element's view is the full module's (or is becoming it). */
  #full = false;
  /** The lean module's view while the full one is being made to take its place. */
  #lean = null;

  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = STYLE_URL;
    this.#container = document.createElement("div");
    this.#container.className = "wp";
    this.#container.setAttribute("part", "view");
    root.append(link, this.#container);
    // The lean module asks for the full one (a tab, a row, a button, a format it leaves).
    this.addEventListener("weightpeek-need-full", (e) => this.#toFull(e.detail ?? {}));
  }

  /** Shows this element's model with the full module: its view is made again from the
   * attributes (`detail.tensor`: the row opened; `detail.export`: the download clicked). */
  async #toFull(detail) {
    if (this.#full) return;
    this.#full = true;
    let m;
    try {
      m = await loadFull();
    } catch (e) {
      this.#full = false;
      const p = document.createElement("p");
      p.className = "wp-status";
      p.setAttribute("role", "alert");
      p.dataset.testid = "load-error";
      p.textContent = `weightpeek could not load the rest of itself: ${await whyNotLoaded(e, WASM_URL)}`;
      this.#container.prepend(p);
      return;
    }
    if (!this.isConnected || !this.#widget) return;
    // The new view is drawn beside the old one, hidden, and takes its place when it is ready
    // (or failed): nothing blanks or jumps, the element's state stays as it was meanwhile,
    // and the keyboard focus moves to the same control (a tab, a button) in the new view.
    const old = this.#container;
    const next = document.createElement("div");
    next.className = "wp";
    next.setAttribute("part", "view");
    const h = old.style.getPropertyValue("--wp-height");
    if (h) next.style.setProperty("--wp-height", h);
    next.style.position = "absolute";
    next.style.visibility = "hidden";
    next.style.width = `${old.getBoundingClientRect().width}px`;
    old.after(next);
    const lean = this.#widget;
    this.#lean = lean;
    const swap = () => {
      if (this.#lean !== lean) return; // removed meanwhile: both views were freed
      this.#lean = null;
      const at = this.shadowRoot.activeElement;
      const had = at !== null && old.contains(at);
      const tab = at?.closest?.("[role=tab]")?.dataset.tab;
      const testid = at?.closest?.("[data-testid]")?.dataset.testid;
      lean.retire();
      lean.free();
      old.remove();
      next.style.position = next.style.visibility = next.style.width = "";
      this.#container = next;
      this.dataset.module = "full";
      this.#widget.wake();
      if (!had) return;
      // A row opened: the preview (as Enter on a row in the full view); else the same tab or
      // control.
      const target = typeof detail.tensor === "string" ? next.querySelector("[role=tabpanel][data-tab=preview]")
        : tab ? next.querySelector(`[role=tab][data-tab="${tab}"]`)
          : testid ? next.querySelector(`[data-testid="${testid}"]`) : null;
      target?.focus({ preventScroll: true });
    };
    this.#widget = m.Widget.moving(this, next, () => queueMicrotask(swap));
    if (this.#files && !this.#pending) this.#pending = this.#files;
    this.#start();
    if (typeof detail.tensor === "string") this.#widget.open_as_reader(detail.tensor);
    if (typeof detail.export === "string") this.#widget.export(detail.export);
  }

  async connectedCallback() {
    this.#applyHeight();
    if (this.#widget || this.#connecting) return;
    this.#connecting = true;
    if (!this.#container.firstChild) {
      // Until the module is ready (`src` and open() are kept meanwhile): say so.
      const note = document.createElement("p");
      note.className = "wp-status";
      note.setAttribute("role", "status");
      note.textContent = "Loading the viewer…";
      this.#container.append(note);
      this.dataset.state = "loading";
    }
    try {
      await load();
    } catch (e) {
      const p = document.createElement("p");
      p.className = "wp-status";
      p.setAttribute("role", "alert");
      p.dataset.testid = "load-error";
      p.textContent = `weightpeek could not start: ${await whyNotLoaded(e)}`;
      this.#container.replaceChildren(p);
      this.dataset.state = "error";
      return;
    } finally {
      this.#connecting = false;
    }
    if (!this.isConnected || this.#widget) return;
    // Once the full module is on the page, new views are its.
    this.#full = full !== null;
    this.#widget = this.#full ? new full.Widget(this, this.#container) : new LiteWidget(this, this.#container);
    // Which module draws this view (`lite`: the lean first load; `full`: everything).
    this.dataset.module = this.#full ? "full" : "lite";
    this.#start();
  }

  #start() {
    this.#widget.set_endpoint(this.getAttribute("endpoint"));
    this.#widget.set_tab(this.getAttribute("tab"));
    this.#widget.set_tensor(this.getAttribute("tensor"));
    this.#widget.set_filter(this.getAttribute("filter"));
    for (const a of ["gpu", "ram", "ctx", "kv", "margin"]) this.#widget[`set_${a}`](this.getAttribute(a));
    if (this.#pending) {
      const [f, n] = this.#pending;
      this.#pending = null;
      this.#files = [f, n];
      this.#widget.open_files(f, n);
    } else {
      this.#widget.set_src(this.getAttribute("src"));
    }
  }

  /**
   * Shows local files instead of `src` (only their headers are read; nothing is uploaded),
   * e.g. from a file input: `view.open(input.files)`. Files given together open as one model
   * when they form a set (the parts of a split GGUF, an index with its shards, numbered
   * shards); a config.json along is used; files that do not belong are reported.
   * @param {Blob | Blob[] | FileList} files
   * @param {string} [name] display name of a single Blob (a File's own name by default)
   */
  async open(files, name) {
    if (!isFiles(files)) throw new TypeError("open() takes a File or Blob, an array of them, or a FileList");
    this.#pending = [files, name];
    await load();
    if (this.#widget && this.#pending) {
      const [f, n] = this.#pending;
      this.#pending = null;
      this.#files = [f, n];
      this.#widget.open_files(f, n);
    }
  }

  disconnectedCallback() {
    // Removed: cancels its requests, removes its listeners, releases the model. Moved (removed
    // and inserted again in the same task): kept as it is, nothing is read again.
    queueMicrotask(() => {
      if (this.isConnected || !this.#widget) return;
      this.#widget.free();
      this.#widget = null;
      this.#lean?.free();
      this.#lean = null;
    });
  }

  attributeChangedCallback(name, old, value) {
    if (name === "height") return this.#applyHeight();
    if (!this.#widget || old === value) return;
    this.#widget[`set_${name}`](value);
  }

  #applyHeight() {
    const h = this.getAttribute("height");
    // A number is pixels; anything else is a CSS length ("60vh"); invalid values are ignored.
    const css = h && /^\d+(\.\d+)?$/.test(h.trim()) ? `${h.trim()}px` : h;
    if (css) this.#container.style.setProperty("--wp-height", css);
    else this.#container.style.removeProperty("--wp-height");
  }
}

if (!customElements.get("weightpeek-view")) {
  customElements.define("weightpeek-view", WeightpeekView);
}
