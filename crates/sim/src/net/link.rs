//! A one-way link: a queue with its discipline, a transmitter of fixed rate, a propagation
//! delay, and loss models for data segments and ACKs.
//!
//! For a FIFO, work-conserving queue whose admission is decided on arrival (drop-tail, RED),
//! every
//! packet's departure time is known the moment it is admitted:
//! `start = max(now, busy_until)`, `departure = start + size/rate`. So the link needs no
//! "transmission finished" event: an admitted packet goes straight into the propagation FIFO
//! stamped with its arrival time at the far end (`departure + delay`), and the queue length at
//! any time is the number of admitted packets whose service has not started yet. This is exact
//! and costs one event per packet per hop. (A queue that decides at dequeue time, such as
//! CoDel, needs a service event instead: see [`super::qdisc`].)

use std::collections::VecDeque;

use cclab_cc::{SimDuration, SimTime};

use super::loss::LossProcess;
pub use super::qdisc::DropReason;
use super::qdisc::{
    AnyArrivalQdisc, ArrivalContext, ArrivalQdisc, BufferLimit, DropTail, Qdisc, Verdict,
};
use crate::packet::{Packet, PacketKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// The packet will reach the far end at this time. `first_in_flight` tells whether the
    /// propagation FIFO was empty, i.e. the caller must schedule a delivery event.
    Admitted {
        arrival: SimTime,
        first_in_flight: bool,
    },
    Dropped(DropReason),
}

/// Counters over the whole run, all monotone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkStats {
    /// Packets and wire bytes that entered the transmitter (including ones then lost at random).
    pub packets: u64,
    pub bytes: u64,
    /// Transmitter busy time scheduled so far (may extend past the current time).
    pub busy: SimDuration,
    pub overflow_drops: u64,
    /// Dropped early by the queue discipline (RED, CoDel, PIE…).
    pub aqm_drops: u64,
    pub random_losses: u64,
    pub forced_drops: u64,
    /// ECN-capable packets the queue discipline marked CE.
    pub ce_marks: u64,
    /// ∫ queue_pkts dt in packet·nanoseconds, up to `integrated_until`.
    pub queue_integral: u128,
    pub integrated_until: SimTime,
    pub max_queue_pkts: u64,
    /// `queue_time_ns[n]`: nanoseconds during which exactly `n` packets waited, up to
    /// `integrated_until` (time-weighted queue-length distribution, for percentiles). Grows
    /// only when the queue reaches a new maximum.
    pub queue_time_ns: Vec<u64>,
}

impl LinkStats {
    pub fn drops(&self) -> u64 {
        self.overflow_drops + self.aqm_drops + self.random_losses + self.forced_drops
    }

    /// The counters accumulated since `earlier`, a snapshot of these.
    pub fn since(&self, earlier: &LinkStats) -> LinkStats {
        let mut queue_time_ns = self.queue_time_ns.clone();
        for (t, e) in queue_time_ns.iter_mut().zip(&earlier.queue_time_ns) {
            *t -= e;
        }
        LinkStats {
            packets: self.packets - earlier.packets,
            bytes: self.bytes - earlier.bytes,
            busy: self.busy - earlier.busy,
            overflow_drops: self.overflow_drops - earlier.overflow_drops,
            aqm_drops: self.aqm_drops - earlier.aqm_drops,
            random_losses: self.random_losses - earlier.random_losses,
            forced_drops: self.forced_drops - earlier.forced_drops,
            ce_marks: self.ce_marks - earlier.ce_marks,
            queue_integral: self.queue_integral - earlier.queue_integral,
            integrated_until: self.integrated_until,
            max_queue_pkts: queue_time_ns.iter().rposition(|&t| t > 0).unwrap_or(0) as u64,
            queue_time_ns,
        }
    }
}

pub struct Link {
    pub name: String,
    rate_bps: u64,
    delay: SimDuration,
    limit: BufferLimit,
    qdisc: Qdisc,
    /// Random loss of data segments and of ACKs, drawn after serialization.
    data_loss: LossProcess,
    ack_loss: LossProcess,
    /// When the transmitter finishes the last admitted packet.
    busy_until: SimTime,
    /// Sub-nanosecond remainder of back-to-back serialization times, in units of
    /// 1/rate_bps ns, so that long trains do not drift (rounding is not cumulative).
    carry: u64,
    /// Admitted packets whose transmission has not started: (start time, wire bytes).
    waiting: VecDeque<(SimTime, u32)>,
    waiting_bytes: u64,
    /// Packets on the wire, in arrival order: (arrival time at the far end, packet).
    in_flight: VecDeque<(SimTime, Packet)>,
    /// Keep `stats.queue_time_ns` (the reported links only: it costs a memory write per
    /// queue change, and access links change theirs with every packet).
    track_queue_time: bool,
    pub stats: LinkStats,
}

