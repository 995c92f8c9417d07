//! The human summary printed after a run.

use std::fmt::Write;

use crate::summary::Summary;

fn mbps(bps: f64) -> String {
    format!("{:.2}", bps / 1e6)
}

/// Flow rows the table shows; a run of 100 000 flows would otherwise print 100 000 lines.
pub const TABLE_FLOWS: usize = 100;

/// A plain-text table: one row per flow (the first [`TABLE_FLOWS`], then how many more),
/// then the bottleneck and the aggregate.
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
    for f in summary.flows.iter().take(TABLE_FLOWS) {
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
    if let Some(more) = summary
        .flows
        .len()
        .checked_sub(TABLE_FLOWS)
        .filter(|&n| n > 0)
    {
        let _ = writeln!(
            out,
            "... and {more} more flows (every flow is in summary.json)"
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
    for w in &summary.workloads {
        crate::metrics::fct::write_workload_lines(&mut out, w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_tables_stop_after_the_first_flows() {
        let s = cclab_scenario::from_str(
            "t.toml",
            "duration = \"10ms\"\n[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"1ms\" }\n[[flows]]\ncc = \"reno\"\ncount = 103\n",
            &[],
        )
        .unwrap();
        let mut rates = crate::RateSeries::for_scenario(&s);
        let result = cclab_sim::Simulation::new(&s)
            .run(&mut rates, &mut |_| {})
            .unwrap();
        let table = summary_table(&crate::summarize(&s, result, &rates, 0.0));
        // Title and header, flows 0..=99, the note for 103 − 100 = 3, link and total lines.
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 2 + 100 + 1 + 2, "{table}");
        assert!(lines[101].trim_start().starts_with("99 "), "{}", lines[101]);
        assert_eq!(
            lines[102],
            "... and 3 more flows (every flow is in summary.json)"
        );
    }
}
