//! BBR v3: BBR with a loss-aware, two-time-scale path model.
//!
//! Source: draft-ietf-ccwg-bbr-06 (Cardwell, Swett, Beshay; July 2026), cited as "draft §x";
//! the packet-conservation recovery window, which that version no longer spells out, follows
//! draft-cardwell-iccrg-bbr-congestion-control-02 §4.6.4.4 (BBRv2) and Linux.
//!
//! Model (draft §2.9, §5.5): max_bw = max delivery rate over the current and previous ProbeBW
//! cycle; min_rtt = min RTT over 10 s, refreshed via probe_rtt_min_delay every 5 s;
//! the long-term bound inflight_longterm (BBRv2/Linux `inflight_hi`), set when a bandwidth
//! probe sees a loss rate above LossThresh = 2 % and raised again by later probes; the
//! short-term bounds bw_shortterm / inflight_shortterm (`bw_lo` / `inflight_lo`), cut once per
//! round trip with loss to max(latest, Beta * bound), Beta = 0.7, and reset when probing
//! starts. bw = min(max_bw, bw_shortterm); pacing = gain * bw * 0.99;
//! cwnd = min(cwnd_gain * bw * min_rtt + extra_acked, bounds).
//!
//! States: STARTUP (pacing gain 4 ln 2, exits on a bandwidth plateau or on loss), DRAIN (0.5),
//! ProbeBW_DOWN (0.9) / CRUISE (1.0) / REFILL (1.0) / UP (1.25, cwnd gain 2.25) and PROBE_RTT
//! (cwnd 0.5 BDP, every 5 s). The draft's random probe timing (wall-clock wait 2-3 s, round
//! offset 0-1) is deterministic by default (2.5 s, 0) or drawn from a seeded generator.
//!
//! ECN: the draft (§3.7) specifies no response of its own ("treat any CE marks as
//! congestion"); the response here is Linux's BBRv3 (google/bbr `net/ipv4/tcp_bbr.c`,
//! DCTCP-style): on a path whose min_rtt is at most `ecn_max_rtt` (5 ms) the flow is
//! ECN-eligible; once per round ecn_alpha = (1 - g) * ecn_alpha + g * CE/delivered
//! (g = 1/16, starting at 1); a CE share above `ecn_thresh` (50 %) counts as "inflight too high"
//! like an excessive loss rate (it ends a bandwidth probe and sets inflight_longterm, and two
//! such rounds end STARTUP); a round with CE marks while not probing cuts inflight_shortterm
//! to (1 - ecn_factor * ecn_alpha) of itself (ecn_factor = 1/3); after a cycle with marks but
//! no loss, a round without marks starts the next probe at once (`ecn_reprobe_gain`). The
//! sender reports CE-marked bytes per ACK, not per rate sample, so the CE share is counted
//! per round trip (and checked within the round against the last round's delivery).
//!
//! Differences forced by the sender interface (see docs/algorithms/bbr3.md): no spurious-loss
//! undo (no such event); losses arrive per ACK as `newly_lost`, not per packet with
//! P.tx_in_flight and P.lost, so RS.lost and RS.tx_in_flight are estimated per loss round
//! (`rs_lost`, `rs_tx_in_flight`); CE marks likewise per round (`ecn_round_too_high`); SACK is
//! assumed.
//!
//! Units: bytes, payload bytes per second, integer nanoseconds; pacing rate out in bit/s.
//!
//! Layout: this file holds the parameters, the controller's state and the per-ACK order
//! (draft §5.2); `model` the estimators (rounds, max_bw, extra_acked, min_rtt; §5.5),
//! `loss` the loss signals and the long-term bound (§5.5.10.2), `congestion` the short-term
//! model (§5.5.10.3), `ecn` Linux's ECN response, `pacing` and `cwnd` the control parameters
//! (§5.6), `startup`, `drain`, `probe_bw` and `probe_rtt` the states (§5.3), and `tests` the
//! unit tests. Rounds, the full-pipe estimator, the ProbeRTT clock, loss recovery, restart
//! from idle and the pacing rules common with v1 are in `bbr_common`.

mod congestion;
mod cwnd;
mod drain;
mod ecn;
mod loss;
mod model;
mod pacing;
mod probe_bw;
mod probe_rtt;
mod startup;
#[cfg(test)]
mod tests;

