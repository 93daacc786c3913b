//! Parameters as data: one spec per knob, shared by the CLI, the browser editor and the
//! JSON configs, so a parameter added once appears everywhere with the same checks.
//!
//! A family or a workload declares its knobs with [`knobs!`], which makes the specs and a
//! struct with a typed field per knob, read once from the resolved [`Params`] when the
//! policy is built or the generator starts; [`choice!`] declares the enum a choice knob is
//! read as.

use std::collections::BTreeMap;
use std::fmt;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// What values a parameter takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    Int {
        min: i64,
        max: i64,
    },
    /// A size in bytes; text may use K/KiB, M/MiB or G/GiB suffixes.
    Bytes {
        min: u64,
        max: u64,
        pow2: bool,
    },
    Float {
        min: f64,
        max: f64,
    },
    Bool,
    Choice(&'static [&'static str]),
    /// Free text of at most this many bytes, checked by its user (a histogram, say).
    Text {
        max_len: usize,
    },
}

/// One knob: its name, what it takes, its default (written as a user would type it) and
/// a one-line explanation.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    pub default: &'static str,
    pub unit: &'static str,
    pub doc: &'static str,
    /// What 0 stands for when it is not a plain amount: a size worked out from other
    /// knobs ("one page") or a feature turned off ("off"). Empty when 0 is just 0. The
    /// editor shows it where it would otherwise show "0 B", which would mislead.
    pub zero_means: &'static str,
}

/// A checked parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
}

impl Serialize for ParamValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ParamValue::Int(v) => s.serialize_i64(*v),
            ParamValue::Float(v) => s.serialize_f64(*v),
            ParamValue::Bool(v) => s.serialize_bool(*v),
            ParamValue::Str(v) => s.serialize_str(v),
        }
    }
}

/// A bad parameter, naming the field it was given for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub field: String,
    pub message: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ParamError {}

impl ParamSpec {
    /// Parses text as typed on a command line (`--set name=text`).
    pub fn parse_text(&self, text: &str) -> Result<ParamValue, String> {
        let t = text.trim();
        let v = match self.kind {
            ParamKind::Int { .. } => ParamValue::Int(
                t.replace('_', "")
                    .parse()
                    .map_err(|_| format!("{text:?} is not a whole number"))?,
            ),
            ParamKind::Bytes { .. } => ParamValue::Int(parse_bytes(t)?),
            ParamKind::Float { .. } => {
                let f: f64 = t.parse().map_err(|_| format!("{text:?} is not a number"))?;
                ParamValue::Float(f)
            }
            ParamKind::Bool => match t {
                "true" | "yes" | "on" | "1" => ParamValue::Bool(true),
                "false" | "no" | "off" | "0" => ParamValue::Bool(false),
                _ => return Err(format!("{text:?} is not true or false")),
            },
            ParamKind::Choice(_) | ParamKind::Text { .. } => ParamValue::Str(t.to_string()),
        };
        self.check(v)
    }

