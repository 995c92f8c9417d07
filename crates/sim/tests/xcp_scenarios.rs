//! XCP (Katabi, Handley, Rohrs, SIGCOMM 2002; docs/algorithms/xcp.md) on the dumbbell
//! against the paper's headline (§5): the routers' efficiency controller fills the link with a
//! near-empty queue and no drops, and the fairness controller gives flows of different RTTs
//! equal throughput (where TCP's share goes as 1/RTT).

mod common;

use common::run;

fn dumbbell(cc: &str, queue: &str) -> String {
    format!(
        r#"
name = "xcp"
duration = "30s"
[topology]
bottleneck = {{ rate = "20Mbps", delay = "20ms", buffer = "2bdp", queue = "{queue}" }}
[[flows]]
cc = "{cc}"
[[flows]]
cc = "{cc}"
start = "5s"
extra_rtt = "60ms"
[output]
steady_from = "15s"
"#
    )
}

#[test]
fn xcp_fills_the_link_with_an_empty_queue_and_equal_shares_across_rtts() {
    let (result, _) = run(&dumbbell("xcp", "xcp"));
    let link = &result.links[0];
    let stats = link.stats.since(&link.at_window_start);
    let window = result.duration.as_secs_f64() - result.window_start.as_secs_f64();
    let utilization = (link.busy - link.busy_at_window_start).as_secs_f64() / window;
    let mean_queue = stats.queue_integral as f64 / (window * 1e9);
    let rate = |i: usize| result.flows[i].window().delivered_bytes as f64 * 8.0 / window;
    let ratio = rate(0) / rate(1);
    eprintln!(
        "XCP: utilization {utilization:.4}, mean queue {mean_queue:.2} packets, drops {}, \
         rates {:.2} / {:.2} Mbit/s (RTT 41 / 101 ms)",
        stats.drops(),
        rate(0) / 1e6,
        rate(1) / 1e6
    );
    // §3.5.1: φ = α·d·S − β·Q drives both the spare bandwidth S and the persistent queue Q
    // to zero; the paper's simulations (§5.1) show near-full utilization with a queue of a
    // few packets and no drops. The buffer (2 BDP = 135 packets) is never reached.
    assert!(utilization >= 0.95, "utilization {utilization}");
    assert!(mean_queue < 5.0, "mean queue {mean_queue} packets");
    assert_eq!(stats.drops(), 0);
    // §3.5.2: positive feedback equal per flow and negative feedback proportional to rate,
    // with shuffling, converge to equal rates whatever the RTT (§5.2, Fig. 7). Reno over
    // drop-tail would give the 41 ms flow about 101/41 = 2.5 times the other's rate.
    assert!((0.8..=1.25).contains(&ratio), "rate ratio {ratio}");
}

#[test]
fn without_xcp_routers_the_sender_behaves_as_reno() {
    // The request comes back untouched: XCP senders grow as Reno, and share as Reno does,
    // the short-RTT flow taking more.
    let (result, _) = run(&dumbbell("xcp", "droptail"));
    let reno = run(&dumbbell("reno", "droptail")).0;
    let delivered = |r: &cclab_sim::RunResult, i: usize| r.flows[i].delivered_bytes;
    assert_eq!(delivered(&result, 0), delivered(&reno, 0));
    assert_eq!(delivered(&result, 1), delivered(&reno, 1));
}
