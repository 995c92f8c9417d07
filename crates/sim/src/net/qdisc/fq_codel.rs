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
use crate::packet::Packet;

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
        // By direction, as the 5-tuple hash does: a SYN shares its data's queue, a SYN-ACK
        // or FIN its ACKs'.
        let kind = if packet.kind.is_forward() { 0 } else { 1 };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;
    use cclab_cc::SimDuration;

    const MTU: u64 = 1500;

    fn packet(flow: u32, seq: u64, wire_bytes: u32) -> Packet {
        Packet {
            flow,
            ..Packet::test_data(wire_bytes, seq)
        }
    }

    fn fq(limit_packets: Option<u64>) -> FqCodel {
        let limit = BufferLimit {
            packets: limit_packets,
            bytes: None,
        };
        FqCodel::new(&FqCodelConfig::default(), limit, MTU, 0)
    }

    fn at_us(us: u64) -> SimTime {
        SimTime::from_nanos(us * 1_000)
    }

    /// Flows 1..=n land in distinct queues with perturbation 0 (checked, so that the tests
    /// below test scheduling, not a hash collision).
    fn assert_distinct_queues(q: &FqCodel, flows: &[u32]) {
        let mut queues: Vec<usize> = flows
            .iter()
            .map(|&f| q.queue_of(&packet(f, 0, 100)))
            .collect();
        queues.sort();
        queues.dedup();
        assert_eq!(queues.len(), flows.len());
    }

    #[test]
    fn hashing_spreads_flows_and_separates_data_from_acks() {
        let q = FqCodel::new(&FqCodelConfig::default(), BufferLimit::default(), MTU, 7);
        let mut hits = vec![0u32; 1024];
        for flow in 0..10_240 {
            hits[q.queue_of(&packet(flow, 0, 100))] += 1;
        }
        // 10 per queue on average; a Poisson(10) count exceeds 30 with probability ~1e-7
        // per queue, so a fair hash never gives an empty-looking or crowded table here.
        assert!(hits.iter().all(|&h| h <= 30), "{:?}", hits.iter().max());
        let empty = hits.iter().filter(|&&h| h == 0).count();
        // Expected empty queues: 1024·e^−10 ≈ 0.05.
        assert!(empty <= 3, "{empty}");
        let mut ack = packet(3, 0, 52);
        ack.kind = PacketKind::Ack;
        let data = packet(3, 0, 1500);
        let other = FqCodel::new(&FqCodelConfig::default(), BufferLimit::default(), MTU, 8);
        // Data and ACKs of a flow are different 5-tuples; the perturbation moves flows.
        assert!(
            q.queue_of(&ack) != q.queue_of(&data) || other.queue_of(&ack) != other.queue_of(&data)
        );
        assert!(
            (0..64).any(|f| q.queue_of(&packet(f, 0, 100)) != other.queue_of(&packet(f, 0, 100)))
        );
    }

    #[test]
    fn drr_gives_backlogged_flows_equal_bytes_whatever_their_packet_sizes() {
        // Flow 1 sends 1500-byte packets, flow 2 500-byte ones; both stay backlogged. DRR
        // (Shreedhar & Varghese 1995, Lemma 2) keeps the bytes served to two backlogged
        // queues within quantum + largest packet of each other at any time.
        let mut q = fq(None);
        assert_distinct_queues(&q, &[1, 2]);
        for seq in 0..400 {
            q.enqueue(at_us(0), packet(1, seq, 1500)).unwrap();
            q.enqueue(at_us(0), packet(2, seq, 500)).unwrap();
            q.enqueue(at_us(0), packet(2, seq, 500)).unwrap();
            q.enqueue(at_us(0), packet(2, seq, 500)).unwrap();
        }
        let mut dropped = Vec::new();
        let mut served = [0u64; 3];
        let bound = 1514 + 1500;
        for _ in 0..600 {
            // Dequeued at once: sojourn 0, CoDel never drops.
            let sent = q.dequeue(at_us(0), &mut dropped).unwrap();
            served[sent.packet.flow as usize] += sent.packet.wire_bytes as u64;
            assert!(served[1].abs_diff(served[2]) <= bound, "{served:?}");
        }
        assert!(dropped.is_empty());
        // And over whole rounds they are equal to within that bound, at about 1514 B each.
        assert!(served[1] > 200_000 && served[2] > 200_000, "{served:?}");
    }

    #[test]
    fn a_new_flow_goes_before_the_old_flows_backlog() {
        // Old flows 1 and 2 send 100-byte packets: a quantum (1514 B) is 15 or 16 of them.
        let mut q = fq(None);
        assert_distinct_queues(&q, &[1, 2, 3, 4]);
        for seq in 0..200 {
            q.enqueue(at_us(0), packet(1, seq, 100)).unwrap();
            q.enqueue(at_us(0), packet(2, seq, 100)).unwrap();
        }
        let mut dropped = Vec::new();
        let mut next = |q: &mut FqCodel, us| q.dequeue(at_us(us), &mut dropped).unwrap().packet;
        // After 40 packets both have spent their first quantum: both are on the old list.
        for _ in 0..40 {
            next(&mut q, 0);
        }
        // A sparse flow's packet arrives: it is sent next, before the old flows' backlog.
        q.enqueue(at_us(10), packet(3, 0, 100)).unwrap();
        assert_eq!(next(&mut q, 10).flow, 3);
        // Its queue is now empty; the next dequeue moves it to the end of the old list
        // (RFC 8290 §4.2), behind both old flows, and serves an old flow.
        assert_ne!(next(&mut q, 20).flow, 3);
        // A packet of flow 3 arriving now is not new any more, while flow 4 is: flow 4 goes
        // at once; flow 3 waits for its place in the old list. Ahead of it is at least the
        // old flow that is not being served now, with a fresh quantum of at least
        // 1514 − 99 bytes: 15 packets or more. At most both old flows' quanta (16 + 16)
        // come first.
        q.enqueue(at_us(30), packet(3, 1, 100)).unwrap();
        q.enqueue(at_us(30), packet(4, 0, 100)).unwrap();
        assert_eq!(next(&mut q, 30).flow, 4);
        let before_flow_3 = (0..40)
            .position(|_| next(&mut q, 40).flow == 3)
            .expect("flow 3 is served within two rounds");
        assert!((15..=32).contains(&before_flow_3), "{before_flow_3}");
        assert!(dropped.is_empty());
    }

    #[test]
    fn codel_drops_hit_only_the_flow_that_builds_a_queue() {
        // 10 Mbit/s: one 1500-byte packet every 1.2 ms. Flow 1 offers two packets per slot
        // (twice the link), flow 2 one 200-byte packet every 10 slots. Flow 1's queue grows
        // and its CoDel drops; flow 2's packets go as new-flow packets within a slot or
        // two, far below target, so none of them is ever dropped.
        let mut q = fq(Some(1000));
        assert_distinct_queues(&q, &[1, 2]);
        let mut dropped = Vec::new();
        let mut sent = [0u64; 3];
        let mut flow2_offered = 0;
        let mut seq = 0;
        for slot in 0..5_000u64 {
            let now = at_us(slot * 1_200);
            for _ in 0..2 {
                seq += 1;
                if let Err((p, _)) = q.enqueue(now, packet(1, seq, 1500)) {
                    dropped.push((p, DropReason::Overflow));
                }
            }
            if slot % 10 == 0 {
                // The buffer may be full: flow 1, the fattest, loses its head instead.
                if let Err((p, _)) = q.enqueue(now, packet(2, slot, 200)) {
                    dropped.push((p, DropReason::Overflow));
                }
                flow2_offered += 1;
            }
            if let Some(d) = q.dequeue(now, &mut dropped) {
                sent[d.packet.flow as usize] += 1;
                if d.packet.flow == 2 {
                    assert!(now - d.enqueued_at < SimDuration::from_millis(5));
                }
            }
        }
        // Flow 1, unresponsive at twice the link rate, outruns CoDel's drop rate (which grows
        // as √count per interval) and also overflows the 1000-packet buffer.
        assert!(
            dropped
                .iter()
                .any(|(p, r)| p.flow == 1 && *r == DropReason::Aqm)
        );
        assert!(
            dropped
                .iter()
                .any(|(p, r)| p.flow == 1 && *r == DropReason::Overflow)
        );
        assert!(dropped.iter().all(|(p, _)| p.flow == 1));
        assert_eq!(sent[2], flow2_offered);
    }

    #[test]
    fn overflow_drops_from_the_head_of_the_fattest_queue() {
        let mut q = fq(Some(10));
        assert_distinct_queues(&q, &[1, 2]);
        for seq in 0..8 {
            q.enqueue(at_us(0), packet(1, seq, 1500)).unwrap();
        }
        q.enqueue(at_us(0), packet(2, 0, 1500)).unwrap();
        q.enqueue(at_us(0), packet(2, 1, 1500)).unwrap();
        // Full (10 packets). A packet of flow 2 arrives: flow 1's head goes, flow 2's
        // packet is held (RFC 8290 §4.1).
        assert_eq!(
            q.enqueue(at_us(1), packet(2, 2, 1500)),
            Err((packet(1, 0, 1500), DropReason::Overflow))
        );
        assert_eq!(q.queue_len(q.queue_of(&packet(2, 0, 1500))), 3);
        // Flow 1 is still the fattest (7 against 3): its own arrival is held and its head
        // dropped, not the arrival (head drop).
        assert_eq!(
            q.enqueue(at_us(2), packet(1, 8, 1500)),
            Err((packet(1, 1, 1500), DropReason::Overflow))
        );
        assert_eq!(q.backlog(), (10, 10 * MTU));
    }

    #[test]
    fn under_a_byte_limit_one_packet_goes_per_arrival() {
        let limit = BufferLimit {
            packets: None,
            bytes: Some(3_100),
        };
        let mut q = FqCodel::new(&FqCodelConfig::default(), limit, MTU, 0);
        assert_distinct_queues(&q, &[1, 2]);
        for seq in 0..3 {
            q.enqueue(at_us(0), packet(1, seq, 1000)).unwrap();
        }
        // 3000 + 100 fits.
        q.enqueue(at_us(1), packet(2, 0, 100)).unwrap();
        // 3100 + 1000 does not; dropping flow 1's 1000-byte head makes room.
        assert_eq!(
            q.enqueue(at_us(2), packet(2, 1, 1000)),
            Err((packet(1, 0, 1000), DropReason::Overflow))
        );
        // Counting a 1500-byte arrival, flow 2 (1100 + 1500 bytes) is the fattest; dropping
        // its 100-byte head would leave 3100 − 100 + 1500 = 4500 bytes, still over the
        // limit: the arrival itself goes, so one arrival costs one packet.
        assert_eq!(
            q.enqueue(at_us(3), packet(2, 2, 1500)),
            Err((packet(2, 2, 1500), DropReason::Overflow))
        );
        assert_eq!(q.backlog(), (4, 3_100));
    }
}
