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
        // BBRHandleProbeRTT: the clock starts once inflight <= BBRMinPipeCwnd.
        if self.mode == Mode::ProbeRtt {
            let target = self.min_pipe_cwnd();
            if self.probe_rtt.on_ack(ack, target, &mut self.round) {
                self.exit_probe_rtt(ack.now);
            }
        }
        self.idle_restart = false;
    }

    /// draft §4.3.5 BBREnterProbeRTT.
    fn enter_probe_rtt(&mut self) {
        self.mode = Mode::ProbeRtt;
        self.pacing_gain = 1.0;
        self.cwnd_gain = PROBE_RTT_CWND_GAIN;
    }

    /// The exit half of draft §4.3.5 BBRHandleProbeRTT, once the clock says ProbeRTT is
    /// over (Linux `bbr_check_probe_rtt_done`): RTprop counts as fresh for another 10 s.
    pub(super) fn exit_probe_rtt(&mut self, now: SimTime) {
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
