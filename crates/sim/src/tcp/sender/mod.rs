//! The TCP sender: what to send and when, loss detection and recovery, RTT and delivery-rate
//! measurement. The congestion controller only decides the window (and pacing rate).
//!
//! Loss recovery, per flow:
//! - `sack`: RFC 6675 (SACK scoreboard, IsLost, NextSeg rule 1 then new data) with RFC 6937
//!   proportional rate reduction (PRR-SSRB) setting the window during recovery;
//! - `newreno`: RFC 6582 (partial ACKs retransmit the next hole; recovery lasts until the
//!   recovery point), with RFC 5681 window inflation;
//! - `reno`: RFC 5681 §3.2 (the first new ACK ends recovery);
//! - `tahoe`: the third duplicate ACK retransmits and slow-starts from one segment, going
//!   back N as a timeout does (`tahoe.rs`, ns-2's `TcpAgent`);
//! - `fack`: Mathis & Mahdavi's forward acknowledgment — loss by the forward-most SACK,
//!   `awnd` as the data in flight, the window halved at once (`fack.rs`).
//!
//! Limited transmit (RFC 3042), per flow, lets the first two duplicate ACKs send new data
//! (`limited_transmit.rs`).
//!
//! A retransmission timeout (RFC 6298) presumes all outstanding data lost and resends it from
//! `snd_una` under the controller's loss window, as Linux's `tcp_enter_loss` does.
//!
//! Loss detection, per flow: RFC 6675's duplicate-ACK rule (`dupack`), or RFC 8985 RACK-TLP
//! (`rack-tlp`, with SACK only): time-based marking (`rack.rs`) with its reordering timer and
//! the tail loss probe (`tlp.rs`). Either starts the same recovery (PRR) and raises the same
//! controller events.

mod ack;
mod connection;
mod fack;
mod frto;
#[cfg(test)]
mod hook_counts;
mod limited_transmit;
mod mode;
mod rack_tlp;
mod recovery;
mod send_buffer;
mod sharing;
mod tahoe;
#[cfg(test)]
mod tests;
mod timeout;
mod transmit;
mod undo;
#[cfg(test)]
mod variants_tests;

use cclab_cc::{CongestionControl, SendsObserved, SimDuration, SimTime};
use cclab_scenario::{
    EcnMode, LossDetection, LostRetransmission, PrrBound, Recovery, ReduceFrom, RtoEstimator,
};

use crate::histogram::Histogram;
use crate::packet::{LoadFactor, Packet};
use crate::tcp::delivery_rate::DeliveryRate;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::small_queues::SmallQueues;
use crate::trace::{FlowEvent, FlowEventKind};

use limited_transmit::LimitedTransmit;
use mode::ModeCause;
use rack_tlp::RackTlp;
pub use recovery::LossState;
use recovery::Prr;
use undo::Undo;

