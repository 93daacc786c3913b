//! A static file server for `web/`, for trying the page locally and for the browser
//! test.
//!
//! Browsers refuse to instantiate WebAssembly from `file://` URLs and require the
//! `application/wasm` type for streaming compilation, so the page needs a real HTTP
//! server even though every file is static.

use std::fs::File;
use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::thread;

use anyhow::{anyhow, Context, Result};
use tiny_http::{Header, Method, Request, Response, Server};

/// Serves `dir` on 127.0.0.1:`port` until the process is stopped.
pub fn serve_forever(dir: &Path, port: u16) -> Result<()> {
    let (server, addr) = bind(port)?;
    println!(
        "==> serving {} on http://{addr}/ (Ctrl-C to stop)",
        dir.display()
    );
    handle_requests(&server, dir);
    Ok(())
}

/// Serves `dir` from a background thread on a free port and returns the address.
///
/// The thread lives as long as the process: the test gate exits when the browser test
/// finishes, and nothing else needs the server stopped earlier.
pub fn spawn_on_free_port(dir: &Path) -> Result<SocketAddr> {
    let (server, addr) = bind(0)?;
    let dir = dir.to_path_buf();
    thread::Builder::new()
        .name("static-server".into())
        .spawn(move || handle_requests(&server, &dir))
        .context("could not start the static server thread")?;
    Ok(addr)
}

/// Binds only to loopback: the server exposes the whole `web/` tree, including
/// node_modules, and has no business being reachable from other machines.
fn bind(port: u16) -> Result<(Server, SocketAddr)> {
    let server = Server::http(("127.0.0.1", port))
        .map_err(|err| anyhow!("could not listen on 127.0.0.1:{port}: {err}"))?;
    let addr = server
        .server_addr()
        .to_ip()
        .context("the static server is not listening on an IP address")?;
    Ok((server, addr))
}

/// Answers each request on a thread of its own. One thread for all of them stalled every
/// page for seconds at a time: a browser that drops a page while the 1.7 MB wasm module
/// is still on its way can keep the connection open without reading it, and the write
/// then blocks until the browser closes the connection, while the page loads after it
/// wait in line behind.
fn handle_requests(server: &Server, dir: &Path) {
    for request in server.incoming_requests() {
        let dir = dir.to_path_buf();
        let spawned = thread::Builder::new()
            .name("static-response".into())
            .spawn(move || {
                let url = request.url().to_owned();
                if let Err(err) = respond(request, &dir) {
                    // The browser has usually just gone away mid-response; that is worth
                    // a line on stderr but never worth stopping the server.
                    eprintln!("static server: {url}: {err}");
                }
            });
        if let Err(err) = spawned {
            eprintln!("static server: could not start a thread for a request: {err}");
        }
    }
}

fn respond(request: Request, dir: &Path) -> std::io::Result<()> {
    if !matches!(request.method(), Method::Get | Method::Head) {
        return request.respond(text_response(405, "only GET and HEAD are served\n"));
    }
    let Some(relative) = resolve(request.url()) else {
        return request.respond(text_response(403, "path refused\n"));
    };
    let path = dir.join(&relative);
    let file = match File::open(&path) {
        Ok(file) if file.metadata()?.is_file() => file,
        _ => return request.respond(text_response(404, "not found\n")),
    };
    // Every response closes its connection: on loopback a new one costs nothing, and no
    // idle keep-alive socket is left for the browser to queue a later page's requests on.
    let response = Response::from_file(file)
        .with_header(header("Content-Type", content_type(&path)))
        .with_header(no_store())
        .with_header(header("Connection", "close"));
    request.respond(response)
}

/// Maps a request target to a path relative to the served directory, or `None` for
/// targets that could escape it.
///
/// Any `..` is refused outright, even one that would stay inside the directory, since
/// no page of ours needs one and a simple rule is easier to trust than normalisation.
fn resolve(target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or_default();
    let decoded = percent_decode(path)?;
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

/// Decodes `%XX` escapes; `None` for malformed escapes or non-UTF-8 results, which no
/// file of ours is named with.
fn percent_decode(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
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

/// Tells the browser never to reuse a response: after `cargo xtask build-wasm` the
/// next reload must load the new module, not a cached one that no longer matches the
/// freshly generated JavaScript glue.
fn no_store() -> Header {
    header("Cache-Control", "no-store")
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes())
        .expect("header names and values here are fixed ASCII")
}

fn text_response(status: u16, body: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_string(body)
        .with_status_code(status)
        .with_header(header("Content-Type", "text/plain; charset=utf-8"))
        .with_header(no_store())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    #[test]
    fn resolve_maps_directories_to_index_and_refuses_escapes() {
        assert_eq!(resolve("/"), Some(PathBuf::from("index.html")));
        assert_eq!(resolve("/?x=1#c=2"), Some(PathBuf::from("index.html")));
        assert_eq!(resolve("/pkg/a.js"), Some(PathBuf::from("pkg/a.js")));
        assert_eq!(resolve("/tests/"), Some(PathBuf::from("tests/index.html")));
        assert_eq!(resolve("/a%20b.css"), Some(PathBuf::from("a b.css")));
        assert_eq!(resolve("/../Cargo.toml"), None);
        assert_eq!(resolve("/pkg/%2e%2e/%2e%2e/Cargo.toml"), None);
        assert_eq!(resolve("/a%2"), None);
        assert_eq!(resolve("/a%zz"), None);
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

    /// Sends one raw HTTP/1.0 request and returns the whole response text.
    fn get(addr: SocketAddr, target: &str) -> String {
        let mut stream = TcpStream::connect(addr).unwrap();
        write!(stream, "GET {target} HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
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
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
