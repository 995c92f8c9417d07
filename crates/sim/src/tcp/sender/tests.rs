//! Unit tests of the sender against RFC 5681, 6582, 6675, 6937, 6298, 3168 and 8985.

use super::hook_counts::{CountingController, HookCounts};
use super::*;
use crate::packet::{Ecn, PacketKind, SackBlock, XcpHeader};
use cclab_cc::algorithms::reno::Reno;
use cclab_cc::slow_start::standard::StandardSlowStart;
use cclab_cc::{Ack, CongestionEvent, TimeoutEvent};
use cclab_cc::{CcConfig, SimDuration};

pub(super) const MSS: u64 = 1000;

pub(super) fn sender(recovery: Recovery) -> Sender {
    let config = CcConfig::new(MSS);
    let cc = Reno::new(&config, Box::new(StandardSlowStart::new(&config)));
    Sender::new(
        SenderConfig {
            flow: 0,
            mss: MSS,
            header_bytes: 40,
            size: None,
            recovery,
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
    )
}

/// A RACK-TLP sender over Reno: `size` bytes (None: unlimited), RTO floor `min_rto_ms`.
fn rack_sender(size: Option<u64>, min_rto_ms: u64) -> Sender {
    let config = CcConfig::new(MSS);
    let cc = Reno::new(&config, Box::new(StandardSlowStart::new(&config)));
    Sender::new(
        SenderConfig {
            flow: 0,
            mss: MSS,
            header_bytes: 40,
            size,
            recovery: Recovery::Sack,
            loss_detection: LossDetection::RackTlp,
            limited_transmit: false,
            lost_retransmission: LostRetransmission::Reduce,
            reduce_from: ReduceFrom::Flight,
            prr_bound: PrrBound::Ssrb,
            receive_window: None,
            send_buffer: None,
            min_rto: SimDuration::from_millis(min_rto_ms),
            rto_estimator: cclab_scenario::RtoEstimator::Rfc6298,
            pacing: false,
            ecn: EcnMode::Off,
            nic_rate_bps: None,
        },
        Box::new(cc),
    )
}

pub(super) fn retransmitted(out: &[Packet]) -> Vec<u64> {
    out.iter()
        .filter(|p| p.retransmission)
        .map(|p| p.seq)
        .collect()
}

pub(super) fn ack(cumulative: u64, sack: &[(u64, u64)]) -> Packet {
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
        ts: 0,
    };
    packet.set_sack_blocks(&blocks);
    packet
}

pub(super) fn at(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

/// A sender that sent one 10-segment burst at 0, all acknowledged at 100 ms (one RTT
/// sample of 100 ms: RFC 6298 RTO = 100 + 4 × 50 = 300 ms), and has no more data.
fn idle_after_one_burst() -> Sender {
    let mut s = sender(Recovery::Sack);
    s.enable_idle_restart(10 * MSS);
    s.set_app_limit(10 * MSS);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    assert_eq!(out.len(), 10);
    out.clear();
    s.on_ack(at(100), &ack(10 * MSS, &[]), &mut out);
    assert!(out.is_empty(), "nothing more was written");
    assert_eq!(s.rtt().rto(), SimDuration::from_millis(300));
    s
}

#[test]
fn idle_restart_starts_again_from_the_initial_window() {
    // Slow start grew cwnd past the initial window on the burst's ACK.
    let cwnd = idle_after_one_burst().cc().cwnd();
    assert!(cwnd > 10 * MSS, "{cwnd}");
    let resume = |idle_ms: u64| {
        let mut s = idle_after_one_burst();
        s.set_app_limit(s.snd_nxt() + 100 * MSS);
        let mut out = Vec::new();
        s.on_app_write(at(100 + idle_ms), &mut out);
        (s, out.len() as u64)
    };
    // Idle 200 ms, under the RTO: the whole window goes out (RFC 5681 §4.1 applies only
    // after "an interval exceeding the retransmission timeout").
    assert_eq!(resume(200).1, cwnd / MSS);
    // Idle 400 ms, over the RTO: RW = min(IW, cwnd) = 10 segments.
    let (mut s, sent) = resume(400);
    assert_eq!(sent, 10);
    assert_eq!(s.window(), 10 * MSS);
    // The controller's own window is untouched, and it regrows to it by slow start: the
    // ACK of those 10 segments adds 10 segments to the restart window, which reaches the
    // controller's cwnd (≤ 20 segments) and lifts the cap; the controller, whose window
    // was not in force, did not grow.
    assert_eq!(s.cc().cwnd(), cwnd);
    let mut out = Vec::new();
    let una = s.snd_una();
    s.on_ack(at(600), &ack(una + 10 * MSS, &[]), &mut out);
    assert!(cwnd <= 20 * MSS);
    assert_eq!(s.window(), cwnd);
    assert_eq!(s.cc().cwnd(), cwnd);
}

#[test]
fn initial_window_goes_out_at_once() {
    let mut s = sender(Recovery::Sack);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    assert_eq!(out.len(), 10);
    assert_eq!(
        out.iter().map(|p| p.seq).collect::<Vec<_>>(),
        (0..10).map(|i| i * MSS).collect::<Vec<_>>()
    );
    assert_eq!(out[0].wire_bytes, 1040);
    assert!(
        s.rto_deadline() == Some(at(1000)),
        "RFC 6298: initial RTO 1 s"
    );
}

#[test]
fn reno_third_duplicate_ack_retransmits_at_once_and_inflates() {
    let mut s = sender(Recovery::NewReno);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    out.clear();
    // Segment 0 is lost; segments 1..3 arrive and produce three duplicate ACKs.
    s.on_ack(at(50), &ack(0, &[]), &mut out);
    s.on_ack(at(51), &ack(0, &[]), &mut out);
    assert!(out.is_empty(), "no limited transmit");
    s.on_ack(at(52), &ack(0, &[]), &mut out);
    // RFC 5681 §3.2: retransmit segment 0 immediately; ssthresh = 10/2 = 5 MSS,
    // cwnd = ssthresh + 3 MSS = 8 MSS (< FlightSize 10, so nothing new yet).
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].seq, out[0].retransmission), (0, true));
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    assert_eq!(s.window(), 8 * MSS);
    // Each further duplicate inflates by one MSS; at 11 MSS > FlightSize 10 new data
    // flows again.
    out.clear();
    for i in 0..3 {
        s.on_ack(at(53 + i), &ack(0, &[]), &mut out);
    }
    assert_eq!(s.window(), 11 * MSS);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].seq, 10 * MSS);
    // A partial ACK (up to segment 4: segment 5 was lost too) retransmits segment 5 at
    // once and deflates by the 5 MSS acknowledged, plus one MSS back (RFC 6582 step 5).
    out.clear();
    s.on_ack(at(100), &ack(5 * MSS, &[]), &mut out);
    assert_eq!((out[0].seq, out[0].retransmission), (5 * MSS, true));
    assert_eq!(s.window(), 11 * MSS - 5 * MSS + MSS);
    // The full ACK ends recovery with cwnd = ssthresh.
    s.on_ack(at(150), &ack(11 * MSS, &[]), &mut out);
    assert_eq!(s.state(), LossState::Open);
    assert_eq!(s.window(), 5 * MSS);
    // What the flow's events say: the start, the recovery begun by the third duplicate
    // (which ended slow start: ssthresh 5 MSS < cwnd), its end at the full ACK.
    let mut events = Vec::new();
    s.take_events(&mut events);
    let seen: Vec<_> = events
        .iter()
        .map(|e| (e.time, e.kind.name(), e.to, e.detail, e.cwnd_bytes))
        .collect();
    assert_eq!(
        seen,
        [
            (at(0), "mode", "slow_start", "start", 10 * MSS),
            (at(52), "recovery_start", "", "newreno", 5 * MSS),
            (at(52), "mode", "congestion_avoidance", "loss", 5 * MSS),
            (
                at(52),
                "slow_start_exit",
                "congestion_avoidance",
                "loss",
                5 * MSS
            ),
            (at(150), "recovery_end", "", "", 5 * MSS),
        ]
    );
    assert!(!s.has_events(), "taken");
    // With their buffer: a running flow keeps none between its rare events.
    assert_eq!(s.events.capacity(), 0);
}

