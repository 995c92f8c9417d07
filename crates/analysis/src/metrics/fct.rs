//! Workload metrics (`summary.json` `workloads[]`): per workload, its arrivals, finished and
//! unfinished flows, offered and achieved load, and per size bucket the count, mean, median
//! and 99th percentile of the flow completion time (FCT) and of the slowdown (FCT over the
//! ideal FCT). Definitions in docs/metrics.md, "Workloads".

use cclab_scenario::Scenario;
use cclab_sim::traffic::workload::{BUCKET_UPPER_BYTES, SLOWDOWN_SCALE};
use cclab_sim::{BucketStats, WorkloadResult};
use serde::Serialize;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WorkloadSummary {
    /// Index of the `[[flows]]` table.
    pub group: u32,
    pub cc: String,
    /// The size distribution's name (`fixed`, …, `cdf`) and mean in bytes.
    pub sizes: String,
    pub mean_size_bytes: f64,
    /// The load asked for, of `load_link` at `load_rate_bps`.
    pub load: f64,
    pub load_link: String,
    pub load_rate_bps: u64,
    pub arrivals: u64,
    pub finished: u64,
    /// Arrived and not finished by the end of the run (still open or never completed).
    pub unfinished: u64,
    /// Application bytes of every arrival; of the receivers by the end of the run.
    pub offered_bytes: u64,
    pub delivered_bytes: u64,
    /// offered bytes × 8 / (rate × the span of arrivals): the load the arrivals brought.
    pub offered_load: Option<f64>,
    /// delivered bytes × 8 / (rate × the span of arrivals): the part of the offered load
    /// delivered by the end of the run, on the same scale (equal when every flow finished).
    pub achieved_load: Option<f64>,
    /// Flow slots created: the most connections open at once.
    pub slots: u32,
    /// Per size bucket, in increasing size.
    pub buckets: Vec<BucketSummary>,
}

/// FCT and slowdown statistics of the flows of one size bucket; null statistics when it
/// holds no finished flow.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BucketSummary {
    /// "(0,10KB]", "(10KB,100KB]", "(100KB,1MB]", ">1MB" (KB = 1000 bytes).
    pub bucket: String,
    /// Sizes in (min_bytes, max_bytes]; max null for the last bucket.
    pub min_bytes: u64,
    pub max_bytes: Option<u64>,
    pub count: u64,
    pub fct_mean_s: Option<f64>,
    pub fct_median_s: Option<f64>,
    pub fct_p99_s: Option<f64>,
    pub slowdown_mean: Option<f64>,
    pub slowdown_median: Option<f64>,
    pub slowdown_p99: Option<f64>,
}

/// A byte bound in the buckets' names: 10 000 → "10KB", 1 000 000 → "1MB".
fn bound_name(bytes: u64) -> String {
    if bytes >= 1_000_000 && bytes.is_multiple_of(1_000_000) {
        format!("{}MB", bytes / 1_000_000)
    } else if bytes >= 1000 && bytes.is_multiple_of(1000) {
        format!("{}KB", bytes / 1000)
    } else {
        format!("{bytes}B")
    }
}

/// The name and bounds of bucket `i`.
pub fn bucket_bounds(i: usize) -> (String, u64, Option<u64>) {
    let min = if i == 0 { 0 } else { BUCKET_UPPER_BYTES[i - 1] };
    match BUCKET_UPPER_BYTES.get(i) {
        Some(&max) => (
            format!(
                "({},{}]",
                if i == 0 { "0".into() } else { bound_name(min) },
                bound_name(max)
            ),
            min,
            Some(max),
        ),
        None => (format!(">{}", bound_name(min)), min, None),
    }
}

fn bucket_summary(i: usize, stats: &BucketStats) -> BucketSummary {
    let (bucket, min_bytes, max_bytes) = bucket_bounds(i);
    let seconds = |ns: Option<f64>| ns.map(|ns| ns / 1e9);
    let slowdown = |x: Option<f64>| x.map(|x| x / SLOWDOWN_SCALE);
    BucketSummary {
        bucket,
        min_bytes,
        max_bytes,
        count: stats.fct.count(),
        fct_mean_s: seconds(stats.fct.mean()),
        fct_median_s: seconds(stats.fct.quantile(0.5)),
        fct_p99_s: seconds(stats.fct.quantile(0.99)),
        slowdown_mean: slowdown(stats.slowdown.mean()),
        slowdown_median: slowdown(stats.slowdown.quantile(0.5)),
        slowdown_p99: slowdown(stats.slowdown.quantile(0.99)),
    }
}

