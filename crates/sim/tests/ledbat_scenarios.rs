//! LEDBAT (RFC 6817; docs/algorithms/ledbat.md) on the dumbbell, against the RFC's headline:
//! alone it holds its own queueing delay at TARGET (§2.1, §2.4), and next to standard TCP,
//! which fills the queue beyond TARGET, it yields, keeping its minimum window (§1, §4.1).

mod common;

use cclab_sim::RunResult;
use common::run;

/// 5 Mbit/s: a 1500-byte packet takes 2.4 ms, so TARGET = 100 ms is about 42 packets; the
/// buffer (300 packets, 720 ms) never limits LEDBAT.
fn dumbbell(extra_flow: &str) -> String {
    format!(
        r#"
name = "ledbat"
duration = "30s"
[topology]
bottleneck = {{ rate = "5Mbps", delay = "20ms", buffer = 300 }}
[[flows]]
cc = "ledbat"
{extra_flow}
[output]
steady_from = "20s"
"#
    )
}

fn steady_goodput_bps(result: &RunResult, flow: usize) -> f64 {
    let f = &result.flows[flow];
    let window = result.duration.as_secs_f64() - result.window_start.as_secs_f64();
    (f.delivered_bytes - f.at_window_start.delivered_bytes) as f64 * 8.0 / window
}

const TARGET_S: f64 = 0.100;
const PACKET_S: f64 = 1500.0 * 8.0 / 5e6;

#[test]
fn alone_ledbat_holds_its_queueing_delay_at_target() {
    let (result, _) = run(&dumbbell(""));
    let link = &result.links[0];
    let stats = link.stats.since(&link.at_window_start);
    let mean_delay_s = stats.queue_delay.mean().expect("packets were queued") / 1e9;
    eprintln!(
        "LEDBAT alone: mean queueing delay {:.1} ms, drops {}",
        mean_delay_s * 1e3,
        stats.drops()
    );
    // RFC 6817 §2.4.2: the window grows by GAIN·off_target segments per RTT, so the
    // queueing delay q approaches TARGET as q' = (packet time)·(1 − q/TARGET) per RTT: a
    // time constant of TARGET/(packet time) = 42 RTTs of at most 0.145 s, about 6 s. By
    // t = 20 s (over three time constants after the first second) q is within e^-3 = 5 %
    // of TARGET; it never settles more than a packet above it (the window shrinks there).
    let time_constant_s = TARGET_S / PACKET_S * (0.0415 + TARGET_S);
    assert!((time_constant_s - 5.9).abs() < 0.1, "{time_constant_s}");
    let floor = TARGET_S * (1.0 - (-(20.0 - 1.0) / time_constant_s).exp());
    assert!(
        mean_delay_s >= floor && mean_delay_s <= TARGET_S + PACKET_S,
        "mean queueing delay {mean_delay_s}, expected within [{floor}, {}]",
        TARGET_S + PACKET_S
    );
    assert_eq!(stats.drops(), 0);
}

#[test]
fn next_to_cubic_ledbat_yields_to_its_minimum_window() {
    let (result, _) = run(&dumbbell("[[flows]]\ncc = \"cubic\""));
    let ledbat = steady_goodput_bps(&result, 0);
    let cubic = steady_goodput_bps(&result, 1);
    eprintln!("LEDBAT {ledbat:.0} bit/s next to CUBIC {cubic:.0} bit/s");
    // CUBIC fills the 300-packet buffer beyond TARGET (42 packets), so LEDBAT's off_target
    // stays negative and its window at MIN_CWND = 2 segments, one per round trip of at
    // least base RTT + TARGET: at most 2 · 1448 B · 8 / 0.1415 s = 164 kbit/s.
    let bound = 2.0 * 1448.0 * 8.0 / (0.0415 + TARGET_S);
    assert!(ledbat <= bound, "LEDBAT {ledbat} bit/s above {bound}");
    // CUBIC takes the rest: at least 95 % of the link's payload rate (5 Mbit/s × 1448/1500).
    assert!(
        cubic >= 0.95 * 5e6 * 1448.0 / 1500.0 - bound,
        "CUBIC {cubic}"
    );
}
