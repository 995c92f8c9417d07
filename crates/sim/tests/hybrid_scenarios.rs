//! Loss-and-delay (hybrid) controllers on the dumbbell: Compound TCP's delay window, the
//! delay-dependent α and β of TCP-Illinois, and YeAH-TCP's fast mode and precautionary
//! decongestion, each checked against the bottleneck queue the simulator reports.
//!
//! The controllers decide once per round trip from the RTT samples of that round. An ACK
//! reaching the sender at time t acknowledges a packet that joined the bottleneck queue about
//! `RETURN_LAG` (+ its own wait) earlier, so a decision at t reflects the queue over the
//! round trip ending `RETURN_LAG` before t; the tests compare decisions with the mean of the
//! 1-ms queue samples over that window. For a lone flow on a saturated link the controllers'
//! queue estimate, cwnd·(RTT − BaseRTT)/RTT, is that backlog in packets (Little's law).

mod common;

use cclab_cc::algorithms::compound::Compound;
use cclab_cc::algorithms::illinois::Illinois;
use cclab_cc::algorithms::yeah::Yeah;
use cclab_cc::{AlgorithmInfo, CcConfig, CongestionControl, Params, SlowStart};
use cclab_sim::{MemorySink, RunResult};
use common::{Call, Probed, Seen, mean, probe_info, queue_samples, run_observed, scenario};

impl Probed for Compound {
    fn build(config: &CcConfig, params: &Params, slow_start: Box<dyn SlowStart>) -> Self {
        Compound::from_params(config, params, slow_start)
    }
    fn state(&self) -> [f64; 4] {
        [self.dwnd() as f64, self.loss_window() as f64, 0.0, 0.0]
    }
}

impl Probed for Illinois {
    fn build(config: &CcConfig, params: &Params, slow_start: Box<dyn SlowStart>) -> Self {
        Illinois::from_params(config, params, slow_start)
    }
    /// α and β as the controller reports them ([`CongestionControl::metrics`]).
    fn state(&self) -> [f64; 4] {
        let m = self.metrics();
        let (alpha, beta) = (m.increase_per_rtt, m.decrease_fraction);
        [alpha.expect("α"), beta.expect("β"), 0.0, 0.0]
    }
}

impl Probed for Yeah {
    fn build(config: &CcConfig, params: &Params, slow_start: Box<dyn SlowStart>) -> Self {
        Yeah::from_params(config, params, slow_start)
    }
}

static COMPOUND: AlgorithmInfo = probe_info::<Compound>();
static ILLINOIS: AlgorithmInfo = probe_info::<Illinois>();
static YEAH: AlgorithmInfo = probe_info::<Yeah>();

const MSS: f64 = 1448.0;

/// From the bottleneck back to the sender: the packet's serialization there (0.24 ms at
/// 50 Mbit/s), 18 ms, the receiver's access link (12 µs + 1 ms), and the ACK's way back over
/// 1 + 18 + 1 ms (its serialization is a few µs): 39.26 ms, for the Compound and Illinois
/// scenarios (50 Mbit/s / 18 ms bottleneck, 1 Gbit/s / 1 ms access links).
const RETURN_LAG: f64 = 0.03926;

/// Mean bottleneck queue (packets) over the round trip that a decision at `t` with smoothed
/// RTT `srtt` looked at.
fn queue_seen(queue: &[(f64, u64)], t: f64, srtt: f64) -> f64 {
    let (from, to) = (t - RETURN_LAG - srtt, t - RETURN_LAG);
    mean(
        queue
            .iter()
            .filter(|&&(x, _)| x > from && x <= to)
            .map(|&(_, q)| q as f64),
    )
}

/// A controller decision: (time s, smoothed RTT s, the state after it).
type Decision = (f64, f64, [f64; 4]);
/// A congestion event: (time s, cwnd before, cwnd after).
type Loss = (f64, u64, u64);

