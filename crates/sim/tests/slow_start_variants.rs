//! The slow-start variants on the dumbbell: how many round trips each takes to reach
//! ssthresh, how it grows above a threshold, and where it leaves slow start, against the
//! formulas of its source.
//!
//! Two paths. For counting rounds, 1 Gbit/s with a 100 ms base RTT and a 5000-packet
//! buffer: a flight of ≤ 1000 segments crosses the bottleneck in ≤ 12 ms, so the ACKs of
//! round k arrive within [k·RTT, k·RTT + 12 ms] and the window after round k can be read at
//! k·RTT + RTT/2, in the quiet gap between flights. For the exits, 50 Mbit/s with a 60 ms
//! base RTT (BDP 250 packets) and a 2000-packet buffer, where standard slow start
//! overshoots into losses.

use cclab_sim::{FlowEvent, FlowEventKind, FlowSample, MemorySink, RunResult, Simulation};

const MSS: f64 = 1448.0;

fn run(text: &str) -> (RunResult, Vec<FlowSample>) {
    let (result, samples, _) = run_with_events(text);
    (result, samples)
}

/// The run, its samples and its flow events (`events.csv`).
fn run_with_events(text: &str) -> (RunResult, Vec<FlowSample>, Vec<FlowEvent>) {
    let scenario = cclab_scenario::from_str("test.toml", text, &[]).expect("valid scenario");
    let mut sink = MemorySink::default();
    let result = Simulation::new(&scenario)
        .run(&mut sink, &mut |_| {})
        .expect("invariants hold");
    (result, sink.flows, sink.events)
}

fn secs(s: &FlowSample) -> f64 {
    s.time.as_secs_f64()
}

fn cwnd(s: &FlowSample) -> f64 {
    s.cwnd_bytes as f64 / MSS
}

