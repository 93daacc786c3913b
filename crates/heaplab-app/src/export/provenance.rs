//! Where an export's numbers come from, said in every file so that a file read away from
//! the page (a CSV in a spreadsheet, a PNG in a slide) still says what ran.

use heaplab_core::config::ProviderConfig;
use heaplab_core::format::format_bytes;
use serde_json::Value;

use crate::link::{self, LinkState, LinkWorkload, TraceRef};

/// What ran, as `key: value` lines: heaplab's version, the workload (a built-in one with
/// the parameters it changes, or a trace file with its size and SHA-256), the provider,
/// the page size and the link that runs it again.
#[derive(Clone, Debug, PartialEq)]
pub struct Provenance {
    pub lines: Vec<(&'static str, String)>,
}

impl Provenance {
    /// The provenance of what a link shows; `link` is the link itself, kept whole.
    pub fn of_link(state: &LinkState, link: &str) -> Provenance {
        let mut lines = vec![
            ("heaplab", env!("CARGO_PKG_VERSION").to_string()),
            ("workload", workload_text(state)),
        ];
        lines.extend(provider_lines(&state.provider));
        lines.push(("link", link.to_string()));
        Provenance { lines }
    }

    /// Reads the link and says what it shows; a link that does not read is said as
    /// [`link::decode`] words it.
    pub fn of_link_text(link: &str) -> Result<Provenance, link::LinkError> {
        Ok(Provenance::of_link(&link::decode(link)?, link))
    }

    /// The lines as a CSV file's first lines, each a comment (`# workload: jit`): a
    /// reader told that `#` starts a comment reads the table under them.
    pub fn csv_comments(&self) -> String {
        self.lines
            .iter()
            .map(|(key, value)| format!("# {key}: {}\n", value.replace(['\n', '\r'], " ")))
            .collect()
    }

    /// The lines as a chart's footer prints them: `key: value`, the link last.
    pub fn text_lines(&self) -> Vec<String> {
        self.lines
            .iter()
            .map(|(key, value)| format!("{key}: {value}"))
            .collect()
    }

    /// The workload's line alone, for a chart's title.
    pub fn workload(&self) -> &str {
        self.lines
            .iter()
            .find(|(key, _)| *key == "workload")
            .map_or("", |(_, value)| value.as_str())
    }
}

fn provider_lines(provider: &ProviderConfig) -> [(&'static str, String); 2] {
    [
        ("provider", provider.kind.id().to_string()),
        (
            "page_size",
            format!(
                "{} ({} bytes)",
                format_bytes(provider.page_size),
                provider.page_size
            ),
        ),
    ]
}

/// A built-in workload with the parameters it changes (`jit (scale=0.1)`), or a trace
/// file by name, size and SHA-256, with how bad lines were taken.
fn workload_text(state: &LinkState) -> String {
    let trace = |r: &TraceRef, carried: bool| {
        let mut facts = Vec::new();
        if let Some(bytes) = r.bytes {
            facts.push(format!("{bytes} bytes"));
        }
        facts.push(format!(
            "sha256 {}",
            r.sha256.as_deref().unwrap_or("not yet known")
        ));
        if carried {
            facts.push("carried in the link".into());
        }
        if state.lenient {
            facts.push("lenient".into());
        }
        if state.strict {
            facts.push("strict".into());
        }
        format!("trace {} ({})", r.name, facts.join(", "))
    };
    match &state.workload {
        LinkWorkload::Builtin { id, params } if params.is_empty() => id.clone(),
        LinkWorkload::Builtin { id, params } => {
            let settings: Vec<String> = params
                .iter()
                .map(|(name, value)| match value {
                    Value::String(s) => format!("{name}={s}"),
                    other => format!("{name}={other}"),
                })
                .collect();
            format!("{id} ({})", settings.join(", "))
        }
        LinkWorkload::Trace(r) => trace(r, false),
        LinkWorkload::Embedded { name, text } => {
            trace(&link::trace_ref(name, text.as_bytes()), true)
        }
    }
}
