//! Everyday use: every command's `--help` ends with real examples, config files read the
//! same in JSON and TOML (the example `heaplab config --example` prints runs), and a bad
//! TOML file is refused with exit code 2 and its line named.

mod common;

use common::{heaplab, json_of};

const COMMANDS: &[&str] = &[
    "run",
    "explain",
    "blame",
    "link",
    "policies",
    "workloads",
    "export",
    "convert",
    "scenario",
    "scenarios",
    "record",
    "baseline",
    "fidelity",
    "sweep",
    "compare",
    "config",
];

#[test]
fn every_commands_help_ends_with_examples() {
    for command in COMMANDS {
        let out = heaplab(&[command, "--help"]);
        assert!(out.status.success(), "{command}");
        let help = String::from_utf8(out.stdout).unwrap();
        let (_, examples) = help
            .rsplit_once("Examples:\n")
            .unwrap_or_else(|| panic!("{command} --help has no examples:\n{help}"));
        let lines: Vec<&str> = examples.lines().filter(|l| !l.trim().is_empty()).collect();
        assert!(
            (2..=3).contains(&lines.len()),
            "{command}: {} examples",
            lines.len()
        );
        for line in lines {
            assert!(
                line.trim_start().contains(&format!("heaplab {command}")),
                "{command}: {line:?} is not an example of it"
            );
        }
    }
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("heaplab-everyday-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The commented TOML example and its JSON form run the same config, the one the flags
/// name.
#[test]
fn the_example_config_runs_as_toml_and_as_json() {
    let toml = scratch("example.toml");
    let json = scratch("example.json");
    std::fs::write(&toml, heaplab(&["config", "--example"]).stdout).unwrap();
    std::fs::write(&json, heaplab(&["config", "--example", "--json"]).stdout).unwrap();
    let text = std::fs::read_to_string(&toml).unwrap();
    assert!(text.lines().filter(|l| l.starts_with('#')).count() >= 10);
    let from_toml = json_of(&heaplab(&[
        "run",
        "--config",
        toml.to_str().unwrap(),
        "--json",
    ]));
    let from_json = json_of(&heaplab(&[
        "run",
        "--config",
        json.to_str().unwrap(),
        "--json",
    ]));
    let from_flags = json_of(&heaplab(&[
        "run",
        "-w",
        "churn",
        "--scale",
        "0.05",
        "-p",
        "glibc-like:trim_threshold=1MiB,top_pad=0",
        "--json",
    ]));
    assert_eq!(from_toml, from_json);
    assert_eq!(from_toml, from_flags);
}

#[test]
fn several_configs_in_toml_and_bad_ones_named() {
    let many = scratch("many.toml");
    std::fs::write(
        &many,
        "[[configs]]\nworkload = { id = \"churn\", params = { scale = 0.01 } }\npolicy = { preset = \"glibc-like\" }\n\n\
         [[configs]]\nworkload = { id = \"churn\", params = { scale = 0.01 } }\npolicy = { family = \"bump\" }\n",
    )
    .unwrap();
    let runs = json_of(&heaplab(&[
        "run",
        "--config",
        many.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(runs.as_array().unwrap().len(), 2);
    assert_eq!(runs[1]["config"]["policy"]["family"], "bump");

    let cases = [
        (
            "[workload]\nid = \"churn\"\nbogus = 1\n[policy]\nfamily = \"bump\"\n",
            "bad.toml:3:1: unknown field `bogus`",
        ),
        ("[workload]\nid = \"churn\n", "bad.toml:2:"),
        (
            "[workload]\nid = \"churn\"\n[policy]\nfamily = \"bump\"\nparams = { slab_size = 3 }\n",
            "slab_size",
        ),
    ];
    for (text, wanted) in cases {
        let bad = scratch("bad.toml");
        std::fs::write(&bad, text).unwrap();
        let out = heaplab(&["run", "--config", bad.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {err}");
        assert!(
            err.contains("bad.toml") && err.contains(wanted),
            "{text}: {err}"
        );
    }
}

/// A conversion that fails part way leaves no output file, not half of one.
#[test]
fn a_failed_conversion_leaves_no_file() {
    let bad = scratch("broken.trace");
    std::fs::write(&bad, "a 1 16\na 2 32\nf 1\nf 1\n").unwrap();
    let out_path = scratch("converted.trace");
    let out = heaplab(&[
        "convert",
        bad.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.trace:4"));
    assert!(!out_path.exists());
    let dir = out_path.parent().unwrap();
    let parts: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".part"))
        .collect();
    assert!(parts.is_empty(), "{parts:?}");
}
