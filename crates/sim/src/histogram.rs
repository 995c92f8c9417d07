//! A log-linear histogram of durations (nanoseconds) for percentiles without keeping samples.
//!
//! Values below 2^SUB_BITS ns are counted exactly; above, each power-of-two range is split into
//! 2^SUB_BITS equal buckets (the layout of HdrHistogram), so a bucket is at most 1/64 = 1.6 %
//! wide relative to its value and its midpoint is within 0.8 % of every value in it. Values
//! are capped at 2^MAX_BITS ns (about 18 minutes). Recording is a few integer operations and
//! one increment.
//!
//! Only the buckets between the lowest and the highest one used are stored. Every flow keeps
//! two of these (its RTTs and a snapshot at the steady window's start), and a flow's RTTs span
//! a few octaves at most: a few hundred buckets instead of all 2240 (18 kB each), which is
//! what lets a run hold 100 000 flows. An empty histogram allocates nothing.

/// Sub-buckets per power of two: 2^6 = 64.
const SUB_BITS: u32 = 6;
const SUB_COUNT: u64 = 1 << SUB_BITS;
/// Largest recorded value: 2^40 - 1 ns (about 1100 s).
const MAX_BITS: u32 = 40;
/// Buckets of the whole range, 2240 (the tests walk them all).
#[cfg(test)]
const BUCKETS: usize = ((MAX_BITS - SUB_BITS + 1) as u64 * SUB_COUNT) as usize;

/// `counts[i]` is the count of bucket `first + i`. The stored range is always exactly the
/// lowest to the highest non-empty bucket (both ends non-zero; empty with `first = 0`).
/// A histogram whose samples all fell in one bucket may also store no counts at all
/// ([`Histogram::compact`]): its one bucket is `first` and its count `count`. A short flow's
/// RTTs (a one-segment transfer has one) then need no heap block, which would otherwise stay
/// scattered through the run's freed heap and keep its pages resident (docs/performance.md,
/// "Memory per idle flow"). `PartialEq` compares the buckets, whichever the form.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    first: usize,
    counts: Vec<u64>,
    count: u64,
    sum: Sum,
    /// Meaningful only when `count > 0`.
    min: u64,
    max: u64,
}

fn bucket_of(value: u64) -> usize {
    let value = value.min((1 << MAX_BITS) - 1);
    if value < SUB_COUNT {
        return value as usize;
    }
    let exponent = 63 - value.leading_zeros(); // >= SUB_BITS
    let shift = exponent - SUB_BITS;
    // (value >> shift) is in [SUB_COUNT, 2 SUB_COUNT): its offset picks the sub-bucket.
    ((shift as u64 + 1) * SUB_COUNT + (value >> shift) - SUB_COUNT) as usize
}

/// The range `[low, high)` of values counted in `bucket`.
fn bucket_range(bucket: usize) -> (u64, u64) {
    let bucket = bucket as u64;
    if bucket < SUB_COUNT {
        return (bucket, bucket + 1);
    }
    let shift = bucket / SUB_COUNT - 1;
    let low = (SUB_COUNT + bucket % SUB_COUNT) << shift;
    (low, low + (1 << shift))
}

/// The sum of the values, a `u128` kept as two `u64` halves: a `u128` field is 16-byte
/// aligned on x86-64 (since Rust 1.77-1.78), which padded every struct that holds a
/// histogram to a multiple of 16 bytes. A done flow's `Closed` record, 100 000 of which wait
/// for the run's end, took 288 bytes (304 with malloc's header) instead of 272 (288): 1.6 MB
/// at 100 000 flows (docs/performance.md, "Memory per idle flow"). Adding is the same add and
/// add-with-carry as a `u128`'s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sum {
    low: u64,
    high: u64,
}

impl Sum {
    const ZERO: Sum = Sum { low: 0, high: 0 };

    fn of(value: u128) -> Self {
        Sum {
            low: value as u64,
            high: (value >> 64) as u64,
        }
    }

