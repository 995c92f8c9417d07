//! The world and its event loop: a dumbbell built from a [`Scenario`], flows with their TCP
//! endpoints and source routes, and the dispatch of events to links, endpoints and timers.

use cclab_cc::slow_start::packet_pair;
use cclab_cc::{CcConfig, SimDuration, SimTime, UNLIMITED};
use cclab_scenario::{Buffer, InitialSsthresh, LossModel, Recovery, Scenario};

use crate::event::{Event, EventQueue, TimerAction, TimerSlot};
use crate::net::link::{Admission, Link, LinkStats};
use crate::net::loss::LossProcess;
use crate::net::qdisc::DropReason;
use crate::net::qdisc::{BufferLimit, Qdisc, QdiscEnv};
use crate::packet::{Packet, PacketKind};
use crate::result::{FlowCounters, FlowResult, LinkResult, RunResult};
use crate::rng::Rng;
use crate::tcp::receiver::{Receiver, ReceiverConfig};
use crate::tcp::sender::{Sender, SenderConfig};
use crate::trace::{FlowEvent, FlowSample, LinkSample, PacketEvent, PacketEventKind, TraceSink};

/// Links on a flow's path: sender access, bottleneck, receiver access.
const HOPS: usize = 3;
const BOTTLENECK: u32 = 0;
const BOTTLENECK_REVERSE: u32 = 1;

/// How often (in events) the progress callback is called.
const PROGRESS_EVERY: u64 = 1 << 16;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SimError {
    #[error("invariant violated at {time}: {message}")]
    Invariant { time: SimTime, message: String },
}

struct Flow {
    group: u32,
    start: SimTime,
    size: Option<u64>,
    mss: u64,
    started: bool,
    sender: Sender,
    receiver: Receiver,
    data_path: [u32; HOPS],
    ack_path: [u32; HOPS],
    rto: TimerSlot,
    send_timer: TimerSlot,
    delayed_ack: TimerSlot,
    /// Sorted data-segment indexes to drop at the bottleneck (first transmissions).
    drop: Vec<u64>,
    /// Data segments and ACKs of this flow dropped on any link.
    data_drops: u64,
    ack_drops: u64,
    /// Packet events go to the trace sink (`[output] trace_packets`).
    traced: bool,
    at_window_start: FlowCounters,
}

/// Packets created by endpoints, consumed by endpoints, and dropped by links: with the
/// packets still on links they must balance at every instant.
#[derive(Clone, Copy, Debug, Default)]
struct Conservation {
    created: u64,
    consumed: u64,
    dropped: u64,
}

pub struct Simulation {
    now: SimTime,
    end: SimTime,
    interval: SimDuration,
    queue: EventQueue,
    links: Vec<Link>,
    flows: Vec<Flow>,
    /// Packets a sender emitted during one call, reused to avoid allocation.
    outbox: Vec<Packet>,
    /// Packets a scheduled discipline's link dropped at one instant, reused.
    link_drops: Vec<(Packet, DropReason)>,
    events: u64,
    conservation: Conservation,
    /// Packet events of traced flows since the last sampling tick, handed to the sink at each
    /// tick (not per event, to keep a branch off the event loop); reused.
    packet_log: Vec<PacketEvent>,
    /// Flow events (mode changes, recoveries…) collected from the senders in the order they
    /// happened, handed to the sink at each tick like the packet log; reused.
    event_log: Vec<FlowEvent>,
    window_start: SimTime,
    bottleneck_at_window_start: (LinkStats, SimDuration),
}

fn buffer_limit(scenario: &Scenario, buffer: Buffer) -> BufferLimit {
    let (packets, bytes) = scenario.buffer_limit(buffer);
    BufferLimit { packets, bytes }
}

fn flow_counters(flow: &Flow) -> FlowCounters {
    let stats = &flow.sender.stats;
    FlowCounters {
        delivered_bytes: flow.receiver.delivered(),
        payload_bytes_sent: stats.payload_bytes_sent,
        wire_bytes_sent: stats.wire_bytes_sent,
        packets_sent: stats.packets_sent,
        retransmissions: stats.retransmissions,
        timeouts: stats.timeouts,
        drops: flow.data_drops,
        rtt: stats.rtt_histogram.clone(),
    }
}

