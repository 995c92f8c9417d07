//! ECN on the dumbbell: BBR v3's own response to CE marks (Linux `tcp_bbr.c` v3, see
//! docs/algorithms/bbr3.md) against the same flow without ECN, and the simulator's RFC 3168
//! response on behalf of a controller that does not respond itself (Reno).
//!
//! The bottleneck marks ECN-capable packets that arrive to find `ecn_threshold` (K) or more
//! packets waiting; queue lengths below are in packets waiting (the one in transmission
//! excluded), as the link counts them.

mod common;

use cclab_cc::algorithms::bbr3::Bbr3;
use cclab_cc::algorithms::reno::Reno;
use cclab_cc::{AlgorithmInfo, CcConfig, Params, SimTime, SlowStart};
use cclab_sim::{FlowEventKind, MemorySink, RunResult};
use common::{
    Call, Probed, Seen, probe_info, run_observed, scenario, steady, time_weighted_quantile,
};

impl Probed for Bbr3 {
    fn build(config: &CcConfig, params: &Params, _: Box<dyn SlowStart>) -> Self {
        Bbr3::new(config, params)
    }
}

impl Probed for Reno {
    fn build(config: &CcConfig, _: &Params, slow_start: Box<dyn SlowStart>) -> Self {
        Reno::new(config, slow_start)
    }
}

static BBR3: AlgorithmInfo = probe_info::<Bbr3>();
static RENO: AlgorithmInfo = probe_info::<Reno>();

const MSS: u64 = 1448;

// ---- BBR v3 --------------------------------------------------------------------------------

/// 300 Mbit/s of 1500-byte packets: 25 000 packets/s, 40 µs each.
const BBR_PKTS_PER_S: f64 = 300e6 / 8.0 / 1500.0;
/// RTprop: 2 · (0.25 + 1 + 0.25) ms of propagation, the data packet serialized at 300 Mbit/s
/// (40 µs) and twice at 1 Gbit/s (12 µs each), the 52-byte ACK at 300 Mbit/s (1.39 µs) and
/// twice at 1 Gbit/s (0.42 µs each): 3.066 ms, below Linux's 5 ms ECN bound.
const BBR_RTPROP_S: f64 = 3.066e-3;
/// The marking threshold and the buffer: 60 packets, less than the 1.25 BDP a probe without
/// ECN may queue, far more than K.
const K: u64 = 10;
const BUFFER: u64 = 60;

struct BbrRun {
    result: RunResult,
    eligible: bool,
    /// ProbeBW_REFILL entries (bandwidth probes started) after the first second.
    probes: u32,
}

fn lone_bbr3(ecn: bool) -> BbrRun {
    let mut s = scenario(&format!(
        r#"
duration = "6s"
[topology]
bottleneck = {{ rate = "300Mbps", delay = "1ms", buffer = {BUFFER}, ecn_threshold = {K} }}
access = {{ rate = "1Gbps", delay = "250us" }}
[[flows]]
cc = "bbr3"
ecn = {ecn}
[output]
steady_from = "1s"
"#
    ));
    s.flows[0].cc = &BBR3;
    // ECN-eligible: the controller reports its CE-share estimate (ecn_alpha) only then.
    let (result, sink, eligible) = run_observed(&s, false, |eligible: &mut bool, seen: &Seen| {
        if let Call::Ack(_) = seen.call {
            *eligible = seen.metrics.ecn_alpha.is_some();
        }
    });
    let probes = sink
        .events
        .iter()
        .filter(|e| {
            e.kind == FlowEventKind::Mode
                && e.to == "probe_bw_refill"
                && e.time >= SimTime::ZERO + cclab_cc::SimDuration::from_secs(1)
        })
        .count() as u32;
    BbrRun {
        result,
        eligible,
        probes,
    }
}

