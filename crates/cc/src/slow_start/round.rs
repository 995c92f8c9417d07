//! Round trips counted in sequence space.
//!
//! A round starts with an ACK and records the sender's `snd_nxt`; it ends when the cumulative
//! ACK point passes that mark, i.e. when an ACK acknowledges data sent after the round began
//! (Linux `bictcp_hystart_reset` with `after(snd_una, end_seq)`; RFC 9406 §4.2 "when
//! windowEnd is ACKed"). The ACK that ends a round is the first ACK of the next one.

use crate::controller::Ack;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoundTracker {
    /// `snd_nxt` when the current round started; `None` before the first ACK.
    window_end: Option<u64>,
}

impl RoundTracker {
    pub fn new() -> Self {
        RoundTracker::default()
    }

    /// Whether `ack` starts a new round (the first ACK always does).
    pub fn on_ack(&mut self, ack: &Ack) -> bool {
        match self.window_end {
            Some(end) if ack.snd_una <= end => false,
            _ => {
                self.window_end = Some(ack.snd_nxt);
                true
            }
        }
    }

    /// Start counting afresh at the next ACK.
    pub fn reset(&mut self) {
        self.window_end = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::ack;

    fn at(snd_una: u64, snd_nxt: u64) -> Ack {
        Ack {
            snd_una,
            snd_nxt,
            ..ack(1000)
        }
    }

    #[test]
    fn a_round_ends_when_the_ack_point_passes_the_recorded_snd_nxt() {
        let mut r = RoundTracker::new();
        // First ACK: round 1 starts; 10 000 bytes were sent when it began.
        assert!(r.on_ack(&at(1_000, 10_000)));
        assert!(!r.on_ack(&at(5_000, 14_000)));
        // snd_una == window end: the last byte of round 1 is acknowledged, still round 1.
        assert!(!r.on_ack(&at(10_000, 20_000)));
        // Past it: this ACK covers data sent during round 1, so round 2 starts here.
        assert!(r.on_ack(&at(11_000, 21_000)));
        assert!(!r.on_ack(&at(21_000, 30_000)));
        assert!(r.on_ack(&at(22_000, 31_000)));
        r.reset();
        assert!(r.on_ack(&at(22_500, 31_000)));
    }
}
