//! The ECN response of Linux BBRv3 (google/bbr `net/ipv4/tcp_bbr.c`: `bbr_update_ecn_alpha`,
//! `bbr_check_ecn_too_high_in_startup`, the ECN parts of `bbr_is_inflight_too_high` and
//! `bbr_check_time_to_probe_bw`). draft §3.7 leaves the response open ("treat any CE marks
//! as congestion"); see the module comment of `bbr3` and docs/algorithms/bbr3.md.

use super::{Bbr3, INFINITE};
use crate::controller::Ack;
use crate::params::Params;
use crate::time::SimDuration;

/// Linux bbr_ecn_alpha_init: 1, so that a flow starting into a congested bottleneck responds
/// at once.
pub(super) const ECN_ALPHA_INIT: f64 = 1.0;
/// Linux bbr_full_ecn_cnt: STARTUP ends after this many consecutive rounds with a CE share
/// of at least ecn_thresh.
pub(super) const FULL_ECN_COUNT: u32 = 2;

/// The ECN parameters (see `PARAMS`).
#[derive(Clone, Copy, Debug)]
pub(super) struct EcnParams {
    pub(super) enabled: bool,
    /// `None`: eligible at any RTT.
    pub(super) max_rtt: Option<SimDuration>,
    pub(super) thresh: f64,
    pub(super) factor: f64,
    pub(super) alpha_gain: f64,
    pub(super) reprobe_gain: f64,
}

impl EcnParams {
    pub(super) fn from(params: &Params) -> Self {
        let max_rtt_ms = params.number("ecn_max_rtt");
        EcnParams {
            enabled: params.boolean("ecn"),
            max_rtt: (max_rtt_ms > 0.0).then(|| SimDuration::from_secs_f64(max_rtt_ms / 1e3)),
            thresh: params.number("ecn_thresh"),
            factor: params.number("ecn_factor"),
            alpha_gain: params.number("ecn_alpha_gain"),
            reprobe_gain: params.number("ecn_reprobe_gain"),
        }
    }
}

impl Bbr3 {
    /// Linux bbr_update_ecn_alpha, at the start of each round: decide eligibility, then
    /// ecn_alpha = (1 - gain) * ecn_alpha + gain * ce_ratio (capped at 1), with ce_ratio the
    /// CE-marked share of the bytes delivered since the last update (one round), and the
    /// STARTUP exit on two rounds with ce_ratio >= ecn_thresh. Also judges the round for
    /// IsInflightTooHigh (see `ecn_round_too_high`).
    pub(super) fn update_ecn_alpha(&mut self) {
        if !self.ecn_eligible
            && self.ecn.enabled
            && self.ecn.factor > 0.0
            && self
                .min_rtt
                .is_some_and(|m| self.ecn.max_rtt.is_none_or(|max| m <= max))
        {
            self.ecn_eligible = true;
        }
        self.ecn_round_too_high = false;
        if !self.ecn_eligible {
            return;
        }
        let delivered = self.delivered - self.alpha_last_delivered;
        let delivered_ce = self.delivered_ce - self.alpha_last_delivered_ce;
        if delivered == 0 {
            return;
        }
        let ce_ratio = delivered_ce as f64 / delivered as f64;
        let gain = self.ecn.alpha_gain;
        self.ecn_alpha = ((1.0 - gain) * self.ecn_alpha + gain * ce_ratio).min(1.0);
        self.alpha_last_delivered = self.delivered;
        self.alpha_last_delivered_ce = self.delivered_ce;
        self.ecn_last_round_delivered = delivered;
        // Linux bbr_is_inflight_too_high, ECN part: RS.delivered_ce > RS.delivered *
        // ecn_thresh (strictly), here over the round rather than one rate sample.
        self.ecn_round_too_high = self.ecn.thresh > 0.0
            && delivered_ce > 0
            && delivered_ce as f64 > delivered as f64 * self.ecn.thresh;
        self.check_ecn_too_high_in_startup(ce_ratio);
    }

    /// The same test within a round, so that a probe stops about when Linux's per-sample
    /// test would (its RS spans the last round trip, not the round so far): once the CE bytes
    /// of the current round exceed ecn_thresh times what the last full round delivered, the
    /// data of one round trip is more than ecn_thresh marked, whatever the rest of the round
    /// brings.
    pub(super) fn check_ecn_too_high_within_round(&mut self) {
        if !self.ecn_eligible || self.ecn.thresh <= 0.0 || self.ecn_round_too_high {
            return;
        }
        let delivered_ce = self.delivered_ce - self.alpha_last_delivered_ce;
        self.ecn_round_too_high = self.ecn_last_round_delivered > 0
            && delivered_ce as f64 > self.ecn_last_round_delivered as f64 * self.ecn.thresh;
    }

    /// Linux bbr_check_ecn_too_high_in_startup (>= here, as Linux).
    fn check_ecn_too_high_in_startup(&mut self, ce_ratio: f64) {
        if self.full_bw_reached || self.ecn.thresh <= 0.0 {
            return;
        }
        if ce_ratio >= self.ecn.thresh {
            self.startup_ecn_rounds += 1;
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= FULL_ECN_COUNT {
            self.handle_queue_too_high_in_startup();
        }
    }

    /// Linux TCP_CA_Open for the ECN re-probe: not in loss recovery, and not in the CWR
    /// state a CE echo starts, which lasts until snd_una passes the snd_nxt of that moment
    /// (Linux tcp_enter_cwr / tcp_fastretrans_alert). The sender does not enter CWR for a
    /// controller that responds to ECN itself, so it is tracked here.
    pub(super) fn track_ecn_cwr(&mut self, ack: &Ack) {
        if self.ecn_cwr_until.is_some_and(|point| ack.snd_una > point) {
            self.ecn_cwr_until = None;
        }
        if ack.ecn_ce_bytes > 0 && self.ecn_cwr_until.is_none() && !ack.in_recovery {
            self.ecn_cwr_until = Some(ack.snd_nxt);
        }
    }

    /// Linux bbr_check_time_to_probe_bw, ECN part: after a cycle with CE marks and no loss,
    /// once the marks have stopped (Open state), REFILL at once and let the first UP round
    /// raise inflight_longterm by about ecn_reprobe_gain of itself: growth 2^n packets with
    /// n = floor(log2(inflight_longterm * gain / MSS)), as RaiseInflightLongtermSlope counts.
    pub(super) fn is_time_to_reprobe_after_ecn(&mut self, ack: &Ack) -> bool {
        if self.ecn.reprobe_gain <= 0.0
            || !self.ecn_eligible
            || !self.ecn_in_cycle
            || self.loss_in_cycle
            || ack.in_recovery
            || self.ecn_cwr_until.is_some()
        {
            return false;
        }
        let rounds = if self.inflight_longterm == INFINITE {
            30
        } else {
            let packets =
                (self.inflight_longterm as f64 * self.ecn.reprobe_gain / self.mss as f64) as u64;
            packets.checked_ilog2().unwrap_or(0).min(30)
        };
        self.start_probe_bw_refill(rounds);
        true
    }
}
