//! Delay-based controllers on the dumbbell: the backlog each one aims for, measured at the
//! bottleneck queue, and Dynamic Vegas against Reno on the seed paper's dumbbell.
//!
//! A lone flow's own estimate of its queued packets, Δ = cwnd·(RTT − BaseRTT)/RTT, is the
//! bottleneck's backlog: with the link saturated, cwnd/RTT is the link rate in packets, so
//! Δ = rate · queueing delay = packets queued (Little's law). The queue samples count the
//! packets *waiting* (not the one being serialized), which is what the queueing delay of an
//! arriving packet counts when the sender's access link is much faster than the bottleneck.

mod common;

use common::{mean, queue_samples, run};

/// A lone flow on 10 Mbit/s, RTT ≈ 25 ms (BDP ≈ 31 packets), a 100-packet buffer.
fn lone_flow(cc: &str, params: &str, start: &str) -> String {
    format!(
        r#"
duration = "20s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 100 }}
access = {{ rate = "100Mbps", delay = "1ms" }}
[[flows]]
cc = "{cc}"
mss = 1000
header_bytes = 40
params = {{ {params} }}
{start}
[output]
interval = "10ms"
"#
    )
}

/// Mean and range of the bottleneck queue over [5 s, 20 s].
fn steady_queue(text: &str) -> (f64, u64, u64) {
    let (result, sink) = run(text);
    assert_eq!(
        result.links[0].stats.drops(),
        0,
        "a delay-based flow alone never overflows 100 packets"
    );
    let q = queue_samples(&sink, 5.0, 20.0);
    let m = mean(q.iter().map(|&(_, n)| n as f64));
    let lo = q.iter().map(|&(_, n)| n).min().unwrap();
    let hi = q.iter().map(|&(_, n)| n).max().unwrap();
    (m, lo, hi)
}

#[test]
fn vegas_holds_its_backlog_between_alpha_and_beta() {
    // JSAC 1995 §3.2: +1 packet per RTT while Δ < α, −1 while Δ > β, hold in between. A
    // window that starts below the band (slow start ended at once by initial_ssthresh = 10
    // packets, far below the BDP) climbs until Δ first reaches α and stops at the α edge; one
    // that starts above it (60 packets = BDP + 30) comes down until Δ ≤ β and stops at the β
    // edge. Tolerances: the decision uses the previous round's RTTs while the spread increase
    // is still landing, so growth overshoots α by up to one packet; delayed ACKs release
    // segments in pairs, whose second waits one serialization at the bottleneck (+0.5 packet
    // on average).
    let (alpha, beta) = (1.0, 3.0);
    let params = "alpha = 1, beta = 3";
    let (below, lo, hi) = steady_queue(&lone_flow("vegas", params, "initial_ssthresh = 10"));
    eprintln!("from below: mean {below:.2}, range {lo}..={hi}");
    assert!(
        (alpha - 0.5..=alpha + 1.0).contains(&below),
        "from below Vegas must stop at α = {alpha}: mean queue {below:.2}"
    );
    assert!(hi as f64 <= beta, "{hi}");
    let (above, lo, hi) = steady_queue(&lone_flow(
        "vegas",
        params,
        "initial_window = 60\ninitial_ssthresh = 60",
    ));
    eprintln!("from above: mean {above:.2}, range {lo}..={hi}");
    assert!(
        (beta - 1.0..=beta + 0.5).contains(&above),
        "from above Vegas must stop at β = {beta}: mean queue {above:.2}"
    );
    assert!(lo as f64 >= alpha, "{lo}");

    // The band moves with the parameters: α = 4, β = 6 from the ordinary start.
    let (m, lo, hi) = steady_queue(&lone_flow("vegas", "alpha = 4, beta = 6", ""));
    eprintln!("α = 4, β = 6: mean {m:.2}, range {lo}..={hi}");
    assert!(
        (3.5..=6.5).contains(&m),
        "mean queue {m:.2} outside [α, β] = [4, 6]"
    );
    assert!(lo >= 3 && hi <= 7, "queue range {lo}..={hi}");
}

