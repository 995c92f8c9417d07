//! The connection around a transfer (docs/model.md): the SYN/SYN-ACK handshake and its lost
//! SYNs, the FIN that completes a flow, quick-ACKs at connection start, and receive-window
//! auto-tuning. Expectations are worked out by hand from the path in each test.

mod common;

use cclab_cc::{SimDuration, SimTime};
use cclab_sim::{FlowResult, MemorySink, PacketEventKind};

/// 10 Mbit/s, 10 ms bottleneck with 1 Gbit/s, 1 ms access links; one NewReno flow of
/// `size`, traced, with `extra` flow keys.
fn path(size: &str, extra: &str) -> String {
    format!(
        r#"
duration = "10s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 100 }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "newreno"
size = "{size}"
{extra}
[output]
trace_packets = [0]
"#
    )
}

/// One-way time of a packet of `bytes` through the empty path: store-and-forward on the
/// two access links and the bottleneck, plus their delays.
fn one_way(bytes: u64) -> SimDuration {
    let access = SimDuration::from_nanos(bytes * 8) + SimDuration::from_millis(1);
    let bottleneck = SimDuration::from_nanos(bytes * 8 * 100) + SimDuration::from_millis(10);
    access + access + bottleneck
}

/// SYN and SYN-ACK: 52 header bytes + 8 more option bytes = 60 bytes each way.
fn syn_round_trip() -> SimDuration {
    one_way(60) + one_way(60)
}

fn run(text: &str) -> (FlowResult, MemorySink) {
    let (result, sink) = common::run(text);
    (result.flows[0].clone(), sink)
}

fn fct(flow: &FlowResult) -> SimDuration {
    flow.completed_at.expect("the flow completes") - flow.start
}

fn first(sink: &MemorySink, kind: PacketEventKind) -> SimTime {
    sink.packets
        .iter()
        .find(|e| e.kind == kind)
        .map(|e| e.time)
        .unwrap_or_else(|| panic!("a {kind:?} event"))
}

fn last(sink: &MemorySink, kind: PacketEventKind) -> SimTime {
    sink.packets
        .iter()
        .filter(|e| e.kind == kind)
        .map(|e| e.time)
        .max()
        .unwrap_or_else(|| panic!("a {kind:?} event"))
}

#[test]
fn the_handshake_adds_one_round_trip_and_the_fin_its_way_back() {
    // 100 KB over an empty path, without and with the handshake. With it, the data starts
    // when the SYN-ACK arrives, one SYN round trip (2 × 12.04896 ms) after the SYN, and
    // everything the data does happens that much later: the receiver has the last byte
    // exactly one SYN round trip later. Completion is then when the receiver's FIN (52
    // bytes, an ACK) reaches the sender, one way (12.042432 ms) later.
    let (plain, plain_sink) = run(&path("100KB", ""));
    let (opened, sink) = run(&path("100KB", "handshake = true"));
    assert_eq!(first(&sink, PacketEventKind::Syn), SimTime::ZERO);
    assert_eq!(
        first(&sink, PacketEventKind::SynAck),
        SimTime::ZERO + syn_round_trip()
    );
    assert_eq!(
        first(&sink, PacketEventKind::Send),
        SimTime::ZERO + syn_round_trip()
    );
    assert_eq!(opened.handshake_time(), Some(syn_round_trip()));
    assert_eq!(
        last(&sink, PacketEventKind::Receive),
        last(&plain_sink, PacketEventKind::Receive) + syn_round_trip()
    );
    assert_eq!(fct(&opened), fct(&plain) + syn_round_trip() + one_way(52));
    // Without the handshake nothing of it shows.
    assert_eq!(plain.handshake_time(), None);
    assert!(
        plain_sink
            .packets
            .iter()
            .all(|e| e.kind != PacketEventKind::Syn)
    );
}

