//! BBR v1 (Bottleneck Bandwidth and Round-trip propagation time).
//!
//! Sources: Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR: Congestion-Based Congestion
//! Control", ACM Queue 14(5), 2016; draft-cardwell-iccrg-bbr-congestion-control-00 (the
//! pseudocode followed here, cited as "draft §x"); Linux `net/ipv4/tcp_bbr.c` (the v1 module),
//! offered as `variant = "linux"` where it differs cheaply.
//!
//! The model: BtlBw = windowed max of delivery-rate samples over 10 packet-timed rounds
//! (app-limited samples only when they raise it), RTprop = min RTT over 10 s. The controls:
//! `pacing_rate = pacing_gain * BtlBw`, `cwnd = cwnd_gain * BtlBw * RTprop + quanta`, at least
//! 4 packets. A four-mode state machine sets the gains: STARTUP (2/ln 2) until BtlBw grows
//! < 25 % for 3 rounds, DRAIN (ln 2/2) until inflight <= BDP, PROBE_BW cycling the pacing gain
//! through [5/4, 3/4, 1, 1, 1, 1, 1, 1] one RTprop per phase, and PROBE_RTT (cwnd 4 packets
//! for max(200 ms, 1 round)) whenever RTprop has not been refreshed for 10 s. Loss is not a
//! model signal; in loss recovery cwnd follows packet conservation (draft §4.2.3.4).
//!
//! Units: windows and volumes in bytes, BtlBw in payload bytes per second (the sender's
//! delivery rates count payload), times in integer nanoseconds. The pacing rate handed to
//! the sender is in bit/s of payload.

//!
//! Layout: this file holds the parameters, the controller's state and the per-ACK order
//! (draft §3.5.2); `model` the path model (§4.1), `pacing` and `cwnd` the control
//! parameters (§4.2), `startup`, `drain`, `probe_bw` and `probe_rtt` the states (§4.3), and
//! `tests` the unit tests. Rounds, the full-pipe estimator, the ProbeRTT clock, loss
//! recovery, restart from idle and the pacing rules common with v3 are in `bbr_common`.

mod ack_aggregation;
mod cwnd;
mod drain;
mod model;
mod pacing;
mod probe_bw;
mod probe_rtt;
mod startup;
#[cfg(test)]
mod tests;

use self::ack_aggregation::AckAggregation;
use self::model::BTL_BW_FILTER_LEN;
use super::bbr_common::full_bw::FullBw;
use super::bbr_common::idle::is_restart_from_idle;
use super::bbr_common::pacing::{bits_per_second, first_srtt};
use super::bbr_common::probe_rtt::ProbeRttClock;
use super::bbr_common::recovery::Recovery;
use super::bbr_common::round::RoundCounter;
use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, UNLIMITED,
};
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::seeded_rng::SeededRng;
use crate::time::{SimDuration, SimTime};
use crate::windowed_filter::WindowedMax;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::choice("variant", "paper", &["paper", "linux"]).doc(
        "paper: draft-00 (gains 2/ln2 and ln2/2, no pacing margin); linux: tcp_bbr.c \
         (gains 739/256 and 88/256, pacing 1% below the estimate, cwnd rounded up to an even \
         packet count, +2 packets in the 5/4 phase)",
    ),
    ParamSpec::choice("quanta", "draft", &["draft", "mss"]).doc(
        "cwnd headroom for host offload: draft = 3 send quanta of draft-00 §4.2.2 (1 MSS \
         below 1.2 Mbit/s, 2 MSS below 24 Mbit/s, else 1 ms of pacing up to 64 KB); \
         mss = 3 MSS (a host without TSO/GSO)",
    ),
    ParamSpec::integer("seed", 0, 0, u32::MAX as i64).doc(
        "0: PROBE_BW always starts in the 5/4 phase; otherwise the seed of the generator \
         that picks the start phase among all but the 3/4 phase, as draft §4.3.4.2 does",
    ),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "bbr",
    aliases: &["bbr1", "bbrv1"],
    summary: "model-based: pace at the max delivery rate, cwnd 2 BDP; STARTUP/DRAIN/PROBE_BW/PROBE_RTT",
    reference: "Cardwell et al., ACM Queue 14(5) 2016; draft-cardwell-iccrg-bbr-congestion-control-00; \
                Linux net/ipv4/tcp_bbr.c",
    params: PARAMS,
    uses_slow_start: false,
    initial_ssthresh: InitialSsthreshUse::None,
    build: |config, params, _slow_start| Box::new(Bbr::new(config, params)),
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Paper,
    Linux,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quanta {
    Draft,
    Mss,
}

pub struct Bbr {
    mss: u64,
    initial_cwnd: u64,
    variant: Variant,
    quanta: Quanta,
    /// `None`: deterministic ProbeBW start phase (the 5/4 phase).
    rng: Option<SeededRng>,
    /// STARTUP gain (2/ln 2) and DRAIN gain (its inverse), per variant.
    high_gain: f64,
    drain_gain: f64,
    /// 1.0 for the paper; 0.99 for Linux (`bbr_pacing_margin_percent`).
    pacing_margin: f64,

    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// C.delivered as of the latest ACK.
    delivered: u64,

