// The page's offline cache (issue #20, item 4). After a first visit the page opens, and reads
// local files, with the network off: this service worker keeps every file of the built app in a
// cache named after a hash of their contents (scripts/sw_hook.py writes BUILD below at build
// time). A visit after a new build installs the new files in the background and drops the old
// cache; the visit after that shows the new version ("updated on the next visit").
//
// Only the app's own files are answered from the cache; everything else — model files, the Hub,
// Range requests, any other origin — goes to the network untouched, so a remote model read
// offline fails with the page's "You are offline" message (src/source/http.rs, Problem::Offline).
// Registered by www/early.js for the page only: the embeddable element never installs a worker
// on a documentation site.

// Written by scripts/sw_hook.py: the cache version and the app's files, relative to this scope.
const BUILD = { version: 'dev', files: [] };

const CACHE = `weightpeek-${BUILD.version}`;
const FILES = new Set(BUILD.files);
const scope = () => new URL(self.registration.scope);

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // 'no-cache': revalidate with the server, so a stale HTTP-cached copy is never kept under
    // a new version.
    await cache.addAll(BUILD.files.map((f) => new Request(new URL(f, scope()), { cache: 'no-cache' })));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith('weightpeek-') && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

/** The cached file that answers `request`, by its path relative to the scope, or null. */
function cachedName(request) {
  if (request.method !== 'GET' || request.headers.has('range')) return null;
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
    const hit = await caches.match(new URL(name, scope()), { cacheName: CACHE });
    return hit ?? fetch(event.request);
  })());
});
