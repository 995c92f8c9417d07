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

use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, RateSample, TimeoutEvent, UNLIMITED,
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

/// BBR.MaxBwFilterLen (draft §2.11): two ProbeBW cycles.
const MAX_BW_FILTER_LEN: u64 = 2;
/// BBR.ExtraAckedFilterLen (draft §2.12): 10 rounds (1 in Startup).
const EXTRA_ACKED_FILTER_LEN: u64 = 10;
/// BBR.MinRTTFilterLen (draft §2.16.1).
const MIN_RTT_FILTER_LEN: SimDuration = SimDuration::from_secs(10);
/// BBR.ProbeRTTInterval and BBR.ProbeRTTDuration (draft §2.16.2).
const PROBE_RTT_INTERVAL: SimDuration = SimDuration::from_secs(5);
const PROBE_RTT_DURATION: SimDuration = SimDuration::from_millis(200);
/// BBR.ProbeRTTCwndGain (draft §2.16.2).
const PROBE_RTT_CWND_GAIN: f64 = 0.5;
/// BBR.DrainPacingGain and BBR.DefaultCwndGain (draft §2.5, §2.6).
const DRAIN_PACING_GAIN: f64 = 0.5;
const DEFAULT_CWND_GAIN: f64 = 2.0;
/// ProbeBW gains (draft §5.3.3, table in §5.6.1).
const PROBE_DOWN_PACING_GAIN: f64 = 0.9;
const PROBE_UP_PACING_GAIN: f64 = 1.25;
const PROBE_UP_CWND_GAIN: f64 = 2.25;
/// BBR.PacingMarginPercent (draft §2.5).
const PACING_MARGIN_PERCENT: f64 = 1.0;
/// BBR.MinPipeCwnd (draft §2.8): 4 packets.
const MIN_PIPE_CWND_PACKETS: u64 = 4;
/// Full-pipe estimator (draft §5.3.1.2).
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_COUNT: u32 = 3;
/// BBRStartupFullLossCnt (draft §5.3.1.3).
const STARTUP_FULL_LOSS_COUNT: u32 = 6;
/// Drain ends after at most 3 rounds (draft §5.3.2).
const DRAIN_MAX_ROUNDS: u64 = 3;
/// T_reno bound (draft §5.3.3.8).
const RENO_MAX_ROUNDS: u64 = 63;
/// Deterministic stand-in for the draft's 2 + U[0, 1) s probe wait: its mean.
const DETERMINISTIC_PROBE_WAIT: SimDuration = SimDuration::from_millis(2500);
const MAX_SEND_QUANTUM: u64 = 64 * 1024;
/// "Infinity" for volumes.
const INFINITE: u64 = u64::MAX;
/// Linux bbr_ecn_alpha_init: 1, so that a flow starting into a congested bottleneck responds
/// at once.
const ECN_ALPHA_INIT: f64 = 1.0;
/// Linux bbr_full_ecn_cnt: STARTUP ends after this many consecutive rounds with a CE share
/// of at least ecn_thresh.
const FULL_ECN_COUNT: u32 = 2;

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

#[derive(Clone, Copy, Debug)]
struct LastAck {
    now: SimTime,
    bytes_in_flight: u64,
    bytes_acked: u64,
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
    next_round_delivered: u64,
    round_count: u64,
    round_start: bool,
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
    full_bw: f64,
    full_bw_count: u32,
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
    probe_rtt_done_stamp: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// `C.delivered` range whose packets count as app-limited (draft MarkConnectionAppLimited
    /// in ProbeRTT, emulated as in bbr.rs).
    probe_rtt_app_limited: Option<(u64, u64)>,
    idle_restart: bool,

    // Control parameters (draft §5.6).
    pacing_rate: f64,
    has_seen_rtt: bool,
    send_quantum: u64,
    cwnd: u64,
    prior_cwnd: u64,

    // Loss recovery.
    in_loss_recovery: bool,
    in_fast_recovery: bool,
    recovery_start_round: u64,
    packet_conservation: bool,
    last_ack: Option<LastAck>,

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

/// The ECN parameters (see `PARAMS`).
#[derive(Clone, Copy, Debug)]
struct EcnParams {
    enabled: bool,
    /// `None`: eligible at any RTT.
    max_rtt: Option<SimDuration>,
    thresh: f64,
    factor: f64,
    alpha_gain: f64,
    reprobe_gain: f64,
}

impl EcnParams {
    fn from(params: &Params) -> Self {
        let max_rtt_ms = params.number("ecn_max_rtt");
        EcnParams {
            enabled: params.boolean("ecn"),
            max_rtt: (max_rtt_ms > 0.0).then(|| SimDuration::from_secs_f64(max_rtt_ms / 1e3)),
            thresh: params.number("ecn_thresh"),
            factor: params.number("ecn_factor"),
            alpha_gain: params.number("ecn_alpha_gain"),
            reprobe_gain: params.number("ecn_reprobe_gain"),
        }
    }
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
            next_round_delivered: 0,
            round_count: 0,
            round_start: false,
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
            full_bw: 0.0,
            full_bw_count: 0,
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
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            probe_rtt_app_limited: None,
            idle_restart: false,
            pacing_rate: 0.0,
            has_seen_rtt: false,
            send_quantum: 2 * config.mss,
            cwnd: config.initial_cwnd,
            prior_cwnd: 0,
            in_loss_recovery: false,
            in_fast_recovery: false,
            recovery_start_round: 0,
            packet_conservation: false,
            last_ack: None,
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
        MIN_PIPE_CWND_PACKETS * self.mss
    }

    fn sample(&self, ack: &Ack) -> Sample {
        let Some(rs) = ack.rate_sample else {
            return Sample::default();
        };
        Sample {
            delivery_rate: delivery_rate(&rs, ack.min_rtt).unwrap_or(0.0),
            delivered: rs.delivered,
            prior_delivered: Some(rs.prior_delivered),
            is_app_limited: rs.is_app_limited
                || self
                    .probe_rtt_app_limited
                    .is_some_and(|(from, to)| (from..=to).contains(&rs.prior_delivered)),
        }
    }

    // ---- Loss signals (draft §5.5.10.2, adapted to per-ACK loss reports) -------------------

    /// RS.lost: data marked lost since the sampled packet was sent. The sender reports losses
    /// per ACK, not per packet, so this is the data lost in the current loss round, which
    /// starts at the first loss (draft NoteLoss) and lasts one packet-timed round.
    fn rs_lost(&self) -> u64 {
        self.loss_in_round
    }

    /// RS.tx_in_flight: C.inflight when the sampled packet was sent, estimated as what is in
    /// flight now plus what this ACK delivered plus what the loss round lost.
    fn rs_tx_in_flight(&self, ack: &Ack) -> u64 {
        ack.bytes_in_flight + ack.bytes_acked + self.loss_in_round
    }

    /// draft §5.5.10.2 IsInflightTooHigh, loss part (SACK assumed):
    /// RS.lost > RS.tx_in_flight * LossThresh.
    fn is_loss_too_high(&self, ack: &Ack) -> bool {
        self.rs_lost() as f64 > self.rs_tx_in_flight(ack) as f64 * self.loss_thresh
    }

    /// Linux bbr_is_inflight_too_high: the loss rate, or the CE share, is too high. The
    /// draft's IsInflightTooHigh has only the loss part.
    fn is_inflight_too_high(&self, ack: &Ack) -> bool {
        self.is_loss_too_high(ack) || self.ecn_round_too_high
    }

    /// draft §5.5.10.2 NoteLoss (and Linux's loss_in_cycle).
    fn note_loss(&mut self) {
        if !self.is_loss_in_round {
            self.loss_round_delivered = self.delivered;
            // SaveStateUponLoss: only the cwnd part (no spurious-loss undo here).
            self.save_cwnd();
        }
        self.is_loss_in_round = true;
        self.loss_in_cycle = true;
    }

    /// draft §5.5.10.2 HandleLostPacket, once per ACK that marked `newly_lost` bytes lost.
    /// Like Linux's bbr_skb_marked_lost, it judges the loss rate only (a lost packet carries
    /// no CE information).
    fn handle_lost(&mut self, ack: &Ack, sample: &Sample) {
        self.note_loss();
        self.loss_in_round += ack.newly_lost;
        self.loss_events_in_round += 1;
        if !self.is_bw_probe_sample {
            return;
        }
        if self.is_loss_too_high(ack) {
            self.handle_inflight_too_high(ack, sample);
        }
    }

    // ---- ECN (Linux tcp_bbr.c v3; the draft §3.7 leaves the response open) ----------------

    /// Linux bbr_update_ecn_alpha, at the start of each round: decide eligibility, then
    /// ecn_alpha = (1 - gain) * ecn_alpha + gain * ce_ratio (capped at 1), with ce_ratio the
    /// CE-marked share of the bytes delivered since the last update (one round), and the
    /// STARTUP exit on two rounds with ce_ratio >= ecn_thresh. Also judges the round for
    /// IsInflightTooHigh (see `ecn_round_too_high`).
    fn update_ecn_alpha(&mut self) {
        if !self.ecn_eligible
            && self.ecn.enabled
            && self.ecn.factor > 0.0
            && self
                .min_rtt
                .is_some_and(|m| self.ecn.max_rtt.is_none_or(|max| m <= max))
        {
            self.ecn_eligible = true;
        }
        self.ecn_round_too_high = false;
        if !self.ecn_eligible {
            return;
        }
        let delivered = self.delivered - self.alpha_last_delivered;
        let delivered_ce = self.delivered_ce - self.alpha_last_delivered_ce;
        if delivered == 0 {
            return;
        }
        let ce_ratio = delivered_ce as f64 / delivered as f64;
        let gain = self.ecn.alpha_gain;
        self.ecn_alpha = ((1.0 - gain) * self.ecn_alpha + gain * ce_ratio).min(1.0);
        self.alpha_last_delivered = self.delivered;
        self.alpha_last_delivered_ce = self.delivered_ce;
        self.ecn_last_round_delivered = delivered;
        // Linux bbr_is_inflight_too_high, ECN part: RS.delivered_ce > RS.delivered *
        // ecn_thresh (strictly), here over the round rather than one rate sample.
        self.ecn_round_too_high = self.ecn.thresh > 0.0
            && delivered_ce > 0
            && delivered_ce as f64 > delivered as f64 * self.ecn.thresh;
        self.check_ecn_too_high_in_startup(ce_ratio);
    }

    /// The same test within a round, so that a probe stops about when Linux's per-sample
    /// test would (its RS spans the last round trip, not the round so far): once the CE bytes
    /// of the current round exceed ecn_thresh times what the last full round delivered, the
    /// data of one round trip is more than ecn_thresh marked, whatever the rest of the round
    /// brings.
    fn check_ecn_too_high_within_round(&mut self) {
        if !self.ecn_eligible || self.ecn.thresh <= 0.0 || self.ecn_round_too_high {
            return;
        }
        let delivered_ce = self.delivered_ce - self.alpha_last_delivered_ce;
        self.ecn_round_too_high = self.ecn_last_round_delivered > 0
            && delivered_ce as f64 > self.ecn_last_round_delivered as f64 * self.ecn.thresh;
    }

