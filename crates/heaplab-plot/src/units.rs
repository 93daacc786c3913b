//! Axis and value labels as people read them: bytes in the binary unit the data range
//! calls for, counts of events and operations as `1.2M` or `350k`.
//!
//! Tick labels are short and all of an axis's ticks share one unit, so they are formatted
//! here rather than with [`heaplab_core::format::format_bytes`], which picks a unit for
//! each value; values written beside a bar or a point use the core's formatter, so they
//! read the same as the CLI's tables.

/// A binary unit of bytes that an axis is drawn in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteUnit {
    /// Bytes in one unit.
    pub bytes: u64,
    /// The unit's symbol: `B`, `KiB`, `MiB`, `GiB` or `TiB`.
    pub name: &'static str,
}

impl ByteUnit {
    /// Converts a number of bytes into this unit, for placing it on the axis.
    pub fn scale(self, bytes: u64) -> f64 {
        bytes as f64 / self.bytes as f64
    }
}

const BYTE_UNITS: [ByteUnit; 5] = [
    ByteUnit {
        bytes: 1,
        name: "B",
    },
    ByteUnit {
        bytes: 1 << 10,
        name: "KiB",
    },
    ByteUnit {
        bytes: 1 << 20,
        name: "MiB",
    },
    ByteUnit {
        bytes: 1 << 30,
        name: "GiB",
    },
    ByteUnit {
        bytes: 1 << 40,
        name: "TiB",
    },
];

/// The largest unit in which `max` is at least 1, so that an axis from zero to `max`
/// reads in numbers between 1 and 1023 rather than in long runs of digits or in
/// fractions.
pub fn byte_unit(max: u64) -> ByteUnit {
    BYTE_UNITS
        .iter()
        .rev()
        .find(|u| max >= u.bytes)
        .copied()
        .unwrap_or(BYTE_UNITS[0])
}

/// A unit of time that an axis is drawn in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeUnit {
    /// Nanoseconds in one unit.
    pub ns: u64,
    /// The unit's symbol: `µs`, `ms` or `s`.
    pub name: &'static str,
}

/// The largest of µs, ms and s in which `max_ns` is at least 1, for the same reason as
/// [`byte_unit`]: an axis reads in small numbers rather than in runs of zeros.
pub fn time_unit(max_ns: u64) -> TimeUnit {
    const UNITS: [TimeUnit; 3] = [
        TimeUnit {
            ns: 1_000_000_000,
            name: "s",
        },
        TimeUnit {
            ns: 1_000_000,
            name: "ms",
        },
        TimeUnit {
            ns: 1_000,
            name: "µs",
        },
    ];
    UNITS
        .iter()
        .find(|u| max_ns >= u.ns)
        .copied()
        .unwrap_or(UNITS[2])
}

