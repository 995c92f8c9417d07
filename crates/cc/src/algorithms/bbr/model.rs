//! The network path model, draft §4.1: BtlBw, the windowed max of delivery-rate samples over
//! 10 packet-timed rounds (§4.1.1), and RTprop, the min RTT over 10 s (§4.1.2). Linux:
//! `bbr_update_bw`, the min-RTT part of `bbr_update_min_rtt`.

use super::Bbr;
use crate::algorithms::bbr_common::rate_sample::delivery_rate;
use crate::controller::{Ack, RateSample};
use crate::time::SimDuration;

/// BtlBwFilterLen (draft §2): the BtlBw max filter spans 10 packet-timed round trips.
pub(super) const BTL_BW_FILTER_LEN: u64 = 10;
/// RTpropFilterLen = ProbeRTTInterval (draft §2): 10 s.
const RTPROP_FILTER_LEN: SimDuration = SimDuration::from_secs(10);

impl Bbr {
    /// The sample is app-limited, by the sender's flag or because its packet left during
    /// ProbeRTT (see `ProbeRttClock`).
    pub(super) fn sample_is_app_limited(&self, rs: &RateSample) -> bool {
        rs.is_app_limited || self.probe_rtt.marks_app_limited(rs.prior_delivered)
    }

    /// draft §4.1.1.3 BBRUpdateRound and §4.1.1.5 BBRUpdateBtlBw.
    pub(super) fn update_btl_bw(&mut self, ack: &Ack) {
        let prior_delivered = ack.rate_sample.map(|rs| rs.prior_delivered);
        if self.round.update(prior_delivered, ack.delivered) {
            // draft §4.2.3.4: packet conservation lasts the first round of recovery.
            self.recovery.on_round_start();
        }
        let Some(rs) = ack.rate_sample else { return };
        if let Some(rate) = delivery_rate(&rs, ack.min_rtt) {
            // draft §4.1.1.4: app-limited samples only when they would raise BtlBw.
            if rate >= self.btl_bw() || !self.sample_is_app_limited(&rs) {
                self.btl_bw_filter
                    .update(self.round.count, rate, BTL_BW_FILTER_LEN);
            }
        }
    }

    /// draft §4.1.2.3 BBRUpdateRTprop: a sample at or below RTprop refreshes it; an expired
    /// RTprop (10 s without refresh) takes whatever comes next.
    pub(super) fn update_rtprop(&mut self, ack: &Ack) {
        // Before the first sample there is nothing to expire (BBRInit stamps "now", the
        // connection start, which the controller does not see).
        self.rtprop_expired =
            self.rtprop.is_some() && ack.now > self.rtprop_stamp + RTPROP_FILTER_LEN;
        let Some(rtt) = ack.rtt else { return };
        if self.rtprop.is_none_or(|r| rtt <= r) || self.rtprop_expired {
            self.rtprop = Some(rtt);
            self.rtprop_stamp = ack.now;
        }
    }
}
