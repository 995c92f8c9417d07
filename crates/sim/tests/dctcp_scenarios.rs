//! DCTCP (RFC 8257, docs/algorithms/dctcp.md) on the dumbbell, against its source's headline:
//! with step marking at K the queue stays near K while the link stays full (Alizadeh et al.,
//! "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.3), where Reno with RFC 3168 ECN at the same
//! K halves its window and leaves the link idle; and as the scalable controller of L4S, over
//! DualPI2 its queue delay stays near the 1 ms step (RFC 9332 §2.1, Appendix A).
//!
//! Queue lengths are packets waiting (the one in transmission excluded), as the link counts
//! them and as the bottleneck's `ecn_threshold` compares them.

mod common;

use cclab_sim::net::link::LinkStats;
use common::{run_scenario, scenario, steady, time_weighted_quantile};

/// 300 Mbit/s of 1500-byte packets: 25 000 packets/s, 40 µs each.
const PKTS_PER_S: f64 = 300e6 / 8.0 / 1500.0;
/// Base RTT: 2 · (0.25 + 1 + 0.25) ms of propagation plus serialization (40 µs at 300 Mbit/s,
/// 2 × 12 µs at 1 Gbit/s, and the ACK's ~3 µs): 3.066 ms, so C·RTT = 76.7 packets.
const BASE_RTT_S: f64 = 3.066e-3;
/// The marking threshold: above the paper's lower bound C·RTT/7 = 11 packets (§3.4:
/// below it the sawtooth empties the queue and the link idles).
const K: u64 = 20;

fn dumbbell(cc: &str, bottleneck: &str, ecn: &str) -> String {
    format!(
        r#"
name = "dctcp"
duration = "5s"
seed = 1
[topology]
bottleneck = {{ rate = "300Mbps", delay = "1ms", {bottleneck} }}
access = {{ rate = "1Gbps", delay = "250us" }}
[[flows]]
cc = "{cc}"
ecn = {ecn}
delayed_ack = false
[output]
steady_from = "1s"
"#
    )
}

#[test]
fn dctcp_holds_the_queue_near_k_at_full_utilization_where_reno_underuses_the_link() {
    let step = format!("buffer = 200, ecn_threshold = {K}");
    let (dctcp, _) = run_scenario(&scenario(&dumbbell("dctcp", &step, "true")));
    let (reno, _) = run_scenario(&scenario(&dumbbell("reno", &step, "true")));
    let flow = &dctcp.flows[0];
    let base_rtt = flow.min_rtt.expect("RTT samples").as_secs_f64();
    assert!((base_rtt - BASE_RTT_S).abs() < 5e-6, "base RTT {base_rtt}");
    let (stats, utilization) = steady(&dctcp);
    let (reno_stats, reno_utilization) = steady(&reno);
    let quantiles =
        |s: &LinkStats| [0.01, 0.5, 0.99].map(|q| time_weighted_quantile(&s.queue_time_ns, q));
    let [q01, q50, q99] = quantiles(&stats);
    let [reno_q01, reno_q50, reno_q99] = quantiles(&reno_stats);
    eprintln!(
        "DCTCP: queue p1 {q01} p50 {q50} p99 {q99} max {}, utilization {utilization:.4}, \
         marks {}, drops {}, sender ECN reductions {}; Reno+ECN: queue p1 {reno_q01} p50 \
         {reno_q50} p99 {reno_q99}, utilization {reno_utilization:.4}",
        stats.max_queue_pkts,
        stats.ce_marks,
        stats.drops(),
        flow.ecn_reductions,
    );

    // The controller took the marks itself (responds_to_ecn): no RFC 3168 halving by the
    // sender, and marks instead of losses.
    assert!(stats.ce_marks > 1000, "{} marks", stats.ce_marks);
    assert!(flow.ce_bytes > 0);
    assert_eq!(flow.ecn_reductions, 0);
    assert_eq!(stats.drops(), 0);

    // Alizadeh et al. §3.3 (N synchronized flows, window W* = C·RTT + K at the marking
    // point): the queue is a sawtooth between Q_max = K + N and Q_min = Q_max − A with
    // amplitude A = ½·√(2N(C·RTT + K)). Here N = 1, C·RTT = 76.7: A = ½·√(193.4) = 6.95,
    // so the fluid queue swings between 14.05 and 21 packets. The simulated queue is a whole
    // number of packets and, ACK-clocked, dips one below the fluid level between each
    // departure and the arrival it clocks out one round trip later (or rises one above it
    // when an arrival comes first): ⌊Q_min⌋ − 1 = 13 to Q_max + 1 = 22 at the 1st and 99th
    // percentiles, and the median inside [Q_min, Q_max].
    let bdp = PKTS_PER_S * BASE_RTT_S;
    let n = 1.0;
    let q_max = K as f64 + n;
    let amplitude = 0.5 * (2.0 * n * (bdp + K as f64)).sqrt();
    let q_min = q_max - amplitude;
    assert!((amplitude - 6.95).abs() < 0.01, "A = {amplitude}");
    assert!(
        q_min.floor() - 1.0 <= q01 as f64 && q99 as f64 <= q_max + 1.0,
        "queue p1 {q01} .. p99 {q99}, model {q_min:.1} .. {q_max}"
    );
    assert!(
        (q_min..=q_max).contains(&(q50 as f64)),
        "median queue {q50}, model {q_min:.1} .. {q_max}"
    );
    // Q_min > 0: the link never runs dry. Full utilization but for the sawtooth's
    // discreteness: at least 99 %.
    assert!(utilization >= 0.99, "utilization {utilization}");

    // Reno with RFC 3168 at the same K halves W* = 96.7 packets to 48, below C·RTT = 76.7:
    // the queue empties for 76.7 − 48.3 = 28 of the 48 round trips of each sawtooth, sending
    // on average (48.3 + 76.7)/2 / 76.7 = 81 % of the link then, so its utilization is at
    // most (28·0.81 + 20)/48 = 0.89 (the paper's Fig. 1/13 contrast). Any further reduction
    // in an episode only lowers it, so this is an upper bound.
    let reno_one_halving = {
        let (low, w) = ((bdp + K as f64) / 2.0, bdp + K as f64);
        let below = bdp - low;
        let above = w - bdp;
        (below * (low + bdp) / 2.0 / bdp + above) / (below + above)
    };
    assert!((reno_one_halving - 0.89).abs() < 0.01, "{reno_one_halving}");
    assert!(
        reno_utilization <= reno_one_halving + 0.01,
        "Reno+ECN utilization {reno_utilization}, one-halving bound {reno_one_halving:.3}"
    );
    assert_eq!(reno_q01, 0, "Reno's sawtooth empties the queue");
    assert!(utilization > reno_utilization + 0.05);
}

