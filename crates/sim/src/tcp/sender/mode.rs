//! Mode changes and flow events: what the sender records for `events.csv`.

use cclab_cc::metrics::is_slow_start_mode;
use cclab_cc::{SimTime, SlowStartExit, UNLIMITED};

use crate::trace::{FlowEvent, FlowEventKind};

use super::Sender;

/// The controller call after which a mode change was seen (the `detail` of a mode event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ModeCause {
    Start,
    Ack,
    Loss,
    Ecn,
    Timeout,
    RecoveryEnd,
    Send,
    Undo,
}

impl ModeCause {
    pub(super) fn name(self) -> &'static str {
        match self {
            ModeCause::Start => "start",
            ModeCause::Ack => "ack",
            ModeCause::Loss => "loss",
            ModeCause::Ecn => "ecn",
            ModeCause::Timeout => "timeout",
            ModeCause::RecoveryEnd => "recovery_end",
            ModeCause::Send => "send",
            ModeCause::Undo => "undo",
        }
    }
}

impl Sender {
    /// Record a mode change made by the controller call just done. On the hot path this is
    /// one label comparison (labels are `&'static str`: same address and length, same label).
    #[inline]
    pub(super) fn check_mode(&mut self, now: SimTime, cause: ModeCause) {
        let mode = self.cc.mode();
        if !std::ptr::eq(mode, self.mode) {
            self.mode_changed(now, mode, cause);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn mode_changed(&mut self, now: SimTime, mode: &'static str, cause: ModeCause) {
        let from = std::mem::replace(&mut self.mode, mode);
        if from == mode {
            return; // the same label from another string literal
        }
        self.record(now, FlowEventKind::Mode, from, mode, cause.name());
        if !is_slow_start_mode(from) || is_slow_start_mode(mode) || cause == ModeCause::Start {
            return;
        }
        let exit = match cause {
            ModeCause::Loss => Some(SlowStartExit::Loss),
            ModeCause::Ecn => Some(SlowStartExit::Ecn),
            ModeCause::Timeout => Some(SlowStartExit::Timeout),
            // The controller (or its slow-start part) decided on an ACK; one that does not
            // say why left slow start by reaching ssthresh if cwnd is there.
            _ => self.cc.metrics().slow_start_exit.or_else(|| {
                (self.cc.cwnd() >= self.cc.ssthresh()).then_some(SlowStartExit::SsthreshReached)
            }),
        };
        let detail = exit.map_or("", SlowStartExit::name);
        self.record(now, FlowEventKind::SlowStartExit, from, mode, detail);
    }

    #[cold]
    #[inline(never)]
    pub(super) fn record(
        &mut self,
        now: SimTime,
        kind: FlowEventKind,
        from: &'static str,
        to: &'static str,
        detail: &'static str,
    ) {
        let ssthresh = self.cc.ssthresh();
        self.events.push(FlowEvent {
            time: now,
            flow: self.config.flow,
            kind,
            from,
            to,
            detail,
            cwnd_bytes: self.cc.cwnd(),
            ssthresh_bytes: (ssthresh != UNLIMITED).then_some(ssthresh),
        });
    }
}
