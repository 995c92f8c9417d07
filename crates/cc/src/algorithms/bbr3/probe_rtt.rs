//! PROBE_RTT, draft §5.3.4: when min_rtt has not been re-measured for 5 s, hold cwnd at half
//! the BDP (§5.6.4.5 ProbeRTTCwnd) for max(200 ms, 1 round), then CRUISE (or STARTUP if the
//! pipe was never full). Linux `bbr_update_min_rtt`, `bbr_check_probe_rtt_done`,
//! `bbr_exit_probe_rtt`. The 200 ms / round clock and the app-limited marking are shared with
//! v1 (`bbr_common::probe_rtt`).

use super::{AckPhase, Bbr3, Mode};
use crate::controller::Ack;
use crate::time::SimTime;

/// BBR.ProbeRTTCwndGain (draft §2.16.2).
const PROBE_RTT_CWND_GAIN: f64 = 0.5;

impl Bbr3 {
    /// draft §5.3.4.3 CheckProbeRTT.
    pub(super) fn check_probe_rtt(&mut self, ack: &Ack) {
        if self.mode != Mode::ProbeRtt && self.probe_rtt_expired && !self.idle_restart {
            self.enter_probe_rtt();
            // Saved after the mode change, as the draft orders it: SaveCwnd then keeps the
            // larger of prior_cwnd and cwnd.
            self.save_cwnd();
            self.probe_rtt.enter(self.delivered);
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        // HandleProbeRTT: the clock starts once inflight <= ProbeRTTCwnd.
        if self.mode == Mode::ProbeRtt {
            let target = self.probe_rtt_cwnd();
            if self.probe_rtt.on_ack(ack, target, &mut self.round) {
                self.exit_probe_rtt(ack.now);
            }
        }
        if ack.bytes_acked > 0 {
            self.idle_restart = false;
        }
    }

    /// draft §5.3.4.3 EnterProbeRTT.
    fn enter_probe_rtt(&mut self) {
        self.mode = Mode::ProbeRtt;
        self.pacing_gain = 1.0;
        self.cwnd_gain = PROBE_RTT_CWND_GAIN;
    }

    /// draft §5.3.4.3 CheckProbeRTTDone, once the clock says ProbeRTT is over: the
    /// ProbeRTT schedule restarts, then §5.3.4.4 ExitProbeRTT.
    pub(super) fn exit_probe_rtt(&mut self, now: SimTime) {
        self.probe_rtt_min_stamp = now;
        self.cwnd = self.recovery.restore_cwnd(self.cwnd);
        self.reset_short_term_model();
        if self.full_bw_reached {
            self.start_probe_bw_down(now);
            self.start_probe_bw_cruise();
        } else {
            self.enter_startup();
        }
    }

    /// draft §5.6.4.5 ProbeRTTCwnd.
    fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp_multiple(self.bw, PROBE_RTT_CWND_GAIN)
            .max(self.min_pipe_cwnd())
    }

    /// draft §5.6.4.5 BoundCwndForProbeRTT.
    pub(super) fn bound_cwnd_for_probe_rtt(&mut self) {
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
    }
}
