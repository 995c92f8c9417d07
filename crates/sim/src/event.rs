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

/// What an event sorts by besides its time, and what it is: kept in the queue's slots, out
/// of the heap, so that the heap moves (time, slot) keys (a time and a slot number, in
/// [`Keys`]' two arrays) instead of 48-byte entries (issue 18: the heap's moves and
/// comparisons were a quarter of a ten-flow run).
#[derive(Clone, Copy, Debug)]
struct Pending {
    precedence: Precedence,
    order: u64,
    event: Event,
}

/// An entry of the heap: the time, which decides nearly every comparison, and the slot of
/// the rest. Ties in time (rare) read the slots' precedence and insertion order.
#[derive(Clone, Copy, Debug)]
struct Key {
    time: SimTime,
    slot: u32,
}

/// The heap's keys, their times and their slots in two arrays of the same length: a level
/// of a sift compares two times read by index (8-byte entries, which x86 addresses by a
/// scaled index, where 16-byte keys took a shift per index), and moves a key with two
/// plain loads and stores (callgrind, docs/performance.md).
#[derive(Default)]
struct Keys {
    times: Vec<SimTime>,
    slots: Vec<u32>,
}

impl Keys {
    #[inline(always)]
    fn len(&self) -> usize {
        self.times.len()
    }

    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    #[inline(always)]
    fn first(&self) -> Option<Key> {
        // SAFETY: the two arrays have the same length.
        (!self.is_empty()).then(|| unsafe { self.get(0) })
    }

    #[inline(always)]
    fn push(&mut self, key: Key) {
        self.times.push(key.time);
        self.slots.push(key.slot);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<Key> {
        let time = self.times.pop()?;
        let slot = self
            .slots
            .pop()
            .expect("the two arrays have the same length");
        Some(Key { time, slot })
    }

    /// The key at `i`.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    unsafe fn get(&self, i: usize) -> Key {
        debug_assert!(i < self.len());
        // SAFETY: `i < len` (the caller's), and both arrays have that length.
        unsafe {
            Key {
                time: *self.times.get_unchecked(i),
                slot: *self.slots.get_unchecked(i),
            }
        }
    }

    /// Put `key` at `i`.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    unsafe fn set(&mut self, i: usize, key: Key) {
        debug_assert!(i < self.len());
        // SAFETY: as in `get`.
        unsafe {
            *self.times.get_unchecked_mut(i) = key.time;
            *self.slots.get_unchecked_mut(i) = key.slot;
        }
    }
}

/// A binary min-heap on (time, precedence, insertion order). The order is total (the
/// insertion order is unique), so any correct heap pops the same sequence: this one pops
/// exactly what `std`'s `BinaryHeap` of whole entries popped.
#[derive(Default)]
pub struct EventQueue {
    heap: Keys,
    /// The root was popped and its place not yet filled: the next event scheduled takes it
    /// (one pass down the heap, where a pop and a push would each make one), or, if the next
    /// thing asked is the next event, the last entry does, as in a plain pop. Most events
    /// schedule their successor (a link's next delivery, a timer's next deadline), so most
    /// pops end this way.
    root_vacant: bool,
    /// The pending events' precedences and kinds, indexed by `Key::slot`; a popped event's
    /// slot goes to `free` and is reused by the next one scheduled.
    slots: Vec<Pending>,
    free: Vec<u32>,
    inserted: u64,
    /// The time of the event popped last: the current time.
    now: SimTime,
    /// When the event popped last had been scheduled.
    now_scheduled_at: SimTime,
}

/// Does `a` run before `b`? By time, then (rare: equal times) by precedence and insertion
/// order.
#[inline(always)]
fn earlier(slots: &[Pending], a: Key, b: Key) -> bool {
    if a.time != b.time {
        return a.time < b.time;
    }
    tie_earlier(slots, a.slot, b.slot)
}