#[test]
fn dctcp_over_dualpi2_keeps_the_l4s_queue_delay_near_the_1ms_step() {
    // RFC 9332 Appendix A: the L4S queue marks every packet whose sojourn reaches 1 ms (the
    // step) and otherwise with k·p′, p′ from the classic queue's PI, which stays near 0 with
    // no classic traffic. A lone DCTCP flow therefore sees a step at K = 1 ms of queue =
    // 25 packets at 300 Mbit/s, and by the same sawtooth (Alizadeh et al. §3.3) its queue
    // swings between K + 1 − ½·√(2(C·RTT + K)) = 26 − 7.1 = 18.9 packets and K + 1 = 26,
    // i.e. 0.76 ms to 1.04 ms of delay.
    let (result, _) = run_scenario(&scenario(&dumbbell(
        "dctcp",
        "buffer = 200, queue = \"dualpi2\"",
        "\"l4s\"",
    )));
    let flow = &result.flows[0];
    let (stats, utilization) = steady(&result);
    let delay_s = stats
        .queue_delay
        .mean()
        .expect("packets crossed the bottleneck")
        / 1e9;
    eprintln!(
        "DCTCP over DualPI2: mean L4S queue delay {:.3} ms, max queue {}, utilization \
         {utilization:.4}, marks {}, drops {}",
        delay_s * 1e3,
        stats.max_queue_pkts,
        stats.ce_marks,
        stats.drops(),
    );
    let bdp = PKTS_PER_S * BASE_RTT_S;
    let k = 1e-3 * PKTS_PER_S;
    let (q_min, q_max) = (k + 1.0 - 0.5 * (2.0 * (bdp + k)).sqrt(), k + 1.0);
    // The sojourn of a packet that finds q waiting is q packet times (40 µs each), plus up
    // to one packet in transmission: the mean lies between Q_min and Q_max + 1 packets.
    let (low, high) = (q_min / PKTS_PER_S, (q_max + 1.0) / PKTS_PER_S);
    assert!(
        (low..=high).contains(&delay_s),
        "mean delay {:.3} ms, model {:.3} .. {:.3} ms",
        delay_s * 1e3,
        low * 1e3,
        high * 1e3
    );
    assert_eq!(stats.drops(), 0);
    assert_eq!(flow.ecn_reductions, 0);
    assert!(utilization >= 0.99, "utilization {utilization}");
}
