//! `heaplab link` prints the page's link for a run or a seed scenario, so whoever opens
//! it sees the same run, and `heaplab run --link` replays it here.

use std::ffi::OsString;
use std::fs::File;
use std::io::Read;

use heaplab_app::link::{self, LinkState, LinkWorkload, MAX_EMBEDDED_TEXT_BYTES};

use crate::cli::LinkArgs;
use crate::error::CliError;
use crate::input;

pub fn run(args: LinkArgs) -> Result<(), CliError> {
    let state = if let Some(id) = &args.scenario {
        heaplab_app::scenario::find(id).map_err(CliError::input)?;
        LinkState {
            scenario: Some(id.clone()),
            ..LinkState::default()
        }
    } else if args.sweep {
        // A misspelt --metric is named as `heaplab sweep` names it.
        crate::output::sweep::metrics(&args.metric, "peak_resident_bytes")?;
        let sweep = input::sweep::from_flags(&args.input, &args.vary, args.metric.first())?
            .plotting(args.metric.get(1..).unwrap_or_default())
            .map_err(|e| CliError::input(format!("--metric: {e}")))?;
        let mut state = sweep.link_state().map_err(|e| CliError::input(e.message))?;
        // A sweep of your own allocator's knobs carries the module as a run's link does.
        state.modules = module_refs(std::slice::from_ref(&sweep.base));
        state
    } else if let Some(url) = &args.input.link {
        // An older link comes out in today's form.
        link::decode(url).map_err(|e| CliError::input(e.message))?
    } else {
        from_runs(&args)?
    };
    let base_url = base_url(args.base_url.as_deref(), std::env::var_os(BASE_URL_ENV))?;
    let url = link::url(&base_url, &state);
    // The link must open: the same checks the page makes, before anyone is sent it.
    link::decode(&url).map_err(|e| CliError::input(e.message))?;
    println!("{url}");
    Ok(())
}

/// The environment variable a team sets once to the address it hosts the page at.
const BASE_URL_ENV: &str = "HEAPLAB_BASE_URL";

/// Where `cargo xtask serve` serves the page, for links made with no address given.
const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8000/";

/// The page's address: `--base-url`, else `HEAPLAB_BASE_URL` when set and not empty
/// (an empty one is how a shell unsets it for one command), else the local page. A bad
/// address is refused naming where it came from, since a link that opens nothing is
/// only found out by whoever it is sent to.
fn base_url(flag: Option<&str>, env: Option<OsString>) -> Result<String, CliError> {
    let (value, source) = match (flag, env) {
        (Some(flag), _) => (flag.to_string(), "--base-url"),
        (None, Some(env)) if !env.is_empty() => {
            let value = env.into_string().map_err(|env| {
                CliError::input(format!(
                    "{BASE_URL_ENV}: {} is not valid UTF-8",
                    env.to_string_lossy()
                ))
            })?;
            (value, BASE_URL_ENV)
        }
        _ => return Ok(DEFAULT_BASE_URL.to_string()),
    };
    check_base_url(&value).map_err(|why| CliError::input(format!("{source}: {value} {why}")))?;
    Ok(value)
}

/// Checks that `url` is an absolute http or https address with a host, and a port if
/// it names one, with nothing in it a browser would have to guess at. The words after
/// the address are what is wrong with it.
fn check_base_url(url: &str) -> Result<(), String> {
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("has a space or a control character in it".into());
    }
    let scheme_ok = url.split_once("://").filter(|(scheme, _)| {
        scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
    });
    let Some((_, rest)) = scheme_ok else {
        return Err("is not an http:// or https:// address".into());
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    // Whatever stands before an `@` is a user name and password, not the host.
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let port = if let Some(bracketed) = host_port.strip_prefix('[') {
        let (ip, after) = bracketed
            .split_once(']')
            .ok_or("has a `[` before its host and no `]` after it")?;
        if ip.is_empty()
            || !ip
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
        {
            return Err(format!("has [{ip}] for a host, not an IPv6 address"));
        }
        match after {
            "" => None,
            _ => Some(
                after
                    .strip_prefix(':')
                    .ok_or("has more than a port after its host")?,
            ),
        }
    } else {
        let (host, port) = match host_port.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        };
        if host.is_empty() {
            return Err("names no host".into());
        }
        let allowed = |c: char| c.is_alphanumeric() || matches!(c, '-' | '.' | '_');
        if let Some(bad) = host.chars().find(|&c| !allowed(c)) {
            return Err(format!("has `{bad}` in its host"));
        }
        port
    };
    match port {
        Some(port) if port.parse::<u16>().is_err() => {
            Err(format!("has `{port}` for a port, not a number up to 65535"))
        }
        _ => Ok(()),
    }
}

/// The state of the runs the flags describe; a trace file is carried in the link when it
/// is small text, and otherwise named by its size and hash.
fn from_runs(args: &LinkArgs) -> Result<LinkState, CliError> {
    let configs = input::configs(&args.input)?;
    let resolved = configs
        .iter()
        .map(|c| c.resolve().map_err(|e| CliError::input(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let mut state = LinkState::from_configs(&resolved).map_err(|e| CliError::input(e.message))?;
    state.modules = module_refs(&resolved);
    if let Some(path) = resolved[0].workload.path.as_deref() {
        state.workload = trace_workload(path)?;
        state.lenient = args.lenient;
        state.strict = args.strict;
    } else {
        for (set, flag) in [(args.lenient, "--lenient"), (args.strict, "--strict")] {
            if set {
                eprintln!("heaplab: {flag} applies to trace files, and this link reads none");
            }
        }
    }
    Ok(state)
}

/// The allocator modules the configurations run, each once: carried when small, named
/// otherwise.
fn module_refs(configs: &[heaplab_core::config::RunConfig]) -> Vec<link::ModuleRef> {
    let sha_knob = heaplab_core::policy::hosted::Knobs::NAMES.sha256;
    let mut refs: Vec<link::ModuleRef> = Vec::new();
    for c in configs {
        let Some(sha) = c.policy.params.get(sha_knob).and_then(|v| v.as_str()) else {
            continue;
        };
        if refs.iter().any(|r| r.sha256 == sha) {
            continue;
        }
        if let Some(m) = heaplab_mm::AllocatorModule::loaded(sha) {
            refs.push(link::ModuleRef::of(m.name(), m.wasm()));
        }
    }
    refs
}

fn trace_workload(path: &str) -> Result<LinkWorkload, CliError> {
    let open = || File::open(path).map_err(|e| CliError::input(format!("{path}: {e}")));
    let size = open()?
        .metadata()
        .map_err(|e| CliError::input(format!("{path}: {e}")))?
        .len();
    if size <= MAX_EMBEDDED_TEXT_BYTES as u64 {
        let mut bytes = Vec::new();
        open()?
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::input(format!("{path}: {e}")))?;
        // Only text that deflates small travels inside a link; a gzip'd or larger trace
        // is named instead, by the bytes already read.
        return Ok(match link::embeddable(&bytes) {
            Some(text) => LinkWorkload::Embedded {
                name: link::trace_ref(path, &[]).name,
                text: text.to_string(),
            },
            None => LinkWorkload::Trace(link::trace_ref(path, &bytes)),
        });
    }
    let found =
        link::trace_ref_of(path, open()?).map_err(|e| CliError::input(format!("{path}: {e}")))?;
    Ok(LinkWorkload::Trace(found))
}
