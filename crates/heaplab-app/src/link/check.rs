//! What a link may ask for. A decoded state passes here before anyone runs it, so a link
//! cut short, edited by hand or made to hurt (a page size of 3, a zoom to 10^12 events,
//! fifty configurations) is refused with a message naming the field.

use super::deflate::deflated_len;
use super::{LinkError, LinkState, LinkWorkload};
use heaplab_core::config::PAGE_SIZES;
use heaplab_core::params::ParamError;

/// The most configurations a link compares: the page shows four side by side.
pub const MAX_CONFIGS: usize = 4;

/// The furthest event a view may point at. Ten billion is beyond any run a page or the
/// CLI finishes, and far below where event numbers stop being exact in JavaScript.
pub const MAX_EVENTS: u64 = 10_000_000_000;

/// The most bytes a trace carried in a link may take once deflated, as the link carries
/// it: links travel through chat and mail, which cut long ones.
/// The last heap-map page a link's teaching zoom may name: 2^40 pages is more address
/// space than any run reserves, so a larger number is a typing error, not a region.
pub const MAX_TEACH_PAGE: u64 = 1 << 40;

pub const MAX_EMBEDDED_BYTES: usize = 64 * 1024;

/// The longest trace text a link carries, deflated or not: what its payload may inflate
/// to ([`super::MAX_PAYLOAD_BYTES`]), less room for the rest of the state and for
/// the escapes its JSON writes.
pub const MAX_EMBEDDED_TEXT_BYTES: usize = 192 * 1024;

/// The text of a trace file when a link can carry it: UTF-8, not gzip'd, at most
/// [`MAX_EMBEDDED_TEXT_BYTES`] long and at most [`MAX_EMBEDDED_BYTES`] deflated.
pub fn embeddable(bytes: &[u8]) -> Option<&str> {
    // gzip is binary whatever it holds, and its magic bytes say so.
    if bytes.len() > MAX_EMBEDDED_TEXT_BYTES || bytes.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    (deflated_len(text.as_bytes()) <= MAX_EMBEDDED_BYTES).then_some(text)
}

/// The most values a sweep runs.
pub const MAX_SWEEP_VALUES: usize = 64;

/// The most runs a sweep makes, a grid of two parameters included: 256 runs of a small
/// workload take the page's workers about as long as anyone waits for a chart, and a
/// grid of two full axes (4,096 runs) would keep a tab busy for many minutes.
pub const MAX_SWEEP_POINTS: usize = 256;

/// Refuses a real run's clock in a link: whoever opens the link replays it in the page or
/// with `heaplab run --link`, simulated runs that have no real run to take the time of.
pub(super) fn travels(clock: Option<heaplab_core::clock::Clock>) -> Result<(), LinkError> {
    if clock == Some(heaplab_core::clock::Clock::Real) {
        return Err(LinkError::new(
            "clock: `real` is the time of a real run, which a link's simulated replay does not \
             have; give `trace` or `rate=<ns per event>`",
        ));
    }
    Ok(())
}

