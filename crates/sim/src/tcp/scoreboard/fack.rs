//! Forward acknowledgment (M. Mathis, J. Mahdavi, "Forward Acknowledgment: Refining TCP
//! Congestion Control", SIGCOMM 1996): the forward-most SACKed byte `snd.fack` is the loss
//! horizon, and `awnd` the sender's estimate of the data in the network.

use super::Scoreboard;

impl Scoreboard {
    /// `snd.fack`: the end of the forward-most SACKed byte, or `snd_una` when nothing above it
    /// is SACKed (the paper sets snd.fack = snd.una on every ACK that advances it past).
    pub fn forward_most_sacked(&self) -> u64 {
        self.sacked
            .highest_end()
            .map_or(self.base, |end| end.max(self.base))
    }

    /// The paper's `awnd = snd.nxt − snd.fack + retran_data`: data above the forward-most
    /// SACK is taken to be in the network, every hole below it to have left it (lost, or
    /// about to be SACKed), and each retransmission in flight counts once more.
    pub fn fack_awnd(&self) -> u64 {
        self.end - self.forward_most_sacked() + self.retransmitted_bytes
    }

    /// FACK's loss rule as Linux ran it (`tcp_update_scoreboard` before 4.15: mark the first
    /// `fackets_out − reordering` segments from snd_una, with reordering = DupThresh): an
    /// un-SACKed segment is lost when `dup_thresh` or more segments lie between its end and
    /// snd.fack, SACKed or not — where RFC 6675 counts only SACKed ones. Returns the bytes
    /// newly marked.
    pub fn mark_losses_below_fack(&mut self, dup_thresh: u64) -> u64 {
        let horizon = self.forward_most_sacked();
        match horizon.checked_sub(dup_thresh * self.mss) {
            Some(boundary) if boundary > self.base => self.mark_lost_below(boundary),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use cclab_cc::SimTime;

    use super::*;
    use crate::tcp::delivery_rate::SendState;

    const MSS: u64 = 1000;

    fn board_with(segments: u64) -> Scoreboard {
        let mut b = Scoreboard::new(MSS);
        for _ in 0..segments {
            b.push(MSS as u32, SimTime::ZERO, SendState::default());
        }
        b
    }

    /// One SACK for segment 5 alone (segments 1–4 still on their way, or their ACKs lost):
    /// RFC 6675 IsLost needs 3 SACKed segments above a hole and marks nothing; FACK puts
    /// snd.fack at 6000 and marks every segment ending at or below 6000 − 3·1000 = 3000,
    /// segments 0, 1 and 2 (Linux: fackets_out 6 − reordering 3 = the first 3).
    #[test]
    fn fack_marks_by_the_forward_most_sack_where_dupthresh_does_not() {
        let mut rfc6675 = board_with(10);
        rfc6675.sack(5000, 6000, |_, _| {});
        assert_eq!(rfc6675.mark_losses(3), 0);

        let mut b = board_with(10);
        b.sack(5000, 6000, |_, _| {});
        assert_eq!(b.forward_most_sacked(), 6000);
        assert_eq!(b.mark_losses_below_fack(3), 3000);
        assert!(b.first_is_lost());
        assert_eq!(b.next_retransmission(), Some((0, 1000)));
        b.on_retransmit(0, SimTime::ZERO, SendState::default(), 1);
        assert_eq!(b.next_retransmission(), Some((1000, 1000)));
        b.on_retransmit(1000, SimTime::ZERO, SendState::default(), 1);
        assert_eq!(b.next_retransmission(), Some((2000, 1000)));
        b.on_retransmit(2000, SimTime::ZERO, SendState::default(), 1);
        // Segments 3 and 4 lie within 3 segments of snd.fack: not (yet) lost.
        assert_eq!(b.next_retransmission(), None);
        // awnd = snd.nxt 10000 − snd.fack 6000 + retran_data 3000.
        assert_eq!(b.fack_awnd(), 7000);
        b.check_counters();
    }

    /// The horizon moves with the SACKs: nothing is lost while snd.fack − snd.una ≤ 3·MSS
    /// (the paper's recovery trigger is snd.fack − snd.una > 3·MSS), and the head is lost as
    /// soon as it exceeds it.
    #[test]
    fn the_head_is_lost_once_the_horizon_is_more_than_three_segments_ahead() {
        let mut b = board_with(8);
        b.sack(1000, 3000, |_, _| {});
        // snd.fack − snd.una = 3000 = 3·MSS: not more than 3 segments.
        assert_eq!(b.mark_losses_below_fack(3), 0);
        assert!(!b.first_is_lost());
        // Before any SACK snd.fack = snd.una, awnd = FlightSize; here 8000 − 3000 + 0.
        assert_eq!(b.fack_awnd(), 5000);
        b.sack(3000, 4000, |_, _| {});
        assert_eq!(b.mark_losses_below_fack(3), 1000);
        assert!(b.first_is_lost());
        b.check_counters();
    }

    #[test]
    fn without_sacks_the_horizon_is_snd_una() {
        let mut b = board_with(4);
        assert_eq!(b.forward_most_sacked(), 0);
        assert_eq!(b.fack_awnd(), 4000);
        b.acknowledge(2000, |_, _| {});
        assert_eq!(b.forward_most_sacked(), 2000);
        assert_eq!(b.mark_losses_below_fack(3), 0);
        assert_eq!(b.fack_awnd(), 2000);
    }
}
