//! Queue disciplines: what a link does with a packet that finds its transmitter busy.
//!
//! Two families, because they cost differently:
//!
//! - [`ArrivalQdisc`]: the discipline decides at arrival (admit, mark, or drop) and the queue is
//!   served first in, first out. The link then knows every packet's departure time the moment
//!   it is admitted and needs one event per packet per hop (the drop-tail fast path). Drop-tail
//!   and RED are of this family.
//! - [`ScheduledQdisc`]: the discipline holds the packets and decides at dequeue (CoDel's
//!   sojourn time, FQ-CoDel's round robin, DualPI2's two queues), or updates its state from
//!   what leaves (PIE). The link asks it for the next packet each time the transmitter frees,
//!   which costs a service event per packet.
//!
//! Dispatch is static, through [`Qdisc`], as smoltcp's `AnyController` does: one `match` per
//! packet, no virtual call on the fast path. Each discipline owns its random stream, if it
//! needs one, so adding a discipline never shifts another component's draws.

pub mod codel;
pub mod droptail;
pub mod dualpi2;
pub mod fifo;
pub mod fq_codel;
pub mod pie;
pub mod red;
pub mod vcp;
pub mod xcp;

use cclab_cc::SimTime;
use cclab_scenario::QueueDiscipline;

pub use codel::Codel;
pub use droptail::DropTail;
pub use dualpi2::DualPi2;
pub use fq_codel::FqCodel;
pub use pie::Pie;
pub use red::Red;
pub use vcp::Vcp;
pub use xcp::Xcp;

use crate::packet::Packet;
use crate::rng::Rng;

/// Why a link did not deliver a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The buffer was full.
    Overflow,
    /// The queue discipline dropped it early, before the buffer was full (RED, CoDel, PIE…).
    Aqm,
    /// Random loss on the wire (the link's loss model); the packet used the transmitter first.
    RandomLoss,
    /// A scenario `drop` entry.
    Forced,
}

/// The link's buffer limit. Packets waiting for the transmitter count; the one being
/// serialized does not (as in ns-2 and ns-3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferLimit {
    pub packets: Option<u64>,
    pub bytes: Option<u64>,
}

impl BufferLimit {
    /// Would `packets` waiting packets of `bytes` wire bytes exceed the limit?
    #[inline(always)]
    pub fn exceeded_by(&self, packets: u64, bytes: u64) -> bool {
        self.packets.is_some_and(|limit| packets > limit)
            || self.bytes.is_some_and(|limit| bytes > limit)
    }
}

/// What an arrival-deciding discipline is told about its link when a packet arrives.
#[derive(Clone, Copy, Debug)]
pub struct ArrivalContext {
    pub now: SimTime,
    /// Packets and wire bytes waiting for the transmitter, not counting the one in service.
    pub waiting_packets: u64,
    pub waiting_bytes: u64,
    /// The transmitter is sending: the arriving packet would wait.
    pub transmitter_busy: bool,
    /// When the link last went idle (nothing waiting, nothing in service), if it is idle now:
    /// RED's idle-time correction of its average.
    pub idle_since: Option<SimTime>,
    pub rate_bps: u64,
    pub limit: BufferLimit,
}

/// The decision on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Admit it (possibly after setting its ECN field to CE: the link counts the mark).
    Admit,
    Drop(DropReason),
}

/// A discipline that decides at arrival and serves first in, first out.
pub trait ArrivalQdisc {
    /// Decide on `packet`; a discipline that marks sets `packet.ecn = Ecn::Ce`. The discipline
    /// enforces `context.limit` itself (drop-tail drops there; RED updates its average first).
    fn on_arrival(&mut self, context: &ArrivalContext, packet: &mut Packet) -> Verdict;
}

/// A packet handed to the transmitter by a scheduled discipline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dequeued {
    pub packet: Packet,
    /// When it entered the queue: its sojourn time is `now − enqueued_at`.
    pub enqueued_at: SimTime,
}

