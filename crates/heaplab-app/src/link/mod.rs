//! Permalinks: what the page shows, as a small versioned value that the page and the CLI
//! both encode and decode, so a link made by either opens the same run in the other.
//!
//! A link's fragment is `#2.<payload>`: the version, a dot, then [`LinkState`] as JSON,
//! deflated and written in base64url. Links of earlier versions keep opening forever:
//! `#c=<json>` (version 1, the page's first links) and `#s=<scenario>` are migrated in
//! [`v1`]. Every field has a default, so a link that leaves fields out still opens, and
//! [`check`] refuses values no run could use with a message naming the field.

mod check;
mod codec;
mod deflate;
mod module;
mod v1;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use heaplab_core::clock::Clock;
use heaplab_core::config::{PolicyConfig, ProviderConfig, RunConfig, TouchMode, WorkloadConfig};

pub use check::{
    embeddable, MAX_CONFIGS, MAX_EMBEDDED_BYTES, MAX_EMBEDDED_TEXT_BYTES, MAX_EVENTS,
    MAX_SWEEP_POINTS, MAX_SWEEP_VALUES,
};
#[cfg(feature = "fuzz")]
pub(crate) use codec::fragment_of;
pub use codec::{decode, encode, trace_ref, trace_ref_of, url, TraceHasher};
pub use deflate::MAX_PAYLOAD_BYTES;
pub use module::{ModuleRef, MAX_EMBEDDED_MODULE_BYTES};

/// The version [`encode`] writes.
pub const VERSION: u32 = 2;

/// A link that could not be read or asks for something no run can do. The message starts
/// with `link:` and names the part that is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkError {
    pub message: String,
}

impl LinkError {
    pub(crate) fn new(message: impl Into<String>) -> LinkError {
        LinkError {
            message: format!("link: {}", message.into()),
        }
    }
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LinkError {}

/// Everything a link holds: the workload, the configurations compared, the provider, and
/// how the page shows the runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinkState {
    pub workload: LinkWorkload,
    /// The policies compared, each a family or a preset with only the parameters that
    /// differ from its defaults.
    pub configs: Vec<PolicyConfig>,
    pub provider: ProviderConfig,
    #[serde(skip_serializing_if = "is_default")]
    pub touch: TouchMode,
    /// For a trace: skip bad lines and events instead of stopping at the first.
    #[serde(skip_serializing_if = "is_default")]
    pub lenient: bool,
    /// For a trace: refuse `free(NULL)` and `realloc(NULL, n)` as bad lines, as
    /// `heaplab run --strict` does.
    #[serde(skip_serializing_if = "is_default")]
    pub strict: bool,
    #[serde(skip_serializing_if = "is_default")]
    pub view: View,
    /// A seed scenario to open and run instead of the editor's configurations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// The allocator modules the configurations of the module family run, by SHA-256.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<ModuleRef>,
    /// The model's clock, when the run was given one (`trace` or `rate=<ns>`; never `real`,
    /// which no replay of a link has): the
    /// presets whose delays count time return memory by it, so a link without it would
    /// open another run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

impl Default for LinkState {
    fn default() -> LinkState {
        LinkState {
            workload: LinkWorkload::default(),
            configs: vec![PolicyConfig::named(default_family())],
            provider: ProviderConfig::default(),
            touch: TouchMode::default(),
            lenient: false,
            strict: false,
            view: View::default(),
            scenario: None,
            modules: Vec::new(),
            clock: None,
        }
    }
}

impl LinkState {
    /// What the page opens on when its address has no fragment: the question it exists
    /// for, asked of a seed scenario's workload. LLVM's bump allocator under the JIT-like
    /// workload (compiles that free their arenas between long-lived small allocations),
    /// with its 4 KiB slabs against 64 KiB slabs: two lines that part in the compile
    /// phases, and the table's deltas against the first. A link that leaves a field out
    /// still gets [`LinkState::default`]'s, so links already shared mean what they meant.
    pub fn starter() -> LinkState {
        let slab = |size: u64| {
            let mut config = PolicyConfig::named("llvm-bump");
            config.params.insert("slab_size".into(), Value::from(size));
            config
        };
        LinkState {
            workload: LinkWorkload::Builtin {
                id: "jit".into(),
                params: BTreeMap::new(),
            },
            configs: vec![PolicyConfig::named("llvm-bump"), slab(64 * 1024)],
            ..LinkState::default()
        }
    }
}

/// The family the page offers first, which a link with no configuration runs.
fn default_family() -> &'static str {
    heaplab_core::policy::FAMILIES
        .first()
        .map_or("bump", |f| f.id)
}

