//! Numbers and JSON values as the report's tables show them.

use serde_json::Value;

/// Significant digits of a number in the generic tables (per-flow details, results).
const SIGNIFICANT: i32 = 6;

/// `v` with [`SIGNIFICANT`] significant digits, without trailing zeros: 0.97320601 →
/// "0.973206", 1.2528061937 → "1.25281"; whole numbers stay whole (93778272.0 →
/// "93778272": a goodput in bit/s is read in full).
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == v.trunc() && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = (SIGNIFICANT - 1 - magnitude).clamp(0, 12) as usize;
    let text = format!("{v:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    if text == "-0" { "0".into() } else { text }
}

/// A JSON value as a table cell: null as "-" (as the printed summary shows a missing FCT).
pub fn cell(value: &Value) -> String {
    match value {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.to_string(),
            (_, Some(i), _) => i.to_string(),
            (_, _, Some(f)) => number(f),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// A results.csv cell: numbers shortened as [`number`] does, other text as it is.
pub fn csv_cell(text: &str) -> String {
    match text.parse::<f64>() {
        Ok(v) if text.contains(['.', 'e', 'E']) => number(v),
        _ => text.to_string(),
    }
}

/// An object's leaves as (dotted key, cell), nested objects and arrays flattened
/// (`udp.loss_rate`, `queue_delay_ms.p99`).
pub fn flatten(prefix: &str, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(&format!("{prefix}.{i}"), v, out);
            }
        }
        leaf => out.push((prefix.to_string(), cell(leaf))),
    }
}

/// `summary[key]` as a number, if it is one.
pub fn f64_of(value: &Value, key: &str) -> Option<f64> {
    value.get(key).and_then(Value::as_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_six_significant_digits() {
        assert_eq!(number(93_778_272.0), "93778272");
        assert_eq!(number(0.973206016), "0.973206");
        assert_eq!(number(1.2528061937417656), "1.25281");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(0.000123456789), "0.000123457");
        assert_eq!(number(-2.5), "-2.5");
        assert_eq!(number(1609.5129961385), "1609.51");
    }

    #[test]
    fn csv_cells_shorten_only_decimals() {
        assert_eq!(csv_cell("7726638432081714580"), "7726638432081714580");
        assert_eq!(csv_cell("0.5007417017985375"), "0.500742");
        assert_eq!(csv_cell("reno"), "reno");
        assert_eq!(csv_cell(""), "");
    }
}
