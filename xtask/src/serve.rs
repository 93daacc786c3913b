//! A static file server for `web/`, for trying the page locally and for the browser
//! test.
//!
//! Browsers refuse to instantiate WebAssembly from `file://` URLs and require the
//! `application/wasm` type for streaming compilation, so the page needs a real HTTP
//! server even though every file is static.

use std::fs::File;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::thread;
use std::time::Duration;

use anyhow::{Context, Result};

/// How long a connection may sit without sending its request. Chromium opens sockets
/// ahead of need and may never use them; each costs a thread here until this passes.
const IDLE: Duration = Duration::from_secs(30);

/// A request's head larger than this is refused: our pages send a line and a few
/// headers, and nothing of ours needs more.
const MAX_HEAD: usize = 16 * 1024;

/// Serves `dir` on 127.0.0.1:`port` until the process is stopped.
pub fn serve_forever(dir: &Path, port: u16) -> Result<()> {
    let (listener, addr) = bind(port)?;
    println!(
        "==> serving {} on http://{addr}/ (Ctrl-C to stop)",
        dir.display()
    );
    accept_connections(&listener, dir);
    Ok(())
}

/// Serves `dir` from a background thread on a free port and returns the address.
///
/// The thread lives as long as the process: the test gate exits when the browser test
/// finishes, and nothing else needs the server stopped earlier.
pub fn spawn_on_free_port(dir: &Path) -> Result<SocketAddr> {
    let (listener, addr) = bind(0)?;
    let dir = dir.to_path_buf();
    thread::Builder::new()
        .name("static-server".into())
        .spawn(move || accept_connections(&listener, &dir))
        .context("could not start the static server thread")?;
    Ok(addr)
}

/// Binds only to loopback: the server exposes the whole `web/` tree, including
/// node_modules, and has no business being reachable from other machines.
fn bind(port: u16) -> Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("could not listen on 127.0.0.1:{port}"))?;
    let addr = listener.local_addr()?;
    Ok((listener, addr))
}

/// Gives every connection a thread of its own, started the moment it is accepted.
///
/// A pool of threads shared by connections stalls the page: Chromium opens up to six
/// sockets at once, some only in case it needs them, and a pool that hands a new
/// connection to a worker still sitting on an idle one leaves the request behind it
/// waiting until the browser gives up. (tiny_http 0.12, which served here before, queued
/// connections that way, and the page benches timed out navigating.) A thread per
/// connection cannot wait behind another connection.
fn accept_connections(listener: &TcpListener, dir: &Path) {
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(stream) => stream,
            Err(err) => {
                eprintln!("static server: could not accept a connection: {err}");
                continue;
            }
        };
        let dir = dir.to_path_buf();
        let spawned = thread::Builder::new()
            .name("static-response".into())
            .spawn(move || {
                if let Err(err) = serve_connection(stream, &dir) {
                    // The browser has usually just gone away mid-response; that is worth
                    // a line on stderr but never worth stopping the server.
                    eprintln!("static server: {err}");
                }
            });
        if let Err(err) = spawned {
            eprintln!("static server: could not start a thread for a connection: {err}");
        }
    }
}

/// Answers the one request a connection sends, then closes it. On loopback a new
/// connection costs nothing, and no idle keep-alive socket is left for the browser to
/// queue a later page's requests on.
fn serve_connection(mut stream: TcpStream, dir: &Path) -> io::Result<()> {
    stream.set_read_timeout(Some(IDLE))?;
    stream.set_write_timeout(Some(IDLE))?;
    let reply = match read_head(&mut stream)? {
        Head::Complete(head) => answer_head(&head, dir),
        Head::TooLarge => Reply::text(431, "request head too large\n"),
        // A socket opened ahead of need and closed (or left idle) without a request.
        Head::Nothing => return Ok(()),
    };
    reply.write_to(&mut stream)?;
    stream.flush()?;
    stream.shutdown(Shutdown::Write)
}

/// What came in before the blank line that ends a request's head.
enum Head {
    Complete(Vec<u8>),
    TooLarge,
    Nothing,
}

