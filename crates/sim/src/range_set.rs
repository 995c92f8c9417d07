//! A set of byte ranges kept as sorted, disjoint, non-adjacent `[start, end)` intervals.
//! The receiver keeps out-of-order data in one and the sender its SACKed ranges; both hold as
//! many ranges as there are holes. That is a handful most of the time, but a slow-start
//! overshoot at a large window leaves thousands (every other segment of a 55 000-segment
//! window), and recovery then works at the low end: each retransmission fills the lowest hole
//! and the cumulative ACK drops the lowest range. A ring buffer (`VecDeque`) removes and
//! inserts there without moving the others (it shifts the shorter side), where a `Vec` moved
//! every range above, which made recovery quadratic in the holes.
//!
//! Nearly every insertion and look-up is at the top of the set, not in the middle: a segment
//! that arrives out of order extends the highest range (or starts one above it), and the
//! SACK blocks of an ACK are the most recently changed ranges (RFC 2018 §4). A binary search
//! over thousands of ranges cost about a hundred instructions there (on two flows of H-TCP
//! at 622 Mbit/s × 256 ms, 5 % of the run). So the search first looks at the top
//! [`TOP_PROBES`] ranges and bisects only below them; it finds the same index either way.

use std::collections::VecDeque;

/// Ranges [`RangeSet::partition_point`] compares from the top before it bisects.
const TOP_PROBES: usize = 4;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: VecDeque<(u64, u64)>,
}

impl RangeSet {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Give back the ring buffer's memory if the set is empty (a finished flow's: see
    /// `Simulation::release_finished_flows`). Capacity only: the set is the same.
    pub fn release_if_empty(&mut self) {
        if self.ranges.is_empty() {
            self.ranges = VecDeque::new();
        }
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().copied()
    }

    /// Add `[start, end)`; call `newly_covered` for each sub-range that was not in the set
    /// before, in increasing order. Returns the merged range that now contains `start`.
    pub fn insert(
        &mut self,
        start: u64,
        end: u64,
        mut newly_covered: impl FnMut(u64, u64),
    ) -> (u64, u64) {
        debug_assert!(start < end, "empty range {start}..{end}");
        // First range that ends at or after `start` (could touch or overlap).
        let first = self.partition_point(|e| e < start);
        if first == self.ranges.len() {
            // Above every range and not touching the highest: the usual out-of-order arrival.
            newly_covered(start, end);
            self.ranges.push_back((start, end));
            return (start, end);
        }
        let mut merged = (start, end);
        let mut cursor = start;
        let mut last = first;
        while last < self.ranges.len() && self.ranges[last].0 <= end {
            let (s, e) = self.ranges[last];
            if s > cursor {
                newly_covered(cursor, s.min(end));
            }
            cursor = cursor.max(e);
            merged = (merged.0.min(s), merged.1.max(e));
            last += 1;
        }
        if cursor < end {
            newly_covered(cursor, end);
        }
        if first == last {
            self.ranges.insert(first, merged);
        } else {
            self.ranges[first] = merged;
            if last > first + 1 {
                self.ranges.drain(first + 1..last);
            }
        }
        merged
    }

    /// The number of ranges whose end satisfies `below` (which holds for a prefix of the
    /// ranges, ends being increasing), as `VecDeque::partition_point` on the ends would give:
    /// the top [`TOP_PROBES`] ranges are looked at first, the rest is bisected.
    #[inline]
    fn partition_point(&self, below: impl Fn(u64) -> bool) -> usize {
        let mut index = self.ranges.len();
        for _ in 0..TOP_PROBES {
            if index == 0 || below(self.ranges[index - 1].1) {
                return index;
            }
            index -= 1;
        }
        // The ranges from `index` up fail `below`; bisecting all of them costs one step more
        // than bisecting those below `index` and finds the same point.
        self.ranges.partition_point(|&(_, e)| below(e))
    }

    /// Remove everything below `point`.
    pub fn remove_below(&mut self, point: u64) {
        // From the front: the cumulative ACK calls this on every advance, and it usually
        // drops nothing or the lowest range only (each range is dropped once).
        while let Some(first) = self.ranges.front_mut() {
            if first.1 > point {
                first.0 = first.0.max(point);
                break;
            }
            self.ranges.pop_front();
        }
    }

