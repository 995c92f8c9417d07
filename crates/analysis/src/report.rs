//! The human summary printed after a run.

use std::fmt::Write;

use crate::summary::Summary;

fn mbps(bps: f64) -> String {
    format!("{:.2}", bps / 1e6)
}

/// A plain-text table: one row per flow, then the bottleneck and the aggregate.
pub fn summary_table(summary: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} (seed {}, {} s simulated)",
        summary.scenario, summary.seed, summary.duration_s
    );
    let _ = writeln!(
        out,
        "{:>4}  {:<12} {:>8} {:>14} {:>9} {:>8} {:>11} {:>10} {:>8}",
        "flow",
        "cc",
        "start_s",
        "goodput_Mbps",
        "retrans",
        "timeouts",
        "mean_rtt_ms",
        "min_rtt_ms",
        "fct_s"
    );
    for f in &summary.flows {
        let _ = writeln!(
            out,
            "{:>4}  {:<12} {:>8.3} {:>14} {:>9} {:>8} {:>11.2} {:>10.2} {:>8}",
            f.id,
            f.cc,
            f.start_s,
            mbps(f.goodput_bps),
            f.retransmissions,
            f.timeouts,
            f.mean_rtt_ms,
            f.min_rtt_ms,
            f.fct_s.map_or("-".to_string(), |t| format!("{t:.3}")),
        );
    }
    for l in &summary.links {
        let _ = writeln!(
            out,
            "{}: {} Mbit/s, utilization {:.4}, drops {}, queue mean {:.1} max {} packets",
            l.name,
            mbps(l.rate_bps as f64),
            l.utilization,
            l.drops,
            l.mean_queue_pkts,
            l.max_queue_pkts
        );
    }
    let _ = writeln!(
        out,
        "total goodput {} Mbit/s, Jain index {:.4}",
        mbps(summary.aggregate.total_goodput_bps),
        summary.aggregate.jain_index
    );
    out
}