impl Link {
    pub fn new(
        name: String,
        rate_bps: u64,
        delay: SimDuration,
        limit: BufferLimit,
        data_loss: LossProcess,
        ack_loss: LossProcess,
    ) -> Self {
        assert!(
            rate_bps > 0,
            "link {name}: rate must be positive (validated by the scenario)"
        );
        Link {
            name,
            rate_bps,
            delay,
            limit,
            qdisc: Qdisc::Arrival(AnyArrivalQdisc::DropTail(DropTail::default())),
            data_loss,
            ack_loss,
            busy_until: SimTime::ZERO,
            carry: 0,
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            in_flight: VecDeque::new(),
            track_queue_time: false,
            stats: LinkStats::default(),
        }
    }

    /// Record the time spent at each queue length (`stats.queue_time_ns`), for percentiles.
    pub fn track_queue_time(mut self) -> Self {
        self.track_queue_time = true;
        let initial = self
            .limit
            .packets
            .map_or(1, |p| p as usize + 1)
            .min(1 << 16);
        self.stats.queue_time_ns = vec![0; initial];
        self
    }

    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    pub fn delay(&self) -> SimDuration {
        self.delay
    }

    /// Let the queue drain up to `now`: packets whose service started leave the queue.
    #[inline(always)]
    fn advance(&mut self, now: SimTime) {
        while let Some(&(start, bytes)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.integrate_to(start);
            self.waiting.pop_front();
            self.waiting_bytes -= bytes as u64;
        }
        self.integrate_to(now);
    }

    #[inline(always)]
    fn integrate_to(&mut self, t: SimTime) {
        if t > self.stats.integrated_until {
            let span = (t - self.stats.integrated_until).as_nanos();
            let waiting = self.waiting.len();
            self.stats.queue_integral += span as u128 * waiting as u128;
            if self.track_queue_time {
                self.stats.queue_time_ns[waiting] += span;
            }
            self.stats.integrated_until = t;
        }
    }

    /// Queue occupancy at `now` (packets, bytes), excluding the packet being transmitted.
    pub fn queue_at(&mut self, now: SimTime) -> (u64, u64) {
        self.advance(now);
        (self.waiting.len() as u64, self.waiting_bytes)
    }

    /// Serialization time of `bytes`, carrying the sub-nanosecond remainder when the
    /// transmitter works back to back.
    fn serialization(&mut self, bytes: u32, back_to_back: bool) -> SimDuration {
        if !back_to_back {
            self.carry = 0;
        }
        let numerator = bytes as u64 * 8 * 1_000_000_000 + self.carry;
        self.carry = numerator % self.rate_bps;
        SimDuration::from_nanos(numerator / self.rate_bps)
    }

    /// Drop a packet before it reaches the queue (scenario `drop` list).
    pub fn force_drop(&mut self) -> Admission {
        self.stats.forced_drops += 1;
        Admission::Dropped(DropReason::Forced)
    }

    /// Replace the queue discipline (drop-tail by default).
    pub fn with_qdisc(mut self, qdisc: Qdisc) -> Self {
        self.qdisc = qdisc;
        self
    }

