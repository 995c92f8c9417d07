//! BBR v1 and v3 on the dumbbell: the queue a lone flow keeps, the ProbeBW gain cycle and
//! ProbeRTT in the simulator's own samples, and the response to random loss.
//!
//! The pacing gain is read off the samples as pacing rate / bottleneck payload rate: on a
//! saturated link the delivery-rate samples, and so BtlBw, are exactly the payload rate
//! (`controller_inputs.rs` checks the samples; the first test here checks BtlBw).

mod common;

use cclab_cc::algorithms::bbr::Bbr;
use cclab_cc::algorithms::bbr3::Bbr3;
use cclab_cc::{AlgorithmInfo, CcConfig, Params, SlowStart};
use cclab_sim::{FlowEventKind, FlowSample};
use common::{Call, Probed, Seen, mean, probe_info, queue_samples, run, run_observed, scenario};

impl Probed for Bbr {
    fn build(config: &CcConfig, params: &Params, _: Box<dyn SlowStart>) -> Self {
        Bbr::new(config, params)
    }
}

impl Probed for Bbr3 {
    fn build(config: &CcConfig, params: &Params, _: Box<dyn SlowStart>) -> Self {
        Bbr3::new(config, params)
    }
}

static BBR: AlgorithmInfo = probe_info::<Bbr>();
static BBR3: AlgorithmInfo = probe_info::<Bbr3>();

const MSS: f64 = 1448.0;
/// 10 Mbit/s of 1500-byte packets carries 10 · 1448/1500 = 9.6533 Mbit/s of payload.
const PAYLOAD_BPS: f64 = 10e6 * 1448.0 / 1500.0;
/// RTprop: 2 · (1 + 18 + 1) ms of propagation, a 1500-byte packet on the bottleneck
/// (1.2 ms) and on both 1 Gbit/s access links (12 µs each), the 52-byte ACK on the reverse
/// bottleneck (41.6 µs) and access links (0.416 µs each): 41.266432 ms.
const RTPROP_MS: f64 = 41.266432;
/// BDP = 9.6533 Mbit/s · 41.27 ms = 49 796 payload bytes = 34.4 packets.
fn bdp_packets() -> f64 {
    PAYLOAD_BPS * RTPROP_MS / 1e3 / 8.0 / MSS
}

fn lone_bbr(quanta: &str) -> (cclab_sim::RunResult, cclab_sim::MemorySink, Vec<f64>) {
    let mut s = scenario(&format!(
        r#"
duration = "32s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "18ms", buffer = "5bdp" }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "bbr"
params = {{ quanta = "{quanta}" }}
[output]
interval = "5ms"
"#
    ));
    s.flows[0].cc = &BBR;
    // BtlBw (bit/s, as the controller reports it) after every ACK once ProbeBW runs.
    run_observed(&s, Vec::new(), |bw: &mut Vec<f64>, seen: &Seen| {
        if let Call::Ack(_) = seen.call
            && seen.mode == "probe_bw"
        {
            bw.push(seen.metrics.bandwidth_bps.expect("BtlBw measured"));
        }
    })
}

fn gain(s: &FlowSample) -> f64 {
    s.pacing_rate_bps.expect("BBR paces") as f64 / PAYLOAD_BPS
}

