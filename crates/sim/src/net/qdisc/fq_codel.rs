//! FQ-CoDel (RFC 8290): packets hashed into flow queues, served by deficit round robin with
//! new queues before old ones, each queue under its own CoDel state machine.
//!
//! - Classification (§4.1.1): we have no 5-tuple, so a queue is chosen by hashing the flow id
//!   and the packet kind (a flow's data and its ACKs are different 5-tuples) with a fixed
//!   64-bit mixer, perturbed by a value drawn from the discipline's own random stream, as
//!   Linux perturbs its hash with a random seed. Distinct flows may share a queue, as in any
//!   stochastic FQ.
//! - Enqueue (§4.1): a queue that is on neither list joins the end of the new list with a
//!   quantum of credit. When the buffer limit is exceeded, the head packet of the queue with
//!   the most bytes is dropped (the "fat flow"). Linux drops up to half that queue's bytes in
//!   a batch of at most 64 (a CPU-cost measure) and adds the drops to its CoDel count; we drop
//!   one packet, which is enough to admit the arrival under a packet limit.
//! - Dequeue (§4.2): the first queue of the new list, else of the old list; one whose credit
//!   is spent gets another quantum and moves to the end of the old list. A queue that CoDel
//!   leaves empty moves from the new list to the end of the old list (so a flow cannot stay
//!   "new" forever by keeping its queue nearly empty, and the old flows are not starved), or
//!   leaves the old list. Linux removes it from the new list outright when the old list is
//!   empty; the RFC's rule is kept here.
//! - CoDel per queue (§4.2): [`CodelVars`] per queue; its MAXPACKET rule looks at the whole
//!   discipline's backlog, as Linux passes `sch->qstats.backlog` (the link stays busy while
//!   any queue holds packets).

use std::collections::VecDeque;

use cclab_cc::SimTime;
use cclab_scenario::FqCodelConfig;

use super::codel::{CodelParams, CodelQueue, CodelVars, Fifo};
use super::{BufferLimit, Dequeued, DropReason, ScheduledQdisc};
use crate::packet::{Packet, PacketKind};

/// One flow queue with its round-robin credit and CoDel state.
#[derive(Clone, Debug, Default)]
struct FlowQueue {
    fifo: Fifo,
    /// DRR deficit in bytes: may go negative by less than one packet.
    deficit: i64,
    codel: CodelVars,
    /// On the new or the old list.
    listed: bool,
}

/// Which list a queue was taken from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    New,
    Old,
}

#[derive(Clone, Debug)]
pub struct FqCodel {
    params: CodelParams,
    quantum: i64,
    limit: BufferLimit,
    /// Mixed into every flow hash (Linux: a random `perturbation`).
    perturbation: u64,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    packets: u64,
    bytes: u64,
    ce_marks: u64,
}

/// A flow queue seen by its CoDel instance: pops keep the discipline's totals, and the
/// MAXPACKET rule sees the discipline's whole backlog.
struct FlowView<'a> {
    fifo: &'a mut Fifo,
    packets: &'a mut u64,
    bytes: &'a mut u64,
}

impl CodelQueue for FlowView<'_> {
    fn pop(&mut self) -> Option<Dequeued> {
        let head = self.fifo.pop()?;
        *self.packets -= 1;
        *self.bytes -= head.packet.wire_bytes as u64;
        Some(head)
    }

    fn backlog_bytes(&self) -> u64 {
        *self.bytes
    }
}

