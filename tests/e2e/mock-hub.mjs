// A local mock of the Hugging Face Hub for the remote (HTTP Range) tests and benchmark.
//
// Two real HTTP servers on 127.0.0.1, on two ports, so they are two origins:
//   hub  - `/{owner}/{repo}/resolve/{rev}/{path}` answers 302 to the CDN for model files (LFS, as
//          the Hub does) and serves small files (JSON) itself, with Range; the API tree listing
//          `/api/models/{owner}/{repo}/tree/{rev}?recursive=true`; gated repos answer 401 without
//          `Authorization: Bearer <their token>`; CORS as the Hub sends it (the page's origin
//          allowed, Authorization and Range allowed, Content-Range etc. exposed).
//   cdn  - `/blobs/{repo}/{path}?sig=…` with 206 + Content-Range (or, in no-Range mode, 200 with the
//          whole body, streamed); `Access-Control-Allow-Origin: *`.
//   Dataset and space repos are keyed with their prefix ('datasets/owner/name', 'spaces/owner/name')
//   and served under it (`/datasets/{owner}/{repo}/resolve/…`, `/api/datasets/{owner}/{repo}/tree/…`).
// Options: latencyMs (added before every answer), noRange (the CDN and hub ignore Range),
// hostile (the CDN's ranged answers misbehave): 'badRange' (Content-Range shifted by one byte),
// 'short' (Content-Length and body half the range, Content-Range as asked), 'cut' (Content-Length
// as asked, half the body, then the socket is destroyed), 'extra' (4096 bytes past the range, with
// a Content-Length that says so), 'drip' (one byte every dripMs, default 1000), 'gzip' (the asked
// bytes gzipped, Content-Encoding: gzip exposed, Content-Range as asked), 'status' (answers
// failStatus, default 503, failCount times, default forever), 'loop' (the Hub's resolve/ redirects
// to a CDN URL /loop/0 that redirects to /loop/1, and so on, forever); expireSignatures (each signed
// CDN URL answers once, then 403 as an expired signature does: a reader must ask the Hub again).
// Every request is logged: {server, method, path, query, range, status, bytes, authorization,
// active} where bytes counts body bytes actually written (an aborted download shows how far it
// got) and active is the number of requests in flight on both ports when it arrived (itself
// included). hub.concurrency has the most requests in flight at once (all, hub, cdn) and the most
// TCP connections open at once per port; clearLog() resets them.
//
// Library use: const hub = await startMockHub({repos: {'owner/name': {dir, token?}}});
//              hub.endpoint, hub.cdnOrigin, hub.log, hub.concurrency, hub.set({latencyMs, noRange}),
//              hub.addRepo('owner/name', {dir, token?}),
//              await hub.idle(timeoutMs) (resolves once no request is in flight: every answer
//              sent in full or cut off by the client; rejects after timeoutMs),
//              await hub.close()
// Command line: node tests/e2e/mock-hub.mjs --repo owner/name=DIR [--gated owner/name=TOKEN] [--latency MS]

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { parseRange } from './server.mjs';

const HOST = '127.0.0.1';

function listFiles(dir, base = '') {
  const out = [];
  for (const e of fs.readdirSync(path.join(dir, base), { withFileTypes: true })) {
    const rel = base ? `${base}/${e.name}` : e.name;
    const st = fs.statSync(path.join(dir, rel)); // follows symlinks
    if (st.isDirectory()) out.push({ type: 'directory', path: rel, size: 0 }, ...listFiles(dir, rel));
    else out.push({ type: 'file', path: rel, size: st.size });
  }
  return out;
}

const isLfs = (p) => /\.(gguf|safetensors|bin)$/.test(p);

