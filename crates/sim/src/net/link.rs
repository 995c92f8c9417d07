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
//! and costs one event per packet per hop.
//!
//! A scheduled discipline (CoDel, PIE, FQ-CoDel, DualPI2: see [`super::qdisc`]) decides at
//! dequeue, so departures are not known at arrival. The link then hands every arrival to the
//! discipline and asks it for the next packet whenever the transmitter is free: at once if it
//! is idle when a packet arrives, otherwise when the transmission in progress ends (the
//! simulation's `Event::LinkTransmitted`). The transmitted packet then enters the same
//! propagation FIFO. This costs a second event per packet, on those links only.

use cclab_cc::{SimDuration, SimTime};

use super::fifo::Fifo;
use super::jitter::{JitterProcess, ReorderingWire};
use super::loss::LossProcess;
pub use super::qdisc::DropReason;
use super::qdisc::{
    AnyArrivalQdisc, AnyScheduledQdisc, ArrivalContext, ArrivalQdisc, BufferLimit, Dequeued,
    DropTail, Qdisc, ScheduledQdisc, Verdict,
};
use super::trace::TraceTransmitter;
use super::wifi::{Aggregate, WifiCounters, WifiQueue};
use crate::event::{Event, Precedence};
use crate::histogram::Histogram;
use crate::packet::{Packet, PacketKind};
use crate::serialization::Serialization;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// The packet will reach the far end at this time. `first_in_flight`: the caller must
    /// schedule a delivery event then (the propagation FIFO was empty, or the link's jitter
    /// may reorder packets, and each then has its own delivery event).
    Admitted {
        arrival: SimTime,
        first_in_flight: bool,
    },
    Dropped(DropReason),
    /// A scheduled discipline took the packet (or dropped it, or other packets): the caller
    /// collects what happened with [`Link::take_service`].
    Scheduled,
}

/// What a scheduled discipline's link did at one instant, for the caller to act on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Service {
    /// A transmission started and ends at this time: the caller schedules
    /// `Event::LinkTransmitted` then, to serve the next packet.
    pub transmission_end: Option<SimTime>,
    /// The packet sent needs a delivery event at this time (as `first_in_flight`).
    pub first_arrival: Option<SimTime>,
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
    /// Each packet's time in the queue (nanoseconds), from its arrival to the start of its
    /// transmission; 0 for one that found the transmitter idle. Reported links only.
    pub queue_delay: Histogram,
    /// A Wi-Fi direction's MAC counters (all zero on a wired link).
    pub wifi: WifiCounters,
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
            queue_delay: self.queue_delay.since(&earlier.queue_delay),
            wifi: self.wifi.since(&earlier.wifi),
        }
    }
}

/// A link's delay jitter and, when it may reorder, the wire where packets overtake.
struct Jitter {
    process: JitterProcess,
    wire: ReorderingWire,
}

/// The discipline of a link of the scheduled family; its methods are called only there.
fn scheduled(qdisc: &mut Qdisc) -> &mut AnyScheduledQdisc {
    match qdisc {
        Qdisc::Scheduled(qdisc) => qdisc,
        Qdisc::Arrival(_) => unreachable!("called for the scheduled family only"),
    }
}

/// A link's two loss processes, one per packet kind.
#[derive(Clone, Debug)]
struct LinkLoss {
    data_loss: LossProcess,
    ack_loss: LossProcess,
}

/// A one-way link. What every link has inline is what a flow's access link uses: the
/// transmitter's schedule and the wire (and a folded link's entry times). The rest (the
/// queue, its discipline, statistics and name, the loss, jitter, trace and Wi-Fi parts) is
/// in [`Queue`], boxed, which a compact link does without.
///
/// A compact link ([`Link::compact`]) is a flow's access link of unlimited buffer with no
/// loss: drop-tail with nothing to decide at admission, nothing to draw, and nothing that
/// reads its queue (access links are never reported, and their drops are named by role), so
/// it is always lean. With 100 000 flows of four access links each, the full link's 608
/// bytes were 2.4 kB of an idle flow's 4.8 (docs/performance.md, "Memory per idle flow").
pub struct Link {
    rate_bps: u64,
    delay: SimDuration,
    /// When the transmitter finishes the last admitted packet.
    busy_until: SimTime,
    /// Sub-nanosecond remainder of back-to-back serialization times, in units of
    /// 1/rate_bps ns, so that long trains do not drift (rounding is not cumulative).
    carry: u64,
    /// The serialization time of the packet size seen last, for [`serialization`].
    serialized: Serialization,
    /// Packets on the wire, in arrival order: (arrival time at the far end, packet).
    in_flight: Fifo<(SimTime, Packet)>,
    /// A folded link's packets on the wire, in order: when each entered the link (the time at
    /// which the unfolded chain would have admitted it), and the precedence its delivery event
    /// would have had if the wire had been empty then.
    entered: Fifo<(SimTime, Precedence)>,
    /// A link that hands packets to a folded link: when the last one it handed on left it, and
    /// the precedence its unfolded delivery event would have had.
    passed_until: SimTime,
    passed_precedence: Precedence,
    /// Everything else; `None` on a compact link.
    queue: Option<Box<Queue>>,
    /// The link does not take drop-tail's fast path: its discipline is of the scheduled
    /// family, it is a trace link, or a Wi-Fi direction. One flag, tested once per packet,
    /// so that the rare kinds cost the fast path no more than the scheduled family alone did.
    off_fast_path: bool,
    /// It has delay jitter (its delivery event is `JitteredDelivery`): a copy of
    /// `queue.jitter.is_some()` kept inline, as every first packet on a wire asks it.
    jittered: bool,
    /// Nothing observes its queue and nothing there depends on it (`crate::folding`: not
    /// reported, drop-tail with no limit and no ECN threshold, no loss, jitter or trace):
    /// admission keeps the transmitter's schedule only, not the queue's statistics. A
    /// compact link is always lean ([`Link::set_lean`]).
    lean: bool,
    /// Its packets are admitted ahead of time, when they enter the link before it
    /// (`crate::folding`): it has one upstream link, which hands it every packet in order.
    pub(crate) folded: bool,
    /// One flow's paths and no other's cross it (an access link): its buffers are given back
    /// when that flow is done (`Simulation::release_finished_flows`).
    pub(crate) one_flow: bool,
}

/// The parts of a link that a compact one does without: its queue with its discipline and
/// statistics, its name, and the rarer kinds' state.
struct Queue {
    name: String,
    limit: BufferLimit,
    qdisc: Qdisc,
    /// Random loss of data segments and of ACKs, drawn after serialization; `None` on a link
    /// that loses nothing (most of them), which keeps the fast path to one test.
    loss: Option<Box<LinkLoss>>,
    /// Admitted packets whose transmission has not started: (start time, wire bytes).
    waiting: Fifo<(SimTime, u32)>,
    waiting_bytes: u64,
    /// Delay jitter, if any: boxed, to keep it off the fast path's cache lines.
    jitter: Option<Box<Jitter>>,
    /// A trace-driven link's delivery schedule, which replaces the serialization time
    /// (`kind = "trace"`); boxed, and reached off the wired fast path only.
    trace: Option<Box<TraceTransmitter>>,
    /// Scheduled disciplines only: packets dropped (by the discipline or at random) and the
    /// transmission started since the caller last collected them (`take_service`).
    dropped: Vec<(Packet, DropReason)>,
    service: Service,
    /// Keep `stats.queue_time_ns` and `stats.queue_delay` (the reported links only: they
    /// cost a memory write per queue change and per packet).
    track_queue_time: bool,
    /// A direction of a Wi-Fi link: its frames wait here for the shared medium
    /// (`net::wifi`), which sends them instead of a transmitter of fixed rate. Boxed, to keep
    /// it off wired links' cache lines.
    wifi: Option<Box<WifiQueue>>,
    stats: LinkStats,
}

/// What [`Link::name`] says of a compact link: access links are named by their role in every
/// output (`net::network::drop_location`), never by name.
const COMPACT_NAME: &str = "(an access link)";

/// Serialization time of `bytes` at `rate_bps`, carrying the sub-nanosecond remainder when
/// the transmitter works back to back (without a division per packet:
/// `crate::serialization`). A function of the transmitter's fields, so that it can be called
/// while the link's queue is borrowed.
#[inline(always)]
fn serialization(
    serialized: &mut Serialization,
    carry: &mut u64,
    rate_bps: u64,
    bytes: u32,
    back_to_back: bool,
) -> SimDuration {
    if !back_to_back {
        *carry = 0;
    }
    serialized.time(bytes as u64, rate_bps, carry)
}