    /// Accepts a JSON value: the natural type, or text parsed as on a command line.
    pub fn parse_json(&self, value: &Value) -> Result<ParamValue, String> {
        let v = match (self.kind, value) {
            (_, Value::String(s)) => return self.parse_text(s),
            (ParamKind::Int { .. } | ParamKind::Bytes { .. }, Value::Number(n)) => {
                match n.as_i64() {
                    Some(i) => ParamValue::Int(i),
                    None => match n.as_f64() {
                        Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                            ParamValue::Int(f as i64)
                        }
                        _ => return Err(format!("{n} is not a whole number")),
                    },
                }
            }
            (ParamKind::Float { .. }, Value::Number(n)) => {
                ParamValue::Float(n.as_f64().ok_or_else(|| format!("{n} is not a number"))?)
            }
            (ParamKind::Bool, Value::Bool(b)) => ParamValue::Bool(*b),
            (_, other) => return Err(format!("{other} is not {}", self.kind_phrase())),
        };
        self.check(v)
    }

    fn check(&self, v: ParamValue) -> Result<ParamValue, String> {
        match (self.kind, &v) {
            (ParamKind::Int { min, max }, ParamValue::Int(i)) if (*i < min || *i > max) => {
                return Err(format!("{i} is outside the allowed range {min}..={max}"));
            }
            (ParamKind::Bytes { min, max, pow2 }, ParamValue::Int(i)) => {
                // 0 may stand for something of its own below the least size, as a page
                // size of 0 is the OS page.
                let zero = *i == 0 && !self.zero_means.is_empty();
                let in_range = zero || u64::try_from(*i).is_ok_and(|b| b >= min && b <= max);
                if !in_range {
                    return Err(format!(
                        "{i} is outside the allowed range {}..={}",
                        crate::format::format_bytes(min),
                        crate::format::format_bytes(max)
                    ));
                }
                if pow2 && !zero && !(*i as u64).is_power_of_two() {
                    return Err(format!("{i} is not a power of two"));
                }
            }
            (ParamKind::Float { min, max }, ParamValue::Float(f))
                if (!f.is_finite() || *f < min || *f > max) =>
            {
                return Err(format!("{f} is outside the allowed range {min}..={max}"));
            }
            (ParamKind::Text { max_len }, ParamValue::Str(s)) if s.len() > max_len => {
                return Err(format!(
                    "text of {} bytes is longer than {max_len}",
                    s.len()
                ));
            }
            (ParamKind::Choice(choices), ParamValue::Str(s)) if !choices.contains(&s.as_str()) => {
                return Err(format!("{s:?} is not one of: {}", choices.join(", ")));
            }
            _ => {}
        }
        Ok(v)
    }

    fn kind_phrase(&self) -> &'static str {
        match self.kind {
            ParamKind::Int { .. } => "a whole number",
            ParamKind::Bytes { .. } => "a size in bytes",
            ParamKind::Float { .. } => "a number",
            ParamKind::Bool => "true or false",
            ParamKind::Choice(_) => "one of the listed choices",
            ParamKind::Text { .. } => "text",
        }
    }

    /// The default, checked. Specs are written by us, so a bad default is a bug caught by
    /// the registry tests.
    pub fn default_value(&self) -> ParamValue {
        self.parse_text(self.default)
            .unwrap_or_else(|e| panic!("default of parameter {} is invalid: {e}", self.name))
    }
}

impl Serialize for ParamSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", self.name)?;
        let (kind, min, max, choices): (&str, Value, Value, Value) = match self.kind {
            ParamKind::Int { min, max } => ("int", min.into(), max.into(), Value::Null),
            ParamKind::Bytes { min, max, .. } => ("bytes", min.into(), max.into(), Value::Null),
            ParamKind::Float { min, max } => ("float", min.into(), max.into(), Value::Null),
            ParamKind::Bool => ("bool", Value::Null, Value::Null, Value::Null),
            ParamKind::Choice(c) => ("choice", Value::Null, Value::Null, c.into()),
            ParamKind::Text { max_len } => ("text", Value::Null, max_len.into(), Value::Null),
        };
        m.serialize_entry("kind", kind)?;
        m.serialize_entry("default", &self.default_value())?;
        m.serialize_entry("min", &min)?;
        m.serialize_entry("max", &max)?;
        m.serialize_entry("choices", &choices)?;
        if let ParamKind::Bytes { pow2: true, .. } = self.kind {
            m.serialize_entry("power_of_two", &true)?;
        }
        m.serialize_entry("unit", self.unit)?;
        m.serialize_entry("doc", self.doc)?;
        if !self.zero_means.is_empty() {
            m.serialize_entry("zero_means", self.zero_means)?;
        }
        m.end()
    }
}

/// Resolved parameters: every name of a spec list present and checked.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Params(BTreeMap<String, ParamValue>);

impl Params {
    /// Checks `given` against `specs` and fills in defaults. `field` prefixes error messages
    /// (for example `policy.params`).
    pub fn resolve(
        specs: &[ParamSpec],
        given: &BTreeMap<String, Value>,
        field: &str,
    ) -> Result<Params, ParamError> {
        for name in given.keys() {
            if !specs.iter().any(|s| s.name == name) {
                let valid: Vec<&str> = specs.iter().map(|s| s.name).collect();
                return Err(ParamError {
                    field: format!("{field}.{name}"),
                    message: format!("unknown parameter; valid ones are: {}", valid.join(", ")),
                });
            }
        }
        let mut out = BTreeMap::new();
        for spec in specs {
            let value = match given.get(spec.name) {
                Some(v) => spec.parse_json(v).map_err(|message| ParamError {
                    field: format!("{field}.{}", spec.name),
                    message,
                })?,
                None => spec.default_value(),
            };
            out.insert(spec.name.to_string(), value);
        }
        Ok(Params(out))
    }

