//! Words for sweep keys and result columns, and swept values as numbers with a unit.
//!
//! `topology.bottleneck.rate` becomes "bottleneck rate" and its values "10Mbps", "50Mbps" the
//! numbers 10, 50 on an axis labelled "bottleneck rate (Mbit/s)". Keys and columns the tables
//! do not know are still made readable: `flows.2.receive_window` reads "receive window of
//! flow group 2". Flow groups are numbered as in the keys and in `summary.json` (`group`),
//! from 0, like flows in the run figures.

use cclab_scenario::units::{parse_bdp_multiple, parse_bytes, parse_duration, parse_rate};

/// Words for the last part of a key (a scenario setting), and the unit of a plain number
/// given for it.
fn setting(leaf: &str) -> (String, Option<&'static str>) {
    let (words, unit) = match leaf {
        "cc" => ("algorithm", None),
        "extra_rtt" => ("extra RTT", None),
        "count" => ("number of flows", None),
        "start" => ("start time", None),
        "size" => ("transfer size", Some("bytes")),
        "mss" => ("MSS", Some("bytes")),
        "header_bytes" => ("header size", Some("bytes")),
        "initial_window" => ("initial window", Some("segments")),
        "initial_ssthresh" => ("initial ssthresh", Some("segments")),
        "receive_window" => ("receive window", Some("segments")),
        "slow_start" => ("slow start", None),
        "recovery" => ("loss recovery", None),
        "delayed_ack" => ("delayed ACKs", None),
        "rate" => ("rate", None),
        "delay" => ("one-way delay", None),
        "buffer" => ("buffer", Some("packets")),
        "queue" => ("queue discipline", None),
        "loss" => ("random loss probability", None),
        "ack_loss" => ("ACK loss probability", None),
        "ecn_threshold" => ("ECN marking threshold", Some("packets")),
        "hops" => ("number of hops", None),
        "duration" => ("run length", None),
        "seed" => ("seed", None),
        "interval" => ("sampling interval", None),
        other => return (other.replace('_', " "), None),
    };
    (words.to_string(), unit)
}

/// "flow group 0" for `0`, "every flow group" for `*`.
fn group(index: &str) -> String {
    if index == "*" {
        "every flow group".into()
    } else {
        format!("flow group {index}")
    }
}

/// A swept key in words, and the unit of plain numbers given for it: `flows.0.extra_rtt` is
/// "extra RTT of flow group 0", `topology.bottleneck.rate` "bottleneck rate".
pub fn key_words(key: &str) -> (String, Option<&'static str>) {
    if key.contains('+') {
        // Linked keys: all of them at once.
        let parts: Vec<(String, Option<&str>)> =
            key.split('+').map(|k| key_words(k.trim())).collect();
        let unit = parts[0].1;
        let words: Vec<String> = parts.into_iter().map(|p| p.0).collect();
        return (words.join(" and "), unit);
    }
    let parts: Vec<&str> = key.split('.').collect();
    match parts.as_slice() {
        ["flows", "*", "cc"] => ("algorithm".into(), None),
        ["flows", index, "params", name] => (format!("parameter {name} of {}", group(index)), None),
        ["flows", index, leaf] => {
            let (words, unit) = setting(leaf);
            (format!("{words} of {}", group(index)), unit)
        }
        ["topology", "hops"] => setting("hops"),
        ["topology", link, "params", name] => (format!("{link} parameter {name}"), None),
        ["topology", link, leaf] => {
            let (words, unit) = setting(leaf);
            (format!("{} {words}", link.replace('_', " ")), unit)
        }
        [leaf] => setting(leaf),
        ["output", leaf] => setting(leaf),
        _ => {
            let (words, unit) = setting(parts.last().copied().unwrap_or(key));
            let context: Vec<String> = parts[..parts.len().saturating_sub(1)]
                .iter()
                .filter(|p| **p != "topology")
                .map(|p| p.replace('_', " "))
                .collect();
            if context.is_empty() {
                (words, unit)
            } else {
                (format!("{words} of {}", context.join(" ")), unit)
            }
        }
    }
}