/// `bits` over `seconds` at `rate_bps`; null over an empty span.
fn load(bytes: u64, rate_bps: u64, seconds: f64) -> Option<f64> {
    (seconds > 0.0 && rate_bps > 0).then(|| bytes as f64 * 8.0 / (rate_bps as f64 * seconds))
}

pub fn workload_summary(scenario: &Scenario, w: &WorkloadResult) -> WorkloadSummary {
    let group = &scenario.flows[w.group as usize];
    let config = group
        .kind
        .workload()
        .expect("a workload result comes from a workload flow table");
    let arrival_s = w.arrivals_until.saturating_since(w.start).as_secs_f64();
    WorkloadSummary {
        group: w.group,
        cc: w.cc.to_string(),
        sizes: config.sizes.name().to_string(),
        mean_size_bytes: config.sizes.mean_bytes(),
        load: config.load,
        load_link: w.load_link.clone(),
        load_rate_bps: w.load_rate_bps,
        arrivals: w.arrivals,
        finished: w.finished,
        unfinished: w.unfinished,
        offered_bytes: w.offered_bytes,
        delivered_bytes: w.delivered_bytes,
        offered_load: load(w.offered_bytes, w.load_rate_bps, arrival_s),
        achieved_load: load(w.delivered_bytes, w.load_rate_bps, arrival_s),
        slots: w.slots,
        buckets: w
            .buckets
            .iter()
            .enumerate()
            .map(|(i, b)| bucket_summary(i, b))
            .collect(),
    }
}

/// The lines of the printed run summary for workload `w`: its counts and loads, then per
/// non-empty bucket the median and p99 slowdown.
pub fn write_workload_lines(out: &mut String, w: &WorkloadSummary) {
    use std::fmt::Write;
    let load = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
    let _ = writeln!(
        out,
        "workload (flows.{}, {}): {} arrivals, {} finished, {} unfinished; load offered {}, achieved {} of {}; {} slots",
        w.group,
        w.cc,
        w.arrivals,
        w.finished,
        w.unfinished,
        load(w.offered_load),
        load(w.achieved_load),
        w.load_link,
        w.slots
    );
    for b in w.buckets.iter().filter(|b| b.count > 0) {
        let _ = writeln!(
            out,
            "  {:<14} {:>7} flows, slowdown median {:>8.2} p99 {:>8.2}, FCT median {:.4} s",
            b.bucket,
            b.count,
            b.slowdown_median.unwrap_or(f64::NAN),
            b.slowdown_p99.unwrap_or(f64::NAN),
            b.fct_median_s.unwrap_or(f64::NAN),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_named_by_their_bounds() {
        assert_eq!(bucket_bounds(0), ("(0,10KB]".into(), 0, Some(10_000)));
        assert_eq!(
            bucket_bounds(1),
            ("(10KB,100KB]".into(), 10_000, Some(100_000))
        );
        assert_eq!(
            bucket_bounds(2),
            ("(100KB,1MB]".into(), 100_000, Some(1_000_000))
        );
        assert_eq!(bucket_bounds(3), (">1MB".into(), 1_000_000, None));
    }

    #[test]
    fn bucket_statistics_come_from_the_histograms() {
        // FCTs 10, 20, …, 1000 ms (100 flows) and slowdowns 1.01 … 2.00: mean FCT 505 ms;
        // the median is the 50th value (500 ms), the p99 the 99th (990 ms), each within the
        // histogram's 0.8 %; mean slowdown 1.505.
        let mut stats = BucketStats::default();
        for k in 1..=100u64 {
            stats.fct.record(k * 10_000_000);
            stats.slowdown.record(1000 + 10 * k);
        }
        let b = bucket_summary(1, &stats);
        assert_eq!(b.count, 100);
        assert!((b.fct_mean_s.unwrap() - 0.505).abs() < 1e-12);
        assert!((b.fct_median_s.unwrap() / 0.5 - 1.0).abs() < 0.008);
        assert!((b.fct_p99_s.unwrap() / 0.99 - 1.0).abs() < 0.008);
        assert!((b.slowdown_mean.unwrap() - 1.505).abs() < 1e-12);
        assert!((b.slowdown_median.unwrap() / 1.5 - 1.0).abs() < 0.008);
        let empty = bucket_summary(3, &BucketStats::default());
        assert_eq!((empty.count, empty.fct_p99_s), (0, None));
    }
}
