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
    // Base RTTs 14 ms and 14 + 180 or 280 ms on a 10 Mbit/s bottleneck. Libra adds
    // Δ = k1·T²/(T + T1) packets per RTT, so a flow's rate w/T grows by Δ/T² = k1/(T + T1)
    // per second: with T1 = 1 s the short flow's rate grows only g = (T2 + 1)/(T1 + 1) times
    // faster, T being the mean RTTs. If shares follow growth rates, A = (g − 1)/(g + 1):
    // positive (the short flow gets slightly more) and small, 0.07–0.11 here. We require
    // Libra's A within 0.05 of that prediction, which fixes its sign (the prediction minus
    // 0.05 is still positive) and rules out an increase law that favours either RTT more
    // (Reno's 1/T², or one that favours long RTTs). Measured: 0.063 (predicted 0.074) and
    // 0.116 (0.110). Reno adds 1 packet per RTT, a rate growth of 1/T², and its throughput
    // goes as 1/RTT (RTT-proportional drops) to 1/RTT² (synchronized drops):
    // A ≥ (R2/R1 − 1)/(R2/R1 + 1) with R the mean RTTs; measured 0.40 and 0.64 over floors of
    // 0.32 and 0.42.
    //
    // At 20 and 50 Mbit/s the drop-tail queue adds an effect the growth law ignores (the
    // short flow takes a cut every one of its RTTs while the queue is full), which pushed
    // Libra's A to −0.17 at 50 Mbit/s/+280 ms (libra.md); those runs test drop-tail, not
    // Libra, and are left out.
    for extra in [180, 280] {
        let (libra, libra_rtt) = two_flows("libra", "10Mbps", extra);
        let (reno, reno_rtt) = two_flows("reno", "10Mbps", extra);
        let (a_libra, a_reno) = (index_a(libra), index_a(reno));
        let ratio = reno_rtt.1 / reno_rtt.0;
        let reno_floor = (ratio - 1.0) / (ratio + 1.0);
        let growth = (libra_rtt.1 + 1.0) / (libra_rtt.0 + 1.0);
        let a_predicted = (growth - 1.0) / (growth + 1.0);
        eprintln!(
            "10 Mbit/s, +{extra} ms: libra A {a_libra:.3} (predicted {a_predicted:.3}), \
             reno A {a_reno:.3} (1/RTT floor {reno_floor:.3})"
        );
        assert!(
            (a_libra - a_predicted).abs() <= 0.05,
            "+{extra} ms: libra A {a_libra:.3}, growth-rate prediction {a_predicted:.3}"
        );
        assert!(a_predicted - 0.05 > 0.0, "the band fixes the sign");
        assert!(a_reno > reno_floor, "+{extra} ms: reno A {a_reno}");
    }
}
