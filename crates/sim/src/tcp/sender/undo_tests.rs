//! Undo and F-RTO against RFC 5682, RFC 3522, RFC 3708 and Linux's `tcp_try_undo_*`, with
//! ACK sequences built by hand.

use super::*;
use crate::packet::{Ecn, PacketKind, SackBlock, XcpHeader};
use crate::tcp::sender::hook_counts::{CountingController, HookCounts};
use crate::trace::FlowEvent;
use cclab_cc::algorithms::reno::Reno;
use cclab_cc::slow_start::standard::StandardSlowStart;
use cclab_cc::{CcConfig, SimDuration};
use cclab_scenario::{EcnMode, LossDetection, LostRetransmission, PrrBound, Recovery, ReduceFrom};

use crate::tcp::sender::SenderConfig;

const MSS: u64 = 1000;

fn sender(frto: bool) -> Sender {
    let config = CcConfig::new(MSS);
    let cc = Reno::new(&config, Box::new(StandardSlowStart::new(&config)));
    let mut s = Sender::new(
        SenderConfig {
            flow: 0,
            mss: MSS,
            header_bytes: 40,
            size: None,
            recovery: Recovery::Sack,
            loss_detection: LossDetection::DupAck,
            limited_transmit: false,
            lost_retransmission: LostRetransmission::Reduce,
            reduce_from: ReduceFrom::Flight,
            prr_bound: PrrBound::Ssrb,
            receive_window: None,
            send_buffer: None,
            min_rto: SimDuration::from_millis(200),
            rto_estimator: cclab_scenario::RtoEstimator::Rfc6298,
            pacing: false,
            ecn: EcnMode::Off,
            nic_rate_bps: None,
        },
        Box::new(cc),
    );
    s.enable_undo(frto);
    s
}

fn at(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

/// An ACK of `cumulative` with SACK blocks and TSecr `ts` (0: none).
fn ack(cumulative: u64, sack: &[(u64, u64)], ts: u32) -> Packet {
    let blocks: Vec<SackBlock> = sack
        .iter()
        .map(|&(start, end)| SackBlock { start, end })
        .collect();
    let mut packet = Packet {
        flow: 0,
        hop: 0,
        kind: PacketKind::Ack,
        retransmission: false,
        sack_count: 0,
        wire_bytes: 40,
        payload: 0,
        seq: cumulative,
        sack: Default::default(),
        ecn: Ecn::NotEct,
        ce_bytes: 0,
        xcp: XcpHeader::default(),
        vcp: None,
        window: 0,
        ts,
    };
    packet.set_sack_blocks(&blocks);
    packet
}

fn undo_events(s: &mut Sender) -> Vec<FlowEvent> {
    let mut events = Vec::new();
    s.take_events(&mut events);
    events.retain(|e| e.kind == FlowEventKind::Undo);
    events
}

/// Ten segments at 0, ACKed one by one at 100 ms: slow start (RFC 5681 §3.1, one MSS per
/// ACK of one MSS) takes cwnd to 20 segments, which leave at 100 ms (seq 10 000..30 000).
/// Then a delay spike: no ACK until the RTO fires. The timeout saves prior_cwnd = 20 000 and
/// prior_ssthresh = `tcp_current_ssthresh` = max(∞, ¾·20 000) = ∞ (still in slow start),
/// sets ssthresh = 20 000 / 2 = 10 000 (RFC 5681 eq. 4) and cwnd = 1 segment, and resends
/// only snd_una (RFC 5682 §3.1 step 1). Returns the sender and the time of the timeout.
fn spurious_timeout_setup() -> (Sender, SimTime) {
    let mut s = sender(true);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    assert_eq!(out.len(), 10);
    out.clear();
    for i in 1..=10 {
        s.on_ack(at(100), &ack(i * MSS, &[], 0), &mut out);
    }
    assert_eq!(out.len(), 20);
    assert_eq!(s.cc().cwnd(), 20 * MSS);
    out.clear();
    let rto = s.timer_deadline().expect("data outstanding");
    s.on_timer(rto, &mut out);
    assert_eq!(
        out.iter()
            .map(|p| (p.seq, p.retransmission))
            .collect::<Vec<_>>(),
        [(10_000, true)]
    );
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh()), (MSS, 10 * MSS));
    (s, rto)
}