use self::ecn::{ECN_ALPHA_INIT, EcnParams, FULL_ECN_COUNT};
use self::model::{EXTRA_ACKED_FILTER_LEN, MAX_BW_FILTER_LEN};
use super::bbr_common::full_bw::FullBw;
use super::bbr_common::idle::is_restart_from_idle;
use super::bbr_common::pacing::{bits_per_second, first_srtt};
use super::bbr_common::probe_rtt::ProbeRttClock;
use super::bbr_common::rate_sample::delivery_rate;
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
    ParamSpec::number("loss_thresh", 0.02, 0.001, 0.5).doc(
        "BBR.LossThresh: the highest per-round loss rate tolerated while probing (draft §2.8)",
    ),
    ParamSpec::number("beta", 0.7, 0.1, 0.99)
        .doc("BBR.Beta: multiplicative cut of the short-term bounds per lossy round (draft §2.8)"),
    ParamSpec::number("headroom", 0.15, 0.0, 0.5).doc(
        "BBR.Headroom: share of inflight_longterm left free for other flows in CRUISE and \
         PROBE_RTT (draft §2.8)",
    ),
    ParamSpec::choice("quanta", "draft", &["draft", "mss"]).doc(
        "offload budget: draft = 3 send quanta, send_quantum = pacing_rate * 1 ms within \
         [2 MSS, 64 KB] (draft §5.5.8.1, §5.6.3); mss = 3 MSS (a host without TSO/GSO)",
    ),
    ParamSpec::integer("seed", 0, 0, u32::MAX as i64).doc(
        "0: deterministic probe timing (wait 2.5 s, round offset 0); otherwise the seed of \
         the generator for the draft's random wait in [2, 3) s and offset in {0, 1}",
    ),
    ParamSpec::boolean("ecn", true).doc(
        "use CE marks as a congestion signal on eligible paths (Linux: the route's ecn_low \
         flag, i.e. marks come from a shallow-threshold queue); false ignores them",
    ),
    ParamSpec::number("ecn_max_rtt", 5.0, 0.0, 10_000.0)
        .unit("ms")
        .doc(
            "the flow becomes ECN-eligible once min_rtt <= this (Linux bbr_ecn_max_rtt_us); \
             0: at any RTT",
        ),
    ParamSpec::number("ecn_thresh", 0.5, 0.0, 1.0).doc(
        "CE share of a round's delivered data above which inflight is too high, as a loss \
         rate above loss_thresh is; 0 disables (Linux bbr_ecn_thresh)",
    ),
    ParamSpec::number("ecn_factor", 1.0 / 3.0, 0.0, 1.0).doc(
        "a round with CE marks outside bandwidth probes cuts inflight_shortterm by \
         ecn_factor * ecn_alpha; 0 disables the ECN logic (Linux bbr_ecn_factor)",
    ),
    ParamSpec::number("ecn_alpha_gain", 1.0 / 16.0, 0.001, 1.0)
        .doc("EWMA gain of ecn_alpha, the CE share per round (Linux bbr_ecn_alpha_gain)"),
    ParamSpec::number("ecn_reprobe_gain", 0.5, 0.0, 1.0).doc(
        "after a cycle with CE marks and no loss, probe again once marks stop, raising \
         inflight_longterm by about this share of itself in the first round; 0 disables \
         (Linux bbr_ecn_reprobe_gain)",
    ),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "bbr3",
    aliases: &["bbrv3"],
    summary: "BBR with loss- and ECN-aware bounds (inflight_longterm/shortterm, bw_shortterm) and PROBE_BW DOWN/CRUISE/REFILL/UP",
    reference: "draft-ietf-ccwg-bbr-06 (BBRv3); recovery window: draft-cardwell-iccrg-bbr-congestion-control-02 §4.6.4.4; ECN response: Linux BBRv3 net/ipv4/tcp_bbr.c (github.com/google/bbr, v3)",
    params: PARAMS,
    uses_slow_start: false,
    initial_ssthresh: InitialSsthreshUse::None,
    build: |config, params, _slow_start| Box::new(Bbr3::new(config, params)),
};

/// BBR.DefaultCwndGain (draft §2.6).
const DEFAULT_CWND_GAIN: f64 = 2.0;
/// "Infinity" for volumes.
const INFINITE: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBwDown,
    ProbeBwCruise,
    ProbeBwRefill,
    ProbeBwUp,
    ProbeRtt,
}