#[test]
fn sack_recovery_uses_proportional_rate_reduction() {
    // Start in congestion avoidance (ssthresh = cwnd = 10 MSS) so that SACKed bytes do not
    // grow cwnd in this short exchange.
    let config = CcConfig {
        initial_ssthresh: 10 * MSS,
        ..CcConfig::new(MSS)
    };
    let mut s = sender(Recovery::Sack);
    s.cc = Box::new(Reno::new(
        &config,
        Box::new(StandardSlowStart::new(&config)),
    ));
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    out.clear();
    // Segment 0 lost. Each SACK before recovery lets one new segment replace the one that
    // left the network (pipe = outstanding − SACKed), as RFC 3042 limited transmit would.
    s.on_ack(at(50), &ack(0, &[(MSS, 2 * MSS)]), &mut out);
    s.on_ack(at(51), &ack(0, &[(MSS, 3 * MSS)]), &mut out);
    assert_eq!(
        out.iter().map(|p| p.seq).collect::<Vec<_>>(),
        vec![10 * MSS, 11 * MSS]
    );
    out.clear();
    // Third SACKed segment: IsLost(0), recovery. The pipe before this ACK was 12 − 2 = 10
    // MSS, so ssthresh = 5 MSS and RecoverFS = 10 MSS; prr_delivered = 1 MSS; pipe after =
    // 12 − 3 SACKed − 1 lost = 8 > ssthresh: sndcnt = ceil(1 · 5/10) − 0 = 1 segment, the
    // fast retransmit.
    s.on_ack(at(52), &ack(0, &[(MSS, 4 * MSS)]), &mut out);
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].seq, out[0].retransmission), (0, true));
    out.clear();
    // prr_delivered = 2: ceil(2 · 5/10) − 1 = 0, nothing.
    s.on_ack(at(53), &ack(0, &[(MSS, 5 * MSS)]), &mut out);
    assert!(out.is_empty());
    // prr_delivered = 3, pipe 7 > 5: ceil(3 · 5/10) − 1 = 1: one new segment.
    s.on_ack(at(54), &ack(0, &[(MSS, 6 * MSS)]), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].seq, out[0].retransmission), (12 * MSS, false));
    // Recovery sends half as much as was delivered: at prr_delivered = 6, prr_out =
    // ceil(6 · 5/10) = 3 (one more send, at prr_delivered = 5) while pipe stays above 5.
    out.clear();
    for (i, end) in [7, 8, 9].into_iter().enumerate() {
        s.on_ack(at(55 + i as u64), &ack(0, &[(MSS, end * MSS)]), &mut out);
    }
    assert_eq!(out.len(), 1, "prr_out grows from 2 to 3 segments");
}