/// Run a lone watched flow; log every ACK after which `state` changed, and the congestion
/// events with cwnd before and after.
fn watch(
    text: &str,
    info: &'static AlgorithmInfo,
) -> (RunResult, MemorySink, Vec<Decision>, Vec<Loss>) {
    let mut s = scenario(text);
    s.flows[0].cc = info;
    type Log = (Vec<Decision>, Vec<Loss>, u64);
    let (result, sink, (decisions, losses, _)) = run_observed(
        &s,
        (Vec::new(), Vec::new(), 0u64),
        |(decisions, losses, last_cwnd): &mut Log, seen: &Seen| {
            match seen.call {
                Call::Ack(ack) if decisions.last().is_none_or(|d| d.2 != seen.state) => {
                    let srtt = ack.srtt.unwrap().as_secs_f64();
                    decisions.push((ack.now.as_secs_f64(), srtt, seen.state));
                }
                Call::Congestion(event) => {
                    losses.push((event.now.as_secs_f64(), *last_cwnd, seen.cwnd))
                }
                _ => {}
            }
            *last_cwnd = seen.cwnd;
        },
    );
    (result, sink, decisions, losses)
}

#[test]
fn compound_grows_its_delay_window_until_gamma_packets_queue() {
    // INFOCOM 2006 §3: once per RTT, diff = win·(1 − BaseRTT/RTT) (the flow's queued
    // packets); dwnd += α·win^k − 1 while diff < γ, dwnd −= ζ·diff once diff ≥ γ = 30.
    // 50 Mbit/s, RTT 40.3 ms: BDP 168 packets, buffer 80. After each loss win is halved to
    // ≈ (168 + 80)/2 = 124 packets < BDP: the queue is empty and dwnd grows by
    // 0.125·124^0.75 − 1 ≈ 2.7 packets per RTT and more, until the queue reaches γ; then dwnd
    // is given back and the Reno part alone fills the buffer up to the next loss.
    // Tolerance ±1.5 packets between diff and the queue samples: BaseRTT may include one
    // serialization (delayed-ACK pairs), the samples miss the packet in service and are 1 ms
    // apart.
    let gamma = 30.0;
    let (result, sink, decisions, losses) = watch(
        r#"
duration = "12s"
[topology]
bottleneck = { rate = "50Mbps", delay = "18ms", buffer = 80 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "compound"
[output]
interval = "1ms"
"#,
        &COMPOUND,
    );
    assert_eq!(result.flows[0].timeouts, 0);
    let queue = queue_samples(&sink, 0.0, 12.0);
    assert!(losses.len() >= 2, "loss cycles: {losses:?}");
    let first_loss = losses[0].0;
    let (mut increases, mut decreases, mut max_dwnd) = (0, 0, 0.0f64);
    for pair in decisions.windows(2) {
        let (before, (t, srtt, after)) = (pair[0].2[0], pair[1]);
        if t < first_loss + 0.2 || losses.iter().any(|l| (t - l.0).abs() < 0.2) {
            continue; // slow start, and the rounds around a loss (the round restarts)
        }
        let seen = queue_seen(&queue, t, srtt);
        let dwnd = after[0];
        max_dwnd = max_dwnd.max(dwnd / MSS);
        if dwnd > before {
            increases += 1;
            assert!(
                seen < gamma + 1.5,
                "dwnd grew at {t:.3} s with {seen:.1} packets queued"
            );
            // The growth rule: α·win^k − 1 with win = cwnd + dwnd before the update.
            let win = (after[1] + before) / MSS;
            let expected = 0.125 * win.powf(0.75) - 1.0;
            assert!(((dwnd - before) / MSS - expected).abs() < 0.01);
        } else if dwnd < before {
            decreases += 1;
            assert!(
                seen > gamma - 1.5,
                "dwnd shrank at {t:.3} s with {seen:.1} packets queued"
            );
        }
    }
    eprintln!(
        "{increases} dwnd increases, {decreases} decreases, largest dwnd {max_dwnd:.1} packets"
    );
    assert!(increases >= 50 && decreases >= 10);
    // Right after a loss the whole gap to the BDP is filled by dwnd: tens of packets.
    assert!(max_dwnd > 40.0);
}

/// α(d_a) and β(d_a) of TCP-Illinois (Liu, Başar, Srikant 2006; Linux tcp_illinois.c) for
/// delays in units of d_m.
fn illinois_alpha(d_a: f64) -> f64 {
    let (alpha_min, alpha_max, d1) = (0.3, 10.0, 0.01);
    if d_a <= d1 {
        return alpha_max;
    }
    let k1 = (1.0 - d1) * alpha_min * alpha_max / (alpha_max - alpha_min);
    let k2 = (1.0 - d1) * alpha_min / (alpha_max - alpha_min) - d1;
    k1 / (k2 + d_a)
}

fn illinois_beta(d_a: f64) -> f64 {
    let (beta_min, beta_max, d2, d3) = (0.125, 0.5, 0.1, 0.8);
    if d_a <= d2 {
        beta_min
    } else if d_a >= d3 {
        beta_max
    } else {
        beta_min + (beta_max - beta_min) * (d_a - d2) / (d3 - d2)
    }
}

const ILLINOIS_SCENARIO: &str = r#"
duration = "DURATION"
[topology]
bottleneck = { rate = "50Mbps", delay = "18ms", buffer = 100 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "illinois"
delayed_ack = false
DROP
[output]
interval = "1ms"
"#;

#[test]
fn illinois_sets_alpha_and_beta_from_the_queueing_delay() {
    // Each round: d_a = mean RTT − BaseRTT, d_m = max RTT − BaseRTT. α = α_max = 10 while
    // d_a ≤ d_m/100 (after θ = 5 such rounds), then κ1/(κ2 + d_a) down to α_min = 0.3 at
    // d_m; β = 1/8 up to d_m/10, rising linearly to 1/2 at 0.8·d_m. One flow, no delayed ACKs
    // (so an empty queue means exactly zero delay), buffer 100 packets: once the first loss
    // has filled it d_m = 100 packets' worth (plus the one in service). In queue terms d_a/d_m
    // = (queue seen)/101. Tolerance: the queue seen ±1.5 packets (sampling, the packet in
    // service, the lag estimate), evaluated on the curves.
    let text = ILLINOIS_SCENARIO
        .replace("DURATION", "20s")
        .replace("DROP", "");
    let (result, sink, decisions, losses) = watch(&text, &ILLINOIS);
    assert_eq!(result.flows[0].timeouts, 0);
    let queue = queue_samples(&sink, 0.0, 20.0);
    let d_m = 101.0;
    let first_loss = losses[0].0;
    let (mut checked, mut at_alpha_max, mut at_beta_min, mut at_beta_max) = (0, 0, 0, 0);
    for &(t, srtt, [alpha, beta, ..]) in &decisions {
        if t < first_loss + 0.5 || losses.iter().any(|l| (t - l.0).abs() < 0.2) {
            continue;
        }
        let seen = queue_seen(&queue, t, srtt);
        let lo = ((seen - 1.5).max(0.0)) / d_m;
        let hi = (seen + 1.5) / d_m;
        // α: the curve is decreasing; below d1 + tolerance the θ-round wait may still hold
        // the previous value, so only the upper bound applies there.
        assert!(
            alpha <= illinois_alpha(lo) + 1e-9,
            "α {alpha} at {t:.3} s, queue {seen:.1}"
        );
        if seen > 3.0 {
            assert!(
                alpha >= illinois_alpha(hi) - 1e-9,
                "α {alpha} at {t:.3} s, queue {seen:.1}"
            );
        }
        assert!(
            (illinois_beta(lo) - 1e-9..=illinois_beta(hi) + 1e-9).contains(&beta),
            "β {beta} at {t:.3} s, queue {seen:.1}"
        );
        checked += 1;
        at_alpha_max += (alpha == 10.0) as u32;
        at_beta_min += (beta == 0.125) as u32;
        at_beta_max += (beta == 0.5) as u32;
    }
    eprintln!(
        "{checked} rounds: α = α_max in {at_alpha_max}, β = 1/8 in {at_beta_min}, β = 1/2 in {at_beta_max}"
    );
    assert!(checked > 100);
    assert!(at_alpha_max >= 1 && at_beta_min >= 3 && at_beta_max >= 50);
    // A loss with the buffer full (d_a ≥ 0.8·d_m) halves the window.
    for &(t, before, after) in &losses[2..] {
        let ratio = after as f64 / before as f64;
        assert!(
            (ratio - 0.5).abs() < 0.01,
            "loss at {t:.3} s: {before} → {after}"
        );
    }
}

#[test]
fn illinois_loses_only_an_eighth_of_its_window_to_a_loss_at_low_delay() {
    // The same flow, with one segment dropped in the second cycle just after the queue has
    // drained (α back at α_max, β = β_min = 1/8): the loss costs 1/8 of the window, not the
    // half Reno (and Illinois at high delay) gives up. The segment is chosen from a first
    // run: the next new segment (snd_nxt) at the first ACK after 7.3 s, when the queue
    // drained after the 6.95 s loss has been empty for several rounds.
    let text = ILLINOIS_SCENARIO
        .replace("DURATION", "7.5s")
        .replace("DROP", "");
    let mut s = scenario(&text);
    s.flows[0].cc = &ILLINOIS;
    let (_, _, (index, beta)) = run_observed(
        &s,
        (None::<u64>, 0.0),
        |(index, beta): &mut (Option<u64>, f64), seen: &Seen| {
            if let Call::Ack(ack) = seen.call
                && index.is_none()
                && ack.now.as_secs_f64() >= 7.3
            {
                *index = Some(ack.snd_nxt / 1448);
                *beta = seen.state[1];
            }
        },
    );
    let index = index.expect("ran past 7.3 s");
    assert_eq!(beta, 0.125, "β_min when the segment is sent");
    let text = ILLINOIS_SCENARIO
        .replace("DURATION", "8s")
        .replace("DROP", &format!("drop = [{index}]"));
    let (_, _, decisions, losses) = watch(&text, &ILLINOIS);
    let &(t, before, after) = losses
        .iter()
        .find(|l| l.0 > 7.3)
        .expect("the dropped segment");
    let beta_then = decisions.iter().rfind(|d| d.0 <= t).unwrap().2[1];
    eprintln!("loss at {t:.3} s with β = {beta_then}: {before} → {after}");
    assert_eq!(beta_then, 0.125);
    let ratio = after as f64 / before as f64;
    assert!((ratio - 0.875).abs() < 0.01, "{before} → {after}");
}

#[test]
fn yeah_runs_fast_on_a_short_queue_and_decongests_above_alpha() {
    // Baiocchi, Castellani, Vacirca (PFLDnet 2007), Linux tcp_yeah.c: per round,
    // Q = cwnd·(RTT_min − BaseRTT)/RTT_min. Fast mode (Scalable TCP growth, +1 packet per
    // 100 ACKed: 1 % per RTT) while Q ≤ α = 80 and the queueing delay ≤ BaseRTT/φ = 1/8;
    // otherwise slow mode, where Q > α triggers precautionary decongestion: cwnd −= Q/γ
    // (γ = 1). At 100 Mbit/s and RTT 80.3 ms (BDP 669 packets), BaseRTT/8 = 10 ms is 83
    // packets of queue, so Q = α binds first. Expected steady state, without losses in a
    // 400-packet buffer: the queue climbs by 1 % of cwnd per round in fast mode, cwnd being
    // at most BDP + the peak queue ≈ 669 + 103 packets, so ≤ 7.7 packets per round; the
    // round that sees Q > 80 removes Q packets at once. The queue seen by that round lags
    // the real one by about two rounds of growth, so the peak stays below α + 3 · 7.7 = 103
    // packets, and right after a decongestion the queue is nearly empty.
    let (_, sink, _, losses) = watch(
        r#"
duration = "12s"
[topology]
bottleneck = { rate = "100Mbps", delay = "38ms", buffer = 400 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "yeah"
[output]
interval = "10ms"
"#,
        &YEAH,
    );
    let alpha = 80.0;
    // Start-up overshoots the buffer (slow start); from 3 s on nothing is lost.
    assert!(losses.iter().all(|l| l.0 < 3.0), "{losses:?}");
    let samples = common::flow_samples(&sink, 0, 3.0, 12.0);
    let queue = queue_samples(&sink, 3.0, 12.0);
    let peak = queue.iter().map(|&(_, q)| q).max().unwrap() as f64;
    let average = mean(queue.iter().map(|&(_, q)| q as f64));
    let fast = samples.iter().filter(|s| s.mode == "fast").count() as f64 / samples.len() as f64;
    eprintln!(
        "queue peak {peak}, mean {average:.1}, fast mode {:.1} % of the time",
        100.0 * fast
    );
    let growth = 0.01 * (669.0 + 103.0);
    let peak_bound = alpha + 3.0 * growth;
    assert!(peak <= peak_bound && peak > alpha, "peak queue {peak}");
    assert!(average < alpha, "mean queue {average:.1}");
    // One slow round per decongestion, about every 12 fast rounds.
    assert!(fast > 0.85, "fast mode {fast:.3}");
    // Each slow round lowers cwnd by about the queue (decongestion), without any loss, and
    // the queue then drops below α/2.
    let mut decongestions = 0;
    for pair in samples.windows(2) {
        if pair[0].mode == "fast" && pair[1].mode == "slow" {
            decongestions += 1;
            let cut = (pair[0].cwnd_bytes as f64 - pair[1].cwnd_bytes as f64) / MSS;
            assert!(
                (alpha - 10.0..=peak_bound).contains(&cut),
                "decongestion of {cut:.1} packets"
            );
            let t = pair[1].time.as_secs_f64();
            let after = queue
                .iter()
                .filter(|&&(x, _)| x > t && x <= t + 0.2)
                .map(|&(_, q)| q)
                .min()
                .unwrap();
            assert!(
                (after as f64) < alpha / 2.0,
                "queue {after} after decongestion at {t:.2} s"
            );
        }
    }
    eprintln!("{decongestions} decongestions");
    assert!(decongestions >= 7, "one about every second");
}

/// TCP-Fusion (Kaneko et al., PFLDnet 2007): once per round, with the Vegas backlog
/// diff = cwnd·(RTT − RTT_min)/RTT and α = cwnd·D_min/RTT, increase by W_inc = B·1 ms/PS
/// below α, hold from α to 3α, decrease above. For a lone flow on a saturated link, diff is
/// the bottleneck queue in packets (Little's law) and α is what the link sends in D_min =
/// 4 ms: 100 Mbit/s / (1500 B · 8) · 4 ms = 33.3 packets, 3α = 100 packets. So once Fusion's
/// own window rules (its shadow Reno window regrows by one packet per RTT from its
/// start-up halving, far below), the queue sits in the hold band [α, 3α] and never drains:
/// the link stays busy without loss.
#[test]
fn fusion_holds_the_queue_between_alpha_and_three_alpha() {
    let (result, sink) = common::run(
        r#"
duration = "8s"
[topology]
bottleneck = { rate = "100Mbps", delay = "23ms", buffer = "0.5bdp" }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "fusion"
[output]
interval = "10ms"
"#,
    );
    let alpha = 100e6 / (1500.0 * 8.0) * 0.004;
    // The start-up overshoot (slow start into a 208-packet buffer) is over by 3 s.
    let queue = queue_samples(&sink, 4.0, 8.0);
    let (lowest, highest) = (
        queue.iter().map(|&(_, q)| q).min().unwrap() as f64,
        queue.iter().map(|&(_, q)| q).max().unwrap() as f64,
    );
    eprintln!(
        "queue {lowest}..{highest} packets, hold band {alpha:.1}..{:.1}",
        3.0 * alpha
    );
    assert!(
        lowest >= alpha && highest <= 3.0 * alpha,
        "queue {lowest}..{highest} outside [{alpha:.1}, {:.1}]",
        3.0 * alpha
    );
    let samples = common::flow_samples(&sink, 0, 4.0, 8.0);
    assert!(samples.iter().all(|s| s.mode == "hold"));
    // No loss in the window: the bottleneck's cumulative drop count does not move.
    let drops_at = |t: f64| {
        sink.links
            .iter()
            .rfind(|l| l.1 == "bottleneck" && l.0.as_secs_f64() <= t + 1e-9)
            .map(|l| l.4)
            .unwrap()
    };
    assert_eq!(drops_at(4.0), drops_at(8.0));
    assert_eq!(drops_at(8.0), result.links[0].stats.drops());
}
