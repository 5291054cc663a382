// A small static file server for weightpeek's end-to-end tests and for local serving.
//
// Why not python's http.server: it ignores Range, and the point of weightpeek is to read only
// the header bytes of a multi-GB file. This server answers `Range: bytes=...` with 206 and
// Content-Range, exposes those headers to cross-origin pages (CORS), serves .wasm as
// application/wasm, binds 127.0.0.1 only, and records every request with the number of body
// bytes it actually sent, so a test can prove how much of a remote file was fetched.
//
// Library use:   const srv = await startServer({ root: 'dist', mounts: { '/data/': dir } });
//                srv.url, srv.requests (array of {method, path, range, status, bytes}), await srv.close()
// Command line:  node tests/e2e/server.mjs [--root DIR] [--port N] [--mount /prefix/=DIR ...] [--quiet]
//                prints "weightpeek: serving DIR at http://127.0.0.1:PORT/" (port 0 = a free port)

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';

const HOST = '127.0.0.1';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.gguf': 'application/octet-stream',
  '.safetensors': 'application/octet-stream',
  '.bin': 'application/octet-stream',
};

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'Range, If-Range, If-None-Match, Content-Type',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges, Content-Type, ETag, Last-Modified',
  'Access-Control-Max-Age': '600',
};

/**
 * Parse a Range header against a file size.
 * Returns null (no usable range: serve the whole file), 'unsatisfiable', or {start, end} (inclusive).
 * Only a single range is honoured; a multi-range request is answered with the whole file (allowed by RFC 9110).
 */
export function parseRange(header, size) {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(header);
  if (!m) return null;
  const specs = m[1].split(',').map((s) => s.trim()).filter(Boolean);
  if (specs.length !== 1) return null;
  const r = /^(\d*)\s*-\s*(\d*)$/.exec(specs[0]);
  if (!r || (r[1] === '' && r[2] === '')) return null;
  let start;
  let end;
  if (r[1] === '') {
    // suffix range: the last N bytes
    const n = Number(r[2]);
    if (n === 0) return 'unsatisfiable';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(r[1]);
    end = r[2] === '' ? size - 1 : Math.min(Number(r[2]), size - 1);
    if (r[2] !== '' && Number(r[2]) < start) return null; // invalid: ignore the header
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

function resolveFile(roots, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  // longest mount prefix first; '/' (the root) last
  for (const [prefix, dir] of roots) {
    if (!decoded.startsWith(prefix)) continue;
    const rel = decoded.slice(prefix.length);
    const full = path.resolve(dir, '.' + path.posix.normalize('/' + rel));
    if (full !== dir && !full.startsWith(dir + path.sep)) return null;
    return full;
  }
  return null;
}

/**
 * Start the server. Options: root (directory served at /), mounts ({'/prefix/': dir}),
 * port (0 = free port), log (function called with one line per request; default: none).
 */
export async function startServer({ root, mounts = {}, port = 0, log = null } = {}) {
  if (!root) throw new Error('startServer: root is required');
  const roots = Object.entries(mounts)
    .map(([prefix, dir]) => [prefix.endsWith('/') ? prefix : prefix + '/', path.resolve(dir)])
    .sort((a, b) => b[0].length - a[0].length);
  roots.push(['/', path.resolve(root)]);
  const requests = [];

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, `http://${HOST}`);
    const entry = {
      method: req.method,
      path: url.pathname,
      range: req.headers.range ?? null,
      status: 0,
      bytes: 0,
      time: Date.now(),
    };
    requests.push(entry);
    res.on('close', () => {
      if (log) log(`${entry.method} ${entry.path}${entry.range ? ` [${entry.range}]` : ''} -> ${entry.status} ${entry.bytes} bytes`);
    });
    const send = (status, headers, body = '') => {
      entry.status = status;
      const buf = Buffer.from(body);
      res.writeHead(status, { ...CORS, 'Content-Length': buf.length, ...headers });
      if (req.method !== 'HEAD') {
        entry.bytes = buf.length;
        res.end(buf);
      } else {
        res.end();
      }
    };

    try {
      if (req.method === 'OPTIONS') return send(204, {});
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { Allow: 'GET, HEAD, OPTIONS' }, 'method not allowed\n');

      let file = resolveFile(roots, url.pathname);
      if (!file) return send(403, { 'Content-Type': 'text/plain' }, 'forbidden\n');
      let st;
      try {
        st = await fs.promises.stat(file);
        if (st.isDirectory()) {
          file = path.join(file, 'index.html');
          st = await fs.promises.stat(file);
        }
      } catch {
        return send(404, { 'Content-Type': 'text/plain' }, 'not found\n');
      }
      if (!st.isFile()) return send(404, { 'Content-Type': 'text/plain' }, 'not found\n');

      const size = st.size;
      const etag = `"${size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
      const headers = {
        'Content-Type': MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
        'Accept-Ranges': 'bytes',
        'Cache-Control': 'no-store',
        'Last-Modified': st.mtime.toUTCString(),
        ETag: etag,
      };
      let range = parseRange(req.headers.range, size);
      const ifRange = req.headers['if-range'];
      if (range && ifRange && ifRange !== etag) range = null;
      if (range === 'unsatisfiable') {
        return send(416, { ...headers, 'Content-Range': `bytes */${size}`, 'Content-Type': 'text/plain' }, '');
      }
      let start = 0;
      let end = size - 1;
      let status = 200;
      if (range) {
        ({ start, end } = range);
        status = 206;
        headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
      }
      const length = size === 0 ? 0 : end - start + 1;
      entry.status = status;
      res.writeHead(status, { ...CORS, ...headers, 'Content-Length': length });
      if (req.method === 'HEAD' || length === 0) return res.end();
      const stream = fs.createReadStream(file, { start, end });
      stream.on('data', (chunk) => {
        entry.bytes += chunk.length;
      });
      await pipeline(stream, res).catch(() => {
        /* client went away (e.g. an aborted fetch): the byte count says how far it got */
      });
    } catch (err) {
      if (!res.headersSent) send(500, { 'Content-Type': 'text/plain' }, `internal error: ${err.message}\n`);
      else res.destroy();
    }
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, resolve);
  });
  const actualPort = server.address().port;
  return {
    url: `http://${HOST}:${actualPort}/`,
    port: actualPort,
    requests,
    /** total body bytes sent for requests whose path starts with `prefix` */
    bytesServed(prefix = '/') {
      return requests.filter((r) => r.path.startsWith(prefix)).reduce((n, r) => n + r.bytes, 0);
    },
    close() {
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// Command-line entry point.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  let root = 'dist';
  let port = 0;
  let quiet = false;
  const mounts = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--root') root = args[++i];
    else if (a === '--port') port = Number(args[++i]);
    else if (a === '--quiet') quiet = true;
    else if (a === '--mount') {
      const [prefix, dir] = args[++i].split('=');
      mounts[prefix] = dir;
    } else if (a === '-h' || a === '--help') {
      console.log('usage: node tests/e2e/server.mjs [--root DIR] [--port N] [--mount /prefix/=DIR ...] [--quiet]');
      process.exit(0);
    } else {
      console.error(`server.mjs: unknown argument ${a}`);
      process.exit(2);
    }
  }
  const srv = await startServer({ root, mounts, port, log: quiet ? null : (line) => console.log(line) });
  console.log(`weightpeek: serving ${path.resolve(root)} at ${srv.url}`);
  for (const [prefix, dir] of Object.entries(mounts)) console.log(`weightpeek: serving ${path.resolve(dir)} at ${srv.url.replace(/\/$/, '')}${prefix}`);
  const stop = async () => {
    await srv.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
