//! The path model's estimators, draft §5.5: rounds (§5.5.1), max_bw over the last two
//! ProbeBW cycles (§5.5.5-5.5.6), ACK aggregation / extra_acked (§5.5.9) and min_rtt with
//! its 5 s ProbeRTT schedule (§5.3.4.3 UpdateMinRTT). Linux `bbr_update_round_start`,
//! `bbr_calculate_bw_sample`, `bbr_update_ack_aggregation`, `bbr_update_min_rtt`. The round
//! counter itself is shared with v1 (`bbr_common::round`).

use super::{Bbr3, Sample};
use crate::controller::Ack;
use crate::time::SimDuration;

/// BBR.MaxBwFilterLen (draft §2.11): two ProbeBW cycles.
pub(super) const MAX_BW_FILTER_LEN: u64 = 2;
/// BBR.ExtraAckedFilterLen (draft §2.12): 10 rounds (1 in Startup).
pub(super) const EXTRA_ACKED_FILTER_LEN: u64 = 10;
/// BBR.MinRTTFilterLen (draft §2.16.1).
const MIN_RTT_FILTER_LEN: SimDuration = SimDuration::from_secs(10);
/// BBR.ProbeRTTInterval (draft §2.16.2).
const PROBE_RTT_INTERVAL: SimDuration = SimDuration::from_secs(5);

impl Bbr3 {
    /// draft §5.5.1 UpdateRound.
    fn update_round(&mut self, sample: &Sample) {
        if self.round.update(sample.prior_delivered, self.delivered) {
            self.rounds_since_probe_up += 1;
            // Packet conservation lasts one round of recovery (draft-02 §4.6.4.4).
            self.recovery.on_round_start();
        }
    }

    /// draft §5.5.5 UpdateMaxBw.
    pub(super) fn update_max_bw(&mut self, sample: &Sample) {
        self.update_round(sample);
        if sample.delivery_rate > 0.0
            && (sample.delivery_rate >= self.max_bw() || !sample.is_app_limited)
        {
            self.max_bw_filter
                .update(self.cycle_count, sample.delivery_rate, MAX_BW_FILTER_LEN);
        }
    }

    /// draft §5.5.9 UpdateACKAggregation.
    pub(super) fn update_ack_aggregation(&mut self, ack: &Ack) {
        let start = *self.extra_acked_interval_start.get_or_insert(ack.now);
        let interval_ns = ack.now.saturating_since(start).as_nanos() as f64;
        let mut expected_delivered = self.bw * interval_ns / 1e9;
        if self.extra_acked_delivered as f64 <= expected_delivered {
            self.extra_acked_delivered = 0;
            self.extra_acked_interval_start = Some(ack.now);
            expected_delivered = 0.0;
        }
        self.extra_acked_delivered += ack.bytes_acked;
        let extra = (self.extra_acked_delivered as f64 - expected_delivered).min(self.cwnd as f64);
        let filter_len = if self.full_bw_reached {
            EXTRA_ACKED_FILTER_LEN
        } else {
            1
        };
        self.extra_acked_filter
            .update(self.round.count, extra, filter_len);
    }

    pub(super) fn extra_acked(&self) -> u64 {
        self.extra_acked_filter.get() as u64
    }

    /// draft §5.3.4.3 UpdateMinRTT (strict "<" for probe_rtt_min_delay, as the draft).
    pub(super) fn update_min_rtt(&mut self, ack: &Ack) {
        // Before the first sample nothing can expire (OnInit stamps the unseen start).
        self.probe_rtt_expired = self.probe_rtt_min_delay.is_some()
            && ack.now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL;
        let expired = self.probe_rtt_expired;
        let current = self.probe_rtt_min_delay;
        if let Some(rtt) = ack
            .rtt
            .filter(|&r| current.is_none_or(|d| r < d) || expired)
        {
            self.probe_rtt_min_delay = Some(rtt);
            self.probe_rtt_min_stamp = ack.now;
        }
        let min_rtt_expired =
            self.min_rtt.is_some() && ack.now > self.min_rtt_stamp + MIN_RTT_FILTER_LEN;
        let min_rtt = self.min_rtt;
        if let Some(delay) = self
            .probe_rtt_min_delay
            .filter(|&d| min_rtt.is_none_or(|m| d < m) || min_rtt_expired)
        {
            self.min_rtt = Some(delay);
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
    }
}