#[test]
fn timeout_resends_from_snd_una_with_one_segment() {
    let mut s = sender(Recovery::Sack);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    out.clear();
    s.on_retransmission_timeout(at(1000), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].seq, out[0].retransmission), (0, true));
    assert_eq!(s.cc().cwnd(), MSS);
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    assert_eq!(s.stats.timeouts, 1);
    // RFC 6298 §5.5: the RTO doubled (no RTT sample yet: 1 s → 2 s).
    assert_eq!(s.rto_deadline(), Some(at(3000)));
}

#[test]
fn ce_marks_reduce_the_window_once_per_window_of_data() {
    let config = CcConfig {
        initial_ssthresh: 10 * MSS,
        ..CcConfig::new(MSS)
    };
    let mut s = sender(Recovery::Sack);
    s.cc = Box::new(Reno::new(
        &config,
        Box::new(StandardSlowStart::new(&config)),
    ));
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    out.clear();
    // The first ACK reports a CE-marked segment: RFC 3168 §6.1.2, halve as for a loss
    // (pipe before the ACK = 10 MSS, so ssthresh = 5 MSS), retransmit nothing.
    let mut marked = ack(MSS, &[]);
    marked.ce_bytes = MSS;
    s.on_ack(at(50), &marked, &mut out);
    assert_eq!(s.state(), LossState::Cwr { point: 10 * MSS });
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    assert!(out.iter().all(|p| !p.retransmission));
    assert_eq!((s.stats.ce_bytes, s.stats.ecn_reductions), (MSS, 1));
    // More marks in the same window: no second reduction.
    let mut marked = ack(2 * MSS, &[]);
    marked.ce_bytes = 2 * MSS;
    s.on_ack(at(51), &marked, &mut out);
    assert_eq!((s.cc().ssthresh(), s.stats.ecn_reductions), (5 * MSS, 1));
    // The window drains by PRR: pipe 8 MSS before this ACK, prr_delivered = 2 MSS,
    // ceil(2 · 5/10) = 1 segment may be out in total.
    assert!(s.window() < 10 * MSS);
    // Everything outstanding at the mark acknowledged, marks included: still the same
    // window (Linux holds CWR until snd_una passes high_seq)...
    let mut marked = ack(10 * MSS, &[]);
    marked.ce_bytes = 3 * MSS;
    s.on_ack(at(100), &marked, &mut out);
    assert_eq!(s.state(), LossState::Cwr { point: 10 * MSS });
    assert_eq!(s.stats.ecn_reductions, 1);
    // ...which ends with the first ACK beyond it; marks it reports belong to data sent
    // after the reduction began and start the next one.
    let mut marked = ack(11 * MSS, &[]);
    marked.ce_bytes = 4 * MSS;
    s.on_ack(at(101), &marked, &mut out);
    assert!(matches!(s.state(), LossState::Cwr { point } if point > 10 * MSS));
    assert_eq!(s.stats.ecn_reductions, 2);
}

/// A controller that responds to ECN itself and counts the CE bytes it is told of.
struct CountsCe {
    seen: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl CongestionControl for CountsCe {
    fn name(&self) -> &'static str {
        "counts-ce"
    }
    fn on_ack(&mut self, ack: &Ack) {
        self.seen
            .fetch_add(ack.ecn_ce_bytes, std::sync::atomic::Ordering::Relaxed);
    }
    fn on_congestion_event(&mut self, _: &CongestionEvent) {}
    fn on_timeout_congestion_event(&mut self, _: &TimeoutEvent) {}
    fn on_retransmission_timeout(&mut self, _: &TimeoutEvent) {}
    fn cwnd(&self) -> u64 {
        10 * MSS
    }
    fn ssthresh(&self) -> u64 {
        cclab_cc::UNLIMITED
    }
    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        // A fixed window: nothing to take.
        let _ = (cwnd, ssthresh);
    }
    fn responds_to_ecn(&self) -> bool {
        true
    }
}

#[test]
fn ce_marks_echoed_by_duplicate_acks_reach_a_controller_that_responds_to_ecn() {
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut s = sender(Recovery::NewReno);
    s.cc = Box::new(CountsCe { seen: seen.clone() });
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    // Without SACK, segment 1 arriving CE-marked ahead of segment 0 draws a duplicate
    // ACK: the receiver's counter says 1 MSS, but nothing new is delivered, so there is
    // no `Ack` for the controller yet.
    let mut duplicate = ack(0, &[]);
    duplicate.ce_bytes = MSS;
    s.on_ack(at(50), &duplicate, &mut out);
    assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), 0);
    // Segment 0 arrives: the next `Ack` carries the mark (the counter did not move).
    let mut cumulative = ack(2 * MSS, &[]);
    cumulative.ce_bytes = MSS;
    s.on_ack(at(51), &cumulative, &mut out);
    assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), MSS);
    assert_eq!((s.stats.ce_bytes, s.stats.ecn_reductions), (MSS, 0));
    // And only once.
    let mut next = ack(3 * MSS, &[]);
    next.ce_bytes = MSS;
    s.on_ack(at(52), &next, &mut out);
    assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), MSS);
}