fn later(t: SimTime, ms: u64) -> SimTime {
    t + SimDuration::from_millis(ms)
}

#[test]
fn frto_sends_new_data_then_undoes_a_spurious_timeout() {
    let (mut s, rto) = spurious_timeout_setup();
    let mut out = Vec::new();
    // 50 ms after the timeout: the delayed ACK of the original segment 10 000 (no timestamps here, so only
    // F-RTO can tell). It advances snd_una short of the recovery point 30 000: step 2.b
    // sends new data, not the segments the timeout marked lost; slow start made cwnd 2
    // segments and nothing counts in flight, so two new segments (RFC 5682: "up to two").
    s.on_ack(later(rto, 50), &ack(11 * MSS, &[], 0), &mut out);
    assert_eq!(
        out.iter()
            .map(|p| (p.seq, p.retransmission))
            .collect::<Vec<_>>(),
        [(30_000, false), (31_000, false)]
    );
    out.clear();
    // 1 ms later: the ACK of segment 11 000, never retransmitted and below the recovery point
    // (step 3.b, Linux FLAG_ORIG_SACK_ACKED): the timeout was spurious. Linux
    // `tcp_try_undo_loss` → `tcp_undo_cwnd_reduction`: cwnd = max(2 000, 20 000), ssthresh
    // = max(10 000, ∞) = ∞; the lost marks go, so nothing is retransmitted.
    s.on_ack(later(rto, 51), &ack(12 * MSS, &[], 0), &mut out);
    let undos = undo_events(&mut s);
    assert_eq!(undos.len(), 1);
    assert_eq!(undos[0].detail, "frto");
    assert_eq!(
        (undos[0].cwnd_bytes, undos[0].ssthresh_bytes),
        (20 * MSS, None)
    );
    assert_eq!(s.state(), LossState::Open);
    assert_eq!(s.stats.undos, 1);
    assert!(out.iter().all(|p| !p.retransmission), "{out:?}");
    // The 18 segments 12 000..30 000 count in flight again, with the two new ones.
    assert_eq!(s.bytes_in_flight(), 20 * MSS + out.len() as u64 * MSS);
}

#[test]
fn frto_finds_a_real_loss_and_recovers_conventionally() {
    let (mut s, rto) = spurious_timeout_setup();
    let mut out = Vec::new();
    s.on_ack(later(rto, 50), &ack(11 * MSS, &[], 0), &mut out);
    assert_eq!(out.len(), 2);
    out.clear();
    // Segment 11 000 was really lost: the next ACK is a duplicate SACKing the new segment
    // 30 000 (step 3.a): go-back-N from snd_una, no undo.
    s.on_ack(
        later(rto, 51),
        &ack(11 * MSS, &[(30_000, 31_000)], 0),
        &mut out,
    );
    assert_eq!(undo_events(&mut s).len(), 0);
    assert_eq!(s.stats.undos, 0);
    assert_eq!(retransmitted(&out).first(), Some(&11_000), "{out:?}");
    assert!(matches!(s.state(), LossState::Loss { .. }));
    assert_eq!(s.cc().ssthresh(), 10 * MSS);
}

#[test]
fn eifel_undoes_a_timeout_when_the_ack_echoes_the_original() {
    // Without F-RTO: the first ACK after the timeout echoes the original transmission's
    // TSval (sent at 100 ms), older than the retransmission's (at the RTO): RFC 3522 / Linux
    // `tcp_packet_delayed`, undone by `tcp_try_undo_loss` on that ACK.
    let (mut s, rto) = spurious_timeout_setup();
    if let Some(undo) = s.undo.as_deref_mut() {
        undo.frto = None;
    }
    let mut out = Vec::new();
    s.on_ack(
        later(rto, 50),
        &ack(11 * MSS, &[], ts_val(at(100))),
        &mut out,
    );
    let undos = undo_events(&mut s);
    assert_eq!(undos.len(), 1);
    assert_eq!(undos[0].detail, "timestamp");
    assert_eq!(undos[0].cwnd_bytes, 20 * MSS);
    assert_eq!(s.state(), LossState::Open);
}

