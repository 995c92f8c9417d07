//! Undo of spurious window reductions, as Linux does it (`tcp_input.c`): the sender saves
//! the window when a reduction begins (`prior_cwnd`, `prior_ssthresh`, `undo_marker`) and
//! restores it when the reduction proves spurious:
//! - DSACK (RFC 2883, RFC 3708): every retransmission of the episode was reported as a
//!   duplicate (`undo_retrans` reaches 0), so the originals had all arrived
//!   (`tcp_try_undo_dsack`, and at the end of recovery `tcp_try_undo_recovery`);
//! - timestamps (Eifel detection, RFC 3522; Linux `tcp_packet_delayed`): the ACK echoes a
//!   timestamp older than the first retransmission, so the original, not the retransmission,
//!   was acknowledged (`tcp_try_undo_recovery`, `tcp_try_undo_partial`, `tcp_try_undo_loss`);
//! - F-RTO (RFC 5682, `frto.rs`): new data sent after a timeout is acknowledged along with
//!   never-retransmitted old data (`tcp_try_undo_loss` with `FLAG_ORIG_SACK_ACKED`).
//!
//! The response (RFC 4015 for the timeout case) is Linux's `tcp_undo_cwnd_reduction`: the
//! controller restores its window ([`cclab_cc::CongestionControl::on_undo`], Linux's
//! `undo_cwnd`), ssthresh comes back to at least `prior_ssthresh`, and after a timeout the
//! segments it marked lost are unmarked. All of it is off unless the flow sets `undo`.

use cclab_cc::{SimTime, UndoEvent};

use crate::packet::Packet;
use crate::trace::FlowEventKind;

use super::frto::Frto;
use super::{LossState, ModeCause, Sender};

/// RFC 7323 TSval of a segment sent at `now`: microsecond ticks, wrapping at 2^32 (71.6
/// minutes; comparisons are modulo 2^32 as RFC 7323 §5.2 asks). Never 0, which marks a
/// segment without the option.
pub(super) fn ts_val(now: SimTime) -> u32 {
    let ticks = (now.as_nanos() / 1_000) as u32;
    ticks.max(1)
}

/// RFC 7323 §5.2 / Linux `tcp_ts_before`: `a` is earlier than `b` modulo 2^32.
fn ts_before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// Why a reduction was undone (the `detail` of the `undo` flow event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UndoCause {
    /// Every retransmission was DSACKed.
    Dsack,
    /// The ACK echoed a timestamp older than the first retransmission, or nothing was
    /// retransmitted at all (Linux `tcp_packet_delayed`).
    Timestamp,
    /// F-RTO found the timeout spurious.
    Frto,
}

impl UndoCause {
    fn name(self) -> &'static str {
        match self {
            UndoCause::Dsack => "dsack",
            UndoCause::Timestamp => "timestamp",
            UndoCause::Frto => "frto",
        }
    }
}

/// The undo state of one sender (Linux `tcp_sock` fields of the same names).
#[derive(Debug, Default)]
pub(super) struct Undo {
    /// `undo_marker`: snd_una when the reduction began; `None` when there is nothing to undo.
    pub(super) marker: Option<u64>,
    /// `undo_retrans`: retransmissions of the episode (segments) not yet DSACKed; `None` is
    /// Linux's −1, nothing retransmitted yet.
    pub(super) retrans: Option<u64>,
    /// `retrans_stamp`: TSval of the first retransmission since the sender was last open.
    pub(super) retrans_stamp: Option<u32>,
    /// `prior_cwnd`, and `prior_ssthresh` (`None`: Linux's 0, the window is not restored,
    /// as after a reduction that began during an ECN reduction).
    pub(super) prior_cwnd: u64,
    pub(super) prior_ssthresh: Option<u64>,
    /// F-RTO, when the flow asks for it.
    pub(super) frto: Option<Frto>,
}

