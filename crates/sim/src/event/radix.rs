//! The event queue's radix heap, for large pending sets (issue 18): a monotone priority
//! queue (R. K. Ahuja, K. Mehlhorn, J. B. Orlin and R. E. Tarjan, "Faster algorithms for the
//! shortest path problem", JACM 37(2), 1990), which a discrete-event simulator's queue is,
//! as no event is scheduled before the current time (the time of the event popped last).
//!
//! An entry due later than now waits in the bucket of the highest digit in which its time
//! differs from now ([`bucket_of`]); every entry of a bucket is due before every entry of a
//! later bucket. A pop takes the lowest bucket that holds entries: a lone entry is the next
//! event; otherwise the least time in it becomes the current time and its other entries move
//! to lower buckets. Each entry moves at most once per level (eight levels of 8-bit digits),
//! where a binary heap's pop walks 17 levels at 100 000 flows. The entries due at the current
//! time itself are the ties: a binary heap of slots on (precedence, insertion order), the
//! rest of the order, so the queue pops exactly what the binary heap pops.

use super::{Key, Pending, tie_earlier};
use cclab_cc::SimTime;

/// Bits of a time per level: a level's buckets are the values of one digit of this many bits.
const DIGIT_BITS: u32 = 8;
const DIGITS: usize = 1 << DIGIT_BITS;
const LEVELS: usize = 64 / DIGIT_BITS as usize;
const BUCKETS: usize = LEVELS * DIGITS;
/// Words of the bitmap of the buckets that hold entries (one bit per bucket).
const WORDS: usize = BUCKETS / 64;
const _: () = assert!(WORDS <= 32, "the bitmap's words are marked in a u32");

/// The bucket of an entry due at `time` when the current time is `now`: none when the two
/// are equal (the entry is one of the ties), else the digit of `time` at the level of the
/// highest bit in which the two differ, counted from the lowest level. `time > now`, so that
/// digit is above `now`'s and the bits above it are `now`'s: the buckets in index order hold
/// ever later times, and an entry stays in its bucket's place in that order as `now`
/// advances towards it (now never passes an entry's time).
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

/// The radix heap's entries. Times are relative to the queue's current time, which the
/// caller owns and passes in; it must never pass a time that may still be scheduled, so it
/// moves only when an event is popped (never when one is peeked at).
pub(super) struct RadixHeap {
    /// The buckets, by level then digit ([`bucket_of`]); a bucket keeps its capacity when
    /// it is emptied, as it fills again when the current time comes round to its digit.
    buckets: Box<[Vec<Key>]>,
    /// Bit `b % 64` of word `b / 64` is set if bucket `b` holds entries.
    occupied: [u64; WORDS],
    /// Bit `w` is set if word `w` of `occupied` is not zero.
    occupied_words: u32,
    /// The slots of the entries due at the current time, a binary min-heap on (precedence,
    /// insertion order).
    ties: Vec<u32>,
    len: usize,
}

impl RadixHeap {
    pub(super) fn new() -> Self {
        RadixHeap {
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            occupied: [0; WORDS],
            occupied_words: 0,
            ties: Vec::new(),
            len: 0,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Add `key`, due at or after `now`.
    #[inline]
    pub(super) fn push(&mut self, key: Key, now: SimTime, slots: &[Pending]) {
        debug_assert!(key.time >= now);
        self.len += 1;
        match bucket_of(key.time, now) {
            Some(bucket) => self.push_to_bucket(bucket, key),
            None => self.push_tie(key.slot, slots),
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
    fn push_tie(&mut self, slot: u32, slots: &[Pending]) {
        let ties = &mut self.ties;
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
    fn pop_tie(&mut self, slots: &[Pending]) -> u32 {
        let ties = &mut self.ties;
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

    /// The slot of the next event, if one is due by `end`: `now` moves to its time.
    #[inline]
    pub(super) fn take_next(
        &mut self,
        now: &mut SimTime,
        end: SimTime,
        slots: &[Pending],
    ) -> Option<u32> {
        if !self.ties.is_empty() {
            if *now > end {
                return None;
            }
            self.len -= 1;
            return Some(self.pop_tie(slots));
        }
        let bucket = self.lowest_bucket()?;
        // SAFETY: `lowest_bucket` is below `BUCKETS`.
        let entries = unsafe { self.buckets.get_unchecked_mut(bucket) };
        let slot = if let [key] = entries[..] {
            // A lone entry is the earliest.
            if key.time > end {
                return None;
            }
            entries.clear();
            self.mark_emptied(bucket);
            *now = key.time;
            key.slot
        } else {
            self.pour(bucket, now, end, slots)?
        };
        self.len -= 1;
        Some(slot)
    }

    /// Take the earliest event of `bucket`, which holds more than one, if it is due by
    /// `end`: its time becomes `now`, and the bucket's other entries move to the lower
    /// buckets (or the ties) they fall in relative to it.
    fn pour(
        &mut self,
        bucket: usize,
        now: &mut SimTime,
        end: SimTime,
        slots: &[Pending],
    ) -> Option<u32> {
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
        *now = least;
        // The first entry due at `least` is held back: if it is the only one (usually), it
        // is the next event, without passing through the ties.
        let mut first_due = None;
        for &key in &entries {
            match bucket_of(key.time, least) {
                Some(lower) => self.push_to_bucket(lower, key),
                None => match first_due {
                    None => first_due = Some(key.slot),
                    Some(_) => self.push_tie(key.slot, slots),
                },
            }
        }
        entries.clear();
        self.buckets[bucket] = entries;
        let first_due = first_due.expect("the least time is an entry's");
        if self.ties.is_empty() {
            return Some(first_due);
        }
        self.push_tie(first_due, slots);
        Some(self.pop_tie(slots))
    }

    /// The next event's time (it only looks).
    pub(super) fn peek_time(&self, now: SimTime) -> Option<SimTime> {
        if !self.ties.is_empty() {
            return Some(now);
        }
        let bucket = self.lowest_bucket()?;
        self.buckets[bucket].iter().map(|key| key.time).min()
    }

    /// Every entry, the ties due at `now`, in no particular order.
    pub(super) fn into_keys(self, now: SimTime) -> impl Iterator<Item = Key> {
        let ties = self
            .ties
            .into_iter()
            .map(move |slot| Key { time: now, slot });
        let buckets = self.buckets.into_vec().into_iter().flatten();
        ties.chain(buckets)
    }
}
