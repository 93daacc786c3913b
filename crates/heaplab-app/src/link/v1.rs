//! The links of version 1, read forever: `#c=<json>`, the page's first permalinks (its
//! form state as percent-encoded JSON, every parameter written out), and `#s=<id>`, a
//! seed scenario.

use std::collections::BTreeMap;

use percent_encoding::percent_decode_str;
use serde::Deserialize;
use serde_json::Value;

use super::{clip, LinkError, LinkState, LinkWorkload, TraceRef};
use heaplab_core::config::{PolicyConfig, ProviderConfig};

/// The page's state as version 1 wrote it.
#[derive(Deserialize)]
struct State {
    v: Value,
    #[serde(default)]
    workload: Option<Workload>,
    #[serde(default)]
    provider: Option<ProviderConfig>,
    #[serde(default)]
    policies: Option<Vec<PolicyConfig>>,
    #[serde(default)]
    lenient: bool,
}

#[derive(Deserialize)]
struct Workload {
    id: String,
    #[serde(default)]
    params: BTreeMap<String, Value>,
    #[serde(default)]
    path: Option<String>,
}

/// Percent-decodes a fragment's text, as the page's `encodeURIComponent` wrote it.
fn unescape(text: &str) -> Result<String, LinkError> {
    percent_decode_str(text)
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| LinkError::new("the link's text is not UTF-8 once unescaped"))
}

/// `#c=<json>`: the JSON after `c=`.
pub(super) fn config(escaped: &str) -> Result<LinkState, LinkError> {
    let json = unescape(escaped)?;
    let value: Value = serde_json::from_str(&json).map_err(|e| {
        LinkError::new(format!(
            "the configuration in this link is not JSON ({e}): {:?}",
            clip(&json)
        ))
    })?;
    if !value.is_object() {
        return Err(LinkError::new(
            "the configuration in this link is not a JSON object",
        ));
    }
    let state: State = serde_json::from_value(value)
        .map_err(|e| LinkError::new(format!("the configuration in this link: {e}")))?;
    if state.v != 1 {
        return Err(LinkError::new(format!(
            "its version {} is not one this page knows",
            state.v
        )));
    }
    let mut out = LinkState::default();
    if let Some(w) = state.workload {
        out.workload = if w.id == "trace" {
            LinkWorkload::Trace(TraceRef {
                name: w.path.unwrap_or_default(),
                ..TraceRef::default()
            })
        } else {
            LinkWorkload::Builtin {
                id: w.id,
                params: w.params,
            }
        };
    }
    if let Some(p) = state.provider {
        out.provider = p;
    }
    if let Some(policies) = state.policies {
        out.configs = policies;
    }
    out.lenient = state.lenient;
    Ok(out)
}

/// `#s=<id>`: a seed scenario, opened in the editor and run.
pub(super) fn scenario(escaped: &str) -> Result<LinkState, LinkError> {
    // A scenario id the page wrote is plain; one mangled by hand is taken as it is.
    let id = unescape(escaped).unwrap_or_else(|_| escaped.to_string());
    Ok(LinkState {
        scenario: Some(id),
        ..LinkState::default()
    })
}
