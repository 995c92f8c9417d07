//! DRAIN, draft §4.3.3: pace at the inverse of the STARTUP gain until inflight is down to
//! one BDP (BBRInflight(1.0)), then PROBE_BW. Linux `bbr_check_drain`.

use super::{Bbr, Mode};
use crate::controller::Ack;

impl Bbr {
    /// draft §4.3.3 BBREnterDrain.
    fn enter_drain(&mut self) {
        self.mode = Mode::Drain;
        self.pacing_gain = self.drain_gain;
        self.cwnd_gain = self.high_gain;
    }

    /// draft §4.3.3 BBRCheckDrain.
    pub(super) fn check_drain(&mut self, ack: &Ack) {
        if self.mode == Mode::Startup && self.filled_pipe {
            self.enter_drain();
        }
        if self.mode == Mode::Drain && ack.bytes_in_flight <= self.inflight(1.0) {
            self.enter_probe_bw(ack.now);
        }
    }
}
