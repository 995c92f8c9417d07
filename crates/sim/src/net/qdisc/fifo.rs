//! A first-in, first-out queue with drop-tail's admission and ECN step marking, run as a
//! *scheduled* discipline. The router disciplines that rewrite packets as they leave (XCP,
//! VCP) are this queue plus their control. On its own it is a test discipline: fed the same
//! packets, a link with it must behave exactly as a drop-tail link on the fast path, which
//! checks the scheduled family's link mechanics (service events, statistics, drop
//! accounting) against the path that is known.

use std::collections::VecDeque;

use cclab_cc::SimTime;

use super::{BufferLimit, Dequeued, DropReason, ScheduledQdisc};
use crate::packet::{Ecn, Packet};

#[derive(Clone, Debug, Default)]
pub struct Fifo {
    pub limit: BufferLimit,
    /// As drop-tail's: mark ECN-capable packets that find this many waiting.
    pub ecn_threshold: Option<u64>,
    queue: VecDeque<Dequeued>,
    bytes: u64,
    marks: u64,
}

impl Fifo {
    pub fn new(limit: BufferLimit, ecn_threshold: Option<u64>) -> Self {
        Fifo {
            limit,
            ecn_threshold,
            ..Fifo::default()
        }
    }
}

impl ScheduledQdisc for Fifo {
    fn enqueue(&mut self, now: SimTime, mut packet: Packet) -> Result<(), (Packet, DropReason)> {
        let waiting = self.queue.len() as u64;
        if self
            .limit
            .exceeded_by(waiting + 1, self.bytes + packet.wire_bytes as u64)
        {
            return Err((packet, DropReason::Overflow));
        }
        if packet.ecn.is_ect() && self.ecn_threshold.is_some_and(|k| waiting >= k) {
            packet.ecn = Ecn::Ce;
            self.marks += 1;
        }
        self.bytes += packet.wire_bytes as u64;
        self.queue.push_back(Dequeued {
            packet,
            enqueued_at: now,
        });
        Ok(())
    }

    fn dequeue(
        &mut self,
        _now: SimTime,
        _dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Dequeued> {
        let next = self.queue.pop_front()?;
        self.bytes -= next.packet.wire_bytes as u64;
        Some(next)
    }

    fn backlog(&self) -> (u64, u64) {
        (self.queue.len() as u64, self.bytes)
    }

    fn ce_marks(&self) -> u64 {
        self.marks
    }
}