    /// Linux bbr_check_ecn_too_high_in_startup (>= here, as Linux).
    fn check_ecn_too_high_in_startup(&mut self, ce_ratio: f64) {
        if self.full_bw_reached || self.ecn.thresh <= 0.0 {
            return;
        }
        if ce_ratio >= self.ecn.thresh {
            self.startup_ecn_rounds += 1;
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= FULL_ECN_COUNT {
            self.handle_queue_too_high_in_startup();
        }
    }

    /// Linux bbr_handle_queue_too_high_in_startup / draft §5.3.1.3: the pipe is full and
    /// inflight_longterm = max(BDP, inflight_latest).
    fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        self.inflight_longterm = self.bdp().max(self.inflight_latest);
    }

    /// Linux TCP_CA_Open for the ECN re-probe: not in loss recovery, and not in the CWR
    /// state a CE echo starts, which lasts until snd_una passes the snd_nxt of that moment
    /// (Linux tcp_enter_cwr / tcp_fastretrans_alert). The sender does not enter CWR for a
    /// controller that responds to ECN itself, so it is tracked here.
    fn track_ecn_cwr(&mut self, ack: &Ack) {
        if self.ecn_cwr_until.is_some_and(|point| ack.snd_una > point) {
            self.ecn_cwr_until = None;
        }
        if ack.ecn_ce_bytes > 0 && self.ecn_cwr_until.is_none() && !ack.in_recovery {
            self.ecn_cwr_until = Some(ack.snd_nxt);
        }
    }

    /// Linux bbr_check_time_to_probe_bw, ECN part: after a cycle with CE marks and no loss,
    /// once the marks have stopped (Open state), REFILL at once and let the first UP round
    /// raise inflight_longterm by about ecn_reprobe_gain of itself: growth 2^n packets with
    /// n = floor(log2(inflight_longterm * gain / MSS)), as RaiseInflightLongtermSlope counts.
    fn is_time_to_reprobe_after_ecn(&mut self, ack: &Ack) -> bool {
        if self.ecn.reprobe_gain <= 0.0
            || !self.ecn_eligible
            || !self.ecn_in_cycle
            || self.loss_in_cycle
            || ack.in_recovery
            || self.ecn_cwr_until.is_some()
        {
            return false;
        }
        let rounds = if self.inflight_longterm == INFINITE {
            30
        } else {
            let packets =
                (self.inflight_longterm as f64 * self.ecn.reprobe_gain / self.mss as f64) as u64;
            packets.checked_ilog2().unwrap_or(0).min(30)
        };
        self.start_probe_bw_refill(rounds);
        true
    }

    /// draft §5.5.10.2 HandleInflightTooHigh.
    fn handle_inflight_too_high(&mut self, ack: &Ack, sample: &Sample) {
        self.prev_probe_too_high = true;
        self.is_bw_probe_sample = false;
        if !sample.is_app_limited {
            let beta_target = (self.target_inflight() as f64 * self.beta) as u64;
            self.inflight_longterm = self.rs_tx_in_flight(ack).max(beta_target);
        }
        if self.mode == Mode::ProbeBwUp {
            self.start_probe_bw_down(ack.now);
        }
    }

    /// draft §5.3.3.8 TargetInflight: min(BBR.bdp, C.cwnd).
    fn target_inflight(&self) -> u64 {
        self.bdp().min(self.cwnd)
    }

    // ---- Latest delivery signals and short-term model (draft §5.5.10.3) -------------------

    /// draft UpdateLatestDeliverySignals.
    fn update_latest_delivery_signals(&mut self, sample: &Sample) {
        self.loss_round_start = false;
        self.bw_latest = self.bw_latest.max(sample.delivery_rate);
        self.inflight_latest = self.inflight_latest.max(sample.delivered);
        if sample
            .prior_delivered
            .is_some_and(|p| p >= self.loss_round_delivered)
        {
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        }
    }

    /// draft AdvanceLatestDeliverySignals; the per-round loss tallies start over too.
    fn advance_latest_delivery_signals(&mut self, sample: &Sample) {
        if self.loss_round_start {
            self.bw_latest = sample.delivery_rate;
            self.inflight_latest = sample.delivered;
            self.loss_in_round = 0;
            self.loss_events_in_round = 0;
        }
    }

    /// draft ResetCongestionSignals, and Linux's ECN and per-cycle flags. The RS.lost
    /// estimate (`loss_in_round`) is kept: in the draft RS.lost is per packet and does not
    /// depend on these signals.
    fn reset_congestion_signals(&mut self) {
        self.is_loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }

