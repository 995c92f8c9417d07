//! Pacing rate and send quantum, draft §4.2.1 and §4.2.2; Linux `bbr_set_pacing_rate`,
//! `bbr_tso_segs_goal`. The raise-only rule before the pipe is full and the initial rate's
//! nominal bandwidth are shared with v3 (`bbr_common::pacing`).

use super::{Bbr, Quanta};
use crate::algorithms::bbr_common::MAX_SEND_QUANTUM;
use crate::algorithms::bbr_common::pacing::{nominal_bandwidth, set_pacing_rate};
use crate::time::SimDuration;

/// Send-quantum thresholds (draft §4.2.2), in bit/s.
const LOW_RATE_BPS: f64 = 1.2e6;
const MID_RATE_BPS: f64 = 24e6;

impl Bbr {
    /// draft §4.2.1 BBRInitPacingRate: `pacing_gain * InitialCwnd / (SRTT or 1 ms)`.
    pub(super) fn init_pacing_rate(&mut self, srtt: Option<SimDuration>) {
        let nominal_bw = nominal_bandwidth(self.initial_cwnd, srtt);
        self.pacing_rate = self.high_gain * nominal_bw * self.pacing_margin;
    }

    /// draft §4.2.1 BBRSetPacingRateWithGain: before the pipe is filled, only raise it.
    pub(super) fn set_pacing_rate_with_gain(&mut self, gain: f64) {
        let rate = gain * self.btl_bw() * self.pacing_margin;
        set_pacing_rate(&mut self.pacing_rate, rate, self.filled_pipe);
    }

    /// draft §4.2.2 BBRSetSendQuantum, or 1 MSS for `quanta = "mss"`.
    pub(super) fn set_send_quantum(&mut self) {
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
}
