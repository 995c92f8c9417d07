//! STARTUP, draft §4.3.2: pace and size cwnd at 2/ln 2 (Linux: 739/256) until BtlBw stops
//! growing by 25 % for three non-app-limited rounds (§4.3.2.2 BBRCheckFullPipe; Linux
//! `bbr_check_full_bw_reached`). The plateau count itself is shared with v3
//! (`bbr_common::full_bw`).

use super::{Bbr, Mode};
use crate::controller::Ack;

impl Bbr {
    /// draft §4.3.2.1 BBREnterStartup.
    pub(super) fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.high_gain;
        self.cwnd_gain = self.high_gain;
    }

    /// draft §4.3.2.2 BBRCheckFullPipe: once per round, on BtlBw, skipping app-limited
    /// samples (they say nothing about the path's capacity).
    pub(super) fn check_full_pipe(&mut self, ack: &Ack) {
        let app_limited = ack
            .rate_sample
            .is_some_and(|rs| self.sample_is_app_limited(&rs));
        if self.filled_pipe || !self.round.start || app_limited {
            return;
        }
        if self.full_bw.update(self.btl_bw()) {
            self.filled_pipe = true;
        }
    }
}
