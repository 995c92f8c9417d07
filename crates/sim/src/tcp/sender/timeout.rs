//! The retransmission timeout (RFC 6298 §5.4–5.7, Linux `tcp_enter_loss`).

use cclab_cc::{SimTime, TimeoutEvent};

use crate::packet::Packet;
use crate::trace::FlowEventKind;

use super::{LossState, ModeCause, Sender};

impl Sender {
    /// The retransmission timer expired (RFC 6298 §5.4–5.7).
    pub fn on_retransmission_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.board.outstanding() == 0 {
            self.rto_deadline = None;
            return;
        }
        if let Some(rt) = self.rack_tlp.as_deref_mut() {
            // RFC 8985 §7.2: a probe due now (its PTO capped at the RTO) goes in the RTO's
            // place, whichever timer event comes first.
            if rt.tlp.deadline.is_some_and(|d| d <= now) {
                self.send_loss_probe(now, out);
                return;
            }
            rt.tlp.reset(); // §7.1
            rt.reorder_deadline = None;
        }
        self.stats.timeouts += 1;
        // RFC 6675 pipe rather than FlightSize: after long SACK recoveries FlightSize also
        // counts SACKed data that has left the network. (Linux: snd_cwnd, `reduce_from`.)
        let flight = self.reduction_base(self.board.pipe());
        self.restart_cap = u64::MAX;
        let una = self.board.snd_una();
        let event = TimeoutEvent {
            now,
            bytes_in_flight: flight,
        };
        let new_congestion_event = self.timeout_is_new_congestion_event(una);
        if self.undo.is_some() {
            let repeated = matches!(self.state, LossState::Loss { .. })
                && self.una_at_last_timeout == Some(una);
            self.undo_on_timeout(new_congestion_event, repeated);
        }
        if new_congestion_event {
            self.cc.on_timeout_congestion_event(&event);
        }
        self.una_at_last_timeout = Some(una);
        // A timeout replaces a Tahoe episode: its end is the timeout's.
        self.tahoe_episode = false;
        self.episode += 1;
        self.retransmit_now = false;
        self.cc.on_retransmission_timeout(&event);
        if self.sharing.is_some() {
            self.share_after_timeout(now);
        }
        let detail = if new_congestion_event {
            ""
        } else {
            "ssthresh_held"
        };
        self.record(now, FlowEventKind::Timeout, "", "", detail);
        self.check_mode(now, ModeCause::Timeout);
        self.board.on_timeout();
        let point = self.board.snd_nxt();
        self.state = LossState::Loss { point };
        self.recover = Some(point);
        self.dup_acks = 0;
        self.rtt.back_off();
        self.next_send_time = now;
        self.rto_deadline = Some(now + self.rtt.rto());
        self.transmit(now, out);
    }

    /// Whether a timeout now starts a new congestion event, so that ssthresh is lowered
    /// (Linux `tcp_enter_loss`, which calls the module's `ssthresh()` only when the state is
    /// at most Disorder, or `high_seq <= snd_una`, or Loss with no retransmission since the
    /// last forward progress). Otherwise the window was already reduced for this loss: the
    /// timeout interrupts a fast recovery or an ECN reduction (Linux CWR) before its recovery
    /// point, or repeats a timeout with no new data acknowledged since. RFC 5681 §3.1 lowers
    /// ssthresh only when the segment "has not yet been resent by way of the retransmission
    /// timer"; otherwise "the value of ssthresh is held constant".
    pub(super) fn timeout_is_new_congestion_event(&self, una: u64) -> bool {
        match self.state {
            LossState::Open => true,
            LossState::Recovery { point } | LossState::Cwr { point } => una >= point,
            // Linux resets icsk_retransmits when snd_una advances.
            LossState::Loss { point } => una >= point || self.una_at_last_timeout != Some(una),
        }
    }
}
