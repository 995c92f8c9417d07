//! The same lossy dumbbell under every loss recovery — Reno, NewReno, SACK, Tahoe and FACK —
//! against what K. Fall and S. Floyd, "Simulation-based Comparisons of Tahoe, Reno, and SACK
//! TCP" (CCR 26(3), 1996) established with ns-2 for one to four segments dropped from one
//! window: SACK (and FACK, built on the same SACK information) recovers from all of them in
//! one round trip and resends only what was lost; NewReno recovers without a timeout but one
//! hole per round trip; Reno, which leaves recovery at the first partial ACK, needs a
//! retransmission timeout once three or more are lost; Tahoe never waits for a timeout but
//! slow-starts from one segment and resends segments that had arrived (go-back-N). Every
//! run also checks, in debug builds, packet conservation and the scoreboard at each sample.

mod common;

use common::run;
use std::time::Duration;

/// One 1 MB Reno transfer over a 10 Mbit/s, 52 ms path with a buffer far above the BDP, so
/// that only the segments named in `drop` are lost (first transmissions, once each).
const DUMBBELL: &str = r#"
duration = "20s"
[topology]
bottleneck = { rate = "10Mbps", delay = "25ms", buffer = 200 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
size = 1000000
recovery = "RECOVERY"
drop = DROP
"#;

const SIZE: u64 = 1_000_000;
const RECOVERIES: [&str; 5] = ["reno", "newreno", "sack", "tahoe", "fack"];

struct Outcome {
    recovery: &'static str,
    done: Duration,
    flow: cclab_sim::FlowResult,
}

/// Every recovery over the dumbbell with `drops` lost; each flow must deliver all its bytes.
fn outcomes(drops: &[u64]) -> Vec<Outcome> {
    let drop = format!("{drops:?}");
    RECOVERIES
        .iter()
        .map(|&recovery| {
            let text = DUMBBELL
                .replace("RECOVERY", recovery)
                .replace("DROP", &drop);
            let (result, _) = run(&text);
            let flow = result.flows[0].clone();
            // Every byte reaches the application once: the receiver counts in-order bytes
            // only, so a duplicate (Tahoe's go-back-N resends arrived segments) adds none.
            assert_eq!(flow.delivered_bytes, SIZE, "{recovery}");
            assert_eq!(
                flow.drops,
                drops.len() as u64,
                "{recovery}: only the named drops"
            );
            let done = flow.completed_at.expect("completes") - cclab_cc::SimTime::ZERO;
            let done = Duration::from_nanos(done.as_nanos());
            eprintln!(
                "{drop} {recovery}: done {done:?}, retransmissions {}, timeouts {}, recoveries {}",
                flow.retransmissions, flow.timeouts, flow.fast_recoveries
            );
            Outcome {
                recovery,
                done,
                flow,
            }
        })
        .collect()
}

fn get<'a>(outcomes: &'a [Outcome], recovery: &str) -> &'a Outcome {
    outcomes
        .iter()
        .find(|o| o.recovery == recovery)
        .expect("every recovery ran")
}

/// One loss: every variant repairs it with one fast retransmission, no timeout and no other
/// retransmission (Fall & Floyd §4: "all of the TCP variants recover" from a single loss).
#[test]
fn a_single_loss_is_one_fast_retransmission_for_every_variant() {
    for o in outcomes(&[40]) {
        let f = &o.flow;
        assert_eq!(
            (f.retransmissions, f.timeouts, f.fast_recoveries),
            (1, 0, 1),
            "{}",
            o.recovery
        );
    }
}