/// A discipline that holds its packets and chooses at dequeue.
pub trait ScheduledQdisc {
    /// Take `packet` at `now`, or give it back with the reason it is dropped. Enforces the
    /// buffer limit the discipline was built with. The packet given back may be another one
    /// the discipline held (FQ-CoDel drops from its longest queue, RFC 8290 §4.1); `packet`
    /// is then held.
    fn enqueue(&mut self, now: SimTime, packet: Packet) -> Result<(), (Packet, DropReason)>;

    /// The transmitter is free at `now`: the next packet to send, if any. Packets the
    /// discipline drops on the way (CoDel drops at the head) are pushed to `dropped`.
    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Dequeued>;

    /// Packets and wire bytes held.
    fn backlog(&self) -> (u64, u64);

    /// ECN-capable packets this discipline has marked CE so far (Linux's `ecn_mark`): the
    /// link reports it, since it cannot tell a mark made here from one made upstream.
    fn ce_marks(&self) -> u64;
}

/// The arrival-deciding disciplines.
#[derive(Clone, Debug)]
pub enum AnyArrivalQdisc {
    DropTail(DropTail),
    /// Boxed: RED's state is several times drop-tail's, and every access link holds a drop-tail
    /// discipline, so the enum stays the size of the common case.
    Red(Box<Red>),
}

impl ArrivalQdisc for AnyArrivalQdisc {
    #[inline(always)]
    fn on_arrival(&mut self, context: &ArrivalContext, packet: &mut Packet) -> Verdict {
        match self {
            AnyArrivalQdisc::DropTail(q) => q.on_arrival(context, packet),
            AnyArrivalQdisc::Red(q) => {
                // RED's own context, built in its arm from what the link changes per packet,
                // with the limit and rate RED was built with. Handing RED's out-of-line call
                // the caller's context made `Link::enqueue` build all of it, and load every
                // field, for every packet of every link, drop-tail's included (callgrind on
                // bench-newreno-100mbps.toml: 3.4 % more instructions than without RED; 1.5 %
                // this way, the rest being the discriminant test and fields drop-tail's arm
                // reads only when the transmitter is busy).
                let context = ArrivalContext {
                    limit: q.limit,
                    rate_bps: q.rate_bps,
                    ..*context
                };
                q.on_arrival(&context, packet)
            }
        }
    }
}

/// The dequeue-deciding disciplines.
#[derive(Clone, Debug)]
pub enum AnyScheduledQdisc {
    // Boxed, as RED is: the link holds its discipline inline (four access links per flow),
    // and drop-tail's fast path should not carry the larger disciplines' state.
    Codel(Box<Codel>),
    FqCodel(Box<FqCodel>),
    Pie(Box<Pie>),
    DualPi2(Box<DualPi2>),
    Xcp(Box<Xcp>),
    Vcp(Box<Vcp>),
    /// A FIFO run through the scheduled path, to check that path against drop-tail.
    #[cfg(test)]
    TestFifo(fifo::Fifo),
}

