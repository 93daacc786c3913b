//! The one table `cargo xtask bench` ends with: every area's figures as rows (what is
//! measured, its median, the target BENCHMARKS.md sets for it and whether it is met),
//! under a line naming the machine, the toolchain, the date and the commit they were
//! measured on. Each area's bench adds its rows as it runs; the browser benches write
//! theirs as JSON lines into a file xtask names (`HEAPLAB_BENCH_ROWS`), read here.
//!
//! The last report is kept in the target folder, so `cargo xtask bench --table` prints it
//! again without running anything.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::probe;

/// One figure of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// What part of heaplab it measures: "simulator", "page", "trace import", …
    pub area: String,
    /// What exactly, with the sizes it ran at.
    pub figure: String,
    /// The median, with its unit.
    pub median: String,
    /// The target BENCHMARKS.md sets, empty where it sets none.
    pub target: String,
    /// Whether the median meets the target; `None` without one.
    pub met: Option<bool>,
}

impl Row {
    /// A figure without a target.
    pub fn new(area: &str, figure: impl Into<String>, median: impl Into<String>) -> Row {
        Row {
            area: area.into(),
            figure: figure.into(),
            median: median.into(),
            target: String::new(),
            met: None,
        }
    }

    /// The same figure held to `target`, which it meets when `met`.
    pub fn target(self, target: impl Into<String>, met: bool) -> Row {
        Row {
            target: target.into(),
            met: Some(met),
            ..self
        }
    }

    /// A row a browser bench wrote as a JSON object with the same fields, `met` true,
    /// false or absent.
    fn from_json(line: &str) -> Result<Row> {
        let v: Value = serde_json::from_str(line).with_context(|| format!("reading {line}"))?;
        let field = |name: &str| -> Result<String> {
            match &v[name] {
                Value::String(s) => Ok(s.clone()),
                Value::Null => Ok(String::new()),
                other => bail!("`{name}` is {other}, not a string, in {line}"),
            }
        };
        let met = match &v["met"] {
            Value::Bool(b) => Some(*b),
            Value::Null => None,
            other => bail!("`met` is {other}, not true or false, in {line}"),
        };
        let row = Row {
            area: field("area")?,
            figure: field("figure")?,
            median: field("median")?,
            target: field("target")?,
            met,
        };
        if row.area.is_empty() || row.figure.is_empty() || row.median.is_empty() {
            bail!("a row needs an area, a figure and a median: {line}");
        }
        Ok(row)
    }
}

/// Runs a browser bench (`node web/bench/NAME.mjs`, set up in `node`) with a fresh
/// rows file named in `HEAPLAB_BENCH_ROWS`, and the quick sizes asked for when `quick`;
/// answers the rows it wrote.
pub fn node_rows(root: &Path, node: &mut Command, name: &str, quick: bool) -> Result<Vec<Row>> {
    let dir = crate::target_dir(root).join("bench");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let rows = dir.join(format!("{name}-rows.jsonl"));
    // A file left by an earlier run would lend its figures to this one.
    if rows.exists() {
        std::fs::remove_file(&rows).with_context(|| format!("removing {}", rows.display()))?;
    }
    node.env("HEAPLAB_BENCH_ROWS", &rows);
    if quick {
        node.env("HEAPLAB_BENCH_QUICK", "1");
    }
    crate::run_cmd(node, root)?;
    read_rows(&rows)
}

/// The rows a browser bench wrote into `path`, one JSON object a line; none when it
/// wrote no file.
fn read_rows(path: &Path) -> Result<Vec<Row>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(Vec::new());
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(Row::from_json)
        .collect()
}

/// What the figures were measured on.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub memory_bytes: u64,
    pub os: String,
    pub rustc: String,
    pub date: String,
    pub commit: String,
}

