//! Loss marking on the SACK scoreboard: RFC 6675 for `sack`, forward acknowledgment (M.
//! Mathis, J. Mahdavi, "Forward Acknowledgment: Refining TCP Congestion Control", SIGCOMM
//! 1996) for `fack`, and FACK's recovery trigger and window.
//!
//! What FACK changes against `sack`, and where each rule comes from:
//! - the data in flight is the paper's `awnd = snd.nxt − snd.fack + retran_data`
//!   (`Scoreboard::fack_awnd`, used by `Sender::pipe`), in every state but after a timeout;
//! - a segment is lost when DupThresh segments lie between it and snd.fack (Linux's FACK
//!   `tcp_update_scoreboard`), and recovery starts when the head is, i.e. when
//!   snd.fack − snd.una > 3·MSS, or on the third duplicate ACK (the paper's trigger);
//! - a retransmission is lost once the forward-most SACKed segment was sent after it
//!   (Linux's `tcp_mark_lost_retrans`, which ran for FACK only);
//! - the window during recovery is the paper's: the controller's reduced window at once
//!   (Reno: cwnd halved), with `awnd < cwnd` as the send rule, not PRR; the fast
//!   retransmission leaves at once whatever awnd says (ns-2's `FackTcpAgent` sends it
//!   outside its send loop).

use cclab_scenario::Recovery;

use super::{DUP_THRESH, Sender};

/// Linux's `tcp_mark_lost_retrans` declares a retransmission lost when the start of the
/// highest SACKed segment is beyond the snd_nxt recorded at the retransmission
/// (`after(tcp_highest_sack_seq, ack_seq)`): with whole segments, when the highest SACKed
/// byte is two segments past that snd_nxt.
const FACK_LOST_RETRANSMISSION_SEGMENTS: u64 = 2;

impl Sender {
    /// Mark what this ACK's SACK information shows lost: (bytes newly marked, latest episode
    /// of a lost retransmission among them).
    pub(super) fn mark_scoreboard_losses(&mut self) -> (u64, Option<u32>) {
        let (retransmission_rule, loss_rule) = if self.config.recovery == Recovery::Fack {
            (FACK_LOST_RETRANSMISSION_SEGMENTS, None)
        } else {
            (DUP_THRESH, Some(DUP_THRESH))
        };
        let (lost_retransmissions, episode) =
            self.board.mark_lost_retransmissions(retransmission_rule);
        let newly_lost = match loss_rule {
            Some(dup_thresh) => self.board.mark_losses(dup_thresh),
            None => self.board.mark_losses_below_fack(DUP_THRESH),
        };
        (newly_lost + lost_retransmissions, episode)
    }

    /// FACK's recovery trigger (the paper: `snd.fack − snd.una > 3·MSS || dupacks == 3`).
    /// The first is the head segment being lost by the forward-most SACK; the second marks
    /// it lost (Linux: `lost = max(fackets_out − reordering, 1)`), which matters when SACK
    /// information is missing or segments are short (a flow's last one).
    pub(super) fn fack_time_to_recover(&mut self) -> bool {
        if !self.board.first_is_lost() && self.dup_acks as u64 == DUP_THRESH {
            self.board.mark_first_lost();
        }
        self.board.first_is_lost()
    }

    /// FACK's window at the start of recovery: the controller's reduced window, held until
    /// recovery ends (the paper halves cwnd at once and sends while awnd < cwnd; the
    /// controller does not grow it during recovery, as with every recovery here); the
    /// fast retransmission goes first, at once.
    pub(super) fn start_fack_window(&mut self) {
        self.recovery_cwnd = self.cc.cwnd();
        self.retransmit_now = true;
    }
}
