//! TLP, the tail loss probe of RFC 8985 §7: when the ACKs stop while data is outstanding and
//! no recovery is under way, send one probe segment after a probe timeout (PTO) of about two
//! round trips, well before the RTO, so that the ACK it draws lets RACK repair a loss at the
//! tail of a flight without a timeout.

use cclab_cc::{SimDuration, SimTime};

/// RFC 8985 §7.2 TLP.max_ack_delay (WCDelAckT in the drafts): the longest a receiver may
/// hold an ACK back; the RFC recommends 200 ms (RFC 1122 §4.2.3.2's bound, Linux
/// `TCP_DELACK_MAX`).
pub const MAX_ACK_DELAY: SimDuration = SimDuration::from_millis(200);

/// RFC 8985 §7.2: PTO without an RTT estimate.
const PTO_WITHOUT_SRTT: SimDuration = SimDuration::from_secs(1);

/// RFC 8985 §7.1 TLP state.
#[derive(Clone, Debug, Default)]
pub struct Tlp {
    /// TLP.end_seq: snd_nxt after the probe of the episode in progress.
    pub end_seq: Option<u64>,
    /// TLP.is_retrans: the probe retransmitted the last segment (rather than new data).
    pub is_retrans: bool,
    /// When the probe timer fires, if armed.
    pub deadline: Option<SimTime>,
}

/// What an ACK says about the probe of the episode in progress (RFC 8985 §7.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// No episode, or the ACK does not cover the probe yet.
    Pending,
    /// The episode ends with no loss inferred: the probe was new data, or a DSACK or a bare
    /// duplicate ACK showed that the original and the probe both arrived.
    NoLoss,
    /// The probe repaired a loss: the congestion controller must respond to it.
    LossRepaired,
}

/// RFC 8985 §7.2 `TLP_calc_PTO`: 2·SRTT, plus the receiver's delayed-ACK allowance when only
/// one segment is in flight (its ACK may be delayed), or 1 s without an estimate; never later
/// than the RTO would fire.
pub fn probe_timeout(
    now: SimTime,
    srtt: Option<SimDuration>,
    one_segment_in_flight: bool,
    rto_deadline: Option<SimTime>,
) -> SimTime {
    let pto = match srtt {
        Some(srtt) if one_segment_in_flight => srtt * 2 + MAX_ACK_DELAY,
        Some(srtt) => srtt * 2,
        None => PTO_WITHOUT_SRTT,
    };
    let at = now + pto;
    rto_deadline.map_or(at, |rto| at.min(rto))
}

impl Tlp {
    /// RFC 8985 §7.1: fast recovery and RTO recovery reset the probe state.
    pub fn reset(&mut self) {
        self.end_seq = None;
        self.is_retrans = false;
        self.deadline = None;
    }

    /// RFC 8985 §7.4.2 `TLP_process_ack` for an ACK of cumulative sequence `ack`. `dsack`: the
    /// DSACK block the ACK carries, if any; `has_sack`: it carries any SACK block;
    /// `duplicate`: it acknowledges nothing new.
    pub fn on_ack(
        &mut self,
        ack: u64,
        dsack: Option<(u64, u64)>,
        has_sack: bool,
        duplicate: bool,
    ) -> ProbeOutcome {
        let Some(end) = self.end_seq else {
            return ProbeOutcome::Pending;
        };
        if ack < end {
            return ProbeOutcome::Pending;
        }
        if !self.is_retrans {
            // The probe was new data: RACK judges any loss it reveals.
            self.end_seq = None;
            return ProbeOutcome::NoLoss;
        }
        if dsack.is_some_and(|(_, dsack_end)| dsack_end == end) {
            // Both the original and the probe arrived (RFC 8985 §7.4.2 case 1).
            self.end_seq = None;
            return ProbeOutcome::NoLoss;
        }
        if ack > end {
            // Acknowledged beyond the probe with no DSACK for it: the probe repaired a loss.
            self.end_seq = None;
            return ProbeOutcome::LossRepaired;
        }
        if duplicate && !has_sack {
            // A duplicate ACK for the probe's arrival after the original (case 2).
            self.end_seq = None;
            return ProbeOutcome::NoLoss;
        }
        ProbeOutcome::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    fn at(x: u64) -> SimTime {
        SimTime::ZERO + ms(x)
    }

    #[test]
    fn pto_is_two_srtt_plus_the_ack_delay_for_a_single_segment() {
        // RFC 8985 §7.2: SRTT 50 ms, several segments out: 2 · 50 = 100 ms.
        assert_eq!(probe_timeout(at(1000), Some(ms(50)), false, None), at(1100));
        // One segment out: 2 · 50 + 200 (TLP.max_ack_delay) = 300 ms.
        assert_eq!(probe_timeout(at(1000), Some(ms(50)), true, None), at(1300));
        // No SRTT: 1 s.
        assert_eq!(probe_timeout(at(0), None, false, None), at(1000));
        // Never later than the RTO: RTO due at 1 250 ms caps the 300 ms PTO.
        assert_eq!(
            probe_timeout(at(1000), Some(ms(50)), true, Some(at(1250))),
            at(1250)
        );
    }

    #[test]
    fn a_retransmitted_probe_acknowledged_beyond_its_end_repaired_a_loss() {
        let mut t = Tlp {
            end_seq: Some(10_000),
            is_retrans: true,
            deadline: None,
        };
        assert_eq!(t.on_ack(9_000, None, false, false), ProbeOutcome::Pending);
        // Up to exactly the probe's end: the original or the probe arrived, not known which.
        assert_eq!(t.on_ack(10_000, None, false, false), ProbeOutcome::Pending);
        // A duplicate with a DSACK of the last segment: both arrived, no loss.
        let mut dsacked = t.clone();
        assert_eq!(
            dsacked.on_ack(10_000, Some((9_000, 10_000)), true, true),
            ProbeOutcome::NoLoss
        );
        assert_eq!(dsacked.end_seq, None);
        // A bare duplicate ACK (no SACK option): both arrived.
        let mut bare = t.clone();
        assert_eq!(bare.on_ack(10_000, None, false, true), ProbeOutcome::NoLoss);
        // Acknowledged beyond it without a DSACK: a loss the probe repaired.
        assert_eq!(
            t.on_ack(11_000, None, false, false),
            ProbeOutcome::LossRepaired
        );
        assert_eq!(t.end_seq, None);
    }

    #[test]
    fn a_probe_of_new_data_ends_the_episode_when_acknowledged() {
        let mut t = Tlp {
            end_seq: Some(10_000),
            is_retrans: false,
            deadline: None,
        };
        assert_eq!(t.on_ack(10_000, None, false, false), ProbeOutcome::NoLoss);
        assert_eq!(t.end_seq, None);
    }
}
