//! The connection handshake and close of a flow with `handshake = true` (RFC 9293 §3.5–3.6),
//! as Linux runs them for an active opener; the sender opens, the receiver accepts.
//!
//! **Open.** The sender sends a SYN and starts the SYN timer at the initial RTO, 1 s (RFC
//! 6298 §2.1; Linux `TCP_TIMEOUT_INIT`), doubling it after each expiry (§5.5). The receiver
//! answers every SYN with a SYN-ACK. When the first SYN-ACK arrives the connection is
//! established and data starts, one round trip after the SYN:
//! - the RTT sample: the SYN/SYN-ACK exchange is measured when the SYN was sent once; after
//!   a retransmitted SYN, Karn's rule leaves no valid sample (the model carries no
//!   timestamps, so Linux's `tcp_ack_update_rtt` has no TSecr to fall back on either) and
//!   the RTO for data starts at 3 s (RFC 6298 §5.7; Linux `tcp_init_metrics` sets
//!   `TCP_TIMEOUT_FALLBACK` when `srtt_us` is 0);
//! - the initial window: Linux's `tcp_init_transfer` cuts it to one segment only when more
//!   than one SYN retransmission happened (`total_retrans > 1`: "in light of RFC6298 more
//!   aggressive 1sec initRTO"); RFC 5681 §3.1 would after the first.
//!
//! A lost SYN-ACK is repaired by the sender's SYN timer as a lost SYN is: the receiver's own
//! SYN-ACK timer (Linux's request-socket timer, also 1 s) would resend it at the same
//! moment, within a one-way delay, and is not modelled.
//!
//! **Close.** The sender's FIN rides on its last data segment (the application closes right
//! after its last write, and Linux's `tcp_send_fin` sets FIN on the unsent tail), so it is
//! sent, lost and retransmitted with that segment. The receiver, on getting it in order,
//! closes too and answers with its own FIN carrying the ACK of every byte
//! ([`crate::packet::PacketKind::Fin`]); the flow is complete when that arrives (the sender's
//! FIN is acknowledged). The last ACK of the four-way close and TIME-WAIT are not modelled:
//! nothing measured waits for them.

use cclab_cc::{SimDuration, SimTime};

use crate::event::TimerSlot;
use crate::packet::{Ecn, MAX_SACK_BLOCKS, Packet, PacketKind, SackOffsets, XcpHeader};

/// RFC 6298 §2.1: the RTO before any RTT measurement (Linux `TCP_TIMEOUT_INIT`).
pub const SYN_TIMEOUT: SimDuration = SimDuration::from_secs(1);

/// RFC 6298 §5.7: the RTO for data after the handshake gave no RTT sample (Linux
/// `TCP_TIMEOUT_FALLBACK`).
pub const FALLBACK_RTO: SimDuration = SimDuration::from_secs(3);

/// Option bytes a SYN and SYN-ACK carry beyond those of a data segment: Linux's SYN carries
/// MSS (4), SACK-permitted (2), timestamps (10), NOP (1) and window scale (3) = 20 option
/// bytes, a 60-byte IPv4 SYN; a data segment's 52 default header bytes hold 12 of options
/// (timestamps and two NOPs).
pub const SYN_EXTRA_OPTION_BYTES: u32 = 8;

/// What the sender learns when its connection is established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Established {
    /// The RTT sample of the SYN/SYN-ACK exchange; `None` after a retransmitted SYN.
    pub rtt: Option<SimDuration>,
    /// SYNs sent again before the SYN-ACK came.
    pub syn_retransmissions: u32,
}

/// One connection's handshake and close, held by its flow.
#[derive(Clone, Debug)]
pub struct Handshake {
    /// When the first SYN left: where the connection's time (and a finite flow's FCT)
    /// starts.
    pub opened_at: SimTime,
    /// When the latest SYN left.
    last_syn_at: SimTime,
    /// SYNs sent so far.
    pub syns_sent: u32,
    /// When the first SYN-ACK arrived.
    pub established_at: Option<SimTime>,
    /// When the receiver's FIN (the ACK of the sender's FIN) arrived.
    pub fin_acked_at: Option<SimTime>,
    /// The SYN timer's deadline while the SYN waits for its SYN-ACK.
    deadline: Option<SimTime>,
    pub timer: TimerSlot,
    /// SYNs still to lose (`drop_syn`).
    syns_to_drop: u32,
    /// Header bytes of the flow's segments (the SYN adds its options to them).
    header_bytes: u64,
    /// Handshake packets lost: SYNs, and SYN-ACKs on the way back.
    pub syn_drops: u64,
    pub syn_ack_drops: u64,
}

impl Handshake {
    /// A connection about to open at `now`, whose segments carry `header_bytes` of headers
    /// and whose first `drop_syn` SYNs are lost.
    pub fn new(now: SimTime, header_bytes: u64, drop_syn: u32) -> Self {
        Handshake {
            opened_at: now,
            last_syn_at: now,
            syns_sent: 0,
            established_at: None,
            fin_acked_at: None,
            deadline: None,
            timer: TimerSlot::default(),
            syns_to_drop: drop_syn,
            header_bytes,
            syn_drops: 0,
            syn_ack_drops: 0,
        }
    }