/// A result column (metric) in words, its unit, and the factor from the column's unit to the
/// axis unit: `aggregate.total_goodput_bps` is "total goodput", Mbit/s, 1e-6.
pub fn metric_words(column: &str) -> (String, Option<&'static str>, f64) {
    let known = match column {
        "aggregate.utilization" => Some("bottleneck utilization"),
        "aggregate.utilization_steady" => Some("bottleneck utilization (steady state)"),
        "aggregate.jain_index" => Some("Jain index of goodput"),
        "aggregate.jain_index_steady" => Some("Jain index of goodput (steady state)"),
        "aggregate.index_a" => Some("index A = (x1 − x2) / (x1 + x2)"),
        "aggregate.share_ratio" => Some("bandwidth share ratio x1 / x2"),
        "aggregate.share_first" => Some("share of the first flow group"),
        "aggregate.total_goodput_bps" => Some("total goodput"),
        "aggregate.total_goodput_steady_bps" => Some("total goodput (steady state)"),
        "aggregate.stability_cv" => Some("throughput coefficient of variation"),
        _ => None,
    };
    let parts: Vec<&str> = column.split('.').collect();
    let leaf = parts.last().copied().unwrap_or(column);
    let (stem, unit, scale) = [
        ("_steady_bps", Some("Mbit/s"), 1e-6),
        ("_bps", Some("Mbit/s"), 1e-6),
        ("_steady_ms", Some("ms"), 1.0),
        ("_ms", Some("ms"), 1.0),
        ("_s", Some("s"), 1.0),
        ("_steady_pkts", Some("packets"), 1.0),
        ("_pkts", Some("packets"), 1.0),
        ("_bytes", Some("kB"), 1e-3),
    ]
    .into_iter()
    .find_map(|(suffix, unit, scale)| {
        leaf.strip_suffix(suffix).map(|stem| {
            let stem = if suffix.contains("steady") {
                format!("{stem} (steady state)")
            } else {
                stem.to_string()
            };
            (stem, unit, scale)
        })
    })
    .unwrap_or_else(|| {
        let stem = match leaf.strip_suffix("_steady") {
            Some(s) => format!("{s} (steady state)"),
            None => leaf.to_string(),
        };
        (stem, None, 1.0)
    });
    if let Some(words) = known {
        return (words.to_string(), unit, scale);
    }
    let words = stem
        .replace("rtt", "RTT")
        .replace("fct", "flow completion time")
        .replace('_', " ");
    let words = match parts.as_slice() {
        ["flows", id, _] => format!("{words} of flow {id}"),
        ["links", id, _] => format!("{words} of link {id}"),
        _ => words,
    };
    (words, unit, scale)
}

