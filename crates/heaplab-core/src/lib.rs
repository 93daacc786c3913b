//! heaplab's engine: allocator policies over page providers, the simulator that replays
//! events through them, the workloads and trace readers that make the events, and the
//! figures a run ends with. One config and one event stream give one report.
//!
//! What composes or explains runs (sweeps, permalinks, scenarios, teaching mode) is the
//! application, `heaplab-app`, built on this crate; nothing here depends on it.
//!
//! The core is plain Rust. It never names wasm, libc or web-sys: providers for real memory
//! and bindings for the browser live in other crates and plug in through
//! [`provider::PageProvider`].
//!
//! ```
//! use heaplab_core::{config::RunConfig, run::run};
//!
//! let mut config = RunConfig::new("churn", "size-class");
//! config.workload.params.insert("scale".into(), 0.001.into());
//! let out = run(&config).unwrap();
//! assert_eq!(out.report.summary.allocs(), 7001);
//! assert!(out.report.summary.peak_resident_bytes() >= 4096);
//! ```

pub mod clock;
pub mod config;
pub mod decision;
pub mod event;
pub mod format;
mod id_window;
mod live;
pub mod metrics;
pub mod names;
mod page_dir;
pub mod pages;
pub mod params;
pub mod policy;
mod prefetch;
pub mod presets;
pub mod provider;
mod ranges;
pub mod run;
pub mod series;
pub mod simulate;
mod small_map;
pub mod stats;
pub mod trace;
pub mod workload;