    /// The values `given` sets that differ from those `base` resolves to, both read by
    /// `specs` (so `"64KiB"` and `65536` are one value): what a link or a column heading
    /// says of a configuration beyond its defaults.
    pub fn changed(
        specs: &[ParamSpec],
        given: &BTreeMap<String, Value>,
        base: &BTreeMap<String, Value>,
        field: &str,
    ) -> Result<BTreeMap<String, Value>, ParamError> {
        let given = Params::resolve(specs, given, field)?.to_json_map();
        let base = Params::resolve(specs, base, field)?.to_json_map();
        Ok(given
            .into_iter()
            .filter(|(k, v)| base.get(k) != Some(v))
            .collect())
    }

    /// The parameters back as plain JSON, for re-resolving or storing in a config.
    pub fn to_json_map(&self) -> BTreeMap<String, Value> {
        self.0
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null)))
            .collect()
    }
}

/// A Rust type that a knob's resolved value is read as: `u64` for whole numbers and sizes,
/// `f64`, `bool`, `String` for text, or an enum declared with [`choice!`] for a choice.
pub trait ParamType: Sized {
    /// The kinds of knob this type reads; [`knobs!`] checks every knob against it at
    /// compile time.
    const READS: Reads;

    /// The value, if it is of a kind this type reads.
    fn read(value: &ParamValue) -> Option<Self>;
}

/// Which [`ParamKind`]s a [`ParamType`] reads.
#[derive(Clone, Copy, Debug)]
pub enum Reads {
    /// `Int` with no negative values, and `Bytes`.
    Count,
    /// `Float`.
    Float,
    /// `Bool`.
    Bool,
    /// `Choice` of exactly these values, in this order.
    Choice(&'static [&'static str]),
    /// `Text`.
    Text,
}

impl ParamType for u64 {
    const READS: Reads = Reads::Count;

    fn read(value: &ParamValue) -> Option<u64> {
        match value {
            ParamValue::Int(i) => Some(*i as u64),
            _ => None,
        }
    }
}

impl ParamType for f64 {
    const READS: Reads = Reads::Float;

    fn read(value: &ParamValue) -> Option<f64> {
        match value {
            ParamValue::Float(f) => Some(*f),
            ParamValue::Int(i) => Some(*i as f64),
            _ => None,
        }
    }
}

impl ParamType for bool {
    const READS: Reads = Reads::Bool;

