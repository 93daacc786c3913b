//! heaplab's build and test automation, run as `cargo xtask <command>`.
//!
//! Everything a developer or CI needs beyond plain `cargo` lives here, so that the
//! web build and the full gate are one command each and pin their own tools instead
//! of relying on whatever happens to be installed.

mod bench;
mod dist;
mod fuzz;
mod gate;
mod long_bench;
mod page_bench;
mod real_bench;
mod report;
mod serve;
mod teach_bench;
mod tools;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  build-wasm          build heaplab-wasm and run wasm-bindgen into web/pkg
  serve [--port N]    build-wasm, then serve web/ on http://127.0.0.1:N (default 8000)
  dist [--out DIR]    build-wasm, then write the page as a static site into DIR (default
                      target/dist) for any static host, at its root or under a sub-path
  test                the whole gate: fmt, clippy, tests, wasm build, browser test
  fuzz [--secs N] [TARGET...]
                      run the fuzz targets in fuzz/ with cargo-fuzz on nightly, N
                      seconds each (60); a crash becomes a file in fuzz/regressions/
  bench [--quick] [ARGS]
                      every benchmark, ending with one markdown table of medians against
                      their targets and the machine they ran on: the simulator's events/s
                      per family (criterion), trace import end to end beside `wc -l` and
                      `zcat`, real memory against glibc, mimalloc and jemalloc, glibc-like's
                      fidelity, teaching moments, the page in headless Chromium against
                      `heaplab run`, the wasm sizes, and long runs (100 M events natively,
                      every MallocBench port over real memory, a recorded program streamed
                      through the page). `--quick` runs the same at smaller sizes in a few
                      minutes; `--page`, `--teach` or `--long` runs only that area;
                      `--table` prints the last report again; other ARGS go to the
                      simulator's criterion bench (a filter, say), which then runs alone
";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<()> {
    let root = project_root();
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        bail!("no command given");
    };
    match command.as_str() {
        "build-wasm" => {
            no_more_args(rest)?;
            tools::build_wasm(&root)
        }
        "serve" => {
            let port = parse_port(rest)?;
            tools::build_wasm(&root)?;
            serve::serve_forever(&root.join("web"), port)
        }
        "dist" => {
            let out =
                dist::parse_out(rest)?.unwrap_or_else(|| dist::default_out(&target_dir(&root)));
            tools::build_wasm(&root)?;
            dist::write_site(&root.join("web"), &out)?;
            println!("==> the static site is in {}", out.display());
            Ok(())
        }
        "test" => {
            no_more_args(rest)?;
            gate::run(&root)
        }
        "bench" => bench::run(&root, rest),
        "fuzz" => fuzz::run(&root, rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => {
            eprint!("{USAGE}");
            bail!("unknown command `{other}`")
        }
    }
}

fn no_more_args(rest: &[String]) -> Result<()> {
    match rest.first() {
        Some(extra) => bail!("unexpected argument `{extra}`"),
        None => Ok(()),
    }
}

/// Reads `--port N` or `--port=N`; the default 8000 is what the README links to.
fn parse_port(rest: &[String]) -> Result<u16> {
    let mut port = 8000;
    let mut args = rest.iter();
    while let Some(arg) = args.next() {
        let value = if arg == "--port" {
            args.next().context("`--port` needs a value")?.as_str()
        } else if let Some(value) = arg.strip_prefix("--port=") {
            value
        } else {
            bail!("unexpected argument `{arg}`");
        };
        port = value
            .parse()
            .with_context(|| format!("`--port {value}` is not a port number"))?;
    }
    Ok(port)
}

/// The workspace root, found from this crate's manifest directory so that every
/// command behaves the same whichever directory `cargo xtask` is started from.
///
/// `cargo run` sets `CARGO_MANIFEST_DIR` at run time too, and that value is preferred:
/// the one compiled in goes stale when a checkout is copied or moved together with its
/// still-fresh target directory, and the gate would then check the old location.
fn project_root() -> PathBuf {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest_dir
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// Where cargo puts build output, honouring `CARGO_TARGET_DIR` as cargo itself does
/// (relative to the directory cargo runs in, which is always the root here).
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(|dir| root.join(dir))
        .unwrap_or_else(|| root.join("target"))
}

/// Cargo as chosen by the `cargo xtask` invocation, so a toolchain override applies
/// to the nested builds too.
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Prints the command line, runs it in `dir` with inherited output, and fails if it
/// does not exit successfully; printing first means a failing gate step is obvious.
fn run_cmd(cmd: &mut Command, dir: &Path) -> Result<()> {
    let shown = display(cmd);
    println!("$ {shown}");
    let status = cmd
        .current_dir(dir)
        .status()
        .with_context(|| format!("could not start `{shown}`"))?;
    if !status.success() {
        bail!("`{shown}` failed ({status})");
    }
    Ok(())
}

/// Runs a command for its standard output, without echoing it, for tool probes whose
/// failure is an answer (the tool is missing) rather than an error.
fn probe(cmd: &mut Command) -> Option<String> {
    let output = cmd.output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

fn display(cmd: &Command) -> String {
    let mut shown = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        shown.push(' ');
        shown.push_str(&arg.to_string_lossy());
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn port_defaults_and_parses_both_spellings() {
        assert_eq!(parse_port(&[]).unwrap(), 8000);
        assert_eq!(parse_port(&args(&["--port", "9001"])).unwrap(), 9001);
        assert_eq!(parse_port(&args(&["--port=9002"])).unwrap(), 9002);
        assert!(parse_port(&args(&["--port"])).is_err());
        assert!(parse_port(&args(&["--port", "70000"])).is_err());
        assert!(parse_port(&args(&["--verbose"])).is_err());
    }

    #[test]
    fn unknown_commands_are_refused() {
        assert!(run(args(&["frobnicate"])).is_err());
        assert!(run(args(&["build-wasm", "extra"])).is_err());
        assert!(run(Vec::new()).is_err());
    }
}