    // Network path model (draft §4.1).
    btl_bw_filter: WindowedMax<{ BTL_BW_FILTER_LEN as usize }>,
    rtprop: Option<SimDuration>,
    rtprop_stamp: SimTime,
    rtprop_expired: bool,

    // Packet-timed round trips (draft §4.1.1.3).
    round: RoundCounter,

    // Full-pipe estimator (draft §4.3.2.2).
    filled_pipe: bool,
    full_bw: FullBw,

    // ProbeBW gain cycling (draft §4.3.4).
    cycle_index: usize,
    cycle_stamp: SimTime,

    // ProbeRTT (draft §4.3.5).
    probe_rtt: ProbeRttClock,
    idle_restart: bool,

    // Control parameters (draft §4.2).
    /// Payload bytes per second.
    pacing_rate: f64,
    has_seen_rtt: bool,
    send_quantum: u64,
    cwnd: u64,

    // Loss recovery (draft §4.2.3.4).
    recovery: Recovery,

    /// Linux's ACK-aggregation allowance (`linux` variant only).
    ack_aggregation: AckAggregation,
}

impl Bbr {
    pub fn new(config: &CcConfig, params: &Params) -> Self {
        let variant = match params.choice("variant") {
            "linux" => Variant::Linux,
            _ => Variant::Paper,
        };
        let quanta = match params.choice("quanta") {
            "mss" => Quanta::Mss,
            _ => Quanta::Draft,
        };
        let seed = params.number("seed") as u64;
        let (high_gain, drain_gain, pacing_margin) = match variant {
            // draft §2 BBRHighGain = 2/ln(2); §4.3.3 Drain pacing gain = 1/BBRHighGain.
            Variant::Paper => {
                let high = 2.0 / libm::log(2.0);
                (high, 1.0 / high, 1.0)
            }
            // tcp_bbr.c: BBR_UNIT * 2885 / 1000 + 1 = 739 and BBR_UNIT * 1000 / 2885 = 88,
            // with BBR_UNIT = 256; pacing 1 % below the estimate.
            Variant::Linux => (739.0 / 256.0, 88.0 / 256.0, 0.99),
        };
        let mut bbr = Bbr {
            mss: config.mss,
            initial_cwnd: config.initial_cwnd,
            variant,
            quanta,
            rng: (seed != 0).then(|| SeededRng::new(seed)),
            high_gain,
            drain_gain,
            pacing_margin,
            mode: Mode::Startup,
            pacing_gain: high_gain,
            cwnd_gain: high_gain,
            delivered: 0,
            btl_bw_filter: WindowedMax::new(),
            rtprop: None,
            rtprop_stamp: SimTime::ZERO,
            rtprop_expired: false,
            round: RoundCounter::default(),
            filled_pipe: false,
            full_bw: FullBw::default(),
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt: ProbeRttClock::default(),
            idle_restart: false,
            pacing_rate: 0.0,
            has_seen_rtt: false,
            send_quantum: config.mss,
            cwnd: config.initial_cwnd,
            recovery: Recovery::default(),
            ack_aggregation: AckAggregation::default(),
        };
        // draft §4.3.1 BBRInit: no SRTT yet, so the nominal 1 ms RTT.
        bbr.init_pacing_rate(None);
        bbr.set_send_quantum();
        bbr.enter_startup();
        bbr
    }

    /// The current state-machine mode.
    pub fn bbr_mode(&self) -> Mode {
        self.mode
    }

    /// BBR.BtlBw in payload bytes per second.
    pub fn btl_bw(&self) -> f64 {
        self.btl_bw_filter.get()
    }

    /// BBR.RTprop, if any RTT sample has been seen.
    pub fn rtprop(&self) -> Option<SimDuration> {
        self.rtprop
    }

    fn min_pipe_cwnd(&self) -> u64 {
        super::bbr_common::min_pipe_cwnd(self.mss)
    }

    /// draft §3.5.2 BBRUpdateModelAndState.
    fn update_model_and_state(&mut self, ack: &Ack) {
        self.update_btl_bw(ack);
        // Linux `bbr_update_model`: the aggregation estimate right after the bandwidth.
        if self.variant == Variant::Linux && ack.rate_sample.is_some() {
            self.ack_aggregation.update(
                ack.now,
                self.round.start,
                self.btl_bw(),
                ack.bytes_acked,
                self.cwnd,
                self.mss,
            );
        }
        self.check_cycle_phase(ack);
        self.check_full_pipe(ack);
        self.check_drain(ack);
        self.update_rtprop(ack);
        self.check_probe_rtt(ack);
    }

