//! The run's folder, in `cclab run`'s format (docs/outputs.md): `summary.json`,
//! `timeseries.csv`, `queue.csv`, with the values the kernel (`TCP_INFO`) and the emulated
//! bottleneck give, and an `emulation` object in the summary with the emulator's fidelity.

use std::fmt::Write as _;
use std::path::Path;

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::Scenario;
use serde_json::{Value, json};

use crate::emulation::{EmulationReport, FlowRecord};
use crate::error::EmuError;
use crate::tcp_info::{ReceiverInfo, TCP_CA_LOSS, TCP_INFINITE_SSTHRESH, TcpInfo};

/// Added delay at the 99th percentile above which the emulator did not keep up: the
/// issue's bound (1 ms), a fortieth of a 40 ms RTT.
pub const KEPT_UP_P99_MS: f64 = 1.0;
/// Achieved over scheduled rate below which it did not keep up.
pub const KEPT_UP_RATE_RATIO: f64 = 0.99;

/// The emulator's own fidelity, from what it measured while forwarding.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FidelitySummary {
    pub added_delay_p50_ms: f64,
    pub added_delay_p99_ms: f64,
    pub added_delay_max_ms: f64,
    pub achieved_rate_bps: f64,
    pub scheduled_rate_bps: f64,
    pub kept_up: bool,
    /// The share of packets written more than 1 ms late (`forwarder::LATE_NS`).
    pub late_share: f64,
}

/// A run whose late share is above this may have handed the kernel a burst that a
/// bandwidth estimator takes for more than the link's rate, even when it kept up: in twelve
/// runs of BBR on 50 and 100 Mbit/s paths, those with at most 0.07 % of their packets late
/// had the simulator's queue, those with 0.35 % or more an estimate 2–11 % above the link's
/// rate and up to 3.7 times the queue (docs/emulation.md, "Late share").
pub const LATE_SHARE_WARNING: f64 = 0.001;

/// The `q` quantile (nearest rank) of `values`, in milliseconds.
fn quantile_ms(sorted_ns: &[u64], q: f64) -> f64 {
    if sorted_ns.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted_ns.len() as f64).ceil() as usize).clamp(1, sorted_ns.len());
    sorted_ns[rank - 1] as f64 / 1e6
}

pub fn fidelity(report: &EmulationReport) -> FidelitySummary {
    let mut lateness = report.fidelity.lateness_ns.clone();
    lateness.sort_unstable();
    // Forward direction, first to last packet written: bytes over the actual span, and over
    // the span the link scheduled. Equal when every packet left on time.
    let (achieved, scheduled) = match (report.fidelity.first_write, report.fidelity.last_write) {
        (Some((first_at, first_due)), Some((last_at, last_due))) if last_due > first_due => {
            let bits = report.fidelity.forward_bytes as f64 * 8.0;
            let actual = (last_at - first_at).as_secs_f64().max(f64::MIN_POSITIVE);
            (bits / actual, bits / (last_due - first_due).as_secs_f64())
        }
        _ => (0.0, 0.0),
    };
    let p99 = quantile_ms(&lateness, 0.99);
    FidelitySummary {
        added_delay_p50_ms: quantile_ms(&lateness, 0.5),
        added_delay_p99_ms: p99,
        added_delay_max_ms: lateness.last().map_or(0.0, |&n| n as f64 / 1e6),
        achieved_rate_bps: achieved,
        scheduled_rate_bps: scheduled,
        kept_up: p99 <= KEPT_UP_P99_MS
            && (scheduled == 0.0 || achieved >= KEPT_UP_RATE_RATIO * scheduled),
        late_share: report.fidelity.late.len() as f64 / lateness.len().max(1) as f64,
    }
}

/// Late writes whose due times are closer than this belong to one episode.
const EPISODE_GAP: SimDuration = SimDuration::from_nanos(10_000_000);

/// At most this many episodes are listed in summary.json (all are counted).
const EPISODES_LISTED: usize = 100;

/// A stretch of the run in which the emulator wrote packets more than 1 ms late
/// (`forwarder::LATE_NS`): the hypervisor or the host took the CPU away, and on its return the
/// emulator wrote what it owed at once. Such a burst can give the kernel a delivery-rate
/// sample above the link's rate (docs/validation/linux.md: BBR's standing queues), so the
/// episodes are listed with their times, to be set beside `timeseries.csv`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LateEpisode {
    /// Due time of its first and last late packet.
    pub start: SimTime,
    pub end: SimTime,
    pub packets: u64,
    /// Its largest lateness, ns.
    pub max_ns: u64,
}

