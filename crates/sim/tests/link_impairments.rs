//! The bottleneck's random impairments in whole runs: `ack_loss` on the ACK path, a
//! Gilbert–Elliott `loss` on the data path. Expectations come from the models' closed forms
//! (docs/model.md); tolerances from their variances, computed in each test.

mod common;

use cclab_sim::PacketEventKind;
use common::run;

#[test]
fn ack_loss_drops_acks_at_its_rate_and_leaves_data_alone() {
    // One flow held to 40 segments by its receive window on a buffer of 1000 packets: no
    // overflow, so every drop is the ACK loss. Each ACK crossing the bottleneck is lost
    // with probability 0.05, independently: over n ACKs the lost fraction has standard
    // deviation sqrt(0.05 · 0.95 / n).
    let (result, sink) = run(r#"
        duration = "30s"
        seed = 5
        [topology]
        bottleneck = { rate = "20Mbps", delay = "10ms", buffer = 1000, ack_loss = 0.05 }
        [[flows]]
        cc = "reno"
        receive_window = 40
        [output]
        trace_packets = [0]
    "#);
    let flow = &result.flows[0];
    let count = |kind| sink.packets.iter().filter(|e| e.kind == kind).count() as f64;
    let (arrived, lost) = (count(PacketEventKind::Ack), count(PacketEventKind::AckDrop));
    let n = arrived + lost;
    let rate = lost / n;
    let sd = (0.05 * 0.95 / n).sqrt();
    assert!(n > 10_000.0, "{n} ACKs");
    assert!((rate - 0.05).abs() < 5.0 * sd, "ACK loss {rate} ± {sd}");
    assert_eq!(
        flow.ack_drops, lost as u64,
        "every lost ACK is counted to its flow"
    );
    // Data crosses untouched: no data segment lost, none retransmitted (cumulative ACKs
    // cover the lost ones; a gap of lost ACKs long enough for a timeout would need dozens
    // in a row, probability 0.05^20 per ACK).
    assert_eq!((flow.drops, flow.retransmissions, flow.timeouts), (0, 0, 0));
    assert_eq!(result.links[0].stats.random_losses, 0);
}

#[test]
fn gilbert_elliott_data_loss_matches_its_stationary_rate() {
    // Gilbert–Elliott on the data path, p = 0.002, r = 0.25, loss 0.5 in the bad state and 0
    // in the good one: π_B = p/(p + r) = 0.0079365, long-run loss m = 0.5 π_B = 0.0039683.
    // Over n packets the lost fraction has variance (Markov-chain CLT, see net/loss.rs)
    // [m(1 − m) + 2 c λ/(1 − λ)]/n, c = 0.25 π_G π_B, λ = 1 − p − r.
    let (result, _) = run(r#"
        duration = "60s"
        seed = 8
        [topology]
        bottleneck = { rate = "20Mbps", delay = "10ms", buffer = 1000,
                       loss = { model = "gilbert-elliott", p_good_to_bad = 0.002,
                                p_bad_to_good = 0.25, loss_bad = 0.5 } }
        [[flows]]
        cc = "cubic"
        receive_window = 80
    "#);
    let (p, r, loss_bad) = (0.002, 0.25, 0.5);
    let pi_bad = p / (p + r);
    let m = loss_bad * pi_bad;
    let lambda: f64 = 1.0 - p - r;
    let c = loss_bad * loss_bad * (1.0 - pi_bad) * pi_bad;
    let stats = &result.links[0].stats;
    // The forward bottleneck carries only data segments, and with no overflow every drop
    // there is the loss model's.
    assert_eq!(stats.overflow_drops, 0);
    let n = stats.packets as f64;
    let sd = ((m * (1.0 - m) + 2.0 * c * lambda / (1.0 - lambda)) / n).sqrt();
    let rate = stats.random_losses as f64 / n;
    assert!(n > 50_000.0, "{n} packets");
    assert!(
        (rate - m).abs() < 5.0 * sd,
        "loss {rate}, expected {m} ± {sd}"
    );
    assert_eq!(result.flows[0].drops, stats.random_losses);
    assert_eq!(
        result.flows[0].ack_drops, 0,
        "ACKs are not subject to `loss`"
    );
}

/// A 5 MB SACK transfer over a bottleneck with up to 5 ms of uniform jitter, with or without
/// reordering. The buffer (1000 packets) and the receive window (60 segments) leave no room
/// for an overflow, and there is no random loss: nothing is ever dropped.
fn jittered_transfer(reorder: bool) -> (cclab_sim::RunResult, cclab_sim::MemorySink) {
    run(&format!(
        r#"
        duration = "20s"
        seed = 2
        [topology]
        bottleneck = {{ rate = "20Mbps", delay = "10ms", buffer = 1000,
                       jitter = {{ max = "5ms", reorder = {reorder} }} }}
        [[flows]]
        cc = "reno"
        recovery = "sack"
        size = "5MB"
        receive_window = 60
        [output]
        trace_packets = [0]
    "#
    ))
}

/// Sequence numbers of the data segments the receiver got, in arrival order.
fn received(sink: &cclab_sim::MemorySink) -> Vec<u64> {
    let kind = PacketEventKind::Receive;
    sink.packets
        .iter()
        .filter(|e| e.kind == kind)
        .map(|e| e.seq)
        .collect()
}

#[test]
fn jitter_without_reordering_delivers_in_order() {
    let (result, sink) = jittered_transfer(false);
    let flow = &result.flows[0];
    assert_eq!(flow.delivered_bytes, 5_000_000);
    assert!(flow.completed_at.is_some());
    // Arrivals are held behind the packet sent before: the receiver sees every segment in
    // order, so no duplicate ACK, hence no retransmission.
    let seqs = received(&sink);
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "out-of-order arrival");
    assert_eq!((flow.drops, flow.retransmissions), (0, 0));
}

#[test]
fn reordering_jitter_triggers_spurious_fast_retransmits() {
    // At 20 Mbit/s a 1500-byte segment takes 0.6 ms: with up to 5 ms of independent jitter
    // a segment can be overtaken by up to 8 later ones. Each segment that arrives above a
    // hole makes the receiver send an immediate duplicate ACK with SACK (RFC 5681 §4.2); once
    // three segments above the hole are SACKed the sender deems the hole lost (RFC 6675
    // IsLost, DupThresh 3) and retransmits it, although nothing was dropped. So: segments
    // arrive out of order, retransmissions appear with zero drops, and the receiver still
    // assembles every byte once (the run checks its invariants in debug builds).
    let (result, sink) = jittered_transfer(true);
    let flow = &result.flows[0];
    assert_eq!(flow.delivered_bytes, 5_000_000);
    assert!(flow.completed_at.is_some());
    let seqs = received(&sink);
    let out_of_order = seqs.windows(2).filter(|w| w[1] < w[0]).count();
    assert!(out_of_order > 100, "{out_of_order} out-of-order arrivals");
    assert_eq!(flow.drops, 0);
    assert!(flow.retransmissions > 0, "no spurious retransmission");
    assert!(flow.fast_recoveries > 0);
}