/// A sender over Reno starting with `initial_ssthresh` (None: unlimited), and the counts of
/// its controller's hooks (`on_timeout_congestion_event` is the one these tests check).
fn counting_sender(
    recovery: Recovery,
    initial_ssthresh: Option<u64>,
) -> (Sender, std::sync::Arc<HookCounts>) {
    let config = CcConfig {
        initial_ssthresh: initial_ssthresh.unwrap_or(cclab_cc::UNLIMITED),
        ..CcConfig::new(MSS)
    };
    let counts = std::sync::Arc::new(HookCounts::default());
    let mut s = sender(recovery);
    s.cc = Box::new(CountingController {
        inner: Box::new(Reno::new(
            &config,
            Box::new(StandardSlowStart::new(&config)),
        )),
        counts: counts.clone(),
    });
    (s, counts)
}

fn count(counts: &HookCounts) -> u64 {
    counts.timeout_congestion_events()
}

#[test]
fn repeated_timeouts_of_one_episode_set_ssthresh_once() {
    let (mut s, new_events) = counting_sender(Recovery::Sack, None);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    // First timeout, from Open: a new congestion event. Pipe 10 MSS, so RFC 5681 eq. (4)
    // gives ssthresh = 5 MSS; cwnd = LW = 1 MSS.
    s.on_retransmission_timeout(at(1000), &mut out);
    assert_eq!(count(&new_events), 1);
    assert_eq!((s.cc().ssthresh(), s.cc().cwnd()), (5 * MSS, MSS));
    // The retransmission is lost too: the timer (backed off to 2 s) fires again with no
    // ACK since. Same episode: ssthresh held at 5 MSS (RFC 5681 §3.1), not halved to the
    // 2-MSS floor from the 1-segment flight.
    s.on_retransmission_timeout(at(3000), &mut out);
    assert_eq!(count(&new_events), 1);
    assert_eq!((s.cc().ssthresh(), s.cc().cwnd()), (5 * MSS, MSS));
    assert_eq!(s.stats.timeouts, 2);
    // The retransmission of segment 0 gets through: forward progress, still in Loss
    // (recovery point 10 MSS). A timeout now is a new congestion event (Linux resets
    // icsk_retransmits when snd_una advances): ssthresh = max(pipe/2, 2 MSS).
    s.on_ack(at(3050), &ack(MSS, &[]), &mut out);
    assert!(matches!(s.state(), LossState::Loss { .. }));
    let pipe = s.bytes_in_flight();
    s.on_retransmission_timeout(at(4000), &mut out);
    assert_eq!(count(&new_events), 2);
    assert_eq!(s.cc().ssthresh(), (pipe / 2).max(2 * MSS));
}

#[test]
fn timeout_during_fast_recovery_keeps_its_ssthresh() {
    // Congestion avoidance from the start, so SACKs do not grow cwnd.
    let (mut s, new_events) = counting_sender(Recovery::Sack, Some(10 * MSS));
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    // Segment 0 lost; three SACKed segments start recovery with ssthresh = 10/2 = 5 MSS
    // (pipe before the third SACK: 12 sent − 2 SACKed = 10 MSS, as in the PRR test).
    for (i, end) in [2, 3, 4].into_iter().enumerate() {
        s.on_ack(at(50 + i as u64), &ack(0, &[(MSS, end * MSS)]), &mut out);
    }
    assert!(matches!(s.state(), LossState::Recovery { .. }));
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    // The fast retransmission is lost and the RTO fires before the recovery point is
    // reached: the window was already reduced for this loss (Linux tcp_enter_loss in
    // TCP_CA_Recovery with high_seq > snd_una), so ssthresh stays 5 MSS, where a new
    // reduction would give max(pipe/2, 2 MSS) = 4.5 MSS from the pipe of 9 MSS (12 sent
    // − 3 SACKed − 1 lost + its retransmission).
    assert_eq!(s.bytes_in_flight(), 9 * MSS);
    s.on_retransmission_timeout(at(1000), &mut out);
    assert_eq!(count(&new_events), 0);
    assert_eq!((s.cc().ssthresh(), s.cc().cwnd()), (5 * MSS, MSS));
    assert!(matches!(s.state(), LossState::Loss { .. }));
}

#[test]
fn timeout_after_recovery_ended_is_a_new_congestion_event() {
    let (mut s, new_events) = counting_sender(Recovery::Sack, Some(10 * MSS));
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    for (i, end) in [2, 3, 4].into_iter().enumerate() {
        s.on_ack(at(50 + i as u64), &ack(0, &[(MSS, end * MSS)]), &mut out);
    }
    // Everything sent so far (up to the recovery point and beyond) acknowledged.
    let sent = s.snd_nxt();
    s.on_ack(at(100), &ack(sent, &[]), &mut out);
    assert_eq!(s.state(), LossState::Open);
    let pipe = s.bytes_in_flight();
    assert!(pipe > 0, "new data outstanding");
    s.on_retransmission_timeout(at(1100), &mut out);
    assert_eq!(count(&new_events), 1);
    assert_eq!(s.cc().ssthresh(), (pipe / 2).max(2 * MSS));
}

