//! Undo of spurious window reductions and F-RTO in whole runs: reordering without loss
//! (every fast retransmission spurious, undone by DSACK or timestamps) and a real tail loss
//! (its timeout must stay). Every run also checks, in debug builds, packet conservation and
//! the scoreboard counters at each sampling tick.

mod common;

use common::run;

/// A long flow over a path that reorders but does not lose (buffer far above the BDP, the
/// receive window holds the flight under it): every retransmission is spurious.
const REORDERING: &str = r#"
duration = "20s"
[topology]
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = 1000, jitter = { max = "4ms", reorder = true } }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
receive_window = "250KB"
UNDO
"#;

fn reordering(undo: &str) -> (cclab_sim::FlowResult, u64) {
    let (result, _) = run(&REORDERING.replace("UNDO", undo));
    let flow = result.flows[0].clone();
    let drops = flow.drops + flow.ack_drops;
    (flow, drops)
}

#[test]
fn reordering_without_loss_is_undone() {
    let (plain, drops) = reordering("");
    assert_eq!(drops, 0, "the path loses nothing");
    assert!(plain.fast_recoveries > 0, "reordering beyond DupThresh");
    assert_eq!(plain.undos, None, "no undos key without undo");
    let (undo, drops) = reordering("undo = true");
    assert_eq!(drops, 0);
    let undos = undo.undos.expect("counted with undo");
    eprintln!(
        "recoveries {} timeouts {} undos {undos}; goodput bytes {} vs {}",
        undo.fast_recoveries, undo.timeouts, undo.delivered_bytes, plain.delivered_bytes
    );
    // Every reduction was spurious: with nothing lost, each retransmission arrives and is
    // DSACKed (RFC 3708), so each episode can be undone; at most one undo per episode.
    assert!(undos > 0);
    assert!(undos <= undo.fast_recoveries + undo.timeouts);
    // Undoing the spurious halvings keeps the window up (RFC 3708 §1's motivation): more
    // data gets through in the same time.
    assert!(undo.delivered_bytes > plain.delivered_bytes);
}

/// A 10-segment flow over a 102 ms path whose last segment is dropped: only the RTO can
/// repair it (no duplicate ACK follows a tail loss).
const TAIL: &str = r#"
duration = "5s"
[topology]
bottleneck = { rate = "100Mbps", delay = "49ms", buffer = 100 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "reno"
size = 14480
delayed_ack = false
drop = [9]
undo = true
frto = true
"#;

#[test]
fn a_timeout_for_a_real_loss_is_not_undone() {
    // The retransmission of segment 9 fills the hole, so the ACK echoes its own TSval
    // (RFC 7323 §4.3), not an older one (no Eifel undo, RFC 3522); nothing is DSACKed; the
    // ACK completes the transfer, so F-RTO never sees never-retransmitted data acknowledged.
    let (result, _) = run(TAIL);
    let flow = &result.flows[0];
    assert_eq!((flow.timeouts, flow.retransmissions), (1, 1));
    assert_eq!(flow.undos, Some(0));
    assert!(flow.completed_at.is_some());
}