/// The late writes (due time, lateness) grouped into episodes, in time order: a write due
/// within `EPISODE_GAP` of the episode's last joins it.
pub fn late_episodes(late: &[(SimTime, u64)]) -> Vec<LateEpisode> {
    let mut late = late.to_vec();
    late.sort_unstable();
    let mut episodes: Vec<LateEpisode> = Vec::new();
    for (due, lateness) in late {
        match episodes.last_mut() {
            Some(e) if due.saturating_since(e.end) <= EPISODE_GAP => {
                e.end = due;
                e.packets += 1;
                e.max_ns = e.max_ns.max(lateness);
            }
            _ => episodes.push(LateEpisode {
                start: due,
                end: due,
                packets: 1,
                max_ns: lateness,
            }),
        }
    }
    episodes
}

/// Bytes of application data acknowledged: `tcpi_bytes_acked` counts the SYN as one.
fn bytes_acked(info: &TcpInfo) -> u64 {
    info.bytes_acked.saturating_sub(1)
}

fn ca_state_name(state: u8) -> &'static str {
    // enum tcp_ca_state (include/net/tcp.h).
    match state {
        0 => "open",
        1 => "disorder",
        2 => "cwr",
        3 => "recovery",
        4 => "loss",
        _ => "unknown",
    }
}

fn flow_summary(flow: &FlowRecord, end: SimTime) -> Value {
    let last = flow.last.unwrap_or_default();
    let acked = bytes_acked(&last);
    let finish = flow.finished.unwrap_or(end);
    let active_s = finish.saturating_since(flow.start).as_secs_f64();
    let rate = |bytes: u64| {
        if active_s > 0.0 {
            bytes as f64 * 8.0 / active_s
        } else {
            0.0
        }
    };
    let rtts: Vec<f64> = flow
        .samples
        .iter()
        .filter(|(_, i)| i.rtt_us > 0)
        .map(|(_, i)| i.rtt_us as f64 / 1e3)
        .collect();
    let mean_rtt = if rtts.is_empty() {
        0.0
    } else {
        rtts.iter().sum::<f64>() / rtts.len() as f64
    };
    // Entries into the Loss state seen at the samples: a lower bound on timeouts (TCP_INFO
    // has no counter of them).
    let timeouts = flow
        .samples
        .windows(2)
        .filter(|w| w[0].1.ca_state != TCP_CA_LOSS && w[1].1.ca_state == TCP_CA_LOSS)
        .count();
    json!({
        "id": flow.id,
        "group": 0,
        "kind": "tcp",
        "cc": flow.cc,
        "kernel_cc": flow.kernel_cc,
        "start_s": flow.start.as_secs_f64(),
        "connected_s": flow.connected.map(SimTime::as_secs_f64),
        "size_bytes": flow.size,
        "bytes_acked": acked,
        "delivered_bytes": acked,
        "goodput_bps": rate(acked),
        "throughput_bps": rate(last.bytes_sent),
        "packets_sent": last.data_segs_out,
        "retransmissions": last.total_retrans,
        "timeouts": timeouts,
        "mean_rtt_ms": mean_rtt,
        "min_rtt_ms": last.min_rtt_us as f64 / 1e3,
        "fct_s": flow.finished.map(|t| t.saturating_since(flow.start).as_secs_f64()),
        "error": flow.error,
    })
}

/// Jain's fairness index (Jain, Chiu, Hawe 1984): (Σx)² / (n Σx²); 1 with no or zero rates.
fn jain(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    let squares: f64 = values.iter().map(|v| v * v).sum();
    if squares == 0.0 {
        1.0
    } else {
        sum * sum / (values.len() as f64 * squares)
    }
}