/// Reads up to and including the blank line that ends the request's head. Nothing
/// after it is read: the server answers only GET and HEAD, which carry no body.
fn read_head(stream: &mut impl Read) -> io::Result<Head> {
    let mut head = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        let n = match stream.read(&mut chunk) {
            Ok(n) => n,
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(Head::Nothing);
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if n == 0 {
            return Ok(Head::Nothing);
        }
        head.extend_from_slice(&chunk[..n]);
        let end = head.windows(4).position(|w| w == b"\r\n\r\n");
        if end.map_or(head.len(), |end| end + 4) > MAX_HEAD {
            return Ok(Head::TooLarge);
        }
        if let Some(end) = end {
            head.truncate(end + 4);
            return Ok(Head::Complete(head));
        }
    }
}

/// The reply to a complete request head, parsed by httparse.
fn answer_head(head: &[u8], dir: &Path) -> Reply {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(head) {
        Ok(httparse::Status::Complete(_)) => {
            let method = request.method.unwrap_or_default();
            let target = request.path.unwrap_or_default();
            answer(method, target, dir)
        }
        _ => Reply::text(400, "malformed request\n"),
    }
}

/// What the server says to `method target`: a file of `dir`, or why not.
fn answer(method: &str, target: &str, dir: &Path) -> Reply {
    let with_body = match method {
        "GET" => true,
        "HEAD" => false,
        _ => return Reply::text(405, "only GET and HEAD are served\n"),
    };
    let Some(relative) = resolve(target) else {
        return Reply::text(403, "path refused\n");
    };
    let path = dir.join(&relative);
    match File::open(&path) {
        Ok(file) => match file.metadata() {
            Ok(meta) if meta.is_file() => Reply {
                status: 200,
                content_type: content_type(&path),
                length: meta.len(),
                body: with_body.then_some(Body::File(file)),
            },
            _ => Reply::text(404, "not found\n"),
        },
        Err(_) => Reply::text(404, "not found\n"),
    }
}

/// A response: its status line and headers are written from these fields, then the body.
struct Reply {
    status: u16,
    content_type: &'static str,
    length: u64,
    /// `None` for a HEAD request, which is told the length without the bytes.
    body: Option<Body>,
}

enum Body {
    File(File),
    Text(&'static str),
}

impl Reply {
    fn text(status: u16, text: &'static str) -> Reply {
        Reply {
            status,
            content_type: "text/plain; charset=utf-8",
            length: text.len() as u64,
            body: Some(Body::Text(text)),
        }
    }

