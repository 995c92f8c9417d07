//! CoDel, Controlled Delay (RFC 8289): drop at the head of the queue when the sojourn time of
//! the packets leaving has stayed above `target` for a whole `interval`, then drop at a rate
//! that grows with the square root of the drops so far (the control law, RFC 8289 §4.3/§5.5).
//!
//! The state machine ([`CodelVars`]) is kept apart from the queue it controls
//! ([`CodelQueue`]): [`Codel`] runs one over a single FIFO, FQ-CoDel one per flow queue
//! (RFC 8290 §4.2). It follows the pseudocode of RFC 8289 §5 (itself the Linux version,
//! include/net/codel_impl.h), with these choices:
//!
//! - Times are the simulator's nanoseconds and `interval/√count` is computed in floating point
//!   and rounded to the nanosecond (Linux keeps a 16-bit Newton estimate of 1/√count on a
//!   1024 ns clock).
//! - "Above target for an interval" is `now ≥ first_above_time`, as in the RFC (Linux: `>`).
//! - ECN (RFC 8289 §5, "mark instead of drop"): where a drop is due and the packet is
//!   ECN-capable, it is marked CE and sent, as Linux does: the drop schedule advances as if it
//!   had been dropped, and no further packet is examined in that dequeue.

use std::collections::VecDeque;

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::CodelConfig;

use super::{BufferLimit, Dequeued, DropReason, ScheduledQdisc};
use crate::packet::{Ecn, Packet};

/// CoDel's parameters, shared by every queue it controls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    /// Acceptable standing queue delay (RFC 8289 §4.4: 5 ms).
    pub target: SimDuration,
    /// Window over which the sojourn time must stay above target before dropping, and the
    /// base of the control law (RFC 8289 §4.3: 100 ms).
    pub interval: SimDuration,
    /// MAXPACKET of RFC 8289 §5.4: a queue holding at most this many bytes after the dequeue
    /// is never dropped from, so the link cannot go idle for lack of a packet. One MTU.
    pub mtu_bytes: u64,
    /// Mark ECN-capable packets CE instead of dropping them.
    pub ecn: bool,
}

/// One CoDel state machine (RFC 8289 §5.2 "per-queue state").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodelVars {
    /// Drops (and marks) since entering the current dropping state, plus the count it was
    /// entered with.
    count: u32,
    /// `count` at the last entry to the dropping state.
    lastcount: u32,
    dropping: bool,
    /// When the sojourn time will have been above target for an interval; `None` while it is
    /// below (the RFC's 0).
    first_above_time: Option<SimTime>,
    /// When the next drop is due, while dropping; afterwards, when it would have been.
    drop_next: SimTime,
}

/// The packets one CoDel instance serves, as the state machine sees them.
pub trait CodelQueue {
    /// Remove and return the head packet.
    fn pop(&mut self) -> Option<Dequeued>;
    /// Bytes left after the last pop, for the MAXPACKET rule (RFC 8289 §5.4: `bytes()`).
    fn backlog_bytes(&self) -> u64;
}

/// A first-in, first-out packet queue with its byte count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fifo {
    packets: VecDeque<Dequeued>,
    bytes: u64,
}

impl Fifo {
    /// Add `packet` at the tail, stamped with its arrival time.
    pub fn push(&mut self, now: SimTime, packet: Packet) {
        self.bytes += packet.wire_bytes as u64;
        self.packets.push_back(Dequeued {
            packet,
            enqueued_at: now,
        });
    }

    pub fn pop(&mut self) -> Option<Dequeued> {
        let head = self.packets.pop_front()?;
        self.bytes -= head.packet.wire_bytes as u64;
        Some(head)
    }

    pub fn front(&self) -> Option<&Dequeued> {
        self.packets.front()
    }

