//! TCP Prague (docs/algorithms/prague.md) over DualPI2, against the L4S headlines: alone it
//! keeps the L4S queue at the 1 ms step at full utilization (RFC 9330 §1, RFC 9332); next to
//! a classic CUBIC flow the coupled AQM shares the link as the coupling predicts (RFC 9332
//! §2.1); and its RTT independence (RFC 9331 §4.3; Linux `RTT_CONTROL_RATE`) lets flows of
//! different RTTs below the 25 ms target converge to similar rates, where a per-RTT law
//! (DCTCP's) gives the short flow most of the link.

mod common;

use cclab_sim::RunResult;
use common::run;

fn dumbbell(rate: &str, flows: &str, duration: &str, steady_from: &str) -> String {
    dumbbell_with_delay(rate, "1ms", flows, duration, steady_from)
}

fn dumbbell_with_delay(
    rate: &str,
    delay: &str,
    flows: &str,
    duration: &str,
    steady_from: &str,
) -> String {
    format!(
        r#"
name = "prague"
duration = "{duration}"
[topology]
bottleneck = {{ rate = "{rate}", delay = "{delay}", buffer = 500, queue = "dualpi2" }}
access = {{ rate = "1Gbps", delay = "250us" }}
[output]
steady_from = "{steady_from}"
{flows}
"#
    )
}

fn window_s(result: &RunResult) -> f64 {
    result.duration.as_secs_f64() - result.window_start.as_secs_f64()
}

fn goodput(result: &RunResult, i: usize) -> f64 {
    result.flows[i].window().delivered_bytes as f64 * 8.0 / window_s(result)
}

fn utilization(result: &RunResult) -> f64 {
    let link = &result.links[0];
    (link.busy - link.busy_at_window_start).as_secs_f64() / window_s(result)
}

const PRAGUE: &str = "[[flows]]\ncc = \"prague\"\necn = \"l4s\"\ndelayed_ack = false\n";

#[test]
fn alone_prague_keeps_the_l4s_queue_at_the_1ms_step_at_full_utilization() {
    let (result, _) = run(&dumbbell("300Mbps", PRAGUE, "10s", "3s"));
    let link = &result.links[0];
    let stats = link.stats.since(&link.at_window_start);
    let delay_s = stats.queue_delay.mean().expect("packets crossed") / 1e9;
    let utilization = utilization(&result);
    eprintln!(
        "Prague alone: mean L4S queue delay {:.3} ms, utilization {utilization:.4}, drops {}",
        delay_s * 1e3,
        stats.drops()
    );
    // 300 Mbit/s of 1500-byte packets: 25 000 packets/s, so the 1 ms step is K = 25 packets;
    // base RTT 3.07 ms: C·RTT = 76.7 packets. A scalable flow's sawtooth under a step
    // (Alizadeh et al. §3.3, as for DCTCP) swings between K + 1 − ½·√(2(C·RTT + K)) = 18.9
    // and K + 1 = 26 packets; Prague's increase per RTT is at most DCTCP's (RTT scaling
    // only slows it), so its swing is no wider. The mean sojourn lies between Q_min and
    // Q_max + 1 packet times: 0.76 to 1.08 ms.
    let pkts_per_s: f64 = 300e6 / 8.0 / 1500.0;
    let k = 1e-3 * pkts_per_s;
    let (q_min, q_max) = (k + 1.0 - 0.5 * (2.0 * (76.7 + k)).sqrt(), k + 1.0);
    let (low, high) = (q_min / pkts_per_s, (q_max + 1.0) / pkts_per_s);
    assert!(
        (low..=high).contains(&delay_s),
        "mean delay {delay_s}, model {low} .. {high}"
    );
    assert_eq!(stats.drops(), 0);
    assert_eq!(
        result.flows[0].ecn_reductions, 0,
        "Prague takes the marks itself"
    );
    assert!(utilization >= 0.99, "utilization {utilization}");
}

#[test]
fn next_to_cubic_dualpi2_shares_the_link_as_the_coupling_predicts() {
    let flows = format!("{PRAGUE}[[flows]]\ncc = \"cubic\"\ndelayed_ack = false\n");
    // The pie_scenarios.rs DualPI2 link: 20 Mbit/s, 20 ms each way, so the base RTT (about
    // 44 ms) is above Prague's 25 ms target and RTT scaling stays off: Prague's law is
    // DCTCP's, W = 2/p.
    let (result, _) = run(&dumbbell_with_delay("20Mbps", "20ms", &flows, "40s", "10s"));
    let ratio = goodput(&result, 0) / goodput(&result, 1);
    eprintln!(
        "Prague {:.2} Mbit/s, CUBIC {:.2} Mbit/s",
        goodput(&result, 0) / 1e6,
        goodput(&result, 1) / 1e6
    );
    // RFC 9332 §2.1 / Appendix C, as for DCTCP (pie_scenarios.rs): with the coupled marks
    // p_L = 2p′, W_L = 2/p_L = 1/p′ against CUBIC's Reno-friendly W_C = 1.22/p′; rates are
    // windows over RTTs: r_L/r_C ≈ (1/1.22)·(44 + 15)/(44 + 1) ≈ 1.07; the step's extra
    // marks can only lower it. A factor of 2 around the prediction: 0.54 to 2.15.
    assert!((0.54..=2.15).contains(&ratio), "Prague/CUBIC ratio {ratio}");
    assert!(utilization(&result) > 0.9);
}

fn two_rtts(scaling: &str) -> String {
    let flows = format!(
        "{PRAGUE}params = {{ rtt_scaling = \"{scaling}\" }}\n\
         {PRAGUE}extra_rtt = \"12ms\"\nparams = {{ rtt_scaling = \"{scaling}\" }}\n"
    );
    dumbbell("100Mbps", &flows, "30s", "15s")
}

#[test]
fn rtt_independence_brings_flows_of_3_and_15_ms_to_similar_rates() {
    let (scaled, _) = run(&two_rtts("rate"));
    let (per_rtt, _) = run(&two_rtts("none"));
    let ratio = goodput(&scaled, 0) / goodput(&scaled, 1);
    let ratio_none = goodput(&per_rtt, 0) / goodput(&per_rtt, 1);
    eprintln!("short/long rate ratio: {ratio:.2} with RTT scaling, {ratio_none:.2} without");
    // With RTT scaling (both RTTs below the 25 ms target, and both flows well past their
    // 500-round transition by t = 15 s: 500 × 15 ms = 7.5 s), a flow of RTT R grows its
    // window by (R/T)² per RTT and reduces at most once per T: per unit time its rate gains
    // 1/T² segments/s² and loses α/2 of itself per T, whatever R, so equal marking gives
    // equal rates. The fluid argument leaves out the feedback delay, which is the flow's own
    // RTT (the long flow keeps growing for 15 ms after the queue crosses the step, the short
    // one for 3 ms): within a factor of 2 of equal.
    assert!((0.5..=2.0).contains(&ratio), "scaled ratio {ratio}");
    // Without it each flow gains one segment per own RTT: at equal marking both windows
    // settle alike and the rates differ at least by the RTT ratio, 15.15/3.15 = 4.8.
    assert!(ratio_none >= 15.15 / 3.15, "per-RTT ratio {ratio_none}");
    assert!(utilization(&scaled) > 0.95 && utilization(&per_rtt) > 0.95);
}
