//! The event queue: a binary min-heap on (time, time of scheduling, time of scheduling of the
//! event that scheduled it, insertion order), so simultaneous events run in the order they
//! were scheduled and every run is reproducible.
//!
//! The time of scheduling is what lets a folded hop (`Event::FoldedDelivery`, see
//! `folding.rs`) keep the order of the events it replaces. An event scheduled
//! at the current time sorts by insertion order alone, as it always did (insertion order
//! grows with the time of scheduling). A packet that crosses folded links is scheduled
//! ahead, when it enters the first of them; its delivery event carries the time at which
//! the unfolded chain would have scheduled it (when it entered the last link, or when the
//! packet ahead of it was delivered) and the time at which the unfolded event that would have
//! scheduled it was itself scheduled, so that it sorts among simultaneous events where that
//! chain's event would have. (Events scheduled at the current time sort among themselves
//! exactly as before: the events that schedule them run in that key's order.)
//!
//! Events are tiny `Copy` values naming what to do; packets wait in their link's own FIFO,
//! so the heap holds one or two entries per busy link (delivery, and the end of transmission
//! on links with a scheduled discipline) plus the pending timers, not one per packet.

use cclab_cc::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The packet at the head of this link's propagation FIFO reaches the far end.
    LinkDelivery(u32),
    /// The packet at the head of a folded link's propagation FIFO reaches the far end: a link
    /// whose packets were admitted ahead of time (`folding.rs`), whose next
    /// delivery sorts by the time its unfolded event would have been scheduled.
    FoldedDelivery(u32),
    /// A packet of a link with jitter reaches the far end. An event of its own, so that the
    /// common delivery above never asks whether its link has jitter.
    JitteredDelivery(u32),
    /// This link's transmitter finished a packet: its scheduled discipline (CoDel, PIE…)
    /// chooses the next. Drop-tail links never need it.
    LinkTransmitted(u32),
    /// A flow's application starts sending.
    FlowStart(u32),
    /// A flow's retransmission timer.
    RetransmissionTimer(u32),
    /// A flow may send again: pacing or TCP Small Queues held it back until now.
    SendTimer(u32),
    /// A flow's delayed-ACK timer at the receiver.
    DelayedAckTimer(u32),
    /// A flow's SYN timer (`handshake = true`).
    HandshakeTimer(u32),
    /// A UDP flow's next packet is due (one event per packet).
    UdpSend(u32),
    /// A period of a TCP flow's on/off application ends.
    OnOffToggle(u32),
    /// Record time-series samples.
    Sample,
    /// The steady-state measurement window opens: snapshot the counters.
    WindowStart,
    /// A short flow of this workload (index among the run's workloads) arrives.
    WorkloadArrival(u32),
    /// The Wi-Fi medium's next step (a countdown reached zero, or transmissions end), if
    /// this generation is still its live one (`net::wifi::Medium`).
    WifiMedium(u32),
}

/// Where an event sorts among events due at the same time: by when it was scheduled, then by
/// when the event that scheduled it had been scheduled, then by a rank that grows with the
/// order in which events were scheduled. For an event scheduled now this is exactly the order
/// of scheduling (events run in this order, so the times of scheduling and their parents'
/// never decrease, and the rank is the insertion count). A folded hop's delivery carries the
/// precedence its unfolded event would have had (`crate::folding`), where the rank is that
/// of the first real event of the chain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Precedence {
    pub scheduled_at: SimTime,
    pub parent_scheduled_at: SimTime,
    pub rank: u64,
}

impl Precedence {
    /// The precedence of an event scheduled at `at` by an event of this precedence, when
    /// the scheduling event is itself folded away (no insertion count of its own).
    pub fn child_at(self, at: SimTime) -> Precedence {
        Precedence {
            scheduled_at: at,
            parent_scheduled_at: self.scheduled_at,
            rank: self.rank,
        }
    }
}

/// What an event sorts by besides its time, and what it is: kept in the queue's slots, so
/// that the buckets move (time, slot) keys instead of 48-byte entries (issue 18: the heap's
/// moves and comparisons were a quarter of a ten-flow run).
#[derive(Clone, Copy, Debug)]
struct Pending {
    precedence: Precedence,
    order: u64,
    event: Event,
}

/// An entry of a bucket: the time, which decides where it goes, and the slot of the rest.
#[derive(Clone, Copy, Debug)]
struct Key {
    time: SimTime,
    slot: u32,
}

