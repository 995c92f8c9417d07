//! PCC Vivace (docs/algorithms/vivace.md) on the dumbbell: alone it settles its rate just
//! under the link with almost no queue (its utility penalizes a growing RTT before any loss,
//! Dong et al. NSDI 2018 §3); next to CUBIC, which fills the buffer, it yields (§6's
//! TCP-friendliness: Vivace takes less than CUBIC).

mod common;

use cclab_sim::RunResult;
use common::run;

fn dumbbell(flows: &str) -> String {
    format!(
        r#"
name = "vivace"
duration = "20s"
[topology]
bottleneck = {{ rate = "20Mbps", delay = "20ms", buffer = "1bdp" }}
[[flows]]
cc = "vivace"
{flows}
[output]
steady_from = "5s"
"#
    )
}

fn window_s(result: &RunResult) -> f64 {
    result.duration.as_secs_f64() - result.window_start.as_secs_f64()
}

#[test]
fn alone_vivace_runs_just_under_the_link_with_almost_no_queue() {
    let (result, _) = run(&dumbbell(""));
    let link = &result.links[0];
    let stats = link.stats.since(&link.at_window_start);
    let utilization = (link.busy - link.busy_at_window_start).as_secs_f64() / window_s(&result);
    let mean_queue = stats.queue_integral as f64 / (window_s(&result) * 1e9);
    eprintln!(
        "Vivace alone: utilization {utilization:.4}, mean queue {mean_queue:.2} packets, drops {}",
        stats.drops()
    );
    // The rate is probed at r(1 ± ε) with ε = 0.05 and moves by at least 1 % per MI: it
    // settles within about one probing step of capacity and spends half its probes ε below,
    // so utilization stays above 1 − 3ε = 0.85.
    assert!(utilization >= 0.85, "utilization {utilization}");
    // Any sustained rate above capacity grows the RTT by (r − C)/C seconds per second; the
    // utility's b = 900 makes a 1 % excess (a gradient of 0.01) cost 9·x, more than x^0.9
    // earns: the queue cannot stand. Less than 2 packets on average, no loss.
    assert!(mean_queue < 2.0, "mean queue {mean_queue}");
    assert_eq!(stats.drops(), 0);
}

#[test]
fn next_to_cubic_vivace_takes_less_than_half() {
    let (result, _) = run(&dumbbell("[[flows]]\ncc = \"cubic\""));
    let bytes = |i: usize| result.flows[i].window().delivered_bytes as f64;
    let share = bytes(0) / (bytes(0) + bytes(1));
    eprintln!("Vivace's share next to CUBIC: {share:.3}");
    // CUBIC fills the buffer; every MI of Vivace then sees the RTT grow (or loss) at any
    // rate above its current one, so its gradient points down while CUBIC's window grows.
    assert!(share < 0.5, "share {share}");
}