/// What an ACK told, for the undo checks (the parts of Linux's `flag` they read).
#[derive(Clone, Copy, Debug)]
pub(super) struct AckFacts {
    /// snd_una moved (`FLAG_SND_UNA_ADVANCED`).
    pub(super) advanced: bool,
    /// The lowest end of a never-retransmitted segment this ACK delivered, for
    /// `FLAG_ORIG_SACK_ACKED` (such a segment at or below the recovery point).
    pub(super) lowest_clean_end: Option<u64>,
}

impl Sender {
    /// Turn on undo (and F-RTO with `frto`) for this flow: segments carry timestamps and
    /// every reduction is saved for an undo.
    pub fn enable_undo(&mut self, frto: bool) {
        self.undo = Some(Box::new(Undo {
            frto: frto.then(Frto::default),
            ..Undo::default()
        }));
    }

    /// Whether the flow undoes spurious reductions (its summary counts them).
    pub fn undo_enabled(&self) -> bool {
        self.undo.is_some()
    }

    /// Linux `tcp_current_ssthresh`: during a reduction, ssthresh; otherwise at least ¾ of
    /// cwnd, "the window the connection was happy with".
    fn current_ssthresh(&self) -> u64 {
        let ssthresh = self.cc.ssthresh();
        if self.is_reducing() {
            ssthresh
        } else {
            let cwnd = self.cc.cwnd();
            ssthresh.max((cwnd >> 1) + (cwnd >> 2))
        }
    }

    /// Linux `tcp_init_undo`: the episode's undo starts at snd_una; retransmissions still in
    /// flight from before may draw DSACKs too.
    fn init_undo(&mut self) {
        let in_flight = self.board.retransmitted_bytes().div_ceil(self.config.mss);
        let una = self.board.snd_una();
        if let Some(undo) = self.undo.as_deref_mut() {
            undo.marker = Some(una);
            undo.retrans = (in_flight > 0).then_some(in_flight);
        }
    }

    /// Fast recovery (or Tahoe's fast retransmit) begins (Linux `tcp_enter_recovery`),
    /// called before the controller is told; it ends any F-RTO. A lost retransmission inside
    /// recovery starts no new undo episode (Linux does not re-enter recovery for it).
    #[cold]
    #[inline(never)]
    pub(super) fn undo_on_recovery_start(&mut self) {
        if let Some(frto) = self.undo.as_deref_mut().and_then(|u| u.frto.as_mut()) {
            frto.stop();
        }
        if self.undo.is_none() || !matches!(self.state, LossState::Open | LossState::Cwr { .. }) {
            return;
        }
        let from_open = self.state == LossState::Open;
        let prior_ssthresh = from_open.then(|| self.current_ssthresh());
        let prior_cwnd = self.cc.cwnd();
        self.init_undo();
        if let Some(undo) = self.undo.as_deref_mut() {
            // Linux: only a reduction from the open state saves a threshold to restore.
            undo.prior_ssthresh = prior_ssthresh;
            undo.prior_cwnd = prior_cwnd;
            if from_open {
                undo.retrans_stamp = None; // cleared while open (`tcp_fastretrans_alert`)
            }
        }
    }

    /// An ECN reduction begins: Linux's `tcp_enter_cwr` forgets any undo (`prior_ssthresh`
    /// and `undo_marker` zeroed): CE marks are not spurious.
    #[cold]
    #[inline(never)]
    pub(super) fn undo_on_cwr(&mut self) {
        if let Some(undo) = self.undo.as_deref_mut() {
            undo.marker = None;
            undo.prior_ssthresh = None;
        }
    }