impl Mode {
    fn is_probe_bw(self) -> bool {
        matches!(
            self,
            Mode::ProbeBwDown | Mode::ProbeBwCruise | Mode::ProbeBwRefill | Mode::ProbeBwUp
        )
    }

    /// draft §5.3.3.9 IsProbingBW.
    fn is_probing_bw(self) -> bool {
        matches!(self, Mode::Startup | Mode::ProbeBwRefill | Mode::ProbeBwUp)
    }
}

/// draft §2.14 BBR.ack_phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quanta {
    Draft,
    Mss,
}

/// The rate sample of one ACK as the draft's RS, after validation.
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    /// RS.delivery_rate in bytes/s; 0 without a usable sample.
    delivery_rate: f64,
    /// RS.delivered; 0 without a sample.
    delivered: u64,
    /// P.delivered of the sampled packet (round counting); `None` without a sample.
    prior_delivered: Option<u64>,
    is_app_limited: bool,
}

pub struct Bbr3 {
    mss: u64,
    initial_cwnd: u64,
    quanta: Quanta,
    rng: Option<SeededRng>,
    loss_thresh: f64,
    beta: f64,
    headroom: f64,
    /// BBR.StartupPacingGain = 4 ln 2 (draft §2.5).
    startup_pacing_gain: f64,
    ecn: EcnParams,

    mode: Mode,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// C.delivered as of the latest ACK.
    delivered: u64,

    // Round counting (draft §5.5.1).
    round: RoundCounter,
    rounds_since_probe_up: u64,

    // Data-rate model (draft §2.9.1, §5.5.2-5.5.6).
    max_bw_filter: WindowedMax<{ MAX_BW_FILTER_LEN as usize }>,
    cycle_count: u64,
    bw_shortterm: f64,
    bw: f64,

    // ACK aggregation (draft §5.5.9).
    extra_acked_filter: WindowedMax<{ EXTRA_ACKED_FILTER_LEN as usize }>,
    extra_acked_interval_start: Option<SimTime>,
    extra_acked_delivered: u64,

    // min_rtt and ProbeRTT scheduling (draft §5.3.4.3).
    min_rtt: Option<SimDuration>,
    min_rtt_stamp: SimTime,
    probe_rtt_min_delay: Option<SimDuration>,
    probe_rtt_min_stamp: SimTime,
    probe_rtt_expired: bool,

    // Data-volume model (draft §2.9.2).
    inflight_longterm: u64,
    inflight_shortterm: u64,
    max_inflight: u64,

    // Congestion signals (draft §2.10, §5.5.10.3).
    bw_latest: f64,
    inflight_latest: u64,
    loss_round_delivered: u64,
    loss_round_start: bool,
    is_loss_in_round: bool,
    /// Bytes marked lost in the current loss round: the estimate of RS.lost.
    loss_in_round: u64,
    /// ACKs that marked losses in the current loss round (the draft counts discontiguous
    /// lost ranges; Linux counts loss events per round the same way).
    loss_events_in_round: u32,

    // Startup (draft §2.13).
    full_bw_reached: bool,
    full_bw_now: bool,
    full_bw: FullBw,
    drain_start_round: u64,

    // ProbeBW (draft §2.14).
    ack_phase: AckPhase,
    is_bw_probe_sample: bool,
    bw_probe_up_acked: u64,
    probe_up_acked_per_inc: u64,
    bw_probe_up_rounds: u32,
    bw_probe_wait: SimDuration,
    cycle_stamp: SimTime,
    prev_probe_too_high: bool,
    prev_probe_precautionary: bool,

    // ProbeRTT (draft §5.3.4).
    /// The 200 ms / one-round clock and the emulated MarkConnectionAppLimited.
    probe_rtt: ProbeRttClock,
    idle_restart: bool,

    // Control parameters (draft §5.6).
    pacing_rate: f64,
    has_seen_rtt: bool,
    send_quantum: u64,
    cwnd: u64,

    // Loss recovery (draft §5.6.4.4, draft-02 §4.6.4.4).
    recovery: Recovery,
    /// BBR.round_count when fast recovery began (CheckStartupHighLoss).
    recovery_start_round: u64,