/// Bits of a time per level of the radix heap: a level's buckets are the values of one
/// digit of this many bits.
const DIGIT_BITS: u32 = 8;
const DIGITS: usize = 1 << DIGIT_BITS;
const LEVELS: usize = 64 / DIGIT_BITS as usize;
const BUCKETS: usize = LEVELS * DIGITS;
/// Words of the bitmap of the buckets that hold entries (one bit per bucket).
const WORDS: usize = BUCKETS / 64;
const _: () = assert!(WORDS <= 32, "the bitmap's words are marked in a u32");

/// The bucket of an entry due at `time` when the current time is `now`: none when the two
/// are equal (the entry is one of the ties), else the digit of `time` at the level of the
/// highest bit in which the two differ, counted from the lowest level. `time > now`, so
/// that digit is above `now`'s and the bits above it are `now`'s: the buckets in index order
/// hold ever later times, and an entry stays in its bucket's order as `now` advances
/// towards it (Ahuja, Mehlhorn, Orlin and Tarjan 1990, with digits of `DIGIT_BITS` bits).
#[inline(always)]
fn bucket_of(time: SimTime, now: SimTime) -> Option<usize> {
    let differ = time.as_nanos() ^ now.as_nanos();
    if differ == 0 {
        return None;
    }
    let level = (63 - differ.leading_zeros()) / DIGIT_BITS;
    let digit = (time.as_nanos() >> (level * DIGIT_BITS)) as usize & (DIGITS - 1);
    Some(level as usize * DIGITS + digit)
}

/// The pending events in a radix heap on time (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster
/// algorithms for the shortest path problem", JACM 37(2), 1990): a monotone priority queue,
/// which a discrete-event simulator's queue is, as no event is scheduled before the current
/// time (the time of the event popped last). An entry due later than now waits in the bucket
/// of the highest digit in which its time differs from now ([`bucket_of`]); every entry of a
/// bucket is due before every entry of a later bucket. A pop takes the lowest bucket that
/// holds entries: a lone entry is the next event; otherwise the least time in it becomes the
/// current time and its entries move to lower buckets (each entry moves at most once per
/// level, eight in all, where a binary heap's pop walked 17 levels at 100 000 flows).
/// The entries due at the current time itself are the ties: a binary heap of slots on
/// (precedence, insertion order), the rest of the order.
///
/// The order is total (the insertion order is unique), so the queue pops exactly the
/// sequence a binary heap of whole (time, precedence, insertion order) entries pops; the
/// proptest below holds it to that.
pub struct EventQueue {
    /// The buckets, by level then digit ([`bucket_of`]); a bucket keeps its capacity when
    /// it is emptied, as it fills again when `now` comes round to its digit.
    buckets: Box<[Vec<Key>]>,
    /// Bit `b % 64` of word `b / 64` is set if bucket `b` holds entries.
    occupied: [u64; WORDS],
    /// Bit `w` is set if word `w` of `occupied` is not zero.
    occupied_words: u32,
    /// The slots of the pending events due now, a binary min-heap on (precedence, insertion
    /// order).
    ties: Vec<u32>,
    /// Pending events.
    len: usize,
    /// The slot of the event popped last, if no event was scheduled since: the next event
    /// scheduled takes it, or the next pop gives it to `free`. Most events schedule their
    /// successor (a link's next delivery, a timer's next deadline), so the slot rarely goes
    /// through the free list.
    popped: Option<u32>,
    /// The pending events' precedences and kinds, indexed by `Key::slot`.
    slots: Vec<Pending>,
    free: Vec<u32>,
    inserted: u64,
    /// The time of the event popped last: the current time. Nothing is scheduled before it,
    /// and it moves only when an event is popped (never when one is peeked at), so it is
    /// the radix heap's "last deleted key".
    now: SimTime,
    /// When the event popped last had been scheduled.
    now_scheduled_at: SimTime,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            occupied: [0; WORDS],
            occupied_words: 0,
            ties: Vec::new(),
            len: 0,
            popped: None,
            slots: Vec::new(),
            free: Vec::new(),
            inserted: 0,
            now: SimTime::ZERO,
            now_scheduled_at: SimTime::ZERO,
        }
    }
}

/// Does the event in slot `a` run before the one in slot `b`, both due at the same time?
/// By precedence, then insertion order.
///
/// `a` and `b` are slots of pending events, which index `slots` (it never shrinks): read
/// unchecked, as the bound tests held registers in every level of the ties' sift loops.
#[inline(always)]
fn tie_earlier(slots: &[Pending], a: u32, b: u32) -> bool {
    // SAFETY: the slots of pending events are below `slots.len()` (above).
    let (a, b) = unsafe {
        (
            slots.get_unchecked(a as usize),
            slots.get_unchecked(b as usize),
        )
    };
    (a.precedence, a.order) < (b.precedence, b.order)
}

