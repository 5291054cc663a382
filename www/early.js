// Until the viewer's module is ready (body[data-state] is still 'loading': the wasm module is
// ~950 KB gzipped), keep what the person gives the page and let the module open it once it
// starts (src/web/mod.rs `take_early`): files picked or dropped, a URL submitted, the sample
// button. From the first
// paint a drop anywhere is caught, so the browser never navigates the tab to the dropped file.
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
  };
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
  }, true);
  document.addEventListener('click', (e) => {
    if (!loading() || e.target?.closest?.('#open-sample') == null) return;
    Object.assign(early, { files: null, url: null, sample: true });
    say('the sample');
  }, true);
})();
