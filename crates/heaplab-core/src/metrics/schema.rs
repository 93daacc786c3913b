//! The version every `--json` report object names first, as `"schema": 1`.
//!
//! A reader of heaplab's JSON checks one number instead of guessing from the fields
//! present. Two ways to carry it: a report type that the page and the CLI both serialize
//! (a sweep, a scenario) holds a [`Schema`] field, so both print the same object; an
//! object the CLI assembles for itself (a comparison, a baseline row) is wrapped in
//! [`Versioned`] as it is printed.

use serde::{Serialize, Serializer};

/// The version of the `--json` report objects' layout. It changes only when a field is
/// renamed, removed or changes its meaning; a new field keeps it, so a reader that ignores
/// fields it does not know reads every report of the same version.
pub const SCHEMA: u32 = 1;

/// A field that serializes as [`SCHEMA`]: declared first in a report struct, it puts
/// `"schema": 1` at the head of the object without a number to keep in step by hand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Schema;

impl Serialize for Schema {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(SCHEMA)
    }
}

/// A report object with `"schema"` written before its own fields. `T` must serialize
/// as an object (a struct or a map); its fields keep their order.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Versioned<T> {
    schema: Schema,
    #[serde(flatten)]
    report: T,
}

/// Wraps `report` so it serializes with `"schema": 1` first.
pub fn versioned<T: Serialize>(report: T) -> Versioned<T> {
    Versioned {
        schema: Schema,
        report,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versioned_puts_the_schema_first_and_keeps_the_fields_order() {
        #[derive(Serialize)]
        struct Row {
            zeta: u8,
            alpha: u8,
        }
        let text = serde_json::to_string(&versioned(Row { zeta: 1, alpha: 2 })).unwrap();
        assert_eq!(text, r#"{"schema":1,"zeta":1,"alpha":2}"#);
        #[derive(Serialize)]
        struct Report {
            schema: Schema,
            label: &'static str,
        }
        let text = serde_json::to_string(&Report {
            schema: Schema,
            label: "a",
        })
        .unwrap();
        assert_eq!(text, r#"{"schema":1,"label":"a"}"#);
    }
}
