//! Unit tests of Tahoe (Fall & Floyd 1996 §2, ns-2 `TcpAgent`), FACK (Mathis & Mahdavi
//! 1996, Linux's FACK before 4.15) and limited transmit (RFC 3042, RFC 5681 §3.2), with the
//! expected values worked out from those sources in each test.

use super::tests::{ack, at, retransmitted, sender};
use super::*;
use cclab_cc::CcConfig;
use cclab_cc::algorithms::reno::Reno;
use cclab_cc::slow_start::smooth_start::SmoothStart;

const MSS: u64 = 1000;

/// A sender that sent its initial window of 10 segments at 0 (cwnd 10 MSS, no ssthresh yet).
fn after_initial_window(recovery: Recovery) -> Sender {
    let mut s = sender(recovery);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    assert_eq!(out.len(), 10);
    s
}

fn new_data(out: &[Packet]) -> Vec<u64> {
    out.iter()
        .filter(|p| !p.retransmission)
        .map(|p| p.seq)
        .collect()
}

/// Segment 0 of the initial window is lost and segments 1–3 arrive: three duplicate ACKs.
/// Tahoe (Fall & Floyd §2): retransmit segment 0, ssthresh = max(FlightSize/2, 2·SMSS) =
/// max(10/2, 2) = 5 segments (RFC 5681 eq. 4, through Reno's congestion event), cwnd = 1
/// segment; no fast recovery, so no window inflation on further duplicates.
#[test]
fn tahoe_third_duplicate_ack_sets_cwnd_to_one_segment() {
    let mut s = after_initial_window(Recovery::Tahoe);
    let mut out = Vec::new();
    s.on_ack(at(50), &ack(0, &[]), &mut out);
    s.on_ack(at(51), &ack(0, &[]), &mut out);
    assert!(out.is_empty());
    assert_eq!(s.cc().cwnd(), 10 * MSS);
    s.on_ack(at(52), &ack(0, &[]), &mut out);
    assert_eq!(retransmitted(&out), [0]);
    assert_eq!(out.len(), 1, "one segment: the window is one segment");
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    assert_eq!(s.cc().cwnd(), MSS);
    assert_eq!(s.window(), MSS);
    assert_eq!(s.stats.fast_recoveries, 1);
    assert_eq!(s.stats.timeouts, 0);
    // RFC 5681 §3.2 step 4 would inflate a Reno window by one segment per duplicate;
    // Tahoe sends nothing more until the retransmission is acknowledged.
    out.clear();
    for i in 0..6 {
        s.on_ack(at(53 + i), &ack(0, &[]), &mut out);
    }
    assert!(out.is_empty(), "no inflation: {out:?}");
    assert_eq!(s.window(), MSS);
}

/// After the fast retransmission is acknowledged (the ACK jumps to segment 5, which was lost
/// too), Tahoe slow-starts from one segment and goes back N: segments 5, 6, … are sent again
/// from snd_una as the window opens, whether or not they arrived (ns-2's `t_seqno_ =
/// highest_ack_ + 1`). Slow start with RFC 3465 L = 2 grows cwnd from 1 segment by
/// min(5 segments acknowledged, 2) = 2, to 3 segments: segments 5, 6 and 7 leave, all
/// retransmissions.
#[test]
fn tahoe_slow_starts_from_one_segment_and_goes_back_n() {
    let mut s = after_initial_window(Recovery::Tahoe);
    let mut out = Vec::new();
    for i in 0..3 {
        s.on_ack(at(50 + i), &ack(0, &[]), &mut out);
    }
    out.clear();
    s.on_ack(at(150), &ack(5 * MSS, &[]), &mut out);
    assert_eq!(s.cc().cwnd(), 3 * MSS);
    assert_eq!(retransmitted(&out), [5 * MSS, 6 * MSS, 7 * MSS]);
    assert!(new_data(&out).is_empty());
    assert!(matches!(s.state(), LossState::Loss { point } if point == 10 * MSS));
    // The episode ends once everything outstanding at the fast retransmit is acknowledged:
    // a recovery, not a timeout, in the events (and the controller hears its end). The
    // same ACK grows cwnd by min(5, 2) segments to 5 = ssthresh: slow start, never left
    // (cwnd went from 10 straight to 1 segment, below ssthresh), ends by reaching it.
    s.on_ack(at(250), &ack(10 * MSS, &[]), &mut out);
    assert_eq!(s.cc().cwnd(), 5 * MSS);
    assert_eq!(s.state(), LossState::Open);
    let mut events = Vec::new();
    s.take_events(&mut events);
    let kinds: Vec<_> = events
        .iter()
        .filter(|e| e.kind != crate::trace::FlowEventKind::Mode)
        .map(|e| (e.kind.name(), e.detail))
        .collect();
    assert_eq!(
        kinds,
        [
            ("recovery_start", "tahoe"),
            ("recovery_end", ""),
            ("slow_start_exit", "ssthresh_reached")
        ]
    );
    let start = events.iter().find(|e| e.kind.name() == "recovery_start");
    assert_eq!(
        start.map(|e| (e.cwnd_bytes, e.ssthresh_bytes)),
        Some((MSS, Some(5 * MSS)))
    );
}

