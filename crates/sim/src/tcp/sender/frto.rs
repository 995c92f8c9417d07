//! F-RTO (RFC 5682), the SACK-enhanced algorithm of §4 when the flow has SACK, as Linux's
//! `tcp_process_loss` runs it (`tp->frto`): after a timeout only the first unacknowledged
//! segment is retransmitted (step 1; the timeout's one-segment window does that); if the next
//! ACK advances snd_una without reaching the recovery point, new data is sent instead of more
//! retransmissions (step 2.b); if the ACK after that acknowledges data that was never
//! retransmitted, the timeout was spurious (step 3.b) and is undone (RFC 4015's response, as
//! Linux's `tcp_try_undo_loss`); a duplicate ACK or a SACK hole instead shows the loss real
//! (step 3.a) and conventional go-back-N recovery resumes.

use cclab_cc::SimTime;

use super::Sender;
use super::undo::{AckFacts, UndoCause};

/// F-RTO's state for one timeout recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Frto {
    /// F-RTO runs for the current timeout (Linux `tp->frto`).
    active: bool,
    /// New data was sent in step 2.b: the sender now waits for the deciding ACK.
    sent_new_data: bool,
}

impl Frto {
    /// A timeout (RFC 5682 §3.1 step 1): F-RTO runs unless a fast recovery was under way
    /// (`eligible` is Linux's `new_recovery || icsk_retransmits`).
    pub(super) fn on_timeout(&mut self, eligible: bool) {
        self.active = eligible;
        self.sent_new_data = false;
    }

    /// The timeout is decided (undone, or shown real).
    pub(super) fn stop(&mut self) {
        self.active = false;
        self.sent_new_data = false;
    }
}

impl Sender {
    /// Linux `tcp_process_loss`, the `tp->frto` part. Returns true when it decided what this
    /// ACK sends (new data held for, or the timeout undone).
    pub(super) fn frto_on_ack(&mut self, now: SimTime, facts: AckFacts, point: u64) -> bool {
        let Some(frto) = self.undo.as_deref().and_then(|u| u.frto) else {
            return false;
        };
        if !frto.active {
            return false;
        }
        // Step 3.b (SACK-enhanced §4 step 3.b): never-retransmitted data at or below the
        // recovery point was acknowledged: it had not been lost.
        if facts.lowest_clean_end.is_some_and(|end| end <= point) {
            self.undo_reduction(now, UndoCause::Frto, true);
            self.end_timeout_recovery(now);
            return true;
        }
        let una = self.board.snd_una();
        if frto.sent_new_data {
            // Step 3.a: a duplicate ACK, or a SACK above a hole: the loss was real. Any other
            // ACK leaves F-RTO waiting for the deciding one; either way the segments marked
            // lost may go again (Linux: `REXMIT_LOST` unless step 2.b holds them).
            self.board.release_retransmissions();
            if !facts.advanced || self.board.sacked_bytes() > 0 {
                self.frto_give_up();
            }
            return false;
        }
        if facts.advanced && una < point {
            // Step 2.b: send new data if the application and the receive window allow;
            // otherwise recover conventionally (step 2.a's fallback).
            let rwnd = self.config.receive_window.unwrap_or(u64::MAX);
            let next = self.board.snd_nxt();
            let can_send = next < self.data_end
                && next + self.config.mss.min(self.data_end - next) - una <= rwnd;
            if can_send {
                self.board.hold_retransmissions();
                if let Some(frto) = self.undo.as_deref_mut().and_then(|u| u.frto.as_mut()) {
                    frto.sent_new_data = true;
                }
                return true;
            }
            self.frto_give_up();
        }
        false
    }

    /// F-RTO ends; the segments the timeout marked lost are retransmitted from snd_una.
    fn frto_give_up(&mut self) {
        self.board.release_retransmissions();
        if let Some(frto) = self.undo.as_deref_mut().and_then(|u| u.frto.as_mut()) {
            frto.stop();
        }
    }
}