/// What the runs replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LinkWorkload {
    /// A built-in workload with the parameters that differ from its defaults.
    Builtin {
        id: String,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        params: BTreeMap<String, Value>,
    },
    /// A trace file the link names but does not hold: whoever opens it loads the file,
    /// and the size and hash say whether it is the same one.
    Trace(TraceRef),
    /// A small trace carried in the link itself, so the link alone reproduces the run.
    Embedded { name: String, text: String },
}

impl Default for LinkWorkload {
    fn default() -> LinkWorkload {
        LinkWorkload::Builtin {
            id: heaplab_core::workload::WORKLOADS
                .first()
                .map_or("churn", |w| w.id)
                .into(),
            params: BTreeMap::new(),
        }
    }
}

/// A trace file named by what identifies it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TraceRef {
    /// The file's name, without its folder.
    pub name: String,
    /// Its size in bytes, when known (version 1 links name the file alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Its SHA-256, in lower-case hex, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

impl TraceRef {
    /// Whether a file of `bytes` with hash `sha256` is the one this names; what the
    /// reference leaves out matches anything.
    pub fn matches(&self, bytes: u64, sha256: &str) -> bool {
        self.bytes.is_none_or(|b| b == bytes) && self.sha256.as_deref().is_none_or(|h| h == sha256)
    }
}

/// Which chart the page shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Chart {
    /// Memory over time.
    #[default]
    Memory,
    /// Page operations over time.
    PageOps,
    /// Summary bars per metric.
    Bars,
    /// A sweep's curve.
    Sweep,
}

/// What a timeline's x axis shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum XAxis {
    /// The run's events.
    #[default]
    Events,
    /// The model time of runs with a clock; runs without one are drawn over events.
    Time,
}

/// How the page shows the runs: none of it changes a number.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct View {
    #[serde(skip_serializing_if = "is_default")]
    pub chart: Chart,
    /// The window of events the chart is zoomed to, first and last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zoom: Option<[u64; 2]>,
    /// The configuration the others are compared with, by index.
    #[serde(skip_serializing_if = "is_default")]
    pub baseline: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepView>,
    /// Where the teaching panel stands: the event, the configuration followed and the
    /// page selected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teach: Option<TeachView>,
    /// What the timelines' x axis shows.
    #[serde(skip_serializing_if = "is_default")]
    pub x: XAxis,
}

/// The teaching position a link opens at: "look at step 212".
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "TeachForm")]
pub struct TeachView {
    /// The events applied to the heap shown (0: before the first).
    pub event: u64,
    /// The configuration followed, by index.
    #[serde(skip_serializing_if = "is_default")]
    pub config: usize,
    /// The heap map's page selected, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u64>,
    /// The region of the heap map shown, its first and last page (both shown), or the
    /// whole map when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zoom: Option<[u64; 2]>,
    /// The block map zoomed into one page down to its bytes, or the pages around the
    /// selected one when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<TeachBytes>,
    /// The configuration shown side by side with the one followed, at the same event, by
    /// index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare: Option<usize>,
}

/// The block map's zoom into a page: offsets `[from, to)` from the start of page `page`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeachBytes {
    pub page: u64,
    pub from: u64,
    pub to: u64,
}

/// The forms `view.teach` has had: links written before the panel held only the event,
/// as a bare number.
#[derive(Deserialize)]
#[serde(untagged)]
enum TeachForm {
    Event(u64),
    Full {
        event: u64,
        #[serde(default)]
        config: usize,
        #[serde(default)]
        page: Option<u64>,
        // Read as any JSON value and checked in the conversion, so that a zoom of the
        // wrong shape is refused by its field's name rather than as a form that matches
        // none of the forms.
        #[serde(default)]
        zoom: Option<serde_json::Value>,
        // Checked in the conversion, as the zoom is.
        #[serde(default)]
        bytes: Option<serde_json::Value>,
        #[serde(default)]
        compare: Option<serde_json::Value>,
    },
}

