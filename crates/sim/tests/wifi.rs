//! Wi-Fi links (`kind = "wifi"`) in whole TCP runs: saturation goodput against the airtime
//! budget worked out from the preset's parameters, the aggregation effect of pacing,
//! retry-exhausted frames counted as the link's drops, determinism. The medium alone (pure
//! downlink saturation, collisions, e^(R+1) losses, in-order release) is tested in
//! `net::wifi::tests`.

mod common;

use cclab_scenario::WifiConfig;
use cclab_sim::{LinkResult, RunResult};
use common::{run, run_scenario, scenario};

/// The window's MAC counters of a reported link.
fn window_wifi(link: &LinkResult) -> cclab_sim::net::wifi::WifiCounters {
    assert!(link.wifi, "{} is a Wi-Fi direction", link.name);
    link.stats.since(&link.at_window_start).wifi
}

/// Goodput of flow `i` in the steady window [from_s, end].
fn window_goodput_bps(result: &RunResult, i: usize) -> f64 {
    let window = (result.duration.as_nanos() - result.window_start.as_nanos()) as f64 / 1e9;
    result.flows[i].window().delivered_bytes as f64 * 8.0 / window
}

/// One bulk CUBIC flow that keeps the AP's queue full without loss: its receive window
/// (3000 segments) is far above the path's BDP (~700 segments at the 5 GHz preset) and below
/// what the buffer holds, and no frame is received in error.
fn saturated(preset: &str) -> RunResult {
    run(&format!(
        r#"
        duration = "6s"
        seed = 3
        [topology]
        bottleneck = {{ kind = "wifi", preset = "{preset}", frame_error_rate = 0.0,
                        delay = "5ms", buffer = 3500 }}
        access = {{ rate = "10Gbps", delay = "1ms" }}
        [[flows]]
        cc = "cubic"
        receive_window = 3000
        [output]
        steady_from = "2s"
    "#
    ))
    .0
}

#[test]
fn saturation_goodput_matches_the_airtime_budget_at_each_preset() {
    for preset in ["wifi-5ghz", "wifi-2.4ghz"] {
        let config = WifiConfig::preset(preset).expect("a preset");
        let result = saturated(preset);
        let (ap, station) = (window_wifi(&result.links[0]), window_wifi(&result.links[1]));
        assert_eq!(result.flows[0].retransmissions, 0, "{preset}: no loss");
        assert!(
            result.links[0].stats.max_queue_pkts > 1000,
            "{preset}: a full AP queue"
        );

        // By hand, from the preset. A 1500-byte segment is a 1500 + 42 = 1542-byte subframe,
        // padded to 1544; a 52-byte ACK one of 94, padded to 96 (IEEE 802.11-2016 §9.7.1).
        let phy = config.phy_rate_bps as f64;
        let us = |d: cclab_cc::SimDuration| d.as_secs_f64();
        let data_subframe = 1544.0;
        let ack_subframe = 96.0;
        // A full aggregate: 64 frames at 5 GHz; at 2.4 GHz the 65 535-byte limit allows
        // floor(65535 / 1544) = 42.
        let frames = (config.max_aggregate_frames as f64)
            .min((config.max_aggregate_bytes as f64 / data_subframe).floor());
        let overhead = us(config.preamble) + us(config.sifs) + us(config.block_ack);
        let data_exchange = overhead + frames * data_subframe * 8.0 / phy;
        // Delayed ACKs (RFC 5681 §4.2): one per two segments, so frames/2 per aggregate.
        let acks_airtime = frames / 2.0 * ack_subframe * 8.0 / phy;
        let slot = us(config.slot);
        let cw = config.cw_min as f64;

        // How contention turned out: transmissions of each side, and collisions (each one
        // busy period in which both sent; the AP's frames are all retried, the station's
        // shorter exchange hides inside the AP's).
        let (n_d, n_a, n_c) = (
            ap.transmissions as f64,
            station.transmissions as f64,
            ap.collisions as f64,
        );
        assert_eq!(ap.collisions, station.collisions);
        assert!(n_c > 0.0 && n_a > 0.0, "{preset}: both sides contended");
        assert_eq!(
            ap.frames as f64,
            n_d * frames,
            "{preset}: every aggregate full"
        );
        // The medium's time: DIFS before each busy period; every AP exchange; the station's
        // exchanges outside collisions with its ACKs (frames/2 per delivered aggregate);
        // and the idle slots, all of which the always-backlogged AP counts down: a backoff
        // of mean CWmin/2 after each success, (2 CWmin + 1)/2 after a collision.
        let delivered = n_d - n_c;
        let time = (n_d + n_a - n_c) * us(config.difs)
            + n_d * data_exchange
            + (n_a - n_c) * overhead
            + delivered * acks_airtime
            + slot * (delivered * cw / 2.0 + n_c * (2.0 * cw + 1.0) / 2.0);
        // Payload airtime over total time per delivered aggregate, × PHY rate × TCP payload
        // over subframe bytes.
        let payload_airtime = frames * data_subframe * 8.0 / phy;
        let expected = payload_airtime / (time / delivered) * phy * 1448.0 / data_subframe;
        let goodput = window_goodput_bps(&result, 0);
        // Tolerance: the backoff sum's standard deviation, slot · sqrt(n_d · ((CW+1)² − 1)/12),
        // four times, plus two aggregates of edge effect at the window's ends (frames on the
        // air or propagating when it opens and closes).
        let window = 4.0;
        let backoff_sd = slot * (n_d * ((cw + 1.0).powi(2) - 1.0) / 12.0).sqrt();
        let tolerance = 4.0 * backoff_sd / window + 2.0 / n_d;
        println!(
            "{preset}: goodput {:.2} Mbit/s, expected {:.2}; {:.2} frames per AP aggregate, \
             {:.2} per station aggregate; {n_d} + {n_a} transmissions, {n_c} collisions",
            goodput / 1e6,
            expected / 1e6,
            ap.frames as f64 / n_d,
            station.frames as f64 / n_a
        );
        assert!(
            (goodput / expected - 1.0).abs() < tolerance,
            "{preset}: goodput {goodput}, expected {expected} (tolerance {tolerance})"
        );
    }
}