    #[inline(always)]
    fn add(&mut self, value: u64) {
        *self = Sum::of(self.get() + value as u128);
    }

    #[inline(always)]
    fn get(self) -> u128 {
        (self.high as u128) << 64 | self.low as u128
    }
}

impl PartialEq for Histogram {
    fn eq(&self, other: &Self) -> bool {
        (self.count, self.sum, self.min, self.max) == (other.count, other.sum, other.min, other.max)
            && self.buckets().eq(other.buckets())
    }
}

impl Eq for Histogram {}

impl Histogram {
    /// An empty histogram (no allocation), usable in constants.
    pub const fn new() -> Self {
        Histogram {
            first: 0,
            counts: Vec::new(),
            count: 0,
            sum: Sum::ZERO,
            min: 0,
            max: 0,
        }
    }

    /// Give back the stored counts if every sample fell in one bucket: that bucket is then
    /// `first`, and its count `count`. Recording into it afterwards stores them again.
    pub fn compact(&mut self) {
        if self.counts.len() == 1 {
            self.counts = Vec::new();
        }
    }

    /// Samples counted but no counts stored: the form [`Histogram::compact`] leaves.
    fn is_compact(&self) -> bool {
        self.counts.is_empty() && self.count > 0
    }

    /// The counts of the buckets `first..`, stored again if compact.
    fn expanded_counts(&self) -> Vec<u64> {
        if self.is_compact() {
            vec![self.count]
        } else {
            self.counts.clone()
        }
    }