    /// A retransmission timeout, before the controller is told (Linux `tcp_enter_loss`): a
    /// new congestion event saves the window and starts the undo episode; F-RTO runs unless
    /// the timeout interrupts a fast recovery (RFC 5682 §3.1 step 1; repeated timeouts on
    /// the same snd_una keep it, §3.2).
    #[cold]
    #[inline(never)]
    pub(super) fn undo_on_timeout(&mut self, new_congestion_event: bool, repeated: bool) {
        if self.undo.is_none() {
            return;
        }
        let from_open = self.state == LossState::Open;
        let new_recovery = matches!(self.state, LossState::Open | LossState::Cwr { .. });
        if new_congestion_event {
            let prior_ssthresh = self.current_ssthresh();
            let prior_cwnd = self.cc.cwnd();
            self.init_undo();
            let undo = self.undo.as_deref_mut().expect("checked above");
            undo.prior_ssthresh = Some(prior_ssthresh);
            undo.prior_cwnd = prior_cwnd;
        }
        let undo = self.undo.as_deref_mut().expect("checked above");
        if from_open {
            undo.retrans_stamp = None;
        }
        if let Some(frto) = undo.frto.as_mut() {
            frto.on_timeout(new_recovery || repeated);
        }
    }

    /// A segment was retransmitted (Linux `tcp_retransmit_skb`): one more to be DSACKed,
    /// and the first one's timestamp.
    #[cold]
    #[inline(never)]
    pub(super) fn undo_on_retransmit(&mut self, now: SimTime) {
        let Some(undo) = self.undo.as_deref_mut() else {
            return;
        };
        undo.retrans = Some(undo.retrans.unwrap_or(0) + 1);
        undo.retrans_stamp.get_or_insert(ts_val(now));
    }

    /// Linux `tcp_packet_delayed`: the ACK echoes a timestamp from before the first
    /// retransmission, or nothing was retransmitted.
    fn packet_delayed(&self, ack: &Packet) -> bool {
        let Some(undo) = self.undo.as_deref() else {
            return false;
        };
        match undo.retrans_stamp {
            Some(stamp) => ack.ts != 0 && ts_before(ack.ts, stamp),
            None => true,
        }
    }

    /// Linux `tcp_try_undo_dsack`'s test: a reduction to undo, and every one of its
    /// retransmissions DSACKed (`undo_marker && !undo_retrans`).
    fn all_retransmissions_dsacked(&self) -> bool {
        self.undo
            .as_deref()
            .is_some_and(|u| u.marker.is_some() && u.retrans == Some(0))
    }

    /// Linux `tcp_may_undo`: there is a reduction to undo, and every retransmission was
    /// DSACKed or the ACK shows the originals arrived.
    fn may_undo(&self, ack: &Packet) -> Option<UndoCause> {
        let undo = self.undo.as_deref()?;
        undo.marker?;
        if undo.retrans == Some(0) {
            return Some(UndoCause::Dsack);
        }
        self.packet_delayed(ack).then_some(UndoCause::Timestamp)
    }

    /// RFC 2883 §4 / Linux `tcp_check_dsack` and `tcp_sacktag_one`: a DSACK block for data
    /// at or above `undo_marker` takes its segments off `undo_retrans`. Every duplicate in
    /// the model is a retransmission (links do not duplicate packets), so the blocks are
    /// counted as Linux counts DSACKs below snd_una, without looking the segments up.
    fn count_dsack(&mut self, ack: &Packet) {
        let blocks = ack.sack_blocks();
        let Some(first) = blocks.first() else {
            return;
        };
        let inside_second = blocks
            .get(1)
            .is_some_and(|second| second.start <= first.start && first.end <= second.end);
        if !(first.end <= ack.seq || inside_second) {
            return;
        }
        let mss = self.config.mss;
        let Some(undo) = self.undo.as_deref_mut() else {
            return;
        };
        if let (Some(marker), Some(retrans)) = (undo.marker, undo.retrans)
            && retrans > 0
            && first.end > marker
        {
            let segments = (first.end - first.start).div_ceil(mss);
            undo.retrans = Some(retrans.saturating_sub(segments));
        }
    }