export async function startMockHub({ repos, latencyMs = 0, noRange = false, log: logLine = null } = {}) {
  const opts = { latencyMs, noRange, hostile: null, dripMs: 1000, failStatus: 503, failCount: Infinity, expireSignatures: false };
  const usedSignatures = new Set();
  let signatures = 0;
  const log = [];
  const inFlight = { all: 0, hub: 0, cdn: 0 };
  const sockets = { hub: 0, cdn: 0 };
  const concurrency = { requests: 0, hub: 0, cdn: 0, hubSockets: 0, cdnSockets: 0 };
  const resetConcurrency = () => Object.assign(concurrency, {
    requests: inFlight.all, hub: inFlight.hub, cdn: inFlight.cdn, hubSockets: sockets.hub, cdnSockets: sockets.cdn,
  });
  let hubPort = 0;
  let cdnPort = 0;
  let idleWaiters = [];
  const wakeIdle = () => {
    if (inFlight.all !== 0) return;
    for (const w of idleWaiters) w();
    idleWaiters = [];
  };

  const hubCors = (req) => ({
    'Access-Control-Allow-Origin': req.headers.origin ?? '*',
    Vary: 'Origin',
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Allow-Headers': 'Authorization, Range, Content-Type, X-Requested-With',
    'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
    'Access-Control-Expose-Headers':
      'X-Repo-Commit, X-Request-Id, X-Error-Code, X-Error-Message, X-Total-Count, ETag, Link, Accept-Ranges, Content-Range, X-Linked-Size, X-Linked-ETag',
    'Access-Control-Max-Age': '86400',
  });
  const cdnCors = () => ({
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': 'Range, Authorization',
    'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges, ETag',
  });

  // Sends a file (or its range) with the given CORS headers; counts bytes written.
  async function sendFile(req, res, entry, file, cors) {
    const size = fs.statSync(file).size;
    const type = file.endsWith('.json') ? 'application/json' : 'application/octet-stream';
    const headers = { ...cors, 'Content-Type': type, 'Accept-Ranges': 'bytes', 'Cache-Control': 'no-store' };
    let range = opts.noRange ? null : parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') {
      entry.status = 416;
      res.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}` });
      return res.end();
    }
    let [start, end, status] = [0, size - 1, 200];
    if (range) {
      ({ start, end } = range);
      status = 206;
      headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    }
    const h = entry.server === 'cdn' && range ? opts.hostile : null;
    if (h === 'status' && opts.failCount > 0) {
      opts.failCount -= 1;
      entry.status = opts.failStatus;
      res.writeHead(opts.failStatus, { ...cors, 'Content-Type': 'text/plain', 'Content-Length': 14 });
      entry.bytes = 14;
      return res.end('server failed\n');
    }
    if (h === 'badRange') headers['Content-Range'] = `bytes ${start + 1}-${end + 1}/${size}`;
    if (h && h !== 'badRange' && h !== 'status') {
      const fd = fs.openSync(file, 'r');
      const want = end - start + 1;
      const extra = h === 'extra' ? 4096 : 0;
      const buf = Buffer.alloc(Math.min(want + extra, size - start));
      fs.readSync(fd, buf, 0, buf.length, start);
      fs.closeSync(fd);
      entry.status = status;
      if (h === 'short' || h === 'extra') {
        const body = h === 'short' ? buf.subarray(0, Math.floor(want / 2)) : buf;
        res.writeHead(status, { ...headers, 'Content-Length': body.length });
        entry.bytes = body.length;
        return res.end(body);
      }
      if (h === 'cut') {
        res.writeHead(status, { ...headers, 'Content-Length': want });
        const half = buf.subarray(0, Math.floor(want / 2));
        entry.bytes = half.length;
        res.write(half, () => setTimeout(() => res.destroy(), 50));
        return undefined;
      }
      if (h === 'gzip') {
        const gz = zlib.gzipSync(buf);
        res.writeHead(status, {
          ...headers, 'Content-Encoding': 'gzip', 'Content-Length': gz.length,
          'Access-Control-Expose-Headers': `${headers['Access-Control-Expose-Headers'] ?? ''}, Content-Encoding`,
        });
        entry.bytes = gz.length;
        return res.end(gz);
      }
      if (h === 'drip') {
        res.writeHead(status, { ...headers, 'Content-Length': want });
        let i = 0;
        await new Promise((resolve) => {
          const timer = setInterval(() => {
            if (res.destroyed || i >= want) { clearInterval(timer); res.end(); return resolve(); }
            res.write(buf.subarray(i, i + 1));
            i += 1;
            entry.bytes = i;
          }, opts.dripMs);
          res.on('close', () => { clearInterval(timer); resolve(); });
        });
        return undefined;
      }
    }
    entry.status = status;
    res.writeHead(status, { ...headers, 'Content-Length': size === 0 ? 0 : end - start + 1 });
    if (req.method === 'HEAD' || size === 0) return res.end();
    const stream = fs.createReadStream(file, { start, end, highWaterMark: 64 * 1024 });
    stream.on('data', (c) => { entry.bytes += c.length; });
    await pipeline(stream, res).catch(() => {});
  }

  function repoOf(segs) {
    for (const id of Object.keys(repos)) {
      const n = id.split('/').length;
      if (segs.slice(0, n).join('/') === id) return [id, segs.slice(n)];
    }
    return [null, segs];
  }

  const authorized = (req, id) => !repos[id].token || req.headers.authorization === `Bearer ${repos[id].token}`;

  function handler(server) {
    return async (req, res) => {
      const url = new URL(req.url, `http://${HOST}`);
      const entry = {
        server, method: req.method, path: decodeURIComponent(url.pathname), query: url.search,
        range: req.headers.range ?? null, status: 0, bytes: 0,
        authorization: req.headers.authorization ?? null, origin: req.headers.origin ?? null, time: Date.now(),
      };
      inFlight.all += 1;
      inFlight[server] += 1;
      entry.active = inFlight.all;
      concurrency.requests = Math.max(concurrency.requests, inFlight.all);
      concurrency[server] = Math.max(concurrency[server], inFlight[server]);
      res.on('close', () => { inFlight.all -= 1; inFlight[server] -= 1; wakeIdle(); });
      log.push(entry);
      res.on('close', () => logLine?.(`${server} ${entry.method} ${entry.path} ${entry.range ?? ''} -> ${entry.status} ${entry.bytes}B${entry.authorization ? ' [auth]' : ''}`));
      if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
      const cors = server === 'hub' ? hubCors(req) : cdnCors();
      const text = (status, body, extra = {}) => {
        entry.status = status;
        const b = Buffer.from(body);
        res.writeHead(status, { ...cors, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': b.length, ...extra });
        entry.bytes = b.length;
        res.end(b);
      };
      try {
        if (req.method === 'OPTIONS') { entry.status = 204; res.writeHead(204, cors); return res.end(); }
        const segs = entry.path.split('/').filter(Boolean);
        if (server === 'cdn') {
          if (segs[0] === 'loop') {
            entry.status = 302;
            res.writeHead(302, { ...cors, Location: `/loop/${Number(segs[1] ?? 0) + 1}`, 'Content-Length': 0 });
            return res.end();
          }
          if (segs[0] === 'page.html') {
            entry.status = 200;
            res.writeHead(200, { ...cors, 'Content-Type': 'text/html; charset=utf-8' });
            return res.end('<!doctype html><title>a model page</title><p>not a model');
          }
          // /blobs/{repo id...}/{path...}
          const [id, rest] = repoOf(segs.slice(1));
          if (segs[0] !== 'blobs' || !id || !url.searchParams.get('sig')) return text(403, 'bad signature\n');
          if (opts.expireSignatures && usedSignatures.has(url.searchParams.get('sig'))) return text(403, 'Request has expired\n');
          usedSignatures.add(url.searchParams.get('sig'));
          const file = path.join(repos[id].dir, ...rest);
          if (!fs.existsSync(file)) return text(404, 'not found\n');
          return await sendFile(req, res, entry, file, cors);
        }
        // hub
        const apiKinds = { models: [], datasets: ['datasets'], spaces: ['spaces'] };
        if (segs[0] === 'api' && apiKinds[segs[1]]) {
          const [id, rest] = repoOf([...apiKinds[segs[1]], ...segs.slice(2)]);
          if (!id || rest[0] !== 'tree') return text(404, '{"error":"Repository not found"}', { 'X-Error-Code': 'RepoNotFound' });
          if (!authorized(req, id)) return text(401, `{"error":"Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in."}`, { 'X-Error-Code': 'GatedRepo' });
          const body = JSON.stringify(listFiles(repos[id].dir).map((f) => (
            f.type === 'file' && isLfs(f.path) ? { ...f, oid: 'x', lfs: { oid: 'y', size: f.size, pointerSize: 134 } } : { ...f, oid: 'x' })));
          entry.status = 200;
          entry.bytes = Buffer.byteLength(body);
          res.writeHead(200, { ...cors, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': entry.bytes });
          return res.end(body);
        }
        const [id, rest] = repoOf(segs);
        if (!id) return text(404, 'Repository not found', { 'X-Error-Code': 'RepoNotFound' });
        if (rest[0] === 'resolve' && rest.length >= 3) {
          if (!authorized(req, id)) return text(401, `Access to model ${id} is restricted and you are not in the authorized list.`, { 'X-Error-Code': 'GatedRepo' });
          const p = rest.slice(2);
          const file = path.join(repos[id].dir, ...p);
          if (!fs.existsSync(file)) return text(404, 'Entry not found', { 'X-Error-Code': 'EntryNotFound' });
          if (!isLfs(file)) return await sendFile(req, res, entry, file, cors);
          entry.status = 302;
          if (opts.hostile === 'loop') {
            res.writeHead(302, { ...cors, Location: `http://${HOST}:${cdnPort}/loop/0`, 'Content-Length': 0 });
            return res.end();
          }
          const loc = `http://${HOST}:${cdnPort}/blobs/${id}/${p.map(encodeURIComponent).join('/')}?sig=${Date.now()}-${(signatures += 1)}`;
          res.writeHead(302, { ...cors, Location: loc, 'Content-Length': 0 });
          return res.end();
        }
        entry.status = 200;
        res.writeHead(200, { ...cors, 'Content-Type': 'text/html; charset=utf-8' });
        return res.end(`<!doctype html><title>${id}</title><p>model page`);
      } catch (err) {
        if (!res.headersSent) text(500, `internal error: ${err.message}\n`);
        else res.destroy();
      }
    };
  }

  const listen = (name, h) => new Promise((resolve, reject) => {
    const s = http.createServer(h);
    s.on('connection', (sock) => {
      sockets[name] += 1;
      const key = `${name}Sockets`;
      concurrency[key] = Math.max(concurrency[key], sockets[name]);
      sock.on('close', () => { sockets[name] -= 1; });
    });
    s.once('error', reject);
    s.listen(0, HOST, () => resolve(s));
  });
  const hub = await listen('hub', handler('hub'));
  const cdn = await listen('cdn', handler('cdn'));
  hubPort = hub.address().port;
  cdnPort = cdn.address().port;
  return {
    endpoint: `http://${HOST}:${hubPort}`,
    cdnOrigin: `http://${HOST}:${cdnPort}`,
    hubPort,
    cdnPort,
    log,
    concurrency,
    set(o) { Object.assign(opts, o); },
    addRepo(id, cfg) { repos[id] = cfg; },
    clearLog() { log.length = 0; resetConcurrency(); },
    idle(timeoutMs = 10_000) {
      if (inFlight.all === 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`mock hub: ${inFlight.all} request(s) still in flight after ${timeoutMs} ms`)), timeoutMs);
        idleWaiters.push(() => { clearTimeout(timer); resolve(); });
      });
    },
    async close() {
      for (const s of [hub, cdn]) {
        s.closeAllConnections?.();
        await new Promise((r) => s.close(() => r()));
      }
    },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const repos = {};
  let latencyMs = 0;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--repo') { const [id, dir] = args[++i].split('='); repos[id] = { dir }; }
    else if (args[i] === '--gated') { const [id, tok] = args[++i].split('='); repos[id].token = tok; }
    else if (args[i] === '--latency') latencyMs = Number(args[++i]);
  }
  const hub = await startMockHub({ repos, latencyMs, log: (l) => console.log(l) });
  console.log(`mock hub at ${hub.endpoint}, cdn at ${hub.cdnOrigin}`);
  const stop = async () => { await hub.close(); process.exit(0); };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
