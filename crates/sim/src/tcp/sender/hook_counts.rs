//! A test double for the sender's tests: a controller that forwards every call to the one it
//! wraps and counts the hooks whose calls the tests check (which timeouts the sender judged
//! new congestion events, and how a recovery ended).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cclab_cc::{Ack, CongestionControl, CongestionEvent, SimTime, TimeoutEvent, UndoEvent};

/// How often each counted hook was called.
#[derive(Default)]
pub(super) struct HookCounts {
    timeout_congestion_events: AtomicU64,
    recovery_exits: AtomicU64,
    reductions_complete: AtomicU64,
}

impl HookCounts {
    pub(super) fn timeout_congestion_events(&self) -> u64 {
        self.timeout_congestion_events.load(Ordering::Relaxed)
    }

    /// (`on_recovery_exit` calls, `on_reduction_complete` calls).
    pub(super) fn recovery_ends(&self) -> (u64, u64) {
        (
            self.recovery_exits.load(Ordering::Relaxed),
            self.reductions_complete.load(Ordering::Relaxed),
        )
    }
}

/// Wraps `inner` and counts into `counts`.
pub(super) struct CountingController {
    pub inner: Box<dyn CongestionControl>,
    pub counts: Arc<HookCounts>,
}

impl CongestionControl for CountingController {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn on_ack(&mut self, ack: &Ack) {
        self.inner.on_ack(ack);
    }
    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.inner.on_congestion_event(event);
    }
    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        self.counts
            .timeout_congestion_events
            .fetch_add(1, Ordering::Relaxed);
        self.inner.on_timeout_congestion_event(event);
    }
    fn on_retransmission_timeout(&mut self, event: &TimeoutEvent) {
        self.inner.on_retransmission_timeout(event);
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        self.counts.recovery_exits.fetch_add(1, Ordering::Relaxed);
        self.inner.on_recovery_exit(now);
    }
    fn on_reduction_complete(&mut self, now: SimTime) {
        self.counts
            .reductions_complete
            .fetch_add(1, Ordering::Relaxed);
        self.inner.on_reduction_complete(now);
    }
    fn on_undo(&mut self, event: &UndoEvent) {
        self.inner.on_undo(event);
    }
    fn cwnd(&self) -> u64 {
        self.inner.cwnd()
    }
    fn ssthresh(&self) -> u64 {
        self.inner.ssthresh()
    }
    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.inner.assign_window(cwnd, ssthresh)
    }
}