#[test]
fn bbr3_with_ecn_holds_the_queue_near_the_marking_threshold_without_loss() {
    let bdp = BBR_PKTS_PER_S * BBR_RTPROP_S; // 76.7 packets
    let with = lone_bbr3(true);
    let without = lone_bbr3(false);
    let flow = &with.result.flows[0];
    let min_rtt = flow.min_rtt.expect("RTT samples").as_secs_f64();
    assert!((min_rtt - BBR_RTPROP_S).abs() < 5e-6, "min RTT {min_rtt}");
    // Eligible: min_rtt 3.07 ms <= ecn_max_rtt 5 ms.
    assert!(with.eligible);
    // The marks reached the controller, and the sender left the response to it (no
    // RFC 3168 halving: responds_to_ecn).
    let (ecn, ecn_utilization) = steady(&with.result);
    let (plain, plain_utilization) = steady(&without.result);
    assert!(ecn.ce_marks > 1000, "{} marks", ecn.ce_marks);
    assert!(flow.ce_bytes > 0);
    assert_eq!(flow.ecn_reductions, 0);
    assert_eq!(without.result.links[0].stats.ce_marks, 0);
    let q50 = time_weighted_quantile(&ecn.queue_time_ns, 0.5);
    let q50_plain = time_weighted_quantile(&plain.queue_time_ns, 0.5);
    eprintln!(
        "ECN: drops {} (steady {}), max queue {}, median {q50}, p99 {}, utilization \
         {ecn_utilization:.4}, probes {}, mean RTT {:?}",
        with.result.links[0].stats.drops(),
        ecn.drops(),
        ecn.max_queue_pkts,
        time_weighted_quantile(&ecn.queue_time_ns, 0.99),
        with.probes,
        flow.mean_rtt,
    );
    eprintln!(
        "no ECN: drops {} (steady {}), max queue {}, median {q50_plain}, utilization \
         {plain_utilization:.4}, probes {}",
        without.result.links[0].stats.drops(),
        plain.drops(),
        plain.max_queue_pkts,
        without.probes,
    );

    // Without ECN a probe (pacing gain 1.25, cwnd gain 2.25) lasts until three rounds bring
    // no 25 % more bandwidth, queueing 0.25 BDP per round: about 0.75 BDP = 58 packets and
    // up to 1.25 BDP = 96, more than the 60-packet buffer: the probes overflow it.
    assert!(plain.drops() > 0);
    // With ECN the probe stops once more than half a round's data comes back marked: about
    // one round trip for the first mark (queue K) to be echoed and half a round for the
    // marks to exceed half a round's data, so 1.5 round trips at 0.25 BDP each, a third
    // more with the round trip stretched by the queue: K + 0.5 BDP = 48 packets at most,
    // below the buffer. No loss after start-up.
    let bound = K as f64 + 0.5 * bdp;
    assert!(
        (ecn.max_queue_pkts as f64) <= bound,
        "max queue {} above K + BDP/2 = {bound:.1}",
        ecn.max_queue_pkts
    );
    assert_eq!(ecn.drops(), 0);
    assert_eq!(flow.window().drops, 0);
    // Near the threshold: marks above K stop each probe and their absence starts the next
    // (Linux's ECN re-probe), so the queue swings around K: its time-weighted median is
    // within a factor of two of K, where without ECN the queue is empty most of the time.
    assert!(
        (K / 2..=2 * K).contains(&q50),
        "median queue {q50}, K = {K}"
    );
    assert_eq!(q50_plain, 0);
    // The re-probe: without ECN a probe every min(2-3 s, 63 rounds = 0.2 s), at most 25 in
    // the 5 s window; with ECN one round after the marks stop, a cycle of about ten rounds
    // (UP, DOWN, a round without marks, REFILL): several times as many.
    assert!(
        without.probes <= 25,
        "{} probes without ECN",
        without.probes
    );
    assert!(
        with.probes >= 4 * without.probes,
        "{} probes with ECN, {} without",
        with.probes,
        without.probes
    );
    // High utilization: ProbeRTT (0.5 BDP for 200 ms every 5 s) costs 2 %, the DOWN phases
    // a little more.
    assert!(ecn_utilization >= 0.95, "utilization {ecn_utilization}");
}

// ---- Reno under RFC 3168 --------------------------------------------------------------------