impl Queue {
    fn new(name: String, limit: BufferLimit, loss: Option<Box<LinkLoss>>) -> Self {
        Queue {
            name,
            limit,
            qdisc: Qdisc::Arrival(AnyArrivalQdisc::DropTail(DropTail::default())),
            loss,
            waiting: Fifo::new(),
            waiting_bytes: 0,
            jitter: None,
            trace: None,
            dropped: Vec::new(),
            service: Service::default(),
            track_queue_time: false,
            wifi: None,
            stats: LinkStats::default(),
        }
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
        self.integrate_with(t, self.waiting.len());
    }

    /// Extend the queue statistics to `t`, during which `waiting` packets waited.
    #[inline(always)]
    fn integrate_with(&mut self, t: SimTime, waiting: usize) {
        if t > self.stats.integrated_until {
            let span = (t - self.stats.integrated_until).as_nanos();
            self.stats.queue_integral += span as u128 * waiting as u128;
            if self.track_queue_time {
                self.stats.queue_time_ns[waiting] += span;
            }
            self.stats.integrated_until = t;
        }
    }

    /// Queue occupancy at `now` (packets, bytes), excluding the packet being transmitted.
    fn queue_at(&mut self, now: SimTime) -> (u64, u64) {
        if let Some(wifi) = &self.wifi {
            let waiting = wifi.waiting();
            self.integrate_with(now, waiting.0 as usize);
            return waiting;
        }
        if let Qdisc::Scheduled(qdisc) = &self.qdisc {
            let backlog = qdisc.backlog();
            self.integrate_with(now, backlog.0 as usize);
            return backlog;
        }
        self.advance(now);
        (self.waiting.len() as u64, self.waiting_bytes)
    }

    /// A new queue length was reached: keep the maximum, and room to record time at it.
    #[inline(always)]
    fn note_queue_length(&mut self, waiting: usize) {
        if waiting as u64 > self.stats.max_queue_pkts {
            self.stats.max_queue_pkts = waiting as u64;
            if self.track_queue_time && waiting >= self.stats.queue_time_ns.len() {
                // Amortized doubling: a handful of allocations per run, not per packet.
                let len = (2 * self.stats.queue_time_ns.len()).max(waiting + 1);
                self.stats.queue_time_ns.resize(len, 0);
            }
        }
    }

    /// A trace link's transmission of a packet that arrived at `arrival` and starts at
    /// `start` (the transmitter is free): when it ends, and the busy time it used.
    #[cold]
    #[inline(never)]
    fn trace_transmit(
        &mut self,
        start: SimTime,
        arrival: SimTime,
        bytes: u32,
    ) -> (SimTime, SimDuration) {
        let Some(trace) = self.trace.as_deref_mut() else {
            unreachable!("called only for a trace link")
        };
        let transmission = trace.transmit(start, arrival, bytes);
        (transmission.end, transmission.busy)
    }

    /// Does the loss process of this packet kind lose it? Counted as a random loss if so.
    /// Out of line: most links lose nothing and never call it.
    #[inline(never)]
    fn lose(&mut self, kind: PacketKind) -> bool {
        let Some(losses) = self.loss.as_deref_mut() else {
            return false;
        };
        // SYNs take the data direction's loss process, SYN-ACKs and FINs the ACKs'.
        let loss = if kind.is_forward() {
            &mut losses.data_loss
        } else {
            &mut losses.ack_loss
        };
        let lost = !loss.is_none() && loss.lose();
        if lost {
            self.stats.random_losses += 1;
        }
        lost
    }

    fn count_discipline_drop(&mut self, reason: DropReason) {
        match reason {
            DropReason::Overflow => self.stats.overflow_drops += 1,
            DropReason::RandomLoss => self.stats.random_losses += 1,
            DropReason::Forced => self.stats.forced_drops += 1,
            DropReason::Aqm => self.stats.aqm_drops += 1,
        }
    }

    /// The queue after an instant's work: its length is what lasts (a packet that arrives
    /// to an idle transmitter passes through the discipline without waiting).
    fn after_service(&mut self) {
        let qdisc = scheduled(&mut self.qdisc);
        let waiting = qdisc.backlog().0 as usize;
        self.stats.ce_marks = qdisc.ce_marks();
        self.note_queue_length(waiting);
    }

