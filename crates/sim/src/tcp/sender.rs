//! The TCP sender: what to send and when, loss detection and recovery, RTT and delivery-rate
//! measurement. The congestion controller only decides the window (and pacing rate).
//!
//! Loss recovery, per flow:
//! - `sack`: RFC 6675 (SACK scoreboard, IsLost, NextSeg rule 1 then new data) with RFC 6937
//!   proportional rate reduction (PRR-SSRB) setting the window during recovery;
//! - `newreno`: RFC 6582 (partial ACKs retransmit the next hole; recovery lasts until the
//!   recovery point), with RFC 5681 window inflation;
//! - `reno`: RFC 5681 §3.2 (the first new ACK ends recovery).
//!
//! A retransmission timeout (RFC 6298) presumes all outstanding data lost and resends it from
//! `snd_una` under the controller's loss window, as Linux's `tcp_enter_loss` does.

use cclab_cc::metrics::is_slow_start_mode;
use cclab_cc::{
    Ack, CongestionControl, CongestionEvent, SimDuration, SimTime, SlowStartExit, TimeoutEvent,
    UNLIMITED,
};
use cclab_scenario::{EcnMode, Recovery};

use crate::histogram::Histogram;
use crate::packet::{Ecn, LoadFactor, MAX_SACK_BLOCKS, Packet, PacketKind, SackBlock, XcpHeader};
use crate::tcp::delivery_rate::{AckRateState, DeliveryRate};
use crate::tcp::rtt::RttEstimator;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::small_queues::SmallQueues;
use crate::trace::{FlowEvent, FlowEventKind};

/// RFC 5681 §3.2 / RFC 6675 DupThresh.
const DUP_THRESH: u64 = 3;

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub flow: u32,
    pub mss: u64,
    pub header_bytes: u64,
    /// Application bytes to send; `None` = unlimited.
    pub size: Option<u64>,
    pub recovery: Recovery,
    pub receive_window: Option<u64>,
    pub min_rto: SimDuration,
    /// Pace at Linux's default rate when the controller sets none.
    pub pacing: bool,
    /// Send ECN-capable data: ECT(0), or ECT(1) for L4S (RFC 9331 §4).
    pub ecn: EcnMode,
    /// Rate of the sender's own access link in bit/s: with it the sender keeps TCP Small
    /// Queues' limit on what waits there (`small_queues.rs`); `None` hands every packet over
    /// at once (unit tests).
    pub nic_rate_bps: Option<u64>,
}

/// Linux `tcp_ca_state`, reduced to what the model distinguishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossState {
    Open,
    /// Fast recovery until the cumulative ACK reaches `point` (snd_nxt at its start).
    Recovery {
        point: u64,
    },
    /// After a retransmission timeout, until the ACK reaches `point`.
    Loss {
        point: u64,
    },
    /// An ECN-triggered window reduction (Linux `TCP_CA_CWR`), until the ACK reaches `point`.
    Cwr {
        point: u64,
    },
}

/// The controller call after which a mode change was seen (the `detail` of a mode event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ModeCause {
    Start,
    Ack,
    Loss,
    Ecn,
    Timeout,
    RecoveryEnd,
    Send,
}

impl ModeCause {
    fn name(self) -> &'static str {
        match self {
            ModeCause::Start => "start",
            ModeCause::Ack => "ack",
            ModeCause::Loss => "loss",
            ModeCause::Ecn => "ecn",
            ModeCause::Timeout => "timeout",
            ModeCause::RecoveryEnd => "recovery_end",
            ModeCause::Send => "send",
        }
    }
}

/// RFC 6937 state for one recovery episode.
#[derive(Clone, Copy, Debug, Default)]
struct Prr {
    delivered: u64,
    out: u64,
    recover_fs: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    pub packets_sent: u64,
    pub retransmissions: u64,
    /// Payload bytes put on the wire, retransmissions included.
    pub payload_bytes_sent: u64,
    pub wire_bytes_sent: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub rtt_sum_ns: u128,
    pub rtt_samples: u64,
    /// Payload bytes the receiver reported CE-marked, and the window reductions they caused.
    pub ce_bytes: u64,
    pub ecn_reductions: u64,
    /// Every RTT sample (ns), for percentiles.
    pub rtt_histogram: Histogram,
}