/// SplitMix64's output function (Steele, Lea, Flood 2014): a fixed bijective mixer, so a
/// seed gives the same queue assignment on every build.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FqCodel {
    /// `perturbation`: a draw from the discipline's random stream.
    pub fn new(
        config: &FqCodelConfig,
        limit: BufferLimit,
        mtu_bytes: u64,
        perturbation: u64,
    ) -> Self {
        FqCodel {
            params: CodelParams {
                target: config.target,
                interval: config.interval,
                mtu_bytes,
                ecn: config.ecn,
            },
            quantum: config.quantum as i64,
            limit,
            perturbation,
            queues: vec![FlowQueue::default(); config.flows.max(1) as usize],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            packets: 0,
            bytes: 0,
            ce_marks: 0,
        }
    }

    /// The flow queue `packet` belongs to (RFC 8290 §4.1.1).
    pub fn queue_of(&self, packet: &Packet) -> usize {
        let kind = match packet.kind {
            PacketKind::Data => 0,
            PacketKind::Ack => 1,
        };
        let key = ((packet.flow as u64) << 1 | kind) ^ self.perturbation;
        // Multiply-shift onto [0, flows) (Linux `reciprocal_scale`).
        (((mix(key) >> 32) * self.queues.len() as u64) >> 32) as usize
    }

    /// Packets held in flow queue `index`.
    pub fn queue_len(&self, index: usize) -> u64 {
        self.queues[index].fifo.len()
    }

    /// Remove the first queue of `list`.
    fn take_front(&mut self, list: List) {
        match list {
            List::New => self.new_flows.pop_front(),
            List::Old => self.old_flows.pop_front(),
        };
    }

    /// The queue with the most bytes, counting `extra` bytes on queue `with` (the lowest index
    /// among equals, as Linux's scan keeps the first maximum).
    fn fattest(&self, with: usize, extra: u64) -> usize {
        let mut best = (0, 0);
        for (index, queue) in self.queues.iter().enumerate() {
            let bytes = queue.fifo.bytes() + if index == with { extra } else { 0 };
            if bytes > best.1 {
                best = (index, bytes);
            }
        }
        best.0
    }
}

impl ScheduledQdisc for FqCodel {
    /// On overflow the packet given back is the head of the fattest queue, which is not
    /// necessarily `packet`: `packet` is then held (RFC 8290 §4.1).
    fn enqueue(&mut self, now: SimTime, packet: Packet) -> Result<(), (Packet, DropReason)> {
        let index = self.queue_of(&packet);
        let wire = packet.wire_bytes as u64;
        let mut victim = None;
        if self.limit.exceeded_by(self.packets + 1, self.bytes + wire) {
            let fat = self.fattest(index, wire);
            let fat_queue = &self.queues[fat].fifo;
            let head_bytes = match fat_queue.front() {
                Some(head) => head.packet.wire_bytes as u64,
                // The arrival alone is the fattest queue: it is the one to drop.
                None => return Err((packet, DropReason::Overflow)),
            };
            // Under a byte limit one head drop may not make room for a larger arrival; then
            // the arrival is dropped instead, so one enqueue drops one packet.
            if self
                .limit
                .exceeded_by(self.packets, self.bytes - head_bytes + wire)
            {
                return Err((packet, DropReason::Overflow));
            }
            let head = self.queues[fat]
                .fifo
                .pop()
                .expect("the fattest queue has a head: checked above");
            self.packets -= 1;
            self.bytes -= head_bytes;
            victim = Some(head.packet);
        }
        let queue = &mut self.queues[index];
        queue.fifo.push(now, packet);
        self.packets += 1;
        self.bytes += wire;
        if !queue.listed {
            queue.listed = true;
            queue.deficit = self.quantum;
            self.new_flows.push_back(index as u32);
        }
        match victim {
            Some(dropped) => Err((dropped, DropReason::Overflow)),
            None => Ok(()),
        }
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Dequeued> {
        loop {
            let (list, index) = match self.new_flows.front() {
                Some(&index) => (List::New, index),
                None => (List::Old, *self.old_flows.front()?),
            };
            let queue = &mut self.queues[index as usize];
            if queue.deficit <= 0 {
                // Credit spent: another quantum, and to the back of the old list.
                queue.deficit += self.quantum;
                self.take_front(list);
                self.old_flows.push_back(index);
                continue;
            }
            let mut view = FlowView {
                fifo: &mut queue.fifo,
                packets: &mut self.packets,
                bytes: &mut self.bytes,
            };
            let sent =
                queue
                    .codel
                    .dequeue(&self.params, now, &mut view, dropped, &mut self.ce_marks);
            match sent {
                Some(sent) => {
                    queue.deficit -= sent.packet.wire_bytes as i64;
                    return Some(sent);
                }
                None => {
                    self.take_front(list);
                    match list {
                        // A new queue that empties goes through the old list once before
                        // it can be new again (RFC 8290 §4.2).
                        List::New => self.old_flows.push_back(index),
                        List::Old => self.queues[index as usize].listed = false,
                    }
                }
            }
        }
    }

    fn backlog(&self) -> (u64, u64) {
        (self.packets, self.bytes)
    }

    fn ce_marks(&self) -> u64 {
        self.ce_marks
    }
}
