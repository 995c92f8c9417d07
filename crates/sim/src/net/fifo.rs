//! A first-in, first-out ring of `Copy` items for a link's queues: the packets on its wire,
//! the start times of the packets waiting, a folded link's entry times.
//!
//! `std`'s `VecDeque` does the same; this ring differs where the per-packet path pays. Its
//! capacity is zero or a power of two, so a slot's index wraps with a mask (one `and`) where
//! `VecDeque` compares and subtracts (its capacity may be any number); the index is then in
//! bounds by construction and the slot is read and written unchecked. And a packet is copied
//! from where it lies straight into its slot once the room is made
//! ([`Fifo::push_back_pair`]): `VecDeque::push_back` takes the item by value, and the compiler
//! copied an 88-byte packet through the stack before the possible reallocation, then from
//! there into the slot (callgrind, docs/performance.md).
//!
//! Capacities grow as `VecDeque`'s do for items of these sizes (0, 4, 8, 16, …: doubling
//! from `RawVec`'s smallest non-zero capacity), so the memory a link holds is unchanged.

use std::mem::MaybeUninit;

/// The smallest capacity allocated, as `RawVec`'s for items of 2 to 1024 bytes.
const MIN_CAPACITY: usize = 4;

pub(crate) struct Fifo<T: Copy> {
    /// The ring: `buf.len()` is zero or a power of two. Slots `head`, `head + 1`, … (modulo
    /// the capacity) hold the `len` items, oldest first; the rest are uninitialized.
    buf: Box<[MaybeUninit<T>]>,
    head: usize,
    len: usize,
}

impl<T: Copy> Default for Fifo<T> {
    fn default() -> Self {
        Fifo::new()
    }
}

impl<T: Copy> Fifo<T> {
    /// An empty ring; allocates nothing.
    pub(crate) fn new() -> Self {
        Fifo {
            buf: Box::new([]),
            head: 0,
            len: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Items it can hold before it reallocates (tests of the buffers given back).
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The slot of the `i`-th item from the front (`i < capacity`, capacity non-zero).
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & (self.buf.len() - 1)
    }

    #[inline(always)]
    pub(crate) fn front(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: `len > 0`, so the capacity is non-zero and `head` (always below it) is the
        // slot of the oldest item, which is initialized.
        Some(unsafe { self.buf.get_unchecked(self.head).assume_init_ref() })
    }

    #[inline(always)]
    pub(crate) fn back(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        let slot = self.slot(self.len - 1);
        // SAFETY: `slot` is masked below the (power-of-two, non-zero) capacity and is the
        // slot of the newest item, which is initialized.
        Some(unsafe { self.buf.get_unchecked(slot).assume_init_ref() })
    }

    /// Append `item`.
    #[inline(always)]
    pub(crate) fn push_back(&mut self, item: T) {
        let slot = self.make_room();
        // SAFETY: `make_room` returned a free slot below the capacity.
        unsafe { self.buf.get_unchecked_mut(slot).write(item) };
        self.len += 1;
    }

    /// The slot of the next item pushed, after growing the ring if it is full: below the
    /// (power-of-two) capacity, and free.
    #[inline(always)]
    fn make_room(&mut self) -> usize {
        if self.len == self.buf.len() {
            self.grow();
        }
        self.slot(self.len)
    }

    #[inline(always)]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: as in `front`.
        let item = unsafe { self.buf.get_unchecked(self.head).assume_init_read() };
        self.head = self.slot(1);
        self.len -= 1;
        Some(item)
    }

    /// The oldest item, to change in place.
    #[inline(always)]
    pub(crate) fn front_mut(&mut self) -> Option<&mut T> {
        if self.len == 0 {
            return None;
        }
        // SAFETY: as in `front`.
        Some(unsafe { self.buf.get_unchecked_mut(self.head).assume_init_mut() })
    }

    /// The items, oldest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        // SAFETY: the first `len` slots from `head` hold initialized items.
        (0..self.len).map(|i| unsafe { self.buf.get_unchecked(self.slot(i)).assume_init_ref() })
    }

    /// The items, oldest first, to change in place.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> + '_ {
        let mask = self.buf.len().wrapping_sub(1);
        let head = self.head;
        let slots = self.buf.as_mut_ptr();
        // SAFETY: the first `len` slots from `head` hold initialized items, and as `len` is
        // at most the (power-of-two) capacity, distinct `i` give distinct slots: no two
        // references handed out alias. With capacity 0, `len` is 0 and nothing is handed out.
        (0..self.len).map(move |i| unsafe { (*slots.add((head + i) & mask)).assume_init_mut() })
    }

    /// Double the capacity (or allocate the first), the items moved to the front of the new
    /// ring in order. Out of line: a handful of times per link over a run.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let capacity = (2 * self.buf.len()).max(MIN_CAPACITY);
        let mut buf: Box<[MaybeUninit<T>]> = Box::new_uninit_slice(capacity);
        for (i, item) in self.iter().enumerate() {
            buf[i].write(*item);
        }
        self.buf = buf;
        self.head = 0;
    }
}

