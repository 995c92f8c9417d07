//! DRAIN, draft §5.3.2: pace at 0.5 until inflight is down to Inflight(bw, 1.0), or for at
//! most 3 rounds, then ProbeBW. Linux `bbr_check_drain`.

use super::{Bbr3, DEFAULT_CWND_GAIN, Mode};
use crate::controller::Ack;

/// BBR.DrainPacingGain (draft §2.5).
const DRAIN_PACING_GAIN: f64 = 0.5;
/// Drain ends after at most 3 rounds (draft §5.3.2).
const DRAIN_MAX_ROUNDS: u64 = 3;

impl Bbr3 {
    /// draft §5.3.2 EnterDrain.
    pub(super) fn enter_drain(&mut self) {
        self.mode = Mode::Drain;
        self.pacing_gain = DRAIN_PACING_GAIN;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
        self.drain_start_round = self.round.count;
    }

    /// draft §5.3.2 CheckDrainDone.
    pub(super) fn check_drain_done(&mut self, ack: &Ack) {
        if self.mode == Mode::Drain
            && (ack.bytes_in_flight <= self.inflight(self.bw, 1.0)
                || self.round.count > self.drain_start_round + DRAIN_MAX_ROUNDS)
        {
            self.enter_probe_bw(ack.now);
        }
    }
}