/// Four segments lost from one window (segments 40–46 go out together in the fourth round
/// of slow start from 10 segments): the ordering of Fall & Floyd §4–5.
#[test]
fn four_losses_in_one_window_order_the_variants_as_fall_and_floyd_found() {
    let drops = [40, 42, 44, 46];
    let all = outcomes(&drops);
    let lost = drops.len() as u64;
    let (sack, fack) = (get(&all, "sack"), get(&all, "fack"));
    let (newreno, reno, tahoe) = (get(&all, "newreno"), get(&all, "reno"), get(&all, "tahoe"));
    // SACK and FACK: one recovery episode covers all four (they were in one window), no
    // timeout, and exactly the lost segments are sent again.
    for o in [sack, fack] {
        let f = &o.flow;
        assert_eq!(
            (f.fast_recoveries, f.timeouts, f.retransmissions),
            (1, 0, lost),
            "{}",
            o.recovery
        );
    }
    // NewReno (RFC 6582): one episode, no timeout, each hole resent once — one per round
    // trip, so it finishes after both SACK variants.
    let f = &newreno.flow;
    assert_eq!(
        (f.fast_recoveries, f.timeouts, f.retransmissions),
        (1, 0, lost)
    );
    assert!(newreno.done > sack.done && newreno.done > fack.done);
    // Reno (RFC 5681): a partial ACK ends recovery, the window halves again on the next
    // three duplicates, and with three or more losses the sender runs out of duplicates:
    // a retransmission timeout, and the latest finish of all.
    assert!(reno.flow.timeouts >= 1, "reno: {}", reno.flow.timeouts);
    for o in &all {
        if o.recovery != "reno" {
            assert!(
                reno.done > o.done,
                "reno {:?} vs {} {:?}",
                reno.done,
                o.recovery,
                o.done
            );
        }
    }
    // Tahoe: one fast retransmit and no timeout, but slow start from one segment and
    // go-back-N, which resends segments that had arrived: more retransmissions than losses,
    // and a later finish than SACK, FACK and NewReno.
    let f = &tahoe.flow;
    assert_eq!((f.fast_recoveries, f.timeouts), (1, 0));
    assert!(
        f.retransmissions > lost,
        "tahoe resent {}",
        f.retransmissions
    );
    assert!(tahoe.done > sack.done && tahoe.done > fack.done && tahoe.done > newreno.done);
}

/// Seed 000's paper modified the slow start of Tahoe, Reno, NewReno, SACK and FACK senders:
/// every recovery here runs with a pluggable slow start (smooth start) and completes.
#[test]
fn every_variant_runs_with_smooth_start() {
    for recovery in RECOVERIES {
        let text = DUMBBELL
            .replace("RECOVERY", recovery)
            .replace("DROP", "[40, 42, 44]")
            .replace(
                "cc = \"reno\"",
                "cc = \"reno\"\nslow_start = \"smooth-start\"",
            );
        let (result, _) = run(&text);
        assert_eq!(result.flows[0].delivered_bytes, SIZE, "{recovery}");
    }
}

