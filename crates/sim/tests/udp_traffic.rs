//! Unresponsive UDP sources (`kind = "udp"`) and TCP on/off applications (`on_off`), against
//! expectations worked out by hand: a CBR source's packet count, a Poisson source's mean rate,
//! an on/off source's bytes per cycle, the capacity a UDP source leaves a TCP flow, and the
//! bytes an on/off application writes.

mod common;

use cclab_sim::{FlowResult, PacketEventKind, RunResult};
use common::{flow_samples, run};

/// One UDP flow alone on an uncongested 100 Mbit/s path: `udp` is its table's extra keys.
fn udp_alone(duration: &str, udp: &str) -> String {
    format!(
        r#"
duration = "{duration}"
seed = 1
[topology]
bottleneck = {{ rate = "100Mbps", delay = "10ms" }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
kind = "udp"
{udp}
"#
    )
}

fn udp_packets_sent(text: &str) -> u64 {
    run(text).0.flows[0].packets_sent
}

#[test]
fn a_cbr_source_sends_rate_times_time_packets() {
    // 12 Mbit/s of 1500-byte packets: one every 12 000 bit / 12 Mbit/s = 1 ms. Over 2 s the
    // packets leave at 0, 1, …, 2000 ms; the run includes events at its last instant, so
    // T·R/(8·size) = 2000 packets plus the one at t = 0.
    assert_eq!(
        udp_packets_sent(&udp_alone("2s", "rate = \"12Mbps\"")),
        2001
    );
    // 7 Mbit/s of 1000-byte packets: T·R/(8·size) = 2.5 × 7e6 / 8000 = 2187.5 over 2.5 s, a
    // gap of 8000/7e6 s that is no whole number of nanoseconds. Packet k leaves at k × gap
    // computed exactly, so the count is ⌊2187.5⌋ + 1 = 2188 (rounding each gap to 1143 ns
    // would have sent 2188 too, but 2 ns per packet late: the count is where drift shows
    // over long runs, checked next).
    assert_eq!(
        udp_packets_sent(&udp_alone("2.5s", "rate = \"7Mbps\"\npacket_size = 1000")),
        2188
    );
    // 60 s at 1 Mbit/s of 1500-byte packets (12 ms gap): 5000 + 1. A gap that drifted by
    // even 1 ns per packet would not change this; 3 Mbit/s of 1000-byte packets has a gap of
    // 2 666 666.67 ns: T·R/(8·size) = 60 × 3e6 / 8000 = 22 500, so 22 501 — a gap rounded to
    // 2 666 667 ns would put packet 22 500 at 60.0000075 s, past the end, and send 22 500.
    assert_eq!(
        udp_packets_sent(&udp_alone("60s", "rate = \"3Mbps\"\npacket_size = 1000")),
        22_501
    );
}

#[test]
fn a_cbr_source_alone_delivers_every_packet_with_the_path_delay() {
    let (result, _) = run(&udp_alone("2s", "rate = \"12Mbps\"\nstart = \"0.5s\""));
    let f = &result.flows[0];
    // 1.5 s at one packet per ms: 1501 packets of 1472 payload bytes (1500 − 20 IPv4 − 8 UDP).
    assert_eq!(f.packets_sent, 1501);
    assert_eq!(f.wire_bytes_sent, 1501 * 1500);
    assert_eq!(f.payload_bytes_sent, 1501 * 1472);
    assert_eq!(f.drops, 0);
    assert_eq!((f.retransmissions, f.timeouts, f.cc), (0, 0, "udp"));
    // One-way delay on an empty path: 1 + 10 + 1 ms of propagation plus serialization of
    // 1500 B at 1 Gbit/s (12 µs), 100 Mbit/s (120 µs) and 1 Gbit/s (12 µs) = 12.144 ms.
    // Every packet arrives after 12.144 ms, so those sent in the last 12.144 ms are still on
    // their way: those sent at 1987 ms or before arrive, 1987 − 500 + 1 = 1488 of them.
    let udp = f.udp.as_ref().expect("a UDP flow reports its sink");
    let delay = std::time::Duration::from_nanos(12_144_000);
    assert_eq!(
        udp.min_one_way_delay.map(|d| d.as_nanos()),
        Some(delay.as_nanos() as u64)
    );
    assert_eq!(udp.mean_one_way_delay, udp.min_one_way_delay);
    assert_eq!(udp.packets_delivered, 1488);
    assert_eq!(f.delivered_bytes, 1488 * 1472);
    assert_eq!(f.bytes_acked, f.delivered_bytes);
}

fn mbps(bytes: u64, seconds: f64) -> f64 {
    bytes as f64 * 8.0 / seconds / 1e6
}

#[test]
fn udp_at_r_leaves_a_tcp_flow_c_minus_r() {
    // C = 20 Mbit/s, a 5 Mbit/s CBR source and one bulk Reno flow through a 1-BDP drop-tail
    // buffer. A single Reno flow with a 1-BDP buffer keeps the link busy (the buffer refills
    // the pipe after each halving, so the queue never empties), and the UDP source never
    // yields: TCP gets C − R = 15 Mbit/s of wire rate, 15 × 1448/1500 = 14.48 Mbit/s of
    // payload, and UDP R × 1472/1500 = 4.907 Mbit/s less the packets it loses when the buffer
    // overflows (a few per Reno cycle of several seconds: well under 1 %). Measured over the
    // steady window from 10 s to 40 s; 5 % allows for the UDP losses and for TCP's own
    // retransmissions, which take wire time without adding goodput.
    let text = r#"
duration = "40s"
seed = 1
[topology]
bottleneck = { rate = "20Mbps", delay = "10ms", buffer = "1bdp" }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
[[flows]]
kind = "udp"
rate = "5Mbps"
[output]
steady_from = "10s"
"#;
    let (result, _) = run(text);
    let (tcp, udp) = (result.flows[0].window(), result.flows[1].window());
    let tcp_mbps = mbps(tcp.delivered_bytes, 30.0);
    let udp_mbps = mbps(udp.delivered_bytes, 30.0);
    assert!(
        (tcp_mbps / 14.48 - 1.0).abs() < 0.05,
        "TCP {tcp_mbps} Mbit/s"
    );
    assert!(
        (udp_mbps / 4.907 - 1.0).abs() < 0.05,
        "UDP {udp_mbps} Mbit/s"
    );
    // The UDP source itself never slowed down: 30 s × 5 Mbit/s / 12 000 bit = 12 500 packets.
    assert!(
        udp.packets_sent.abs_diff(12_500) <= 1,
        "{}",
        udp.packets_sent
    );
    // And it did lose packets to the full buffer, as TCP did.
    assert!(result.flows[1].drops > 0 && result.flows[0].drops > 0);
}

#[test]
fn a_poisson_source_reaches_its_rate_within_three_standard_deviations() {
    // 12 Mbit/s of 1500-byte packets is λ = 1000 packets/s. Over 20 s the count of a Poisson
    // process is Poisson(20 000): standard deviation √20 000 = 141.4.
    let counts: Vec<u64> = [1, 2, 3]
        .iter()
        .map(|seed| {
            udp_packets_sent(
                &udp_alone("20s", "rate = \"12Mbps\"\npattern = \"poisson\"")
                    .replace("seed = 1", &format!("seed = {seed}")),
            )
        })
        .collect();
    for &n in &counts {
        assert!(n.abs_diff(20_000) as f64 <= 3.0 * 141.4, "{counts:?}");
    }
    // Random gaps: different seeds give different counts (a CBR source would send 20 001).
    assert!(counts.iter().any(|&n| n != counts[0]), "{counts:?}");
    assert!(!counts.contains(&20_001));
}

#[test]
fn an_on_off_source_with_fixed_periods_sends_rate_times_on_time_per_cycle() {
    // 12 Mbit/s (one 1500-byte packet per ms) on for 300 ms, off for 700 ms. Over 2.5 s the
    // on periods are [0, 0.3), [1, 1.3), [2, 2.3): 3 cycles of 300 packets each, the packet
    // at the end of a period not sent. Bytes: rate × on × cycles = 12e6 × 0.3 × 3 / 8.
    let (result, _) = run(&udp_alone(
        "2.5s",
        "rate = \"12Mbps\"\npattern = \"on-off\"\non = \"300ms\"\noff = \"700ms\"\nperiods = \"fixed\"",
    ));
    let f = &result.flows[0];
    assert_eq!(f.packets_sent, 900);
    assert_eq!(f.wire_bytes_sent, 12_000_000 * 3 * 3 / 10 / 8);
}

#[test]
fn an_on_off_source_with_exponential_periods_is_on_for_its_share_of_the_time() {
    // Exponential on and off periods of mean 100 ms at 12 Mbit/s (1000 packets/s while on),
    // for 100 s: the source is on for on/(on + off) = 1/2 of the time, 50 000 packets. The
    // on time of an alternating renewal process over T has variance
    // T (m_on² σ_off² + m_off² σ_on²) / (m_on + m_off)³ (Cox, Renewal Theory §7.3) =
    // 100 × (0.1² × 0.1² × 2) / 0.2³ = 2.5 s², sd 1.58 s: 1581 packets; allow 3 sd.
    let (result, _) = run(&udp_alone(
        "100s",
        "rate = \"12Mbps\"\npattern = \"on-off\"\non = \"100ms\"\noff = \"100ms\"",
    ));
    let n = result.flows[0].packets_sent;
    assert!(n.abs_diff(50_000) as f64 <= 3.0 * 1581.0, "{n}");
}

fn without_wall_clock(mut result: RunResult) -> RunResult {
    result.events = 0;
    result
}

#[test]
fn udp_runs_are_deterministic_and_their_streams_are_their_own() {
    let text = r#"
duration = "5s"
seed = 7
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 30 }
[[flows]]
cc = "cubic"
[[flows]]
kind = "udp"
rate = "3Mbps"
pattern = "poisson"
[[flows]]
kind = "udp"
rate = "2Mbps"
pattern = "on-off"
on = "200ms"
off = "300ms"
"#;
    let (a, _) = run(text);
    let (b, _) = run(text);
    assert_eq!(without_wall_clock(a.clone()), without_wall_clock(b));
    let (c, _) = run(&text.replace("seed = 7", "seed = 8"));
    assert_ne!(a.flows[1].packets_sent, c.flows[1].packets_sent);
}