pub struct Sender {
    config: SenderConfig,
    cc: Box<dyn CongestionControl>,
    board: Scoreboard,
    rtt: RttEstimator,
    rate: DeliveryRate,
    state: LossState,
    /// The sender's window during fast recovery (PRR or Reno inflation).
    recovery_cwnd: u64,
    prr: Prr,
    dup_acks: u32,
    /// RFC 6582 `recover`: the highest sequence sent when the last recovery began.
    recover: Option<u64>,
    /// NewReno partial ACKs restart the RTO only on the first one (RFC 6582 §3.2 step 5).
    partial_ack_seen: bool,
    /// RFC 5681 §3.2 step 2 / RFC 6582 §3.2 step 5: the next retransmission leaves at once,
    /// whatever the window (it replaces a segment that has left the network).
    retransmit_now: bool,
    /// The receiver's CE byte counter in the latest ACK.
    ce_bytes_echoed: u64,
    /// CE-marked bytes echoed by ACKs that delivered nothing (duplicate ACKs), for the next
    /// `Ack` the controller sees.
    ce_bytes_unreported: u64,
    /// XCP feedback echoed since the controller last heard (see `ce_bytes_unreported`).
    xcp_feedback_unreported: Option<f64>,
    /// The controller speaks XCP (asked once: the header costs a virtual call per segment).
    speaks_xcp: bool,
    /// VCP load factors echoed since the controller last heard, the highest.
    vcp_unreported: Option<LoadFactor>,
    /// The controller marks its segments VCP-capable.
    speaks_vcp: bool,
    /// Loss episodes (fast recoveries and timeouts) so far; retransmissions are tagged with it.
    episode: u32,
    /// snd_una when the last retransmission timeout fired.
    una_at_last_timeout: Option<u64>,
    /// Linux `tcp_cwnd_validate`: whether the window limited sending over the last flight.
    cwnd_limited: bool,
    max_pipe_in_window: u64,
    cwnd_usage_end: u64,
    next_send_time: SimTime,
    rto_deadline: Option<SimTime>,
    /// When sending resumes after pacing or TCP Small Queues held it back.
    send_deadline: Option<SimTime>,
    small_queues: Option<SmallQueues>,
    data_end: u64,
    /// The controller's mode label when last looked at, to see it change.
    mode: &'static str,
    /// When the last data segment left.
    last_send: SimTime,
    /// RFC 5681 §4.1 restart after idle, if the application can go idle (an on/off
    /// application): the initial window, which RW = min(IW, cwnd) is taken from.
    restart_window: Option<u64>,
    /// After an idle restart: the window in force is at most this, growing as slow start
    /// does (by the bytes each ACK delivers) until it reaches the controller's cwnd;
    /// `u64::MAX` otherwise (a plain `min` on the hot path, no branch).
    restart_cap: u64,
    /// Flow events not yet collected by the simulator (rare; the buffer is reused).
    events: Vec<FlowEvent>,
    pub stats: SenderStats,
}

