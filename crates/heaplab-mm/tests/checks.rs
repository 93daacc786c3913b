//! Every check heaplab makes of a module's calls, each caught at its event by an
//! allocator with that one bug planted (`tests/c/bugs.c`), and every bad module refused
//! with a message that says what is wrong.

mod common;

use heaplab_core::event::Event;
use heaplab_core::simulate::{sim_provider, Simulation};
use heaplab_mm::AllocatorModule;
use serde_json::Value;

const BUGS: &str = include_str!("c/bugs.c");

/// The first failure of `events` through the bug allocator built with `-D<bug>=1`, as
/// the simulator reports it ("event N: ...").
fn failure(bug: &str, events: &[Event], knobs: &[(&str, Value)]) -> String {
    let m = common::module(&format!("bug-{bug}"), BUGS, &[&format!("-D{bug}=1")]);
    let config = match common::config(&m, "churn", knobs).resolve() {
        Ok(c) => c,
        Err(e) => return e.to_string(),
    };
    let mut sim = match Simulation::new(&config, sim_provider(&config)) {
        Ok(s) => s,
        Err(e) => return e.to_string(),
    };
    for e in events {
        if let Err(e) = sim.apply(e.clone()) {
            return e.to_string();
        }
    }
    panic!("{bug}: every event went through")
}

fn allocs(n: u64) -> Vec<Event> {
    (0..n).map(|i| Event::alloc(i, 24)).collect()
}

fn contains(haystack: &str, needle: &str) {
    assert!(
        haystack.contains(needle),
        "{haystack:?} does not say {needle:?}"
    );
}

#[test]
fn a_misaligned_payload_is_caught_at_its_event() {
    let e = failure("BUG_MISALIGNED", &allocs(3), &[]);
    contains(&e, "event 2: mm_malloc(24) returned 0x");
    contains(&e, "which is not aligned to 8 bytes");
}

#[test]
fn a_payload_outside_the_heap_is_caught() {
    let e = failure("BUG_OUTSIDE", &allocs(3), &[]);
    contains(&e, "event 2: mm_malloc(24) returned [0x");
    contains(&e, "which is not inside the heap");
}

#[test]
fn a_payload_over_a_live_block_is_caught() {
    let e = failure("BUG_OVERLAP", &allocs(3), &[]);
    contains(&e, "event 2: mm_malloc(24) returned [0x");
    contains(&e, "which overlaps the live block [0x");
    // The block is named as the trace names it, too.
    contains(&e, "), the trace's block id 0");
}

#[test]
fn an_allocator_writing_into_a_live_payload_is_caught_when_the_block_is_freed() {
    let mut events = allocs(2);
    events.push(Event::free(0));
    let e = failure("BUG_SCRIBBLE", &events, &[]);
    contains(&e, "event 3: before mm_free(0x");
    contains(&e, "byte 0 of the 24-byte block at 0x");
    contains(&e, "was changed while it was live");
}

#[test]
fn a_realloc_that_loses_the_old_bytes_is_caught() {
    let events = vec![Event::alloc(0, 24), Event::realloc(0, 100)];
    let e = failure("BUG_REALLOC_LOSES", &events, &[]);
    contains(&e, "event 2: mm_realloc(0x");
    contains(
        &e,
        "byte 0 of the 24 it should have kept is not the old block's",
    );
}

#[test]
fn null_from_mm_malloc_is_an_out_of_memory() {
    let e = failure("BUG_NULL", &allocs(5), &[]);
    contains(&e, "event 4: mm_malloc(24) returned NULL: out of memory");
}

#[test]
fn a_trap_is_reported_with_its_call() {
    let e = failure("BUG_TRAP", &allocs(3), &[]);
    assert_eq!(
        e,
        "event 2: mm_malloc(24) trapped: it read or wrote past the end of its memory"
    );
}

#[test]
fn a_call_past_its_budget_is_stopped() {
    let e = failure("BUG_LOOP", &allocs(3), &[("budget", Value::from(100_000))]);
    contains(
        &e,
        "event 2: mm_malloc(24) ran past its budget of 100000 units of fuel",
    );
}

#[test]
fn abort_ends_the_call_with_what_the_module_printed() {
    let e = failure("BUG_ABORT", &allocs(3), &[]);
    assert_eq!(
        e,
        "event 2: mm_malloc(24) called exit(134); it printed: abort() called"
    );
}

#[test]
fn a_module_that_grows_its_memory_itself_is_refused() {
    let e = failure("BUG_GROW", &allocs(3), &[]);
    contains(&e, "event 2: mm_malloc(24) grew the module's memory itself");
}