impl Simulation {
    pub fn new(scenario: &Scenario) -> Self {
        let topology = &scenario.topology;
        let bottleneck_limit = buffer_limit(scenario, topology.bottleneck.buffer);
        let access_limit = buffer_limit(scenario, topology.access.buffer);
        let no_loss = || LossProcess::new(LossModel::None, Rng::for_component(scenario.seed, ""));
        let bottleneck_qdisc = |name: &str| {
            Qdisc::build(
                &topology.bottleneck.queue,
                topology.bottleneck.ecn_threshold,
                QdiscEnv {
                    limit: bottleneck_limit,
                    rate_bps: topology.bottleneck.rate_bps,
                    packet_bytes: scenario.packet_bytes(),
                    rng: Rng::for_component(scenario.seed, &format!("{name}-qdisc")),
                },
            )
        };
        // The two bottleneck directions and four access links per flow, allocated once (with
        // 100 000 flows, growing the vector by doubling copied ~250 MB around).
        let mut links = Vec::with_capacity(2 + 4 * scenario.flow_count());
        links.extend([
            Link::new(
                "bottleneck".into(),
                topology.bottleneck.rate_bps,
                topology.bottleneck.delay,
                bottleneck_limit,
                LossProcess::new(
                    topology.bottleneck.loss.clone(),
                    Rng::for_component(scenario.seed, "bottleneck-loss"),
                ),
                no_loss(),
            )
            .track_queue_time()
            .with_qdisc(bottleneck_qdisc("bottleneck")),
            Link::new(
                "bottleneck-reverse".into(),
                topology.bottleneck.rate_bps,
                topology.bottleneck.delay,
                bottleneck_limit,
                no_loss(),
                no_loss(),
            ),
        ]);
        let mut flows = Vec::with_capacity(scenario.flow_count());
        // Sorted, so that marking each of 100 000 flows is a binary search, not a scan.
        let mut traced = scenario.output.trace_packets.clone();
        traced.sort_unstable();
        for (group_index, group) in scenario.flows.iter().enumerate() {
            for _ in 0..group.count {
                let id = flows.len() as u32;
                // extra_rtt goes on the sender's access link, half in each direction.
                let extra_forward = SimDuration::from_nanos(group.extra_rtt.as_nanos().div_ceil(2));
                let extra_reverse = group.extra_rtt - extra_forward;
                let mut access = |name: &str, extra: SimDuration| {
                    links.push(Link::new(
                        format!("flow{id}-{name}"),
                        topology.access.rate_bps,
                        topology.access.delay + extra,
                        access_limit,
                        no_loss(),
                        no_loss(),
                    ));
                    links.len() as u32 - 1
                };
                let sender_up = access("sender-up", extra_forward);
                let sender_down = access("sender-down", extra_reverse);
                let receiver_down = access("receiver-down", SimDuration::ZERO);
                let receiver_up = access("receiver-up", SimDuration::ZERO);

                let cc_config = CcConfig {
                    mss: group.mss,
                    initial_cwnd: group.initial_window,
                    initial_ssthresh: match group.initial_ssthresh {
                        InitialSsthresh::Unlimited | InitialSsthresh::PacketPair => UNLIMITED,
                        InitialSsthresh::Bytes(b) => b,
                    },
                    packet_pair_ssthresh: group.initial_ssthresh == InitialSsthresh::PacketPair,
                };
                let mut slow_start = (group.slow_start.build)(&cc_config, &group.slow_start_params);
                if cc_config.packet_pair_ssthresh {
                    slow_start = packet_pair::wrap(slow_start, &cc_config);
                }
                let cc = (group.cc.build)(&cc_config, &group.params, slow_start);
                let sender = Sender::new(
                    SenderConfig {
                        flow: id,
                        mss: group.mss,
                        header_bytes: group.header_bytes,
                        size: group.size,
                        recovery: group.recovery,
                        receive_window: group.receive_window,
                        min_rto: group.min_rto,
                        pacing: group.pacing,
                        ecn: group.ecn,
                        nic_rate_bps: Some(topology.access.rate_bps),
                    },
                    cc,
                );
                let receiver = Receiver::new(ReceiverConfig {
                    flow: id,
                    header_bytes: group.header_bytes,
                    sack: group.recovery == Recovery::Sack,
                    delayed_ack: group.delayed_ack,
                    size: group.size,
                });
                // Start jitter (ns-2 users' way to make replicates differ): a uniform offset
                // in [0, start_jitter) from the flow's own stream, drawn only when asked for
                // so that runs without jitter stay byte-identical.
                let start = if group.start_jitter.is_zero() {
                    group.start
                } else {
                    let mut rng = Rng::for_component(scenario.seed, &format!("flow{id}-start"));
                    group.start + SimDuration::from_nanos(rng.below(group.start_jitter.as_nanos()))
                };
                flows.push(Flow {
                    group: group_index as u32,
                    start,
                    size: group.size,
                    mss: group.mss,
                    started: false,
                    sender,
                    receiver,
                    data_path: [sender_up, BOTTLENECK, receiver_down],
                    ack_path: [receiver_up, BOTTLENECK_REVERSE, sender_down],
                    rto: TimerSlot::default(),
                    send_timer: TimerSlot::default(),
                    delayed_ack: TimerSlot::default(),
                    drop: group.drop.clone(),
                    data_drops: 0,
                    ack_drops: 0,
                    traced: traced.binary_search(&id).is_ok(),
                    at_window_start: FlowCounters::default(),
                });
            }
        }

        let mut queue = EventQueue::default();
        for (id, flow) in flows.iter().enumerate() {
            queue.schedule(flow.start, Event::FlowStart(id as u32));
        }
        let interval = scenario.output.interval;
        queue.schedule(SimTime::ZERO + interval, Event::Sample);
        // A window from 0 needs no snapshot: every counter starts at zero.
        let window_start = SimTime::ZERO + scenario.output.steady_from.min(scenario.duration);
        if window_start > SimTime::ZERO {
            queue.schedule(window_start, Event::WindowStart);
        }
        let bottleneck_at_window_start =
            (links[BOTTLENECK as usize].stats.clone(), SimDuration::ZERO);
        Simulation {
            now: SimTime::ZERO,
            end: SimTime::ZERO + scenario.duration,
            interval,
            queue,
            links,
            flows,
            outbox: Vec::with_capacity(64),
            link_drops: Vec::new(),
            events: 0,
            conservation: Conservation::default(),
            packet_log: Vec::new(),
            event_log: Vec::new(),
            window_start,
            bottleneck_at_window_start,
        }
    }

