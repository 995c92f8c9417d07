//! `kind = "workload"` flow keys: `load`, `load_link`, `sizes`, `stop`; and the empirical
//! CDF files `sizes = { cdf = "file" }` names.

use std::path::Path;

use cclab_cc::SimTime;
use toml::Value;

use super::section::{Section, as_f64};
use crate::error::ScenarioError;
use crate::model::{Direction, Topology};
use crate::traffic::{EmpiricalCdf, SizeDistribution, WorkloadConfig};
use crate::units::parse_bytes;

/// Keys of a TCP flow group that a workload does not take, with what to use instead.
const NOT_FOR_WORKLOADS: &[(&str, &str)] = &[
    ("count", "arrivals come from `load`; remove `count`"),
    (
        "size",
        "each flow's size is drawn from `sizes`; remove `size`",
    ),
    (
        "start_jitter",
        "arrivals are already random; remove `start_jitter`",
    ),
    ("drop", "`drop` applies to long-lived flows only"),
    (
        "drop_syn",
        "`drop_syn` applies to long-lived flows only (a link's `loss` strikes SYNs too)",
    ),
    (
        "on_off",
        "a workload's flows are short transfers, not on/off applications",
    ),
];

/// Largest CDF file read: far above any published table (tens of lines).
const MAX_CDF_BYTES: u64 = 1 << 20;

pub(super) fn workload(
    section: &Section,
    topology: &Topology,
    direction: Direction,
    route: Option<(usize, usize)>,
) -> Result<WorkloadConfig, ScenarioError> {
    for (key, why) in NOT_FOR_WORKLOADS {
        if section.get(key).is_some() {
            return Err(section.invalid(key, &format!("not for kind = \"workload\": {why}")));
        }
    }
    let load = match section.get("load").map(as_f64) {
        None => {
            return Err(section.invalid(
                "load",
                "missing; give the offered load as a fraction of the link's rate, e.g. load = 0.5",
            ));
        }
        Some(Some(x)) if x > 0.0 && x <= 1.0 => x,
        Some(_) => {
            return Err(section.invalid(
                "load",
                "must be a number in (0, 1]: the offered load as a fraction of the link's rate \
                 (at or above 1 the number of open flows grows without bound)",
            ));
        }
    };
    let (load_link, load_rate_bps) = load_link(section, topology, direction, route)?;
    let sizes = match section.section("sizes")? {
        Some(sizes) => size_distribution(&sizes)?,
        None => {
            return Err(section.invalid(
                "sizes",
                "missing; e.g. sizes = { distribution = \"lognormal\", mean = \"100KB\", sigma = 1.5 } \
                 or sizes = { cdf = \"workloads/web-search.cdf\" }",
            ));
        }
    };
    let stop = section.duration("stop")?.map(|d| SimTime::ZERO + d);
    let start = SimTime::ZERO + section.duration_or("start", "0s")?;
    if let Some(stop) = stop
        && stop <= start
    {
        return Err(section.invalid(
            "stop",
            &format!(
                "{} is not after `start` ({}): no flow would arrive",
                stop - SimTime::ZERO,
                start - SimTime::ZERO
            ),
        ));
    }
    Ok(WorkloadConfig {
        load,
        load_link,
        load_rate_bps,
        sizes,
        stop,
    })
}

/// Every link a load can refer to on this topology: (name, rate).
fn named_links(topology: &Topology) -> Vec<(String, u64)> {
    match topology {
        Topology::Dumbbell(d) => vec![
            ("bottleneck".into(), d.bottleneck.rate_bps),
            ("bottleneck-reverse".into(), d.reverse_link().rate_bps),
        ],
        Topology::ParkingLot(p) => p
            .hops
            .iter()
            .enumerate()
            .flat_map(|(i, l)| {
                [
                    (format!("hop{}", i + 1), l.rate_bps),
                    (format!("hop{}-reverse", i + 1), l.rate_bps),
                ]
            })
            .collect(),
        Topology::Graph(g) => g
            .links
            .iter()
            .flat_map(|l| {
                let (a, b) = (&g.nodes[l.between.0], &g.nodes[l.between.1]);
                [
                    (format!("{a}-{b}"), l.link.rate_bps),
                    (format!("{b}-{a}"), l.link.rate_bps),
                ]
            })
            .collect(),
    }
}

