//! `recovery = "tahoe"`: the 4.3BSD-Tahoe sender as ns-2's `TcpAgent` models it (K. Fall,
//! S. Floyd, "Simulation-based Comparisons of Tahoe, Reno, and SACK TCP", CCR 26(3), 1996,
//! §2): the third duplicate ACK retransmits the lost segment, sets ssthresh and slow-starts
//! from one segment; there is no fast recovery and no window inflation, and the sender goes
//! back N, resending everything from the lost segment on as the window reopens.

use cclab_cc::{SimTime, TimeoutEvent};

use crate::trace::FlowEventKind;

use super::{DUP_THRESH, LossState, ModeCause, Sender};

impl Sender {
    /// Tahoe's loss detection: the third duplicate ACK, once the cumulative ACK has passed
    /// the highest sequence sent when the previous loss was detected (ns-2's `bug_fix_`,
    /// on by default there: `highest_ack_ > recover_`, as RFC 6582 §3.2 step 1 for NewReno),
    /// so that one window of losses restarts the window once.
    pub(super) fn tahoe_loss_detected(&self) -> bool {
        let una = self.board.snd_una();
        self.dup_acks as u64 == DUP_THRESH && self.recover.is_none_or(|r| una > r)
    }

    /// Tahoe's fast retransmit (ns-2 `TcpAgent::dupack_action`: `slowdown(CLOSE_SSTHRESH_HALF
    /// | CLOSE_CWND_ONE)` and `reset_rtx_timer(0, 0)`, which restarts the timer without
    /// backing it off and sets `t_seqno_` back to the lost segment).
    ///
    /// The controller sees it as two events it already knows: the congestion event sets
    /// ssthresh (Reno: RFC 5681 eq. 4, max(FlightSize/2, 2·SMSS)) — skipped, as for a
    /// timeout, when `reduce` is false because an ECN reduction already cut the window for
    /// this window of data — and then the loss window of a retransmission timeout, which
    /// sets cwnd to one segment and restarts the controller's slow start (its variant
    /// included), as Linux's `tcp_enter_loss` does on a timeout. The sender then enters the
    /// timeout's `Loss` state: every outstanding segment is marked lost and resent from
    /// snd_una as slow start reopens the window (go-back-N), and the state ends when the
    /// cumulative ACK passes what was outstanding.
    pub(super) fn tahoe_fast_retransmit(&mut self, now: SimTime, flight: u64, reduce: bool) {
        if self.undo.is_some() {
            self.undo_on_recovery_start();
        }
        self.episode += 1;
        self.stats.fast_recoveries += 1;
        if reduce {
            self.congestion_event(now, flight);
        }
        self.restart_cap = u64::MAX;
        self.cc.on_retransmission_timeout(&TimeoutEvent {
            now,
            bytes_in_flight: flight,
        });
        self.record(now, FlowEventKind::RecoveryStart, "", "", "tahoe");
        self.check_mode(now, ModeCause::Loss);
        self.board.on_timeout();
        let point = self.board.snd_nxt();
        self.state = LossState::Loss { point };
        self.recover = Some(point);
        self.tahoe_episode = true;
        self.retransmit_now = false;
        self.next_send_time = now;
        self.rto_deadline = Some(now + self.rtt.rto());
    }

    /// The cumulative ACK passed what Tahoe's fast retransmit marked lost: the episode ends
    /// as a fast recovery does (the controller hears `on_recovery_exit` and
    /// `on_reduction_complete`).
    pub(super) fn end_tahoe_episode(&mut self, now: SimTime) {
        self.tahoe_episode = false;
        self.cc.on_recovery_exit(now);
        self.cc.on_reduction_complete(now);
        self.record(now, FlowEventKind::RecoveryEnd, "", "", "");
        self.check_mode(now, ModeCause::RecoveryEnd);
    }
}
