//! What the tests share: building a C allocator with clang and registering it.

use std::path::PathBuf;
use std::sync::Arc;

use heaplab_core::config::RunConfig;
use heaplab_mm::compile::{build, BuildRequest};
use heaplab_mm::AllocatorModule;
use serde_json::Value;

/// Builds a C allocator with extra clang `flags` and registers it, under `name`.
pub fn module(name: &str, source: &str, flags: &[&str]) -> Arc<AllocatorModule> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mm-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, source).unwrap();
    let wasm = dir.join(format!("{name}.wasm"));
    build(&BuildRequest {
        sources: vec![c],
        output: wasm.clone(),
        flags: flags.iter().map(|f| f.to_string()).collect(),
    })
    .unwrap_or_else(|e| panic!("building {name}: {e}"));
    let bytes = std::fs::read(&wasm).unwrap();
    AllocatorModule::new(&format!("{name}.wasm"), &bytes)
        .unwrap()
        .register()
}

/// A config that runs `m` on `workload`, with module knobs `knobs`.
#[allow(dead_code)] // Not every test binary that shares this module builds configs.
pub fn config(m: &AllocatorModule, workload: &str, knobs: &[(&str, Value)]) -> RunConfig {
    let mut config = RunConfig::new(workload, "bump");
    config.policy = m.policy_config();
    let params = &mut config.policy.params;
    for (k, v) in knobs {
        params.insert(k.to_string(), v.clone());
    }
    config
}