    fn read(value: &ParamValue) -> Option<bool> {
        match value {
            ParamValue::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

impl ParamType for String {
    const READS: Reads = Reads::Text;

    fn read(value: &ParamValue) -> Option<String> {
        match value {
            ParamValue::Str(s) => Some(s.clone()),
            _ => None,
        }
    }
}

impl Params {
    /// The knob `name` read as `T`. Families and workloads read their knobs through the
    /// struct [`knobs!`] declares, which names each knob as its spec does and has checked
    /// at compile time that `T` reads the spec's kind; only parameters resolved against
    /// another spec list could be missing the knob or hold another kind.
    pub fn get<T: ParamType>(&self, name: &str) -> T {
        match self.0.get(name) {
            Some(v) => T::read(v).unwrap_or_else(|| {
                panic!("parameter {name} resolved as {v:?}, which its type does not read")
            }),
            None => panic!("parameter {name} is not among the resolved parameters"),
        }
    }
}

/// Checks that each knob's spec is named after its field and that its type reads the
/// knob's kind: [`knobs!`] calls it in a constant, so a mismatch fails the build, naming
/// the knob's field.
pub const fn check_knobs(specs: &[ParamSpec], fields: &[&str], reads: &[Reads]) {
    assert!(
        specs.len() == fields.len() && specs.len() == reads.len(),
        "one field and one type per knob"
    );
    let mut i = 0;
    while i < specs.len() {
        let fits = match (reads[i], specs[i].kind) {
            (Reads::Count, ParamKind::Int { min, .. }) => min >= 0,
            (Reads::Count, ParamKind::Bytes { .. }) => true,
            (Reads::Float, ParamKind::Float { .. }) => true,
            (Reads::Bool, ParamKind::Bool) => true,
            (Reads::Choice(values), ParamKind::Choice(listed)) => same_words(values, listed),
            (Reads::Text, ParamKind::Text { .. }) => true,
            _ => false,
        };
        if !fits || !same_word(specs[i].name, fields[i]) {
            panic!("{}", fields[i]);
        }
        i += 1;
    }
}

const fn same_words(a: &[&str], b: &[&str]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !same_word(a[i], b[i]) {
            return false;
        }
        i += 1;
    }
    true
}

const fn same_word(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Declares the knobs of a family or a workload once: each is written `name: Type =
/// ParamSpec { kind, default, unit, doc, zero_means }`, or `name: Type = SHARED` for a
/// spec shared by several knob lists (a constant or a `const fn` call whose spec is named
/// `name`, as every workload's `seed` is). The macro gives the spec list (each spec written
/// in place named after its field), a struct with one typed field per knob and its
/// `read(&Params)`, and a struct of the knobs' names for errors that name one. Code reads
/// `knobs.page_size`, so a misspelt knob does not compile, and a shared spec named other
/// than its field, or a type that cannot read its knob's kind, fails the build too.
///
/// ```text
/// knobs! {
///     /// The family's knobs.
///     pub(super) struct Knobs, names KnobNames, specs PARAMS;
///
///     seed: u64 = SEED,
///     slab_size: u64 = ParamSpec { kind: ParamKind::Bytes { .. }, default: "4KiB", .. },
///     growth: Growth = ParamSpec { kind: ParamKind::Choice(Growth::NAMES), .. },
/// }
/// ```
macro_rules! knobs {
    // A spec written in place, named after its field.
    (
        @knob $head:tt [$($done:tt)*]
        $name:ident: $ty:ty = ParamSpec { $($field:ident: $value:expr),+ $(,)? }
        $(, $($rest:tt)*)?
    ) => {
        $crate::params::knobs! {
            @knob $head [
                $($done)*
                ($name: $ty = $crate::params::ParamSpec {
                    name: stringify!($name),
                    $($field: $value),+
                })
            ]
            $($($rest)*)?
        }
    };
    // A shared spec, whose name the final check compares with the field's.
    (
        @knob $head:tt [$($done:tt)*]
        $name:ident: $ty:ty = $spec:expr
        $(, $($rest:tt)*)?
    ) => {
        $crate::params::knobs! { @knob $head [$($done)* ($name: $ty = $spec)] $($($rest)*)? }
    };
    // Every knob read: the items themselves.
    (
        @knob [[$(#[$meta:meta])*] [$vis:vis] $knobs:ident $names:ident $specs:ident]
        [$(($name:ident: $ty:ty = $spec:expr))+]
    ) => {
        /// The knobs' specs, in the order menus list them, each named after its field.
        $vis const $specs: &[$crate::params::ParamSpec] = &[$($spec),+];

        const _: () = $crate::params::check_knobs(
            $specs,
            &[$(stringify!($name)),+],
            &[$(<$ty as $crate::params::ParamType>::READS),+],
        );

        $(#[$meta])*
        #[derive(Clone, Debug)]
        $vis struct $knobs {
            $($vis $name: $ty),+
        }

        /// The knobs' names, as their specs and error fields give them.
        // Only the knobs that an error names are read.
        #[allow(dead_code)]
        #[derive(Clone, Copy, Debug)]
        $vis struct $names {
            $($vis $name: &'static str),+
        }

        impl $knobs {
            /// Every knob's name.
            #[allow(dead_code)]
            $vis const NAMES: $names = $names { $($name: stringify!($name)),+ };

            /// Reads every knob from parameters resolved against the spec list.
            $vis fn read(params: &$crate::params::Params) -> $knobs {
                $knobs { $($name: params.get(stringify!($name))),+ }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $knobs:ident, names $names:ident, specs $specs:ident;
        $($knob:tt)+
    ) => {
        $crate::params::knobs! {
            @knob [[$(#[$meta])*] [$vis] $knobs $names $specs] [] $($knob)+
        }
    };
}
pub(crate) use knobs;

/// Declares the enum a choice knob is read as, each variant `Name = "value"` in the order
/// the knob lists its values: `NAMES` is that list, for the knob's `ParamKind::Choice`,
/// and reading the knob gives the variant.
macro_rules! choice {
    (
        $(#[$meta:meta])*
        $vis:vis enum $enum:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $enum {
            $($(#[$vmeta])* $variant),+
        }

        impl $enum {
            /// The knob's values, in the order it lists them.
            $vis const NAMES: &'static [&'static str] = &[$($text),+];
        }

        impl $crate::params::ParamType for $enum {
            const READS: $crate::params::Reads = $crate::params::Reads::Choice(Self::NAMES);

            fn read(value: &$crate::params::ParamValue) -> Option<$enum> {
                match value {
                    $crate::params::ParamValue::Str(s) => match s.as_str() {
                        $($text => Some($enum::$variant),)+
                        _ => None,
                    },
                    _ => None,
                }
            }
        }
    };
}
pub(crate) use choice;

/// Parses `4096`, `64K`, `64KiB`, `1M`, `2MiB`, `1G`, `1TiB`, and a fraction that comes to
/// whole bytes (`1.5KiB`), so every size `heaplab policies` prints reads back.
pub fn parse_bytes(text: &str) -> Result<i64, String> {
    let t = text.trim().replace('_', "");
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, suffix) = t.split_at(split);
    let not_a_size = || format!("{text:?} is not a size in bytes (try 4096, 64KiB or 1MiB)");
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() || fraction.contains('.') {
        return Err(not_a_size());
    }
    let whole: i64 = whole.parse().map_err(|_| not_a_size())?;
    let mult: i64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "{text:?} has an unknown unit (use KiB, MiB, GiB or TiB)"
            ))
        }
    };
    let too_large = || format!("{text:?} is too large");
    let mut bytes = whole.checked_mul(mult).ok_or_else(too_large)?;
    if !fraction.is_empty() {
        // Digits past the ninth can only matter below a byte of a TiB's share.
        if fraction.len() > 9 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
            return Err(not_a_size());
        }
        let digits: i128 = fraction.parse().map_err(|_| not_a_size())?;
        let scaled = digits * i128::from(mult);
        let ten = 10i128.pow(fraction.len() as u32);
        if scaled % ten != 0 {
            return Err(format!("{text:?} is not a whole number of bytes"));
        }
        let part = i64::try_from(scaled / ten).map_err(|_| too_large())?;
        bytes = bytes.checked_add(part).ok_or_else(too_large)?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_back_as_they_are_printed() {
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("64K"), Ok(65536));
        assert_eq!(parse_bytes("1TiB"), Ok(1 << 40));
        assert_eq!(parse_bytes("2 TiB"), Ok(2 << 40));
        assert_eq!(parse_bytes("1.5KiB"), Ok(1536));
        assert_eq!(parse_bytes("0.5 MiB"), Ok(1 << 19));
        // What the tables print reads back to the same bytes.
        for bytes in [1u64 << 40, 3 << 39, 1536, 592 << 10, 128 << 10] {
            let printed = crate::format::format_bytes(bytes);
            assert_eq!(parse_bytes(&printed), Ok(bytes as i64), "{printed}");
        }
        assert_eq!(
            parse_bytes("1.3B").unwrap_err(),
            "\"1.3B\" is not a whole number of bytes"
        );
        assert_eq!(
            parse_bytes("1PiB").unwrap_err(),
            "\"1PiB\" has an unknown unit (use KiB, MiB, GiB or TiB)"
        );
        assert!(parse_bytes("1.2.3K").is_err());
        assert!(parse_bytes(".5K").is_err());
        assert_eq!(
            parse_bytes("9000000TiB").unwrap_err(),
            "\"9000000TiB\" is too large"
        );
    }

    const SPECS: &[ParamSpec] = &[
        ParamSpec {
            name: "slab_size",
            kind: ParamKind::Bytes {
                min: 64,
                max: 1 << 30,
                pow2: false,
            },
            default: "4KiB",
            unit: "bytes",
            doc: "",
            zero_means: "",
        },
        ParamSpec {
            name: "fit",
            kind: ParamKind::Choice(&["first", "best"]),
            default: "best",
            unit: "",
            doc: "",
            zero_means: "",
        },
    ];

    #[test]
    fn defaults_fill_in_and_text_units_parse() {
        let mut given = BTreeMap::new();
        given.insert("slab_size".to_string(), Value::from("1MiB"));
        let p = Params::resolve(SPECS, &given, "policy.params").unwrap();
        assert_eq!(p.get::<u64>("slab_size"), 1 << 20);
        assert_eq!(p.get::<String>("fit"), "best");
    }

    #[test]
    fn errors_name_the_field_and_the_range() {
        let mut given = BTreeMap::new();
        given.insert("slab_size".to_string(), Value::from(8));
        let e = Params::resolve(SPECS, &given, "policy.params").unwrap_err();
        assert_eq!(e.field, "policy.params.slab_size");
        assert!(e.message.contains("64 B..=1 GiB"), "{}", e.message);
        let mut given = BTreeMap::new();
        given.insert("slab".to_string(), Value::from(8));
        let e = Params::resolve(SPECS, &given, "policy.params").unwrap_err();
        assert!(e.message.contains("slab_size, fit"), "{}", e.message);
        given.clear();
        given.insert("fit".to_string(), Value::from("worst"));
        let e = Params::resolve(SPECS, &given, "p").unwrap_err();
        assert!(e.message.contains("first, best"), "{}", e.message);
    }

    choice! {
        enum Fit {
            First = "first",
            Best = "best",
        }
    }

    /// A spec shared by several knob lists, as every workload's seed is.
    const SHARED: ParamSpec = ParamSpec {
        name: "label",
        kind: ParamKind::Text { max_len: 16 },
        default: "none",
        unit: "",
        doc: "",
        zero_means: "",
    };

    knobs! {
        struct Knobs, names KnobNames, specs TYPED;

        label: String = SHARED,
        slab_size: u64 = ParamSpec {
            kind: ParamKind::Bytes {
                min: 64,
                max: 1 << 30,
                pow2: false,
            },
            default: "4KiB",
            unit: "bytes",
            doc: "",
            zero_means: "",
        },
        fit: Fit = ParamSpec {
            kind: ParamKind::Choice(Fit::NAMES),
            default: "best",
            unit: "",
            doc: "",
            zero_means: "",
        },
    }

    #[test]
    fn knobs_are_named_after_their_fields_and_read_typed() {
        let names: Vec<&str> = TYPED.iter().map(|s| s.name).collect();
        assert_eq!(names, ["label", "slab_size", "fit"]);
        assert_eq!(TYPED[2].kind, ParamKind::Choice(&["first", "best"]));
        assert_eq!(Knobs::NAMES.slab_size, "slab_size");
        let mut given = BTreeMap::new();
        given.insert("slab_size".to_string(), Value::from("1MiB"));
        let knobs = Knobs::read(&Params::resolve(TYPED, &given, "policy.params").unwrap());
        assert_eq!((knobs.slab_size, knobs.fit), (1 << 20, Fit::Best));
        assert_eq!(knobs.label, "none");
        given.insert("fit".to_string(), Value::from("first"));
        let knobs = Knobs::read(&Params::resolve(TYPED, &given, "policy.params").unwrap());
        assert_eq!(knobs.fit, Fit::First);
    }

    #[test]
    fn byte_text() {
        assert_eq!(parse_bytes("64K"), Ok(65536));
        assert_eq!(parse_bytes("2 MiB"), Ok(2 << 20));
        assert!(parse_bytes("12 parsecs").is_err());
        assert!(parse_bytes("-5").is_err());
        assert_eq!(crate::format::format_bytes(1536), "1.5 KiB");
        assert_eq!(crate::format::format_bytes(65536), "64 KiB");
    }
}
