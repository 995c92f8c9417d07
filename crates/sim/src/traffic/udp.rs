//! `kind = "udp"`: an unresponsive source and its sink. The source puts packets of
//! `packet_size` wire bytes on the flow's data path at its pattern's times — constant bit
//! rate, Poisson, or CBR during on periods — whatever happens to them; the sink at the end
//! of the path counts what arrives and its one-way delay. No ACKs, no retransmissions: the
//! flow's TCP endpoints stay idle. docs/traffic.md gives the model.

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::traffic::UdpConfig;
use cclab_scenario::traffic::udp::UdpPattern;

use crate::event::Event;
use crate::histogram::Histogram;
use crate::packet::{Ecn, MAX_SACK_BLOCKS, Packet, PacketKind, SackOffsets, XcpHeader};
use crate::result::{CountersAtWindowStart, FlowCounters, FlowResult};
use crate::rng::Rng;
use crate::simulation::Simulation;
use crate::trace::UdpSample;
use crate::traffic::periods::{PeriodClock, exponential};

/// When the next packet leaves.
#[derive(Clone, Debug)]
enum Schedule {
    /// Packet k of the run leaves at `run_start + k · size · 8 / rate`, computed exactly
    /// from k, so that rounding never drifts the long-run rate.
    Cbr,
    /// Exponential gaps with mean `size · 8 / rate` from the flow's own stream: a Poisson
    /// process of that rate.
    Poisson { rng: Rng, mean_gap_ns: f64 },
    /// CBR runs during on periods; `on_until` ends the current one.
    OnOff {
        clock: PeriodClock,
        on_until: SimTime,
    },
}

/// A UDP flow's counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UdpStats {
    pub packets_sent: u64,
    pub payload_bytes_sent: u64,
    pub wire_bytes_sent: u64,
    pub packets_delivered: u64,
    pub payload_bytes_delivered: u64,
    /// One-way delays (send to arrival at the sink) of the delivered packets.
    pub delay_sum_ns: u128,
    pub delay_min: Option<SimDuration>,
}

/// What a UDP flow reports at the end of a run, next to its packet counters.
#[derive(Clone, Debug, PartialEq)]
pub struct UdpResult {
    pub packets_delivered: u64,
    /// Mean and minimum one-way delay of the delivered packets; `None` if none arrived.
    pub mean_one_way_delay: Option<SimDuration>,
    pub min_one_way_delay: Option<SimDuration>,
}

/// An unresponsive source and the counters of its sink.
#[derive(Clone, Debug)]
pub struct UdpSource {
    flow: u32,
    rate_bps: u64,
    wire_bytes: u32,
    payload: u32,
    schedule: Schedule,
    /// Start of the current CBR run (the flow's start, or the start of an on period) and the
    /// index of the next packet in it.
    run_start: SimTime,
    run_index: u64,
    pub stats: UdpStats,
}

impl UdpSource {
    /// The source of flow `flow`; `rng` is its own stream (`flow{id}-udp`), drawn from only
    /// by Poisson gaps and exponential periods.
    pub fn new(flow: u32, config: &UdpConfig, rng: Rng) -> Self {
        let gap_ns = config.packet_size as f64 * 8.0 * 1e9 / config.rate_bps as f64;
        let schedule = match &config.pattern {
            UdpPattern::Cbr => Schedule::Cbr,
            UdpPattern::Poisson => Schedule::Poisson {
                rng,
                mean_gap_ns: gap_ns,
            },
            UdpPattern::OnOff(periods) => Schedule::OnOff {
                clock: PeriodClock::new(*periods, rng),
                on_until: SimTime::ZERO,
            },
        };
        UdpSource {
            flow,
            rate_bps: config.rate_bps,
            wire_bytes: config.packet_size,
            payload: config.payload_bytes(),
            schedule,
            run_start: SimTime::ZERO,
            run_index: 0,
            stats: UdpStats::default(),
        }
    }

    /// When packet `index` of a CBR run leaves, after the run's start.
    fn cbr_offset(&self, index: u64) -> SimDuration {
        let ns =
            index as u128 * self.wire_bytes as u128 * 8 * 1_000_000_000 / self.rate_bps as u128;
        SimDuration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }

    /// The source starts at `now`: when its first packet leaves. A CBR source and an on/off
    /// source (which starts with an on period) send at once; a Poisson source after its
    /// first gap, as the first arrival of a Poisson process started at `now`.
    pub fn start(&mut self, now: SimTime) -> SimTime {
        self.run_start = now;
        self.run_index = 0;
        match &mut self.schedule {
            Schedule::Cbr => now,
            Schedule::Poisson { rng, mean_gap_ns } => now + exponential(rng, *mean_gap_ns),
            Schedule::OnOff { clock, on_until } => {
                *on_until = now + clock.on();
                self.next_on_off(now)
            }
        }
    }

    /// The first send at or after `candidate` that falls inside an on period: `candidate`
    /// itself, or the start of the next on period long enough to hold a packet.
    fn next_on_off(&mut self, mut candidate: SimTime) -> SimTime {
        let Schedule::OnOff { clock, on_until } = &mut self.schedule else {
            return candidate;
        };
        // A packet leaves only strictly inside an on period: an on period of length L holds
        // the packets at offsets k · gap < L (exactly L / gap of them when that is whole).
        while candidate >= *on_until {
            self.run_start = *on_until + clock.off();
            self.run_index = 0;
            *on_until = self.run_start + clock.on();
            candidate = self.run_start;
        }
        candidate
    }