    /// Run to the end of the scenario, streaming samples to `sink` and calling `progress`
    /// with the simulated time now and then.
    pub fn run(
        mut self,
        sink: &mut dyn TraceSink,
        progress: &mut dyn FnMut(SimTime),
    ) -> Result<RunResult, SimError> {
        while let Some(time) = self.queue.peek_time() {
            if time > self.end {
                break;
            }
            let (time, event) = self.queue.pop().expect("peeked");
            self.now = time;
            self.events += 1;
            if self.events.is_multiple_of(PROGRESS_EVERY) {
                progress(self.now);
            }
            self.dispatch(event, sink)?;
        }
        self.flush_packet_log(sink);
        self.now = self.end;
        progress(self.end);
        self.check_invariants()?;
        Ok(self.finish())
    }

    fn dispatch(&mut self, event: Event, sink: &mut dyn TraceSink) -> Result<(), SimError> {
        match event {
            Event::LinkDelivery(link) => {
                let (packet, next) = self.links[link as usize].deliver(self.now);
                if let Some(next) = next {
                    self.queue.schedule(next, Event::LinkDelivery(link));
                }
                self.forward(packet);
            }
            Event::LinkTransmitted(link) => {
                self.links[link as usize].on_transmitted(self.now);
                self.after_service(link);
            }
            Event::FlowStart(id) => {
                let flow = &mut self.flows[id as usize];
                flow.started = true;
                flow.sender.start(self.now, &mut self.outbox);
                self.after_sender(id);
            }
            Event::RetransmissionTimer(id) => {
                let flow = &mut self.flows[id as usize];
                match flow.rto.on_event(self.now) {
                    TimerAction::Fire => {
                        flow.sender
                            .on_retransmission_timeout(self.now, &mut self.outbox);
                        self.after_sender(id);
                    }
                    TimerAction::Reschedule(at) => {
                        self.queue.schedule(at, Event::RetransmissionTimer(id))
                    }
                    TimerAction::Ignore => {}
                }
            }
            Event::SendTimer(id) => {
                let flow = &mut self.flows[id as usize];
                match flow.send_timer.on_event(self.now) {
                    TimerAction::Fire => {
                        flow.sender.on_send_timer(self.now, &mut self.outbox);
                        self.after_sender(id);
                    }
                    TimerAction::Reschedule(at) => self.queue.schedule(at, Event::SendTimer(id)),
                    TimerAction::Ignore => {}
                }
            }
            Event::DelayedAckTimer(id) => {
                let flow = &mut self.flows[id as usize];
                match flow.delayed_ack.on_event(self.now) {
                    TimerAction::Fire => {
                        if let Some(ack) = flow.receiver.on_delayed_ack_timer() {
                            self.emit(ack);
                        }
                    }
                    TimerAction::Reschedule(at) => {
                        self.queue.schedule(at, Event::DelayedAckTimer(id))
                    }
                    TimerAction::Ignore => {}
                }
            }
            Event::Sample => {
                self.flush_packet_log(sink);
                self.sample(sink);
                if cfg!(debug_assertions) {
                    self.check_invariants()?;
                }
                let next = self.now + self.interval;
                if next <= self.end {
                    self.queue.schedule(next, Event::Sample);
                }
            }
            Event::WindowStart => self.snapshot_window_start(),
        }
        Ok(())
    }

