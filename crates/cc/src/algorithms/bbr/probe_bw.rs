//! PROBE_BW, draft §4.3.4: cycle the pacing gain through [5/4, 3/4, 1, 1, 1, 1, 1, 1], one
//! RTprop per phase, to probe for more bandwidth and drain the queue it built. Linux
//! `bbr_update_cycle_phase`, `bbr_is_next_cycle_phase`, `bbr_reset_probe_bw_mode`.

use super::{Bbr, Mode};
use crate::controller::Ack;
use crate::time::{SimDuration, SimTime};

/// ProbeBW gain cycle (draft §4.3.4.3).
pub(super) const GAIN_CYCLE_LEN: usize = 8;
pub(super) const PROBE_BW_PACING_GAINS: [f64; GAIN_CYCLE_LEN] =
    [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// cwnd_gain in ProbeBW (draft §4.3.4.1).
const PROBE_BW_CWND_GAIN: f64 = 2.0;

impl Bbr {
    /// draft §4.3.4.3 BBREnterProbeBW: the cycle starts at a phase other than 3/4.
    pub(super) fn enter_probe_bw(&mut self, now: SimTime) {
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
    pub(super) fn check_cycle_phase(&mut self, ack: &Ack) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(ack) {
            self.advance_cycle_phase(ack.now);
        }
    }
}