    pub fn len(&self) -> u64 {
        self.packets.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl CodelQueue for Fifo {
    fn pop(&mut self) -> Option<Dequeued> {
        Fifo::pop(self)
    }

    fn backlog_bytes(&self) -> u64 {
        self.bytes
    }
}

/// RFC 8289 §5.5 `control_law`: the next drop `interval/√count` after `t`.
pub fn control_law(t: SimTime, interval: SimDuration, count: u32) -> SimTime {
    let spacing = interval.as_nanos() as f64 / (count.max(1) as f64).sqrt();
    t + SimDuration::from_nanos(spacing.round() as u64)
}

/// Set CE on an ECN-capable packet, counting it in `ce_marks`; `false` if it is not
/// ECN-capable (it must be dropped). A packet already CE is sent as it is instead of being
/// dropped (Linux `INET_ECN_set_ce`), but is not counted: the mark is not ours.
fn mark(packet: &mut Packet, ce_marks: &mut u64) -> bool {
    match packet.ecn {
        Ecn::NotEct => false,
        Ecn::Ce => true,
        Ecn::Ect | Ecn::Ect1 => {
            packet.ecn = Ecn::Ce;
            *ce_marks += 1;
            true
        }
    }
}

impl CodelVars {
    /// In the dropping state.
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// Drops so far in this dropping episode, including the count it restarted from.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// RFC 8289 §5.4 `dodequeue`, after the pop: has the sojourn time been above target for
    /// at least an interval? `head` is the packet just popped, `backlog_bytes` what is left.
    fn ok_to_drop(
        &mut self,
        params: &CodelParams,
        now: SimTime,
        head: &Dequeued,
        backlog_bytes: u64,
    ) -> bool {
        let sojourn = now.saturating_since(head.enqueued_at);
        if sojourn < params.target || backlog_bytes <= params.mtu_bytes {
            // Went below (or too little is queued to keep the link busy): stay below for at
            // least an interval before dropping again.
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + params.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// RFC 8289 §5.5 `dequeue`: the packet to send from `queue` at `now`, if any; packets
    /// dropped on the way go to `dropped`, CE marks made are added to `ce_marks`.
    pub fn dequeue<Q: CodelQueue>(
        &mut self,
        params: &CodelParams,
        now: SimTime,
        queue: &mut Q,
        dropped: &mut Vec<(Packet, DropReason)>,
        ce_marks: &mut u64,
    ) -> Option<Dequeued> {
        let Some(mut head) = queue.pop() else {
            // An empty queue is below target (§5.4) and ends a dropping state.
            self.first_above_time = None;
            self.dropping = false;
            return None;
        };
        let ok_to_drop = self.ok_to_drop(params, now, &head, queue.backlog_bytes());
        if self.dropping {
            if !ok_to_drop {
                // Sojourn time below target: leave the dropping state.
                self.dropping = false;
                return Some(head);
            }
            // Drop as many packets as are due: a large backlog can make the next drop due
            // at once (the RFC's `while` loop).
            while self.dropping && now >= self.drop_next {
                self.count = self.count.wrapping_add(1);
                if params.ecn && mark(&mut head.packet, ce_marks) {
                    self.drop_next = control_law(self.drop_next, params.interval, self.count);
                    return Some(head);
                }
                dropped.push((head.packet, DropReason::Aqm));
                match queue.pop() {
                    None => {
                        self.first_above_time = None;
                        self.dropping = false;
                        return None;
                    }
                    Some(next) => head = next,
                }
                if self.ok_to_drop(params, now, &head, queue.backlog_bytes()) {
                    self.drop_next = control_law(self.drop_next, params.interval, self.count);
                } else {
                    self.dropping = false;
                }
            }
            Some(head)
        } else if ok_to_drop {
            // Enter the dropping state with one drop (or mark).
            let sent = if params.ecn && mark(&mut head.packet, ce_marks) {
                Some(head)
            } else {
                dropped.push((head.packet, DropReason::Aqm));
                let next = queue.pop();
                // The RFC's second `dodequeue`: its verdict is not used here, but it keeps
                // `first_above_time` current.
                match &next {
                    Some(next) => {
                        self.ok_to_drop(params, now, next, queue.backlog_bytes());
                    }
                    None => self.first_above_time = None,
                }
                next
            };
            self.dropping = true;
            // If the queue went above target soon after the last dropping state ended,
            // restart from the drop rate that controlled it then rather than from 1
            // (RFC 8289 §5.5; `now − drop_next` approximates the time since the last drop).
            let delta = self.count.wrapping_sub(self.lastcount);
            self.count = if delta > 1 && now.saturating_since(self.drop_next) < params.interval * 16
            {
                delta
            } else {
                1
            };
            self.lastcount = self.count;
            self.drop_next = control_law(now, params.interval, self.count);
            sent
        } else {
            Some(head)
        }
    }
}

/// CoDel over one FIFO (Linux sch_codel): tail drop when the buffer is full, CoDel's head
/// drops at dequeue.
#[derive(Clone, Debug)]
pub struct Codel {
    params: CodelParams,
    vars: CodelVars,
    limit: BufferLimit,
    queue: Fifo,
    ce_marks: u64,
}

impl Codel {
    pub fn new(config: &CodelConfig, limit: BufferLimit, mtu_bytes: u64) -> Self {
        Codel {
            params: CodelParams {
                target: config.target,
                interval: config.interval,
                mtu_bytes,
                ecn: config.ecn,
            },
            vars: CodelVars::default(),
            limit,
            queue: Fifo::default(),
            ce_marks: 0,
        }
    }

    /// The state machine, for inspection.
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

impl ScheduledQdisc for Codel {
    fn enqueue(&mut self, now: SimTime, packet: Packet) -> Result<(), (Packet, DropReason)> {
        if self.limit.exceeded_by(
            self.queue.len() + 1,
            self.queue.bytes() + packet.wire_bytes as u64,
        ) {
            return Err((packet, DropReason::Overflow));
        }
        self.queue.push(now, packet);
        Ok(())
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Dequeued> {
        self.vars.dequeue(
            &self.params,
            now,
            &mut self.queue,
            dropped,
            &mut self.ce_marks,
        )
    }

    fn backlog(&self) -> (u64, u64) {
        (self.queue.len(), self.queue.bytes())
    }

    fn ce_marks(&self) -> u64 {
        self.ce_marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u64 = 1500;
    const TARGET: SimDuration = SimDuration::from_millis(5);
    const INTERVAL: SimDuration = SimDuration::from_millis(100);
    /// Dequeue attempts every 100 µs: far finer than the drop spacings tested
    /// (interval/√count ≥ 10 ms up to count 100).
    const TICK_NS: u64 = 100_000;

    fn params(ecn: bool) -> CodelParams {
        CodelParams {
            target: TARGET,
            interval: INTERVAL,
            mtu_bytes: MTU,
            ecn,
        }
    }

    fn packet(seq: u64, ecn: Ecn) -> Packet {
        Packet {
            ecn,
            ..Packet::test_data(MTU as u32, seq)
        }
    }

    fn at(ns: u64) -> SimTime {
        SimTime::from_nanos(ns)
    }

    /// A queue whose every head packet has waited `sojourn` and behind which `backlog` bytes
    /// remain: the state machine's environment, scripted.
    struct Scripted {
        now: SimTime,
        sojourn: SimDuration,
        backlog: u64,
        ecn: Ecn,
        popped: u64,
    }

    impl Scripted {
        fn new(sojourn_ms: u64, ecn: Ecn) -> Self {
            Scripted {
                now: SimTime::ZERO,
                sojourn: SimDuration::from_millis(sojourn_ms),
                backlog: 100 * MTU,
                ecn,
                popped: 0,
            }
        }
    }

    impl CodelQueue for Scripted {
        fn pop(&mut self) -> Option<Dequeued> {
            self.popped += 1;
            Some(Dequeued {
                packet: packet(self.popped, self.ecn),
                enqueued_at: SimTime::from_nanos(self.now.as_nanos() - self.sojourn.as_nanos()),
            })
        }

        fn backlog_bytes(&self) -> u64 {
            self.backlog
        }
    }

    /// The scripted runs start at 1 s, so that a head packet can have waited its sojourn
    /// time; times in the logs are relative to it.
    const BASE_NS: u64 = 1_000_000_000;

    /// What happened at each tick of `[from, to)`: drop times and CE-mark times.
    #[derive(Default)]
    struct Log {
        drops: Vec<u64>,
        marks: Vec<u64>,
        ce_marks: u64,
    }

    fn run(
        vars: &mut CodelVars,
        params: &CodelParams,
        queue: &mut Scripted,
        from_ns: u64,
        to_ns: u64,
        log: &mut Log,
    ) {
        let mut dropped = Vec::new();
        let mut t = from_ns;
        while t < to_ns {
            let now = at(BASE_NS + t);
            queue.now = now;
            dropped.clear();
            let sent = vars.dequeue(params, now, queue, &mut dropped, &mut log.ce_marks);
            log.drops.extend(dropped.iter().map(|_| t));
            if sent.is_some_and(|d| d.packet.ecn == Ecn::Ce) {
                log.marks.push(t);
            }
            t += TICK_NS;
        }
    }

    fn ms(x: u64) -> u64 {
        x * 1_000_000
    }

    /// The first tick at or after `t_ns`.
    fn tick_at_or_after(t_ns: f64) -> u64 {
        let ticks = (t_ns / TICK_NS as f64).ceil() as u64;
        ticks * TICK_NS
    }

    /// RFC 8289 §5.5: the first drop at `first` (count 1); then the k-th next drop is due
    /// `interval/√k` after the previous due time (`control_law(drop_next, count)` with count
    /// incremented at each drop). Returns the due times of the first `n` drops, in ns.
    fn control_law_schedule(first_ns: f64, n: usize, start_count: u32) -> Vec<f64> {
        let interval = INTERVAL.as_nanos() as f64;
        let mut due = vec![first_ns];
        let mut next = first_ns + interval / (start_count as f64).sqrt();
        let mut count = start_count;
        while due.len() < n {
            due.push(next);
            count += 1;
            next += interval / (count as f64).sqrt();
        }
        due
    }

    fn assert_drops_follow(observed: &[u64], due: &[f64]) {
        assert!(observed.len() >= due.len(), "{observed:?}");
        for (k, (&seen, &expected)) in observed.iter().zip(due).enumerate() {
            // Well-posed: no due time within 10 ns of a tick (rounding to the nanosecond
            // cannot move a drop to another tick).
            let offset = expected % TICK_NS as f64;
            assert!(
                offset.min(TICK_NS as f64 - offset) > 10.0 || offset == 0.0,
                "{expected}"
            );
            assert_eq!(seen, tick_at_or_after(expected), "drop {k}");
        }
    }

    #[test]
    fn control_law_spacing_is_interval_over_sqrt_count() {
        // A persistent 20 ms sojourn from t = 0: above target from the first dequeue, so
        // first_above_time = 0 + interval and the first drop is at 100 ms; then drops at
        // 100 ms + 100/√1, + 100/√2, + 100/√3 … ms.
        let mut vars = CodelVars::default();
        let mut queue = Scripted::new(20, Ecn::NotEct);
        let mut log = Log::default();
        run(&mut vars, &params(false), &mut queue, 0, ms(2000), &mut log);
        let due = control_law_schedule(ms(100) as f64, 40, 1);
        assert_drops_follow(&log.drops, &due);
        // Spelled out for the first four: 100, 200, 270.7107, 328.4457 ms.
        assert_eq!(
            &log.drops[..4],
            &[ms(100), ms(200), 270_800_000, 328_500_000]
        );
        assert!(vars.dropping());
        assert_eq!(vars.count() as usize, log.drops.len());
    }

    #[test]
    fn no_drop_below_target_nor_within_the_first_interval_above_it() {
        let mut vars = CodelVars::default();
        let mut log = Log::default();
        // 4.9 ms is below the 5 ms target: never a drop, however long it lasts.
        let mut below = Scripted::new(0, Ecn::NotEct);
        below.sojourn = SimDuration::from_micros(4_900);
        run(&mut vars, &params(false), &mut below, 0, ms(3000), &mut log);
        assert!(log.drops.is_empty());
        // Then 6 ms from t = 3 s: the first drop exactly one interval later, none before.
        let mut above = Scripted::new(6, Ecn::NotEct);
        run(
            &mut vars,
            &params(false),
            &mut above,
            ms(3000),
            ms(3200),
            &mut log,
        );
        assert_eq!(log.drops[0], ms(3100));
    }

    #[test]
    fn a_dip_below_target_restarts_the_interval() {
        // Above target from 0 to 80 ms, one dequeue below target at 80 ms, above again:
        // first_above_time restarts at 80.1 ms, so the first drop is at 180.1 ms.
        let mut vars = CodelVars::default();
        let mut log = Log::default();
        let p = params(false);
        run(
            &mut vars,
            &p,
            &mut Scripted::new(20, Ecn::NotEct),
            0,
            ms(80),
            &mut log,
        );
        run(
            &mut vars,
            &p,
            &mut Scripted::new(1, Ecn::NotEct),
            ms(80),
            ms(80) + TICK_NS,
            &mut log,
        );
        run(
            &mut vars,
            &p,
            &mut Scripted::new(20, Ecn::NotEct),
            ms(80) + TICK_NS,
            ms(300),
            &mut log,
        );
        assert_eq!(log.drops[0], ms(180) + TICK_NS);
    }

    #[test]
    fn sojourn_below_target_leaves_the_dropping_state() {
        let mut vars = CodelVars::default();
        let mut log = Log::default();
        let p = params(false);
        run(
            &mut vars,
            &p,
            &mut Scripted::new(20, Ecn::NotEct),
            0,
            ms(400),
            &mut log,
        );
        assert!(vars.dropping());
        let drops_before = log.drops.len();
        // The first packet below target ends the state and is sent; no drop follows.
        let mut low = Scripted::new(2, Ecn::NotEct);
        run(
            &mut vars,
            &p,
            &mut low,
            ms(400),
            ms(400) + TICK_NS,
            &mut log,
        );
        assert!(!vars.dropping());
        run(
            &mut vars,
            &p,
            &mut low,
            ms(400) + TICK_NS,
            ms(2000),
            &mut log,
        );
        assert_eq!(log.drops.len(), drops_before);
    }

    /// Drive one dropping episode of `drops` drops from t = 0, then `gap_ms` below target,
    /// then above target again; returns the drops of the second episode.
    fn second_episode(drops: usize, gap_ms: u64) -> Vec<u64> {
        let mut vars = CodelVars::default();
        let p = params(false);
        let mut log = Log::default();
        let due = control_law_schedule(ms(100) as f64, drops, 1);
        let end_first = tick_at_or_after(due[drops - 1]) + TICK_NS;
        run(
            &mut vars,
            &p,
            &mut Scripted::new(20, Ecn::NotEct),
            0,
            end_first,
            &mut log,
        );
        assert_eq!(log.drops.len(), drops);
        assert_eq!(vars.count() as usize, drops);
        let resume = end_first + ms(gap_ms);
        run(
            &mut vars,
            &p,
            &mut Scripted::new(1, Ecn::NotEct),
            end_first,
            resume,
            &mut log,
        );
        let mut second = Log::default();
        run(
            &mut vars,
            &p,
            &mut Scripted::new(20, Ecn::NotEct),
            resume,
            resume + ms(400),
            &mut second,
        );
        second.drops
    }

    #[test]
    fn re_entering_soon_restarts_from_the_last_episode_drop_rate() {
        // RFC 8289 §5.5: the first episode entered with count 1 and ended at count 6, so
        // delta = 6 − 1 = 5 > 1; re-entering 50 ms + 100 ms later (< 16 intervals after the
        // last due time) restarts at count 5: the second drop comes interval/√5 = 44.72 ms
        // after the first, then interval/√6 after that.
        let drops = second_episode(6, 50);
        let due = control_law_schedule(drops[0] as f64, 3, 5);
        assert_drops_follow(&drops, &due);
        assert_eq!(drops[1] - drops[0], 44_800_000);
    }

    #[test]
    fn re_entering_late_or_after_a_short_episode_restarts_at_one() {
        // 2 s below target: now − drop_next > 16 intervals (1.6 s): count restarts at 1.
        let late = second_episode(6, 2000);
        assert_drops_follow(&late, &control_law_schedule(late[0] as f64, 3, 1));
        // An episode of two drops: delta = 2 − 1 = 1, not > 1: count restarts at 1.
        let short = second_episode(2, 50);
        assert_drops_follow(&short, &control_law_schedule(short[0] as f64, 3, 1));
    }

    #[test]
    fn one_mtu_left_in_the_queue_is_never_dropped() {
        // RFC 8289 §5.4: bytes() <= MAXPACKET keeps first_above_time at 0, whatever the
        // sojourn time.
        let mut vars = CodelVars::default();
        let mut log = Log::default();
        let mut queue = Scripted::new(50, Ecn::NotEct);
        queue.backlog = MTU;
        run(&mut vars, &params(false), &mut queue, 0, ms(3000), &mut log);
        assert!(log.drops.is_empty());
        // One byte more and the control law starts after one interval.
        queue.backlog = MTU + 1;
        run(
            &mut vars,
            &params(false),
            &mut queue,
            ms(3000),
            ms(3200),
            &mut log,
        );
        assert_eq!(log.drops[0], ms(3100));
    }

    #[test]
    fn ecn_capable_packets_are_marked_on_the_drop_schedule() {
        let mut vars = CodelVars::default();
        let mut log = Log::default();
        let mut queue = Scripted::new(20, Ecn::Ect);
        run(&mut vars, &params(true), &mut queue, 0, ms(2000), &mut log);
        assert!(log.drops.is_empty());
        assert_drops_follow(&log.marks, &control_law_schedule(ms(100) as f64, 40, 1));
        assert_eq!(log.ce_marks, log.marks.len() as u64);
        // With ECN on, packets that are not ECN-capable are still dropped.
        let mut vars = CodelVars::default();
        let mut log = Log::default();
        let mut queue = Scripted::new(20, Ecn::NotEct);
        run(&mut vars, &params(true), &mut queue, 0, ms(2000), &mut log);
        assert!(log.marks.is_empty());
        assert_drops_follow(&log.drops, &control_law_schedule(ms(100) as f64, 40, 1));
    }

    #[test]
    fn fifo_codel_keeps_the_last_mtu_and_limits_the_buffer() {
        let config = CodelConfig::default();
        let limit = BufferLimit {
            packets: Some(3),
            bytes: None,
        };
        let mut codel = Codel::new(&config, limit, MTU);
        for seq in 0..3 {
            codel.enqueue(at(0), packet(seq, Ecn::NotEct)).unwrap();
        }
        assert_eq!(
            codel.enqueue(at(0), packet(3, Ecn::NotEct)),
            Err((packet(3, Ecn::NotEct), DropReason::Overflow))
        );
        assert_eq!(codel.backlog(), (3, 3 * MTU));
        // A standing queue of two packets served every 30 ms: each leaves after 60 ms
        // (12 × target) yet leaves one MTU behind, so nothing is ever dropped.
        let mut dropped = Vec::new();
        let mut codel = Codel::new(&config, BufferLimit::default(), MTU);
        codel.enqueue(at(0), packet(0, Ecn::NotEct)).unwrap();
        for k in 1..200u64 {
            let now = at(k * ms(30));
            codel.enqueue(now, packet(k, Ecn::NotEct)).unwrap();
            let sent = codel.dequeue(now, &mut dropped).unwrap();
            assert_eq!(sent.packet.seq, k - 1);
        }
        assert!(dropped.is_empty());
        // Three standing packets leave two MTUs behind: CoDel drops after one interval.
        codel
            .enqueue(at(200 * ms(30)), packet(200, Ecn::NotEct))
            .unwrap();
        codel
            .enqueue(at(200 * ms(30)), packet(201, Ecn::NotEct))
            .unwrap();
        for k in 201..400u64 {
            let now = at(k * ms(30));
            codel.enqueue(now, packet(k + 1, Ecn::NotEct)).unwrap();
            codel.dequeue(now, &mut dropped);
        }
        assert!(!dropped.is_empty());
    }
}
