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

/// Mathis, Semke, Mahdavi, Ott, "The macroscopic behavior of the TCP congestion avoidance
/// algorithm" (CCR 1997): goodput = MSS/RTT · C/√p. With delayed ACKs and byte counting
/// (RFC 3465) Reno grows one MSS per RTT, the paper's no-delayed-ACK case: C = √(3/2) ≈ 1.22
/// for periodic loss, and about 1.31 for random (Bernoulli) loss in the paper's simulations,
/// i.e. 1.07 × the periodic value. The link (1 Gbit/s) is far faster than the predicted
/// rates, so RTT = the base 64 ms plus serialization, and no timeouts occur at these rates.
///
/// Tolerance: one 200-s run at p = 10⁻⁴ … 3·10⁻³ sees only 60–200 loss events, and its
/// ratio to the formula scattered from 0.98 to 1.30 over seeds 1–8 (a single seed that
/// happened to land at 0.99–1.04 made the old ±30 % band look loose). Loss rates of 10⁻³ and
/// above give 120–500 events per run; over seeds 1–8 the ratio's standard deviation was
/// 0.05 at p = 10⁻³ and 0.03 at 3·10⁻³. Averaging four seeds (standard error ≤ 0.025), the
/// mean ratio must lie between the periodic (1.00) and random-loss (1.07) constants, widened
/// by three standard errors: [0.925, 1.145]. That still checks the 1/√p law over a factor 4.
#[test]
fn reno_follows_the_mathis_formula_under_random_loss() {
    for p in [0.001f64, 0.002, 0.004] {
        let mut ratios = Vec::new();
        for seed in 1..=4 {
            let text = format!(
                r#"
duration = "200s"
seed = {seed}
[topology]
bottleneck = {{ rate = "1Gbps", delay = "30ms", buffer = "1bdp", loss = {p} }}
access = {{ rate = "10Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
"#
            );
            let (result, _) = run(&text);
            let flow = &result.flows[0];
            assert_eq!(flow.timeouts, 0, "p = {p}, seed {seed}");
            let rtt = flow.mean_rtt.expect("RTT samples").as_secs_f64();
            let predicted = 1448.0 * 8.0 / rtt * (1.5f64).sqrt() / p.sqrt();
            let goodput = flow.delivered_bytes as f64 * 8.0 / result.duration.as_secs_f64();
            ratios.push(goodput / predicted);
        }
        let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
        eprintln!("p = {p}: goodput / Mathis {ratios:.3?}, mean {mean:.3}");
        assert!(
            (0.925..=1.145).contains(&mean),
            "p = {p}: mean ratio to Mathis {mean:.3} ({ratios:.3?})"
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
    let index = cclab_analysis::metrics::jain_index(&shares);
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
[output]
trace_packets = [0]
"#
        )
    };
    let acks = |sink: &MemorySink| {
        sink.packets
            .iter()
            .filter(|e| e.kind == cclab_sim::PacketEventKind::Ack)
            .count()
    };
    let (every, every_sink) = run(&text(false));
    let (delayed, delayed_sink) = run(&text(true));
    // 1 MB in 1448-byte segments: 690 full ones and an 880-byte tail, 691 segments, all
    // delivered without loss (the 500-packet buffer never fills).
    let segments = 1_000_000u64.div_ceil(1448) as usize;
    assert_eq!(segments, 691);
    for result in [&every, &delayed] {
        let flow = &result.flows[0];
        assert_eq!(flow.delivered_bytes, 1_000_000);
        assert_eq!((flow.packets_sent, flow.retransmissions), (691, 0));
    }
    // Without delayed ACKs every segment is acknowledged: 691 ACKs. With them (RFC 5681
    // §4.2, RFC 1122: an ACK for at least every second segment, the timer for a lone one)
    // segments are acknowledged in pairs, 345 ACKs, and the odd last segment by the 40-ms
    // timer: 346 = ⌈691/2⌉. No segment waits for the timer earlier: the flow is never idle
    // for 40 ms (RTT ≈ 21 ms), so the next segment always arrives first.
    assert_eq!(acks(&every_sink), segments);
    assert_eq!(acks(&delayed_sink), segments.div_ceil(2));
    // Without delayed ACKs the transfer clocks out faster: every segment releases cwnd.
    assert!(every.flows[0].completed_at < delayed.flows[0].completed_at);
}

/// 50 Mbit/s bottleneck (240 µs per 1500-byte packet), 1 Gbit/s access links (12 µs),
/// base RTT 2 × (1 + 20 + 1) = 44 ms, BDP 183 packets, slow start to ssthresh = 100 packets
/// (delayed ACKs, byte counting: cwnd doubles per round, 10 → 20 → 40 → 80 → 100).
#[test]
fn pacing_spreads_slow_start_bursts() {
    let text = |pacing: bool| {
        format!(
            r#"
duration = "2s"
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
    eprintln!("max queue: unpaced {bursty_queue}, paced {paced_queue} packets");
    // Unpaced, each ACK of two segments releases four at the access rate: the round that
    // doubles cwnd from 40 to 80 segments sends 80 in the time the bottleneck serves 40, so
    // the queue reaches about 40 packets (the round before drained within the RTT; the next,
    // 80 → 100, arrives at only 1.25 × the link rate: +20).
    assert!(
        (40..=42).contains(&bursty_queue),
        "unpaced max queue {bursty_queue}, expected about 40"
    );
    // Paced: the initial window leaves at once (no RTT sample, no rate yet): 10 packets
    // 12 µs apart reach a link that takes 240 µs each, so 9 wait. After that the pacing
    // rate stays below the link: 2 × cwnd/srtt ≤ 2 × 50 × 12 000 bit / 44 ms = 27 Mbit/s
    // below ssthresh/2, 1.2 × cwnd/srtt ≤ 1.2 × 138 × 12 000 bit / 44 ms = 45 Mbit/s up to
    // 2 s (cwnd ≤ 100 + 1.7 s / 44 ms ≈ 138 packets in congestion avoidance): nothing
    // queues behind a paced packet.
    assert_eq!(paced_queue, 9);
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
[output]
trace_packets = [0, 1]
"#);
    use cclab_sim::PacketEventKind::{Receive, Send};
    let first = |flow: u32, kind| {
        sink.packets
            .iter()
            .find(|e| e.flow == flow && e.kind == kind)
            .map(|e| e.time)
            .expect("the flow sent")
    };
    // Each flow's first segment leaves exactly at its start time, not a nanosecond earlier.
    assert_eq!(first(0, Send).as_nanos(), 0);
    assert_eq!(first(1, Send).as_nanos(), 2_000_000_000);
    assert_eq!(result.flows[1].start.as_nanos(), 2_000_000_000);
    // Flow 1 reports nothing before it starts, and its first segment arrives after it.
    assert!(
        sink.flows
            .iter()
            .filter(|s| s.flow == 1)
            .all(|s| s.time.as_nanos() >= 2_000_000_000)
    );
    assert!(first(1, Receive) > first(1, Send));
    // In its 2 s it gets going: at least its initial window of 10 segments delivered.
    assert!(result.flows[1].delivered_bytes >= 10 * 1448);
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

#[test]
fn a_sender_host_without_small_queues_parks_its_whole_window_on_its_own_link() {
    // The previous test's path with `small_queues = false`: the host's device takes every
    // packet at once (a TUN device: `tun_net_xmit` orphans each skb, so
    // `tcp_small_queue_check` never holds the socket), so nothing keeps the window in the
    // socket. No loss (the slow access link never fills the bottleneck, its own buffer is
    // unlimited), so Reno stays in slow start, and it is cwnd-limited at every ACK: the
    // window grows without end, all of it queued on the 5 Mbit/s link.
    let (result, sink) = run(r#"
duration = "10s"
[topology]
bottleneck = { rate = "10Mbps", delay = "30ms", buffer = "1bdp" }
access = { rate = "5Mbps", delay = "1ms" }
[[flows]]
cc = "reno"
small_queues = false
"#);
    let flow = &result.flows[0];
    assert_eq!((flow.drops, flow.retransmissions, flow.timeouts), (0, 0, 0));
    let goodput = delivered_between(&sink.flows, 0, 2.0, 10.0) as f64 * 8.0 / (10.0 - 2.0);
    let expected = 5e6 * 1448.0 / 1500.0;
    assert!(
        (goodput / expected - 1.0).abs() < 0.002,
        "goodput {goodput} vs {expected}"
    );
    for s in &sink.flows {
        // RFC 3465 with L = 2 (Linux's tcp_slow_start adds the segments acked): each ACK,
        // of one or two segments, grows the window by what it acknowledged, so the window
        // is the initial 10 segments plus everything acknowledged; and TCP sent all of it.
        assert_eq!(s.cwnd_bytes, 10 * 1448 + s.bytes_acked, "at {:?}", s.time);
        assert_eq!(s.inflight_bytes, s.cwnd_bytes, "at {:?}", s.time);
    }
    // The round trip of a packet is the flight queued ahead of it on the host's link at
    // its rate (Little's law; the rest of the path holds 5 Mbit/s × 70 ms ≈ 44 kB, under
    // 1 % of it): the last RTT sample against the flight when that packet left.
    let last = sink.flows.last().expect("samples were taken");
    let rtt = last.rtt.expect("an RTT sample").as_secs_f64();
    let sent = sink
        .flows
        .iter()
        .rfind(|s| s.time.as_secs_f64() <= last.time.as_secs_f64() - rtt)
        .expect("the packet was sent during the run");
    let queued_s = sent.inflight_bytes as f64 * 1500.0 / 1448.0 * 8.0 / 5e6;
    assert!(
        rtt > 1.0 && (rtt / queued_s - 1.0).abs() < 0.02,
        "RTT {rtt} s against {queued_s} s of queue"
    );
}

/// `extra_rtt` lengthens the sender's access link by half of it in each direction
/// (docs/scenarios.md: "on the sender's access link, half each way"). One-way delays of the first
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
/// direction without it (docs/scenarios.md, `[topology]`).
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