#[test]
fn timeout_during_an_ecn_reduction_keeps_its_ssthresh_until_the_point() {
    // Linux: CWR is above Disorder, so tcp_enter_loss holds ssthresh while
    // high_seq > snd_una, and lowers it once snd_una reaches high_seq.
    let (mut s, new_events) = counting_sender(Recovery::Sack, Some(10 * MSS));
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    let mut marked = ack(MSS, &[]);
    marked.ce_bytes = MSS;
    s.on_ack(at(50), &marked, &mut out);
    assert_eq!(s.state(), LossState::Cwr { point: 10 * MSS });
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    s.on_retransmission_timeout(at(1000), &mut out);
    assert_eq!(count(&new_events), 0);
    assert_eq!((s.cc().ssthresh(), s.cc().cwnd()), (5 * MSS, MSS));

    // The same reduction, but the cumulative ACK has reached its point (CWR lasts until
    // it passes it): the next timeout reduces again.
    let (mut s, new_events) = counting_sender(Recovery::Sack, Some(10 * MSS));
    s.start(at(0), &mut out);
    s.on_ack(at(50), &marked, &mut out);
    let mut at_point = ack(10 * MSS, &[]);
    at_point.ce_bytes = MSS;
    s.on_ack(at(60), &at_point, &mut out);
    assert_eq!(s.state(), LossState::Cwr { point: 10 * MSS });
    let pipe = s.bytes_in_flight();
    s.on_retransmission_timeout(at(1000), &mut out);
    assert_eq!(count(&new_events), 1);
    assert_eq!(s.cc().ssthresh(), (pipe / 2).max(2 * MSS));
}

/// The PRR tests' start: ten segments sent with ssthresh 10 MSS; segments 0..=6 are lost
/// and 7, 8 arrive, so the first two SACKs each let one new segment (10, 11) replace the one
/// that left. Returns the sender and an emptied output buffer.
fn seven_lost_two_sacked(prr_bound: PrrBound) -> (Sender, Vec<Packet>) {
    let (mut s, _) = counting_sender(Recovery::Sack, Some(10 * MSS));
    s.config.prr_bound = prr_bound;
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    s.on_ack(at(50), &ack(0, &[(7 * MSS, 8 * MSS)]), &mut out);
    s.on_ack(at(51), &ack(0, &[(7 * MSS, 9 * MSS)]), &mut out);
    out.clear();
    (s, out)
}

#[test]
fn prr_slow_start_reduction_bound_caps_the_catch_up() {
    // RFC 6937 §3: when pipe has fallen to or below ssthresh, PRR-SSRB sends
    // sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) + MSS):
    // it catches up at most one segment faster than the ACK clock, never in one burst.
    let (mut s, mut out) = seven_lost_two_sacked(PrrBound::Ssrb);
    // Third SACK: segments 0..=6 have 3 SACKed above them (RFC 6675 IsLost). Pipe before
    // the ACK: 12 sent − 2 SACKed = 10 MSS, so ssthresh = 5 MSS; after it: 12 − 3 SACKed
    // − 7 lost = 2 MSS ≤ ssthresh. prr_delivered = DeliveredData = 1 MSS, prr_out = 0:
    // sndcnt = min(5 − 2, max(1 − 0, 1) + 1) = 2 segments (3 without the bound, 1 with
    // RFC 6937's conservative bound).
    s.on_ack(at(52), &ack(0, &[(7 * MSS, 10 * MSS)]), &mut out);
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    assert_eq!(
        out.iter()
            .map(|p| (p.seq, p.retransmission))
            .collect::<Vec<_>>(),
        vec![(0, true), (MSS, true)]
    );
}

#[test]
fn prr_safe_ack_adds_the_extra_segment_only_when_snd_una_advances_without_new_loss() {
    // Linux `tcp_cwnd_reduction` (net/ipv4/tcp_input.c), with pipe ≤ ssthresh:
    //   sndcnt = max(prr_delivered − prr_out, newly_acked_sacked);
    //   if (flag & FLAG_SND_UNA_ADVANCED && !newly_lost) sndcnt++;
    //   sndcnt = min(delta, sndcnt);  sndcnt = max(sndcnt, prr_out ? 0 : 1);
    // The same losses as the PRR-SSRB test above.
    let (mut s, mut out) = seven_lost_two_sacked(PrrBound::SafeAck);
    // Third SACK: snd_una does not move and segments 0..=6 are newly lost, so no extra
    // segment: sndcnt = min(5 − 2, max(1 − 0, 1)) = 1, the fast retransmission alone (SSRB: 2).
    s.on_ack(at(52), &ack(0, &[(7 * MSS, 10 * MSS)]), &mut out);
    assert_eq!(s.cc().ssthresh(), 5 * MSS);
    let sent = |out: &[Packet]| {
        out.iter()
            .map(|p| (p.seq, p.retransmission))
            .collect::<Vec<_>>()
    };
    assert_eq!(sent(&out), vec![(0, true)]);
    out.clear();
    // The retransmission of segment 0 arrives: snd_una advances and nothing is newly lost.
    // prr_delivered = 2, prr_out = 1, pipe = segments 1..=11 − 3 SACKed − 6 lost = 2 MSS:
    // sndcnt = min(5 − 2, max(2 − 1, 1) + 1) = 2 retransmissions.
    s.on_ack(at(53), &ack(MSS, &[(7 * MSS, 10 * MSS)]), &mut out);
    assert_eq!(sent(&out), vec![(MSS, true), (2 * MSS, true)]);
}

