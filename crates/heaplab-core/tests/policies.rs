//! Every policy, under random op-programs and the built-in workloads, checked after every
//! step against its own invariants and against a trivially correct model.

use std::collections::BTreeMap;

use heaplab_core::config::{ProviderKind, RunConfig, TouchMode};
use heaplab_core::event::{ArenaId, BlockId, Event};
use heaplab_core::policy::AllocError;
use heaplab_core::run::run;
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_core::workload::WORKLOADS;
use proptest::prelude::*;
use serde_json::Value;

/// The configurations every test runs over: each family with its defaults and with the
/// knobs that change its code paths.
fn configs() -> Vec<RunConfig> {
    let variants: &[(&str, &[(&str, Value)])] = &[
        ("free-list", &[]),
        ("free-list", &[("fit", Value::from("first"))]),
        ("free-list", &[("fit", Value::from("bins"))]),
        (
            "free-list",
            &[
                ("tcache_count", Value::from(2)),
                ("tcache_max", Value::from(200)),
                ("fastbin_max", Value::from(64)),
            ],
        ),
        ("free-list", &[("fit", Value::from("next"))]),
        ("free-list", &[("coalesce", Value::from(false))]),
        (
            "free-list",
            &[
                ("release_free_pages", Value::from("immediate")),
                ("fit", Value::from("first")),
            ],
        ),
        (
            "free-list",
            &[
                ("release_free_pages", Value::from("delay")),
                ("release_delay", Value::from(3)),
                ("dynamic_mmap_threshold", Value::from(true)),
            ],
        ),
        (
            "free-list",
            &[
                ("mmap_threshold", Value::from(0)),
                ("trim_threshold", Value::from(0)),
                ("top_pad", Value::from(0)),
            ],
        ),
        (
            "free-list",
            &[
                ("header_size", Value::from(16)),
                ("alignment", Value::from(32)),
                ("segment_size", Value::from(1 << 16)),
            ],
        ),
        ("size-class", &[]),
        ("size-class", &[("empty_pages", Value::from("decommit"))]),
        (
            "size-class",
            &[
                ("empty_pages", Value::from("keep")),
                ("granularity", Value::from(8)),
            ],
        ),
        (
            "size-class",
            &[
                ("decommit_delay", Value::from(5)),
                ("page_size", Value::from(16384)),
                ("segment_size", Value::from(1 << 17)),
                ("large_threshold", Value::from(8192)),
            ],
        ),
        ("size-class", &[("classes_per_doubling", Value::from(1))]),
        (
            "size-class",
            &[
                ("heaps", Value::from("shared")),
                ("thread_cache", Value::from(4096)),
            ],
        ),
        (
            "size-class",
            &[
                ("empty_pages", Value::from("cache")),
                ("cache_size", Value::from(262144)),
            ],
        ),
        ("size-class", &[("share_small_large", Value::from(true))]),
        (
            "size-class",
            &[
                ("share_small_large", Value::from(true)),
                ("empty_pages", Value::from("cache")),
                ("thread_cache", Value::from(16384)),
                ("page_size", Value::from(16384)),
                ("segment_size", Value::from(1 << 18)),
                ("large_threshold", Value::from(8192)),
            ],
        ),
        (
            "size-class",
            &[
                ("commit_granularity", Value::from(1 << 18)),
                ("decommit_granularity", Value::from(1 << 20)),
                ("decommit_delay", Value::from(5)),
            ],
        ),
        (
            "size-class",
            &[
                ("commit_granularity", Value::from("4MiB")),
                ("empty_pages", Value::from("decommit")),
                ("share_small_large", Value::from(true)),
            ],
        ),
        ("bump", &[]),
        (
            "bump",
            &[
                ("backing", Value::from("pages")),
                ("unscoped", Value::from("heap")),
            ],
        ),
        (
            "bump",
            &[
                ("growth", Value::from("fixed")),
                ("slab_size", Value::from(256)),
                ("custom_threshold", Value::from(100)),
            ],
        ),
        (
            "bump",
            &[
                ("growth_every", Value::from(1)),
                ("backing", Value::from("pages")),
            ],
        ),
        ("buddy", &[]),
        (
            "buddy",
            &[
                ("min_block", Value::from(64)),
                ("max_order", Value::from(12)),
                ("decommit_merged", Value::from(true)),
            ],
        ),
        (
            "buddy",
            &[
                ("min_block", Value::from(8)),
                ("max_order", Value::from(17)),
                ("header_size", Value::from(8)),
            ],
        ),
        ("pool", &[]),
        (
            "pool",
            &[
                ("block_size", Value::from(48)),
                ("blocks_per_chunk", Value::from(4)),
                ("free_empty_chunks", Value::from(false)),
            ],
        ),
        (
            "pool",
            &[
                ("block_size", Value::from(8)),
                ("blocks_per_chunk", Value::from(1)),
            ],
        ),
    ];
    let mut out = Vec::new();
    for (family, params) in variants {
        for (kind, page) in [
            (ProviderKind::Sim, 4096),
            (ProviderKind::Sim, 16384),
            (ProviderKind::WasmLinear, 65536),
        ] {
            let mut c = RunConfig::new("churn", family);
            for (k, v) in params.iter() {
                c.policy.params.insert(k.to_string(), v.clone());
            }
            c.provider.kind = kind;
            c.provider.page_size = page;
            // Allocator pages smaller than the OS page are refused by design; skip those.
            if c.resolve().is_ok() {
                out.push(c);
            }
        }
    }
    // A program that writes nothing of its blocks leaves the allocator's own writes as the
    // only ones, so an allocator that skips the page map for writes it knows land in
    // resident pages is checked where that knowledge is least obvious.
    let untouched: &[&[(&str, Value)]] = &[
        &[
            ("release_free_pages", Value::from("delay")),
            ("release_delay", Value::from(3)),
        ],
        &[
            ("header_size", Value::from(0)),
            ("release_free_pages", Value::from("immediate")),
        ],
        &[
            ("tcache_count", Value::from(2)),
            ("fastbin_max", Value::from(64)),
            ("header_size", Value::from(24)),
        ],
    ];
    for params in untouched {
        let mut c = RunConfig::new("churn", "free-list");
        for (k, v) in params.iter() {
            c.policy.params.insert(k.to_string(), v.clone());
        }
        c.touch = TouchMode::None;
        out.push(c);
    }
    out
}

