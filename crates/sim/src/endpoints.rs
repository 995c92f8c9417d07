//! A flow's TCP endpoints over its life: not made before the flow starts, boxed while it
//! runs, and folded into the few numbers its outputs still need once it is done and nothing
//! of it is left in the network. 100 000 flows that mostly wait or are over then cost the
//! ~1.3 kB of a sender and a receiver only while they run (docs/performance.md, "Memory per
//! idle flow").

use cclab_cc::{SimDuration, SimTime, UNLIMITED};

use crate::event::TimerSlot;
use crate::result::FlowCounters;
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::{Sender, SenderStats};
use crate::trace::FlowSample;

/// Where a flow's endpoints are.
pub(crate) enum Endpoints {
    /// Not started yet: made at its `FlowStart` from its group's settings (they depend on
    /// nothing else, so making them then or at the start of the run is the same).
    Pending,
    /// Started: the sender and the receiver, one allocation.
    Running(Box<Running>),
    /// Done, with nothing in flight and no timer armed: nothing can reach it any more.
    Closed(Box<Closed>),
}

/// A running flow's endpoints and their timers (the timers are a running flow's only: an
/// idle one keeps none).
pub(crate) struct Running {
    pub(crate) sender: Sender,
    pub(crate) receiver: Receiver,
    pub(crate) rto: TimerSlot,
    pub(crate) send_timer: TimerSlot,
    pub(crate) delayed_ack: TimerSlot,
}

impl Endpoints {
    pub(crate) fn running(sender: Sender, receiver: Receiver) -> Self {
        Endpoints::Running(Box::new(Running {
            sender,
            receiver,
            rto: TimerSlot::default(),
            send_timer: TimerSlot::default(),
            delayed_ack: TimerSlot::default(),
        }))
    }

    /// The endpoints of a flow that gets a packet or a timer: only a running flow does
    /// (a flow is closed only when none of its packets is in the network and no timer is
    /// armed).
    #[inline(always)]
    pub(crate) fn get(&mut self) -> &mut Running {
        match self {
            Endpoints::Running(running) => running,
            _ => not_running(),
        }
    }

    #[inline(always)]
    pub(crate) fn get_ref(&self) -> &Running {
        match self {
            Endpoints::Running(running) => running,
            _ => not_running(),
        }
    }

    /// The endpoints a timer event acts on: `None` for a closed flow, whose timers were
    /// disarmed when it closed (its stale events are ignored, as a disarmed slot's are).
    #[inline(always)]
    pub(crate) fn timers(&mut self) -> Option<&mut Running> {
        match self {
            Endpoints::Running(running) => Some(running),
            Endpoints::Closed(_) => None,
            Endpoints::Pending => not_running(),
        }
    }

    /// When the receiver had every byte of a finite transfer.
    pub(crate) fn completed_at(&self) -> Option<SimTime> {
        match self {
            Endpoints::Pending => None,
            Endpoints::Running(running) => running.receiver.completed_at,
            Endpoints::Closed(closed) => closed.completed_at,
        }
    }

    /// Every byte of the transfer acknowledged (`false` before the start).
    pub(crate) fn sender_finished(&self) -> bool {
        match self {
            Endpoints::Pending => false,
            Endpoints::Running(running) => running.sender.is_finished(),
            Endpoints::Closed(_) => true,
        }
    }

    /// Fold running endpoints into their record if they are done: every byte delivered and
    /// acknowledged, and no timer armed. The caller has made sure that none of the flow's
    /// packets is in the network. Returns whether they are closed now.
    pub(crate) fn close_if_done(&mut self) -> bool {
        let Endpoints::Running(running) = self else {
            return matches!(self, Endpoints::Closed(_));
        };
        let Running {
            sender,
            receiver,
            rto,
            send_timer,
            delayed_ack,
        } = &**running;
        let done = receiver.completed_at.is_some()
            && !(rto.armed() || send_timer.armed() || delayed_ack.armed())
            && sender.is_finished()
            && sender.timer_deadline().is_none()
            && sender.send_deadline().is_none()
            && receiver.delayed_ack_deadline().is_none();
        if !done {
            return false;
        }
        let Endpoints::Running(running) = std::mem::replace(self, Endpoints::Pending) else {
            unreachable!("matched above");
        };
        let Running {
            sender, receiver, ..
        } = *running;
        *self = Endpoints::Closed(Box::new(Closed::new(sender, receiver)));
        true
    }
}