/// One Reno flow (its congestion avoidance is irrelevant here) on the round-counting path,
/// one ACK per segment (the sources count ACKs of one segment), 1-ms samples.
fn counting_path(duration_s: f64, flow: &str) -> String {
    format!(
        r#"
duration = "{duration_s}s"
[topology]
bottleneck = {{ rate = "1Gbps", delay = "48ms", buffer = 5000 }}
access = {{ rate = "10Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
delayed_ack = false
{flow}
[output]
interval = "1ms"
"#
    )
}

/// One Reno flow on the exit path (50 Mbit/s, base RTT 60 ms, 2000-packet buffer), with
/// delayed ACKs (the default), 1-ms samples.
fn exit_path(duration_s: f64, flow: &str) -> String {
    format!(
        r#"
duration = "{duration_s}s"
[topology]
bottleneck = {{ rate = "50Mbps", delay = "28ms", buffer = 2000 }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
{flow}
[output]
interval = "1ms"
"#
    )
}

/// The number of round trips after which the window first reached `target` segments: the
/// time of the first sample at or above it over the base RTT, rounded down. The ACKs of
/// round k arrive no earlier than k base RTTs and, here, within 12 ms of flight plus the
/// 40-ms delayed-ACK timer after that.
fn rounds_to_reach(samples: &[FlowSample], target: f64, rtt: f64) -> f64 {
    let t = samples
        .iter()
        .find(|s| cwnd(s) >= target)
        .map(secs)
        .expect("the window reaches the target");
    let rounds = t / rtt;
    assert!(
        rounds - rounds.floor() < 0.5,
        "{t:.3} s is not just after a whole number of RTTs ({rtt:.4} s)"
    );
    rounds.floor()
}

/// Standard slow start doubles the window each RTT (RFC 5681 §3.1, one segment per ACK):
/// from IW = 3 to ssthresh = 192 = 3·2⁶ takes log₂(192/3) = 6 RTTs. Smooth-start
/// (Wang, Xin, Reeves, Shin 2000; seed-spec §1.3) slows the approach with n lag points in
/// each of the last m halving intervals below ssthresh, each costing one RTT: m·n extra
/// RTTs, 1, 2, 2, 4 for Coarse-2 (m = 1, n = 1), Coarse-4 (2, 1), Fine-2 (1, 2), Fine-4
/// (2, 2). ssthresh = 192 puts every lag point on a whole segment (192/4 = 48 and 96 are
/// divisible by 2 and 3), where the count is exact.
#[test]
fn smooth_start_takes_m_times_n_more_rtts_to_reach_ssthresh() {
    let rtt = 0.1;
    let standard = {
        let (result, samples) = run(&counting_path(
            1.2,
            "initial_window = 3\ninitial_ssthresh = 192\nslow_start = \"standard\"",
        ));
        assert_eq!(result.flows[0].retransmissions, 0);
        rounds_to_reach(&samples, 192.0, rtt)
    };
    assert_eq!(standard, (192.0f64 / 3.0).log2(), "standard slow start");
    for (probe, m, n) in [
        ("coarse-2", 1.0, 1.0),
        ("coarse-4", 2.0, 1.0),
        ("fine-2", 1.0, 2.0),
        ("fine-4", 2.0, 2.0),
    ] {
        for delayed_ack in [false, true] {
            // Smooth-start counts acknowledged segments, not ACKs, so delayed ACKs (one
            // ACK per two segments) must not change the count. The odd segment of a flight
            // waits for the 40-ms delayed-ACK timer, still inside its round.
            let text = counting_path(
                1.5,
                &format!(
                    "initial_window = 3\ninitial_ssthresh = 192\nslow_start = \"smooth-start:{probe}\""
                ),
            )
            .replace("delayed_ack = false", &format!("delayed_ack = {delayed_ack}"));
            let (result, samples) = run(&text);
            assert_eq!(result.flows[0].retransmissions, 0);
            let rounds = rounds_to_reach(&samples, 192.0, rtt);
            eprintln!("smooth-start:{probe} (delayed ACKs {delayed_ack}): {rounds} RTTs");
            assert_eq!(
                rounds,
                standard + m * n,
                "{probe}, delayed ACKs {delayed_ack}: {rounds} RTTs, standard {standard}"
            );
        }
    }
}

/// Limited Slow-Start (RFC 3742 §2), for each ACK of one segment:
/// `if cwnd <= max_ssthresh: cwnd += MSS, else K = int(cwnd/(0.5 max_ssthresh)),
/// cwnd += int(MSS/K)` (bytes), so above max_ssthresh = 100 segments the window grows by
/// about max_ssthresh/2 = 50 segments per RTT instead of doubling: from 130 to ~980
/// segments in 17 RTTs, where standard slow start would need 3.
#[test]
fn limited_slow_start_adds_half_max_ssthresh_per_rtt() {
    let rtt = 0.1;
    let (result, samples) = run(&counting_path(2.2, "slow_start = \"limited\""));
    assert_eq!(result.flows[0].retransmissions, 0);
    // The RFC's per-ACK rule applied to each round's ACKs: round k acknowledges the whole
    // segments of the window after round k - 1.
    let (mss, max_ssthresh) = (1448u64, 100 * 1448u64);
    let mut predicted = vec![10 * mss];
    for _ in 0..21 {
        let mut w = *predicted.last().unwrap();
        for _ in 0..w / mss {
            w += if w <= max_ssthresh {
                mss
            } else {
                mss / (w / (max_ssthresh / 2))
            };
        }
        predicted.push(w);
    }
    for (k, &w) in predicted.iter().enumerate().skip(1) {
        let measured = cwnd(
            samples
                .iter()
                .find(|s| secs(s) >= k as f64 * rtt + rtt / 2.0)
                .unwrap(),
        );
        let expected = w as f64 / MSS;
        // One segment: the sender's rounds are its own ACK clock, the rule is the same.
        assert!(
            (measured - expected).abs() <= 1.0,
            "after round {k}: {measured:.2} segments, RFC 3742 {expected:.2}"
        );
        // Above max_ssthresh (from the round after the crossing) each RTT adds
        // max_ssthresh/2 = 50 segments, ±1 for the integer K changing within the round.
        if k >= 6 {
            let growth = expected - predicted[k - 1] as f64 / MSS;
            let measured_growth = measured
                - cwnd(
                    samples
                        .iter()
                        .find(|s| secs(s) >= (k - 1) as f64 * rtt + rtt / 2.0)
                        .unwrap(),
                );
            assert!(
                (49.0..=51.0).contains(&measured_growth) && (49.0..=51.0).contains(&growth),
                "round {k}: +{measured_growth:.2} segments (RFC rule +{growth:.2})"
            );
        }
    }
    // The rounds below max_ssthresh double: 10, 20, 40, 80 segments.
    assert_eq!(predicted[3], 80 * mss);

    // With ssthresh = 600 segments: log₂(max_ssthresh/IW) = 3.3 RTTs of doubling to
    // max_ssthresh, then (600 - 100)/50 = 10 RTTs of +50: ssthresh in the 14th round (the
    // RFC rule above reaches 600 in round 14 too).
    let (result, samples) = run(&counting_path(
        1.7,
        "slow_start = \"limited\"\ninitial_ssthresh = 600",
    ));
    assert_eq!(result.flows[0].retransmissions, 0);
    let estimate = (100.0f64 / 10.0).log2() + (600.0 - 100.0) / 50.0;
    let by_rule = predicted.iter().position(|&w| w >= 600 * mss).unwrap() as f64;
    let rounds = rounds_to_reach(&samples, 600.0, rtt);
    eprintln!("limited: ssthresh 600 after {rounds} RTTs (estimate {estimate:.1}, rule {by_rule})");
    assert_eq!(rounds, by_rule);
    assert_eq!(rounds, estimate.ceil());
}

/// The exit path's parameters as the sources use them: the smallest RTT sample (s), the BDP
/// in packets (one segment per 1500-byte packet) and a packet's time at the bottleneck.
struct ExitPath {
    min_rtt: f64,
    bdp: f64,
    packet_time: f64,
}

impl ExitPath {
    fn of(result: &RunResult) -> Self {
        let min_rtt = result.flows[0].min_rtt.unwrap().as_secs_f64();
        let packet_time = 1500.0 * 8.0 / 50e6;
        ExitPath {
            min_rtt,
            bdp: min_rtt / packet_time,
            packet_time,
        }
    }

    /// Slow start's flights from IW = 10: 10·2^k segments, one per round trip (each of the
    /// round's ACKs, of two segments, releases four).
    fn first_flight_above(&self, segments: f64) -> f64 {
        let mut flight = 10.0;
        while flight <= segments {
            flight *= 2.0;
        }
        flight
    }

    /// The delay-increase threshold of HyStart and HyStart++: clamp(minRTT/8, 4 ms, 16 ms).
    fn eta(&self) -> f64 {
        (self.min_rtt / 8.0).clamp(0.004, 0.016)
    }

    /// The first flight whose successor meets a standing queue of at least η: the flight
    /// after a flight F leaves F - BDP packets queued when its first ACK comes back (F > BDP),
    /// which the next flight's first segments wait behind. That next flight is the one whose
    /// RTT samples show the increase.
    fn flight_seeing_delay_increase(&self) -> f64 {
        2.0 * self.first_flight_above(self.bdp + self.eta() / self.packet_time)
    }
}

/// Standard slow start on the exit path: it doubles until the queue overflows. Returns the
/// time and window (segments) of its first loss, and the path.
fn standard_first_loss() -> (f64, f64, ExitPath) {
    let (result, samples) = run(&exit_path(2.0, "slow_start = \"standard\""));
    assert!(
        result.flows[0].retransmissions > 0,
        "standard slow start overshoots"
    );
    let i = samples.iter().position(|s| s.retransmissions > 0).unwrap();
    assert_eq!(
        samples[i - 1].ssthresh_bytes,
        None,
        "the loss ends slow start"
    );
    (
        secs(&samples[i]),
        cwnd(&samples[i - 1]),
        ExitPath::of(&result),
    )
}

/// Where the first slow start ended: the time and ssthresh (segments) of the first
/// slow-start exit event, which must have the given cause.
fn slow_start_exit(events: &[FlowEvent], cause: &str) -> (f64, f64) {
    let exit = events
        .iter()
        .find(|e| e.kind == FlowEventKind::SlowStartExit)
        .expect("slow start ends");
    assert_eq!(exit.detail, cause, "{exit:?}");
    let ssthresh = exit.ssthresh_bytes.expect("ssthresh set");
    assert_eq!(
        exit.cwnd_bytes, ssthresh,
        "slow start ends at cwnd = ssthresh"
    );
    (exit.time.as_secs_f64(), ssthresh as f64 / MSS)
}

/// When ssthresh was first set: the time and ssthresh of the first sample with a finite one.
fn ssthresh_set(samples: &[FlowSample]) -> (f64, f64) {
    let exit = samples
        .iter()
        .find(|s| s.ssthresh_bytes.is_some())
        .expect("slow start ends");
    (secs(exit), exit.ssthresh_bytes.unwrap() as f64 / MSS)
}

/// HyStart (Ha & Rhee 2008; Linux tcp_cubic.c), ACK-train signal: the ACKs of a round
/// arrive back to back at the bottleneck rate; once the train has lasted minRTT/2 the flight
/// fills half the pipe, and slow start ends (ssthresh = cwnd). The first round whose flight
/// F lasts that long is the first F > BDP/2 (= 160 here); the exit comes after BDP/2 of
/// its segments were ACKed, at cwnd = F + BDP/2 ≈ 285, below the BDP + buffer, so no loss,
/// while standard slow start runs on to ~900 segments and loses.
#[test]
fn hystart_ack_train_exits_at_the_bdp_before_standard_slow_start_loses() {
    let (standard_loss_time, standard_loss_cwnd, path) = standard_first_loss();
    for detect in ["both", "ack-train"] {
        let (result, _, events) = run_with_events(&exit_path(
            2.0,
            &format!("slow_start = \"hystart\"\nslow_start_params = {{ detect = \"{detect}\" }}"),
        ));
        assert_eq!(result.flows[0].retransmissions, 0, "{detect}: no loss");
        let (time, exit) = slow_start_exit(&events, "hystart_ack_train");
        let flight = path.first_flight_above(path.bdp / 2.0);
        let expected = flight + path.bdp / 2.0;
        eprintln!(
            "hystart/{detect}: exit at {time:.3} s, cwnd {exit:.1} (predicted {expected:.1}); standard lost at {standard_loss_time:.3} s, cwnd {standard_loss_cwnd:.1}"
        );
        // ±4 segments: the ACKs come two segments at a time, and the train is measured from
        // the round's first ACK.
        assert!(
            (exit - expected).abs() <= 4.0,
            "{detect}: exit at {exit:.1}, predicted {expected:.1}"
        );
        assert!(time < standard_loss_time && exit < standard_loss_cwnd / 2.0);
    }
}

/// HyStart's delay signal alone (Linux `hystart_detect = 2`): from the 9th RTT sample of a
/// round, exit when the round's smallest RTT exceeds minRTT + η, η = clamp(minRTT/8, 4 ms,
/// 16 ms) = 7.5 ms. The first round whose early segments wait behind an η-long queue is
/// the flight after the first F > BDP + η·rate (320 here: 70 packets = 17 ms left
/// queued), i.e. F = 640; the 9th ACK finds the exit after 8 ACKs of two segments grew the
/// window: cwnd = F + 16. No loss (the 2000-packet buffer holds the ~400-packet queue).
#[test]
fn hystart_delay_signal_exits_one_flight_after_the_queue_exceeds_eta() {
    let (standard_loss_time, _, path) = standard_first_loss();
    let (result, _, events) = run_with_events(&exit_path(
        2.0,
        "slow_start = \"hystart\"\nslow_start_params = { detect = \"delay\" }",
    ));
    assert_eq!(result.flows[0].retransmissions, 0);
    let (time, exit) = slow_start_exit(&events, "hystart_delay");
    let expected = path.flight_seeing_delay_increase() + 8.0 * 2.0;
    eprintln!("hystart/delay: exit at {time:.3} s, cwnd {exit:.1} (predicted {expected:.1})");
    assert!(
        (exit - expected).abs() <= 2.0,
        "exit at {exit:.1}, predicted {expected:.1}"
    );
    assert!(time < standard_loss_time);
}

/// HyStart++ (RFC 9406 §4.2): the same kind of delay signal (the round's smallest RTT over
/// at least N_RTT_SAMPLE = 8 samples against the previous round's, plus clamp(RTT/8, 4 ms,
/// 16 ms)) moves the sender into Conservative Slow Start at the 8th ACK of the round
/// (after its growth): cwnd = F + 16 with F = 640 as for HyStart. CSS grows by 1/4 of slow
/// start (CSS_GROWTH_DIVISOR) for CSS_ROUNDS = 5 rounds counting the partial first one,
/// then sets ssthresh = cwnd: (F + 16 + (F - 16)/4) × (5/4)^4 ≈ 1982 segments, reached
/// without loss, where standard slow start on the same path loses at ~4500.
#[test]
fn hystart_plus_plus_enters_css_on_the_delay_signal_and_ends_after_five_rounds() {
    let (standard_loss_time, standard_loss_cwnd, path) = standard_first_loss();
    let (result, samples, events) = run_with_events(&exit_path(2.0, "slow_start = \"hystart++\""));
    assert_eq!(result.flows[0].retransmissions, 0);
    // CSS entry: the first sample after which the window grows by a quarter of the ACKed
    // bytes (or less) for 5 ms, instead of one byte per byte.
    let entry = (1..samples.len() - 5)
        .find(|&i| {
            let (a, b) = (&samples[i], &samples[i + 5]);
            let acked = (b.bytes_acked - a.bytes_acked) as f64;
            acked > 0.0 && ((b.cwnd_bytes - a.cwnd_bytes) as f64) < 0.3 * acked
        })
        .expect("CSS begins");
    let (entry_time, entry_cwnd) = (secs(&samples[entry]), cwnd(&samples[entry]));
    let flight = path.flight_seeing_delay_increase();
    let expected_entry = flight + 8.0 * 2.0;
    // The entry sample can precede the 8th ACK by up to 1 ms (two ACKs, four segments).
    assert!(
        (expected_entry - 5.0..=expected_entry + 1.0).contains(&entry_cwnd),
        "CSS from {entry_cwnd:.1}, predicted {expected_entry:.1}"
    );
    let (exit_time, exit) = slow_start_exit(&events, "hystart++_css");
    let expected_exit = (expected_entry + (flight - 16.0) / 4.0) * 1.25f64.powi(4);
    eprintln!(
        "hystart++: CSS at {entry_time:.3} s from {entry_cwnd:.1} (predicted {expected_entry:.1}); \
         ssthresh at {exit_time:.3} s = {exit:.1} (predicted {expected_exit:.1}); standard lost at \
         {standard_loss_time:.3} s with {standard_loss_cwnd:.1}"
    );
    // 1 %: the rounds' ACK counts are whole segments and the CSS increments quarter ones.
    assert!(
        (exit / expected_exit - 1.0).abs() <= 0.01,
        "ssthresh {exit:.1}, predicted {expected_exit:.1}"
    );
    assert!(entry_time < standard_loss_time && exit < standard_loss_cwnd);
}

/// Hoe 1996: the first closely spaced ACKs arrive at the bottleneck rate (packet pair), so
/// a least-squares fit over three of them gives the bandwidth B, and ssthresh = B × RTT is
/// the path's BDP in payload bytes: 50e6 × (1448/1500)/8 × minRTT / 1448 ≈ 252 segments.
/// Slow start then stops at the BDP instead of overrunning it.
#[test]
fn packet_pair_ssthresh_is_the_path_bdp() {
    let (standard_loss_time, _, _) = standard_first_loss();
    let (result, samples, events) =
        run_with_events(&exit_path(2.0, "initial_ssthresh = \"packet-pair\""));
    assert_eq!(result.flows[0].retransmissions, 0);
    let path = ExitPath::of(&result);
    let (time, ssthresh) = ssthresh_set(&samples);
    // Slow start goes on until cwnd reaches the estimate, and says why it stopped.
    let (exit_time, exit) = slow_start_exit(&events, "packet_pair");
    assert_eq!(exit, ssthresh);
    assert!(exit_time > time);
    let bdp = 50e6 * (1448.0 / 1500.0) / 8.0 * path.min_rtt / MSS;
    eprintln!("packet-pair: ssthresh {ssthresh:.2} at {time:.3} s, payload BDP {bdp:.2}");
    // Set within the first round trip, from the first flight's ACKs.
    assert!(time < 1.5 * path.min_rtt);
    // 1 %: the RTT in the estimate is the smallest sample at the third ACK, which can be
    // a few tenths of a millisecond above the run's.
    assert!(
        (ssthresh / bdp - 1.0).abs() <= 0.01,
        "ssthresh {ssthresh:.2}, BDP {bdp:.2}"
    );
    // Slow start stops there (congestion avoidance grows ~1 segment per RTT after).
    let at_ssthresh = samples
        .iter()
        .find(|s| cwnd(s) >= ssthresh.floor())
        .unwrap();
    let later = samples
        .iter()
        .find(|s| secs(s) >= secs(at_ssthresh) + 2.0 * path.min_rtt)
        .unwrap();
    assert!(
        cwnd(later) <= ssthresh + 3.0,
        "slow start went on past ssthresh"
    );
    assert!(secs(at_ssthresh) < standard_loss_time);
}

/// Hybla's own slow start (2^ρ − 1 per ACK; ρ = 24 on a 600 ms satellite path) with Hoe's
/// estimate: ssthresh is the path's BDP from the first flight's ACKs, and cwnd, already far
/// past it after the first ACK, is brought down to it, so the start-up costs a few losses
/// instead of a flight of millions of segments cut short by the queue. Without the estimate
/// the first round sends at the sender's line rate until the losses are seen an RTT later.
/// (Losses remain: congestion avoidance adds ρ² = 576 segments per RTT, more than the
/// 1-BDP buffer, as the 25 ms reference flow adds per second.)
#[test]
fn hybla_with_packet_pair_starts_at_the_satellite_bdp() {
    let path = |flow: &str| {
        format!(
            r#"
duration = "10s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "298ms", buffer = "1bdp" }}
access = {{ rate = "100Mbps", delay = "1ms" }}
[[flows]]
cc = "hybla"
{flow}
[output]
interval = "1ms"
"#
        )
    };
    let (with, samples, events) = run_with_events(&path("initial_ssthresh = \"packet-pair\""));
    let (time, ssthresh) = ssthresh_set(&samples);
    // cwnd, far past the estimate, is brought down to it on the ACK that makes it.
    let (exit_time, exit) = slow_start_exit(&events, "packet_pair");
    assert_eq!(exit, ssthresh);
    assert!(exit_time <= time);
    let min_rtt = with.flows[0].min_rtt.expect("RTT sampled").as_secs_f64();
    let bdp = 10e6 * (1448.0 / 1500.0) / 8.0 * min_rtt / MSS;
    let (without, _) = run(&path(""));
    let retransmitted = |r: &RunResult| r.flows[0].retransmissions;
    eprintln!(
        "hybla packet-pair: ssthresh {ssthresh:.1} at {time:.3} s (BDP {bdp:.1}); \
         retransmissions {} vs {} without, goodput {:.2} vs {:.2} Mbit/s",
        retransmitted(&with),
        retransmitted(&without),
        with.flows[0].delivered_bytes as f64 * 8.0 / 10e6,
        without.flows[0].delivered_bytes as f64 * 8.0 / 10e6,
    );
    assert!(time < 1.5 * min_rtt, "estimate at {time} s");
    assert!(
        (ssthresh / bdp - 1.0).abs() <= 0.01,
        "ssthresh {ssthresh:.1}, BDP {bdp:.1}"
    );
    let first = samples.iter().find(|s| secs(s) >= time).expect("sampled");
    assert!(
        cwnd(first) <= ssthresh + 1.0,
        "cwnd {} not brought down",
        cwnd(first)
    );
    assert!(
        10 * retransmitted(&with) < retransmitted(&without),
        "retransmissions {} with the estimate, {} without",
        retransmitted(&with),
        retransmitted(&without)
    );
    assert!(with.flows[0].delivered_bytes > without.flows[0].delivered_bytes);
}
