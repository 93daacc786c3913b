//! Sweeps: one configuration run at each value of one numeric parameter (or at each pair
//! of values of two), and the report of every metric per value.
//!
//! The CLI and the page share it in two steps, so both print the same object: a
//! [`Sweep`] lists the points to run ([`Sweep::points`], each a value and its
//! `RunConfig`), whoever holds it runs them (the CLI on its cores, the page in its
//! workers), and [`Sweep::report`], a pure function of the points' reports, assembles the
//! [`SweepReport`] that `heaplab sweep --json` prints and the page exposes as
//! `window.heaplabSweep`. A sweep comes from flags ([`Sweep::new`]) or from a link's
//! [`SweepView`] ([`Sweep::from_link`]).

pub(crate) mod values;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::link::{LinkError, LinkState, SweepAxis, SweepView};
use heaplab_core::config::RunConfig;
use heaplab_core::metrics::{phase_figures, Measure, Schema, METRICS};
use heaplab_core::params::{ParamKind, ParamSpec};

pub use values::{is_numeric, parse_values, range_text, MAX_VALUES};

/// The most points a sweep runs, a grid of two parameters included: the bound a link's
/// sweep is checked against, so a sweep from flags and one from a link stop alike.
pub const MAX_POINTS: usize = crate::link::MAX_SWEEP_POINTS;

/// The series resolution each point runs at: the page's, so the configs the page runs
/// and those the CLI runs are the same objects.
pub const SERIES_POINTS: usize = 2000;

/// Which part of the configuration a swept parameter belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Policy,
    Workload,
}

/// One swept parameter and its values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Axis {
    pub param: String,
    pub target: Target,
    /// Whether the values are sizes in bytes, which a chart lays out on a log2 axis.
    pub size: bool,
    pub values: Vec<Value>,
}

impl Axis {
    /// One of the axis's values as a heading or a legend shows it: sizes in binary units.
    pub fn value_text(&self, value: &Value) -> String {
        match value.as_u64() {
            Some(b) if self.size => heaplab_core::format::format_bytes(b),
            _ => value.to_string(),
        }
    }
}

/// One run of a sweep: the value of each axis, and the config that runs them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Point {
    pub values: Vec<Value>,
    pub config: RunConfig,
}

/// A sweep ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// The configuration every point starts from, resolved.
    pub base: RunConfig,
    pub axes: Vec<Axis>,
    /// The metric a chart of the sweep plots first.
    pub metric: String,
    /// The metrics a chart plots under it, in order.
    pub also: Vec<String>,
    pub points: Vec<Point>,
}

/// Finds the numeric parameter `name` of the base configuration: the policy's when its
/// family has one of that name (as [`LinkState::with_sweep_value`] decides), else the
/// workload's. The error names the parameter and lists the ones that can be swept.
pub fn find_param(base: &RunConfig, name: &str) -> Result<(Target, &'static ParamSpec), String> {
    let policy = heaplab_core::policy::family(&base.policy.family).map_or(&[][..], |f| f.params);
    let workload = if base.workload.is_trace() {
        &[][..]
    } else {
        heaplab_core::workload::find(&base.workload.id).map_or(&[][..], |w| w.params)
    };
    let found = policy
        .iter()
        .map(|s| (Target::Policy, s))
        .chain(workload.iter().map(|s| (Target::Workload, s)))
        .find(|(_, s)| s.name == name);
    match found {
        Some((target, spec)) if is_numeric(spec) => Ok((target, spec)),
        Some(_) => Err(format!(
            "{name} is not numeric, so it cannot be swept; numeric ones are: {}",
            numeric_list(policy, workload)
        )),
        None => Err(format!(
            "{name} is a parameter of neither policy {} nor workload {}; numeric ones are: {}",
            base.policy.label(),
            base.workload.id,
            numeric_list(policy, workload)
        )),
    }
}

