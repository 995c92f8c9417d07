//! `summary.json`: the contract's per-flow, per-link, aggregate and run figures, and the
//! metrics added to them. Every formula, unit and window is in `docs/metrics.md`; in short:
//!
//! - a flow's *active time* runs from its start to its completion (finite transfers that
//!   finished) or to the end of the run; whole-run rates divide by it;
//! - the *steady-state window* is `[steady_from, end of run]`; a flow's part of it is
//!   `[max(steady_from, start), completion or end]`; `*_steady*` fields use it;
//! - rates over time come in bins of `rate_interval` ([`crate::rates`]): stability is their
//!   coefficient of variation in the window, convergence time the time to settle within
//!   ±20 % of the flow's fair share.

use std::borrow::Borrow;
use std::collections::BTreeMap;

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::{FlowKind, Scenario};
use cclab_sim::{FlowResult, Histogram, LinkResult, RunResult};
use serde::Serialize;

use crate::metrics::{
    coefficient_of_variation, convergence_time, histogram_quantile_ms, index_a, jain_index,
    max_min_class_shares, moving_average, rate_bps, rates::bins_within, ratio, share_ratio,
    time_weighted_quantile,
};
use crate::rates::RateSeries;

/// A flow is converged while its rate stays within this fraction of its fair share.
pub const CONVERGENCE_TOLERANCE: f64 = 0.2;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    pub window: Window,
    pub flows: Vec<FlowSummary>,
    pub links: Vec<LinkSummary>,
    pub aggregate: Aggregate,
    pub run: RunInfo,
    /// Per short-flow workload (`kind = "workload"`); absent without workloads.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<crate::metrics::fct::WorkloadSummary>,
}

/// The measurement windows of this run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Window {
    /// The steady-state window is `[steady_from_s, until_s]`.
    pub steady_from_s: f64,
    pub until_s: f64,
    /// Width of the rate bins.
    pub rate_interval_s: f64,
    /// Averaging window of the rates convergence time is judged on.
    pub convergence_window_s: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowSummary {
    pub id: u32,
    /// Index of the `[[flows]]` table the flow came from.
    pub group: u32,
    /// `"tcp"` or `"udp"` (`[[flows]] kind`). A UDP flow's `cc` is `"udp"`. Both are static
    /// names (the controller's is the registry's), not a copy per flow.
    pub kind: &'static str,
    pub cc: &'static str,
    pub start_s: f64,
    /// Application bytes of a finite transfer, null for unlimited.
    pub size_bytes: Option<u64>,
    pub bytes_acked: u64,
    pub delivered_bytes: u64,
    pub goodput_bps: f64,
    pub throughput_bps: f64,
    pub packets_sent: u64,
    /// Wire bytes the sender put on its link: data with headers, retransmissions included.
    pub wire_bytes_sent: u64,
    pub retransmissions: u64,
    /// Retransmitted segments / segments sent; null if nothing was sent.
    pub retransmission_ratio: Option<f64>,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// Window reductions undone as spurious (DSACK, timestamps, F-RTO); flows with
    /// `undo = true` only (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undos: Option<u64>,
    /// Payload bytes the receiver reported CE-marked (ECN), and the window reductions they
    /// caused (RFC 3168; 0 for controllers that respond to ECN themselves).
    pub ce_bytes: u64,
    pub ecn_reductions: u64,
    /// Data segments of this flow dropped on any link; ACKs dropped on the reverse path.
    pub drops: u64,
    pub ack_drops: u64,
    /// Wire bytes sent per byte delivered; null if nothing was delivered.
    pub transmission_cost: Option<f64>,
    /// Mean and minimum of the RTT samples; 0 when the flow took none.
    pub mean_rtt_ms: f64,
    pub min_rtt_ms: f64,
    /// Median, 99th percentile and maximum of the RTT samples; null when there were none.
    pub median_rtt_ms: Option<f64>,
    pub p99_rtt_ms: Option<f64>,
    pub max_rtt_ms: Option<f64>,
    /// Flow completion time (start to last byte at the receiver; with `handshake = true`,
    /// first SYN to the acknowledgment of the FIN); null if unfinished.
    pub fct_s: Option<f64>,
    /// `handshake = true` only (absent otherwise): first SYN sent to first SYN-ACK
    /// received; absent too if the connection was never established.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handshake_s: Option<f64>,
    /// With `handshake_s`: SYNs and SYN-ACKs lost (counted apart from `drops` and
    /// `ack_drops`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handshake_drops: Option<u64>,
    /// The flow's part of the steady-state window; null fields when it is empty.
    pub steady_from_s: Option<f64>,
    pub steady_until_s: Option<f64>,
    pub goodput_steady_bps: Option<f64>,
    pub throughput_steady_bps: Option<f64>,
    pub retransmission_ratio_steady: Option<f64>,
    pub mean_rtt_steady_ms: Option<f64>,
    pub p99_rtt_steady_ms: Option<f64>,
    /// Coefficient of variation of the binned throughput in the steady-state window.
    pub stability_cv: Option<f64>,
    /// The fair share convergence is judged against (payload bit/s) and the time taken.
    pub fair_share_bps: f64,
    pub convergence_time_s: Option<f64>,
    /// UDP flows only (absent for TCP flows). Boxed: a TCP flow, the common case, pays 8
    /// bytes for it rather than 48.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub udp: Option<Box<UdpFlowSummary>>,
}

/// What a UDP flow's sink measured. Its RTT fields are 0 (it takes no RTT samples; `kind`
/// says why), its `bytes_acked` is the payload delivered.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct UdpFlowSummary {
    /// Mean and minimum one-way delay (send to arrival) of the delivered packets; null if
    /// none arrived.
    pub mean_one_way_delay_ms: Option<f64>,
    pub min_one_way_delay_ms: Option<f64>,
    /// Packets dropped on the path / packets sent (those still in flight at the end count as
    /// neither); null if none was sent.
    pub loss_rate: Option<f64>,
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
    /// ECN-capable packets marked CE (`ecn_threshold`).
    pub ce_marks: u64,
    pub packets: u64,
    pub mean_queue_pkts: f64,
    /// Time-weighted 99th percentile of the queue length.
    pub p99_queue_pkts: u64,
    pub max_queue_pkts: u64,
    /// Null when the steady-state window is empty.
    pub utilization_steady: Option<f64>,
    pub drops_steady: u64,
    pub mean_queue_steady_pkts: Option<f64>,
    pub p99_queue_steady_pkts: Option<u64>,
    pub max_queue_steady_pkts: Option<u64>,
    /// Dropped early by the queue discipline (RED, CoDel, PIE…), before the buffer was full.
    pub aqm_drops: u64,
    /// Per-packet queueing delay (arrival to start of transmission), whole run and window.
    pub queue_delay_ms: QueueDelay,
    pub queue_delay_steady_ms: QueueDelay,
    /// A Wi-Fi direction's MAC counters over the run; absent on a wired link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wifi: Option<WifiSummary>,
}

