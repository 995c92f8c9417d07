//! The numbers of the Dynamic Vegas paper per protocol group: its experiment has 10 flows, the
//! first five Reno (`flows.0`, ids 0–4) and the last five Vegas or Dynamic Vegas (`flows.1`,
//! ids 5–9); it reports packets delivered and dropped per group, not per flow.

use cclab_analysis::results::Row;

use super::super::{metric, param};

/// Flows per group (seed 003: "Of the ten sources, five … TCP Reno and the other five …").
pub const FLOWS_PER_GROUP: usize = 5;
/// Payload bytes of one 1000-byte packet (1000 − 40 bytes of TCP/IP headers): a packet
/// delivered is this many bytes acknowledged.
pub const PAYLOAD_BYTES: f64 = 960.0;

/// One run's (or the mean of several runs') totals per group.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GroupTotals {
    /// Packets delivered (acknowledged) by the five Reno flows.
    pub reno_packets: f64,
    /// Packets delivered by the five Vegas or Dynamic Vegas flows.
    pub other_packets: f64,
    /// Packets of the Reno flows dropped at the bottleneck.
    pub reno_drops: f64,
    pub other_drops: f64,
    /// Mean bottleneck queue, packets.
    pub mean_queue: f64,
}

impl GroupTotals {
    /// The totals of one run, or `None` if a cell is missing.
    pub fn of(row: &Row) -> Option<GroupTotals> {
        let sum = |first: usize, column: &str| -> Option<f64> {
            (first..first + FLOWS_PER_GROUP)
                .map(|i| metric(row, &format!("flows.{i}.{column}")))
                .sum()
        };
        Some(GroupTotals {
            reno_packets: sum(0, "bytes_acked")? / PAYLOAD_BYTES,
            other_packets: sum(FLOWS_PER_GROUP, "bytes_acked")? / PAYLOAD_BYTES,
            reno_drops: sum(0, "drops")?,
            other_drops: sum(FLOWS_PER_GROUP, "drops")?,
            mean_queue: metric(row, "links.0.mean_queue_pkts")?,
        })
    }

    /// The Vegas-type group's share of the packets delivered.
    pub fn other_share(&self) -> f64 {
        let total = self.reno_packets + self.other_packets;
        if total > 0.0 {
            self.other_packets / total
        } else {
            0.0
        }
    }

    fn mean(all: &[GroupTotals]) -> GroupTotals {
        let n = all.len().max(1) as f64;
        let avg = |f: fn(&GroupTotals) -> f64| all.iter().map(f).sum::<f64>() / n;
        GroupTotals {
            reno_packets: avg(|t| t.reno_packets),
            other_packets: avg(|t| t.other_packets),
            reno_drops: avg(|t| t.reno_drops),
            other_drops: avg(|t| t.other_drops),
            mean_queue: avg(|t| t.mean_queue),
        }
    }
}

/// The replicates of one grid point: their mean and each run's totals (for min/max bars).
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The values of the grouping keys, in the order asked for.
    pub key: Vec<String>,
    pub mean: GroupTotals,
    pub runs: Vec<GroupTotals>,
}

impl Point {
    /// (mean, min, max) of `f` over the replicates.
    pub fn spread(&self, f: impl Fn(&GroupTotals) -> f64) -> (f64, f64, f64) {
        let values: Vec<f64> = self.runs.iter().map(&f).collect();
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (f(&self.mean), lo, hi)
    }
}

/// Rows grouped by the values of `keys` (swept keys), in the order the groups first appear;
/// runs with a missing cell are left out.
pub fn points(rows: &[Row], keys: &[&str]) -> Vec<Point> {
    let mut out: Vec<Point> = Vec::new();
    for row in rows {
        let key: Vec<String> = keys
            .iter()
            .map(|k| param(row, k).unwrap_or_default().to_string())
            .collect();
        let Some(totals) = GroupTotals::of(row) else {
            continue;
        };
        match out.iter_mut().find(|p| p.key == key) {
            Some(p) => p.runs.push(totals),
            None => out.push(Point {
                key,
                mean: totals,
                runs: vec![totals],
            }),
        }
    }
    for p in &mut out {
        p.mean = GroupTotals::mean(&p.runs);
    }
    out
}

/// "0.1Mbps" → 0.1 (the study files write every rate in Mbit/s).
pub fn mbps(value: &str) -> Option<f64> {
    value.strip_suffix("Mbps")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::reproduce::test_row;

    fn row(params: &[(&str, &str)], acked: [u64; 10], drops: [u64; 10], queue: f64) -> Row {
        let mut columns = Vec::new();
        for i in 0..10 {
            columns.push((format!("flows.{i}.bytes_acked"), acked[i].to_string()));
            columns.push((format!("flows.{i}.drops"), drops[i].to_string()));
        }
        columns.push(("links.0.mean_queue_pkts".into(), queue.to_string()));
        test_row(params, &columns)
    }

    #[test]
    fn totals_sum_the_first_and_last_five_flows_in_packets_of_960_bytes() {
        // Reno flows 0–4 acknowledge 960, 1920, 0, 0, 960 bytes: 1 + 2 + 1 = 4 packets;
        // flows 5–9 acknowledge 9600 bytes each: 5 × 10 = 50 packets.
        let r = row(
            &[],
            [960, 1920, 0, 0, 960, 9600, 9600, 9600, 9600, 9600],
            [1, 0, 0, 0, 2, 0, 0, 0, 0, 4],
            12.5,
        );
        let t = GroupTotals::of(&r).unwrap();
        assert_eq!(t.reno_packets, 4.0);
        assert_eq!(t.other_packets, 50.0);
        assert_eq!((t.reno_drops, t.other_drops), (3.0, 4.0));
        assert_eq!(t.mean_queue, 12.5);
        // 50 of 54 packets.
        assert!((t.other_share() - 50.0 / 54.0).abs() < 1e-12);
    }

    #[test]
    fn points_average_replicates_and_keep_their_spread() {
        let p = [("rate", "1Mbps")];
        let a = row(&p, [960; 10], [0; 10], 10.0);
        let b = row(&p, [2880; 10], [2; 10], 20.0);
        let c = row(&[("rate", "5Mbps")], [960; 10], [0; 10], 30.0);
        let points = points(&[a, b, c], &["rate"]);
        assert_eq!(points.len(), 2);
        assert_eq!(points[0].key, vec!["1Mbps".to_string()]);
        // 5 and 15 Reno packets: mean 10, spread 5–15; drops 0 and 10: mean 5.
        assert_eq!(points[0].spread(|t| t.reno_packets), (10.0, 5.0, 15.0));
        assert_eq!(points[0].mean.reno_drops, 5.0);
        assert_eq!(points[0].mean.mean_queue, 15.0);
        assert_eq!(points[1].runs.len(), 1);
        assert_eq!(mbps("0.1Mbps"), Some(0.1));
        assert_eq!(mbps("10ms"), None);
    }
}
