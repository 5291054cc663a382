// The page's offline cache (issue #20, item 4). After a first visit the page opens, and reads
// local files, with the network off: this service worker keeps every file of the built app in a
// cache named after its scope and a hash of the files' contents (scripts/sw_hook.py writes BUILD
// below at build time). A visit after a new build installs the new files in the background; the
// new worker takes over once no tab shows the old build (it never swaps files under an open
// page, which would mix two builds' code), then drops the old cache: the next visit shows it.
//
// Only the app's own files are answered from the cache; everything else — model files, the Hub,
// Range requests, any other origin — goes to the network untouched, so a remote model read
// offline fails with the page's "You are offline" message (src/source/http.rs, Problem::Offline).
// Registered by www/early.js for the page only: the embeddable element never installs a worker
// on a documentation site. A build with version 'dev' (scripts/serve.sh) caches nothing.

// Written by scripts/sw_hook.py: the cache version and the app's files, relative to this scope.
const BUILD = { version: 'dev', files: [] };

const scope = () => new URL(self.registration.scope);
// Caches belong to the origin, not the scope: two copies of the app on one origin (GitHub
// Pages project sites) keep theirs apart by the scope's path.
const PREFIX = `weightpeek:${new URL(self.registration.scope).pathname}:`;
const CACHE = `${PREFIX}${BUILD.version}`;
const FILES = new Set(BUILD.files);
const ACTIVE = BUILD.version !== 'dev' && BUILD.files.length > 0;

self.addEventListener('install', (event) => {
  if (!ACTIVE) return;
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    for (const name of BUILD.files) {
      // 'no-cache': revalidate with the server, so a stale HTTP-cached copy is not kept under a
      // new version. A host that redirects (index.html to /) gives a redirected answer, which
      // may not answer a navigation: it is stored as a plain copy.
      const answer = await fetch(new Request(new URL(name, scope()), { cache: 'no-cache' }));
      if (!answer.ok) throw new Error(`weightpeek offline cache: ${name} answered ${answer.status}`);
      await cache.put(new URL(name, scope()), answer.redirected ? new Response(answer.body, answer) : answer);
    }
  })().catch(async (e) => {
    await caches.delete(CACHE);
    console.warn(String(e));
    throw e;
  }));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

/** The cached file that answers `request`, by its path relative to the scope, or null. */
function cachedName(request) {
  if (!ACTIVE || request.method !== 'GET' || request.headers.has('range')) return null;
  const url = new URL(request.url);
  const base = scope();
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return null;
  const rel = url.pathname.slice(base.pathname.length);
  // The page under any query or fragment (?url=…&tab=…) is index.html.
  if (request.mode === 'navigate' && (rel === '' || rel === 'index.html')) return 'index.html';
  return FILES.has(rel) ? rel : null;
}

self.addEventListener('fetch', (event) => {
  const name = cachedName(event.request);
  if (!name) return;
  event.respondWith((async () => {
    const hit = await caches.match(new URL(name, scope()), { cacheName: CACHE, ignoreVary: true });
    return hit ?? fetch(event.request);
  })());
});