pub fn summary(scenario: &Scenario, report: &EmulationReport) -> Value {
    let end = SimTime::ZERO + scenario.duration;
    let duration_s = scenario.duration.as_secs_f64();
    let flows: Vec<Value> = report.flows.iter().map(|f| flow_summary(f, end)).collect();
    let goodputs: Vec<f64> = flows
        .iter()
        .map(|f| f["goodput_bps"].as_f64().unwrap_or(0.0))
        .collect();
    let total_acked: u64 = report
        .flows
        .iter()
        .map(|f| f.last.as_ref().map_or(0, bytes_acked))
        .sum();
    let stats = &report.bottleneck;
    let utilization = stats.busy.as_secs_f64().min(duration_s) / duration_s;
    let integrated = stats.integrated_until.as_nanos();
    let mean_queue = if integrated == 0 {
        0.0
    } else {
        stats.queue_integral as f64 / integrated as f64
    };
    let ms = |ns: Option<f64>| ns.unwrap_or(0.0) / 1e6;
    let fidelity = fidelity(report);
    json!({
        "scenario": scenario.name,
        "seed": scenario.seed,
        "duration_s": duration_s,
        "mode": "emulation",
        "flows": flows,
        "links": [{
            "name": "bottleneck",
            "rate_bps": report.bottleneck_rate_bps,
            "utilization": utilization,
            "drops": stats.drops(),
            "overflow_drops": stats.overflow_drops,
            "aqm_drops": stats.aqm_drops,
            "random_losses": stats.random_losses,
            "ce_marks": stats.ce_marks,
            "packets": stats.packets,
            "mean_queue_pkts": mean_queue,
            "max_queue_pkts": stats.max_queue_pkts,
            "queue_delay_ms": {
                "mean": ms(stats.queue_delay.mean()),
                "p99": ms(stats.queue_delay.quantile(0.99)),
            },
        }],
        "aggregate": {
            "jain_index": jain(&goodputs),
            "total_goodput_bps": total_acked as f64 * 8.0 / duration_s,
            "utilization": utilization,
        },
        "run": {
            "events": report.fidelity.lateness_ns.len(),
            "packets": stats.packets,
            "wall_s": report.wall_s,
        },
        "emulation": {
            "added_delay_p50_ms": fidelity.added_delay_p50_ms,
            "added_delay_p99_ms": fidelity.added_delay_p99_ms,
            "added_delay_max_ms": fidelity.added_delay_max_ms,
            "achieved_rate_bps": fidelity.achieved_rate_bps,
            "scheduled_rate_bps": fidelity.scheduled_rate_bps,
            "kept_up": fidelity.kept_up,
            "realtime_priority": report.fidelity.realtime,
            "cpu_steal_fraction": report.fidelity.steal_fraction,
            "load_average": report.fidelity.load_average,
            "ignored_packets": report.fidelity.ignored,
            "write_errors": report.fidelity.write_errors,
            "ingress_drops": report.fidelity.ingress_drops,
            "late_packets": report.fidelity.late.len(),
            "late_share": fidelity.late_share,
            "late_episodes": late_episodes(&report.fidelity.late)
                .iter()
                .take(EPISODES_LISTED)
                .map(|e| json!({
                    "start_s": e.start.as_secs_f64(),
                    "end_s": e.end.as_secs_f64(),
                    "packets": e.packets,
                    "max_ms": e.max_ns as f64 / 1e6,
                }))
                .collect::<Vec<_>>(),
        },
    })
}

/// The contract's columns, then the emulation's own: the kernel's delivery rate, CA state and
/// whether that rate sample was application-limited, and the receiving socket's window at
/// the same tick (empty where the receiver had no sample).
pub const TIMESERIES_HEADER: &str = "time_s,flow,cwnd_bytes,ssthresh_bytes,srtt_ms,inflight_bytes,bytes_acked,delivered_bytes,retransmissions,rtt_ms,pacing_rate_bps,mode,bytes_sent,delivery_rate_bps,ca_state,app_limited,receiver_window_bytes,receiver_rcv_ssthresh_bytes,receiver_rcv_space_bytes,receiver_rcvbuf_bytes,receiver_window_clamp_bytes";

/// The receiver's columns of a row: its sample at `t`, or empty cells.
fn receiver_cells(samples: &[(SimTime, ReceiverInfo)], t: SimTime) -> String {
    match samples.binary_search_by_key(&t, |&(at, _)| at) {
        Ok(i) => {
            let r = &samples[i].1;
            format!(
                "{},{},{},{},{}",
                r.rcv_wnd, r.rcv_ssthresh, r.rcv_space, r.rcvbuf, r.window_clamp
            )
        }
        Err(_) => ",,,,".to_string(),
    }
}

/// One row's sources: the tick, the flow, the sender's sample and the receiver's samples.
type Row<'a> = (SimTime, u32, &'a TcpInfo, &'a [(SimTime, ReceiverInfo)]);

fn timeseries(report: &EmulationReport) -> String {
    let mut rows: Vec<Row> = report
        .flows
        .iter()
        .flat_map(|f| {
            f.samples
                .iter()
                .map(move |(t, i)| (*t, f.id, i, f.receiver_samples.as_slice()))
        })
        .collect();
    rows.sort_by_key(|&(t, id, _, _)| (t, id));
    let mut text = String::from(TIMESERIES_HEADER);
    text.push('\n');
    for (t, id, info, receiver) in rows {
        let mss = info.snd_mss as u64;
        let ssthresh = if info.snd_ssthresh >= TCP_INFINITE_SSTHRESH {
            String::new()
        } else {
            (info.snd_ssthresh as u64 * mss).to_string()
        };
        let srtt = info.rtt_us as f64 / 1e3;
        let acked = bytes_acked(info);
        let _ = writeln!(
            text,
            "{},{id},{},{ssthresh},{srtt},{},{acked},{acked},{},{srtt},{},{},{},{},{},{},{}",
            t.as_secs_f64(),
            info.snd_cwnd as u64 * mss,
            info.in_flight_segments() as u64 * mss,
            info.total_retrans,
            info.pacing_rate * 8,
            // The kernel's congestion-control state stands in for the controller's mode.
            ca_state_name(info.ca_state),
            info.bytes_sent,
            info.delivery_rate * 8,
            info.ca_state,
            u8::from(info.delivery_rate_app_limited),
            receiver_cells(receiver, t),
        );
    }
    text
}

