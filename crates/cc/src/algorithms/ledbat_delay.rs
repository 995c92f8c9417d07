//! The delay estimate LEDBAT (RFC 6817 §2.4.2) and LEDBAT++ share: a base delay that is the
//! minimum of per-minute minima over the last BASE_HISTORY minutes (so a route change ages
//! out), and a current delay that is the minimum of the last CURRENT_FILTER samples (§3.4.2:
//! a small MIN filter against noise). Their difference is the queueing delay.

use crate::time::{SimDuration, SimTime};

/// Longest histories the parameters allow, so the state needs no allocation.
pub const MAX_BASE_HISTORY: usize = 60;
pub const MAX_CURRENT_FILTER: usize = 64;
/// The base-delay history rolls over once a minute (RFC 6817 §2.4.2 `round_to_minute`).
const MINUTE: SimDuration = SimDuration::from_secs(60);

/// A fixed-capacity ring of the last `len` delays (at most `N`), oldest overwritten.
#[derive(Clone, Copy, Debug)]
struct DelayRing<const N: usize> {
    delays: [SimDuration; N],
    len: usize,
    capacity: usize,
    next: usize,
}

impl<const N: usize> DelayRing<N> {
    fn new(capacity: usize) -> Self {
        DelayRing {
            delays: [SimDuration::ZERO; N],
            len: 0,
            capacity: capacity.clamp(1, N),
            next: 0,
        }
    }

    fn push(&mut self, delay: SimDuration) {
        self.delays[self.next] = delay;
        self.next = (self.next + 1) % self.capacity;
        self.len = (self.len + 1).min(self.capacity);
    }

    /// The most recent entry (to lower it within the current minute).
    fn last_mut(&mut self) -> Option<&mut SimDuration> {
        (self.len > 0).then(|| &mut self.delays[(self.next + self.capacity - 1) % self.capacity])
    }

    fn min(&self) -> Option<SimDuration> {
        self.delays[..self.len].iter().copied().min()
    }
}

#[derive(Clone, Copy, Debug)]
pub struct DelayEstimate {
    /// RFC 6817 base_delays: per-minute minima, the current minute's last.
    base_delays: DelayRing<MAX_BASE_HISTORY>,
    /// When the current minute's entry started.
    last_rollover: Option<SimTime>,
    /// RFC 6817 current_delays: the last CURRENT_FILTER samples.
    current_delays: DelayRing<MAX_CURRENT_FILTER>,
}

impl DelayEstimate {
    pub fn new(base_history: usize, current_filter: usize) -> Self {
        DelayEstimate {
            base_delays: DelayRing::new(base_history),
            last_rollover: None,
            current_delays: DelayRing::new(current_filter),
        }
    }

    /// A delay sample at `now`: RFC 6817 §2.4.2 `update_base_delay` (a new minute starts a
    /// new entry, dropping the oldest; within a minute the entry keeps the minimum) and
    /// `update_current_delay`.
    pub fn on_sample(&mut self, now: SimTime, delay: SimDuration) {
        match self.last_rollover {
            Some(start) if now.saturating_since(start) < MINUTE => {
                if let Some(last) = self.base_delays.last_mut() {
                    *last = (*last).min(delay);
                }
            }
            _ => {
                self.last_rollover = Some(now);
                self.base_delays.push(delay);
            }
        }
        self.current_delays.push(delay);
    }

    /// MIN(base_delays).
    pub fn base(&self) -> Option<SimDuration> {
        self.base_delays.min()
    }

    /// FILTER(current_delays) − MIN(base_delays), seconds (negative when the filtered
    /// current delay is below the base).
    pub fn queuing_delay_s(&self) -> Option<f64> {
        let (current, base) = (self.current_delays.min()?, self.base()?);
        Some(current.as_secs_f64() - base.as_secs_f64())
    }
}
