//! VCP (Xia, Subramanian, Stoica, Kalyanaraman, SIGCOMM 2005; docs/algorithms/vcp.md) on the
//! dumbbell: with only two bits of feedback it approaches XCP's headline (§6) — a full link,
//! a near-empty queue, no loss — and its AIMD in the high-load region brings flows toward
//! fairness, more slowly than XCP's explicit per-flow feedback.

mod common;

use common::{delivered_between, run};

const SCENARIO: &str = r#"
name = "vcp"
duration = "30s"
[topology]
bottleneck = { rate = "20Mbps", delay = "20ms", buffer = "2bdp", queue = "vcp" }
[[flows]]
cc = "vcp"
[[flows]]
cc = "vcp"
start = "5s"
[output]
steady_from = "15s"
"#;

#[test]
fn vcp_keeps_the_link_busy_with_an_empty_queue_and_converges_toward_fairness() {
    let (result, sink) = run(SCENARIO);
    let link = &result.links[0];
    let stats = link.stats.since(&link.at_window_start);
    let window = result.duration.as_secs_f64() - result.window_start.as_secs_f64();
    let utilization = (link.busy - link.busy_at_window_start).as_secs_f64() / window;
    let mean_queue = stats.queue_integral as f64 / (window * 1e9);
    let gap = |from: f64, to: f64| {
        let a = delivered_between(&sink, 0, from, to) as f64;
        let b = delivered_between(&sink, 1, from, to) as f64;
        (a - b).abs() / (a + b)
    };
    let (early, late) = (gap(10.0, 15.0), gap(25.0, 30.0));
    eprintln!(
        "VCP: utilization {utilization:.4}, mean queue {mean_queue:.2} packets, drops {}, \
         rate gap {early:.3} at 10-15 s, {late:.3} at 25-30 s",
        stats.drops()
    );
    // Between overloads the load climbs through the high-load region by AI and an overload
    // cuts it by β = 0.875: the link's load runs from about β·γ = 0.8575 up to γ = 0.98 of
    // capacity (§3.1's target utilization), never below the sawtooth's floor on average.
    assert!(utilization >= 0.875 * 0.98, "utilization {utilization}");
    // The load factor counts half the persistent queue (κq = 0.5) as demand, so a standing
    // queue reads as overload and is cut: a few packets at most, and no loss.
    assert!(mean_queue < 5.0, "mean queue {mean_queue} packets");
    assert_eq!(stats.drops(), 0);
    // §4.2: AIMD (AI α(rtt) per RTT for each flow, MD ×β proportional to rate) closes the
    // gap between the two flows' shares over time.
    assert!(late < early, "rate gap {early} then {late}");
}

#[test]
fn without_vcp_routers_the_sender_behaves_as_reno() {
    let text = SCENARIO.replace("queue = \"vcp\"", "queue = \"droptail\"");
    let (vcp, _) = run(&text);
    let (reno, _) = run(&text.replace("cc = \"vcp\"", "cc = \"reno\""));
    for i in 0..2 {
        assert_eq!(vcp.flows[i].delivered_bytes, reno.flows[i].delivered_bytes);
    }
}