/// ns-2's `bug_fix_` (RFC 6582 §3.2 step 1's rule): three more duplicates before the ACK
/// passes the highest segment sent at the fast retransmit do not restart the window again.
#[test]
fn tahoe_restarts_once_per_window_of_losses() {
    let mut s = after_initial_window(Recovery::Tahoe);
    let mut out = Vec::new();
    for i in 0..3 {
        s.on_ack(at(50 + i), &ack(0, &[]), &mut out);
    }
    // Segment 0's retransmission arrives; segment 1 was lost too, and the go-back-N
    // segments 2, 3 (cwnd 3 after slow start's 1 + min(1, 2)) bring duplicates.
    s.on_ack(at(150), &ack(MSS, &[]), &mut out);
    for i in 0..3 {
        s.on_ack(at(160 + i), &ack(MSS, &[]), &mut out);
    }
    assert_eq!(s.stats.fast_recoveries, 1);
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
}

/// Tahoe is a recovery mode of the sender, so any controller with a slow-start threshold
/// answers it, slow-start variant included: Reno with seed 000's smooth start gets the same
/// ssthresh (Reno's rule, 5 segments) and cwnd of one segment.
#[test]
fn tahoe_works_with_a_pluggable_slow_start() {
    let config = CcConfig::new(MSS);
    let mut s = sender(Recovery::Tahoe);
    s.cc = Box::new(Reno::new(&config, Box::new(SmoothStart::new(2, 4))));
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    for i in 0..3 {
        s.on_ack(at(50 + i), &ack(0, &[]), &mut out);
    }
    assert_eq!((s.cc().ssthresh(), s.cc().cwnd()), (5 * MSS, MSS));
}

/// One ACK SACKs segment 5 alone (segments 1–4 are still on their way). RFC 6675 needs three
/// SACKed segments above the hole and does nothing; FACK has snd.fack − snd.una = 6 segments,
/// more than 3, and starts recovery at once (the paper's trigger), marking segments 0–2 lost (each
/// has 3 or more segments between it and snd.fack). Window: Reno halves the flight before
/// the ACK (awnd = 10 segments, nothing SACKed) to 5 segments; the fast retransmission of
/// segment 0 leaves at once, and then awnd = snd.nxt 10 − snd.fack 6 + retran_data 1 = 5 is
/// not below cwnd 5: nothing else yet.
#[test]
fn fack_starts_recovery_from_the_forward_most_sack() {
    let mut sack = after_initial_window(Recovery::Sack);
    let mut out = Vec::new();
    sack.on_ack(at(50), &ack(0, &[(5 * MSS, 6 * MSS)]), &mut out);
    assert_eq!(sack.state(), LossState::Open);
    assert!(retransmitted(&out).is_empty());

    let mut s = after_initial_window(Recovery::Fack);
    let mut out = Vec::new();
    s.on_ack(at(50), &ack(0, &[(5 * MSS, 6 * MSS)]), &mut out);
    assert!(matches!(s.state(), LossState::Recovery { .. }));
    assert_eq!(retransmitted(&out), [0]);
    assert_eq!(out.len(), 1);
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    assert_eq!(s.window(), 5 * MSS);
    assert_eq!(s.bytes_in_flight(), 5 * MSS);
    // The next ACK SACKs segment 6 too: snd.fack = 7, so segment 3 is lost as well, and
    // awnd = 10 − 7 + 1 = 4 < 5: one more retransmission, the next hole (segment 1).
    out.clear();
    s.on_ack(at(51), &ack(0, &[(5 * MSS, 7 * MSS)]), &mut out);
    assert_eq!(retransmitted(&out), [MSS]);
    assert!(new_data(&out).is_empty());
    assert_eq!(s.bytes_in_flight(), 5 * MSS);
    assert_eq!(s.window(), 5 * MSS, "the halved window holds (no PRR)");
}

/// The paper's second trigger, three duplicate ACKs, for duplicates that carry no SACK
/// information: the head is marked lost and recovery starts.
#[test]
fn fack_also_recovers_on_the_third_duplicate_ack() {
    let mut s = after_initial_window(Recovery::Fack);
    let mut out = Vec::new();
    s.on_ack(at(50), &ack(0, &[]), &mut out);
    s.on_ack(at(51), &ack(0, &[]), &mut out);
    assert_eq!(s.state(), LossState::Open);
    s.on_ack(at(52), &ack(0, &[]), &mut out);
    assert!(matches!(s.state(), LossState::Recovery { .. }));
    assert_eq!(retransmitted(&out), [0]);
}