    // ECN (Linux tcp_bbr.c v3).
    /// Linux ecn_eligible: the path is short enough for shallow-threshold marks; sticky.
    ecn_eligible: bool,
    /// Linux ecn_alpha: EWMA of the CE share of delivered data, per round, in [0, 1].
    ecn_alpha: f64,
    /// C.delivered_ce: CE-marked bytes reported so far.
    delivered_ce: u64,
    /// C.delivered and C.delivered_ce at the last ecn_alpha update.
    alpha_last_delivered: u64,
    alpha_last_delivered_ce: u64,
    /// The CE share of the last completed round exceeded ecn_thresh: our per-round stand-in
    /// for Linux's per-sample RS.delivered_ce > RS.delivered * ecn_thresh.
    ecn_round_too_high: bool,
    /// Bytes delivered in the last completed round (the denominator of the in-round check).
    ecn_last_round_delivered: u64,
    /// Linux ecn_in_round / ecn_in_cycle / loss_in_cycle.
    ecn_in_round: bool,
    ecn_in_cycle: bool,
    loss_in_cycle: bool,
    /// Consecutive STARTUP rounds with a CE share of at least ecn_thresh.
    startup_ecn_rounds: u32,
    /// Emulated Linux TCP_CA_CWR: after a CE echo, until snd_una passes this snd_nxt.
    ecn_cwr_until: Option<u64>,
}

impl Bbr3 {
    pub fn new(config: &CcConfig, params: &Params) -> Self {
        let seed = params.number("seed") as u64;
        let startup_pacing_gain = 4.0 * libm::log(2.0);
        let mut bbr = Bbr3 {
            mss: config.mss,
            initial_cwnd: config.initial_cwnd,
            quanta: match params.choice("quanta") {
                "mss" => Quanta::Mss,
                _ => Quanta::Draft,
            },
            rng: (seed != 0).then(|| SeededRng::new(seed)),
            loss_thresh: params.number("loss_thresh"),
            beta: params.number("beta"),
            headroom: params.number("headroom"),
            startup_pacing_gain,
            ecn: EcnParams::from(params),
            mode: Mode::Startup,
            pacing_gain: startup_pacing_gain,
            cwnd_gain: DEFAULT_CWND_GAIN,
            delivered: 0,
            round: RoundCounter::default(),
            rounds_since_probe_up: 0,
            max_bw_filter: WindowedMax::new(),
            cycle_count: 0,
            bw_shortterm: f64::INFINITY,
            bw: 0.0,
            extra_acked_filter: WindowedMax::new(),
            extra_acked_interval_start: None,
            extra_acked_delivered: 0,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_min_delay: None,
            probe_rtt_min_stamp: SimTime::ZERO,
            probe_rtt_expired: false,
            inflight_longterm: INFINITE,
            inflight_shortterm: INFINITE,
            max_inflight: config.initial_cwnd,
            bw_latest: 0.0,
            inflight_latest: 0,
            loss_round_delivered: 0,
            loss_round_start: false,
            is_loss_in_round: false,
            loss_in_round: 0,
            loss_events_in_round: 0,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw: FullBw::default(),
            drain_start_round: 0,
            ack_phase: AckPhase::Init,
            is_bw_probe_sample: false,
            bw_probe_up_acked: 0,
            probe_up_acked_per_inc: INFINITE,
            bw_probe_up_rounds: 0,
            bw_probe_wait: SimDuration::ZERO,
            cycle_stamp: SimTime::ZERO,
            prev_probe_too_high: false,
            prev_probe_precautionary: false,
            probe_rtt: ProbeRttClock::default(),
            idle_restart: false,
            pacing_rate: 0.0,
            has_seen_rtt: false,
            send_quantum: 2 * config.mss,
            cwnd: config.initial_cwnd,
            recovery: Recovery::default(),
            recovery_start_round: 0,
            ecn_eligible: false,
            ecn_alpha: ECN_ALPHA_INIT,
            delivered_ce: 0,
            alpha_last_delivered: 0,
            alpha_last_delivered_ce: 0,
            ecn_round_too_high: false,
            ecn_last_round_delivered: 0,
            ecn_in_round: false,
            ecn_in_cycle: false,
            loss_in_cycle: false,
            startup_ecn_rounds: 0,
            ecn_cwr_until: None,
        };
        // draft §5.2.1 OnInit.
        bbr.init_pacing_rate(None);
        bbr.set_send_quantum();
        bbr.enter_startup();
        bbr
    }

    /// The current state.
    pub fn bbr_mode(&self) -> Mode {
        self.mode
    }

    /// BBR.max_bw in payload bytes per second.
    pub fn max_bw(&self) -> f64 {
        self.max_bw_filter.get()
    }