/// `load_link`, or the default: a dumbbell's bottleneck in the data's direction, a parking
/// lot's slowest hop on the route (the first of equals); a graph needs the key.
fn load_link(
    section: &Section,
    topology: &Topology,
    direction: Direction,
    route: Option<(usize, usize)>,
) -> Result<(String, u64), ScenarioError> {
    let links = named_links(topology);
    match section.get("load_link") {
        Some(Value::String(name)) => links
            .into_iter()
            .find(|(n, _)| n == name)
            .ok_or_else(|| {
                section.invalid(
                    "load_link",
                    &format!(
                        "no link `{name}` on this {}; name one of its shared links, e.g. `{}`",
                        topology.kind(),
                        named_links(topology)
                            .first()
                            .map_or("bottleneck", |(n, _)| n.as_str())
                    ),
                )
            }),
        Some(_) => Err(section.invalid("load_link", "must be a link name such as \"bottleneck\"")),
        None => match topology {
            Topology::Dumbbell(_) => Ok(links[match direction {
                Direction::Forward => 0,
                Direction::Reverse => 1,
            }]
            .clone()),
            Topology::ParkingLot(p) => {
                let (from, to) = route.unwrap_or((0, p.hops.len()));
                let slowest = (from..to)
                    .min_by_key(|&h| (p.hops[h].rate_bps, h))
                    .expect("the parser checked from < to");
                Ok(links[2 * slowest].clone())
            }
            Topology::Graph(_) => Err(section.invalid(
                "load_link",
                "missing; on a graph name the link the load is a fraction of, e.g. load_link = \"a-b\"",
            )),
        },
    }
}

const DISTRIBUTIONS: &str = "\"fixed\", \"exponential\", \"pareto\" or \"lognormal\"";

/// `sizes = { distribution = ..., mean = ..., sigma/shape = ... }` or `{ cdf = "file" }`.
fn size_distribution(sizes: &Section) -> Result<SizeDistribution, ScenarioError> {
    if let Some(value) = sizes.get("cdf") {
        sizes.allow_only(&["cdf"])?;
        let Value::String(file) = value else {
            return Err(sizes.invalid(
                "cdf",
                "must be a file name, e.g. \"workloads/web-search.cdf\"",
            ));
        };
        return read_cdf(sizes, file).map(SizeDistribution::Cdf);
    }
    let name = match sizes.get("distribution") {
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err(sizes.invalid("distribution", &format!("must be {DISTRIBUTIONS}"))),
        None => {
            return Err(sizes.invalid(
                "distribution",
                &format!("missing; use {DISTRIBUTIONS}, or cdf = \"file\""),
            ));
        }
    };
    let extra: &[&str] = match name {
        "fixed" | "exponential" => &[],
        "pareto" => &["shape"],
        "lognormal" => &["sigma"],
        other => {
            return Err(sizes.invalid(
                "distribution",
                &format!("unknown distribution `{other}`; use {DISTRIBUTIONS}, or cdf = \"file\""),
            ));
        }
    };
    let mut known = vec!["distribution", "mean"];
    known.extend_from_slice(extra);
    sizes.allow_only(&known)?;
    let mean = match sizes.get("mean") {
        Some(Value::String(s)) => parse_bytes(s).map_err(|m| sizes.invalid("mean", &m))?,
        Some(Value::Integer(b)) if *b > 0 => *b as u64,
        Some(_) => return Err(sizes.invalid("mean", "must be a size such as \"100KB\"")),
        None => {
            return Err(sizes.invalid("mean", "missing; give the mean flow size, e.g. \"100KB\""));
        }
    };
    if mean == 0 {
        return Err(sizes.invalid("mean", "must be at least one byte"));
    }
    let number = |key: &str, check: fn(f64) -> bool, rule: &str| match sizes.get(key).map(as_f64) {
        Some(Some(x)) if check(x) => Ok(x),
        Some(_) => Err(sizes.invalid(key, rule)),
        None => Err(sizes.invalid(key, &format!("missing for `{name}`; {rule}"))),
    };
    Ok(match name {
        "fixed" => SizeDistribution::Fixed { bytes: mean },
        "exponential" => SizeDistribution::Exponential { mean: mean as f64 },
        "pareto" => SizeDistribution::Pareto {
            mean: mean as f64,
            shape: number(
                "shape",
                |x| x > 1.0 && x <= 100.0,
                "the shape α must be in (1, 100] (α ≤ 1 has no finite mean), e.g. shape = 1.2",
            )?,
        },
        _ => SizeDistribution::Lognormal {
            mean: mean as f64,
            sigma: number(
                "sigma",
                |x| x > 0.0 && x <= 5.0,
                "σ must be in (0, 5], e.g. sigma = 1.5",
            )?,
        },
    })
}

