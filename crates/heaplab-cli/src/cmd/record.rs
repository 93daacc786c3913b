//! `heaplab record` runs a program with `heaplab-preload` loaded and reports its traces.
//!
//! `heaplab record -o prog.trace -- prog args` waits for the program, then says where its
//! traces went and what they hold. The library does the recording (see
//! `crates/heaplab-preload`); this sets it up through the environment: `LD_PRELOAD`, and
//! `HEAPLAB_TRACE`, the output made absolute so a command that changes directory still
//! writes there. The command writes the output; every process it starts writes
//! `<stem>.<pid>.trace` beside it. With `--callers` (`HEAPLAB_CALLERS=1`) each
//! allocation's line carries its call site, which [`sites`] names after the run.

mod sites;

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

use heaplab_core::format::{format_count, format_counted, format_exact_bytes};
use heaplab_record::Counts;

use crate::cli::RecordArgs;
use crate::error::CliError;

const LIBRARY: &str = "libheaplab_preload.so";

pub fn run(args: RecordArgs) -> Result<(), CliError> {
    if cfg!(not(target_os = "linux")) {
        return Err(CliError::input(
            "heaplab record works on Linux only (it records through LD_PRELOAD)",
        ));
    }
    let library = find_library(args.preload.as_deref())?;
    let output = std::path::absolute(&args.output)
        .map_err(|e| CliError::input(format!("{}: {e}", args.output.display())))?;
    let dir = output.parent().unwrap_or(Path::new("/")).to_path_buf();
    if !dir.is_dir() {
        return Err(CliError::input(format!(
            "{}: the directory {} does not exist",
            args.output.display(),
            dir.display()
        )));
    }
    // The traces of an earlier recording to the same path would be mistaken for this
    // one's: they are replaced, as the output itself is.
    for old in traces(&output) {
        std::fs::remove_file(&old)
            .map_err(|e| CliError::failed(format!("cannot remove {}: {e}", old.display())))?;
    }

    let program = &args.command[0];
    let mut preload = library.into_os_string();
    if let Some(existing) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
        preload.push(":");
        preload.push(existing);
    }
    let status = Command::new(program)
        .args(&args.command[1..])
        .env("LD_PRELOAD", &preload)
        .env("HEAPLAB_TRACE", &output)
        .env("HEAPLAB_CALLERS", if args.callers { "1" } else { "0" })
        // Set by the recorded command for its children; one left over from a recording
        // of heaplab itself would make the command think it is a child.
        .env_remove("HEAPLAB_TRACE_ROOT")
        .status()
        .map_err(|e| CliError::input(format!("cannot run {}: {e}", program.to_string_lossy())))?;

    let written = traces(&output);
    if written.is_empty() {
        eprintln!(
            "heaplab record: no trace was written. A statically linked program, or a setuid \
             one, ignores LD_PRELOAD."
        );
    }
    let counts: Vec<Option<Counts>> = written.iter().map(|p| trailer(p)).collect();
    let symbolised = if args.callers {
        written
            .iter()
            .map(|p| sites::symbolise(p).map(Some))
            .collect::<Result<Vec<_>, _>>()?
    } else {
        vec![None; written.len()]
    };
    // The process that allocated most is most likely the program; the others are the
    // wrapper's helpers (a shim's `bash`, `head`, `sed`...).
    let largest = counts
        .iter()
        .enumerate()
        .max_by_key(|(i, c)| (c.as_ref().map_or(0, |c| c.allocs), std::cmp::Reverse(*i)))
        .map(|(i, _)| i);
    if written.len() > 1 && !args.verbose {
        let unfinished = counts.iter().filter(|c| c.is_none()).count();
        let unfinished = match unfinished {
            0 => String::new(),
            n => format!(" ({n} without a trailer, ended before finishing)"),
        };
        if let Some(i) = largest {
            let allocs = counts[i].as_ref().map_or(0, |c| c.allocs);
            eprintln!(
                "heaplab record: {} wrote traces{unfinished}; the largest, {} ({}), \
                 is most likely the program; --verbose lists each",
                format_counted(written.len() as i128, "process", "processes"),
                written[i].display(),
                format_counted(i128::from(allocs), "alloc", "allocs"),
            );
        }
    }
    let each = written.len() <= 1 || args.verbose;
    for ((path, counts), symbolised) in written
        .iter()
        .zip(&counts)
        .zip(&symbolised)
        .filter(|_| each)
    {
        let sites = match symbolised {
            Some(s) => format!(
                ", {} ({} named by function)",
                format_counted(s.sites as i128, "call site", "call sites"),
                format_count(s.functions as i128)
            ),
            None => String::new(),
        };
        match counts {
            Some(c) => eprintln!(
                "heaplab record: {}: {}, {}, {}, peak live {}, {}{sites}{}",
                path.display(),
                format_counted(i128::from(c.allocs), "alloc", "allocs"),
                format_counted(i128::from(c.frees), "free", "frees"),
                format_counted(i128::from(c.reallocs), "realloc", "reallocs"),
                format_exact_bytes(c.peak_live_bytes),
                format_counted(i128::from(c.threads), "thread", "threads"),
                left_out(c)
            ),
            None => eprintln!(
                "heaplab record: {}: no trailer; the process ended without finishing its trace \
                 (killed by a signal?), so it may stop mid-way",
                path.display()
            ),
        }
    }
    if let Some(i) = largest {
        eprintln!(
            "heaplab record: replay with `heaplab run -w {} -p glibc-like`",
            written[i].display()
        );
    }

    let code = match (status.code(), signal(status)) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => 1,
    };
    if code == 0 {
        Ok(())
    } else {
        Err(CliError {
            code: u8::try_from(code).unwrap_or(1),
            message: format!("{} exited with code {code}", program.to_string_lossy()),
        })
    }
}