    fn flush_packet_log(&mut self, sink: &mut dyn TraceSink) {
        for event in self.packet_log.drain(..) {
            sink.packet_event(&event);
        }
        for event in self.event_log.drain(..) {
            sink.flow_event(&event);
        }
    }

    /// The steady-state window opens now: remember every counter, to subtract at the end.
    fn snapshot_window_start(&mut self) {
        let now = self.now;
        for flow in &mut self.flows {
            flow.at_window_start = flow_counters(flow);
        }
        let bottleneck = &mut self.links[BOTTLENECK as usize];
        bottleneck.queue_at(now); // integrate the queue up to now
        self.bottleneck_at_window_start =
            (bottleneck.stats.clone(), bottleneck.busy_until_time(now));
    }

    #[cold]
    #[inline(never)]
    fn log_packet(&mut self, packet: &Packet, kind: PacketEventKind) {
        self.packet_log.push(PacketEvent {
            time: self.now,
            flow: packet.flow,
            kind,
            seq: packet.seq,
            bytes: packet.payload,
            hop: packet.hop,
        });
    }

    /// A packet reached the end of a link: pass it to the next link or to its endpoint.
    fn forward(&mut self, mut packet: Packet) {
        let flow = &mut self.flows[packet.flow as usize];
        let path = match packet.kind {
            PacketKind::Data => &flow.data_path,
            PacketKind::Ack => &flow.ack_path,
        };
        let next_hop = packet.hop as usize + 1;
        if next_hop < HOPS {
            packet.hop = next_hop as u8;
            let link = path[next_hop];
            self.offer(link, packet);
            return;
        }
        self.conservation.consumed += 1;
        let id = packet.flow;
        if flow.traced {
            let kind = match packet.kind {
                PacketKind::Data => PacketEventKind::Receive,
                PacketKind::Ack => PacketEventKind::Ack,
            };
            self.log_packet(&packet, kind);
        }
        let flow = &mut self.flows[id as usize];
        match packet.kind {
            PacketKind::Data => {
                let ack = flow.receiver.on_data(self.now, &packet);
                let deadline = flow.receiver.delayed_ack_deadline();
                if let Some(at) = flow.delayed_ack.set(deadline) {
                    self.queue.schedule(at, Event::DelayedAckTimer(id));
                }
                if let Some(ack) = ack {
                    self.emit(ack);
                }
            }
            PacketKind::Ack => {
                flow.sender.on_ack(self.now, &packet, &mut self.outbox);
                #[cfg(debug_assertions)]
                {
                    let cwnd = flow.sender.cc().cwnd();
                    assert!(cwnd >= flow.mss, "flow {id}: cwnd {cwnd} below one MSS");
                }
                self.after_sender(id);
            }
        }
    }