impl Sender {
    pub fn new(config: SenderConfig, cc: Box<dyn CongestionControl>) -> Self {
        let data_end = config.size.unwrap_or(u64::MAX);
        Sender {
            board: Scoreboard::new(config.mss),
            rtt: RttEstimator::new(config.min_rto),
            rate: DeliveryRate::default(),
            state: LossState::Open,
            recovery_cwnd: 0,
            prr: Prr::default(),
            dup_acks: 0,
            recover: None,
            partial_ack_seen: false,
            una_at_last_timeout: None,
            ce_bytes_echoed: 0,
            ce_bytes_unreported: 0,
            xcp_feedback_unreported: None,
            speaks_xcp: cc.xcp_request().is_some(),
            vcp_unreported: None,
            speaks_vcp: cc.vcp(),
            episode: 0,
            retransmit_now: false,
            cwnd_limited: false,
            max_pipe_in_window: 0,
            cwnd_usage_end: 0,
            next_send_time: SimTime::ZERO,
            rto_deadline: None,
            send_deadline: None,
            small_queues: config
                .nic_rate_bps
                .map(|rate| SmallQueues::new(rate, config.mss + config.header_bytes)),
            data_end,
            mode: "",
            last_send: SimTime::ZERO,
            restart_window: None,
            restart_cap: u64::MAX,
            events: Vec::new(),
            stats: SenderStats::default(),
            config,
            cc,
        }
    }

    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }

    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    pub fn state(&self) -> LossState {
        self.state
    }

    pub fn snd_una(&self) -> u64 {
        self.board.snd_una()
    }

    pub fn snd_nxt(&self) -> u64 {
        self.board.snd_nxt()
    }

    /// Bytes in flight as the sender counts them for its window.
    pub fn bytes_in_flight(&self) -> u64 {
        self.pipe()
    }

    /// All application data acknowledged.
    pub fn is_finished(&self) -> bool {
        self.board.snd_una() >= self.data_end
    }

    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto_deadline
    }

    pub fn send_deadline(&self) -> Option<SimTime> {
        self.send_deadline
    }

    /// The most data TCP Small Queues lets wait on the sender's own link, as transmission
    /// time (`None` without the model).
    pub fn worst_host_backlog(&self) -> Option<SimDuration> {
        self.small_queues.as_ref().map(SmallQueues::worst_backlog)
    }

    fn sack_enabled(&self) -> bool {
        self.config.recovery == Recovery::Sack
    }

    /// RFC 6675 pipe with SACK, and after a timeout (when everything outstanding is marked
    /// lost); RFC 5681 FlightSize otherwise.
    fn pipe(&self) -> u64 {
        if self.sack_enabled() || matches!(self.state, LossState::Loss { .. }) {
            self.board.pipe()
        } else {
            self.board.outstanding()
        }
    }

    /// The congestion window in force now.
    pub fn window(&self) -> u64 {
        let window = match self.state {
            LossState::Recovery { .. } | LossState::Cwr { .. }
                if !self.cc.controls_recovery_window() =>
            {
                self.recovery_cwnd
            }
            _ => self.cc.cwnd(),
        };
        window.min(self.restart_cap)
    }

    /// Pacing rate in bit/s of payload: the controller's, or Linux's default when pacing is
    /// on.
    pub fn pacing_rate(&self) -> Option<u64> {
        if let Some(rate) = self.cc.pacing_rate() {
            return Some(rate.max(1));
        }
        if !self.config.pacing {
            return None;
        }
        self.default_pacing_rate()
    }

    /// Linux `tcp_update_pacing_rate`: cwnd/srtt × 200 % in slow start, × 120 % after; Linux
    /// keeps it whether or not it paces, for TCP Small Queues. `None` before the first RTT
    /// sample.
    fn default_pacing_rate(&self) -> Option<u64> {
        let srtt = self.rtt.srtt()?;
        let cwnd = self.window();
        let percent = if cwnd < self.cc.ssthresh() / 2 {
            200
        } else {
            120
        };
        let bps = cwnd as u128 * 8 * 1_000_000_000 * percent / 100 / srtt.as_nanos().max(1) as u128;
        Some((bps as u64).max(1))
    }

    /// The application starts (or the flow is created at `now`).
    pub fn start(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.next_send_time = now;
        self.mode = "";
        self.check_mode(now, ModeCause::Start);
        self.transmit(now, out);
    }

    /// The application's writes so far (an on/off application): the sender sends new data
    /// up to byte `end` of the stream (and never past `size`) until the limit moves. Raising
    /// it sends nothing by itself: call [`Sender::on_app_write`] (or [`Sender::start`]).
    pub fn set_app_limit(&mut self, end: u64) {
        debug_assert!(
            end >= self.board.snd_nxt(),
            "data already sent stays written"
        );
        self.data_end = end.min(self.config.size.unwrap_or(u64::MAX));
    }

    /// Apply RFC 5681 §4.1 when the application resumes after an idle period (Linux's
    /// `net.ipv4.tcp_slow_start_after_idle`, on by default); `initial_window` is the IW that
    /// the restart window RW = min(IW, cwnd) is taken from.
    pub fn enable_idle_restart(&mut self, initial_window: u64) {
        self.restart_window = Some(initial_window);
    }

    /// Slow start from the restart window back to the controller's cwnd: the cap grows by
    /// the bytes an ACK delivered and goes away once it reaches cwnd.
    #[cold]
    #[inline(never)]
    fn regrow_after_restart(&mut self, bytes_delivered: u64) {
        let grown = self.restart_cap.saturating_add(bytes_delivered);
        self.restart_cap = if grown < self.cc.cwnd() {
            grown
        } else {
            u64::MAX
        };
    }

    /// The application wrote more (after [`Sender::set_app_limit`]): send what the window
    /// allows. RFC 5681 §4.1: "if the TCP has not sent data in an interval exceeding the
    /// retransmission timeout", cwnd is at most RW = min(IW, cwnd) before transmission
    /// begins; Linux's `tcp_cwnd_restart` checks the same (nothing outstanding, last send
    /// more than an RTO ago). The controller is not told: the sender caps the window at RW
    /// and lets the cap grow as slow start does until it reaches the controller's cwnd (so
    /// a window below ssthresh regrows exactly as RFC 5681 §3.1's slow start would).
    pub fn on_app_write(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(initial_window) = self.restart_window
            && self.board.outstanding() == 0
            && self.stats.packets_sent > 0
            && now.saturating_since(self.last_send) > self.rtt.rto()
        {
            let restart = initial_window.min(self.window());
            if restart < self.cc.cwnd() {
                self.restart_cap = restart;
                self.record(now, FlowEventKind::IdleRestart, "", "", "");
            }
        }
        self.transmit(now, out);
    }

    /// Move the flow events recorded since the last call to `into`.
    pub fn take_events(&mut self, into: &mut Vec<FlowEvent>) {
        into.append(&mut self.events);
    }

    /// Whether flow events wait to be collected.
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// Record a mode change made by the controller call just done. On the hot path this is
    /// one label comparison (labels are `&'static str`: same address and length, same label).
    #[inline]
    fn check_mode(&mut self, now: SimTime, cause: ModeCause) {
        let mode = self.cc.mode();
        if !std::ptr::eq(mode, self.mode) {
            self.mode_changed(now, mode, cause);
        }
    }

    #[cold]
    #[inline(never)]
    fn mode_changed(&mut self, now: SimTime, mode: &'static str, cause: ModeCause) {
        let from = std::mem::replace(&mut self.mode, mode);
        if from == mode {
            return; // the same label from another string literal
        }
        self.record(now, FlowEventKind::Mode, from, mode, cause.name());
        if !is_slow_start_mode(from) || is_slow_start_mode(mode) || cause == ModeCause::Start {
            return;
        }
        let exit = match cause {
            ModeCause::Loss => Some(SlowStartExit::Loss),
            ModeCause::Ecn => Some(SlowStartExit::Ecn),
            ModeCause::Timeout => Some(SlowStartExit::Timeout),
            // The controller (or its slow-start part) decided on an ACK; one that does not
            // say why left slow start by reaching ssthresh if cwnd is there.
            _ => self.cc.metrics().slow_start_exit.or_else(|| {
                (self.cc.cwnd() >= self.cc.ssthresh()).then_some(SlowStartExit::SsthreshReached)
            }),
        };
        let detail = exit.map_or("", SlowStartExit::name);
        self.record(now, FlowEventKind::SlowStartExit, from, mode, detail);
    }

    #[cold]
    #[inline(never)]
    fn record(
        &mut self,
        now: SimTime,
        kind: FlowEventKind,
        from: &'static str,
        to: &'static str,
        detail: &'static str,
    ) {
        let ssthresh = self.cc.ssthresh();
        self.events.push(FlowEvent {
            time: now,
            flow: self.config.flow,
            kind,
            from,
            to,
            detail,
            cwnd_bytes: self.cc.cwnd(),
            ssthresh_bytes: (ssthresh != UNLIMITED).then_some(ssthresh),
        });
    }

    /// An ACK arrived.
    pub fn on_ack(&mut self, now: SimTime, ack: &Packet, out: &mut Vec<Packet>) {
        debug_assert_eq!(ack.kind, PacketKind::Ack);
        let cumulative = ack.seq;
        if cumulative > self.board.snd_nxt() {
            return; // acknowledges data never sent: ignore (RFC 793)
        }
        let prior_in_flight = self.pipe();
        let prior_una = self.board.snd_una();

        // Scoreboard: cumulative ACK, then SACK blocks. Each newly delivered segment feeds the
        // RTT sample (newest never-retransmitted one, Karn) and the delivery-rate sample.
        let mut bytes_delivered = 0u64;
        let mut newest_clean_send: Option<SimTime> = None;
        let mut rate_state = AckRateState::default();
        let sack_enabled = self.sack_enabled();
        let rate = &mut self.rate;
        let mut on_delivered = |segment: &crate::tcp::scoreboard::Segment| {
            bytes_delivered += segment.len as u64;
            if !segment.ever_retransmitted() {
                newest_clean_send =
                    Some(newest_clean_send.map_or(segment.sent_time, |t| t.max(segment.sent_time)));
            }
            rate.on_delivered(
                &mut rate_state,
                now,
                segment.len as u64,
                segment.sent_time,
                segment.send_state,
            );
        };
        if cumulative > prior_una {
            self.board.acknowledge(cumulative, &mut on_delivered);
        }
        if sack_enabled {
            for block in ack.sack_blocks() {
                self.board.sack(block.start, block.end, &mut on_delivered);
            }
        }
        let advanced = self.board.snd_una() > prior_una;
        if let Some(sent) = newest_clean_send {
            let sample = now - sent;
            self.rtt.on_sample(sample);
            self.stats.rtt_sum_ns += sample.as_nanos() as u128;
            self.stats.rtt_samples += 1;
            self.stats.rtt_histogram.record(sample.as_nanos());
        }
        let rate_sample = self.rate.sample(rate_state, now, self.rtt.min_rtt());

        // RFC 5681 §2: a duplicate ACK acknowledges nothing new while data is outstanding
        // (only counted without SACK; with SACK the scoreboard detects loss).
        if advanced {
            self.dup_acks = 0;
        } else if self.board.outstanding() > 0 {
            self.dup_acks += 1;
        }

        let (mut newly_lost, mut retransmission_lost_in_episode) = (0, false);
        if self.sack_enabled() && self.board.sacked_bytes() > 0 {
            let (lost_retransmissions, episode) = self.board.mark_lost_retransmissions(DUP_THRESH);
            newly_lost = self.board.mark_losses(DUP_THRESH) + lost_retransmissions;
            retransmission_lost_in_episode = episode == Some(self.episode);
        }

        let was_reducing = self.is_reducing();
        let later_partial_ack = self.update_loss_state(now, advanced, prior_in_flight);
        // RFC 5681 §4.3: "the loss of a retransmission [...] MUST [lower] cwnd (and ssthresh)"
        // again. A retransmission of the current episode was lost: start a new one.
        if retransmission_lost_in_episode && self.state != LossState::Open {
            self.enter_recovery(now, prior_in_flight, true);
        }
        // ECN (RFC 3168 §6.1.2): CE marks reduce the window like a loss, at most once per
        // window of data, unless the controller responds to ECN itself.
        let ce_bytes = ack.ce_bytes.saturating_sub(self.ce_bytes_echoed);
        self.ce_bytes_echoed = self.ce_bytes_echoed.max(ack.ce_bytes);
        self.stats.ce_bytes += ce_bytes;
        self.ce_bytes_unreported += ce_bytes;
        if ack.xcp.is_present() {
            // Duplicate ACKs echo feedback too; it reaches the controller with the next
            // ACK that acknowledges new data, as the CE count does.
            *self.xcp_feedback_unreported.get_or_insert(0.0) += ack.xcp.feedback_bytes as f64;
        }
        if ack.vcp.is_some() {
            self.vcp_unreported = self.vcp_unreported.max(ack.vcp);
        }
        if ce_bytes > 0 && self.state == LossState::Open && !self.cc.responds_to_ecn() {
            self.enter_cwr(now, prior_in_flight);
        }

        if bytes_delivered > 0 {
            // The ACK that ends a reduction does not grow the window either: it acknowledges
            // data delivered during it, which was already accounted for.
            let in_recovery = was_reducing || self.is_reducing();
            let cwnd_limited = if self.cc.cwnd() < self.cc.ssthresh() {
                // Linux tcp_is_cwnd_limited: in slow start, grow while cwnd < 2 × the largest
                // flight of the last window.
                self.cc.cwnd() < 2 * self.max_pipe_in_window
            } else {
                self.cwnd_limited
            };
            // Regrowing after an idle restart: the controller's own window was not in
            // force, so it must not grow; the cap grows instead (RFC 5681 §3.1 slow start).
            let cwnd_limited = if self.restart_cap == u64::MAX {
                cwnd_limited
            } else {
                self.regrow_after_restart(bytes_delivered);
                false
            };
            self.cc.on_ack(&Ack {
                now,
                bytes_acked: bytes_delivered,
                rtt: newest_clean_send.map(|sent| now - sent),
                min_rtt: self.rtt.min_rtt(),
                srtt: self.rtt.srtt(),
                prior_in_flight,
                bytes_in_flight: self.pipe(),
                delivered: self.rate.delivered(),
                newly_lost,
                snd_una: self.board.snd_una(),
                snd_nxt: self.board.snd_nxt(),
                // Including marks echoed by earlier duplicate ACKs (a CE-marked segment
                // that arrived out of order without SACK, or a duplicate), which reached no
                // controller: every echoed byte is reported once.
                ecn_ce_bytes: std::mem::take(&mut self.ce_bytes_unreported),
                xcp_feedback: self.xcp_feedback_unreported.take(),
                vcp_load: self.vcp_unreported.take(),
                rate_sample,
                in_recovery,
                cwnd_limited,
            });
            self.check_mode(now, ModeCause::Ack);
        }
        // The window during a reduction. PRR runs on the ACK that starts recovery too
        // (RFC 6937 §3); Reno inflation starts with the next duplicate (RFC 5681 §3.2 step 4).
        match self.state {
            LossState::Recovery { .. } if self.sack_enabled() => {
                self.update_prr_window(bytes_delivered, true)
            }
            LossState::Recovery { .. } if was_reducing => {
                self.update_inflated_window(advanced, self.board.snd_una() - prior_una)
            }
            LossState::Cwr { .. } => self.update_prr_window(bytes_delivered, false),
            _ => {}
        }

        // RFC 6298 §5.2–5.3: stop the timer when all is acknowledged, restart it on new data
        // acknowledged (RFC 6582 §4: NewReno restarts it on the first partial ACK only).
        if self.board.outstanding() == 0 {
            self.rto_deadline = None;
        } else if advanced && !later_partial_ack {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.transmit(now, out);
    }

    /// Enter, continue or leave fast recovery / timeout recovery after an ACK. Returns true
    /// for a NewReno partial ACK other than the first of the episode.
    fn update_loss_state(&mut self, now: SimTime, advanced: bool, prior_in_flight: u64) -> bool {
        let una = self.board.snd_una();
        let mut later_partial_ack = false;
        // An ECN reduction ends once the cumulative ACK passes its point (Linux
        // tcp_fastretrans_alert: CWR is held until snd_una is beyond high_seq). An ACK up to
        // exactly the point acknowledges only the window already reduced for, so the CE marks
        // it reports must not start a second reduction (RFC 3168 §6.1.2: at most once per
        // window of data).
        if let LossState::Cwr { point } = self.state
            && una > point
        {
            self.exit_recovery(now);
        }
        match self.state {
            LossState::Open | LossState::Cwr { .. } => {
                let loss_detected = match self.config.recovery {
                    Recovery::Sack => self.board.first_is_lost(),
                    // RFC 6582 §3.2 step 1: three duplicates, and the ACK covers more than
                    // `recover` (so one window of losses reduces cwnd once).
                    Recovery::NewReno => {
                        self.dup_acks as u64 == DUP_THRESH && self.recover.is_none_or(|r| una > r)
                    }
                    Recovery::Reno => self.dup_acks as u64 == DUP_THRESH,
                };
                if loss_detected {
                    // A loss during an ECN reduction does not reduce the window again: one
                    // reduction per window of data (RFC 3168 §6.1.2; Linux keeps ssthresh
                    // when Recovery follows CWR).
                    let reduce = self.state == LossState::Open;
                    self.enter_recovery(now, prior_in_flight, reduce);
                }
            }
            LossState::Recovery { point } => {
                if una >= point {
                    self.exit_recovery(now);
                } else if advanced {
                    match self.config.recovery {
                        // RFC 5681 §3.2 step 6: the first new ACK ends recovery.
                        Recovery::Reno => self.exit_recovery(now),
                        // RFC 6582 §3.2 step 5: a partial ACK retransmits the next hole.
                        Recovery::NewReno => {
                            self.board.mark_first_lost();
                            self.retransmit_now = true;
                            later_partial_ack = self.partial_ack_seen;
                            self.partial_ack_seen = true;
                        }
                        Recovery::Sack => {}
                    }
                }
            }
            LossState::Loss { point } => {
                if una >= point {
                    self.state = LossState::Open;
                    self.record(now, FlowEventKind::TimeoutRecoveryEnd, "", "", "");
                }
            }
        }
        later_partial_ack
    }

    /// Start a fast-recovery episode. `flight` is the RFC 6675 pipe before the ACK that
    /// detected the loss: at the first loss of a window it is RFC 5681's FlightSize less the
    /// few segments already SACKed, and unlike FlightSize it stays meaningful when a lost
    /// retransmission starts a new episode inside recovery (FlightSize then counts all the
    /// data SACKed above the holes).
    fn enter_recovery(&mut self, now: SimTime, flight: u64, reduce: bool) {
        let detail = match (self.state, self.config.recovery) {
            (LossState::Recovery { .. } | LossState::Loss { .. }, _) => "retransmission_lost",
            (_, Recovery::Reno) => "reno",
            (_, Recovery::NewReno) => "newreno",
            (_, Recovery::Sack) => "sack",
        };
        self.episode += 1;
        let point = self.board.snd_nxt();
        self.state = LossState::Recovery { point };
        self.recover = Some(point);
        self.partial_ack_seen = false;
        self.stats.fast_recoveries += 1;
        if reduce {
            self.congestion_event(now, flight);
        }
        self.record(now, FlowEventKind::RecoveryStart, "", "", detail);
        self.check_mode(now, ModeCause::Loss);
        self.prr = Prr {
            delivered: 0,
            out: 0,
            // RFC 6937 §3 RecoverFS, the flight at the start of recovery (pipe, see above).
            recover_fs: flight.max(1),
        };
        if self.sack_enabled() {
            self.recovery_cwnd = self.board.pipe() + self.config.mss;
        } else {
            // RFC 5681 §3.2 steps 2–3: retransmit the lost segment, cwnd = ssthresh + 3·SMSS.
            self.board.mark_first_lost();
            self.retransmit_now = true;
            self.recovery_cwnd = self
                .cc
                .ssthresh()
                .saturating_add(DUP_THRESH * self.config.mss);
        }
    }

    /// Start an ECN window reduction (RFC 3168 §6.1.2): ssthresh and cwnd as for a loss, the
    /// window brought down by PRR as Linux's `tcp_enter_cwr` does, nothing retransmitted; it
    /// lasts until the data outstanding now is acknowledged.
    fn enter_cwr(&mut self, now: SimTime, flight: u64) {
        self.state = LossState::Cwr {
            point: self.board.snd_nxt(),
        };
        self.stats.ecn_reductions += 1;
        self.congestion_event(now, flight);
        self.record(now, FlowEventKind::EcnReductionStart, "", "", "");
        self.check_mode(now, ModeCause::Ecn);
        self.prr = Prr {
            delivered: 0,
            out: 0,
            recover_fs: flight.max(1),
        };
        self.recovery_cwnd = self.pipe();
    }

    fn congestion_event(&mut self, now: SimTime, flight: u64) {
        // The controller reduces its own window now: it is in force again.
        self.restart_cap = u64::MAX;
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            bytes_in_flight: flight,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
        });
    }

    /// In fast recovery or an ECN reduction: the window is coming down; it does not grow.
    fn is_reducing(&self) -> bool {
        matches!(
            self.state,
            LossState::Recovery { .. } | LossState::Cwr { .. }
        )
    }

    fn exit_recovery(&mut self, now: SimTime) {
        let kind = match self.state {
            LossState::Cwr { .. } => FlowEventKind::EcnReductionEnd,
            _ => FlowEventKind::RecoveryEnd,
        };
        self.state = LossState::Open;
        self.retransmit_now = false;
        self.cc.on_recovery_exit(now);
        self.record(now, kind, "", "", "");
        self.check_mode(now, ModeCause::RecoveryEnd);
    }

    /// RFC 6937 §3: proportional rate reduction with the slow-start reduction bound
    /// (PRR-SSRB), the sender's window during SACK recovery and during an ECN window
    /// reduction. `fast_retransmit`: the first retransmission always leaves, as in Linux.
    fn update_prr_window(&mut self, delivered: u64, fast_retransmit: bool) {
        let mss = self.config.mss;
        if delivered == 0 {
            return;
        }
        self.prr.delivered += delivered;
        let pipe = self.pipe();
        let ssthresh = self.cc.ssthresh();
        let mut sndcnt = if pipe > ssthresh {
            let target = (self.prr.delivered as u128 * ssthresh as u128)
                .div_ceil(self.prr.recover_fs as u128) as u64;
            // Rounded up to whole segments, as Linux counts PRR in packets; in bytes a
            // half-segment allowance would never be sendable on its own.
            target.saturating_sub(self.prr.out).div_ceil(mss) * mss
        } else {
            let limit = (self.prr.delivered.saturating_sub(self.prr.out)).max(delivered) + mss;
            (ssthresh - pipe).min(limit)
        };
        if fast_retransmit && self.prr.out == 0 {
            sndcnt = sndcnt.max(mss);
        }
        self.recovery_cwnd = pipe + sndcnt;
    }

    /// RFC 5681 §3.2 / RFC 6582 §3.2: Reno window inflation and NewReno partial deflation,
    /// the sender's window during fast recovery without SACK.
    fn update_inflated_window(&mut self, advanced: bool, newly_acked: u64) {
        let mss = self.config.mss;
        if advanced {
            // RFC 6582 §3.2 step 5: deflate by the amount acknowledged, add back one SMSS if
            // at least one SMSS was acknowledged.
            self.recovery_cwnd = self.recovery_cwnd.saturating_sub(newly_acked);
            if newly_acked >= mss {
                self.recovery_cwnd = self.recovery_cwnd.saturating_add(mss);
            }
            self.recovery_cwnd = self.recovery_cwnd.max(mss);
        } else {
            // RFC 5681 §3.2 step 4: inflate by one SMSS per duplicate ACK. Saturating: a
            // controller without a threshold (BBR) starts from an unlimited ssthresh.
            self.recovery_cwnd = self.recovery_cwnd.saturating_add(mss);
        }
    }

    /// The retransmission timer expired (RFC 6298 §5.4–5.7).
    pub fn on_retransmission_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.board.outstanding() == 0 {
            self.rto_deadline = None;
            return;
        }
        self.stats.timeouts += 1;
        self.restart_cap = u64::MAX;
        // RFC 6675 pipe rather than FlightSize: after long SACK recoveries FlightSize also
        // counts SACKed data that has left the network.
        let flight = self.board.pipe();
        let una = self.board.snd_una();
        let event = TimeoutEvent {
            now,
            bytes_in_flight: flight,
        };
        let new_congestion_event = self.timeout_is_new_congestion_event(una);
        if new_congestion_event {
            self.cc.on_timeout_congestion_event(&event);
        }
        self.una_at_last_timeout = Some(una);
        self.episode += 1;
        self.retransmit_now = false;
        self.cc.on_retransmission_timeout(&event);
        let detail = if new_congestion_event {
            ""
        } else {
            "ssthresh_held"
        };
        self.record(now, FlowEventKind::Timeout, "", "", detail);
        self.check_mode(now, ModeCause::Timeout);
        self.board.on_timeout();
        let point = self.board.snd_nxt();
        self.state = LossState::Loss { point };
        self.recover = Some(point);
        self.dup_acks = 0;
        self.rtt.back_off();
        self.next_send_time = now;
        self.rto_deadline = Some(now + self.rtt.rto());
        self.transmit(now, out);
    }

    /// Whether a timeout now starts a new congestion event, so that ssthresh is lowered
    /// (Linux `tcp_enter_loss`, which calls the module's `ssthresh()` only when the state is
    /// at most Disorder, or `high_seq <= snd_una`, or Loss with no retransmission since the
    /// last forward progress). Otherwise the window was already reduced for this loss: the
    /// timeout interrupts a fast recovery or an ECN reduction (Linux CWR) before its recovery
    /// point, or repeats a timeout with no new data acknowledged since. RFC 5681 §3.1 lowers
    /// ssthresh only when the segment "has not yet been resent by way of the retransmission
    /// timer"; otherwise "the value of ssthresh is held constant".
    fn timeout_is_new_congestion_event(&self, una: u64) -> bool {
        match self.state {
            LossState::Open => true,
            LossState::Recovery { point } | LossState::Cwr { point } => una >= point,
            // Linux resets icsk_retransmits when snd_una advances.
            LossState::Loss { point } => una >= point || self.una_at_last_timeout != Some(una),
        }
    }

    /// The send timer (pacing or TCP Small Queues) expired: send what is due.
    pub fn on_send_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.send_deadline = None;
        self.transmit(now, out);
    }

    /// Send as much as the window, the receive window, pacing, TCP Small Queues and the
    /// application allow.
    fn transmit(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let packets_before = self.stats.packets_sent;
        let mut blocked_by_window = false;
        loop {
            let retransmission = self.board.next_retransmission();
            let (seq, len) = match retransmission {
                Some(hole) => hole,
                None => {
                    let seq = self.board.snd_nxt();
                    if seq >= self.data_end {
                        // Nothing to send although the window may allow it (draft-cheng §3.4).
                        if self.pipe() < self.window() {
                            self.rate.mark_app_limited(self.pipe());
                        }
                        break;
                    }
                    let len = self.config.mss.min(self.data_end - seq);
                    let rwnd = self.config.receive_window.unwrap_or(u64::MAX);
                    if seq + len - self.board.snd_una() > rwnd {
                        break; // receive-window limited
                    }
                    (seq, len as u32)
                }
            };
            let pipe = self.pipe();
            let forced = retransmission.is_some() && self.retransmit_now;
            if !forced && pipe + len as u64 > self.window() {
                blocked_by_window = true;
                break;
            }
            if let Some(release) = self.small_queues_hold(now, retransmission.is_some()) {
                self.send_deadline = Some(release);
                break;
            }
            if let Some(rate) = self.pacing_rate() {
                if now < self.next_send_time && !forced {
                    self.send_deadline = Some(self.next_send_time);
                    break;
                }
                // Pace payload bytes: the next send may leave len·8/rate seconds later.
                let gap = len as u128 * 8 * 1_000_000_000 / rate as u128;
                self.next_send_time = self.next_send_time.max(now)
                    + SimDuration::from_nanos(gap.min(u64::MAX as u128) as u64);
            }
            if forced {
                self.retransmit_now = false;
            }
            self.send_segment(now, seq, len, retransmission.is_some(), pipe, out);
        }
        // As Linux's tcp_write_xmit: a full window counts as cwnd-limited even when pacing,
        // not the window, stopped this attempt.
        let window_full = self.pipe() + self.config.mss > self.window();
        self.validate_cwnd(blocked_by_window || window_full);
        // `on_packet_sent` may change the mode (BBR ends ProbeRTT after an idle period).
        if self.stats.packets_sent != packets_before {
            self.check_mode(now, ModeCause::Send);
        }
    }

    /// TCP Small Queues: `Some(when)` if the next packet must wait for the NIC to drain.
    /// Linux sends anyway when at most one segment is unacknowledged, and checks
    /// retransmissions too, against twice the limit (`tcp_xmit_retransmit_queue`).
    fn small_queues_hold(&self, now: SimTime, retransmission: bool) -> Option<SimTime> {
        let host = self.small_queues.as_ref()?;
        if self.board.snd_nxt() - self.board.snd_una() <= self.config.mss {
            return None;
        }
        // The limit is at least two packets: below that, no need to work it out.
        host.blocked_until(now, host.two_packets())?;
        let rate = self.cc.pacing_rate().or_else(|| self.default_pacing_rate());
        let limit = host.limit(rate) << u32::from(retransmission);
        host.blocked_until(now, host.time_to_send(limit))
    }

    fn send_segment(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u32,
        retransmission: bool,
        pipe: u64,
        out: &mut Vec<Packet>,
    ) {
        let send_state = self.rate.on_send(now, pipe);
        if retransmission {
            self.board.on_retransmit(seq, now, send_state, self.episode);
            self.stats.retransmissions += 1;
        } else {
            self.board.push(len, now, send_state);
        }
        if self.is_reducing() {
            self.prr.out += len as u64;
        }
        let wire_bytes = len + self.config.header_bytes as u32;
        if let Some(host) = &mut self.small_queues {
            host.on_send(now, wire_bytes as u64);
        }
        self.stats.packets_sent += 1;
        self.last_send = now;
        self.stats.payload_bytes_sent += len as u64;
        self.stats.wire_bytes_sent += wire_bytes as u64;
        // RFC 6298 §5.1: start the timer if it is not running.
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        self.cc.on_packet_sent(now, len as u64, self.pipe());
        out.push(Packet {
            flow: self.config.flow,
            hop: 0,
            kind: PacketKind::Data,
            retransmission,
            sack_count: 0,
            wire_bytes,
            payload: len,
            seq,
            sack: [SackBlock::default(); MAX_SACK_BLOCKS],
            ecn: match self.config.ecn {
                EcnMode::Off => Ecn::NotEct,
                EcnMode::Classic => Ecn::Ect,
                EcnMode::L4s => Ecn::Ect1,
            },
            ce_bytes: 0,
            xcp: if self.speaks_xcp {
                self.xcp_header()
            } else {
                XcpHeader::default()
            },
            // VCP (§3): the sender marks the segment capable; routers raise the code.
            vcp: self.speaks_vcp.then_some(LoadFactor::Unmeasured),
        });
    }

    /// XCP's congestion header for a data segment sent now (§3.1: H_cwnd, H_rtt and the
    /// feedback asked for), if the controller speaks XCP.
    #[cold]
    #[inline(never)]
    fn xcp_header(&self) -> XcpHeader {
        let Some(request) = self.cc.xcp_request() else {
            return XcpHeader::default();
        };
        XcpHeader {
            cwnd_bytes: self.cc.cwnd().clamp(1, u32::MAX as u64) as u32,
            rtt_us: self.rtt.srtt().map_or(0, |srtt| {
                (srtt.as_nanos() / 1000).clamp(1, u32::MAX as u64) as u32
            }),
            feedback_bytes: request as f32,
        }
    }

    /// Track whether the window, rather than the application or the receiver, limited the
    /// last flight (the idea of RFC 7661 and Linux `tcp_cwnd_validate`).
    fn validate_cwnd(&mut self, blocked_by_window: bool) {
        let pipe = self.pipe();
        if self.board.snd_una() >= self.cwnd_usage_end
            || blocked_by_window
            || (!self.cwnd_limited && pipe > self.max_pipe_in_window)
        {
            self.cwnd_limited = blocked_by_window;
            self.max_pipe_in_window = pipe;
            self.cwnd_usage_end = self.board.snd_nxt();
        }
    }

    /// Debug check of the scoreboard counters.
    pub fn check_invariants(&self) {
        self.board.check_counters();
        let cwnd = self.cc.cwnd();
        assert!(
            cwnd >= self.config.mss,
            "flow {}: {} cwnd {cwnd} below one MSS",
            self.config.flow,
            self.cc.name()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cclab_cc::algorithms::reno::Reno;
    use cclab_cc::slow_start::standard::StandardSlowStart;
    use cclab_cc::{CcConfig, SimDuration};

    const MSS: u64 = 1000;

    fn sender(recovery: Recovery) -> Sender {
        let config = CcConfig::new(MSS);
        let cc = Reno::new(&config, Box::new(StandardSlowStart::new(&config)));
        Sender::new(
            SenderConfig {
                flow: 0,
                mss: MSS,
                header_bytes: 40,
                size: None,
                recovery,
                receive_window: None,
                min_rto: SimDuration::from_millis(200),
                pacing: false,
                ecn: EcnMode::Off,
                nic_rate_bps: None,
            },
            Box::new(cc),
        )
    }

    fn ack(cumulative: u64, sack: &[(u64, u64)]) -> Packet {
        let mut blocks = [SackBlock::default(); MAX_SACK_BLOCKS];
        for (slot, &(start, end)) in blocks.iter_mut().zip(sack) {
            *slot = SackBlock { start, end };
        }
        Packet {
            flow: 0,
            hop: 0,
            kind: PacketKind::Ack,
            retransmission: false,
            sack_count: sack.len() as u8,
            wire_bytes: 40,
            payload: 0,
            seq: cumulative,
            sack: blocks,
            ecn: Ecn::NotEct,
            ce_bytes: 0,
            xcp: XcpHeader::default(),
            vcp: None,
        }
    }

    fn at(ms: u64) -> SimTime {
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

    /// Reno that counts the timeouts the sender judged new congestion events.
    struct CountsTimeoutEvents {
        inner: Reno,
        new_events: std::sync::Arc<std::sync::atomic::AtomicU64>,
    }

    impl CongestionControl for CountsTimeoutEvents {
        fn name(&self) -> &'static str {
            "reno"
        }
        fn on_ack(&mut self, ack: &Ack) {
            self.inner.on_ack(ack);
        }
        fn on_congestion_event(&mut self, event: &CongestionEvent) {
            self.inner.on_congestion_event(event);
        }
        fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
            self.new_events
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.inner.on_timeout_congestion_event(event);
        }
        fn on_retransmission_timeout(&mut self, event: &TimeoutEvent) {
            self.inner.on_retransmission_timeout(event);
        }
        fn on_recovery_exit(&mut self, now: SimTime) {
            self.inner.on_recovery_exit(now);
        }
        fn cwnd(&self) -> u64 {
            self.inner.cwnd()
        }
        fn ssthresh(&self) -> u64 {
            self.inner.ssthresh()
        }
    }

    /// A sender over Reno starting with `initial_ssthresh` (None: unlimited), and the count of
    /// `on_timeout_congestion_event` calls.
    fn counting_sender(
        recovery: Recovery,
        initial_ssthresh: Option<u64>,
    ) -> (Sender, std::sync::Arc<std::sync::atomic::AtomicU64>) {
        let config = CcConfig {
            initial_ssthresh: initial_ssthresh.unwrap_or(cclab_cc::UNLIMITED),
            ..CcConfig::new(MSS)
        };
        let new_events = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let mut s = sender(recovery);
        s.cc = Box::new(CountsTimeoutEvents {
            inner: Reno::new(&config, Box::new(StandardSlowStart::new(&config))),
            new_events: new_events.clone(),
        });
        (s, new_events)
    }

    fn count(counter: &std::sync::atomic::AtomicU64) -> u64 {
        counter.load(std::sync::atomic::Ordering::Relaxed)
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

    #[test]
    fn prr_slow_start_reduction_bound_caps_the_catch_up() {
        // RFC 6937 §3: when pipe has fallen to or below ssthresh, PRR-SSRB sends
        // sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData) + MSS):
        // it catches up at most one segment faster than the ACK clock, never in one burst.
        let (mut s, _) = counting_sender(Recovery::Sack, Some(10 * MSS));
        let mut out = Vec::new();
        s.start(at(0), &mut out);
        // Segments 0..=6 are lost; 7, 8, 9 arrive. The first two SACKs each let one new
        // segment (10, 11) replace the one that left.
        s.on_ack(at(50), &ack(0, &[(7 * MSS, 8 * MSS)]), &mut out);
        s.on_ack(at(51), &ack(0, &[(7 * MSS, 9 * MSS)]), &mut out);
        out.clear();
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
}
