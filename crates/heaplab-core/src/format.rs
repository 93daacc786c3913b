//! How heaplab writes numbers for people: byte sizes in binary units and counts with
//! thousands separators. One function each, used by the CLI's tables, the page (through
//! the wasm crate), the parameter messages and the charts, so a figure reads the same
//! everywhere.

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
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{value:.decimals$}");
    // Trailing zeros say nothing: 64.00 KiB is 64 KiB.
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    format!("{text} {}", UNITS[unit])
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn counts_have_thousands_separators() {
        assert_eq!(format_count(0), "0");
        assert_eq!(format_count(999), "999");
        assert_eq!(format_count(1000), "1,000");
        assert_eq!(format_count(1_237_652), "1,237,652");
        assert_eq!(format_count(-45_000), "-45,000");
    }
}