    /// Send the packet due at `now`; returns it and when the next one leaves.
    pub fn send(&mut self, now: SimTime) -> (Packet, SimTime) {
        let seq = self.stats.payload_bytes_sent;
        self.stats.packets_sent += 1;
        self.stats.payload_bytes_sent += self.payload as u64;
        self.stats.wire_bytes_sent += self.wire_bytes as u64;
        let packet = Packet {
            flow: self.flow,
            hop: 0,
            kind: PacketKind::Data,
            retransmission: false,
            sack_count: 0,
            ecn: Ecn::NotEct,
            wire_bytes: self.wire_bytes,
            payload: self.payload,
            // The byte offset in the flow's stream, so that traced UDP flows plot like TCP.
            seq,
            sack: [SackOffsets::default(); MAX_SACK_BLOCKS],
            // A UDP packet carries its send time here for the sink's one-way delay (the
            // field is an ACK's CE counter and unused on data).
            ce_bytes: now.as_nanos(),
            xcp: XcpHeader::default(),
            vcp: None,
            window: 0,
            ts: 0,
        };
        self.run_index += 1;
        let next = match &mut self.schedule {
            Schedule::Cbr => self.run_start + self.cbr_offset(self.run_index),
            Schedule::Poisson { rng, mean_gap_ns } => now + exponential(rng, *mean_gap_ns),
            Schedule::OnOff { .. } => {
                let candidate = self.run_start + self.cbr_offset(self.run_index);
                self.next_on_off(candidate)
            }
        };
        (packet, next)
    }

    /// A packet of this flow reached the end of its path at `now`.
    pub fn on_delivered(&mut self, now: SimTime, packet: &Packet) {
        let delay = now - SimTime::from_nanos(packet.ce_bytes);
        self.stats.packets_delivered += 1;
        self.stats.payload_bytes_delivered += packet.payload as u64;
        self.stats.delay_sum_ns += delay.as_nanos() as u128;
        self.stats.delay_min = Some(self.stats.delay_min.map_or(delay, |m| m.min(delay)));
    }

    /// What the sink measured.
    pub fn result(&self) -> UdpResult {
        let s = &self.stats;
        UdpResult {
            packets_delivered: s.packets_delivered,
            mean_one_way_delay: (s.packets_delivered > 0).then(|| {
                SimDuration::from_nanos((s.delay_sum_ns / s.packets_delivered as u128) as u64)
            }),
            min_one_way_delay: s.delay_min,
        }
    }

    /// The flow's counters now, in the TCP fields that mean the same; `drops` are its
    /// packets dropped on the path (counted by the simulation).
    pub fn counters(&self, drops: u64) -> FlowCounters {
        let s = &self.stats;
        FlowCounters {
            delivered_bytes: s.payload_bytes_delivered,
            payload_bytes_sent: s.payload_bytes_sent,
            wire_bytes_sent: s.wire_bytes_sent,
            packets_sent: s.packets_sent,
            drops,
            ..FlowCounters::default()
        }
    }

    /// The flow's result at the end of the run: its counters in the TCP fields that mean the
    /// same (bytes delivered count as acknowledged), zeros for what it does not have
    /// (retransmissions, timeouts, RTT samples), and its sink's one-way delays.
    pub fn flow_result(
        &self,
        id: u32,
        group: u32,
        start: SimTime,
        drops: u64,
        at_window_start: CountersAtWindowStart,
    ) -> FlowResult {
        let s = &self.stats;
        FlowResult {
            id,
            group,
            cc: "udp",
            start,
            size: None,
            bytes_acked: s.payload_bytes_delivered,
            delivered_bytes: s.payload_bytes_delivered,
            payload_bytes_sent: s.payload_bytes_sent,
            wire_bytes_sent: s.wire_bytes_sent,
            packets_sent: s.packets_sent,
            retransmissions: 0,
            timeouts: 0,
            fast_recoveries: 0,
            undos: None,
            ce_bytes: 0,
            ecn_reductions: 0,
            mean_rtt: None,
            min_rtt: None,
            completed_at: None,
            handshake: None,
            drops,
            ack_drops: 0,
            rtt: Histogram::default(),
            at_window_start,
            udp: Some(Box::new(self.result())),
        }
    }

    fn sample(&self, now: SimTime) -> UdpSample {
        UdpSample {
            time: now,
            flow: self.flow,
            delivered_bytes: self.stats.payload_bytes_delivered,
            bytes_sent: self.stats.payload_bytes_sent,
        }
    }
}

impl Simulation {
    /// A UDP flow starts: schedule its first packet.
    pub(crate) fn udp_start(&mut self, id: u32) {
        let now = self.now;
        let Some(source) = self.flows[id as usize].udp.as_mut() else {
            return;
        };
        let first = source.start(now);
        self.queue.schedule(first, Event::UdpSend(id));
    }

    /// A UDP flow's packet is due: send it and schedule the next.
    pub(crate) fn udp_send(&mut self, id: u32) {
        let now = self.now;
        let Some(source) = self.flows[id as usize].udp.as_mut() else {
            return;
        };
        let (packet, next) = source.send(now);
        self.queue.schedule(next, Event::UdpSend(id));
        self.emit(packet);
    }

    /// A UDP packet reached the end of its path: the sink counts it (no ACK).
    #[cold]
    #[inline(never)]
    pub(crate) fn udp_receive(&mut self, packet: &Packet) {
        let now = self.now;
        if let Some(source) = self.flows[packet.flow as usize].udp.as_mut() {
            source.on_delivered(now, packet);
        }
    }

    /// A UDP flow's counters at a sampling tick, for its rates (it has no window to sample).
    pub(crate) fn udp_sample(&self, id: usize) -> Option<UdpSample> {
        self.flows[id].udp.as_ref().map(|s| s.sample(self.now))
    }
}
