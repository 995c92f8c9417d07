//! The measurement hooks: per-flow drops, packet traces, RTT and queue histograms, and the
//! steady-state window snapshot.

use cclab_sim::{MemorySink, PacketEventKind, RunResult, Simulation};

fn run(text: &str) -> (RunResult, MemorySink) {
    let scenario = cclab_scenario::from_str("test.toml", text, &[]).expect("valid scenario");
    let mut sink = MemorySink::default();
    let result = Simulation::new(&scenario)
        .run(&mut sink, &mut |_| {})
        .expect("invariants hold");
    (result, sink)
}

const TWO_FLOWS: &str = r#"
duration = "4s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = "1bdp" }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
drop = [20, 21, 40]
[[flows]]
cc = "reno"
start = "1s"
[output]
steady_from = "2s"
trace_packets = [0]
"#;

#[test]
fn traced_flow_logs_its_packets_and_drops() {
    let (result, sink) = run(TWO_FLOWS);
    let flow = &result.flows[0];
    // The three forced drops are the flow's (overflow drops may add more).
    assert!(flow.drops >= 3);
    let events = &sink.packets;
    assert!(events.iter().all(|e| e.flow == 0), "only flow 0 is traced");
    let count = |kind| events.iter().filter(|e| e.kind == kind).count() as u64;
    assert_eq!(count(PacketEventKind::Drop), flow.drops);
    assert_eq!(
        count(PacketEventKind::Send) + count(PacketEventKind::Retransmit),
        flow.packets_sent
    );
    assert_eq!(count(PacketEventKind::Retransmit), flow.retransmissions);
    let dropped: Vec<u64> = events
        .iter()
        .filter(|e| e.kind == PacketEventKind::Drop)
        .take(3)
        .map(|e| e.seq / 1448)
        .collect();
    assert_eq!(dropped, [20, 21, 40]);
    assert!(events.windows(2).all(|w| w[0].time <= w[1].time));
}

#[test]
fn window_counters_are_the_difference_of_snapshots() {
    let (result, _) = run(TWO_FLOWS);
    assert_eq!(result.window_start.as_nanos(), 2_000_000_000);
    for flow in &result.flows {
        let at = &flow.at_window_start;
        assert!(at.delivered_bytes <= flow.delivered_bytes);
        if flow.id == 0 {
            // Flow 0 runs from the start: it delivered data before and after 2 s.
            assert!(at.delivered_bytes > 0 && at.delivered_bytes < flow.delivered_bytes);
        }
        let window = flow.window();
        assert_eq!(
            window.delivered_bytes + at.delivered_bytes,
            flow.delivered_bytes
        );
        assert_eq!(window.rtt.count() + at.rtt.count(), flow.rtt.count());
    }
    let link = &result.links[0];
    assert!(link.busy_at_window_start > cclab_cc::SimDuration::ZERO);
    assert!(link.busy_at_window_start < link.busy);
    assert!(link.at_window_start.packets < link.stats.packets);
}

#[test]
fn histograms_account_for_every_sample_and_all_time() {
    let (result, _) = run(TWO_FLOWS);
    let flow = &result.flows[0];
    assert!(flow.rtt.count() > 100);
    let mean = flow.rtt.mean().unwrap();
    assert!((mean - flow.mean_rtt.unwrap().as_nanos() as f64).abs() < 1.0);
    assert_eq!(flow.rtt.min(), flow.min_rtt.map(|d| d.as_nanos()));
    // The time-weighted queue distribution covers the whole run and agrees with the integral.
    let stats = &result.links[0].stats;
    let total: u64 = stats.queue_time_ns.iter().sum();
    assert_eq!(total, result.duration.as_nanos());
    let integral: u128 = stats
        .queue_time_ns
        .iter()
        .enumerate()
        .map(|(n, &t)| n as u128 * t as u128)
        .sum();
    assert_eq!(integral, stats.queue_integral);
}
