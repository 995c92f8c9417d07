//! Topologies beyond the one-way dumbbell: parking lots, graphs and two-way traffic. Every
//! run here is a debug build, so the simulator checks packet conservation and exactly-once
//! in-order delivery at every sampling tick.

mod common;

use cclab_sim::RunResult;
use cclab_sim::topology::max_min_shares;
use common::run;

/// Whole-run goodput of flow `id`, bit/s.
fn goodput(result: &RunResult, id: usize) -> f64 {
    result.flows[id].delivered_bytes as f64 * 8.0 / result.duration.as_secs_f64()
}

fn link_names(result: &RunResult) -> Vec<&str> {
    result.links.iter().map(|l| l.name.as_str()).collect()
}

/// The names of the reported links flow `id`'s data crosses, in order.
fn data_route(result: &RunResult, id: usize) -> Vec<&str> {
    result
        .data_routes
        .of(id)
        .iter()
        .map(|&l| result.links[l as usize].name.as_str())
        .collect()
}

// ---- parking lot ---------------------------------------------------------------------------

/// Max-min shares of a 3-hop parking lot at 10, 4 and 10 Mbit/s with the long flow (0 → 3)
/// and one flow per hop, from the routes the builder gives the run result. By hand
/// (progressive filling, Bertsekas & Gallager §6.5.2): all four rise together; hop 2 (4
/// Mbit/s, two flows) saturates first at 2 Mbit/s, freezing the long flow and the hop-2
/// flow; hop 1 and hop 3 then have 10 − 2 = 8 Mbit/s left for their one flow each.
#[test]
fn parking_lot_max_min_shares_match_the_hand_calculation() {
    let (result, _) = run(r#"
duration = "200ms"
[topology]
kind = "parking-lot"
hops = 3
link = { rate = "10Mbps", delay = "5ms" }
hop2 = { rate = "4Mbps" }
[[flows]]
cc = "reno"
[[flows]]
cc = "reno"
route = { from = 0, to = 1 }
[[flows]]
cc = "reno"
route = { from = 1, to = 2 }
[[flows]]
cc = "reno"
route = { from = 2, to = 3 }
"#);
    assert_eq!(link_names(&result), ["hop1", "hop2", "hop3"]);
    assert_eq!(data_route(&result, 0), ["hop1", "hop2", "hop3"]);
    assert_eq!(data_route(&result, 2), ["hop2"]);
    let capacities: Vec<f64> = result.links.iter().map(|l| l.rate_bps as f64).collect();
    let routes: Vec<Vec<usize>> = (0..4)
        .map(|f| {
            result
                .data_routes
                .of(f)
                .iter()
                .map(|&l| l as usize)
                .collect()
        })
        .collect();
    let shares = max_min_shares(&capacities, &routes);
    let expected = [2e6, 8e6, 2e6, 8e6];
    for (share, want) in shares.iter().zip(expected) {
        assert!((share - want).abs() < 1e-3, "{shares:?}");
    }
}

/// Floyd 1991 ("Connections with multiple congested gateways in packet-switched networks,
/// part 1: one-way traffic", CCR 21(5)): a connection crossing several congested drop-tail
/// gateways gets less than the one-hop connections it competes with, both for its longer
/// RTT (window growth of one segment per RTT) and for meeting drops at every gateway. Here:
/// three 10 Mbit/s hops, the long flow 0 → 3 and one Reno flow per hop.
#[test]
fn under_reno_the_long_flow_gets_less_than_the_one_hop_flows() {
    let (result, _) = run(r#"
duration = "20s"
[topology]
kind = "parking-lot"
hops = 3
link = { rate = "10Mbps", delay = "10ms", buffer = "1bdp" }
[[flows]]
cc = "reno"
recovery = "reno"
[[flows]]
cc = "reno"
recovery = "reno"
route = { from = 0, to = 1 }
[[flows]]
cc = "reno"
recovery = "reno"
route = { from = 1, to = 2 }
[[flows]]
cc = "reno"
recovery = "reno"
route = { from = 2, to = 3 }
"#);
    let long = goodput(&result, 0);
    let one_hop: Vec<f64> = (1..4).map(|i| goodput(&result, i)).collect();
    for (i, &g) in one_hop.iter().enumerate() {
        assert!(
            long < g,
            "long flow {long:.0} bit/s is not below one-hop flow {} at {g:.0} bit/s",
            i + 1
        );
    }
    // Each hop is busy: the long flow plus its one-hop flow fill it. Its 1-BDP buffer is
    // its rate × the base RTT of the longest route through it, the long flow's
    // 2 × 3 × 10 ms = 60 ms (access links have no delay): 10 Mbit/s × 60 ms = 75 000 B,
    // 50 packets of 1500 B, which the queue reaches.
    for link in &result.links {
        let utilization = link.busy.as_secs_f64() / result.duration.as_secs_f64();
        assert!(utilization > 0.85, "{}: {utilization}", link.name);
        assert_eq!(link.stats.max_queue_pkts, 50, "{}", link.name);
    }
}

// ---- graph ---------------------------------------------------------------------------------

/// The route is the minimum-hop path, whatever the rates: a → r1 → c (two hops, 1 Mbit/s)
/// rather than a → r2 → r3 → c (three hops, 100 Mbit/s). The ACKs retrace the data path
/// backwards ("c-r1", "r1-a").
#[test]
fn graph_routes_take_the_fewest_hops() {
    let (result, _) = run(r#"
duration = "300ms"
[topology]
kind = "graph"
nodes = ["a", "r1", "r2", "r3", "c"]
links = [
  { between = ["a", "r2"], rate = "100Mbps", delay = "1ms" },
  { between = ["r2", "r3"], rate = "100Mbps", delay = "1ms" },
  { between = ["r3", "c"], rate = "100Mbps", delay = "1ms" },
  { between = ["a", "r1"], rate = "1Mbps", delay = "1ms" },
  { between = ["r1", "c"], rate = "1Mbps", delay = "1ms" },
]
[[flows]]
cc = "reno"
route = { from = "a", to = "c" }
[[flows]]
cc = "reno"
route = { from = "c", to = "r2" }
"#);
    assert_eq!(data_route(&result, 0), ["a-r1", "r1-c"]);
    assert_eq!(data_route(&result, 1), ["c-r3", "r3-r2"]);
    // Every listed link is reported both ways.
    assert_eq!(result.links.len(), 10);
    // Only the 1 Mbit/s path carried flow 0: nothing of it crossed the fast links' data
    // direction a-r2 (flow 1 goes the other way and never touches it).
    let a_r2 = result.links.iter().find(|l| l.name == "a-r2").unwrap();
    assert_eq!(a_r2.stats.packets, 0);
    assert!(result.flows[0].delivered_bytes > 0);
}

/// `buffer = "1bdp"` on a graph link: its rate × the base RTT of the longest route through
/// it. One flow a → r → b over 4 ms and 6 ms links at 10 Mbit/s (no access delay): RTT
/// 2 × (4 + 6) = 20 ms, BDP 10 Mbit/s × 20 ms = 25 000 B = 16.7 packets of 1500 B, rounded to
/// 17. Slow start overfills the first link, whose queue then holds exactly that many.
#[test]
fn a_graph_links_bdp_buffer_is_its_longest_routes() {
    let (result, _) = run(r#"
duration = "3s"
[topology]
kind = "graph"
nodes = ["a", "r", "b"]
links = [
  { between = ["a", "r"], rate = "10Mbps", delay = "4ms", buffer = "1bdp" },
  { between = ["r", "b"], rate = "10Mbps", delay = "6ms", buffer = "1bdp" },
]
[[flows]]
cc = "reno"
route = { from = "a", to = "b" }
"#);
    let a_r = result.links.iter().find(|l| l.name == "a-r").unwrap();
    assert_eq!(a_r.stats.max_queue_pkts, 17);
    assert!(a_r.stats.overflow_drops > 0);
}

// ---- two-way traffic -----------------------------------------------------------------------

/// Two-way traffic (Zhang, Shenker & Clark 1991, "Observations on the dynamics of a
/// congestion control algorithm: the effects of two-way traffic", SIGCOMM): the forward
/// flow's ACKs queue behind the reverse flow's data at the right-hand router, so its ACK
/// clock slows and its RTT grows by the reverse queue; its goodput falls. Symmetric 10 Mbit/s
/// dumbbell, one bulk flow each way against the forward flow alone.
#[test]
fn reverse_bulk_traffic_lowers_forward_goodput() {
    let scenario = |reverse: &str| {
        format!(
            r#"
duration = "20s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = "1bdp" }}
[[flows]]
cc = "reno"
{reverse}
"#
        )
    };
    let (alone, _) = run(&scenario(""));
    let (two_way, _) = run(&scenario(
        "[[flows]]\ncc = \"reno\"\ndirection = \"reverse\"\n",
    ));
    assert_eq!(link_names(&two_way), ["bottleneck", "bottleneck-reverse"]);
    assert_eq!(data_route(&two_way, 1), ["bottleneck-reverse"]);
    let (g_alone, g_two_way) = (goodput(&alone, 0), goodput(&two_way, 0));
    // Measurably: at least a tenth less.
    assert!(
        g_two_way < 0.9 * g_alone,
        "forward goodput {g_two_way:.0} with reverse traffic, {g_alone:.0} alone"
    );
    // The reverse flow did get data through, and the forward flow's ACKs met a queue:
    // its mean RTT exceeds the one it had alone.
    assert!(goodput(&two_way, 1) > 1e6);
    assert!(two_way.flows[0].mean_rtt > alone.flows[0].mean_rtt);
}

/// An asymmetric path (10 Mbit/s forward, 0.1 Mbit/s back, ADSL-like) limits the forward
/// flow by its ACK rate. With an ACK per two segments (RFC 5681 §4.2) and no ACK lost (the
/// reverse buffer holds them all), every ACK acknowledges at most 2·mss bytes and takes at
/// least 52 wire bytes (IPv4 20 + TCP 20 + timestamps 12) of the reverse link: at most
/// 100 000 / (8 · 52) = 240.4 ACKs/s, so at most 2 · 1448 · 8 · 240.4 = 5.569 Mbit/s
/// acknowledged, well below the 10 Mbit/s forward rate. The flow reaches most of it.
#[test]
fn a_slow_reverse_direction_limits_the_forward_flow_by_its_ack_rate() {
    let (result, _) = run(r#"
duration = "20s"
[topology]
bottleneck = { rate = "10Mbps", delay = "10ms", reverse = { rate = "100kbps", buffer = 10000 } }
[[flows]]
cc = "reno"
"#);
    assert_eq!(link_names(&result), ["bottleneck", "bottleneck-reverse"]);
    let seconds = result.duration.as_secs_f64();
    let acked_bps = result.flows[0].bytes_acked as f64 * 8.0 / seconds;
    let acks_per_s = 100_000.0 / (8.0 * 52.0);
    let bound = 2.0 * 1448.0 * 8.0 * acks_per_s;
    assert!(
        acked_bps <= bound,
        "{acked_bps:.0} bit/s acknowledged, bound {bound:.0}"
    );
    assert!(
        acked_bps > 0.8 * bound,
        "{acked_bps:.0} bit/s, bound {bound:.0}"
    );
    assert_eq!(result.flows[0].ack_drops, 0);
    // The forward link is not full: the ACK clock, not it, is the limit (5.57 of 10 Mbit/s
    // of payload is at most 0.58 of the link with headers).
    let forward = &result.links[0];
    let utilization = forward.busy.as_secs_f64() / seconds;
    assert!(utilization < 0.6, "{utilization}");
}

/// Parking-lot links take the link keys loss and jitter apply to, on both directions of each
/// hop: a jitter of 20 ms (normal, σ = 1 µs) on a one-hop chain of 10 ms adds 20 ms each
/// way, so the smallest RTT is 2 × (10 + 20) = 60 ms plus serialization, not 20 ms.
#[test]
fn parking_lot_links_carry_jitter_both_ways() {
    let text = |jitter: &str| {
        format!(
            r#"
duration = "2s"
[topology]
kind = "parking-lot"
hops = 1
link = {{ rate = "10Mbps", delay = "10ms" {jitter} }}
[[flows]]
cc = "reno"
"#
        )
    };
    let min_rtt_ms = |result: &RunResult| result.flows[0].min_rtt.unwrap().as_millis_f64();
    let (plain, _) = run(&text(""));
    let (jittered, _) = run(&text(
        r#", jitter = { distribution = "normal", mean = "20ms", stddev = "1us" }"#,
    ));
    // Serialization: 1500 B at 10 Mbit/s = 1.2 ms, plus an ACK's 52 B (0.04 ms).
    assert!(
        (20.0..22.0).contains(&min_rtt_ms(&plain)),
        "{}",
        min_rtt_ms(&plain)
    );
    assert!(
        (59.9..62.0).contains(&min_rtt_ms(&jittered)),
        "{}",
        min_rtt_ms(&jittered)
    );
}
