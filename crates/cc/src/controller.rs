//! The congestion-controller trait and the events that drive it.
//!
//! The split of work follows Linux (`struct tcp_congestion_ops`): the *sender* detects loss,
//! runs loss recovery (RFC 6675 + RFC 6937 PRR, or Reno/NewReno) and computes RTT and
//! delivery-rate samples; the *controller* decides cwnd, ssthresh and optionally a pacing
//! rate. Everything is in bytes; time comes in as arguments. No method allocates.

use crate::metrics::ControllerMetrics;
use crate::time::{SimDuration, SimTime};

/// `ssthresh` value meaning "no threshold yet" (RFC 5681 §3.1: "arbitrarily high").
pub const UNLIMITED: u64 = u64::MAX;

/// What a controller is built with: the connection's segment size and initial windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcConfig {
    /// Sender maximum segment size (payload bytes).
    pub mss: u64,
    /// Initial congestion window in bytes (RFC 6928 default: 10 segments).
    pub initial_cwnd: u64,
    /// Initial slow-start threshold in bytes, `UNLIMITED` for none.
    pub initial_ssthresh: u64,
    /// Replace `initial_ssthresh` by Hoe's packet-pair estimate once the first ACKs give it.
    /// Controllers with a pluggable slow start get it through the slow-start part
    /// (`slow_start::packet_pair::wrap`); those with their own start-up that accept it
    /// (Hybla) read this flag.
    pub packet_pair_ssthresh: bool,
}

impl CcConfig {
    pub fn new(mss: u64) -> Self {
        CcConfig {
            mss,
            initial_cwnd: 10 * mss,
            initial_ssthresh: UNLIMITED,
            packet_pair_ssthresh: false,
        }
    }
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation §3.3), taken from the
/// most recently sent of the segments this ACK delivered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// Bytes delivered over `interval` (`C.delivered - P.delivered`).
    pub delivered: u64,
    /// max(send_elapsed, ack_elapsed); never zero.
    pub interval: SimDuration,
    /// `C.delivered` when the sampled segment was sent; rounds are counted with it.
    pub prior_delivered: u64,
    /// The sampled segment was sent while the application had nothing more to send, so the
    /// rate may underestimate the path (draft §3.5).
    pub is_app_limited: bool,
}

impl RateSample {
    /// Delivery rate in bits per second.
    pub fn rate_bps(&self) -> f64 {
        self.delivered as f64 * 8.0 / self.interval.as_secs_f64()
    }
}

/// VCP's load factor (Xia, Subramanian, Stoica, Kalyanaraman, SIGCOMM 2005, §3): what the
/// routers on the path encode in the two ECN bits of a data segment, the most loaded router's
/// code winning, echoed by the receiver. Ordered by load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LoadFactor {
    /// The sender marked the segment VCP-capable and no VCP router has written a code.
    Unmeasured,
    /// ρ < 80 %: multiplicative increase.
    Low,
    /// 80 % ≤ ρ < 100 %: additive increase.
    High,
    /// ρ ≥ 100 %: multiplicative decrease.
    Overload,
}

/// One ACK that acknowledged new data, cumulatively or by SACK.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ack {
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK (cumulative advance plus newly SACKed bytes).
    pub bytes_acked: u64,
    /// RTT measured from this ACK (Karn: only from never-retransmitted segments; the most
    /// recently sent newly acknowledged segment is used, as Linux does for `ca_rtt_us`).
    pub rtt: Option<SimDuration>,
    /// Smallest RTT sample of the connection so far.
    pub min_rtt: Option<SimDuration>,
    /// RFC 6298 smoothed RTT after this ACK.
    pub srtt: Option<SimDuration>,
    /// Bytes in flight (RFC 6675 "pipe") before this ACK was processed.
    pub prior_in_flight: u64,
    /// Bytes in flight after this ACK was processed.
    pub bytes_in_flight: u64,
    /// Total bytes delivered to the peer so far (`C.delivered`).
    pub delivered: u64,
    /// Bytes this ACK caused the sender to mark lost (RFC 6675 IsLost), if any.
    pub newly_lost: u64,
    /// Cumulative acknowledgment point after this ACK (first unacknowledged byte).
    pub snd_una: u64,
    /// Next new byte the sender will send; an ACK with `snd_una` past the `snd_nxt` recorded
    /// at some earlier time ends the round trip that started then (Linux Vegas, HyStart).
    pub snd_nxt: u64,
    /// Payload bytes the receiver reports as having arrived CE-marked since the previous
    /// `Ack` (an accurate-ECN byte counter, RFC 9768 style; marks echoed by duplicate ACKs,
    /// which produce no `Ack`, come with the next one); always 0 for flows without ECN.
    pub ecn_ce_bytes: u64,
    /// XCP (Katabi et al. 2002 §3.2): the window change the routers granted, the sum of the
    /// H_feedback echoed since the previous `Ack` (bytes, may be negative); `None` when the
    /// flow sends no XCP header or no echo came back.
    pub xcp_feedback: Option<f64>,
    /// VCP: the highest load factor echoed since the previous `Ack`; `None` when the flow does
    /// not mark its segments VCP-capable.
    pub vcp_load: Option<LoadFactor>,
    /// Delivery-rate sample, if this ACK delivered a segment with send-time state.
    pub rate_sample: Option<RateSample>,
    /// The sender is in loss recovery (fast recovery or after a timeout). Window-growth
    /// rules of loss-based controllers do not run here (Linux `tcp_may_raise_cwnd`).
    pub in_recovery: bool,
    /// The sender used its whole window recently (RFC 7661; Linux `tcp_is_cwnd_limited`).
    /// A controller must not grow cwnd when the application or the receive window, not cwnd,
    /// limited the sender.
    pub cwnd_limited: bool,
}

