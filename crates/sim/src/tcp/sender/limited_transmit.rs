//! RFC 3042 limited transmit (also RFC 5681 §3.2 step 1), for senders without SACK.
//!
//! "On the first and second duplicate ACKs received at a sender, a TCP SHOULD send a segment
//! of previously unsent data [...] provided that the receiver's advertised window allows, the
//! total FlightSize would remain less than or equal to cwnd plus 2*SMSS, and that new data is
//! available for transmission. Further, the TCP sender MUST NOT change cwnd to reflect these
//! two segments" (RFC 5681 §3.2). And at the third: "When [RFC3042] is in use, additional
//! data sent in limited transmit MUST NOT be included in this calculation" (of ssthresh,
//! step 2).
//!
//! SACK and FACK senders do not need it: RFC 6675 §5 step (3) lets them send previously
//! unsent data on the first duplicate ACKs "except that the number of octets which may be
//! sent is governed by pipe and cwnd", which is what their pipe (or awnd) rule does on every
//! ACK anyway — a duplicate ACK that SACKs a segment lowers pipe by one segment.

use super::{LossState, Sender};

/// The current run of duplicate ACKs' limited-transmit segments.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LimitedTransmit {
    /// Bytes of new data sent beyond cwnd in this run of duplicate ACKs.
    pub(super) sent: u64,
}

impl Sender {
    /// How far beyond the window new data may go now: one SMSS after the first duplicate
    /// ACK, two after the second (so that each sends one segment and FlightSize stays within
    /// cwnd + 2·SMSS); zero otherwise, with SACK, or in any state but open.
    #[inline]
    pub(super) fn limited_transmit_allowance(&self) -> u64 {
        if !self.config.limited_transmit
            || self.sack_enabled()
            || self.state != LossState::Open
            || !(1..=2).contains(&self.dup_acks)
        {
            return 0;
        }
        self.dup_acks as u64 * self.config.mss
    }

    /// A new ACK ends the run of duplicate ACKs.
    #[inline]
    pub(super) fn reset_limited_transmit(&mut self) {
        self.limited_transmit.sent = 0;
    }

    /// FlightSize for the loss response at the third duplicate ACK: `flight` without the
    /// limited-transmit segments (RFC 5681 §3.2 step 2).
    pub(super) fn flight_without_limited_transmit(&self, flight: u64) -> u64 {
        flight.saturating_sub(self.limited_transmit.sent)
    }
}