/// 20 Mbit/s: a 1500-byte packet every 0.6 ms.
const RENO_PKT_S: f64 = 1500.0 * 8.0 / 20e6;

#[derive(Clone, Copy, Debug)]
struct Reduction {
    now: SimTime,
    flight: u64,
    cwnd_before: u64,
    cwnd: u64,
    ssthresh: u64,
}

fn reno_with_ecn() -> (RunResult, MemorySink, Vec<Reduction>) {
    let mut s = scenario(&format!(
        r#"
duration = "20s"
[topology]
bottleneck = {{ rate = "20Mbps", delay = "10ms", buffer = 100, ecn_threshold = {K} }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
ecn = true
[output]
steady_from = "2s"
"#
    ));
    s.flows[0].cc = &RENO;
    let (result, sink, (reductions, _)) = run_observed(
        &s,
        (Vec::new(), 0u64),
        |(reductions, cwnd_before): &mut (Vec<Reduction>, u64), seen: &Seen| match seen.call {
            Call::Congestion(event) => reductions.push(Reduction {
                now: event.now,
                flight: event.bytes_in_flight,
                cwnd_before: *cwnd_before,
                cwnd: seen.cwnd,
                ssthresh: seen.ssthresh,
            }),
            _ => *cwnd_before = seen.cwnd,
        },
    );
    (result, sink, reductions)
}

#[test]
fn reno_with_ecn_halves_once_per_round_trip_and_keeps_the_queue_at_the_threshold() {
    let (result, sink, reductions) = reno_with_ecn();
    let flow = &result.flows[0];
    let link = &result.links[0];
    let (steady_link, utilization) = steady(&result);
    let base_rtt = flow.min_rtt.expect("RTT samples").as_secs_f64();
    // 2 · (1 + 10 + 1) ms + serialization: 24.65 ms, a BDP of 41.1 packets.
    assert!((base_rtt - 24.65e-3).abs() < 0.01e-3, "base RTT {base_rtt}");
    let bdp = base_rtt / RENO_PKT_S;
    eprintln!(
        "Reno: {} reductions, marks {}, CE bytes {}, max queue {} (steady {}), utilization \
         {utilization:.4}",
        flow.ecn_reductions,
        link.stats.ce_marks,
        flow.ce_bytes,
        link.stats.max_queue_pkts,
        steady_link.max_queue_pkts
    );

    // Marks instead of drops: the buffer (100) is far above K, even slow start's overshoot
    // stays below it; nothing is lost or retransmitted, every reduction is an ECN one.
    assert_eq!(link.stats.drops(), 0);
    assert_eq!(
        (flow.retransmissions, flow.timeouts, flow.fast_recoveries),
        (0, 0, 0)
    );
    assert!(link.stats.ce_marks > 0);
    assert_eq!(flow.ecn_reductions, reductions.len() as u64);
    // Every marked packet was a full segment delivered once; the receiver's count reached
    // the sender except for marked packets still unacknowledged at the end.
    let in_flight_at_end = sink.flows.last().expect("samples").inflight_bytes;
    let unechoed = link.stats.ce_marks * MSS - flow.ce_bytes;
    assert!(flow.ce_bytes <= link.stats.ce_marks * MSS);
    assert!(
        unechoed <= in_flight_at_end,
        "{unechoed} > {in_flight_at_end}"
    );

    // RFC 3168 §6.1.2: each reduction halves as for a loss, ssthresh = max(FlightSize / 2,
    // 2 MSS) of the flight at the mark (RFC 5681 eq. 4), cwnd = ssthresh; the window was
    // full then (the flight is the window, less the at most 2 segments of one delayed ACK).
    for r in &reductions {
        assert_eq!(r.ssthresh, (r.flight / 2).max(2 * MSS), "{r:?}");
        assert_eq!(r.cwnd, r.ssthresh, "{r:?}");
        assert!(
            r.flight <= r.cwnd_before && r.flight + 2 * MSS >= r.cwnd_before,
            "{r:?}"
        );
    }
    // At most once per window of data: a reduction lasts until the data outstanding at
    // the mark is acknowledged, at least one base round trip.
    for pair in reductions.windows(2) {
        let gap = (pair[1].now - pair[0].now).as_secs_f64();
        assert!(gap >= base_rtt, "{:?} {:?}: {gap}", pair[0], pair[1]);
    }
    // The flow's events tell the same story: each reduction starts when the controller is
    // called (the first one also ends slow start, by ECN) and ends before the next starts.
    let kinds: Vec<_> = sink
        .events
        .iter()
        .filter(|e| e.kind != FlowEventKind::Mode)
        .map(|e| (e.kind, e.detail))
        .collect();
    assert_eq!(kinds[0], (FlowEventKind::EcnReductionStart, ""));
    assert_eq!(kinds[1], (FlowEventKind::SlowStartExit, "ecn"));
    let starts: Vec<_> = sink
        .events
        .iter()
        .filter(|e| e.kind == FlowEventKind::EcnReductionStart)
        .collect();
    assert_eq!(starts.len(), reductions.len());
    for (event, r) in starts.iter().zip(&reductions) {
        assert_eq!(
            (event.time, event.ssthresh_bytes),
            (r.now, Some(r.ssthresh))
        );
    }
    for pair in kinds[2..].chunks(2) {
        assert_eq!(pair[0].0, FlowEventKind::EcnReductionEnd);
        if let Some(next) = pair.get(1) {
            assert_eq!(next.0, FlowEventKind::EcnReductionStart);
        }
    }

    // The queue stays at the threshold: once it reaches K the window grows at most one
    // segment in the round trip before the echo halves it, and a delayed ACK releases two
    // segments at once: K + 2 at most.
    assert!(
        steady_link.max_queue_pkts <= K + 2,
        "steady max queue {}",
        steady_link.max_queue_pkts
    );

    // The sawtooth: marks start when the queue reaches K, at W = BDP + K; the echo comes a
    // round trip later, at W_max = BDP + K + 1 = 52 packets, and ssthresh = cwnd = 26. In
    // the round that follows PRR sends 26 packets while the 52 of the old window drain
    // (52 packet times, the queue still full); then the window grows one segment per round
    // trip from 26 back to 52, a round trip lasting the base RTT while W <= BDP and W packet
    // times once a queue forms. Period = 52 * 0.6 ms + sum over W = 26..52 of
    // max(base RTT, W * 0.6 ms) = 0.736 s; delivered per period 26 + sum of W = 1 079
    // packets.
    let w_max = (bdp + K as f64 + 1.0).floor() as u64;
    let w_min = w_max / 2;
    assert_eq!(
        reductions
            .iter()
            .filter(|r| r.now.as_secs_f64() >= 2.0)
            .map(|r| r.ssthresh)
            .max(),
        Some(w_min * MSS),
        "ssthresh after each steady reduction = W_max / 2"
    );
    let period = w_max as f64 * RENO_PKT_S
        + (w_min..=w_max)
            .map(|w| (w as f64 * RENO_PKT_S).max(base_rtt))
            .sum::<f64>();
    let delivered_per_period = w_min as f64 + (w_min..=w_max).map(|w| w as f64).sum::<f64>();
    let steady_reductions = reductions
        .iter()
        .filter(|r| r.now.as_secs_f64() >= 2.0)
        .count() as f64;
    let expected = 18.0 / period;
    eprintln!(
        "period {period:.4} s: {expected:.1} reductions expected, {steady_reductions} seen; \
         utilization {:.4} expected",
        delivered_per_period * RENO_PKT_S / period
    );
    // The 18 s window holds 24.5 periods; where it cuts the first and last ones decides
    // one reduction more or less.
    assert!(
        (steady_reductions - expected).abs() <= 1.0,
        "{steady_reductions} reductions in 18 s, expected {expected:.1}"
    );
    // Utilization: the window is below the BDP for part of each period (0.880).
    let expected_utilization = delivered_per_period * RENO_PKT_S / period;
    assert!(
        (utilization - expected_utilization).abs() <= 0.01,
        "utilization {utilization:.4}, expected {expected_utilization:.4}"
    );
}