impl Ack {
    /// Whether a loss-based window-growth rule may run on this ACK.
    pub fn may_grow(&self) -> bool {
        !self.in_recovery && self.cwnd_limited
    }
}

/// A congestion signal that starts a window reduction: loss detected by duplicate ACKs or SACK
/// (the start of fast recovery). Raised at most once per recovery episode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CongestionEvent {
    pub now: SimTime,
    /// Bytes in flight (RFC 6675 pipe) just before the ACK that detected the loss. At the
    /// first loss of a window this is RFC 5681's FlightSize (eq. 4 halves it for ssthresh)
    /// less the few segments already SACKed; it stays meaningful when a lost retransmission
    /// starts a new episode inside recovery, where FlightSize would count SACKed data.
    pub bytes_in_flight: u64,
    /// Smoothed RTT at the time, if any sample exists.
    pub srtt: Option<SimDuration>,
    /// Smallest RTT seen so far.
    pub min_rtt: Option<SimDuration>,
}

/// A retransmission timeout fired (RFC 6298 §5.4–5.7).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeoutEvent {
    pub now: SimTime,
    /// Bytes in flight (RFC 6675 pipe, which excludes SACKed data) before the timeout
    /// marked the outstanding data lost.
    pub bytes_in_flight: u64,
}

/// The sender found a window reduction spurious (RFC 3522/4015 Eifel, RFC 3708 DSACK, RFC 5682
/// F-RTO): the reduction that began with the saved values is undone (Linux
/// `tcp_undo_cwnd_reduction`, which calls the module's `undo_cwnd`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UndoEvent {
    pub now: SimTime,
    /// cwnd just before the reduction began (Linux `prior_cwnd`).
    pub prior_cwnd: u64,
    /// ssthresh to restore, Linux's `prior_ssthresh`: `tcp_current_ssthresh` when the
    /// reduction began, max(ssthresh, ¾·cwnd) from the open state.
    pub prior_ssthresh: u64,
}

impl UndoEvent {
    /// Linux `tcp_reno_undo_cwnd` and the ssthresh part of `tcp_undo_cwnd_reduction`:
    /// (max(cwnd, prior_cwnd), max(ssthresh, prior_ssthresh)); what a controller whose only
    /// loss response is its window and threshold restores.
    pub fn reno_restore(&self, cwnd: u64, ssthresh: u64) -> (u64, u64) {
        (cwnd.max(self.prior_cwnd), ssthresh.max(self.prior_ssthresh))
    }
}

/// Which [`CongestionControl::on_packet_sent`] calls a controller acts on
/// ([`CongestionControl::observes_sends`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendsObserved {
    /// None: `on_packet_sent` is not overridden (most loss-based controllers).
    None,
    /// Only a segment sent from an empty pipe (`bytes_in_flight <= bytes`): the end of an
    /// idle period (Linux's `CA_EVENT_TX_START`; CUBIC, BBR, Vegas and the others that
    /// count rounds).
    FromIdle,
    /// Every segment (Vivace's monitor intervals, test probes).
    All,
}

