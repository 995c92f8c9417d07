//! Short-flow completion times of the Start Me Up studies, per capacity and variant: the
//! mean over connections 2 and 3 (flows 1 and 2) of each run, in RTTs, and over the seeds.

use anyhow::Context;
use cclab_analysis::results::Row;

use super::super::{metric, param};
use super::RATE;

/// The linked key of the FCT studies (every flow's `sharing` and `join` together).
const VARIANT: &str = "flows.*.sharing+flows.*.join";

/// The curves of the paper's figure (1–3) and the timer-paced join of the prior work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Uncoupled,
    Burst,
    AckClocked,
    Paced,
}

impl Variant {
    pub const ALL: [Variant; 4] = [
        Variant::Uncoupled,
        Variant::Burst,
        Variant::AckClocked,
        Variant::Paced,
    ];

    /// The slides' legend.
    pub fn label(self) -> &'static str {
        match self {
            Variant::Uncoupled => "1. Short flow",
            Variant::Burst => "2. Short flow - coupled (no-ack-clock)",
            Variant::AckClocked => "3. Short flow - coupled (ack-clocked)",
            Variant::Paced => "Short flow - coupled (timer-paced)",
        }
    }

    /// From the linked value "[none, none, none, ack-clocked, …]" (sharing ×3, join ×3).
    fn of(linked: &str) -> Option<Variant> {
        let cells: Vec<&str> = linked
            .trim_matches(|c| c == '[' || c == ']')
            .split(',')
            .map(str::trim)
            .collect();
        match (cells.first()?, cells.get(3)?) {
            (&"none", _) => Some(Variant::Uncoupled),
            (&"aggregate", &"burst") => Some(Variant::Burst),
            (&"aggregate", &"ack-clocked") => Some(Variant::AckClocked),
            (&"aggregate", &"paced") => Some(Variant::Paced),
            _ => None,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One capacity: per variant, each seed's mean FCT of the two short flows (RTTs).
#[derive(Clone, Debug, PartialEq)]
pub struct VariantPoint {
    pub mbps: f64,
    runs: [Vec<f64>; 4],
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

impl VariantPoint {
    /// (mean, min, max) over the seeds, in RTTs.
    pub fn fct(&self, v: Variant) -> Option<(f64, f64, f64)> {
        let runs = &self.runs[v.index()];
        let m = mean(runs)?;
        let lo = runs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = runs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some((m, lo, hi))
    }

    /// 100 · (1 − mean FCT of `v` / mean FCT uncoupled): the slides' "Reduction (%)".
    pub fn reduction(&self, v: Variant) -> Option<f64> {
        let base = self.fct(Variant::Uncoupled)?.0;
        let with = self.fct(v)?.0;
        (base > 0.0).then(|| 100.0 * (1.0 - with / base))
    }
}

/// The rows of an FCT study per capacity (ascending), FCT in units of `rtt_s`.
pub fn fct_points(rows: &[Row], rtt_s: f64) -> anyhow::Result<Vec<VariantPoint>> {
    let mut out: Vec<VariantPoint> = Vec::new();
    for row in rows {
        let rate = param(row, RATE).context("an FCT run without its capacity")?;
        let mbps: f64 = rate
            .strip_suffix("Mbps")
            .and_then(|r| r.parse().ok())
            .with_context(|| format!("capacity `{rate}` is not in Mbit/s"))?;
        let variant = param(row, VARIANT)
            .and_then(Variant::of)
            .with_context(|| format!("run {}: no sharing/join variant", row.id))?;
        let mut fcts = Vec::new();
        for flow in [1, 2] {
            let fct = metric(row, &format!("flows.{flow}.fct_s")).with_context(|| {
                format!(
                    "run {} ({rate}, {}): short flow {flow} did not finish",
                    row.id,
                    variant.label()
                )
            })?;
            fcts.push(fct / rtt_s);
        }
        let run_mean = fcts.iter().sum::<f64>() / fcts.len() as f64;
        let point = match out.iter_mut().find(|p| p.mbps == mbps) {
            Some(p) => p,
            None => {
                out.push(VariantPoint {
                    mbps,
                    runs: Default::default(),
                });
                out.last_mut().expect("just pushed")
            }
        };
        point.runs[variant.index()].push(run_mean);
    }
    out.sort_by(|a, b| a.mbps.total_cmp(&b.mbps));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(rate: &str, linked: &str, fct1: f64, fct2: f64) -> Row {
        Row {
            id: "r".into(),
            index: 0,
            params: vec![(RATE.into(), rate.into()), (VARIANT.into(), linked.into())],
            replicate: 0,
            seed: 1,
            columns: vec!["flows.1.fct_s".into(), "flows.2.fct_s".into()],
            values: vec![fct1.to_string(), fct2.to_string()],
            wall_s: 0.0,
        }
    }

    const NONE: &str = "[none, none, none, ack-clocked, ack-clocked, ack-clocked]";
    const CLOCKED: &str =
        "[aggregate, aggregate, aggregate, ack-clocked, ack-clocked, ack-clocked]";

    #[test]
    fn fct_in_rtts_averages_both_short_flows_then_the_seeds() {
        // Uncoupled: runs with (2.0 s, 1.0 s) and (1.0 s, 1.0 s) at RTT 0.1 s: 15 and 10
        // RTTs, mean 12.5. ACK-clocked: (0.5 s, 0.5 s): 5 RTTs.
        let rows = vec![
            row("2Mbps", NONE, 2.0, 1.0),
            row("2Mbps", NONE, 1.0, 1.0),
            row("2Mbps", CLOCKED, 0.5, 0.5),
            row("1Mbps", CLOCKED, 0.5, 0.5),
        ];
        let points = fct_points(&rows, 0.1).unwrap();
        assert_eq!(points.len(), 2);
        assert_eq!(points[0].mbps, 1.0);
        let p = &points[1];
        assert_eq!(p.fct(Variant::Uncoupled), Some((12.5, 10.0, 15.0)));
        assert_eq!(p.fct(Variant::AckClocked), Some((5.0, 5.0, 5.0)));
        // 100 · (1 − 5/12.5) = 60 %.
        assert!((p.reduction(Variant::AckClocked).unwrap() - 60.0).abs() < 1e-9);
        assert_eq!(p.fct(Variant::Burst), None);
        // No uncoupled run at 1 Mbit/s: no reduction.
        assert_eq!(points[0].reduction(Variant::AckClocked), None);
    }

    #[test]
    fn variants_come_from_the_linked_sharing_and_join_values() {
        assert_eq!(Variant::of(NONE), Some(Variant::Uncoupled));
        assert_eq!(Variant::of(CLOCKED), Some(Variant::AckClocked));
        assert_eq!(
            Variant::of("[aggregate, aggregate, aggregate, burst, burst, burst]"),
            Some(Variant::Burst)
        );
        assert_eq!(Variant::of("[temporal]"), None);
    }

    #[test]
    fn an_unfinished_short_flow_is_an_error_naming_the_run() {
        let mut r = row("1Mbps", NONE, 1.0, 1.0);
        r.values[1] = String::new();
        let e = fct_points(&[r], 0.1).unwrap_err().to_string();
        assert!(e.contains("short flow 2 did not finish"), "{e}");
    }
}
