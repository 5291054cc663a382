//! A small HTTP/1.1 server on 127.0.0.1 for the CLI's remote tests: files of a directory with
//! Range support (206 + Content-Range), and optionally a mock Hub in front of it (`resolve/`
//! answered with a 302 to the file server, the tree API listing the directory). Every request
//! is logged: path, Range header, Authorization present, body bytes sent. One connection at a
//! time, `Connection: close`; it stops when dropped (its listener is non-blocking and polled).

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request as served.
#[derive(Debug, Clone)]
pub struct Logged {
    /// Request path with query.
    pub path: String,
    /// The Range header, if any.
    pub range: Option<String>,
    /// Whether an Authorization header came.
    pub authorization: bool,
    /// Status answered.
    pub status: u16,
    /// Body bytes sent.
    pub bytes: u64,
}

/// What a server does with a path.
#[derive(Clone)]
enum Mode {
    /// Serve files under the root.
    Files(PathBuf),
    /// A mock Hub: `/{owner}/{repo}/resolve/main/{path}` → 302 to `{cdn}/{path}` (with a new
    /// `?sig=N` each time when `signed`, as the Hub's signed CDN URLs);
    /// `/api/models/{owner}/{repo}/tree/main?recursive=true` → the listing of `root`.
    Hub {
        cdn: String,
        root: PathBuf,
        signed: Option<Arc<AtomicUsize>>,
    },
    /// Files under the root, each URL (path and query) answered once: asked again, 403, as a
    /// signed CDN URL that has expired.
    Expiring(PathBuf, Arc<Mutex<std::collections::HashSet<String>>>),
    /// Files under the root, misbehaving as the first path segment says: `/wrong-range/`
    /// (a 206 for other bytes), `/short/` (a body shorter than its Content-Length, then the
    /// connection closed), `/gzip/` (Content-Encoding: gzip on a 206), `/html/` (a web page),
    /// `/fail/` (always 503), `/loop/` (a redirect to itself), `/norange/` (200 and the whole
    /// file for any Range), `/long/` (a 206 with more bytes than asked).
    Hostile(PathBuf),
}

/// A running server.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// Every request served, in order.
    pub log: Arc<Mutex<Vec<Logged>>>,
    /// Connections accepted, and connections whose serving ended (logged or not): a client
    /// can read its whole answer and exit before the server thread logs it.
    accepted: Arc<AtomicUsize>,
    ended: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Server {
    /// Serves the files under `root`.
    pub fn files(root: &Path) -> Server {
        start(Mode::Files(root.to_path_buf()))
    }

    /// Files under `root` served by a misbehaving server ([`Mode::Hostile`]).
    pub fn hostile(root: &Path) -> Server {
        start(Mode::Hostile(root.to_path_buf()))
    }

    /// A mock Hub whose files are `root`'s, downloaded from `cdn` (a [`Server::files`] of it).
    pub fn hub(cdn: &Server, root: &Path) -> Server {
        start(Mode::Hub {
            cdn: cdn.url.clone(),
            root: root.to_path_buf(),
            signed: None,
        })
    }

    /// Files under `root` whose URLs expire once used ([`Mode::Expiring`]).
    pub fn expiring(root: &Path) -> Server {
        start(Mode::Expiring(root.to_path_buf(), Arc::default()))
    }

    /// A mock Hub redirecting to `cdn` with a new signature (`?sig=N`) each time.
    pub fn signed_hub(cdn: &Server, root: &Path) -> Server {
        start(Mode::Hub {
            cdn: cdn.url.clone(),
            root: root.to_path_buf(),
            signed: Some(Arc::default()),
        })
    }

    /// The requests logged so far, once every connection accepted has been served (waits up
    /// to 5 s for the one in hand: a client that has its answer may exit before it is logged).
    pub fn requests(&self) -> Vec<Logged> {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while self.ended.load(Ordering::SeqCst) < self.accepted.load(Ordering::SeqCst)
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        self.log.lock().unwrap().clone()
    }

    /// Body bytes sent so far.
    pub fn bytes(&self) -> u64 {
        self.requests().iter().map(|r| r.bytes).sum()
    }
}