    /// Writes the whole response. Every response says `Cache-Control: no-store`: after
    /// `cargo xtask build-wasm` the next reload must load the new module, not a cached
    /// one that no longer matches the freshly generated JavaScript glue.
    fn write_to(self, out: &mut impl Write) -> io::Result<()> {
        write!(
            out,
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
             Cache-Control: no-store\r\nConnection: close\r\n\r\n",
            self.status,
            reason(self.status),
            self.content_type,
            self.length
        )?;
        match self.body {
            Some(Body::File(mut file)) => io::copy(&mut file, out).map(drop),
            Some(Body::Text(text)) => out.write_all(text.as_bytes()),
            None => Ok(()),
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        _ => "",
    }
}

/// Maps a request target to a path relative to the served directory, or `None` for
/// targets that could escape it.
///
/// Any `..` is refused outright, even one that would stay inside the directory, since
/// no page of ours needs one and a simple rule is easier to trust than normalisation.
fn resolve(target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or_default();
    // Malformed escapes pass through as written and then fail to name a file; a
    // non-UTF-8 result, which no file of ours is named with, is refused.
    let decoded = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?;
    if decoded.contains("..") || decoded.contains('\\') || decoded.contains('\0') {
        return None;
    }
    let mut relative = PathBuf::new();
    for part in decoded.split('/').filter(|part| !part.is_empty()) {
        relative.push(part);
    }
    // A lone segment like `C:` could still parse as a prefix on Windows; accept only
    // plain names so the joined path cannot leave the directory on any platform.
    if !relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    if decoded.ends_with('/') || relative.as_os_str().is_empty() {
        relative.push("index.html");
    }
    Some(relative)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|ext| ext.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css; charset=utf-8",
        Some("json" | "map") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_maps_directories_to_index_and_refuses_escapes() {
        assert_eq!(resolve("/"), Some(PathBuf::from("index.html")));
        assert_eq!(resolve("/?x=1#c=2"), Some(PathBuf::from("index.html")));
        assert_eq!(resolve("/pkg/a.js"), Some(PathBuf::from("pkg/a.js")));
        assert_eq!(resolve("/tests/"), Some(PathBuf::from("tests/index.html")));
        assert_eq!(resolve("/a%20b.css"), Some(PathBuf::from("a b.css")));
        assert_eq!(resolve("/../Cargo.toml"), None);
        assert_eq!(resolve("/pkg/%2e%2e/%2e%2e/Cargo.toml"), None);
        // A malformed escape names no file of ours and ends in a 404; non-UTF-8 is refused.
        assert_eq!(resolve("/a%zz"), Some(PathBuf::from("a%zz")));
        assert_eq!(resolve("/a%ff"), None);
    }

    #[test]
    fn content_types_cover_the_page_assets() {
        assert_eq!(content_type(Path::new("x.wasm")), "application/wasm");
        assert_eq!(
            content_type(Path::new("x.mjs")),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(
            content_type(Path::new("x.js")),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type(Path::new("x.svg")), "image/svg+xml");
        assert_eq!(content_type(Path::new("x")), "application/octet-stream");
    }

    /// Sends one raw request and returns the whole response text. The read times out
    /// rather than hanging the test when the server never answers.
    fn send(addr: SocketAddr, request: &str) -> String {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream
            .read_to_string(&mut response)
            .unwrap_or_else(|err| panic!("no answer to {request:?}: {err}"));
        response
    }

    fn get(addr: SocketAddr, target: &str) -> String {
        send(
            addr,
            &format!("GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n"),
        )
    }

    /// The status code from a response's status line, whatever HTTP version it names.
    fn status(response: &str) -> &str {
        response.split(' ').nth(1).unwrap_or_default()
    }

    #[test]
    fn server_serves_files_with_types_and_refuses_the_rest() {
        let dir = std::env::temp_dir().join(format!("xtask-serve-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("pkg")).unwrap();
        std::fs::write(dir.join("index.html"), "<p>home</p>").unwrap();
        std::fs::write(dir.join("pkg/m.wasm"), b"\0asm").unwrap();
        let addr = spawn_on_free_port(&dir).unwrap();

        let home = get(addr, "/");
        assert_eq!(status(&home), "200", "{home}");
        assert!(home.contains("text/html"), "{home}");
        assert!(home.contains("Cache-Control: no-store"), "{home}");
        assert!(home.ends_with("<p>home</p>"), "{home}");

        let wasm = get(addr, "/pkg/m.wasm");
        assert!(wasm.contains("Content-Type: application/wasm"), "{wasm}");

        assert_eq!(status(&get(addr, "/missing.js")), "404");
        assert_eq!(status(&get(addr, "/pkg")), "404");
        assert_eq!(status(&get(addr, "/../index.html")), "403");

        let head = send(addr, "HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n");
        assert_eq!(status(&head), "200", "{head}");
        assert!(head.contains("Content-Length: 11\r\n"), "{head}");
        assert!(
            head.ends_with("\r\n\r\n"),
            "a HEAD reply has no body: {head}"
        );

        let post = send(addr, "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
        assert_eq!(status(&post), "405", "{post}");
        assert_eq!(status(&send(addr, "nonsense\r\n\r\n")), "400");
        let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "y".repeat(MAX_HEAD));
        assert_eq!(status(&send(addr, &huge)), "431");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Chromium opens several sockets at once and may send nothing on some of them. A
    /// request on one opened alongside them must still be answered while they sit idle.
    /// tiny_http 0.12's shared pool left that request unanswered in 5 of 20 such rounds.
    #[test]
    fn idle_sockets_do_not_hold_up_a_request() {
        let dir = std::env::temp_dir().join(format!("xtask-idle-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.html"), "<p>home</p>").unwrap();
        let addr = spawn_on_free_port(&dir).unwrap();

        for _ in 0..20 {
            let start = std::sync::Arc::new(std::sync::Barrier::new(7));
            let idle: Vec<_> = (0..6)
                .map(|_| {
                    let start = start.clone();
                    thread::spawn(move || {
                        start.wait();
                        TcpStream::connect(addr).unwrap()
                    })
                })
                .collect();
            start.wait();
            let home = get(addr, "/");
            assert_eq!(status(&home), "200", "{home}");
            assert!(home.ends_with("<p>home</p>"), "{home}");
            for socket in idle {
                drop(socket.join().unwrap());
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