/// RFC 5681 §3.2 / RFC 6675 DupThresh.
pub(super) const DUP_THRESH: u64 = 3;

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub flow: u32,
    pub mss: u64,
    pub header_bytes: u64,
    /// Application bytes to send; `None` = unlimited.
    pub size: Option<u64>,
    pub recovery: Recovery,
    /// `rack-tlp` needs `recovery = Sack` (the scenario parser refuses other pairs).
    pub loss_detection: LossDetection,
    /// RFC 3042 limited transmit (non-SACK recoveries; SACK's pipe rule already does it).
    pub limited_transmit: bool,
    /// What a fast recovery does when one of its retransmissions is lost (`ack.rs`).
    pub lost_retransmission: LostRetransmission,
    /// What a reduction starts from: the flight (the RFCs) or the window (Linux).
    pub reduce_from: ReduceFrom,
    /// When PRR's slow-start reduction bound adds its extra segment (`recovery.rs`).
    pub prr_bound: PrrBound,
    pub receive_window: Option<u64>,
    /// The socket's send buffer (`send_buffer.rs`): fixed or auto-tuned, counted in payload
    /// or in Linux's `truesize`; `None`: unlimited.
    pub send_buffer: Option<cclab_scenario::SendBuffer>,
    pub min_rto: SimDuration,
    /// RFC 6298's RTO or Linux's (`tcp/rtt.rs`).
    pub rto_estimator: RtoEstimator,
    /// Pace at Linux's default rate when the controller sets none.
    pub pacing: bool,
    /// Send ECN-capable data: ECT(0), or ECT(1) for L4S (RFC 9331 §4).
    pub ecn: EcnMode,
    /// Rate of the sender's own access link in bit/s: with it the sender keeps TCP Small
    /// Queues' limit on what waits there (`small_queues.rs`); `None` hands every packet over
    /// at once (unit tests).
    pub nic_rate_bps: Option<u64>,
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
    /// Tail loss probes sent (RFC 8985 §7.3).
    pub loss_probes: u64,
    /// Window reductions undone as spurious (`undo.rs`).
    pub undos: u64,
    /// Payload bytes the receiver reported CE-marked, and the window reductions they caused.
    pub ce_bytes: u64,
    pub ecn_reductions: u64,
    /// Every RTT sample (ns), for the mean (its sum over its count) and percentiles.
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
    /// The `on_packet_sent` calls the controller acts on (asked once: the call is virtual,
    /// per segment, and a no-op for most controllers and most segments; between the calls
    /// made nothing changes the controller while a burst leaves, so `transmit` reads the
    /// window once).
    cc_observes_sends: SendsObserved,
    /// The controller may set a pacing rate (asked once, as `cc_observes_sends`).
    cc_paces: bool,
    /// Loss episodes (fast recoveries and timeouts) so far; retransmissions are tagged with it.
    episode: u32,
    /// snd_una when the last retransmission timeout fired.
    una_at_last_timeout: Option<u64>,
    /// The `Loss` state was entered by Tahoe's fast retransmit, not by a timeout.
    tahoe_episode: bool,
    /// RFC 3042: new data sent beyond cwnd in the current run of duplicate ACKs.
    limited_transmit: LimitedTransmit,
    /// Linux `tcp_cwnd_validate`: whether the window limited sending over the last flight.
    cwnd_limited: bool,
    max_pipe_in_window: u64,
    cwnd_usage_end: u64,
    next_send_time: SimTime,
    /// The woken writer's next `write()` will find the flight application-limited once TCP
    /// has sent the data up to here, what the call it slept in wrote (`send_buffer.rs`).
    app_limited_after: Option<u64>,
    rto_deadline: Option<SimTime>,
    /// When sending resumes after pacing or TCP Small Queues held it back.
    send_deadline: Option<SimTime>,
    small_queues: Option<SmallQueues>,
    rack_tlp: Option<Box<RackTlp>>,
    /// Undo of spurious reductions and F-RTO (`undo.rs`), boxed and absent unless asked for.
    undo: Option<Box<Undo>>,
    /// The end of the data the sender may send: the application's end, or less while the
    /// send buffer holds less (`send_buffer.rs`).
    data_end: u64,
    /// The send buffer's size now (Linux `sk_sndbuf`), in the units it counts: the fixed
    /// size, or the auto-tuned one (`send_buffer.rs`); 0 without a buffer.
    sndbuf: u64,
    /// The end of what the application has written: its size, or an on/off application's
    /// writes so far.
    app_end: u64,
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
    /// TCB sharing (`sharing.rs`): the group this flow is a member of; `None` for most.
    sharing: Option<Box<sharing::SenderSharing>>,
    /// A joiner's hand-over window (`sharing.rs`); `u64::MAX` otherwise.
    share_cap: u64,
    /// Flow events not yet collected by the simulator (rare; the buffer goes with them).
    events: Vec<FlowEvent>,
    /// The window the receiver last advertised (`connection.rs`); `None` while it advertised
    /// none, and the configured `receive_window` is in force.
    peer_window: Option<u64>,
    /// The window scale the receiver announced (RFC 7323 §2.2).
    peer_window_scale: u32,
    pub stats: SenderStats,
}