#[test]
fn traced_udp_flows_log_sends_receives_and_drops() {
    // 15 Mbit/s of UDP into a 10 Mbit/s link with a 20-packet buffer: a third is dropped.
    let text = r#"
duration = "2s"
[topology]
bottleneck = { rate = "10Mbps", delay = "5ms", buffer = 20 }
[[flows]]
kind = "udp"
rate = "15Mbps"
[output]
trace_packets = [0]
"#;
    let (result, sink) = run(text);
    let f: &FlowResult = &result.flows[0];
    let count = |kind| sink.packets.iter().filter(|p| p.kind == kind).count() as u64;
    assert_eq!(count(PacketEventKind::Send), f.packets_sent);
    assert_eq!(count(PacketEventKind::Drop), f.drops);
    let udp = f.udp.as_ref().expect("a UDP flow");
    assert_eq!(count(PacketEventKind::Receive), udp.packets_delivered);
    // The link carries at most 10/15 of what is offered: a third or more is lost.
    let loss = f.drops as f64 / f.packets_sent as f64;
    assert!(loss > 0.3 && loss < 0.4, "{loss}");
}

/// One Reno flow on a 10 Mbit/s, 10 ms path with the given `on_off`.
fn on_off_flow(duration: &str, on_off: &str) -> String {
    format!(
        r#"
duration = "{duration}"
seed = 1
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = "1bdp" }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
on_off = {on_off}
"#
    )
}