/// Recovery ends when the cumulative ACK passes snd.nxt at its start; the controller's
/// window (Reno: ssthresh) is then in force.
#[test]
fn fack_recovery_ends_at_the_recovery_point() {
    let mut s = after_initial_window(Recovery::Fack);
    let mut out = Vec::new();
    s.on_ack(at(50), &ack(0, &[(5 * MSS, 6 * MSS)]), &mut out);
    s.on_ack(at(150), &ack(10 * MSS, &[]), &mut out);
    assert_eq!(s.state(), LossState::Open);
    assert_eq!(s.window(), 5 * MSS);
}

fn limited_transmit_sender(recovery: Recovery) -> Sender {
    let mut s = sender(recovery);
    s.config.limited_transmit = true;
    s
}

/// RFC 3042 §2: the first and second duplicate ACKs each send one new segment (FlightSize
/// 11 then 12 ≤ cwnd 10 + 2), cwnd unchanged; the third starts fast recovery with ssthresh
/// computed without them (RFC 5681 §3.2 step 2: 10/2 = 5 segments, not 12/2 = 6), and
/// NewReno's window is ssthresh + 3 = 8 segments.
#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_two_duplicates() {
    let mut s = limited_transmit_sender(Recovery::NewReno);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    out.clear();
    s.on_ack(at(50), &ack(0, &[]), &mut out);
    assert_eq!(new_data(&out), [10 * MSS]);
    assert_eq!(s.cc().cwnd(), 10 * MSS);
    out.clear();
    s.on_ack(at(51), &ack(0, &[]), &mut out);
    assert_eq!(new_data(&out), [11 * MSS]);
    assert_eq!(s.cc().cwnd(), 10 * MSS);
    assert_eq!(s.bytes_in_flight(), 12 * MSS);
    out.clear();
    s.on_ack(at(52), &ack(0, &[]), &mut out);
    assert_eq!(retransmitted(&out), [0]);
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    assert_eq!(s.window(), 8 * MSS);
}

/// "provided that the receiver's advertised window allows" and "that new data is available"
/// (RFC 5681 §3.2 step 1): neither a full receive window nor a finished application sends.
#[test]
fn limited_transmit_respects_the_receive_window_and_the_data_available() {
    let mut rwnd_limited = limited_transmit_sender(Recovery::Reno);
    rwnd_limited.config.receive_window = Some(10 * MSS);
    let mut app_limited = limited_transmit_sender(Recovery::Reno);
    app_limited.set_app_limit(10 * MSS);
    for mut s in [rwnd_limited, app_limited] {
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        out.clear();
        s.on_ack(at(50), &ack(0, &[]), &mut out);
        s.on_ack(at(51), &ack(0, &[]), &mut out);
        assert!(out.is_empty(), "{out:?}");
    }
}

/// A new ACK ends the run of duplicates: the next duplicate starts again with one segment
/// beyond the (grown) window, not three.
#[test]
fn limited_transmit_counts_duplicates_of_one_run() {
    let mut s = limited_transmit_sender(Recovery::Reno);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    s.on_ack(at(50), &ack(0, &[]), &mut out);
    s.on_ack(at(51), &ack(0, &[]), &mut out);
    // Segment 0 was only delayed: the ACK covers it (slow start: cwnd 10 + min(1, 2) = 11)
    // and the window refills to 11 segments in flight.
    out.clear();
    s.on_ack(at(60), &ack(MSS, &[]), &mut out);
    assert_eq!(s.cc().cwnd(), 11 * MSS);
    assert_eq!(s.bytes_in_flight(), 11 * MSS);
    out.clear();
    s.on_ack(at(61), &ack(MSS, &[]), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(s.bytes_in_flight(), 12 * MSS);
}

/// With SACK the option changes nothing: RFC 6675 §5 step (3) already sends new data on the
/// first duplicate ACKs, "governed by pipe and cwnd" — a duplicate SACKing one segment lowers
/// pipe by one segment and lets new data go, with or without `limited_transmit`, and never
/// beyond cwnd (the RFC 3042 allowance of cwnd + 2·SMSS is not used).
#[test]
fn sack_senders_send_on_duplicates_by_pipe_either_way() {
    let run = |enabled: bool| {
        let mut s = sender(Recovery::Sack);
        s.config.limited_transmit = enabled;
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        let mut sent = Vec::new();
        for (i, sacked_to) in [2, 3].into_iter().enumerate() {
            out.clear();
            s.on_ack(
                at(50 + i as u64),
                &ack(0, &[(MSS, sacked_to * MSS)]),
                &mut out,
            );
            assert!(!new_data(&out).is_empty(), "pipe fell below cwnd");
            assert!(s.bytes_in_flight() <= s.cc().cwnd());
            sent.push(new_data(&out));
        }
        sent
    };
    assert_eq!(run(false), run(true));
}
