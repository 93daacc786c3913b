//! heaplab's application: what is built from runs of the engine in `heaplab-core`.
//!
//! The engine turns one configuration and one stream of events into one report. This crate
//! holds what the CLI and the page both offer on top of that: permalinks ([`link`]),
//! sweeps of a parameter ([`sweep`]), the seed scenarios and their findings
//! ([`scenario`]), the registries as one JSON value for menus ([`catalog`]), what the page's exported files say ([`export`]), and teaching
//! mode, a run stepped event by event with its heap map, block map and blame
//! ([`observe`]). It depends on the engine; the engine knows nothing of it.
//!
//! ```
//! use heaplab_app::link::{self, LinkState};
//! use heaplab_core::config::RunConfig;
//!
//! let configs = [RunConfig::new("churn", "size-class")];
//! let state = LinkState::from_configs(&configs).unwrap();
//! let text = link::encode(&state);
//! assert_eq!(link::decode(&text).unwrap(), state);
//! ```

pub mod catalog;
pub mod export;
#[cfg(feature = "fuzz")]
pub mod fuzz;
pub mod link;
pub mod observe;
pub mod scenario;
pub mod sweep;
