//! Numbers for people: rates and sizes with a unit.

/// A rate per second, e.g. `3.85 M/s`.
pub fn rate(per_second: f64) -> String {
    let (value, prefix) = if per_second >= 1e9 {
        (per_second / 1e9, "G")
    } else if per_second >= 1e6 {
        (per_second / 1e6, "M")
    } else if per_second >= 1e3 {
        (per_second / 1e3, "k")
    } else {
        (per_second, "")
    };
    format!("{value:.2} {prefix}/s")
}

/// A size in bytes with a binary prefix, e.g. `12.3 MiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Bits per (canonical) state of `bytes` for `states` states.
pub fn bits(bytes: u64, states: u64) -> f64 {
    bytes as f64 * 8.0 / states.max(1) as f64
}

#[cfg(test)]
mod tests {
    #[test]
    fn rates_and_sizes() {
        assert_eq!(super::rate(3_850_000.0), "3.85 M/s");
        assert_eq!(super::rate(12.0), "12.00 /s");
        assert_eq!(super::bytes(1000), "1000 B");
        assert_eq!(super::bytes(12_897_485), "12.3 MiB");
    }
}