    /// This Wi-Fi direction's queue.
    fn wifi_queue(&mut self) -> &mut WifiQueue {
        self.wifi
            .as_deref_mut()
            .expect("the Wi-Fi medium holds the links it built as Wi-Fi directions")
    }
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
        let loss = (!(data_loss.is_none() && ack_loss.is_none())).then(|| {
            Box::new(LinkLoss {
                data_loss,
                ack_loss,
            })
        });
        let mut link = Link::compact(rate_bps, delay);
        link.queue = Some(Box::new(Queue::new(name, limit, loss)));
        link.lean = false;
        link
    }

    /// A compact link (see [`Link`]): a flow's access link of unlimited buffer that loses
    /// nothing, with no name, no queue statistics and no room for a discipline. Lean from
    /// the start; [`Link::set_lean`] gives it the rest if it must keep its queue after all.
    pub fn compact(rate_bps: u64, delay: SimDuration) -> Self {
        assert!(
            rate_bps > 0,
            "access link: rate must be positive (validated by the scenario)"
        );
        Link {
            rate_bps,
            delay,
            busy_until: SimTime::ZERO,
            carry: 0,
            serialized: Serialization::new(rate_bps),
            in_flight: Fifo::new(),
            entered: Fifo::new(),
            passed_until: SimTime::ZERO,
            passed_precedence: Precedence::default(),
            queue: None,
            off_fast_path: false,
            jittered: false,
            lean: true,
            folded: false,
            one_flow: false,
        }
    }

    /// Is it compact: no queue, statistics or name of its own?
    pub fn is_compact(&self) -> bool {
        self.queue.is_none()
    }

    /// The link's queue: every link but a compact one has it, and a compact link is lean,
    /// so only the paths of links that are not lean (or the rare kinds) reach here.
    #[inline(always)]
    fn q(&mut self) -> &mut Queue {
        match self.queue.as_deref_mut() {
            Some(queue) => queue,
            None => unreachable!("a compact link is lean and keeps no queue"),
        }
    }

    /// `q` for reading.
    #[inline(always)]
    fn q_ref(&self) -> &Queue {
        match self.queue.as_deref() {
            Some(queue) => queue,
            None => unreachable!("a compact link is lean and keeps no queue"),
        }
    }

    /// Its name (unique within a network); a compact link's says what it is.
    pub fn name(&self) -> &str {
        self.queue.as_deref().map_or(COMPACT_NAME, |q| &q.name)
    }

    /// Its counters over the run. Not for a compact link, which counts nothing: only the
    /// reported links' (and links in tests) are read.
    pub fn stats(&self) -> &LinkStats {
        &self
            .queue
            .as_deref()
            .expect("a compact link keeps no statistics (only reported links are read)")
            .stats
    }

    /// [`Link::stats`] to change (the Wi-Fi medium counts its transmissions there).
    pub(crate) fn stats_mut(&mut self) -> &mut LinkStats {
        &mut self.q().stats
    }

    /// The bytes a link that is not compact holds besides [`Link`] itself: its boxed queue
    /// (for the per-flow memory estimate's test).
    #[cfg(test)]
    pub(crate) fn queue_bytes() -> usize {
        std::mem::size_of::<Queue>()
    }

    /// Make admission lean or not. A compact link that must keep its queue after all (a
    /// `drop` list on it, or a test that runs every hop in full) gets the parts it was built
    /// without, before any packet: the queue of a full link of unlimited buffer that loses
    /// nothing, which it is.
    pub(crate) fn set_lean(&mut self, lean: bool) {
        debug_assert!(!lean || self.can_be_lean(), "only a link that can be lean");
        if !lean && self.queue.is_none() {
            let unlimited = BufferLimit {
                packets: None,
                bytes: None,
            };
            self.queue = Some(Box::new(Queue::new(COMPACT_NAME.into(), unlimited, None)));
        }
        self.lean = lean;
    }

    /// Record the time spent at each queue length (`stats.queue_time_ns`) and each packet's
    /// queueing delay (`stats.queue_delay`), for percentiles.
    pub fn track_queue_time(mut self) -> Self {
        let q = self.q();
        q.track_queue_time = true;
        let initial = q.limit.packets.map_or(1, |p| p as usize + 1).min(1 << 16);
        q.stats.queue_time_ns = vec![0; initial];
        self
    }

    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    pub fn delay(&self) -> SimDuration {
        self.delay
    }

    /// Queue occupancy at `now` (packets, bytes), excluding the packet being transmitted.
    pub fn queue_at(&mut self, now: SimTime) -> (u64, u64) {
        self.q().queue_at(now)
    }

    /// Send packets at the delivery opportunities of `trace` instead of serializing them
    /// at the link's rate (which stays the trace's mean rate, for estimates).
    pub fn with_trace(mut self, trace: Option<TraceTransmitter>) -> Self {
        self.q().trace = trace.map(Box::new);
        self.note_path();
        self
    }

    /// Drop a packet before it reaches the queue (scenario `drop` list).
    pub fn force_drop(&mut self) -> Admission {
        self.q().stats.forced_drops += 1;
        Admission::Dropped(DropReason::Forced)
    }

    /// The event that delivers this link's packets: jitter has its own.
    pub fn delivery_event(&self, id: u32) -> Event {
        if self.jittered {
            Event::JitteredDelivery(id)
        } else {
            Event::LinkDelivery(id)
        }
    }

    /// Replace the queue discipline (drop-tail by default).
    pub fn with_qdisc(mut self, qdisc: Qdisc) -> Self {
        self.q().qdisc = qdisc;
        self.note_path();
        self
    }

    /// Whether `enqueue` leaves the wired arrival family's path (a scheduled discipline, a
    /// trace or a Wi-Fi direction), after the discipline or kind changed.
    fn note_path(&mut self) {
        let q = self.q_ref();
        let off_fast_path =
            matches!(q.qdisc, Qdisc::Scheduled(_)) || q.trace.is_some() || q.wifi.is_some();
        self.off_fast_path = off_fast_path;
        // `admit` takes a lean link's path before looking at `off_fast_path`.
        self.lean &= self.can_be_lean();
    }

    /// Swap the discipline of a link already built (tests run a scenario's bottleneck with a
    /// test-only discipline).
    #[cfg(test)]
    pub(crate) fn replace_qdisc(&mut self, qdisc: Qdisc) {
        self.q().qdisc = qdisc;
        self.note_path();
    }

    /// Offer `packet` to the link at `now`.
    pub fn enqueue(&mut self, now: SimTime, mut packet: Packet) -> Admission {
        self.admit(now, &mut packet)
    }

    /// [`Link::enqueue`] of a packet where it lies: copied once, onto the wire (the
    /// simulation's forwarding path passes it along by reference).
    ///
    /// A lean link's admission (a flow's access link: a serialization and a push onto the
    /// wire) is inlined into the caller; out of line, its call saved and restored six
    /// registers, returned the admission through memory and copied the packet through the
    /// stack, about a third of its 95 instructions (callgrind, docs/performance.md). A lean
    /// link is on the fast path (`can_be_lean`, and `note_path` clears `lean` otherwise).
    #[inline(always)]
    pub(crate) fn admit(&mut self, now: SimTime, packet: &mut Packet) -> Admission {
        if self.lean {
            return self.enqueue_lean::<false>(now, packet);
        }
        self.admit_full(now, packet)
    }

    /// [`Link::admit`] on a link that keeps its queue's statistics, or off the fast path.
    #[inline(never)]
    fn admit_full(&mut self, now: SimTime, packet: &mut Packet) -> Admission {
        if self.off_fast_path {
            return self.enqueue_off_fast_path(now, *packet);
        }
        self.enqueue_arrival::<false, false>(now, packet)
    }

    /// Can this link be folded (`crate::folding`): is each packet's exit known when it is
    /// admitted, with nothing drawn at the hop? A fixed-rate drop-tail wire with no loss
    /// process, no jitter, no trace and no Wi-Fi. (Its drop-tail queue may overflow: see
    /// [`Link::may_overflow`].) A compact link is one.
    pub(crate) fn can_fold(&self) -> bool {
        let Some(q) = self.queue.as_deref() else {
            return true;
        };
        !self.off_fast_path
            && q.loss.is_none()
            && q.jitter.is_none()
            && matches!(q.qdisc, Qdisc::Arrival(AnyArrivalQdisc::DropTail(_)))
    }

    /// Does its queue have a limit, so that a packet may be dropped on arrival?
    pub(crate) fn may_overflow(&self) -> bool {
        self.queue
            .as_deref()
            .is_some_and(|q| q.limit.packets.is_some() || q.limit.bytes.is_some())
    }

    /// Can admission skip the queue's bookkeeping if nothing reads its statistics: a link
    /// that can fold, with no limit and no ECN threshold, where the packets waiting decide
    /// nothing?
    pub(crate) fn can_be_lean(&self) -> bool {
        let Some(q) = self.queue.as_deref() else {
            return true;
        };
        self.can_fold()
            && !self.may_overflow()
            && matches!(
                q.qdisc,
                Qdisc::Arrival(AnyArrivalQdisc::DropTail(DropTail {
                    ecn_threshold: None
                }))
            )
    }

    /// Can this link hand its packets straight to a folded link: is each packet's exit known
    /// at admission and are packets never reordered (the wired arrival family without
    /// jitter)? It may still drop at admission (overflow, AQM, random loss).
    pub(crate) fn can_pass(&self) -> bool {
        !self.off_fast_path && !self.jittered
    }

    /// Admit `packet` at `now` without putting it on the wire: its next link is folded and
    /// takes it when it leaves this link's far end. Returns that time, and the precedence this
    /// link's delivery event for it would have had: `by`'s (that of an event scheduled by the
    /// admitting event) if the wire was empty, else that of one scheduled by the delivery of
    /// the packet ahead. The queue may have changed the packet (an ECN mark).
    ///
    /// Inlined into `offer_passing`'s two calls: out of line, its 40-byte result went through
    /// memory and the call saved and restored registers, about 90 instructions per packet
    /// (callgrind, one CUBIC flow at 1 Gbit/s).
    #[inline(always)]
    pub(crate) fn enqueue_passing(
        &mut self,
        now: SimTime,
        by: Precedence,
        packet: &mut Packet,
    ) -> Result<(SimTime, Precedence), DropReason> {
        debug_assert!(
            self.can_pass(),
            "link {}: cannot pass packets on",
            self.name()
        );
        match self.enqueue_arrival::<false, true>(now, packet) {
            Admission::Admitted { arrival, .. } => {
                let precedence = if now >= self.passed_until {
                    by
                } else {
                    self.passed_precedence.child_at(self.passed_until)
                };
                self.passed_until = arrival;
                self.passed_precedence = precedence;
                Ok((arrival, precedence))
            }
            Admission::Dropped(reason) => Err(reason),
            Admission::Scheduled => unreachable!("the arrival family never schedules"),
        }
    }

    /// Admit `packet` to this folded link at `entered`, the time it reaches the link (ahead of
    /// the current time), and put it on the wire. `Admitted::first_in_flight` says the caller
    /// must schedule its delivery, as [`Link::enqueue`]'s does.
    /// `by`: the precedence of an event scheduled by the delivery of the link before (the
    /// packet's delivery event here, if the wire is empty when it enters).
    #[inline]
    pub(crate) fn enqueue_folded(
        &mut self,
        entered: SimTime,
        by: Precedence,
        packet: &mut Packet,
    ) -> Admission {
        debug_assert!(self.folded, "link {}: not folded", self.name());
        let admission = self.enqueue_arrival::<false, false>(entered, packet);
        if let Admission::Admitted { .. } = admission {
            self.entered.push_back_pair(entered, &by);
        }
        admission
    }

    /// [`Link::take_delivered`] on a folded link: the packet delivered now. Then
    /// [`Link::next_folded_arrival`] tells when the next one is due.
    #[inline(always)]
    pub(crate) fn take_folded(&mut self, now: SimTime) -> Packet {
        let packet = self.take_delivered(now);
        self.entered.pop_front();
        packet
    }

    /// After [`Link::take_folded`]: the next packet's arrival with the precedence of its
    /// unfolded delivery event: `now_precedence` (an event scheduled by the delivery under
    /// way) if the packet delivered now was the one ahead of it on the wire, else the one it
    /// entered with (it would have found the wire empty).
    #[inline(always)]
    pub(crate) fn next_folded_arrival(
        &self,
        now: SimTime,
        now_precedence: Precedence,
    ) -> Option<(SimTime, Precedence)> {
        self.next_arrival()
            .map(|arrival| match self.entered.front() {
                Some(&(entered, by)) if entered > now => (arrival, by),
                _ => (arrival, now_precedence),
            })
    }

    /// `enqueue` on a Wi-Fi direction, a link of the scheduled family or a trace link, out of
    /// line so that the wired arrival family's path stays as it was.
    #[inline(never)]
    fn enqueue_off_fast_path(&mut self, now: SimTime, mut packet: Packet) -> Admission {
        let q = self.q_ref();
        if q.wifi.is_some() {
            return self.enqueue_wifi(now, packet);
        }
        if matches!(q.qdisc, Qdisc::Scheduled(_)) {
            return self.enqueue_scheduled(now, packet);
        }
        self.enqueue_arrival::<true, false>(now, &mut packet)
    }

    /// `enqueue` for the arrival family (drop-tail, RED): the departure is known at
    /// admission, from the transmitter's rate or (`TRACE`) the link's delivery schedule.
    /// `PASS`: the packet is not put on the wire (its next link is folded and takes it).
    #[inline(always)]
    fn enqueue_arrival<const TRACE: bool, const PASS: bool>(
        &mut self,
        now: SimTime,
        packet: &mut Packet,
    ) -> Admission {
        if !TRACE && self.lean {
            return self.enqueue_lean::<PASS>(now, packet);
        }
        let Some(q) = self.queue.as_deref_mut() else {
            unreachable!("a compact link is lean")
        };
        q.advance(now);
        let busy = self.busy_until > now;
        let Qdisc::Arrival(qdisc) = &mut q.qdisc else {
            unreachable!("the scheduled family returned above")
        };
        let context = ArrivalContext {
            now,
            waiting_packets: q.waiting.len() as u64,
            waiting_bytes: q.waiting_bytes,
            transmitter_busy: busy,
            idle_since: (!busy).then_some(self.busy_until),
            rate_bps: self.rate_bps,
            limit: q.limit,
        };
        let ecn_before = packet.ecn;
        match qdisc.on_arrival(&context, packet) {
            Verdict::Admit => {}
            Verdict::Drop(reason) => {
                match reason {
                    DropReason::Overflow => q.stats.overflow_drops += 1,
                    _ => q.stats.aqm_drops += 1,
                }
                return Admission::Dropped(reason);
            }
        }
        if packet.ecn != ecn_before {
            q.stats.ce_marks += 1;
        }
        let start = if busy { self.busy_until } else { now };
        if q.track_queue_time {
            // First in, first out: the wait is known at admission.
            q.stats.queue_delay.record((start - now).as_nanos());
        }
        let (end, transmission) = if TRACE {
            q.trace_transmit(start, now, packet.wire_bytes)
        } else {
            let transmission = serialization(
                &mut self.serialized,
                &mut self.carry,
                self.rate_bps,
                packet.wire_bytes,
                busy,
            );
            (start + transmission, transmission)
        };
        self.busy_until = end;
        q.stats.packets += 1;
        q.stats.bytes += packet.wire_bytes as u64;
        q.stats.busy += transmission;
        if busy {
            q.waiting.push_back((start, packet.wire_bytes));
            q.waiting_bytes += packet.wire_bytes as u64;
            q.note_queue_length(q.waiting.len());
        }
        // Random loss strikes on the wire: the packet used the transmitter, then vanished.
        if q.loss.is_some() && q.lose(packet.kind) {
            return Admission::Dropped(DropReason::RandomLoss);
        }
        let arrival = self.busy_until + self.delay;
        if PASS {
            return Admission::Admitted {
                arrival,
                first_in_flight: false,
            };
        }
        if self.jittered {
            let (arrival, first_in_flight) = self.propagate_jittered(arrival, *packet);
            return Admission::Admitted {
                arrival,
                first_in_flight,
            };
        }
        let first_in_flight = self.in_flight.is_empty();
        self.in_flight.push_back_pair(arrival, packet);
        Admission::Admitted {
            arrival,
            first_in_flight,
        }
    }

    /// `enqueue_arrival` on a lean link: the transmitter's schedule (and with it the
    /// packet's exit and TCP Small Queues' view of the host queue) exactly as the full
    /// admission keeps it, without the queue's statistics, which nothing reads (nor its
    /// counts of packets, bytes and busy time: a lean link is not reported).
    #[inline(always)]
    fn enqueue_lean<const PASS: bool>(&mut self, now: SimTime, packet: &mut Packet) -> Admission {
        let busy = self.busy_until > now;
        let start = if busy { self.busy_until } else { now };
        let transmission = serialization(
            &mut self.serialized,
            &mut self.carry,
            self.rate_bps,
            packet.wire_bytes,
            busy,
        );
        self.busy_until = start + transmission;
        let arrival = self.busy_until + self.delay;
        if PASS {
            return Admission::Admitted {
                arrival,
                first_in_flight: false,
            };
        }
        let first_in_flight = self.in_flight.is_empty();
        self.in_flight.push_back_pair(arrival, packet);
        Admission::Admitted {
            arrival,
            first_in_flight,
        }
    }

    /// Put `packet`, whose transmission ends at `busy_until`, on the wire: its arrival time at
    /// the far end, and whether it needs its own delivery event. (Drop-tail's `enqueue` has
    /// this inlined by hand, so that the packet is copied once, straight into the FIFO.)
    fn propagate(&mut self, packet: Packet) -> (SimTime, bool) {
        let arrival = self.busy_until + self.delay;
        if self.jittered {
            return self.propagate_jittered(arrival, packet);
        }
        let first_in_flight = self.in_flight.is_empty();
        self.in_flight.push_back((arrival, packet));
        (arrival, first_in_flight)
    }

    /// `propagate` on a link with jitter, off the fast path.
    #[inline(never)]
    fn propagate_jittered(&mut self, arrival: SimTime, packet: Packet) -> (SimTime, bool) {
        let Some(jitter) = self.q().jitter.as_deref_mut() else {
            unreachable!("called only for a link with jitter")
        };
        let arrival = arrival + jitter.process.draw();
        if jitter.process.reorder {
            jitter.wire.push(arrival, packet);
            return (arrival, true);
        }
        // Order kept: no packet arrives before the one sent ahead of it.
        let arrival = self
            .in_flight
            .back()
            .map_or(arrival, |&(previous, _)| arrival.max(previous));
        let first_in_flight = self.in_flight.is_empty();
        self.in_flight.push_back((arrival, packet));
        (arrival, first_in_flight)
    }

    /// Add delay jitter (the scenario's `jitter`; none by default).
    pub fn with_jitter(mut self, jitter: Option<JitterProcess>) -> Self {
        self.jittered = jitter.is_some();
        self.q().jitter = jitter.map(|process| {
            Box::new(Jitter {
                process,
                wire: ReorderingWire::default(),
            })
        });
        self
    }

    /// Offer `packet` to a scheduled discipline at `now`, and serve it at once if the
    /// transmitter is free.
    #[inline(always)]
    fn enqueue_scheduled(&mut self, now: SimTime, packet: Packet) -> Admission {
        let q = self.q();
        let backlog = scheduled(&mut q.qdisc).backlog().0 as usize;
        q.integrate_with(now, backlog);
        // A transmission that ended exactly now frees the transmitter before this arrival is
        // considered, whichever of the two events the queue ran first (as drop-tail does: a
        // packet whose service starts now no longer waits). Its `LinkTransmitted` event, if
        // still pending, then finds the transmitter busy again and does nothing.
        if self.busy_until <= now && backlog > 0 {
            self.serve(now);
            // On a trace link a packet may fit in what is left of the opportunity at `now`
            // and leave at once: serve on until the transmitter is busy past `now` (on a
            // wire every transmission takes time, and this loop never runs).
            while self.q_ref().trace.is_some()
                && self.busy_until <= now
                && scheduled(&mut self.q().qdisc).backlog().0 > 0
            {
                let sent = self.q_ref().stats.packets;
                self.serve(now);
                if self.q_ref().stats.packets == sent {
                    break;
                }
            }
        }
        let q = self.q();
        if let Err((packet, reason)) = scheduled(&mut q.qdisc).enqueue(now, packet) {
            q.count_discipline_drop(reason);
            q.dropped.push((packet, reason));
        }
        if self.busy_until <= now {
            self.serve(now);
        }
        self.q().after_service();
        Admission::Scheduled
    }

    /// The transmission that ended at `now` (scheduled disciplines): send the next packet.
    pub fn on_transmitted(&mut self, now: SimTime) {
        // An arrival at this same instant may already have started the next transmission.
        if self.busy_until <= now {
            self.serve(now);
            self.q().after_service();
        }
    }

    /// A scheduled discipline's transmission that ends exactly at `now`, with packets
    /// waiting: start the next one now, before the link is sampled. Drop-tail counts a packet
    /// whose service starts at `now` as no longer waiting; without this, a sample taken at
    /// the very nanosecond a transmission ends (before its `LinkTransmitted` event, queued
    /// later at the same time) would count it as waiting. Returns whether it served; the
    /// caller then collects the service (`take_service`). Wi-Fi directions are the medium's.
    pub fn settle_transmission_at(&mut self, now: SimTime) -> bool {
        let Some(q) = self.queue.as_deref() else {
            return false;
        };
        let due = q.wifi.is_none()
            && self.busy_until == now
            && matches!(&q.qdisc, Qdisc::Scheduled(q) if q.backlog().0 > 0);
        if due {
            self.on_transmitted(now);
        }
        due
    }

    /// What the scheduled discipline did since the last call: the transmission started, if
    /// any, and (appended to `dropped`) the packets it or the wire dropped.
    pub fn take_service(&mut self, dropped: &mut Vec<(Packet, DropReason)>) -> Service {
        let q = self.q();
        dropped.append(&mut q.dropped);
        std::mem::take(&mut q.service)
    }

    /// The transmitter is free at `now`: ask the discipline for the next packet and send it.
    fn serve(&mut self, now: SimTime) {
        debug_assert!(
            self.busy_until <= now,
            "link {}: serving while busy",
            self.name()
        );
        let Some(q) = self.queue.as_deref_mut() else {
            unreachable!("a scheduled link keeps its queue")
        };
        let backlog = scheduled(&mut q.qdisc).backlog().0 as usize;
        q.integrate_with(now, backlog);
        let dropped_before = q.dropped.len();
        let next = scheduled(&mut q.qdisc).dequeue(now, &mut q.dropped);
        for i in dropped_before..q.dropped.len() {
            q.count_discipline_drop(q.dropped[i].1);
        }
        let Some(Dequeued {
            packet,
            enqueued_at,
        }) = next
        else {
            return;
        };
        // Back to back, as drop-tail's `busy`: the packet waited while the previous one was
        // being sent, and follows it without a gap.
        let back_to_back = enqueued_at < self.busy_until && self.busy_until == now;
        if q.track_queue_time {
            q.stats.queue_delay.record((now - enqueued_at).as_nanos());
        }
        let (end, transmission) = if q.trace.is_none() {
            let transmission = serialization(
                &mut self.serialized,
                &mut self.carry,
                self.rate_bps,
                packet.wire_bytes,
                back_to_back,
            );
            (now + transmission, transmission)
        } else {
            q.trace_transmit(now, enqueued_at, packet.wire_bytes)
        };
        self.busy_until = end;
        q.stats.packets += 1;
        q.stats.bytes += packet.wire_bytes as u64;
        q.stats.busy += transmission;
        q.service.transmission_end = Some(self.busy_until);
        if q.loss.is_some() && q.lose(packet.kind) {
            q.dropped.push((packet, DropReason::RandomLoss));
            return;
        }
        let (arrival, needs_event) = self.propagate(packet);
        if needs_event {
            self.q().service.first_arrival = Some(arrival);
        }
    }

    /// Take the packet that arrives at the far end at `now`; returns it and the arrival time
    /// of the next one, if any.
    /// For a link without jitter (`Event::LinkDelivery`); a link with jitter delivers through
    /// [`Link::deliver_jittered`] (`Event::JitteredDelivery`).
    #[inline]
    pub fn deliver(&mut self, now: SimTime) -> (Packet, Option<SimTime>) {
        let packet = self.take_delivered(now);
        (packet, self.next_arrival())
    }

    /// [`Link::deliver`]'s packet alone: the event loop asks for the next arrival apart
    /// ([`Link::next_arrival`]), as the pair returned made the compiler copy the 80-byte
    /// packet once more on its way to the forwarding (callgrind, docs/performance.md).
    #[inline(always)]
    pub(crate) fn take_delivered(&mut self, now: SimTime) -> Packet {
        debug_assert!(!self.jittered, "link {}: jittered", self.name());
        let (arrival, packet) = self
            .in_flight
            .pop_front()
            .expect("a delivery event is scheduled only while packets are in flight");
        debug_assert_eq!(
            arrival,
            now,
            "link {}: delivery at the wrong time",
            self.name()
        );
        packet
    }

    /// When the packet now first on the wire arrives at the far end, if there is one.
    #[inline(always)]
    pub(crate) fn next_arrival(&self) -> Option<SimTime> {
        self.in_flight.front().map(|&(t, _)| t)
    }

    /// `deliver` on a link with jitter, off the fast path.
    #[inline(never)]
    pub fn deliver_jittered(&mut self, now: SimTime) -> (Packet, Option<SimTime>) {
        let Some(jitter) = self.q().jitter.as_deref_mut() else {
            unreachable!("called only for a link with jitter")
        };
        let (arrival, packet, next) = if jitter.process.reorder {
            // One event per packet: the earliest packet on the wire arrives now.
            let (arrival, packet) = jitter
                .wire
                .pop()
                .expect("each packet on a reordering wire has its own delivery event");
            (arrival, packet, None)
        } else {
            let (arrival, packet) = self
                .in_flight
                .pop_front()
                .expect("a delivery event is scheduled only while packets are in flight");
            (arrival, packet, self.in_flight.front().map(|&(t, _)| t))
        };
        debug_assert_eq!(
            arrival,
            now,
            "link {}: delivery at the wrong time",
            self.name()
        );
        (packet, next)
    }

    /// Give back the memory of the empty queues of a link that only a finished flow uses:
    /// each keeps the capacity of the most packets it ever held (a ring does not shrink),
    /// which over four access links was about 1.7 kB of a finished flow's 7 kB.
    /// Capacity only: the link behaves the same.
    pub(crate) fn release_idle_buffers(&mut self) -> bool {
        let waiting_empty = self.queue.as_deref().is_none_or(|q| q.waiting.is_empty());
        let empty = waiting_empty && self.in_flight.is_empty() && self.entered.is_empty();
        if empty {
            if let Some(q) = self.queue.as_deref_mut() {
                q.waiting = Fifo::new();
            }
            self.in_flight = Fifo::new();
            self.entered = Fifo::new();
        }
        empty
    }

    /// How many entries its queues have room for (tests of `release_idle_buffers`).
    #[cfg(test)]
    pub(crate) fn buffer_capacity(&self) -> usize {
        let waiting = self.queue.as_deref().map_or(0, |q| q.waiting.capacity());
        waiting + self.in_flight.capacity() + self.entered.capacity()
    }

    /// Packets admitted and not yet delivered (queued, in transmission or propagating).
    pub fn packets_in_transit(&self) -> u64 {
        let held = match self.queue.as_deref() {
            None => 0,
            Some(q) => {
                let held = match &q.qdisc {
                    Qdisc::Arrival(_) => 0,
                    Qdisc::Scheduled(qdisc) => qdisc.backlog().0,
                };
                let reordering = q.jitter.as_ref().map_or(0, |j| j.wire.len());
                let wifi = q.wifi.as_ref().map_or(0, |w| w.held());
                held + reordering as u64 + wifi
            }
        };
        self.in_flight.len() as u64 + held
    }

    /// Time the transmitter needs at `now` to send everything admitted so far.
    pub fn backlog(&self, now: SimTime) -> SimDuration {
        let in_service = self.busy_until.saturating_since(now);
        match self.queue.as_deref().map(|q| &q.qdisc) {
            None | Some(Qdisc::Arrival(_)) => in_service,
            Some(Qdisc::Scheduled(qdisc)) => {
                let bytes = qdisc.backlog().1 as u128;
                let held = bytes * 8 * 1_000_000_000 / self.rate_bps as u128;
                in_service + SimDuration::from_nanos(held as u64)
            }
        }
    }

    /// Transmitter busy time within `[0, t]` (for utilization over a window ending at `t`).
    pub fn busy_until_time(&self, t: SimTime) -> SimDuration {
        let q = self.q_ref();
        if let Some(trace) = &q.trace {
            // Not contiguous: the credit of the packets that leave after `t`.
            return q.stats.busy.saturating_sub(trace.busy_after(t));
        }
        // Work scheduled beyond `t` is one contiguous busy period ending at busy_until.
        q.stats
            .busy
            .saturating_sub(self.busy_until.saturating_since(t))
    }

    // --- A direction of a Wi-Fi link (`net::wifi`): the medium sends, not the link ---

    /// Make this link a direction of a Wi-Fi medium, with `queue` as its queue.
    pub fn with_wifi(mut self, queue: WifiQueue) -> Self {
        self.q().wifi = Some(Box::new(queue));
        self.note_path();
        self
    }

    /// Offer `packet` to a Wi-Fi direction's queue at `now`; the medium sends it later.
    #[cold]
    #[inline(never)]
    fn enqueue_wifi(&mut self, now: SimTime, packet: Packet) -> Admission {
        let q = self.q();
        let waiting = q.wifi_queue().waiting().0 as usize;
        q.integrate_with(now, waiting);
        let wifi = q.wifi_queue();
        let verdict = wifi.enqueue(now, packet);
        let scheduled_marks = wifi.scheduled_ce_marks();
        let waiting = wifi.waiting().0 as usize;
        match verdict {
            Ok(marked) => q.stats.ce_marks += marked as u64,
            Err((packet, reason)) => {
                q.count_discipline_drop(reason);
                q.dropped.push((packet, reason));
            }
        }
        if let Some(marks) = scheduled_marks {
            q.stats.ce_marks = marks;
        }
        q.note_queue_length(waiting);
        Admission::Scheduled
    }

    /// This Wi-Fi direction's queue. Called by its medium only, which holds Wi-Fi links only.
    pub(crate) fn wifi_queue(&mut self) -> &mut WifiQueue {
        self.q().wifi_queue()
    }

    /// The medium gives this direction a transmission at `now`: the frames it carries,
    /// counted into the link's statistics as they leave the queue.
    pub(crate) fn wifi_take(
        &mut self,
        now: SimTime,
        config: &cclab_scenario::WifiConfig,
    ) -> Aggregate {
        let q = self.q();
        let waiting = q.wifi_queue().waiting().0 as usize;
        q.integrate_with(now, waiting);
        let dropped_before = q.dropped.len();
        let wifi = q
            .wifi
            .as_deref_mut()
            .expect("the Wi-Fi medium holds the links it built as Wi-Fi directions");
        let aggregate = wifi.take_aggregate(
            now,
            config,
            &mut q.stats,
            q.track_queue_time,
            &mut q.dropped,
        );
        for i in dropped_before..q.dropped.len() {
            q.count_discipline_drop(q.dropped[i].1);
        }
        aggregate
    }

    /// Is this a direction of a Wi-Fi link?
    pub fn is_wifi(&self) -> bool {
        self.queue.as_deref().is_some_and(|q| q.wifi.is_some())
    }

    /// The medium occupied by this direction from `start` to `end` (utilization's busy time).
    pub(crate) fn note_airtime(&mut self, start: SimTime, end: SimTime) {
        self.q().stats.busy += end - start;
        self.busy_until = self.busy_until.max(end);
    }

    /// A frame received at the far end of the medium at `departure` and handed on at `now`
    /// (when its transmission's block ACK is done) propagates for the link's delay, arriving
    /// no earlier than `now`; returns the time of the delivery event to schedule, if needed.
    pub(crate) fn send_over_air(
        &mut self,
        now: SimTime,
        departure: SimTime,
        packet: Packet,
    ) -> Option<SimTime> {
        let arrival = (departure + self.delay).max(now);
        let first_in_flight = self.in_flight.is_empty();
        self.in_flight.push_back((arrival, packet));
        first_in_flight.then_some(arrival)
    }

    /// Close the queue-length integral at `end` (a compact link keeps none).
    pub fn finish(&mut self, end: SimTime) {
        if let Some(q) = self.queue.as_deref_mut() {
            q.queue_at(end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::qdisc::{AnyArrivalQdisc, BufferLimit, DropTail, Qdisc};
    use crate::net::trace::TraceTransmitter;
    use crate::packet::{Ecn, PacketKind};
    use crate::rng::Rng;
    use cclab_scenario::LossModel;

    fn no_loss() -> LossProcess {
        LossProcess::new(LossModel::None, Rng::for_component(1, "test"))
    }

    fn packet(wire_bytes: u32) -> Packet {
        Packet::test_data(wire_bytes, 0)
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
        assert_eq!(l.stats().overflow_drops, 1);
        assert_eq!(l.stats().max_queue_pkts, 2);
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
        assert_eq!(l.stats().ce_marks, 2);
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
        assert_eq!(l.stats().queue_integral, 2 * 8_000_000 + 8_000_000);
        // 8 ms with 2 waiting, 8 ms with 1, the remaining 14 ms with none.
        assert_eq!(
            &l.stats().queue_time_ns[..3],
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
        // Queueing delays: 0, 8 and 16 ms (each waits for those before it).
        let delays = &l.stats().queue_delay;
        assert_eq!(delays.count(), 3);
        assert_eq!(delays.mean(), Some(8_000_000.0));
        assert_eq!((delays.min(), delays.max()), (Some(0), Some(16_000_000)));
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

    // --- The scheduled family, checked against the drop-tail fast path ---

    use crate::net::qdisc::AnyScheduledQdisc;
    use crate::net::qdisc::fifo::Fifo as TestFifo;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// What a link did with an input sequence: drops in order, and per probe time the queue
    /// and the busy time so far.
    #[derive(Debug, PartialEq)]
    struct Trace {
        drops: Vec<(u64, DropReason)>,
        probes: Vec<((u64, u64), SimDuration)>,
    }

    enum Input {
        Arrive(Packet),
        Probe,
    }

    /// Run `inputs` through a drop-tail link: the fast path needs no event.
    fn drive_arrival(link: &mut Link, inputs: &[(SimTime, Input)], end: SimTime) -> Trace {
        let mut trace = Trace {
            drops: Vec::new(),
            probes: Vec::new(),
        };
        for (t, input) in inputs {
            match input {
                Input::Arrive(p) => {
                    if let Admission::Dropped(reason) = link.enqueue(*t, *p) {
                        trace.drops.push((p.seq, reason));
                    }
                }
                Input::Probe => trace
                    .probes
                    .push((link.queue_at(*t), link.busy_until_time(*t))),
            }
        }
        link.finish(end);
        trace
    }

    /// A scheduled link with a small event loop for its transmission ends.
    struct ScheduledDriver<'a> {
        link: &'a mut Link,
        ends: BinaryHeap<Reverse<SimTime>>,
        dropped: Vec<(Packet, DropReason)>,
        trace: Trace,
    }

    impl ScheduledDriver<'_> {
        /// Act on what the link did: remember its transmission end and the drops.
        fn collect(&mut self) {
            let service = self.link.take_service(&mut self.dropped);
            if let Some(t) = service.transmission_end {
                self.ends.push(Reverse(t));
            }
            let drops = self.dropped.drain(..).map(|(p, r)| (p.seq, r));
            self.trace.drops.extend(drops);
        }

        /// Run the transmission ends before `t` (and at `t` if `inclusive`).
        fn run_ends_until(&mut self, t: SimTime, inclusive: bool) {
            while let Some(&Reverse(e)) = self.ends.peek() {
                if e > t || (e == t && !inclusive) {
                    break;
                }
                self.ends.pop();
                self.link.on_transmitted(e);
                self.collect();
            }
        }
    }

    /// Run `inputs` through a scheduled link. `ends_first`: a transmission end at the same
    /// instant as an arrival runs before it (the simulation may order them either way; the
    /// outcome must not depend on it).
    fn drive_scheduled(
        link: &mut Link,
        inputs: &[(SimTime, Input)],
        end: SimTime,
        ends_first: bool,
    ) -> Trace {
        let mut driver = ScheduledDriver {
            link,
            ends: BinaryHeap::new(),
            dropped: Vec::new(),
            trace: Trace {
                drops: Vec::new(),
                probes: Vec::new(),
            },
        };
        for (t, input) in inputs {
            match input {
                Input::Arrive(p) => {
                    driver.run_ends_until(*t, ends_first);
                    assert_eq!(driver.link.enqueue(*t, *p), Admission::Scheduled);
                    driver.collect();
                }
                Input::Probe => {
                    // Drop-tail's queue at t no longer holds a packet whose service starts
                    // at t: the transmission ends at t must have run.
                    driver.run_ends_until(*t, true);
                    let probe = (driver.link.queue_at(*t), driver.link.busy_until_time(*t));
                    driver.trace.probes.push(probe);
                }
            }
        }
        driver.run_ends_until(end, true);
        assert!(driver.ends.is_empty(), "the input must drain before `end`");
        driver.link.finish(end);
        driver.trace
    }

    /// Where two sequences first differ, for a readable failure.
    fn first_difference<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T]) -> Option<String> {
        a.iter()
            .zip(b)
            .position(|(x, y)| x != y)
            .map(|i| format!("at {i}: {:?} != {:?}", a[i], b[i]))
    }

    /// A random input sequence with bursts, mixed sizes and kinds, some ECN-capable packets,
    /// and arrival times on the same 40 µs grid as the serialization times at 8 Mbit/s, so that
    /// arrivals often coincide with transmission ends.
    fn inputs(seed: u64, count: usize) -> Vec<(SimTime, Input)> {
        let mut rng = Rng::for_component(seed, "test-input");
        let mut t = 0u64;
        let mut inputs = Vec::new();
        for seq in 0..count as u64 {
            t += match rng.below(4) {
                0 => 0,
                k => rng.below(40) * 40_000 * k,
            };
            let mut p = packet([40, 520, 1000, 1500][rng.below(4) as usize]);
            p.seq = seq;
            if rng.chance(0.3) {
                p.kind = PacketKind::Ack;
            }
            if rng.chance(0.5) {
                p.ecn = Ecn::Ect;
            }
            inputs.push((at(t), Input::Arrive(p)));
            if rng.chance(0.2) {
                inputs.push((at(t + rng.below(3) * 20_000), Input::Probe));
            }
        }
        inputs.sort_by_key(|(t, _)| *t); // stable: same-time inputs keep their order
        inputs
    }

    fn lossy(seed: u64, name: &str, p: f64) -> LossProcess {
        LossProcess::new(LossModel::Bernoulli(p), Rng::for_component(seed, name))
    }

    fn pair(rate_bps: u64, limit: BufferLimit, ecn_threshold: Option<u64>) -> (Link, Link) {
        let make = || {
            Link::new(
                "pair".into(),
                rate_bps,
                SimDuration::from_millis(3),
                limit,
                lossy(5, "data", 0.02),
                lossy(5, "ack", 0.05),
            )
            .track_queue_time()
        };
        let drop_tail = make().with_qdisc(Qdisc::Arrival(AnyArrivalQdisc::DropTail(DropTail {
            ecn_threshold,
        })));
        let fifo = make().with_qdisc(Qdisc::Scheduled(AnyScheduledQdisc::TestFifo(
            TestFifo::new(limit, ecn_threshold),
        )));
        (drop_tail, fifo)
    }

    #[test]
    fn a_scheduled_fifo_behaves_exactly_as_drop_tail() {
        let limits = [
            BufferLimit {
                packets: Some(6),
                bytes: None,
            },
            BufferLimit {
                packets: None,
                bytes: Some(5000),
            },
            BufferLimit {
                packets: Some(1),
                bytes: None,
            },
        ];
        // 8 Mbit/s: 1000 B take exactly 1 ms, so ties abound; 7 Mbit/s: serialization times
        // have sub-nanosecond remainders, which back-to-back packets must carry alike.
        for rate_bps in [8_000_000, 7_000_000] {
            for limit in limits {
                for ends_first in [true, false] {
                    let inputs = inputs(rate_bps ^ limit.packets.unwrap_or(0), 3000);
                    let end = at(3_600_000_000_000);
                    let (mut drop_tail, mut fifo) = pair(rate_bps, limit, Some(3));
                    let expected = drive_arrival(&mut drop_tail, &inputs, end);
                    let mut got = drive_scheduled(&mut fifo, &inputs, end, ends_first);
                    // The same packets are dropped for the same reasons; random loss is drawn
                    // when a packet enters the transmitter, which drop-tail knows at admission
                    // and a scheduled discipline only at dequeue: compare in packet order.
                    let mut expected = expected;
                    expected.drops.sort_unstable_by_key(|&(seq, _)| seq);
                    got.drops.sort_unstable_by_key(|&(seq, _)| seq);
                    let case = format!("{rate_bps} bit/s, {limit:?}, ends first: {ends_first}");
                    if got != expected {
                        panic!(
                            "{case}: drops {:?}; probes {:?}",
                            first_difference(&got.drops, &expected.drops),
                            first_difference(&got.probes, &expected.probes)
                        );
                    }
                    assert_eq!(fifo.in_flight, drop_tail.in_flight, "{case}");
                    assert_eq!(fifo.busy_until, drop_tail.busy_until, "{case}");
                    assert_eq!(fifo.stats(), drop_tail.stats(), "{case}");
                    assert_eq!(fifo.packets_in_transit(), drop_tail.packets_in_transit());
                    // The comparison covers every kind of event: overflow, random loss of
                    // both kinds, marks, and a queue that built up.
                    let s = drop_tail.stats();
                    assert!(s.overflow_drops > 0 && s.random_losses > 0, "{case}: {s:?}");
                    // (With room for one waiting packet, none ever finds 3 waiting.)
                    let markable = limit.packets != Some(1);
                    assert!(s.ce_marks > 0 || !markable, "{case}: {s:?}");
                    assert!(s.max_queue_pkts >= 1, "{case}: {s:?}");
                    assert!(
                        expected.probes.iter().any(|((q, _), _)| *q > 0),
                        "{case}: no probe saw a queue"
                    );
                }
            }
        }
    }

    #[test]
    fn a_scheduled_link_transmits_back_to_back_with_one_event_per_packet() {
        // 1000 B at 8 Mbit/s = 1 ms; three packets at t = 0 on a 2 ms link: the first starts
        // at once, the others at the end of the one before: transmission ends at 1, 2, 3 ms and
        // arrivals at 3, 4, 5 ms.
        let (_, mut fifo) = pair(
            8_000_000,
            BufferLimit {
                packets: Some(10),
                bytes: None,
            },
            None,
        );
        fifo.q()
            .loss
            .as_mut()
            .expect("pair() links are lossy")
            .data_loss = no_loss();
        let mut dropped = Vec::new();
        for seq in 0..3 {
            let mut p = packet(1000);
            p.seq = seq;
            assert_eq!(fifo.enqueue(at(0), p), Admission::Scheduled);
            let service = fifo.take_service(&mut dropped);
            let expected = (seq == 0).then_some(at(1_000_000));
            assert_eq!(service.transmission_end, expected);
            assert_eq!(service.first_arrival, expected.map(|t| t + fifo.delay));
        }
        assert_eq!(fifo.queue_at(at(0)), (2, 2000));
        for ms in 1..=3 {
            fifo.on_transmitted(at(ms * 1_000_000));
            let service = fifo.take_service(&mut dropped);
            let next_end = (ms < 3).then(|| at((ms + 1) * 1_000_000));
            assert_eq!(service.transmission_end, next_end, "at {ms} ms");
            assert_eq!(service.first_arrival, None, "the FIFO already held packets");
        }
        assert!(dropped.is_empty());
        let arrivals: Vec<_> = fifo.in_flight.iter().map(|(t, p)| (*t, p.seq)).collect();
        assert_eq!(
            arrivals,
            vec![(at(4_000_000), 0), (at(5_000_000), 1), (at(6_000_000), 2)]
        );
        // Queue 2 for 1 ms, then 1 for 1 ms: 3 packet·ms; the packets waited 0, 1 and 2 ms.
        fifo.finish(at(10_000_000));
        assert_eq!(fifo.stats().queue_integral, 3_000_000);
        assert_eq!(fifo.stats().queue_delay.mean(), Some(1_000_000.0));
        assert_eq!(fifo.stats().queue_delay.max(), Some(2_000_000));
    }

    #[test]
    fn on_a_trace_link_a_scheduled_fifo_behaves_exactly_as_drop_tail() {
        // The same FIFO run both ways over an irregular mahimahi schedule (opportunities at
        // 0, 1, 1, 2, 5, 5, 5, 6 and 9 ms, period 9 ms): drop-tail computes each departure
        // at admission, the scheduled family asks the schedule at dequeue. Packets of 40 to
        // 1500 bytes share opportunities and leave leftovers that the next packet may or may
        // not use, so every rule of the schedule is exercised.
        let schedule = cclab_scenario::trace_link::DeliverySchedule {
            file: "test".into(),
            times_ms: vec![0u32, 1, 1, 2, 5, 5, 5, 6, 9].into(),
        };
        for limit in [
            BufferLimit {
                packets: Some(6),
                bytes: None,
            },
            BufferLimit {
                packets: None,
                bytes: Some(5000),
            },
        ] {
            for ends_first in [true, false] {
                let inputs = inputs(limit.packets.unwrap_or(1) + 40, 3000);
                let end = at(3_600_000_000_000);
                let (drop_tail, fifo) = pair(12_032_000, limit, Some(3));
                let trace = || Some(TraceTransmitter::new(&schedule));
                let (mut drop_tail, mut fifo) =
                    (drop_tail.with_trace(trace()), fifo.with_trace(trace()));
                let mut expected = drive_arrival(&mut drop_tail, &inputs, end);
                let mut got = drive_scheduled(&mut fifo, &inputs, end, ends_first);
                expected.drops.sort_unstable_by_key(|&(seq, _)| seq);
                got.drops.sort_unstable_by_key(|&(seq, _)| seq);
                let case = format!("{limit:?}, ends first: {ends_first}");
                if got != expected {
                    panic!(
                        "{case}: drops {:?}; probes {:?}",
                        first_difference(&got.drops, &expected.drops),
                        first_difference(&got.probes, &expected.probes)
                    );
                }
                let flight = |l: &Link| -> Vec<(SimTime, u64)> {
                    l.in_flight.iter().map(|(t, p)| (*t, p.seq)).collect()
                };
                let (a, b) = (flight(&fifo), flight(&drop_tail));
                assert_eq!(first_difference(&a, &b), None, "{case}");
                assert_eq!(a.len(), b.len(), "{case}");
                assert_eq!(fifo.busy_until, drop_tail.busy_until, "{case}");
                assert_eq!(fifo.stats(), drop_tail.stats(), "{case}");
                let s = drop_tail.stats();
                assert!(
                    s.overflow_drops > 0 && s.max_queue_pkts >= 3,
                    "{case}: {s:?}"
                );
                // Every departure is an opportunity: a whole millisecond.
                assert!(
                    drop_tail
                        .in_flight
                        .iter()
                        .all(|(t, _)| (t.as_nanos() - drop_tail.delay.as_nanos()) % 1_000_000 == 0)
                );
            }
        }
    }

    // --- Jitter ---

    fn jittered(reorder: bool) -> Link {
        // 1000 B at 8 Mbit/s: 1 ms apart back to back; jitter up to 10 ms, so without the
        // order rule a packet would often arrive before ones sent up to 10 packets earlier.
        let config = cclab_scenario::Jitter {
            distribution: cclab_scenario::JitterDistribution::Uniform {
                max: SimDuration::from_millis(10),
            },
            correlation: 0.0,
            reorder,
        };
        let process = JitterProcess::new(&config, Rng::for_component(2, "test-jitter"));
        link(8_000_000, 5, None).with_jitter(Some(process))
    }

    /// Send 1000 back-to-back packets and deliver them all as the simulation would: events
    /// at the times the link asks for, in time order. Returns (arrival, seq) in delivery
    /// order.
    fn send_and_deliver(l: &mut Link) -> Vec<(SimTime, u64)> {
        let mut events = BinaryHeap::new();
        for seq in 0..1000u64 {
            let mut p = packet(1000);
            p.seq = seq;
            match l.enqueue(at(0), p) {
                Admission::Admitted {
                    arrival,
                    first_in_flight: true,
                } => events.push(Reverse(arrival)),
                Admission::Admitted { .. } => {}
                other => panic!("{other:?}"),
            }
        }
        let mut delivered = Vec::new();
        while let Some(Reverse(t)) = events.pop() {
            let (p, next) = l.deliver_jittered(t);
            delivered.push((t, p.seq));
            if let Some(next) = next {
                events.push(Reverse(next));
            }
        }
        assert_eq!(l.packets_in_transit(), 0);
        delivered
    }

    #[test]
    fn jitter_without_reordering_keeps_the_send_order() {
        let mut l = jittered(false);
        let delivered = send_and_deliver(&mut l);
        let seqs: Vec<u64> = delivered.iter().map(|&(_, s)| s).collect();
        assert_eq!(seqs, (0..1000).collect::<Vec<_>>());
        assert!(delivered.windows(2).all(|w| w[0].0 <= w[1].0));
        // Every packet is delayed at least its serialization and propagation, and jitter
        // added something: the last packet leaves the transmitter at 1000 ms.
        assert!(
            delivered
                .iter()
                .all(|&(t, s)| t >= at((s + 1) * 1_000_000 + 5_000_000))
        );
        assert!(
            delivered
                .iter()
                .any(|&(t, s)| t > at((s + 1) * 1_000_000 + 5_000_000))
        );
    }

    #[test]
    fn jitter_with_reordering_lets_packets_overtake() {
        let mut l = jittered(true);
        let delivered = send_and_deliver(&mut l);
        // Delivered in time order, every packet exactly once, some out of send order. By hand:
        // packet s leaves the transmitter at (s + 1) ms, so s + 1 overtakes s when its jitter
        // is more than 1 ms below s's: probability p = (9/10)²/2 = 0.405 for uniform draws on
        // [0, 10] ms. Over the 999 neighbour pairs that count has mean 999 p; only adjacent
        // pairs share a draw, so its variance is at most 3 · 999 p (1 − p).
        assert!(delivered.windows(2).all(|w| w[0].0 <= w[1].0));
        let mut seqs: Vec<u64> = delivered.iter().map(|&(_, s)| s).collect();
        let mut position = vec![0; 1000];
        for (i, &s) in seqs.iter().enumerate() {
            position[s as usize] = i;
        }
        let overtaken = position.windows(2).filter(|w| w[1] < w[0]).count() as f64;
        let p: f64 = 0.405;
        let sd = (3.0 * 999.0 * p * (1.0 - p)).sqrt();
        assert!(
            (overtaken - 999.0 * p).abs() < 5.0 * sd,
            "{overtaken} overtakings"
        );
        seqs.sort_unstable();
        assert_eq!(seqs, (0..1000).collect::<Vec<_>>());
    }

    // --- Compact links ---

    /// Run `inputs` through `link` (arrivals and probes of its backlog), then deliver every
    /// packet: what the transmitter and the wire did.
    fn schedule_of(link: &mut Link, inputs: &[(SimTime, Input)]) -> Vec<(SimTime, u64)> {
        let mut seen = Vec::new();
        for (t, input) in inputs {
            match input {
                Input::Arrive(p) => match link.enqueue(*t, *p) {
                    Admission::Admitted {
                        arrival,
                        first_in_flight,
                    } => seen.push((arrival, first_in_flight as u64)),
                    other => panic!("an unlimited drop-tail link admits all: {other:?}"),
                },
                Input::Probe => {
                    seen.push((*t, link.backlog(*t).as_nanos()));
                    seen.push((*t, link.packets_in_transit()));
                }
            }
        }
        while link.packets_in_transit() > 0 {
            let t = link.in_flight.front().expect("in transit").0;
            let (p, _) = link.deliver(t);
            seen.push((t, p.seq));
        }
        seen
    }

    /// A full `Link` of unlimited buffer that loses nothing: what a compact one stands for.
    fn full_unlimited_link(rate_bps: u64, delay: SimDuration) -> Link {
        let unlimited = BufferLimit {
            packets: None,
            bytes: None,
        };
        Link::new(
            "full".into(),
            rate_bps,
            delay,
            unlimited,
            no_loss(),
            no_loss(),
        )
    }

    #[test]
    fn a_compact_link_schedules_and_delivers_as_a_full_one() {
        // An access link of unlimited buffer that loses nothing, compact and in full (keeping
        // its queue's statistics): the same arrivals, backlogs, packets in transit and
        // deliveries, over bursts of mixed sizes at a rate with sub-nanosecond remainders.
        let delay = SimDuration::from_millis(3);
        let mut full = full_unlimited_link(7_000_000, delay);
        let mut compact = Link::compact(7_000_000, delay);
        assert!(compact.is_compact() && compact.can_be_lean() && compact.can_pass());
        assert!(!full.is_compact() && !full.lean && !compact.may_overflow());
        let inputs = inputs(11, 3000);
        let expected = schedule_of(&mut full, &inputs);
        assert_eq!(schedule_of(&mut compact, &inputs), expected);
        assert_eq!(compact.busy_until, full.busy_until);
        assert!(full.stats().max_queue_pkts > 2, "packets queued");
        // The inline part is what a compact link costs; a full one adds its boxed queue.
        assert!(std::mem::size_of::<Link>() <= 200);
        assert!(Link::queue_bytes() >= 2 * std::mem::size_of::<Link>());
    }

    #[test]
    fn a_compact_link_that_keeps_its_queue_counts_as_a_full_one() {
        // Made not lean before its first packet (a `drop` list on it, or a run with every
        // hop in full), a compact link gets a queue: the same statistics as a full link's.
        let delay = SimDuration::from_millis(1);
        let mut full = full_unlimited_link(8_000_000, delay);
        let mut compact = Link::compact(8_000_000, delay);
        compact.set_lean(false);
        assert!(!compact.is_compact() && !compact.lean);
        let inputs = inputs(12, 2000);
        assert_eq!(
            schedule_of(&mut compact, &inputs),
            schedule_of(&mut full, &inputs)
        );
        let end = at(3_600_000_000_000);
        full.finish(end);
        compact.finish(end);
        assert_eq!(compact.stats(), full.stats());
        let arrivals = inputs
            .iter()
            .filter(|(_, i)| matches!(i, Input::Arrive(_)))
            .count() as u64;
        assert_eq!(compact.stats().packets, arrivals);
        assert!(compact.stats().queue_integral > 0, "packets queued");
    }
}