impl EventQueue {
    /// Schedule `event` at `time`, now.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        self.schedule_as_of(time, &self.precedence_now(), event);
    }

    /// The precedence of an event scheduled now.
    #[inline]
    pub fn precedence_now(&self) -> Precedence {
        Precedence {
            scheduled_at: self.now,
            parent_scheduled_at: self.now_scheduled_at,
            rank: self.inserted,
        }
    }

    /// Schedule `event` at `time` with `precedence` among the events due then (scheduled
    /// now or, for a folded hop's delivery, as its unfolded event would have been).
    ///
    /// `time` must not be before now (asserted in debug builds): the radix heap's buckets
    /// are relative to now, and a simulator's event in the past is a bug anyway.
    ///
    /// By reference: by value, the caller made a copy of the 24-byte precedence for the call
    /// (the callee may write to a large argument), besides the one it had (callgrind,
    /// docs/performance.md).
    #[inline]
    pub fn schedule_as_of(&mut self, time: SimTime, precedence: &Precedence, event: Event) {
        debug_assert!(precedence.scheduled_at >= self.now && precedence.scheduled_at <= time);
        let pending = Pending {
            precedence: *precedence,
            order: self.inserted,
            event,
        };
        self.inserted += 1;
        self.len += 1;
        let slot = match self.popped.take().or_else(|| self.free.pop()) {
            Some(slot) => {
                // SAFETY: a popped or freed slot indexes `slots`, which never shrinks.
                unsafe { *self.slots.get_unchecked_mut(slot as usize) = pending };
                slot
            }
            None => {
                self.slots.push(pending);
                (self.slots.len() - 1) as u32
            }
        };
        match bucket_of(time, self.now) {
            Some(bucket) => self.push_to_bucket(bucket, Key { time, slot }),
            None => self.push_tie(slot),
        }
    }

    #[inline(always)]
    fn push_to_bucket(&mut self, bucket: usize, key: Key) {
        debug_assert!(bucket < BUCKETS);
        // SAFETY: `bucket_of` gives a level below `LEVELS` (a bit index over `DIGIT_BITS`)
        // and a digit below `DIGITS`.
        unsafe { self.buckets.get_unchecked_mut(bucket) }.push(key);
        let word = bucket / 64;
        self.occupied[word] |= 1 << (bucket % 64);
        self.occupied_words |= 1 << word;
    }

    /// The lowest bucket that holds entries, if any.
    #[inline(always)]
    fn lowest_bucket(&self) -> Option<usize> {
        if self.occupied_words == 0 {
            return None;
        }
        let word = self.occupied_words.trailing_zeros() as usize;
        Some(word * 64 + self.occupied[word].trailing_zeros() as usize)
    }

    /// Mark `bucket`, now empty, as such.
    #[inline(always)]
    fn mark_emptied(&mut self, bucket: usize) {
        let word = bucket / 64;
        self.occupied[word] &= !(1 << (bucket % 64));
        if self.occupied[word] == 0 {
            self.occupied_words &= !(1 << word);
        }
    }

    /// Add the event in `slot`, due now, to the ties.
    fn push_tie(&mut self, slot: u32) {
        let (ties, slots) = (&mut self.ties, &self.slots[..]);
        ties.push(slot);
        let mut hole = ties.len() - 1;
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if !tie_earlier(slots, slot, ties[parent]) {
                break;
            }
            ties[hole] = ties[parent];
            hole = parent;
        }
        ties[hole] = slot;
    }

    /// Take the earliest of the ties (there is one).
    fn pop_tie(&mut self) -> u32 {
        let (ties, slots) = (&mut self.ties, &self.slots[..]);
        let last = ties.pop().expect("pop_tie is called with ties pending");
        let Some(&first) = ties.first() else {
            return last;
        };
        // Move the hole from the root down along the earlier child while that child runs
        // before `last`, then put `last` in it.
        let len = ties.len();
        let mut hole = 0;
        loop {
            let mut child = 2 * hole + 1;
            if child >= len {
                break;
            }
            if child + 1 < len && tie_earlier(slots, ties[child + 1], ties[child]) {
                child += 1;
            }
            if !tie_earlier(slots, ties[child], last) {
                break;
            }
            ties[hole] = ties[child];
            hole = child;
        }
        ties[hole] = last;
        first
    }

    /// The next event's slot, if one is due by `end`; it becomes the current event (`now`
    /// moves to its time).
    #[inline(always)]
    fn take_next(&mut self, end: SimTime) -> Option<u32> {
        if let Some(slot) = self.popped.take() {
            self.free.push(slot);
        }
        if !self.ties.is_empty() {
            if self.now > end {
                return None;
            }
            return Some(self.pop_tie());
        }
        let bucket = self.lowest_bucket()?;
        // SAFETY: `lowest_bucket` is below `BUCKETS`.
        let entries = unsafe { self.buckets.get_unchecked_mut(bucket) };
        if let [key] = entries[..] {
            // A lone entry is the earliest: most pops at few flows.
            if key.time > end {
                return None;
            }
            entries.clear();
            self.mark_emptied(bucket);
            self.now = key.time;
            return Some(key.slot);
        }
        self.pour(bucket, end)
    }

    /// Take the earliest event of `bucket`, which holds more than one, if it is due by
    /// `end`: its time becomes now, and the bucket's other entries move to the lower
    /// buckets (or the ties) they fall in relative to it.
    #[inline(never)]
    fn pour(&mut self, bucket: usize, end: SimTime) -> Option<u32> {
        let mut entries = std::mem::take(&mut self.buckets[bucket]);
        let least = entries
            .iter()
            .map(|key| key.time)
            .min()
            .expect("pour is called on a bucket that holds entries");
        if least > end {
            self.buckets[bucket] = entries;
            return None;
        }
        self.mark_emptied(bucket);
        self.now = least;
        for &key in &entries {
            match bucket_of(key.time, least) {
                Some(lower) => self.push_to_bucket(lower, key),
                None => self.push_tie(key.slot),
            }
        }
        entries.clear();
        self.buckets[bucket] = entries;
        Some(self.pop_tie())
    }

    /// The event in `slot`, popped: the current event.
    #[inline(always)]
    fn popped_event(&mut self, slot: u32) -> (SimTime, Event) {
        self.len -= 1;
        self.popped = Some(slot);
        // SAFETY: a pending event's slot indexes `slots`, which never shrinks.
        let pending = unsafe { self.slots.get_unchecked(slot as usize) };
        self.now_scheduled_at = pending.precedence.scheduled_at;
        (self.now, pending.event)
    }

    /// The next event. Its slot is kept for the next event scheduled.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_until(SimTime::MAX)
    }

    /// [`EventQueue::pop`] if the next event is due by `end`: the event loop's one call per
    /// event.
    #[inline]
    pub fn pop_until(&mut self, end: SimTime) -> Option<(SimTime, Event)> {
        let slot = self.take_next(end)?;
        Some(self.popped_event(slot))
    }

    /// The next event's time. It only looks: `now` stays, as an event may still be
    /// scheduled between now and that time.
    pub fn peek_time(&self) -> Option<SimTime> {
        if !self.ties.is_empty() {
            return Some(self.now);
        }
        let bucket = self.lowest_bucket()?;
        self.buckets[bucket].iter().map(|key| key.time).min()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A timer that may be re-armed often (the RTO on every ACK) without flooding the heap: the
/// heap holds at most one live entry per slot, fired at the earliest deadline ever armed;
/// when it fires early, it re-schedules itself for the current deadline.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerSlot {
    deadline: Option<SimTime>,
    scheduled: Option<SimTime>,
}

