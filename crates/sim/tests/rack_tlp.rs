//! RACK-TLP (RFC 8985) against RFC 6675's duplicate-ACK rule in whole runs: a tail loss, and
//! reordering. Every run also checks, in debug builds, packet conservation and the
//! scoreboard counters at each sampling tick.

mod common;

use common::run;

/// A 10-segment flow (one initial window, sent at once) over a 102 ms path; `DROP` names the
/// dropped segments. No delayed ACKs (each segment is acknowledged at once) and RFC 6298's
/// 1 s RTO floor, so that the probe timeout is not capped by the RTO (RFC 8985 §7.2).
const TAIL: &str = r#"
duration = "5s"
[topology]
bottleneck = { rate = "100Mbps", delay = "49ms", buffer = 100 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
size = 14480
delayed_ack = false
min_rto = "1s"
drop = DROP
loss_detection = "DETECTION"
"#;

fn tail(detection: &str, drop: &str) -> cclab_sim::FlowResult {
    let text = TAIL.replace("DETECTION", detection).replace("DROP", drop);
    let (result, _) = run(&text);
    result.flows[0].clone()
}

#[test]
fn a_single_tail_loss_is_repaired_by_the_probe_without_a_timeout() {
    // Segment 9, the last, is dropped. Base RTT 2 × (1 + 49 + 1) = 102 ms; a 1 500-byte
    // packet takes 0.12 ms at 100 Mbit/s, so segment i's ACK returns at about 102 +
    // 0.12·(i + 1) ms and SRTT ≈ 102.6 ms. The ACK of segment 8 (≈ 103.1 ms) leaves one
    // segment in flight, so PTO = 2·SRTT + TLP.max_ack_delay (200 ms) ≈ 405.2 ms (RFC 8985
    // §7.2): the probe resends segment 9 at ≈ 508.3 ms, which reaches the receiver one way
    // later (51 ms + 0.13 ms of serialization): completion ≈ 559.5 ms.
    let rack = tail("rack-tlp", "[9]");
    assert_eq!(rack.timeouts, 0);
    assert_eq!(rack.retransmissions, 1);
    let done = rack.completed_at.expect("completes").as_secs_f64() * 1e3;
    eprintln!("rack-tlp completed at {done} ms");
    assert!((done - 559.5).abs() < 3.0, "completed at {done} ms");

    // RFC 6675's rule sees no duplicate ACK at all: the RTO (1 s floor, restarted by the ACK
    // of segment 8) resends it: completion ≈ 103.1 + 1000 + 51.1 ≈ 1 154 ms.
    let dupack = tail("dupack", "[9]");
    assert_eq!(dupack.timeouts, 1);
    let late = dupack.completed_at.expect("completes").as_secs_f64() * 1e3;
    eprintln!("dupack completed at {late} ms");
    assert!((late - 1154.2).abs() < 3.0, "completed at {late} ms");
}

#[test]
fn without_loss_a_finite_flow_sends_no_probe_and_no_retransmission() {
    // Every ACK returns within the PTO: RACK-TLP adds nothing to a clean transfer.
    let rack = tail("rack-tlp", "[]");
    let dupack = tail("dupack", "[]");
    assert_eq!((rack.retransmissions, rack.timeouts), (0, 0));
    assert_eq!(rack.completed_at, dupack.completed_at);
}

/// A long flow over a path that reorders but does not lose (buffer far above the BDP):
/// every retransmission is spurious.
const REORDERING: &str = r#"
duration = "30s"
[topology]
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = 1000, jitter = { max = "JITTER", reorder = true } }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "cubic"
receive_window = "250KB"
loss_detection = "DETECTION"
"#;

fn reordering(detection: &str, jitter: &str) -> cclab_sim::FlowResult {
    let text = REORDERING
        .replace("DETECTION", detection)
        .replace("JITTER", jitter);
    let (result, _) = run(&text);
    let flow = result.flows[0].clone();
    assert_eq!(flow.drops, 0, "nothing is lost on this path");
    flow
}

#[test]
fn reordering_within_the_window_draws_fewer_spurious_retransmissions() {
    // Base RTT 44 ms, so RACK's window is min_RTT/4 ≥ 11 ms (RFC 8985 §6.2 step 4) once
    // reordering has been seen. A uniform 0–4 ms jitter on a 10 Mbit/s link (1.2 ms per
    // packet) lets a packet be overtaken by up to three others: RFC 6675's DupThresh of 3
    // is reached now and then, RACK's time window never.
    let dupack = reordering("dupack", "4ms");
    let rack = reordering("rack-tlp", "4ms");
    eprintln!(
        "spurious retransmissions: dupack {}, rack-tlp {}",
        dupack.retransmissions, rack.retransmissions
    );
    assert!(
        dupack.retransmissions >= 10,
        "dupack {}",
        dupack.retransmissions
    );
    // RACK marks by DupThresh only until the first reordering is seen (§6.2 step 4), so a
    // retransmission or two may precede it; after that, none.
    assert!(
        rack.retransmissions * 10 <= dupack.retransmissions && rack.retransmissions <= 2,
        "rack-tlp {} vs dupack {}",
        rack.retransmissions,
        dupack.retransmissions
    );
    assert_eq!((rack.timeouts, dupack.timeouts), (0, 0));
}

#[test]
fn a_transfer_over_a_lossy_reordering_path_completes_with_every_check_holding() {
    // 2 % random loss both ways and reordering jitter of up to a third of the base RTT: RACK
    // must find every loss (first transmissions, retransmissions, probes) by time, or the
    // RTO must; debug builds check conservation and the scoreboard at every sample.
    let text = r#"
duration = "120s"
seed = 7
[topology]
bottleneck = { rate = "20Mbps", delay = "20ms", buffer = "1bdp", loss = 0.02, ack_loss = 0.02, jitter = { max = "15ms", reorder = true } }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "cubic"
size = 5000000
loss_detection = "rack-tlp"
[[flows]]
cc = "reno"
start = "1s"
size = 5000000
loss_detection = "rack-tlp"
"#;
    let (result, _) = run(text);
    for flow in &result.flows {
        assert!(flow.drops > 0, "the path lost nothing");
        assert_eq!(flow.delivered_bytes, 5_000_000);
        assert!(flow.completed_at.is_some());
    }
}