    /// A packet leaves its endpoint onto the first link of its path.
    fn emit(&mut self, packet: Packet) {
        self.conservation.created += 1;
        let flow = &self.flows[packet.flow as usize];
        if flow.traced && packet.kind == PacketKind::Data {
            let kind = if packet.retransmission {
                PacketEventKind::Retransmit
            } else {
                PacketEventKind::Send
            };
            self.log_packet(&packet, kind);
        }
        let flow = &self.flows[packet.flow as usize];
        let link = match packet.kind {
            PacketKind::Data => flow.data_path[0],
            PacketKind::Ack => flow.ack_path[0],
        };
        self.offer(link, packet);
    }

    fn offer(&mut self, link: u32, packet: Packet) {
        let flow = &self.flows[packet.flow as usize];
        let admission = if link == BOTTLENECK
            && packet.kind == PacketKind::Data
            && !packet.retransmission
            && !flow.drop.is_empty()
            && flow.drop.binary_search(&(packet.seq / flow.mss)).is_ok()
        {
            self.links[link as usize].force_drop()
        } else {
            self.links[link as usize].enqueue(self.now, packet)
        };
        match admission {
            Admission::Admitted {
                arrival,
                first_in_flight: true,
            } => self.queue.schedule(arrival, Event::LinkDelivery(link)),
            Admission::Admitted { .. } => {}
            Admission::Dropped(_) => self.count_drop(&packet),
            Admission::Scheduled => self.after_service(link),
        }
    }

    /// A link with a scheduled discipline worked: schedule the end of the transmission it
    /// started and the delivery of the packet sent, and account the packets it dropped.
    #[inline(never)]
    fn after_service(&mut self, link: u32) {
        let mut dropped = std::mem::take(&mut self.link_drops);
        let service = self.links[link as usize].take_service(&mut dropped);
        if let Some(end) = service.transmission_end {
            self.queue.schedule(end, Event::LinkTransmitted(link));
        }
        if let Some(arrival) = service.first_arrival {
            self.queue.schedule(arrival, Event::LinkDelivery(link));
        }
        for (packet, _) in dropped.drain(..) {
            self.count_drop(&packet);
        }
        self.link_drops = dropped;
    }

    /// Account a dropped packet to its flow (rare: kept off the forwarding path).
    #[cold]
    #[inline(never)]
    fn count_drop(&mut self, packet: &Packet) {
        self.conservation.dropped += 1;
        let flow = &mut self.flows[packet.flow as usize];
        let kind = match packet.kind {
            PacketKind::Data => {
                flow.data_drops += 1;
                PacketEventKind::Drop
            }
            PacketKind::Ack => {
                flow.ack_drops += 1;
                PacketEventKind::AckDrop
            }
        };
        if flow.traced {
            self.log_packet(packet, kind);
        }
    }

    /// Send what the flow's sender produced and re-arm its timers.
    fn after_sender(&mut self, id: u32) {
        let mut outbox = std::mem::take(&mut self.outbox);
        for packet in outbox.drain(..) {
            self.emit(packet);
        }
        self.outbox = outbox;
        let flow = &mut self.flows[id as usize];
        if flow.sender.has_events() {
            flow.sender.take_events(&mut self.event_log);
        }
        if let Some(at) = flow.rto.set(flow.sender.rto_deadline()) {
            self.queue.schedule(at, Event::RetransmissionTimer(id));
        }
        if let Some(at) = flow.send_timer.set(flow.sender.send_deadline()) {
            self.queue.schedule(at, Event::SendTimer(id));
        }
    }

