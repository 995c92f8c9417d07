//! Property tests: random small scenarios (every controller and slow-start variant, rates,
//! delays, buffers, random loss, ECN marking, start times, finite and unlimited transfers,
//! every recovery (Tahoe, Reno, NewReno, SACK, FACK) with loss detection by duplicate ACKs
//! or RACK-TLP (with SACK), undo and F-RTO on or off, limited transmit, both RTO estimators,
//! delayed ACKs, pacing, receive windows fixed or auto-tuned, forced drops, the connection
//! handshake with lost SYNs, quick-ACKs) must keep the simulator's invariants:
//!
//! - the run finishes without a `SimError`: the simulator checks packet conservation (packets
//!   created = consumed + dropped + on links), no delivery beyond what was sent and no
//!   acknowledgment of bytes not delivered at every sampling tick in debug builds;
//! - per segment, from the packet events: every arrival and every drop is of a segment that
//!   was sent, and no copy of a segment both arrives and is dropped more often than it was
//!   sent (sent = arrived + dropped + in flight, in flight ≥ 0); the event counts agree with
//!   the run's counters;
//! - exactly-once in-order delivery: the bytes delivered to the application are the
//!   contiguous prefix of what arrived, never beyond what was sent; a finite transfer never
//!   delivers more than its size, and completes exactly when all of it was delivered (with
//!   a handshake: only once all of it was delivered and acknowledged, its FIN with it);
//! - determinism: the same scenario twice gives identical results and time series.
//!
//! The number of cases is kept small for debug-build CI; run more with e.g.
//! `PROPTEST_CASES=2000 cargo test --release -p cclab-sim --test properties`.

mod common;
#[path = "support/random_scenario.rs"]
mod random_scenario;

use std::collections::HashMap;

use cclab_cc::SimTime;
use cclab_sim::{MemorySink, PacketEventKind, RunResult, Simulation};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use random_scenario::{RandomScenario, every_recovery, random_scenario};

fn run_case(case: &RandomScenario) -> Result<(RunResult, MemorySink), TestCaseError> {
    let scenario = cclab_scenario::from_str("random.toml", &case.toml, &[])
        .map_err(|e| TestCaseError::fail(format!("generated scenario is invalid: {e}")))?;
    let mut sink = MemorySink::default();
    let result = Simulation::new(&scenario)
        .run(&mut sink, &mut |_| {})
        .map_err(|e| TestCaseError::fail(format!("simulator invariant: {e}")))?;
    Ok((result, sink))
}

