//! Trace-driven links (`kind = "trace"`) in whole runs, over the traces shipped in
//! examples/traces/. Expectations come from mahimahi's rule (src/frontend/link_queue.cc):
//! each line is one opportunity of 1504 bytes, so one line per millisecond offers
//! 1504 · 8 bit/ms = 12.032 Mbit/s of wire bytes, and 1448/1500 of that is payload for
//! 1500-byte packets (MSS 1448 + 52 header bytes).

mod common;

use cclab_sim::PacketEventKind;
use common::{delivered_between, run};

/// A shipped trace, by absolute path (tests run in crates/sim).
fn trace(name: &str) -> String {
    format!(
        "{}/../../examples/traces/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Payload share of a 1500-byte packet.
const PAYLOAD: f64 = 1448.0 / 1500.0;

#[test]
fn a_constant_trace_of_one_line_per_millisecond_carries_12_mbps() {
    // CUBIC with a 100-packet buffer: the BDP is about 12 Mbit/s · 42 ms = 42 packets, and
    // after a loss CUBIC keeps 0.7 of (BDP + buffer) = 99 packets in flight, more than the
    // BDP, so the queue never empties once slow start is over. Goodput then equals the
    // trace's wire rate times the payload share: 12.032 · 1448/1500 = 11.615 Mbit/s.
    let (result, sink) = run(&format!(
        r#"
        duration = "20s"
        [topology]
        bottleneck = {{ kind = "trace", trace = "{}", delay = "20ms", buffer = 100 }}
        [[flows]]
        cc = "cubic"
        "#,
        trace("constant-12mbps.trace")
    ));
    let expected = 12.032e6 * PAYLOAD;
    let goodput = delivered_between(&sink, 0, 5.0, 20.0) as f64 * 8.0 / 15.0;
    assert!(
        (goodput / expected - 1.0).abs() < 0.02,
        "goodput {goodput} bit/s, expected {expected}"
    );
    // Its rate for BDPs and estimates is the trace's mean, and the link was busy nearly
    // all the time (the opportunities it left unused are those of slow start).
    let link = &result.links[0];
    assert_eq!(link.rate_bps, 12_032_000);
    let utilization = link.busy.as_secs_f64() / 20.0;
    assert!(
        (0.95..=1.0).contains(&utilization),
        "utilization {utilization}"
    );
}

#[test]
fn a_single_line_trace_is_the_same_schedule() {
    // A file holding the one line "1" repeats every millisecond: the same link as 1..=1000.
    let dir = std::env::temp_dir().join(format!("cclab-trace-one-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let one = dir.join("one.trace");
    std::fs::write(&one, "1\n").unwrap();
    let text = |file: &str| {
        format!(
            r#"
            duration = "3s"
            [topology]
            bottleneck = {{ kind = "trace", trace = "{file}", delay = "10ms", buffer = 50 }}
            [[flows]]
            cc = "reno"
            "#
        )
    };
    let (a, _) = run(&text(one.to_str().unwrap()));
    let (b, _) = run(&text(&trace("constant-12mbps.trace")));
    assert_eq!(a.flows[0].delivered_bytes, b.flows[0].delivered_bytes);
    assert_eq!(a.links[0].stats, b.links[0].stats);
}

#[test]
fn the_step_trace_changes_the_throughput_within_one_interval() {
    // step.trace: 12.032 Mbit/s for 2 s (one opportunity per ms), 24.064 (two per ms), then
    // 6.016 (one every 2 ms). A bulk CUBIC flow with a 100-packet buffer keeps the queue
    // full at every rate: cwnd after a loss is 0.7 · (BDP + 100 packets), more than the BDP
    // of 21, 42 or 84 packets. So what crosses the link in each 100 ms interval is the
    // trace's rate, whatever the flow does; it reaches the receiver 20 ms (the delay) plus a
    // 1500-byte serialization on the access link later, so the first interval entirely at
    // the new rate starts one interval after the step.
    let (_, sink) = run(&format!(
        r#"
        duration = "6s"
        [topology]
        bottleneck = {{ kind = "trace", trace = "{}", delay = "20ms", buffer = 100 }}
        [[flows]]
        cc = "cubic"
        [output]
        trace_packets = [0]
        "#,
        trace("step.trace")
    ));
    // Wire rate through the link in [from, from + 0.1 s): every data packet received,
    // retransmissions included, each 1500 bytes on the wire.
    let rate = |from: f64| {
        let packets = sink
            .packets
            .iter()
            .filter(|e| e.kind == PacketEventKind::Receive)
            .filter(|e| (from..from + 0.1).contains(&e.time.as_secs_f64()))
            .count();
        packets as f64 * 1500.0 * 8.0 / 0.1
    };
    // In 100 ms the schedule offers 100 · 1504 bytes per 12.032 Mbit/s: 100.27 packets of
    // 1500 bytes, so an interval sees that many packets ± 1.
    let one_packet = 1500.0 * 8.0 / 0.1;
    for (from, mbps) in [
        (1.9, 12.032),
        (2.1, 24.064),
        (3.9, 24.064),
        (4.1, 6.016),
        (5.8, 6.016),
    ] {
        let got = rate(from);
        let expected = mbps * 1e6 * 1500.0 / 1504.0;
        assert!(
            (got - expected).abs() <= 1.5 * one_packet,
            "[{from}, {from} + 0.1) s: {got} bit/s, expected {expected}"
        );
    }
}

#[test]
fn a_graph_link_follows_its_trace_one_way_and_its_reverse_trace_the_other() {
    // Graph link a–b: "a-b" follows the constant trace (12.032 Mbit/s), "b-a" the step trace.
    // A flow from b to a sends its data over "b-a": in the step trace's first 2 s (one
    // opportunity per ms) it gets the same 12.032 · 1448/1500 Mbit/s of goodput; from 2 s to
    // 4 s (two per ms) twice that. Same CUBIC / 100-packet reasoning as above: the queue
    // never empties once slow start is over. Within 3 %: the receiver delivers in order, so
    // a window's count can be off by what a loss held back at either end (at most a few
    // dozen packets of the ~1000 to 4000 counted).
    let (result, sink) = run(&format!(
        r#"
        duration = "4s"
        [topology]
        kind = "graph"
        nodes = ["a", "b"]
        links = [{{ between = ["a", "b"], kind = "trace", trace = "{}", reverse_trace = "{}", delay = "20ms", buffer = 100 }}]
        [[flows]]
        cc = "cubic"
        route = {{ from = "b", to = "a" }}
        "#,
        trace("constant-12mbps.trace"),
        trace("step.trace")
    ));
    let names: Vec<&str> = result.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["a-b", "b-a"]);
    // Both directions report the forward trace's mean as their rate.
    assert_eq!(result.links[1].rate_bps, 12_032_000);
    for (from, to, mbps) in [(1.0, 2.0, 12.032), (2.5, 4.0, 24.064)] {
        let goodput = delivered_between(&sink, 0, from, to) as f64 * 8.0 / (to - from);
        let expected = mbps * 1e6 * PAYLOAD;
        assert!(
            (goodput / expected - 1.0).abs() < 0.03,
            "[{from}, {to}] s: goodput {goodput}, expected {expected}"
        );
    }
}