    /// Count `value`. The common case, a bucket within the stored range, is a handful of
    /// instructions inlined at the caller (the bottleneck records every packet's queueing
    /// delay); widening the range is out of line.
    #[inline]
    pub fn record(&mut self, value: u64) {
        let bucket = bucket_of(value);
        // Below `first` wraps around to a huge index: one comparison covers both ends.
        let index = bucket.wrapping_sub(self.first);
        if index >= self.counts.len() {
            self.record_outside(bucket, value);
            return;
        }
        self.counts[index] += 1;
        // The range is stored only once a value was recorded: min and max are set.
        self.count += 1;
        self.sum.add(value);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    /// `record` for a value outside the stored range (or the first value).
    #[cold]
    #[inline(never)]
    fn record_outside(&mut self, bucket: usize, value: u64) {
        if self.is_compact() {
            self.counts = vec![self.count];
        }
        if self.counts.is_empty() {
            self.first = bucket;
            self.counts.push(0);
        } else if bucket < self.first {
            // A new lowest bucket: prepend the gap. Rare: the range only ever widens, so this
            // happens at most a few thousand times over a histogram's life.
            let gap = self.first - bucket;
            self.counts.splice(0..0, std::iter::repeat_n(0, gap));
            self.first = bucket;
        } else {
            self.counts.resize(bucket - self.first + 1, 0);
        }
        self.counts[bucket - self.first] += 1;
        if self.count == 0 {
            (self.min, self.max) = (value, value);
        }
        self.count += 1;
        self.sum.add(value);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    /// `(bucket, count)` of the stored buckets, in increasing order.
    fn buckets(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let compact = self.is_compact().then_some((self.first, self.count));
        self.counts
            .iter()
            .enumerate()
            .map(|(i, &n)| (self.first + i, n))
            .chain(compact)
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.counts.capacity() * std::mem::size_of::<u64>()
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The sum of every value counted.
    pub fn sum(&self) -> u128 {
        self.sum.get()
    }

    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum.get() as f64 / self.count as f64)
    }

    pub fn min(&self) -> Option<u64> {
        (self.count > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max)
    }

    /// The `q`-quantile (0 < q <= 1): the value of the ⌈q·n⌉-th smallest sample, reported as
    /// the midpoint of its bucket clamped to the exact minimum and maximum; `None` if empty.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        if rank >= self.count {
            return Some(self.max as f64);
        }
        let mut seen = 0;
        for (bucket, n) in self.buckets() {
            seen += n;
            if seen >= rank {
                let (low, high) = bucket_range(bucket);
                let mid = (low as f64 + (high - 1) as f64) / 2.0;
                return Some(mid.clamp(self.min as f64, self.max as f64));
            }
        }
        Some(self.max as f64)
    }

    /// The samples recorded since `earlier` (a snapshot of this histogram): counts and sum
    /// subtract exactly; min and max are those of the buckets (exact min/max are not kept).
    pub fn since(&self, earlier: &Histogram) -> Histogram {
        let mut counts = self.expanded_counts();
        for (bucket, n) in earlier.buckets() {
            // A snapshot's buckets lie within the later range: the range only widens.
            counts[bucket - self.first] -= n;
        }
        // Trim to the non-empty range, keeping the representation canonical.
        let (Some(low), Some(high)) = (
            counts.iter().position(|&n| n > 0),
            counts.iter().rposition(|&n| n > 0),
        ) else {
            return Histogram::default();
        };
        counts.truncate(high + 1);
        counts.drain(..low);
        let first = self.first + low;
        let last = first + counts.len() - 1;
        Histogram {
            first,
            counts,
            count: self.count - earlier.count,
            sum: Sum::of(self.sum.get() - earlier.sum.get()),
            min: bucket_range(first).0.max(self.min),
            max: (bucket_range(last).1 - 1).min(self.max),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_needs_no_16_byte_alignment() {
        // Its fields are 8-byte words; a u128 sum would make it (and every record holding
        // one) 16-byte aligned, padded to a multiple of 16.
        assert_eq!(
            std::mem::align_of::<Histogram>(),
            std::mem::align_of::<u64>()
        );
        assert_eq!(
            std::mem::size_of::<Histogram>(),
            std::mem::size_of::<(usize, Vec<u64>, u64, [u64; 2], u64, u64)>()
        );
    }

    #[test]
    fn the_sum_carries_into_its_high_half() {
        let mut histogram = Histogram::new();
        for _ in 0..3 {
            histogram.record(u64::MAX);
        }
        assert_eq!(histogram.sum(), 3 * u64::MAX as u128);
        let mut earlier = Histogram::new();
        earlier.record(u64::MAX);
        assert_eq!(histogram.since(&earlier).sum(), 2 * u64::MAX as u128);
    }

    #[test]
    fn buckets_cover_values_without_gaps() {
        let mut previous_high = 0;
        for bucket in 0..BUCKETS {
            let (low, high) = bucket_range(bucket);
            assert_eq!(low, previous_high, "bucket {bucket}");
            assert_eq!(bucket_of(low), bucket);
            assert_eq!(bucket_of(high - 1), bucket);
            // Relative width at most 1/64.
            assert!((high - low) as f64 <= low.max(1) as f64 / 64.0 + 1.0);
            previous_high = high;
        }
        assert_eq!(previous_high, 1 << MAX_BITS);
    }

    #[test]
    fn quantiles_of_known_samples() {
        let mut h = Histogram::default();
        assert_eq!(h.quantile(0.99), None);
        // 1..=100 ms: the 99th percentile is the 99th value, 99 ms, within 0.8 %.
        for ms in 1..=100u64 {
            h.record(ms * 1_000_000);
        }
        let p99 = h.quantile(0.99).unwrap();
        assert!((p99 / 99e6 - 1.0).abs() < 0.008, "{p99}");
        let p50 = h.quantile(0.5).unwrap();
        assert!((p50 / 50e6 - 1.0).abs() < 0.008, "{p50}");
        assert_eq!(h.quantile(1.0), Some(100e6));
        assert_eq!(h.mean(), Some(50.5e6));
        assert_eq!(
            (h.min(), h.max(), h.count()),
            (Some(1_000_000), Some(100_000_000), 100)
        );
    }

    #[test]
    fn single_value_is_exact() {
        let mut h = Histogram::default();
        h.record(30_123_457);
        assert_eq!(h.quantile(0.99), Some(30_123_457.0));
    }

    #[test]
    fn only_the_used_range_is_stored() {
        assert_eq!(Histogram::default().heap_bytes(), 0);
        // RTTs from 50 to 200 ms. By hand: 5e7 ns has exponent 25 (2^25 ≤ 5e7 < 2^26), shift
        // 19, 5e7 >> 19 = 95, bucket (19 + 1)·64 + 95 − 64 = 1311; 2e8 has exponent 27, shift
        // 21, 2e8 >> 21 = 95, bucket 22·64 + 31 = 1439: 129 buckets, where the full array has
        // (40 − 6 + 1)·64 = 2240. Allow Vec's doubling growth on top.
        let mut up = Histogram::default();
        let mut down = Histogram::default();
        for i in 0..=150u64 {
            up.record((50 + i) * 1_000_000);
            down.record((200 - i) * 1_000_000);
        }
        assert_eq!((up.first, up.counts.len()), (1311, 129));
        assert!(up.heap_bytes() <= 2 * 129 * 8, "{}", up.heap_bytes());
        // The same samples in another order give the same histogram.
        assert_eq!(up, down);
        assert_eq!(up.quantile(0.5), down.quantile(0.5));
    }

    #[test]
    fn a_compact_histogram_reads_and_records_as_the_full_one() {
        // Three samples in one bucket (by hand: 1000 and 1006 have exponent 9, shift 3,
        // 1000 >> 3 = 1006 >> 3 = 125: bucket 317), compacted: no heap, the same readings.
        let mut full = Histogram::default();
        for v in [1000, 1006, 1003] {
            full.record(v);
        }
        assert_eq!((full.first, full.counts.len()), (317, 1));
        let mut compact = full.clone();
        compact.compact();
        assert_eq!(compact.heap_bytes(), 0);
        assert_eq!(compact, full);
        for q in [0.01, 0.5, 0.99, 1.0] {
            assert_eq!(compact.quantile(q), full.quantile(q));
        }
        assert_eq!(
            (compact.mean(), compact.min(), compact.max()),
            (full.mean(), full.min(), full.max())
        );
        let (snapshot, full_snapshot) = (compact.clone(), full.clone());
        // Samples below, in and above its bucket store the counts again, as in the full one.
        for v in [10, 1001, 2000] {
            full.record(v);
            compact.record(v);
        }
        assert_eq!(compact, full);
        assert_eq!((compact.first, &compact.counts), (full.first, &full.counts));
        // The window since a compact snapshot is the window since the full one.
        assert_eq!(compact.since(&snapshot), full.since(&full_snapshot));
        assert_eq!(compact.since(&snapshot).count(), 3);
        // A histogram of several buckets and an empty one are left as they are.
        let mut wide = full.clone();
        wide.compact();
        assert_eq!(wide.counts, full.counts);
        let mut empty = Histogram::new();
        empty.compact();
        assert_eq!(empty, Histogram::default());
    }

    #[test]
    fn since_subtracts_a_snapshot() {
        let mut h = Histogram::default();
        for v in [10, 20, 30] {
            h.record(v);
        }
        let snapshot = h.clone();
        for v in [1000, 2000] {
            h.record(v);
        }
        let window = h.since(&snapshot);
        assert_eq!(window.count(), 2);
        assert_eq!(window.mean(), Some(1500.0));
        assert_eq!(window.quantile(1.0), Some(2000.0));
        assert!(window.min().unwrap() >= 992 && window.min().unwrap() <= 1000);
        // Nothing since the snapshot: empty, and equal to a new histogram.
        assert_eq!(h.since(&h), Histogram::default());
        // The window holds only the new samples' range, not the snapshot's. By hand: 1000 has
        // exponent 9, shift 3, 1000 >> 3 = 125, bucket 4·64 + 125 − 64 = 317; 2000 has
        // exponent 10, shift 4, 2000 >> 4 = 125, bucket 5·64 + 61 = 381.
        assert_eq!((window.first, window.counts.len()), (317, 381 - 317 + 1));
    }
}