    fn sample(&mut self, sink: &mut dyn TraceSink) {
        for (id, flow) in self.flows.iter().enumerate() {
            if !flow.started {
                continue;
            }
            let sender = &flow.sender;
            let cc = sender.cc();
            sink.flow_sample(&FlowSample {
                time: self.now,
                flow: id as u32,
                cwnd_bytes: sender.window(),
                ssthresh_bytes: (cc.ssthresh() != UNLIMITED).then(|| cc.ssthresh()),
                srtt: sender.rtt().srtt(),
                rtt: sender.rtt().latest(),
                inflight_bytes: sender.bytes_in_flight(),
                bytes_acked: sender.snd_una(),
                delivered_bytes: flow.receiver.delivered(),
                bytes_sent: sender.stats.payload_bytes_sent,
                retransmissions: sender.stats.retransmissions,
                pacing_rate_bps: sender.pacing_rate(),
                mode: cc.mode(),
            });
        }
        let now = self.now;
        let link = &mut self.links[BOTTLENECK as usize];
        let (queue_pkts, queue_bytes) = link.queue_at(now);
        sink.link_sample(&LinkSample {
            time: now,
            link: &link.name,
            queue_pkts,
            queue_bytes,
            drops: link.stats.drops(),
            tx_bytes: link.stats.bytes,
        });
    }

    /// Packets are conserved; no endpoint got bytes that were never sent or acknowledged
    /// bytes that never arrived; scoreboard counters agree with the segments (debug builds).
    pub fn check_invariants(&self) -> Result<(), SimError> {
        let fail = |message: String| {
            Err(SimError::Invariant {
                time: self.now,
                message,
            })
        };
        let in_transit: u64 = self.links.iter().map(Link::packets_in_transit).sum();
        let c = self.conservation;
        if c.created != c.consumed + c.dropped + in_transit {
            return fail(format!(
                "packets not conserved: {} sent != {} delivered + {} dropped + {} in flight",
                c.created, c.consumed, c.dropped, in_transit
            ));
        }
        for (id, flow) in self.flows.iter().enumerate() {
            let delivered = flow.receiver.delivered();
            if delivered > flow.sender.snd_nxt() {
                return fail(format!("flow {id}: receiver has bytes never sent"));
            }
            if flow.sender.snd_una() > delivered {
                return fail(format!("flow {id}: bytes acknowledged before they arrived"));
            }
            if flow.size.is_some_and(|size| delivered > size) {
                return fail(format!(
                    "flow {id}: more bytes delivered than the transfer holds"
                ));
            }
            // TCP Small Queues bounds what waits on the sender's own link.
            let backlog = self.links[flow.data_path[0] as usize].backlog(self.now);
            if flow
                .sender
                .worst_host_backlog()
                .is_some_and(|most| backlog > most)
            {
                return fail(format!(
                    "flow {id}: {:.3} ms of data wait on the sender's link, more than TCP Small \
                     Queues allows",
                    backlog.as_millis_f64()
                ));
            }
            #[cfg(debug_assertions)]
            flow.sender.check_invariants();
        }
        Ok(())
    }

