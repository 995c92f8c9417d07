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
/// of the heap's array, so that the heap moves 16-byte (time, slot) pairs instead of 48-byte
/// entries (issue 18: the heap's moves and comparisons were a quarter of a ten-flow run).
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

/// A binary min-heap on (time, precedence, insertion order). The order is total (the
/// insertion order is unique), so any correct heap pops the same sequence: this one pops
/// exactly what `std`'s `BinaryHeap` of whole entries popped.
#[derive(Default)]
pub struct EventQueue {
    heap: Vec<Key>,
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
    /// Events scheduled together in a batch ([`EventQueue::schedule_batch`]: the flows'
    /// starts), sorted once, latest first: the last runs next. Out of the heap, so that the
    /// starts still to come do not deepen every pop before they are due.
    batch: Vec<Key>,
    /// The folded deliveries' lanes ([`EventQueue::set_lanes`]) and each link's state in them.
    lanes: Vec<Lane>,
    folded: Vec<FoldedLink>,
    /// Lane entries whose event is scheduled (each the head of its link's wire).
    lane_events: usize,
    /// The event popped last came from a lane (checked by [`EventQueue::folded_delivered`]).
    popped_from_lane: bool,
    /// The earliest of the batch's last and the lanes' heads, and where it is
    /// (`Source::Nothing`: none; then a pop is the heap's alone), kept so that a pop compares
    /// the heap's root with one time rather than looking at every lane.
    side_time: SimTime,
    side_from: Source,
    /// An event was popped from the batch or a lane: find the earliest of them again before
    /// the next pop (not at once: a lane's new head may be the next packet of the link just
    /// delivered, whose precedence the delivery is still to give, `folded_delivered`).
    side_stale: bool,
}

/// A batch of fewer events is scheduled one by one, in the heap: sorting it apart saves
/// nothing, and the pops would look at the batch until it is over.
const MIN_BATCH: usize = 64;

/// No lane: a link's folded deliveries go to the heap.
pub const NO_LANE: u32 = u32::MAX;

/// A lane of folded deliveries (issue 18): the packets that left one link for folded links
/// of one delay and rate, one entry per packet in the order they were admitted, their
/// arrival times strictly increasing (an entry that would not be later than the lane's last
/// goes to the heap instead). Only the head is ever a candidate for the next event, compared
/// with the heap's root at each pop, so a folded delivery costs no heap operation at all.
///
/// Why the pops are exactly the heap's (the total order: time, precedence, insertion order):
/// an entry's event, in the order of the heap alone, is the `FoldedDelivery` of its link
/// scheduled either when the packet was admitted (its link's wire was empty) or when the
/// packet ahead of it on that link was delivered. An entry is put in a lane only if the
/// packet ahead of it on its link, if any, is in the same lane (so earlier in it), and its
/// event's precedence and insertion number are given to it at the same moment, by the same
/// call, as the heap's scheduling would have (`FoldedLink::key`, counting `inserted` alike).
/// So the lane's head is always a scheduled event: the packet ahead of it on its link was
/// in front of it in the lane and is delivered. The lane's times increase strictly, so its
/// head has the least key of all its scheduled events; the least of the heap's root, the
/// batch's last and the lanes' heads is the least scheduled event, which is what one heap
/// of all events would pop. Entries behind the head whose event is not scheduled yet are
/// no events at all; they become scheduled before they reach the head.
///
/// The entries are a ring of a power-of-two size (a `VecDeque` cost more than the heap
/// operations saved at a thousand flows; a `Vec` read from an index, compacted now and then,
/// spent as much again in moving entries at 100 000 flows).
#[derive(Default)]
struct Lane {
    ring: Vec<LaneEntry>,
    head: usize,
    len: usize,
}

#[derive(Clone, Copy, Debug, Default)]
struct LaneEntry {
    time: SimTime,
    link: u32,
}

impl Lane {
    /// Can an entry due at `time` join the lane? Only later than every entry in it, so that
    /// the head stays the earliest.
    #[inline(always)]
    fn accepts(&self, time: SimTime) -> bool {
        self.len == 0 || self.ring[(self.head + self.len - 1) & (self.ring.len() - 1)].time < time
    }

    #[inline(always)]
    fn front(&self) -> Option<&LaneEntry> {
        (self.len > 0).then(|| &self.ring[self.head])
    }