#[derive(Clone, Debug)]
enum Op {
    Alloc { size: u64, align_log2: u32 },
    AllocIn { arena: usize, size: u64 },
    Free(usize),
    Realloc(usize, u64),
    Create,
    Reset(usize),
    Drop(usize),
    Phase,
}

fn size() -> impl Strategy<Value = u64> {
    prop_oneof![
        6 => 0u64..256,
        3 => 256u64..16384,
        1 => 16384u64..(1 << 20),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (size(), prop_oneof![9 => Just(4u32), 1 => 0u32..13]).prop_map(|(size, align_log2)| Op::Alloc { size, align_log2 }),
        2 => (any::<usize>(), size()).prop_map(|(arena, size)| Op::AllocIn { arena, size }),
        6 => any::<usize>().prop_map(Op::Free),
        2 => (any::<usize>(), size()).prop_map(|(i, s)| Op::Realloc(i, s)),
        1 => Just(Op::Create),
        1 => any::<usize>().prop_map(Op::Reset),
        1 => any::<usize>().prop_map(Op::Drop),
        1 => Just(Op::Phase),
    ]
}

/// The trivially correct model: which ids are live, with which size, alignment and arena.
#[derive(Default)]
struct Model {
    live: BTreeMap<BlockId, (u64, u64, Option<ArenaId>)>,
    arenas: Vec<ArenaId>,
    next_id: BlockId,
    next_arena: ArenaId,
}

impl Model {
    fn pick(&self, i: usize) -> Option<BlockId> {
        (!self.live.is_empty()).then(|| *self.live.keys().nth(i % self.live.len()).unwrap())
    }

    fn pick_arena(&self, i: usize) -> Option<ArenaId> {
        (!self.arenas.is_empty()).then(|| self.arenas[i % self.arenas.len()])
    }

