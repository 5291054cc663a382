// The page's start-up (issue #21: a lean first load). The lean WebAssembly module (GGUF and
// safetensors headers, the first view: weightpeek-lite) loads first, and shows what the person
// opens meanwhile — files dropped or picked, a file URL, the bundled sample, the address's
// `url=` — as a <weightpeek-view> in #lean-view. The full module (weightpeek-web: the page's app
// with every format, previews, the doctor, fit, the editor, compare) loads after it — at once
// when nothing is shown, else once the lean view has its summary (the first summary needs
// nothing of it, and its 1 MB does not slow the header's download); its
// app opens the same input (www/early.js keeps it in window.__wpEarly; src/web/mod.rs
// `take_early`), reading nothing again (a remote header is handed over by the lean module,
// src/source/fetch/handover.rs), and once its view is ready (body[data-state] "ready" or "error") the
// lean view is removed. Until then body[data-state] stays "loading" and early.js keeps taking
// the person's input; body[data-lean] says a lean view is shown.
import { load, loadFull } from "./weightpeek.js";
import { asked_tab, names_file } from "./weightpeek-lite.js";

const early = window.__wpEarly ?? {};
const body = document.body;
const box = document.getElementById("lean-view");
/** The lean view shown (a <weightpeek-view>), if any. */
let view = null;
/** Set once the full module's app runs: from then on it takes every input itself. */
let fullStarted = false;
let leanReady = false;

// The tokens of the Hub settings (src/web/remote.rs): a gated file is the full app's.
const TOKEN_KEY = "weightpeek.hub-token";
const ENDPOINT_KEY = "weightpeek.hub-endpoint";

const param = (name) => new URL(location.href).searchParams.get(name)?.trim() || null;
const endpoint = () => {
  const typed = document.getElementById("hub-endpoint")?.value.trim();
  let kept = null;
  try { kept = localStorage.getItem(ENDPOINT_KEY); } catch { /* storage off */ }
  return kept || typed || "https://huggingface.co";
};
const token = () => {
  let kept = null;
  try { kept = sessionStorage.getItem(TOKEN_KEY); } catch { /* storage off */ }
  return kept || document.getElementById("hub-token")?.value.trim() || null;
};

/** A fresh lean view in #lean-view, on the tab the address asks for. */
function fresh() {
  view?.remove();
  view = document.createElement("weightpeek-view");
  const tab = asked_tab(location.search, location.hash);
  if (tab) view.setAttribute("tab", tab);
  view.dataset.testid = "lean-view";
  box.replaceChildren(view);
  box.hidden = false;
  body.dataset.lean = "shown";
  body.classList.add("has-file");
  return view;
}

/** Shows what early.js kept (the newest input) in a lean view, when the lean module can. */
function showKept() {
  if (fullStarted || !leanReady) return;
  if (early.files?.length) {
    fresh().open(early.files);
  } else if (early.url) {
    showUrl(early.url);
  } else if (early.sample) {
    fresh().setAttribute("src", "sample.gguf");
  }
}

/** A file URL in a lean view (a repository's list, a gated file: the full app's; the view of
 * what was opened before goes, the early status line says what waits). */
function showUrl(text) {
  const ep = endpoint();
  if (token() || !names_file(text, ep)) return retire();
  const input = document.getElementById("url-input");
  if (input && !input.value) input.value = text;
  const v = fresh();
  v.setAttribute("endpoint", ep);
  v.setAttribute("src", text);
}

/** What the reader asked of the lean view that the app does (a row's preview, an export). */
let asked = {};

/** Removes the lean view (the app's view of it is there, or it shows something else now); the
 * keyboard focus, if it was in it, moves to the same tab or control of the app's view. */