    /// Offer `packet` to the link at `now`.
    pub fn enqueue(&mut self, now: SimTime, mut packet: Packet) -> Admission {
        self.advance(now);
        let busy = self.busy_until > now;
        let Qdisc::Arrival(qdisc) = &mut self.qdisc else {
            unreachable!("no scheduled discipline can be built yet")
        };
        let context = ArrivalContext {
            now,
            waiting_packets: self.waiting.len() as u64,
            waiting_bytes: self.waiting_bytes,
            transmitter_busy: busy,
            idle_since: (!busy).then_some(self.busy_until),
            rate_bps: self.rate_bps,
            limit: self.limit,
        };
        let ecn_before = packet.ecn;
        match qdisc.on_arrival(&context, &mut packet) {
            Verdict::Admit => {}
            Verdict::Drop(reason) => {
                match reason {
                    DropReason::Overflow => self.stats.overflow_drops += 1,
                    _ => self.stats.aqm_drops += 1,
                }
                return Admission::Dropped(reason);
            }
        }
        if packet.ecn != ecn_before {
            self.stats.ce_marks += 1;
        }
        let start = if busy { self.busy_until } else { now };
        let transmission = self.serialization(packet.wire_bytes, busy);
        self.busy_until = start + transmission;
        self.stats.packets += 1;
        self.stats.bytes += packet.wire_bytes as u64;
        self.stats.busy += transmission;
        if busy {
            self.waiting.push_back((start, packet.wire_bytes));
            self.waiting_bytes += packet.wire_bytes as u64;
            let waiting = self.waiting.len();
            if waiting as u64 > self.stats.max_queue_pkts {
                self.stats.max_queue_pkts = waiting as u64;
                if self.track_queue_time && waiting >= self.stats.queue_time_ns.len() {
                    // Amortized doubling: a handful of allocations per run, not per packet.
                    let len = (2 * self.stats.queue_time_ns.len()).max(waiting + 1);
                    self.stats.queue_time_ns.resize(len, 0);
                }
            }
        }
        // Random loss strikes on the wire: the packet used the transmitter, then vanished.
        let loss = match packet.kind {
            PacketKind::Data => &mut self.data_loss,
            PacketKind::Ack => &mut self.ack_loss,
        };
        if !loss.is_none() && loss.lose() {
            self.stats.random_losses += 1;
            return Admission::Dropped(DropReason::RandomLoss);
        }
        let arrival = self.busy_until + self.delay;
        let first_in_flight = self.in_flight.is_empty();
        self.in_flight.push_back((arrival, packet));
        Admission::Admitted {
            arrival,
            first_in_flight,
        }
    }

    /// Take the packet that arrives at the far end at `now`; returns it and the arrival time
    /// of the next one, if any.
    pub fn deliver(&mut self, now: SimTime) -> (Packet, Option<SimTime>) {
        let (arrival, packet) = self
            .in_flight
            .pop_front()
            .expect("a delivery event is scheduled only while packets are in flight");
        debug_assert_eq!(
            arrival, now,
            "link {}: delivery at the wrong time",
            self.name
        );
        (packet, self.in_flight.front().map(|&(t, _)| t))
    }

    /// Packets admitted and not yet delivered (queued, in transmission or propagating).
    pub fn packets_in_transit(&self) -> u64 {
        self.in_flight.len() as u64
    }

    /// Time the transmitter needs at `now` to send everything admitted so far.
    pub fn backlog(&self, now: SimTime) -> SimDuration {
        self.busy_until.saturating_since(now)
    }

    /// Transmitter busy time within `[0, t]` (for utilization over a window ending at `t`).
    pub fn busy_until_time(&self, t: SimTime) -> SimDuration {
        // Work scheduled beyond `t` is one contiguous busy period ending at busy_until.
        self.stats
            .busy
            .saturating_sub(self.busy_until.saturating_since(t))
    }