    /// The SYN timer's deadline, if armed.
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// Send a SYN of flow `flow` (the first, or again after the timer expired); arms the
    /// timer at the initial RTO backed off once per earlier SYN (RFC 6298 §5.5). Returns
    /// the SYN and whether the scenario loses it (`drop_syn`).
    pub fn send_syn(&mut self, now: SimTime, flow: u32) -> (Packet, bool) {
        if self.syns_sent == 0 {
            self.opened_at = now;
        }
        let backoff = self.syns_sent.min(30);
        self.syns_sent += 1;
        self.last_syn_at = now;
        self.deadline = Some(now + SYN_TIMEOUT.saturating_mul(1u64 << backoff));
        let lost = self.syns_to_drop > 0;
        self.syns_to_drop = self.syns_to_drop.saturating_sub(1);
        let wire_bytes = self.header_bytes as u32 + SYN_EXTRA_OPTION_BYTES;
        (control_packet(flow, PacketKind::Syn, wire_bytes), lost)
    }

    /// The SYN timer fired at `now`: whether to send the SYN again (not once established).
    pub fn on_timer(&mut self, now: SimTime) -> bool {
        self.deadline
            .take_if(|deadline| *deadline <= now)
            .is_some_and(|_| self.established_at.is_none())
    }

    /// A SYN-ACK arrived at `now`: the connection is established by the first one; later
    /// ones (answers to retransmitted SYNs) change nothing.
    pub fn on_syn_ack(&mut self, now: SimTime) -> Option<Established> {
        if self.established_at.is_some() {
            return None;
        }
        self.established_at = Some(now);
        self.deadline = None;
        Some(Established {
            // Karn (RFC 6298 §3): a SYN-ACK after a retransmitted SYN could answer either.
            rtt: (self.syns_sent == 1).then(|| now.saturating_since(self.last_syn_at)),
            syn_retransmissions: self.syns_sent - 1,
        })
    }

    /// From the first SYN to the first SYN-ACK (`handshake_s` in summary.json).
    pub fn handshake_time(&self) -> Option<SimDuration> {
        self.established_at
            .map(|at| at.saturating_since(self.opened_at))
    }
}

/// The receiver's answer to a SYN: a SYN-ACK of the same size (the same options).
pub fn syn_ack(syn: &Packet) -> Packet {
    control_packet(syn.flow, PacketKind::SynAck, syn.wire_bytes)
}

/// A packet of `wire_bytes` headers and no payload. Not ECN-capable (RFC 3168 §6.1.1: a
/// SYN negotiates ECN, it is not ECT itself).
fn control_packet(flow: u32, kind: PacketKind, wire_bytes: u32) -> Packet {
    Packet {
        flow,
        hop: 0,
        kind,
        retransmission: false,
        sack_count: 0,
        ecn: Ecn::NotEct,
        wire_bytes,
        payload: 0,
        seq: 0,
        sack: [SackOffsets::default(); MAX_SACK_BLOCKS],
        ce_bytes: 0,
        xcp: XcpHeader::default(),
        vcp: None,
        window: 0,
        ts: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    #[test]
    fn a_syn_is_60_bytes_and_its_syn_ack_the_same() {
        let mut h = Handshake::new(at(0), 52, 0);
        let (syn, lost) = h.send_syn(at(0), 7);
        assert!(!lost);
        // IPv4 20 + TCP 20 + options 20 (MSS, SACK-permitted, timestamps, NOP, wscale).
        assert_eq!(
            (syn.kind, syn.wire_bytes, syn.payload, syn.flow),
            (PacketKind::Syn, 60, 0, 7)
        );
        let answer = syn_ack(&syn);
        assert_eq!(
            (answer.kind, answer.wire_bytes, answer.flow),
            (PacketKind::SynAck, 60, 7)
        );
    }

    #[test]
    fn one_syn_gives_the_rtt_sample() {
        let mut h = Handshake::new(at(5), 52, 0);
        h.send_syn(at(5), 0);
        assert_eq!(h.deadline(), Some(at(1005)));
        let established = h
            .on_syn_ack(at(105))
            .expect("the first SYN-ACK establishes");
        assert_eq!(
            established,
            Established {
                rtt: Some(SimDuration::from_millis(100)),
                syn_retransmissions: 0
            }
        );
        assert_eq!(h.handshake_time(), Some(SimDuration::from_millis(100)));
        assert_eq!(h.deadline(), None);
        assert_eq!(
            h.on_syn_ack(at(110)),
            None,
            "a second SYN-ACK changes nothing"
        );
    }

    #[test]
    fn lost_syns_back_off_from_one_second_and_give_no_sample() {
        let mut h = Handshake::new(at(0), 52, 2);
        assert!(h.send_syn(at(0), 0).1, "the first SYN is lost");
        assert!(!h.on_timer(at(999)), "not before the deadline");
        assert!(h.on_timer(at(1000)));
        assert!(h.send_syn(at(1000), 0).1, "the second too");
        // RFC 6298 §5.5: the timer doubles, 1 s then 2 s.
        assert_eq!(h.deadline(), Some(at(3000)));
        assert!(h.on_timer(at(3000)));
        assert!(!h.send_syn(at(3000), 0).1, "the third gets through");
        let established = h.on_syn_ack(at(3100)).unwrap();
        assert_eq!(
            established,
            Established {
                rtt: None,
                syn_retransmissions: 2
            }
        );
        assert_eq!(h.handshake_time(), Some(SimDuration::from_millis(3100)));
    }

    #[test]
    fn the_timer_does_nothing_once_established() {
        let mut h = Handshake::new(at(0), 52, 0);
        h.send_syn(at(0), 0);
        h.on_syn_ack(at(100));
        assert!(!h.on_timer(at(1000)));
    }
}