impl Machine {
    /// This machine, from /proc, /etc/os-release, `uname`, `rustc`, `date` and `git`;
    /// what cannot be read is "unknown" rather than an error, since the figures still
    /// stand without it.
    pub fn here(root: &Path) -> Machine {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
        let (cpu, cores) = cpu(&read("/proc/cpuinfo"));
        let run = |cmd: &mut Command| {
            probe(cmd.current_dir(root))
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|| "unknown".into())
        };
        let kernel = run(Command::new("uname").args(["-sr"]));
        let commit = run(Command::new("git").args(["describe", "--always", "--dirty"]));
        Machine {
            cpu,
            cores,
            memory_bytes: memory_bytes(&read("/proc/meminfo")).unwrap_or(0),
            os: format!("{} ({kernel})", os_name(&read("/etc/os-release"))),
            rustc: run(Command::new("rustc").arg("--version")),
            date: run(Command::new("date").args(["-u", "+%Y-%m-%d %H:%M UTC"])),
            commit,
        }
    }

    /// One line: the CPU and its cores, memory, OS, rustc, date and commit.
    pub fn line(&self) -> String {
        format!(
            "{}, {} cores, {:.1} GiB of memory; {}; {}; {}, code of commit {}",
            self.cpu,
            self.cores,
            self.memory_bytes as f64 / (1u64 << 30) as f64,
            self.os,
            self.rustc,
            self.date,
            self.commit
        )
    }
}

/// The CPU's model name and the number of processors /proc/cpuinfo lists (the cores
/// the bench can use, hyperthreads counted).
fn cpu(cpuinfo: &str) -> (String, usize) {
    let value = |line: &str| line.split_once(':').map(|(_, v)| v.trim().to_string());
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(value)
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor") && l.contains(':'))
        .count();
    (model, cores)
}

/// `MemTotal` of /proc/meminfo, in bytes (the file says kB and means KiB).
fn memory_bytes(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `PRETTY_NAME` of /etc/os-release, its quotes removed.
fn os_name(os_release: &str) -> String {
    os_release
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim().trim_matches('"').to_string())
        .unwrap_or_else(|| "unknown OS".into())
}

/// The whole report: its rows, the machine, whether at the quick sizes, and how long the
/// run took.
pub struct Report {
    pub rows: Vec<Row>,
    pub machine: Machine,
    pub quick: bool,
    pub seconds: f64,
    /// Why the run stopped before its last area, when it did.
    pub stopped: Option<String>,
}

impl Report {
    /// The report as markdown: a heading saying which sizes, the machine line, the time
    /// the run took and the table.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let sizes = if self.quick {
            "quick sizes (`cargo xtask bench --quick`): smaller runs than the targets are set \
             for, so a figure here only says whether something moved"
        } else {
            "full sizes (`cargo xtask bench`)"
        };
        let _ = writeln!(out, "heaplab bench, {sizes}\n");
        let _ = writeln!(out, "Machine: {}.\n", self.machine.line());
        let secs = self.seconds.round() as u64;
        let _ = writeln!(
            out,
            "The run took {} min {} s, builds included.\n",
            secs / 60,
            secs % 60
        );
        out.push_str(&table(&self.rows));
        if let Some(why) = &self.stopped {
            let _ = writeln!(
                out,
                "\nThe run stopped before its last area, so rows are missing: {why}"
            );
        }
        out
    }
}

/// The rows as a markdown table; a `|` inside a cell is escaped so it stays one cell.
pub fn table(rows: &[Row]) -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out =
        String::from("| area | figure | median | target | met |\n|---|---|---|---|---|\n");
    for r in rows {
        let met = match r.met {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "",
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {met} |",
            cell(&r.area),
            cell(&r.figure),
            cell(&r.median),
            cell(&r.target)
        );
    }
    out
}

/// A count of events as the report writes it: millions with two decimals, or thousands.
/// The browser benches write theirs alike (`events` in web/bench/rows.mjs).
pub fn count(events: f64) -> String {
    if events >= 1e6 {
        format!("{:.2} M events", events / 1e6)
    } else {
        format!("{:.0} K events", events / 1e3)
    }
}