fn queue(report: &EmulationReport) -> String {
    let mut text = String::from("time_s,link,queue_pkts,queue_bytes,drops,tx_bytes\n");
    for s in &report.queue {
        let _ = writeln!(
            text,
            "{},bottleneck,{},{},{},{}",
            s.time.as_secs_f64(),
            s.packets,
            s.bytes,
            s.drops,
            s.tx_bytes
        );
    }
    text
}

/// Write the folder `out` (created if missing).
pub fn write(out: &Path, scenario: &Scenario, report: &EmulationReport) -> Result<(), EmuError> {
    std::fs::create_dir_all(out)
        .map_err(|e| EmuError::io(format!("creating {}", out.display()), e))?;
    let summary = serde_json::to_string_pretty(&summary(scenario, report))
        .map_err(|e| EmuError::io("encoding summary.json", std::io::Error::other(e)))?;
    for (name, text) in [
        ("summary.json", summary + "\n"),
        ("timeseries.csv", timeseries(report)),
        ("queue.csv", queue(report)),
    ] {
        let path = out.join(name);
        std::fs::write(&path, text)
            .map_err(|e| EmuError::io(format!("writing {}", path.display()), e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_quantiles() {
        // Nearest rank: the ⌈q·n⌉-th smallest. n = 100: p50 is the 50th, p99 the 99th.
        let values: Vec<u64> = (1..=100).map(|i| i * 1_000_000).collect();
        assert_eq!(quantile_ms(&values, 0.5), 50.0);
        assert_eq!(quantile_ms(&values, 0.99), 99.0);
        assert_eq!(quantile_ms(&[], 0.99), 0.0);
    }

    #[test]
    fn a_row_takes_the_receivers_sample_of_the_same_tick_or_empty_cells() {
        let at = |ms: u64| SimTime::from_nanos(ms * 1_000_000);
        let info = ReceiverInfo {
            rcv_wnd: 1,
            rcv_ssthresh: 2,
            rcv_space: 3,
            rcvbuf: 4,
            window_clamp: 5,
        };
        let samples = [(at(10), ReceiverInfo::default()), (at(20), info)];
        assert_eq!(receiver_cells(&samples, at(20)), "1,2,3,4,5");
        // The receiver had not accepted the connection yet at 5 ms.
        assert_eq!(receiver_cells(&samples, at(5)), ",,,,");
        // Header and cells agree: 6 columns after ca_state.
        let after = TIMESERIES_HEADER
            .split("ca_state,")
            .nth(1)
            .expect("ca_state");
        assert_eq!(
            after.split(',').count(),
            1 + receiver_cells(&samples, at(20)).split(',').count()
        );
    }

    #[test]
    fn late_writes_group_into_episodes_by_their_due_times() {
        let ms = |n: u64| SimTime::from_nanos(n * 1_000_000);
        // Out of order as the two directions record them; 10 ms apart still joins, 10.5 does
        // not.
        let late = [
            (ms(110), 3_000_000),
            (ms(100), 2_000_000),
            (ms(120), 1_500_000),
            (SimTime::from_nanos(130_500_000), 1_200_000),
        ];
        let episodes = late_episodes(&late);
        assert_eq!(
            episodes,
            vec![
                LateEpisode {
                    start: ms(100),
                    end: ms(120),
                    packets: 3,
                    max_ns: 3_000_000
                },
                LateEpisode {
                    start: SimTime::from_nanos(130_500_000),
                    end: SimTime::from_nanos(130_500_000),
                    packets: 1,
                    max_ns: 1_200_000
                },
            ]
        );
        assert!(late_episodes(&[]).is_empty());
    }

    #[test]
    fn jain_index_of_equal_and_of_one_sided_shares() {
        // Equal shares: 1; one of n flows takes all: 1/n (Jain et al. 1984, §3).
        assert_eq!(jain(&[5.0, 5.0]), 1.0);
        assert_eq!(jain(&[10.0, 0.0, 0.0, 0.0]), 0.25);
    }
}
