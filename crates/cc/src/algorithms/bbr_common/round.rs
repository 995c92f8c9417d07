//! Packet-timed round trips: v1 draft §4.1.1.3 BBRUpdateRound, v3 draft §5.5.1 StartRound /
//! UpdateRound; Linux v3 `bbr_update_round_start` / the round part of v1's `bbr_update_bw`.
//!
//! A round ends when an ACK delivers a packet that was sent after the round began, i.e.
//! whose `P.delivered` (the rate sample's `prior_delivered`) has reached the `C.delivered`
//! recorded at the round's start.

#[derive(Clone, Debug, Default)]
pub struct RoundCounter {
    /// BBR.next_round_delivered.
    pub next_round_delivered: u64,
    /// BBR.round_count: rounds completed.
    pub count: u64,
    /// BBR.round_start: the latest ACK ended a round.
    pub start: bool,
}

impl RoundCounter {
    /// StartRound: the round ends once a packet sent after `delivered` is delivered.
    pub fn start_at(&mut self, delivered: u64) {
        self.next_round_delivered = delivered;
    }

    /// UpdateRound for an ACK whose rate sample (if any) came from a packet sent when
    /// `C.delivered` was `prior_delivered`; `delivered` is `C.delivered` now. Returns
    /// whether the ACK ended a round.
    pub fn update(&mut self, prior_delivered: Option<u64>, delivered: u64) -> bool {
        self.start = false;
        if prior_delivered.is_some_and(|p| p >= self.next_round_delivered) {
            self.start_at(delivered);
            self.count += 1;
            self.start = true;
        }
        self.start
    }
}
