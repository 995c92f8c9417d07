//! One number per (algorithm, x) from a study's rows: the curves of the survey's figures
//! (utilization against rate or RTT, Jain's index and index A against RTT).

use cclab_analysis::plot::sweep::{SweepChart, SweepSeries, XAxis};
use cclab_analysis::results::Row;

use super::super::{metric, param};

/// The survey's algorithm names beside ours (`cclab algorithms`), as the paper writes them.
pub const NAMES: &[(&str, &str)] = &[
    ("bic", "BIC"),
    ("compound", "CTCP"),
    ("cubic", "CUBIC"),
    ("highspeed", "HSTCP"),
    ("htcp", "H-TCP"),
    ("hybla", "Hybla"),
    ("scalable", "STCP"),
    ("vegas", "Vegas"),
    ("yeah", "YeAH"),
    ("reno", "Reno"),
];

/// The paper's name of controller `cc`.
pub fn display(cc: &str) -> &str {
    NAMES
        .iter()
        .find(|(ours, _)| *ours == cc)
        .map_or(cc, |(_, paper)| paper)
}

/// `v` with three decimals, as the report's tables write a value, or "–".
pub fn show(v: Option<f64>) -> String {
    v.map_or("–".to_string(), |v| format!("{v:.3}"))
}

/// `"622Mbps"`, `"1Gbps"`, `"10kbps"` in Mbit/s.
pub fn rate_mbps(text: &str) -> Option<f64> {
    let (number, scale) = if let Some(n) = text.strip_suffix("Gbps") {
        (n, 1000.0)
    } else if let Some(n) = text.strip_suffix("Mbps") {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix("kbps") {
        (n, 0.001)
    } else {
        return None;
    };
    number.trim().parse::<f64>().ok().map(|v| v * scale)
}

/// `"7.5ms"`, `"1s"` in milliseconds.
pub fn millis(text: &str) -> Option<f64> {
    if let Some(n) = text.strip_suffix("ms") {
        n.trim().parse().ok()
    } else if let Some(n) = text.strip_suffix('s') {
        n.trim().parse::<f64>().ok().map(|v| v * 1000.0)
    } else {
        None
    }
}

/// Per algorithm, one value (the mean over the rows that fall there) at each x.
#[derive(Clone, Debug, PartialEq)]
pub struct Curves {
    /// Ascending.
    pub x: Vec<f64>,
    /// (controller, value at each x), in the order the rows first name them.
    pub series: Vec<(String, Vec<Option<f64>>)>,
}

impl Curves {
    /// Curves from `rows`: the controller is the swept value of `cc_key`; `x` and `y` read a
    /// row (rows where either is missing are left out).
    pub fn from_rows(
        rows: &[Row],
        cc_key: &str,
        x: impl Fn(&Row) -> Option<f64>,
        y: impl Fn(&Row) -> Option<f64>,
    ) -> Curves {
        let mut points: Vec<(String, f64, f64)> = Vec::new();
        for row in rows {
            if let (Some(cc), Some(xv), Some(yv)) = (param(row, cc_key), x(row), y(row)) {
                points.push((cc.to_string(), xv, yv));
            }
        }
        let mut xs: Vec<f64> = points.iter().map(|p| p.1).collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        let mut names: Vec<String> = Vec::new();
        for (cc, _, _) in &points {
            if !names.contains(cc) {
                names.push(cc.clone());
            }
        }
        let series = names
            .into_iter()
            .map(|cc| {
                let values = xs
                    .iter()
                    .map(|&xv| {
                        let here: Vec<f64> = points
                            .iter()
                            .filter(|p| p.0 == cc && p.1 == xv)
                            .map(|p| p.2)
                            .collect();
                        (!here.is_empty()).then(|| here.iter().sum::<f64>() / here.len() as f64)
                    })
                    .collect();
                (cc, values)
            })
            .collect();
        Curves { x: xs, series }
    }

    /// The value of `cc` at `x`.
    pub fn at(&self, cc: &str, x: f64) -> Option<f64> {
        let i = self.x.iter().position(|&v| v == x)?;
        self.series
            .iter()
            .find(|(name, _)| name == cc)
            .and_then(|(_, values)| values[i])
    }

    /// Each algorithm's mean over its points (algorithms without points left out).
    pub fn means(&self) -> Vec<(&str, f64)> {
        self.names()
            .into_iter()
            .filter_map(|cc| {
                let v = self.of(cc);
                (!v.is_empty()).then(|| (cc, v.iter().map(|p| p.1).sum::<f64>() / v.len() as f64))
            })
            .collect()
    }

    /// The values of `cc` that exist, with their x.
    pub fn of(&self, cc: &str) -> Vec<(f64, f64)> {
        self.series
            .iter()
            .find(|(name, _)| name == cc)
            .map(|(_, values)| {
                self.x
                    .iter()
                    .zip(values)
                    .filter_map(|(&x, v)| v.map(|v| (x, v)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The controllers, in order.
    pub fn names(&self) -> Vec<&str> {
        self.series.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// These curves merged with `other`'s points (an x both have keeps ours).
    pub fn merged(&self, other: &Curves) -> Curves {
        let mut xs: Vec<f64> = self.x.iter().chain(&other.x).copied().collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        let mut names: Vec<String> = self.names().iter().map(|s| s.to_string()).collect();
        for n in other.names() {
            if !names.iter().any(|m| m == n) {
                names.push(n.to_string());
            }
        }
        let series = names
            .into_iter()
            .map(|cc| {
                let values = xs
                    .iter()
                    .map(|&x| self.at(&cc, x).or_else(|| other.at(&cc, x)))
                    .collect();
                (cc, values)
            })
            .collect();
        Curves { x: xs, series }
    }

    /// The chart: one line per controller under the paper's name, x on a log scale when it
    /// spans more than a decade (as the paper's doubling RTTs and rates).
    pub fn chart(&self, title: &str, x_label: &str, y_label: &str) -> SweepChart {
        let log = match (self.x.first(), self.x.last()) {
            (Some(&lo), Some(&hi)) => lo > 0.0 && hi / lo > 10.0,
            _ => false,
        };
        SweepChart {
            title: title.to_string(),
            x_label: if log {
                format!("{x_label}, log scale")
            } else {
                x_label.to_string()
            },
            y_label: y_label.to_string(),
            x: XAxis::Numeric {
                values: self.x.clone(),
                log,
            },
            series: self
                .series
                .iter()
                .map(|(cc, values)| SweepSeries {
                    label: display(cc).to_string(),
                    points: values.iter().map(|v| v.map(|v| (v, v, v))).collect(),
                })
                .collect(),
        }
    }
}

/// A row's metric as a number.
pub fn cell(column: &'static str) -> impl Fn(&Row) -> Option<f64> {
    move |row| metric(row, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cc: &str, rate: &str, util: &str) -> Row {
        Row {
            id: format!("{cc}-{rate}"),
            index: 0,
            params: vec![
                ("flows.0.cc".into(), cc.into()),
                ("topology.bottleneck.rate".into(), rate.into()),
            ],
            replicate: 0,
            seed: 1,
            columns: vec!["links.0.utilization".into()],
            values: vec![util.into()],
            wall_s: 0.0,
        }
    }

    #[test]
    fn units_parse_as_the_scenario_files_write_them() {
        // 1 Gbit/s = 1000 Mbit/s (SI prefixes, docs/scenarios.md).
        assert_eq!(rate_mbps("1Gbps"), Some(1000.0));
        assert_eq!(rate_mbps("622Mbps"), Some(622.0));
        assert_eq!(rate_mbps("622"), None);
        assert_eq!(millis("255.5ms"), Some(255.5));
        assert_eq!(millis("1s"), Some(1000.0));
    }

    #[test]
    fn curves_sort_x_and_keep_the_algorithms_in_row_order() {
        let rows = vec![
            row("vegas", "1Gbps", "0.25"),
            row("vegas", "10Mbps", "0.75"),
            row("bic", "10Mbps", "1.0"),
        ];
        let c = Curves::from_rows(
            &rows,
            "flows.0.cc",
            |r| param(r, "topology.bottleneck.rate").and_then(rate_mbps),
            cell("links.0.utilization"),
        );
        assert_eq!(c.x, vec![10.0, 1000.0]);
        assert_eq!(c.names(), vec!["vegas", "bic"]);
        assert_eq!(c.at("vegas", 1000.0), Some(0.25));
        assert_eq!(c.at("bic", 1000.0), None, "BIC did not run at 1 Gbit/s");
        let chart = c.chart("t", "rate (Mbit/s)", "utilization");
        assert_eq!(chart.series[0].label, "Vegas");
        assert!(
            chart.x_label.ends_with("log scale"),
            "10 to 1000 is two decades"
        );
    }

    #[test]
    fn merging_adds_the_other_studys_points() {
        let a = Curves {
            x: vec![2.0, 512.0],
            series: vec![("htcp".into(), vec![Some(0.9), Some(0.8)])],
        };
        let b = Curves {
            x: vec![64.0],
            series: vec![("htcp".into(), vec![Some(0.95)])],
        };
        let m = a.merged(&b);
        assert_eq!(m.x, vec![2.0, 64.0, 512.0]);
        assert_eq!(m.of("htcp"), vec![(2.0, 0.9), (64.0, 0.95), (512.0, 0.8)]);
    }
}