#[test]
fn the_fin_acknowledgment_completes_the_flow() {
    let (flow, sink) = run(&path("100KB", "handshake = true"));
    let fins: Vec<_> = sink
        .packets
        .iter()
        .filter(|e| e.kind == PacketEventKind::Fin)
        .collect();
    // One FIN, acknowledging every byte; the flow completes when it arrives.
    assert_eq!(fins.len(), 1);
    assert_eq!(fins[0].seq, 100_000);
    assert_eq!(flow.completed_at, Some(fins[0].time));
    assert_eq!((flow.bytes_acked, flow.delivered_bytes), (100_000, 100_000));
    // The receiver's FIN leaves as the last segment arrives (no delayed ACK).
    assert_eq!(
        fins[0].time,
        last(&sink, PacketEventKind::Receive) + one_way(52)
    );
}

#[test]
fn a_lost_syn_delays_the_flow_by_the_initial_rto() {
    // RFC 6298 §2.1: the SYN is sent again after 1 s; the handshake then takes 1 s plus
    // its round trip, and the whole transfer moves 1 s later (nothing else changes: one
    // SYN retransmission keeps the initial window, Linux's tcp_init_transfer).
    let (once, _) = run(&path("100KB", "handshake = true"));
    let (lost, sink) = run(&path("100KB", "handshake = true\ndrop_syn = 1"));
    let second = SimTime::ZERO + SimDuration::from_secs(1);
    let syns: Vec<_> = sink
        .packets
        .iter()
        .filter(|e| matches!(e.kind, PacketEventKind::Syn | PacketEventKind::SynDrop))
        .map(|e| (e.kind, e.time))
        .collect();
    assert_eq!(
        syns,
        [
            (PacketEventKind::Syn, SimTime::ZERO),
            (PacketEventKind::SynDrop, SimTime::ZERO),
            (PacketEventKind::Syn, second),
        ]
    );
    assert_eq!(
        lost.handshake_time(),
        Some(SimDuration::from_secs(1) + syn_round_trip())
    );
    assert_eq!(fct(&lost), fct(&once) + SimDuration::from_secs(1));
    assert_eq!((lost.syn_drops(), lost.drops, lost.timeouts), (1, 0, 0));
}

#[test]
fn two_lost_syns_back_off_and_start_from_one_segment() {
    // RFC 6298 §5.5: 1 s, then 2 s: the third SYN leaves at 3 s. More than one SYN
    // retransmission: Linux's tcp_init_transfer starts with a window of one segment, so
    // one segment is sent before the first ACK comes back.
    let (flow, sink) = run(&path("100KB", "handshake = true\ndrop_syn = 2"));
    let third = SimTime::ZERO + SimDuration::from_secs(3);
    assert_eq!(last(&sink, PacketEventKind::Syn), third);
    assert_eq!(
        flow.handshake_time(),
        Some(SimDuration::from_secs(3) + syn_round_trip())
    );
    let first_ack = first(&sink, PacketEventKind::Ack);
    let first_flight = sink
        .packets
        .iter()
        .filter(|e| e.kind == PacketEventKind::Send && e.time < first_ack)
        .count();
    assert_eq!(first_flight, 1);
    // Without the second loss the initial window (10 segments) goes out at once.
    let (_, sink) = run(&path("100KB", "handshake = true\ndrop_syn = 1"));
    let first_ack = first(&sink, PacketEventKind::Ack);
    let first_flight = sink
        .packets
        .iter()
        .filter(|e| e.kind == PacketEventKind::Send && e.time < first_ack)
        .count();
    assert_eq!(first_flight, 10);
}

#[test]
fn after_a_lost_syn_the_rto_for_data_starts_at_three_seconds() {
    // One segment, lost once (`drop = [0]`): only the retransmission timer repairs it.
    // With the SYN's RTT sample R = 24.09792 ms the RTO is R + 4 · R/2 = 72.3 ms, raised
    // to the 200 ms minimum (RFC 6298 §2.2, §2.4); after a lost SYN there is no sample
    // (Karn) and RFC 6298 §5.7 (Linux TCP_TIMEOUT_FALLBACK) makes it 3 s.
    let retransmission_delay = |extra: &str| {
        let (_, sink) = run(&path(
            "1000B",
            &format!("handshake = true\ndrop = [0]\n{extra}"),
        ));
        first(&sink, PacketEventKind::Retransmit) - first(&sink, PacketEventKind::Send)
    };
    assert_eq!(retransmission_delay(""), SimDuration::from_millis(200));
    assert_eq!(
        retransmission_delay("drop_syn = 1"),
        SimDuration::from_secs(3)
    );
}

