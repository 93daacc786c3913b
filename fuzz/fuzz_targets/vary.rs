//! Fuzz target `vary`: see `heaplab_app::fuzz::vary` for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| heaplab_app::fuzz::vary(data));
