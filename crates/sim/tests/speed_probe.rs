use cclab_sim::{NullSink, Simulation};

#[test]
#[ignore]
fn speed_probe() {
    for (rate, flows) in [("100Mbps", 1), ("1Gbps", 10)] {
        let text = format!(
            r#"
duration = "60s"
[topology]
bottleneck = {{ rate = "{rate}", delay = "30ms", buffer = "1bdp" }}
access = {{ rate = "10Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
count = {flows}
"#
        );
        let scenario = cclab_scenario::from_str("p.toml", &text, &[]).unwrap();
        let t = std::time::Instant::now();
        let result = Simulation::new(&scenario)
            .run(&mut NullSink, &mut |_| {})
            .unwrap();
        let wall = t.elapsed().as_secs_f64();
        let pkts = result.links[0].stats.packets;
        eprintln!(
            "{rate} x{flows}: wall {wall:.3}s events {} bottleneck pkts {pkts} => {:.0} pkt/s, util {:.3}",
            result.events,
            pkts as f64 / wall,
            result.links[0].busy.as_secs_f64() / 60.0
        );
    }
}