#[test]
fn quick_acks_answer_the_first_sixteen_segments_one_by_one() {
    // Linux: rcv_wnd / (2 · rcv_mss) = 65 160 / 2 896 = 22 quick ACKs, at most
    // TCP_MAX_QUICKACKS = 16. With delayed ACKs the first 16 segments are ACKed one by one;
    // the next 24 (of 40 = 57 920 bytes, the window by then allows them all) two by two,
    // 12 ACKs: 28 ACKs in all. Without quick-ACK: 20.
    let acks = |extra: &str| {
        let (_, sink) = run(&path("57920B", extra));
        sink.packets
            .iter()
            .filter(|e| e.kind == PacketEventKind::Ack)
            .count()
    };
    assert_eq!(acks(""), 20);
    assert_eq!(acks("quick_ack = true"), 28);
}

/// A long fat path: 100 Mbit/s, 50 ms each way (RTT about 104 ms), one unlimited NewReno
/// flow with the receive window given.
fn long_fat(window: &str) -> String {
    format!(
        r#"
duration = "30s"
[topology]
bottleneck = {{ rate = "100Mbps", delay = "50ms", buffer = "1bdp" }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "newreno"
receive_window = {window}
[output]
steady_from = "10s"
"#
    )
}

fn steady_goodput_bps(result: &cclab_sim::RunResult) -> f64 {
    let flow = &result.flows[0];
    let window = flow.window();
    let span = result.duration.as_secs_f64() - result.window_start.as_secs_f64();
    window.delivered_bytes as f64 * 8.0 / span
}

#[test]
fn a_fixed_window_caps_the_rate_at_window_per_round_trip() {
    // 44 segments = 63 712 bytes per round trip. The round trip of the segment that
    // releases the next pair: data one way 2 × (12 µs + 1 ms) + 120 µs + 50 ms =
    // 52.144 ms, its ACK back 2 × (0.416 µs + 1 ms) + 4.16 µs + 50 ms = 52.004992 ms:
    // 104.148992 ms. Throughput = 63 712 · 8 / 0.104148992 s = 4.894 Mbit/s.
    let (result, _) = common::run(&long_fat("44"));
    let expected = 63_712.0 * 8.0 / 0.104_148_992;
    let goodput = steady_goodput_bps(&result);
    assert!(
        (goodput / expected - 1.0).abs() < 0.01,
        "{goodput} bit/s against {expected}"
    );
}

#[test]
fn a_send_buffer_caps_the_rate_at_a_buffer_per_round_trip_and_a_third() {
    // send_buffer = 60 segments (86 880 bytes), far below the path's BDP (1.3 MB), with an
    // unlimited receive window: the application refills the buffer whenever a third of it
    // (20 segments) has been acknowledged, so the sender sends 20-segment chunks and keeps
    // three of them in flight. Chunk k + 3 leaves when chunk k's last ACK is back: one
    // round trip (104.148992 ms, worked out in the test above) plus the chunk's
    // serialization at the bottleneck, 20 × 1500 × 8 bit / 100 Mbit/s = 2.4 ms. So
    // goodput = 86 880 × 8 / (0.104148992 + 0.0024) s = 6.523 Mbit/s.
    let text = long_fat("\"unlimited\"")
        .replace("receive_window", "send_buffer = \"86880B\"\nreceive_window");
    let (result, sink) = common::run(&text);
    let expected = 86_880.0 * 8.0 / (0.104_148_992 + 0.0024);
    let goodput = steady_goodput_bps(&result);
    assert!(
        (goodput / expected - 1.0).abs() < 0.01,
        "{goodput} bit/s against {expected}"
    );
    // Never more in flight than the buffer, and nothing lost: the queue never fills.
    let most = sink
        .flows
        .iter()
        .map(|s| s.inflight_bytes)
        .max()
        .expect("samples");
    assert!(most <= 86_880, "{most} bytes in flight");
    assert_eq!(result.flows[0].retransmissions, 0);
}

#[test]
fn an_auto_tuned_window_grows_until_the_flow_fills_the_bottleneck() {
    // Dynamic right-sizing: the window starts at 64 KB and grows to twice (and more, in
    // slow start) what the application read per round trip, up to tcp_rmem[2] / 2 = 3 MB,
    // above this path's BDP (1.3 MB) plus its buffer (1 BDP). The flow is then limited by
    // the bottleneck alone: more than 90 % of 100 Mbit/s in the steady window, 18 times what
    // the 64 KB window allows.
    let (result, sink) = common::run(&long_fat("\"auto\""));
    let goodput = steady_goodput_bps(&result);
    assert!(goodput > 90e6, "{goodput} bit/s");
    // Within the first second (under ten round trips) the flight outgrows the initial
    // window, which a fixed 64 KB window would never allow.
    let early_flight = sink
        .flows
        .iter()
        .filter(|s| s.time <= SimTime::ZERO + SimDuration::from_secs(1))
        .map(|s| s.inflight_bytes)
        .max()
        .expect("samples");
    assert!(early_flight > 4 * 65_536, "{early_flight} bytes in flight");
}

#[test]
fn workload_flows_with_the_handshake_deliver_every_byte_once() {
    // Fixed 10 000-byte flows arriving rarely enough to run alone (λ = 0.01 · 10⁷ / 8 /
    // 10⁴ = 1.25/s over 40 s): each one's FCT grows by exactly the SYN round trip and
    // its FIN's way back over the workload slot's path (the same 1 ms access links and
    // 10 ms bottleneck), and every arrival but those at the very end finishes with all its
    // bytes.
    let workload = |extra: &str| {
        common::run(&format!(
            r#"
duration = "40s"
seed = 3
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 100 }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "newreno"
size = "1KB"
[[flows]]
kind = "workload"
cc = "newreno"
load = 0.01
sizes = {{ distribution = "fixed", mean = "10000B" }}
{extra}
"#
        ))
    };
    let (plain, plain_sink) = workload("");
    let (opened, sink) = workload("handshake = true");
    let w = &opened.workloads[0];
    assert_eq!(w.arrivals, plain.workloads[0].arrivals);
    assert!(w.unfinished <= 1, "{} unfinished", w.unfinished);
    // Each finished flow's bytes once; an unfinished one's at most once.
    assert!(w.finished > 20, "{} finished", w.finished);
    assert!(w.delivered_bytes >= 10_000 * w.finished);
    assert!(w.delivered_bytes <= 10_000 * w.arrivals);
    assert_eq!(w.late_packets, 0);
    for (with, without) in sink.finished.iter().zip(&plain_sink.finished) {
        assert_eq!(with.start, without.start);
        assert_eq!(with.fct, without.fct + syn_round_trip() + one_way(52));
    }
}