/// What a Wi-Fi direction's MAC did over the run (docs/metrics.md, "Wi-Fi links").
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WifiSummary {
    /// Transmissions (aggregates) sent, collided ones included.
    pub transmissions: u64,
    /// Frames in them, retransmissions included.
    pub frames: u64,
    /// frames / transmissions; null without transmissions.
    pub mean_aggregate_frames: Option<f64>,
    /// Frames sent again after a failed attempt (MAC retries).
    pub retries: u64,
    /// Transmissions that collided with the other direction's.
    pub collisions: u64,
    /// Frames lost after exhausting their retries (also counted in `random_losses`).
    pub retry_drops: u64,
}

/// Statistics of the packets' queueing delays, in milliseconds; null without packets.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct QueueDelay {
    pub mean: Option<f64>,
    /// 99th percentile of the packets (not time-weighted), to the histogram's 0.8 %.
    pub p99: Option<f64>,
}

impl QueueDelay {
    fn of(delays: &Histogram) -> Self {
        QueueDelay {
            mean: delays.mean().map(|ns| ns / 1e6),
            p99: histogram_quantile_ms(delays, 0.99),
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Aggregate {
    pub jain_index: f64,
    pub total_goodput_bps: f64,
    pub utilization: f64,
    pub jain_index_steady: f64,
    /// Null when the steady-state window is empty.
    pub total_goodput_steady_bps: Option<f64>,
    pub utilization_steady: Option<f64>,
    /// Index A = (x1 − x2)/(x1 + x2) of the first two flow tables' mean steady goodput (or
    /// of flows 0 and 1 with one table); its ratio form x1/x2 and share x1/(x1 + x2).
    pub index_a: Option<f64>,
    pub share_ratio: Option<f64>,
    pub share_first: Option<f64>,
    /// All flows: retransmitted / sent segments; wire bytes sent / bytes delivered.
    pub retransmission_ratio: Option<f64>,
    pub transmission_cost: Option<f64>,
    pub drops: u64,
    pub timeouts: u64,
    /// Mean of the flows' stability_cv; the largest convergence time (null if any flow did
    /// not converge).
    pub stability_cv: Option<f64>,
    pub convergence_time_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunInfo {
    pub events: u64,
    /// Packets sent over the first reported link (the dumbbell's bottleneck).
    pub packets: u64,
    /// Wall-clock seconds of the simulation (the only field that differs between two runs
    /// of the same scenario and seed).
    pub wall_s: f64,
}

fn seconds(from: SimTime, until: SimTime) -> f64 {
    until.saturating_since(from).as_secs_f64()
}

/// `[from, until]` if it is not empty.
fn span(from: SimTime, until: SimTime) -> Option<(SimTime, SimTime)> {
    (until > from).then_some((from, until))
}

/// For every flow (in the order given): when the set of active flows next changes after it
/// starts (another flow starts or completes, or this one completes), and how many flows are
/// active until then (at least 1).
///
/// For a flow starting at `s`, with `c` a flow's completion time (none if unfinished):
/// - active = #{j : start_j ≤ s and (c_j none or c_j > s)}
///   = #{j : start_j ≤ s} − #{j : max(start_j, c_j) ≤ s}, two binary searches in sorted lists;
/// - horizon = min(own completion or end, end, the first start after s, the first completion
///   after s of a flow started by s). The last term comes from a sweep over the flows in
///   order of start that keeps the started flows' completion times in an ordered set.
///
/// O(n log n), where comparing every pair (as this was first written) took minutes for
/// 100 000 flows.
fn convergence_horizons<F: Borrow<FlowResult>>(flows: &[F], end: SimTime) -> Vec<(SimTime, usize)> {
    let flows: Vec<&FlowResult> = flows.iter().map(Borrow::borrow).collect();
    let mut starts: Vec<SimTime> = flows.iter().map(|f| f.start).collect();
    starts.sort_unstable();
    let mut finished_by: Vec<SimTime> = flows
        .iter()
        .filter_map(|f| f.completed_at.map(|c| c.max(f.start)))
        .collect();
    finished_by.sort_unstable();
    let mut order: Vec<usize> = (0..flows.len()).collect();
    order.sort_by_key(|&i| flows[i].start);

    let mut out = vec![(end, 1); flows.len()];
    // Completion times of the flows started so far, with the flow index to keep duplicates.
    let mut completions = std::collections::BTreeSet::new();
    let mut added = 0;
    for &i in &order {
        let s = flows[i].start;
        while let Some(&j) = order.get(added) {
            if flows[j].start > s {
                break;
            }
            if let Some(c) = flows[j].completed_at {
                completions.insert((c, j));
            }
            added += 1;
        }
        let mut horizon = flows[i].completed_at.unwrap_or(end).min(end);
        let started = starts.partition_point(|&t| t <= s);
        if let Some(&next_start) = starts.get(started) {
            horizon = horizon.min(next_start);
        }
        // The smallest completion strictly after s (`(s, usize::MAX)` sorts after every (s, j)).
        if let Some(&(c, _)) = completions.range((s, usize::MAX)..).next() {
            horizon = horizon.min(c);
        }
        let finished = finished_by.partition_point(|&t| t <= s);
        out[i] = (horizon, (started - finished).max(1));
    }
    out
}

/// Every flow's fair share (payload bit/s) and until when it holds: its max-min fair share
/// (Bertsekas & Gallager §6.5.2) among the flows active when it starts, over the reported
/// links their data crosses (`RunResult::data_routes`), in wire bit/s, times its payload
/// fraction mss / (mss + headers). It holds until the set of active flows changes (the
/// horizon of [`convergence_horizons`]). docs/metrics.md gives the definition.
///
/// When every flow crosses one reported link (a dumbbell, in either direction), max-min
/// fairness is the equal split of each link, rate × payload fraction / flows active on it;
/// that closed form is used as written (the same arithmetic as before topologies, so old
/// results stay bit for bit), and only the flows on the same link make its horizon.
///
/// UDP flows are not competitors: each takes its mean offered rate (wire bit/s) off every
/// link it crosses from its start on, and TCP flows share what is left, so a TCP flow next
/// to a CBR source of rate R on a link of rate C has (C − R)/n. A UDP flow's own "share" is
/// its offered payload rate.
fn fair_shares(scenario: &Scenario, result: &RunResult) -> Vec<(f64, SimTime)> {
    let end = SimTime::ZERO + result.duration;
    let flows = &result.flows;
    let payload_share = |f: &FlowResult| {
        let group = &scenario.flows[f.group as usize];
        group.mss as f64 / (group.mss + group.header_bytes) as f64
    };
    // A UDP flow's mean offered wire rate; `None` for TCP flows.
    let udp_rate = |f: &FlowResult| match &scenario.flows[f.group as usize].kind {
        FlowKind::Udp(config) if f.udp.is_some() => Some(config.mean_rate_bps()),
        _ => None,
    };
    let routes = &result.data_routes;
    let mut out = vec![(0.0, end); flows.len()];
    if (0..flows.len()).all(|i| routes.of(i).len() == 1) {
        let mut on_link: Vec<Vec<usize>> = vec![Vec::new(); result.links.len()];
        for i in 0..flows.len() {
            on_link[routes.of(i)[0] as usize].push(i);
        }
        for (link, members) in on_link.iter().enumerate() {
            let subset: Vec<&FlowResult> = members.iter().map(|&i| &flows[i]).collect();
            let rate_bps = result.links[link].rate_bps;
            let udp: Vec<(SimTime, f64)> = subset
                .iter()
                .filter_map(|f| udp_rate(f).map(|r| (f.start, r)))
                .collect();
            for (&i, (horizon, active)) in members.iter().zip(convergence_horizons(&subset, end)) {
                let f = &flows[i];
                if let Some(rate) = udp_rate(f) {
                    out[i] = (rate * payload_share(f), horizon);
                    continue;
                }
                // The UDP sources running by this flow's start: they count among the
                // active flows (they never finish) but take their rate, not a share.
                let (running, load) = udp
                    .iter()
                    .filter(|(start, _)| *start <= f.start)
                    .fold((0, 0.0), |(n, load), (_, rate)| (n + 1, load + rate));
                let capacity = (rate_bps as f64 - load).max(0.0);
                out[i] = (
                    capacity * payload_share(f) / (active - running).max(1) as f64,
                    horizon,
                );
            }
        }
        return out;
    }
    let capacities: Vec<f64> = result.links.iter().map(|l| l.rate_bps as f64).collect();
    let horizons = convergence_horizons(flows, end);
    // Flows with the same route form a class: the problem is solved per class, once per
    // distinct start time, with the counts of active flows kept by a sweep over the starts
    // and completions in time order (100 000 staggered flows stay cheap).
    let mut classes: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
    let class_of: Vec<usize> = (0..flows.len())
        .map(|i| {
            let mut route: Vec<usize> = routes.of(i).iter().map(|&l| l as usize).collect();
            route.sort_unstable();
            route.dedup();
            let next = classes.len();
            *classes.entry(route).or_insert(next)
        })
        .collect();
    let mut class_routes = vec![Vec::new(); classes.len()];
    for (route, c) in classes {
        class_routes[c] = route;
    }
    let mut by_start: Vec<usize> = (0..flows.len()).collect();
    by_start.sort_by_key(|&i| flows[i].start);
    // A flow stops counting once it has completed (at its start at the earliest).
    let mut finishes: Vec<(SimTime, usize)> = flows
        .iter()
        .enumerate()
        .filter_map(|(j, f)| f.completed_at.map(|c| (c.max(f.start), j)))
        .collect();
    finishes.sort_unstable();
    let mut counts = vec![0u64; class_routes.len()];
    // Per link: the mean rate of the UDP flows started so far, and the capacity they leave.
    let mut udp_load = vec![0.0; capacities.len()];
    let mut available = capacities.clone();
    let (mut started, mut finished) = (0, 0);
    let mut k = 0;
    while k < by_start.len() {
        let s = flows[by_start[k]].start;
        while started < by_start.len() && flows[by_start[started]].start <= s {
            let j = by_start[started];
            match udp_rate(&flows[j]) {
                Some(rate) => {
                    for &l in &class_routes[class_of[j]] {
                        udp_load[l] += rate;
                        available[l] = (capacities[l] - udp_load[l]).max(0.0);
                    }
                }
                None => counts[class_of[j]] += 1,
            }
            started += 1;
        }
        while finished < finishes.len() && finishes[finished].0 <= s {
            counts[class_of[finishes[finished].1]] -= 1;
            finished += 1;
        }
        let shares = max_min_class_shares(&available, &class_routes, &counts);
        while k < by_start.len() && flows[by_start[k]].start == s {
            let i = by_start[k];
            if let Some(rate) = udp_rate(&flows[i]) {
                out[i] = (rate * payload_share(&flows[i]), horizons[i].0);
                k += 1;
                continue;
            }
            // A flow that crosses no reported link (or was done at its start) meets no
            // constraint here; 0 stands for "no fair share" rather than an infinity JSON
            // cannot carry.
            let share = shares[class_of[i]];
            let share = if share.is_finite() { share } else { 0.0 };
            out[i] = (share * payload_share(&flows[i]), horizons[i].0);
            k += 1;
        }
    }
    out
}

fn flow_summary(
    scenario: &Scenario,
    result: &RunResult,
    rates: &RateSeries,
    f: &FlowResult,
    (fair_share_bps, horizon): (f64, SimTime),
) -> FlowSummary {
    let end = SimTime::ZERO + result.duration;
    let finish = f.completed_at.unwrap_or(end);
    let active_s = seconds(f.start, finish);

    let steady = span(result.window_start.max(f.start), finish.min(end));
    let window = f.window();
    let steady_rate = |bytes: u64| steady.map(|(a, b)| rate_bps(bytes, seconds(a, b)));
    let throughput_bins = rates
        .flows
        .get(f.id as usize)
        .map(|r| r.throughput_bins(rates.width));
    let flow_rates = throughput_bins.as_deref();
    let stability_cv = steady.zip(flow_rates).and_then(|((a, b), r)| {
        let values: Vec<f64> = bins_within(r, a, b).map(|b| b.rate_bps).collect();
        coefficient_of_variation(&values)
    });

    // Judged on trailing averages over the convergence window, so that one recovery episode
    // does not count as leaving the fair share.
    let k = (scenario.output.convergence_window.as_nanos() / rates.width.as_nanos()).max(1);
    let convergence_time_s = flow_rates.and_then(|r| {
        let averaged = moving_average(r, k as usize);
        convergence_time(
            &averaged,
            f.start,
            horizon,
            fair_share_bps,
            CONVERGENCE_TOLERANCE,
        )
        .map(SimDuration::as_secs_f64)
    });

    FlowSummary {
        id: f.id,
        group: f.group,
        kind: if f.udp.is_some() { "udp" } else { "tcp" },
        cc: f.cc,
        start_s: f.start.as_secs_f64(),
        size_bytes: f.size,
        bytes_acked: f.bytes_acked,
        delivered_bytes: f.delivered_bytes,
        goodput_bps: rate_bps(f.delivered_bytes, active_s),
        throughput_bps: rate_bps(f.payload_bytes_sent, active_s),
        packets_sent: f.packets_sent,
        wire_bytes_sent: f.wire_bytes_sent,
        retransmissions: f.retransmissions,
        retransmission_ratio: ratio(f.retransmissions as f64, f.packets_sent as f64),
        timeouts: f.timeouts,
        fast_recoveries: f.fast_recoveries,
        undos: f.undos,
        ce_bytes: f.ce_bytes,
        ecn_reductions: f.ecn_reductions,
        drops: f.drops,
        ack_drops: f.ack_drops,
        transmission_cost: ratio(f.wire_bytes_sent as f64, f.delivered_bytes as f64),
        mean_rtt_ms: f.mean_rtt.map_or(0.0, |d| d.as_millis_f64()),
        min_rtt_ms: f.min_rtt.map_or(0.0, |d| d.as_millis_f64()),
        median_rtt_ms: histogram_quantile_ms(&f.rtt, 0.5),
        p99_rtt_ms: histogram_quantile_ms(&f.rtt, 0.99),
        max_rtt_ms: f.rtt.max().map(|ns| ns as f64 / 1e6),
        fct_s: f
            .completed_at
            .map(|t| t.saturating_since(f.start).as_secs_f64()),
        handshake_s: f.handshake_time().map(|d| d.as_secs_f64()),
        handshake_drops: f
            .handshake_time()
            .map(|_| f.syn_drops() + f.syn_ack_drops()),
        steady_from_s: steady.map(|(a, _)| a.as_secs_f64()),
        steady_until_s: steady.map(|(_, b)| b.as_secs_f64()),
        goodput_steady_bps: steady_rate(window.delivered_bytes),
        throughput_steady_bps: steady_rate(window.payload_bytes_sent),
        retransmission_ratio_steady: steady.and(ratio(
            window.retransmissions as f64,
            window.packets_sent as f64,
        )),
        mean_rtt_steady_ms: steady.and(window.rtt.mean().map(|ns| ns / 1e6)),
        p99_rtt_steady_ms: steady.and(histogram_quantile_ms(&window.rtt, 0.99)),
        stability_cv,
        fair_share_bps,
        convergence_time_s,
        udp: f.udp.as_ref().map(|u| {
            Box::new(UdpFlowSummary {
                mean_one_way_delay_ms: u.mean_one_way_delay.map(|d| d.as_millis_f64()),
                min_one_way_delay_ms: u.min_one_way_delay.map(|d| d.as_millis_f64()),
                loss_rate: ratio(f.drops as f64, f.packets_sent as f64),
            })
        }),
    }
}

/// Results given back at a time while they are summarized: 2 048 results of 512 bytes, 1 MiB.
const RESULTS_GIVEN_BACK_AT_ONCE: usize = 2048;

/// Every flow's summary, in the order of `results` (`shares` gives each flow's fair share and
/// until when it holds, [`fair_shares`]). They are made from the last flow to the first: each
/// result is dropped once summarized, and the results' vector is shrunk whenever another
/// [`RESULTS_GIVEN_BACK_AT_ONCE`] of its slots are free, so that the results and the summaries
/// together never take much more than the larger of the two (a large vector is a mapping of
/// its own, whose tail a shrink unmaps). Summarizing a flow reads nothing of the others.
fn flow_summaries(
    scenario: &Scenario,
    result: &RunResult,
    mut results: Vec<FlowResult>,
    rates: &RateSeries,
    shares: &[(f64, SimTime)],
) -> Vec<FlowSummary> {
    // Reserved whole, but a large reservation is a mapping whose pages become resident only
    // as the summaries are written.
    let mut summaries = Vec::with_capacity(results.len());
    while let Some(f) = results.pop() {
        let index = results.len();
        summaries.push(flow_summary(scenario, result, rates, &f, shares[index]));
        if results.capacity() - results.len() >= RESULTS_GIVEN_BACK_AT_ONCE {
            results.shrink_to_fit();
        }
    }
    summaries.reverse();
    summaries
}

fn link_summary(result: &RunResult, l: &LinkResult) -> LinkSummary {
    let end_ns = result.duration.as_nanos();
    let window_ns = end_ns - result.window_start.as_nanos();
    let steady = l.stats.since(&l.at_window_start);
    let in_window = |value: f64| (window_ns > 0).then_some(value);
    LinkSummary {
        name: l.name.clone(),
        rate_bps: l.rate_bps,
        utilization: l.busy.as_secs_f64() / result.duration.as_secs_f64(),
        drops: l.stats.drops(),
        overflow_drops: l.stats.overflow_drops,
        random_losses: l.stats.random_losses,
        forced_drops: l.stats.forced_drops,
        ce_marks: l.stats.ce_marks,
        packets: l.stats.packets,
        mean_queue_pkts: l.stats.queue_integral as f64 / end_ns as f64,
        p99_queue_pkts: time_weighted_quantile(&l.stats.queue_time_ns, 0.99).unwrap_or(0),
        max_queue_pkts: l.stats.max_queue_pkts,
        utilization_steady: in_window(
            (l.busy - l.busy_at_window_start).as_nanos() as f64 / window_ns as f64,
        ),
        drops_steady: steady.drops(),
        mean_queue_steady_pkts: in_window(steady.queue_integral as f64 / window_ns as f64),
        p99_queue_steady_pkts: time_weighted_quantile(&steady.queue_time_ns, 0.99),
        max_queue_steady_pkts: (window_ns > 0).then_some(steady.max_queue_pkts),
        aqm_drops: l.stats.aqm_drops,
        queue_delay_ms: QueueDelay::of(&l.stats.queue_delay),
        queue_delay_steady_ms: QueueDelay::of(&steady.queue_delay),
        wifi: l.wifi.then(|| {
            let c = &l.stats.wifi;
            WifiSummary {
                transmissions: c.transmissions,
                frames: c.frames,
                mean_aggregate_frames: (c.transmissions > 0)
                    .then(|| c.frames as f64 / c.transmissions as f64),
                retries: c.retries,
                collisions: c.collisions,
                retry_drops: c.retry_drops,
            }
        }),
    }
}

/// The two rates index A compares: the mean steady goodput of the first and second flow
/// tables, or of flows 0 and 1 when there is one table.
fn index_a_rates(scenario: &Scenario, flows: &[FlowSummary]) -> Option<(f64, f64)> {
    let mean_of = |pick: &dyn Fn(&FlowSummary) -> bool| {
        let values: Vec<f64> = flows
            .iter()
            .filter(|f| pick(f))
            .filter_map(|f| f.goodput_steady_bps)
            .collect();
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    if scenario.flows.len() >= 2 {
        Some((mean_of(&|f| f.group == 0)?, mean_of(&|f| f.group == 1)?))
    } else {
        Some((mean_of(&|f| f.id == 0)?, mean_of(&|f| f.id == 1)?))
    }
}

fn aggregate(
    scenario: &Scenario,
    result: &RunResult,
    flows: &[FlowSummary],
    links: &[LinkSummary],
    window_delivered: u64,
) -> Aggregate {
    let duration_s = result.duration.as_secs_f64();
    let window_s = seconds(result.window_start, SimTime::ZERO + result.duration);
    // Fairness, stability and convergence are about the responsive flows competing: an
    // unresponsive UDP source is not a TCP competitor (its rate is set, not shared), so it
    // counts only through the capacity it leaves (`fair_shares`).
    let tcp = || flows.iter().filter(|f| f.udp.is_none());
    let goodputs: Vec<f64> = tcp().map(|f| f.goodput_bps).collect();
    let steady_goodputs: Vec<f64> = tcp().filter_map(|f| f.goodput_steady_bps).collect();
    // The flows' totals, copied unchanged from their results into their summaries.
    let sum = |pick: fn(&FlowSummary) -> u64| flows.iter().map(pick).sum::<u64>();
    let rates = index_a_rates(scenario, flows);
    // Utilization of the network: the mean over the reported links that carry some flow's
    // data (the dumbbell's bottleneck alone unless flows run in both directions).
    let mut carries_data = vec![false; links.len()];
    for &l in &result.data_routes.hops {
        carries_data[l as usize] = true;
    }
    let data_links: Vec<&LinkSummary> = links
        .iter()
        .zip(&carries_data)
        .filter_map(|(l, &carries)| carries.then_some(l))
        .collect();
    let mean = |values: Vec<f64>| {
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let utilization = mean(data_links.iter().map(|l| l.utilization).collect()).unwrap_or(0.0);
    let utilization_steady = data_links
        .iter()
        .map(|l| l.utilization_steady)
        .collect::<Option<Vec<f64>>>()
        .and_then(mean);
    let cvs: Vec<f64> = tcp().filter_map(|f| f.stability_cv).collect();
    Aggregate {
        jain_index: jain_index(&goodputs),
        total_goodput_bps: rate_bps(sum(|f| f.delivered_bytes), duration_s),
        utilization,
        jain_index_steady: jain_index(&steady_goodputs),
        total_goodput_steady_bps: (window_s > 0.0).then(|| rate_bps(window_delivered, window_s)),
        utilization_steady,
        index_a: rates.and_then(|(x1, x2)| index_a(x1, x2)),
        share_ratio: rates.and_then(|(x1, x2)| share_ratio(x1, x2)),
        share_first: rates.and_then(|(x1, x2)| ratio(x1, x1 + x2)),
        retransmission_ratio: ratio(
            sum(|f| f.retransmissions) as f64,
            sum(|f| f.packets_sent) as f64,
        ),
        transmission_cost: ratio(
            sum(|f| f.wire_bytes_sent) as f64,
            sum(|f| f.delivered_bytes) as f64,
        ),
        drops: sum(|f| f.drops),
        timeouts: sum(|f| f.timeouts),
        stability_cv: (!cvs.is_empty()).then(|| cvs.iter().sum::<f64>() / cvs.len() as f64),
        convergence_time_s: tcp()
            .map(|f| f.convergence_time_s)
            .collect::<Option<Vec<f64>>>()
            .and_then(|times| times.into_iter().reduce(f64::max)),
    }
}

/// The summary of a run. It takes the run's result: each flow's result is dropped once its
/// summary is made ([`flow_summaries`]), so that a run of many flows does not hold every
/// result beside every summary (at 100 000 flows, 51 MB of results and 54 MB of summaries
/// side by side made the process's peak; docs/performance.md, "Memory per idle flow").
pub fn summarize(
    scenario: &Scenario,
    mut result: RunResult,
    rates: &RateSeries,
    wall_s: f64,
) -> Summary {
    let shares = fair_shares(scenario, &result);
    // Bytes delivered within the steady-state window (what the aggregate's steady goodput
    // counts), read before the results go.
    let window_delivered: u64 = result
        .flows
        .iter()
        .map(|f| f.delivered_bytes - f.at_window_start.delivered_bytes)
        .sum();
    let results = std::mem::take(&mut result.flows);
    let flows = flow_summaries(scenario, &result, results, rates, &shares);
    drop(shares);
    let links: Vec<LinkSummary> = result
        .links
        .iter()
        .map(|l| link_summary(&result, l))
        .collect();
    let aggregate = aggregate(scenario, &result, &flows, &links, window_delivered);
    Summary {
        scenario: scenario.name.clone(),
        seed: scenario.seed,
        duration_s: result.duration.as_secs_f64(),
        window: Window {
            steady_from_s: result.window_start.as_secs_f64(),
            until_s: result.duration.as_secs_f64(),
            rate_interval_s: rates.width.as_secs_f64(),
            convergence_window_s: scenario.output.convergence_window.as_secs_f64(),
        },
        run: RunInfo {
            events: result.events,
            // Packets sent over every reported link: the dumbbell's bottleneck alone (as
            // before), every hop of a parking lot, both directions of each graph link.
            packets: links.iter().map(|l| l.packets).sum(),
            wall_s,
        },
        flows,
        links,
        aggregate,
        workloads: result
            .workloads
            .iter()
            .map(|w| crate::metrics::fct::workload_summary(scenario, w))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cclab_sim::net::link::LinkStats;
    use cclab_sim::{DataRoutes, FlowCounters, Histogram};

    fn at(seconds: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs_f64(seconds)
    }

    /// 10 s at 10 Mbit/s, steady window from 2 s, two flow tables.
    fn scenario(flows: &str) -> Scenario {
        let text = format!(
            r#"
duration = "10s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms" }}
{flows}
[output]
steady_from = "2s"
rate_interval = "1s"
"#
        );
        cclab_scenario::from_str("t.toml", &text, &[]).unwrap()
    }

    fn flow(id: u32, group: u32, start: f64, delivered: u64, at_2s: u64) -> FlowResult {
        let mut rtt = Histogram::default();
        for ms in 1..=100 {
            rtt.record(ms * 1_000_000);
        }
        FlowResult {
            id,
            group,
            cc: "reno",
            start: at(start),
            size: None,
            bytes_acked: delivered,
            delivered_bytes: delivered,
            payload_bytes_sent: delivered,
            wire_bytes_sent: delivered + delivered / 10,
            packets_sent: delivered / 1000,
            retransmissions: 0,
            timeouts: 0,
            fast_recoveries: 0,
            undos: None,
            ce_bytes: 0,
            ecn_reductions: 0,
            mean_rtt: Some(SimDuration::from_micros(50_500)),
            min_rtt: Some(SimDuration::from_millis(1)),
            completed_at: None,
            handshake: None,
            drops: 0,
            ack_drops: 0,
            rtt,
            at_window_start: FlowCounters {
                delivered_bytes: at_2s,
                payload_bytes_sent: at_2s,
                ..FlowCounters::default()
            }
            .into(),
            udp: None,
        }
    }

    fn result(flows: Vec<FlowResult>) -> RunResult {
        let mut stats = LinkStats {
            queue_time_ns: vec![9_000_000_000, 0, 1_000_000_000],
            queue_integral: 2_000_000_000,
            ..LinkStats::default()
        };
        stats.max_queue_pkts = 2;
        // 50 packets found the link idle before the window, 50 waited 10 ms in it.
        let mut before_window = Histogram::default();
        for _ in 0..50 {
            before_window.record(0);
        }
        stats.queue_delay = before_window.clone();
        for _ in 0..50 {
            stats.queue_delay.record(10_000_000);
        }
        // Every flow crosses the one link, as on a dumbbell.
        let mut data_routes = DataRoutes::default();
        for _ in &flows {
            data_routes.push([0]);
        }
        RunResult {
            duration: SimDuration::from_secs(10),
            window_start: at(2.0),
            events: 0,
            flows,
            data_routes,
            workloads: Vec::new(),
            links: vec![LinkResult {
                name: "bottleneck".into(),
                rate_bps: 10_000_000,
                busy: SimDuration::from_secs(9),
                stats,
                at_window_start: LinkStats {
                    queue_time_ns: vec![2_000_000_000],
                    queue_delay: before_window,
                    ..LinkStats::default()
                },
                busy_at_window_start: SimDuration::from_secs(1),
                wifi: false,
            }],
        }
    }

    fn no_rates(scenario: &Scenario) -> RateSeries {
        RateSeries::for_scenario(scenario)
    }

    #[test]
    fn one_flow() {
        let s = scenario("[[flows]]\ncc = \"reno\"\n");
        // 10 MB in 10 s = 8 Mbit/s; 8 MB in the 8 s window = 8 Mbit/s.
        let r = result(vec![flow(0, 0, 0.0, 10_000_000, 2_000_000)]);
        let sum = summarize(&s, r, &no_rates(&s), 0.0);
        let f = &sum.flows[0];
        assert_eq!(f.goodput_bps, 8e6);
        assert_eq!(f.goodput_steady_bps, Some(8e6));
        assert_eq!(f.transmission_cost, Some(1.1));
        assert!((f.p99_rtt_ms.unwrap() / 99.0 - 1.0).abs() < 0.008);
        assert_eq!(f.max_rtt_ms, Some(100.0));
        assert_eq!(f.fct_s, None);
        // One flow: nothing to compare.
        assert_eq!(sum.aggregate.jain_index, 1.0);
        assert_eq!(sum.aggregate.index_a, None);
        // No rate bins: no stability, no convergence.
        assert_eq!(f.stability_cv, None);
        assert_eq!(f.convergence_time_s, None);
        // Link: busy 9 of 10 s, 8 of the window's 8 s; queue 2 packets 10 % of the time.
        let l = &sum.links[0];
        assert_eq!((l.utilization, l.utilization_steady), (0.9, Some(1.0)));
        assert_eq!(
            (l.mean_queue_pkts, l.p99_queue_pkts, l.max_queue_pkts),
            (0.2, 2, 2)
        );
        assert_eq!(l.mean_queue_steady_pkts, Some(0.25));
        // Queue delays: half 0, half 10 ms: mean 5 ms; the 99th of 100 packets is a 10 ms
        // one. In the window only the 10 ms ones.
        let delay = |mean: f64, p99: f64| QueueDelay {
            mean: Some(mean),
            p99: Some(p99),
        };
        assert_eq!(l.queue_delay_ms, delay(5.0, 10.0));
        assert_eq!(l.queue_delay_steady_ms, delay(10.0, 10.0));
    }

    #[test]
    fn zero_goodput_and_unfinished_flows() {
        let s = scenario("[[flows]]\ncc = \"reno\"\n[[flows]]\ncc = \"reno\"\nstart = \"5s\"\n");
        let r = result(vec![
            flow(0, 0, 0.0, 10_000_000, 2_000_000),
            flow(1, 1, 5.0, 0, 0),
        ]);
        let sum = summarize(&s, r, &no_rates(&s), 0.0);
        let late = &sum.flows[1];
        assert_eq!(late.goodput_bps, 0.0);
        assert_eq!(late.steady_from_s, Some(5.0));
        assert_eq!(late.goodput_steady_bps, Some(0.0));
        assert_eq!(late.transmission_cost, None);
        assert_eq!(late.retransmission_ratio, None);
        assert_eq!(late.fct_s, None);
        // Flow 0 against a starved flow 1: A = (x − 0)/(x + 0) = 1, ratio undefined.
        assert_eq!(sum.aggregate.index_a, Some(1.0));
        assert_eq!(sum.aggregate.share_ratio, None);
        assert_eq!(sum.aggregate.share_first, Some(1.0));
        assert_eq!(sum.aggregate.jain_index_steady, 0.5);
        // Fair share: 10 Mbit/s of which 1448/1500 is payload, over the active flows.
        assert!((late.fair_share_bps - 10e6 * 1448.0 / 1500.0 / 2.0).abs() < 1e-6);
        assert!((sum.flows[0].fair_share_bps - 10e6 * 1448.0 / 1500.0).abs() < 1e-6);
    }

    #[test]
    fn finished_flow_windows_end_at_completion() {
        let s = scenario("[[flows]]\ncc = \"reno\"\nsize = \"5MB\"\n");
        let mut f = flow(0, 0, 0.0, 5_000_000, 2_000_000);
        f.size = Some(5_000_000);
        f.completed_at = Some(at(4.0));
        let sum = summarize(&s, result(vec![f]), &no_rates(&s), 0.0);
        let f = &sum.flows[0];
        assert_eq!(f.fct_s, Some(4.0));
        // 5 MB in 4 s = 10 Mbit/s; 3 MB in [2 s, 4 s] = 12 Mbit/s.
        assert_eq!(f.goodput_bps, 10e6);
        assert_eq!(f.steady_until_s, Some(4.0));
        assert_eq!(f.goodput_steady_bps, Some(12e6));
    }

    #[test]
    fn convergence_band_is_twenty_percent_of_the_fair_share() {
        // One flow alone on 10 Mbit/s: fair share = 10 Mbit/s × 1448/1500 (payload of a
        // 1500-byte packet) = 9.6533 Mbit/s. Bins of 1 s (rate_interval) averaged over the
        // default 1 s convergence window, i.e. judged bin by bin.
        let s = scenario("[[flows]]\ncc = \"reno\"\n");
        let fair = 10e6 * 1448.0 / 1500.0;
        let r = result(vec![flow(0, 0, 0.0, 10_000_000, 2_000_000)]);
        let with_rates = |multiples: &[f64]| {
            let mut rates = RateSeries::new(SimDuration::from_secs(1), &[SimTime::ZERO]);
            rates.flows[0].throughput_bps = multiples.iter().map(|m| m * fair).collect();
            rates.flows[0].goodput_bps = rates.flows[0].throughput_bps.clone();
            summarize(&s, r.clone(), &rates, 0.0).flows[0].convergence_time_s
        };
        // +25 % of the fair share throughout is outside ±20 %: never converged.
        assert_eq!(with_rates(&[1.25; 10]), None);
        // −25 % likewise.
        assert_eq!(with_rates(&[0.75; 10]), None);
        // +15 % is inside from the first bin: converged at once.
        assert_eq!(with_rates(&[1.15; 10]), Some(0.0));
        // A ramp through +25 % that settles at −15 % from 3 s: converged after 3 s.
        assert_eq!(
            with_rates(&[0.5, 1.25, 1.25, 0.85, 0.85, 0.85, 0.85, 0.85, 0.85, 0.85]),
            Some(3.0)
        );
    }

    #[test]
    fn fair_shares_are_max_min_over_the_links_each_flow_crosses() {
        // Two links in a chain, 10 and 4 Mbit/s; flow 0 crosses both, flow 1 the first,
        // flow 2 the second. Progressive filling by hand: the 4 Mbit/s link saturates first
        // at 2 Mbit/s each for flows 0 and 2; flow 1 then takes the rest of the first link,
        // 10 − 2 = 8 Mbit/s. Payload shares: × 1448 / 1500.
        let s = scenario("[[flows]]\ncc = \"reno\"\ncount = 3\n");
        let mut r = result(vec![
            flow(0, 0, 0.0, 1, 0),
            flow(1, 0, 0.0, 1, 0),
            flow(2, 0, 0.0, 1, 0),
        ]);
        let mut second = r.links[0].clone();
        second.name = "hop2".into();
        second.rate_bps = 4_000_000;
        r.links.push(second);
        r.data_routes = DataRoutes::default();
        r.data_routes.push([0, 1]);
        r.data_routes.push([0]);
        r.data_routes.push([1]);
        let shares: Vec<f64> = fair_shares(&s, &r).into_iter().map(|(x, _)| x).collect();
        let payload = 1448.0 / 1500.0;
        let expected = [2e6 * payload, 8e6 * payload, 2e6 * payload];
        for (share, want) in shares.iter().zip(expected) {
            assert!((share - want).abs() < 1e-6, "{shares:?} vs {expected:?}");
        }
    }

    #[test]
    fn fair_shares_follow_the_flows_active_at_each_start() {
        // Links of 10 and 4 Mbit/s. Flow 0 crosses both from 0 s; flow 1 the first from 0 s
        // until it completes at 3 s; flow 2 the second from 5 s. By hand, at 0 s: the 4 Mbit/s
        // link (flow 0 alone) saturates first at 4, then flow 1 gets 10 − 4 = 6. At 5 s
        // (flows 0 and 2): the second link splits 4 into 2 and 2. × 1448 / 1500 each.
        let s = scenario("[[flows]]\ncc = \"reno\"\ncount = 3\n");
        let mut r = result(vec![
            flow(0, 0, 0.0, 1, 0),
            flow(1, 0, 0.0, 1, 0),
            flow(2, 0, 5.0, 1, 0),
        ]);
        r.flows[1].completed_at = Some(at(3.0));
        let mut second = r.links[0].clone();
        second.rate_bps = 4_000_000;
        r.links.push(second);
        r.data_routes = DataRoutes::default();
        r.data_routes.push([0, 1]);
        r.data_routes.push([0]);
        r.data_routes.push([1]);
        let shares = fair_shares(&s, &r);
        let payload = 1448.0 / 1500.0;
        for (i, want) in [4e6, 6e6, 2e6].into_iter().enumerate() {
            assert!((shares[i].0 - want * payload).abs() < 1e-6, "{shares:?}");
        }
        // Flow 0's share holds until the set changes: flow 1 completes at 3 s.
        assert_eq!(shares[0].1, at(3.0));
    }

    /// A UDP flow's result as the simulator reports it (only `udp` marks it).
    fn udp_flow(id: u32, group: u32, start: f64, delivered: u64) -> FlowResult {
        FlowResult {
            cc: "udp",
            udp: Some(Box::new(cclab_sim::UdpResult {
                packets_delivered: delivered / 1472,
                mean_one_way_delay: Some(SimDuration::from_millis(20)),
                min_one_way_delay: Some(SimDuration::from_millis(10)),
            })),
            ..flow(id, group, start, delivered, 0)
        }
    }

    #[test]
    fn udp_flows_take_their_rate_off_the_link_and_are_no_tcp_competitors() {
        // 10 Mbit/s dumbbell, two Reno flows from 0 s and a 3 Mbit/s CBR source from 4 s. By
        // hand: each Reno flow's share at its start is 10/2 = 5 Mbit/s, until the UDP source
        // starts at 4 s (the horizon). A third Reno flow starting at 6 s shares what the UDP
        // source leaves, (10 − 3)/3 = 2.333 Mbit/s; wire shares × 1448/1500. The UDP flow's
        // own share is its offered payload rate, 3 × 1472/1500.
        let s = scenario(
            "[[flows]]\ncc = \"reno\"\ncount = 2\n[[flows]]\nkind = \"udp\"\nrate = \"3Mbps\"\n\
             start = \"4s\"\n[[flows]]\ncc = \"reno\"\nstart = \"6s\"\n",
        );
        let r = result(vec![
            flow(0, 0, 0.0, 4_000_000, 0),
            flow(1, 0, 0.0, 4_000_000, 0),
            udp_flow(2, 1, 4.0, 2_000_000),
            flow(3, 2, 6.0, 1_000_000, 0),
        ]);
        let shares = fair_shares(&s, &r);
        let tcp = 1448.0 / 1500.0;
        for (i, want) in [
            (0, 5e6 * tcp),
            (1, 5e6 * tcp),
            (2, 3e6 * 1472.0 / 1500.0),
            (3, 7e6 / 3.0 * tcp),
        ] {
            assert!((shares[i].0 - want).abs() < 1e-6, "flow {i}: {shares:?}");
        }
        assert_eq!(shares[0].1, at(4.0));
        // Jain's index is over the TCP flows' goodput only: 4, 4 and 1 MB over their active
        // times of 10, 10 and 4 s = 3.2, 3.2 and 2 Mbit/s: (8.4)² / (3 · (3.2² · 2 + 2²)) =
        // 70.56 / 73.44. With the UDP flow's 2.667 Mbit/s it would be lower still.
        let summary = summarize(&s, r, &no_rates(&s), 0.0);
        let jain = 8.4f64.powi(2) / (3.0 * (2.0 * 3.2f64.powi(2) + 2.0f64.powi(2)));
        assert!(
            (summary.aggregate.jain_index - jain).abs() < 1e-9,
            "{}",
            summary.aggregate.jain_index
        );
        assert_eq!(summary.flows[2].kind, "udp");
        assert_eq!(summary.flows[0].kind, "tcp");
        let udp = summary.flows[2]
            .udp
            .as_ref()
            .expect("UDP fields on the UDP flow");
        assert_eq!(udp.mean_one_way_delay_ms, Some(20.0));
        assert!(summary.flows[0].udp.is_none());
    }

    #[test]
    fn flows_in_opposite_directions_do_not_share_a_link() {
        // A dumbbell with one flow each way: each direction is its own link, so each flow's
        // fair share is a whole 10 Mbit/s link (× 1448 / 1500), not half of one.
        let s = scenario("[[flows]]\ncc = \"reno\"\ncount = 2\n");
        let mut r = result(vec![flow(0, 0, 0.0, 1, 0), flow(1, 0, 0.0, 1, 0)]);
        let mut reverse = r.links[0].clone();
        reverse.name = "bottleneck-reverse".into();
        r.links.push(reverse);
        r.data_routes = DataRoutes::default();
        r.data_routes.push([0]);
        r.data_routes.push([1]);
        let shares: Vec<f64> = fair_shares(&s, &r).into_iter().map(|(x, _)| x).collect();
        assert_eq!(shares, vec![10e6 * 1448.0 / 1500.0; 2]);
    }

    #[test]
    fn convergence_horizon_is_the_next_change() {
        let flows = vec![
            flow(0, 0, 0.0, 0, 0),
            flow(1, 0, 0.0, 0, 0),
            flow(2, 0, 5.0, 0, 0),
        ];
        let end = at(10.0);
        let h = convergence_horizons(&flows, end);
        assert_eq!(h[0], (at(5.0), 2));
        assert_eq!(h[2], (end, 3));
        let mut finished = flows.clone();
        finished[1].completed_at = Some(at(7.0));
        assert_eq!(convergence_horizons(&finished, end)[2], (at(7.0), 3));
    }

    /// The definition, pair by pair (O(n²)): what `convergence_horizons` must equal.
    fn horizon_by_definition(flows: &[FlowResult], i: usize, end: SimTime) -> (SimTime, usize) {
        let s = flows[i].start;
        let mut horizon = flows[i].completed_at.unwrap_or(end).min(end);
        let mut active = 0;
        for other in flows {
            if other.start > s {
                horizon = horizon.min(other.start);
            } else if other.completed_at.is_none_or(|c| c > s) {
                active += 1;
                if let Some(c) = other.completed_at {
                    horizon = horizon.min(c);
                }
            }
        }
        (horizon, active.max(1))
    }

    #[test]
    fn convergence_horizons_match_the_definition() {
        // Pseudo-random flows with many ties: starts on whole seconds in 0..12 (some after
        // the 10 s end), completions none, at the start itself, or 0..5 s later.
        let mut state: u64 = 12345;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % n
        };
        let end = at(10.0);
        for _ in 0..20 {
            let flows: Vec<FlowResult> = (0..60)
                .map(|id| {
                    let mut f = flow(id, 0, next(12) as f64, 0, 0);
                    f.completed_at = match next(3) {
                        0 => None,
                        _ => Some(f.start + SimDuration::from_secs(next(6))),
                    };
                    f
                })
                .collect();
            let fast = convergence_horizons(&flows, end);
            for (i, &got) in fast.iter().enumerate() {
                assert_eq!(got, horizon_by_definition(&flows, i, end), "flow {i}");
            }
        }
    }

    #[test]
    fn convergence_horizons_of_100_000_flows() {
        // Flow i starts at i ms; odd flows complete 0.5 ms later, before the next start.
        // By hand, for flow i: started by then i + 1, finished ⌊i/2⌋ (the odd j < i), so
        // active = i + 1 − ⌊i/2⌋; the next change is its own completion (odd i) or the next
        // start (even i). Comparing every pair would be 10¹⁰ steps; this is n log n.
        let base = FlowResult {
            rtt: Histogram::default(),
            ..flow(0, 0, 0.0, 0, 0)
        };
        let ms = |x: f64| SimTime::ZERO + SimDuration::from_secs_f64(x / 1000.0);
        let flows: Vec<FlowResult> = (0..100_000u32)
            .map(|i| FlowResult {
                id: i,
                start: ms(i as f64),
                completed_at: (i % 2 == 1).then(|| ms(i as f64 + 0.5)),
                ..base.clone()
            })
            .collect();
        let h = convergence_horizons(&flows, at(200.0));
        for (i, &(horizon, active)) in h.iter().enumerate() {
            let expected = if i % 2 == 1 {
                i as f64 + 0.5
            } else {
                i as f64 + 1.0
            };
            assert_eq!(horizon, ms(expected), "flow {i}");
            assert_eq!(active, i + 1 - i / 2, "flow {i}");
        }
    }

    #[test]
    fn many_flows_are_summarized_in_their_order_while_their_results_go() {
        // More flows than three times the results given back at once, so that the results'
        // vector is shrunk while it is summarized from its end. Flow i delivers (i + 1) kB
        // over the 10 s run, all of it within the 8 s window (nothing by 2 s), alone among
        // n flows on the 10 Mbit/s link.
        let n = 3 * RESULTS_GIVEN_BACK_AT_ONCE + 5;
        let s = scenario(&format!("[[flows]]\ncc = \"reno\"\ncount = {n}\n"));
        let flows = (0..n)
            .map(|i| flow(i as u32, 0, 0.0, (i as u64 + 1) * 1000, 0))
            .collect();
        let sum = summarize(&s, result(flows), &no_rates(&s), 0.0);
        assert_eq!(sum.flows.len(), n);
        let fair = 10e6 * 1448.0 / 1500.0 / n as f64;
        for (i, f) in sum.flows.iter().enumerate() {
            let delivered = (i as u64 + 1) * 1000;
            assert_eq!(f.id, i as u32);
            assert_eq!(f.delivered_bytes, delivered);
            assert_eq!(f.goodput_bps, delivered as f64 * 8.0 / 10.0);
            assert_eq!(f.goodput_steady_bps, Some(delivered as f64 * 8.0 / 8.0));
            assert!((f.fair_share_bps - fair).abs() < 1e-9, "flow {i}");
        }
        // Σ (i + 1) kB = n (n + 1) / 2 kB, over 10 s and over the 8 s window.
        let total = (n * (n + 1) / 2 * 1000) as f64 * 8.0;
        assert_eq!(sum.aggregate.total_goodput_bps, total / 10.0);
        assert_eq!(sum.aggregate.total_goodput_steady_bps, Some(total / 8.0));
    }

    #[test]
    fn empty_steady_window_gives_nulls_not_nans() {
        // steady_from beyond the end (e.g. after `--set duration=...`): an empty window.
        let s = cclab_scenario::from_str(
            "t.toml",
            "duration = \"1s\"\n[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n[[flows]]\ncc = \"reno\"\n[output]\nsteady_from = \"5s\"\n",
            &[],
        )
        .unwrap();
        let mut rates = RateSeries::for_scenario(&s);
        let result = cclab_sim::Simulation::new(&s)
            .run(&mut rates, &mut |_| {})
            .unwrap();
        let sum = summarize(&s, result, &rates, 0.0);
        assert_eq!(sum.window.steady_from_s, 1.0);
        let (f, l, a) = (&sum.flows[0], &sum.links[0], &sum.aggregate);
        assert!(f.goodput_bps > 0.0);
        assert_eq!((f.goodput_steady_bps, f.stability_cv), (None, None));
        assert_eq!(
            (l.utilization_steady, l.mean_queue_steady_pkts),
            (None, None)
        );
        let no_packets = QueueDelay {
            mean: None,
            p99: None,
        };
        assert_eq!(l.queue_delay_steady_ms, no_packets);
        assert!(l.queue_delay_ms.mean.is_some());
        assert_eq!(
            (a.utilization_steady, a.total_goodput_steady_bps),
            (None, None)
        );
        let json = serde_json::to_string(&sum).unwrap();
        assert!(!json.contains("NaN") && !json.contains("inf"));
    }
}