#[test]
fn an_on_off_application_delivers_one_burst_per_on_period() {
    // On 1 s, off 1 s, fixed: on periods start at 0, 2 and 4 s within 5.5 s. 100 kB at
    // 10 Mbit/s take 80 ms plus a few RTTs of slow start from 10 segments, well inside an on
    // period: every burst is written and delivered whole, 3 × 100 000 bytes.
    let text = on_off_flow(
        "5.5s",
        r#"{ on = "1s", off = "1s", periods = "fixed", burst = "100KB" }"#,
    );
    let (result, sink) = run(&text);
    assert_eq!(result.flows[0].delivered_bytes, 300_000);
    // Nothing moves while the application is off (1 to 2 s, 3 to 4 s; the sample at 2 s
    // comes after the next on period's first send).
    for (from, to) in [(1.0, 1.99), (3.0, 3.99)] {
        let samples = flow_samples(&sink, 0, from, to);
        assert!(samples.len() > 10);
        assert!(
            samples
                .iter()
                .all(|s| s.bytes_sent == samples[0].bytes_sent),
            "sent between {from} and {to} s"
        );
    }
}

#[test]
fn a_backlogged_on_off_application_sends_only_while_on() {
    // Without a burst the application writes as long as an on period lasts, then stops:
    // after the last in-flight data is acknowledged (a few RTTs of ~24 ms plus the queue),
    // nothing is sent until the next on period at 2 s. Bytes sent in [1.3, 1.99] s: none.
    let text = on_off_flow("3s", r#"{ on = "1s", off = "1s", periods = "fixed" }"#);
    let (result, sink) = run(&text);
    let quiet = flow_samples(&sink, 0, 1.3, 1.99);
    assert!(quiet.iter().all(|s| s.bytes_sent == quiet[0].bytes_sent));
    // It did send during both on periods: ~1 s at up to 10 Mbit/s each.
    let at = |t: f64| flow_samples(&sink, 0, t, t)[0].delivered_bytes;
    assert!(at(1.3) > 500_000, "{}", at(1.3));
    assert!(at(3.0) > at(2.0) + 500_000);
    assert!(result.flows[0].completed_at.is_none());
}

#[test]
fn on_off_runs_are_deterministic() {
    let text = on_off_flow("6s", r#"{ on = "500ms", off = "700ms", burst = "50KB" }"#);
    let (a, _) = run(&text);
    let (b, _) = run(&text);
    assert_eq!(without_wall_clock(a.clone()), without_wall_clock(b));
    // Exponential periods from the flow's own stream: another seed, other periods.
    let (c, _) = run(&text.replace("seed = 1", "seed = 2"));
    assert_ne!(a.flows[0].delivered_bytes, c.flows[0].delivered_bytes);
}

#[test]
fn an_on_off_application_restarts_from_the_initial_window_after_idle() {
    // 200 kB bursts every 2 s through a 100-packet buffer (no loss): slow start ends each
    // burst with cwnd well above the 10-segment initial window; the next burst comes 1 s
    // after, longer than any RTO here (RTT ~24 ms: RTO = 200 ms, the minimum), so RFC 5681
    // §4.1 restarts it from RW = min(IW, cwnd) = 10 segments: one restart per burst after
    // the first. With slow_start_after_idle = false the window is kept.
    let text = |restart: bool| {
        format!(
            r#"
duration = "5.5s"
seed = 1
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 100 }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
on_off = {{ on = "1s", off = "1s", periods = "fixed", burst = "200KB", slow_start_after_idle = {restart} }}
"#
        )
    };
    let restarts = |sink: &cclab_sim::MemorySink| {
        sink.events
            .iter()
            .filter(|e| e.kind == cclab_sim::FlowEventKind::IdleRestart)
            .map(|e| e.time.as_secs_f64())
            .collect::<Vec<_>>()
    };
    let (result, sink) = run(&text(true));
    assert_eq!(result.flows[0].drops, 0);
    assert_eq!(restarts(&sink), [2.0, 4.0]);
    assert_eq!(result.flows[0].delivered_bytes, 600_000);
    // The first RTT of the second burst carries the initial window: 10 segments.
    let at = |sink: &cclab_sim::MemorySink, t: f64| flow_samples(sink, 0, t, t)[0].bytes_sent;
    assert_eq!(at(&sink, 2.01) - at(&sink, 1.99), 10 * 1448);
    let (kept, kept_sink) = run(&text(false));
    assert!(restarts(&kept_sink).is_empty());
    assert_eq!(kept.flows[0].delivered_bytes, 600_000);
    // Without the restart the second burst starts with the whole window it ended with.
    assert!(at(&kept_sink, 2.01) - at(&kept_sink, 1.99) > 10 * 1448);
}