function retire() {
  const root = view?.shadowRoot;
  const at = document.activeElement === view ? root?.activeElement : null;
  const tab = at?.closest?.("[role=tab]")?.dataset.tab;
  const testid = at?.closest?.("[data-testid]")?.dataset.testid;
  const row = typeof asked.tensor === "string";
  view?.remove();
  view = null;
  asked = {};
  box.replaceChildren();
  box.hidden = true;
  delete body.dataset.lean;
  if (!at) return;
  const report = document.getElementById("report");
  // A row opened: the preview (as Enter on a row in the app's view); else the same tab or
  // control, else the tab shown.
  const focusable = (el) => el && (el.tabIndex >= 0 || el.matches("a[href], button, input, select, textarea")) ? el : null;
  const target = (row && report?.querySelector("[role=tabpanel][data-tab=preview]"))
    || (tab && report?.querySelector(`[role=tab][data-tab="${tab}"]`))
    || (testid && focusable(report?.querySelector(`[data-testid="${testid}"]`)))
    || report?.querySelector("[role=tab][aria-selected=true]");
  target?.focus({ preventScroll: true });
}

// What the lean view cannot do waits for the full app, which loads anyway (the element must not
// load its own): a tab of the full module, a row's preview and an export are done again by the
// app (src/web/mod.rs `Carried`); a file of another format is the app's alone (the lean view
// goes, the early status line says the file opens when the viewer is ready).
box.addEventListener("weightpeek-need-full", (e) => {
  e.stopPropagation();
  const d = e.detail ?? {};
  if (typeof d.tensor === "string") asked.tensor = d.tensor;
  if (typeof d.export === "string") asked.export = d.export;
  if (view && view.dataset.state !== "ready" && d.tensor === undefined && d.export === undefined) retire();
  needed?.();
}, true);

/** Just before the app starts: what the lean view shows and was asked, for the app to do again. */
function carry() {
  if (!view) return;
  early.view = { tab: view.getAttribute("tab") ?? undefined, ...asked };
}
/** Told when the lean view asks for the full module (settled() waits for no more). */
let needed = null;
window.addEventListener("weightpeek-early", showKept);

/** Once the full app runs: the lean view goes when the app's view of the same input is ready. */
function handOver() {
  fullStarted = true;
  // The modules' loading line is done (the app's own loading says what it reads).
  document.getElementById("loading")?.remove();
  if (!view) return;
  const done = () => ["ready", "error", "listed"].includes(body.dataset.state);
  if (done()) return retire();
  const watch = new MutationObserver(() => {
    if (!done()) return;
    watch.disconnect();
    retire();
  });
  watch.observe(body, { attributes: true, attributeFilter: ["data-state"] });
}

/** Resolves once the lean view shown (if any) has its summary or failed. */
function settled() {
  const done = () => !view || ["ready", "error", "idle"].includes(view.dataset.state);
  if (done()) return Promise.resolve();
  return new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (done()) end();
    });
    const end = () => {
      watch.disconnect();
      needed = null;
      resolve();
    };
    needed = end;
    watch.observe(box, { attributes: true, subtree: true, childList: true, attributeFilter: ["data-state"] });
  });
}

/** The offline cache (www/sw.js): once registered, the page opens and reads local files with
 * the network off. Registered once the page's app runs, so that its download of every file (the
 * full module included) does not compete with the first summary's. The page only; the
 * embeddable element never registers a worker. */
function offline() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("sw.js").catch((e) => console.warn(`weightpeek: no offline cache (${e})`));
}

async function start() {
  try {
    await load();
    leanReady = true;
    const url = param("url");
    if (url && !early.files && !early.url && !early.sample) showUrl(url);
    else showKept();
    await settled();
  } catch (e) {
    // The full module may still load (its own error is shown below if not).
    console.warn(`weightpeek: the lean module did not load (${e?.message || e})`);
  }
  try {
    // early.js counts the full module's download as it comes; until then:
    const text = document.getElementById("loading-text");
    if (text) text.textContent = "Loading the rest of the viewer…";
    document.getElementById("loading-bar")?.removeAttribute("value");
    const m = await loadFull(carry);
    // The full module's exports, where Trunk's own loader put them (tests and benchmarks call
    // its hooks: dequant_check, bench_header).
    window.wasmBindings = m;
    handOver();
    offline();
  } catch (e) {
    retire();
    const box = document.getElementById("error");
    if (box) {
      const head = document.createElement("strong");
      head.className = "error-head";
      head.textContent = "weightpeek could not start.";
      const detail = document.createElement("span");
      detail.className = "error-detail";
      detail.textContent = String(e?.message || e);
      box.replaceChildren(head, detail);
      box.hidden = false;
    }
    body.dataset.state = "error";
  }
}

start();