/// Checks `state`: sizes and counts first, then every configuration as a run would
/// resolve it.
pub(super) fn check(state: &LinkState) -> Result<(), LinkError> {
    if let Some(id) = &state.scenario {
        // A scenario link opens the scenario; the rest of the state is not run.
        return crate::scenario::find(id)
            .map(|_| ())
            .map_err(LinkError::new);
    }
    travels(state.clock)?;
    let n = state.configs.len();
    if n == 0 || n > MAX_CONFIGS {
        return Err(LinkError::new(format!(
            "{n} configurations; a link holds 1 to {MAX_CONFIGS}"
        )));
    }
    let page = state.provider.page_size;
    if !PAGE_SIZES.contains(&page) {
        return Err(LinkError::new(format!(
            "page_size {page} is not {}",
            page_sizes_text()
        )));
    }
    match &state.workload {
        LinkWorkload::Embedded { name, text } if embeddable(text.as_bytes()).is_none() => {
            return Err(LinkError::new(format!(
                "the embedded trace {name} has {} bytes, {} deflated; a link carries at most \
                 {MAX_EMBEDDED_TEXT_BYTES}, or {MAX_EMBEDDED_BYTES} deflated",
                text.len(),
                deflated_len(text.as_bytes())
            )));
        }
        LinkWorkload::Trace(t) => {
            if let Some(h) = &t.sha256 {
                if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(LinkError::new(format!(
                        "trace {}: sha256 {:?} is not 64 hex digits",
                        t.name,
                        super::clip(h)
                    )));
                }
            }
        }
        _ => {}
    }
    for (i, m) in state.modules.iter().enumerate() {
        m.check()
            .map_err(|e| LinkError::new(format!("modules[{i}]: {e}")))?;
    }
    let module_family = heaplab_core::policy::hosted::FAMILY.id;
    let sha_knob = heaplab_core::policy::hosted::Knobs::NAMES.sha256;
    for (i, c) in state.configs.iter().enumerate() {
        let sha = c.params.get(sha_knob).and_then(|v| v.as_str());
        if let (true, Some(sha)) = (c.family == module_family, sha) {
            if !state
                .modules
                .iter()
                .any(|m| m.sha256.eq_ignore_ascii_case(sha))
            {
                return Err(LinkError::new(format!(
                    "configuration {}: it runs the module with SHA-256 {}, which the link \
                     neither carries nor names",
                    i + 1,
                    super::clip(sha)
                )));
            }
        }
    }
    let view = &state.view;
    if let Some([from, to]) = view.zoom {
        if from >= to {
            return Err(LinkError::new(format!(
                "view.zoom: the window {from}..{to} is empty; its first event must come before its last"
            )));
        }
        if to > MAX_EVENTS {
            return Err(LinkError::new(format!(
                "view.zoom: event {to} is past the last a link may name ({MAX_EVENTS})"
            )));
        }
    }
    if let Some(teach) = &view.teach {
        if teach.event > MAX_EVENTS {
            return Err(LinkError::new(format!(
                "view.teach: event {} is past the last a link may name ({MAX_EVENTS})",
                teach.event
            )));
        }
        if teach.config >= n {
            return Err(LinkError::new(format!(
                "view.teach.config: configuration {} does not exist; the link has {n}",
                teach.config + 1
            )));
        }
        if let Some([first, last]) = teach.zoom {
            if first > last {
                return Err(LinkError::new(format!(
                    "view.teach.zoom: the region {first}..{last} is empty; its first page must \
                     not come after its last"
                )));
            }
            if last > MAX_TEACH_PAGE {
                return Err(LinkError::new(format!(
                    "view.teach.zoom: page {last} is past the last a link may name \
                     ({MAX_TEACH_PAGE})"
                )));
            }
        }
        if let Some(bytes) = teach.bytes {
            check_teach_bytes(bytes)?;
        }
        if let Some(other) = teach.compare {
            if other >= n || other == teach.config {
                return Err(LinkError::new(format!(
                    "view.teach.compare: configuration {} {}",
                    other + 1,
                    if other >= n {
                        format!("does not exist; the link has {n}")
                    } else {
                        "is the one followed; name another to compare with".to_string()
                    }
                )));
            }
        }
    }
    if view.baseline >= n {
        return Err(LinkError::new(format!(
            "view.baseline: configuration {} does not exist; the link has {n}",
            view.baseline + 1
        )));
    }
    if let Some(sweep) = &view.sweep {
        check_sweep(state, sweep)?;
    }
    state.run_configs(2).map(|_| ())
}