impl Sender {
    pub fn new(config: SenderConfig, cc: Box<dyn CongestionControl>) -> Self {
        let app_end = config.size.unwrap_or(u64::MAX);
        let mut sender = Sender {
            board: Scoreboard::new(config.mss),
            rtt: RttEstimator::new(config.min_rto, config.rto_estimator),
            rate: DeliveryRate::default(),
            state: LossState::Open,
            recovery_cwnd: 0,
            prr: Prr::default(),
            dup_acks: 0,
            recover: None,
            partial_ack_seen: false,
            una_at_last_timeout: None,
            tahoe_episode: false,
            limited_transmit: LimitedTransmit::default(),
            ce_bytes_echoed: 0,
            ce_bytes_unreported: 0,
            xcp_feedback_unreported: None,
            speaks_xcp: cc.xcp_request().is_some(),
            vcp_unreported: None,
            speaks_vcp: cc.vcp(),
            cc_observes_sends: cc.observes_sends(),
            cc_paces: cc.paces(),
            episode: 0,
            retransmit_now: false,
            cwnd_limited: false,
            max_pipe_in_window: 0,
            cwnd_usage_end: 0,
            next_send_time: SimTime::ZERO,
            app_limited_after: None,
            rto_deadline: None,
            send_deadline: None,
            small_queues: config
                .nic_rate_bps
                .map(|rate| SmallQueues::new(rate, config.mss + config.header_bytes)),
            rack_tlp: (config.loss_detection == LossDetection::RackTlp).then(|| {
                debug_assert_eq!(config.recovery, Recovery::Sack, "RACK needs SACK");
                Box::default()
            }),
            undo: None,
            data_end: app_end,
            sndbuf: 0,
            app_end,
            mode: "",
            last_send: SimTime::ZERO,
            restart_window: None,
            restart_cap: u64::MAX,
            sharing: None,
            share_cap: u64::MAX,
            events: Vec::new(),
            peer_window: None,
            // The default buffer's scale until `set_peer_window_scale` says otherwise.
            peer_window_scale: crate::tcp::receive_window::window_scale(Default::default()),
            stats: SenderStats::default(),
            config,
            cc,
        };
        // The buffer is sized when the connection is established (`tcp_init_buffer_space`),
        // and the writer fills it before the first segment leaves.
        sender.sndbuf = sender.initial_sndbuf();
        sender.data_end = sender.buffered_data_end(0);
        sender
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
        self.board.snd_una() >= self.app_end
    }

    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto_deadline
    }

    pub fn send_deadline(&self) -> Option<SimTime> {
        self.send_deadline
    }

    /// The sender's one timer, as the simulator arms it: the RTO, or with RACK-TLP the
    /// earliest of the RTO, RACK's reordering timer and the probe timer (Linux keeps them in
    /// one timer too, `icsk_retransmit_timer` with `icsk_pending` saying which).
    #[inline]
    pub fn timer_deadline(&self) -> Option<SimTime> {
        if self.rack_tlp.is_none() {
            return self.rto_deadline;
        }
        match (self.rto_deadline, self.loss_detection_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The timer of [`Sender::timer_deadline`] expired.
    #[inline]
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.rack_tlp.is_none() {
            return self.on_retransmission_timeout(now, out);
        }
        self.on_rack_tlp_timer(now, out);
    }

    /// The most data TCP Small Queues lets wait on the sender's own link, as transmission
    /// time (`None` without the model).
    pub fn worst_host_backlog(&self) -> Option<SimDuration> {
        self.small_queues.as_ref().map(SmallQueues::worst_backlog)
    }

    /// The scoreboard takes SACK blocks (`sack` and `fack`).
    fn sack_enabled(&self) -> bool {
        self.config.recovery.uses_sack()
    }

    /// RFC 6675 pipe with SACK, and after a timeout or Tahoe's fast retransmit (when
    /// everything outstanding is marked lost); FACK's `awnd` with FACK; RFC 5681 FlightSize
    /// without SACK.
    /// Asked several times per ACK and per segment sent: the recovery, fixed per flow, is
    /// looked at first so that each flow takes one branch (a match on the pair had the
    /// compiler work out all three counts and select one).
    #[inline]
    fn pipe(&self) -> u64 {
        match self.config.recovery {
            Recovery::Sack => self.board.pipe(),
            _ if matches!(self.state, LossState::Loss { .. }) => self.board.pipe(),
            Recovery::Fack => self.fack_pipe(),
            _ => self.board.outstanding(),
        }
    }

    #[cold]
    #[inline(never)]
    fn fack_pipe(&self) -> u64 {
        self.board.fack_awnd()
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
        window.min(self.restart_cap).min(self.share_cap)
    }

    /// Pacing rate in bit/s of payload: the controller's, or Linux's default when pacing is
    /// on.
    pub fn pacing_rate(&self) -> Option<u64> {
        if let Some(rate) = self.controller_pacing_rate() {
            return Some(rate.max(1));
        }
        if !self.config.pacing {
            return None;
        }
        self.default_pacing_rate()
    }

    /// Whether the controller acts on the `on_packet_sent` of a segment of `len` bytes that
    /// left `pipe_after` bytes in flight (`CongestionControl::observes_sends`).
    #[inline]
    pub(super) fn tells_controller(&self, len: u32, pipe_after: u64) -> bool {
        match self.cc_observes_sends {
            SendsObserved::None => false,
            SendsObserved::FromIdle => pipe_after <= len as u64,
            SendsObserved::All => true,
        }
    }

    /// The controller's own pacing rate, asked only of a controller that paces.
    #[inline]
    pub(super) fn controller_pacing_rate(&self) -> Option<u64> {
        if !self.cc_paces {
            debug_assert_eq!(
                self.cc.pacing_rate(),
                None,
                "{} paces but says it does not",
                self.cc.name()
            );
            return None;
        }
        self.cc.pacing_rate()
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

    /// The pacing rate Linux keeps whether or not it paces (TCP Small Queues' limit, the
    /// TSO size goal): the controller's, else [`Self::default_pacing_rate`].
    fn kept_pacing_rate(&self) -> Option<u64> {
        self.controller_pacing_rate()
            .or_else(|| self.default_pacing_rate())
    }

    /// The application starts (or the flow is created at `now`).
    pub fn start(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.next_send_time = now;
        self.mode = "";
        if self.sharing.is_some() {
            self.share_on_start(now);
        }
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
        self.app_end = end.min(self.config.size.unwrap_or(u64::MAX));
        self.data_end = self.buffered_data_end(self.data_end.min(self.app_end));
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

    /// Move the flow events recorded since the last call to `into`. The sender's buffer
    /// goes with them: events are rare (a flow's start, a mode change, a recovery), and the
    /// buffer of four (352 B) that every running flow kept after its first event was a
    /// tenth of the running flows' memory (docs/performance.md, "Memory per idle flow").
    pub fn take_events(&mut self, into: &mut Vec<FlowEvent>) {
        into.append(&mut std::mem::take(&mut self.events));
    }

    /// Give back the memory of empty buffers once the transfer is over (see
    /// `Simulation::release_finished_flows`). Capacity only: nothing the sender does changes.
    pub fn release_idle_buffers(&mut self) {
        self.board.release_idle_buffers();
    }

    /// Whether flow events wait to be collected.
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
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
