//! Drop-tail: admit while the buffer has room, drop on overflow; optionally CE-mark
//! ECN-capable packets that arrive to find `ecn_threshold` or more packets waiting (the step
//! marking of DCTCP, RFC 8257 §3.1, and of L4S queues).

use super::{ArrivalContext, ArrivalQdisc, DropReason, Verdict};
use crate::packet::{Ecn, Packet};

#[derive(Clone, Debug, Default)]
pub struct DropTail {
    /// Mark when at least this many packets wait; `None`: never mark.
    pub ecn_threshold: Option<u64>,
}

impl ArrivalQdisc for DropTail {
    #[inline(always)]
    fn on_arrival(&mut self, context: &ArrivalContext, packet: &mut Packet) -> Verdict {
        // A packet that finds the transmitter idle goes straight into service: it never waits,
        // so it can neither overflow the buffer nor be marked.
        if !context.transmitter_busy {
            return Verdict::Admit;
        }
        if context.limit.exceeded_by(
            context.waiting_packets + 1,
            context.waiting_bytes + packet.wire_bytes as u64,
        ) {
            return Verdict::Drop(DropReason::Overflow);
        }
        if packet.ecn.is_ect()
            && self
                .ecn_threshold
                .is_some_and(|k| context.waiting_packets >= k)
        {
            packet.ecn = Ecn::Ce;
        }
        Verdict::Admit
    }
}