#[test]
fn default_pacing_rate_is_200_percent_in_slow_start_and_120_after() {
    // Linux tcp_update_pacing_rate: cwnd/srtt × sysctl_tcp_pacing_ss_ratio (200 %) while
    // cwnd < ssthresh/2, × sysctl_tcp_pacing_ca_ratio (120 %) otherwise.
    let paced = |initial_ssthresh: Option<u64>| {
        let (mut s, _) = counting_sender(Recovery::Sack, initial_ssthresh);
        s.config.pacing = true;
        s
    };
    // No RTT sample yet: no rate.
    let mut s = paced(None);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    assert_eq!(s.pacing_rate(), None);
    // First sample 40 ms (srtt = 40 ms); slow start grows cwnd to 12 MSS, far below
    // ssthresh/2: 12 000 B × 8 / 0.04 s × 2 = 4.8 Mbit/s.
    s.on_ack(at(40), &ack(2 * MSS, &[]), &mut out);
    assert_eq!(s.cc().cwnd(), 12 * MSS);
    assert_eq!(s.pacing_rate(), Some(4_800_000));
    // Congestion avoidance (ssthresh = cwnd = 10 MSS; 2 MSS acknowledged do not grow it):
    // 10 000 B × 8 / 0.04 s × 1.2 = 2.4 Mbit/s.
    let mut s = paced(Some(10 * MSS));
    s.start(at(0), &mut out);
    s.on_ack(at(40), &ack(2 * MSS, &[]), &mut out);
    assert_eq!(s.cc().cwnd(), 10 * MSS);
    assert_eq!(s.pacing_rate(), Some(2_400_000));
    // The boundary: with ssthresh = 24 MSS, cwnd = 12 MSS = ssthresh/2 is not below
    // half: 120 %, 12 000 × 8 / 0.04 × 1.2 = 2.88 Mbit/s; with ssthresh = 26 MSS
    // (half = 13) it is: 200 %, 4.8 Mbit/s.
    let mut s = paced(Some(24 * MSS));
    s.start(at(0), &mut out);
    s.on_ack(at(40), &ack(2 * MSS, &[]), &mut out);
    assert_eq!(s.cc().cwnd(), 12 * MSS);
    assert_eq!(s.pacing_rate(), Some(2_880_000));
    let mut s = paced(Some(26 * MSS));
    s.start(at(0), &mut out);
    s.on_ack(at(40), &ack(2 * MSS, &[]), &mut out);
    assert_eq!(s.pacing_rate(), Some(4_800_000));
}

/// The window after the first round trip: segments 0–9 sent at 0 ms, all acknowledged at
/// 100 ms (SRTT = min RTT = 100 ms); the window's worth sent at 100 ms starts at 10 000.
fn rack_after_first_round(size: Option<u64>, min_rto_ms: u64) -> (Sender, Vec<Packet>) {
    let mut s = rack_sender(size, min_rto_ms);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    out.clear();
    s.on_ack(at(100), &ack(10 * MSS, &[]), &mut out);
    assert_eq!(s.rtt().srtt(), Some(SimDuration::from_millis(100)));
    (s, out)
}

#[test]
fn rack_marks_a_hole_lost_when_a_segment_sent_a_reordering_window_later_is_delivered() {
    // RFC 8985 §6.2: segment S is lost when a segment sent after it is delivered and
    // now ≥ S.xmit_ts + RACK.rtt + reo_wnd. With no reordering seen and fewer than
    // DupThresh segments SACKed, reo_wnd = min_RTT / 4 = 25 ms.
    let (mut s, out) = rack_after_first_round(None, 200);
    let first_new = out.len() as u64; // segments 10.. went out at 100 ms
    assert!(first_new >= 2);
    // Segment 10 arrives at 200 ms: the cumulative ACK sends more at 200 ms.
    let mut out = Vec::new();
    s.on_ack(at(200), &ack(11 * MSS, &[]), &mut out);
    let sent_at_200 = out[0].seq;
    assert_eq!(sent_at_200, (10 + first_new) * MSS);
    // A segment sent at 200 ms is SACKed at 300 ms while segment 11 (sent at 100 ms) is
    // missing: RACK.rtt = 100 ms, and 100 + 100 + 25 ≤ 300, so 11 is lost at once, with
    // no need for three SACKed segments (one is enough).
    out.clear();
    s.on_ack(
        at(300),
        &ack(11 * MSS, &[(sent_at_200, sent_at_200 + MSS)]),
        &mut out,
    );
    assert!(matches!(s.state(), LossState::Recovery { .. }));
    assert_eq!(retransmitted(&out).first(), Some(&(11 * MSS)));
    s.check_invariants();
}

#[test]
fn rack_reordering_timer_fires_a_reordering_window_after_the_ack() {
    // Segments 10 and 11 left together at 100 ms. 11 is SACKed at 200 ms: RACK.rtt =
    // 100 ms, reo_wnd = 25 ms, so 10 is lost at 100 + 100 + 25 = 225 ms, not before
    // (RFC 8985 §6.3: the reordering timer is armed for it).
    let (mut s, _) = rack_after_first_round(None, 200);
    let mut out = Vec::new();
    s.on_ack(at(200), &ack(10 * MSS, &[(11 * MSS, 12 * MSS)]), &mut out);
    assert!(retransmitted(&out).is_empty());
    assert_eq!(s.state(), LossState::Open);
    // One SACKed segment: no tail loss probe (§7.2), only the reordering timer.
    assert_eq!(s.loss_detection_deadline(), Some(at(225)));
    s.on_loss_detection_timer(at(225), &mut out);
    assert!(matches!(s.state(), LossState::Recovery { .. }));
    assert_eq!(retransmitted(&out), vec![10 * MSS]);
    let mut events = Vec::new();
    s.take_events(&mut events);
    assert!(
        events
            .iter()
            .any(|e| e.kind == FlowEventKind::RecoveryStart && e.detail == "rack")
    );
    assert_eq!(s.stats.timeouts, 0);
    s.check_invariants();
}