/// Per-segment and per-flow accounting from the packet events of every flow.
fn check_accounting(result: &RunResult, sink: &MemorySink) -> Result<(), TestCaseError> {
    for flow in &result.flows {
        // (seq, bytes) -> (sent, arrived, dropped)
        let mut segments: HashMap<(u64, u32), (u64, u64, u64)> = HashMap::new();
        let (mut sends, mut retransmits, mut drops, mut ack_drops) = (0u64, 0u64, 0u64, 0u64);
        let mut sent_end = 0u64;
        let mut arrived: Vec<(u64, u64)> = Vec::new();
        for e in sink.packets.iter().filter(|e| e.flow == flow.id) {
            let key = (e.seq, e.bytes);
            match e.kind {
                PacketEventKind::Send | PacketEventKind::Retransmit => {
                    if e.kind == PacketEventKind::Send {
                        sends += 1;
                    } else {
                        retransmits += 1;
                    }
                    segments.entry(key).or_default().0 += 1;
                    sent_end = sent_end.max(e.seq + u64::from(e.bytes));
                }
                PacketEventKind::Receive | PacketEventKind::Drop => {
                    let s = segments.entry(key).or_default();
                    if e.kind == PacketEventKind::Receive {
                        s.1 += 1;
                        arrived.push((e.seq, e.seq + u64::from(e.bytes)));
                    } else {
                        s.2 += 1;
                        drops += 1;
                    }
                    prop_assert!(
                        s.1 + s.2 <= s.0,
                        "flow {}: segment {:?} arrived {} and dropped {} times but sent {} \
                         (at {:?})",
                        flow.id,
                        key,
                        s.1,
                        s.2,
                        s.0,
                        e.time
                    );
                }
                // The receiver's FIN is its last ACK: a lost one is an ACK drop.
                PacketEventKind::AckDrop => ack_drops += 1,
                PacketEventKind::Ack | PacketEventKind::Fin => {}
                // Handshake packets carry no data (`handshake = true`).
                PacketEventKind::Syn | PacketEventKind::SynAck | PacketEventKind::SynDrop => {
                    prop_assert_eq!(e.bytes, 0, "flow {}: a SYN carries no data", flow.id)
                }
            }
        }
        prop_assert_eq!(sends + retransmits, flow.packets_sent, "flow {}", flow.id);
        prop_assert_eq!(retransmits, flow.retransmissions, "flow {}", flow.id);
        prop_assert_eq!(drops, flow.drops, "flow {}", flow.id);
        prop_assert_eq!(ack_drops, flow.ack_drops, "flow {}", flow.id);

        // The contiguous prefix of the arrived bytes is what the application got.
        arrived.sort_unstable();
        let mut prefix = 0;
        for (from, to) in arrived {
            if from > prefix {
                break;
            }
            prefix = prefix.max(to);
        }
        prop_assert_eq!(
            flow.delivered_bytes,
            prefix,
            "flow {}: in-order delivery",
            flow.id
        );
        prop_assert!(
            flow.delivered_bytes <= sent_end,
            "flow {}: delivered beyond what was sent",
            flow.id
        );
        prop_assert!(flow.bytes_acked <= flow.delivered_bytes, "flow {}", flow.id);
        prop_assert!(
            flow.delivered_bytes <= flow.payload_bytes_sent,
            "flow {}",
            flow.id
        );
        match flow.size {
            Some(size) => {
                prop_assert!(
                    flow.delivered_bytes <= size,
                    "flow {}: beyond its size",
                    flow.id
                );
                if flow.handshake_time().is_some() {
                    // Complete when the sender's FIN is acknowledged: after the receiver
                    // has every byte, the receiver's FIN may still be on its way at the end.
                    prop_assert!(
                        flow.completed_at.is_none() || flow.delivered_bytes == size,
                        "flow {}: completion with a handshake",
                        flow.id
                    );
                    prop_assert!(
                        flow.completed_at.is_none() || flow.bytes_acked == size,
                        "flow {}: complete before every byte was acknowledged",
                        flow.id
                    );
                } else {
                    prop_assert_eq!(
                        flow.completed_at.is_some(),
                        flow.delivered_bytes == size,
                        "flow {}: completion",
                        flow.id
                    );
                }
                prop_assert!(sent_end <= size, "flow {}: sent beyond its size", flow.id);
            }
            None => prop_assert!(flow.completed_at.is_none()),
        }
        if let Some(done) = flow.completed_at {
            prop_assert!(done >= flow.start && done <= SimTime::ZERO + result.duration);
        }
        if flow.packets_sent > 0 {
            prop_assert!(flow.start <= SimTime::ZERO + result.duration);
        }
    }
    Ok(())
}