fn check_sweep(state: &LinkState, sweep: &super::SweepView) -> Result<(), LinkError> {
    let n = state.configs.len();
    if sweep.config >= n {
        return Err(LinkError::new(format!(
            "view.sweep.config: configuration {} does not exist; the link has {n}",
            sweep.config + 1
        )));
    }
    if sweep.values.is_empty() || sweep.values.len() > MAX_SWEEP_VALUES {
        return Err(LinkError::new(format!(
            "view.sweep.values: {} values; a sweep runs 1 to {MAX_SWEEP_VALUES}",
            sweep.values.len()
        )));
    }
    let named = std::iter::once(("view.sweep.metric".to_string(), &sweep.metric)).chain(
        sweep
            .also
            .iter()
            .enumerate()
            .map(|(k, m)| (format!("view.sweep.also[{k}]"), m)),
    );
    for (field, metric) in named {
        if heaplab_core::metrics::Measure::parse(metric).is_none() {
            return Err(LinkError::new(format!(
                "{field}: there is no metric {metric:?}; valid ones are: {}",
                heaplab_core::metrics::valid_text()
            )));
        }
    }
    if sweep.also.len() >= heaplab_core::metrics::METRICS.len() {
        return Err(LinkError::new(format!(
            "view.sweep.also: {} metrics; there are {} in all",
            sweep.also.len(),
            heaplab_core::metrics::METRICS.len()
        )));
    }
    // Each value must be one the parameter takes: the swept configuration with the value
    // set resolves, or the link names what it refuses.
    for (k, value) in sweep.values.iter().enumerate() {
        state
            .with_sweep_value(sweep, value)
            .run_configs(2)
            .map_err(|e| {
                LinkError::new(format!(
                    "view.sweep.values[{k}]: {}",
                    e.message.trim_start_matches("link: ")
                ))
            })?;
    }
    if let Some(then) = &sweep.then {
        if then.values.is_empty() || then.values.len() > MAX_SWEEP_VALUES {
            return Err(LinkError::new(format!(
                "view.sweep.then.values: {} values; a sweep runs 1 to {MAX_SWEEP_VALUES}",
                then.values.len()
            )));
        }
        let axis = super::SweepView {
            param: then.param.clone(),
            values: then.values.clone(),
            then: None,
            ..sweep.clone()
        };
        let runs = sweep.values.len() * then.values.len();
        if runs > MAX_SWEEP_POINTS {
            return Err(LinkError::new(format!(
                "view.sweep.then.values: the grid has {runs} points; a sweep runs at most \
                 {MAX_SWEEP_POINTS}"
            )));
        }
        for (k, value) in then.values.iter().enumerate() {
            state
                .with_sweep_value(&axis, value)
                .run_configs(2)
                .map_err(|e| {
                    LinkError::new(format!(
                        "view.sweep.then.values[{k}]: {}",
                        e.message.trim_start_matches("link: ")
                    ))
                })?;
        }
    }
    Ok(())
}

/// "4096, 16384 or 65536".
fn page_sizes_text() -> String {
    let sizes: Vec<String> = PAGE_SIZES.iter().map(u64::to_string).collect();
    match sizes.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => sizes.join(""),
    }
}

/// A configuration's error as a link reports it: `configuration 2: slab_size: ...`.
pub(super) fn config_error(index: usize, e: &ParamError) -> LinkError {
    let field = e.field.strip_prefix("policy.params.").unwrap_or(&e.field);
    LinkError::new(format!(
        "configuration {}: {field}: {}",
        index + 1,
        e.message
    ))
}

/// The block map's zoom into a page: a page a link may name, and offsets within the
/// largest page size.
fn check_teach_bytes(bytes: super::TeachBytes) -> Result<(), LinkError> {
    let largest = PAGE_SIZES.iter().copied().max().unwrap_or(0);
    if bytes.from >= bytes.to || bytes.to > largest {
        return Err(LinkError::new(format!(
            "view.teach.bytes: the offsets {}..{} are not a range within a page (0..{largest} \
             at most), the first before the last",
            bytes.from, bytes.to
        )));
    }
    if bytes.page > MAX_TEACH_PAGE {
        return Err(LinkError::new(format!(
            "view.teach.bytes: page {} is past the last a link may name ({MAX_TEACH_PAGE})",
            bytes.page
        )));
    }
    Ok(())
}