/// `1497478` as `1,497,478`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPUINFO: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nflags\t\t: fpu\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n";

    #[test]
    fn the_machine_line_names_cpu_cores_memory_os_and_toolchain() {
        let (cpu, cores) = cpu(CPUINFO);
        assert_eq!(cpu, "Intel(R) Xeon(R) CPU @ 2.20GHz");
        assert_eq!(cores, 2);
        let memory = memory_bytes("MemTotal:       24576000 kB\nMemFree: 1 kB\n").unwrap();
        assert_eq!(memory, 24_576_000 * 1024);
        assert_eq!(memory_bytes("MemFree: 1 kB\n"), None);
        let os =
            os_name("NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n");
        assert_eq!(os, "Debian GNU/Linux 12 (bookworm)");
        let machine = Machine {
            cpu,
            cores,
            memory_bytes: 24 << 30,
            os,
            rustc: "rustc 1.90.0".into(),
            date: "2026-12-05 12:40 UTC".into(),
            commit: "7d028be".into(),
        };
        assert_eq!(
            machine.line(),
            "Intel(R) Xeon(R) CPU @ 2.20GHz, 2 cores, 24.0 GiB of memory; \
             Debian GNU/Linux 12 (bookworm); rustc 1.90.0; 2026-12-05 12:40 UTC, \
             code of commit 7d028be"
        );
    }

    #[test]
    fn the_table_has_a_row_a_figure_and_escapes_bars() {
        let rows = [
            Row::new("simulator", "bump, `churn`", "130.1 M/s").target("≥ 30 M/s", true),
            Row::new("page", "a | b", "1.2 s").target("< 1 s", false),
            Row::new("wasm", "teaching module", "2,116,538 B"),
        ];
        assert_eq!(
            table(&rows),
            "| area | figure | median | target | met |\n\
             |---|---|---|---|---|\n\
             | simulator | bump, `churn` | 130.1 M/s | ≥ 30 M/s | yes |\n\
             | page | a \\| b | 1.2 s | < 1 s | **no** |\n\
             | wasm | teaching module | 2,116,538 B |  |  |\n"
        );
    }

    #[test]
    fn the_report_says_its_sizes_its_time_and_why_it_stopped() {
        let machine = Machine {
            cpu: "cpu".into(),
            cores: 2,
            memory_bytes: 1 << 30,
            os: "os".into(),
            rustc: "rustc".into(),
            date: "date".into(),
            commit: "abc".into(),
        };
        let mut report = Report {
            rows: vec![Row::new("page", "first load", "0.3 s")],
            machine,
            quick: true,
            seconds: 95.4,
            stopped: None,
        };
        let quick = report.markdown();
        assert!(quick.starts_with("heaplab bench, quick sizes"), "{quick}");
        assert!(quick.contains("The run took 1 min 35 s"), "{quick}");
        assert!(
            quick.ends_with("| page | first load | 0.3 s |  |  |\n"),
            "{quick}"
        );
        report.quick = false;
        report.stopped = Some("`node web/bench/teach.mjs` failed".into());
        let stopped = report.markdown();
        assert!(
            stopped.starts_with("heaplab bench, full sizes"),
            "{stopped}"
        );
        assert!(
            stopped.ends_with("rows are missing: `node web/bench/teach.mjs` failed\n"),
            "{stopped}"
        );
    }

    #[test]
    fn counts_and_sizes_read_as_the_report_writes_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_497_478), "1,497,478");
        assert_eq!(count(2_069_622.0), "2.07 M events");
        assert_eq!(count(163_839.0), "164 K events");
    }

    #[test]
    fn rows_written_by_a_browser_bench_are_read_back() {
        let row = Row::from_json(
            r#"{"area":"page","figure":"first load","median":"0.32 s","target":"< 1 s","met":true}"#,
        )
        .unwrap();
        assert_eq!(
            row,
            Row::new("page", "first load", "0.32 s").target("< 1 s", true)
        );
        let bare = Row::from_json(r#"{"area":"page","figure":"longest task","median":"0 ms"}"#);
        assert_eq!(bare.unwrap(), Row::new("page", "longest task", "0 ms"));
        assert!(Row::from_json(r#"{"area":"page","figure":"x"}"#).is_err());
        assert!(
            Row::from_json(r#"{"area":"page","figure":"x","median":"1","met":"yes"}"#).is_err()
        );
        assert!(Row::from_json("not json").is_err());
    }
}