#[test]
fn reordering_within_the_window_retransmits_nothing() {
    let (mut s, _) = rack_after_first_round(None, 200);
    let mut out = Vec::new();
    // Segment 10 arrives 1 ms after 11 (within reo_wnd = 25 ms): no retransmission, and
    // RACK has now seen reordering (§6.2 step 3: a never-retransmitted segment below
    // RACK.fack delivered).
    s.on_ack(at(200), &ack(10 * MSS, &[(11 * MSS, 12 * MSS)]), &mut out);
    s.on_ack(at(201), &ack(12 * MSS, &[]), &mut out);
    assert!(retransmitted(&out).is_empty());
    // Now segment 12 is overtaken by three later ones (13, 14, 15, all sent at 100 ms):
    // DupThresh is reached, but with reordering seen reo_wnd stays min_RTT/4 (§6.2 step
    // 4), so 12 is not yet lost...
    for (i, end) in [14, 15, 16].into_iter().enumerate() {
        s.on_ack(
            at(202 + i as u64),
            &ack(12 * MSS, &[(13 * MSS, end * MSS)]),
            &mut out,
        );
    }
    assert!(retransmitted(&out).is_empty());
    assert_eq!(s.state(), LossState::Open);
    // ...and arrives 10 ms later: still nothing retransmitted.
    s.on_ack(at(214), &ack(16 * MSS, &[]), &mut out);
    assert!(retransmitted(&out).is_empty());
    assert_eq!((s.state(), s.stats.fast_recoveries), (LossState::Open, 0));

    // The same arrivals under RFC 6675's rule: the third SACK retransmits segment 12.
    let mut d = sender(Recovery::Sack);
    let mut out = Vec::new();
    d.start(at(0), &mut out);
    d.on_ack(at(100), &ack(10 * MSS, &[]), &mut out);
    d.on_ack(at(201), &ack(12 * MSS, &[]), &mut out);
    out.clear();
    for (i, end) in [14, 15, 16].into_iter().enumerate() {
        d.on_ack(
            at(202 + i as u64),
            &ack(12 * MSS, &[(13 * MSS, end * MSS)]),
            &mut out,
        );
    }
    assert_eq!(retransmitted(&out), vec![12 * MSS]);
}

#[test]
fn a_dsack_widens_the_reordering_window() {
    let (mut s, _) = rack_after_first_round(None, 1000);
    let mut out = Vec::new();
    // Segment 10 overtaken by 11 and delivered 1 ms later: reordering seen.
    s.on_ack(at(200), &ack(10 * MSS, &[(11 * MSS, 12 * MSS)]), &mut out);
    s.on_ack(at(201), &ack(12 * MSS, &[]), &mut out);
    // Segment 12 overtaken by 13 (both sent at 100 ms): RACK.rtt = 102 ms, reo_wnd =
    // min_RTT/4 = 25 ms: 12 is due at 100 + 102 + 25 = 227 ms, and is resent then.
    s.on_ack(at(202), &ack(12 * MSS, &[(13 * MSS, 14 * MSS)]), &mut out);
    assert_eq!(s.loss_detection_deadline(), Some(at(227)));
    out.clear();
    s.on_loss_detection_timer(at(227), &mut out);
    assert_eq!(retransmitted(&out), vec![12 * MSS]);
    // But it was only late: it arrives at 232 ms, then everything sent is acknowledged,
    // and the retransmission draws a DSACK (RFC 2883) at 330 ms.
    s.on_ack(at(232), &ack(14 * MSS, &[]), &mut out);
    let all = s.snd_nxt();
    out.clear();
    s.on_ack(at(329), &ack(all, &[]), &mut out);
    assert_eq!(s.state(), LossState::Open);
    let sent_at_329: Vec<u64> = out.iter().map(|p| p.seq).collect();
    assert!(sent_at_329.len() >= 2);
    s.on_ack(at(330), &ack(all, &[(12 * MSS, 13 * MSS)]), &mut out);
    // RFC 8985 §6.2 step 4: the DSACK doubles the window to 2 · 25 = 50 ms. A segment
    // sent at 329 ms overtaken by the next: due at 329 + 100 + 50 = 479 ms (454 ms
    // before the DSACK), so arriving 30 ms late at 459 ms it is not resent.
    let (a, b) = (sent_at_329[0], sent_at_329[1]);
    s.on_ack(at(429), &ack(a, &[(b, b + MSS)]), &mut out);
    assert_eq!(s.loss_detection_deadline(), Some(at(479)));
    out.clear();
    s.on_ack(at(459), &ack(b + MSS, &[]), &mut out);
    assert!(retransmitted(&out).is_empty());
    assert_eq!(s.stats.retransmissions, 1);
}

#[test]
fn probe_timeout_is_two_srtt_or_adds_the_ack_delay_for_one_segment() {
    // RFC 8985 §7.2, with an RTO floor of 1 s so that the RTO does not cap the PTO.
    // Several segments in flight after the ACK at 100 ms: PTO = 2 · 100 ms.
    let (s, _) = rack_after_first_round(None, 1000);
    assert!(s.bytes_in_flight() > MSS);
    assert_eq!(s.loss_detection_deadline(), Some(at(300)));
    // An 11-segment flow: only segment 10 is in flight after the ACK at 100 ms:
    // PTO = 2 · 100 + 200 ms (TLP.max_ack_delay).
    let (s, out) = rack_after_first_round(Some(11 * MSS), 1000);
    assert_eq!(
        out.iter().map(|p| p.seq).collect::<Vec<_>>(),
        vec![10 * MSS]
    );
    assert_eq!(s.loss_detection_deadline(), Some(at(500)));
    // With the 200 ms floor the RTO (SRTT + 4 · RTTVAR = 300 ms, due at 400 ms) caps it.
    let (s, _) = rack_after_first_round(Some(11 * MSS), 200);
    assert_eq!(s.rto_deadline(), Some(at(400)));
    assert_eq!(s.loss_detection_deadline(), Some(at(400)));
}

