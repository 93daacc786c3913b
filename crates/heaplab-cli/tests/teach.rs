//! `heaplab explain` and `heaplab blame` on a small hand-written trace: a snapshot of the
//! explanation for each family, and blame's totals adding up.

mod common;

use common::{heaplab, json_of};
use expect_test::{expect, Expect};

const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/teach/small.trace");

fn explain(policy: &str, expected: Expect) {
    let out = heaplab(&["explain", "-w", TRACE, "-p", policy]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    expected.assert_eq(&String::from_utf8_lossy(&out.stdout));
}

#[test]
fn explain_free_list() {
    explain(
        "free-list",
        expect![[r#"
            event 1: a 48 B (id 1): no free block in the free chunks by size; reserve 67,108,864 B at 0x100000000; new segment of 67,108,864 B at 0x100000000; commit 135,168 B at 0x100000000 (first use: the top grows); split the 135,160 B top: 64 B to id 1, 135,096 B stays top; placed at 0x100000010
            event 2: a 100 B (id 2): no free block in the free chunks by size; split the 135,096 B top: 112 B to id 2, 134,984 B stays top; placed at 0x100000050
            event 3: a 5,000 B (id 3): no free block in the free chunks by size; split the 134,984 B top: 5,008 B to id 3, 129,976 B stays top; placed at 0x1000000c0
            event 4: f id 1: kept in the free chunks; page 0 stays resident: id 2 (100 B, allocated at event 2) still lives there
            event 5: a 40 B (id 4): found a free block at 0x100000008 in the free chunks by size; placed at 0x100000010
            event 6: f id 3: merged with the top free block into 134,984 B at 0x1000000b8; page 0 stays resident: id 4 (40 B, allocated at event 5) still lives there; page 1 stays resident: nothing lives there, the policy keeps it
            event 7: f id 2: merged with the top free block into 135,096 B at 0x100000048; page 0 stays resident: id 4 (40 B, allocated at event 5) still lives there
            event 8: a 64 B (id 5): no free block in the free chunks by size; split the 135,096 B top: 80 B to id 5, 135,016 B stays top; placed at 0x100000050
        "#]],
    );
}

#[test]
fn explain_glibc_like() {
    explain(
        "glibc-like",
        expect![[r#"
            event 1: a 48 B (id 1): no free block in bin 4; reserve 67,108,864 B at 0x100000000; new segment of 67,108,864 B at 0x100000000; commit 135,168 B at 0x100000000 (first use: the top grows); split the 135,160 B top: 64 B to id 1, 135,096 B stays top; placed at 0x100000010
            event 2: a 100 B (id 2): no free block in bin 7; split the 135,096 B top: 112 B to id 2, 134,984 B stays top; placed at 0x100000050
            event 3: a 5,000 B (id 3): no free block in bin 100; split the 134,984 B top: 5,008 B to id 3, 129,976 B stays top; placed at 0x1000000c0
            event 4: f id 1: kept in the tcache; page 0 stays resident: id 2 (100 B, allocated at event 2) still lives there
            event 5: a 40 B (id 4): no free block in bin 3; split the 129,976 B top: 48 B to id 4, 129,928 B stays top; placed at 0x100001450
            event 6: f id 3: kept in the free chunks; page 0 stays resident: id 2 (100 B, allocated at event 2) still lives there; page 1 stays resident: id 4 (40 B, allocated at event 5) still lives there
            event 7: f id 2: kept in the tcache; page 0 stays resident: nothing lives there, the policy keeps it
            event 8: a 64 B (id 5): found a free block at 0x1000000b8 in bin 5; split the 5,008 B free chunk: 80 B to id 5, 4,928 B stays free; placed at 0x1000000c0
        "#]],
    );
}

#[test]
fn explain_size_class() {
    explain(
        "size-class",
        expect![[r#"
            event 1: a 48 B (id 1): no free block in class 48 B; reserve 4,194,304 B at 0x100000000; new segment of 4,194,304 B at 0x100000000; commit 65,536 B at 0x100000000 (first use); new span of 65,536 B at 0x100000000; found a free block at 0x100000000 in class 48 B; placed at 0x100000000
            event 2: a 100 B (id 2): no free block in class 112 B; commit 65,536 B at 0x100010000 (first use); new span of 65,536 B at 0x100010000; found a free block at 0x100010000 in class 112 B; placed at 0x100010000
            event 3: a 5,000 B (id 3): no free block in class 5,120 B; commit 65,536 B at 0x100020000 (first use); new span of 65,536 B at 0x100020000; found a free block at 0x100020000 in class 5,120 B; placed at 0x100020000
            event 4: f id 1: empty span 0 kept: it is the only span of class 48 B in its heap, and a class's last span stays until another has room (mimalloc's retire heuristic); page 0 stays resident: nothing lives there, the policy keeps it
            event 5: a 40 B (id 4): found a free block at 0x100000000 in class 48 B; placed at 0x100000000
            event 6: f id 3: empty span 2 kept: it is the only span of class 5,120 B in its heap, and a class's last span stays until another has room (mimalloc's retire heuristic); page 32 stays resident: nothing lives there, the policy keeps it; page 33 stays resident: nothing lives there, the policy keeps it
            event 7: f id 2: empty span 1 kept: it is the only span of class 112 B in its heap, and a class's last span stays until another has room (mimalloc's retire heuristic); page 16 stays resident: nothing lives there, the policy keeps it
            event 8: a 64 B (id 5): no free block in class 64 B; commit 65,536 B at 0x100030000 (first use); new span of 65,536 B at 0x100030000; found a free block at 0x100030000 in class 64 B; placed at 0x100030000
        "#]],
    );
}

/// mimalloc 3 on Linux: the first segment opens with the arena's metadata, committed
/// whole, and each first write into a 2 MiB granule makes all of it resident.
#[test]
fn explain_mimalloc_like() {
    explain(
        "mimalloc-like",
        expect![[r#"
            event 1: a 48 B (id 1): no free block in class 48 B; reserve 33,554,432 B at 0x100000000; new segment of 33,554,432 B at 0x100000000; commit 4,194,304 B at 0x100000000 (the arena's metadata); a first write made the 2048 KiB at 0x100000000 resident whole: a transparent huge page; new span of 65,536 B at 0x100210000; a first write made the 2048 KiB at 0x100200000 resident whole: a transparent huge page; found a free block at 0x100210000 in class 48 B; placed at 0x100210000
            event 2: a 100 B (id 2): no free block in class 112 B; new span of 65,536 B at 0x100220000; found a free block at 0x100220000 in class 112 B; placed at 0x100220000
            event 3: a 5,000 B (id 3): no free block in class 5,120 B; new span of 65,536 B at 0x100230000; found a free block at 0x100230000 in class 5,120 B; placed at 0x100230000
            event 4: f id 1: empty span 0 kept: it is the only span of class 48 B in its heap, retired for 16 collections before it is given back (mimalloc's retire heuristic, retire_cycles 16); page 528 stays resident: nothing lives there, the policy keeps it
            event 5: a 40 B (id 4): found a free block at 0x100210030 in class 48 B; placed at 0x100210030
            event 6: f id 3: empty span 2 kept: it is the only span of class 5,120 B in its heap, retired for 16 collections before it is given back (mimalloc's retire heuristic, retire_cycles 16); page 560 stays resident: nothing lives there, the policy keeps it; page 561 stays resident: nothing lives there, the policy keeps it
            event 7: f id 2: empty span 1 kept: it is the only span of class 112 B in its heap, retired for 16 collections before it is given back (mimalloc's retire heuristic, retire_cycles 16); page 544 stays resident: nothing lives there, the policy keeps it
            event 8: a 64 B (id 5): no free block in class 64 B; new span of 65,536 B at 0x100240000; found a free block at 0x100240000 in class 64 B; placed at 0x100240000
        "#]],
    );
}

#[test]
fn explain_buddy() {
    explain(
        "buddy",
        expect![[r#"
            event 1: a 48 B (id 1): no free block of order 2 or above: a new arena of 64 MiB (min_block 16 B << max_order 22), reserved whole and committed as its blocks are used; reserve 67,108,864 B at 0x100000000; new arena of 67,108,864 B at 0x100000000; no free block in order 2; halve the 67,108,864 B block at 0x100000000 20 times: 67,108,864 → 33,554,432 + 33,554,432 → 16,777,216 + 16,777,216 → 8,388,608 + 8,388,608 → … → 128 + 128 → 64 + 64; 64 B to id 1, the upper half of each halving stays free; commit 4,096 B at 0x100000000 (first use); placed at 0x100000000
            event 2: a 100 B (id 2): found a free block at 0x100000080 in order 3; placed at 0x100000080
            event 3: a 5,000 B (id 3): found a free block at 0x100002000 in order 9; commit 8,192 B at 0x100002000 (first use); placed at 0x100002000
            event 4: f id 1: merged with the buddy free block into 128 B at 0x100000000; page 0 stays resident: id 2 (100 B, allocated at event 2) still lives there
            event 5: a 40 B (id 4): no free block in order 2; halve the 128 B block at 0x100000000 1 time: 128 → 64 + 64; 64 B to id 4, the upper half of each halving stays free; placed at 0x100000000
            event 6: f id 3: the free 8 KiB block at 0x100002000 keeps its pages committed: decommit_merged is off, so freed memory stays until it is reused; page 2 stays resident: nothing lives there, the policy keeps it; page 3 stays resident: nothing lives there, the policy keeps it
            event 7: f id 2: page 0 stays resident: id 4 (40 B, allocated at event 5) still lives there
            event 8: a 64 B (id 5): found a free block at 0x100000040 in order 2; placed at 0x100000040
        "#]],
    );
}

#[test]
fn explain_bump() {
    explain(
        "bump",
        expect![[r#"
            event 1: a 48 B (id 1): the unscoped arena has no slab yet: slab 1 is 4 KiB (slab_size 4 KiB not doubled yet: it doubles every growth_every 128 slabs), from the general heap (backing = heap); no free block in bin 99; reserve 67,108,864 B at 0x100000000; new segment of 67,108,864 B at 0x100000000; commit 139,264 B at 0x100000000 (first use: the top grows); split the 139,256 B top: 4,112 B to id 1, 135,144 B stays top; new slab of 4,096 B at 0x100000010; placed at 0x100000010
            event 2: a 100 B (id 2): placed at 0x100000040
            event 3: a 5,000 B (id 3): a slab of its own: 5,000 B with alignment padding is 5,015 B > custom_threshold 4 KiB, from the general heap (backing = heap); no free block in bin 100; split the 135,144 B top: 5,024 B to id 3, 130,120 B stays top; new slab of 5,015 B at 0x100001020; placed at 0x100001020
            event 4: f id 1: a bump arena frees no single block, and the unscoped arena is never reset (unscoped = arena): its 48 B stay for the whole run; page 0 stays resident: id 2 (100 B, allocated at event 2) still lives there
            event 5: a 40 B (id 4): placed at 0x1000000b0
            event 6: f id 3: a bump arena frees no single block, and the unscoped arena is never reset (unscoped = arena): its 5,000 B stay for the whole run; page 1 stays resident: nothing lives there, the policy keeps it; page 2 stays resident: nothing lives there, the policy keeps it
            event 7: f id 2: a bump arena frees no single block, and the unscoped arena is never reset (unscoped = arena): its 100 B stay for the whole run; page 0 stays resident: id 4 (40 B, allocated at event 5) still lives there
            event 8: a 64 B (id 5): placed at 0x1000000e0
        "#]],
    );
}

#[test]
fn explain_pool() {
    explain(
        "pool:block_size=64",
        expect![[r#"
            event 1: a 48 B (id 1): the pool has no chunk yet: a new chunk of blocks_per_chunk 128 × block_size 64 B = 8,192 B from the general heap; no free block in the free chunks by size; reserve 67,108,864 B at 0x100000000; new segment of 67,108,864 B at 0x100000000; commit 143,360 B at 0x100000000 (first use: the top grows); split the 143,352 B top: 8,208 B to id 1, 135,144 B stays top; new chunk of 8,192 B at 0x100000010; placed at 0x100000010
            event 2: a 100 B (id 2): 100 B is more than block_size 64 B: to the general heap; no free block in the free chunks by size; split the 135,144 B top: 112 B to id 2, 135,032 B stays top; placed at 0x100002020
            event 3: a 5,000 B (id 3): 5,000 B is more than block_size 64 B: to the general heap; no free block in the free chunks by size; split the 135,032 B top: 5,008 B to id 3, 130,024 B stays top; placed at 0x100002090
            event 4: f id 1: the chunk at 0x100000010 has no block in use: given back to the general heap (free_empty_chunks = true); kept in the free chunks; page 0 stays resident: nothing lives there, the policy keeps it
            event 5: a 40 B (id 4): the pool has no chunk yet: a new chunk of blocks_per_chunk 128 × block_size 64 B = 8,192 B from the general heap; found a free block at 0x100000008 in the free chunks by size; new chunk of 8,192 B at 0x100000010; placed at 0x100000010
            event 6: f id 3: merged with the top free block into 135,032 B at 0x100002088; page 2 stays resident: id 2 (100 B, allocated at event 2) still lives there; page 3 stays resident: nothing lives there, the policy keeps it
            event 7: f id 2: merged with the top free block into 135,144 B at 0x100002018; page 2 stays resident: nothing lives there, the policy keeps it
            event 8: a 64 B (id 5): placed at 0x100000050
        "#]],
    );
}

#[test]
fn explain_range_and_json_agree() {
    let lines = heaplab(&[
        "explain", "-w", TRACE, "-p", "buddy", "--from", "4", "--to", "5",
    ]);
    let text = String::from_utf8_lossy(&lines.stdout).to_string();
    assert_eq!(text.lines().count(), 2);
    assert!(text.starts_with("event 4: f id 1"), "{text}");
    let json = json_of(&heaplab(&[
        "explain", "-w", TRACE, "-p", "buddy", "--from", "4", "--to", "5", "--json",
    ]));
    let from_json: Vec<String> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["line"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(from_json, text.lines().collect::<Vec<_>>());
    assert!(json[0]["decisions"].is_array());
}

#[test]
fn blame_adds_up_for_every_family() {
    for p in [
        "free-list",
        "glibc-like",
        "size-class",
        "buddy",
        "bump",
        "pool",
        "mimalloc-like",
    ] {
        for at in ["peak", "end", "5"] {
            let b = json_of(&heaplab(&[
                "blame", "-w", TRACE, "-p", p, "--at", at, "--json",
            ]));
            let f = |k: &str| {
                b[k].as_u64()
                    .unwrap_or_else(|| panic!("{p} {at}: {k} in {b}"))
            };
            assert_eq!(
                f("live") + f("pinned") + f("kept_by_policy"),
                f("resident"),
                "{p} {at}"
            );
            assert_eq!(f("resident") - f("live"), f("not_live"), "{p} {at}");
        }
    }
}

#[test]
fn bad_input_is_named() {
    let out = heaplab(&["blame", "-w", TRACE, "-p", "buddy", "--at", "soon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--at"));
    let out = heaplab(&["explain", "-w", TRACE, "-p", "buddy", "-p", "bump"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--policy"));
    let out = heaplab(&["explain", "-w", TRACE, "-p", "buddy", "--from", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

const SITES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/teach/sites.trace");

/// On a trace with call sites, blame groups the pinned bytes by site too, named by the
/// trace's `site` lines (an unnamed site by its address), and every grouping adds up.
#[test]
fn blame_by_call_site_adds_up_to_the_pinned_bytes() {
    for p in ["glibc-like", "free-list", "size-class", "buddy"] {
        for at in ["end", "peak", "150"] {
            let b = json_of(&heaplab(&[
                "blame", "-w", SITES, "-p", p, "--at", at, "--json",
            ]));
            let pinned = b["pinned"].as_u64().unwrap();
            for field in ["by_size", "by_phase", "by_site"] {
                let groups = b[field].as_array().unwrap();
                let sum: u64 = groups.iter().map(|g| g["pinned"].as_u64().unwrap()).sum();
                assert_eq!(sum, pinned, "{p} {at} {field}: {b}");
                let blocks: u64 = groups.iter().map(|g| g["blocks"].as_u64().unwrap()).sum();
                assert_eq!(blocks, b["pinners"].as_array().unwrap().len() as u64);
            }
            let keys: Vec<&str> = b["by_site"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["key"].as_str().unwrap())
                .collect();
            assert!(pinned == 0 || !keys.is_empty(), "{p} {at}: {b}");
            for k in keys {
                assert!(
                    [
                        "parse_json (json.c:212)",
                        "parse_xml (xml.c:88)",
                        "grow_buffer (buf.c:40)",
                        "0x7f0000000abc",
                        "(no site)"
                    ]
                    .contains(&k),
                    "{p} {at}: {k}"
                );
            }
        }
    }
    // glibc-like at the end: the live blocks of all four sites pin something.
    let out = heaplab(&["blame", "-w", SITES, "-p", "glibc-like"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("by call site"), "{text}");
    for name in [
        "parse_json (json.c:212)",
        "parse_xml (xml.c:88)",
        "grow_buffer (buf.c:40)",
    ] {
        assert!(text.contains(name), "{name} in {text}");
    }
    // A trace without sites has no such section, and an empty `by_site`.
    let b = json_of(&heaplab(&[
        "blame",
        "-w",
        TRACE,
        "-p",
        "glibc-like",
        "--json",
    ]));
    assert_eq!(b["by_site"], serde_json::json!([]));
    let out = heaplab(&["blame", "-w", TRACE, "-p", "glibc-like"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("call site"));
}

/// `convert` keeps a trace's call sites and their names, so converting twice changes
/// nothing; a bad site is refused at its line.
#[test]
fn convert_keeps_call_sites() {
    let dir = std::env::temp_dir().join(format!("heaplab-sites-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let once = dir.join("once.trace");
    let twice = dir.join("twice.trace");
    let out = heaplab(&["convert", SITES, "-o", once.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = heaplab(&[
        "convert",
        once.to_str().unwrap(),
        "-o",
        twice.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let body = |p: &std::path::Path| -> Vec<String> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    let original: Vec<String> = body(SITES.as_ref());
    assert_eq!(body(&once), original);
    assert_eq!(body(&twice), original);
    let bad = dir.join("bad.trace");
    std::fs::write(&bad, "a 1 8\na 2 8 site=0xnope\n").unwrap();
    let out = heaplab(&["blame", "-w", bad.to_str().unwrap(), "-p", "bump"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.trace:2: bad site \"0xnope\""), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn map_writes_both_maps_as_the_page_draws_them() {
    let dir = std::env::temp_dir().join(format!("heaplab-map-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (heap, blocks) = (dir.join("heap.svg"), dir.join("blocks.svg"));
    let out = heaplab(&[
        "map",
        "-w",
        TRACE,
        "-p",
        "free-list",
        "--set",
        "fit=first",
        "--at",
        "4",
        "--heap-map",
        heap.to_str().unwrap(),
        "--block-map",
        blocks.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let heap = std::fs::read_to_string(&heap).unwrap();
    assert!(heap.starts_with("<svg"), "{heap:.80}");
    assert!(heap.contains("free-list (fit=first): the heap after event 4"));
    assert!(
        heap.contains("only reserved"),
        "the segment's reserved pages fold"
    );
    let blocks = std::fs::read_to_string(&blocks).unwrap();
    assert!(blocks.contains("free-list (fit=first): blocks after event 4"));
    assert!(
        blocks.contains("free: free list"),
        "id 1's chunk is on the free list"
    );
    // A zoom names its pages, both maps at once; PNG too.
    let png = dir.join("zoomed.png");
    let out = heaplab(&[
        "map",
        "-w",
        TRACE,
        "-p",
        "buddy",
        "--at",
        "peak",
        "--pages",
        "0..1",
        "--heap-map",
        png.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    // Zoomed into 256 bytes of page 0: block 2's 32-byte chunk reads with its size, and
    // the ruler gives offsets.
    let zoomed = dir.join("bytes.svg");
    let out = heaplab(&[
        "map",
        "-w",
        TRACE,
        "-p",
        "free-list",
        "--at",
        "2",
        "--pages",
        "0..0",
        "--bytes",
        "0..0x100",
        "--block-map",
        zoomed.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(&zoomed).unwrap();
    assert!(svg.contains("id 2 · 100 B"), "block 2 says its id and size");
    assert!(svg.contains("+0x80"), "the ruler's offsets");
    for (args, says) in [
        (
            vec!["--at", "9"],
            "--at: event 9 is outside the run's 1..=8",
        ),
        (
            vec!["--pages", "3..1", "--heap-map", "x.svg"],
            "--pages: \"3..1\" is not FIRST..LAST",
        ),
        (
            vec!["--bytes", "0x100..0x80", "--block-map", "x.svg"],
            "--bytes: \"0x100..0x80\" is not FROM..TO",
        ),
        (
            vec!["--heap-map", "x.txt"],
            "--heap-map: x.txt: charts cannot be written as .txt",
        ),
        (
            vec![],
            "map: name a picture to write with --heap-map FILE or --block-map FILE",
        ),
        (
            vec!["--width", "10", "--heap-map", "x.svg"],
            "--width: 10 pixels cannot be drawn",
        ),
    ] {
        let mut all = vec!["map", "-w", TRACE, "-p", "free-list"];
        all.extend(args.iter());
        if !all.contains(&"--heap-map") && says.starts_with("--at") {
            all.extend(["--heap-map", "x.svg"]);
        }
        let out = heaplab(&all);
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{all:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `--at phase:NAME#K` is the last event of the K-th time the run is in that phase: the
/// event before the next phase mark, counted here from the trace's own lines.
#[test]
fn at_a_phase_is_its_last_event() {
    let dir = std::env::temp_dir().join(format!("heaplab-teach-phase-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("phased.trace");
    let text = "p load\na 1 48\na 2 5000\np work\nf 1\na 3 64\np load\nf 2\na 4 24\np exit\nf 3\n";
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap();
    let blame_at = |at: &str| {
        let out = heaplab(&[
            "blame",
            "-w",
            path,
            "-p",
            "glibc-like",
            "--at",
            at,
            "--json",
        ]);
        let event = out
            .status
            .success()
            .then(|| json_of(&out)["event"].as_u64());
        (out.status.code(), event.flatten(), out)
    };
    // load: events 1-3; work: 4-6; load again: 7-9; exit: 10-11.
    for (at, event) in [
        ("phase:load", 3),
        ("phase:load#1", 3),
        ("phase:work", 6),
        ("phase:load#2", 9),
        ("phase:exit", 11),
        ("end", 11),
    ] {
        let (code, got, out) = blame_at(at);
        assert_eq!(
            code,
            Some(0),
            "{at}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(got, Some(event), "{at}");
    }
    // The map draws the same moment.
    let svg = dir.join("h.svg");
    let out = heaplab(&[
        "map",
        "-w",
        path,
        "-p",
        "buddy",
        "--at",
        "phase:work",
        "--heap-map",
        svg.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(
        drawn.contains("the heap after event 6"),
        "no title for event 6"
    );
    for (at, message) in [
        ("phase:load#3", "--at: phase \"load\" occurs 2 times, not 3"),
        (
            "phase:boot",
            "--at: phase \"boot\": the run's phases are load, work, exit",
        ),
        ("phase:load#0", "the occurrence after # is a number from 1"),
        ("12", "--at: event 12 is outside the run's 1..=11"),
    ] {
        let (code, _, out) = blame_at(at);
        assert_eq!(code, Some(2), "{at}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{at}: {stderr}");
    }
}

/// `heaplab explain`'s lines for one of the small traces here, numbered from one.
fn explain_lines(trace: &str, policy: &str) -> Vec<String> {
    let path = format!("{}/tests/teach/{trace}", env!("CARGO_MANIFEST_DIR"));
    let out = heaplab(&["explain", "-w", &path, "-p", policy]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}

/// Line `n` (numbered from one) holds `part`.
fn says(lines: &[String], n: usize, part: &str) {
    let line = &lines[n - 1];
    assert!(
        line.contains(part),
        "event {n} should say {part:?}:\n{line}"
    );
}

#[test]
fn glibc_likes_lines_name_the_threshold_and_where_it_came_from() {
    let l = explain_lines("thresholds.trace", "glibc-like");
    says(
        &l,
        1,
        "mapped on its own: a 293 KiB chunk is at or above mmap_threshold 128 KiB",
    );
    says(
        &l,
        2,
        "dynamic threshold moved: a mapped chunk of 303,104 B was freed, so mmap_threshold 128 KiB → 296 KiB and trim_threshold 128 KiB → 592 KiB",
    );
    // The 200,000 B request now stays in the heap, and its free reaches the top.
    says(
        &l,
        5,
        "no trim: top chunk 327 KiB < trim_threshold 592 KiB (raised from 128 KiB at event 2, when a mapped chunk of 303,104 B was freed)",
    );
    says(
        &l,
        11,
        "realloc grew in place into the top chunk: 2,016 B → 3,008 B",
    );
    says(
        &l,
        12,
        "realloc shrank in place: the 3,008 B chunk keeps 112 B and frees its 2,896 B tail",
    );
    // Without the dynamic threshold nothing moved it, and the line says so by omission.
    let fixed = explain_lines(
        "thresholds.trace",
        "glibc-like:dynamic_mmap_threshold=false",
    );
    assert!(!fixed[1].contains("dynamic threshold"), "{}", fixed[1]);
    says(&fixed, 4, "mapped on its own: a 195 KiB chunk");
}

#[test]
fn fast_bins_and_delayed_purges_say_why_and_when() {
    let l = explain_lines(
        "fastbins.trace",
        "glibc-like:tcache_count=0,release_free_pages=delay,release_delay=3",
    );
    says(&l, 4, "kept in the fast bin");
    says(
        &l,
        5,
        "fast bins consolidated: a 1,500 B request is a large-bin size (chunks of 1,024 B and more)",
    );
    // Scheduled where the free happens, carried out where it falls due.
    says(
        &l,
        9,
        "purge of this free chunk's 64 KiB of whole pages due at event 12 (release_delay 3 events)",
    );
    says(
        &l,
        12,
        "purge due: the free chunk at 0x1000006c8, freed at event 9, gives back 132 KiB of whole pages after release_delay 3 events",
    );
    says(&l, 12, "(free pages given back after their delay)");
}

#[test]
fn an_empty_span_kept_or_its_decommit_postponed_is_never_silent() {
    let l = explain_lines(
        "spans.trace",
        "size-class:empty_pages=delay,decommit_delay=5",
    );
    says(
        &l,
        29,
        "decommit of empty span 0's 192 KiB postponed to event 34 (decommit_delay 5 events), unless it is reused first",
    );
    says(
        &l,
        34,
        "decommit due: the 192 KiB emptied at event 29 and not reused within decommit_delay 5 events; decommit 196,608 B",
    );
    says(
        &l,
        48,
        "empty span 2 kept: it is the only span of class 20,480 B in its heap",
    );
    let kept = explain_lines("spans.trace", "size-class:empty_pages=keep");
    says(
        &kept,
        29,
        "empty span 0 given back to its segment, its 192 KiB kept committed (empty_pages = keep)",
    );
    let cached = explain_lines("spans.trace", "size-class:empty_pages=cache");
    says(
        &cached,
        29,
        "empty span 0 kept in its heap's span cache (empty_pages = cache, cache_size 4 MiB), its pages committed",
    );
}

#[test]
fn a_kept_large_mapping_says_until_when_and_its_release_says_why() {
    let l = explain_lines(
        "large.trace",
        "size-class:large_free=delay,decommit_delay=3",
    );
    says(
        &l,
        2,
        "the 296 KiB mapping kept committed on the large free list until event 5 (large_free = delay, decommit_delay 3 events)",
    );
    says(
        &l,
        3,
        "reused the kept mapping of 296 KiB at 0x100000000 from the large free list",
    );
    // Reused at event 3, so the release due at event 5 is not made; the one set by the
    // second free is.
    assert!(!l[4].contains("release"), "{}", l[4]);
    says(
        &l,
        7,
        "release due: the 296 KiB mapping freed at event 4 was not reused within decommit_delay 3 events; release 303,104 B at 0x100000000",
    );
}