/// Text and unit together: "bottleneck rate (Mbit/s)".
pub fn with_unit(words: &str, unit: Option<&str>) -> String {
    match unit {
        Some(u) => format!("{words} ({u})"),
        None => words.to_string(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Rate,
    Time,
    Bdp,
    Bytes,
    Plain,
}

fn parse(value: &str) -> Option<(Kind, f64)> {
    if let Some(multiple) = parse_bdp_multiple(value) {
        return multiple.ok().map(|m| (Kind::Bdp, m));
    }
    if let Ok(bps) = parse_rate(value) {
        return Some((Kind::Rate, bps as f64));
    }
    if let Ok(d) = parse_duration(value) {
        return Some((Kind::Time, d.as_secs_f64()));
    }
    if let Ok(b) = parse_bytes(value) {
        return Some((Kind::Bytes, b as f64));
    }
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(|v| (Kind::Plain, v))
}

/// Swept values as numbers in one unit, if they all are quantities of one kind: rates in
/// Mbit/s (kbit/s or Gbit/s when all are below 1 Mbit/s or from 1 Gbit/s), durations in ms (s
/// when all are from 1 s), sizes in kB (MB from 1 MB), multiples of the BDP, and plain numbers
/// with the key's unit (`plain_unit`). `None` when a value is not a number or kinds mix.
pub fn numeric(
    values: &[String],
    plain_unit: Option<&'static str>,
) -> Option<(Vec<f64>, Option<&'static str>)> {
    let parsed: Vec<(Kind, f64)> = values.iter().map(|v| parse(v)).collect::<Option<_>>()?;
    let kind = parsed.first()?.0;
    if parsed.iter().any(|p| p.0 != kind) {
        return None;
    }
    let raw: Vec<f64> = parsed.iter().map(|p| p.1).collect();
    let min = raw.iter().copied().fold(f64::INFINITY, f64::min);
    let max = raw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (scale, unit) = match kind {
        Kind::Rate if max < 1e6 => (1e-3, Some("kbit/s")),
        Kind::Rate if min >= 1e9 => (1e-9, Some("Gbit/s")),
        Kind::Rate => (1e-6, Some("Mbit/s")),
        Kind::Time if min >= 1.0 => (1.0, Some("s")),
        Kind::Time => (1e3, Some("ms")),
        Kind::Bytes if min >= 1e6 => (1e-6, Some("MB")),
        Kind::Bytes => (1e-3, Some("kB")),
        Kind::Bdp => (1.0, Some("× BDP")),
        Kind::Plain => (1.0, plain_unit),
    };
    Some((raw.iter().map(|v| v * scale).collect(), unit))
}

/// Whether values are best shown on a log axis: all positive and spanning more than a decade.
pub fn wants_log(values: &[f64]) -> bool {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    min > 0.0 && max / min > 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| v.to_string()).collect()
    }

    #[test]
    fn keys_in_words() {
        assert_eq!(key_words("topology.bottleneck.rate").0, "bottleneck rate");
        assert_eq!(
            key_words("flows.0.extra_rtt").0,
            "extra RTT of flow group 0"
        );
        assert_eq!(key_words("flows.*.cc").0, "algorithm");
        assert_eq!(key_words("flows.1.cc").0, "algorithm of flow group 1");
        assert_eq!(
            key_words("topology.bottleneck.buffer"),
            ("bottleneck buffer".to_string(), Some("packets"))
        );
        assert_eq!(
            key_words("flows.0.params.beta").0,
            "parameter beta of flow group 0"
        );
        assert_eq!(
            key_words("flows.0.extra_rtt+flows.1.extra_rtt").0,
            "extra RTT of flow group 0 and extra RTT of flow group 1"
        );
        // Unknown settings still read as words.
        assert_eq!(
            key_words("flows.2.some_new_knob").0,
            "some new knob of flow group 2"
        );
        assert_eq!(key_words("topology.hop2.rate").0, "hop2 rate");
    }

    #[test]
    fn metrics_in_words_with_units() {
        let (words, unit, scale) = metric_words("aggregate.total_goodput_bps");
        assert_eq!(with_unit(&words, unit), "total goodput (Mbit/s)");
        assert_eq!(scale, 1e-6);
        assert_eq!(
            with_unit(&metric_words("aggregate.jain_index").0, None),
            "Jain index of goodput"
        );
        let (words, unit, _) = metric_words("flows.1.mean_rtt_ms");
        assert_eq!(with_unit(&words, unit), "mean RTT of flow 1 (ms)");
        let (words, unit, scale) = metric_words("flows.0.goodput_steady_bps");
        assert_eq!(
            with_unit(&words, unit),
            "goodput (steady state) of flow 0 (Mbit/s)"
        );
        assert_eq!(scale, 1e-6);
        assert_eq!(metric_words("aggregate.utilization").1, None);
    }

    #[test]
    fn values_become_numbers_in_the_axis_unit() {
        // 1 Mbit/s = 10^6 bit/s; 1 Gbit/s = 1000 Mbit/s.
        assert_eq!(
            numeric(&strings(&["10Mbps", "622Mbps", "1Gbps"]), None),
            Some((vec![10.0, 622.0, 1000.0], Some("Mbit/s")))
        );
        assert_eq!(
            numeric(&strings(&["12ms", "60ms", "0.5s"]), None),
            Some((vec![12.0, 60.0, 500.0], Some("ms")))
        );
        assert_eq!(
            numeric(&strings(&["0.5bdp", "1bdp", "2bdp"]), Some("packets")),
            Some((vec![0.5, 1.0, 2.0], Some("× BDP")))
        );
        assert_eq!(
            numeric(&strings(&["60KB", "1.5MB"]), None),
            Some((vec![60.0, 1500.0], Some("kB")))
        );
        assert_eq!(
            numeric(&strings(&["50", "100"]), Some("packets")),
            Some((vec![50.0, 100.0], Some("packets")))
        );
        // Mixed kinds and words stay categories.
        assert_eq!(numeric(&strings(&["50", "1bdp"]), Some("packets")), None);
        assert_eq!(numeric(&strings(&["reno", "cubic"]), None), None);
        assert_eq!(numeric(&strings(&["[0ms, 10ms]", "20ms"]), None), None);
    }

    #[test]
    fn log_axis_beyond_a_decade() {
        assert!(!wants_log(&[10.0, 50.0, 100.0]));
        assert!(wants_log(&[2.0, 16.0, 512.0]));
        assert!(!wants_log(&[0.0, 10.0, 1000.0]), "zero has no logarithm");
    }
}
