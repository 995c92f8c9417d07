//! ProbeBW, draft §5.3.3: the cycle DOWN (0.9) -> CRUISE (1.0) -> REFILL (1.0, one round)
//! -> UP (1.25, cwnd gain 2.25) -> DOWN, with the wall-clock / Reno-coexistence probe timing
//! (§5.3.3.8) and the long-term model it adapts (§5.3.3.9 AdaptLongTermModel,
//! ProbeInflightLongtermUpward). Linux `bbr_update_cycle_phase`,
//! `bbr_check_time_to_probe_bw`, `bbr_probe_inflight_hi_upward`, `bbr_adapt_upper_bounds`.

use super::{AckPhase, Bbr3, DEFAULT_CWND_GAIN, INFINITE, Mode, Sample};
use crate::controller::Ack;
use crate::time::{SimDuration, SimTime};

/// ProbeBW gains (draft §5.3.3, table in §5.6.1).
const PROBE_DOWN_PACING_GAIN: f64 = 0.9;
const PROBE_UP_PACING_GAIN: f64 = 1.25;
const PROBE_UP_CWND_GAIN: f64 = 2.25;
/// T_reno bound (draft §5.3.3.8).
const RENO_MAX_ROUNDS: u64 = 63;
/// Deterministic stand-in for the draft's 2 + U[0, 1) s probe wait: its mean.
const DETERMINISTIC_PROBE_WAIT: SimDuration = SimDuration::from_millis(2500);

impl Bbr3 {
    /// draft §5.3.3.9 EnterProbeBW.
    pub(super) fn enter_probe_bw(&mut self, now: SimTime) {
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

    pub(super) fn start_probe_bw_down(&mut self, now: SimTime) {
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

    pub(super) fn start_probe_bw_cruise(&mut self) {
        self.mode = Mode::ProbeBwCruise;
        self.pacing_gain = 1.0;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    /// `probe_up_rounds`: the first UP round raises inflight_longterm by 2^this packets per
    /// cwnd ACKed (0 normally; larger for Linux's ECN re-probe).
    pub(super) fn start_probe_bw_refill(&mut self, probe_up_rounds: u32) {
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
        self.full_bw.bw = sample.delivery_rate;
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
            self.full_bw.bw = sample.delivery_rate;
        } else if self.full_bw_now {
            return true;
        }
        false
    }

    /// draft §5.3.3.9 RaiseInflightLongtermSlope.
    pub(super) fn raise_inflight_longterm_slope(&mut self) {
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
        if self.round.start {
            self.raise_inflight_longterm_slope();
        }
    }

    /// draft §5.3.3.9 AdaptLongTermModel; true if it decided a state transition.
    fn adapt_long_term_model(&mut self, ack: &Ack, sample: &Sample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round.start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round.start {
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
    pub(super) fn update_probe_bw_cycle_phase(&mut self, ack: &Ack, sample: &Sample) {
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
            Mode::ProbeBwRefill if self.round.start => {
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
}
