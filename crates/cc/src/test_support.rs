//! Event builders for the controllers' unit tests.

use crate::controller::{Ack, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::time::{SimDuration, SimTime};

/// `n` milliseconds.
pub fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

/// An ACK of `bytes` new bytes at time zero, outside recovery, cwnd-limited, without an
/// RTT sample. Override fields with struct update syntax: `Ack { rtt: …, ..ack(1448) }`.
pub fn ack(bytes: u64) -> Ack {
    Ack {
        now: SimTime::ZERO,
        bytes_acked: bytes,
        rtt: None,
        min_rtt: None,
        srtt: None,
        prior_in_flight: 0,
        bytes_in_flight: 0,
        delivered: 0,
        newly_lost: 0,
        snd_una: 0,
        snd_nxt: 0,
        ecn_ce_bytes: 0,
        xcp_feedback: None,
        vcp_load: None,
        rate_sample: None,
        in_recovery: false,
        cwnd_limited: true,
    }
}

/// An ACK of `bytes` at `now_ms` carrying an RTT sample of `rtt_ms`.
pub fn ack_with_rtt(bytes: u64, now_ms: u64, rtt_ms: u64) -> Ack {
    let rtt = SimDuration::from_millis(rtt_ms);
    Ack {
        now: SimTime::ZERO + SimDuration::from_millis(now_ms),
        rtt: Some(rtt),
        min_rtt: Some(rtt),
        srtt: Some(rtt),
        ..ack(bytes)
    }
}

pub fn loss(bytes_in_flight: u64) -> CongestionEvent {
    CongestionEvent {
        now: SimTime::ZERO,
        bytes_in_flight,
        srtt: None,
        min_rtt: None,
    }
}

pub fn timeout(bytes_in_flight: u64) -> TimeoutEvent {
    TimeoutEvent {
        now: SimTime::ZERO,
        bytes_in_flight,
    }
}

/// A timeout as the sender delivers one that starts a new congestion event: ssthresh first,
/// then the loss window.
pub fn new_timeout<C: CongestionControl + ?Sized>(cc: &mut C, event: &TimeoutEvent) {
    cc.on_timeout_congestion_event(event);
    cc.on_retransmission_timeout(event);
}
