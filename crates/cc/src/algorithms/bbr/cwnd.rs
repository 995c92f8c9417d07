//! The congestion window, draft §4.2.3: BBRInflight (§4.2.3.2), BBRSetCwnd (§4.2.3.6) and
//! BBRModulateCwndForProbeRTT (§4.2.3.5); Linux `bbr_bdp`, `bbr_quantization_budget`,
//! `bbr_set_cwnd` (with the ACK-aggregation allowance, `ack_aggregation.rs`). The recovery modulation (§4.2.3.4) and the growth rule are shared with v3
//! (`bbr_common::recovery`, `bbr_common::cwnd`).

use super::{Bbr, Mode, Variant};
use crate::algorithms::bbr_common::cwnd::{CwndTarget, set_cwnd};
use crate::controller::Ack;

impl Bbr {
    /// draft §4.2.3.2 BBRInflight: `gain * BtlBw * RTprop + 3 * send_quantum`, or InitialCwnd
    /// before any RTT sample. The BDP is rounded up to a whole byte (Linux rounds up to a
    /// packet "to avoid a negative feedback loop"). The Linux variant computes in packets and
    /// applies `bbr_quantization_budget`: round up to an even count, +2 in the 5/4 phase.
    pub(super) fn inflight(&self, gain: f64) -> u64 {
        self.inflight_plus(gain, 0)
    }

    /// BBRInflight with `extra` bytes added to the BDP before the quantization budget, as
    /// Linux `bbr_set_cwnd` adds the ACK-aggregation allowance.
    fn inflight_plus(&self, gain: f64, extra: u64) -> u64 {
        let Some(rtprop) = self.rtprop else {
            return self.initial_cwnd;
        };
        let bdp = self.btl_bw() * rtprop.as_nanos() as f64 / 1e9;
        let quanta = 3 * self.send_quantum;
        match self.variant {
            Variant::Paper => (gain * bdp).ceil() as u64 + extra + quanta,
            Variant::Linux => {
                let mut packets = (gain * bdp / self.mss as f64).ceil() as u64
                    + extra / self.mss
                    + quanta.div_ceil(self.mss);
                packets += packets % 2;
                if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
                    packets += 2;
                }
                packets * self.mss
            }
        }
    }

    /// What cwnd grows toward: BBRInflight(cwnd_gain), plus in the `linux` variant the
    /// ACK-aggregation allowance (Linux `bbr_set_cwnd`; draft-00 has none).
    pub(super) fn cwnd_target(&self) -> u64 {
        let aggregation = match self.variant {
            Variant::Linux => self
                .ack_aggregation
                .allowance(self.btl_bw(), self.filled_pipe),
            Variant::Paper => 0,
        };
        self.inflight_plus(self.cwnd_gain, aggregation)
    }

    /// draft §4.2.3.6 BBRSetCwnd (with §4.2.3.4 and §4.2.3.5).
    pub(super) fn set_cwnd(&mut self, ack: &Ack, entered_recovery: bool) {
        let goal = CwndTarget {
            target: self.cwnd_target(),
            filled_pipe: self.filled_pipe,
            mss: self.mss,
            initial_cwnd: self.initial_cwnd,
        };
        self.cwnd = set_cwnd(self.cwnd, ack, entered_recovery, &self.recovery, goal);
        // draft §4.2.3.5 BBRModulateCwndForProbeRTT.
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.min_pipe_cwnd());
        }
    }
}