fn numeric_list(policy: &[ParamSpec], workload: &[ParamSpec]) -> String {
    let list = |specs: &[ParamSpec]| -> String {
        specs
            .iter()
            .filter(|s| is_numeric(s))
            .map(|s| format!("{} ({})", s.name, range_text(s)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("policy: {}; workload: {}", list(policy), list(workload))
}

impl Sweep {
    /// The sweep of `base` over each `(parameter, values)`: one axis, or two for a grid
    /// (the first axis outer). Each value is checked by its parameter's spec and each
    /// point's config resolved, so an error names the parameter and the value.
    pub fn new(
        base: &RunConfig,
        axes: &[(String, Vec<Value>)],
        metric: &str,
    ) -> Result<Sweep, String> {
        let mut base = base.resolve().map_err(|e| e.to_string())?;
        base.series_points = SERIES_POINTS;
        if axes.is_empty() || axes.len() > 2 {
            return Err(format!(
                "a sweep varies one or two parameters, not {}",
                axes.len()
            ));
        }
        if Measure::parse(metric).is_none() {
            return Err(format!(
                "there is no metric {metric:?}; valid ones are: {}",
                heaplab_core::metrics::valid_text()
            ));
        }
        let mut out = Vec::new();
        for (param, values) in axes {
            let (target, spec) = find_param(&base, param)?;
            if out.iter().any(|a: &Axis| &a.param == param) {
                return Err(format!("{param} is varied twice"));
            }
            if values.is_empty() || values.len() > MAX_VALUES {
                return Err(format!(
                    "{param}: {} values; a sweep runs 1 to {MAX_VALUES} per parameter",
                    values.len()
                ));
            }
            for v in values {
                spec.parse_json(v).map_err(|e| format!("{param}: {e}"))?;
            }
            out.push(Axis {
                param: param.clone(),
                target,
                size: matches!(spec.kind, ParamKind::Bytes { .. }),
                values: values.clone(),
            });
        }
        let total: usize = out.iter().map(|a| a.values.len()).product();
        if total > MAX_POINTS {
            return Err(format!(
                "the grid has {total} points; a sweep runs at most {MAX_POINTS}"
            ));
        }
        let points = grid(&out)
            .into_iter()
            .map(|values| {
                let mut config = base.clone();
                for (axis, value) in out.iter().zip(&values) {
                    let params = match axis.target {
                        Target::Policy => &mut config.policy.params,
                        Target::Workload => &mut config.workload.params,
                    };
                    params.insert(axis.param.clone(), value.clone());
                }
                let config = config.resolve().map_err(|e| {
                    let at: Vec<String> = out
                        .iter()
                        .zip(&values)
                        .map(|(a, v)| format!("{}={v}", a.param))
                        .collect();
                    format!("at {}: {e}", at.join(", "))
                })?;
                Ok(Point { values, config })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Sweep {
            base,
            axes: out,
            metric: metric.to_string(),
            also: Vec::new(),
            points,
        })
    }

    /// The same sweep with `also` plotted under its own metric; a key that names no
    /// metric is refused by name.
    pub fn plotting(mut self, also: &[String]) -> Result<Sweep, String> {
        for key in also {
            if Measure::parse(key).is_none() {
                return Err(format!(
                    "there is no metric {key:?}; valid ones are: {}",
                    heaplab_core::metrics::valid_text()
                ));
            }
        }
        self.also = also.to_vec();
        Ok(self)
    }

    /// Every metric a chart of the sweep plots, its own first, each once.
    pub fn metrics(&self) -> Vec<&str> {
        let mut keys = vec![self.metric.as_str()];
        for key in &self.also {
            if !keys.contains(&key.as_str()) {
                keys.push(key);
            }
        }
        keys
    }

    /// The sweep a link's `view.sweep` describes, over the configuration it names.
    pub fn from_link(state: &LinkState) -> Result<Sweep, LinkError> {
        let view =
            state.view.sweep.as_ref().ok_or_else(|| {
                LinkError::new("this link shows no sweep (view.sweep is missing)")
            })?;
        let configs = state.run_configs(SERIES_POINTS)?;
        let base = configs.get(view.config).ok_or_else(|| {
            LinkError::new(format!(
                "view.sweep.config: configuration {} does not exist; the link has {}",
                view.config + 1,
                configs.len()
            ))
        })?;
        Sweep::new(base, &view_axes(view), &view.metric)
            .and_then(|sweep| sweep.plotting(&view.also))
            .map_err(|e| LinkError::new(format!("view.sweep: {e}")))
    }

    /// The link state that opens this sweep in the page, for a base config that is a
    /// built-in workload.
    pub fn link_state(&self) -> Result<LinkState, LinkError> {
        let mut state = LinkState::from_configs(std::slice::from_ref(&self.base))?;
        let mut axes = self.axes.iter();
        let first = axes
            .next()
            .ok_or_else(|| LinkError::new("a sweep needs a parameter to vary"))?;
        state.view.chart = crate::link::Chart::Sweep;
        state.view.sweep = Some(SweepView {
            config: 0,
            param: first.param.clone(),
            values: first.values.clone(),
            metric: self.metric.clone(),
            also: self.also.clone(),
            then: axes.next().map(|a| SweepAxis {
                param: a.param.clone(),
                values: a.values.clone(),
            }),
        });
        Ok(state)
    }

    /// The report of the sweep from each point's report, in the order of
    /// [`Sweep::points`]: a run's `--json` object, the `{report, series}` the page's
    /// `run` returns, or a bare summary. Every metric of [`METRICS`] is read from each,
    /// so the message of a report that lacks one names its place.
    pub fn report(&self, reports: &[Value]) -> Result<SweepReport, String> {
        if reports.len() != self.points.len() {
            return Err(format!(
                "the sweep has {} points and {} reports were given",
                self.points.len(),
                reports.len()
            ));
        }
        let points = self
            .points
            .iter()
            .zip(reports)
            .enumerate()
            .map(|(i, (point, report))| {
                let report = report.get("report").unwrap_or(report);
                let metrics = METRICS
                    .iter()
                    .map(|m| match report.get(m.key) {
                        Some(v) if v.is_number() => Ok(v.clone()),
                        _ => Err(format!("reports[{i}].{}: not a number, or missing", m.key)),
                    })
                    .collect::<Result<Vec<Value>, String>>()?;
                Ok(PointReport {
                    values: point.values.clone(),
                    metrics: MetricValues(metrics, phase_figures(report)),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        // A phase figure plotted must be one every point's workload ends a phase with.
        for key in self.metrics() {
            if let Some(Measure::Phase { phase, .. }) = Measure::parse(key) {
                if let Some(p) = points.iter().find(|p| p.metrics.get(key).is_none()) {
                    let phases: Vec<&str> = p
                        .metrics
                        .1
                        .iter()
                        .filter_map(|(k, _)| k.strip_prefix("resident_bytes@"))
                        .collect();
                    return Err(format!(
                        "{key}: the workload has no phase {phase:?}; its phases are: {}",
                        if phases.is_empty() {
                            "none".to_string()
                        } else {
                            phases.join(", ")
                        }
                    ));
                }
            }
        }
        Ok(SweepReport {
            schema: Schema,
            label: self.base.policy.label(),
            config: self.base.clone(),
            params: self.axes.clone(),
            metric: self.metric.clone(),
            points,
        })
    }
}

/// A view's axes: its parameter, then the grid's second one.
fn view_axes(view: &SweepView) -> Vec<(String, Vec<Value>)> {
    let mut axes = vec![(view.param.clone(), view.values.clone())];
    if let Some(then) = &view.then {
        axes.push((then.param.clone(), then.values.clone()));
    }
    axes
}

/// Every combination of the axes' values, the first axis outer.
fn grid(axes: &[Axis]) -> Vec<Vec<Value>> {
    let mut out: Vec<Vec<Value>> = vec![Vec::new()];
    for axis in axes {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                axis.values.iter().map(move |v| {
                    let mut next = prefix.clone();
                    next.push(v.clone());
                    next
                })
            })
            .collect();
    }
    out
}

/// What `heaplab sweep --json` prints and the page keeps in `window.heaplabSweep`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepReport {
    /// `"schema": 1`, the layout's version, first.
    pub schema: Schema,
    /// The configuration's name in tables and legends.
    pub label: String,
    /// The configuration every point starts from, resolved.
    pub config: RunConfig,
    /// The parameters varied, in the order each point's `values` lists them.
    pub params: Vec<Axis>,
    /// The metric a chart plots first.
    pub metric: String,
    pub points: Vec<PointReport>,
}

/// One point: the values it ran at and every metric it measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PointReport {
    pub values: Vec<Value>,
    pub metrics: MetricValues,
}

/// A value per metric of [`METRICS`], in its order, then each phase figure of the
/// point's report (`resident_bytes@exit`, the core's `phase_figures`); serialized as one
/// object by key.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricValues(pub Vec<Value>, pub Vec<(String, Value)>);

impl MetricValues {
    /// The value of the metric or phase figure `key`, as a number.
    pub fn get(&self, key: &str) -> Option<f64> {
        match METRICS.iter().position(|m| m.key == key) {
            Some(i) => self.0.get(i).and_then(Value::as_f64),
            None => self
                .1
                .iter()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| v.as_f64()),
        }
    }
}

impl Serialize for MetricValues {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len() + self.1.len()))?;
        for (metric, value) in METRICS.iter().zip(&self.0) {
            m.serialize_entry(metric.key, value)?;
        }
        for (key, value) in &self.1 {
            m.serialize_entry(key, value)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests;
