// Until the viewer's app is ready (body[data-state] is still 'loading': the lean module, ~290 KB
// gzipped, then the full one, ~1 MB), keep what the person gives the page and let the app open
// it once it starts (src/web/mod.rs `take_early`): files picked or dropped, a URL submitted,
// the sample button. Each input kept is announced (a `weightpeek-early` event on window): once
// the lean module runs, www/page.js shows it meanwhile. From the first paint a drop anywhere is caught, so the browser never navigates the tab
// to the dropped file, and the page shows how far the module has loaded.
// (A file, not an inline script: the page's Content-Security-Policy allows only Trunk's loader
// inline.) Once the module runs, these listeners see a state other than 'loading' and step aside.
(() => {
  const early = { files: null, url: null, sample: false };
  window.__wpEarly = early;
  const loading = () => document.body?.dataset.state === 'loading';
  const say = (what) => {
    const s = document.getElementById('status');
    if (!s) return;
    s.textContent = `The viewer is still loading; ${what} opens as soon as it is ready…`;
    s.hidden = false;
  };
  const keep = (list) => {
    const files = Array.from(list ?? []);
    if (!files.length) return;
    Object.assign(early, { files, url: null, sample: false });
    say(files.length === 1 ? `“${files[0].name}”` : `${files.length} files`);
    told();
  };
  const told = () => dispatchEvent(new Event('weightpeek-early'));
  addEventListener('dragover', (e) => { if (loading()) e.preventDefault(); });
  addEventListener('drop', (e) => {
    if (!loading()) return;
    e.preventDefault();
    keep(e.dataTransfer?.files);
  });
  document.addEventListener('change', (e) => {
    if (loading() && e.target?.id === 'file-input') keep(e.target.files);
  }, true);
  document.addEventListener('submit', (e) => {
    if (!loading() || e.target?.id !== 'url-form') return;
    e.preventDefault();
    const text = document.getElementById('url-input')?.value.trim();
    if (!text) return;
    Object.assign(early, { files: null, url: text, sample: false });
    say('the URL');
    told();
  }, true);
  document.addEventListener('click', (e) => {
    if (!loading() || e.target?.closest?.('#open-sample') == null) return;
    Object.assign(early, { files: null, url: null, sample: true });
    say('the sample');
    told();
  }, true);

  // How far the modules have loaded: the wasm-bindgen loaders fetch `…_bg.wasm` with the global
  // fetch; each body is counted on its way to WebAssembly.instantiateStreaming and shown in
  // #loading (index.html; hidden by the stylesheet once the state leaves 'loading'): the lean
  // module first, then the rest. Only those responses are wrapped; once the app runs, fetch is
  // the browser's again.
  const realFetch = window.fetch;
  const mb = (n) => (n / 1e6).toFixed(1);
  let what = 'the viewer';
  const show = (done, total) => {
    const bar = document.getElementById('loading-bar');
    const text = document.getElementById('loading-text');
    if (total > 0) {
      if (bar) { bar.max = total; bar.value = Math.min(done, total); }
      if (text) text.textContent = `Loading ${what}: ${mb(done)} of ${mb(total)} MB (${Math.min(100, Math.floor((done * 100) / total))}%)`;
    } else if (text) {
      text.textContent = `Loading ${what}: ${mb(done)} MB`;
    }
  };
  const counted = (resp, name) => {
    what = /weightpeek-lite_bg/.test(name) ? 'the viewer' : 'the rest of the viewer';
    if (!resp.ok || !resp.body) return resp;
    // With a content coding, Content-Length counts compressed bytes and the body is decoded.
    const total = resp.headers.get('content-encoding') ? 0 : Number(resp.headers.get('content-length')) || 0;
    // A copy is counted; the answer itself goes on to WebAssembly unchanged (with its URL, so
    // the browser can keep the compiled module).
    const reader = resp.clone().body.getReader();
    let done = 0;
    show(0, total);
    const pump = () => reader.read().then(({ done: end, value }) => {
      if (end) return;
      done += value.byteLength;
      show(done, total);
      pump();
    }, () => {});
    pump();
    return resp;
  };
  window.fetch = function fetch(input, init) {
    const url = typeof input === 'string' ? input : (input?.url ?? String(input));
    if (!loading()) {
      window.fetch = realFetch;
      return realFetch.call(window, input, init);
    }
    const answer = realFetch.call(window, input, init);
    if (!/_bg\.wasm([?#]|$)/.test(url)) return answer;
    return answer.then((r) => counted(r, url));
  };

  // (The offline cache, www/sw.js, is registered by page.js once the page's app runs: its
  // download of every file must not compete with the first summary's.)
})();
