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

use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, RateSample, TimeoutEvent, UNLIMITED,
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

/// BtlBwFilterLen (draft §2): the BtlBw max filter spans 10 packet-timed round trips.
const BTL_BW_FILTER_LEN: u64 = 10;
/// RTpropFilterLen = ProbeRTTInterval (draft §2): 10 s.
const RTPROP_FILTER_LEN: SimDuration = SimDuration::from_secs(10);
/// ProbeRTTDuration (draft §2): 200 ms at BBRMinPipeCwnd or less.
const PROBE_RTT_DURATION: SimDuration = SimDuration::from_millis(200);
/// BBRMinPipeCwnd (draft §2): 4 packets.
const MIN_PIPE_CWND_PACKETS: u64 = 4;
/// ProbeBW gain cycle (draft §4.3.4.3).
const GAIN_CYCLE_LEN: usize = 8;
const PROBE_BW_PACING_GAINS: [f64; GAIN_CYCLE_LEN] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// cwnd_gain in ProbeBW (draft §4.3.4.1) and ProbeRTT (draft §4.3.5 BBREnterProbeRTT).
const PROBE_BW_CWND_GAIN: f64 = 2.0;
const PROBE_RTT_CWND_GAIN: f64 = 1.0;
/// Full-pipe estimator (draft §4.3.2.2): BtlBw must grow by 25 % ...
const FULL_BW_THRESH: f64 = 1.25;
/// ... at least once in 3 non-app-limited rounds.
const FULL_BW_COUNT: u32 = 3;
/// Send-quantum thresholds (draft §4.2.2), in bit/s.
const LOW_RATE_BPS: f64 = 1.2e6;
const MID_RATE_BPS: f64 = 24e6;
const MAX_SEND_QUANTUM: u64 = 64 * 1024;

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

/// What the most recent ACK left behind, for a congestion event raised right after it.
#[derive(Clone, Copy, Debug)]
struct LastAck {
    now: SimTime,
    bytes_in_flight: u64,
    bytes_acked: u64,
    delivered: u64,
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

    // Network path model (draft §4.1).
    btl_bw_filter: WindowedMax<{ BTL_BW_FILTER_LEN as usize }>,
    rtprop: Option<SimDuration>,
    rtprop_stamp: SimTime,
    rtprop_expired: bool,

    // Packet-timed round trips (draft §4.1.1.3).
    next_round_delivered: u64,
    round_count: u64,
    round_start: bool,

    // Full-pipe estimator (draft §4.3.2.2).
    filled_pipe: bool,
    full_bw: f64,
    full_bw_count: u32,

    // ProbeBW gain cycling (draft §4.3.4).
    cycle_index: usize,
    cycle_stamp: SimTime,

    // ProbeRTT (draft §4.3.5).
    probe_rtt_done_stamp: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// `C.delivered` range `[from, to]`: packets sent while it covered `C.delivered` were sent
    /// during ProbeRTT, which draft §4.3.5 marks app-limited (`C.app_limited = delivered +
    /// inflight`). The sender cannot be told, so the controller remembers the range and treats
    /// rate samples from those packets as app-limited itself.
    probe_rtt_app_limited: Option<(u64, u64)>,
    idle_restart: bool,

    // Control parameters (draft §4.2).
    /// Payload bytes per second.
    pacing_rate: f64,
    has_seen_rtt: bool,
    send_quantum: u64,
    cwnd: u64,
    prior_cwnd: u64,

