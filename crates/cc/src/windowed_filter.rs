//! A windowed running maximum over a virtual clock, for BBR's bandwidth and ACK-aggregation
//! estimators.
//!
//! BBR keeps "the maximum sample seen over the last W units of virtual time", where the
//! clock is a count of packet-timed round trips (v1's BtlBw filter: 10 rounds; v3's
//! extra_acked filter: 10 rounds, 1 in Startup) or of ProbeBW cycles (v3's max_bw filter: the
//! current and the previous cycle). The drafts suggest Kathleen Nichols' three-sample
//! approximation (Linux `lib/win_minmax.c`); because every window here is at most a few
//! slots long, this filter is *exact* instead: it keeps the largest sample of each of the last
//! `N` clock values in a fixed ring and takes the maximum over those still inside the window.
//!
//! Window semantics: after `update(t, v, w)` the estimate is the maximum of the samples whose
//! time `s` satisfies `t - s < w`, i.e. the current slot and the `w - 1` before it. (Nichols'
//! filter keeps a sample until `t - s > w`, one slot longer, and may forget a runner-up early;
//! see the BBR docs for what that changes.)
//!
//! Samples age only when a new one is inserted: between updates the estimate stays put. BBR
//! relies on this to keep its last network-limited estimate while every sample is
//! application-limited and therefore not inserted (draft-cardwell-iccrg-bbr-congestion-control-00
//! §4.1.1.4).

/// Exact running maximum over the last `window` (at most `N`) values of a virtual clock.
#[derive(Clone, Debug)]
pub struct WindowedMax<const N: usize> {
    /// The largest sample per clock value; slot `t % N` holds time `t`.
    slots: [Option<(u64, f64)>; N],
    best: f64,
}

impl<const N: usize> Default for WindowedMax<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> WindowedMax<N> {
    /// An empty filter; its estimate is 0 until the first sample.
    pub fn new() -> Self {
        assert!(N > 0, "a windowed filter needs at least one slot");
        WindowedMax {
            slots: [None; N],
            best: 0.0,
        }
    }

    /// Forget every sample.
    pub fn reset(&mut self) {
        self.slots = [None; N];
        self.best = 0.0;
    }

    /// The current estimate: the maximum over the window at the time of the last update.
    pub fn get(&self) -> f64 {
        self.best
    }

    /// Insert `value` observed at virtual time `time` and return the maximum over the samples
    /// with `time - s < window`. `window` is clamped to `1..=N`. Times must not decrease.
    pub fn update(&mut self, time: u64, value: f64, window: u64) -> f64 {
        let window = window.clamp(1, N as u64);
        let index = (time % N as u64) as usize;
        self.slots[index] = match self.slots[index] {
            Some((t, v)) if t == time => Some((t, v.max(value))),
            // A different time in this slot is at least N (>= window) older: expired.
            _ => Some((time, value)),
        };
        self.best = 0.0;
        for slot in &mut self.slots {
            match *slot {
                Some((t, v)) if time.saturating_sub(t) < window => self.best = self.best.max(v),
                Some(_) => *slot = None,
                None => {}
            }
        }
        self.best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_maximum_for_exactly_the_window() {
        let mut f = WindowedMax::<10>::new();
        assert_eq!(f.get(), 0.0);
        // Round 1: a high sample. It stays the maximum while t - 1 < 10, i.e. up to round 10.
        assert_eq!(f.update(1, 100.0, 10), 100.0);
        for round in 2..=10 {
            assert_eq!(f.update(round, 50.0, 10), 100.0, "round {round}");
        }
        // Round 11: 11 - 1 = 10 is not < 10, so the round-1 sample has expired; the best of
        // rounds 2..=11 is 50.
        assert_eq!(f.update(11, 50.0, 10), 50.0);
    }

    #[test]
    fn runner_up_takes_over_when_the_best_expires() {
        let mut f = WindowedMax::<10>::new();
        f.update(0, 9.0, 10);
        f.update(3, 7.0, 10);
        f.update(6, 5.0, 10);
        assert_eq!(f.update(9, 1.0, 10), 9.0);
        // Time 10 expires time 0 (10 - 0 = 10); time 3 (7.0) is now the best.
        assert_eq!(f.update(10, 1.0, 10), 7.0);
        // Time 13 expires time 3; time 6 (5.0) remains.
        assert_eq!(f.update(13, 1.0, 10), 5.0);
        // Time 16 expires time 6; only 1.0 samples remain.
        assert_eq!(f.update(16, 1.0, 10), 1.0);
    }

    #[test]
    fn same_time_keeps_the_larger_sample_and_no_update_means_no_ageing() {
        let mut f = WindowedMax::<2>::new();
        f.update(0, 3.0, 2);
        assert_eq!(f.update(0, 2.0, 2), 3.0);
        // Without updates the estimate does not age, however much time passes.
        assert_eq!(f.get(), 3.0);
        // Two slots: time 1 still sees time 0 (1 - 0 < 2), time 2 does not.
        assert_eq!(f.update(1, 1.0, 2), 3.0);
        assert_eq!(f.update(2, 1.5, 2), 1.5);
    }

    #[test]
    fn a_window_of_one_is_the_current_slot_only() {
        let mut f = WindowedMax::<10>::new();
        f.update(4, 8.0, 10);
        // A shorter window on a later update drops everything older than the current slot.
        assert_eq!(f.update(5, 2.0, 1), 2.0);
        f.reset();
        assert_eq!(f.get(), 0.0);
    }
}