    /// draft UpdateCongestionSignals, with Linux's per-round ECN steps (bbr_main: ecn_alpha at
    /// each round start, ecn_in_round from this ACK).
    fn update_congestion_signals(&mut self, ack: &Ack, sample: &Sample) {
        self.update_max_bw(sample);
        if self.round_start {
            self.update_ecn_alpha();
        }
        self.check_ecn_too_high_within_round();
        self.ecn_in_round |= self.ecn_eligible && ack.ecn_ce_bytes > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds_from_congestion();
        self.is_loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// draft AdaptLowerBoundsFromCongestion, InitLowerBounds and LossLowerBounds, with
    /// Linux's ECN cut (bbr_adapt_lower_bounds): a round with CE marks cuts
    /// inflight_shortterm (not bw_shortterm) to (1 - ecn_factor * ecn_alpha) of itself, with
    /// no floor at inflight_latest; with loss too, the lower of the two cuts wins.
    fn adapt_lower_bounds_from_congestion(&mut self) {
        if self.mode.is_probing_bw() {
            return;
        }
        let mut ecn_inflight_shortterm = INFINITE;
        if self.ecn_in_round && self.ecn.factor > 0.0 {
            if self.inflight_shortterm == INFINITE {
                self.inflight_shortterm = self.cwnd;
            }
            let ecn_cut = 1.0 - self.ecn.factor * self.ecn_alpha;
            ecn_inflight_shortterm = (self.inflight_shortterm as f64 * ecn_cut) as u64;
        }
        if self.is_loss_in_round {
            if self.bw_shortterm.is_infinite() {
                self.bw_shortterm = self.max_bw();
            }
            if self.inflight_shortterm == INFINITE {
                self.inflight_shortterm = self.cwnd;
            }
            self.bw_shortterm = self.bw_latest.max(self.beta * self.bw_shortterm);
            self.inflight_shortterm = self
                .inflight_latest
                .max((self.beta * self.inflight_shortterm as f64) as u64);
        }
        self.inflight_shortterm = self.inflight_shortterm.min(ecn_inflight_shortterm);
    }

    /// draft ResetShortTermModel.
    fn reset_short_term_model(&mut self) {
        self.bw_shortterm = f64::INFINITY;
        self.inflight_shortterm = INFINITE;
    }

    /// draft BoundBWForModel.
    fn bound_bw_for_model(&mut self) {
        self.bw = self.max_bw().min(self.bw_shortterm);
    }

    // ---- Rounds, max_bw, extra_acked, min_rtt (draft §5.5) --------------------------------

    /// draft §5.5.1 StartRound.
    fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    /// draft §5.5.1 UpdateRound.
    fn update_round(&mut self, sample: &Sample) {
        self.round_start = false;
        if sample
            .prior_delivered
            .is_some_and(|p| p >= self.next_round_delivered)
        {
            self.start_round();
            self.round_count += 1;
            self.rounds_since_probe_up += 1;
            self.round_start = true;
            // Packet conservation lasts one round of recovery (draft-02 §4.6.4.4).
            self.packet_conservation = false;
        }
    }

    /// draft §5.5.5 UpdateMaxBw.
    fn update_max_bw(&mut self, sample: &Sample) {
        self.update_round(sample);
        if sample.delivery_rate > 0.0
            && (sample.delivery_rate >= self.max_bw() || !sample.is_app_limited)
        {
            self.max_bw_filter
                .update(self.cycle_count, sample.delivery_rate, MAX_BW_FILTER_LEN);
        }
    }

    /// draft §5.5.9 UpdateACKAggregation.
    fn update_ack_aggregation(&mut self, ack: &Ack) {
        let start = *self.extra_acked_interval_start.get_or_insert(ack.now);
        let interval_ns = ack.now.saturating_since(start).as_nanos() as f64;
        let mut expected_delivered = self.bw * interval_ns / 1e9;
        if self.extra_acked_delivered as f64 <= expected_delivered {
            self.extra_acked_delivered = 0;
            self.extra_acked_interval_start = Some(ack.now);
            expected_delivered = 0.0;
        }
        self.extra_acked_delivered += ack.bytes_acked;
        let extra = (self.extra_acked_delivered as f64 - expected_delivered).min(self.cwnd as f64);
        let filter_len = if self.full_bw_reached {
            EXTRA_ACKED_FILTER_LEN
        } else {
            1
        };
        self.extra_acked_filter
            .update(self.round_count, extra, filter_len);
    }

    fn extra_acked(&self) -> u64 {
        self.extra_acked_filter.get() as u64
    }

    /// draft §5.3.4.3 UpdateMinRTT (strict "<" for probe_rtt_min_delay, as the draft).
    fn update_min_rtt(&mut self, ack: &Ack) {
        // Before the first sample nothing can expire (OnInit stamps the unseen start).
        self.probe_rtt_expired = self.probe_rtt_min_delay.is_some()
            && ack.now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL;
        let expired = self.probe_rtt_expired;
        let current = self.probe_rtt_min_delay;
        if let Some(rtt) = ack
            .rtt
            .filter(|&r| current.is_none_or(|d| r < d) || expired)
        {
            self.probe_rtt_min_delay = Some(rtt);
            self.probe_rtt_min_stamp = ack.now;
        }
        let min_rtt_expired =
            self.min_rtt.is_some() && ack.now > self.min_rtt_stamp + MIN_RTT_FILTER_LEN;
        let min_rtt = self.min_rtt;
        if let Some(delay) = self
            .probe_rtt_min_delay
            .filter(|&d| min_rtt.is_none_or(|m| d < m) || min_rtt_expired)
        {
            self.min_rtt = Some(delay);
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
    }

    // ---- Volumes (draft §5.6.4) ------------------------------------------------------------

    /// BBR.bdp = BBR.bw * BBR.min_rtt (bytes, rounded up); InitialCwnd before any RTT.
    fn bdp(&self) -> u64 {
        self.bdp_multiple(self.bw, 1.0)
    }

    /// draft §5.6.4.2 BDPMultiple, with the bandwidth as an argument as §5.3.3.9 and
    /// §5.6.4.5 use it.
    fn bdp_multiple(&self, bw: f64, gain: f64) -> u64 {
        let Some(min_rtt) = self.min_rtt else {
            return self.initial_cwnd;
        };
        (gain * bw * min_rtt.as_nanos() as f64 / 1e9).ceil() as u64
    }

    /// draft §5.6.4.2 QuantizationBudget.
    fn quantization_budget(&self, inflight_cap: u64) -> u64 {
        let offload_budget = 3 * self.send_quantum;
        let mut cap = inflight_cap.max(offload_budget).max(self.min_pipe_cwnd());
        if self.mode == Mode::ProbeBwUp {
            cap += 2 * self.mss;
        }
        cap
    }

    /// draft §5.6.4.2 Inflight(bw, gain).
    fn inflight(&self, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(self.bdp_multiple(bw, gain))
    }

    /// draft §5.6.4.2 UpdateMaxInflight.
    fn update_max_inflight(&mut self) {
        let cap = self.bdp_multiple(self.bw, self.cwnd_gain) + self.extra_acked();
        self.max_inflight = self.quantization_budget(cap);
    }

    /// draft §5.3.3.9 InflightWithHeadroom.
    fn inflight_with_headroom(&self) -> u64 {
        if self.inflight_longterm == INFINITE {
            return INFINITE;
        }
        let headroom = self
            .mss
            .max((self.headroom * self.inflight_longterm as f64) as u64);
        self.inflight_longterm
            .saturating_sub(headroom)
            .max(self.min_pipe_cwnd())
    }

    /// draft §5.6.4.5 ProbeRTTCwnd.
    fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp_multiple(self.bw, PROBE_RTT_CWND_GAIN)
            .max(self.min_pipe_cwnd())
    }

    // ---- Control parameters (draft §5.6) -------------------------------------------------

    /// draft §5.6.2 InitPacingRate.
    fn init_pacing_rate(&mut self, srtt: Option<SimDuration>) {
        let rtt_ns = srtt
            .filter(|s| !s.is_zero())
            .unwrap_or(SimDuration::from_millis(1))
            .as_nanos() as f64;
        let nominal_bandwidth = self.initial_cwnd as f64 * 1e9 / rtt_ns;
        self.pacing_rate = self.startup_pacing_gain * nominal_bandwidth;
    }

    /// draft §5.6.2 SetPacingRateWithGain.
    fn set_pacing_rate_with_gain(&mut self, gain: f64) {
        let rate = gain * self.bw * (100.0 - PACING_MARGIN_PERCENT) / 100.0;
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// draft §5.6.3 SetSendQuantum, or 1 MSS for `quanta = "mss"`.
    fn set_send_quantum(&mut self) {
        self.send_quantum = match self.quanta {
            Quanta::Mss => self.mss,
            Quanta::Draft => ((self.pacing_rate / 1000.0) as u64)
                .min(MAX_SEND_QUANTUM)
                .max(2 * self.mss),
        };
    }

    /// draft §5.6.4.4 SaveCwnd.
    fn save_cwnd(&mut self) {
        self.prior_cwnd = if !self.in_loss_recovery && self.mode != Mode::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        };
    }

    /// draft §5.6.4.4 RestoreCwnd.
    fn restore_cwnd(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    /// draft §5.6.4.4 OnEnterFastRecovery (SaveCwnd), plus draft-02's packet conservation
    /// for the first round, which (as in Linux) starts a round now.
    fn enter_fast_recovery(&mut self) {
        self.save_cwnd();
        self.in_loss_recovery = true;
        self.in_fast_recovery = true;
        self.packet_conservation = true;
        self.start_round();
        self.recovery_start_round = self.round_count;
    }

    /// draft-02 §4.6.4.4: cwnd = packets_in_flight + max(newly_acked, 1 packet).
    fn enter_fast_recovery_window(&mut self, bytes_in_flight: u64, bytes_acked: u64) {
        self.cwnd = bytes_in_flight + bytes_acked.max(self.mss);
    }

    /// draft §5.6.4.4: restore the last known good cwnd when recovery ends.
    fn exit_loss_recovery(&mut self) {
        if self.in_loss_recovery {
            self.in_loss_recovery = false;
            self.in_fast_recovery = false;
            self.packet_conservation = false;
            self.restore_cwnd();
        }
    }

    /// draft-02 §4.6.4.4 BBRModulateCwndForRecovery.
    fn modulate_cwnd_for_recovery(&mut self, ack: &Ack, entered_now: bool) {
        if !self.in_loss_recovery {
            return;
        }
        if entered_now {
            self.enter_fast_recovery_window(ack.bytes_in_flight, ack.bytes_acked);
        } else if ack.newly_lost > 0 {
            self.cwnd = self.cwnd.saturating_sub(ack.newly_lost).max(self.mss);
        }
        if self.packet_conservation {
            self.cwnd = self.cwnd.max(ack.bytes_in_flight + ack.bytes_acked);
        }
    }

    /// draft §5.6.4.6 SetCwnd (with draft-02's recovery modulation), §5.6.4.5, §5.6.4.7.
    fn set_cwnd(&mut self, ack: &Ack, entered_recovery: bool) {
        self.update_max_inflight();
        self.modulate_cwnd_for_recovery(ack, entered_recovery);
        if !self.packet_conservation {
            if self.full_bw_reached {
                self.cwnd = (self.cwnd + ack.bytes_acked).min(self.max_inflight);
            } else if self.cwnd < self.max_inflight || ack.delivered < self.initial_cwnd {
                self.cwnd += ack.bytes_acked;
            }
            self.cwnd = self.cwnd.max(self.min_pipe_cwnd());
        }
        self.bound_cwnd_for_probe_rtt();
        self.bound_cwnd_for_model();
    }

    /// draft §5.6.4.5 BoundCwndForProbeRTT.
    fn bound_cwnd_for_probe_rtt(&mut self) {
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
    }

    /// draft §5.6.4.7 BoundCwndForModel.
    fn bound_cwnd_for_model(&mut self) {
        let mut cap = INFINITE;
        if self.mode.is_probe_bw() && self.mode != Mode::ProbeBwCruise {
            cap = self.inflight_longterm;
        } else if self.mode == Mode::ProbeRtt || self.mode == Mode::ProbeBwCruise {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_shortterm).max(self.min_pipe_cwnd());
        self.cwnd = self.cwnd.min(cap);
    }

    // ---- Startup and Drain (draft §5.3.1, §5.3.2) -----------------------------------------

    /// draft §5.3.1.1 EnterStartup.
    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.startup_pacing_gain;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    /// draft §5.3.1.2 ResetFullBW.
    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// draft §5.3.1.2 CheckFullBWReached (on RS.delivery_rate, unlike v1's BtlBw).
    fn check_full_bw_reached(&mut self, sample: &Sample) {
        if self.full_bw_now || !self.round_start || sample.is_app_limited {
            return;
        }
        if sample.delivery_rate >= self.full_bw * FULL_BW_THRESH {
            self.reset_full_bw();
            self.full_bw = sample.delivery_rate;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_COUNT;
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    /// draft §5.3.1.3 CheckStartupHighLoss (SACK connection): at the end of a loss round,
    /// after at least one full round in fast recovery, with >= 6 loss events and a loss rate
    /// above LossThresh in that round.
    fn check_startup_high_loss(&mut self, ack: &Ack) {
        if self.mode != Mode::Startup
            || self.full_bw_reached
            || !self.loss_round_start
            || !self.in_fast_recovery
            || self.round_count <= self.recovery_start_round
            || self.loss_events_in_round < STARTUP_FULL_LOSS_COUNT
            || !self.is_inflight_too_high(ack)
        {
            return;
        }
        self.handle_queue_too_high_in_startup();
    }

    /// draft §5.3.1.1 CheckStartupDone.
    fn check_startup_done(&mut self, ack: &Ack) {
        self.check_startup_high_loss(ack);
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.enter_drain();
        }
    }

    /// draft §5.3.2 EnterDrain.
    fn enter_drain(&mut self) {
        self.mode = Mode::Drain;
        self.pacing_gain = DRAIN_PACING_GAIN;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
        self.drain_start_round = self.round_count;
    }

    /// draft §5.3.2 CheckDrainDone.
    fn check_drain_done(&mut self, ack: &Ack) {
        if self.mode == Mode::Drain
            && (ack.bytes_in_flight <= self.inflight(self.bw, 1.0)
                || self.round_count > self.drain_start_round + DRAIN_MAX_ROUNDS)
        {
            self.enter_probe_bw(ack.now);
        }
    }

    // ---- ProbeBW (draft §5.3.3) ------------------------------------------------------------

    /// draft §5.3.3.9 EnterProbeBW.
    fn enter_probe_bw(&mut self, now: SimTime) {
        self.cwnd_gain = DEFAULT_CWND_GAIN;
        self.start_probe_bw_down(now);
    }

    /// draft §5.3.3.8 PickProbeWait, deterministic unless seeded.
    fn pick_probe_wait(&mut self) {
        match self.rng.as_mut() {
            Some(rng) => {
                self.rounds_since_probe_up = u64::from(rng.below(2));
                self.bw_probe_wait =
                    SimDuration::from_secs(2) + SimDuration::from_secs_f64(rng.unit());
            }
            None => {
                self.rounds_since_probe_up = 0;
                self.bw_probe_wait = DETERMINISTIC_PROBE_WAIT;
            }
        }
    }

    fn start_probe_bw_down(&mut self, now: SimTime) {
        self.reset_congestion_signals();
        self.probe_up_acked_per_inc = INFINITE;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.mode = Mode::ProbeBwDown;
        self.pacing_gain = PROBE_DOWN_PACING_GAIN;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    fn start_probe_bw_cruise(&mut self) {
        self.mode = Mode::ProbeBwCruise;
        self.pacing_gain = 1.0;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    /// `probe_up_rounds`: the first UP round raises inflight_longterm by 2^this packets per
    /// cwnd ACKed (0 normally; larger for Linux's ECN re-probe).
    fn start_probe_bw_refill(&mut self, probe_up_rounds: u32) {
        self.reset_short_term_model();
        self.bw_probe_up_rounds = probe_up_rounds;
        self.bw_probe_up_acked = 0;
        self.prev_probe_precautionary = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.mode = Mode::ProbeBwRefill;
        self.pacing_gain = 1.0;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    fn start_probe_bw_up(&mut self, sample: &Sample) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.reset_full_bw();
        self.full_bw = sample.delivery_rate;
        self.mode = Mode::ProbeBwUp;
        self.pacing_gain = PROBE_UP_PACING_GAIN;
        self.cwnd_gain = PROBE_UP_CWND_GAIN;
        self.raise_inflight_longterm_slope();
    }

    /// draft §5.3.3.8 IsTimeToProbeBW (starts REFILL when it is), preceded by Linux's ECN
    /// re-probe.
    fn is_time_to_probe_bw(&mut self, ack: &Ack) -> bool {
        if self.is_time_to_reprobe_after_ecn(ack) {
            return true;
        }
        let now = ack.now;
        let waited = now > self.cycle_stamp + self.bw_probe_wait;
        if waited || self.is_reno_coexistence_probe_time() {
            self.start_probe_bw_refill(0);
            return true;
        }
        false
    }

    /// draft §5.3.3.8 IsRenoCoexistenceProbeTime. TargetInflight is a volume; the rounds
    /// are its size in packets (as Linux `bbr_target_inflight` counts packets).
    fn is_reno_coexistence_probe_time(&self) -> bool {
        let reno_rounds = self.target_inflight() / self.mss;
        self.rounds_since_probe_up >= reno_rounds.min(RENO_MAX_ROUNDS)
    }

    /// draft §5.3.3.9 IsTimeToCruise.
    fn is_time_to_cruise(&self, ack: &Ack) -> bool {
        ack.bytes_in_flight <= self.inflight_with_headroom()
            && ack.bytes_in_flight <= self.inflight(self.max_bw(), 1.0)
    }

    /// draft §5.3.3.9 IsTimeToGoDown.
    fn is_time_to_go_down(&mut self, ack: &Ack, sample: &Sample) -> bool {
        if self.prev_probe_too_high && ack.bytes_in_flight >= self.inflight_longterm {
            self.prev_probe_precautionary = true;
            return true;
        }
        if ack.cwnd_limited && self.cwnd >= self.inflight_longterm {
            self.reset_full_bw();
            self.full_bw = sample.delivery_rate;
        } else if self.full_bw_now {
            return true;
        }
        false
    }

    /// draft §5.3.3.9 RaiseInflightLongtermSlope.
    fn raise_inflight_longterm_slope(&mut self) {
        let growth_this_round = 1u64 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.probe_up_acked_per_inc = (self.cwnd / growth_this_round).max(self.mss);
    }

    /// draft §5.3.3.9 ProbeInflightLongtermUpward.
    fn probe_inflight_longterm_upward(&mut self, ack: &Ack) {
        if !ack.cwnd_limited || self.cwnd < self.inflight_longterm {
            return;
        }
        self.bw_probe_up_acked += ack.bytes_acked;
        if self.bw_probe_up_acked >= self.probe_up_acked_per_inc {
            let delta = self.bw_probe_up_acked / self.probe_up_acked_per_inc;
            self.bw_probe_up_acked -= delta * self.probe_up_acked_per_inc;
            self.inflight_longterm += delta * self.mss;
        }
        if self.round_start {
            self.raise_inflight_longterm_slope();
        }
    }

    /// draft §5.3.3.9 AdaptLongTermModel; true if it decided a state transition.
    fn adapt_long_term_model(&mut self, ack: &Ack, sample: &Sample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.is_bw_probe_sample = false;
            self.ack_phase = AckPhase::Init;
            if self.mode.is_probe_bw() && !sample.is_app_limited {
                // draft §5.5.6 AdvanceMaxBwFilter.
                self.cycle_count += 1;
            }
            if self.mode.is_probe_bw() && self.prev_probe_precautionary && !self.prev_probe_too_high
            {
                self.start_probe_bw_refill(0);
                return true;
            }
        }
        if self.is_inflight_too_high(ack) {
            // Linux bbr_adapt_upper_bounds: too high while the samples reflect a bandwidth
            // probe. Losses were already judged per ACK in `handle_lost` (draft
            // HandleLostPacket); this catches a CE share above ecn_thresh.
            if self.ecn_round_too_high && self.is_bw_probe_sample {
                self.handle_inflight_too_high(ack, sample);
            }
        } else {
            if self.inflight_longterm == INFINITE {
                return false;
            }
            self.inflight_longterm = self.inflight_longterm.max(self.rs_tx_in_flight(ack));
            if self.mode == Mode::ProbeBwUp {
                self.probe_inflight_longterm_upward(ack);
            }
        }
        false
    }

    /// draft §5.3.3.9 UpdateProbeBWCyclePhase.
    fn update_probe_bw_cycle_phase(&mut self, ack: &Ack, sample: &Sample) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_long_term_model(ack, sample) {
            return;
        }
        let mode = self.mode;
        match mode {
            Mode::ProbeBwDown => {
                if self.is_time_to_probe_bw(ack) {
                    return;
                }
                if self.is_time_to_cruise(ack) {
                    self.start_probe_bw_cruise();
                }
            }
            Mode::ProbeBwCruise => {
                self.is_time_to_probe_bw(ack);
            }
            // After one round of REFILL, start UP.
            Mode::ProbeBwRefill if self.round_start => {
                self.is_bw_probe_sample = true;
                self.start_probe_bw_up(sample);
            }
            Mode::ProbeBwUp if self.is_time_to_go_down(ack, sample) => {
                // No high loss (yet).
                self.prev_probe_too_high = false;
                self.start_probe_bw_down(ack.now);
            }
            _ => {}
        }
    }

    // ---- ProbeRTT (draft §5.3.4) -----------------------------------------------------------

    /// draft §5.3.4.3 CheckProbeRTT.
    fn check_probe_rtt(&mut self, ack: &Ack) {
        if self.mode != Mode::ProbeRtt && self.probe_rtt_expired && !self.idle_restart {
            self.enter_probe_rtt();
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
            self.probe_rtt_app_limited = Some((self.delivered, self.delivered));
        }
        if self.mode == Mode::ProbeRtt {
            self.handle_probe_rtt(ack);
        }
        if ack.bytes_acked > 0 {
            self.idle_restart = false;
        }
    }

    /// draft §5.3.4.3 EnterProbeRTT.
    fn enter_probe_rtt(&mut self) {
        self.mode = Mode::ProbeRtt;
        self.pacing_gain = 1.0;
        self.cwnd_gain = PROBE_RTT_CWND_GAIN;
    }

    /// draft §5.3.4.3 HandleProbeRTT.
    fn handle_probe_rtt(&mut self, ack: &Ack) {
        // MarkConnectionAppLimited: C.app_limited = C.delivered + C.inflight.
        let mark = self.delivered + ack.bytes_in_flight;
        if let Some((_, to)) = &mut self.probe_rtt_app_limited {
            *to = (*to).max(mark);
        }
        match self.probe_rtt_done_stamp {
            None if ack.bytes_in_flight <= self.probe_rtt_cwnd() => {
                self.probe_rtt_done_stamp = Some(ack.now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.start_round();
            }
            None => {}
            Some(_) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(ack.now);
                }
            }
        }
    }

    /// draft §5.3.4.3 CheckProbeRTTDone.
    fn check_probe_rtt_done(&mut self, now: SimTime) {
        let Some(done) = self.probe_rtt_done_stamp else {
            return;
        };
        if now <= done {
            return;
        }
        self.probe_rtt_min_stamp = now;
        self.restore_cwnd();
        self.probe_rtt_done_stamp = None;
        // draft §5.3.4.4 ExitProbeRTT.
        self.reset_short_term_model();
        if self.full_bw_reached {
            self.start_probe_bw_down(now);
            self.start_probe_bw_cruise();
        } else {
            self.enter_startup();
        }
    }

    // ---- Per-ACK organisation (draft §5.2.3) ----------------------------------------------

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
        if !self.has_seen_rtt && ack.srtt.is_some_and(|s| !s.is_zero()) {
            self.has_seen_rtt = true;
            self.init_pacing_rate(ack.srtt);
        }
        self.set_pacing_rate_with_gain(self.pacing_gain);
        self.set_send_quantum();
        self.set_cwnd(ack, entered_recovery);
    }

    /// The sender's recovery flag: rising edge = fast recovery begins, falling edge = ends.
    fn track_recovery(&mut self, ack: &Ack) -> bool {
        if ack.in_recovery && !self.in_loss_recovery {
            self.enter_fast_recovery();
            true
        } else {
            if !ack.in_recovery {
                self.exit_loss_recovery();
            }
            false
        }
    }
}

/// Delivery rate in bytes per second; `None` for samples shorter than the min RTT (the
/// delivery-rate draft's GenerateRateSample discards them; repeated here in case the sender
/// did not).
fn delivery_rate(rs: &RateSample, min_rtt: Option<SimDuration>) -> Option<f64> {
    if rs.interval.is_zero() || min_rtt.is_some_and(|m| rs.interval < m) {
        return None;
    }
    Some(rs.delivered as f64 * 1e9 / rs.interval.as_nanos() as f64)
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        INFO.name
    }