fn window_limited(pacing: bool) -> RunResult {
    run(&format!(
        r#"
        duration = "6s"
        seed = 1
        [topology]
        bottleneck = {{ kind = "wifi", preset = "wifi-5ghz", frame_error_rate = 0.0,
                        delay = "5ms", buffer = 3000 }}
        access = {{ rate = "10Gbps", delay = "1ms" }}
        [[flows]]
        cc = "cubic"
        receive_window = 500
        pacing = {pacing}
        [output]
        steady_from = "2s"
    "#
    ))
    .0
}

#[test]
fn a_paced_sender_gets_smaller_aggregates_and_less_goodput() {
    // A window of 500 segments, below the path's BDP: the AP's queue holds what the window
    // puts there. Unpaced, segments leave in ACK-clocked bursts (one per received aggregate
    // of ACKs) and meet the medium in bursts; paced (cwnd/srtt × 1.2), they arrive spread
    // out, so each transmission finds fewer frames queued. Each carries the same fixed
    // overhead (DIFS, backoff, preamble, SIFS, block ACK, about 190 µs at 5 GHz against
    // 14.3 µs per frame), so smaller aggregates cost more airtime per segment, the segments
    // wait longer and the window-limited flow's goodput, window / RTT, drops.
    let unpaced = window_limited(false);
    let paced = window_limited(true);
    let aggregate = |r: &RunResult| {
        let c = window_wifi(&r.links[0]);
        c.frames as f64 / c.transmissions as f64
    };
    let (a_unpaced, a_paced) = (aggregate(&unpaced), aggregate(&paced));
    let (g_unpaced, g_paced) = (
        window_goodput_bps(&unpaced, 0),
        window_goodput_bps(&paced, 0),
    );
    println!(
        "unpaced: {a_unpaced:.2} frames per aggregate, {:.2} Mbit/s; paced: {a_paced:.2}, {:.2} Mbit/s",
        g_unpaced / 1e6,
        g_paced / 1e6
    );
    assert!(a_paced < 0.85 * a_unpaced, "{a_paced} vs {a_unpaced}");
    assert!(g_paced < g_unpaced, "{g_paced} vs {g_unpaced}");
    // The medium carried the paced flow's segments in more transmissions.
    let transmissions = |r: &RunResult| window_wifi(&r.links[0]).transmissions;
    assert!(transmissions(&paced) > transmissions(&unpaced));
}

#[test]
fn retry_exhausted_frames_are_the_links_drops_and_the_flows_losses() {
    // A lossy medium: e = 0.2 with one retry loses about e² = 4 % of the frames of a
    // transmission that did not collide. Every such frame is a random loss of its link and a
    // drop of its flow (the run checks that packets are conserved: the frames held by the
    // MAC count as in transit).
    let (result, _) = run(r#"
        duration = "10s"
        seed = 2
        [topology]
        bottleneck = { kind = "wifi", preset = "wifi-2.4ghz", frame_error_rate = 0.2,
                       retry_limit = 1, delay = "10ms", buffer = 300 }
        [[flows]]
        cc = "cubic"
    "#);
    let (data, acks) = (&result.links[0].stats, &result.links[1].stats);
    assert!(data.wifi.retry_drops > 50, "{:?}", data.wifi);
    assert_eq!(data.random_losses, data.wifi.retry_drops);
    assert_eq!(acks.random_losses, acks.wifi.retry_drops);
    let flow = &result.flows[0];
    assert_eq!(
        flow.drops,
        data.wifi.retry_drops + data.overflow_drops,
        "every data frame the link lost is a drop of the flow"
    );
    assert_eq!(flow.ack_drops, acks.wifi.retry_drops + acks.overflow_drops);
    assert!(flow.retransmissions > 0);
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let text = r#"
        duration = "2s"
        seed = 9
        [topology]
        bottleneck = { kind = "wifi", preset = "wifi-5ghz", delay = "5ms", buffer = 200,
                       queue = "codel" }
        [[flows]]
        cc = "bbr"
        [[flows]]
        cc = "cubic"
        direction = "reverse"
    "#;
    let scenario = scenario(text);
    let (first, first_sink) = run_scenario(&scenario);
    let (second, second_sink) = run_scenario(&scenario);
    assert_eq!(first, second);
    assert_eq!(first_sink.flows, second_sink.flows);
    assert_eq!(first_sink.links, second_sink.links);
    // Both directions carried data and were contended for.
    assert!(first.flows.iter().all(|f| f.delivered_bytes > 0));
    assert!(first.links.iter().all(|l| l.stats.wifi.transmissions > 0));
}
