//! How heaplab writes numbers for people: byte sizes in binary units, counts with
//! thousands separators, and one figure against a baseline's as MallocBench's reports do. One function each, used by the CLI's tables, the page (through
//! the wasm crate), the parameter messages and the charts, so a figure reads the same
//! everywhere.

/// `text` cut to its first `max` characters and an ellipsis when it is longer: what a
/// message quotes of the input it refuses. A quote should show where the input went
/// wrong, and a trace line or a link of a million characters quoted whole would bury the
/// message under it.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// A byte size in binary units with about three significant digits ("1.46 MiB",
/// "12.3 KiB", "640 B"): enough to compare policies, short enough for a table cell.
/// Exact sizes print without decimals ("64 KiB"). The CLI and the page both use this one
/// function, the page through the wasm crate.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        return format!("{bytes} B");
    }
    format!("{} {}", three_digits(value), UNITS[unit])
}

/// `value` with about three significant digits and no trailing zeros (64.00 is 64): the
/// number of every figure [`format_bytes`] and [`format_duration_ns`] print.
fn three_digits(value: f64) -> String {
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A time in nanoseconds in the unit that reads best, with about three significant
/// digits ("640 ns", "12.5 µs", "1.2 ms", "3.05 s"): how the model's clock is shown.
pub fn format_duration_ns(ns: u64) -> String {
    const UNITS: [(&str, f64); 3] = [("s", 1e9), ("ms", 1e6), ("µs", 1e3)];
    for (unit, scale) in UNITS {
        let value = ns as f64 / scale;
        if value >= 1.0 {
            return format!("{} {unit}", three_digits(value));
        }
    }
    format!("{ns} ns")
}

/// A size to the byte with thousands separators ("2,016 B"), where a reader compares it
/// with another exact size (a chunk against its request, a mapping's length).
pub fn format_exact_bytes(bytes: u64) -> String {
    format!("{} B", format_count(i128::from(bytes)))
}

/// An integer with thousands separators ("1,536,000"), as MallocBench's reports print them.
pub fn format_count(n: i128) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count with the noun it counts, in the singular for exactly one ("1 workload",
/// "1,400 workloads"): every message that counts things says it this way, so none says
/// "1 workloads". The plural is given, not made, since English makes some with "es".
pub fn format_counted(n: i128, one: &str, many: &str) -> String {
    format!("{} {}", format_count(n), if n == 1 { one } else { many })
}

/// A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). The
/// page's downloads and `heaplab compare --csv` both write fields with it.
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// Which way a figure is better, for [`format_delta`]: a smaller figure (memory, page
/// operations, time) or a larger one (utilization).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Smaller,
    Larger,
    /// Time: smaller is better, and reads as faster or slower.
    Faster,
}

/// `value` against `base` as MallocBench's `run-malloc-benchmarks` prints it: a caret for
/// better, a bang for worse, and the ratio of the larger to the smaller with two decimals
/// ("^ 1.12x smaller", "! 1.02x bigger", "^ 1.10x faster"). Blank when the two round to
/// the same ratio of 1.00, so a table of mostly equal figures shows only what changed. A
/// zero on one side only reads "new" or "gone" rather than an infinite ratio.
pub fn format_delta(base: f64, value: f64, direction: Direction) -> String {
    if !base.is_finite() || !value.is_finite() || base < 0.0 || value < 0.0 {
        return String::new();
    }
    if base == value {
        return String::new();
    }
    if base == 0.0 || value == 0.0 {
        let better = match direction {
            Direction::Larger => value > base,
            Direction::Smaller | Direction::Faster => value < base,
        };
        let mark = if better { '^' } else { '!' };
        return format!("{mark} {}", if value == 0.0 { "none" } else { "from none" });
    }
    let ratio = if value > base {
        value / base
    } else {
        base / value
    };
    if format!("{ratio:.2}") == "1.00" {
        return String::new();
    }
    let larger = value > base;
    let (better, word) = match direction {
        Direction::Smaller => (!larger, if larger { "bigger" } else { "smaller" }),
        Direction::Larger => (larger, if larger { "higher" } else { "lower" }),
        Direction::Faster => (!larger, if larger { "slower" } else { "faster" }),
    };
    format!("{} {ratio:.2}x {word}", if better { '^' } else { '!' })
}

/// `value` against `base` as [`format_delta`] words it, for a table that prints the two
/// figures with `shown`: blank when they print alike. A delta is a claim about the
/// figures beside it, and "8 KiB" against "8 KiB" with "! 1.01x bigger" claims a
/// difference that no digit on the screen shows, so the delta goes with the digits.
pub fn format_shown_delta(
    base: f64,
    value: f64,
    direction: Direction,
    shown: impl Fn(f64) -> String,
) -> String {
    if shown(base) == shown(value) {
        return String::new();
    }
    format_delta(base, value, direction)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_of_one_takes_the_singular() {
        assert_eq!(format_counted(1, "workload", "workloads"), "1 workload");
        assert_eq!(format_counted(0, "workload", "workloads"), "0 workloads");
        assert_eq!(format_counted(2, "process", "processes"), "2 processes");
        assert_eq!(
            format_counted(1_400_002, "event", "events"),
            "1,400,002 events"
        );
    }

    #[test]
    fn deltas_read_as_mallocbench_prints_them() {
        assert_eq!(
            format_delta(100.0, 89.0, Direction::Smaller),
            "^ 1.12x smaller"
        );
        assert_eq!(
            format_delta(100.0, 102.0, Direction::Smaller),
            "! 1.02x bigger"
        );
        assert_eq!(
            format_delta(110.0, 100.0, Direction::Faster),
            "^ 1.10x faster"
        );
        assert_eq!(
            format_delta(100.0, 104.0, Direction::Faster),
            "! 1.04x slower"
        );
        assert_eq!(format_delta(0.5, 0.6, Direction::Larger), "^ 1.20x higher");
        assert_eq!(format_delta(100.0, 100.0, Direction::Smaller), "");
        // Equal to two decimals is equal.
        assert_eq!(format_delta(1000.0, 1001.0, Direction::Smaller), "");
        assert_eq!(format_delta(5.0, 0.0, Direction::Smaller), "^ none");
        assert_eq!(format_delta(0.0, 5.0, Direction::Smaller), "! from none");
        assert_eq!(format_delta(f64::NAN, 5.0, Direction::Smaller), "");
    }

    #[test]
    fn durations_read_in_the_unit_that_fits() {
        assert_eq!(format_duration_ns(0), "0 ns");
        assert_eq!(format_duration_ns(640), "640 ns");
        assert_eq!(format_duration_ns(12_500), "12.5 µs");
        assert_eq!(format_duration_ns(1_000_000), "1 ms");
        assert_eq!(format_duration_ns(1_234_567), "1.23 ms");
        assert_eq!(format_duration_ns(3_050_000_000), "3.05 s");
        assert_eq!(format_duration_ns(125_000_000_000), "125 s");
    }

    #[test]
    fn bytes_read_as_people_read_them() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(1024), "1 KiB");
        assert_eq!(format_bytes(65536), "64 KiB");
        assert_eq!(format_bytes(1_536_000), "1.46 MiB");
        assert_eq!(format_bytes(1 << 20 | 1 << 19), "1.5 MiB");
        assert_eq!(format_bytes(12_900_000), "12.3 MiB");
        assert_eq!(format_bytes(200 << 20), "200 MiB");
        assert_eq!(format_bytes(u64::MAX), "16777216 TiB");
    }

    #[test]
    fn csv_fields_are_quoted_when_they_must_be() {
        assert_eq!(csv_field("churn"), "churn");
        assert_eq!(csv_field("a (b=1, c=2)"), "\"a (b=1, c=2)\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(format_count(0), "0");
        assert_eq!(format_count(999), "999");
        assert_eq!(format_count(1000), "1,000");
        assert_eq!(format_count(1_237_652), "1,237,652");
        assert_eq!(format_count(-45_000), "-45,000");
    }

    #[test]
    fn a_delta_needs_digits_that_differ() {
        let kib = |v: f64| format!("{} KiB", (v / 1024.0).round());
        // 8,192 and 8,274 bytes are 1.01x apart, but both print as 8 KiB.
        assert_eq!(
            format_delta(8192.0, 8274.0, Direction::Smaller),
            "! 1.01x bigger"
        );
        assert_eq!(
            format_shown_delta(8192.0, 8274.0, Direction::Smaller, kib),
            ""
        );
        assert_eq!(
            format_shown_delta(8192.0, 9216.0, Direction::Smaller, kib),
            "! 1.12x bigger"
        );
    }
}