    /// The undo checks of an ACK, after the scoreboard took it and before loss detection
    /// (Linux `tcp_fastretrans_alert` steps D and E, `tcp_process_loss`). May end the
    /// recovery or the timeout recovery.
    #[cold]
    #[inline(never)]
    pub(super) fn undo_on_ack(&mut self, now: SimTime, ack: &Packet, facts: AckFacts) {
        self.count_dsack(ack);
        let una = self.board.snd_una();
        match self.state {
            LossState::Recovery { point } => {
                if una >= point {
                    // `tcp_try_undo_recovery`; the recovery then ends as usual.
                    if let Some(cause) = self.may_undo(ack) {
                        self.undo_reduction(now, cause, false);
                    }
                } else if facts.advanced
                    && self.undo.as_deref().is_some_and(|u| u.marker.is_some())
                    && self.packet_delayed(ack)
                    && self.board.retransmitted_bytes() == 0
                {
                    // `tcp_try_undo_partial`: the hole was filled by the delayed original
                    // and no retransmission is out.
                    self.undo_reduction(now, UndoCause::Timestamp, true);
                    self.reopen_after_undo(now);
                } else if self.all_retransmissions_dsacked() {
                    // `tcp_try_undo_dsack`, then `tcp_try_to_open`.
                    self.undo_reduction(now, UndoCause::Dsack, false);
                    self.reopen_after_undo(now);
                }
            }
            LossState::Loss { point } => self.undo_in_loss(now, ack, facts, point),
            LossState::Open | LossState::Cwr { .. } => {
                // `tcp_try_undo_dsack` in Open/Disorder: DSACKs that arrive after the
                // recovery ended can still show it spurious.
                if self.all_retransmissions_dsacked() {
                    self.undo_reduction(now, UndoCause::Dsack, false);
                }
            }
        }
    }

    /// Linux `tcp_process_loss`: undo on a partial or full ACK, then F-RTO.
    fn undo_in_loss(&mut self, now: SimTime, ack: &Packet, facts: AckFacts, point: u64) {
        // `tcp_try_undo_loss(sk, false)` on an ACK that advanced snd_una.
        if facts.advanced
            && let Some(cause) = self.may_undo(ack)
        {
            self.undo_reduction(now, cause, true);
            self.end_timeout_recovery(now);
            return;
        }
        if self.frto_on_ack(now, facts, point) {
            return;
        }
        if self.board.snd_una() >= point
            && let Some(cause) = self.may_undo(ack)
        {
            // `tcp_try_undo_recovery` when the timeout's recovery point is reached.
            self.undo_reduction(now, cause, false);
        }
    }

    /// Back to the open state after an undo in timeout recovery (`tcp_try_undo_loss` sets
    /// TCP_CA_Open).
    pub(super) fn end_timeout_recovery(&mut self, now: SimTime) {
        self.board.release_retransmissions();
        self.state = LossState::Open;
        if let Some(rt) = self.rack_tlp.as_deref_mut() {
            rt.rack.on_recovery_exit();
        }
        self.record(now, FlowEventKind::TimeoutRecoveryEnd, "", "", "");
    }

    /// Linux `tcp_undo_cwnd_reduction`: the controller restores its window (if a threshold
    /// was saved), the episode's undo is used up, and with `unmark_loss` the segments marked
    /// lost are not.
    pub(super) fn undo_reduction(&mut self, now: SimTime, cause: UndoCause, unmark_loss: bool) {
        if unmark_loss {
            self.board.unmark_losses();
        }
        let Some(undo) = self.undo.as_deref_mut() else {
            return;
        };
        undo.marker = None;
        if let Some(frto) = undo.frto.as_mut() {
            frto.stop();
        }
        if let Some(prior_ssthresh) = undo.prior_ssthresh {
            let event = UndoEvent {
                now,
                prior_cwnd: undo.prior_cwnd,
                prior_ssthresh,
            };
            self.cc.on_undo(&event);
        }
        self.stats.undos += 1;
        // The controller's own window is in force again (no idle-restart cap).
        self.restart_cap = u64::MAX;
        self.record(now, FlowEventKind::Undo, "", "", cause.name());
        self.check_mode(now, ModeCause::Undo);
    }
}

#[cfg(test)]
#[path = "undo_tests.rs"]
mod tests;