    /// BBR.bw = min(max_bw, bw_shortterm), bytes per second.
    pub fn bw(&self) -> f64 {
        self.bw
    }

    /// BBR.inflight_longterm in bytes (`u64::MAX` while unset).
    pub fn inflight_longterm(&self) -> u64 {
        self.inflight_longterm
    }

    /// BBR.inflight_shortterm in bytes (`u64::MAX` while unset).
    pub fn inflight_shortterm(&self) -> u64 {
        self.inflight_shortterm
    }

    /// Linux ecn_alpha: the smoothed CE share of delivered data, in [0, 1].
    pub fn ecn_alpha(&self) -> f64 {
        self.ecn_alpha
    }

    /// Whether the ECN logic is active (the path's min_rtt was within `ecn_max_rtt`).
    pub fn ecn_eligible(&self) -> bool {
        self.ecn_eligible
    }

    fn min_pipe_cwnd(&self) -> u64 {
        super::bbr_common::min_pipe_cwnd(self.mss)
    }

    /// The rate sample of this ACK as the draft's RS; app-limited also when its packet left
    /// during ProbeRTT (see `ProbeRttClock`).
    fn sample(&self, ack: &Ack) -> Sample {
        let Some(rs) = ack.rate_sample else {
            return Sample::default();
        };
        Sample {
            delivery_rate: delivery_rate(&rs, ack.min_rtt).unwrap_or(0.0),
            delivered: rs.delivered,
            prior_delivered: Some(rs.prior_delivered),
            is_app_limited: rs.is_app_limited
                || self.probe_rtt.marks_app_limited(rs.prior_delivered),
        }
    }

    /// draft §5.6.4.4 SaveCwnd.
    fn save_cwnd(&mut self) {
        self.recovery
            .save_cwnd(self.cwnd, self.mode == Mode::ProbeRtt);
    }

    /// draft §5.5.1 StartRound.
    fn start_round(&mut self) {
        self.round.start_at(self.delivered);
    }

    /// draft §5.2.3 UpdateModelAndState.
    fn update_model_and_state(&mut self, ack: &Ack, sample: &Sample) {
        self.update_latest_delivery_signals(sample);
        self.update_congestion_signals(ack, sample);
        self.update_ack_aggregation(ack);
        self.check_full_bw_reached(sample);
        self.check_startup_done(ack);
        self.check_drain_done(ack);
        self.update_probe_bw_cycle_phase(ack, sample);
        self.update_min_rtt(ack);
        self.check_probe_rtt(ack);
        self.advance_latest_delivery_signals(sample);
        self.bound_bw_for_model();
    }

    /// draft §5.2.3 UpdateControlParameters.
    fn update_control_parameters(&mut self, ack: &Ack, entered_recovery: bool) {
        if let Some(srtt) = first_srtt(&mut self.has_seen_rtt, ack) {
            self.init_pacing_rate(Some(srtt));
        }
        self.set_pacing_rate_with_gain(self.pacing_gain);
        self.set_send_quantum();
        self.set_cwnd(ack, entered_recovery);
    }

    /// draft §5.6.4.4 OnEnterFastRecovery: besides saving cwnd (`Recovery`), start a round
    /// (as Linux does), so that draft-02's packet conservation lasts exactly one round.
    fn start_recovery_round(&mut self) {
        self.start_round();
        self.recovery_start_round = self.round.count;
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        INFO.name
    }

    /// draft §5.2.3 UpdateOnACK, preceded by the per-loss steps (§5.2.4) for the losses this
    /// ACK revealed, as Linux marks them before its congestion-control hook.
    fn on_ack(&mut self, ack: &Ack) {
        self.delivered = ack.delivered;
        let in_probe_rtt = self.mode == Mode::ProbeRtt;
        let entered_recovery = self.recovery.on_ack(ack, &mut self.cwnd, in_probe_rtt);
        if entered_recovery {
            self.start_recovery_round();
        }
        // C.delivered_ce, and the CWR state a CE echo would put a Linux sender in.
        self.delivered_ce += ack.ecn_ce_bytes;
        self.track_ecn_cwr(ack);
        let sample = self.sample(ack);
        if ack.newly_lost > 0 {
            self.handle_lost(ack, &sample);
        }
        self.update_model_and_state(ack, &sample);
        self.update_control_parameters(ack, entered_recovery);
        // Linux bbr_main: ecn_in_cycle is noted after the state machine ran.
        self.ecn_in_cycle |= ack.ecn_ce_bytes > 0;
    }

