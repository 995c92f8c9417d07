//! The latest delivery signals and the short-term model, draft §5.5.10.3
//! (UpdateLatestDeliverySignals, AdvanceLatestDeliverySignals, ResetCongestionSignals,
//! UpdateCongestionSignals, AdaptLowerBoundsFromCongestion, ResetShortTermModel,
//! BoundBWForModel); Linux `bbr_update_latest_delivery_signals`,
//! `bbr_update_congestion_signals`, `bbr_adapt_lower_bounds` (with its ECN cut).

use super::{Bbr3, INFINITE, Sample};
use crate::controller::Ack;

impl Bbr3 {
    /// draft UpdateLatestDeliverySignals.
    pub(super) fn update_latest_delivery_signals(&mut self, sample: &Sample) {
        self.loss_round_start = false;
        self.bw_latest = self.bw_latest.max(sample.delivery_rate);
        self.inflight_latest = self.inflight_latest.max(sample.delivered);
        if sample
            .prior_delivered
            .is_some_and(|p| p >= self.loss_round_delivered)
        {
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        }
    }

    /// draft AdvanceLatestDeliverySignals; the per-round loss tallies start over too.
    pub(super) fn advance_latest_delivery_signals(&mut self, sample: &Sample) {
        if self.loss_round_start {
            self.bw_latest = sample.delivery_rate;
            self.inflight_latest = sample.delivered;
            self.loss_in_round = 0;
            self.loss_events_in_round = 0;
        }
    }

    /// draft ResetCongestionSignals, and Linux's ECN and per-cycle flags. The RS.lost
    /// estimate (`loss_in_round`) is kept: in the draft RS.lost is per packet and does not
    /// depend on these signals.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.is_loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }

    /// draft UpdateCongestionSignals, with Linux's per-round ECN steps (bbr_main: ecn_alpha at
    /// each round start, ecn_in_round from this ACK).
    pub(super) fn update_congestion_signals(&mut self, ack: &Ack, sample: &Sample) {
        self.update_max_bw(sample);
        if self.round.start {
            self.update_ecn_alpha();
        }
        self.check_ecn_too_high_within_round();
        self.ecn_in_round |= self.ecn_eligible && ack.ecn_ce_bytes > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds_from_congestion();
        self.is_loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// draft AdaptLowerBoundsFromCongestion, InitLowerBounds and LossLowerBounds, with
    /// Linux's ECN cut (bbr_adapt_lower_bounds): a round with CE marks cuts
    /// inflight_shortterm (not bw_shortterm) to (1 - ecn_factor * ecn_alpha) of itself, with
    /// no floor at inflight_latest; with loss too, the lower of the two cuts wins.
    fn adapt_lower_bounds_from_congestion(&mut self) {
        if self.mode.is_probing_bw() {
            return;
        }
        let mut ecn_inflight_shortterm = INFINITE;
        if self.ecn_in_round && self.ecn.factor > 0.0 {
            if self.inflight_shortterm == INFINITE {
                self.inflight_shortterm = self.cwnd;
            }
            let ecn_cut = 1.0 - self.ecn.factor * self.ecn_alpha;
            ecn_inflight_shortterm = (self.inflight_shortterm as f64 * ecn_cut) as u64;
        }
        if self.is_loss_in_round {
            if self.bw_shortterm.is_infinite() {
                self.bw_shortterm = self.max_bw();
            }
            if self.inflight_shortterm == INFINITE {
                self.inflight_shortterm = self.cwnd;
            }
            self.bw_shortterm = self.bw_latest.max(self.beta * self.bw_shortterm);
            self.inflight_shortterm = self
                .inflight_latest
                .max((self.beta * self.inflight_shortterm as f64) as u64);
        }
        self.inflight_shortterm = self.inflight_shortterm.min(ecn_inflight_shortterm);
    }

    /// draft ResetShortTermModel.
    pub(super) fn reset_short_term_model(&mut self) {
        self.bw_shortterm = f64::INFINITY;
        self.inflight_shortterm = INFINITE;
    }

    /// draft BoundBWForModel.
    pub(super) fn bound_bw_for_model(&mut self) {
        self.bw = self.max_bw().min(self.bw_shortterm);
    }
}