impl TimerSlot {
    /// Arm or disarm. Returns the time at which an event must be scheduled, if one is needed.
    pub fn set(&mut self, deadline: Option<SimTime>) -> Option<SimTime> {
        self.deadline = deadline;
        match (deadline, self.scheduled) {
            (Some(d), None) => {
                self.scheduled = Some(d);
                Some(d)
            }
            (Some(d), Some(s)) if d < s => {
                self.scheduled = Some(d);
                Some(d)
            }
            _ => None,
        }
    }

    /// A deadline is set: an event for it will fire.
    pub fn armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// An event for this slot fired at `now`. Returns `Fire` if the deadline is due,
    /// `Reschedule(t)` if the deadline moved later, `Ignore` for a stale or disarmed event.
    pub fn on_event(&mut self, now: SimTime) -> TimerAction {
        if self.scheduled != Some(now) {
            return TimerAction::Ignore; // superseded by an earlier scheduling
        }
        self.scheduled = None;
        match self.deadline {
            Some(d) if d <= now => {
                self.deadline = None;
                TimerAction::Fire
            }
            Some(d) => {
                self.scheduled = Some(d);
                TimerAction::Reschedule(d)
            }
            None => TimerAction::Ignore,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerAction {
    Fire,
    Reschedule(SimTime),
    Ignore,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(ns: u64) -> SimTime {
        SimTime::from_nanos(ns)
    }

    #[test]
    fn pops_in_time_order_and_ties_in_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(t(5), Event::Sample);
        q.schedule(t(1), Event::FlowStart(2));
        q.schedule(t(5), Event::FlowStart(0));
        q.schedule(t(1), Event::FlowStart(1));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (t(1), Event::FlowStart(2)),
                (t(1), Event::FlowStart(1)),
                (t(5), Event::Sample),
                (t(5), Event::FlowStart(0)),
            ]
        );
    }

