//! Human units, parsed only here at the edge: "100Mbps", "32ms", "60KB", "0.5bdp".
//!
//! Rates and sizes use SI prefixes (1 Mbps = 10^6 bit/s, 1 KB = 1000 B) as ns-3 and iperf do;
//! binary sizes are written KiB, MiB, GiB.

use cclab_cc::SimDuration;

/// Split "12.5ms" into (12.5, "ms"). The number may have a sign, a fraction and an exponent.
fn split_number(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || ((c == '-' || c == '+') && (i == 0 || text[..i].ends_with(['e', 'E'])))
                || ((c == 'e' || c == 'E')
                    && i > 0
                    && text[i + 1..]
                        .starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+')))
        })
        .map(|(i, _)| i)
        .unwrap_or(text.len());
    let number: f64 = text[..end].parse().ok()?;
    Some((number, text[end..].trim()))
}

/// A rate in bit/s: "100Mbps", "1.5 Mbit/s", "1Gbps", "64kbps".
pub fn parse_rate(text: &str) -> Result<u64, String> {
    let (value, unit) = split_number(text)
        .ok_or_else(|| format!("`{text}` is not a rate; write e.g. \"100Mbps\""))?;
    let scale = match unit {
        "bps" | "bit/s" => 1.0,
        "kbps" | "Kbps" | "kbit/s" | "Kbit/s" => 1e3,
        "Mbps" | "mbps" | "Mbit/s" => 1e6,
        "Gbps" | "gbps" | "Gbit/s" => 1e9,
        "Tbps" | "Tbit/s" => 1e12,
        "" => return Err(format!("`{text}` has no unit; write e.g. \"{text}Mbps\"")),
        other => {
            return Err(format!(
                "unknown rate unit `{other}`; use bps, kbps, Mbps or Gbps"
            ));
        }
    };
    let bps = value * scale;
    if !(bps.is_finite() && bps >= 1.0) {
        return Err(format!("rate `{text}` must be positive (at least 1 bps)"));
    }
    if bps > 1e15 {
        return Err(format!("rate `{text}` is absurdly large"));
    }
    Ok(bps.round() as u64)
}

/// A duration: "60s", "32ms", "250us", "1min", "10ns". Zero is allowed here; callers that
/// need a positive value check it.
pub fn parse_duration(text: &str) -> Result<SimDuration, String> {
    let (value, unit) = split_number(text)
        .ok_or_else(|| format!("`{text}` is not a duration; write e.g. \"30ms\""))?;
    let scale = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        "h" => 3600.0,
        "" => return Err(format!("`{text}` has no unit; write e.g. \"{text}ms\"")),
        other => {
            return Err(format!(
                "unknown time unit `{other}`; use ns, us, ms, s or min"
            ));
        }
    };
    let secs = value * scale;
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!("duration `{text}` must not be negative"));
    }
    if secs > 1e7 {
        return Err(format!("duration `{text}` is absurdly long"));
    }
    Ok(SimDuration::from_secs_f64(secs))
}

/// A size in bytes: "60KB", "1.5MB", "64KiB", "1500B".
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let (value, unit) =
        split_number(text).ok_or_else(|| format!("`{text}` is not a size; write e.g. \"64KB\""))?;
    let scale = match unit {
        "B" | "bytes" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "" => return Err(format!("`{text}` has no unit; write e.g. \"{text}KB\"")),
        other => {
            return Err(format!(
                "unknown size unit `{other}`; use B, KB, MB, GB, KiB, MiB or GiB"
            ));
        }
    };
    let bytes = value * scale;
    if !bytes.is_finite() || bytes < 0.0 {
        return Err(format!("size `{text}` must not be negative"));
    }
    if bytes > 1e18 {
        return Err(format!("size `{text}` is absurdly large"));
    }
    Ok(bytes.round() as u64)
}

/// A multiple of the bandwidth-delay product: "1bdp", "0.25 bdp".
pub fn parse_bdp_multiple(text: &str) -> Option<Result<f64, String>> {
    let (value, unit) = split_number(text)?;
    if !unit.eq_ignore_ascii_case("bdp") {
        return None;
    }
    Some(if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(format!("`{text}` must be a positive multiple of the BDP"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("100Mbps"), Ok(100_000_000));
        assert_eq!(parse_rate("1.5 Mbit/s"), Ok(1_500_000));
        assert_eq!(parse_rate("1Gbps"), Ok(1_000_000_000));
        assert_eq!(parse_rate("64kbps"), Ok(64_000));
        assert!(parse_rate("0Mbps").unwrap_err().contains("positive"));
        assert!(parse_rate("-5Mbps").unwrap_err().contains("positive"));
        assert!(parse_rate("100").unwrap_err().contains("no unit"));
        assert!(
            parse_rate("100MBps")
                .unwrap_err()
                .contains("unknown rate unit")
        );
        assert!(parse_rate("fast").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("32ms"), Ok(SimDuration::from_millis(32)));
        assert_eq!(parse_duration("1.5s"), Ok(SimDuration::from_millis(1500)));
        assert_eq!(parse_duration("2min"), Ok(SimDuration::from_secs(120)));
        assert_eq!(parse_duration("250us"), Ok(SimDuration::from_micros(250)));
        assert_eq!(parse_duration("1e-3s"), Ok(SimDuration::from_millis(1)));
        assert!(parse_duration("-5ms").unwrap_err().contains("negative"));
        assert!(parse_duration("30").unwrap_err().contains("no unit"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("60KB"), Ok(60_000));
        assert_eq!(parse_bytes("64KiB"), Ok(65_536));
        assert_eq!(parse_bytes("1.5MB"), Ok(1_500_000));
        assert_eq!(parse_bytes("1500B"), Ok(1500));
        assert!(parse_bytes("5Kb").is_err());
    }

    #[test]
    fn bdp_multiples() {
        assert_eq!(parse_bdp_multiple("1bdp"), Some(Ok(1.0)));
        assert_eq!(parse_bdp_multiple("0.5 BDP"), Some(Ok(0.5)));
        assert!(parse_bdp_multiple("0bdp").unwrap().is_err());
        assert_eq!(parse_bdp_multiple("150KB"), None);
    }
}