/// A time tick in a unit already chosen: like [`tick`] with a third decimal, since a
/// decimal axis of time steps by such amounts as 0.125 s.
pub fn time_tick(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    let r = (v * 1000.0).round() / 1000.0;
    if r == 0.0 {
        return "0".into();
    }
    let s = format!("{r:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A tick value in a unit already chosen: at most two decimals and no trailing zeros
/// (`0`, `0.25`, `1.5`, `12`), since the axis description names the unit.
pub fn tick(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    // Rounded first, so that steps such as 0.1 + 0.2 do not print as 0.30000000000000004
    // and a value a hair below zero does not print as "-0".
    let r = (v * 100.0).round() / 100.0;
    if r == 0.0 {
        return "0".into();
    }
    let s = format!("{r:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// A count as people say it: `350`, `1.5k`, `350k`, `1.2M`, `3G`. One decimal below 100 of
/// a unit and none above, with `.0` dropped, so tick labels stay three or four characters
/// wide however long the run.
pub fn count(n: f64) -> String {
    if !n.is_finite() {
        return String::new();
    }
    let sign = if n < 0.0 { "-" } else { "" };
    let a = n.abs();
    const STEPS: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    // The unit is chosen after rounding, so 999,999 reads 1M and not 1000k.
    for (i, &(scale, suffix)) in STEPS.iter().enumerate() {
        if a >= scale {
            let shown = round_for_label(a / scale);
            if shown >= 1000.0 && i > 0 {
                let (up, up_suffix) = STEPS[i - 1];
                return format!("{sign}{}{up_suffix}", short(round_for_label(a / up)));
            }
            return format!("{sign}{}{suffix}", short(shown));
        }
    }
    let r = a.round();
    if r == 0.0 {
        // Small fractions (a mean, a ratio) keep their digits rather than reading 0.
        return if a == 0.0 { "0".into() } else { tick(n) };
    }
    format!("{sign}{r}")
}

/// Rounds to one decimal below 100 and to a whole number above, as [`count`] prints.
fn round_for_label(v: f64) -> f64 {
    if v >= 99.95 {
        v.round()
    } else {
        (v * 10.0).round() / 10.0
    }
}

/// A rounded label value without a trailing `.0`.
fn short(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v}")
    } else {
        format!("{v:.1}")
    }
}

/// A byte size as a tick of a log2 axis: `4 KiB`, `64 KiB`, `1 MiB`, with the core's
/// formatter, so sizes read as they do in configs and tables.
pub fn size(bytes: f64) -> String {
    if !bytes.is_finite() || bytes < 0.0 {
        return String::new();
    }
    heaplab_core::format::format_bytes(bytes.round() as u64)
}

/// A fraction as a percentage: `87.5%`, `100%`.
pub fn percent(f: f64) -> String {
    if !f.is_finite() {
        return String::new();
    }
    format!("{}%", short((f * 1000.0).round() / 10.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_people_say_them() {
        let cases = [
            (0.0, "0"),
            (7.0, "7"),
            (350.0, "350"),
            (999.0, "999"),
            (1_000.0, "1k"),
            (1_500.0, "1.5k"),
            (12_345.0, "12.3k"),
            (350_000.0, "350k"),
            (999_999.0, "1M"),
            (1_000_000.0, "1M"),
            (1_200_000.0, "1.2M"),
            (10_600_000.0, "10.6M"),
            (250_000_000.0, "250M"),
            (3_000_000_000.0, "3G"),
            (-2_500.0, "-2.5k"),
            (0.25, "0.25"),
        ];
        for (n, want) in cases {
            assert_eq!(count(n), want, "count({n})");
        }
        assert_eq!(count(f64::NAN), "");
    }

    #[test]
    fn byte_units_follow_the_data_range() {
        assert_eq!(byte_unit(0).name, "B");
        assert_eq!(byte_unit(1023).name, "B");
        assert_eq!(byte_unit(1024).name, "KiB");
        assert_eq!(byte_unit((1 << 20) - 1).name, "KiB");
        assert_eq!(byte_unit(3 << 20).name, "MiB");
        assert_eq!(byte_unit(5 << 30).name, "GiB");
        assert_eq!(byte_unit(u64::MAX).name, "TiB");
        assert_eq!(byte_unit(3 << 20).scale(3 << 19), 1.5);
    }

    #[test]
    fn ticks_drop_trailing_zeros() {
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(-0.000001), "0");
        assert_eq!(tick(0.1 + 0.2), "0.3");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(12.0), "12");
        assert_eq!(tick(1.5), "1.5");
        assert_eq!(tick(f64::INFINITY), "");
    }

    #[test]
    fn time_axes_read_in_the_unit_the_run_calls_for() {
        assert_eq!(time_unit(0).name, "µs");
        assert_eq!(time_unit(999_999).name, "µs");
        assert_eq!(time_unit(1_000_000).name, "ms");
        assert_eq!(time_unit(46_000_000).name, "ms");
        assert_eq!(time_unit(1_500_000_000).name, "s");
        assert_eq!(time_tick(0.125), "0.125");
        assert_eq!(time_tick(20.0), "20");
        assert_eq!(time_tick(0.1 + 0.2), "0.3");
        assert_eq!(time_tick(f64::NAN), "");
    }

    #[test]
    fn sizes_and_percentages() {
        assert_eq!(size(4096.0), "4 KiB");
        assert_eq!(size(65536.0), "64 KiB");
        assert_eq!(size(1048576.0), "1 MiB");
        assert_eq!(size(100.0), "100 B");
        assert_eq!(size(f64::NAN), "");
        assert_eq!(percent(0.875), "87.5%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(0.0), "0%");
    }
}