/// Inlined although ties are rare (a few hundred in millions of comparisons): out of line,
/// the call in the sift loops made the compiler keep the heap's pointer and length on the
/// stack and reload them at every level (1 % of the ten-flow run's instructions).
///
/// `a` and `b` are slots of keys in the heap, which index `slots` (it never shrinks): read
/// unchecked, as the bound tests held two registers in every level of the sift loops.
#[inline(always)]
fn tie_earlier(slots: &[Pending], a: u32, b: u32) -> bool {
    // SAFETY: the slots of the heap's keys are below `slots.len()` (above).
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
        self.insert(time, pending);
    }

    /// Take the next `count` insertion numbers for events to be scheduled later with
    /// [`EventQueue::schedule_reserved`], each exactly where it would sort had it been
    /// scheduled now, the `count` in a row: what they share is returned. (`Simulation` chains
    /// the flows' starts this way, one pending at a time instead of every flow's at once.)
    pub fn reserve(&mut self, count: u64) -> Precedence {
        let first = self.precedence_now();
        self.inserted += count;
        first
    }

    /// Schedule `event` at `time` as the `index`th of the events `reserved` (from
    /// [`EventQueue::reserve`]): with the precedence and insertion order it would have had.
    pub fn schedule_reserved(
        &mut self,
        time: SimTime,
        reserved: &Precedence,
        index: u64,
        event: Event,
    ) {
        // For an event scheduled now the rank is its insertion order (`Precedence`).
        let order = reserved.rank + index;
        debug_assert!(order < self.inserted && reserved.scheduled_at <= time);
        let precedence = Precedence {
            rank: order,
            ..*reserved
        };
        self.insert(
            time,
            Pending {
                precedence,
                order,
                event,
            },
        );
    }

    /// Put `pending` in the heap at `time`.
    #[inline(always)]
    fn insert(&mut self, time: SimTime, pending: Pending) {
        if self.root_vacant {
            // Replace the popped root: the heap keeps its size, and the new event takes the
            // popped event's slot (the vacant root still names it; it never went to the free
            // list).
            self.root_vacant = false;
            // SAFETY: a vacant root is an entry of the heap (`pop_until` and `pop` leave it
            // there), and every key's slot indexes `slots`, which never shrinks. Unchecked,
            // as the two bound tests and their panics cost registers the sift below wants.
            let slot = unsafe { self.heap.get(0).slot };
            unsafe { *self.slots.get_unchecked_mut(slot as usize) = pending };
            self.sift_down_from_root(Key { time, slot });
            return;
        }
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = pending;
                slot
            }
            None => {
                self.slots.push(pending);
                (self.slots.len() - 1) as u32
            }
        };
        let key = Key { time, slot };
        self.heap.push(key);
        self.sift_up(self.heap.len() - 1, key);
    }

    /// Put `key` in the hole at `hole` and move it up past the entries that run after it.
    #[inline(always)]
    fn sift_up(&mut self, mut hole: usize, key: Key) {
        let (heap, slots) = (&mut self.heap, &self.slots[..]);
        assert!(hole < heap.len());
        while hole > 0 {
            let parent = (hole - 1) / 2;
            // SAFETY: parent < hole < heap.len() (asserted above; hole only decreases).
            let above = unsafe { heap.get(parent) };
            if !earlier(slots, key, above) {
                break;
            }
            // SAFETY: hole < heap.len(), as above.
            unsafe { heap.set(hole, above) };
            hole = parent;
        }
        // SAFETY: hole < heap.len(), as above.
        unsafe { heap.set(hole, key) };
    }

    /// Fill the hole at the root with `key`. As `std`'s `BinaryHeap::pop`: move the hole down
    /// to the bottom along the earlier child, then put `key` there and move it up (a key that
    /// replaces the root, the last entry or a new event, usually belongs near the bottom, so
    /// this takes about one comparison per level).
    #[inline(always)]
    fn fill_hole_at_root(&mut self, key: Key) {
        let (heap, slots) = (&mut self.heap, &self.slots[..]);
        let len = heap.len();
        let mut hole = 0;
        let mut child = 1;
        while child + 1 < len {
            // SAFETY: hole < child < child + 1 < len.
            unsafe {
                let (left, right) = (heap.get(child), heap.get(child + 1));
                let take_right = earlier(slots, right, left);
                heap.set(hole, if take_right { right } else { left });
                hole = child + usize::from(take_right);
            }
            child = 2 * hole + 1;
        }
        if child == len - 1 {
            // SAFETY: hole < child = len - 1.
            unsafe { heap.set(hole, heap.get(child)) };
            hole = child;
        }
        self.sift_up(hole, key);
    }

    /// Fill the hole at the root with `key`, a new event, moving the hole down along the
    /// earlier child while that child runs before `key`. A new event usually runs soon (a
    /// link's next delivery, microseconds ahead, among timers seconds ahead), so it stops
    /// high in the heap, where [`EventQueue::fill_hole_at_root`] would take it to the bottom
    /// and back up.
    ///
    /// The loop runs while both children exist, and a lone last child is looked at once
    /// after it, as in `std`'s `BinaryHeap` (one bound test per level instead of two); the
    /// loop's condition keeps its indexes below `len`, so they are not checked again.
    #[inline(always)]
    fn sift_down_from_root(&mut self, key: Key) {
        let (heap, slots) = (&mut self.heap, &self.slots[..]);
        let len = heap.len();
        let mut hole = 0;
        let mut child = 1;
        while child + 1 < len {
            // SAFETY: hole < child < child + 1 < len.
            unsafe {
                // The earlier child chosen by index and read again whole, rather than both
                // children's keys selected field by field (fewer registers held per level).
                let earliest =
                    child + usize::from(earlier(slots, heap.get(child + 1), heap.get(child)));
                let next = heap.get(earliest);
                if !earlier(slots, next, key) {
                    heap.set(hole, key);
                    return;
                }
                heap.set(hole, next);
                hole = earliest;
            }
            child = 2 * hole + 1;
        }
        // SAFETY: hole < child + 1 == len, or hole < len (the root, or a child below len).
        unsafe {
            if child + 1 == len && earlier(slots, heap.get(child), key) {
                heap.set(hole, heap.get(child));
                hole = child;
            }
            heap.set(hole, key);
        }
    }

    /// Fill a vacant root with the last entry, as a pop would have, and free the popped
    /// event's slot.
    #[inline(always)]
    fn settle(&mut self) {
        if self.root_vacant {
            self.root_vacant = false;
            // SAFETY: a vacant root is an entry of the heap.
            self.free.push(unsafe { self.heap.get(0) }.slot);
            let last = self
                .heap
                .pop()
                .expect("a vacant root is an entry of the heap");
            if !self.heap.is_empty() {
                self.fill_hole_at_root(last);
            }
        }
    }

    /// The next event. Its slot stays with the vacant root, for the next event scheduled
    /// (or for the free list, when [`EventQueue::settle`] fills the root).
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.settle();
        let top = self.heap.first()?;
        self.root_vacant = true;
        // SAFETY: a key's slot indexes `slots`, which never shrinks.
        let pending = unsafe { self.slots.get_unchecked(top.slot as usize) };
        self.now = top.time;
        self.now_scheduled_at = pending.precedence.scheduled_at;
        Some((top.time, pending.event))
    }

    /// [`EventQueue::pop`] if the next event is due by `end`: the event loop's one call per
    /// event (a peek and a pop settled the root and read it twice).
    #[inline]
    pub fn pop_until(&mut self, end: SimTime) -> Option<(SimTime, Event)> {
        self.settle();
        let top = self.heap.first()?;
        if top.time > end {
            return None;
        }
        self.root_vacant = true;
        // SAFETY: a key's slot indexes `slots`, which never shrinks.
        let pending = unsafe { self.slots.get_unchecked(top.slot as usize) };
        self.now = top.time;
        self.now_scheduled_at = pending.precedence.scheduled_at;
        Some((top.time, pending.event))
    }

    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.settle();
        self.heap.first().map(|k| k.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.root_vacant)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
            // Timers seconds ahead (the radix heap of issue 18 filed them in its high levels).
            1 => 1_000_000u64..10_000_000_000,
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
