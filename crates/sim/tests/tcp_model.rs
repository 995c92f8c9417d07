//! The TCP model against theory and against its own invariants, on the dumbbell.
//!
//! Every run here also checks, in debug builds, packet conservation, in-order delivery and
//! the scoreboard counters at each sampling tick, and cwnd ≥ 1 MSS after each ACK.

use cclab_sim::{FlowSample, MemorySink, RunResult, Simulation};

fn run(text: &str) -> (RunResult, MemorySink) {
    let scenario = cclab_scenario::from_str("test.toml", text, &[]).expect("valid scenario");
    let mut sink = MemorySink::default();
    let result = Simulation::new(&scenario)
        .run(&mut sink, &mut |_| {})
        .expect("invariants hold");
    (result, sink)
}

fn utilization(result: &RunResult) -> f64 {
    result.links[0].busy.as_secs_f64() / result.duration.as_secs_f64()
}

/// Bytes delivered to flow `flow`'s application between two sample times.
fn delivered_between(samples: &[FlowSample], flow: u32, from_s: f64, to_s: f64) -> u64 {
    let at = |t: f64| {
        samples
            .iter()
            .rfind(|s| s.flow == flow && s.time.as_secs_f64() <= t + 1e-9)
            .map_or(0, |s| s.delivered_bytes)
    };
    at(to_s) - at(from_s)
}

fn jain(shares: &[f64]) -> f64 {
    let sum: f64 = shares.iter().sum();
    sum * sum / (shares.len() as f64 * shares.iter().map(|x| x * x).sum::<f64>())
}

const RENO_10MBPS: &str = r#"
duration = "60s"
[topology]
bottleneck = { rate = "10Mbps", delay = "30ms", buffer = "BUFFER" }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
"#;

#[test]
fn one_bdp_buffer_keeps_reno_at_full_utilization() {
    // 10 Mbit/s, base RTT 2 × (1 + 30 + 1) = 64 ms: BDP = 80 kB ≈ 53 packets. With a 1-BDP
    // buffer the queue never drains after a halving, so the link stays busy (> 0.95).
    let (result, _) = run(&RENO_10MBPS.replace("BUFFER", "1bdp"));
    let full = utilization(&result);
    assert!(full > 0.95, "utilization {full}");
    assert_eq!(result.flows[0].timeouts, 0);

    // With a 0.1-BDP buffer (5 packets) each halving leaves cwnd ≈ (53 + 5)/2 = 29 < 53
    // packets, so the pipe runs dry for part of every cycle: about 3/4 utilization
    // (Appenzeller et al., "Sizing router buffers", 2004).
    let (small, _) = run(&RENO_10MBPS.replace("BUFFER", "0.1bdp"));
    let reduced = utilization(&small);
    eprintln!("utilization: 1 BDP {full:.4}, 0.1 BDP {reduced:.4}");
    assert!(reduced < 0.9, "utilization with 0.1 BDP: {reduced}");
    assert!(
        reduced < full - 0.08,
        "{reduced} is not clearly below {full}"
    );
}