fn start(mode: Mode) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let (accepted, ended) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (log2, stop2) = (log.clone(), stop.clone());
    let (accepted2, ended2) = (accepted.clone(), ended.clone());
    let thread = std::thread::spawn(move || {
        // Bounded: the tests finish in seconds; the server gives up after 10 minutes anyway.
        let deadline = std::time::Instant::now() + Duration::from_secs(600);
        while !stop2.load(Ordering::SeqCst) && std::time::Instant::now() < deadline {
            match listener.accept() {
                Ok((s, _)) => {
                    accepted2.fetch_add(1, Ordering::SeqCst);
                    let _ = s.set_nonblocking(false);
                    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
                    if let Some(l) = serve(s, &mode) {
                        log2.lock().unwrap().push(l);
                    }
                    ended2.fetch_add(1, Ordering::SeqCst);
                }
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    });
    Server {
        url,
        log,
        accepted,
        ended,
        stop,
        thread: Some(thread),
    }
}

fn serve(mut s: TcpStream, mode: &Mode) -> Option<Logged> {
    let mut reader = BufReader::new(s.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_string();
    let mut range = None;
    let mut authorization = false;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        let (k, v) = h.split_once(':')?;
        match k.trim().to_ascii_lowercase().as_str() {
            "range" => range = Some(v.trim().to_string()),
            "authorization" => authorization = true,
            _ => {}
        }
    }
    let mut logged = Logged {
        path: path.clone(),
        range: range.clone(),
        authorization,
        status: 0,
        bytes: 0,
    };
    let mut declared_extra = 0u64;
    let (status, headers, body): (u16, Vec<(String, String)>, Body) = match mode {
        Mode::Files(root) => file_answer(root, &path, range.as_deref()),
        Mode::Hub { cdn, root, signed } => {
            let sig = signed
                .as_ref()
                .map(|n| format!("?sig={}", n.fetch_add(1, Ordering::SeqCst) + 1));
            hub_answer(cdn, root, &path, sig.as_deref().unwrap_or(""))
        }
        Mode::Expiring(root, seen) => {
            if seen.lock().unwrap().insert(path.clone()) {
                file_answer(root, &path, range.as_deref())
            } else {
                (
                    403,
                    Vec::new(),
                    Body::Bytes(b"Request has expired".to_vec()),
                )
            }
        }
        Mode::Hostile(root) => {
            let (kind, rest) = path
                .trim_start_matches('/')
                .split_once('/')
                .unwrap_or(("", ""));
            let rest = format!("/{rest}");
            match kind {
                "wrong-range" => {
                    let (st, mut h, b) = file_answer(root, &rest, range.as_deref());
                    for (k, v) in &mut h {
                        if k == "Content-Range" {
                            *v = v.replacen("bytes 0-", "bytes 1-", 1);
                        }
                    }
                    (st, h, b)
                }
                "short" => {
                    declared_extra = 1000;
                    file_answer(root, &rest, range.as_deref())
                }
                "gzip" => {
                    let (st, mut h, b) = file_answer(root, &rest, range.as_deref());
                    h.push(("Content-Encoding".into(), "gzip".into()));
                    (st, h, b)
                }
                "html" => (
                    200,
                    vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
                    Body::Bytes(b"<!doctype html><title>a page</title>".to_vec()),
                ),
                "fail" => (503, Vec::new(), Body::Bytes(b"busy".to_vec())),
                "loop" => (
                    302,
                    vec![("Location".into(), path.clone())],
                    Body::Bytes(Vec::new()),
                ),
                "norange" => file_answer(root, &rest, None),
                "huge" => {
                    // A whole small file (an index) whose Content-Length passes every cap.
                    declared_extra = 1 << 30;
                    (200, Vec::new(), Body::Bytes(b"{}".to_vec()))
                }
                "long" => {
                    let (st, h, b) = file_answer(root, &rest, range.as_deref());
                    match b {
                        Body::File(p, a, n) if st == 206 => {
                            // Content-Length says more than the range; the body has it too.
                            (st, h, Body::File(p, a, n + 100))
                        }
                        other => (st, h, other),
                    }
                }
                _ => not_found(),
            }
        }
    };
    logged.status = status;
    let reason = match status {
        200 => "OK",
        206 => "Partial Content",
        302 => "Found",
        403 => "Forbidden",
        503 => "Service Unavailable",
        404 => "Not Found",
        416 => "Range Not Satisfiable",
        _ => "Error",
    };
    let mut head = format!("HTTP/1.1 {status} {reason}\r\nConnection: close\r\n");
    let len = body.len() + declared_extra;
    for (k, v) in &headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {len}\r\n\r\n"));
    s.write_all(head.as_bytes()).ok()?;
    logged.bytes = body.write_to(&mut s);
    let _ = s.flush();
    Some(logged)
}

/// A body: bytes, or a file range streamed.
enum Body {
    Bytes(Vec<u8>),
    File(PathBuf, u64, u64),
}

impl Body {
    fn len(&self) -> u64 {
        match self {
            Body::Bytes(b) => b.len() as u64,
            Body::File(_, _, n) => *n,
        }
    }

    /// Writes the body; the bytes written (fewer when the client hangs up).
    fn write_to(&self, s: &mut TcpStream) -> u64 {
        match self {
            Body::Bytes(b) => {
                if s.write_all(b).is_ok() {
                    b.len() as u64
                } else {
                    0
                }
            }
            Body::File(p, start, n) => {
                let Ok(mut f) = std::fs::File::open(p) else {
                    return 0;
                };
                if f.seek(SeekFrom::Start(*start)).is_err() {
                    return 0;
                }
                let mut left = *n;
                let mut sent = 0;
                let mut buf = vec![0u8; 64 << 10];
                while left > 0 {
                    let k = left.min(buf.len() as u64) as usize;
                    if f.read_exact(&mut buf[..k]).is_err() || s.write_all(&buf[..k]).is_err() {
                        break;
                    }
                    left -= k as u64;
                    sent += k as u64;
                }
                sent
            }
        }
    }
}

fn not_found() -> (u16, Vec<(String, String)>, Body) {
    (404, Vec::new(), Body::Bytes(b"not found".to_vec()))
}

fn file_answer(root: &Path, path: &str, range: Option<&str>) -> (u16, Vec<(String, String)>, Body) {
    let rel = path.split('?').next().unwrap_or("").trim_start_matches('/');
    if rel.split('/').any(|s| s == "..") {
        return not_found();
    }
    let p = root.join(rel);
    let Ok(meta) = std::fs::metadata(&p) else {
        return not_found();
    };
    if !meta.is_file() {
        return not_found();
    }
    let size = meta.len();
    let ct = (
        "Content-Type".to_string(),
        "application/octet-stream".to_string(),
    );
    let Some(r) = range.and_then(|r| r.strip_prefix("bytes=")) else {
        return (200, vec![ct], Body::File(p, 0, size));
    };
    let (a, b) = r.split_once('-').unwrap_or((r, ""));
    let a: u64 = a.parse().unwrap_or(u64::MAX);
    let b: u64 = b
        .parse()
        .unwrap_or(size.saturating_sub(1))
        .min(size.saturating_sub(1));
    if a > b || a >= size {
        return (
            416,
            vec![("Content-Range".into(), format!("bytes */{size}"))],
            Body::Bytes(Vec::new()),
        );
    }
    (
        206,
        vec![
            ct,
            ("Content-Range".into(), format!("bytes {a}-{b}/{size}")),
        ],
        Body::File(p, a, b - a + 1),
    )
}

fn hub_answer(cdn: &str, root: &Path, path: &str, sig: &str) -> (u16, Vec<(String, String)>, Body) {
    let clean = path.split('?').next().unwrap_or("");
    let segs: Vec<&str> = clean.trim_start_matches('/').split('/').collect();
    match segs.as_slice() {
        ["api", "models", _owner, _repo, "tree", "main"] => {
            let mut items = Vec::new();
            list(root, root, &mut items);
            let json = serde_json::to_vec(&items).unwrap();
            (
                200,
                vec![("Content-Type".into(), "application/json".into())],
                Body::Bytes(json),
            )
        }
        [_owner, _repo, "resolve", "main", rest @ ..] if !rest.is_empty() => {
            let target = format!("{cdn}/{}{sig}", rest.join("/"));
            if root.join(rest.join("/")).is_file() {
                (
                    302,
                    vec![("Location".into(), target)],
                    Body::Bytes(Vec::new()),
                )
            } else {
                not_found()
            }
        }
        _ => not_found(),
    }
}

fn list(root: &Path, dir: &Path, out: &mut Vec<serde_json::Value>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            list(root, &p, out);
        } else if let Ok(m) = e.metadata() {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push(serde_json::json!({"type": "file", "path": rel, "size": m.len()}));
        }
    }
}
