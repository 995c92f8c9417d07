//! TCB sharing in whole runs (docs/sharing.md): the "Start Me Up" experiment (Islam and
//! Welzl, ANRW 2016; seed-spec §3.6: one long flow from t = 0, short flows of 100 packets
//! joining at 5.0 s and 5.5 s, RTT 100 ms, drop-tail buffer of one BDP), priorities,
//! temporal sharing, and that nothing is lost or duplicated in any mode.

mod common;

use cclab_sim::{MemorySink, RunResult};
use common::run;

/// The base RTT: 2 × (1 + 48 + 1) ms.
const RTT_S: f64 = 0.1;
/// 100 packets of 1448 payload bytes.
const SHORT_BYTES: u64 = 100 * 1448;

/// The experiment at `mbps` with `sharing` and `join` on all three flows ("none" leaves the
/// keys out). ns-2's defaults, as the paper's simulations would have had them: an initial
/// window of 2 (`Agent/TCP set windowInit_ 2`) and an ACK per segment.
fn experiment(mbps: u64, sharing: &str, join: &str, extra: &str) -> String {
    let keys = if sharing == "none" {
        String::new()
    } else {
        format!("group = \"g\"\nsharing = \"{sharing}\"\njoin = \"{join}\"\n{extra}")
    };
    let flow = |start: &str, size: &str| {
        format!(
            "[[flows]]\ncc = \"reno\"\ninitial_window = 2\ndelayed_ack = false\nstart = \"{start}\"\n{size}{keys}"
        )
    };
    format!(
        "duration = \"9s\"\n[topology]\n\
         bottleneck = {{ rate = \"{mbps}Mbps\", delay = \"48ms\", buffer = \"1bdp\" }}\n\
         access = {{ rate = \"100Mbps\", delay = \"1ms\" }}\n\
         {}{}{}[output]\ninterval = \"1ms\"\n",
        flow("0s", ""),
        flow("5s", &format!("size = {SHORT_BYTES}\n")),
        flow("5.5s", &format!("size = {SHORT_BYTES}\n")),
    )
}

/// The short flows' completion times in RTTs.
fn fct_rtts(result: &RunResult) -> Vec<f64> {
    result.flows[1..]
        .iter()
        .map(|f| {
            let done = f
                .completed_at
                .expect("the short flow completes within the run");
            done.saturating_since(f.start).as_secs_f64() / RTT_S
        })
        .collect()
}