impl<A: Copy, B: Copy> Fifo<(A, B)> {
    /// Append `(first, *second)`, `second` copied from where it lies straight into its
    /// slot. `push_back((first, *second))`, or a closure making the pair after the room
    /// is made, had the compiler build the pair on the stack first and copy it from there
    /// (an 88-byte packet: ten instructions more per push; callgrind, docs/performance.md).
    #[inline(always)]
    pub(crate) fn push_back_pair(&mut self, first: A, second: &B) {
        let slot = self.make_room();
        // SAFETY: `make_room` returned a free slot below the capacity; the two fields are
        // written through raw pointers into it (no reference to uninitialized memory), and
        // `second`, a shared reference, cannot overlap the ring's free slot, which nothing
        // else can name.
        unsafe {
            let item = self.buf.get_unchecked_mut(slot).as_mut_ptr();
            (&raw mut (*item).0).write(first);
            std::ptr::copy_nonoverlapping(second, &raw mut (*item).1, 1);
        }
        self.len += 1;
    }
}

/// The `i`-th item from the front, as `VecDeque`'s index: panics unless `i < len` (the
/// scoreboard's segments, `tcp/scoreboard.rs`, addressed by their offset from snd_una).
impl<T: Copy> std::ops::Index<usize> for Fifo<T> {
    type Output = T;

    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        assert!(i < self.len, "index {i} out of a ring of {}", self.len);
        let slot = self.slot(i);
        // SAFETY: `i < len`, so the capacity is non-zero and `slot`, masked below it, holds
        // an initialized item.
        unsafe { self.buf.get_unchecked(slot).assume_init_ref() }
    }
}

impl<T: Copy> std::ops::IndexMut<usize> for Fifo<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        assert!(i < self.len, "index {i} out of a ring of {}", self.len);
        let slot = self.slot(i);
        // SAFETY: as in `index`.
        unsafe { self.buf.get_unchecked_mut(slot).assume_init_mut() }
    }
}

impl<T: Copy + std::fmt::Debug> std::fmt::Debug for Fifo<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy + PartialEq> PartialEq for Fifo<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::Fifo;
    use crate::rng::Rng;

    /// Against `VecDeque` over random pushes (whole items and pairs) and pops that wrap the
    /// ring many times and grow it from empty: the same items in the same order, and the same
    /// capacities.
    #[test]
    fn behaves_as_a_vec_deque() {
        let mut rng = Rng::for_component(7, "fifo");
        let mut fifo: Fifo<(u64, [u8; 80])> = Fifo::new();
        let mut deque: VecDeque<(u64, [u8; 80])> = VecDeque::new();
        assert_eq!(fifo.capacity(), deque.capacity());
        for i in 0..20_000u64 {
            // Mostly balanced, drifting up and down so that the length wanders and grows.
            let push = rng.chance(if (i / 2000) % 2 == 0 { 0.6 } else { 0.45 });
            if push {
                let item = (i, [i as u8; 80]);
                if i % 3 == 0 {
                    fifo.push_back_pair(item.0, &item.1);
                } else {
                    fifo.push_back(item);
                }
                deque.push_back(item);
            } else {
                assert_eq!(fifo.pop_front(), deque.pop_front());
            }
            assert_eq!(fifo.len(), deque.len());
            assert_eq!(fifo.is_empty(), deque.is_empty());
            assert_eq!(fifo.front(), deque.front());
            assert_eq!(fifo.back(), deque.back());
            assert_eq!(fifo.capacity(), deque.capacity(), "after {i} operations");
        }
        assert!(fifo.iter().eq(deque.iter()));
        assert!(fifo.capacity() >= 16, "the test grew the ring");
    }

    /// Reads and writes by index, at the front and over all items, against `VecDeque` on a
    /// ring that wraps (the scoreboard's use: `tcp/scoreboard.rs`).
    #[test]
    fn indexes_and_changes_in_place_as_a_vec_deque() {
        let mut rng = Rng::for_component(11, "fifo-index");
        let mut fifo: Fifo<u64> = Fifo::new();
        let mut deque: VecDeque<u64> = VecDeque::new();
        for i in 0..5_000u64 {
            if rng.chance(0.55) {
                fifo.push_back(i);
                deque.push_back(i);
            } else {
                assert_eq!(fifo.pop_front(), deque.pop_front());
            }
            if !deque.is_empty() {
                let at = rng.below(deque.len() as u64) as usize;
                assert_eq!(fifo[at], deque[at]);
                fifo[at] += 1_000_000;
                deque[at] += 1_000_000;
                *fifo.front_mut().expect("not empty") ^= 1;
                *deque.front_mut().expect("not empty") ^= 1;
            } else {
                assert!(fifo.front_mut().is_none());
            }
            if i % 500 == 0 {
                fifo.iter_mut().for_each(|x| *x += 7);
                deque.iter_mut().for_each(|x| *x += 7);
            }
            assert!(fifo.iter().eq(deque.iter()), "after {i} operations");
        }
    }

    #[test]
    #[should_panic(expected = "out of a ring")]
    fn an_index_beyond_the_items_panics() {
        let mut fifo: Fifo<u32> = Fifo::new();
        fifo.push_back(1);
        // Within the capacity (4), beyond the one item.
        let _ = fifo[1];
    }

    #[test]
    fn equality_is_by_items_in_order() {
        let mut a: Fifo<u32> = Fifo::new();
        let mut b: Fifo<u32> = Fifo::new();
        for x in 0..6 {
            a.push_back(x);
        }
        // The same items at other slots of a larger ring.
        for x in 0..9 {
            b.push_back(x);
        }
        for _ in 0..3 {
            b.pop_front();
        }
        for x in 6..9 {
            a.push_back(x);
        }
        for _ in 0..3 {
            a.pop_front();
        }
        assert_eq!(a, b);
        b.pop_front();
        assert_ne!(a, b);
        assert_eq!(a.pop_front(), Some(3));
        assert_eq!(format!("{b:?}"), "[4, 5, 6, 7, 8]");
    }
}