    /// draft §5.2.3 UpdateOnACK, preceded by the per-loss steps (§5.2.4) for the losses this
    /// ACK revealed, as Linux marks them before its congestion-control hook.
    fn on_ack(&mut self, ack: &Ack) {
        self.delivered = ack.delivered;
        let entered_recovery = self.track_recovery(ack);
        self.last_ack = Some(LastAck {
            now: ack.now,
            bytes_in_flight: ack.bytes_in_flight,
            bytes_acked: ack.bytes_acked,
        });
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
        if self.in_loss_recovery {
            return;
        }
        let (in_flight, acked) = match self.last_ack {
            Some(last) if last.now == event.now => (last.bytes_in_flight, last.bytes_acked),
            _ => (event.bytes_in_flight, 0),
        };
        self.enter_fast_recovery();
        self.enter_fast_recovery_window(in_flight, acked);
        self.bound_cwnd_for_probe_rtt();
    }

    /// draft §5.6.4.4 OnEnterRTO: SaveCwnd, SaveStateUponLoss (noting the loss), and cwnd =
    /// inflight + 1 packet, where inflight is 0 once the timeout marked everything lost.
    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {
        // No ssthresh to set; the loss response runs on every timeout below (bbr3.md).
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        self.save_cwnd();
        self.note_loss();
        self.in_loss_recovery = true;
        self.in_fast_recovery = false;
        self.packet_conservation = false;
        self.cwnd = self.mss;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.exit_loss_recovery();
    }