/// The bottleneck's largest queue (packets) sampled in [from, to] seconds.
fn queue_peak(sink: &MemorySink, from: f64, to: f64) -> u64 {
    sink.links
        .iter()
        .filter(|(t, name, ..)| name == "bottleneck" && (from..=to).contains(&t.as_secs_f64()))
        .map(|&(_, _, packets, _, _)| packets)
        .max()
        .expect("samples in the window")
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

#[test]
fn coupling_shortens_the_short_flows_at_every_capacity_tested() {
    // The coupled joiner starts with its share of the aggregate (about half of a window of
    // a BDP or more) instead of 2 segments, and skips slow start, which from 2 segments
    // takes log2(share/2) RTTs to reach the share (3 to 5 RTTs here): with 100 packets that
    // is a large part of the transfer. The paper's figure shows a reduction at every
    // capacity of 1–10 Mbit/s; we ask for every short flow to be faster and the mean to
    // drop by at least a fifth at 3, 6 and 10 Mbit/s (below 3 Mbit/s the 100 packets are
    // more than 4 BDPs, slow start is a small part of them, and the coupled flow's fair
    // share, not its start, decides: docs/sharing.md gives the measured numbers).
    for mbps in [3, 6, 10] {
        let (uncoupled, _) = run(&experiment(mbps, "none", "", ""));
        let (coupled, _) = run(&experiment(mbps, "aggregate", "ack-clocked", ""));
        let (u, c) = (fct_rtts(&uncoupled), fct_rtts(&coupled));
        for (i, (u, c)) in u.iter().zip(&c).enumerate() {
            assert!(
                c < u,
                "{mbps} Mbit/s, short flow {}: coupled {c:.2} RTTs, uncoupled {u:.2}",
                i + 1
            );
        }
        assert!(
            mean(&c) <= 0.8 * mean(&u),
            "{mbps} Mbit/s: coupled {c:?} RTTs, uncoupled {u:?}"
        );
    }
}

#[test]
fn ack_clocked_joining_drops_no_more_and_queues_less_than_a_burst() {
    // §3.5: the joiner's first window leaves one segment per slot the long flow's ACKs free
    // beyond its new share, so the aggregate in flight, and the queue, stay as they were at
    // the join; a burst adds the joiner's whole share (half the aggregate) to the queue at
    // once. So over the first RTT after the first join (5.0–5.1 s; at 5.5 s the first short
    // flow leaves, which moves the others' windows too) ACK clocking's queue peak is lower,
    // by about half the aggregate, and over the run it drops no more packets.
    for mbps in [6, 10] {
        let (burst, burst_trace) = run(&experiment(mbps, "aggregate", "burst", ""));
        let (clocked, clocked_trace) = run(&experiment(mbps, "aggregate", "ack-clocked", ""));
        let before = queue_peak(&clocked_trace, 4.95, 5.0);
        let (b, c) = (
            queue_peak(&burst_trace, 5.0, 5.1),
            queue_peak(&clocked_trace, 5.0, 5.1),
        );
        // The window of a BDP (50 or 83 packets) or more, halved: a burst of 25 or more.
        assert!(
            b >= before + 20,
            "{mbps} Mbit/s: burst peak {b}, queue before {before}"
        );
        assert!(
            c + 15 <= b,
            "{mbps} Mbit/s: ACK-clocked peak {c}, burst peak {b}"
        );
        let drops = |r: &RunResult| r.links[0].stats.drops();
        assert!(
            drops(&clocked) <= drops(&burst),
            "{mbps} Mbit/s: ACK-clocked drops {}, burst {}",
            drops(&clocked),
            drops(&burst)
        );
    }
}

#[test]
fn every_flow_delivers_all_its_bytes_once_in_every_mode() {
    // With random loss too, so that recoveries and timeouts of members run while coupled.
    let modes = [
        ("none", "", ""),
        ("aggregate", "burst", ""),
        ("aggregate", "ack-clocked", ""),
        ("aggregate", "paced", ""),
        (
            "aggregate",
            "ack-clocked",
            "scale_growth = true\njoin_window = \"add-initial\"\nleave = \"remove\"\ngroup_timeout = \"member\"\njoin_packets_per_ack = 1\n",
        ),
        ("temporal", "", ""),
    ];
    for (sharing, join, extra) in modes {
        for loss in ["0", "0.02"] {
            let text = experiment(5, sharing, join, extra)
                .replace("join = \"\"\n", "")
                .replace(
                    "buffer = \"1bdp\"",
                    &format!("buffer = \"1bdp\", loss = {loss}"),
                );
            // `run` fails on a broken invariant (checked at every sample in debug builds).
            let (result, _) = run(&text);
            for flow in &result.flows[1..] {
                assert_eq!(
                    flow.delivered_bytes, SHORT_BYTES,
                    "{sharing} {join} loss {loss}"
                );
                assert_eq!(
                    flow.bytes_acked, SHORT_BYTES,
                    "{sharing} {join} loss {loss}"
                );
            }
            let long = &result.flows[0];
            assert!(long.bytes_acked <= long.delivered_bytes);
        }
    }
}

#[test]
fn priorities_one_to_two_share_the_aggregate_one_to_two() {
    // RFC 8699's FSE priorities: two coupled long flows with priorities 1 and 2 are assigned 1/3 and 2/3
    // of the aggregate at every sample (to the byte the rounding hands out).
    let text = r#"
        duration = "5s"
        [topology]
        bottleneck = { rate = "10Mbps", delay = "20ms" }
        [[flows]]
        cc = "cubic"
        group = "g"
        sharing = "aggregate"
        [[flows]]
        cc = "cubic"
        group = "g"
        sharing = "aggregate"
        priority = 2
        [output]
        interval = "100ms"
    "#;
    let (result, sink) = run(text);
    let assigned = |flow: u32, at: f64| {
        sink.flows
            .iter()
            .find(|s| s.flow == flow && (s.time.as_secs_f64() - at).abs() < 1e-9)
            .and_then(|s| s.shared)
            .map(|s| s.assigned_cwnd_bytes)
            .expect("a sample of a member")
    };
    for at in [1.0, 2.5, 4.9] {
        let (a, b) = (assigned(0, at), assigned(1, at));
        let aggregate = sink
            .groups
            .iter()
            .find(|g| (g.time.as_secs_f64() - at).abs() < 1e-9)
            .map(|g| g.aggregate_cwnd_bytes)
            .expect("a group sample");
        assert_eq!(a + b, aggregate, "at {at} s");
        assert!(b.abs_diff(2 * a) <= 2, "at {at} s: {a} and {b}");
    }
    assert!(result.flows[1].delivered_bytes > result.flows[0].delivered_bytes);
}

#[test]
fn temporal_sharing_starts_a_later_connection_from_the_cached_state_while_fresh() {
    // RFC 9040, temporal sharing: the second connection opens after the first closed, within one RTO
    // (min_rto 5 s: no decay), so it starts from the first's cached RTT estimate and window
    // instead of "no sample yet" and 2 segments. With a lifetime shorter than the gap it
    // starts as usual. A buffer that never overflows keeps the first transfer lossless.
    let text = |lifetime: &str| {
        format!(
            r#"
            duration = "4s"
            [topology]
            bottleneck = {{ rate = "10Mbps", delay = "20ms", buffer = 1000 }}
            [[flows]]
            cc = "reno"
            initial_window = 2
            min_rto = "5s"
            size = "300KB"
            group = "h"
            sharing = "temporal"
            temporal_lifetime = "{lifetime}"
            [[flows]]
            cc = "reno"
            initial_window = 2
            min_rto = "5s"
            size = "300KB"
            start = "2s"
            group = "h"
            sharing = "temporal"
            temporal_lifetime = "{lifetime}"
            [output]
            interval = "1ms"
            "#
        )
    };
    let first_sample = |sink: &MemorySink| {
        *sink
            .flows
            .iter()
            .find(|s| s.flow == 1)
            .expect("flow 1 sampled")
    };
    let (result, sink) = run(&text("1h"));
    let closed = result.flows[0]
        .completed_at
        .expect("the first transfer ends");
    assert!(
        closed.as_secs_f64() < 1.9,
        "it must close well before the second opens"
    );
    let last = sink
        .flows
        .iter()
        .rfind(|s| s.flow == 0)
        .copied()
        .expect("flow 0 sampled");
    let fresh = first_sample(&sink);
    assert!(fresh.srtt.is_some(), "the cached RTT seeds the estimator");
    // The window at the close: what the last sample of the first flow showed, plus what the
    // ACKs of its last millisecond added in slow start (a segment each, a few at most).
    assert!(
        fresh.cwnd_bytes >= last.cwnd_bytes && fresh.cwnd_bytes <= last.cwnd_bytes + 4 * 1448,
        "first window {} after a close at {}",
        fresh.cwnd_bytes,
        last.cwnd_bytes
    );
    assert!(
        fresh.cwnd_bytes > 2 * 1448,
        "the cached window, not the initial one"
    );
    // Not fresh: the usual start.
    let (_, sink) = run(&text("100ms"));
    let stale = first_sample(&sink);
    assert_eq!(stale.srtt, None);
    assert_eq!(stale.cwnd_bytes, 2 * 1448);
}