    fn finish(mut self) -> RunResult {
        let end = self.end;
        for link in &mut self.links {
            link.finish(end);
        }
        // The flows are consumed here: their histograms move into the results instead of
        // being copied (a copy per flow is what 100 000 flows cannot afford).
        let flows = std::mem::take(&mut self.flows)
            .into_iter()
            .enumerate()
            .map(|(id, mut flow)| {
                let rtt = std::mem::take(&mut flow.sender.stats.rtt_histogram);
                let at_window_start = std::mem::take(&mut flow.at_window_start);
                let stats = &flow.sender.stats;
                FlowResult {
                    id: id as u32,
                    group: flow.group,
                    cc: flow.sender.cc().name(),
                    start: flow.start,
                    size: flow.size,
                    bytes_acked: flow.sender.snd_una(),
                    delivered_bytes: flow.receiver.delivered(),
                    payload_bytes_sent: stats.payload_bytes_sent,
                    wire_bytes_sent: stats.wire_bytes_sent,
                    packets_sent: stats.packets_sent,
                    retransmissions: stats.retransmissions,
                    timeouts: stats.timeouts,
                    fast_recoveries: stats.fast_recoveries,
                    ce_bytes: stats.ce_bytes,
                    ecn_reductions: stats.ecn_reductions,
                    mean_rtt: (stats.rtt_samples > 0).then(|| {
                        SimDuration::from_nanos(
                            (stats.rtt_sum_ns / stats.rtt_samples as u128) as u64,
                        )
                    }),
                    min_rtt: flow.sender.rtt().min_rtt(),
                    completed_at: flow.receiver.completed_at,
                    drops: flow.data_drops,
                    ack_drops: flow.ack_drops,
                    rtt,
                    at_window_start,
                }
            })
            .collect();
        let bottleneck = &self.links[BOTTLENECK as usize];
        let (at_window_start, busy_at_window_start) = self.bottleneck_at_window_start;
        RunResult {
            duration: end.saturating_since(SimTime::ZERO),
            window_start: self.window_start,
            events: self.events,
            flows,
            links: vec![LinkResult {
                name: bottleneck.name.clone(),
                rate_bps: bottleneck.rate_bps(),
                busy: bottleneck.busy_until_time(end),
                stats: bottleneck.stats.clone(),
                at_window_start,
                busy_at_window_start,
            }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::qdisc::AnyScheduledQdisc;
    use crate::net::qdisc::test_fifo::TestFifo;
    use crate::trace::NullSink;

    /// Run `text`, with the bottleneck's drop-tail replaced by the same FIFO run as a
    /// scheduled discipline if `scheduled`.
    fn run_with_bottleneck(text: &str, scheduled: bool) -> RunResult {
        let scenario =
            cclab_scenario::from_str("test.toml", text, &[]).expect("the test scenario is valid");
        let mut simulation = Simulation::new(&scenario);
        if scheduled {
            let limit = buffer_limit(&scenario, scenario.topology.bottleneck.buffer);
            let fifo = TestFifo::new(limit, scenario.topology.bottleneck.ecn_threshold);
            simulation.links[BOTTLENECK as usize]
                .replace_qdisc(Qdisc::Scheduled(AnyScheduledQdisc::TestFifo(fifo)));
        }
        simulation
            .run(&mut NullSink, &mut |_| {})
            .expect("invariants hold")
    }

    #[test]
    fn a_scheduled_fifo_bottleneck_gives_the_drop_tail_run() {
        // Overflow, random loss and ECN marks at the bottleneck, flows of both kinds: the
        // scheduled path must count every drop to its flow (the run checks conservation) and
        // leave every packet's fate and time as drop-tail does. Only the event count differs:
        // one transmission-end event per packet through the bottleneck. The transfers end
        // before the run does, so that no packet still waits at the end (drop-tail counts a
        // waiting packet as sent at admission, a scheduled discipline when it leaves).
        let text = r#"
            duration = "20s"
            seed = 3
            [topology]
            bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 20, loss = 0.002,
                           ecn_threshold = 8 }
            access = { rate = "100Mbps", delay = "1ms" }
            [[flows]]
            cc = "newreno"
            count = 2
            size = "4MB"
            [[flows]]
            cc = "cubic"
            ecn = true
            size = "4MB"
            extra_rtt = "30ms"
            start = "1s"
        "#;
        let drop_tail = run_with_bottleneck(text, false);
        let scheduled = run_with_bottleneck(text, true);
        let packets = drop_tail.links[0].stats.packets;
        assert_eq!(scheduled.events, drop_tail.events + packets);
        assert_eq!(
            RunResult {
                events: 0,
                ..scheduled
            },
            RunResult {
                events: 0,
                ..drop_tail.clone()
            }
        );
        let stats = &drop_tail.links[0].stats;
        assert!(stats.overflow_drops > 0 && stats.random_losses > 0 && stats.ce_marks > 0);
        let done = drop_tail.flows.iter().all(|f| f.completed_at.is_some());
        assert!(done, "every transfer must end within the run");
    }

    #[test]
    fn the_per_flow_memory_estimate_covers_a_flows_structures() {
        // What every flow holds for certain, before any heap allocation: its endpoints and
        // timers, four access links, and its result. The scenario crate's estimate (measured
        // from peak RSS) must be at least that.
        let fixed = std::mem::size_of::<Flow>()
            + 4 * std::mem::size_of::<Link>()
            + std::mem::size_of::<FlowResult>();
        assert!(
            cclab_scenario::resources::BYTES_PER_FLOW as usize >= fixed,
            "{fixed} bytes"
        );
    }
}