/// What the trace had to leave out, if anything.
fn left_out(c: &Counts) -> String {
    let parts: Vec<String> = [
        (
            c.skipped_frees,
            "free of a block from before recording skipped",
            "frees of blocks from before recording skipped",
        ),
        (
            c.unknown_reallocs,
            "realloc of such a block recorded as an allocation",
            "reallocs of such blocks recorded as allocations",
        ),
        (
            c.missed_frees,
            "unseen free filled in",
            "unseen frees filled in",
        ),
    ]
    .iter()
    .filter(|(n, _, _)| *n > 0)
    .map(|&(n, one, many)| format_counted(i128::from(n), one, many))
    .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// The preload library: `--preload`, `$HEAPLAB_PRELOAD`, or the one beside this binary.
fn find_library(flag: Option<&Path>) -> Result<PathBuf, CliError> {
    let given = flag
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("HEAPLAB_PRELOAD").map(PathBuf::from));
    if let Some(path) = given {
        return if path.is_file() {
            std::path::absolute(&path).map_err(|e| CliError::input(e.to_string()))
        } else {
            Err(CliError::input(format!(
                "the preload library {} does not exist",
                path.display()
            )))
        };
    }
    let exe = std::env::current_exe().map_err(|e| CliError::failed(e.to_string()))?;
    let beside = exe.with_file_name(LIBRARY);
    if beside.is_file() {
        return Ok(beside);
    }
    let profile = if exe.parent().and_then(Path::file_name) == Some(OsStr::new("release")) {
        " --release"
    } else {
        ""
    };
    Err(CliError::input(format!(
        "cannot find {LIBRARY} beside {}; build it with `cargo build -p heaplab-preload{profile}`, \
         or set HEAPLAB_PRELOAD (or --preload) to its path",
        exe.display()
    )))
}

/// The output and every `<stem>.<pid>.trace` beside it that exist: the output first,
/// then by pid.
fn traces(output: &Path) -> Vec<PathBuf> {
    let name = output.file_name().unwrap_or_default().to_string_lossy();
    let stem = name.strip_suffix(".trace").unwrap_or(&name).to_string();
    let mut children: Vec<(u32, PathBuf)> =
        std::fs::read_dir(output.parent().unwrap_or(Path::new("/")))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let file = entry.file_name();
                let pid = file
                    .to_str()?
                    .strip_prefix(stem.as_str())?
                    .strip_prefix('.')?
                    .strip_suffix(".trace")?
                    .parse()
                    .ok()?;
                Some((pid, entry.path()))
            })
            .collect();
    children.sort();
    let mut all: Vec<PathBuf> = output
        .is_file()
        .then(|| output.to_path_buf())
        .into_iter()
        .collect();
    all.extend(children.into_iter().map(|(_, p)| p));
    all
}

/// The counts in a trace's trailer (its last line), read from the end of the file.
fn trailer(path: &Path) -> Option<Counts> {
    let mut file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(4096))).ok()?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    let text = String::from_utf8_lossy(&tail);
    Counts::parse_trailer(text.lines().last()?)
}

#[cfg(unix)]
fn signal(status: ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

#[cfg(not(unix))]
fn signal(_: ExitStatus) -> Option<i32> {
    None
}
