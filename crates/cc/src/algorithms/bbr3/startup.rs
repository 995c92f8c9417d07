//! STARTUP, draft §5.3.1: pace at 4 ln 2 until the delivery rate plateaus (§5.3.1.2
//! CheckFullBWReached, on RS.delivery_rate) or loss stays high (§5.3.1.3
//! CheckStartupHighLoss), or, with ECN, CE marks do (Linux
//! `bbr_check_ecn_too_high_in_startup`). Linux `bbr_check_full_bw_reached`,
//! `bbr_check_loss_too_high_in_startup`. The plateau count is shared with v1
//! (`bbr_common::full_bw`).

use super::{Bbr3, DEFAULT_CWND_GAIN, Mode, Sample};
use crate::controller::Ack;

/// BBRStartupFullLossCnt (draft §5.3.1.3).
const STARTUP_FULL_LOSS_COUNT: u32 = 6;

impl Bbr3 {
    /// draft §5.3.1.1 EnterStartup.
    pub(super) fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
        self.pacing_gain = self.startup_pacing_gain;
        self.cwnd_gain = DEFAULT_CWND_GAIN;
    }

    /// draft §5.3.1.2 ResetFullBW.
    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw.reset();
        self.full_bw_now = false;
    }

    /// draft §5.3.1.2 CheckFullBWReached (on RS.delivery_rate, unlike v1's BtlBw).
    pub(super) fn check_full_bw_reached(&mut self, sample: &Sample) {
        if self.full_bw_now || !self.round.start || sample.is_app_limited {
            return;
        }
        self.full_bw_now = self.full_bw.update(sample.delivery_rate);
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    /// draft §5.3.1.3 CheckStartupHighLoss (SACK connection): at the end of a loss round,
    /// after at least one full round in fast recovery, with >= 6 loss events and a loss rate
    /// above LossThresh in that round.
    fn check_startup_high_loss(&mut self, ack: &Ack) {
        if self.mode != Mode::Startup
            || self.full_bw_reached
            || !self.loss_round_start
            || !self.recovery.in_fast_recovery
            || self.round.count <= self.recovery_start_round
            || self.loss_events_in_round < STARTUP_FULL_LOSS_COUNT
            || !self.is_inflight_too_high(ack)
        {
            return;
        }
        self.handle_queue_too_high_in_startup();
    }

    /// draft §5.3.1.1 CheckStartupDone.
    pub(super) fn check_startup_done(&mut self, ack: &Ack) {
        self.check_startup_high_loss(ack);
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.enter_drain();
        }
    }

    /// Linux bbr_handle_queue_too_high_in_startup / draft §5.3.1.3: the pipe is full and
    /// inflight_longterm = max(BDP, inflight_latest).
    pub(super) fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        self.inflight_longterm = self.bdp().max(self.inflight_latest);
    }
}