    /// draft §5.4.1 HandleRestartFromIdle, with "nothing else in flight" as in bbr.rs.
    fn on_packet_sent(&mut self, now: SimTime, bytes: u64, bytes_in_flight: u64) {
        if bytes_in_flight > bytes || self.in_loss_recovery {
            return;
        }
        self.idle_restart = true;
        self.extra_acked_interval_start = Some(now);
        if self.mode.is_probe_bw() {
            self.set_pacing_rate_with_gain(1.0);
        } else if self.mode == Mode::ProbeRtt {
            self.check_probe_rtt_done(now);
        }
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// BBR does not use ssthresh.
    fn ssthresh(&self) -> u64 {
        UNLIMITED
    }

    fn pacing_rate(&self) -> Option<u64> {
        Some((self.pacing_rate * 8.0) as u64)
    }

    fn controls_recovery_window(&self) -> bool {
        true
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ParamInput;
    use crate::test_support::new_timeout;

    const MSS: u64 = 1000;
    const RTT: SimDuration = SimDuration::from_millis(100);

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    /// pacing_rate in bit/s for `gain * bw` with the 1 % margin (draft §5.6.2).
    fn paced(gain: f64, bw: f64) -> u64 {
        (gain * bw * (100.0 - 1.0) / 100.0 * 8.0) as u64
    }

    struct Flow {
        bbr: Bbr3,
        now: SimTime,
        delivered: u64,
    }

    impl Flow {
        fn new(inputs: &[(&str, ParamInput)]) -> Self {
            let params = Params::from_inputs(PARAMS, inputs.iter().map(|(n, v)| (*n, v))).unwrap();
            Flow {
                bbr: Bbr3::new(&CcConfig::new(MSS), &params),
                now: SimTime::ZERO,
                delivered: 0,
            }
        }

        /// A round-ending stretch ACK one RTT later: `rate * RTT` bytes, rate sample exactly
        /// `rate`, from a packet sent when C.delivered was its value before this ACK.
        fn round(&mut self, rate: f64, in_flight: u64) {
            let at = self.now + RTT;
            let ack = self.rate_ack(at, rate, in_flight);
            self.send(ack);
        }

        fn rate_ack(&mut self, at: SimTime, rate: f64, in_flight: u64) -> Ack {
            let bytes = (rate * RTT.as_secs_f64()).round() as u64;
            let prior_delivered = self.delivered;
            let plain = self.plain_ack(at);
            Ack {
                bytes_acked: bytes,
                delivered: prior_delivered + bytes,
                prior_in_flight: in_flight + bytes,
                bytes_in_flight: in_flight,
                rate_sample: Some(RateSample {
                    delivered: bytes,
                    interval: RTT,
                    prior_delivered,
                    is_app_limited: false,
                }),
                ..plain
            }
        }

        /// One MSS ACKed at `at`, RTT sample 100 ms, no rate sample.
        fn plain_ack(&mut self, at: SimTime) -> Ack {
            Ack {
                now: at,
                bytes_acked: MSS,
                rtt: Some(RTT),
                min_rtt: Some(RTT),
                srtt: Some(RTT),
                prior_in_flight: 10 * MSS,
                bytes_in_flight: 9 * MSS,
                delivered: self.delivered + MSS,
                newly_lost: 0,
                snd_una: 0,
                snd_nxt: 0,
                ecn_ce_bytes: 0,
                rate_sample: None,
                in_recovery: false,
                cwnd_limited: true,
            }
        }

        /// A round-ending ACK as `round`, reporting `ce` of its bytes CE-marked.
        fn ce_round(&mut self, rate: f64, in_flight: u64, ce: u64) {
            let at = self.now + RTT;
            let ack = Ack {
                ecn_ce_bytes: ce,
                ..self.rate_ack(at, rate, in_flight)
            };
            self.send(ack);
        }

        fn send(&mut self, ack: Ack) {
            self.now = ack.now;
            self.delivered = ack.delivered;
            self.bbr.on_ack(&ack);
        }

        /// STARTUP at 1, 2, 4, 8, 8, 8, 8 MB/s: the round-5..7 samples are below
        /// 8e6 * 1.25 = 1e7, so full_bw_reached at round 7 (DRAIN).
        fn into_drain(inputs: &[(&str, ParamInput)]) -> Self {
            let mut flow = Flow::new(inputs);
            for rate in [1e6, 2e6, 4e6, 8e6, 8e6, 8e6, 8e6] {
                flow.round(rate, 5_000_000);
            }
            assert_eq!(flow.bbr.bbr_mode(), Mode::Drain);
            flow
        }

        /// DRAIN ends with nothing in flight; DOWN sees inflight <= BDP at once: CRUISE.
        /// max_bw = bw = 8e6 B/s, min_rtt = 100 ms, BDP = 800 000 B.
        fn into_cruise(inputs: &[(&str, ParamInput)]) -> Self {
            let mut flow = Flow::into_drain(inputs);
            let ack = Ack {
                bytes_in_flight: 0,
                ..flow.plain_ack(flow.now + ms(1))
            };
            flow.send(ack);
            assert_eq!(flow.bbr.bbr_mode(), Mode::ProbeBwCruise);
            flow
        }

        /// CRUISE until the 2.5 s probe wait has passed, REFILL for one round, then UP.
        fn into_up(inputs: &[(&str, ParamInput)]) -> Self {
            let mut flow = Flow::into_cruise(inputs);
            let wait_over = flow.bbr.cycle_stamp + ms(2500) + SimDuration::from_nanos(1);
            let ack = flow.plain_ack(wait_over);
            flow.send(ack);
            assert_eq!(flow.bbr.bbr_mode(), Mode::ProbeBwRefill);
            flow.round(8e6, 900_000);
            assert_eq!(flow.bbr.bbr_mode(), Mode::ProbeBwUp);
            flow
        }
    }

    #[test]
    fn startup_gains_and_initial_pacing() {
        let flow = Flow::new(&[]);
        let bbr = &flow.bbr;
        assert_eq!(bbr.mode(), "startup");
        // StartupPacingGain = 4 ln 2 = 2.772588722239781; cwnd gain 2 (draft §5.3.1.1).
        assert!((bbr.pacing_gain - 2.772_588_722_239_781).abs() < 1e-15);
        assert_eq!(bbr.cwnd_gain, 2.0);
        assert_eq!(bbr.cwnd(), 10 * MSS);
        // InitPacingRate: 4 ln 2 * 10 000 B / 1 ms, no margin.
        let expected = (4.0 * libm::log(2.0) * 10_000.0 / 1e-3 * 8.0) as u64;
        assert_eq!(bbr.pacing_rate(), Some(expected));
        assert!(bbr.controls_recovery_window());
        assert_eq!(bbr.ssthresh(), UNLIMITED);
    }

    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_growth_of_the_sample() {
        let mut flow = Flow::new(&[]);
        // (sample, full_bw, count): the baseline moves on each >= 25 % rise of RS.delivery_rate.
        for (i, (rate, full_bw, count)) in [
            (1e6, 1e6, 0),
            (2e6, 2e6, 0),
            (4e6, 4e6, 0),
            (8e6, 8e6, 0),
            (9e6, 8e6, 1),
            (9.9e6, 8e6, 2),
        ]
        .into_iter()
        .enumerate()
        {
            flow.round(rate, 5_000_000);
            assert_eq!(flow.bbr.round_count, i as u64 + 1);
            assert_eq!((flow.bbr.full_bw, flow.bbr.full_bw_count), (full_bw, count));
            assert_eq!(flow.bbr.mode(), "startup");
        }
        // 9.5e6 < 1e7: third round without growth.
        flow.round(9.5e6, 5_000_000);
        assert!(flow.bbr.full_bw_reached && flow.bbr.full_bw_now);
        assert_eq!(flow.bbr.mode(), "drain");
        assert_eq!(flow.bbr.pacing_gain, 0.5);
        assert_eq!(flow.bbr.cwnd_gain, 2.0);
        assert_eq!(flow.bbr.drain_start_round, 7);
        // max_bw is the best sample, 9.9e6; DRAIN paces at 0.5 * 9.9e6 * 0.99.
        assert_eq!(flow.bbr.max_bw(), 9.9e6);
        assert_eq!(flow.bbr.pacing_rate(), Some(paced(0.5, 9.9e6)));
    }

    #[test]
    fn drain_ends_when_inflight_is_down_to_the_bdp() {
        let mut flow = Flow::into_drain(&[]);
        // Inflight(1.0) = max(BDP, offload budget, 4 MSS) = max(8e6 * 0.1 = 800 000,
        // 3 * 3 960 (0.5 * 8e6 * 0.99 B/s * 1 ms), 4 000) = 800 000.
        assert_eq!(flow.bbr.inflight(flow.bbr.bw, 1.0), 800_000);
        let ack = Ack {
            bytes_in_flight: 800_001,
            ..flow.plain_ack(flow.now + ms(1))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "drain");
        let ack = Ack {
            bytes_in_flight: 800_000,
            ..flow.plain_ack(flow.now + ms(1))
        };
        flow.send(ack);
        // ProbeBW_DOWN, and on the same ACK inflight <= BDP means CRUISE.
        assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
        assert_eq!(flow.bbr.pacing_gain, 1.0);
    }

    #[test]
    fn drain_ends_after_three_rounds_even_with_a_standing_queue() {
        let mut flow = Flow::into_drain(&[]);
        // drain_start_round = 7: rounds 8, 9, 10 stay (round_count > 7 + 3 is false)...
        for round in 8..=10 {
            flow.round(7e6, 2_000_000);
            assert_eq!(flow.bbr.round_count, round);
            assert_eq!(flow.bbr.mode(), "drain");
        }
        // ...round 11 leaves for ProbeBW_DOWN, where 2 MB in flight is no time to cruise.
        flow.round(7e6, 2_000_000);
        assert_eq!(flow.bbr.mode(), "probe_bw_down");
        assert_eq!(flow.bbr.pacing_gain, 0.9);
    }

    #[test]
    fn probe_bw_cycles_down_cruise_refill_up_down() {
        let mut flow = Flow::into_cruise(&[]);
        assert_eq!(flow.bbr.pacing_rate(), Some(paced(1.0, 8e6)));
        // CRUISE holds until the (deterministic) 2.5 s probe wait has passed.
        let stamp = flow.bbr.cycle_stamp;
        let ack = flow.plain_ack(stamp + ms(2500));
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
        let ack = flow.plain_ack(stamp + ms(2500) + SimDuration::from_nanos(1));
        flow.send(ack);
        // REFILL: gain 1, short-term model reset, a new round started.
        assert_eq!(flow.bbr.mode(), "probe_bw_refill");
        assert_eq!(flow.bbr.pacing_gain, 1.0);
        assert!(flow.bbr.bw_shortterm.is_infinite());
        assert_eq!(flow.bbr.next_round_delivered, flow.delivered);
        // An ACK within the round: still REFILL.
        let ack = flow.plain_ack(flow.now + ms(10));
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_refill");
        // One round of REFILL: UP at 1.25, cwnd gain 2.25, full_bw = this sample.
        flow.round(8e6, 900_000);
        assert_eq!(flow.bbr.mode(), "probe_bw_up");
        assert_eq!((flow.bbr.pacing_gain, flow.bbr.cwnd_gain), (1.25, 2.25));
        assert_eq!(flow.bbr.full_bw, 8e6);
        assert!(flow.bbr.is_bw_probe_sample);
        assert_eq!(flow.bbr.pacing_rate(), Some(paced(1.25, 8e6)));
        // Three rounds without a 25 % rise (8e6 < 1e7): full_bw_now, then DOWN at 0.9.
        for count in 1..=2 {
            flow.round(8e6, 1_000_000);
            assert_eq!(flow.bbr.full_bw_count, count);
            assert_eq!(flow.bbr.mode(), "probe_bw_up");
        }
        flow.round(8e6, 1_000_000);
        assert_eq!(flow.bbr.mode(), "probe_bw_down");
        assert_eq!(flow.bbr.pacing_gain, 0.9);
        assert!(!flow.bbr.prev_probe_too_high);
        // DOWN -> CRUISE once inflight <= Inflight(max_bw, 1) = 800 000 (no inflight_longterm,
        // so no headroom condition).
        let ack = Ack {
            bytes_in_flight: 800_001,
            ..flow.plain_ack(flow.now + ms(10))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_down");
        let ack = Ack {
            bytes_in_flight: 800_000,
            ..flow.plain_ack(flow.now + ms(10))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
    }

    #[test]
    fn max_bw_filter_advances_one_slot_per_probe_cycle() {
        let mut flow = Flow::into_cruise(&[]);
        // The DOWN entered on leaving DRAIN is in ACKS_PROBE_STOPPING: the next round end
        // advances cycle_count to 1; samples from cycle 0 (8e6) still count.
        assert_eq!(flow.bbr.cycle_count, 0);
        flow.round(5e6, 700_000);
        assert_eq!(flow.bbr.cycle_count, 1);
        assert_eq!(flow.bbr.max_bw(), 8e6);
        // Samples in cycle 1 cannot age out cycle 0 (window = current + previous cycle).
        flow.round(5e6, 700_000);
        assert_eq!(flow.bbr.max_bw(), 8e6);
        // Force the next cycle: cycle 2 forgets cycle 0.
        flow.bbr.cycle_count = 2;
        flow.round(5e6, 700_000);
        assert_eq!(flow.bbr.max_bw(), 5e6);
    }

    #[test]
    fn reno_coexistence_rounds_can_start_the_probe_before_the_wall_clock() {
        let mut flow = Flow::into_cruise(&[]);
        // Shrink the path: bw 200 000 B/s so BDP = 20 000 B = 20 packets;
        // TargetInflight = min(BDP, cwnd) = 20 packets -> probe after 20 rounds.
        flow.bbr.max_bw_filter.reset();
        flow.bbr.max_bw_filter.update(flow.bbr.cycle_count, 2e5, 2);
        flow.bbr.bw = 2e5;
        assert_eq!(flow.bbr.target_inflight(), 20_000);
        flow.bbr.rounds_since_probe_up = 19;
        let ack = flow.plain_ack(flow.now + ms(1));
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
        flow.bbr.rounds_since_probe_up = 20;
        let ack = flow.plain_ack(flow.now + ms(1));
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_refill");
    }

    #[test]
    fn loss_rate_above_two_percent_in_probe_up_sets_inflight_longterm() {
        let mut flow = Flow::into_up(&[]);
        assert_eq!(flow.bbr.inflight_longterm(), INFINITE);
        // RS.lost = 20 000 lost in this round; RS.tx_in_flight = 1 000 000 in flight
        // + 1 000 ACKed + 20 000 lost = 1 021 000; 2 % of it is 20 420 > 20 000: tolerated.
        let ack = Ack {
            bytes_in_flight: 1_000_000,
            newly_lost: 20_000,
            ..flow.plain_ack(flow.now + ms(5))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_up");
        assert_eq!(flow.bbr.inflight_longterm(), INFINITE);
        // 1 000 more lost: 21 000 > 0.02 * (1 000 000 + 1 000 + 21 000) = 20 440: too high.
        // inflight_longterm = max(tx_in_flight, Beta * min(BDP, cwnd))
        //                   = max(1 022 000, 0.7 * 800 000 = 560 000) = 1 022 000.
        let ack = Ack {
            bytes_in_flight: 1_000_000,
            newly_lost: 1_000,
            ..flow.plain_ack(flow.now + ms(5))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.inflight_longterm(), 1_022_000);
        assert_eq!(flow.bbr.mode(), "probe_bw_down");
        assert!(flow.bbr.prev_probe_too_high);
        assert!(!flow.bbr.is_bw_probe_sample);
    }

    #[test]
    fn beta_bounds_the_cut_and_headroom_gates_cruise() {
        let mut flow = Flow::into_up(&[]);
        let cwnd = flow.bbr.cwnd();
        assert!(cwnd >= 800_000);
        // 12 000 lost of tx_in_flight 500 000 + 1 000 + 12 000 = 513 000 (2 % = 10 260): too
        // high, and Beta * min(BDP, cwnd) = 0.7 * 800 000 = 560 000 > 513 000.
        let ack = Ack {
            bytes_in_flight: 500_000,
            newly_lost: 12_000,
            ..flow.plain_ack(flow.now + ms(5))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.inflight_longterm(), 560_000);
        assert_eq!(flow.bbr.mode(), "probe_bw_down");
        // DOWN -> CRUISE needs inflight <= InflightWithHeadroom =
        // 560 000 - max(1 MSS, 0.15 * 560 000 = 84 000) = 476 000 (and <= BDP); 500 000 was
        // in flight, so DOWN holds. (The round's 12 000 lost still exceed 2 % of the
        // tx_in_flight estimates below, so inflight_longterm is not raised back.)
        assert_eq!(flow.bbr.inflight_with_headroom(), 476_000);
        let ack = Ack {
            bytes_in_flight: 476_001,
            ..flow.plain_ack(flow.now + ms(5))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_down");
        // In DOWN cwnd is capped at inflight_longterm.
        assert!(flow.bbr.cwnd() <= 560_000);
        let ack = Ack {
            bytes_in_flight: 476_000,
            ..flow.plain_ack(flow.now + ms(5))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
        // CRUISE caps cwnd at the headroom-adjusted bound.
        assert_eq!(flow.bbr.cwnd(), 476_000);
    }

    #[test]
    fn short_term_bounds_cut_once_per_lossy_round_and_reset_on_refill() {
        let mut flow = Flow::into_cruise(&[]);
        let cwnd0 = flow.bbr.cwnd();
        // A loss in CRUISE starts a loss round (NoteLoss)...
        let ack = Ack {
            newly_lost: MSS,
            ..flow.plain_ack(flow.now + ms(10))
        };
        flow.send(ack);
        assert!(flow.bbr.is_loss_in_round);
        assert!(flow.bbr.bw_shortterm.is_infinite());
        // ...which ends at the ACK of a packet sent after it: bw_latest = 6e6,
        // inflight_latest = 600 000. InitLowerBounds: bw_shortterm = max_bw = 8e6,
        // inflight_shortterm = cwnd; LossLowerBounds:
        // bw_shortterm = max(6e6, 0.7 * 8e6 = 5.6e6) = 6e6,
        // inflight_shortterm = max(600 000, 0.7 * cwnd).
        let ack = flow.rate_ack(flow.now + ms(100), 6e6, 500_000);
        flow.send(ack);
        assert_eq!(flow.bbr.bw_shortterm, 6e6);
        let inflight_lo = 600_000u64.max((0.7 * cwnd0 as f64) as u64);
        assert_eq!(flow.bbr.inflight_shortterm(), inflight_lo);
        // bw = min(max_bw, bw_shortterm) = 6e6 sets the pacing rate; cwnd obeys the bound.
        assert_eq!(flow.bbr.bw(), 6e6);
        assert_eq!(flow.bbr.pacing_rate(), Some(paced(1.0, 6e6)));
        assert!(flow.bbr.cwnd() <= inflight_lo);
        // A round without loss changes nothing.
        let cwnd1 = flow.bbr.cwnd();
        let ack = flow.rate_ack(flow.now + ms(100), 3e6, 300_000);
        flow.send(ack);
        assert_eq!(flow.bbr.bw_shortterm, 6e6);
        // Another lossy round: bw_shortterm = max(3e6, 0.7 * 6e6 = 4.2e6) = 4.2e6 (bw_latest
        // restarted at the last round end with that round's 3e6 sample),
        // inflight_shortterm = max(300 000, 0.7 * previous).
        let ack = Ack {
            newly_lost: MSS,
            ..flow.plain_ack(flow.now + ms(10))
        };
        flow.send(ack);
        let ack = flow.rate_ack(flow.now + ms(100), 3e6, 300_000);
        flow.send(ack);
        assert!((flow.bbr.bw_shortterm - 0.7 * 6e6).abs() < 1e-6);
        assert_eq!(
            flow.bbr.inflight_shortterm(),
            300_000u64.max((0.7 * inflight_lo as f64) as u64)
        );
        assert!(flow.bbr.cwnd() <= cwnd1);
        // REFILL forgets the short-term model.
        let wait_over = flow.bbr.cycle_stamp + ms(2500) + SimDuration::from_nanos(1);
        let ack = flow.plain_ack(wait_over);
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_refill");
        assert!(flow.bbr.bw_shortterm.is_infinite());
        assert_eq!(flow.bbr.inflight_shortterm(), INFINITE);
        assert_eq!(flow.bbr.bw(), 8e6);
    }

    #[test]
    fn probing_states_do_not_cut_the_short_term_bounds() {
        let mut flow = Flow::into_up(&[]);
        // A small loss in UP (below 2 %), then the loss round ends: IsProbingBW, no cut.
        let ack = Ack {
            bytes_in_flight: 1_000_000,
            newly_lost: MSS,
            ..flow.plain_ack(flow.now + ms(5))
        };
        flow.send(ack);
        flow.round(8e6, 1_000_000);
        assert!(flow.bbr.bw_shortterm.is_infinite());
        assert_eq!(flow.bbr.inflight_shortterm(), INFINITE);
    }

    #[test]
    fn inflight_longterm_grows_in_probe_up_when_cwnd_limited_by_it() {
        let mut flow = Flow::into_up(&[]);
        flow.bbr.inflight_longterm = 900_000;
        flow.bbr.cwnd = 900_000;
        flow.bbr.bw_probe_up_rounds = 0;
        flow.bbr.raise_inflight_longterm_slope();
        // First slope: growth 1 << 0 = 1 packet per cwnd ACKed: per_inc = 900 000 / 1.
        assert_eq!(flow.bbr.probe_up_acked_per_inc, 900_000);
        assert_eq!(flow.bbr.bw_probe_up_rounds, 1);
        // ACKs of 100 000 bytes with 800 000 in flight (tx_in_flight 900 000, not above
        // inflight_longterm) while cwnd-limited at inflight_longterm: after 900 000 bytes,
        // +1 MSS.
        for i in 1..=9 {
            let ack = Ack {
                bytes_acked: 100_000,
                bytes_in_flight: 800_000,
                ..flow.plain_ack(flow.now + ms(1))
            };
            flow.send(ack);
            let expected = if i < 9 { 900_000 } else { 901_000 };
            assert_eq!(flow.bbr.inflight_longterm(), expected, "ACK {i}");
        }
        // Next slope doubles the growth: per_inc = cwnd / 2.
        flow.bbr.cwnd = 900_000;
        flow.bbr.raise_inflight_longterm_slope();
        assert_eq!(flow.bbr.probe_up_acked_per_inc, 450_000);
        // Not cwnd-limited: no growth.
        let before = flow.bbr.inflight_longterm();
        let ack = Ack {
            bytes_acked: 100_000,
            bytes_in_flight: 800_000,
            cwnd_limited: false,
            ..flow.plain_ack(flow.now + ms(5))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.inflight_longterm(), before);
    }

    #[test]
    fn startup_exits_on_persistent_high_loss() {
        let run = |loss_events: u64| {
            let mut flow = Flow::new(&[]);
            flow.round(1e6, 100_000);
            flow.round(2e6, 100_000);
            assert_eq!(flow.bbr.round_count, 2);
            // Fast recovery starts (round 2 becomes the recovery's first round); each of
            // the next ACKs marks 2 500 bytes lost.
            for i in 0..loss_events {
                let ack = Ack {
                    in_recovery: true,
                    bytes_in_flight: 100_000,
                    newly_lost: 2_500,
                    ..flow.plain_ack(flow.now + ms(1))
                };
                flow.send(ack);
                assert_eq!(flow.bbr.loss_events_in_round, i as u32 + 1);
            }
            // The ACK that ends the round (and the loss round): 250 000 B delivered at
            // 2.5e6 B/s, 300 000 B left in flight (above Inflight(1) = BDP = 200 000, so
            // DRAIN does not end at once); RS.lost = 2 500 * n,
            // RS.tx_in_flight = 300 000 + 250 000 + lost.
            let ack = Ack {
                in_recovery: true,
                ..flow.rate_ack(flow.now + ms(90), 2.5e6, 300_000)
            };
            flow.send(ack);
            flow
        };
        // 6 loss events, 15 000 lost > 0.02 * 565 000 = 11 300, after a full round in
        // recovery: STARTUP ends; inflight_longterm = max(BDP = 2e6 * 0.1 = 200 000,
        // inflight_latest = 250 000) = 250 000.
        let flow = run(6);
        assert_eq!(flow.bbr.round_count, 3);
        assert!(flow.bbr.full_bw_reached);
        assert_eq!(flow.bbr.mode(), "drain");
        assert_eq!(flow.bbr.inflight_longterm(), 250_000);
        // 5 loss events: 12 500 > 0.02 * 562 500 = 11 250, but fewer than 6: stay.
        let flow = run(5);
        assert_eq!(flow.bbr.mode(), "startup");
        assert_eq!(flow.bbr.inflight_longterm(), INFINITE);
    }

    #[test]
    fn probe_rtt_every_five_seconds_at_half_the_bdp() {
        let mut flow = Flow::into_cruise(&[]);
        // probe_rtt_min_delay was last lowered by the first sample, at t = 100 ms; equal
        // samples do not refresh it (strict <), so it expires after 5.1 s.
        assert_eq!(flow.bbr.probe_rtt_min_stamp, SimTime::ZERO + ms(100));
        let t_exp = SimTime::ZERO + ms(5100);
        let ack = Ack {
            bytes_in_flight: 700_000,
            ..flow.plain_ack(t_exp)
        };
        flow.send(ack);
        // (The probe wait has passed too: CRUISE went on to REFILL.)
        assert_eq!(flow.bbr.mode(), "probe_bw_refill");
        let ack = Ack {
            bytes_in_flight: 700_000,
            ..flow.plain_ack(t_exp + ms(1))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_rtt");
        assert_eq!((flow.bbr.pacing_gain, flow.bbr.cwnd_gain), (1.0, 0.5));
        // ProbeRTTCwnd = max(0.5 * 8e6 * 0.1 = 400 000, 4 MSS).
        assert_eq!(flow.bbr.cwnd(), 400_000);
        // Inflight reaches it: 200 ms clock and a new round start.
        let t_low = t_exp + ms(50);
        let ack = Ack {
            bytes_in_flight: 400_000,
            ..flow.plain_ack(t_low)
        };
        flow.send(ack);
        assert_eq!(flow.bbr.probe_rtt_done_stamp, Some(t_low + ms(200)));
        // Round done before 200 ms: stay.
        let ack = flow.rate_ack(t_low + ms(100), 4e6, 400_000);
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_rtt");
        // After 200 ms: leave through DOWN straight to CRUISE, the next ProbeRTT 5 s away.
        let t_exit = t_low + ms(201);
        let ack = Ack {
            bytes_in_flight: 400_000,
            ..flow.plain_ack(t_exit)
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
        assert_eq!(flow.bbr.probe_rtt_min_stamp, t_exit);
        assert!(flow.bbr.cwnd() > 400_000);
        // The 4e6 sample from inside ProbeRTT was app-limited and did not count.
        assert_eq!(flow.bbr.max_bw(), 8e6);
    }

    #[test]
    fn packet_conservation_in_recovery_and_restore() {
        let mut flow = Flow::into_cruise(&[]);
        let c0 = flow.bbr.cwnd();
        let ack = Ack {
            in_recovery: true,
            bytes_acked: 2 * MSS,
            bytes_in_flight: 300_000,
            newly_lost: MSS,
            ..flow.plain_ack(flow.now + ms(1))
        };
        flow.send(ack);
        // pipe + max(ACKed, 1 MSS) = 302 000.
        assert_eq!(flow.bbr.cwnd(), 302_000);
        assert_eq!(flow.bbr.prior_cwnd, c0);
        // More losses: 302 000 - 5 000 = 297 000 < pipe + ACKed = 299 000 + 1 000.
        let ack = Ack {
            in_recovery: true,
            bytes_in_flight: 299_000,
            newly_lost: 5 * MSS,
            ..flow.plain_ack(flow.now + ms(1))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.cwnd(), 300_000);
        flow.bbr.on_recovery_exit(flow.now);
        assert_eq!(flow.bbr.cwnd(), c0);
    }

    #[test]
    fn timeout_cuts_to_one_packet() {
        let mut flow = Flow::into_cruise(&[]);
        let c0 = flow.bbr.cwnd();
        new_timeout(
            &mut flow.bbr,
            &TimeoutEvent {
                now: flow.now,
                bytes_in_flight: 500_000,
            },
        );
        assert_eq!(flow.bbr.cwnd(), MSS);
        assert!(flow.bbr.is_loss_in_round);
        let ack = Ack {
            in_recovery: true,
            bytes_in_flight: 0,
            ..flow.plain_ack(flow.now + RTT)
        };
        flow.send(ack);
        // 1 000 + 1 000 ACKed, floored at 4 packets.
        assert_eq!(flow.bbr.cwnd(), 4 * MSS);
        let ack = flow.plain_ack(flow.now + ms(1));
        flow.send(ack);
        assert!(flow.bbr.cwnd() >= c0.min(flow.bbr.max_inflight));
    }

    #[test]
    fn seeded_probe_timing_stays_in_the_drafts_ranges() {
        let mut offsets = [false; 2];
        for seed in 1..=30 {
            let flow = Flow::into_cruise(&[("seed", ParamInput::Number(seed as f64))]);
            let again = Flow::into_cruise(&[("seed", ParamInput::Number(seed as f64))]);
            let wait = flow.bbr.bw_probe_wait;
            assert_eq!(wait, again.bbr.bw_probe_wait);
            assert!(wait >= SimDuration::from_secs(2) && wait < SimDuration::from_secs(3));
            offsets[flow.bbr.rounds_since_probe_up as usize] = true;
        }
        assert_eq!(offsets, [true, true]);
        let flow = Flow::into_cruise(&[]);
        assert_eq!(flow.bbr.bw_probe_wait, ms(2500));
    }

    // ---- ECN (Linux tcp_bbr.c v3) ----------------------------------------------------------

    /// The helpers' RTT is 100 ms, above the default 5 ms eligibility bound: these tests lift
    /// the bound (ecn_max_rtt = 0: any RTT) unless they test it.
    fn any_rtt() -> [(&'static str, ParamInput); 1] {
        [("ecn_max_rtt", ParamInput::Number(0.0))]
    }

    #[test]
    fn ecn_parameters_default_to_linux_values() {
        let bbr = Flow::new(&[]).bbr;
        // Linux tcp_bbr.c: ecn_alpha_gain 16/256, ecn_thresh 128/256, ecn_factor 1/3 (85/256
        // in its fixed point), ecn_reprobe_gain 128/256, ecn_max_rtt 5 000 us, alpha starts
        // at 1 (256/256).
        assert_eq!(bbr.ecn.alpha_gain, 1.0 / 16.0);
        assert_eq!(bbr.ecn.thresh, 0.5);
        assert_eq!(bbr.ecn.factor, 1.0 / 3.0);
        assert_eq!(bbr.ecn.reprobe_gain, 0.5);
        assert_eq!(bbr.ecn.max_rtt, Some(ms(5)));
        assert!(bbr.ecn.enabled);
        assert_eq!(bbr.ecn_alpha(), 1.0);
        assert!(!bbr.ecn_eligible());
        assert!(bbr.responds_to_ecn());
    }

    #[test]
    fn ecn_alpha_is_an_ewma_of_the_ce_share_per_round_and_two_high_rounds_end_startup() {
        let mut flow = Flow::new(&any_rtt());
        // Round 1 (100 000 B, no marks): min_rtt is not known yet when the round starts
        // (UpdateMinRTT runs later on that ACK), so the flow is not eligible and alpha stays
        // at its initial 1.
        flow.ce_round(1e6, 100_000, 0);
        assert!(!flow.bbr.ecn_eligible());
        assert_eq!(flow.bbr.ecn_alpha(), 1.0);
        // Round 2 (200 000 B, 100 000 CE): eligible; the first ratio covers everything since
        // the connection began (alpha_last_delivered starts at 0): 100 000 / 300 000 = 1/3.
        // alpha = 15/16 * 1 + 1/16 * 1/3 = 0.958 333...
        flow.ce_round(2e6, 100_000, 100_000);
        assert!(flow.bbr.ecn_eligible());
        let mut alpha = 15.0 / 16.0 + 1.0 / 16.0 / 3.0;
        assert!((flow.bbr.ecn_alpha() - alpha).abs() < 1e-12);
        // Round 3 (400 000 B, none): alpha = 15/16 * 0.958 333 = 0.898 437 5.
        flow.ce_round(4e6, 100_000, 0);
        alpha *= 15.0 / 16.0;
        assert!((flow.bbr.ecn_alpha() - 0.898_437_5).abs() < 1e-12);
        // Round 4 (800 000 B, all marked): alpha = 15/16 * 0.898 437 5 + 1/16
        // = 0.904 785 156 25; the first STARTUP round with a CE share >= 50 %.
        flow.ce_round(8e6, 100_000, 800_000);
        alpha = 15.0 / 16.0 * alpha + 1.0 / 16.0;
        assert!((flow.bbr.ecn_alpha() - 0.904_785_156_25).abs() < 1e-12);
        assert_eq!(flow.bbr.startup_ecn_rounds, 1);
        assert_eq!(flow.bbr.mode(), "startup");
        // Round 5 decides, with 800 000 B delivered: STARTUP's check is ce_ratio >= 50 %
        // (Linux bbr_check_ecn_too_high_in_startup), so 399 999 CE bytes restart the count
        // and exactly 400 000 make the second round in a row that ends STARTUP.
        let first_four = || {
            let mut flow = Flow::new(&any_rtt());
            for (rate, ce) in [(1e6, 0), (2e6, 100_000), (4e6, 0), (8e6, 800_000)] {
                flow.ce_round(rate, 100_000, ce);
            }
            flow
        };
        let mut below = first_four();
        below.ce_round(8e6, 1_000_000, 399_999);
        assert_eq!(below.bbr.startup_ecn_rounds, 0);
        assert_eq!(below.bbr.mode(), "startup");
        let mut at = first_four();
        at.ce_round(8e6, 1_000_000, 400_000);
        assert_eq!(at.bbr.mode(), "drain");
        // With 400 001 (above 50 %, so the round is also "too high" and DRAIN does not raise
        // inflight_longterm to RS.tx_in_flight on the same ACK): STARTUP ends although the
        // bandwidth grew within 3 rounds (full_bw_count 1); inflight_longterm =
        // max(BDP = 8e6 B/s * 100 ms = 800 000, inflight_latest = 800 000) = 800 000.
        // alpha = 15/16 * 0.904 785 156 25 + 1/16 * 400 001 / 800 000. (1 MB in flight >
        // Inflight(1) = 800 000, so DRAIN does not end on the same ACK.)
        flow.ce_round(8e6, 1_000_000, 400_001);
        alpha = 15.0 / 16.0 * alpha + 400_001.0 / 800_000.0 / 16.0;
        assert!((flow.bbr.ecn_alpha() - alpha).abs() < 1e-12);
        assert!((alpha - 0.879_486_162_109_375).abs() < 1e-12);
        assert_eq!(flow.bbr.full_bw_count, 1);
        assert!(flow.bbr.full_bw_reached);
        assert_eq!(flow.bbr.mode(), "drain");
        assert_eq!(flow.bbr.inflight_longterm(), 800_000);
    }

    #[test]
    fn a_probe_up_round_with_more_than_half_its_data_ce_marked_sets_inflight_longterm() {
        // Exactly 50 % is not too high (Linux: RS.delivered_ce > RS.delivered * ecn_thresh).
        let mut flow = Flow::into_up(&any_rtt());
        flow.ce_round(8e6, 900_000, 400_000);
        assert_eq!(flow.bbr.mode(), "probe_bw_up");
        assert_eq!(flow.bbr.inflight_longterm(), INFINITE);
        assert!(!flow.bbr.prev_probe_too_high);
        // One byte more: the round's 800 000 B carried 400 001 CE bytes, > 50 %. As for a
        // loss rate above 2 % (HandleInflightTooHigh): inflight_longterm = max(RS.tx_in_flight,
        // Beta * min(BDP, cwnd)) = max(900 000 in flight + 800 000 ACKed, 0.7 * 800 000)
        // = 1 700 000, and UP ends for DOWN (900 000 in flight > BDP: no CRUISE yet).
        let mut flow = Flow::into_up(&any_rtt());
        flow.ce_round(8e6, 900_000, 400_001);
        assert_eq!(flow.bbr.inflight_longterm(), 1_700_000);
        assert_eq!(flow.bbr.mode(), "probe_bw_down");
        assert!(flow.bbr.prev_probe_too_high);
        assert!(!flow.bbr.is_bw_probe_sample);
        // A loss-free ECN round does not cut the short-term bounds in UP (probing).
        assert!(flow.bbr.bw_shortterm.is_infinite());
    }

    #[test]
    fn a_probe_stops_within_the_round_once_marks_exceed_half_the_last_rounds_data() {
        let mut flow = Flow::into_up(&any_rtt());
        // The round that started UP delivered 1 000 + 1 000 (two plain ACKs) + 800 000 B.
        assert_eq!(flow.bbr.ecn_last_round_delivered, 802_000);
        // ACKs of 100 000 B, all marked, within the next round: 400 000 CE bytes are not
        // more than 50 % of 802 000 = 401 000...
        let marked = |flow: &mut Flow| {
            let ack = Ack {
                bytes_acked: 100_000,
                delivered: flow.delivered + 100_000,
                bytes_in_flight: 900_000,
                ecn_ce_bytes: 100_000,
                ..flow.plain_ack(flow.now + ms(10))
            };
            flow.send(ack);
        };
        for _ in 0..4 {
            marked(&mut flow);
        }
        assert_eq!(flow.bbr.mode(), "probe_bw_up");
        assert_eq!(flow.bbr.inflight_longterm(), INFINITE);
        // ...500 000 are: the data of one round trip is more than half marked whatever the
        // rest of this round brings. inflight_longterm = max(900 000 in flight + 100 000
        // ACKed, 0.7 * min(BDP, cwnd)) = 1 000 000; DOWN.
        marked(&mut flow);
        assert_eq!(flow.bbr.inflight_longterm(), 1_000_000);
        assert_eq!(flow.bbr.mode(), "probe_bw_down");
    }

    #[test]
    fn ce_marks_outside_probes_cut_inflight_shortterm_by_ecn_factor_times_alpha() {
        let mut flow = Flow::into_cruise(&any_rtt());
        // Clean numbers: alpha 0.5, and a round whose CE share is 0.5 keeps it there
        // (15/16 * 0.5 + 1/16 * 0.5); cwnd 600 000.
        flow.bbr.ecn_alpha = 0.5;
        flow.bbr.cwnd = 600_000;
        let round_bytes = flow.delivered - flow.bbr.alpha_last_delivered + 800_000;
        flow.ce_round(8e6, 500_000, round_bytes / 2);
        assert_eq!(flow.bbr.ecn_alpha(), 0.5);
        // InitLowerBounds: inflight_shortterm = cwnd; ECN cut: 600 000 * (1 - 1/3 * 0.5)
        // = 500 000 (within a byte: 1/3 is not exact in binary). No floor at
        // inflight_latest (800 000), unlike the loss cut; bw_shortterm is not cut.
        let lo1 = flow.bbr.inflight_shortterm();
        assert!(lo1.abs_diff(500_000) <= 1, "inflight_shortterm {lo1}");
        assert!(flow.bbr.bw_shortterm.is_infinite());
        assert_eq!(flow.bbr.bw(), 8e6);
        assert!(flow.bbr.cwnd() <= lo1);
        assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
        // A round without marks: no cut; alpha = 15/16 * 0.5 = 0.468 75.
        flow.ce_round(8e6, 400_000, 0);
        assert_eq!(flow.bbr.inflight_shortterm(), lo1);
        assert_eq!(flow.bbr.ecn_alpha(), 0.468_75);
        // A round with 10 % marked (80 000 of 800 000): alpha = 15/16 * 0.468 75 + 1/16 * 0.1
        // = 0.445 703 125; inflight_shortterm = lo1 * (1 - 0.445 703 125 / 3).
        flow.ce_round(8e6, 400_000, 80_000);
        let alpha = 15.0 / 16.0 * 0.468_75 + 0.1 / 16.0;
        assert!((flow.bbr.ecn_alpha() - 0.445_703_125).abs() < 1e-12);
        let lo2 = (lo1 as f64 * (1.0 - alpha / 3.0)) as u64;
        assert!(flow.bbr.inflight_shortterm().abs_diff(lo2) <= 1);
        assert!(lo2 < 426_000 && lo2 > 425_000, "{lo2}");
        // Loss and marks in the same round. The loss cut is max(inflight_latest, 0.7 * lo2)
        // = 800 000: inflight_latest is the largest delivery since the loss round began,
        // the previous round's 800 000 (the loss cut never goes below what the path just
        // delivered, and here even lifts the bound). The ECN cut lo2 * (1 - alpha' / 3),
        // alpha' = 15/16 * alpha + 1/16 * 300 000 / 301 000, is about 357 000: the lower wins.
        let ack = Ack {
            newly_lost: MSS,
            ..flow.plain_ack(flow.now + ms(10))
        };
        flow.send(ack);
        let alpha_before = flow.bbr.ecn_alpha();
        let lo_before = flow.bbr.inflight_shortterm();
        flow.ce_round(3e6, 300_000, 300_000);
        let ratio = 300_000.0 / (1_000.0 + 300_000.0);
        let alpha = 15.0 / 16.0 * alpha_before + ratio / 16.0;
        let ecn_lo = (lo_before as f64 * (1.0 - alpha / 3.0)) as u64;
        let loss_lo = 800_000u64.max((0.7 * lo_before as f64) as u64);
        assert_eq!(loss_lo, 800_000);
        assert!(ecn_lo < 358_000 && ecn_lo > 356_000, "{ecn_lo}");
        assert!(flow.bbr.inflight_shortterm().abs_diff(ecn_lo) <= 1);
    }

    #[test]
    fn no_ecn_response_when_ineligible_or_disabled() {
        for (inputs, why) in [
            (vec![], "min_rtt 100 ms above ecn_max_rtt 5 ms"),
            (
                vec![
                    ("ecn_max_rtt", ParamInput::Number(0.0)),
                    ("ecn", ParamInput::Bool(false)),
                ],
                "ecn = false",
            ),
            (
                vec![
                    ("ecn_max_rtt", ParamInput::Number(0.0)),
                    ("ecn_factor", ParamInput::Number(0.0)),
                ],
                "ecn_factor = 0",
            ),
        ] {
            // STARTUP: every byte marked for three rounds, growing bandwidth: no exit.
            let mut flow = Flow::new(&inputs);
            for rate in [1e6, 2e6, 4e6] {
                let bytes = (rate * 0.1) as u64;
                flow.ce_round(rate, 100_000, bytes);
            }
            assert_eq!(flow.bbr.mode(), "startup", "{why}");
            assert!(!flow.bbr.ecn_eligible(), "{why}");
            assert_eq!(flow.bbr.ecn_alpha(), 1.0, "{why}");
            // CRUISE: a fully marked round cuts nothing; UP: a fully marked round goes on.
            let mut flow = Flow::into_cruise(&inputs);
            flow.ce_round(8e6, 500_000, 800_000);
            assert_eq!(flow.bbr.inflight_shortterm(), INFINITE, "{why}");
            let mut flow = Flow::into_up(&inputs);
            flow.ce_round(8e6, 900_000, 800_000);
            assert_eq!(flow.bbr.mode(), "probe_bw_up", "{why}");
            assert_eq!(flow.bbr.inflight_longterm(), INFINITE, "{why}");
        }
    }

    #[test]
    fn eligibility_needs_min_rtt_at_most_ecn_max_rtt() {
        // Linux: ecn_eligible once min_rtt <= bbr_ecn_max_rtt_us (5 000 us); decided at a
        // round start, so the second round (the first one knows min_rtt).
        let eligible_after_two_rounds = |rtt: SimDuration| {
            let mut flow = Flow::new(&[]);
            for _ in 0..2 {
                let ack = Ack {
                    rtt: Some(rtt),
                    min_rtt: Some(rtt),
                    srtt: Some(rtt),
                    ..flow.rate_ack(flow.now + RTT, 1e6, 10_000)
                };
                flow.send(ack);
            }
            flow.bbr.ecn_eligible()
        };
        assert!(eligible_after_two_rounds(ms(5)));
        assert!(!eligible_after_two_rounds(
            ms(5) + SimDuration::from_nanos(1)
        ));
    }

    #[test]
    fn marks_without_loss_start_the_next_probe_once_they_stop() {
        let reprobe = |inputs: &[(&str, ParamInput)], lose: bool| {
            let mut flow = Flow::into_cruise(inputs);
            flow.bbr.inflight_longterm = 600_000;
            // A CE echo: Linux enters CWR until snd_una passes snd_nxt = 50 000.
            let ack = Ack {
                ecn_ce_bytes: MSS,
                snd_una: 10_000,
                snd_nxt: 50_000,
                ..flow.plain_ack(flow.now + ms(1))
            };
            flow.send(ack);
            assert!(flow.bbr.ecn_in_cycle);
            if lose {
                let ack = Ack {
                    newly_lost: MSS,
                    snd_una: 11_000,
                    snd_nxt: 50_000,
                    ..flow.plain_ack(flow.now + ms(1))
                };
                flow.send(ack);
            }
            // snd_una reaches 50 000 but does not pass it: still CWR, still CRUISE.
            let ack = Ack {
                snd_una: 50_000,
                snd_nxt: 60_000,
                ..flow.plain_ack(flow.now + ms(1))
            };
            flow.send(ack);
            assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
            // Past it, no marks: Open again.
            let ack = Ack {
                snd_una: 51_000,
                snd_nxt: 60_000,
                ..flow.plain_ack(flow.now + ms(1))
            };
            flow.send(ack);
            flow
        };
        // Re-probe: REFILL at once (well before the 2.5 s wait), and the first UP round's
        // inflight_longterm growth is 2^n packets per cwnd ACKed with
        // n = floor(log2(600 000 * 0.5 / 1 000)) = floor(log2(300)) = 8.
        let mut flow = reprobe(&any_rtt(), false);
        assert_eq!(flow.bbr.mode(), "probe_bw_refill");
        assert_eq!(flow.bbr.bw_probe_up_rounds, 8);
        // RaiseInflightLongtermSlope when UP starts: cwnd / 2^8 bytes ACKed per +1 MSS, with
        // the cwnd UP starts from (REFILL: the CRUISE cap 600 000 - 15 % = 510 000, plus the
        // 1 000 B the REFILL ACK added).
        let cwnd = flow.bbr.cwnd();
        assert_eq!(cwnd, 511_000);
        flow.round(8e6, 500_000);
        assert_eq!(flow.bbr.mode(), "probe_bw_up");
        assert_eq!(flow.bbr.bw_probe_up_rounds, 9);
        assert_eq!(flow.bbr.probe_up_acked_per_inc, 511_000 / 256);
        // Not after a cycle with loss, nor with ecn_reprobe_gain = 0.
        assert_eq!(reprobe(&any_rtt(), true).bbr.mode(), "probe_bw_cruise");
        let off = [
            ("ecn_max_rtt", ParamInput::Number(0.0)),
            ("ecn_reprobe_gain", ParamInput::Number(0.0)),
        ];
        assert_eq!(reprobe(&off, false).bbr.mode(), "probe_bw_cruise");
    }

    #[test]
    fn builds_from_the_registry_with_defaults() {
        let config = CcConfig::new(1448);
        let cc = (INFO.build)(
            &config,
            &Params::defaults(INFO.params),
            Box::new(crate::slow_start::standard::StandardSlowStart::new(&config)),
        );
        assert_eq!(cc.name(), "bbr3");
        assert_eq!(cc.mode(), "startup");
    }
}