/// A congestion controller: a pure state machine over bytes and nanoseconds.
///
/// Call order per ACK: the sender updates its scoreboard and detects loss; if the ACK starts a
/// loss episode it calls [`on_congestion_event`] (and [`on_recovery_exit`] if it ends one);
/// then, if the ACK delivered new data, [`on_ack`] with `in_recovery` telling the state after
/// this ACK's loss detection (true on the ACK that starts recovery and on the one that ends
/// it, so neither grows the window). The sender reads [`cwnd`] and [`pacing_rate`] whenever
/// it may transmit.
///
/// Call order per retransmission timeout: if the sender judges the timeout a new congestion
/// event, [`on_timeout_congestion_event`] (set ssthresh); then, on every timeout,
/// [`on_retransmission_timeout`] (the loss window). The judgement is the sender's alone, as
/// in Linux's `tcp_enter_loss`, which calls the module's `ssthresh()` only then: a timeout
/// is *not* a new congestion event when it interrupts a fast recovery or an ECN reduction
/// whose recovery point the cumulative ACK has not reached, or repeats a timeout with no
/// forward progress since (RFC 5681 §3.1: ssthresh is held, only cwnd collapses). So a
/// controller never decides whether to keep ssthresh on a timeout.
///
/// [`on_ack`]: CongestionControl::on_ack
/// [`on_congestion_event`]: CongestionControl::on_congestion_event
/// [`on_timeout_congestion_event`]: CongestionControl::on_timeout_congestion_event
/// [`on_retransmission_timeout`]: CongestionControl::on_retransmission_timeout
/// [`on_recovery_exit`]: CongestionControl::on_recovery_exit
/// [`cwnd`]: CongestionControl::cwnd
/// [`pacing_rate`]: CongestionControl::pacing_rate
pub trait CongestionControl: Send {
    /// The registry name (`"reno"`, `"cubic"`, …).
    fn name(&self) -> &'static str;

    /// Every ACK that delivered new data, in every sender state. Loss-based growth should be
    /// gated on [`Ack::may_grow`]; measurement (RTT filters, bandwidth estimates) should not.
    fn on_ack(&mut self, ack: &Ack);

    /// Fast-retransmit loss detection: set ssthresh, and cwnd to the window to use when
    /// recovery ends (RFC 5681 §3.2 step 2). During recovery the sender paces its
    /// transmissions with PRR or Reno inflation and reads cwnd again when recovery ends.
    fn on_congestion_event(&mut self, event: &CongestionEvent);

