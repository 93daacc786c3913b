//! Fuzz target `stream`: see `heaplab_app::fuzz::stream` for what it feeds and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| heaplab_app::fuzz::stream(data));