#[test]
fn an_ack_echoing_the_retransmission_undoes_nothing() {
    // The retransmission (TSval of the RTO's time) filled the hole: the loss was real.
    let (mut s, rto) = spurious_timeout_setup();
    if let Some(undo) = s.undo.as_deref_mut() {
        undo.frto = None;
    }
    let mut out = Vec::new();
    s.on_ack(later(rto, 100), &ack(11 * MSS, &[], ts_val(rto)), &mut out);
    assert_eq!(s.stats.undos, 0);
    assert!(matches!(s.state(), LossState::Loss { .. }));
    assert_eq!(s.cc().ssthresh(), 10 * MSS);
}

fn retransmitted(out: &[Packet]) -> Vec<u64> {
    out.iter()
        .filter(|p| p.retransmission)
        .map(|p| p.seq)
        .collect()
}

/// Ten segments at 0; segment 0 is delayed (reordered) past three later ones: SACKs of
/// 1 000..4 000 mark it lost (RFC 6675 IsLost, DupThresh 3) and fast recovery resends it.
/// The two SACKs before grew cwnd by one segment each (slow start), so prior_cwnd =
/// 12 000 and prior_ssthresh = max(∞, 9 000) = ∞; Reno's ssthresh = pipe/2. Returns the
/// sender, prior_cwnd and the reduced ssthresh.
fn reordered_fast_retransmit() -> (Sender, u64, u64) {
    let mut s = sender(false);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    out.clear();
    s.on_ack(at(100), &ack(0, &[(1000, 2000)], 0), &mut out);
    s.on_ack(at(101), &ack(0, &[(1000, 3000)], 0), &mut out);
    assert!(retransmitted(&out).is_empty());
    let prior_cwnd = s.cc().cwnd();
    assert_eq!(prior_cwnd, 12 * MSS);
    s.on_ack(at(102), &ack(0, &[(1000, 4000)], 0), &mut out);
    assert_eq!(retransmitted(&out), [0]);
    assert!(matches!(s.state(), LossState::Recovery { .. }));
    let reduced = s.cc().ssthresh();
    assert!(reduced < 10 * MSS);
    (s, prior_cwnd, reduced)
}

#[test]
fn dsack_of_every_retransmission_undoes_the_fast_recovery() {
    // RFC 3708 / Linux `tcp_try_undo_dsack`: the original of segment 0 arrives at 103 ms
    // (cumulative ACK 4 000), the rest by 110 ms (recovery ends at the point 10 000 without
    // an undo: the retransmission is not yet DSACKed and there are no timestamps). Then the
    // retransmission arrives and draws a DSACK of 0..1 000: undo_retrans reaches 0, and
    // the reduction is undone after the recovery: cwnd = max(cwnd, 10 000), ssthresh = ∞.
    let (mut s, prior_cwnd, _) = reordered_fast_retransmit();
    let mut out = Vec::new();
    s.on_ack(at(103), &ack(4000, &[], 0), &mut out);
    let all = s.snd_nxt();
    s.on_ack(at(110), &ack(all, &[], 0), &mut out);
    assert_eq!(s.state(), LossState::Open);
    assert_eq!(s.stats.undos, 0);
    s.on_ack(at(120), &ack(all, &[(0, 1000)], 0), &mut out);
    let undos = undo_events(&mut s);
    assert_eq!(undos.len(), 1);
    assert_eq!(undos[0].detail, "dsack");
    assert_eq!(undos[0].cwnd_bytes, prior_cwnd);
    // The episode's undo is used up (`undo_marker` = 0): later ACKs undo nothing more.
    s.on_ack(at(130), &ack(all, &[(0, 1000)], 0), &mut out);
    assert_eq!(s.stats.undos, 1);
    assert_eq!(undos[0].ssthresh_bytes, None);
}

