//! PROBE_RTT, draft §4.3.5: when RTprop has not been refreshed for 10 s, hold cwnd at
//! BBRMinPipeCwnd (4 packets) for max(200 ms, 1 round) to re-measure it, then return to
//! PROBE_BW (or STARTUP if the pipe was never full). Linux `bbr_update_min_rtt`,
//! `bbr_check_probe_rtt_done`. The 200 ms / round clock and the app-limited marking are
//! shared with v3 (`bbr_common::probe_rtt`).

use super::{Bbr, Mode};
use crate::controller::Ack;
use crate::time::SimTime;

/// cwnd_gain in ProbeRTT (draft §4.3.5 BBREnterProbeRTT).
const PROBE_RTT_CWND_GAIN: f64 = 1.0;

impl Bbr {
    /// draft §4.3.5 BBRCheckProbeRTT.
    pub(super) fn check_probe_rtt(&mut self, ack: &Ack) {
        if self.mode != Mode::ProbeRtt && self.rtprop_expired && !self.idle_restart {
            self.enter_probe_rtt();
            // Saved after the mode change, as the draft orders it: SaveCwnd then keeps the
            // larger of prior_cwnd and cwnd.
            self.recovery
                .save_cwnd(self.cwnd, self.mode == Mode::ProbeRtt);
            self.probe_rtt.enter(self.delivered);
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

    /// draft §4.3.5 BBRHandleProbeRTT: the clock starts once inflight <= BBRMinPipeCwnd.
    fn handle_probe_rtt(&mut self, ack: &Ack) {
        let target = self.min_pipe_cwnd();
        let round_done = self.probe_rtt.on_ack(
            ack.now,
            self.delivered,
            ack.bytes_in_flight,
            target,
            &mut self.round,
        );
        if round_done {
            self.check_probe_rtt_done(ack.now);
        }
    }

    /// The exit half of draft §4.3.5 BBRHandleProbeRTT (Linux `bbr_check_probe_rtt_done`).
    pub(super) fn check_probe_rtt_done(&mut self, now: SimTime) {
        if !self.probe_rtt.finish(now) {
            return;
        }
        self.rtprop_stamp = now;
        self.cwnd = self.recovery.restore_cwnd(self.cwnd);
        // BBRExitProbeRTT.
        if self.filled_pipe {
            self.enter_probe_bw(now);
        } else {
            self.enter_startup();
        }
    }
}