    /// A retransmission timeout that starts a new congestion event: set ssthresh (Linux's
    /// `ssthresh()` and `CA_EVENT_LOSS` in `tcp_enter_loss`), and reset whatever a new loss
    /// resets. Called only for such a timeout, just before [`on_retransmission_timeout`];
    /// a repeated timeout within one loss episode skips it, so ssthresh is held.
    ///
    /// [`on_retransmission_timeout`]: CongestionControl::on_retransmission_timeout
    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent);

    /// Every retransmission timeout: set cwnd (usually the 1-segment loss window of RFC 5681
    /// §3.1) and restart what restarts after a timeout (Linux's `set_state(TCP_CA_Loss)`).
    /// Must not change ssthresh: that is [`on_timeout_congestion_event`]'s, and only when the
    /// sender calls it.
    ///
    /// [`on_timeout_congestion_event`]: CongestionControl::on_timeout_congestion_event
    fn on_retransmission_timeout(&mut self, event: &TimeoutEvent);

    /// Loss recovery ended (the cumulative ACK passed the recovery point, or an undo
    /// reopened the window early).
    fn on_recovery_exit(&mut self, _now: SimTime) {}

    /// A fast recovery or an ECN reduction ran to its end: Linux's `tcp_end_cwnd_reduction`,
    /// which raises `CA_EVENT_COMPLETE_CWR`. Called after [`on_recovery_exit`] when the
    /// cumulative ACK passed the recovery point (also after `tcp_try_undo_recovery`'s undo
    /// there), but not when an undo reopened the window before it: `tcp_try_undo_partial`
    /// and `tcp_try_undo_dsack` go back to Open through `tcp_try_keep_open`, which raises
    /// no event.
    ///
    /// [`on_recovery_exit`]: CongestionControl::on_recovery_exit
    fn on_reduction_complete(&mut self, _now: SimTime) {}

    /// The last window reduction was spurious: restore what it took (Linux's `undo_cwnd`;
    /// most modules use `tcp_reno_undo_cwnd`, see [`UndoEvent::reno_restore`]). Only
    /// senders with `undo` on call it. The default restores nothing, for test doubles:
    /// every registered algorithm overrides it (the registry test checks).
    fn on_undo(&mut self, _event: &UndoEvent) {}

    /// A data segment (new or retransmitted) left the sender; `bytes_in_flight` includes it,
    /// so `bytes_in_flight == bytes` means the sender was idle before. Called only when
    /// [`CongestionControl::observes_sends`] says the controller wants it.
    fn on_packet_sent(&mut self, _now: SimTime, _bytes: u64, _bytes_in_flight: u64) {}

    /// Which [`CongestionControl::on_packet_sent`] calls the controller acts on. Asked once,
    /// when the sender is built: the sender makes only those calls, and between them nothing
    /// changes the controller while a burst leaves, so it reads cwnd once per burst and does
    /// not look for a mode change after it. The registry test checks every registered
    /// controller against its behaviour with every call made.
    fn observes_sends(&self) -> SendsObserved {
        SendsObserved::None
    }

    /// Congestion window in bytes.
    fn cwnd(&self) -> u64;

    /// Slow-start threshold in bytes; [`UNLIMITED`] before the first reduction.
    fn ssthresh(&self) -> u64;

    /// Take a window assigned from outside: a coupled group's share (TCB ensemble sharing,
    /// RFC 9040 ensemble sharing; the conservative flow-state exchange of RFC 8699 Algorithm 2 carried
    /// over to windows) or a window cached from an earlier connection (RFC 9040 temporal sharing).
    /// Afterwards [`CongestionControl::cwnd`] is `cwnd` and, for a controller with a
    /// threshold, [`CongestionControl::ssthresh`] is `ssthresh` ([`UNLIMITED`]: none). The
    /// controller keeps its growth counters and models: a group assigns on every member's ACK.
    fn assign_window(&mut self, cwnd: u64, ssthresh: u64);

    /// Pacing rate in bits per second; `None` sends as fast as the window allows. Asked
    /// only when [`CongestionControl::paces`] says the controller may set one.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }

    /// Whether [`CongestionControl::pacing_rate`] can ever be `Some`. Asked once, when the
    /// sender is built, so that the sender skips a virtual call per segment for the
    /// controllers that never pace. A controller that overrides `pacing_rate` must return
    /// `true` (the registry test checks, and the sender asserts it in debug builds).
    fn paces(&self) -> bool {
        false
    }

    /// How many windows of segments Linux's send-buffer auto-tuning gives this controller's
    /// socket (`tcp_sndbuf_expand`: the module's `sndbuf_expand` hook, 2 without one, the
    /// room fast recovery needs; BBR's `bbr_sndbuf_expand` asks for 3).
    fn sndbuf_expand(&self) -> u64 {
        2
    }

    /// `true` when the controller sets cwnd itself during loss recovery (BBR's packet
    /// conservation), so the sender must not apply PRR or Reno inflation.
    fn controls_recovery_window(&self) -> bool {
        false
    }

    /// XCP: the H_feedback (bytes of window change) to ask for on each data segment, which
    /// the routers on the path may lower; `None` (the default) sends no XCP header.
    fn xcp_request(&self) -> Option<f64> {
        None
    }

    /// VCP: mark data segments VCP-capable, for the routers to write their load factor;
    /// `false` (the default) leaves the field empty.
    fn vcp(&self) -> bool {
        false
    }

    /// `true` when the controller reads [`Ack::ecn_ce_bytes`] and responds to ECN itself.
    /// Otherwise the sender applies RFC 3168's response to CE marks: a congestion event
    /// ([`CongestionControl::on_congestion_event`]) at most once per window of data.
    fn responds_to_ecn(&self) -> bool {
        false
    }

    /// What the controller's model holds now (bandwidth estimate, minimum RTT, gains, why
    /// slow start ended…), for traces and tests; the default reports nothing. Cheap and
    /// allocation-free, but not meant to be called on every ACK.
    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics::default()
    }

    /// A short label for the controller's current mode, for traces (`"startup"`, `"ca"`…).
    /// Slow start is labelled `"slow_start"` (or `"startup"`, see
    /// [`crate::metrics::is_slow_start_mode`]): the simulator reports leaving it as a
    /// slow-start exit, with the cause from [`ControllerMetrics::slow_start_exit`]. Called after
    /// every ACK, so it must be cheap.
    fn mode(&self) -> &'static str {
        if self.cwnd() < self.ssthresh() {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }
}

/// RFC 5681 eq. (4): `ssthresh = max(FlightSize / 2, 2*SMSS)`.
pub fn half_flight_ssthresh(bytes_in_flight: u64, mss: u64) -> u64 {
    (bytes_in_flight / 2).max(2 * mss)
}