#[test]
fn a_failing_heap_check_stops_the_run_after_the_call_it_followed() {
    let every = [("check_heap_every", Value::from(1))];
    let e = failure("BUG_CHECK_FAILS", &allocs(5), &every);
    contains(
        &e,
        "event 3: after mm_malloc(24), the allocator's own check: mm_checkheap(1) called \
         exit(134); it printed: ",
    );
    contains(&e, "mm_checkheap: assertion `calls < 3' failed");
    // Checked every other call, the failure shows at the fourth.
    let every = [("check_heap_every", Value::from(2))];
    contains(
        &failure("BUG_CHECK_FAILS", &allocs(5), &every),
        "event 4: after mm_malloc(24)",
    );
}

#[test]
fn a_failing_mm_init_is_reported_before_any_event() {
    let e = failure("BUG_INIT_FAILS", &allocs(1), &[]);
    contains(&e, "mm_init() returned -1, which means it failed");
}

#[test]
fn without_a_bug_the_allocator_passes_every_check() {
    let m = common::module("bug-none", BUGS, &[]);
    let config = common::config(&m, "random", &[]).resolve().unwrap();
    heaplab_core::run::run(&config).unwrap();
}

/// A module written as WebAssembly text, refused with the message `AllocatorModule::new`
/// gives.
fn refused(wat: &str) -> String {
    let bytes = wat::parse_str(wat).unwrap();
    AllocatorModule::new("bad.wasm", &bytes).unwrap_err().0
}

const GOOD_EXPORTS: &str = r#"
    (memory (export "memory") 2)
    (func (export "mm_init") (result i32) i32.const 0)
    (func (export "mm_malloc") (param i32) (result i32) i32.const 0)
    (func (export "mm_free") (param i32))
    (func (export "mm_realloc") (param i32 i32) (result i32) i32.const 0)
"#;

#[test]
fn bad_modules_are_refused_with_what_is_wrong() {
    let e = AllocatorModule::new("mm.c", b"int mm_init(void) { return 0; }").unwrap_err();
    contains(&e.0, "mm.c is not a WebAssembly module");
    let e = AllocatorModule::new("cut.wasm", b"\0asm\x01\0\0\0\x01\xff").unwrap_err();
    contains(&e.0, "cut.wasm is not a valid module");
    contains(
        &refused(&format!(
            "(module {})",
            GOOD_EXPORTS.replace("\"mm_free\"", "\"free\"")
        )),
        "bad.wasm does not export mm_free",
    );
    contains(
        &refused(&format!(
            "(module {})",
            GOOD_EXPORTS.replace(
                "(func (export \"mm_free\") (param i32))",
                "(func (export \"mm_free\") (param i64))"
            )
        )),
        "bad.wasm exports mm_free as (i64) -> (), but malloc lab's interface has it as (i32) -> ()",
    );
    contains(
        &refused(&format!(
            r#"(module (import "env" "malloc" (func (param i32) (result i32))) {GOOD_EXPORTS})"#
        )),
        "bad.wasm imports env.malloc, which heaplab does not offer",
    );
    contains(
        &refused(&format!(
            r#"(module (import "env" "mem_sbrk" (func (param i64) (result i64))) {GOOD_EXPORTS})"#
        )),
        "bad.wasm imports env.mem_sbrk as (i64) -> (i64), but heaplab offers it as (i32) -> (i32)",
    );
    contains(
        &refused(&format!(
            "(module {})",
            GOOD_EXPORTS.replace("\"memory\") 2)", "\"memory\") 2000)")
        )),
        "more than the 67108864 heaplab allows",
    );
    contains(
        &refused(&format!(
            "(module {})",
            GOOD_EXPORTS.replace("(export \"memory\") ", "")
        )),
        "bad.wasm does not export its memory as \"memory\"",
    );
    // The good exports alone are a module heaplab takes.
    AllocatorModule::new(
        "ok.wasm",
        &wat::parse_str(format!("(module {GOOD_EXPORTS})")).unwrap(),
    )
    .unwrap();
}

/// The meter gives a module without globals a counter of its own, and a loop in it
/// spends that counter, not the run: the call is stopped at its budget.
#[test]
fn a_module_without_globals_is_metered_too() {
    let endless = GOOD_EXPORTS.replace(
        "(func (export \"mm_malloc\") (param i32) (result i32) i32.const 0)",
        "(func (export \"mm_malloc\") (param i32) (result i32) (loop $l (br $l)) i32.const 0)",
    );
    let bytes = wat::parse_str(format!("(module {endless})")).unwrap();
    let m = AllocatorModule::new("endless.wasm", &bytes).unwrap();
    let config = common::config(&m, "churn", &[("budget", Value::from(10_000))]);
    m.register();
    let config = config.resolve().unwrap();
    let mut sim = Simulation::new(&config, sim_provider(&config)).unwrap();
    let e = sim.apply(Event::alloc(0, 24)).unwrap_err().to_string();
    contains(
        &e,
        "event 1: mm_malloc(24) ran past its budget of 10000 units of fuel",
    );
    contains(
        &refused(&format!(
            r#"(module (global (export "hl_fuel") i32 (i32.const 0)) {GOOD_EXPORTS})"#
        )),
        "it exports hl_fuel, a name heaplab keeps for itself",
    );
}