    #[test]
    fn an_event_scheduled_ahead_sorts_by_its_time_of_scheduling() {
        // At time 0, a folded hop schedules a delivery at 10 as of 4 (when its unfolded
        // chain would have). An event scheduled at 2 for 10 runs before it, one scheduled at
        // 6 for 10 after it, although both were inserted later.
        let mut q = EventQueue::default();
        q.schedule_as_of(
            t(10),
            &Precedence {
                scheduled_at: t(4),
                parent_scheduled_at: t(0),
                rank: 0,
            },
            Event::FoldedDelivery(0),
        );
        q.schedule(t(2), Event::FlowStart(0));
        q.schedule(t(6), Event::FlowStart(1));
        assert_eq!(q.pop(), Some((t(2), Event::FlowStart(0))));
        q.schedule(t(10), Event::SendTimer(0)); // scheduled at 2
        assert_eq!(q.pop(), Some((t(6), Event::FlowStart(1))));
        q.schedule(t(10), Event::SendTimer(1)); // scheduled at 6
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (t(10), Event::SendTimer(0)),
                (t(10), Event::FoldedDelivery(0)),
                (t(10), Event::SendTimer(1)),
            ]
        );
    }

    /// The heap must pop exactly what a plain search for the least (time, precedence,
    /// insertion order) pops (the order `EventQueue`'s documentation defines), with many
    /// ties in time and in the times of scheduling, events scheduled now and ahead, and pops
    /// interleaved with pushes.
    #[test]
    fn pops_the_least_key_as_a_linear_search_does() {
        let mut rng = crate::rng::Rng::for_component(7, "event-queue-test");
        for _ in 0..50 {
            let mut queue = EventQueue::default();
            // (time, precedence, insertion order, event): the reference.
            let mut pending: Vec<(SimTime, Precedence, u64, Event)> = Vec::new();
            let mut inserted = 0u64;
            for _ in 0..400 {
                if rng.below(3) > 0 {
                    // Few distinct times, so that ties are common.
                    let now = queue.now.as_nanos();
                    let time = t(now + rng.below(4));
                    let event = Event::FlowStart(inserted as u32);
                    let precedence = if rng.below(2) == 0 {
                        queue.precedence_now()
                    } else {
                        let scheduled_at = now + rng.below(time.as_nanos() - now + 1);
                        Precedence {
                            scheduled_at: t(scheduled_at),
                            parent_scheduled_at: t(rng.below(scheduled_at + 1)),
                            rank: rng.below(inserted + 1),
                        }
                    };
                    queue.schedule_as_of(time, &precedence, event);
                    pending.push((time, precedence, inserted, event));
                    inserted += 1;
                } else if let Some(least) = (0..pending.len()).min_by_key(|&i| {
                    let (time, precedence, order, _) = pending[i];
                    (time, precedence, order)
                }) {
                    let (time, _, _, event) = pending.swap_remove(least);
                    assert_eq!(queue.pop(), Some((time, event)));
                } else {
                    assert_eq!(queue.pop(), None);
                }
                assert_eq!(queue.len(), pending.len());
            }
        }
    }

    /// One step of a random schedule for the differential test below.
    #[derive(Clone, Debug)]
    enum Step {
        /// Schedule `count` events (a burst when more than one) `ahead` of now, as of now
        /// or, when `folded`, as of a time between now and then with an older rank (as a
        /// folded hop's delivery is), the fractions in thousandths.
        Schedule {
            count: usize,
            ahead: u64,
            folded: Option<(u64, u64, u64)>,
        },
        /// Pop the next event, or, with a bound, the next one due by now + the bound.
        Pop {
            until: Option<u64>,
        },
        Peek,
    }

    fn step() -> impl Strategy<Value = Step> {
        // Times ahead: mostly ties and near events (deliveries), some far ones (timers).
        let ahead = prop_oneof![
            4 => 0u64..4,
            3 => 0u64..2_000,
            1 => 100_000u64..1_000_000,
        ];
        let folded = proptest::option::weighted(0.4, (0u64..=1000, 0u64..=1000, 0u64..=1000));
        prop_oneof![
            6 => (prop_oneof![8 => Just(1usize), 1 => 2usize..40], ahead, folded)
                .prop_map(|(count, ahead, folded)| Step::Schedule { count, ahead, folded }),
            5 => proptest::option::weighted(0.3, 0u64..3_000).prop_map(|until| Step::Pop { until }),
            1 => Just(Step::Peek),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The queue pops exactly what `std`'s `BinaryHeap` of whole (time, precedence,
        /// insertion order) entries pops, the total order `EventQueue` defines, for random
        /// schedules of ties, bursts, near and far events, and events scheduled ahead as
        /// folded deliveries are, with pops (bounded or not) and peeks between them. Written
        /// for the 4-ary heap of issue 18 (which passed it and was not kept: performance.md),
        /// it holds any change to the heap's layout to the same sequence.
        #[test]
        fn pops_what_a_binary_heap_of_whole_entries_pops(
            steps in proptest::collection::vec(step(), 1..1_500)
        ) {
            use std::cmp::Reverse;
            use std::collections::BinaryHeap;
            let mut queue = EventQueue::default();
            let mut reference: BinaryHeap<Reverse<(SimTime, Precedence, u64)>> = BinaryHeap::new();
            let mut inserted = 0u64;
            for step in steps {
                let now = queue.now.as_nanos();
                match step {
                    Step::Schedule { count, ahead, folded } => {
                        for _ in 0..count {
                            let time = t(now + ahead);
                            let precedence = match folded {
                                None => queue.precedence_now(),
                                Some((at, parent, rank)) => {
                                    let scheduled_at = now + ahead * at / 1000;
                                    Precedence {
                                        scheduled_at: t(scheduled_at),
                                        parent_scheduled_at: t(scheduled_at * parent / 1000),
                                        rank: inserted * rank / 1000,
                                    }
                                }
                            };
                            queue.schedule_as_of(time, &precedence, Event::FlowStart(inserted as u32));
                            reference.push(Reverse((time, precedence, inserted)));
                            inserted += 1;
                        }
                    }
                    Step::Pop { until } => {
                        let end = until.map_or(SimTime::MAX, |until| t(now + until));
                        let expected = match reference.peek() {
                            Some(&Reverse((time, _, order))) if time <= end => {
                                reference.pop();
                                Some((time, Event::FlowStart(order as u32)))
                            }
                            _ => None,
                        };
                        let popped = if until.is_some() { queue.pop_until(end) } else { queue.pop() };
                        prop_assert_eq!(popped, expected);
                    }
                    Step::Peek => {
                        let expected = reference.peek().map(|&Reverse((time, _, _))| time);
                        prop_assert_eq!(queue.peek_time(), expected);
                    }
                }
                prop_assert_eq!(queue.len(), reference.len());
            }
            while let Some(Reverse((time, _, order))) = reference.pop() {
                prop_assert_eq!(queue.pop(), Some((time, Event::FlowStart(order as u32))));
            }
            prop_assert_eq!(queue.pop(), None);
        }
    }

    #[test]
    fn timer_slot_reschedules_when_the_deadline_moved_later() {
        let mut slot = TimerSlot::default();
        assert_eq!(slot.set(Some(t(10))), Some(t(10)));
        assert_eq!(slot.set(Some(t(20))), None); // the event at 10 stays in the heap
        assert_eq!(slot.on_event(t(10)), TimerAction::Reschedule(t(20)));
        assert_eq!(slot.on_event(t(20)), TimerAction::Fire);
    }

    #[test]
    fn timer_slot_ignores_superseded_and_disarmed_events() {
        let mut slot = TimerSlot::default();
        slot.set(Some(t(30)));
        assert_eq!(slot.set(Some(t(10))), Some(t(10))); // earlier: a new event
        assert_eq!(slot.on_event(t(10)), TimerAction::Fire);
        assert_eq!(slot.on_event(t(30)), TimerAction::Ignore); // stale
        slot.set(Some(t(40)));
        slot.set(None);
        assert_eq!(slot.on_event(t(40)), TimerAction::Ignore);
    }
}
