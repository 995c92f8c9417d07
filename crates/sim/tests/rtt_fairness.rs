//! RTT fairness on the dumbbell: two flows of one algorithm, one with a short and one with a
//! long RTT, share a bottleneck whose buffer stays well above both windows' cuts.
//!
//! aggregate index A = (x1 − x2)/(x1 + x2), x1 the short-RTT flow's goodput (seed-spec §4.1).

use cclab_sim::{MemorySink, Simulation};

/// Goodputs (bit/s) of the short-RTT and the long-RTT flow over [100 s, 300 s], and their
/// mean RTTs (s).
fn two_flows(cc: &str, rate: &str, extra_rtt_ms: u32) -> ((f64, f64), (f64, f64)) {
    let text = format!(
        r#"
duration = "300s"
[topology]
bottleneck = {{ rate = "{rate}", delay = "5ms", buffer = 200 }}
access = {{ rate = "100Mbps", delay = "1ms" }}
[[flows]]
cc = "{cc}"
[[flows]]
cc = "{cc}"
extra_rtt = "{extra_rtt_ms}ms"
[output]
steady_from = "100s"
"#
    );
    let scenario = cclab_scenario::from_str("test.toml", &text, &[]).expect("valid scenario");
    let result = Simulation::new(&scenario)
        .run(&mut MemorySink::default(), &mut |_| {})
        .expect("invariants hold");
    let steady = result.duration.as_secs_f64() - result.window_start.as_secs_f64();
    let goodput = |i: usize| {
        let flow = &result.flows[i];
        (flow.delivered_bytes - flow.at_window_start.delivered_bytes) as f64 * 8.0 / steady
    };
    let mean_rtt = |i: usize| result.flows[i].mean_rtt.expect("RTT sampled").as_secs_f64();
    ((goodput(0), goodput(1)), (mean_rtt(0), mean_rtt(1)))
}

fn index_a((x1, x2): (f64, f64)) -> f64 {
    (x1 - x2) / (x1 + x2)
}

#[test]
fn libra_shares_fairly_across_rtts_where_reno_favours_the_short_one() {
    // Base RTTs 14 ms and 14 + 180 or 280 ms. Libra's goal is fair shares whatever the RTT
    // (A = 0): it adds Δ = k1·T²/(T + T1) packets per RTT, so a flow's rate w/T grows by
    // Δ/T² = k1/(T + T1) per second, and with T1 = 1 s the short flow's grows only
    // (T2 + 1)/(T1 + 1) ≈ 1.2–1.3 times faster (A ≈ 0.1 if shares followed growth rates).
    // The short flow also meets more of the drop-tail overflows (one cut per RTT of a full
    // queue), which moves A the other way. We require shares within 3:2 of each other,
    // |A| ≤ 0.2. Reno adds 1 packet per RTT, a rate growth of 1/T², and its throughput goes
    // as 1/RTT (RTT-proportional drops) to 1/RTT² (synchronized drops):
    // A ≥ (R2/R1 − 1)/(R2/R1 + 1) with R the mean RTTs, above 0.55 here.
    for (rate, extra) in [("20Mbps", 280), ("50Mbps", 180), ("50Mbps", 280)] {
        let (libra, libra_rtt) = two_flows("libra", rate, extra);
        let (reno, reno_rtt) = two_flows("reno", rate, extra);
        let (a_libra, a_reno) = (index_a(libra), index_a(reno));
        let ratio = reno_rtt.1 / reno_rtt.0;
        let reno_floor = (ratio - 1.0) / (ratio + 1.0);
        let growth = (libra_rtt.1 + 1.0) / (libra_rtt.0 + 1.0);
        let a_predicted = (growth - 1.0) / (growth + 1.0);
        eprintln!(
            "{rate}, +{extra} ms: libra A {a_libra:.3} (predicted {a_predicted:.3}), \
             reno A {a_reno:.3} (1/RTT floor {reno_floor:.3})"
        );
        assert!(a_libra.abs() <= 0.2, "{rate}/{extra}: libra A {a_libra}");
        assert!(a_reno > reno_floor, "{rate}/{extra}: reno A {a_reno}");
    }
}