    /// draft §5.6.4.4 OnEnterFastRecovery, unless `on_ack` already saw the recovery flag.
    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let in_probe_rtt = self.mode == Mode::ProbeRtt;
        let entered =
            self.recovery
                .on_congestion_event(event, &mut self.cwnd, in_probe_rtt, self.mss);
        if !entered {
            return;
        }
        self.start_recovery_round();
        self.bound_cwnd_for_probe_rtt();
    }

    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {
        // No ssthresh to set; the loss response runs on every timeout below (bbr3.md).
    }

    /// draft §5.6.4.4 OnEnterRTO: SaveCwnd, SaveStateUponLoss (noting the loss), and cwnd =
    /// inflight + 1 packet, where inflight is 0 once the timeout marked everything lost.
    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        self.recovery
            .on_timeout(self.cwnd, self.mode == Mode::ProbeRtt);
        self.note_loss();
        self.cwnd = self.mss;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.recovery.exit(&mut self.cwnd);
    }

    /// draft §5.4.1 HandleRestartFromIdle.
    fn observes_sends(&self) -> crate::controller::SendsObserved {
        crate::controller::SendsObserved::FromIdle
    }

    fn on_packet_sent(&mut self, now: SimTime, bytes: u64, bytes_in_flight: u64) {
        if !is_restart_from_idle(bytes, bytes_in_flight, self.recovery.in_loss_recovery) {
            return;
        }
        self.idle_restart = true;
        self.extra_acked_interval_start = Some(now);
        if self.mode.is_probe_bw() {
            self.set_pacing_rate_with_gain(1.0);
        } else if self.mode == Mode::ProbeRtt && self.probe_rtt.finish(now) {
            self.exit_probe_rtt(now);
        }
    }

    fn on_undo(&mut self, _event: &crate::controller::UndoEvent) {
        // Linux BBRv3 `bbr_undo_cwnd`: reset the full-bandwidth detector and the short-term
        // bounds the losses cut (`bbr_reset_lower_bounds`: bw_lo, inflight_lo); cwnd stays.
        self.full_bw.reset();
        self.reset_short_term_model();
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

    /// `bbr_sndbuf_expand` (the BBRv3 tcp_bbr.c): three windows, as BBR may grow its window as in slow
    /// start even during a recovery.
    fn sndbuf_expand(&self) -> u64 {
        3
    }

    /// BBR v3 takes CE marks as a model input (Linux tcp_bbr.c; ignored where not eligible,
    /// as Linux's BBR ignores classic ECN), so the sender must not apply RFC 3168's halving.
    fn responds_to_ecn(&self) -> bool {
        true
    }

    fn metrics(&self) -> crate::metrics::ControllerMetrics {
        use crate::metrics::SlowStartExit;
        let bound = |bytes: u64| (bytes != u64::MAX).then_some(bytes);
        crate::metrics::ControllerMetrics {
            bandwidth_bps: Some(self.max_bw() * 8.0).filter(|&bw| bw > 0.0),
            min_rtt: self.min_rtt,
            pacing_gain: Some(self.pacing_gain),
            cwnd_gain: Some(self.cwnd_gain),
            inflight_hi: bound(self.inflight_longterm),
            inflight_lo: bound(self.inflight_shortterm),
            ecn_alpha: self.ecn_eligible.then_some(self.ecn_alpha),
            // Start-up ends on a bandwidth plateau (full_bw_now) or, through
            // handle_queue_too_high_in_startup, on too many CE marks or too much loss.
            slow_start_exit: self.full_bw_reached.then_some(if self.full_bw_now {
                SlowStartExit::FullBandwidth
            } else if self.startup_ecn_rounds >= FULL_ECN_COUNT {
                SlowStartExit::StartupHighEcn
            } else {
                SlowStartExit::StartupHighLoss
            }),
            ..Default::default()
        }
    }

    fn mode(&self) -> &'static str {
        match self.mode {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBwDown => "probe_bw_down",
            Mode::ProbeBwCruise => "probe_bw_cruise",
            Mode::ProbeBwRefill => "probe_bw_refill",
            Mode::ProbeBwUp => "probe_bw_up",
            Mode::ProbeRtt => "probe_rtt",
        }
    }
}
