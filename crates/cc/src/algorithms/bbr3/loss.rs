//! Loss signals and the long-term bound, draft §5.5.10.2 (NoteLoss, HandleLostPacket,
//! IsInflightTooHigh, HandleInflightTooHigh) and §5.3.3.8 TargetInflight, adapted to the
//! per-ACK loss reports of the sender (`newly_lost`, not per packet); Linux
//! `bbr_is_inflight_too_high`, `bbr_handle_inflight_too_high`, `bbr_note_loss`,
//! `bbr_skb_marked_lost`.

use super::{Bbr3, Mode, Sample};
use crate::controller::Ack;

impl Bbr3 {
    /// RS.lost: data marked lost since the sampled packet was sent. The sender reports losses
    /// per ACK, not per packet, so this is the data lost in the current loss round, which
    /// starts at the first loss (draft NoteLoss) and lasts one packet-timed round.
    pub(super) fn rs_lost(&self) -> u64 {
        self.loss_in_round
    }

    /// RS.tx_in_flight: C.inflight when the sampled packet was sent, estimated as what is in
    /// flight now plus what this ACK delivered plus what the loss round lost.
    pub(super) fn rs_tx_in_flight(&self, ack: &Ack) -> u64 {
        ack.bytes_in_flight + ack.bytes_acked + self.loss_in_round
    }

    /// draft §5.5.10.2 IsInflightTooHigh, loss part (SACK assumed):
    /// RS.lost > RS.tx_in_flight * LossThresh.
    fn is_loss_too_high(&self, ack: &Ack) -> bool {
        self.rs_lost() as f64 > self.rs_tx_in_flight(ack) as f64 * self.loss_thresh
    }

    /// Linux bbr_is_inflight_too_high: the loss rate, or the CE share, is too high. The
    /// draft's IsInflightTooHigh has only the loss part.
    pub(super) fn is_inflight_too_high(&self, ack: &Ack) -> bool {
        self.is_loss_too_high(ack) || self.ecn_round_too_high
    }

    /// draft §5.5.10.2 NoteLoss (and Linux's loss_in_cycle).
    pub(super) fn note_loss(&mut self) {
        if !self.is_loss_in_round {
            self.loss_round_delivered = self.delivered;
            // SaveStateUponLoss: only the cwnd part (no spurious-loss undo here).
            self.save_cwnd();
        }
        self.is_loss_in_round = true;
        self.loss_in_cycle = true;
    }

    /// draft §5.5.10.2 HandleLostPacket, once per ACK that marked `newly_lost` bytes lost.
    /// Like Linux's bbr_skb_marked_lost, it judges the loss rate only (a lost packet carries
    /// no CE information).
    pub(super) fn handle_lost(&mut self, ack: &Ack, sample: &Sample) {
        self.note_loss();
        self.loss_in_round += ack.newly_lost;
        self.loss_events_in_round += 1;
        if !self.is_bw_probe_sample {
            return;
        }
        if self.is_loss_too_high(ack) {
            self.handle_inflight_too_high(ack, sample);
        }
    }

    /// draft §5.5.10.2 HandleInflightTooHigh.
    pub(super) fn handle_inflight_too_high(&mut self, ack: &Ack, sample: &Sample) {
        self.prev_probe_too_high = true;
        self.is_bw_probe_sample = false;
        if !sample.is_app_limited {
            let beta_target = (self.target_inflight() as f64 * self.beta) as u64;
            self.inflight_longterm = self.rs_tx_in_flight(ack).max(beta_target);
        }
        if self.mode == Mode::ProbeBwUp {
            self.start_probe_bw_down(ack.now);
        }
    }

    /// draft §5.3.3.8 TargetInflight: min(BBR.bdp, C.cwnd).
    pub(super) fn target_inflight(&self) -> u64 {
        self.bdp().min(self.cwnd)
    }
}