impl TryFrom<TeachForm> for TeachView {
    type Error = String;

    fn try_from(form: TeachForm) -> Result<TeachView, String> {
        match form {
            TeachForm::Event(event) => Ok(TeachView {
                event,
                ..TeachView::default()
            }),
            TeachForm::Full {
                event,
                config,
                page,
                zoom,
                bytes,
                compare,
            } => Ok(TeachView {
                event,
                config,
                page,
                zoom: zoom.map(teach_zoom).transpose()?,
                bytes: bytes.map(teach_bytes).transpose()?,
                compare: compare.map(teach_compare).transpose()?,
            }),
        }
    }
}

/// A teaching view's `zoom`: two page numbers `[first, last]`.
fn teach_zoom(value: serde_json::Value) -> Result<[u64; 2], String> {
    match serde_json::from_value::<[u64; 2]>(value.clone()) {
        Ok(zoom) => Ok(zoom),
        Err(_) => Err(format!(
            "view.teach.zoom: {} is not two page numbers [first, last]",
            clip(&value.to_string())
        )),
    }
}

/// A teaching view's `bytes`: `{page, from, to}`, a page and two offsets into it.
fn teach_bytes(value: serde_json::Value) -> Result<TeachBytes, String> {
    serde_json::from_value::<TeachBytes>(value.clone()).map_err(|_| {
        format!(
            "view.teach.bytes: {} is not {{\"page\", \"from\", \"to\"}}, a page and two \
             offsets into it",
            clip(&value.to_string())
        )
    })
}

/// A teaching view's `compare`: a configuration's index.
fn teach_compare(value: serde_json::Value) -> Result<usize, String> {
    serde_json::from_value::<usize>(value.clone()).map_err(|_| {
        format!(
            "view.teach.compare: {} is not a configuration's index",
            clip(&value.to_string())
        )
    })
}

/// One parameter of one configuration run at several values, and the metric plotted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepView {
    /// The configuration swept, by index.
    #[serde(default)]
    pub config: usize,
    pub param: String,
    pub values: Vec<Value>,
    /// A metric's key (see [`heaplab_core::metrics::METRICS`]).
    #[serde(default = "default_sweep_metric")]
    pub metric: String,
    /// Further metrics the chart plots under `metric`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
    /// A second parameter, for a grid: every value of `param` runs with every one of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<SweepAxis>,
}

/// The second parameter of a grid sweep and its values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepAxis {
    pub param: String,
    pub values: Vec<Value>,
}

fn default_sweep_metric() -> String {
    "peak_resident_bytes".into()
}

impl LinkState {
    /// The state that reproduces `configs`, which must share one workload and provider
    /// (as the page's and `heaplab run`'s do). Parameters equal to their defaults are
    /// left out, so the link stays short. A trace workload is named by its path's file
    /// name alone; give [`LinkState::workload`] a [`trace_ref`] to add its size and hash.
    pub fn from_configs(configs: &[RunConfig]) -> Result<LinkState, LinkError> {
        let first = configs
            .first()
            .ok_or_else(|| LinkError::new("there is no configuration to link to"))?;
        // The clock is the run's, one for every configuration, as `--clock` gives it.
        check::travels(first.clock)?;
        if let Some(other) = configs.iter().find(|c| c.clock != first.clock) {
            let said = |c: Option<Clock>| c.map_or("none".to_string(), |c| format!("`{c}`"));
            return Err(LinkError::new(format!(
                "clock: a link gives all its configurations one clock, and these have {} \
                 and {}",
                said(first.clock),
                said(other.clock)
            )));
        }
        let workload = if first.workload.is_trace() {
            let path = first.workload.path.clone().unwrap_or_default();
            LinkWorkload::Trace(TraceRef {
                name: file_name(&path).into(),
                ..TraceRef::default()
            })
        } else {
            LinkWorkload::Builtin {
                id: first.workload.id.clone(),
                params: changed_workload_params(&first.workload)?,
            }
        };
        let mut out = Vec::with_capacity(configs.len());
        for (i, c) in configs.iter().enumerate() {
            let where_ = |e: heaplab_core::params::ParamError| {
                LinkError::new(format!("configuration {}: {e}", i + 1))
            };
            out.push(minimal_policy(&c.policy).map_err(where_)?);
        }
        Ok(LinkState {
            workload,
            configs: out,
            provider: first.provider,
            touch: first.touch,
            clock: first.clock,
            ..LinkState::default()
        })
    }