    /// draft §3.5.2 BBRUpdateControlParameters.
    fn update_control_parameters(&mut self, ack: &Ack, entered_recovery: bool) {
        // draft §4.2.1: the initial pacing rate uses "the initial SRTT after the first
        // non-zero RTT sample" (Linux re-initialises it then, too).
        if let Some(srtt) = first_srtt(&mut self.has_seen_rtt, ack) {
            self.init_pacing_rate(Some(srtt));
        }
        self.set_pacing_rate_with_gain(self.pacing_gain);
        self.set_send_quantum();
        self.set_cwnd(ack, entered_recovery);
    }

    /// draft §4.2.3.4, upon entering Fast Recovery: besides saving cwnd (`Recovery`), start
    /// a new round (as Linux does), so that packet conservation lasts exactly one round.
    fn start_recovery_round(&mut self) {
        self.round.start_at(self.delivered);
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        INFO.name
    }

    /// draft §3.5.2 BBRUpdateOnACK.
    fn on_ack(&mut self, ack: &Ack) {
        self.delivered = ack.delivered;
        let in_probe_rtt = self.mode == Mode::ProbeRtt;
        let entered_recovery = self.recovery.on_ack(ack, &mut self.cwnd, in_probe_rtt);
        if entered_recovery {
            self.start_recovery_round();
        }
        self.update_model_and_state(ack);
        self.update_control_parameters(ack, entered_recovery);
    }

    /// draft §4.2.3.4, upon entering Fast Recovery (unless the ACK that triggered it already
    /// carried `in_recovery` and `on_ack` started recovery).
    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let in_probe_rtt = self.mode == Mode::ProbeRtt;
        let entered =
            self.recovery
                .on_congestion_event(event, &mut self.cwnd, in_probe_rtt, self.mss);
        if !entered {
            return;
        }
        self.start_recovery_round();
        if in_probe_rtt {
            self.cwnd = self.cwnd.min(self.min_pipe_cwnd());
        }
    }

    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {
        // No ssthresh to set (Linux bbr_ssthresh returns the one in force); the window saved
        // for after recovery is taken on every timeout below (bbr.md).
    }

    /// draft §4.2.3.4, upon RTO: save cwnd, then one packet.
    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        self.recovery
            .on_timeout(self.cwnd, self.mode == Mode::ProbeRtt);
        self.cwnd = self.mss;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.recovery.exit(&mut self.cwnd);
    }

    /// draft §4.3.4.4 BBRHandleRestartFromIdle.
    fn observes_sends(&self) -> crate::controller::SendsObserved {
        crate::controller::SendsObserved::FromIdle
    }

    fn on_packet_sent(&mut self, now: SimTime, bytes: u64, bytes_in_flight: u64) {
        if !is_restart_from_idle(bytes, bytes_in_flight, self.recovery.in_loss_recovery) {
            return;
        }
        self.idle_restart = true;
        if self.mode == Mode::ProbeBw {
            self.set_pacing_rate_with_gain(1.0);
        } else if self.mode == Mode::ProbeRtt
            && self.variant == Variant::Linux
            && self.probe_rtt.finish(now)
        {
            // Linux bbr_cwnd_event: an idle period may already have completed ProbeRTT.
            self.exit_probe_rtt(now);
        }
    }

    fn on_undo(&mut self, _event: &crate::controller::UndoEvent) {
        // Linux `bbr_undo_cwnd`: "spurious slow-down; reset full pipe detection" (full_bw,
        // full_bw_cnt) and keep cwnd as it is (the model, not a loss response, sets it). Our
        // BBR has no long-term (policer) sampling to reset.
        self.full_bw.reset();
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// BBR does not use ssthresh.
    fn ssthresh(&self) -> u64 {
        UNLIMITED
    }

    fn assign_window(&mut self, cwnd: u64, _ssthresh: u64) {
        // No slow-start threshold: only the window is taken.
        self.cwnd = cwnd;
    }

    fn paces(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<u64> {
        bits_per_second(self.pacing_rate)
    }

    fn controls_recovery_window(&self) -> bool {
        true
    }

    /// `bbr_sndbuf_expand` (tcp_bbr.c): three windows, as BBR may grow its window as in slow
    /// start even during a recovery.
    fn sndbuf_expand(&self) -> u64 {
        3
    }

    /// BBR v1 does not react to ECN (neither the draft nor Linux's tcp_bbr.c do): claiming
    /// the signal keeps the sender from applying RFC 3168's reduction on its behalf.
    fn responds_to_ecn(&self) -> bool {
        true
    }

    fn metrics(&self) -> crate::metrics::ControllerMetrics {
        crate::metrics::ControllerMetrics {
            bandwidth_bps: Some(self.btl_bw() * 8.0).filter(|&bw| bw > 0.0),
            min_rtt: self.rtprop,
            pacing_gain: Some(self.pacing_gain),
            cwnd_gain: Some(self.cwnd_gain),
            // Start-up ends only when the pipe is full (draft §4.3.2.2).
            slow_start_exit: self
                .filled_pipe
                .then_some(crate::metrics::SlowStartExit::FullBandwidth),
            ..Default::default()
        }
    }

    fn mode(&self) -> &'static str {
        match self.mode {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw => "probe_bw",
            Mode::ProbeRtt => "probe_rtt",
        }
    }
}
