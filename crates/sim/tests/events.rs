//! Flow events (`events.csv`): mode changes, slow-start exits with their cause, recoveries
//! and timeouts, recorded when they happen. Each test derives when and what from the
//! scenario and its source (RFC, draft), not from an earlier run.

mod common;

use cclab_sim::{FlowEvent, FlowEventKind, MemorySink};
use common::run;

fn secs(e: &FlowEvent) -> f64 {
    e.time.as_secs_f64()
}

fn of_kind(sink: &MemorySink, kind: FlowEventKind) -> Vec<FlowEvent> {
    sink.events
        .iter()
        .filter(|e| e.kind == kind)
        .copied()
        .collect()
}

/// (event, from, to, detail) of every event of flow 0, in order.
fn trace(sink: &MemorySink) -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    sink.events
        .iter()
        .filter(|e| e.flow == 0)
        .map(|e| (e.kind.name(), e.from, e.to, e.detail))
        .collect()
}

/// One Reno flow (SACK recovery, an ACK per segment, IW 10) over 10 Mbit/s with 10 ms of
/// bottleneck delay and 1 Gbit/s, 1 ms access links; a 5000-packet buffer, so the only loss
/// is data segment 20, dropped at the bottleneck.
///
/// When the loss is detected, by hand. Wire sizes: 1500-byte data packets (1.2 ms at the
/// bottleneck, 12 µs on an access link), 52-byte ACKs plus 10 bytes for one SACK block.
/// Segments 0–9 leave at t = 0; segment 0's ACK reaches the sender at
///   1.012 (access) + 1.2 + 10 (bottleneck) + 1.012 (access) + 3 × (ACK propagation, 12 ms in
///   all) + 52 B at 1 Gbit/s, 10 Mbit/s, 1 Gbit/s (0.416 + 41.6 + 0.416 µs) = 25.266432 ms,
/// and the ACK of segment k at 25.266432 + 1.2 k ms. Each ACK (one segment, +1 MSS in slow
/// start) releases two segments: 10 + 2k and 11 + 2k. Segment 10 reaches the bottleneck at
/// 25.266432 + 1.012 = 26.278432 ms; from then on the bottleneck is busy (two segments come
/// per 1.2 ms, one leaves), so segment 10 + j leaves it at 26.278432 + 1.2 (j + 1) ms for
/// j ≤ 9. Segment 20 is dropped on arrival, so 21, 22, 23 take the next three slots and leave
/// at 39.478432, 40.678432 and 41.878432 ms. Each produces a duplicate ACK with one SACK
/// block; RFC 6675's IsLost holds for segment 20 once more than 2 SMSS above it are SACKed,
/// i.e. at the ACK of segment 23: 41.878432 + 10 + 1.012 (to the receiver) + 12 + 62-byte
/// ACK at 1 Gbit/s, 10 Mbit/s, 1 Gbit/s (0.496 + 49.6 + 0.496 µs) = 64.941024 ms.
#[test]
fn reno_with_one_drop_leaves_slow_start_once_by_loss_at_its_detection() {
    let (result, sink) = run(r#"
duration = "1s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 5000 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
delayed_ack = false
drop = [20]
"#);
    let flow = &result.flows[0];
    assert_eq!((flow.retransmissions, flow.timeouts), (1, 0));
    assert_eq!(result.links[0].stats.drops(), 1, "only the forced drop");

    let detection = 64.941024e-3;
    assert_eq!(
        trace(&sink),
        [
            ("mode", "", "slow_start", "start"),
            ("recovery_start", "", "", "sack"),
            ("mode", "slow_start", "congestion_avoidance", "loss"),
            (
                "slow_start_exit",
                "slow_start",
                "congestion_avoidance",
                "loss"
            ),
            ("recovery_end", "", "", ""),
        ]
    );
    let events = &sink.events;
    assert_eq!(secs(&events[0]), 0.0);
    for e in &events[1..4] {
        assert!(
            (secs(e) - detection).abs() < 1e-9,
            "{} at {:.9} s, expected {detection} s",
            e.kind.name(),
            secs(e)
        );
    }
    // RFC 5681 eq. (4) halves the flight, and Reno sets cwnd = ssthresh. The flight before
    // the detecting ACK: segments 0–49 were released by the 20 new ACKs (10 + 2 each), 50–53
    // by the duplicates for 21 and 22 (each SACKs a segment and grows cwnd by one); 20–53
    // are outstanding, 21 and 22 SACKed: a pipe of 32 segments, so ssthresh = 16 segments.
    let exit = &events[3];
    assert_eq!(
        (exit.cwnd_bytes, exit.ssthresh_bytes),
        (16 * 1448, Some(16 * 1448))
    );
    // Recovery ends when the retransmission is acknowledged: at least one round trip (24 ms
    // of propagation) after it left at the detection.
    assert!(secs(&events[4]) > detection + 0.024);
}

/// A finite transfer of 10 segments (the initial window) whose last segment is dropped: no
/// later segment can produce duplicate ACKs, so only the retransmission timer recovers it.
///
/// By hand (same path as above, delayed ACKs): segment k leaves the bottleneck at
/// 1.012 + 1.2 (k + 1) ms and reaches the receiver 11.012 ms later; ACKs (52 bytes, 12.042432
/// ms back) cover segments 0–1, 2–3, 4–5, 6–7, and segment 8 after the 40 ms delayed-ACK
/// timer: it left the bottleneck at 11.812 ms, so its ACK is sent at 62.824 and arrives at
/// 74.866432 ms. RTT samples 26.47, 28.87, 31.27, 33.67 and 74.87 ms give (RFC 6298 §2)
/// SRTT ≈ 34.0 ms and RTTVAR ≈ 17.9 ms, RTO = 105.8 ms, below the 200 ms minimum: the timer,
/// restarted by that last ACK (§5.3), fires at 274.866432 ms. RFC 5681 §3.1: ssthresh =
/// max(FlightSize/2, 2 SMSS) = 2 SMSS with one segment out, cwnd = 1 SMSS; the ACK of the
/// retransmission ends the timeout's recovery and grows cwnd by one SMSS to ssthresh, which
/// ends that slow start.
#[test]
fn a_lost_last_segment_is_recovered_by_one_timeout() {
    let (result, sink) = run(r#"
duration = "3s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 5000 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
size = 14480
drop = [9]
"#);
    assert_eq!(result.flows[0].timeouts, 1);
    assert!(result.flows[0].completed_at.is_some());
    assert_eq!(
        trace(&sink),
        [
            ("mode", "", "slow_start", "start"),
            ("timeout", "", "", ""),
            ("timeout_recovery_end", "", "", ""),
            ("mode", "slow_start", "congestion_avoidance", "ack"),
            (
                "slow_start_exit",
                "slow_start",
                "congestion_avoidance",
                "ssthresh_reached"
            ),
        ]
    );
    let events = &sink.events;
    assert!(
        (secs(&events[1]) - 0.274866432).abs() < 1e-9,
        "{:?}",
        events[1]
    );
    assert_eq!(
        (events[1].cwnd_bytes, events[1].ssthresh_bytes),
        (1448, Some(2 * 1448))
    );
    // The retransmission's round trip: at least the 24 ms of propagation.
    assert!(secs(&events[2]) > secs(&events[1]) + 0.024);
    assert_eq!(events[2].time, events[4].time);
    assert_eq!(events[4].cwnd_bytes, 2 * 1448);
}

/// BBR (draft-cardwell-iccrg-bbr-congestion-control-00): STARTUP until the bandwidth
/// estimate stops growing (full bandwidth, §4.3.2.2), DRAIN, then PROBE_BW; PROBE_RTT when
/// RTprop was not refreshed for 10 s (§4.3.5), then back to PROBE_BW (the pipe was filled).
/// A lone flow on a deep buffer keeps a standing queue in PROBE_BW, so only PROBE_RTT
/// refreshes RTprop: three of them in 32 s (their spacing is checked in bbr_scenarios.rs).
#[test]
fn bbr_goes_startup_drain_probe_bw_then_alternates_with_probe_rtt() {
    let (_, sink) = run(r#"
duration = "32s"
[topology]
bottleneck = { rate = "10Mbps", delay = "18ms", buffer = "5bdp" }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "bbr"
params = { quanta = "draft" }
"#);
    let modes: Vec<_> = of_kind(&sink, FlowEventKind::Mode);
    let labels: Vec<_> = modes.iter().map(|e| e.to).collect();
    assert_eq!(labels[..4], ["startup", "drain", "probe_bw", "probe_rtt"]);
    assert_eq!(
        labels[3..],
        [
            "probe_rtt",
            "probe_bw",
            "probe_rtt",
            "probe_bw",
            "probe_rtt",
            "probe_bw"
        ]
    );
    let exits = of_kind(&sink, FlowEventKind::SlowStartExit);
    assert_eq!(exits.len(), 1);
    assert_eq!((exits[0].from, exits[0].to), ("startup", "drain"));
    assert_eq!(exits[0].detail, "full_bandwidth");
    assert_eq!(exits[0].time, modes[1].time);
    // STARTUP's 2/ln 2 gain about triples the rate per round: the pipe (BDP ≈ 34 packets,
    // from IW 10) is full within 3 rounds, and 3 more rounds without 25 % growth end it.
    // Rounds last at most RTprop (41 ms) plus the queue of a cwnd of 2.89 BDP, 1.89 BDP =
    // 78 ms: 6 rounds of at most 120 ms.
    assert!(secs(&exits[0]) < 0.72, "{exits:?}");
}

/// Smooth-start never lowers ssthresh: it reaches the configured one through its lag-point
/// phase, and the exit says so; standard slow start reaches it as `ssthresh_reached`. Both
/// stop exactly at ssthresh (192 segments): no loss on this path (BDP ≈ 830 packets).
#[test]
fn smooth_start_reaches_ssthresh_and_says_so() {
    let exit = |slow_start: &str| {
        let (result, sink) = run(&format!(
            r#"
duration = "3s"
[topology]
bottleneck = {{ rate = "1Gbps", delay = "48ms", buffer = 5000 }}
access = {{ rate = "10Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
delayed_ack = false
initial_window = 3
initial_ssthresh = 192
slow_start = "{slow_start}"
"#
        ));
        assert_eq!(result.flows[0].retransmissions, 0);
        let exits = of_kind(&sink, FlowEventKind::SlowStartExit);
        assert_eq!(exits.len(), 1, "{slow_start}");
        exits[0]
    };
    let smooth = exit("smooth-start:fine-4");
    let standard = exit("standard");
    assert_eq!(smooth.detail, "smooth_start");
    assert_eq!(standard.detail, "ssthresh_reached");
    for e in [smooth, standard] {
        assert_eq!(
            (e.cwnd_bytes, e.ssthresh_bytes),
            (192 * 1448, Some(192 * 1448))
        );
    }
    // Wang et al.: m·n = 2·2 = 4 more round trips (100 ms each) than slow start. Both end
    // on an ACK of their last round, which all arrive within 12 ms (≤ 1000 segments at
    // 1 Gbit/s) of the round's start.
    let extra = secs(&smooth) - secs(&standard);
    assert!(
        (0.4 - 0.012..=0.4 + 0.012).contains(&extra),
        "{extra:.4} s later"
    );
}
