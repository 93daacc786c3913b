//! What to run: a workload, a policy, a provider. The same JSON comes from the CLI, the
//! browser and saved files; [`RunConfig::resolve`] checks it and fills in every default so
//! a report names exactly what ran.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::clock::Clock;
use crate::format::format_bytes;
use crate::params::{ParamError, Params};
use crate::policy::{self, Family, Policy};
use crate::presets;
use crate::provider::SimMode;
use crate::workload;

/// The page sizes the simulated provider offers.
pub const PAGE_SIZES: &[u64] = &[4096, 16384, 65536];

/// One simulation: which workload, through which policy, over which pages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    pub workload: WorkloadConfig,
    pub policy: PolicyConfig,
    #[serde(default)]
    pub provider: ProviderConfig,
    /// How much of each allocation the program writes.
    #[serde(default)]
    pub touch: TouchMode,
    /// Most points kept in the memory-over-time series.
    #[serde(default = "default_points")]
    pub series_points: usize,
    /// How the model tells time (see [`crate::clock`]): unset, a built-in workload's real
    /// pace when it has one ([`RunConfig::model_clock`]), or a trace's time marks when it
    /// has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
}

fn default_points() -> usize {
    2000
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadConfig {
    /// A built-in workload id, or `trace` for a trace file named by `path`.
    pub id: String,
    #[serde(default)]
    pub params: BTreeMap<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl WorkloadConfig {
    /// The workload of a trace file at `path`.
    pub fn trace(path: impl Into<String>) -> WorkloadConfig {
        WorkloadConfig {
            id: "trace".into(),
            params: BTreeMap::new(),
            path: Some(path.into()),
        }
    }

    /// Whether this is a trace file's workload rather than a built-in generator.
    pub fn is_trace(&self) -> bool {
        self.id == "trace"
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    /// A family id; may be left out when `preset` names one.
    #[serde(default)]
    pub family: String,
    /// A preset id (see `heaplab policies`): the family and its values, which `params`
    /// override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    #[serde(default)]
    pub params: BTreeMap<String, Value>,
}

impl PolicyConfig {
    /// A family or a preset, by id.
    pub fn named(id: &str) -> PolicyConfig {
        match presets::preset(id) {
            Some(p) => PolicyConfig {
                family: p.family.id().into(),
                preset: Some(p.id.into()),
                params: BTreeMap::new(),
            },
            None => PolicyConfig {
                family: id.into(),
                preset: None,
                params: BTreeMap::new(),
            },
        }
    }

    /// The parameters whose values differ from the preset's (or, for a plain family, the
    /// family's defaults), typed as the family's specs read them: what tells two
    /// configurations of one preset apart, and all a link need carry.
    pub fn changed_params(&self) -> Result<BTreeMap<String, Value>, ParamError> {
        let (family, given) = self.merged()?;
        let bare = PolicyConfig {
            params: BTreeMap::new(),
            ..self.clone()
        };
        let (_, base) = bare.merged()?;
        Params::changed(family.spec().params, &given, &base, "policy.params")
    }

    /// How tables, charts and files name this configuration: the preset's or family's id,
    /// followed by the parameters it changes (`glibc-like (release_free_pages=immediate)`,
    /// sizes in binary units), so that two columns of one preset never share a heading.
    pub fn label(&self) -> String {
        let mut id = self.preset.as_deref().unwrap_or(&self.family).to_string();
        let Ok(mut changed) = self.changed_params() else {
            return id;
        };
        // A module is named by its file, not by the hash that picks it.
        if self.family == policy::hosted::FAMILY.id {
            let names = policy::hosted::Knobs::NAMES;
            if let Some(name) = changed
                .remove(names.sha256)
                .and_then(|v| v.as_str().and_then(policy::hosted::name_of))
            {
                id = name;
            }
        }
        if changed.is_empty() {
            return id;
        }
        let specs = self.merged().map_or(&[][..], |(f, _)| f.spec().params);
        let settings: Vec<String> = changed
            .iter()
            .map(|(name, value)| {
                let bytes = specs.iter().any(|s| {
                    s.name == name && matches!(s.kind, crate::params::ParamKind::Bytes { .. })
                });
                match value.as_u64() {
                    Some(b) if bytes => format!("{name}={}", crate::format::format_bytes(b)),
                    _ => format!("{name}={}", value.to_string().trim_matches('"')),
                }
            })
            .collect();
        format!("{id} ({})", settings.join(", "))
    }

    /// The family and the parameters given, with a preset's values under the user's.
    fn merged(&self) -> Result<(Family, BTreeMap<String, Value>), ParamError> {
        let Some(id) = &self.preset else {
            let family = Family::from_id(&self.family)
                .ok_or_else(|| policy::unknown_family(&self.family))?;
            return Ok((family, self.params.clone()));
        };
        let preset = presets::preset(id).ok_or_else(|| {
            let ids: Vec<&str> = presets::PRESETS.iter().map(|p| p.id).collect();
            ParamError {
                field: "policy.preset".into(),
                message: format!(
                    "unknown preset {id:?}{}; valid ones are: {}",
                    crate::names::did_you_mean(id, &ids),
                    ids.join(", ")
                ),
            }
        })?;
        if !self.family.is_empty() && self.family != preset.family.id() {
            return Err(ParamError {
                field: "policy.family".into(),
                message: format!(
                    "preset {} is of family {}, not {}",
                    preset.id, preset.family, self.family
                ),
            });
        }
        let family = preset.family;
        let mut params: BTreeMap<String, Value> = preset
            .params
            .iter()
            .map(|(k, v)| (k.to_string(), Value::from(*v)))
            .collect();
        params.extend(self.params.clone());
        Ok((family, params))
    }
}

/// Declares the page providers once, each as `Variant = "id", "title", "description"`: the
/// [`ProviderKind`] variants, the ids serde reads and writes for them, and what the catalog
/// lists, so no id or title is written twice.
macro_rules! providers {
    ($($(#[doc = $doc:literal])* $name:ident = $id:literal, $title:literal, $description:literal;)+) => {
        /// Which page provider a run simulates.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub enum ProviderKind {
            $($(#[doc = $doc])* #[serde(rename = $id)] $name,)+
        }

        impl ProviderKind {
            /// Every provider, in the order menus list them.
            pub const ALL: &'static [ProviderKind] = &[$(ProviderKind::$name),+];

            /// The id a config names the provider by (`wasm-linear`).
            pub const fn id(self) -> &'static str {
                match self {
                    $(ProviderKind::$name => $id),+
                }
            }

            /// A short name for menus.
            pub const fn title(self) -> &'static str {
                match self {
                    $(ProviderKind::$name => $title),+
                }
            }

            /// What the provider can and cannot do, in a sentence or two.
            pub const fn description(self) -> &'static str {
                match self {
                    $(ProviderKind::$name => $description),+
                }
            }
        }
    };
}

providers! {
    /// An operating system with virtual memory (mmap, madvise).
    Sim = "sim",
        "Virtual memory (simulated OS)",
        "Reserve, commit, decommit and release all work, as with mmap and madvise.";
    /// WebAssembly linear memory: grows, never shrinks.
    WasmLinear = "wasm-linear",
        "WebAssembly linear memory",
        "Memory only grows: decommit and release give nothing back, so what a wasm program \
         once had stays resident.";
}

impl ProviderKind {
    /// The provider with this id, if there is one.
    pub fn from_id(id: &str) -> Option<ProviderKind> {
        ProviderKind::ALL.iter().copied().find(|p| p.id() == id)
    }

    /// What the simulated provider imitates for this provider.
    pub fn sim_mode(self) -> SimMode {
        match self {
            ProviderKind::Sim => SimMode::Os,
            ProviderKind::WasmLinear => SimMode::WasmLinear,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    #[serde(default = "default_kind")]
    pub kind: ProviderKind,
    #[serde(default = "default_page")]
    pub page_size: u64,
}

fn default_kind() -> ProviderKind {
    ProviderKind::Sim
}

fn default_page() -> u64 {
    4096
}

impl Default for ProviderConfig {
    fn default() -> Self {
        ProviderConfig {
            kind: default_kind(),
            page_size: default_page(),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TouchMode {
    /// Every byte is written, as MallocBench zeroes every allocation.
    #[default]
    All,
    /// Only the first byte is written.
    First,
    /// Nothing is written; only the allocator's own writes count.
    None,
}

impl RunConfig {
    /// A config for a built-in workload and a policy family with default parameters.
    pub fn new(workload: &str, family: &str) -> RunConfig {
        RunConfig {
            workload: WorkloadConfig {
                id: workload.into(),
                params: BTreeMap::new(),
                path: None,
            },
            policy: PolicyConfig::named(family),
            provider: ProviderConfig::default(),
            touch: TouchMode::All,
            series_points: default_points(),
            clock: None,
        }
    }

    /// Parses a config from JSON, naming the line and column of a syntax error.
    pub fn from_json(text: &str) -> Result<RunConfig, ParamError> {
        serde_json::from_str(text).map_err(|e| ParamError {
            field: format!("config (line {}, column {})", e.line(), e.column()),
            message: e.to_string(),
        })
    }

    /// Checks every field and fills in defaults. Resolving a resolved config changes
    /// nothing.
    pub fn resolve(&self) -> Result<RunConfig, ParamError> {
        let mut out = self.clone();
        let (family, given) = self.policy.merged()?;
        let params = Params::resolve(family.spec().params, &given, "policy.params")?;
        out.policy.family = family.id().into();
        out.policy.params = params.to_json_map();
        if self.workload.is_trace() {
            if self.workload.path.is_none() {
                return Err(ParamError {
                    field: "workload.path".into(),
                    message: "a trace workload needs the path of its file".into(),
                });
            }
            if !self.workload.params.is_empty() {
                return Err(ParamError {
                    field: "workload.params".into(),
                    message: "a trace file takes no parameters".into(),
                });
            }
        } else {
            let spec = workload::find(&self.workload.id)?;
            let params = Params::resolve(spec.params, &self.workload.params, "workload.params")?;
            spec.check(&params)?;
            out.workload.params = params.to_json_map();
        }
        if !PAGE_SIZES.contains(&self.provider.page_size) {
            return Err(ParamError {
                field: "provider.page_size".into(),
                message: format!(
                    "{} is not a supported page size; use one of {:?}",
                    self.provider.page_size, PAGE_SIZES
                ),
            });
        }
        if self.clock == Some(Clock::Trace) && !self.workload.is_trace() {
            return Err(ParamError {
                field: "clock".into(),
                message: format!(
                    "`trace` runs on a trace's time marks, and the built-in workload {} has \
                     none; give `rate=<ns per event>`",
                    self.workload.id
                ),
            });
        }
        if !(2..=100_000).contains(&self.series_points) {
            return Err(ParamError {
                field: "series_points".into(),
                message: format!(
                    "{} is outside the allowed range 2..=100000",
                    self.series_points
                ),
            });
        }
        // Building the policy catches combinations no single parameter can judge, such as
        // an allocator page smaller than the OS page. A policy the user brings is built
        // only when a run starts: a config or a link may name a module before it is
        // loaded.
        if !family.is_brought() {
            let built = policy::AnyPolicy::new(family, &params, self.provider.page_size)?;
            let space = self.provider.kind.sim_mode().address_space();
            if let Some((knob, bytes)) = built.reserves_at_once().filter(|&(_, b)| b > space) {
                return Err(ParamError {
                    field: format!("policy.params.{knob}"),
                    message: format!(
                        "{} reserved at once is more than the {} of address space the {} \
                         provider has",
                        format_bytes(bytes),
                        format_bytes(space),
                        self.provider.kind.id()
                    ),
                });
            }
        }
        Ok(out)
    }

    /// The resolved policy parameters.
    pub fn policy_params(&self) -> Result<Params, ParamError> {
        let (family, given) = self.policy.merged()?;
        Params::resolve(family.spec().params, &given, "policy.params")
    }

    /// The clock the model runs on: the one given, else a built-in workload's real pace
    /// ([`workload::WorkloadSpec::rate_ns`]), else none, when a trace's own marks, if it
    /// opens with one, tell the time (see [`crate::clock::ModelTime`]).
    pub fn model_clock(&self) -> Option<Clock> {
        if self.clock.is_some() || self.workload.is_trace() {
            return self.clock;
        }
        let spec = workload::find(&self.workload.id).ok()?;
        spec.rate_ns().map(Clock::Rate)
    }

    /// The resolved workload parameters of a built-in workload.
    pub fn workload_params(&self) -> Result<Params, ParamError> {
        let spec = workload::find(&self.workload.id)?;
        Params::resolve(spec.params, &self.workload.params, "workload.params")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_fills_defaults_and_is_idempotent() {
        let c = RunConfig::new("churn", "size-class").resolve().unwrap();
        assert_eq!(c.policy.params["page_size"], Value::from(65536));
        assert!(c.workload.params.contains_key("seed"));
        assert_eq!(c.resolve().unwrap(), c);
    }

    #[test]
    fn providers_are_read_and_written_by_their_ids() {
        for &p in ProviderKind::ALL {
            assert_eq!(serde_json::to_value(p).unwrap(), Value::from(p.id()));
            assert_eq!(
                serde_json::from_value::<ProviderKind>(p.id().into()).unwrap(),
                p
            );
            assert_eq!(ProviderKind::from_id(p.id()), Some(p));
        }
        let e = serde_json::from_value::<ProviderKind>("mmap".into()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown variant `mmap`, expected `sim` or `wasm-linear`"
        );
    }

    #[test]
    fn bad_fields_are_named() {
        let mut c = RunConfig::new("churn", "size-class");
        c.provider.page_size = 5000;
        assert_eq!(c.resolve().unwrap_err().field, "provider.page_size");
        let c = RunConfig::new("nope", "size-class");
        let e = c.resolve().unwrap_err();
        assert_eq!(e.field, "workload.id");
        assert!(e.message.contains("churn"), "{e}");
        let mut c = RunConfig::new("churn", "size-class");
        c.provider.page_size = 65536;
        c.policy
            .params
            .insert("page_size".into(), Value::from(16384));
        let e = c.resolve().unwrap_err();
        assert_eq!(e.field, "policy.params.page_size");
        let e = RunConfig::from_json("{\"workload\": ").unwrap_err();
        assert!(e.field.contains("line 1"), "{e}");
        let e = RunConfig::from_json(
            r#"{"workload":{"id":"churn"},"policy":{"family":"bump"},"bogus":1}"#,
        )
        .unwrap_err();
        assert!(e.message.contains("bogus"), "{e}");
    }
}