#[cold]
#[inline(never)]
fn not_running() -> ! {
    panic!("a packet or a timer reached a flow that is not running")
}

/// The time-series row of running endpoints.
pub(crate) fn sample(time: SimTime, flow: u32, sender: &Sender, receiver: &Receiver) -> FlowSample {
    let cc = sender.cc();
    FlowSample {
        time,
        flow,
        cwnd_bytes: sender.window(),
        ssthresh_bytes: (cc.ssthresh() != UNLIMITED).then(|| cc.ssthresh()),
        srtt: sender.rtt().srtt(),
        rtt: sender.rtt().latest(),
        inflight_bytes: sender.bytes_in_flight(),
        bytes_acked: sender.snd_una(),
        delivered_bytes: receiver.delivered(),
        bytes_sent: sender.stats.payload_bytes_sent,
        retransmissions: sender.stats.retransmissions,
        pacing_rate_bps: sender.pacing_rate(),
        mode: cc.mode(),
        shared: None,
    }
}

/// What a done flow's outputs still read of its endpoints: its time-series row (which no
/// longer changes) and its totals.
#[derive(Debug, PartialEq)]
pub(crate) struct Closed {
    pub(crate) cc: &'static str,
    pub(crate) mode: &'static str,
    pub(crate) undo_enabled: bool,
    pub(crate) bytes_acked: u64,
    pub(crate) delivered_bytes: u64,
    pub(crate) completed_at: Option<SimTime>,
    pub(crate) min_rtt: Option<SimDuration>,
    pub(crate) srtt: Option<SimDuration>,
    pub(crate) latest_rtt: Option<SimDuration>,
    pub(crate) cwnd_bytes: u64,
    pub(crate) ssthresh_bytes: Option<u64>,
    pub(crate) inflight_bytes: u64,
    pub(crate) pacing_rate_bps: Option<u64>,
    pub(crate) stats: SenderStats,
}

impl Closed {
    /// The record of `sender` and `receiver`, which are consumed (the RTT histogram moves).
    pub(crate) fn new(mut sender: Sender, receiver: Receiver) -> Self {
        let row = sample(SimTime::ZERO, 0, &sender, &receiver);
        Closed {
            cc: sender.cc().name(),
            mode: row.mode,
            undo_enabled: sender.undo_enabled(),
            bytes_acked: row.bytes_acked,
            delivered_bytes: row.delivered_bytes,
            completed_at: receiver.completed_at,
            min_rtt: sender.rtt().min_rtt(),
            srtt: row.srtt,
            latest_rtt: row.rtt,
            cwnd_bytes: row.cwnd_bytes,
            ssthresh_bytes: row.ssthresh_bytes,
            inflight_bytes: row.inflight_bytes,
            pacing_rate_bps: row.pacing_rate_bps,
            stats: std::mem::take(&mut sender.stats),
        }
    }

    /// Its time-series row at `time`: the one its endpoints gave when they were folded.
    pub(crate) fn sample(&self, time: SimTime, flow: u32) -> FlowSample {
        FlowSample {
            time,
            flow,
            cwnd_bytes: self.cwnd_bytes,
            ssthresh_bytes: self.ssthresh_bytes,
            srtt: self.srtt,
            rtt: self.latest_rtt,
            inflight_bytes: self.inflight_bytes,
            bytes_acked: self.bytes_acked,
            delivered_bytes: self.delivered_bytes,
            bytes_sent: self.stats.payload_bytes_sent,
            retransmissions: self.stats.retransmissions,
            pacing_rate_bps: self.pacing_rate_bps,
            mode: self.mode,
            shared: None,
        }
    }

    /// Its counters (the flow's drops are the caller's).
    pub(crate) fn counters(&self, drops: u64) -> FlowCounters {
        FlowCounters {
            delivered_bytes: self.delivered_bytes,
            payload_bytes_sent: self.stats.payload_bytes_sent,
            wire_bytes_sent: self.stats.wire_bytes_sent,
            packets_sent: self.stats.packets_sent,
            retransmissions: self.stats.retransmissions,
            timeouts: self.stats.timeouts,
            drops,
            rtt: self.stats.rtt_histogram.clone(),
        }
    }
}