#[test]
fn lone_bbr_keeps_only_its_offload_budget_queued_at_full_utilization() {
    // A deep buffer (5 BDP = 173 packets) that a loss-based flow would fill. BBR paces at
    // BtlBw and, in the 3/4 phase, drains the queue down to inflight = BDP + quanta
    // (draft-00 BBRInflight(1.0)), so what stays queued in the cruising phases is the
    // quanta term: 3 send quanta, with send_quantum = 2 MSS below 24 Mbit/s of pacing
    // (draft §4.2.2) — 6 packets — or 3 packets with `quanta = "mss"`. The 5/4 phase adds
    // 0.25 BDP (8.6 packets) over one RTprop on top. Tolerance: +1 packet for the in-flight
    // rounding and the delayed-ACK pairs, +2 on the peak for sampling (5 ms) and the phase
    // lasting up to one ACK (2.4 ms) longer than RTprop.
    let bdp = bdp_packets();
    for (quanta, budget) in [("draft", 6.0), ("mss", 3.0)] {
        let (result, sink, btl_bw) = lone_bbr(quanta);
        assert_eq!(result.flows[0].retransmissions, 0, "{quanta}: nothing lost");
        let samples: Vec<FlowSample> = common::flow_samples(&sink, 0, 2.0, 32.0);
        let queue = queue_samples(&sink, 2.0, 32.0);
        assert_eq!(samples.len(), queue.len());

        // BtlBw is the bottleneck's payload rate (delivery-rate samples of a saturated
        // link), within 0.1 %.
        let settled = &btl_bw[btl_bw.len() / 10..];
        assert!(
            settled.iter().all(|b| (b / PAYLOAD_BPS - 1.0).abs() < 1e-3),
            "{quanta}: BtlBw range {:?}",
            settled
                .iter()
                .fold((f64::MAX, 0.0f64), |(lo, hi), &b| (lo.min(b), hi.max(b)))
        );

        let cruising: Vec<u64> = samples
            .iter()
            .zip(&queue)
            .filter(|(s, _)| s.mode == "probe_bw" && (gain(s) - 1.0).abs() < 0.01)
            .map(|(_, &(_, q))| q)
            .collect();
        let cruise_max = *cruising.iter().max().unwrap();
        let peak = queue.iter().map(|&(_, q)| q).max().unwrap();
        let average = mean(queue.iter().map(|&(_, q)| q as f64));
        eprintln!(
            "quanta {quanta}: cruising queue ≤ {cruise_max}, peak {peak}, mean {average:.2} (budget {budget}, BDP {bdp:.1})"
        );
        assert!(
            cruise_max as f64 <= budget + 1.0,
            "{quanta}: cruising queue {cruise_max}"
        );
        assert!(
            peak as f64 <= budget + 0.25 * bdp + 2.0,
            "{quanta}: peak queue {peak}"
        );
        // The mean is the standing budget plus the 5/4 bump (0.25 BDP for about two of the
        // eight RTprops, triangular: ≈ 0.03 BDP ≈ 1 packet).
        assert!(average <= budget + 1.5, "{quanta}: mean queue {average:.2}");

        // Full utilization: the queue never empties in ProbeBW, so only ProbeRTT costs
        // throughput — about 255 ms at 4 packets (≈ 12 % of the BDP) every 10.26 s, i.e.
        // (1 − 0.12) · 0.255/10.26 = 2.2 %.
        let goodput = common::delivered_between(&sink, 0, 2.0, 32.0) as f64 * 8.0 / 30.0;
        let share = goodput / PAYLOAD_BPS;
        assert!(
            (0.97..=1.0).contains(&share),
            "{quanta}: goodput {share:.4} of the payload rate"
        );
    }
}

