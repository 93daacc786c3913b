//! Figures at the end of a workload's phases, beside the summary's: what a service keeps
//! resident after each request or compile, which a run's end alone does not show. A phase
//! figure is named `<figure>@<phase>` (`resident_bytes@compile 3`), its figure one of
//! [`PHASE_FIGURES`], the fields every report's `phases` holds. [`Measure`] reads either
//! kind, so a sweep takes a phase figure wherever it takes a metric of [`METRICS`].

use serde_json::Value;

use super::{find, Metric, Unit, METRICS};

/// One figure each phase ends with, by its field in a report's `phases`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseFigure {
    pub key: &'static str,
    /// How a chart names it, before "at end of <phase>".
    pub label: &'static str,
}

/// The figures each phase ends with, in the order reports list them.
pub const PHASE_FIGURES: &[PhaseFigure] = &[
    PhaseFigure {
        key: "live_bytes",
        label: "Live",
    },
    PhaseFigure {
        key: "committed_bytes",
        label: "Committed",
    },
    PhaseFigure {
        key: "resident_bytes",
        label: "Resident",
    },
];

/// A figure a sweep or a chart reads from a report: a metric of [`METRICS`], or a phase
/// figure at the end of a named phase.
#[derive(Clone, Debug)]
pub enum Measure {
    Summary(&'static Metric),
    Phase {
        figure: &'static PhaseFigure,
        phase: String,
    },
}

/// Two measures are one when they read the same figure.
impl PartialEq for Measure {
    fn eq(&self, other: &Measure) -> bool {
        self.key() == other.key()
    }
}

impl Measure {
    /// The measure a key names: a metric's key, or `<figure>@<phase>`.
    pub fn parse(key: &str) -> Option<Measure> {
        if let Some(m) = find(key) {
            return Some(Measure::Summary(m));
        }
        let (figure, phase) = key.split_once('@')?;
        let figure = PHASE_FIGURES.iter().find(|f| f.key == figure)?;
        (!phase.is_empty()).then(|| Measure::Phase {
            figure,
            phase: phase.to_string(),
        })
    }

    /// The key it was parsed from.
    pub fn key(&self) -> String {
        match self {
            Measure::Summary(m) => m.key.to_string(),
            Measure::Phase { figure, phase } => format!("{}@{phase}", figure.key),
        }
    }

    /// What a chart calls it ("Resident at end of compile 3").
    pub fn label(&self) -> String {
        match self {
            Measure::Summary(m) => m.label.to_string(),
            Measure::Phase { figure, phase } => format!("{} at end of {phase}", figure.label),
        }
    }

    pub fn unit(&self) -> Unit {
        match self {
            Measure::Summary(m) => m.unit,
            Measure::Phase { .. } => Unit::Bytes,
        }
    }
}

/// Every `(<figure>@<phase>, value)` a report (as `--json` prints it) has, phase by phase.
pub fn phase_figures(report: &Value) -> Vec<(String, Value)> {
    let Some(phases) = report["phases"].as_array() else {
        return Vec::new();
    };
    phases
        .iter()
        .filter_map(|p| Some((p["label"].as_str()?, p)))
        .flat_map(|(label, p)| {
            PHASE_FIGURES
                .iter()
                .map(move |f| (format!("{}@{label}", f.key), p[f.key].clone()))
        })
        .collect()
}

/// What may be asked for, for messages: every metric's key, then the phase figures.
pub fn valid_text() -> String {
    let keys: Vec<&str> = METRICS.iter().map(|m| m.key).collect();
    let figures: Vec<&str> = PHASE_FIGURES.iter().map(|f| f.key).collect();
    format!(
        "{}, or <figure>@<phase> for {} at the end of one of the workload's phases",
        keys.join(", "),
        figures.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_figure_is_named_by_its_figure_and_its_phase() {
        let m = Measure::parse("resident_bytes@compile 3").unwrap();
        assert_eq!(m.key(), "resident_bytes@compile 3");
        assert_eq!(m.label(), "Resident at end of compile 3");
        assert_eq!(m.unit(), Unit::Bytes);
        assert_eq!(
            Measure::parse("page_ops").map(|m| m.label()),
            Some("All page calls".into())
        );
        for bad in ["resident_bytes@", "page_ops@exit", "nothing", "@exit"] {
            assert_eq!(Measure::parse(bad), None, "{bad}");
        }
        let report = serde_json::json!({"phases": [
            {"label": "exit", "end_event": 9, "live_bytes": 0, "committed_bytes": 4096, "resident_bytes": 4096}
        ]});
        let got = phase_figures(&report);
        assert_eq!(got.len(), 3);
        assert_eq!(got[2], ("resident_bytes@exit".to_string(), 4096.into()));
    }
}