#[test]
fn reno_follows_the_mathis_formula_under_random_loss() {
    // Mathis, Semke, Mahdavi, Ott (1997): goodput = MSS/RTT · C/√p. With delayed ACKs and
    // byte counting (RFC 3465) Reno grows one MSS per RTT, so C = √(3/2) ≈ 1.22. The link
    // (1 Gbit/s) is far faster than the predicted rates, so RTT = the base 64 ms plus
    // serialization.
    for (p, duration) in [
        (0.0001f64, "300s"),
        (0.0004, "200s"),
        (0.001, "200s"),
        (0.003, "200s"),
    ] {
        let text = format!(
            r#"
duration = "{duration}"
seed = 3
[topology]
bottleneck = {{ rate = "1Gbps", delay = "30ms", buffer = "1bdp", loss = {p} }}
access = {{ rate = "10Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
"#
        );
        let (result, _) = run(&text);
        let flow = &result.flows[0];
        let rtt = flow.mean_rtt.expect("RTT samples").as_secs_f64();
        let predicted = 1448.0 * 8.0 / rtt * (1.5f64).sqrt() / p.sqrt();
        let goodput = flow.delivered_bytes as f64 * 8.0 / result.duration.as_secs_f64();
        let ratio = goodput / predicted;
        eprintln!(
            "p = {p}: goodput {goodput:.0} Mathis {predicted:.0} ratio {ratio:.3} timeouts {}",
            flow.timeouts
        );
        assert!(
            (0.7..=1.3).contains(&ratio),
            "p = {p}: goodput {goodput:.0} vs Mathis {predicted:.0} (ratio {ratio:.2})"
        );
    }
}

#[test]
fn identical_newreno_flows_share_fairly() {
    let (_, sink) = run(r#"
duration = "60s"
[topology]
bottleneck = { rate = "20Mbps", delay = "20ms", buffer = "1bdp" }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "newreno"
recovery = "newreno"
count = 4
"#);
    let shares: Vec<f64> = (0..4)
        .map(|f| delivered_between(&sink.flows, f, 30.0, 60.0) as f64)
        .collect();
    let index = jain(&shares);
    assert!(
        index > 0.95,
        "Jain index over the last 30 s: {index} ({shares:?})"
    );
}

/// A flow in congestion avoidance loses one chosen segment: one retransmission, no timeout,
/// and ssthresh = FlightSize/2 (RFC 5681 eq. 4), for every recovery mode.
#[test]
fn a_single_drop_costs_one_retransmission_and_halves_ssthresh() {
    for recovery in ["sack", "newreno", "reno"] {
        let text = format!(
            r#"
duration = "10s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "30ms", buffer = 500 }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
recovery = "{recovery}"
initial_ssthresh = 20
drop = [300]
"#
        );
        let (result, sink) = run(&text);
        let flow = &result.flows[0];
        assert_eq!(flow.retransmissions, 1, "{recovery}");
        assert_eq!(flow.timeouts, 0, "{recovery}");
        assert_eq!(flow.fast_recoveries, 1, "{recovery}");
        assert_eq!(result.links[0].stats.forced_drops, 1);

        let first_reduced = sink
            .flows
            .iter()
            .position(|s| s.ssthresh_bytes != Some(20 * 1448))
            .expect("ssthresh changed");
        let before = sink.flows[first_reduced - 1];
        let after = sink.flows[first_reduced];
        let ssthresh = after.ssthresh_bytes.unwrap();
        // The flow is cwnd-limited, so FlightSize at detection ≈ cwnd one sample earlier
        // (congestion avoidance grows cwnd by at most one MSS in between).
        let half = before.cwnd_bytes / 2;
        assert!(
            ssthresh.abs_diff(half) <= 1448,
            "{recovery}: ssthresh {ssthresh} vs half of cwnd {}",
            before.cwnd_bytes
        );
    }
}

#[test]
fn finite_transfers_arrive_whole_in_order_despite_losses() {
    for recovery in ["sack", "newreno", "reno"] {
        let text = format!(
            r#"
duration = "30s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 10, loss = 0.01 }}
[[flows]]
cc = "reno"
recovery = "{recovery}"
size = "2MB"
count = 2
"#
        );
        let (result, _) = run(&text);
        for flow in &result.flows {
            assert_eq!(flow.delivered_bytes, 2_000_000, "{recovery}");
            assert_eq!(flow.bytes_acked, 2_000_000, "{recovery}");
            assert!(flow.completed_at.is_some(), "{recovery}");
            assert!(
                flow.retransmissions > 0,
                "{recovery}: 1 % loss must cost something"
            );
        }
    }
}

#[test]
fn receive_window_caps_throughput() {
    // rwnd = 10 segments, RTT ≈ 64 ms: at most 10 · 1448 · 8 / 0.064 = 1.81 Mbit/s.
    let (result, _) = run(r#"
duration = "20s"
[topology]
bottleneck = { rate = "100Mbps", delay = "30ms" }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
receive_window = 10
"#);
    let flow = &result.flows[0];
    let goodput = flow.delivered_bytes as f64 * 8.0 / 20.0;
    let limit = 10.0 * 1448.0 * 8.0 / 0.064;
    assert!(goodput <= limit, "{goodput} > {limit}");
    assert!(
        goodput > 0.95 * limit,
        "{goodput} far below the window limit {limit}"
    );
    assert_eq!(flow.retransmissions, 0);
}

#[test]
fn delayed_acks_halve_the_ack_count() {
    let text = |delayed: bool| {
        format!(
            r#"
duration = "5s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 500 }}
[[flows]]
cc = "reno"
size = "1MB"
delayed_ack = {delayed}
"#
        )
    };
    let (every, _) = run(&text(false));
    let (delayed, _) = run(&text(true));
    // ACKs cross the reverse bottleneck; count them through the data each side got.
    let data_packets = every.flows[0].packets_sent;
    assert_eq!(every.flows[0].delivered_bytes, 1_000_000);
    assert_eq!(delayed.flows[0].delivered_bytes, 1_000_000);
    assert_eq!(data_packets, 1_000_000u64.div_ceil(1448));
    // Without delayed ACKs the transfer clocks out faster: every segment releases cwnd.
    assert!(every.flows[0].completed_at < delayed.flows[0].completed_at);
}

#[test]
fn pacing_spreads_slow_start_bursts() {
    let text = |pacing: bool| {
        format!(
            r#"
duration = "3s"
[topology]
bottleneck = {{ rate = "50Mbps", delay = "20ms", buffer = "unlimited" }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
pacing = {pacing}
initial_ssthresh = 100
"#
        )
    };
    let (bursty, _) = run(&text(false));
    let (paced, _) = run(&text(true));
    let bursty_queue = bursty.links[0].stats.max_queue_pkts;
    let paced_queue = paced.links[0].stats.max_queue_pkts;
    assert!(
        paced_queue < bursty_queue,
        "paced max queue {paced_queue} not below unpaced {bursty_queue}"
    );
}

#[test]
fn same_seed_same_run_different_seed_different_losses() {
    let text = |seed: u64| {
        format!(
            r#"
duration = "10s"
seed = {seed}
[topology]
bottleneck = {{ rate = "20Mbps", delay = "10ms", loss = 0.001 }}
[[flows]]
cc = "reno"
count = 2
"#
        )
    };
    let (a, sink_a) = run(&text(1));
    let (b, sink_b) = run(&text(1));
    let (c, _) = run(&text(2));
    assert_eq!(a, b);
    assert_eq!(sink_a.flows, sink_b.flows);
    assert_ne!(a.links[0].stats.random_losses, 0);
    assert_ne!(a.flows, c.flows);
}

#[test]
fn flows_start_when_told() {
    let (result, sink) = run(r#"
duration = "4s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms" }
[[flows]]
cc = "reno"
[[flows]]
cc = "reno"
start = "2s"
"#);
    let first_sample = sink.flows.iter().find(|s| s.flow == 1).unwrap();
    assert!(first_sample.time.as_secs_f64() >= 2.0);
    assert!(
        result.flows[1].delivered_bytes > 0,
        "{:?} {:?}",
        result.flows[1],
        sink.flows
            .iter()
            .filter(|s| s.flow == 1)
            .step_by(20)
            .collect::<Vec<_>>()
    );
    assert_eq!(result.flows[1].start.as_secs_f64(), 2.0);
}

#[test]
fn a_sender_limited_by_its_own_link_keeps_small_queues_and_stops_growing() {
    // The sender's access link (5 Mbit/s) is slower than the bottleneck (10 Mbit/s) and its
    // buffer is unlimited, so nothing is ever dropped and Reno never leaves slow start.
    // Without TCP Small Queues the window would double every RTT and park it all on the
    // host's link. With it (Linux tcp_small_queue_check), at most max(2 packets, 1 ms of
    // pacing rate) waits there, the flow stops being cwnd-limited, and the window stays
    // below twice the largest flight (tcp_is_cwnd_limited in slow start).
    let (result, sink) = run(r#"
duration = "30s"
[topology]
bottleneck = { rate = "10Mbps", delay = "30ms", buffer = "1bdp" }
access = { rate = "5Mbps", delay = "1ms" }
[[flows]]
cc = "reno"
"#);
    let flow = &result.flows[0];
    assert_eq!((flow.drops, flow.retransmissions, flow.timeouts), (0, 0, 0));

    // The NIC never idles after the first RTTs: goodput = 5 Mbit/s × 1448/1500.
    let goodput = delivered_between(&sink.flows, 0, 5.0, 30.0) as f64 * 8.0 / 25.0;
    let expected = 5e6 * 1448.0 / 1500.0;
    assert!(
        (goodput / expected - 1.0).abs() < 0.002,
        "goodput {goodput} vs {expected}"
    );

    // RTT once the first samples have set the pacing rate behind the limit (before them the
    // initial window goes out at once, as in Linux): 64 ms of propagation; data
    // serialization 2.4 + 1.2 + 2.4 ms; ACKs (52 B) 0.2 ms; the delayed ACK waits for the
    // next segment, 2.4 ms behind; and at most the 3000-byte limit (4.8 ms) queued ahead on
    // the host's link. The pacing rate is at most 2 × cwnd/srtt ≈ 2 × 2 × 5 Mbit/s: 2.4 kB
    // per ms, below two packets.
    let most = 64.0 + 6.0 + 0.2 + 2.4 + 4.8;
    let rtts: Vec<f64> = sink
        .flows
        .iter()
        .filter(|s| s.time.as_secs_f64() >= 1.0)
        .filter_map(|s| s.rtt)
        .map(|rtt| rtt.as_millis_f64())
        .collect();
    let max_rtt = rtts.iter().copied().fold(0.0, f64::max);
    assert!(
        max_rtt <= most,
        "largest RTT sample {max_rtt} ms > {most} ms"
    );

    let max_inflight = sink
        .flows
        .iter()
        .map(|s| s.inflight_bytes)
        .max()
        .unwrap_or(0);
    let last = sink.flows.last().expect("samples were taken");
    eprintln!(
        "goodput {goodput:.0} bit/s, max RTT {max_rtt:.2} ms, max inflight {max_inflight} B, \
         final cwnd {} B",
        last.cwnd_bytes
    );
    // The largest flight is the NIC rate × that RTT; the window stops below twice it.
    let flight_bound = 5e6 / 8.0 * most / 1000.0;
    assert!(
        (max_inflight as f64) < flight_bound,
        "inflight {max_inflight} > {flight_bound}"
    );
    assert!(
        last.cwnd_bytes < 2 * max_inflight + 2 * 1448,
        "cwnd {} kept growing past twice the flight {max_inflight}",
        last.cwnd_bytes
    );
}

/// `extra_rtt` lengthens the sender's access link by half of it in each direction
/// (README: "on the sender's access link, half each way"). One-way delays of the first
/// data segment and of its ACK, worked out hop by hop (store-and-forward: each link adds
/// its serialization and its propagation delay):
/// - data, 1500 B: 12 µs at 1 Gbit/s on each access link, 1.2 ms at 10 Mbit/s on the
///   bottleneck; propagation 1 + 10 + 1 ms, plus extra_rtt/2 = 20 ms on the sender's link;
/// - ACK, 52 B (no SACK block: in order), sent at once (no delayed ACK): 416 ns per access
///   link, 41.6 µs on the bottleneck's reverse direction; propagation 1 + 10 + 1 ms plus
///   20 ms on the sender's link.
#[test]
fn extra_rtt_is_split_half_each_way() {
    let (_, sink) = run(r#"
duration = "1s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 100 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
extra_rtt = "40ms"
delayed_ack = false
[output]
trace_packets = [0]
"#);
    use cclab_sim::PacketEventKind::{Ack, Receive, Send};
    let time = |kind, seq| {
        sink.packets
            .iter()
            .find(|e| e.kind == kind && e.seq == seq)
            .map(|e| e.time.as_nanos())
            .expect("traced event")
    };
    let forward_ns =
        12_000 + 1_200_000 + 12_000 + (1_000_000 + 10_000_000 + 1_000_000) + 20_000_000;
    let reverse_ns = 416 + 41_600 + 416 + (1_000_000 + 10_000_000 + 1_000_000) + 20_000_000;
    let sent = time(Send, 0);
    let received = time(Receive, 0);
    let acked = time(Ack, 1448);
    assert_eq!(received - sent, forward_ns, "data one-way delay");
    assert_eq!(acked - received, reverse_ns, "ACK one-way delay");
}

/// `loss` is random loss of data packets only; ACKs cross the bottleneck's reverse
/// direction without it (README, `[topology]`).
#[test]
fn random_loss_strikes_data_not_acks() {
    let (result, sink) = run(r#"
duration = "10s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 100, loss = 0.02 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
[output]
trace_packets = [0]
"#);
    use cclab_sim::PacketEventKind::{AckDrop, Drop};
    let count = |kind| sink.packets.iter().filter(|e| e.kind == kind).count() as u64;
    let stats = &result.links[0].stats;
    // The 100-packet buffer never fills for a flow halving every ~50 segments, so every
    // data drop is a random one; about 2 % of the ~8000 packets sent.
    assert_eq!(stats.overflow_drops, 0);
    assert_eq!(count(Drop), stats.random_losses);
    assert!(
        stats.random_losses > 50,
        "{} random losses",
        stats.random_losses
    );
    // The reverse direction holds at most a few 52-byte ACKs (41.6 µs each, at most one per
    // 1.2 ms data packet), so it never overflows either: no ACK is lost at all.
    assert_eq!(count(AckDrop), 0);
}
