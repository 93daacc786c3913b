//! The values a swept parameter takes, from the text a user types: `4K..1M` (doublings
//! from the first to the last), `4K,16K,64K` (a list) or `1..9:2` (steps of two). Each
//! value is read by the parameter's own spec, so sizes take the suffixes every other
//! parameter takes and a value outside the parameter's range is refused in its words.

use serde_json::Value;

use heaplab_core::params::{ParamKind, ParamSpec, ParamValue};

/// The most values one swept parameter runs: as many as a link's sweep may hold.
pub const MAX_VALUES: usize = crate::link::MAX_SWEEP_VALUES;

/// Whether a parameter can be swept: a whole number, a size or a number.
pub fn is_numeric(spec: &ParamSpec) -> bool {
    matches!(
        spec.kind,
        ParamKind::Int { .. } | ParamKind::Bytes { .. } | ParamKind::Float { .. }
    )
}

/// The parameter's range as its messages write it (`4 KiB..=1 GiB`).
pub fn range_text(spec: &ParamSpec) -> String {
    match spec.kind {
        ParamKind::Int { min, max } => format!("{min}..={max}"),
        ParamKind::Bytes { min, max, pow2 } => format!(
            "{}..={}{}",
            heaplab_core::format::format_bytes(min),
            heaplab_core::format::format_bytes(max),
            if pow2 { ", powers of two" } else { "" }
        ),
        ParamKind::Float { min, max } => format!("{min}..={max}"),
        _ => String::new(),
    }
}

/// Parses a value list for `spec`. The message says what is wrong with the text, without
/// naming the parameter (the caller does).
pub fn parse_values(spec: &ParamSpec, text: &str) -> Result<Vec<Value>, String> {
    let text = text.trim();
    let values = if let Some((from, rest)) = text.split_once("..") {
        let (to, step) = match rest.split_once(':') {
            Some((to, step)) => (to, Some(step)),
            None => (rest, None),
        };
        let from = number(spec, from)?;
        let to = number(spec, to)?;
        if to < from {
            return Err(format!("the range {text:?} ends before it starts"));
        }
        match step {
            Some(step) => linear(spec, from, to, step)?,
            None => doublings(from, to, text)?,
        }
    } else {
        text.split(',')
            .map(|item| number(spec, item))
            .collect::<Result<Vec<f64>, String>>()?
    };
    if values.len() > MAX_VALUES {
        return Err(format!(
            "{text:?} gives {} values; a sweep runs at most {MAX_VALUES}",
            values.len()
        ));
    }
    values.into_iter().map(|v| value_of(spec, v)).collect()
}

/// One endpoint or list item, read by the spec (and so checked against its range).
fn number(spec: &ParamSpec, text: &str) -> Result<f64, String> {
    if text.trim().is_empty() {
        return Err("a value is missing (try 4K..1M, 4K,16K,64K or 1..9:2)".into());
    }
    match spec.parse_text(text)? {
        ParamValue::Int(i) => Ok(i as f64),
        ParamValue::Float(f) => Ok(f),
        _ => Err(format!("{text:?} is not a number")),
    }
}

/// `from`, `2 from`, `4 from`, ... up to `to`.
fn doublings(from: f64, to: f64, text: &str) -> Result<Vec<f64>, String> {
    if from <= 0.0 {
        return Err(format!(
            "{text:?} doubles from its first value, which must be above 0 (or give a step: a..b:step)"
        ));
    }
    let mut out = Vec::new();
    let mut v = from;
    while v <= to * (1.0 + 1e-12) {
        out.push(v);
        if out.len() > MAX_VALUES {
            break;
        }
        v *= 2.0;
    }
    Ok(out)
}

/// `from`, `from + step`, ... up to `to`.
fn linear(spec: &ParamSpec, from: f64, to: f64, step: &str) -> Result<Vec<f64>, String> {
    let step = match spec.kind {
        ParamKind::Bytes { .. } => heaplab_core::params::parse_bytes(step)? as f64,
        _ => step
            .trim()
            .parse::<f64>()
            .map_err(|_| format!("the step {step:?} is not a number"))?,
    };
    if !(step.is_finite() && step > 0.0) {
        return Err(format!("the step {step} must be above 0"));
    }
    let mut out = Vec::new();
    let mut k = 0.0;
    loop {
        // Counting steps, rather than adding them up, keeps 0.1 steps from drifting.
        let v = from + k * step;
        if v > to + step * 1e-9 || out.len() > MAX_VALUES {
            break;
        }
        out.push(v);
        k += 1.0;
    }
    Ok(out)
}

/// A value as the parameter's JSON holds it: whole numbers for sizes and counts.
fn value_of(spec: &ParamSpec, v: f64) -> Result<Value, String> {
    let json = match spec.kind {
        ParamKind::Float { .. } => Value::from(v),
        _ if v.fract() != 0.0 => return Err(format!("{v} is not a whole number")),
        _ => Value::from(v as i64),
    };
    // Generated values are checked as typed ones are (a power of two, the range).
    spec.parse_json(&json)?;
    Ok(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLAB: ParamSpec = ParamSpec {
        name: "slab_size",
        kind: ParamKind::Bytes {
            min: 4096,
            max: 1 << 30,
            pow2: true,
        },
        default: "64KiB",
        unit: "bytes",
        doc: "",
        zero_means: "",
    };

    const RATE: ParamSpec = ParamSpec {
        name: "rate",
        kind: ParamKind::Float { min: 0.0, max: 1.0 },
        default: "0.5",
        unit: "",
        doc: "",
        zero_means: "",
    };

    #[test]
    fn ranges_double_lists_list_and_steps_step() {
        let v = parse_values(&SLAB, "4K..64KiB").unwrap();
        assert_eq!(v, [4096, 8192, 16384, 32768, 65536].map(Value::from));
        let v = parse_values(&SLAB, "4K,16K, 1M").unwrap();
        assert_eq!(v, [4096, 16384, 1 << 20].map(Value::from));
        let v = parse_values(&RATE, "0..0.3:0.1").unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(v[3], Value::from(0.30000000000000004));
    }

    #[test]
    fn bad_lists_say_what_is_wrong() {
        let e = parse_values(&SLAB, "1K..4K").unwrap_err();
        assert!(e.contains("4 KiB..=1 GiB"), "{e}");
        let e = parse_values(&SLAB, "4K..64K:4K").unwrap_err();
        assert!(e.contains("not a power of two"), "{e}");
        let e = parse_values(&SLAB, "64K..4K").unwrap_err();
        assert!(e.contains("ends before it starts"), "{e}");
        let e = parse_values(&RATE, "0..1").unwrap_err();
        assert!(e.contains("above 0"), "{e}");
        let e = parse_values(&RATE, "0..1:0.001").unwrap_err();
        assert!(e.contains("at most 64"), "{e}");
        let e = parse_values(&SLAB, "4K,,8K").unwrap_err();
        assert!(e.contains("missing"), "{e}");
    }
}