    /// Close the queue-length integral at `end`.
    pub fn finish(&mut self, end: SimTime) {
        self.advance(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::qdisc::{AnyArrivalQdisc, BufferLimit, DropTail, Qdisc};
    use crate::packet::{Ecn, PacketKind, SackBlock};
    use crate::rng::Rng;
    use cclab_scenario::LossModel;

    fn no_loss() -> LossProcess {
        LossProcess::new(LossModel::None, Rng::for_component(1, "test"))
    }

    fn packet(wire_bytes: u32) -> Packet {
        Packet {
            flow: 0,
            hop: 0,
            kind: PacketKind::Data,
            retransmission: false,
            sack_count: 0,
            wire_bytes,
            payload: wire_bytes,
            seq: 0,
            sack: [SackBlock::default(); 3],
            ecn: Ecn::NotEct,
            ce_bytes: 0,
        }
    }

    fn link(rate_bps: u64, delay_ms: u64, limit: Option<u64>) -> Link {
        Link::new(
            "test".into(),
            rate_bps,
            SimDuration::from_millis(delay_ms),
            BufferLimit {
                packets: limit,
                bytes: None,
            },
            no_loss(),
            no_loss(),
        )
        .track_queue_time()
    }

    fn at(ns: u64) -> SimTime {
        SimTime::from_nanos(ns)
    }

    #[test]
    fn serialization_plus_propagation() {
        // 1500 B at 10 Mbit/s = 12_000 bits / 1e7 = 1.2 ms; + 5 ms propagation.
        let mut l = link(10_000_000, 5, None);
        match l.enqueue(at(0), packet(1500)) {
            Admission::Admitted {
                arrival,
                first_in_flight,
            } => {
                assert_eq!(arrival, at(6_200_000));
                assert!(first_in_flight);
            }
            other => panic!("{other:?}"),
        }
        // A second packet queues behind the first: departs at 2.4 ms.
        match l.enqueue(at(100), packet(1500)) {
            Admission::Admitted {
                arrival,
                first_in_flight,
            } => {
                assert_eq!(arrival, at(7_400_000));
                assert!(!first_in_flight);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(l.queue_at(at(100)), (1, 1500));
        assert_eq!(l.queue_at(at(1_200_000)), (0, 0));
    }

    #[test]
    fn back_to_back_serialization_does_not_drift() {
        // 1500 B at 7 Mbit/s = 12_000/7e6 s = 1_714_285.714... ns. 7000 packets take exactly
        // 7000 * 12_000 / 7e6 s = 12 s if the remainder is carried; truncating each would lose
        // 0.714 ns * 7000 = 5 us.
        let mut l = link(7_000_000, 0, None);
        for _ in 0..7000 {
            l.enqueue(at(0), packet(1500));
        }
        assert_eq!(l.busy_until, at(12_000_000_000));
    }

    #[test]
    fn drop_tail_counts_waiting_packets_only() {
        let mut l = link(1_000_000, 0, Some(2));
        // First goes into service, two wait, the fourth is dropped.
        let results: Vec<_> = (0..4).map(|_| l.enqueue(at(0), packet(1000))).collect();
        assert!(matches!(results[2], Admission::Admitted { .. }));
        assert_eq!(results[3], Admission::Dropped(DropReason::Overflow));
        assert_eq!(l.stats.overflow_drops, 1);
        assert_eq!(l.stats.max_queue_pkts, 2);
    }

    #[test]
    fn ecn_step_marking_marks_capable_packets_above_the_threshold() {
        let mut l = link(1_000_000, 0, None).with_qdisc(Qdisc::Arrival(AnyArrivalQdisc::DropTail(
            DropTail {
                ecn_threshold: Some(2),
            },
        )));
        let mut ect = packet(1000);
        ect.ecn = Ecn::Ect;
        // In service, then 2 waiting unmarked (they find 0 and 1 waiting), then marked.
        for _ in 0..5 {
            l.enqueue(at(0), ect);
        }
        l.enqueue(at(0), packet(1000)); // not ECN-capable: never marked
        assert_eq!(l.stats.ce_marks, 2);
        let marks: Vec<Ecn> = (0..6)
            .map(|i| l.deliver(at(8_000_000 * (i + 1))).0.ecn)
            .collect();
        assert_eq!(
            marks,
            vec![Ecn::Ect, Ecn::Ect, Ecn::Ect, Ecn::Ce, Ecn::Ce, Ecn::NotEct]
        );
    }

    #[test]
    fn byte_limit() {
        let mut l = Link::new(
            "b".into(),
            1_000_000,
            SimDuration::ZERO,
            BufferLimit {
                packets: None,
                bytes: Some(2500),
            },
            no_loss(),
            no_loss(),
        );
        let results: Vec<_> = (0..4).map(|_| l.enqueue(at(0), packet(1000))).collect();
        // In service: 1; waiting: 1000, 2000 bytes; a third waiting would make 3000 > 2500.
        assert!(matches!(results[2], Admission::Admitted { .. }));
        assert_eq!(results[3], Admission::Dropped(DropReason::Overflow));
    }

    #[test]
    fn queue_integral_and_busy_time() {
        // 1000 B at 1 Mbit/s = 8 ms each. Three at t=0: queue 2 for 8 ms, 1 for 8 ms.
        let mut l = link(1_000_000, 0, None);
        for _ in 0..3 {
            l.enqueue(at(0), packet(1000));
        }
        l.finish(at(30_000_000));
        assert_eq!(l.stats.queue_integral, 2 * 8_000_000 + 8_000_000);
        // 8 ms with 2 waiting, 8 ms with 1, the remaining 14 ms with none.
        assert_eq!(
            &l.stats.queue_time_ns[..3],
            &[14_000_000, 8_000_000, 8_000_000]
        );
        assert_eq!(
            l.busy_until_time(at(30_000_000)),
            SimDuration::from_millis(24)
        );
        assert_eq!(
            l.busy_until_time(at(10_000_000)),
            SimDuration::from_millis(10)
        );
    }

    #[test]
    fn delivery_hands_out_packets_in_order() {
        let mut l = link(8_000_000, 1, None);
        let mut p = packet(1000);
        l.enqueue(at(0), p);
        p.seq = 1000;
        l.enqueue(at(0), p);
        // 1000 B at 8 Mbit/s = 1 ms; arrivals at 2 ms and 3 ms.
        let (first, next) = l.deliver(at(2_000_000));
        assert_eq!((first.seq, next), (0, Some(at(3_000_000))));
        let (second, next) = l.deliver(at(3_000_000));
        assert_eq!((second.seq, next), (1000, None));
    }
}