#[test]
fn eifel_undoes_a_fast_retransmit_when_the_original_fills_the_hole() {
    // Linux `tcp_try_undo_partial`: the ACK for the hole echoes the original's TSval (sent
    // at 0), older than the retransmission's (102 ms), and no retransmission is in flight
    // any more: undo at once, in recovery.
    let (mut s, prior_cwnd, _) = reordered_fast_retransmit();
    let mut out = Vec::new();
    s.on_ack(at(103), &ack(4000, &[], ts_val(at(0))), &mut out);
    let undos = undo_events(&mut s);
    assert_eq!(undos.len(), 1);
    assert_eq!(undos[0].detail, "timestamp");
    assert_eq!(undos[0].cwnd_bytes, prior_cwnd);
    assert_eq!(s.state(), LossState::Open);
}

#[test]
fn a_dsack_of_only_some_retransmissions_undoes_nothing() {
    // Two retransmissions in the episode (segments 0 and 4 000), one DSACKed: undo_retrans
    // is 1, not 0 (RFC 3708 §2: all retransmissions must be shown spurious).
    let (mut s, _, reduced) = reordered_fast_retransmit();
    let mut out = Vec::new();
    s.undo_on_retransmit(at(102));
    s.on_ack(at(120), &ack(0, &[(0, 1000), (1000, 4000)], 0), &mut out);
    assert_eq!(s.stats.undos, 0);
    assert_eq!(s.cc().ssthresh(), reduced);
}

/// The fast retransmit of `reordered_fast_retransmit`, its controller wrapped so that the
/// recovery's end is counted.
fn counted_fast_retransmit() -> (Sender, std::sync::Arc<HookCounts>) {
    let (mut s, _, _) = reordered_fast_retransmit();
    let config = CcConfig::new(MSS);
    let placeholder = Box::new(Reno::new(
        &config,
        Box::new(StandardSlowStart::new(&config)),
    ));
    let inner = std::mem::replace(&mut s.cc, placeholder);
    let counts = std::sync::Arc::new(HookCounts::default());
    s.cc = Box::new(CountingController {
        inner,
        counts: counts.clone(),
    });
    (s, counts)
}

#[test]
fn a_recovery_that_reaches_its_point_completes_the_reduction() {
    // Linux tcp_fastretrans_alert, step D: snd_una reached high_seq, no undo possible
    // (no timestamps, no DSACK): tcp_end_cwnd_reduction raises CA_EVENT_COMPLETE_CWR.
    let (mut s, counts) = counted_fast_retransmit();
    let mut out = Vec::new();
    s.on_ack(at(110), &ack(s.snd_nxt(), &[], 0), &mut out);
    assert_eq!(s.state(), LossState::Open);
    assert_eq!(counts.recovery_ends(), (1, 1));
}

#[test]
fn an_undo_before_the_recovery_point_does_not_complete_the_reduction() {
    // Linux `tcp_try_undo_partial` (the original filled the hole: timestamps) and
    // `tcp_try_undo_dsack` (the retransmission was DSACKed while the recovery point is
    // still ahead) reopen through `tcp_try_keep_open`, without tcp_end_cwnd_reduction.
    let (mut s, counts) = counted_fast_retransmit();
    let mut out = Vec::new();
    s.on_ack(at(103), &ack(4000, &[], ts_val(at(0))), &mut out);
    assert_eq!(s.state(), LossState::Open);
    assert_eq!(s.stats.undos, 1);
    assert_eq!(counts.recovery_ends(), (1, 0));

    let (mut s, counts) = counted_fast_retransmit();
    s.on_ack(at(103), &ack(4000, &[], 0), &mut out);
    assert!(matches!(s.state(), LossState::Recovery { .. }));
    s.on_ack(at(104), &ack(4000, &[(0, 1000)], 0), &mut out);
    assert_eq!(s.stats.undos, 1);
    assert_eq!(undo_events(&mut s)[0].detail, "dsack");
    assert_eq!(s.state(), LossState::Open);
    assert_eq!(counts.recovery_ends(), (1, 0));
}