    /// Turns an op into an event and applies it to the model.
    fn event(&mut self, op: &Op) -> Option<Event> {
        Some(match *op {
            Op::Alloc { size, align_log2 } => {
                let id = self.next_id;
                self.next_id += 1;
                self.live.insert(id, (size, 1 << align_log2, None));
                Event::Alloc {
                    id,
                    size,
                    align: 1 << align_log2,
                    arena: None,
                    thread: 0,
                }
            }
            Op::AllocIn { arena, size } => {
                let a = self.pick_arena(arena)?;
                let id = self.next_id;
                self.next_id += 1;
                self.live.insert(id, (size, 8, Some(a)));
                Event::alloc_in(a, id, size)
            }
            Op::Free(i) => {
                let id = self.pick(i)?;
                self.live.remove(&id);
                Event::free(id)
            }
            Op::Realloc(i, size) => {
                let id = self.pick(i)?;
                let e = self.live.get_mut(&id).unwrap();
                e.0 = size;
                e.1 = 16;
                Event::realloc(id, size)
            }
            Op::Create => {
                let a = self.next_arena;
                self.next_arena += 1;
                self.arenas.push(a);
                Event::ArenaCreate(a)
            }
            Op::Reset(i) | Op::Drop(i) => {
                let a = self.pick_arena(i)?;
                self.live.retain(|_, v| v.2 != Some(a));
                if matches!(op, Op::Drop(_)) {
                    self.arenas.retain(|&x| x != a);
                    Event::ArenaDrop(a)
                } else {
                    Event::ArenaReset(a)
                }
            }
            Op::Phase => Event::Phase("phase".into()),
        })
    }
}