    /// If the lowest range starts at `point`, remove and return it.
    pub fn pop_if_starts_at(&mut self, point: u64) -> Option<(u64, u64)> {
        match self.ranges.front() {
            Some(&(s, _)) if s <= point => self.ranges.pop_front(),
            _ => None,
        }
    }

    /// The range containing `point`, if any.
    pub fn containing(&self, point: u64) -> Option<(u64, u64)> {
        let i = self.partition_point(|e| e <= point);
        self.ranges.get(i).copied().filter(|&(s, _)| s <= point)
    }

    /// Total bytes covered.
    pub fn covered_bytes(&self) -> u64 {
        self.ranges.iter().map(|(s, e)| e - s).sum()
    }

    pub fn highest_end(&self) -> Option<u64> {
        self.ranges.back().map(|&(_, e)| e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn insert(set: &mut RangeSet, s: u64, e: u64) -> Vec<(u64, u64)> {
        let mut new = Vec::new();
        set.insert(s, e, |a, b| new.push((a, b)));
        new
    }

    #[test]
    fn merges_and_reports_only_new_bytes() {
        let mut set = RangeSet::default();
        assert_eq!(insert(&mut set, 10, 20), vec![(10, 20)]);
        assert_eq!(insert(&mut set, 30, 40), vec![(30, 40)]);
        assert_eq!(insert(&mut set, 15, 35), vec![(20, 30)]);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![(10, 40)]);
        assert_eq!(insert(&mut set, 12, 18), vec![]);
        // Adjacent ranges merge.
        assert_eq!(insert(&mut set, 40, 50), vec![(40, 50)]);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![(10, 50)]);
        assert_eq!(set.containing(49), Some((10, 50)));
        assert_eq!(set.containing(50), None);
    }

    #[test]
    fn remove_below_trims_and_drops() {
        let mut set = RangeSet::default();
        insert(&mut set, 10, 20);
        insert(&mut set, 30, 40);
        set.remove_below(15);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![(15, 20), (30, 40)]);
        set.remove_below(30);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![(30, 40)]);
        assert_eq!(set.pop_if_starts_at(30), Some((30, 40)));
        assert!(set.is_empty());
    }

    proptest! {
        /// The search from the top finds the index a bisection of the whole set finds, and
        /// `containing` the range a scan finds, for points below, inside, between and above
        /// the ranges, with sets of fewer and more ranges than the probes at the top.
        #[test]
        fn top_probes_find_what_bisection_finds(
            ops in prop::collection::vec((0u64..400, 1u64..8), 0..60),
            cut in 0u64..100,
        ) {
            let mut set = RangeSet::default();
            for (s, len) in ops {
                set.insert(s, s + len, |_, _| {});
            }
            set.remove_below(cut);
            let ranges: Vec<_> = set.iter().collect();
            for point in 0..420 {
                prop_assert_eq!(
                    set.partition_point(|e| e < point),
                    set.ranges.partition_point(|&(_, e)| e < point)
                );
                prop_assert_eq!(
                    set.partition_point(|e| e <= point),
                    set.ranges.partition_point(|&(_, e)| e <= point)
                );
                let scanned = ranges.iter().copied().find(|&(s, e)| s <= point && point < e);
                prop_assert_eq!(set.containing(point), scanned);
            }
        }

        /// Against a bitmap model: the set covers exactly the inserted bytes, reports each
        /// byte as new exactly once, and stays sorted, disjoint and non-adjacent.
        #[test]
        fn matches_a_bitmap(ops in prop::collection::vec((0u64..200, 1u64..30), 1..40)) {
            let mut set = RangeSet::default();
            let mut bitmap = [false; 256];
            for (s, len) in ops {
                let e = (s + len).min(256);
                let mut reported = 0;
                set.insert(s, e, |a, b| {
                    for byte in a..b {
                        assert!(!bitmap[byte as usize], "byte {byte} reported twice");
                        bitmap[byte as usize] = true;
                        reported += 1;
                    }
                });
                prop_assert!(reported <= e - s);
                for byte in s..e {
                    prop_assert!(bitmap[byte as usize]);
                }
            }
            let covered: u64 = bitmap.iter().filter(|b| **b).count() as u64;
            prop_assert_eq!(set.covered_bytes(), covered);
            let ranges: Vec<_> = set.iter().collect();
            for pair in ranges.windows(2) {
                prop_assert!(pair[0].1 < pair[1].0);
            }
        }
    }
}
