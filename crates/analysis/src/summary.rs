//! `summary.json`: the contract's per-flow, per-link, aggregate and run figures.
//!
//! Definitions (README "Metrics" repeats them):
//! - a flow's *active time* runs from its start to its completion (finite transfers that
//!   finished) or to the end of the run;
//! - `goodput_bps` = bytes delivered in order to the receiving application × 8 / active time;
//! - `throughput_bps` = payload bytes sent, retransmissions included, × 8 / active time;
//! - `utilization` = bottleneck transmitter busy time / run duration (headers included);
//! - `mean_queue_pkts` = time average of the packets waiting at the bottleneck (the one in
//!   transmission excluded); `jain_index` over all flows' goodput;
//! - `total_goodput_bps` = all flows' delivered bytes × 8 / run duration.

use cclab_scenario::Scenario;
use cclab_sim::RunResult;
use serde::Serialize;

use crate::metrics::{jain_index, rate_bps};

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    pub flows: Vec<FlowSummary>,
    pub links: Vec<LinkSummary>,
    pub aggregate: Aggregate,
    pub run: RunInfo,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowSummary {
    pub id: u32,
    /// Index of the `[[flows]]` table the flow came from.
    pub group: u32,
    pub cc: String,
    pub start_s: f64,
    /// Application bytes of a finite transfer, null for unlimited.
    pub size_bytes: Option<u64>,
    pub bytes_acked: u64,
    pub delivered_bytes: u64,
    pub goodput_bps: f64,
    pub throughput_bps: f64,
    pub packets_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// Mean and minimum of the RTT samples; 0 when the flow took none.
    pub mean_rtt_ms: f64,
    pub min_rtt_ms: f64,
    /// Flow completion time (start to last byte at the receiver); null if unfinished.
    pub fct_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LinkSummary {
    pub name: String,
    pub rate_bps: u64,
    pub utilization: f64,
    /// All drops: queue overflow + random loss + scenario `drop` entries.
    pub drops: u64,
    pub overflow_drops: u64,
    pub random_losses: u64,
    pub forced_drops: u64,
    pub packets: u64,
    pub mean_queue_pkts: f64,
    pub max_queue_pkts: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Aggregate {
    pub jain_index: f64,
    pub total_goodput_bps: f64,
    pub utilization: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunInfo {
    pub events: u64,
    /// Packets sent over the bottleneck link.
    pub packets: u64,
    /// Wall-clock seconds of the simulation (the only field that differs between two runs
    /// of the same scenario and seed).
    pub wall_s: f64,
}

pub fn summarize(scenario: &Scenario, result: &RunResult, wall_s: f64) -> Summary {
    let duration_s = result.duration.as_secs_f64();
    let end_ns = result.duration.as_nanos();
    let flows: Vec<FlowSummary> = result
        .flows
        .iter()
        .map(|f| {
            let finish_ns = f.completed_at.map_or(end_ns, |t| t.as_nanos());
            let active_s = finish_ns.saturating_sub(f.start.as_nanos()) as f64 * 1e-9;
            FlowSummary {
                id: f.id,
                group: f.group,
                cc: f.cc.to_string(),
                start_s: f.start.as_secs_f64(),
                size_bytes: f.size,
                bytes_acked: f.bytes_acked,
                delivered_bytes: f.delivered_bytes,
                goodput_bps: rate_bps(f.delivered_bytes, active_s),
                throughput_bps: rate_bps(f.payload_bytes_sent, active_s),
                packets_sent: f.packets_sent,
                retransmissions: f.retransmissions,
                timeouts: f.timeouts,
                fast_recoveries: f.fast_recoveries,
                mean_rtt_ms: f.mean_rtt.map_or(0.0, |d| d.as_millis_f64()),
                min_rtt_ms: f.min_rtt.map_or(0.0, |d| d.as_millis_f64()),
                fct_s: f
                    .completed_at
                    .map(|t| t.saturating_since(f.start).as_secs_f64()),
            }
        })
        .collect();
    let links: Vec<LinkSummary> = result
        .links
        .iter()
        .map(|l| LinkSummary {
            name: l.name.clone(),
            rate_bps: l.rate_bps,
            utilization: l.busy.as_secs_f64() / duration_s,
            drops: l.stats.drops(),
            overflow_drops: l.stats.overflow_drops,
            random_losses: l.stats.random_losses,
            forced_drops: l.stats.forced_drops,
            packets: l.stats.packets,
            mean_queue_pkts: l.stats.queue_integral as f64 / end_ns as f64,
            max_queue_pkts: l.stats.max_queue_pkts,
        })
        .collect();
    let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
    let aggregate = Aggregate {
        jain_index: jain_index(&goodputs),
        total_goodput_bps: rate_bps(
            result.flows.iter().map(|f| f.delivered_bytes).sum(),
            duration_s,
        ),
        utilization: links.first().map_or(0.0, |l| l.utilization),
    };
    Summary {
        scenario: scenario.name.clone(),
        seed: scenario.seed,
        duration_s,
        run: RunInfo {
            events: result.events,
            packets: links.first().map_or(0, |l| l.packets),
            wall_s,
        },
        flows,
        links,
        aggregate,
    }
}