#[test]
fn a_busy_lossy_workload_with_the_handshake_keeps_every_invariant() {
    // Load 0.7 with 1 % random loss both ways: SYNs, SYN-ACKs, data, ACKs and FINs are
    // lost, connections overlap and slots are reused. The run checks conservation and that
    // no receiver gets a byte twice or beyond its size at every tick (debug builds); here,
    // every finished flow's bytes were delivered once and none was counted twice.
    let (result, sink) = common::run(
        r#"
duration = "30s"
seed = 11
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 50, loss = 0.01, ack_loss = 0.01 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "newreno"
size = "1KB"
[[flows]]
kind = "workload"
cc = "cubic"
load = 0.7
sizes = { distribution = "exponential", mean = "20KB" }
handshake = true
quick_ack = true
"#,
    );
    let w = &result.workloads[0];
    assert!(w.finished > 500, "{} finished", w.finished);
    let finished_bytes: u64 = sink.finished.iter().map(|f| f.size_bytes).sum();
    assert_eq!(sink.finished.len() as u64, w.finished);
    assert!(w.delivered_bytes >= finished_bytes);
    assert!(w.delivered_bytes <= w.offered_bytes);
}

/// The grid's 100 Mbit/s, 200 ms point (docs/validation/linux.md): RTT 2 × (98 + 2 × 1) ms,
/// BDP 2.5 MB, a 2-BDP buffer (5 MB), one NewReno flow with an auto-tuned window.
fn long_fatter(tcp_rmem: &str) -> String {
    format!(
        r#"
duration = "6s"
[topology]
bottleneck = {{ rate = "100Mbps", delay = "98ms", buffer = "2bdp" }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "newreno"
receive_window = "auto"
{tcp_rmem}
"#
    )
}

fn largest_flight(sink: &MemorySink) -> u64 {
    sink.flows
        .iter()
        .map(|s| s.inflight_bytes)
        .max()
        .expect("samples")
}

#[test]
fn tcp_rmem_max_bounds_the_flight_through_the_advertised_window() {
    // Default tcp_rmem[2] = 6 291 456: the window stops at half of it, 3 145 728 bytes
    // (24 576 units of 2^7), below BDP + buffer = 7.5 MB, so the flight stops there, in
    // whole segments: 2172 × 1448 = 3 145 056 bytes.
    let (_, sink) = common::run(&long_fatter(""));
    assert_eq!(largest_flight(&sink), 2172 * 1448);
    // On a receiving host whose packets are 160/256 payload (a TUN device) the same buffer
    // allows 6 291 456 × 160 / 256 = 3 932 160 bytes: 2715 whole segments.
    let (_, sink) = common::run(&long_fatter("scaling_ratio = 160"));
    assert_eq!(largest_flight(&sink), 2715 * 1448);
    // This machine's kernel: tcp_rmem[2] = 33 554 432, window scale 10, a window of up to
    // 16 777 216 bytes: slow start now takes the flight past 3.15 MB until the 5 MB buffer
    // overflows.
    let (_, sink) = common::run(&long_fatter("tcp_rmem = [4096, 131072, 33554432]"));
    assert!(
        largest_flight(&sink) > 4_000_000,
        "{}",
        largest_flight(&sink)
    );
}

#[test]
fn bbr_held_by_a_send_buffer_still_leaves_startup_as_the_kernels_did() {
    // The validation point bbr-100mbps-200ms-2bdp (docs/validation/linux.md, group 2): with
    // Linux's 4 MiB send buffer the flight stops at the buffer in STARTUP and most rounds are
    // application-limited. The kernel's BBR still left STARTUP (TCP_INFO: ssthresh set and
    // pacing at the DRAIN gain, 88/256 of the estimate, at 11.54 s): its writer is checked
    // for an application-limited flight only at the start of a 64 KiB write() call, and about
    // half the wake-ups find the call's remainder still waiting for the pacer, so some rounds
    // are not application-limited and count towards a full pipe. A model that marked every
    // wake-up stayed in STARTUP for the whole 20 s.
    let text = r#"
duration = "20s"
[topology]
bottleneck = { rate = "100Mbps", delay = "98ms", buffer = "2bdp" }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "bbr"
stack = "linux"
handshake = true
tcp_rmem = [4096, 131072, 33554432]
"#;
    let (_, sink) = common::run(text);
    let left = sink
        .flows
        .iter()
        .find(|s| s.mode == "drain" || s.mode == "probe_bw")
        .map(|s| s.time);
    assert!(left.is_some(), "BBR never left STARTUP");
    // Held by the buffer until then: the flight never passed 4 MiB of payload.
    let most = sink
        .flows
        .iter()
        .map(|s| s.inflight_bytes)
        .max()
        .expect("samples");
    assert!(most <= 4 * 1024 * 1024, "{most} bytes in flight");
}
