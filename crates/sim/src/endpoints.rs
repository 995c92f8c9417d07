//! A flow's TCP endpoints over its life: not made before the flow starts, boxed while it
//! runs, and folded into the few numbers its outputs still need once it is done and nothing
//! of it is left in the network. 100 000 flows that mostly wait or are over then cost the
//! ~1.3 kB of a sender and a receiver only while they run (docs/performance.md, "Memory per
//! idle flow").

use cclab_cc::{SimDuration, SimTime, UNLIMITED};

use crate::event::TimerSlot;
use crate::histogram::Histogram;
use crate::result::FlowCounters;
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::Sender;
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
            Endpoints::Closed(closed) => closed.completed_at(),
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
    pub(crate) fn close_if_done(&mut self, names: &mut Names) -> bool {
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
        *self = Endpoints::Closed(Box::new(Closed::new(sender, receiver, names)));
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
/// longer changes) and its totals. Packed, as 100 000 of them wait for the run's end: the
/// optional values are plain numbers with a bit each saying whether they are there (an
/// `Option<u64>` takes 16 bytes), and the RTT sum and count of the mean RTT are the RTT
/// histogram's own (the sender keeps no other), and the controller's and mode's names are
/// indexes into the run's [`Names`]. 232 bytes instead of 368.
#[derive(Debug, PartialEq)]
pub(crate) struct Closed {
    pub(crate) bytes_acked: u64,
    pub(crate) delivered_bytes: u64,
    cwnd_bytes: u64,
    inflight_bytes: u64,
    pub(crate) packets_sent: u64,
    pub(crate) retransmissions: u64,
    pub(crate) payload_bytes_sent: u64,
    pub(crate) wire_bytes_sent: u64,
    pub(crate) timeouts: u64,
    pub(crate) fast_recoveries: u64,
    pub(crate) undos: u64,
    pub(crate) ce_bytes: u64,
    pub(crate) ecn_reductions: u64,
    optional: Optionals,
    /// Every RTT sample (ns); its sum and count are the mean RTT's.
    pub(crate) rtt_histogram: Histogram,
}

/// The optional values of a [`Closed`] record, by index in [`Optionals::values`].
const COMPLETED_AT: usize = 0;
const MIN_RTT: usize = 1;
const SRTT: usize = 2;
const LATEST_RTT: usize = 3;
const SSTHRESH: usize = 4;
const PACING_RATE: usize = 5;

/// Six optional numbers in 56 bytes instead of 96: a value counts only where its bit of
/// `present` is set. The sender's undo flag and the two names' indexes sit in the bytes
/// after `present`, which would otherwise be padding: as fields of [`Closed`] the flag made
/// the record 272 bytes instead of 264, and the names (two `&'static str`) 32 bytes more,
/// each time one malloc size class more (1.6 MB at 100 000 flows for each 16 bytes;
/// docs/performance.md, "Memory per idle flow").
#[derive(Debug, Default, PartialEq)]
struct Optionals {
    values: [u64; 6],
    present: u8,
    undo_enabled: bool,
    /// The controller's name and its mode's, in the run's [`Names`].
    cc: u16,
    mode: u16,
}

/// The controllers' and modes' names that closed records name, each once: a record keeps
/// two indexes (in [`Optionals`]' padding) instead of two `&'static str` of 16 bytes. A run
/// has a few (its groups' controllers and their modes), so a name is found by a scan.
#[derive(Debug, Default)]
pub(crate) struct Names(Vec<&'static str>);

impl Names {
    /// The index of `name`, added if it is new.
    pub(crate) fn index_of(&mut self, name: &'static str) -> u16 {
        let index = match self.0.iter().position(|&known| known == name) {
            Some(index) => index,
            None => {
                self.0.push(name);
                self.0.len() - 1
            }
        };
        u16::try_from(index).expect("a run names fewer than 65 536 controllers and modes")
    }

    /// The name at `index`, from [`Names::index_of`].
    pub(crate) fn name(&self, index: u16) -> &'static str {
        self.0[usize::from(index)]
    }
}

impl Optionals {
    fn set(&mut self, index: usize, value: Option<u64>) {
        if let Some(value) = value {
            self.values[index] = value;
            self.present |= 1 << index;
        }
    }

    fn get(&self, index: usize) -> Option<u64> {
        (self.present & (1 << index) != 0).then_some(self.values[index])
    }

    fn duration(&self, index: usize) -> Option<SimDuration> {
        self.get(index).map(SimDuration::from_nanos)
    }
}

impl Closed {
    /// The record of `sender` and `receiver`, which are consumed (the RTT histogram moves),
    /// naming their controller and mode in `names`.
    pub(crate) fn new(mut sender: Sender, receiver: Receiver, names: &mut Names) -> Self {
        let row = sample(SimTime::ZERO, 0, &sender, &receiver);
        // A done flow's RTTs often fell in one bucket (a one-segment transfer has one
        // sample): kept without a heap block of their own, which would outlive the run
        // inside its freed heap (`Histogram::compact`).
        let mut rtt_histogram = std::mem::take(&mut sender.stats.rtt_histogram);
        rtt_histogram.compact();
        let stats = &sender.stats;
        let mut optional = Optionals {
            undo_enabled: sender.undo_enabled(),
            cc: names.index_of(sender.cc().name()),
            mode: names.index_of(row.mode),
            ..Optionals::default()
        };
        optional.set(COMPLETED_AT, receiver.completed_at.map(SimTime::as_nanos));
        optional.set(MIN_RTT, sender.rtt().min_rtt().map(SimDuration::as_nanos));
        optional.set(SRTT, row.srtt.map(SimDuration::as_nanos));
        optional.set(LATEST_RTT, row.rtt.map(SimDuration::as_nanos));
        optional.set(SSTHRESH, row.ssthresh_bytes);
        optional.set(PACING_RATE, row.pacing_rate_bps);
        Closed {
            bytes_acked: row.bytes_acked,
            delivered_bytes: row.delivered_bytes,
            cwnd_bytes: row.cwnd_bytes,
            inflight_bytes: row.inflight_bytes,
            packets_sent: stats.packets_sent,
            retransmissions: stats.retransmissions,
            payload_bytes_sent: stats.payload_bytes_sent,
            wire_bytes_sent: stats.wire_bytes_sent,
            timeouts: stats.timeouts,
            fast_recoveries: stats.fast_recoveries,
            undos: stats.undos,
            ce_bytes: stats.ce_bytes,
            ecn_reductions: stats.ecn_reductions,
            optional,
            rtt_histogram,
        }
    }

    /// Its controller's name, in the run's `names`.
    pub(crate) fn cc(&self, names: &Names) -> &'static str {
        names.name(self.optional.cc)
    }

    /// Whether the sender could undo a window reduction (its `undos` count then means
    /// something).
    pub(crate) fn undo_enabled(&self) -> bool {
        self.optional.undo_enabled
    }

    /// When the receiver had every byte of a finite transfer.
    pub(crate) fn completed_at(&self) -> Option<SimTime> {
        self.optional.get(COMPLETED_AT).map(SimTime::from_nanos)
    }

    pub(crate) fn min_rtt(&self) -> Option<SimDuration> {
        self.optional.duration(MIN_RTT)
    }

    /// The mean of the RTT samples, as the sender's statistics give it (their sum over
    /// their count, in whole nanoseconds).
    pub(crate) fn mean_rtt(&self) -> Option<SimDuration> {
        let samples = self.rtt_histogram.count();
        (samples > 0)
            .then(|| SimDuration::from_nanos((self.rtt_histogram.sum() / samples as u128) as u64))
    }

    /// Its time-series row at `time`: the one its endpoints gave when they were folded
    /// (`names`: the run's, where its names are).
    pub(crate) fn sample(&self, time: SimTime, flow: u32, names: &Names) -> FlowSample {
        FlowSample {
            time,
            flow,
            cwnd_bytes: self.cwnd_bytes,
            ssthresh_bytes: self.optional.get(SSTHRESH),
            srtt: self.optional.duration(SRTT),
            rtt: self.optional.duration(LATEST_RTT),
            inflight_bytes: self.inflight_bytes,
            bytes_acked: self.bytes_acked,
            delivered_bytes: self.delivered_bytes,
            bytes_sent: self.payload_bytes_sent,
            retransmissions: self.retransmissions,
            pacing_rate_bps: self.optional.get(PACING_RATE),
            mode: names.name(self.optional.mode),
            shared: None,
        }
    }

    /// Its counters (the flow's drops are the caller's).
    pub(crate) fn counters(&self, drops: u64) -> FlowCounters {
        FlowCounters {
            delivered_bytes: self.delivered_bytes,
            payload_bytes_sent: self.payload_bytes_sent,
            wire_bytes_sent: self.wire_bytes_sent,
            packets_sent: self.packets_sent,
            retransmissions: self.retransmissions,
            timeouts: self.timeouts,
            drops,
            rtt: self.rtt_histogram.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_optional_value_is_there_exactly_when_it_was_given() {
        // Every value, the extremes included, comes back as given, and one never given stays
        // absent whatever the others.
        let mut optional = Optionals::default();
        optional.set(COMPLETED_AT, Some(0));
        optional.set(SSTHRESH, Some(u64::MAX));
        optional.set(PACING_RATE, None);
        optional.set(SRTT, Some(7));
        assert_eq!(optional.get(COMPLETED_AT), Some(0));
        assert_eq!(optional.get(SSTHRESH), Some(u64::MAX));
        assert_eq!(optional.duration(SRTT), Some(SimDuration::from_nanos(7)));
        for absent in [MIN_RTT, LATEST_RTT, PACING_RATE] {
            assert_eq!(optional.get(absent), None);
        }
    }

    #[test]
    fn a_closed_record_is_smaller_than_what_it_replaces() {
        // The unpacked record: two names, the undo flag, four counters of the row, six
        // optional values and the sender's statistics, which then also kept the RTT samples'
        // sum (u128) and count (u64) that the histogram now holds alone.
        let unpacked = 2 * std::mem::size_of::<&str>()
            + std::mem::size_of::<bool>()
            + 4 * std::mem::size_of::<u64>()
            + 6 * std::mem::size_of::<Option<u64>>()
            + std::mem::size_of::<crate::tcp::sender::SenderStats>()
            + std::mem::size_of::<(u128, u64)>();
        assert!(std::mem::size_of::<Closed>() + 64 <= unpacked);
    }

    #[test]
    fn a_closed_record_keeps_no_padding() {
        // Thirteen counters, the optionals (six values, the `present` bits, the undo flag
        // and the two names' indexes, rounded up to whole words) and the RTT histogram.
        let fields = 13 * std::mem::size_of::<u64>()
            + std::mem::size_of::<([u64; 6], u8, bool, u16, u16)>()
            + std::mem::size_of::<Histogram>();
        assert_eq!(std::mem::size_of::<Closed>(), fields);
        // With malloc's 8-byte header, in the 240-byte class (272 with the names inline).
        assert!(std::mem::size_of::<Closed>() + 8 <= 240);
    }

    #[test]
    fn names_are_kept_once_and_read_back_by_index() {
        let mut names = Names::default();
        let cubic = names.index_of("cubic");
        let slow_start = names.index_of("slow_start");
        assert_ne!(cubic, slow_start);
        assert_eq!(names.index_of("cubic"), cubic);
        // Equal text from elsewhere is the same name.
        let owned = String::from("slow_start");
        let leaked: &'static str = Box::leak(owned.into_boxed_str());
        assert_eq!(names.index_of(leaked), slow_start);
        assert_eq!(
            (names.name(cubic), names.name(slow_start)),
            ("cubic", "slow_start")
        );
        assert_eq!(names.0.len(), 2);
    }
}