fn check_program(config: &RunConfig, ops: &[Op]) -> Result<(), TestCaseError> {
    let config = config.resolve().unwrap();
    let mut sim = Simulation::new(&config, sim_provider(&config)).unwrap();
    let mut model = Model::default();
    for (step, op) in ops.iter().enumerate() {
        let Some(event) = model.event(op) else {
            continue;
        };
        let what = format!(
            "{} {:?} step {step}: {event:?}",
            config.policy.family, config.policy.params
        );
        sim.apply(event)
            .map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
        sim.check_invariants()
            .map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
        let live: BTreeMap<BlockId, (u64, u64)> =
            sim.live().map(|(id, b)| (id, (b.addr, b.size))).collect();
        prop_assert_eq!(live.len(), model.live.len(), "{}", what);
        for (id, &(size, align, _)) in &model.live {
            let &(addr, got) = live
                .get(id)
                .ok_or_else(|| TestCaseError::fail(format!("{what}: id {id} missing")))?;
            prop_assert_eq!(got, size, "{}", what);
            prop_assert_eq!(
                addr % align,
                0,
                "{}: id {} at {:#x} not aligned to {}",
                what,
                id,
                addr,
                align
            );
        }
        let total: u64 = model.live.values().map(|v| v.0).sum();
        prop_assert_eq!(sim.live_bytes(), total, "{}", what);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if std::env::var_os("CI").is_some() { 48 } else { 24 },
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_programs_keep_every_invariant(ops in prop::collection::vec(op(), 1..160)) {
        for config in configs() {
            check_program(&config, &ops)?;
        }
    }
}

#[test]
fn every_workload_runs_clean_through_every_policy() {
    for config in configs() {
        for w in WORKLOADS {
            let mut c = config.clone();
            c.workload.id = w.id.into();
            c.workload.params.insert("scale".into(), Value::from(0.001));
            let c = c.resolve().unwrap();
            let mut sim = Simulation::new(&c, sim_provider(&c)).unwrap();
            let mut n = 0u64;
            let params = c.workload_params().unwrap();
            // Each workload is cut after its first 4,000 events so the whole matrix stays
            // quick; the cut is a clean stop, not an error.
            const CUT: u64 = 4_000;
            let outcome = w.generate(&params, &mut |e| {
                if n == CUT {
                    return Err(None);
                }
                sim.apply(e).map_err(Some)?;
                n += 1;
                // Invariant scans are linear, so check every few hundred events.
                if n.is_multiple_of(1999) {
                    sim.check_invariants()
                        .unwrap_or_else(|e| panic!("{} on {}: {e}", c.policy.family, w.id));
                }
                Ok::<(), Option<heaplab_core::simulate::SimError>>(())
            });
            if let Err(Some(e)) = outcome {
                panic!("{} {:?} on {}: {e}", c.policy.family, c.policy.params, w.id);
            }
            sim.check_invariants().unwrap();
            let (summary, _) = sim.finish();
            if n < CUT && w.id != "short_strings" {
                assert_eq!(
                    summary.end_live_bytes(),
                    0,
                    "{} on {}",
                    c.policy.family,
                    w.id
                );
            }
        }
    }
}

#[test]
fn refused_commits_are_errors_and_leave_the_policy_consistent() {
    for config in configs() {
        let config = config.resolve().unwrap();
        for nth in 1..6 {
            let mut sim = Simulation::new(&config, sim_provider(&config)).unwrap();
            sim.pages_mut().provider_mut().fail_commit_at(nth);
            let mut refused = false;
            for id in 0..400u64 {
                let size = [24, 4000, 70_000, 300_000][(id % 4) as usize];
                match sim.apply(Event::alloc(id, size)) {
                    Ok(()) => {}
                    Err(e) => {
                        assert!(
                            e.message.contains("out of memory"),
                            "{}: {e}",
                            config.policy.family
                        );
                        refused = true;
                        break;
                    }
                }
            }
            sim.check_invariants().unwrap_or_else(|e| {
                panic!(
                    "{} {:?} after refused commit {nth}: {e}",
                    config.policy.family, config.policy.params
                )
            });
            // On memory that only grows, commits of memory already had are free and no
            // refusal need happen; everywhere else it must.
            if config.provider.kind == ProviderKind::Sim {
                assert!(
                    refused,
                    "{} never asked for commit {nth}",
                    config.policy.family
                );
            }
        }
    }
}

#[test]
fn a_run_is_deterministic() {
    for family in ["bump", "free-list", "size-class"] {
        for w in WORKLOADS {
            let mut c = RunConfig::new(w.id, family);
            c.workload.params.insert("scale".into(), Value::from(0.003));
            c.workload.params.insert("seed".into(), Value::from(7));
            assert_eq!(run(&c).unwrap(), run(&c).unwrap(), "{family} on {}", w.id);
        }
    }
}

/// A batch replayed with `apply_all`, which fetches slots ahead and passes hints to the
/// policy, ends exactly as the same events applied one by one, and a bad event in it fails with the same number and message.
/// `realloc` moves a block between the two hints of its free, so the second hint names
/// where the block was.
#[test]
fn a_batch_ends_as_the_same_events_one_by_one() {
    for (config, (workload, scale)) in configs()
        .into_iter()
        .flat_map(|c| [(c.clone(), ("tree_churn", 0.0005)), (c, ("realloc", 0.05))])
    {
        let mut events = Vec::new();
        let spec = heaplab_core::workload::find(workload).unwrap();
        let mut c = config.clone();
        c.workload.id = workload.into();
        c.workload.params.insert("scale".into(), Value::from(scale));
        spec.generate(&c.workload_params().unwrap(), &mut |e| {
            events.push(e);
            Ok::<(), ()>(())
        })
        .unwrap();
        let mut one = Simulation::new(&config, sim_provider(&config)).unwrap();
        for e in &events {
            one.apply_ref(e).unwrap();
        }
        let name = &config.policy.family;
        let one = one.finish();
        // With hints to the policy from the first block, as with a million live blocks.
        for hint_from in [usize::MAX, 0] {
            let mut batch = Simulation::new(&config, sim_provider(&config)).unwrap();
            batch.hint_policy_from(hint_from);
            batch.apply_all(&events).unwrap();
            assert_eq!(
                one,
                batch.finish(),
                "{name} on {workload}, hints from {hint_from} live"
            );
        }

        // A free of a block that is not live, after the first 100 events.
        let mut bad = events[..100].to_vec();
        bad.push(Event::free(u64::MAX - 1));
        bad.extend_from_slice(&events[100..120]);
        let mut one = Simulation::new(&config, sim_provider(&config)).unwrap();
        let one_err = bad.iter().find_map(|e| one.apply_ref(e).err()).unwrap();
        let mut batch = Simulation::new(&config, sim_provider(&config)).unwrap();
        let batch_err = batch.apply_all(&bad).unwrap_err();
        assert_eq!(one_err, batch_err, "{name}");
        assert_eq!(batch_err.event, 101, "{name}");
    }
}

#[test]
fn impossible_requests_are_errors_not_panics() {
    for config in configs() {
        let config = config.resolve().unwrap();
        let mut sim = Simulation::new(&config, sim_provider(&config)).unwrap();
        let e = sim
            .apply(Event::Alloc {
                id: 1,
                size: u64::MAX,
                align: 16,
                arena: None,
                thread: 0,
            })
            .unwrap_err();
        assert!(!e.message.is_empty());
        let e = sim.apply(Event::free(99)).unwrap_err();
        assert!(e.message.contains("not live"), "{e}");
        sim.check_invariants().unwrap();
    }
    let _ = AllocError::Invalid(String::new());
}

#[test]
fn buddy_and_pool_runs_are_deterministic() {
    for family in ["buddy", "pool"] {
        for w in WORKLOADS {
            let mut c = RunConfig::new(w.id, family);
            c.workload.params.insert("scale".into(), Value::from(0.003));
            c.workload.params.insert("seed".into(), Value::from(7));
            assert_eq!(run(&c).unwrap(), run(&c).unwrap(), "{family} on {}", w.id);
        }
    }
}

/// Runs `sizes` as allocations that all stay live and returns the peak committed pages.
fn committed_after(family: &str, params: &[(&str, Value)], sizes: &[u64]) -> u64 {
    let mut c = RunConfig::new("churn", family);
    for (k, v) in params {
        c.policy.params.insert(k.to_string(), v.clone());
    }
    let c = c.resolve().unwrap();
    let mut sim = Simulation::new(&c, sim_provider(&c)).unwrap();
    for (id, &size) in sizes.iter().enumerate() {
        sim.apply(Event::alloc(id as u64, size)).unwrap();
    }
    sim.check_invariants().unwrap();
    sim.pages().stats().committed_pages.peak
}

/// Of two free chunks of the same size, best fit hands out the lower one and glibc-style
/// bins the one freed first.
#[test]
fn bins_hand_out_the_oldest_of_equal_chunks() {
    // Block 0 is the lowest; block 2 is freed first.
    for (fit, want) in [("best", 0), ("bins", 1)] {
        let mut c = RunConfig::new("churn", "free-list");
        c.policy.params.insert("fit".into(), Value::from(fit));
        let c = c.resolve().unwrap();
        let mut sim = Simulation::new(&c, sim_provider(&c)).unwrap();
        // Three 100-byte blocks with live separators so freed ones cannot merge.
        for id in 0..6 {
            sim.apply(Event::alloc(id, 100)).unwrap();
        }
        let addr = |sim: &Simulation<_>, id| sim.live().find(|&(i, _)| i == id).unwrap().1.addr;
        let addrs: Vec<u64> = [0, 2, 4].iter().map(|&id| addr(&sim, id)).collect();
        for id in [2, 0, 4] {
            sim.apply(Event::free(id)).unwrap();
        }
        sim.apply(Event::alloc(10, 100)).unwrap();
        sim.check_invariants().unwrap();
        let got = addr(&sim, 10);
        assert_eq!(got, addrs[want], "{fit}");
    }
}

/// glibc's fast bins and thread cache keep freed small chunks in use, so a heap freed in
/// small blocks keeps its peak until a large request consolidates them into the top.
#[test]
fn fast_bins_hold_the_heap_until_a_large_request_consolidates_them() {
    let mut c = RunConfig::new("churn", "free-list");
    for (k, v) in [
        ("fastbin_max", Value::from(128)),
        ("tcache_count", Value::from(7)),
        ("mmap_threshold", Value::from("128KiB")),
        ("trim_threshold", Value::from("128KiB")),
        ("top_pad", Value::from(0)),
    ] {
        c.policy.params.insert(k.into(), v);
    }
    let c = c.resolve().unwrap();
    let mut sim = Simulation::new(&c, sim_provider(&c)).unwrap();
    for id in 0..20_000 {
        sim.apply(Event::alloc(id, 32)).unwrap();
    }
    let peak = sim.pages().stats().resident_pages.current;
    for id in 0..20_000 {
        sim.apply(Event::free(id)).unwrap();
    }
    sim.check_invariants().unwrap();
    assert_eq!(sim.pages().stats().resident_pages.current, peak);
    // A request of 1 KiB or more consolidates the fast bins; the top is then trimmed.
    sim.apply(Event::alloc(50_000, 2000)).unwrap();
    sim.check_invariants().unwrap();
    let after = sim.pages().stats().resident_pages.current;
    assert!(after * 10 < peak, "{after} pages still resident of {peak}");
}

#[test]
fn buddy_wastes_almost_half_on_sizes_just_above_a_power_of_two() {
    // The malloc-lab `binary` pattern: odd sizes just above a power of two.
    let sizes: Vec<u64> = (0..2000)
        .map(|i| if i % 2 == 0 { 4100 } else { 520 })
        .collect();
    let buddy = committed_after("buddy", &[], &sizes);
    let free_list = committed_after("free-list", &[], &sizes);
    // 4100 bytes take an 8 KiB block and 520 bytes a 1 KiB block: about 1.9x the payload.
    assert!(
        buddy * 10 >= free_list * 17,
        "buddy {buddy} pages, free-list {free_list} pages"
    );
    // Exact powers of two waste nothing.
    let pow2 = vec![4096; 1000];
    let buddy = committed_after("buddy", &[], &pow2);
    assert_eq!(buddy, 1000);
}

#[test]
fn a_pool_keeps_small_blocks_out_of_the_heap() {
    // S5 in miniature: short strings in 32-byte blocks take a few chunks from the heap
    // instead of one heap chunk each.
    let sizes: Vec<u64> = (0..4096).map(|i| 8 + i % 24).collect();
    let pool = committed_after("pool", &[], &sizes);
    let free_list = committed_after("free-list", &[], &sizes);
    assert!(pool < free_list, "pool {pool} pages, free-list {free_list}");
}

/// An op of a program with several threads: frees and reallocs pick a random thread, so
/// blocks are often freed by a thread other than the one that allocated them.
#[derive(Clone, Debug)]
enum ThreadOp {
    Alloc {
        size: u64,
        align_log2: u32,
        thread: u32,
    },
    Free(usize, u32),
    Realloc(usize, u64, u32),
}

fn thread_op() -> impl Strategy<Value = ThreadOp> {
    prop_oneof![
        8 => (size(), prop_oneof![9 => Just(4u32), 1 => 0u32..13], 0u32..4)
            .prop_map(|(size, align_log2, thread)| ThreadOp::Alloc { size, align_log2, thread }),
        7 => (any::<usize>(), 0u32..4).prop_map(|(i, t)| ThreadOp::Free(i, t)),
        2 => (any::<usize>(), size(), 0u32..4).prop_map(|(i, s, t)| ThreadOp::Realloc(i, s, t)),
    ]
}

/// Runs a many-threaded program against the model of live blocks (id to size and
/// alignment), checking every invariant after every event.
fn check_threaded_program(config: &RunConfig, ops: &[ThreadOp]) -> Result<(), TestCaseError> {
    let config = config.resolve().unwrap();
    let mut sim = Simulation::new(&config, sim_provider(&config)).unwrap();
    let mut live: BTreeMap<BlockId, (u64, u64)> = BTreeMap::new();
    let mut next_id: BlockId = 0;
    let pick = |live: &BTreeMap<BlockId, (u64, u64)>, i: usize| {
        (!live.is_empty()).then(|| *live.keys().nth(i % live.len()).unwrap())
    };
    for (step, op) in ops.iter().enumerate() {
        let event = match *op {
            ThreadOp::Alloc {
                size,
                align_log2,
                thread,
            } => {
                let id = next_id;
                next_id += 1;
                live.insert(id, (size, 1 << align_log2));
                Event::Alloc {
                    id,
                    size,
                    align: 1 << align_log2,
                    arena: None,
                    thread,
                }
            }
            ThreadOp::Free(i, thread) => {
                let Some(id) = pick(&live, i) else { continue };
                live.remove(&id);
                Event::Free { id, thread }
            }
            ThreadOp::Realloc(i, size, thread) => {
                let Some(id) = pick(&live, i) else { continue };
                live.insert(id, (size, 16));
                Event::Realloc { id, size, thread }
            }
        };
        let what = format!("{:?} step {step}: {event:?}", config.policy.params);
        sim.apply(event)
            .map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
        sim.check_invariants()
            .map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
        let got: BTreeMap<BlockId, (u64, u64)> =
            sim.live().map(|(id, b)| (id, (b.addr, b.size))).collect();
        prop_assert_eq!(got.len(), live.len(), "{}", what);
        for (id, &(size, align)) in &live {
            let &(addr, got_size) = got
                .get(id)
                .ok_or_else(|| TestCaseError::fail(format!("{what}: id {id} missing")))?;
            prop_assert_eq!(got_size, size, "{}", what);
            prop_assert_eq!(addr % align, 0, "{}: id {} at {:#x}", what, id, addr);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if std::env::var_os("CI").is_some() { 48 } else { 24 },
        ..ProptestConfig::default()
    })]

    #[test]
    fn threaded_programs_keep_every_size_class_invariant(
        ops in prop::collection::vec(thread_op(), 1..200)
    ) {
        for config in configs().iter().filter(|c| c.policy.family == "size-class") {
            check_threaded_program(config, &ops)?;
        }
    }
}