impl ScheduledQdisc for AnyScheduledQdisc {
    fn enqueue(&mut self, now: SimTime, packet: Packet) -> Result<(), (Packet, DropReason)> {
        match self {
            AnyScheduledQdisc::Codel(q) => q.enqueue(now, packet),
            AnyScheduledQdisc::FqCodel(q) => q.enqueue(now, packet),
            AnyScheduledQdisc::Pie(q) => q.enqueue(now, packet),
            AnyScheduledQdisc::DualPi2(q) => q.enqueue(now, packet),
            AnyScheduledQdisc::Xcp(q) => q.enqueue(now, packet),
            AnyScheduledQdisc::Vcp(q) => q.enqueue(now, packet),
            #[cfg(test)]
            AnyScheduledQdisc::TestFifo(q) => q.enqueue(now, packet),
        }
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Dequeued> {
        match self {
            AnyScheduledQdisc::Codel(q) => q.dequeue(now, dropped),
            AnyScheduledQdisc::FqCodel(q) => q.dequeue(now, dropped),
            AnyScheduledQdisc::Pie(q) => q.dequeue(now, dropped),
            AnyScheduledQdisc::DualPi2(q) => q.dequeue(now, dropped),
            AnyScheduledQdisc::Xcp(q) => q.dequeue(now, dropped),
            AnyScheduledQdisc::Vcp(q) => q.dequeue(now, dropped),
            #[cfg(test)]
            AnyScheduledQdisc::TestFifo(q) => q.dequeue(now, dropped),
        }
    }

    fn backlog(&self) -> (u64, u64) {
        match self {
            AnyScheduledQdisc::Codel(q) => q.backlog(),
            AnyScheduledQdisc::FqCodel(q) => q.backlog(),
            AnyScheduledQdisc::Pie(q) => q.backlog(),
            AnyScheduledQdisc::DualPi2(q) => q.backlog(),
            AnyScheduledQdisc::Xcp(q) => q.backlog(),
            AnyScheduledQdisc::Vcp(q) => q.backlog(),
            #[cfg(test)]
            AnyScheduledQdisc::TestFifo(q) => q.backlog(),
        }
    }

    fn ce_marks(&self) -> u64 {
        match self {
            AnyScheduledQdisc::Codel(q) => q.ce_marks(),
            AnyScheduledQdisc::FqCodel(q) => q.ce_marks(),
            AnyScheduledQdisc::Pie(q) => q.ce_marks(),
            AnyScheduledQdisc::DualPi2(q) => q.ce_marks(),
            AnyScheduledQdisc::Xcp(q) => q.ce_marks(),
            AnyScheduledQdisc::Vcp(q) => q.ce_marks(),
            #[cfg(test)]
            AnyScheduledQdisc::TestFifo(q) => q.ce_marks(),
        }
    }
}

/// A link's queue discipline, of either family.
#[derive(Clone, Debug)]
pub enum Qdisc {
    Arrival(AnyArrivalQdisc),
    Scheduled(AnyScheduledQdisc),
}

/// What a discipline may need from its link when it is built.
#[derive(Clone, Debug)]
pub struct QdiscEnv {
    pub limit: BufferLimit,
    pub rate_bps: u64,
    /// Wire bytes of a full data packet of the scenario (RED's mean packet size by default).
    pub packet_bytes: u64,
    /// The discipline's own random stream.
    pub rng: Rng,
}

impl Qdisc {
    /// The discipline a scenario asks for. `ecn_threshold` is drop-tail's step marking.
    pub fn build(config: &QueueDiscipline, ecn_threshold: Option<u64>, mut env: QdiscEnv) -> Qdisc {
        match config {
            QueueDiscipline::DropTail => {
                Qdisc::Arrival(AnyArrivalQdisc::DropTail(DropTail { ecn_threshold }))
            }
            QueueDiscipline::Red(red) => {
                Qdisc::Arrival(AnyArrivalQdisc::Red(Box::new(Red::new(red, env))))
            }
            QueueDiscipline::Xcp(xcp) => Qdisc::Scheduled(AnyScheduledQdisc::Xcp(Box::new(
                Xcp::new(xcp, env.limit, env.rate_bps, ecn_threshold),
            ))),
            QueueDiscipline::Vcp(vcp) => Qdisc::Scheduled(AnyScheduledQdisc::Vcp(Box::new(
                Vcp::new(vcp, env.limit, env.rate_bps, ecn_threshold),
            ))),
            QueueDiscipline::Codel(codel) => Qdisc::Scheduled(AnyScheduledQdisc::Codel(Box::new(
                Codel::new(codel, env.limit, env.packet_bytes),
            ))),
            QueueDiscipline::FqCodel(fq_codel) => {
                Qdisc::Scheduled(AnyScheduledQdisc::FqCodel(Box::new(FqCodel::new(
                    fq_codel,
                    env.limit,
                    env.packet_bytes,
                    env.rng.next_u64(),
                ))))
            }
            QueueDiscipline::Pie(pie) => Qdisc::Scheduled(AnyScheduledQdisc::Pie(Box::new(
                Pie::new(pie.clone(), env.limit, env.packet_bytes, env.rng),
            ))),
            QueueDiscipline::DualPi2(dualpi2) => {
                Qdisc::Scheduled(AnyScheduledQdisc::DualPi2(Box::new(DualPi2::new(
                    dualpi2.clone(),
                    env.limit,
                    env.packet_bytes,
                    env.rng,
                ))))
            }
        }
    }
}