#[test]
fn probe_sends_new_data_when_it_can() {
    let (mut s, _) = rack_after_first_round(None, 1000);
    let next = s.snd_nxt();
    let mut out = Vec::new();
    s.on_loss_detection_timer(at(300), &mut out);
    // RFC 8985 §7.3: one new segment, whatever the window; then the RTO is re-armed
    // (RTO = max(SRTT + 4 · RTTVAR, 1 s) = 1 s) and no second probe is scheduled.
    assert_eq!(
        out.iter()
            .map(|p| (p.seq, p.retransmission))
            .collect::<Vec<_>>(),
        vec![(next, false)]
    );
    assert_eq!(s.stats.loss_probes, 1);
    assert_eq!(s.rto_deadline(), Some(at(1300)));
    assert_eq!(s.loss_detection_deadline(), None);
}

#[test]
fn probe_resends_the_last_segment_when_there_is_no_new_data() {
    // The 11-segment flow; its last segment (10) is lost. The probe at 500 ms resends it,
    // its ACK completes the flow without a timeout.
    let (mut s, _) = rack_after_first_round(Some(11 * MSS), 1000);
    let mut out = Vec::new();
    s.on_loss_detection_timer(at(500), &mut out);
    assert_eq!(
        out.iter()
            .map(|p| (p.seq, p.retransmission))
            .collect::<Vec<_>>(),
        vec![(10 * MSS, true)]
    );
    s.on_ack(at(600), &ack(11 * MSS, &[]), &mut out);
    assert!(s.is_finished());
    assert_eq!((s.stats.timeouts, s.stats.loss_probes), (0, 1));
    s.check_invariants();
}

#[test]
fn a_probe_due_with_the_rto_goes_in_its_place() {
    // 200 ms floor: the probe is capped at the RTO's time, 400 ms; if the RTO event is
    // handled first, it sends the probe instead of timing out (RFC 8985 §7.2).
    let (mut s, _) = rack_after_first_round(Some(11 * MSS), 200);
    let mut out = Vec::new();
    s.on_retransmission_timeout(at(400), &mut out);
    assert_eq!(retransmitted(&out), vec![10 * MSS]);
    assert_eq!((s.stats.timeouts, s.stats.loss_probes), (0, 1));
    assert_eq!(s.state(), LossState::Open);
}

#[test]
fn rtt_samples_skip_retransmitted_segments() {
    let mut s = sender(Recovery::Sack);
    let mut out = Vec::new();
    s.start(at(0), &mut out);
    s.on_ack(at(40), &ack(2 * MSS, &[]), &mut out);
    assert_eq!(s.rtt().latest(), Some(SimDuration::from_millis(40)));
    s.on_retransmission_timeout(at(1000), &mut out);
    // The retransmitted segment 2 is acknowledged: Karn forbids a sample.
    s.on_ack(at(1010), &ack(3 * MSS, &[]), &mut out);
    assert_eq!(s.rtt().latest(), Some(SimDuration::from_millis(40)));
}

#[test]
fn with_rack_a_sack_of_data_sent_before_the_heads_last_transmission_restarts_the_timer() {
    // Linux `tcp_clean_rtx_queue`: an ACK that advances nothing re-arms the RTO when it
    // SACKs never-retransmitted data sent before the head was last (re)transmitted (its SACK
    // RTT exceeds the time since then), and only then. RTOs by RFC 6298 from the samples:
    // 100 ms at 100 ms: SRTT 100, RTTVAR 50, RTO 300 ms; the timer runs to 400 ms.
    let (mut s, _) = rack_after_first_round(None, 200);
    assert_eq!(s.rto_deadline, Some(at(400)));
    // 200 ms: segment 11 (sent at 100 ms with the head, 10) is SACKed. Sample 100 ms:
    // RTTVAR = 3/4·50 = 37.5, RTO = 100 + 150 = 250 ms. 11 did not leave before the head:
    // the timer keeps its deadline.
    let mut out = Vec::new();
    s.on_ack(at(200), &ack(10 * MSS, &[(11 * MSS, 12 * MSS)]), &mut out);
    assert_eq!(s.rto_deadline, Some(at(400)));
    // 225 ms: RACK's reordering timer marks 10 lost; resending the head restarts the timer
    // (`tcp_xmit_retransmit_queue`): 225 + 250 = 475 ms.
    s.on_loss_detection_timer(at(225), &mut out);
    assert_eq!(retransmitted(&out), vec![10 * MSS]);
    assert_eq!(s.rto_deadline, Some(at(475)));
    // 300 ms: segment 12, sent at 100 ms, before the head's copy, is SACKed. Sample 200 ms:
    // RTTVAR = 3/4·37.5 + 1/4·|100 − 200| = 53.125, SRTT = 7/8·100 + 1/8·200 = 112.5,
    // RTO = 112.5 + 212.5 = 325 ms: the timer restarts, to 625 ms.
    s.on_ack(at(300), &ack(10 * MSS, &[(11 * MSS, 13 * MSS)]), &mut out);
    assert_eq!(s.rtt().rto(), SimDuration::from_millis(325));
    assert_eq!(s.rto_deadline, Some(at(625)));
    s.check_invariants();
}
