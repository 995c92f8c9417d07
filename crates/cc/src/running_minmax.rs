//! Kathleen Nichols' windowed min/max filter over time, as Linux `lib/win_minmax.c` runs it:
//! the best, second-best and third-best samples of the window, each from a later sub-window,
//! so that when the best ages out a good replacement is at hand. Constant memory and work per
//! sample; the estimate is within the window's true extreme except when samples trend
//! steadily against the filter (the known approximation of the algorithm).
//!
//! Used where a controller needs "the smallest RTT over the last τ seconds" with a τ that
//! changes as the RTT does (Copa's RTTstanding over srtt/2, its RTTmin over 10 s) or the
//! largest (Copa's RTTmax over four RTTs).

use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    time: SimTime,
    value: SimDuration,
}

/// Which extreme the filter keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keep {
    Min,
    Max,
}

/// A running minimum or maximum of durations over a sliding time window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunningMinMax {
    keep: Keep,
    /// Best, second-best and third-best samples; empty until the first sample.
    samples: Option<[Sample; 3]>,
}

impl RunningMinMax {
    /// A filter of the minimum.
    pub fn min() -> Self {
        RunningMinMax {
            keep: Keep::Min,
            samples: None,
        }
    }

    /// A filter of the maximum.
    pub fn max() -> Self {
        RunningMinMax {
            keep: Keep::Max,
            samples: None,
        }
    }

    /// The estimate after the last sample; `None` before the first.
    pub fn get(&self) -> Option<SimDuration> {
        self.samples.map(|s| s[0].value)
    }

    /// Add `value` measured at `now` (times must not decrease) and return the extreme over
    /// the window `[now − window, now]`.
    pub fn update(&mut self, now: SimTime, value: SimDuration, window: SimDuration) -> SimDuration {
        let sample = Sample { time: now, value };
        let Some(s) = self.samples.as_mut() else {
            self.samples = Some([sample; 3]);
            return value;
        };
        // win_minmax.c minmax_running_{min,max}: a new best, or a window with nothing
        // recent enough (even the third sample expired), restarts the filter.
        let keep = self.keep;
        // `a` is at least as good as `b` for this filter.
        let good = |a: SimDuration, b: SimDuration| match keep {
            Keep::Min => a <= b,
            Keep::Max => a >= b,
        };
        if good(value, s[0].value) || now.saturating_since(s[2].time) > window {
            *s = [sample; 3];
            return value;
        }
        if good(value, s[1].value) {
            s[1] = sample;
            s[2] = sample;
        } else if good(value, s[2].value) {
            s[2] = sample;
        }
        // minmax_subwin_update: age the samples by quarters and halves of the window.
        let age = now.saturating_since(s[0].time);
        if age > window {
            s[0] = s[1];
            s[1] = s[2];
            s[2] = sample;
            if now.saturating_since(s[0].time) > window {
                s[0] = s[1];
                s[1] = s[2];
                s[2] = sample;
            }
        } else if s[1].time == s[0].time && age > window / 4 {
            // A quarter of the window passed with no second choice: take this one.
            s[1] = sample;
            s[2] = sample;
        } else if s[2].time == s[1].time && age > window / 2 {
            // Half passed with no third choice.
            s[2] = sample;
        }
        s[0].value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    fn d(ms: u64) -> SimDuration {
        SimDuration::from_millis(ms)
    }

    #[test]
    fn the_minimum_holds_for_its_window_then_gives_way_to_later_samples() {
        let mut f = RunningMinMax::min();
        let w = d(100);
        assert_eq!(f.update(t(0), d(50), w), d(50));
        assert_eq!(f.update(t(10), d(60), w), d(50));
        assert_eq!(f.update(t(40), d(70), w), d(50));
        // 50 ms (t = 0) expires after t = 100: the runner-up kept from a later sub-window
        // takes over, not a value from outside the window.
        let after = f.update(t(101), d(80), w);
        assert!(after == d(60) || after == d(70), "{after:?}");
        assert!(after > d(50));
    }

    #[test]
    fn a_new_extreme_replaces_everything() {
        let mut f = RunningMinMax::min();
        let w = d(100);
        f.update(t(0), d(50), w);
        f.update(t(10), d(60), w);
        assert_eq!(f.update(t(20), d(30), w), d(30));
        assert_eq!(f.get(), Some(d(30)));
        let mut g = RunningMinMax::max();
        g.update(t(0), d(50), w);
        assert_eq!(g.update(t(10), d(20), w), d(50));
        assert_eq!(g.update(t(20), d(90), w), d(90));
    }

    #[test]
    fn an_expired_window_restarts_from_the_new_sample() {
        let mut f = RunningMinMax::max();
        let w = d(10);
        f.update(t(0), d(90), w);
        // Nothing in (t − 10 ms, t]: the estimate is the new sample alone.
        assert_eq!(f.update(t(50), d(5), w), d(5));
    }

    #[test]
    fn a_steady_stream_tracks_the_exact_window_minimum_of_a_falling_then_rising_series() {
        // Samples every 1 ms: 100, 99, …, 51 then 52, 53, …: the minimum over the last 20 ms
        // is exact while the series falls (each sample is a new best), and within the
        // window's values while it rises (the filter's approximation never invents a value).
        let mut f = RunningMinMax::min();
        let w = d(20);
        let series: Vec<u64> = (0..50).map(|i| 100 - i).chain(52..120).collect();
        for (i, &v) in series.iter().enumerate() {
            let estimate = f.update(t(i as u64), d(v), w);
            let lo = i.saturating_sub(20);
            let window: Vec<u64> = series[lo..=i].to_vec();
            let exact = *window.iter().min().expect("non-empty");
            assert!(
                estimate >= d(exact),
                "sample {i}: {estimate:?} below the window's min"
            );
            assert!(
                window.contains(&(estimate.as_nanos() / 1_000_000)),
                "sample {i}"
            );
        }
    }
}
