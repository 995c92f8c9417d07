//! Headline speed: simulated bottleneck packets per wall second.
//!
//! `cargo bench -p cclab-sim` runs each scenario for a few simulated seconds and reports the
//! throughput in bottleneck packets per second ("items/s"). Whole-run figures with peak memory
//! come from `cclab run examples/bench-*.toml` (see docs/performance.md).

use cclab_sim::{NullSink, Simulation};
use divan::counter::ItemsCount;

fn main() {
    divan::main();
}

fn scenario(rate: &str, flows: u32, cc: &str, seconds: u32) -> cclab_scenario::Scenario {
    let text = format!(
        r#"
duration = "{seconds}s"
[topology]
bottleneck = {{ rate = "{rate}", delay = "30ms", buffer = "1bdp" }}
access = {{ rate = "10Gbps", delay = "1ms" }}
[[flows]]
cc = "{cc}"
count = {flows}
"#
    );
    cclab_scenario::from_str("bench.toml", &text, &[]).expect("benchmark scenarios are valid")
}

fn bench(bencher: divan::Bencher, scenario: &cclab_scenario::Scenario) {
    // Count the packets once, outside the timed loop, so the counter is exact.
    let packets = Simulation::new(scenario)
        .run(&mut NullSink, &mut |_| {})
        .expect("benchmark runs are valid")
        .links[0]
        .stats
        .packets;
    bencher.counter(ItemsCount::new(packets)).bench(|| {
        Simulation::new(scenario)
            .run(&mut NullSink, &mut |_| {})
            .expect("benchmark runs are valid")
    });
}

/// One NewReno flow, 100 Mbit/s, 64 ms RTT, 1-BDP buffer, 10 s.
#[divan::bench(sample_count = 5)]
fn newreno_100mbps(bencher: divan::Bencher) {
    bench(bencher, &scenario("100Mbps", 1, "reno", 10));
}

/// Ten CUBIC flows, 1 Gbit/s, 64 ms, 1-BDP buffer, 5 s.
#[divan::bench(sample_count = 3)]
fn cubic_10_flows_1gbps(bencher: divan::Bencher) {
    bench(bencher, &scenario("1Gbps", 10, "cubic", 5));
}

/// One BBR flow (paced), 100 Mbit/s, 10 s.
#[divan::bench(sample_count = 5)]
fn bbr_100mbps(bencher: divan::Bencher) {
    bench(bencher, &scenario("100Mbps", 1, "bbr", 10));
}