/// The reported links' counters and queue-delay statistics.
fn check_links(result: &RunResult, case: &RandomScenario) -> Result<(), TestCaseError> {
    let end = SimTime::ZERO + result.duration;
    let mut link_drops = 0;
    for link in &result.links {
        let stats = &link.stats;
        link_drops += stats.drops();
        // Utilization ≤ 1: the transmitter is busy at most the whole run, and within the
        // steady window at most the window.
        prop_assert!(
            link.busy <= result.duration,
            "{}: busy {:?}",
            link.name,
            link.busy
        );
        prop_assert!(link.busy_at_window_start <= link.busy, "{}", link.name);
        prop_assert!(
            link.busy - link.busy_at_window_start <= end - result.window_start.min(end),
            "{}: busy within the window",
            link.name
        );
        // Every packet that entered the transmitter waited a recorded time, once.
        prop_assert_eq!(stats.queue_delay.count(), stats.packets, "{}", link.name);
        prop_assert!(stats.ce_marks <= stats.packets, "{}", link.name);
        prop_assert!(stats.random_losses <= stats.packets, "{}", link.name);
        if let (Some(min), Some(max), Some(mean), Some(p99)) = (
            stats.queue_delay.min(),
            stats.queue_delay.max(),
            stats.queue_delay.mean(),
            stats.queue_delay.quantile(0.99),
        ) {
            prop_assert!(
                min as f64 <= mean && mean <= max as f64,
                "{}: queue delay mean {} outside [{}, {}]",
                link.name,
                mean,
                min,
                max
            );
            prop_assert!(
                min as f64 <= p99 && p99 <= max as f64,
                "{}: p99 {}",
                link.name,
                p99
            );
            let bound = case
                .max_wait_ns
                .iter()
                .find(|(name, _)| *name == link.name)
                .and_then(|(_, bound)| *bound);
            if let Some(bound) = bound {
                prop_assert!(
                    max <= bound,
                    "{}: a packet waited {} ns, more than the buffer and the packet in \
                     service take to send ({} ns)",
                    link.name,
                    max,
                    bound
                );
            }
        }
    }
    // Every drop on a link is some flow's data segment or ACK (or SYN, SYN-ACK, FIN), and the
    // other way round: no
    // packet is lost on a link that is not reported (access links have unlimited buffers
    // and no loss; the bottleneck's reverse direction carries only ACKs, at most at the rate
    // the data that clocks them leaves the forward direction, so they never overflow it),
    // except ACKs lost to `ack_loss` there.
    let flow_drops: u64 = result
        .flows
        .iter()
        .map(|f| {
            f.drops
                + f.syn_drops()
                + if case.ack_drops_unreported {
                    0
                } else {
                    f.ack_drops + f.syn_ack_drops()
                }
        })
        .sum();
    prop_assert_eq!(
        flow_drops,
        link_drops,
        "flows' drops against the links' drops"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        // Failures are reported with the scenario text; no files are written.
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_scenarios_keep_the_invariants(case in random_scenario()) {
        let (result, sink) = run_case(&case)?;
        prop_assert_eq!(result.flows.len(), case.flows);
        check_accounting(&result, &sink)?;
        check_links(&result, &case)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        // Each case runs its scenario 18 times.
        cases: 8,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The random draw above mixes recoveries at random; here each drawn scenario runs with
    /// every flow table set to each of the 18 settings in turn (Tahoe, Reno, NewReno, SACK
    /// and FACK, SACK with RACK-TLP too, each without undo, with undo and with undo and
    /// F-RTO), so every pair meets the same losses.
    #[test]
    fn every_recovery_keeps_the_invariants(case in random_scenario()) {
        let settings = every_recovery();
        prop_assert_eq!(settings.len(), 18);
        for setting in settings {
            let case = case.with_recovery(setting);
            let (result, sink) = run_case(&case)?;
            prop_assert_eq!(result.flows.len(), case.flows);
            check_accounting(&result, &sink)?;
            check_links(&result, &case)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 32,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn same_seed_same_run(case in random_scenario()) {
        let (a, sink_a) = run_case(&case)?;
        let (b, sink_b) = run_case(&case)?;
        prop_assert_eq!(a, b);
        prop_assert_eq!(sink_a.flows, sink_b.flows);
        prop_assert_eq!(sink_a.links, sink_b.links);
        prop_assert_eq!(sink_a.packets, sink_b.packets);
    }
}

/// Runs `case` with the bottleneck's discipline given as `queue` and as drop-tail (see
/// [`RandomScenario::fifo_comparable`]), and requires identical runs: every flow, packet
/// event and queue sample. Two counters differ by convention only, and are compared so: the
/// event count (the scheduled family spends a service event per packet), and the packets
/// still queued when the run ends (or the steady window opens), which drop-tail counts in
/// `packets`, `bytes`, `busy` and `queue_delay` when it admits them (their departure is
/// known then) and a scheduled discipline only when it sends them. The transmitter's busy
/// time within the run (`LinkResult::busy`) must agree exactly.
fn same_as_droptail(case: &RandomScenario, queue: &str) -> Result<(), TestCaseError> {
    let (mut other, sink_other) = run_case(&case.fifo_comparable(queue))?;
    let (droptail, sink_droptail) = run_case(&case.fifo_comparable("\"droptail\""))?;
    other.events = droptail.events;
    for (o, d) in other.links.iter_mut().zip(&droptail.links) {
        let name = d.name.clone();
        for (o, d) in [
            (&mut o.stats, &d.stats),
            (&mut o.at_window_start, &d.at_window_start),
        ] {
            let queued = d.packets.checked_sub(o.packets);
            prop_assert!(
                queued.is_some(),
                "{}: sent more than drop-tail admitted",
                name
            );
            prop_assert_eq!(
                d.queue_delay.count() - o.queue_delay.count(),
                queued.unwrap_or(0),
                "{}: queue delays of the packets still queued",
                name
            );
            o.packets = d.packets;
            o.bytes = d.bytes;
            o.busy = d.busy;
            o.queue_delay = d.queue_delay.clone();
        }
    }
    prop_assert_eq!(other, droptail);
    prop_assert_eq!(sink_other.flows, sink_droptail.flows);
    prop_assert_eq!(sink_other.links, sink_droptail.links);
    prop_assert_eq!(sink_other.packets, sink_droptail.packets);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// CoDel drops or marks only once the sojourn time has stayed at or above `target` for
    /// an `interval` (RFC 8289 §3.3, §5: `ok_to_drop` needs sojourn ≥ target). No packet of a
    /// run of at most 1.5 s waits 100 s, so CoDel is its FIFO with tail drop at the same
    /// buffer limit: drop-tail, packet for packet.
    #[test]
    fn codel_that_never_reaches_its_target_is_droptail(
        case in random_scenario()
    ) {
        same_as_droptail(&case, "{ kind = \"codel\", target = \"100s\", interval = \"200s\" }")?;
    }

    /// PIE drops or marks at enqueue only with its probability `drop_prob`, which starts at 0
    /// and moves by p = α·(qdelay − target) + β·(qdelay − qdelay_old) every `tupdate`
    /// (RFC 8033 §4.2), then is bounded to [0, 1]. With a target of 100 s and a run of at
    /// most 1.5 s, α·(qdelay − target) ≤ −0.125·98.5 < −12 while β·(qdelay − qdelay_old)
    /// ≤ 1.25·1.5 < 2: p < 0 at every update, so drop_prob stays 0 and PIE is its FIFO with
    /// tail drop at the same buffer limit.
    #[test]
    fn pie_that_never_reaches_its_target_is_droptail(case in random_scenario()) {
        same_as_droptail(&case, "{ kind = \"pie\", target = \"100s\" }")?;
    }

    /// RED drops or marks early only when its average queue is at least `min_th` (Floyd &
    /// Jacobson 1993, Fig. 2). The average is an EWMA of queue lengths (with the idle
    /// correction decaying it towards 0), so it never exceeds the longest queue, which is
    /// under the number of packets a run of 1.5 s at 20 Mbit/s can send (about 25 000 of
    /// 152 bytes): with min_th = 10⁶, RED is drop-tail, packet for packet.
    #[test]
    fn red_below_its_thresholds_is_droptail(
        case in random_scenario(),
        adaptive in any::<bool>(),
    ) {
        same_as_droptail(
            &case,
            &format!("{{ kind = \"red\", min_th = 1e6, max_th = 2e6, adaptive = {adaptive} }}"),
        )?;
    }
}

/// Regression: BBR has no slow-start threshold (unlimited); with Reno-style recovery the
/// inflated window started at ssthresh + 3 MSS, saturated, and the next duplicate ACK
/// overflowed it in debug builds.
#[test]
fn bbr_with_newreno_recovery_and_loss() {
    for cc in ["bbr", "bbr3"] {
        for recovery in ["reno", "newreno"] {
            let (result, _) = common::run(&format!(
                r#"
duration = "2s"
seed = 7
[topology]
bottleneck = {{ rate = "10Mbps", delay = "18ms", buffer = "1bdp", loss = 0.01 }}
[[flows]]
cc = "{cc}"
recovery = "{recovery}"
delayed_ack = false
"#
            ));
            assert!(
                result.flows[0].fast_recoveries > 0,
                "{cc}/{recovery}: recovery happened"
            );
        }
    }
}