/// Limited transmit (RFC 3042 §1: a window too small to bring three duplicate ACKs):
/// a 4-segment transfer with an initial window of 3 loses segment 0. Segments 1 and 2 bring
/// two duplicates and the window is full, so without limited transmit the loss waits for the
/// RTO; with it the first duplicate sends segment 3 (FlightSize 4 ≤ cwnd 3 + 2), whose
/// arrival brings the third duplicate and a fast retransmit.
#[test]
fn limited_transmit_turns_a_timeout_into_a_fast_retransmit() {
    let text = |limited: bool| {
        format!(
            r#"
duration = "5s"
[topology]
bottleneck = {{ rate = "10Mbps", delay = "25ms", buffer = 200 }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "reno"
recovery = "newreno"
initial_window = 3
size = 5792
delayed_ack = false
drop = [0]
limited_transmit = {limited}
"#
        )
    };
    let (without, _) = run(&text(false));
    let (with, _) = run(&text(true));
    let (without, with) = (&without.flows[0], &with.flows[0]);
    assert_eq!((without.timeouts, without.fast_recoveries), (1, 0));
    assert_eq!((with.timeouts, with.fast_recoveries), (0, 1));
    assert_eq!(
        (with.delivered_bytes, without.delivered_bytes),
        (5792, 5792)
    );
    assert!(with.completed_at < without.completed_at);
}

/// Every recovery, with and without limited transmit, over a path that loses data and ACKs
/// at random and reorders: each transfer completes with every byte delivered once, and the
/// debug checks (conservation, scoreboard counters, cwnd ≥ 1 MSS) hold at every sample.
#[test]
fn every_variant_completes_over_a_lossy_reordering_path() {
    for seed in 1..=3 {
        for recovery in RECOVERIES {
            for limited in [false, true] {
                let text = format!(
                    r#"
duration = "60s"
seed = {seed}
[topology]
bottleneck = {{ rate = "20Mbps", delay = "20ms", buffer = "1bdp", loss = 0.02, ack_loss = 0.01, jitter = {{ max = "3ms", reorder = true }} }}
access = {{ rate = "1Gbps", delay = "1ms" }}
[[flows]]
cc = "cubic"
size = 1000000
recovery = "{recovery}"
limited_transmit = {limited}
[[flows]]
cc = "reno"
size = 1000000
start = "500ms"
recovery = "{recovery}"
limited_transmit = {limited}
"#
                );
                let (result, _) = run(&text);
                for flow in &result.flows {
                    assert!(flow.drops > 0, "{recovery}: the path lost nothing");
                    assert_eq!(flow.delivered_bytes, SIZE, "{recovery} seed {seed}");
                    assert!(flow.completed_at.is_some(), "{recovery} seed {seed}");
                }
            }
        }
    }
}

/// A lost retransmission (RFC 5681 §4.3 against Linux). Slow start overshoots a 1-BDP buffer
/// by hundreds of segments, so some retransmissions of the first recovery are lost too.
/// With `lost_retransmission = "reduce"` each such loss starts a new episode that lowers
/// ssthresh again ("the loss of a retransmission [...] MUST [lower] cwnd (and ssthresh)");
/// with `"continue"` (Linux's `tcp_fastretrans_alert`, case TCP_CA_Recovery) the segment is
/// sent again within the one recovery, whose reduction stands. Both deliver every byte.
#[test]
fn a_lost_retransmission_reduces_again_or_continues_the_recovery() {
    use cclab_sim::trace::FlowEventKind;
    const OVERSHOOT: &str = r#"
duration = "6s"
[topology]
bottleneck = { rate = "100Mbps", delay = "25ms", buffer = "1bdp" }
[[flows]]
cc = "reno"
stack = "linux"
size = "20MB"
lost_retransmission = "RULE"
"#;
    let starts = |rule: &str| {
        let (result, sink) = run(&OVERSHOOT.replace("RULE", rule));
        let flow = &result.flows[0];
        assert_eq!(flow.delivered_bytes, 20_000_000, "{rule}: every byte, once");
        assert_eq!(flow.timeouts, 0, "{rule}");
        let starts: Vec<_> = sink
            .events
            .iter()
            .filter(|e| e.kind == FlowEventKind::RecoveryStart)
            .map(|e| (e.detail, e.ssthresh_bytes.expect("set by the reduction")))
            .collect();
        // When the first recovery ended and the second began (if they did).
        let time_of = |kind: FlowEventKind, nth: usize| {
            sink.events
                .iter()
                .filter(|e| e.kind == kind)
                .nth(nth)
                .map(|e| e.time)
        };
        let first_end = time_of(FlowEventKind::RecoveryEnd, 0);
        let second_start = time_of(FlowEventKind::RecoveryStart, 1);
        (starts, flow.retransmissions, first_end, second_start)
    };
    let (reduce, reduce_retransmissions, reduce_end, reduce_second) = starts("reduce");
    let (cont, cont_retransmissions, cont_end, cont_second) = starts("continue");
    eprintln!("reduce: {reduce:?}\ncontinue: {cont:?}");
    // The overshoot loses retransmissions: under "reduce" they start episodes, each halving
    // the window again (Reno: ssthresh = cwnd / 2 at every start).
    let lost: Vec<_> = reduce
        .iter()
        .filter(|(detail, _)| *detail == "retransmission_lost")
        .collect();
    assert!(!lost.is_empty(), "the scenario loses a retransmission");
    assert!(reduce.windows(2).any(|w| w[1].1 < w[0].1));
    // Under "continue" the same first recovery is the only one while the overshoot is
    // repaired: no episode starts from a lost retransmission, and its segments are resent.
    assert!(
        cont.iter()
            .all(|(detail, _)| *detail != "retransmission_lost")
    );
    assert_eq!(cont[0], reduce[0], "the same first loss and reduction");
    // Under "reduce" the lost retransmission interrupts the first recovery; under
    // "continue" that recovery runs to its end, and a later one, if any, is a new loss of
    // data sent after it (a new congestion event either rule reduces for).
    assert!(reduce_second.is_some_and(|second| reduce_end.is_none_or(|end| second < end)));
    assert!(cont_second.is_none_or(|second| cont_end.is_some_and(|end| second > end)));
    assert!(cont_retransmissions > 0 && reduce_retransmissions > 0);
}
