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

/// A trace link (mahimahi: one 1504-byte opportunity per listed millisecond) that delivers
/// every millisecond but falls silent from 2 s to 3 s: a delay spike of up to one second
/// with no loss (the buffer holds far more than the receive window lets the flow send), as
/// a cellular link's outage. The RTO (200 ms floor, RTT ≈ 42 ms) fires during the silence
/// though every segment is only waiting in the queue.
fn outage_trace() -> std::path::PathBuf {
    // One file per call: tests run in parallel threads of one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("cclab-undo-outage-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir is writable");
    let path = dir.join("outage.trace");
    let lines: Vec<String> = (1..=2000u32)
        .chain(3001..=6000)
        .map(|ms| ms.to_string())
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").expect("temp file is writable");
    path
}

fn outage(keys: &str) -> (cclab_sim::FlowResult, cclab_sim::MemorySink) {
    let text = format!(
        r#"
        duration = "5s"
        [topology]
        bottleneck = {{ kind = "trace", trace = "{}", delay = "20ms", buffer = 1000 }}
        [[flows]]
        cc = "reno"
        receive_window = 40
        {keys}
        "#,
        outage_trace().display()
    );
    let (result, sink) = run(&text);
    (result.flows[0].clone(), sink)
}

#[test]
fn a_timeout_during_an_outage_without_loss_is_undone_and_the_window_restored() {
    use cclab_sim::trace::FlowEventKind;
    let (flow, sink) = outage("undo = true\nfrto = true");
    assert_eq!((flow.drops, flow.ack_drops), (0, 0), "nothing is lost");
    assert!(flow.timeouts >= 1, "the silence outlasts the RTO");
    let first_timeout = sink
        .events
        .iter()
        .find(|e| e.kind == FlowEventKind::Timeout)
        .expect("a timeout")
        .time;
    // The window before the timeout (receive-window limited, so it no longer grows).
    let before = sink
        .flows
        .iter()
        .rfind(|s| s.time < first_timeout)
        .expect("sampled before");
    let undos: Vec<_> = sink
        .events
        .iter()
        .filter(|e| e.kind == FlowEventKind::Undo)
        .collect();
    // One episode (repeated timeouts on the same snd_una are one reduction, RFC 5681 §3.1):
    // undone once, when the first ACKs after the silence echo the originals' timestamps
    // (Linux `tcp_try_undo_loss`, checked before F-RTO's step 3).
    assert_eq!(undos.len(), 1, "{undos:?}");
    assert_eq!(undos[0].detail, "timestamp");
    assert_eq!(flow.undos, Some(1));
    assert!(undos[0].time.as_secs_f64() > 3.0);
    // `tcp_undo_cwnd_reduction` with `tcp_reno_undo_cwnd`: cwnd = max(1 MSS…, prior_cwnd),
    // ssthresh = max(halved, prior_ssthresh = max(ssthresh, ¾·cwnd)).
    assert_eq!(undos[0].cwnd_bytes, before.cwnd_bytes);
    let prior_ssthresh = before
        .ssthresh_bytes
        .map(|s| s.max(before.cwnd_bytes / 2 + before.cwnd_bytes / 4));
    assert_eq!(undos[0].ssthresh_bytes, prior_ssthresh);

    // Without undo the timeout stands: no `undo` rows, no `undos` key, and the window
    // restarts from the loss window.
    let (plain, sink) = outage("");
    assert!(plain.timeouts >= 1);
    assert_eq!(plain.undos, None);
    assert!(sink.events.iter().all(|e| e.kind != FlowEventKind::Undo));
    // After the silence the undone flow sends its whole receive window at once; the other
    // slow-starts from one segment with ssthresh halved, log2(40) ≈ 5 RTTs to get there.
    assert!(flow.delivered_bytes > plain.delivered_bytes);
}

#[test]
fn without_sack_the_timestamps_still_undo_the_outage_timeout() {
    // Eifel detection needs no SACK (RFC 3522): a NewReno flow over the same silence is
    // undone as the SACK flow is; its receiver sends no DSACK blocks (RFC 2883 needs SACK).
    let (flow, sink) = outage("recovery = \"newreno\"\nundo = true\nfrto = true");
    assert_eq!((flow.drops, flow.timeouts >= 1), (0, true));
    assert_eq!(flow.undos, Some(1));
    assert!(sink.events.iter().any(|e| e.detail == "timestamp"));
}

#[test]
fn tahoe_fast_retransmits_caused_by_reordering_are_undone_too() {
    // Tahoe's fast retransmit collapses the window as a timeout does; on a path that only
    // reorders it is spurious like the others, and each such episode saves its own window
    // to restore (Linux `tcp_init_undo` on every reduction), never an earlier episode's.
    let (plain, drops) = reordering("recovery = \"tahoe\"");
    assert_eq!(drops, 0);
    let (undo, _) = reordering("recovery = \"tahoe\"\nundo = true");
    let undos = undo.undos.expect("counted with undo");
    assert!(undos > 0);
    assert!(undos <= undo.fast_recoveries + undo.timeouts);
    assert!(undo.delivered_bytes > plain.delivered_bytes);
}