/// Runs of equal (mode, gain) in the samples: (mode, gain, start s, end s).
fn runs(samples: &[FlowSample]) -> Vec<(&'static str, f64, f64, f64)> {
    let mut out: Vec<(&'static str, f64, f64, f64)> = Vec::new();
    for s in samples {
        let g = (gain(s) * 100.0).round() / 100.0;
        let t = s.time.as_secs_f64();
        match out.last_mut() {
            Some(last) if last.0 == s.mode && last.1 == g => last.3 = t,
            _ => out.push((s.mode, g, t, t)),
        }
    }
    out
}

#[test]
fn bbr_cycles_its_pacing_gain_and_probes_rtt_every_ten_seconds() {
    // draft-00 §4.3.4: ProbeBW cycles the pacing gain through 5/4, 3/4 and six phases of 1,
    // each one RTprop long (it ends at the first ACK more than RTprop after it began: at
    // most one ACK, 2.4 ms here, later); the 3/4 phase may end early once inflight is down to
    // the BDP. §4.3.5: ProbeRTT starts when RTprop has not been refreshed for 10 s; it holds
    // cwnd at 4 packets for 200 ms (and a round) after inflight has drained to 4 packets,
    // and stamps RTprop when it ends, so entries are 10 s + the ProbeRTT time apart.
    // Tolerances: ±5 ms for the sampling interval.
    let (_, sink, _) = lone_bbr("draft");
    let samples = common::flow_samples(&sink, 0, 0.0, 32.0);
    let runs = runs(&samples);
    let rtprop = RTPROP_MS / 1e3;
    let ack = 0.0024;
    let tick = 0.005;
    let (mut up, mut down, mut cruise) = (0, 0, 0);
    let mut previous: Option<f64> = None;
    // Skip the first ProbeBW run (entered from DRAIN at whatever point) and the last one
    // (cut by the end of the run).
    let probe_bw: Vec<_> = runs.iter().filter(|r| r.0 == "probe_bw").collect();
    for (i, &&(_, g, start, end)) in probe_bw.iter().enumerate() {
        let length = end - start + tick;
        let whole = i > 0 && i + 1 < probe_bw.len();
        let after_probe_rtt = runs
            .iter()
            .any(|r| r.0 == "probe_rtt" && (r.3 - start).abs() < 2.0 * tick);
        match g {
            1.25 => {
                up += 1;
                if whole && !after_probe_rtt {
                    assert!(
                        (rtprop - tick..=rtprop + ack + tick).contains(&length),
                        "5/4 phase of {length:.4} s at {start}"
                    );
                }
            }
            0.75 => {
                down += 1;
                assert!(
                    length <= rtprop + ack + tick,
                    "3/4 phase of {length:.4} s at {start}"
                );
                assert_eq!(previous, Some(1.25), "3/4 follows 5/4 at {start}");
            }
            1.0 => {
                cruise += 1;
                // Six phases of 1, unless ProbeRTT interrupts them.
                let interrupted = runs
                    .iter()
                    .any(|r| r.0 == "probe_rtt" && (r.2 - end).abs() < 2.0 * tick);
                if whole && !interrupted {
                    assert!(
                        (6.0 * rtprop - tick..=6.0 * (rtprop + ack) + tick).contains(&length),
                        "gain-1 stretch of {length:.4} s at {start}"
                    );
                    assert_eq!(previous, Some(0.75), "1 follows 3/4 at {start}");
                }
            }
            other => panic!("ProbeBW pacing gain {other} at {start}"),
        }
        previous = Some(g);
    }
    // One cycle ≈ 8 RTprops ≈ 0.34 s: about 87 cycles in the 30 s of ProbeBW.
    eprintln!("ProbeBW phases: {up} × 5/4, {down} × 3/4, {cruise} × 1");
    assert!(up >= 80 && down >= 80 && cruise >= 80);

    // ProbeRTT from the flow's events (mode changes as they happen, not at ticks): the
    // entries and the ends (where RTprop is stamped).
    let modes: Vec<_> = sink
        .events
        .iter()
        .filter(|e| e.kind == FlowEventKind::Mode)
        .collect();
    let entries: Vec<f64> = modes
        .iter()
        .filter(|e| e.to == "probe_rtt")
        .map(|e| e.time.as_secs_f64())
        .collect();
    let ends: Vec<f64> = modes
        .iter()
        .filter(|e| e.from == "probe_rtt")
        .map(|e| e.time.as_secs_f64())
        .collect();
    eprintln!("ProbeRTT entries at {entries:?}, ends at {ends:?}");
    assert_eq!(entries.len(), 3, "32 s: ProbeRTT at about 10, 20 and 30 s");
    assert_eq!(ends.len(), 3);
    // The first comes 10 s after the last RTT sample equal to RTprop, which STARTUP takes
    // before its queue builds (it ends at about 0.5 s); from then on the standing queue
    // keeps every sample above RTprop.
    assert!((10.0..10.6).contains(&entries[0]), "{entries:?}");
    for i in 0..entries.len() {
        // ≥ 200 ms at 4 packets, after draining about BDP + quanta − 4 ≈ 37 packets
        // (44 ms at 1.2 ms each), plus up to one round for the round condition.
        let length = ends[i] - entries[i];
        assert!(
            (0.2..=0.2 + 0.045 + rtprop).contains(&length),
            "ProbeRTT of {length:.4} s"
        );
        if i > 0 {
            // 10 s after the previous ProbeRTT ended, at the first ACK after: one ACK per
            // two segments, which leave at least at ProbeBW's slowest pacing, 3/4 of the
            // bottleneck rate (2 × 1.2 ms / 0.75 = 3.2 ms) when the queue is empty.
            let since_exit = entries[i] - ends[i - 1];
            assert!(
                (10.0..=10.0 + ack / 0.75).contains(&since_exit),
                "{since_exit:.6} s between ProbeRTTs"
            );
        }
    }
    for s in samples.iter().filter(|s| s.mode == "probe_rtt") {
        assert!(
            s.cwnd_bytes <= 4 * 1448,
            "cwnd {} in ProbeRTT",
            s.cwnd_bytes
        );
    }
}

#[test]
fn bbr_keeps_its_goodput_under_one_percent_random_loss_where_cubic_collapses() {
    // 100 Mbit/s, RTT 40.3 ms, 1 % Bernoulli loss. CUBIC's window under random loss is set
    // by its Reno-friendly region: AIMD with α = 3(1 − β)/(1 + β), β = 0.7 (RFC 9438 §4.3),
    // whose mean window sqrt(α(1 + β)/(2(1 − β)p)) = sqrt(3/(2p)) = 12.2 packets is Reno's
    // (Mathis): 12.2 · 1448 · 8 / 40.3 ms = 3.5 Mbit/s, 3.6 % of the link. BBR v1 does not
    // treat loss as a signal: it keeps pacing at BtlBw, losing only the 1 % itself and
    // ProbeRTT's ~2 %: goodput ≈ 0.97 of the payload rate, 96.5 Mbit/s.
    let text = |cc: &str| {
        format!(
            r#"
duration = "10s"
seed = 7
[topology]
bottleneck = {{ rate = "100Mbps", delay = "18ms", buffer = "1bdp", loss = 0.01 }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "{cc}"
[output]
interval = "100ms"
"#
        )
    };
    let payload_bps = 100e6 * 1448.0 / 1500.0;
    let (bbr, bbr_sink) = run(&text("bbr"));
    let bbr_goodput = common::delivered_between(&bbr_sink, 0, 2.0, 10.0) as f64 * 8.0 / 8.0;
    let (cubic, cubic_sink) = run(&text("cubic"));
    let cubic_goodput = common::delivered_between(&cubic_sink, 0, 2.0, 10.0) as f64 * 8.0 / 8.0;
    let rtt = cubic.flows[0].mean_rtt.unwrap().as_secs_f64();
    let predicted = MSS * 8.0 / rtt * (1.5f64 / 0.01).sqrt();
    eprintln!(
        "BBR {:.1} Mbit/s, CUBIC {:.2} Mbit/s (predicted {:.2}); random losses {} / {}",
        bbr_goodput / 1e6,
        cubic_goodput / 1e6,
        predicted / 1e6,
        bbr.links[0].stats.random_losses,
        cubic.links[0].stats.random_losses
    );
    assert!(
        bbr.links[0].stats.random_losses > 700,
        "the loss model is active"
    );
    assert!(bbr_goodput > 0.9 * payload_bps, "BBR {bbr_goodput}");
    assert!(
        (0.7..=1.3).contains(&(cubic_goodput / predicted)),
        "CUBIC {cubic_goodput} vs {predicted}"
    );
    assert!(bbr_goodput > 20.0 * cubic_goodput);
}

/// What a BBRv3 flow did in ProbeBW_UP at random loss rate `loss`: for each UP phase,
/// (start s, end s, inflight_longterm in packets when it ended, infinite if unset); the
/// goodput over [1 s, 10 s] as a share of the payload rate; the BDP in packets.
fn bbr3_probes(loss: f64) -> (Vec<(f64, f64, f64)>, f64, f64) {
    let mut s = scenario(&format!(
        r#"
duration = "10s"
seed = 1
[topology]
bottleneck = {{ rate = "50Mbps", delay = "18ms", buffer = "2bdp", loss = {loss} }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "bbr3"
[output]
interval = "100ms"
"#
    ));
    s.flows[0].cc = &BBR3;
    let (result, sink, probes) = run_observed(
        &s,
        (Vec::new(), None::<f64>),
        |(probes, up_since): &mut (Vec<(f64, f64, f64)>, Option<f64>), seen: &Seen| {
            let Call::Ack(ack) = seen.call else { return };
            let now = ack.now.as_secs_f64();
            match (seen.mode == "probe_bw_up", *up_since) {
                (true, None) => *up_since = Some(now),
                (false, Some(start)) => {
                    // inflight_longterm (inflight_hi), unset until a probe meets loss.
                    let packets = seen
                        .metrics
                        .inflight_hi
                        .map_or(f64::INFINITY, |bytes| bytes as f64 / MSS);
                    probes.push((start, now, packets));
                    *up_since = None;
                }
                _ => {}
            }
        },
    );
    let payload_bps = 50e6 * 1448.0 / 1500.0;
    let goodput = common::delivered_between(&sink, 0, 1.0, 10.0) as f64 * 8.0 / 9.0;
    let bdp = result.flows[0].min_rtt.unwrap().as_secs_f64() * payload_bps / 8.0 / MSS;
    (probes.0, goodput / payload_bps, bdp)
}

#[test]
fn bbr3_caps_inflight_at_random_loss_above_two_percent_and_probes_on_below() {
    // draft-ietf-ccwg-bbr §5.5.10.2: while probing, a round whose loss rate exceeds
    // LossThresh = 2 % sets inflight_longterm = max(RS.tx_in_flight, Beta · min(BDP, cwnd))
    // and ends ProbeBW_UP; later probes stop, as precautionary ones, when inflight reaches
    // it again (IsTimeToGoDown). At 3 % random loss every probe crosses the threshold by
    // chance within a round or two (2.4 losses expected in an 80-packet flight against a
    // limit of 1.6), so every UP phase ends with inflight_longterm set near the inflight of
    // that moment, at most about one BDP (168 packets), far below what the path holds (pipe + a
    // 2-BDP buffer = 3 BDP): the flow gives up most of the link. At 0.5 % a round crosses
    // 2 % only by a binomial tail of about 1.6 % (4 losses where 1 is expected), so a probe
    // runs on until the delivery rate stops growing (full_bw_now, inflight_longterm left
    // unset) or the buffer overflows: no probe is cut near the pipe's size, and the link
    // stays busy except for the short-term model's cuts between probes and ProbeRTT. (Over
    // loss seeds 1–8, 2 of 13 probes at 0.5 % did meet such a chance round; seed 1 has none.)
    let (high, high_share, bdp) = bbr3_probes(0.03);
    eprintln!("3 %: UP phases {high:?}, goodput {high_share:.3} of the link, BDP {bdp:.1}");
    assert!(
        high.len() >= 2,
        "a probe every 2–3 s after the first at ~3 s"
    );
    for &(start, end, longterm) in &high {
        assert!(
            longterm.is_finite() && longterm <= 1.2 * bdp,
            "UP {start:.3}–{end:.3} s ended with inflight_longterm {longterm:.1} packets"
        );
        // The Beta floor: never below 0.7 · min(BDP, cwnd), cwnd ≥ 4 packets.
        assert!(longterm >= 0.7 * 4.0);
    }
    assert!(high_share < 0.6, "3 %: goodput {high_share:.3}");

    let (low, low_share, _) = bbr3_probes(0.005);
    eprintln!("0.5 %: UP phases {low:?}, goodput {low_share:.3} of the link");
    assert!(low.len() >= 2);
    for &(start, end, longterm) in &low {
        assert!(
            longterm > 1.3 * bdp,
            "UP {start:.3}–{end:.3} s cut at inflight_longterm {longterm:.1} packets"
        );
    }
    assert!(low_share > 0.75, "0.5 %: goodput {low_share:.3}");
}