/// Read a CDF file named relative to the scenario file.
fn read_cdf(sizes: &Section, file: &str) -> Result<EmpiricalCdf, ScenarioError> {
    let base = Path::new(sizes.file).parent().unwrap_or(Path::new(""));
    let path = base.join(file);
    let invalid = |message: String| sizes.invalid("cdf", &message);
    let metadata = std::fs::metadata(&path)
        .map_err(|e| invalid(format!("cannot read `{}`: {e}", path.display())))?;
    if !metadata.is_file() || metadata.len() > MAX_CDF_BYTES {
        return Err(invalid(format!(
            "`{}` is not a CDF file (a regular file of at most 1 MiB)",
            path.display()
        )));
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| invalid(format!("cannot read `{}`: {e}", path.display())))?;
    let points = parse_cdf(&text)
        .map_err(|(line, m)| invalid(format!("`{}` line {line}: {m}", path.display())))?;
    Ok(EmpiricalCdf {
        file: file.to_string(),
        points,
    })
}

/// Parse the CDF format (docs/traffic.md): one point per line, "size_bytes probability",
/// separated by white space; `#` starts a comment; blank lines are skipped. Sizes strictly
/// increase, probabilities never decrease, lie in [0, 1] and end at exactly 1. Errors give
/// the 1-based line number.
pub(crate) fn parse_cdf(text: &str) -> Result<Vec<(u64, f64)>, (usize, String)> {
    let mut points: Vec<(u64, f64)> = Vec::new();
    let mut last_line = 0;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        last_line = line;
        let fields: Vec<&str> = content.split_whitespace().collect();
        if fields.len() != 2 {
            return Err((
                line,
                format!(
                    "expected two numbers, \"size_bytes probability\", found {} field(s)",
                    fields.len()
                ),
            ));
        }
        let size: f64 = fields[0]
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s >= 0.0 && *s <= 1e15)
            .ok_or_else(|| {
                (
                    line,
                    format!(
                        "size `{}` is not a number of bytes from 0 to 1e15",
                        fields[0]
                    ),
                )
            })?;
        let size = size.round() as u64;
        let p: f64 = fields[1]
            .parse()
            .ok()
            .filter(|p: &f64| p.is_finite())
            .ok_or_else(|| (line, format!("probability `{}` is not a number", fields[1])))?;
        if !(0.0..=1.0).contains(&p) {
            return Err((
                line,
                format!(
                    "probability {p} is outside [0, 1] (a file in percent must be divided by 100)"
                ),
            ));
        }
        if let Some(&(previous_size, previous_p)) = points.last() {
            if size <= previous_size {
                return Err((
                    line,
                    format!("size {size} does not increase (the line before has {previous_size})"),
                ));
            }
            if p < previous_p {
                return Err((
                    line,
                    format!("probability {p} decreases (the line before has {previous_p})"),
                ));
            }
        }
        points.push((size, p));
    }
    match points.last() {
        None => Err((
            1,
            "no points; write one \"size_bytes probability\" per line".into(),
        )),
        Some(&(_, p)) if (p - 1.0).abs() > 1e-9 => Err((
            last_line,
            format!("the last probability is {p}; a CDF ends at 1"),
        )),
        Some(_) => {
            // Exactly 1, so that every draw in [0, 1) finds its segment.
            if let Some(last) = points.last_mut() {
                last.1 = 1.0;
            }
            Ok(points)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_cdf;

    #[test]
    fn a_cdf_file_parses_with_comments_and_blank_lines() {
        let text = "# web search\n\n0 0\n10000 0.15   # first step\n3e7 1\n";
        assert_eq!(
            parse_cdf(text),
            Ok(vec![(0, 0.0), (10_000, 0.15), (30_000_000, 1.0)])
        );
    }

    #[test]
    fn cdf_errors_name_their_line() {
        let cases = [
            ("100 0.5\n200\n", 2, "two numbers"),
            ("100 0.5\nx 1\n", 2, "not a number of bytes"),
            ("100 0.5\n200 y\n", 2, "not a number"),
            ("100 15\n", 1, "divided by 100"),
            ("100 0.5\n\n100 1\n", 3, "does not increase"),
            ("100 0.5\n200 0.4\n300 1\n", 2, "decreases"),
            ("100 0.5\n# end\n200 0.9\n\n", 3, "ends at 1"),
            ("# nothing\n", 1, "no points"),
            ("-5 0.1\n10 1\n", 1, "from 0 to 1e15"),
        ];
        for (text, line, words) in cases {
            match parse_cdf(text) {
                Err((l, m)) => {
                    assert_eq!(l, line, "{text:?}: {m}");
                    assert!(m.contains(words), "{text:?}: {m}");
                }
                Ok(points) => panic!("{text:?} parsed as {points:?}"),
            }
        }
    }

    #[test]
    fn the_mean_of_a_piecewise_linear_cdf_is_worked_out_by_hand() {
        // A point mass of 0.2 at 100 B, then uniform on [100, 300] with probability 0.8:
        // mean = 0.2 × 100 + 0.8 × 200 = 180.
        let cdf = crate::traffic::EmpiricalCdf {
            file: "x".into(),
            points: parse_cdf("100 0.2\n300 1\n").expect("valid"),
        };
        assert!((cdf.mean_bytes() - 180.0).abs() < 1e-9);
    }

    fn workload_of(text: &str, table: usize) -> crate::traffic::WorkloadConfig {
        let scenario = crate::from_str("w.toml", text, &[]).expect("valid");
        scenario.flows[table]
            .kind
            .workload()
            .expect("a workload")
            .clone()
    }

    #[test]
    fn the_load_link_defaults_to_the_datas_bottleneck() {
        // Dumbbell, reverse direction: the reverse link's own 2 Mbit/s.
        let w = workload_of(
            r#"
            [topology]
            bottleneck = { rate = "10Mbps", delay = "10ms", reverse = { rate = "2Mbps" } }
            [[flows]]
            cc = "reno"
            [[flows]]
            kind = "workload"
            cc = "reno"
            direction = "reverse"
            load = 0.5
            sizes = { distribution = "fixed", mean = "1000B" }
            "#,
            1,
        );
        assert_eq!(
            (w.load_link.as_str(), w.load_rate_bps),
            ("bottleneck-reverse", 2_000_000)
        );
        // λ = 0.5 · 2·10⁶ / (8 · 1000) = 125 flows/s.
        assert!((w.arrivals_per_second() - 125.0).abs() < 1e-9);
        // Parking lot route 1 → 3 crosses hop2 (50 Mbit/s) and hop3 (20 Mbit/s): hop3.
        let w = workload_of(
            r#"
            [topology]
            kind = "parking-lot"
            hops = 3
            link = { rate = "100Mbps", delay = "5ms" }
            hop2 = { rate = "50Mbps" }
            hop3 = { rate = "20Mbps" }
            [[flows]]
            cc = "reno"
            [[flows]]
            kind = "workload"
            cc = "reno"
            route = { from = 1, to = 3 }
            load = 0.25
            sizes = { distribution = "exponential", mean = "10KB" }
            "#,
            1,
        );
        assert_eq!(
            (w.load_link.as_str(), w.load_rate_bps),
            ("hop3", 20_000_000)
        );
    }

    #[test]
    fn estimates_count_arrivals_and_slots() {
        // λ = 0.5 · 10⁷ / (8 · 10⁴) = 62.5/s over [2 s, 10 s): 500 expected arrivals, so 500
        // flows.csv rows. Slots: base RTT 2 · 10 ms (access delay 0), a mean flow takes
        // 8 · 10⁴ / 10⁷ = 8 ms at the link: λ · (4 · 0.02 + 0.008) = 5.5, plus
        // ρ / (1 − ρ) = 1; 2 · 6.5 + 100 = 113.
        let scenario = crate::from_str(
            "w.toml",
            r#"
            duration = "20s"
            [topology]
            bottleneck = { rate = "10Mbps", delay = "10ms" }
            [[flows]]
            cc = "reno"
            size = "1KB"
            [[flows]]
            kind = "workload"
            cc = "reno"
            start = "2s"
            stop = "10s"
            load = 0.5
            sizes = { distribution = "fixed", mean = "10KB" }
            "#,
            &[],
        )
        .expect("valid");
        assert_eq!(scenario.flow_count(), 1);
        assert_eq!(scenario.expected_arrivals(), 500);
        assert_eq!(scenario.output_estimate().flows_csv_rows, 500);
        assert_eq!(scenario.memory_estimate().workload_slots, 113);
    }

    #[test]
    fn the_shipped_web_search_cdf_has_the_published_mean() {
        // Per segment (probability × midpoint) of DCTCP's web-search table: 0.15 · 5 000 +
        // 0.05 · 15 000 + 0.1 · 25 000 + 0.1 · 40 000 + 0.13 · 65 000 + 0.07 · 140 000 +
        // 0.1 · 600 000 + 0.1 · 1.5 M + 0.1 · 3.5 M + 0.07 · 7.5 M + 0.03 · 20 M
        // = 1 711 250 bytes.
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../examples/workloads/web-search.cdf"),
        )
        .expect("the example CDF is in the repository");
        let cdf = crate::traffic::EmpiricalCdf {
            file: "web-search.cdf".into(),
            points: parse_cdf(&text).expect("valid"),
        };
        assert_eq!(cdf.points.len(), 12);
        assert!(
            (cdf.mean_bytes() - 1_711_250.0).abs() < 1e-6,
            "{}",
            cdf.mean_bytes()
        );
    }
}
