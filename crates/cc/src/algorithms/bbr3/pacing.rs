//! Pacing rate and send quantum, draft §5.6.2 and §5.6.3; Linux `bbr_init_pacing_rate_from_rtt`,
//! `bbr_set_pacing_rate`, `bbr_tso_segs_goal`. The raise-only rule before the pipe is full
//! and the initial rate's nominal bandwidth are shared with v1 (`bbr_common::pacing`).

use super::{Bbr3, Quanta};
use crate::algorithms::bbr_common::MAX_SEND_QUANTUM;
use crate::algorithms::bbr_common::pacing::{nominal_bandwidth, set_pacing_rate};
use crate::time::SimDuration;

/// BBR.PacingMarginPercent (draft §2.5).
const PACING_MARGIN_PERCENT: f64 = 1.0;

impl Bbr3 {
    /// draft §5.6.2 InitPacingRate.
    pub(super) fn init_pacing_rate(&mut self, srtt: Option<SimDuration>) {
        let nominal_bandwidth = nominal_bandwidth(self.initial_cwnd, srtt);
        self.pacing_rate = self.startup_pacing_gain * nominal_bandwidth;
    }

    /// draft §5.6.2 SetPacingRateWithGain.
    pub(super) fn set_pacing_rate_with_gain(&mut self, gain: f64) {
        let rate = gain * self.bw * (100.0 - PACING_MARGIN_PERCENT) / 100.0;
        set_pacing_rate(&mut self.pacing_rate, rate, self.full_bw_reached);
    }

    /// draft §5.6.3 SetSendQuantum, or 1 MSS for `quanta = "mss"`.
    pub(super) fn set_send_quantum(&mut self) {
        self.send_quantum = match self.quanta {
            Quanta::Mss => self.mss,
            Quanta::Draft => ((self.pacing_rate / 1000.0) as u64)
                .min(MAX_SEND_QUANTUM)
                .max(2 * self.mss),
        };
    }
}