    /// The run configs the link describes, one per configuration, each resolved (every
    /// default filled in). A trace's config names its file by the link's name; the caller
    /// supplies the bytes. `series_points` is the page's resolution of memory over time.
    pub fn run_configs(&self, series_points: usize) -> Result<Vec<RunConfig>, LinkError> {
        let workload = match &self.workload {
            LinkWorkload::Builtin { id, params } => WorkloadConfig {
                id: id.clone(),
                params: params.clone(),
                path: None,
            },
            LinkWorkload::Trace(t) => WorkloadConfig::trace(t.name.clone()),
            LinkWorkload::Embedded { name, .. } => WorkloadConfig::trace(name.clone()),
        };
        self.configs
            .iter()
            .enumerate()
            .map(|(i, policy)| {
                let config = RunConfig {
                    workload: workload.clone(),
                    policy: policy.clone(),
                    provider: self.provider,
                    touch: self.touch,
                    series_points,
                    clock: self.clock,
                };
                config.resolve().map_err(|e| check::config_error(i, &e))
            })
            .collect()
    }
}

impl LinkState {
    /// The state with the sweep's parameter set to `value` in the swept configuration: a
    /// policy parameter when its family has one of that name, else the workload's.
    pub fn with_sweep_value(&self, sweep: &SweepView, value: &Value) -> LinkState {
        let mut out = self.clone();
        out.view = View::default();
        let policy_has = out.configs.get(sweep.config).is_some_and(|c| {
            let family = match c.preset.as_deref().and_then(heaplab_core::presets::preset) {
                Some(p) => Some(p.family),
                None => heaplab_core::policy::Family::from_id(&c.family),
            };
            family.is_some_and(|f| f.spec().params.iter().any(|p| p.name == sweep.param))
        });
        match (&mut out.workload, out.configs.get_mut(sweep.config)) {
            (_, Some(policy)) if policy_has => {
                policy.params.insert(sweep.param.clone(), value.clone());
            }
            (LinkWorkload::Builtin { params, .. }, _) => {
                params.insert(sweep.param.clone(), value.clone());
            }
            // A trace has no parameters: the value goes to the policy, which names it as
            // unknown when the link is checked.
            (_, Some(policy)) => {
                policy.params.insert(sweep.param.clone(), value.clone());
            }
            (_, None) => {}
        }
        out
    }
}

/// The first 40 characters of a long string, for a message: a link's field is quoted
/// shorter than a trace's line, since a message about a link is read in the page's
/// narrow error box.
fn clip(text: &str) -> String {
    heaplab_core::format::clip(text, 40)
}

/// A path's last component, which is all of it a link keeps.
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The workload parameters that differ from the workload's defaults.
fn changed_workload_params(
    workload: &WorkloadConfig,
) -> Result<BTreeMap<String, Value>, LinkError> {
    let spec =
        heaplab_core::workload::find(&workload.id).map_err(|e| LinkError::new(e.to_string()))?;
    heaplab_core::params::Params::changed(
        spec.params,
        &workload.params,
        &BTreeMap::new(),
        "workload.params",
    )
    .map_err(|e| LinkError::new(e.to_string()))
}

/// A policy with only the parameters that differ from its preset's or family's values.
fn minimal_policy(policy: &PolicyConfig) -> Result<PolicyConfig, heaplab_core::params::ParamError> {
    let mut out = PolicyConfig {
        params: policy.changed_params()?,
        ..policy.clone()
    };
    // A preset names its family; the link need not say it twice.
    if out.preset.is_some() {
        out.family.clear();
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
