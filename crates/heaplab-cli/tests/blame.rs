//! `heaplab blame`: its figures on a small trace worked out by hand, every grouping adding
//! up to the pinned bytes for every family, and what its output says the figures mean.

mod common;

use common::{heaplab, json_of};
use serde_json::{json, Value};

/// Writes `trace` to a file of its own for this test process and runs `heaplab blame
/// --json` on it.
fn blame_json(name: &str, trace: &str, policy: &str, at: &str) -> Value {
    let dir = std::env::temp_dir().join(format!("heaplab-blame-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.trace"));
    std::fs::write(&path, trace).unwrap();
    let b = json_of(&heaplab(&[
        "blame",
        "-w",
        path.to_str().unwrap(),
        "-p",
        policy,
        "--at",
        at,
        "--json",
    ]));
    std::fs::remove_file(&path).ok();
    b
}

/// A buddy heap of one 64 KiB arena (16 B << 12) with 4 KiB pages. Each request takes
/// the lowest free block of its power of two:
///
/// - id 1, 100 B: the 128 B block at 0, page 0;
/// - id 2, 60 B: the 64 B block at 128, page 0;
/// - id 3, 5,000 B: the 8 KiB block at 8 KiB, pages 2 and 3 (4,096 B on page 2, 904 B on
///   page 3);
/// - id 4, 3,000 B: the 4 KiB block at 4 KiB, page 1;
/// - id 5, 5,000 B: the 8 KiB block at 16 KiB, pages 4 and 5, then freed; its pages stay
///   committed (`decommit_merged` is off) with nothing live on them.
const TRACE: &str = "p load\na 1 100\na 2 60\na 3 5000\np work\na 4 3000\na 5 5000\nf 5\n";

#[test]
fn blame_by_hand() {
    let b = blame_json("hand", TRACE, "buddy:max_order=12", "end");
    // Six resident pages of 4,096 B.
    assert_eq!(b["resident"], 6 * 4096);
    // Live: 100 + 60 + 5,000 + 3,000.
    assert_eq!(b["live"], 8160);
    // Kept: pages 4 and 5, with nothing live.
    assert_eq!(b["kept_by_policy"], 8192);
    // Pinned: page 0's 4,096 - 160, page 1's 4,096 - 3,000, page 3's 4,096 - 904 (page 2
    // is full).
    assert_eq!(b["pinned"], 3936 + 1096 + 3192);
    // Not live: the kept 8,192, the pinned 8,224 (3,936 + 1,096 + 3,192), nothing else.
    assert_eq!(b["not_live"], 16_416);
    // Page 0's 3,936 free bytes are split 100 : 60 between ids 1 and 2 (2,460 and
    // 1,476). Id 3 is alone on pages 2 and 3, id 4 on page 1; ids 1 and 2 share page 0,
    // so freeing either alone unpins nothing.
    let pinners: Vec<(u64, u64, u64)> = b["pinners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_u64().unwrap(),
                p["pinned"].as_u64().unwrap(),
                p["alone_unpins"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pinners,
        [(3, 3192, 8192), (1, 2460, 0), (2, 1476, 0), (4, 1096, 4096)]
    );
    let group = |key: &str, blocks: u64, pinned: u64, alone: u64| json!({"key": key, "blocks": blocks, "pinned": pinned, "alone_unpins": alone});
    assert_eq!(
        b["by_size"],
        json!([
            group("4,097–8,192 B", 1, 3192, 8192),
            group("65–128 B", 1, 2460, 0),
            group("33–64 B", 1, 1476, 0),
            group("2,049–4,096 B", 1, 1096, 4096),
        ])
    );
    assert_eq!(
        b["by_phase"],
        json!([
            group("load", 3, 2460 + 1476 + 3192, 8192),
            group("work", 1, 1096, 4096)
        ])
    );
    assert_eq!(b["by_site"], json!([]));
    assert!(b["about_shares"]
        .as_str()
        .unwrap()
        .starts_with("Pinned bytes are a share, not a promise"));
}

/// Sizes group by power-of-two range, so blocks of different sizes in one range share a
/// row: 300 B and 500 B both fall in 257–512 B.
#[test]
fn sizes_group_by_power_of_two_range() {
    let b = blame_json("ranges", "a 1 300\na 2 500\n", "free-list", "end");
    let keys: Vec<&str> = b["by_size"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["257–512 B"]);
    assert_eq!(b["by_size"][0]["blocks"], 2);
    assert_eq!(b["by_size"][0]["pinned"], b["pinned"]);
}

const FAMILIES: [&str; 9] = [
    "free-list",
    "glibc-like",
    "size-class",
    "mimalloc-like",
    "jemalloc-like",
    "buddy",
    "buddy:decommit_merged=true",
    "bump",
    "pool",
];

/// For every family, on the small trace and on the trace with call sites, at several
/// events: every grouping adds up to the pinned bytes and counts every pinner once, and
/// each group's `alone_unpins` is its blocks'.
#[test]
fn every_grouping_adds_up_to_the_pinned_bytes_for_every_family() {
    let dir = env!("CARGO_MANIFEST_DIR");
    for trace in ["small.trace", "sites.trace"] {
        let path = format!("{dir}/tests/teach/{trace}");
        for p in FAMILIES {
            for at in ["peak", "end", "5"] {
                let b = json_of(&heaplab(&[
                    "blame", "-w", &path, "-p", p, "--at", at, "--json",
                ]));
                let pinned = b["pinned"].as_u64().unwrap();
                let pinners = b["pinners"].as_array().unwrap();
                let alone: u64 = pinners
                    .iter()
                    .map(|p| p["alone_unpins"].as_u64().unwrap())
                    .sum();
                let sited = trace == "sites.trace" && pinned > 0;
                for field in ["by_size", "by_phase", "by_site"] {
                    let groups = b[field].as_array().unwrap();
                    if field == "by_site" && !sited {
                        assert!(groups.is_empty(), "{trace} {p} {at}: {b}");
                        continue;
                    }
                    let sum =
                        |k: &str| -> u64 { groups.iter().map(|g| g[k].as_u64().unwrap()).sum() };
                    assert_eq!(sum("pinned"), pinned, "{trace} {p} {at} {field}: {b}");
                    assert_eq!(
                        sum("blocks"),
                        pinners.len() as u64,
                        "{trace} {p} {at} {field}"
                    );
                    assert_eq!(sum("alone_unpins"), alone, "{trace} {p} {at} {field}");
                }
            }
        }
    }
}

/// The text output says what the figures mean (the same sentence as the JSON's
/// `about_shares`, which the page shows), names the new column, and groups by size range.
#[test]
fn the_output_says_a_share_is_not_a_promise() {
    let dir = std::env::temp_dir().join(format!("heaplab-blame-text-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("text.trace");
    std::fs::write(&path, TRACE).unwrap();
    let path = path.to_str().unwrap();
    let out = heaplab(&["blame", "-w", path, "-p", "buddy:max_order=12"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let b = json_of(&heaplab(&[
        "blame",
        "-w",
        path,
        "-p",
        "buddy:max_order=12",
        "--json",
    ]));
    let sentence = b["about_shares"].as_str().unwrap();
    assert!(text.contains(sentence), "{text}");
    assert!(text.contains("freeing it alone unpins"), "{text}");
    assert!(text.contains("freeing each alone unpins"), "{text}");
    assert!(text.contains("by size"), "{text}");
    assert!(text.contains("4,097–8,192 B"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}