#[test]
fn fast_keeps_alpha_packets_queued() {
    // ToN 2006: w ← (1 − γ)w + γ(BaseRTT/RTT · w + α) has its fixed point at
    // w·(1 − BaseRTT/RTT) = α: α of the flow's packets queued. FAST's BaseRTT is the
    // smallest RTT sample; if that sample already included some queueing (the second of a
    // delayed-ACK pair waits one serialization), FAST under-counts its queue by that much:
    // expected backlog = α + (BaseRTT − true base RTT)·rate. True base: 2·(1 + 10 + 1) ms of
    // propagation + 1500-byte data packets on 100 Mbit/s (×2) and 10 Mbit/s + 52-byte ACKs:
    // 24 + 0.24 + 1.2 + 0.00832 + 0.0416 = 25.48992 ms. Tolerance ±1 packet: the sample
    // counts waiting packets, the delay also the residual service of the one in service.
    let base_ms = 25.48992;
    let packet_ms = 1.2;
    for alpha in [5.0, 20.0, 50.0] {
        let text = format!(
            r#"
duration = "15s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 200 }}
access = {{ rate = "100Mbps", delay = "1ms" }}
[[flows]]
cc = "fast"
params = {{ alpha = {alpha} }}
[output]
interval = "10ms"
"#
        );
        let (result, sink) = run(&text);
        assert_eq!(result.links[0].stats.drops(), 0);
        let measured_base_ms = result.flows[0].min_rtt.unwrap().as_millis_f64();
        assert!(measured_base_ms >= base_ms - 1e-6);
        let expected = alpha + (measured_base_ms - base_ms) / packet_ms;
        let q = queue_samples(&sink, 5.0, 15.0);
        let m = mean(q.iter().map(|&(_, n)| n as f64));
        eprintln!(
            "α = {alpha}: BaseRTT {measured_base_ms:.3} ms, expected {expected:.2}, mean queue {m:.2}"
        );
        assert!(
            (m - expected).abs() <= 1.0,
            "α = {alpha}: mean queue {m:.2}, expected {expected:.2}"
        );
        // Steady: no sample strays more than 3 packets from the mean (2 per delayed-ACK pair
        // plus sampling).
        assert!(q.iter().all(|&(_, n)| (n as f64 - m).abs() <= 3.0));
        // And the link stays full: the backlog never drains.
        let utilization = result.links[0].busy.as_secs_f64() / 15.0;
        assert!(utilization > 0.99, "{utilization}");
    }
}

/// The seed paper's dumbbell (seed 003, seed-spec §2.2): 5 Reno + 5 `other` flows (alternate
/// flows), access links 50 Mbit/s / 5 ms, bottleneck `rate` / 5 ms, drop-tail 50 packets,
/// 1000-byte packets, the TCP window limited to 50 packets, one ACK per packet (ns-2
/// TCPSink), ns-2's Reno loss recovery, initial window 2 and ns-2's integer Δ. Flows start
/// `stagger_ms` apart (the seed-spec jitters starts in [0, 0.1] s).
fn seed_dumbbell(other: &str, rate: &str, stagger_ms: u32) -> String {
    let mut text = format!(
        r#"
duration = "20s"
[topology]
bottleneck = {{ rate = "{rate}", delay = "5ms", buffer = 50 }}
access = {{ rate = "50Mbps", delay = "5ms" }}
[output]
interval = "1s"
"#
    );
    for i in 0..10 {
        let (cc, params) = if i % 2 == 0 {
            ("reno", "")
        } else {
            (
                other,
                "params = { alpha = 1, beta = 3, round_delta = true }",
            )
        };
        text += &format!(
            r#"
[[flows]]
cc = "{cc}"
{params}
start = "{}ms"
mss = 1000
header_bytes = 40
delayed_ack = false
receive_window = 50
initial_window = 2
recovery = "reno"
"#,
            i * stagger_ms
        );
    }
    text
}

/// Share of the total goodput taken by the flows that are not Reno.
fn delay_based_share(text: &str) -> f64 {
    let (result, _) = run(text);
    let total: u64 = result.flows.iter().map(|f| f.delivered_bytes).sum();
    let other: u64 = result
        .flows
        .iter()
        .filter(|f| f.cc != "reno")
        .map(|f| f.delivered_bytes)
        .sum();
    assert!(
        result.links[0].busy.as_secs_f64() / 20.0 > 0.98,
        "the link is saturated"
    );
    other as f64 / total as f64
}

#[test]
fn dynamic_vegas_takes_a_clearly_larger_share_from_reno_than_vegas() {
    // Seed 003's headline: against Reno, Vegas "stabilizes in low throughput region" while
    // Dynamic Vegas "competes with TCP Reno in capturing the available bandwidth". Reno keeps
    // the 50-packet drop-tail queue full, so every Vegas-family flow sees Δ ≈ cwnd·q/RTT
    // above β at modest windows; Vegas holds anywhere in [α, β] and grows by one packet per
    // RTT when the queue drains after Reno's losses, while Dynamic Vegas never holds (+1 per
    // RTT in [(α+β)/2, β]) and grows by incr1 = 1, 2, 3, … packets per RTT below α. The paper
    // gives no numbers; "clearly larger" here: at least 6 points of link share more, and at
    // least 20 % more than Vegas, at two start patterns (the ordering, not the exact share,
    // is the claim). 10 Mbit/s is inside the paper's 0.1–50 Mbit/s sweep.
    for stagger_ms in [4, 10] {
        let vegas = delay_based_share(&seed_dumbbell("vegas", "10Mbps", stagger_ms));
        let dynamic = delay_based_share(&seed_dumbbell("dynamic-vegas", "10Mbps", stagger_ms));
        eprintln!(
            "starts {stagger_ms} ms apart: Vegas share {vegas:.3}, Dynamic Vegas share {dynamic:.3}"
        );
        assert!(
            vegas < 0.4,
            "Reno takes the larger part from Vegas ({vegas:.3})"
        );
        assert!(
            dynamic >= vegas + 0.06 && dynamic >= 1.2 * vegas,
            "Dynamic Vegas {dynamic:.3} vs Vegas {vegas:.3}"
        );
    }
}