    #[inline(always)]
    fn push(&mut self, entry: LaneEntry) {
        if self.len == self.ring.len() {
            self.grow();
        }
        let mask = self.ring.len() - 1;
        self.ring[(self.head + self.len) & mask] = entry;
        self.len += 1;
    }

    /// Double the ring, its entries in order from the start.
    #[inline(never)]
    fn grow(&mut self) {
        let size = (2 * self.ring.len()).max(64);
        let mut ring = Vec::with_capacity(size);
        let mask = self.ring.len().wrapping_sub(1);
        ring.extend((0..self.len).map(|i| self.ring[(self.head + i) & mask]));
        ring.resize(size, LaneEntry::default());
        self.ring = ring;
        self.head = 0;
    }

    #[inline(always)]
    fn pop_front(&mut self) -> LaneEntry {
        debug_assert!(self.len > 0);
        let entry = self.ring[self.head];
        self.head = (self.head + 1) & (self.ring.len() - 1);
        self.len -= 1;
        entry
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A folded link's part in the lanes.
#[derive(Clone, Copy, Debug)]
struct FoldedLink {
    /// Its lane, or `NO_LANE`.
    lane: u32,
    /// Its packets on the wire whose deliveries are lane entries: the first `in_lane` of
    /// them (a packet joins the lane only behind one that did).
    in_lane: u32,
    /// The last packet admitted joined the lane (the next may too).
    tail_in_lane: bool,
    /// The precedence and insertion number of the delivery event of its first packet on the
    /// wire, if that is a lane entry whose event is scheduled.
    precedence: Precedence,
    order: u64,
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
#[inline(always)]
fn tie_earlier(slots: &[Pending], a: u32, b: u32) -> bool {
    let (a, b) = (&slots[a as usize], &slots[b as usize]);
    (a.precedence, a.order) < (b.precedence, b.order)
}

impl EventQueue {
    /// Schedule `event` at `time`, now.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        self.schedule_as_of(time, self.precedence_now(), event);
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
    #[inline]
    pub fn schedule_as_of(&mut self, time: SimTime, precedence: Precedence, event: Event) {
        debug_assert!(precedence.scheduled_at >= self.now && precedence.scheduled_at <= time);
        let pending = Pending {
            precedence,
            order: self.inserted,
            event,
        };
        self.inserted += 1;
        if self.root_vacant {
            // Replace the popped root: the heap keeps its size, and the new event takes the
            // popped event's slot (the vacant root still names it; it never went to the free
            // list).
            self.root_vacant = false;
            let slot = self.heap[0].slot;
            self.slots[slot as usize] = pending;
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
        let (heap, slots) = (&mut self.heap[..], &self.slots[..]);
        assert!(hole < heap.len());
        while hole > 0 {
            let parent = (hole - 1) / 2;
            // SAFETY: parent < hole < heap.len() (asserted above; hole only decreases).
            let above = unsafe { *heap.get_unchecked(parent) };
            if !earlier(slots, key, above) {
                break;
            }
            // SAFETY: hole < heap.len(), as above.
            unsafe { *heap.get_unchecked_mut(hole) = above };
            hole = parent;
        }
        // SAFETY: hole < heap.len(), as above.
        unsafe { *heap.get_unchecked_mut(hole) = key };
    }

    /// Fill the hole at the root with `key`. As `std`'s `BinaryHeap::pop`: move the hole down
    /// to the bottom along the earlier child, then put `key` there and move it up (a key that
    /// replaces the root, the last entry or a new event, usually belongs near the bottom, so
    /// this takes about one comparison per level).
    #[inline(always)]
    fn fill_hole_at_root(&mut self, key: Key) {
        let (heap, slots) = (&mut self.heap[..], &self.slots[..]);
        let len = heap.len();
        let mut hole = 0;
        let mut child = 1;
        while child + 1 < len {
            // SAFETY: hole < child < child + 1 < len.
            unsafe {
                let (left, right) = (*heap.get_unchecked(child), *heap.get_unchecked(child + 1));
                let take_right = earlier(slots, right, left);
                *heap.get_unchecked_mut(hole) = if take_right { right } else { left };
                hole = child + usize::from(take_right);
            }
            child = 2 * hole + 1;
        }
        if child == len - 1 {
            heap[hole] = heap[child];
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
        let (heap, slots) = (&mut self.heap[..], &self.slots[..]);
        let len = heap.len();
        let mut hole = 0;
        let mut child = 1;
        while child + 1 < len {
            // SAFETY: hole < child < child + 1 < len.
            unsafe {
                let (left, right) = (*heap.get_unchecked(child), *heap.get_unchecked(child + 1));
                let take_right = earlier(slots, right, left);
                let next = if take_right { right } else { left };
                if !earlier(slots, next, key) {
                    *heap.get_unchecked_mut(hole) = key;
                    return;
                }
                *heap.get_unchecked_mut(hole) = next;
                hole = child + usize::from(take_right);
            }
            child = 2 * hole + 1;
        }
        if child + 1 == len && earlier(slots, heap[child], key) {
            heap[hole] = heap[child];
            hole = child;
        }
        heap[hole] = key;
    }

    /// Fill a vacant root with the last entry, as a pop would have, and free the popped
    /// event's slot.
    #[inline(always)]
    fn settle(&mut self) {
        if self.root_vacant {
            self.root_vacant = false;
            self.free.push(self.heap[0].slot);
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
        self.pop_until(SimTime::MAX)
    }

    /// [`EventQueue::pop`] if the next event is due by `end`: the event loop's one call per
    /// event (a peek and a pop settled the root and read it twice).
    #[inline]
    pub fn pop_until(&mut self, end: SimTime) -> Option<(SimTime, Event)> {
        self.settle();
        if self.side_stale {
            self.refresh_side();
        }
        if matches!(self.side_from, Source::Nothing) || !self.side_first() {
            let top = *self.heap.first()?;
            if top.time > end {
                return None;
            }
            return Some(self.take_root(top));
        }
        let time = self.side_time;
        if time > end {
            return None;
        }
        self.side_stale = true;
        match self.side_from {
            Source::Nothing | Source::Heap => {
                unreachable!("the side's head is the batch's or a lane's")
            }
            Source::Batch => {
                let key = self
                    .batch
                    .pop()
                    .expect("the batch's last is the next event");
                self.free.push(key.slot);
                let pending = &self.slots[key.slot as usize];
                self.now = time;
                self.now_scheduled_at = pending.precedence.scheduled_at;
                self.popped_from_lane = false;
                Some((time, pending.event))
            }
            Source::Lane(lane) => {
                let entry = self.lanes[lane as usize].pop_front();
                let state = &self.folded[entry.link as usize];
                self.lane_events -= 1;
                self.popped_from_lane = true;
                self.now = time;
                self.now_scheduled_at = state.precedence.scheduled_at;
                Some((time, Event::FoldedDelivery(entry.link)))
            }
        }
    }

    /// Pop the heap's root `top`: its slot stays with the vacant root.
    #[inline(always)]
    fn take_root(&mut self, top: Key) -> (SimTime, Event) {
        self.root_vacant = true;
        self.popped_from_lane = false;
        let pending = &self.slots[top.slot as usize];
        self.now = top.time;
        self.now_scheduled_at = pending.precedence.scheduled_at;
        (top.time, pending.event)
    }

    /// Does the side's head (there is one) run before the heap's root?
    #[inline(always)]
    fn side_first(&self) -> bool {
        match self.heap.first() {
            None => true,
            Some(root) => {
                self.side_time < root.time
                    || (self.side_time == root.time
                        && self.ties_before(self.side_from, Source::Heap))
            }
        }
    }

    /// Find the earliest of the batch's last and the lanes' heads (each the least of its
    /// own), by time, then (equal times) by precedence and insertion order.
    #[inline(never)]
    fn refresh_side(&mut self) {
        self.side_stale = false;
        let (mut time, mut from) = (SimTime::MAX, Source::Nothing);
        if let Some(key) = self.batch.last() {
            (time, from) = (key.time, Source::Batch);
        }
        for (lane, entries) in self.lanes.iter().enumerate() {
            if let Some(head) = entries.front() {
                let here = Source::Lane(lane as u32);
                if matches!(from, Source::Nothing)
                    || head.time < time
                    || (head.time == time && self.ties_before(here, from))
                {
                    (time, from) = (head.time, here);
                }
            }
        }
        (self.side_time, self.side_from) = (time, from);
    }

    /// A lane's new head, an event scheduled now with its key given: the side's head if it
    /// runs first.
    #[inline(always)]
    fn offer_side(&mut self, time: SimTime, here: Source) {
        if !self.side_stale
            && (matches!(self.side_from, Source::Nothing)
                || time < self.side_time
                || (time == self.side_time && self.ties_before(here, self.side_from)))
        {
            (self.side_time, self.side_from) = (time, here);
        }
    }

    /// The precedence and insertion number of the event at the head of `from`.
    fn tie_key(&self, from: Source) -> (Precedence, u64) {
        let slot = match from {
            Source::Nothing => unreachable!("no event is compared with nothing"),
            Source::Heap => self.heap[0].slot,
            Source::Batch => self.batch[self.batch.len() - 1].slot,
            Source::Lane(lane) => {
                let head = *self.lanes[lane as usize].front().expect("a lane's head");
                let state = &self.folded[head.link as usize];
                return (state.precedence, state.order);
            }
        };
        let pending = &self.slots[slot as usize];
        (pending.precedence, pending.order)
    }

    /// Of the heads of `a` and `b`, due at the same time, does `a`'s run first? (Rare: out
    /// of line.)
    #[inline(never)]
    fn ties_before(&self, a: Source, b: Source) -> bool {
        self.tie_key(a) < self.tie_key(b)
    }

    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.settle();
        if self.side_stale {
            self.refresh_side();
        }
        if matches!(self.side_from, Source::Nothing) || !self.side_first() {
            return self.heap.first().map(|k| k.time);
        }
        Some(self.side_time)
    }

    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.root_vacant) + self.batch.len() + self.lane_events
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedule each of `events` now, in this order, as many calls of
    /// [`EventQueue::schedule`] would (the same precedences and insertion numbers, so the
    /// same order of pops), but into a list sorted once instead of the heap: the flows'
    /// starts, known when the run is set up (12 000 of the heap's entries, on average over
    /// a second, with 100 000 flows starting over its first tenth).
    pub fn schedule_batch(&mut self, events: impl ExactSizeIterator<Item = (SimTime, Event)>) {
        if events.len() < MIN_BATCH {
            for (time, event) in events {
                self.schedule(time, event);
            }
            return;
        }
        let precedence = self.precedence_now();
        for (time, event) in events {
            debug_assert!(time >= self.now);
            let pending = Pending {
                precedence: Precedence {
                    rank: self.inserted,
                    ..precedence
                },
                order: self.inserted,
                event,
            };
            self.inserted += 1;
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
            self.batch.push(Key { time, slot });
        }
        // Latest first; the order is total (insertion numbers are unique).
        let slots = &self.slots;
        let full = |k: &Key| {
            let pending = &slots[k.slot as usize];
            (k.time, pending.precedence, pending.order)
        };
        self.batch
            .sort_unstable_by_key(|k| std::cmp::Reverse(full(k)));
        self.refresh_side();
    }

    /// Give each link its lane of folded deliveries (`NO_LANE`: none, the heap), before any
    /// packet is admitted: `lane_of[link]`, lanes numbered from 0.
    pub fn set_lanes(&mut self, lane_of: &[u32]) {
        debug_assert!(self.lane_events == 0 && self.lanes.iter().all(Lane::is_empty));
        let count = lane_of
            .iter()
            .filter(|&&lane| lane != NO_LANE)
            .map(|&lane| lane as usize + 1)
            .max()
            .unwrap_or(0);
        self.lanes = (0..count).map(|_| Lane::default()).collect();
        self.folded = lane_of
            .iter()
            .map(|&lane| FoldedLink {
                lane,
                in_lane: 0,
                tail_in_lane: false,
                precedence: Precedence::default(),
                order: 0,
            })
            .collect();
        if count == 0 {
            self.folded.clear();
        }
        self.refresh_side();
    }

    /// The lanes in use (tests).
    #[cfg(test)]
    pub(crate) fn lane_count(&self) -> usize {
        self.lanes.len()
    }

    /// A packet was admitted to folded `link` now, to arrive at its far end at `arrival`.
    /// `first_in_flight`: the link's wire was empty, so its delivery is scheduled now, with
    /// precedence `by` (what the heap alone would do: `schedule_as_of(arrival, by,
    /// FoldedDelivery(link))`); else it is scheduled when the packet ahead of it is
    /// delivered ([`EventQueue::folded_delivered`]). The packet's delivery becomes an entry
    /// of the link's lane if the lane takes it (a time later than its last entry's) and the
    /// packet ahead of it, if any, is in the lane too; else it goes the heap's way.
    #[inline]
    pub fn folded_admitted(
        &mut self,
        link: u32,
        arrival: SimTime,
        first_in_flight: bool,
        by: Precedence,
    ) {
        let Some(state) = self.folded.get_mut(link as usize) else {
            if first_in_flight {
                self.schedule_as_of(arrival, by, Event::FoldedDelivery(link));
            }
            return;
        };
        let joins = state.lane != NO_LANE
            && (first_in_flight || state.tail_in_lane)
            && self.lanes[state.lane as usize].accepts(arrival);
        if first_in_flight {
            debug_assert_eq!(state.in_lane, 0, "link {link}: an empty wire has no entry");
        }
        state.tail_in_lane = joins;
        if !joins {
            if first_in_flight {
                self.schedule_as_of(arrival, by, Event::FoldedDelivery(link));
            }
            return;
        }
        state.in_lane += 1;
        let lane = state.lane;
        let was_empty = self.lanes[lane as usize].is_empty();
        self.lanes[lane as usize].push(LaneEntry {
            time: arrival,
            link,
        });
        if first_in_flight {
            debug_assert!(by.scheduled_at >= self.now && by.scheduled_at <= arrival);
            state.precedence = by;
            state.order = self.inserted;
            self.inserted += 1;
            self.lane_events += 1;
            if was_empty {
                self.offer_side(arrival, Source::Lane(lane));
            }
        } else {
            debug_assert!(!was_empty, "the packet ahead is in the lane");
        }
    }

    /// The packet at the head of folded `link`'s wire was delivered now (the event just
    /// popped); `next`: the next packet's arrival and the precedence of its delivery event,
    /// which is scheduled now: in the lane, if the next packet's entry is there (the heap
    /// alone: `schedule_as_of(arrival, precedence, FoldedDelivery(link))`).
    #[inline]
    pub fn folded_delivered(&mut self, link: u32, next: Option<(SimTime, Precedence)>) {
        if let Some(state) = self.folded.get_mut(link as usize)
            && state.in_lane > 0
        {
            debug_assert!(self.popped_from_lane, "link {link}: its head was a lane's");
            state.in_lane -= 1;
            if state.in_lane > 0 {
                let (arrival, precedence) = next.expect("a lane entry is on the wire");
                debug_assert!(
                    precedence.scheduled_at >= self.now && precedence.scheduled_at <= arrival
                );
                state.precedence = precedence;
                state.order = self.inserted;
                self.inserted += 1;
                self.lane_events += 1;
                return;
            }
        } else {
            debug_assert!(
                !self.popped_from_lane,
                "link {link}: its head was the heap's"
            );
        }
        if let Some((arrival, precedence)) = next {
            self.schedule_as_of(arrival, precedence, Event::FoldedDelivery(link));
        }
    }
}

/// Where the next event waits.
#[derive(Clone, Copy, Debug, Default)]
enum Source {
    /// No event (out of the heap).
    #[default]
    Nothing,
    Heap,
    Batch,
    Lane(u32),
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
    use cclab_cc::SimDuration;
    use std::collections::VecDeque;

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
            Precedence {
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
                    queue.schedule_as_of(time, precedence, event);
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

    /// A folded link's wire in the lanes' test: per packet, its arrival, when it entered the
    /// link, and the precedence of its delivery if the wire is empty when it enters.
    type Wire = VecDeque<(SimTime, SimTime, Precedence)>;

    /// The lanes and the batch must pop exactly what one heap of every event pops: the same
    /// calls (admissions to folded links, their deliveries, other events, a batch of starts)
    /// go to a queue with lanes and to one without (`set_lanes` not called: the heap alone),
    /// driven by what the first pops, and the two must pop the same events at the same times
    /// and give the same precedences. Times are few, so that ties in time and in the times
    /// of scheduling are common; arrivals on one lane are sometimes not in order (those
    /// go to the heap), and a packet behind one that went to the heap follows it there.
    #[test]
    fn lanes_and_the_batch_pop_what_the_heap_alone_pops() {
        let mut rng = crate::rng::Rng::for_component(11, "event-lanes-test");
        // Links 0-2 share lane 0, 3-4 lane 1, link 5 has none.
        let lane_of = [0, 0, 0, 1, 1, NO_LANE];
        let (mut from_lanes, mut popped_lane_events) = (0u64, 0u64);
        for _ in 0..200 {
            let mut lanes = EventQueue::default();
            lanes.set_lanes(&lane_of);
            let mut heap = EventQueue::default();
            // A batch of starts, sorted apart (from `MIN_BATCH` on) in the first queue.
            let starts: Vec<(SimTime, Event)> = (0..rng.below(2 * MIN_BATCH as u64))
                .map(|i| (t(rng.below(30)), Event::FlowStart(i as u32)))
                .collect();
            lanes.schedule_batch(starts.iter().copied());
            for &(time, event) in &starts {
                heap.schedule(time, event);
            }
            for queue in [&mut lanes, &mut heap] {
                queue.schedule(t(0), Event::Sample);
            }
            let mut wires: Vec<Wire> = vec![VecDeque::new(); lane_of.len()];
            let mut steps = 0;
            while steps < 600 {
                steps += 1;
                let popped = lanes.pop();
                let from_lane = lanes.popped_from_lane;
                assert_eq!(popped, heap.pop());
                assert_eq!(lanes.precedence_now(), heap.precedence_now());
                let Some((now, event)) = popped else { break };
                let now_precedence = lanes.precedence_now();
                if let Event::FoldedDelivery(link) = event {
                    from_lanes += u64::from(from_lane);
                    popped_lane_events += 1;
                    let wire = &mut wires[link as usize];
                    let (arrival, _, _) = wire.pop_front().expect("a packet on the wire");
                    assert_eq!(arrival, now);
                    let next = wire.front().map(|&(arrival, entered, by)| {
                        (arrival, if entered > now { by } else { now_precedence })
                    });
                    for queue in [&mut lanes, &mut heap] {
                        queue.folded_delivered(link, next);
                    }
                }
                // What the event does: a few admissions and other events.
                for _ in 0..rng.below(3) {
                    if rng.below(3) > 0 {
                        let link = rng.below(lane_of.len() as u64) as usize;
                        let wire = &mut wires[link];
                        let entered = now + SimDuration::from_nanos(rng.below(3));
                        let last = wire.back().map_or(SimTime::ZERO, |w| w.0);
                        let arrival = (entered + SimDuration::from_nanos(rng.below(6)))
                            .max(last + SimDuration::from_nanos(1));
                        // As a folded chain's: scheduled when it enters, by an event
                        // scheduled now or earlier (the rank of the chain's first event).
                        let by = Precedence {
                            rank: rng.below(now_precedence.rank + 1),
                            ..now_precedence.child_at(entered)
                        };
                        let first = wire.is_empty();
                        wire.push_back((arrival, entered, by));
                        for queue in [&mut lanes, &mut heap] {
                            queue.folded_admitted(link as u32, arrival, first, by);
                        }
                    } else {
                        let time = now + SimDuration::from_nanos(rng.below(5));
                        let event = Event::SendTimer(steps);
                        for queue in [&mut lanes, &mut heap] {
                            queue.schedule(time, event);
                        }
                    }
                }
                assert_eq!(lanes.len(), heap.len());
            }
        }
        // The lanes were used, and not for everything.
        assert!(
            from_lanes > popped_lane_events / 4,
            "{from_lanes} of {popped_lane_events}"
        );
        assert!(from_lanes < popped_lane_events);
    }

    #[test]
    fn a_batch_pops_as_events_scheduled_one_by_one() {
        // Times 4, 3, 2, 1, 0, 4, 3, …: ties in time pop in the order given.
        let events: Vec<_> = (0..MIN_BATCH as u32)
            .map(|id| (t(4 - u64::from(id) % 5), Event::FlowStart(id)))
            .collect();
        let mut batch = EventQueue::default();
        batch.schedule_batch(events.iter().copied());
        assert_eq!(
            batch.batch.len(),
            MIN_BATCH,
            "sorted apart, not in the heap"
        );
        let mut expected = events;
        expected.sort_by_key(|&(time, _)| time); // stable: ties keep their order
        let order: Vec<_> = std::iter::from_fn(|| batch.pop()).collect();
        assert_eq!(order, expected);
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