    // Loss recovery (draft §4.2.3.4).
    in_loss_recovery: bool,
    packet_conservation: bool,
    last_ack: Option<LastAck>,
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
            btl_bw_filter: WindowedMax::new(),
            rtprop: None,
            rtprop_stamp: SimTime::ZERO,
            rtprop_expired: false,
            next_round_delivered: 0,
            round_count: 0,
            round_start: false,
            filled_pipe: false,
            full_bw: 0.0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            probe_rtt_app_limited: None,
            idle_restart: false,
            pacing_rate: 0.0,
            has_seen_rtt: false,
            send_quantum: config.mss,
            cwnd: config.initial_cwnd,
            prior_cwnd: 0,
            in_loss_recovery: false,
            packet_conservation: false,
            last_ack: None,
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
        MIN_PIPE_CWND_PACKETS * self.mss
    }

    // ---- draft §4.1.1: BtlBw -------------------------------------------------------------

    /// Delivery rate in bytes per second, or `None` when the sample is unusable: the
    /// delivery-rate draft (§3.3, `GenerateRateSample`) discards samples whose interval is
    /// shorter than the connection's min RTT; the check is repeated here in case the sender
    /// did not apply it.
    fn delivery_rate(rs: &RateSample, min_rtt: Option<SimDuration>) -> Option<f64> {
        if rs.interval.is_zero() || min_rtt.is_some_and(|m| rs.interval < m) {
            return None;
        }
        Some(rs.delivered as f64 * 1e9 / rs.interval.as_nanos() as f64)
    }

    /// The sample is app-limited, by the sender's flag or because its packet left during
    /// ProbeRTT (see `probe_rtt_app_limited`).
    fn sample_is_app_limited(&self, rs: &RateSample) -> bool {
        rs.is_app_limited
            || self
                .probe_rtt_app_limited
                .is_some_and(|(from, to)| (from..=to).contains(&rs.prior_delivered))
    }

    /// draft §4.1.1.3 BBRUpdateRound and §4.1.1.5 BBRUpdateBtlBw.
    fn update_btl_bw(&mut self, ack: &Ack) {
        self.round_start = false;
        let Some(rs) = ack.rate_sample else { return };
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = ack.delivered;
            self.round_count += 1;
            self.round_start = true;
            // draft §4.2.3.4: packet conservation lasts the first round of recovery (Linux
            // clears it on the round start, having started a round on recovery entry).
            self.packet_conservation = false;
        }
        if let Some(rate) = Self::delivery_rate(&rs, ack.min_rtt) {
            // draft §4.1.1.4: app-limited samples only when they would raise BtlBw.
            if rate >= self.btl_bw() || !self.sample_is_app_limited(&rs) {
                self.btl_bw_filter
                    .update(self.round_count, rate, BTL_BW_FILTER_LEN);
            }
        }
    }

    // ---- draft §4.1.2: RTprop --------------------------------------------------------------

    /// draft §4.1.2.3 BBRUpdateRTprop: a sample at or below RTprop refreshes it; an expired
    /// RTprop (10 s without refresh) takes whatever comes next.
    fn update_rtprop(&mut self, ack: &Ack) {
        // Before the first sample there is nothing to expire (BBRInit stamps "now", the
        // connection start, which the controller does not see).
        self.rtprop_expired =
            self.rtprop.is_some() && ack.now > self.rtprop_stamp + RTPROP_FILTER_LEN;
        let Some(rtt) = ack.rtt else { return };
        if self.rtprop.is_none_or(|r| rtt <= r) || self.rtprop_expired {
            self.rtprop = Some(rtt);
            self.rtprop_stamp = ack.now;
        }
    }

    // ---- draft §4.2: control parameters ----------------------------------------------------

    /// draft §4.2.1 BBRInitPacingRate: `pacing_gain * InitialCwnd / (SRTT or 1 ms)`.
    fn init_pacing_rate(&mut self, srtt: Option<SimDuration>) {
        let rtt_ns = srtt
            .filter(|s| !s.is_zero())
            .unwrap_or(SimDuration::from_millis(1))
            .as_nanos() as f64;
        let nominal_bw = self.initial_cwnd as f64 * 1e9 / rtt_ns;
        self.pacing_rate = self.high_gain * nominal_bw * self.pacing_margin;
    }

    /// draft §4.2.1 BBRSetPacingRateWithGain: before the pipe is filled, only raise it.
    fn set_pacing_rate_with_gain(&mut self, gain: f64) {
        let rate = gain * self.btl_bw() * self.pacing_margin;
        if self.filled_pipe || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// draft §4.2.2 BBRSetSendQuantum, or 1 MSS for `quanta = "mss"`.
    fn set_send_quantum(&mut self) {
        self.send_quantum = match self.quanta {
            Quanta::Mss => self.mss,
            Quanta::Draft => {
                let rate_bps = self.pacing_rate * 8.0;
                if rate_bps < LOW_RATE_BPS {
                    self.mss
                } else if rate_bps < MID_RATE_BPS {
                    2 * self.mss
                } else {
                    // pacing_rate * 1 ms, in bytes.
                    ((self.pacing_rate / 1000.0) as u64).min(MAX_SEND_QUANTUM)
                }
            }
        };
    }

    /// draft §4.2.3.2 BBRInflight: `gain * BtlBw * RTprop + 3 * send_quantum`, or InitialCwnd
    /// before any RTT sample. The BDP is rounded up to a whole byte (Linux rounds up to a
    /// packet "to avoid a negative feedback loop"). The Linux variant computes in packets and
    /// applies `bbr_quantization_budget`: round up to an even count, +2 in the 5/4 phase.
    fn inflight(&self, gain: f64) -> u64 {
        let Some(rtprop) = self.rtprop else {
            return self.initial_cwnd;
        };
        let bdp = self.btl_bw() * rtprop.as_nanos() as f64 / 1e9;
        let quanta = 3 * self.send_quantum;
        match self.variant {
            Variant::Paper => (gain * bdp).ceil() as u64 + quanta,
            Variant::Linux => {
                let mut packets =
                    (gain * bdp / self.mss as f64).ceil() as u64 + quanta.div_ceil(self.mss);
                packets += packets % 2;
                if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
                    packets += 2;
                }
                packets * self.mss
            }
        }
    }

    /// draft §4.2.3.4 BBRSaveCwnd: remember the last cwnd not cut by recovery or ProbeRTT.
    fn save_cwnd(&mut self) {
        self.prior_cwnd = if !self.in_loss_recovery && self.mode != Mode::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        };
    }

    /// draft §4.2.3.4 BBRRestoreCwnd.
    fn restore_cwnd(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    /// draft §4.2.3.4, upon entering Fast Recovery: save cwnd, start packet conservation and
    /// (as Linux does) a new round, so conservation lasts exactly one round trip. The window
    /// itself is set by `modulate_cwnd_for_recovery` or `enter_fast_recovery_window`.
    fn enter_fast_recovery(&mut self, delivered: u64) {
        self.save_cwnd();
        self.in_loss_recovery = true;
        self.packet_conservation = true;
        self.next_round_delivered = delivered;
    }

    /// draft §4.2.3.4: `cwnd = packets_in_flight + max(packets_delivered, 1)`.
    fn enter_fast_recovery_window(&mut self, bytes_in_flight: u64, bytes_acked: u64) {
        self.cwnd = bytes_in_flight + bytes_acked.max(self.mss);
    }

    /// draft §4.2.3.4, upon exiting loss recovery: restore the saved cwnd.
    fn exit_loss_recovery(&mut self) {
        if self.in_loss_recovery {
            self.in_loss_recovery = false;
            self.packet_conservation = false;
            self.restore_cwnd();
        }
    }

    /// draft §4.2.3.4 BBRModulateCwndForRecovery.
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

    /// draft §4.2.3.6 BBRSetCwnd (with §4.2.3.4 and §4.2.3.5).
    fn set_cwnd(&mut self, ack: &Ack, entered_recovery: bool) {
        let target_cwnd = self.inflight(self.cwnd_gain);
        self.modulate_cwnd_for_recovery(ack, entered_recovery);
        if !self.packet_conservation {
            if self.filled_pipe {
                self.cwnd = (self.cwnd + ack.bytes_acked).min(target_cwnd);
            } else if self.cwnd < target_cwnd || ack.delivered < self.initial_cwnd {
                self.cwnd += ack.bytes_acked;
            }
            self.cwnd = self.cwnd.max(self.min_pipe_cwnd());
        }
        // draft §4.2.3.5 BBRModulateCwndForProbeRTT.
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.min_pipe_cwnd());
        }
    }

    // ---- draft §4.3: state machine ---------------------------------------------------------

    /// draft §4.3.2.1 BBREnterStartup.
    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.high_gain;
        self.cwnd_gain = self.high_gain;
    }

    /// draft §4.3.3 BBREnterDrain.
    fn enter_drain(&mut self) {
        self.mode = Mode::Drain;
        self.pacing_gain = self.drain_gain;
        self.cwnd_gain = self.high_gain;
    }

    /// draft §4.3.4.3 BBREnterProbeBW: the cycle starts at a phase other than 3/4.
    fn enter_probe_bw(&mut self, now: SimTime) {
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = PROBE_BW_CWND_GAIN;
        // cycle_index = BBRGainCycleLen - 1 - random_int_in_range(0..6); the deterministic
        // choice is 0, i.e. the first phase after the advance below is the 5/4 phase.
        let offset = self.rng.as_mut().map_or(0, |rng| rng.below(7) as usize);
        self.cycle_index = GAIN_CYCLE_LEN - 1 - offset;
        self.advance_cycle_phase(now);
    }

    /// draft §4.3.4.3 BBRAdvanceCyclePhase.
    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE_LEN;
        self.pacing_gain = PROBE_BW_PACING_GAINS[self.cycle_index];
    }

    /// draft §4.3.4.3 BBRIsNextCyclePhase.
    fn is_next_cycle_phase(&self, ack: &Ack) -> bool {
        let rtprop = self.rtprop.unwrap_or(SimDuration::ZERO);
        let is_full_length = ack.now.saturating_since(self.cycle_stamp) > rtprop;
        if self.pacing_gain == 1.0 {
            is_full_length
        } else if self.pacing_gain > 1.0 {
            // Probe until inflight reaches pacing_gain * BDP, or loss says it will not fit.
            is_full_length
                && (ack.newly_lost > 0 || ack.prior_in_flight >= self.inflight(self.pacing_gain))
        } else {
            // Drain until a full RTprop has passed or inflight is back at the BDP.
            is_full_length || ack.prior_in_flight <= self.inflight(1.0)
        }
    }

    /// draft §4.3.4.3 BBRCheckCyclePhase.
    fn check_cycle_phase(&mut self, ack: &Ack) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(ack) {
            self.advance_cycle_phase(ack.now);
        }
    }

    /// draft §4.3.2.2 BBRCheckFullPipe.
    fn check_full_pipe(&mut self, ack: &Ack) {
        let app_limited = ack
            .rate_sample
            .is_some_and(|rs| self.sample_is_app_limited(&rs));
        if self.filled_pipe || !self.round_start || app_limited {
            return;
        }
        if self.btl_bw() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.btl_bw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= FULL_BW_COUNT {
            self.filled_pipe = true;
        }
    }

    /// draft §4.3.3 BBRCheckDrain.
    fn check_drain(&mut self, ack: &Ack) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.enter_drain();
        }
        if self.mode == Mode::Drain && ack.bytes_in_flight <= self.inflight(1.0) {
            self.enter_probe_bw(ack.now);
        }
    }

    /// draft §4.3.5 BBRCheckProbeRTT.
    fn check_probe_rtt(&mut self, ack: &Ack) {
        if self.mode != Mode::ProbeRtt && self.rtprop_expired && !self.idle_restart {
            self.enter_probe_rtt();
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
            self.probe_rtt_app_limited = Some((ack.delivered, ack.delivered));
        }
        if self.mode == Mode::ProbeRtt {
            self.handle_probe_rtt(ack);
        }
        self.idle_restart = false;
    }

    /// draft §4.3.5 BBREnterProbeRTT.
    fn enter_probe_rtt(&mut self) {
        self.mode = Mode::ProbeRtt;
        self.pacing_gain = 1.0;
        self.cwnd_gain = PROBE_RTT_CWND_GAIN;
    }

    /// draft §4.3.5 BBRHandleProbeRTT.
    fn handle_probe_rtt(&mut self, ack: &Ack) {
        // "Ignore low rate samples during ProbeRTT": C.app_limited = delivered + inflight.
        let mark = ack.delivered + ack.bytes_in_flight;
        if let Some((_, to)) = &mut self.probe_rtt_app_limited {
            *to = (*to).max(mark);
        }
        match self.probe_rtt_done_stamp {
            None if ack.bytes_in_flight <= self.min_pipe_cwnd() => {
                self.probe_rtt_done_stamp = Some(ack.now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = ack.delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && ack.now > done {
                    self.check_probe_rtt_done(ack.now);
                }
            }
        }
    }

    /// The exit half of draft §4.3.5 BBRHandleProbeRTT (Linux `bbr_check_probe_rtt_done`).
    fn check_probe_rtt_done(&mut self, now: SimTime) {
        let Some(done) = self.probe_rtt_done_stamp else {
            return;
        };
        if now <= done {
            return;
        }
        self.rtprop_stamp = now;
        self.restore_cwnd();
        self.probe_rtt_done_stamp = None;
        // BBRExitProbeRTT.
        if self.filled_pipe {
            self.enter_probe_bw(now);
        } else {
            self.enter_startup();
        }
    }

    /// draft §3.5.2 BBRUpdateModelAndState.
    fn update_model_and_state(&mut self, ack: &Ack) {
        self.update_btl_bw(ack);
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
        if !self.has_seen_rtt && ack.srtt.is_some_and(|s| !s.is_zero()) {
            self.has_seen_rtt = true;
            self.init_pacing_rate(ack.srtt);
        }
        self.set_pacing_rate_with_gain(self.pacing_gain);
        self.set_send_quantum();
        self.set_cwnd(ack, entered_recovery);
    }

    /// Follows the sender's recovery flag: its rising edge starts fast recovery (the sender
    /// may also announce it through `on_congestion_event`), its falling edge ends recovery
    /// (the sender may also call `on_recovery_exit`). Returns whether recovery began here.
    fn track_recovery(&mut self, ack: &Ack) -> bool {
        if ack.in_recovery && !self.in_loss_recovery {
            self.enter_fast_recovery(ack.delivered);
            true
        } else {
            if !ack.in_recovery {
                self.exit_loss_recovery();
            }
            false
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        INFO.name
    }

    /// draft §3.5.2 BBRUpdateOnACK.
    fn on_ack(&mut self, ack: &Ack) {
        let entered_recovery = self.track_recovery(ack);
        self.last_ack = Some(LastAck {
            now: ack.now,
            bytes_in_flight: ack.bytes_in_flight,
            bytes_acked: ack.bytes_acked,
            delivered: ack.delivered,
        });
        self.update_model_and_state(ack);
        self.update_control_parameters(ack, entered_recovery);
    }

    /// draft §4.2.3.4, upon entering Fast Recovery (unless the ACK that triggered it already
    /// carried `in_recovery` and `on_ack` started recovery).
    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        if self.in_loss_recovery {
            return;
        }
        // The simulator announces the loss before the triggering ACK's on_ack (see the call
        // order on the trait), so the event's flight size is used. A driver that calls on_ack
        // first is handled too: then that ACK's pipe and delivered bytes are used.
        let (in_flight, acked, delivered) = match self.last_ack {
            Some(last) if last.now == event.now => {
                (last.bytes_in_flight, last.bytes_acked, last.delivered)
            }
            last => (
                event.bytes_in_flight,
                0,
                last.map_or(self.next_round_delivered, |l| l.delivered),
            ),
        };
        self.enter_fast_recovery(delivered);
        self.enter_fast_recovery_window(in_flight, acked);
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.min_pipe_cwnd());
        }
    }

    /// draft §4.2.3.4, upon RTO: save cwnd, then one packet.
    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {
        // No ssthresh to set (Linux bbr_ssthresh returns the one in force); the window saved
        // for after recovery is taken on every timeout below (bbr.md).
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        self.save_cwnd();
        self.in_loss_recovery = true;
        self.packet_conservation = false;
        self.cwnd = self.mss;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.exit_loss_recovery();
    }

    /// draft §4.3.4.4 BBRHandleRestartFromIdle: the first send with nothing in flight
    /// (outside loss recovery) restarts from idle. Whether `bytes_in_flight` already counts
    /// this segment or not, "nothing else in flight" is `bytes_in_flight <= bytes`.
    fn on_packet_sent(&mut self, now: SimTime, bytes: u64, bytes_in_flight: u64) {
        if bytes_in_flight > bytes || self.in_loss_recovery {
            return;
        }
        self.idle_restart = true;
        if self.mode == Mode::ProbeBw {
            self.set_pacing_rate_with_gain(1.0);
        } else if self.mode == Mode::ProbeRtt && self.variant == Variant::Linux {
            // Linux bbr_cwnd_event: an idle period may already have completed ProbeRTT.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ParamInput;
    use crate::test_support::new_timeout;

    const MSS: u64 = 1000;
    const RTT: SimDuration = SimDuration::from_millis(100);

    fn params(inputs: &[(&str, ParamInput)]) -> Params {
        Params::from_inputs(PARAMS, inputs.iter().map(|(n, v)| (*n, v))).unwrap()
    }

    fn text(s: &str) -> ParamInput {
        ParamInput::Text(s.to_string())
    }

    /// A sender driving one BBR instance: `delivered` is C.delivered.
    struct Flow {
        bbr: Bbr,
        now: SimTime,
        delivered: u64,
    }

    impl Flow {
        fn new(inputs: &[(&str, ParamInput)]) -> Self {
            Flow {
                bbr: Bbr::new(&CcConfig::new(MSS), &params(inputs)),
                now: SimTime::ZERO,
                delivered: 0,
            }
        }

        /// One stretch ACK one RTT later that ends a packet-timed round: it delivers
        /// `rate * RTT` bytes, and its rate sample is exactly `rate` (that many bytes over one
        /// RTT), taken from a packet sent when C.delivered was the previous round's end.
        fn round(&mut self, rate: f64, app_limited: bool, in_flight: u64) {
            self.now += RTT;
            let bytes = (rate * RTT.as_secs_f64()).round() as u64;
            let prior_delivered = self.delivered;
            self.delivered += bytes;
            let ack = Ack {
                bytes_acked: bytes,
                prior_in_flight: in_flight + bytes,
                bytes_in_flight: in_flight,
                rate_sample: Some(RateSample {
                    delivered: bytes,
                    interval: RTT,
                    prior_delivered,
                    is_app_limited: app_limited,
                }),
                ..self.plain_ack(self.now)
            };
            self.delivered = ack.delivered;
            self.bbr.on_ack(&ack);
        }

        /// An ACK of one MSS at `at`, RTT sample = RTprop, no rate sample; tests override
        /// fields with struct update syntax and pass it to `on_ack` themselves.
        fn plain_ack(&mut self, at: SimTime) -> Ack {
            self.now = at;
            self.delivered += MSS;
            Ack {
                now: at,
                bytes_acked: MSS,
                rtt: Some(RTT),
                min_rtt: Some(RTT),
                srtt: Some(RTT),
                prior_in_flight: 10 * MSS,
                bytes_in_flight: 9 * MSS,
                delivered: self.delivered,
                newly_lost: 0,
                snd_una: 0,
                snd_nxt: 0,
                ecn_ce_bytes: 0,
                rate_sample: None,
                in_recovery: false,
                cwnd_limited: true,
            }
        }

        fn send(&mut self, ack: Ack) {
            self.delivered = ack.delivered;
            self.bbr.on_ack(&ack);
        }

        /// STARTUP with BtlBw rising 1, 2, 4, 8 MB/s then flat at 8 MB/s: rounds 5, 6, 7
        /// bring no 25 % growth, so the pipe is full at round 7 (DRAIN); an ACK with little in
        /// flight then ends DRAIN. Afterwards BtlBw = 8e6 B/s, RTprop = 100 ms, so
        /// BDP = 8e6 * 0.1 = 800 000 bytes.
        fn into_probe_bw(inputs: &[(&str, ParamInput)]) -> Self {
            let mut flow = Flow::new(inputs);
            for rate in [1e6, 2e6, 4e6, 8e6, 8e6, 8e6, 8e6] {
                flow.round(rate, false, 5_000_000);
            }
            assert_eq!(flow.bbr.bbr_mode(), Mode::Drain);
            let ack = Ack {
                bytes_in_flight: 0,
                ..flow.plain_ack(flow.now + SimDuration::from_millis(1))
            };
            flow.send(ack);
            assert_eq!(flow.bbr.bbr_mode(), Mode::ProbeBw);
            flow
        }
    }

    fn high_gain() -> f64 {
        2.0 / libm::log(2.0)
    }

    #[test]
    fn starts_in_startup_with_2_over_ln2_and_an_initial_pacing_rate() {
        let flow = Flow::new(&[]);
        let bbr = &flow.bbr;
        assert_eq!(bbr.mode(), "startup");
        assert_eq!(bbr.cwnd(), 10 * MSS);
        assert_eq!(bbr.ssthresh(), UNLIMITED);
        assert!(bbr.controls_recovery_window());
        // 2/ln 2 = 2.8853900817779268 for both gains (draft §4.3.2.1).
        assert!((bbr.pacing_gain - 2.885_390_081_777_926_8).abs() < 1e-15);
        assert_eq!(bbr.cwnd_gain, bbr.pacing_gain);
        // draft §4.2.1: high_gain * InitialCwnd / 1 ms = 2.885 * 10 000 B / 1e-3 s, in bit/s.
        let expected = (high_gain() * 10_000.0 / 1e-3 * 8.0) as u64;
        assert_eq!(bbr.pacing_rate(), Some(expected));
    }

    #[test]
    fn first_rtt_sample_reinitialises_the_pacing_rate() {
        let mut flow = Flow::new(&[]);
        // An ACK without a rate sample, SRTT = 100 ms: 2.885 * 10 000 B / 0.1 s.
        let ack = flow.plain_ack(SimTime::ZERO + RTT);
        flow.send(ack);
        let expected = (high_gain() * 10_000.0 / 0.1 * 8.0) as u64;
        assert_eq!(flow.bbr.pacing_rate(), Some(expected));
    }

    #[test]
    fn full_pipe_after_three_rounds_of_less_than_25_percent_growth() {
        let mut flow = Flow::new(&[]);
        // (rate sample, BtlBw after, full_bw after, full_bw_count after), per round:
        // round 1: BtlBw 1e6 >= 0 * 1.25 -> new baseline 1e6
        // round 2: 2e6 >= 1.25e6 -> baseline 2e6; round 3: 4e6 >= 2.5e6 -> 4e6;
        // round 4: 8e6 >= 5e6 -> 8e6; round 5: BtlBw 9e6 < 8e6 * 1.25 = 1e7 -> count 1;
        // round 6: 9e6 -> count 2; round 7: BtlBw 9.9e6 < 1e7 -> count 3 -> pipe full.
        let rounds = [
            (1e6, 1e6, 1e6, 0),
            (2e6, 2e6, 2e6, 0),
            (4e6, 4e6, 4e6, 0),
            (8e6, 8e6, 8e6, 0),
            (9e6, 9e6, 8e6, 1),
            (9e6, 9e6, 8e6, 2),
        ];
        for (i, (rate, btl_bw, full_bw, count)) in rounds.into_iter().enumerate() {
            flow.round(rate, false, 5_000_000);
            assert_eq!(flow.bbr.round_count, i as u64 + 1);
            assert_eq!(flow.bbr.btl_bw(), btl_bw, "round {}", i + 1);
            assert_eq!(flow.bbr.full_bw, full_bw, "round {}", i + 1);
            assert_eq!(flow.bbr.full_bw_count, count, "round {}", i + 1);
            assert_eq!(flow.bbr.mode(), "startup");
            // pacing_rate = high_gain * BtlBw once that exceeds the initial rate.
            let pacing = (high_gain() * btl_bw * 8.0) as u64;
            assert_eq!(flow.bbr.pacing_rate(), Some(pacing), "round {}", i + 1);
        }
        flow.round(9.9e6, false, 5_000_000);
        assert_eq!(flow.bbr.round_count, 7);
        assert!(flow.bbr.filled_pipe);
        // DRAIN: pacing gain ln 2 / 2 = 0.34657..., cwnd gain stays 2/ln 2 (draft §4.3.3).
        assert_eq!(flow.bbr.mode(), "drain");
        assert!((flow.bbr.pacing_gain - libm::log(2.0) / 2.0).abs() < 1e-15);
        assert!((flow.bbr.cwnd_gain - high_gain()).abs() < 1e-15);
        // Once the pipe is full the pacing rate may fall: 0.3466 * 9.9e6 B/s.
        let pacing = (flow.bbr.drain_gain * 9.9e6 * 8.0) as u64;
        assert_eq!(flow.bbr.pacing_rate(), Some(pacing));
    }

    #[test]
    fn app_limited_rounds_do_not_count_toward_a_full_pipe() {
        let mut flow = Flow::new(&[]);
        for rate in [1e6, 2e6, 4e6, 8e6, 8e6, 8e6] {
            flow.round(rate, false, 5_000_000);
        }
        assert_eq!(flow.bbr.full_bw_count, 2);
        // Three app-limited rounds: no count (draft §4.3.2.2 skips them).
        for _ in 0..3 {
            flow.round(8e6, true, 5_000_000);
        }
        assert_eq!(flow.bbr.full_bw_count, 2);
        assert_eq!(flow.bbr.mode(), "startup");
        flow.round(8e6, false, 5_000_000);
        assert_eq!(flow.bbr.mode(), "drain");
    }

    #[test]
    fn drain_ends_when_inflight_is_down_to_the_bdp() {
        let mut flow = Flow::new(&[("quanta", text("mss"))]);
        for rate in [1e6, 2e6, 4e6, 8e6, 8e6, 8e6, 8e6] {
            flow.round(rate, false, 5_000_000);
        }
        assert_eq!(flow.bbr.mode(), "drain");
        // BBRInflight(1) = BtlBw * RTprop + 3 * send_quantum = 8e6 * 0.1 + 3 * 1000 = 803 000.
        let t = flow.now;
        let ack = Ack {
            bytes_in_flight: 803_001,
            ..flow.plain_ack(t + SimDuration::from_millis(10))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "drain");
        let ack = Ack {
            bytes_in_flight: 803_000,
            ..flow.plain_ack(t + SimDuration::from_millis(20))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw");
        // Deterministic entry (seed 0): the 5/4 phase, cwnd gain 2.
        assert_eq!((flow.bbr.cycle_index, flow.bbr.pacing_gain), (0, 1.25));
        assert_eq!(flow.bbr.cwnd_gain, 2.0);
    }

    #[test]
    fn probe_bw_gain_cycle_advances_one_phase_per_rtprop() {
        let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
        let t0 = flow.now;
        let ms = SimDuration::from_millis;
        // BDP = 800 000 B; BBRInflight(1.25) = 1.25 * 800 000 + 3 000 = 1 003 000;
        // BBRInflight(1) = 803 000.
        let ack_at = |flow: &mut Flow, at: SimTime, prior_in_flight: u64, newly_lost: u64| {
            let ack = Ack {
                prior_in_flight,
                newly_lost,
                ..flow.plain_ack(at)
            };
            flow.send(ack);
            flow.bbr.cycle_index
        };
        // Phase 0 (5/4): not over at exactly one RTprop, even with inflight at target...
        assert_eq!(ack_at(&mut flow, t0 + ms(100), 1_003_000, 0), 0);
        // ...nor after it while inflight is short of 1.25 BDP and nothing was lost...
        assert_eq!(ack_at(&mut flow, t0 + ms(150), 1_002_999, 0), 0);
        // ...but over once inflight reaches it (or, see below, on loss).
        assert_eq!(ack_at(&mut flow, t0 + ms(150), 1_003_000, 0), 1);
        assert_eq!(flow.bbr.pacing_gain, 0.75);
        // Phase 1 (3/4) ends early once inflight is down to BBRInflight(1) (draft §4.3.4.3).
        let t1 = flow.now;
        assert_eq!(ack_at(&mut flow, t1 + ms(10), 803_001, 0), 1);
        assert_eq!(ack_at(&mut flow, t1 + ms(20), 803_000, 0), 2);
        assert_eq!(flow.bbr.pacing_gain, 1.0);
        // Phases 2..7 (gain 1) last one RTprop each: advance only when now - stamp > 100 ms.
        for phase in 2..8 {
            let stamp = flow.bbr.cycle_stamp;
            assert_eq!(ack_at(&mut flow, stamp + ms(100), 900_000, 0), phase);
            let next = (phase + 1) % 8;
            assert_eq!(
                ack_at(
                    &mut flow,
                    stamp + ms(100) + SimDuration::from_nanos(1),
                    900_000,
                    0
                ),
                next
            );
            assert_eq!(flow.bbr.pacing_gain, PROBE_BW_PACING_GAINS[next]);
        }
        // Back in phase 0: a loss ends it after one RTprop even below 1.25 BDP.
        let stamp = flow.bbr.cycle_stamp;
        assert_eq!(ack_at(&mut flow, stamp + ms(101), 800_000, 0), 0);
        assert_eq!(ack_at(&mut flow, stamp + ms(102), 800_000, MSS), 1);
        // Phase 1 also ends after one RTprop when inflight stays high.
        let stamp = flow.bbr.cycle_stamp;
        assert_eq!(ack_at(&mut flow, stamp + ms(100), 900_000, 0), 1);
        assert_eq!(ack_at(&mut flow, stamp + ms(101), 900_000, 0), 2);
    }

    #[test]
    fn steady_state_cwnd_is_two_bdp_plus_three_send_quanta() {
        let mut flow = Flow::into_probe_bw(&[]);
        // STARTUP grew cwnd far above 2 BDP; from now on each ACK cuts it to the target at
        // once or grows it by the bytes ACKed, never above the target (draft §4.2.3.6).
        // Phase 0 ends (inflight >= 1.25 BDP + quanta): phase 1, gain 0.75, pacing
        // 6e6 B/s = 48 Mbit/s >= 24 Mbit/s, so send_quantum = 6e6 * 1 ms = 6 000 B (draft
        // §4.2.2) and cwnd = 2 * 800 000 + 3 * 6 000 = 1 618 000.
        let t = flow.now + SimDuration::from_millis(101);
        let ack = Ack {
            prior_in_flight: 2_000_000,
            ..flow.plain_ack(t)
        };
        flow.send(ack);
        assert_eq!(flow.bbr.pacing_gain, 0.75);
        assert_eq!(flow.bbr.cwnd(), 1_618_000);
        // Phase 1 ends after one RTprop: gain 1, pacing 8e6 B/s = 64 Mbit/s,
        // send_quantum = 8 000 B, target = 2 * 800 000 + 3 * 8 000 = 1 624 000; cwnd grows by
        // the 1 000 bytes ACKed to 1 619 000...
        let t = flow.now + SimDuration::from_millis(101);
        let ack = flow.plain_ack(t);
        flow.send(ack);
        assert_eq!(flow.bbr.pacing_gain, 1.0);
        assert_eq!(flow.bbr.send_quantum, 8_000);
        assert_eq!(flow.bbr.pacing_rate(), Some(64_000_000));
        assert_eq!(flow.bbr.cwnd(), 1_619_000);
        // ...and an ACK of 10 000 bytes takes it to the target, not beyond.
        let t = flow.now + SimDuration::from_millis(1);
        let ack = Ack {
            bytes_acked: 10 * MSS,
            ..flow.plain_ack(t)
        };
        flow.send(ack);
        assert_eq!(flow.bbr.cwnd(), 1_624_000);
    }

    #[test]
    fn below_target_cwnd_grows_by_the_bytes_acked() {
        let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
        flow.bbr.cwnd = 500_000;
        let t = flow.now;
        let ack = Ack {
            bytes_acked: 3 * MSS,
            ..flow.plain_ack(t + SimDuration::from_millis(1))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.cwnd(), 503_000);
    }

    #[test]
    fn pacing_rate_is_gain_times_btlbw() {
        let flow = Flow::into_probe_bw(&[]);
        // Phase 0: 1.25 * 8e6 B/s * 8 = 80 Mbit/s.
        assert_eq!(flow.bbr.pacing_rate(), Some(80_000_000));

        // Linux: gain 320/256 = 1.25 and a 1 % margin: 1.25 * 8e6 * 0.99 * 8 = 79.2 Mbit/s.
        let flow = Flow::into_probe_bw(&[("variant", text("linux"))]);
        assert_eq!(flow.bbr.pacing_rate(), Some(79_200_000));
        assert_eq!(flow.bbr.high_gain, 739.0 / 256.0);
        assert_eq!(flow.bbr.drain_gain, 88.0 / 256.0);
    }

    #[test]
    fn linux_variant_rounds_cwnd_to_even_packets_and_adds_two_in_the_probe_phase() {
        let mut flow = Flow::into_probe_bw(&[("variant", text("linux")), ("quanta", text("mss"))]);
        // Phase 0: BDP = 800 packets; cwnd = 2 * 800 + 3 = 1603 -> even 1604 -> +2 = 1606.
        assert_eq!(flow.bbr.inflight(2.0), 1_606 * MSS);
        // Phase 0 target 1.25: 1000 + 3 = 1003 -> 1004 -> +2 = 1006 packets.
        assert_eq!(flow.bbr.inflight(1.25), 1_006 * MSS);
        let t = flow.now + SimDuration::from_millis(101);
        let ack = Ack {
            prior_in_flight: 1_006 * MSS,
            ..flow.plain_ack(t)
        };
        flow.send(ack);
        assert_eq!(flow.bbr.cycle_index, 1);
        // Other phases: no +2.
        assert_eq!(flow.bbr.inflight(2.0), 1_604 * MSS);
    }

    #[test]
    fn btlbw_filter_forgets_a_sample_after_ten_rounds() {
        let mut flow = Flow::new(&[]);
        flow.round(10e6, false, 5_000_000);
        assert_eq!(flow.bbr.round_count, 1);
        // Rounds 2..=10: the round-1 sample is still inside the 10-round window.
        for _ in 2..=10 {
            flow.round(5e6, false, 5_000_000);
            assert_eq!(flow.bbr.btl_bw(), 10e6);
        }
        // Round 11: round 1 is 10 rounds old and leaves the window.
        flow.round(5e6, false, 5_000_000);
        assert_eq!(flow.bbr.round_count, 11);
        assert_eq!(flow.bbr.btl_bw(), 5e6);
    }

    #[test]
    fn app_limited_samples_do_not_lower_btlbw_but_may_raise_it() {
        let mut flow = Flow::new(&[]);
        flow.round(10e6, false, 5_000_000);
        // Twenty app-limited rounds at 1 MB/s: skipped, and the estimate does not age.
        for _ in 0..20 {
            flow.round(1e6, true, 5_000_000);
        }
        assert_eq!(flow.bbr.btl_bw(), 10e6);
        // An app-limited sample above the estimate is used (draft §4.1.1.4).
        flow.round(12e6, true, 5_000_000);
        assert_eq!(flow.bbr.btl_bw(), 12e6);
    }

    #[test]
    fn rate_samples_shorter_than_min_rtt_are_ignored() {
        let mut flow = Flow::new(&[]);
        let t = flow.now + RTT;
        let prior_delivered = flow.delivered;
        let ack = Ack {
            rate_sample: Some(RateSample {
                delivered: 1_000_000,
                interval: SimDuration::from_millis(99),
                prior_delivered,
                is_app_limited: false,
            }),
            ..flow.plain_ack(t)
        };
        flow.send(ack);
        // The round still counts; the implausible 10 MB/s sample does not.
        assert_eq!(flow.bbr.round_count, 1);
        assert_eq!(flow.bbr.btl_bw(), 0.0);
    }

    #[test]
    fn probe_rtt_after_ten_seconds_without_a_new_min_rtt() {
        let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
        let stamp = flow.bbr.rtprop_stamp;
        assert_eq!(stamp, flow.now);
        let ms = SimDuration::from_millis;
        let slower = |flow: &mut Flow, at: SimTime, in_flight: u64| {
            let ack = Ack {
                rtt: Some(ms(120)),
                bytes_in_flight: in_flight,
                ..flow.plain_ack(at)
            };
            flow.send(ack);
        };
        // RTT samples above RTprop for 10 s do not refresh it; at exactly 10 s it has not
        // expired yet (draft: Now() > rtprop_stamp + 10 s).
        for s in 1..=10 {
            slower(&mut flow, stamp + SimDuration::from_secs(s), 800_000);
            assert_eq!(flow.bbr.mode(), "probe_bw", "{s} s");
        }
        let cwnd_before = flow.bbr.cwnd();
        slower(
            &mut flow,
            stamp + SimDuration::from_secs(10) + ms(1),
            800_000,
        );
        assert_eq!(flow.bbr.mode(), "probe_rtt");
        assert_eq!(flow.bbr.pacing_gain, 1.0);
        // cwnd capped at BBRMinPipeCwnd = 4 packets; the expired RTprop took the new sample.
        assert_eq!(flow.bbr.cwnd(), 4 * MSS);
        assert_eq!(flow.bbr.rtprop(), Some(ms(120)));
        assert_eq!(flow.bbr.prior_cwnd, cwnd_before);
        // Inflight 5 packets: the 200 ms clock has not started.
        let t = flow.now;
        slower(&mut flow, t + ms(10), 5 * MSS);
        assert_eq!(flow.bbr.probe_rtt_done_stamp, None);
        // Inflight <= 4 packets: done at now + 200 ms, and a new round starts now.
        let t_low = t + ms(20);
        slower(&mut flow, t_low, 4 * MSS);
        assert_eq!(flow.bbr.probe_rtt_done_stamp, Some(t_low + ms(200)));
        let round_end = flow.delivered;
        assert_eq!(flow.bbr.next_round_delivered, round_end);
        // A packet sent now is treated as app-limited (draft §4.3.5).
        assert!(flow.bbr.sample_is_app_limited(&RateSample {
            delivered: MSS,
            interval: RTT,
            prior_delivered: round_end,
            is_app_limited: false,
        }));
        // 100 ms later the round ends (sample from a packet sent at round_end)...
        let ack = Ack {
            bytes_in_flight: 4 * MSS,
            rate_sample: Some(RateSample {
                delivered: 4 * MSS,
                interval: RTT,
                prior_delivered: round_end,
                is_app_limited: false,
            }),
            ..flow.plain_ack(t_low + ms(100))
        };
        flow.send(ack);
        assert!(flow.bbr.probe_rtt_round_done);
        // ...but 200 ms have not passed: still ProbeRTT at exactly 200 ms...
        slower(&mut flow, t_low + ms(200), 4 * MSS);
        assert_eq!(flow.bbr.mode(), "probe_rtt");
        assert_eq!(flow.bbr.cwnd(), 4 * MSS);
        // ...and out just after: back to PROBE_BW (pipe filled), 5/4 phase, RTprop stamp
        // renewed so the next ProbeRTT is 10 s away. The 100 ms sample taken at low
        // inflight re-measured RTprop, so cwnd is restored to cwnd_before (+1 000 ACKed) and
        // bounded by the target 2 * 8e6 * 0.1 + 3 000 = 1 603 000.
        assert_eq!(flow.bbr.rtprop(), Some(RTT));
        let t_exit = t_low + ms(200) + SimDuration::from_nanos(1);
        slower(&mut flow, t_exit, 4 * MSS);
        assert_eq!(flow.bbr.mode(), "probe_bw");
        assert_eq!(flow.bbr.cycle_index, 0);
        assert_eq!(flow.bbr.rtprop_stamp, t_exit);
        assert_eq!(cwnd_before, 1_603_000);
        assert_eq!(flow.bbr.cwnd(), 1_603_000);
        // The low-rate samples of ProbeRTT did not lower BtlBw.
        assert_eq!(flow.bbr.btl_bw(), 8e6);
    }

    #[test]
    fn probe_rtt_waits_for_a_round_as_well_as_200_ms() {
        let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
        let stamp = flow.bbr.rtprop_stamp;
        let ms = SimDuration::from_millis;
        let enter = Ack {
            rtt: Some(ms(120)),
            bytes_in_flight: 4 * MSS,
            ..flow.plain_ack(stamp + SimDuration::from_secs(11))
        };
        flow.send(enter);
        assert_eq!(flow.bbr.mode(), "probe_rtt");
        let t_low = flow.now;
        assert_eq!(flow.bbr.probe_rtt_done_stamp, Some(t_low + ms(200)));
        // 300 ms later but no round has ended (no rate sample): stay.
        let ack = flow.plain_ack(t_low + ms(300));
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_rtt");
        // The round ends: leave.
        let prior_delivered = flow.bbr.next_round_delivered;
        let ack = Ack {
            rate_sample: Some(RateSample {
                delivered: 4 * MSS,
                interval: RTT,
                prior_delivered,
                is_app_limited: false,
            }),
            ..flow.plain_ack(t_low + ms(310))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw");
    }

    #[test]
    fn probe_rtt_before_the_pipe_is_full_returns_to_startup() {
        let mut flow = Flow::new(&[]);
        flow.round(1e6, false, 4 * MSS);
        let stamp = flow.bbr.rtprop_stamp;
        let ms = SimDuration::from_millis;
        let ack = Ack {
            rtt: Some(ms(150)),
            bytes_in_flight: 4 * MSS,
            ..flow.plain_ack(stamp + SimDuration::from_secs(11))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_rtt");
        let t = flow.now;
        let prior_delivered = flow.bbr.next_round_delivered;
        let ack = Ack {
            rate_sample: Some(RateSample {
                delivered: 4 * MSS,
                interval: ms(150),
                prior_delivered,
                is_app_limited: false,
            }),
            ..flow.plain_ack(t + ms(201))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "startup");
        assert_eq!(flow.bbr.pacing_gain, flow.bbr.high_gain);
    }

    #[test]
    fn packet_conservation_for_one_round_of_fast_recovery_then_restore() {
        let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
        let c0 = flow.bbr.cwnd();
        let t = flow.now;
        let ms = SimDuration::from_millis;
        // The ACK that starts recovery: cwnd = pipe + max(delivered, 1 MSS) = 500 000 + 2 000.
        let ack = Ack {
            in_recovery: true,
            bytes_acked: 2 * MSS,
            bytes_in_flight: 500_000,
            newly_lost: 3 * MSS,
            ..flow.plain_ack(t + ms(1))
        };
        let start_delivered = ack.delivered;
        flow.send(ack);
        assert_eq!(flow.bbr.cwnd(), 502_000);
        assert_eq!(flow.bbr.prior_cwnd, c0);
        // The sender then raises the congestion event: already handled, nothing changes.
        flow.bbr.on_congestion_event(&CongestionEvent {
            now: t + ms(1),
            bytes_in_flight: 503_000,
            srtt: Some(RTT),
            min_rtt: Some(RTT),
        });
        assert_eq!(flow.bbr.cwnd(), 502_000);
        // Next ACK: 4 000 newly lost -> 498 000, but conservation keeps
        // cwnd >= pipe + delivered = 499 000 + 1 000 = 500 000.
        let ack = Ack {
            in_recovery: true,
            bytes_in_flight: 499_000,
            newly_lost: 4 * MSS,
            ..flow.plain_ack(t + ms(2))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.cwnd(), 500_000);
        // Losses without conservation headroom: 500 000 - 10 000 = 490 000 >= 480 000 + 1 000.
        let ack = Ack {
            in_recovery: true,
            bytes_in_flight: 480_000,
            newly_lost: 10 * MSS,
            ..flow.plain_ack(t + ms(3))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.cwnd(), 490_000);
        // One round after recovery began, conservation ends: cwnd grows by the bytes ACKed
        // toward the target (490 000 + 1 000).
        let ack = Ack {
            in_recovery: true,
            bytes_in_flight: 480_000,
            rate_sample: Some(RateSample {
                delivered: 100_000,
                interval: RTT,
                prior_delivered: start_delivered,
                is_app_limited: false,
            }),
            ..flow.plain_ack(t + ms(101))
        };
        flow.send(ack);
        assert!(!flow.bbr.packet_conservation);
        assert_eq!(flow.bbr.cwnd(), 491_000);
        // Recovery ends: the saved cwnd comes back.
        flow.bbr.on_recovery_exit(t + ms(150));
        assert_eq!(flow.bbr.cwnd(), c0);
    }

    #[test]
    fn congestion_event_after_a_plain_ack_uses_that_ack() {
        let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
        let t = flow.now + SimDuration::from_millis(1);
        // The triggering ACK arrives without the recovery flag; the event follows.
        let ack = Ack {
            bytes_in_flight: 300_000,
            bytes_acked: 0,
            ..flow.plain_ack(t)
        };
        flow.send(ack);
        flow.bbr.on_congestion_event(&CongestionEvent {
            now: t,
            bytes_in_flight: 310_000,
            srtt: Some(RTT),
            min_rtt: Some(RTT),
        });
        // cwnd = pipe after that ACK + max(0, 1 MSS).
        assert_eq!(flow.bbr.cwnd(), 301_000);
        assert!(flow.bbr.packet_conservation);
        // The falling edge of the recovery flag also ends recovery.
        let c_prior = flow.bbr.prior_cwnd;
        let ack = flow.plain_ack(t + SimDuration::from_millis(50));
        flow.send(ack);
        assert!(!flow.bbr.in_loss_recovery);
        // Restored, then bounded by the target 2 * 800 000 + 3 000.
        assert_eq!(flow.bbr.cwnd(), (c_prior + MSS).min(1_603_000));
    }

    #[test]
    fn retransmission_timeout_cuts_to_one_packet_then_regrows() {
        let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
        let c0 = flow.bbr.cwnd();
        new_timeout(
            &mut flow.bbr,
            &TimeoutEvent {
                now: flow.now,
                bytes_in_flight: 600_000,
            },
        );
        assert_eq!(flow.bbr.cwnd(), MSS);
        assert_eq!(flow.bbr.prior_cwnd, c0);
        let t = flow.now;
        // First ACK: 1 000 + 1 000 = 2 000, raised to the 4-packet floor.
        let ack = Ack {
            in_recovery: true,
            bytes_in_flight: 0,
            ..flow.plain_ack(t + RTT)
        };
        flow.send(ack);
        assert_eq!(flow.bbr.cwnd(), 4 * MSS);
        let ack = Ack {
            in_recovery: true,
            bytes_in_flight: 0,
            bytes_acked: 2 * MSS,
            ..flow.plain_ack(t + RTT + SimDuration::from_millis(1))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.cwnd(), 6 * MSS);
        flow.bbr.on_recovery_exit(flow.now);
        assert_eq!(flow.bbr.cwnd(), c0);
    }

    #[test]
    fn timeout_during_fast_recovery_keeps_the_pre_recovery_cwnd() {
        let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
        let c0 = flow.bbr.cwnd();
        let ack = Ack {
            in_recovery: true,
            bytes_in_flight: 200_000,
            ..flow.plain_ack(flow.now + SimDuration::from_millis(1))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.cwnd(), 201_000);
        // SaveCwnd in recovery keeps max(prior_cwnd, cwnd) = c0, not the cut window.
        flow.bbr.on_retransmission_timeout(&TimeoutEvent {
            now: flow.now,
            bytes_in_flight: 200_000,
        });
        assert_eq!((flow.bbr.cwnd(), flow.bbr.prior_cwnd), (MSS, c0));
        flow.bbr.on_recovery_exit(flow.now);
        assert_eq!(flow.bbr.cwnd(), c0);
    }

    #[test]
    fn cwnd_never_below_four_packets_on_a_tiny_bdp() {
        let mut flow = Flow::new(&[("quanta", text("mss"))]);
        // 1 000 B/s * 100 ms = 100 B of BDP: 2 * 100 + 3 000 = 3 200 < 4 000.
        for _ in 0..4 {
            flow.round(1_000.0, false, 0);
        }
        assert_eq!(flow.bbr.mode(), "probe_bw");
        assert_eq!(flow.bbr.inflight(2.0), 3_200);
        assert_eq!(flow.bbr.cwnd(), 4 * MSS);
    }

    #[test]
    fn seeded_start_phases_skip_the_drain_phase_and_reproduce() {
        let mut seen = [false; GAIN_CYCLE_LEN];
        for seed in 1..=40 {
            let flow = Flow::into_probe_bw(&[("seed", ParamInput::Number(seed as f64))]);
            let again = Flow::into_probe_bw(&[("seed", ParamInput::Number(seed as f64))]);
            assert_eq!(flow.bbr.cycle_index, again.bbr.cycle_index);
            assert_ne!(
                flow.bbr.cycle_index, 1,
                "seed {seed} started in the 3/4 phase"
            );
            seen[flow.bbr.cycle_index] = true;
        }
        assert_eq!(seen.iter().filter(|s| **s).count(), 7);
    }

    #[test]
    fn restart_from_idle_paces_at_btlbw_in_probe_bw() {
        let mut flow = Flow::into_probe_bw(&[]);
        // In the 5/4 phase; a send with nothing else in flight restarts from idle.
        flow.bbr.on_packet_sent(flow.now, MSS, MSS);
        assert!(flow.bbr.idle_restart);
        assert_eq!(flow.bbr.pacing_rate(), Some(64_000_000));
        // With other data in flight it is not a restart.
        let mut flow = Flow::into_probe_bw(&[]);
        flow.bbr.on_packet_sent(flow.now, MSS, 2 * MSS);
        assert!(!flow.bbr.idle_restart);
    }

    #[test]
    fn builds_from_the_registry_with_defaults() {
        let config = CcConfig::new(1448);
        let cc = (INFO.build)(
            &config,
            &Params::defaults(INFO.params),
            Box::new(crate::slow_start::standard::StandardSlowStart::new(&config)),
        );
        assert_eq!(cc.name(), "bbr");
        assert_eq!(cc.mode(), "startup");
        const { assert!(!INFO.uses_slow_start) };
    }
}
