//! Volumes and the congestion window, draft §5.6.4: BDP and Inflight with the quantization
//! budget (§5.6.4.2), max_inflight, InflightWithHeadroom (§5.3.3.9), SetCwnd (§5.6.4.6) and
//! BoundCwndForModel (§5.6.4.7). Linux `bbr_bdp`, `bbr_inflight`,
//! `bbr_quantization_budget`, `bbr_inflight_with_headroom`, `bbr_set_cwnd`,
//! `bbr_bound_cwnd_for_inflight_model`. The recovery modulation and the growth rule are shared
//! with v1 (`bbr_common::recovery`, `bbr_common::cwnd`).

use super::{Bbr3, INFINITE, Mode};
use crate::algorithms::bbr_common::cwnd::{CwndTarget, set_cwnd};
use crate::controller::Ack;

impl Bbr3 {
    /// BBR.bdp = BBR.bw * BBR.min_rtt (bytes, rounded up); InitialCwnd before any RTT.
    pub(super) fn bdp(&self) -> u64 {
        self.bdp_multiple(self.bw, 1.0)
    }

    /// draft §5.6.4.2 BDPMultiple, with the bandwidth as an argument as §5.3.3.9 and
    /// §5.6.4.5 use it.
    pub(super) fn bdp_multiple(&self, bw: f64, gain: f64) -> u64 {
        let Some(min_rtt) = self.min_rtt else {
            return self.initial_cwnd;
        };
        (gain * bw * min_rtt.as_nanos() as f64 / 1e9).ceil() as u64
    }

    /// draft §5.6.4.2 QuantizationBudget.
    fn quantization_budget(&self, inflight_cap: u64) -> u64 {
        let offload_budget = 3 * self.send_quantum;
        let mut cap = inflight_cap.max(offload_budget).max(self.min_pipe_cwnd());
        if self.mode == Mode::ProbeBwUp {
            cap += 2 * self.mss;
        }
        cap
    }

    /// draft §5.6.4.2 Inflight(bw, gain).
    pub(super) fn inflight(&self, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(self.bdp_multiple(bw, gain))
    }

    /// draft §5.6.4.2 UpdateMaxInflight.
    fn update_max_inflight(&mut self) {
        let cap = self.bdp_multiple(self.bw, self.cwnd_gain) + self.extra_acked();
        self.max_inflight = self.quantization_budget(cap);
    }

    /// draft §5.3.3.9 InflightWithHeadroom.
    pub(super) fn inflight_with_headroom(&self) -> u64 {
        if self.inflight_longterm == INFINITE {
            return INFINITE;
        }
        let headroom = self
            .mss
            .max((self.headroom * self.inflight_longterm as f64) as u64);
        self.inflight_longterm
            .saturating_sub(headroom)
            .max(self.min_pipe_cwnd())
    }

    /// draft §5.6.4.6 SetCwnd (with draft-02's recovery modulation), §5.6.4.5, §5.6.4.7.
    pub(super) fn set_cwnd(&mut self, ack: &Ack, entered_recovery: bool) {
        self.update_max_inflight();
        let goal = CwndTarget {
            target: self.max_inflight,
            filled_pipe: self.full_bw_reached,
            mss: self.mss,
            initial_cwnd: self.initial_cwnd,
        };
        self.cwnd = set_cwnd(self.cwnd, ack, entered_recovery, &self.recovery, goal);
        self.bound_cwnd_for_probe_rtt();
        self.bound_cwnd_for_model();
    }

    /// draft §5.6.4.7 BoundCwndForModel.
    fn bound_cwnd_for_model(&mut self) {
        let mut cap = INFINITE;
        if self.mode.is_probe_bw() && self.mode != Mode::ProbeBwCruise {
            cap = self.inflight_longterm;
        } else if self.mode == Mode::ProbeRtt || self.mode == Mode::ProbeBwCruise {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_shortterm).max(self.min_pipe_cwnd());
        self.cwnd = self.cwnd.min(cap);
    }
}
