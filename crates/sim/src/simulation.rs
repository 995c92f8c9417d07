//! The world and its event loop: a network built from a [`Scenario`] by its topology builder,
//! flows with their TCP endpoints and source routes, and the dispatch of events to links,
//! endpoints and timers.

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::{FlowKind, Scenario};

use crate::capture::{CapturePoint, Captured, Captures};
use crate::endpoints::{Closed, Endpoints, Names};
use crate::event::{Event, EventQueue, TimerAction};
use crate::flow_starts::FlowStarts;
use crate::link_pool::LinkPool;
use crate::net::link::{Admission, Link, LinkStats};
use crate::net::network::{LinkRole, Network, Path, Routes, drop_location};
use crate::net::qdisc::DropReason;
use crate::net::wifi::Medium;
use crate::packet::{Packet, PacketKind};
use crate::result::{
    CountersAtWindowStart, DataRoutes, FlowCounters, FlowResult, HandshakeResult, LinkResult,
    RunResult,
};
use crate::rng::Rng;
use crate::tcp::handshake::Handshake;
use crate::trace::{FlowEvent, FlowSample, LinkSample, PacketEvent, PacketEventKind, TraceSink};
use crate::traffic::on_off::OnOffApp;
use crate::traffic::udp::UdpSource;
use crate::traffic::workload::{Incarnation, Workloads};

/// How often (in events) the progress callback is called.
const PROGRESS_EVERY: u64 = 1 << 16;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SimError {
    #[error("invariant violated at {time}: {message}")]
    Invariant { time: SimTime, message: String },
}

pub(crate) struct Flow {
    pub(crate) group: u32,
    pub(crate) start: SimTime,
    pub(crate) started: bool,
    /// Its sender and receiver: made when it starts (for the plain TCP flows; the others
    /// have theirs from the beginning) and folded into a small record when it is done
    /// (`endpoints.rs`).
    pub(crate) endpoints: Endpoints,
    /// Where in the network's path table its data and ACK paths are.
    pub(crate) routes: Routes,
    /// The link where `drop` applies: the first reported link of the data path.
    pub(crate) drop_link: u32,
    /// `drop`: the data segments to drop at `drop_link` (first transmissions). Boxed, with
    /// the MSS that numbers them: 8 bytes of each of 100 000 flows instead of 32.
    pub(crate) drop: Option<Box<ForcedDrops>>,
    /// Data segments and ACKs of this flow dropped on any link.
    pub(crate) data_drops: u64,
    pub(crate) ack_drops: u64,
    /// Its packets that reached an endpoint: with the sender's data packets, the receiver's
    /// ACKs and the drops, how many are still in the network (`in_flight`).
    pub(crate) arrived: u64,
    /// Packet events go to the trace sink (`[output] trace_packets`).
    pub(crate) traced: bool,
    /// Its counters when the steady-state window opened; `None` before (and for runs whose
    /// window opens at 0). Boxed: 8 bytes instead of 144 for each of 100 000 flows.
    pub(crate) at_window_start: Option<Box<FlowCounters>>,
    /// `kind = "udp"`: the source (and sink) that replace the idle TCP endpoints. Boxed, so
    /// that a TCP flow pays one pointer.
    pub(crate) udp: Option<Box<UdpSource>>,
    /// `on_off`: the application that writes to the sender.
    pub(crate) on_off: Option<Box<OnOffApp>>,
    /// Traced or a workload slot: its packets take the out-of-line [`Simulation::watch_emit`]
    /// and [`Simulation::watch_arrival`] (one flag, so the common flow pays one branch).
    pub(crate) watched: bool,
    /// A workload slot's packets emitted and not yet delivered or dropped (0 for the flows
    /// that exist from the start, which do not count theirs).
    pub(crate) in_transit: u32,
    /// A workload slot's current connection; `None` for the flows that exist from the start.
    /// Boxed: 8 bytes of each flow instead of 24, for a few slots.
    pub(crate) incarnation: Option<Box<Incarnation>>,
    /// `handshake = true`: the connection's SYN exchange and close (`tcp/handshake.rs`).
    pub(crate) handshake: Option<Box<Handshake>>,
    /// Its buffers were given back after it finished (`release_finished_flows`).
    pub(crate) released: bool,
}

/// A flow's `drop` list: the indexes of the data segments to drop, sorted, and the MSS by
/// which a segment's sequence number gives its index.
pub(crate) struct ForcedDrops {
    pub(crate) mss: u64,
    pub(crate) segments: Box<[u64]>,
}

impl ForcedDrops {
    /// The list of `group`, if it has one.
    pub(crate) fn of(group: &cclab_scenario::FlowGroup) -> Option<Box<ForcedDrops>> {
        (!group.drop.is_empty()).then(|| {
            Box::new(ForcedDrops {
                mss: group.mss,
                segments: group.drop.clone().into_boxed_slice(),
            })
        })
    }

    /// Is `packet`, a first transmission of a data segment, on the list?
    pub(crate) fn has(&self, packet: &Packet) -> bool {
        self.segments
            .binary_search(&(packet.seq / self.mss))
            .is_ok()
    }
}

impl Flow {
    /// The bytes of its transfer (`None`: unlimited): its group's, or a workload slot's
    /// connection's. Not kept in each flow: 16 bytes of each of 100 000 flows.
    pub(crate) fn size(&self, groups: &[cclab_scenario::FlowGroup]) -> Option<u64> {
        match &self.incarnation {
            Some(incarnation) => Some(incarnation.size),
            None => groups[self.group as usize].size,
        }
    }

    /// When the transfer completed: the receiver had every byte, or with a handshake the
    /// sender's FIN was acknowledged (docs/metrics.md).
    pub(crate) fn completed_at(&self) -> Option<SimTime> {
        match &self.handshake {
            None => self.endpoints.completed_at(),
            Some(handshake) => handshake.fin_acked_at,
        }
    }

    /// Its data segments and ACKs in the network now: those its endpoints sent less those
    /// that arrived or were dropped (a plain TCP flow's: other packets are not counted).
    /// `None` if more left the network than entered it.
    pub(crate) fn in_flight(&self) -> Option<u64> {
        let emitted = match &self.endpoints {
            Endpoints::Pending => 0,
            Endpoints::Running(running) => {
                running.sender.stats.packets_sent + running.receiver.acks_sent
            }
            Endpoints::Closed(_) => return Some(0),
        };
        emitted
            .checked_sub(self.arrived)?
            .checked_sub(self.data_drops)?
            .checked_sub(self.ack_drops)
    }

    /// A plain TCP flow: no UDP source, application, handshake or shared state, and not a
    /// workload slot. Only its endpoints are made at its start and folded when it is done.
    pub(crate) fn is_plain(&self, sharing: Option<&crate::sharing::Groups>, id: usize) -> bool {
        self.udp.is_none()
            && self.on_off.is_none()
            && self.handshake.is_none()
            && self.incarnation.is_none()
            && sharing.is_none_or(|groups| groups.membership.get(id).is_none_or(|m| m.is_none()))
    }
}

/// A flow's handshake, if its group opens connections with one.
pub(crate) fn handshake_of(
    group: &cclab_scenario::FlowGroup,
    now: SimTime,
) -> Option<Box<Handshake>> {
    let options = group.connection;
    options
        .handshake
        .then(|| Box::new(Handshake::new(now, group.header_bytes, options.drop_syn)))
}

/// Mark the links that one flow's paths cross and no other's (`Link::one_flow`).
fn mark_one_flow_links(links: &mut [Link], hops: &[u32], routes: &[Routes]) {
    let mut users = vec![0u32; links.len()];
    for routes in routes {
        for path in [routes.data, routes.ack] {
            for &link in &hops[path.start as usize..][..path.len as usize] {
                users[link as usize] += 1;
            }
        }
    }
    for (link, users) in links.iter_mut().zip(users) {
        link.one_flow = users == 1;
    }
}

/// Packets created by endpoints, consumed by endpoints, and dropped by links: with the
/// packets still on links they must balance at every instant.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Conservation {
    pub(crate) created: u64,
    pub(crate) consumed: u64,
    pub(crate) dropped: u64,
}

pub struct Simulation {
    pub(crate) now: SimTime,
    pub(crate) end: SimTime,
    pub(crate) interval: SimDuration,
    pub(crate) queue: EventQueue,
    pub(crate) links: Vec<Link>,
    /// Per link: its role, for naming drop locations in the packet trace.
    pub(crate) roles: Vec<LinkRole>,
    /// The links outputs report, in order.
    pub(crate) reported: Vec<u32>,
    /// Every flow's paths back to back; a flow's `routes` index it, a packet's `hop` indexes
    /// its path.
    pub(crate) hops: Vec<u32>,
    pub(crate) flows: Vec<Flow>,
    /// Packets a sender emitted during one call, reused to avoid allocation.
    pub(crate) outbox: Vec<Packet>,
    /// Packets a scheduled discipline's link dropped at one instant, reused.
    pub(crate) link_drops: Vec<(Packet, DropReason)>,
    pub(crate) events: u64,
    pub(crate) conservation: Conservation,
    /// Packet events of traced flows since the last sampling tick, handed to the sink at each
    /// tick (not per event, to keep a branch off the event loop); reused.
    pub(crate) packet_log: Vec<PacketEvent>,
    /// Flow events (mode changes, recoveries…) collected from the senders in the order they
    /// happened, handed to the sink at each tick like the packet log; reused.
    pub(crate) event_log: Vec<FlowEvent>,
    pub(crate) window_start: SimTime,
    /// The Wi-Fi medium, if the bottleneck is a Wi-Fi link.
    pub(crate) wifi: Option<Box<Medium>>,
    /// Per reported link: its counters and busy time when the steady-state window opened.
    pub(crate) reported_at_window_start: Vec<(LinkStats, SimDuration)>,
    /// Short-flow workloads: their arrivals, flow slots and statistics.
    pub(crate) workloads: Workloads,
    /// `[output] pcap`: what is captured, and the packets captured since the last tick.
    pub(crate) captures: Option<Box<Captures>>,
    /// TCB sharing's groups (`sharing/`); `None` when no flow shares state.
    pub(crate) sharing: Option<Box<crate::sharing::Groups>>,
    /// Flows of the data segments a folded link dropped before the steady-state window
    /// opened, counted ahead of a time inside it (`folding.rs`): one entry per segment, taken
    /// out of the window's snapshot.
    pub(crate) data_drops_after_window_start: Vec<u32>,
    /// The scenario's `[[flows]]` tables, to make a plain flow's endpoints when it starts.
    pub(crate) flow_groups: Vec<cclab_scenario::FlowGroup>,
    /// The controllers' and modes' names of the done flows' records (`endpoints.rs`).
    pub(crate) names: Names,
    /// The plain flows' own access links, made when each starts (`link_pool.rs`).
    pub(crate) link_pool: LinkPool,
    /// The flows' starts still to schedule, one at a time (`flow_starts.rs`).
    pub(crate) flow_starts: FlowStarts,
    /// Gives the allocator's free memory back to the system, if the caller gave one: called
    /// by `finish` once the network is gone, before the results are made
    /// ([`Simulation::give_back_heap_with`]).
    pub(crate) give_back_heap: Option<fn()>,
    /// Pool them when the run starts (tests compare runs without).
    pub(crate) pool_links: bool,
    /// Fold a plain flow's endpoints as soon as its sender goes idle done, not only at the
    /// sampling ticks (`on_sender_idle`; tests compare runs without).
    pub(crate) close_when_idle: bool,
}

/// Arm (or disarm) the send timer of `running`, flow `id`'s endpoints.
#[inline(always)]
fn arm_send_timer(running: &mut crate::endpoints::Running, queue: &mut EventQueue, id: u32) {
    if let Some(at) = running.send_timer.set(running.sender.send_deadline()) {
        queue.schedule(at, Event::SendTimer(id));
    }
}

/// The rate of the first link of a data path: the sender's NIC.
fn first_link_rate(links: &[Link], hops: &[u32], routes: Routes) -> u64 {
    links[hops[routes.data.start as usize] as usize].rate_bps()
}

/// Fresh endpoints of flow `id` of `group`, whose sender's NIC sends at `nic_rate_bps`.
fn endpoints_of(group: &cclab_scenario::FlowGroup, id: u32, nic_rate_bps: u64) -> Endpoints {
    // A UDP flow's sender stays idle: no TCP Small Queues to keep.
    let nic = (!matches!(group.kind, FlowKind::Udp(_))).then_some(nic_rate_bps);
    let (sender, receiver) = crate::tcp::connection::endpoints(group, id, group.size, nic);
    Endpoints::running(sender, receiver)
}

fn flow_counters(flow: &Flow) -> FlowCounters {
    if let Some(udp) = &flow.udp {
        return udp.counters(flow.data_drops);
    }
    let running = match &flow.endpoints {
        // Not started: every counter is zero.
        Endpoints::Pending => return FlowCounters::default(),
        Endpoints::Running(running) => running,
        Endpoints::Closed(closed) => return closed.counters(flow.data_drops),
    };
    let stats = &running.sender.stats;
    FlowCounters {
        delivered_bytes: running.receiver.delivered(),
        payload_bytes_sent: stats.payload_bytes_sent,
        wire_bytes_sent: stats.wire_bytes_sent,
        packets_sent: stats.packets_sent,
        retransmissions: stats.retransmissions,
        timeouts: stats.timeouts,
        drops: flow.data_drops,
        rtt: stats.rtt_histogram.clone(),
    }
}

/// How many flows `finish` turns into results between two shrinks of the flows' vector.
const SHRINK_EVERY: usize = 2048;

/// How often `finish` gives the freed heap back while it makes the results: the flows'
/// records, freed from the last flow to the first, otherwise keep their pages resident
/// beside the results (docs/performance.md, "Memory per idle flow"). Each give-back walks
/// the heap's free lists, so not at every shrink.
const GIVE_BACK_EVERY: usize = 8 * SHRINK_EVERY;

/// The result of flow `id` of `size` bytes, consumed: its endpoints were made or folded by
/// `finish`, with their names in `names`.
fn flow_result(id: u32, mut flow: Flow, size: Option<u64>, names: &mut Names) -> FlowResult {
    let at_window_start = CountersAtWindowStart::from_box(flow.at_window_start.take());
    if let Some(udp) = flow.udp.take() {
        let (group, start, drops) = (flow.group, flow.start, flow.data_drops);
        return udp.flow_result(id, group, start, drops, at_window_start);
    }
    let completed_at = flow.completed_at();
    let endpoints = std::mem::replace(&mut flow.endpoints, Endpoints::Pending);
    let mut closed = match endpoints {
        Endpoints::Closed(closed) => *closed,
        Endpoints::Running(running) => Closed::new(running.sender, running.receiver, names),
        Endpoints::Pending => unreachable!("`finish` folds pending endpoints first"),
    };
    let (mean_rtt, min_rtt) = (closed.mean_rtt(), closed.min_rtt());
    let rtt = std::mem::take(&mut closed.rtt_histogram);
    FlowResult {
        id,
        group: flow.group,
        cc: closed.cc(names),
        start: flow.start,
        size,
        bytes_acked: closed.bytes_acked,
        delivered_bytes: closed.delivered_bytes,
        payload_bytes_sent: closed.payload_bytes_sent,
        wire_bytes_sent: closed.wire_bytes_sent,
        packets_sent: closed.packets_sent,
        retransmissions: closed.retransmissions,
        timeouts: closed.timeouts,
        fast_recoveries: closed.fast_recoveries,
        undos: closed.undo_enabled().then_some(closed.undos),
        ce_bytes: closed.ce_bytes,
        ecn_reductions: closed.ecn_reductions,
        mean_rtt,
        min_rtt,
        completed_at,
        handshake: flow.handshake.as_ref().map(|h| {
            Box::new(HandshakeResult {
                time: h.handshake_time(),
                syn_drops: h.syn_drops,
                syn_ack_drops: h.syn_ack_drops,
            })
        }),
        drops: flow.data_drops,
        ack_drops: flow.ack_drops,
        rtt,
        at_window_start,
        udp: None,
    }
}

impl Simulation {
    pub fn new(scenario: &Scenario) -> Self {
        let Network {
            links,
            roles,
            reported,
            hops,
            routes,
            wifi,
        } = crate::topology::build(scenario);
        let mut flows = Vec::with_capacity(scenario.flow_count());
        let sharing = crate::sharing::Groups::new(scenario);
        // Sorted, so that marking each of 100 000 flows is a binary search, not a scan.
        let mut traced = scenario.output.trace_packets.clone();
        traced.sort_unstable();
        for (group_index, group) in scenario.flows.iter().enumerate() {
            for _ in 0..group.count {
                let id = flows.len() as u32;
                let routes = routes[id as usize];
                let data_path = &hops[routes.data.start as usize..][..routes.data.len as usize];
                let drop_link = data_path
                    .iter()
                    .copied()
                    .find(|link| reported.contains(link))
                    .unwrap_or(data_path[0]);
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
                    started: false,
                    endpoints: Endpoints::Pending,
                    routes,
                    drop_link,
                    drop: ForcedDrops::of(group),
                    data_drops: 0,
                    ack_drops: 0,
                    arrived: 0,
                    traced: traced.binary_search(&id).is_ok(),
                    at_window_start: None,
                    // Each on its own stream, created only for flows that have one, so that
                    // runs without them draw exactly as before.
                    udp: match &group.kind {
                        FlowKind::Udp(config) => Some(Box::new(UdpSource::new(
                            id,
                            config,
                            Rng::for_component(scenario.seed, &format!("flow{id}-udp")),
                        ))),
                        _ => None,
                    },
                    on_off: group.on_off.as_ref().map(|config| {
                        Box::new(OnOffApp::new(
                            config,
                            group.initial_window,
                            Rng::for_component(scenario.seed, &format!("flow{id}-on-off")),
                        ))
                    }),
                    watched: traced.binary_search(&id).is_ok(),
                    in_transit: 0,
                    incarnation: None,
                    handshake: handshake_of(group, start),
                    released: false,
                });
                let flow = flows.last_mut().expect("just pushed");
                // Every flow but a plain TCP one has its endpoints from the start: its
                // application, handshake or group reaches them before its first segment.
                if !flow.is_plain(sharing.as_deref(), id as usize) {
                    let nic_rate_bps = first_link_rate(&links, &hops, routes);
                    flow.endpoints = endpoints_of(group, id, nic_rate_bps);
                }
            }
        }

        let mut links = links;
        mark_one_flow_links(&mut links, &hops, &routes[..flows.len()]);
        let captures = Captures::new(scenario, links.iter().map(Link::name));
        // A flow capture sees the sender's packets off the forwarding path, as tracing does.
        if captures.as_ref().is_some_and(|c| c.flows) {
            for flow in &mut flows {
                flow.watched = true;
            }
        }
        let mut queue = EventQueue::default();
        let flow_starts = FlowStarts::new(
            flows.len() as u32,
            |id| flows[id as usize].start,
            &mut queue,
        );
        let workloads = Workloads::new(scenario, &links, flows.len() as u32, &mut queue);
        let interval = scenario.output.interval;
        queue.schedule(SimTime::ZERO + interval, Event::Sample);
        // A window from 0 needs no snapshot: every counter starts at zero.
        let window_start = SimTime::ZERO + scenario.output.steady_from.min(scenario.duration);
        if window_start > SimTime::ZERO {
            queue.schedule(window_start, Event::WindowStart);
        }
        let reported_at_window_start = reported
            .iter()
            .map(|&l| (links[l as usize].stats().clone(), SimDuration::ZERO))
            .collect();
        let mut simulation = Simulation {
            now: SimTime::ZERO,
            end: SimTime::ZERO + scenario.duration,
            interval,
            queue,
            links,
            roles,
            reported,
            hops,
            flows,
            outbox: Vec::with_capacity(64),
            link_drops: Vec::new(),
            events: 0,
            conservation: Conservation::default(),
            packet_log: Vec::new(),
            event_log: Vec::new(),
            window_start,
            wifi,
            reported_at_window_start,
            workloads,
            captures,
            sharing,
            flow_groups: scenario.flows.clone(),
            data_drops_after_window_start: Vec::new(),
            link_pool: LinkPool::default(),
            names: Names::default(),
            flow_starts,
            give_back_heap: None,
            pool_links: true,
            close_when_idle: true,
        };
        simulation.attach_groups(scenario);
        // Captures see packets at link deliveries: with them no hop is folded (`folding.rs`).
        if simulation.captures.is_none() {
            simulation.fold_hops(&routes);
        } else {
            simulation.mark_lean_links();
        }
        simulation
    }

    /// Have `finish` call `give_back` once the network, which nothing reads any more, is
    /// gone and before the results are made: with glibc, `malloc_trim`, which gives back the
    /// pages of the heap that the links' rings, the running flows' endpoints and the event
    /// queue left free (only the heap's top is given back by `free`). At 100 000 idle flows
    /// about 5 MB, under the results (docs/performance.md, "Memory per idle flow"). The
    /// library does not call the allocator itself: the caller knows which one it is.
    pub fn give_back_heap_with(mut self, give_back: fn()) -> Self {
        self.give_back_heap = Some(give_back);
        self
    }

    /// The links where a flow's `drop` list forces drops.
    fn forced_drop_links(&self) -> Vec<u32> {
        self.flows
            .iter()
            .filter(|f| f.drop.is_some())
            .map(|f| f.drop_link)
            .collect()
    }

    /// Mark the lean links (`Link::lean`), whether or not hops are folded: a link that can be
    /// lean, not reported and with no forced drops. Whether a link is lean depends on what
    /// observes its queue, not on folding: its admission keeps the transmitter's schedule
    /// exactly, and its deliveries are the same events. (Runs that fold nothing, such as
    /// `bench-workload-1gbps` before its slots folded, used to keep every access link's queue
    /// statistics, which nothing reads: docs/performance.md.)
    fn mark_lean_links(&mut self) {
        let forced_drops = self.forced_drop_links();
        for (id, link) in self.links.iter_mut().enumerate() {
            let id = id as u32;
            let lean =
                link.can_be_lean() && !self.reported.contains(&id) && !forced_drops.contains(&id);
            link.set_lean(lean);
        }
    }

    /// Choose the links to fold (`folding.rs`), from the links as they are now, and the
    /// links each workload's slots will fold. Nothing folds with data both ways.
    ///
    /// A workload's slots are made as the run goes, so two stand-in slots per workload
    /// (`Simulation::add_stand_in_slots`) take part in the choice, with their paths, and are
    /// taken out again: a slot's link folds if the stand-ins' does (it is fed by the same
    /// link), and a shared link hands its packets to folded links only if the slots' links
    /// behind it fold too. Slots count their packets in the network (a drop frees the slot
    /// when it is the last), so their links fold only if they cannot overflow, as a traced
    /// flow's.
    pub(crate) fn fold_hops(&mut self, routes: &[Routes]) {
        let (links, hops) = (self.links.len(), self.hops.len());
        let mut routes = routes.to_vec();
        let stand_ins = self.add_stand_in_slots(&mut routes);
        for link in &mut self.links {
            link.folded = false;
        }
        if !crate::folding::data_both_ways(&self.reported, &self.hops, &routes) {
            let forced_drops = self.forced_drop_links();
            let counts_drops_on_time: Vec<bool> = self
                .flows
                .iter()
                .map(|f| f.traced || f.udp.is_some() || f.handshake.is_some())
                .chain(std::iter::repeat(true))
                .take(routes.len())
                .collect();
            let exclusions = crate::folding::Exclusions {
                reported: &self.reported,
                forced_drops: &forced_drops,
                counts_drops_on_time: &counts_drops_on_time,
            };
            crate::folding::mark_folded_links(&mut self.links, &exclusions, &self.hops, &routes);
        }
        self.adopt_stand_in_folds(&stand_ins);
        self.links.truncate(links);
        self.roles.truncate(links);
        self.hops.truncate(hops);
        self.mark_lean_links();
    }

    /// Run to the end of the scenario, streaming samples to `sink` and calling `progress`
    /// with the simulated time now and then.
    pub fn run(
        mut self,
        sink: &mut dyn TraceSink,
        progress: &mut dyn FnMut(SimTime),
    ) -> Result<RunResult, SimError> {
        self.pool_access_links();
        while let Some((time, event)) = self.queue.pop_until(self.end) {
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
        sink.run_over();
        Ok(self.finish())
    }

    /// One event. Inlined into the event loop: since the endpoints are made at `FlowStart`
    /// (`on_flow_start`), the compiler no longer inlined it by itself, and the call cost
    /// 2.7 to 5.0 % more instructions on the four benches (callgrind, docs/performance.md).
    #[inline(always)]
    pub(crate) fn dispatch(
        &mut self,
        event: Event,
        sink: &mut dyn TraceSink,
    ) -> Result<(), SimError> {
        match event {
            Event::LinkDelivery(link) => {
                let wire = &mut self.links[link as usize];
                let mut packet = wire.take_delivered(self.now);
                if let Some(next) = wire.next_arrival() {
                    self.queue.schedule(next, Event::LinkDelivery(link));
                }
                if self.captures.is_some() {
                    self.capture_leaving(link, &packet);
                }
                self.forward(&mut packet);
            }
            Event::FoldedDelivery(link) => self.on_folded_delivery(link),
            Event::JitteredDelivery(link) => {
                let (mut packet, next) = self.links[link as usize].deliver_jittered(self.now);
                if let Some(next) = next {
                    self.queue.schedule(next, Event::JitteredDelivery(link));
                }
                if self.captures.is_some() {
                    self.capture_leaving(link, &packet);
                }
                self.forward(&mut packet);
            }
            Event::LinkTransmitted(link) => {
                self.links[link as usize].on_transmitted(self.now);
                self.after_service(link);
            }
            Event::FlowStart(id) => self.on_flow_start(id),
            Event::HandshakeTimer(id) => self.on_handshake_timer(id),
            Event::UdpSend(id) => self.udp_send(id),
            Event::OnOffToggle(id) => self.on_off_toggle(id),
            Event::RetransmissionTimer(id) => {
                let Some(running) = self.flows[id as usize].endpoints.timers() else {
                    return Ok(());
                };
                match running.rto.on_event(self.now) {
                    TimerAction::Fire => {
                        running.sender.on_timer(self.now, &mut self.outbox);
                        self.after_sender(id);
                    }
                    TimerAction::Reschedule(at) => {
                        self.queue.schedule(at, Event::RetransmissionTimer(id))
                    }
                    TimerAction::Ignore => {}
                }
            }
            Event::SendTimer(id) => {
                let Some(running) = self.flows[id as usize].endpoints.timers() else {
                    return Ok(());
                };
                match running.send_timer.on_event(self.now) {
                    TimerAction::Fire => {
                        running.sender.on_send_timer(self.now, &mut self.outbox);
                        self.after_sender(id);
                    }
                    TimerAction::Reschedule(at) => self.queue.schedule(at, Event::SendTimer(id)),
                    TimerAction::Ignore => {}
                }
            }
            Event::DelayedAckTimer(id) => {
                let Some(running) = self.flows[id as usize].endpoints.timers() else {
                    return Ok(());
                };
                match running.delayed_ack.on_event(self.now) {
                    TimerAction::Fire => {
                        if let Some(ack) = running.receiver.on_delayed_ack_timer() {
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
                self.release_finished_flows();
                if cfg!(debug_assertions) {
                    self.check_invariants()?;
                }
                let next = self.now + self.interval;
                if next <= self.end {
                    self.queue.schedule(next, Event::Sample);
                }
            }
            Event::WindowStart => self.snapshot_window_start(),
            Event::WorkloadArrival(workload) => self.on_workload_arrival(workload),
            Event::WifiMedium(generation) => self.on_wifi_medium(generation),
        }
        Ok(())
    }

    /// Flow `id` starts: once per flow, out of the event loop's way (inlined, making its
    /// endpoints kept the loop from inlining `dispatch`: 3.5 % more instructions per event).
    #[cold]
    #[inline(never)]
    fn on_flow_start(&mut self, id: u32) {
        let flows = &self.flows;
        let start = |id: u32| flows[id as usize].start;
        self.flow_starts.started(id, start, &mut self.queue);
        let flow = &mut self.flows[id as usize];
        flow.started = true;
        if flow.udp.is_some() {
            self.udp_start(id);
            return;
        }
        if flow.on_off.is_some() {
            self.on_off_start(id);
        }
        let flow = &mut self.flows[id as usize];
        if flow.handshake.is_some() {
            self.open_connection(id);
            return;
        }
        if matches!(flow.endpoints, Endpoints::Pending) {
            self.attach_pooled_links(id);
            let flow = &mut self.flows[id as usize];
            let group = &self.flow_groups[flow.group as usize];
            let nic_rate_bps = first_link_rate(&self.links, &self.hops, flow.routes);
            flow.endpoints = endpoints_of(group, id, nic_rate_bps);
        }
        let flow = &mut self.flows[id as usize];
        flow.endpoints
            .get()
            .sender
            .start(self.now, &mut self.outbox);
        self.after_sender(id);
    }

    fn flush_packet_log(&mut self, sink: &mut dyn TraceSink) {
        for event in self.packet_log.drain(..) {
            sink.packet_event(&event, drop_location(&self.links, &self.roles, event.link));
        }
        if let Some(captures) = self.captures.as_deref_mut() {
            for captured in captures.log.drain(..) {
                sink.capture(&captured);
            }
        }
        // Workload slots' events stay out of events.csv: their ids are slots, not flows.
        let first_slot = self.workloads.first_slot;
        for event in self.event_log.drain(..) {
            if event.flow < first_slot {
                sink.flow_event(&event);
            }
        }
        if !self.workloads.log.is_empty() {
            self.workloads.flush_log(sink);
        }
    }

    /// The steady-state window opens now: remember every counter, to subtract at the end.
    fn snapshot_window_start(&mut self) {
        let now = self.now;
        let first_slot = self.workloads.first_slot as usize;
        for flow in &mut self.flows[..first_slot] {
            flow.at_window_start = Some(Box::new(flow_counters(flow)));
        }
        // Dropped at a folded link after now, but counted already.
        for id in self.data_drops_after_window_start.drain(..) {
            if let Some(counters) = &mut self.flows[id as usize].at_window_start {
                counters.drops -= 1;
            }
        }
        for (i, &id) in self.reported.iter().enumerate() {
            let link = &mut self.links[id as usize];
            link.queue_at(now); // integrate the queue up to now
            self.reported_at_window_start[i] = (link.stats().clone(), link.busy_until_time(now));
        }
    }

    #[cold]
    #[inline(never)]
    fn log_packet(&mut self, packet: &Packet, kind: PacketEventKind) {
        let routes = self.flows[packet.flow as usize].routes;
        let path = if packet.kind.is_forward() {
            routes.data
        } else {
            routes.ack
        };
        let link = self.hops[(path.start + packet.hop as u32) as usize];
        self.packet_log.push(PacketEvent {
            time: self.now,
            flow: packet.flow,
            kind,
            seq: packet.seq,
            bytes: packet.payload,
            hop: packet.hop,
            link,
        });
    }

    /// A packet reached the end of a link: pass it to the next link or to its endpoint.
    /// Inlined into the delivery events (the call passed the 96-byte packet through the
    /// stack once more: 0.7 % of the event loop's instructions). By reference: by value, the
    /// packet the delivery took off the wire was copied once more into the argument (80
    /// bytes, 10 instructions per delivery: callgrind, docs/performance.md).
    #[inline(always)]
    pub(crate) fn forward(&mut self, packet: &mut Packet) {
        let flow = &mut self.flows[packet.flow as usize];
        let path = if packet.kind.is_forward() {
            flow.routes.data
        } else {
            flow.routes.ack
        };
        let next_hop = packet.hop as u32 + 1;
        if next_hop < path.len {
            packet.hop = next_hop as u8;
            let link = self.hops[(path.start + next_hop) as usize];
            self.offer(link, packet, path);
            return;
        }
        self.conservation.consumed += 1;
        flow.arrived += 1;
        let id = packet.flow;
        if flow.watched {
            self.watch_arrival(packet);
        }
        let flow = &mut self.flows[id as usize];
        match packet.kind {
            PacketKind::Data if flow.udp.is_some() => self.udp_receive(packet),
            PacketKind::Data => {
                let running = flow.endpoints.get();
                let ack = running.receiver.on_data(self.now, packet);
                let deadline = running.receiver.delayed_ack_deadline();
                if let Some(at) = running.delayed_ack.set(deadline) {
                    self.queue.schedule(at, Event::DelayedAckTimer(id));
                }
                if let Some(ack) = ack {
                    self.emit(ack);
                }
            }
            PacketKind::Ack => {
                let sender = &mut flow.endpoints.get().sender;
                if packet.window != 0 {
                    sender.on_window_update(packet.window);
                }
                sender.on_ack(self.now, packet, &mut self.outbox);
                #[cfg(debug_assertions)]
                {
                    let cwnd = sender.cc().cwnd();
                    let mss = self.flow_groups[flow.group as usize].mss;
                    assert!(cwnd >= mss, "flow {id}: cwnd {cwnd} below one MSS");
                }
                self.after_sender(id);
                if self.sharing.is_some() {
                    self.wake_joiners();
                }
            }
            PacketKind::Syn | PacketKind::SynAck | PacketKind::Fin => {
                self.on_connection_packet(*packet)
            }
        }
        // Set by `watch_arrival` for a workload slot: a field of the simulation, so that the
        // common path keeps no flag alive across the endpoint's processing.
        if let Some(id) = self.workloads.arrived.take() {
            self.on_workload_packet_gone(id);
        }
    }

    /// A packet of a traced flow or workload slot reached its endpoint (rare: off the
    /// forwarding path): log it, and count it out of the network.
    #[cold]
    #[inline(never)]
    fn watch_arrival(&mut self, packet: &Packet) {
        let flow = &mut self.flows[packet.flow as usize];
        if flow.incarnation.is_some() {
            flow.in_transit -= 1;
            self.workloads.arrived = Some(packet.flow);
        }
        if flow.traced {
            let kind = match packet.kind {
                PacketKind::Data => Some(PacketEventKind::Receive),
                PacketKind::Ack => Some(PacketEventKind::Ack),
                PacketKind::SynAck => Some(PacketEventKind::SynAck),
                PacketKind::Fin => Some(PacketEventKind::Fin),
                // Logged when sent.
                PacketKind::Syn => None,
            };
            if let Some(kind) = kind {
                self.log_packet(packet, kind);
            }
        }
        // What reaches the sender: ACKs, SYN-ACKs, FINs.
        if !packet.kind.is_forward() {
            self.capture_at_sender(packet);
        }
    }

    /// A traced flow or workload slot emitted a packet (rare: off the forwarding path): log
    /// it, and count it in the network.
    #[cold]
    #[inline(never)]
    pub(crate) fn watch_emit(&mut self, packet: &Packet) {
        let flow = &mut self.flows[packet.flow as usize];
        if flow.incarnation.is_some() {
            flow.in_transit += 1;
        }
        if flow.traced {
            let kind = match packet.kind {
                PacketKind::Data if packet.retransmission => Some(PacketEventKind::Retransmit),
                PacketKind::Data => Some(PacketEventKind::Send),
                PacketKind::Syn => Some(PacketEventKind::Syn),
                // ACKs, SYN-ACKs and FINs are logged when they arrive.
                PacketKind::Ack | PacketKind::SynAck | PacketKind::Fin => None,
            };
            if let Some(kind) = kind {
                self.log_packet(packet, kind);
            }
        }
        // What the sender sends: data segments and SYNs.
        if packet.kind.is_forward() {
            self.capture_at_sender(packet);
        }
    }

    /// `pcap = ["flows"]`: a packet leaving or reaching a flow's sender (not a workload's).
    fn capture_at_sender(&mut self, packet: &Packet) {
        let Some(captures) = self.captures.as_deref_mut() else {
            return;
        };
        if captures.flows && self.flows[packet.flow as usize].incarnation.is_none() {
            captures.log.push(Captured {
                point: CapturePoint::Flow(packet.flow),
                time: self.now,
                stream: 0,
                packet: *packet,
            });
        }
    }

    /// A packet left link `link`: captured if the link is a capture's named direction, or if
    /// the next link on its path is a capture's opposite direction (the router hands it to
    /// that link now; every path starts with a flow's own access link, so a shared link is
    /// always entered this way). Out of line, and reached only when something is captured,
    /// so that the forwarding path pays one branch per delivery.
    #[cold]
    #[inline(never)]
    fn capture_leaving(&mut self, link: u32, packet: &Packet) {
        let stream = self.stream_of(packet);
        let routes = &self.flows[packet.flow as usize].routes;
        let path = if packet.kind.is_forward() {
            routes.data
        } else {
            routes.ack
        };
        let next_hop = packet.hop as u32 + 1;
        let next_link = (next_hop < path.len).then(|| self.hops[(path.start + next_hop) as usize]);
        let Some(captures) = self.captures.as_deref_mut() else {
            return;
        };
        let seen = captures
            .on_leaving(link)
            .or_else(|| next_link.and_then(|next| captures.on_entering(next)));
        if let Some(index) = seen {
            captures.log.push(Captured {
                point: CapturePoint::Link(index),
                time: self.now,
                stream,
                packet: *packet,
            });
        }
    }

    /// Which connection of a workload slot a packet belongs to (0 for other flows).
    fn stream_of(&self, packet: &Packet) -> u64 {
        self.flows[packet.flow as usize]
            .incarnation
            .as_ref()
            .map_or(0, |i| i.arrival)
    }

    /// A packet leaves its endpoint onto the first link of its path.
    pub(crate) fn emit(&mut self, mut packet: Packet) {
        self.emit_in_place(&mut packet);
    }

    /// [`Simulation::emit`] of a packet where it lies (the sender's outbox): it is copied
    /// once, onto the wire of the link that takes it, instead of once more at each call on
    /// the way (80 bytes, 10 instructions a copy: callgrind, docs/performance.md).
    #[inline(never)]
    fn emit_in_place(&mut self, packet: &mut Packet) {
        self.emit_inlined(packet);
    }

    /// [`Simulation::emit_in_place`], inlined into `after_sender`'s loop over the sender's
    /// outbox, where its call (saved and restored registers) was paid once per segment
    /// sent; its other callers, the event loop's among them, call it out of line (a larger
    /// event loop keeps less in registers: docs/performance.md).
    #[inline(always)]
    fn emit_inlined(&mut self, packet: &mut Packet) {
        self.conservation.created += 1;
        // The path read before `watch_emit` (which changes no route), so that the flow is
        // looked up once.
        let flow = &self.flows[packet.flow as usize];
        let path = if packet.kind.is_forward() {
            flow.routes.data
        } else {
            flow.routes.ack
        };
        if flow.watched {
            self.watch_emit(packet);
        }
        let link = self.hops[path.start as usize];
        self.offer(link, packet, path);
    }

    /// Offer `packet` to `link` now, on `path` (its flow's path in its direction, which both
    /// callers have read already). Inlined into its two callers (a packet leaving its
    /// endpoint, a packet leaving a link): the call passed the 96-byte packet through the
    /// stack once more and saved and restored registers, about 40 instructions per hop.
    #[inline(always)]
    fn offer(&mut self, link: u32, packet: &mut Packet, path: Path) {
        let flow = &self.flows[packet.flow as usize];
        let admission = if link == flow.drop_link
            && packet.kind == PacketKind::Data
            && !packet.retransmission
            && flow.drop.as_ref().is_some_and(|drop| drop.has(packet))
        {
            self.links[link as usize].force_drop()
        } else {
            // The next link is folded: it takes the packet as it leaves this one, with no
            // event in between (`folding.rs`).
            let next_hop = packet.hop as u32 + 1;
            if next_hop < path.len
                && self.links[self.hops[(path.start + next_hop) as usize] as usize].folded
            {
                return self.offer_passing(link, packet, path);
            }
            self.links[link as usize].admit(self.now, packet)
        };
        match admission {
            Admission::Admitted {
                arrival,
                first_in_flight: true,
            } => {
                let event = self.links[link as usize].delivery_event(link);
                self.queue.schedule(arrival, event)
            }
            Admission::Admitted { .. } => {}
            Admission::Dropped(_) => self.count_drop(packet),
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
            let event = self.links[link as usize].delivery_event(link);
            self.queue.schedule(arrival, event);
        }
        for (packet, _) in dropped.drain(..) {
            self.count_drop(&packet);
        }
        self.link_drops = dropped;
        if let Some(medium) = self.wifi.as_deref_mut()
            && medium.carries(link)
        {
            medium.on_backlog(self.now, link, &mut self.links);
            self.after_medium();
        }
    }

    /// The Wi-Fi medium's event (a rare kind of link: out of the event loop's way).
    #[cold]
    #[inline(never)]
    fn on_wifi_medium(&mut self, generation: u32) {
        if let Some(medium) = self.wifi.as_deref_mut() {
            medium.on_event(self.now, generation, &mut self.links);
            self.after_medium();
        }
    }

    /// Act on what the Wi-Fi medium did: schedule its next event and the deliveries of the
    /// frames it got through, and account the frames it lost.
    fn after_medium(&mut self) {
        let Some(medium) = self.wifi.as_deref_mut() else {
            return;
        };
        let mut outcome = std::mem::take(&mut medium.outcome);
        if let Some((at, generation)) = outcome.next.take() {
            self.queue.schedule(at, Event::WifiMedium(generation));
        }
        for (link, arrival) in outcome.deliveries.drain(..) {
            let event = self.links[link as usize].delivery_event(link);
            self.queue.schedule(arrival, event);
        }
        for (packet, _) in outcome.drops.drain(..) {
            self.count_drop(&packet);
        }
        if let Some(medium) = self.wifi.as_deref_mut() {
            medium.outcome = outcome; // its buffers, for reuse
        }
    }

    /// Account a dropped packet to its flow (rare: kept off the forwarding path).
    #[cold]
    #[inline(never)]
    pub(crate) fn count_drop(&mut self, packet: &Packet) {
        self.conservation.dropped += 1;
        let flow = &mut self.flows[packet.flow as usize];
        if flow.incarnation.is_some() {
            flow.in_transit -= 1;
        }
        let kind = match packet.kind {
            PacketKind::Data => {
                flow.data_drops += 1;
                PacketEventKind::Drop
            }
            // The receiver's FIN is its last ACK.
            PacketKind::Ack | PacketKind::Fin => {
                flow.ack_drops += 1;
                PacketEventKind::AckDrop
            }
            // Handshake packets are counted apart from data segments and ACKs.
            PacketKind::Syn => {
                if let Some(handshake) = flow.handshake.as_deref_mut() {
                    handshake.syn_drops += 1;
                }
                PacketEventKind::SynDrop
            }
            PacketKind::SynAck => {
                if let Some(handshake) = flow.handshake.as_deref_mut() {
                    handshake.syn_ack_drops += 1;
                }
                PacketEventKind::SynDrop
            }
        };
        let workload = flow.incarnation.is_some();
        if flow.traced {
            self.log_packet(packet, kind);
        }
        if workload {
            self.on_workload_packet_gone(packet.flow);
        }
    }

    /// Send what the flow's sender produced and re-arm its timers.
    pub(crate) fn after_sender(&mut self, id: u32) {
        let mut outbox = std::mem::take(&mut self.outbox);
        for packet in &mut outbox {
            self.emit_inlined(packet);
        }
        outbox.clear();
        self.outbox = outbox;
        let flow = &mut self.flows[id as usize];
        let running = flow.endpoints.get();
        if running.sender.has_events() {
            running.sender.take_events(&mut self.event_log);
        }
        // The sender's timer stops when nothing is outstanding (RFC 6298 §5.2): rare, and
        // where a finite transfer's last ACK leads. That branch, which arming the timer
        // takes anyway, is where a done flow is folded (`on_sender_idle`), so that the
        // common ACK pays no test of its own (a test after every ACK cost 0.4 % per packet:
        // docs/performance.md, "Memory per idle flow").
        let Some(deadline) = running.sender.timer_deadline() else {
            running.rto.set(None);
            arm_send_timer(running, &mut self.queue, id);
            self.on_sender_idle(id);
            return;
        };
        if let Some(at) = running.rto.set(Some(deadline)) {
            // An event after the run's end would never run: not scheduled, it takes no room
            // in the queue. (A flow's first timer, 1 s after its start, is past the end for
            // every flow of the last second: at 100 000 one-segment flows, most of the
            // queue's entries at the run's end; docs/performance.md, "Memory per idle flow".)
            // The slot stays armed as if it had been, and the events that are scheduled keep
            // their order: their insertion numbers keep the order in which they came.
            if at <= self.end {
                self.queue.schedule(at, Event::RetransmissionTimer(id));
            }
        }
        arm_send_timer(running, &mut self.queue, id);
    }

    /// Flow `id`'s sender has nothing outstanding and its timer is stopped: if the flow is
    /// a plain one and done (every byte delivered and acknowledged, none of its packets in
    /// the network, no timer armed), fold its endpoints and give back its links now, rather
    /// than at the next sampling tick, up to an interval later (with flows that live about
    /// a round trip, half the running flows, each holding about 4 kB, were done and waiting
    /// for the tick). Its time-series row and result are the same: done endpoints no longer
    /// change. Other flows (an application, a handshake, shared state, a workload slot) are
    /// left to the tick: their handlers may still reach their endpoints after this call.
    /// Out of line: reached about once per finite flow, and when an application runs dry.
    #[cold]
    #[inline(never)]
    fn on_sender_idle(&mut self, id: u32) {
        let index = id as usize;
        if self.close_when_idle
            && id < self.workloads.first_slot
            && self.flows[index].is_plain(self.sharing.as_deref(), index)
        {
            self.release_if_finished(index);
        }
    }

    /// Give back the buffers of the flows that are done: every byte delivered and
    /// acknowledged, and their own links empty. 100 000 flows that each keep the capacity of
    /// their busiest moment cost 2 kB apiece after they are over (docs/performance.md, "Many
    /// flows"). Only capacity is given back, so nothing they do changes if a late packet
    /// comes. At each sampling tick, which already visits every flow.
    fn release_finished_flows(&mut self) {
        for id in 0..self.workloads.first_slot as usize {
            self.release_if_finished(id);
        }
    }

    /// [`Simulation::release_finished_flows`] of flow `id` (also reached when a plain flow's
    /// sender goes idle: `on_sender_idle`).
    fn release_if_finished(&mut self, id: usize) {
        let flow = &mut self.flows[id];
        if flow.released
            || flow.udp.is_some()
            || flow.completed_at().is_none()
            || !flow.endpoints.sender_finished()
        {
            return;
        }
        let mut empty = true;
        for path in [flow.routes.data, flow.routes.ack] {
            for &link in &self.hops[path.start as usize..][..path.len as usize] {
                let link = &mut self.links[link as usize];
                if link.one_flow {
                    empty &= link.release_idle_buffers();
                }
            }
        }
        // A plain flow's endpoints fold into their record once none of its packets is in
        // the network (a late duplicate could still reach them) and no timer is armed;
        // until then they give back their empty buffers.
        let plain = flow.is_plain(self.sharing.as_deref(), id);
        let closed =
            plain && flow.in_flight() == Some(0) && flow.endpoints.close_if_done(&mut self.names);
        if !closed {
            let running = flow.endpoints.get();
            running.sender.release_idle_buffers();
            running.receiver.release_idle_buffers();
        }
        // A link still holding a late packet, or endpoints that could still get one, are
        // tried again at the next tick.
        flow.released = empty && (closed || !plain);
        // Nothing can reach its links any more: their ids go back to the pool.
        if flow.released && closed {
            let routes = flow.routes;
            self.link_pool
                .give_back(id as u32, routes, &mut self.hops, &self.links);
        }
    }

    fn sample(&mut self, sink: &mut dyn TraceSink) {
        // Workload slots are not sampled: their connections come and go (docs/outputs.md).
        let first_slot = self.workloads.first_slot as usize;
        for (id, flow) in self.flows[..first_slot].iter().enumerate() {
            if !flow.started {
                continue;
            }
            if let Some(sample) = self.udp_sample(id) {
                sink.udp_sample(&sample);
                continue;
            }
            let sample = match &flow.endpoints {
                Endpoints::Running(running) => FlowSample {
                    shared: self.shared_sample(id),
                    ..crate::endpoints::sample(
                        self.now,
                        id as u32,
                        &running.sender,
                        &running.receiver,
                    )
                },
                // Only plain flows close, and they share no window.
                Endpoints::Closed(closed) => closed.sample(self.now, id as u32, &self.names),
                Endpoints::Pending => unreachable!("a started flow has its endpoints"),
            };
            sink.flow_sample(&sample);
        }
        self.sample_groups(sink);
        let now = self.now;
        for i in 0..self.reported.len() {
            let id = self.reported[i];
            if self.links[id as usize].settle_transmission_at(now) {
                self.after_service(id);
            }
            let link = &mut self.links[id as usize];
            let (queue_pkts, queue_bytes) = link.queue_at(now);
            sink.link_sample(&LinkSample {
                time: now,
                link: link.name(),
                queue_pkts,
                queue_bytes,
                drops: link.stats().drops(),
                tx_bytes: link.stats().bytes,
            });
        }
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
        // Only workload slots count their packets in flight; the flows that exist from the
        // start keep 0.
        let per_flow: u64 = self.flows.iter().map(|f| f.in_transit as u64).sum();
        if per_flow > in_transit {
            return fail(format!(
                "the workload flows count {per_flow} packets in flight, the links hold only {in_transit}"
            ));
        }
        let (mut all_plain, mut plain_in_flight) = (true, 0u64);
        for (id, flow) in self.flows.iter().enumerate() {
            if let Some(udp) = &flow.udp {
                all_plain = false;
                if udp.stats.packets_delivered + flow.data_drops > udp.stats.packets_sent {
                    return fail(format!("flow {id}: UDP sink got packets never sent"));
                }
                continue;
            }
            if flow.is_plain(self.sharing.as_deref(), id) {
                let Some(in_flight) = flow.in_flight() else {
                    return fail(format!("flow {id}: more packets arrived than were sent"));
                };
                plain_in_flight += in_flight;
            } else {
                all_plain = false;
            }
            let Endpoints::Running(running) = &flow.endpoints else {
                // Not started, or closed: nothing changes any more.
                continue;
            };
            let (sender, receiver) = (&running.sender, &running.receiver);
            let delivered = receiver.delivered();
            if delivered > sender.snd_nxt() {
                return fail(format!("flow {id}: receiver has bytes never sent"));
            }
            if sender.snd_una() > delivered {
                return fail(format!("flow {id}: bytes acknowledged before they arrived"));
            }
            if flow
                .size(&self.flow_groups)
                .is_some_and(|size| delivered > size)
            {
                return fail(format!(
                    "flow {id}: more bytes delivered than the transfer holds"
                ));
            }
            // TCP Small Queues bounds what waits on the sender's own link.
            let backlog =
                self.links[self.hops[flow.routes.data.start as usize] as usize].backlog(self.now);
            if sender
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
            sender.check_invariants();
        }
        // Every packet in the network is a plain flow's when all flows are plain: then their
        // counts (which decide when endpoints may be folded) must add up to the links'.
        if all_plain && plain_in_flight != in_transit {
            return fail(format!(
                "the flows count {plain_in_flight} packets in flight, the links hold {in_transit}"
            ));
        }
        Ok(())
    }

    fn finish(mut self) -> RunResult {
        let end = self.end;
        // Workload slots are reported by their workloads, not as flows.
        let workloads = self.workload_results();
        self.flows.truncate(self.workloads.first_slot as usize);
        for link in &mut self.links {
            link.finish(end);
        }
        let mut data_routes = DataRoutes::default();
        for flow in &self.flows {
            let path =
                &self.hops[flow.routes.data.start as usize..][..flow.routes.data.len as usize];
            data_routes.push(
                path.iter()
                    .filter_map(|l| self.reported.iter().position(|r| r == l))
                    .map(|i| i as u32),
            );
        }
        let at_window_start = std::mem::take(&mut self.reported_at_window_start);
        let links = self
            .reported
            .iter()
            .zip(at_window_start)
            .map(|(&id, (at_window_start, busy_at_window_start))| {
                let link = &self.links[id as usize];
                LinkResult {
                    name: link.name().to_string(),
                    rate_bps: link.rate_bps(),
                    busy: link.busy_until_time(end),
                    stats: link.stats().clone(),
                    at_window_start,
                    busy_at_window_start,
                    wifi: link.is_wifi(),
                }
            })
            .collect();
        // A flow that never started (it would have at the run's end) reports the endpoints
        // it would have had, untouched: made here, while the links (its NIC's rate) exist,
        // and folded at once (a fresh receiver has completed nothing, as a pending one).
        for (id, flow) in self.flows.iter_mut().enumerate() {
            if flow.udp.is_none() && matches!(flow.endpoints, Endpoints::Pending) {
                let group = &self.flow_groups[flow.group as usize];
                // A pooled flow that never started has no links: its NIC's rate is its kit's.
                let nic_rate_bps = self
                    .link_pool
                    .first_data_link_rate(id as u32)
                    .unwrap_or_else(|| first_link_rate(&self.links, &self.hops, flow.routes));
                let Endpoints::Running(running) = endpoints_of(group, id as u32, nic_rate_bps)
                else {
                    unreachable!("endpoints_of makes running endpoints");
                };
                let closed = Closed::new(running.sender, running.receiver, &mut self.names);
                flow.endpoints = Endpoints::Closed(Box::new(closed));
            }
        }
        // Nothing reads the network any more: give back the links (four per flow), the event
        // queue and the buffers before the results are made, so that the run's end does not
        // hold both (docs/performance.md, "Memory per idle flow").
        drop(std::mem::take(&mut self.links));
        // The paths (24 B a dumbbell flow) and the pool's sets: read by the lines above only.
        drop(std::mem::take(&mut self.hops));
        drop(std::mem::take(&mut self.link_pool));
        drop(std::mem::take(&mut self.queue));
        drop(std::mem::take(&mut self.roles));
        drop(std::mem::take(&mut self.outbox));
        drop(std::mem::take(&mut self.link_drops));
        drop(std::mem::take(&mut self.packet_log));
        drop(std::mem::take(&mut self.event_log));
        if let Some(give_back) = self.give_back_heap {
            give_back();
        }
        // The flows are consumed here: their histograms move into the results instead of
        // being copied (a copy per flow is what 100 000 flows cannot afford). From the last
        // to the first, the flows' vector shrunk as it goes (a large vector is a mapping of
        // its own, whose freed tail the shrink unmaps), so that the results (512 B a flow)
        // and the flows (128 B) do not exist whole side by side: that moment was the
        // process's peak (docs/performance.md, "Memory per idle flow").
        let mut flows = std::mem::take(&mut self.flows);
        let mut results = Vec::with_capacity(flows.len());
        while let Some(flow) = flows.pop() {
            let id = flows.len() as u32;
            let size = flow.size(&self.flow_groups);
            results.push(flow_result(id, flow, size, &mut self.names));
            if flows.len().is_multiple_of(SHRINK_EVERY) {
                flows.shrink_to_fit();
            }
            if !flows.is_empty()
                && flows.len().is_multiple_of(GIVE_BACK_EVERY)
                && let Some(give_back) = self.give_back_heap
            {
                give_back();
            }
        }
        results.reverse();
        let flows = results;
        RunResult {
            duration: end.saturating_since(SimTime::ZERO),
            window_start: self.window_start,
            events: self.events,
            flows,
            links,
            data_routes,
            workloads,
        }
    }
}

/// Test runs: the scenario `text` with `configure` applied to the simulation first, so that
/// tests can compare runs that differ in one setting (folding, pooled links, when done flows
/// are folded): the result and everything it streamed.
#[cfg(test)]
pub(crate) fn run_text(
    text: &str,
    configure: impl FnOnce(&mut Simulation),
) -> (RunResult, crate::trace::MemorySink) {
    let scenario =
        cclab_scenario::from_str("test.toml", text, &[]).expect("the test scenario is valid");
    let mut simulation = Simulation::new(&scenario);
    configure(&mut simulation);
    let mut sink = crate::trace::MemorySink::default();
    let result = simulation
        .run(&mut sink, &mut |_| {})
        .expect("invariants hold");
    (result, sink)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::qdisc::fifo::Fifo as TestFifo;
    use crate::net::qdisc::{AnyScheduledQdisc, Qdisc};
    use crate::topology::buffer_limit;
    use crate::topology::dumbbell::{BOTTLENECK, BOTTLENECK_REVERSE};
    use crate::trace::NullSink;

    /// Run the event loop up to and including `ms` milliseconds, as `run` would.
    fn run_until(simulation: &mut Simulation, ms: u64) {
        run_until_watching(simulation, ms, |_| {});
    }

    /// [`run_until`], calling `watch` after each event.
    fn run_until_watching(
        simulation: &mut Simulation,
        ms: u64,
        mut watch: impl FnMut(&Simulation),
    ) {
        let until = SimTime::ZERO + SimDuration::from_millis(ms);
        while simulation.queue.peek_time().is_some_and(|t| t <= until) {
            let (time, event) = simulation.queue.pop().expect("peeked");
            simulation.now = time;
            simulation
                .dispatch(event, &mut NullSink)
                .expect("invariants hold");
            watch(simulation);
        }
    }

    /// A CUBIC flow of 20 segments from 0 ms and a `second_cc` flow of 20 segments from
    /// 200 ms on a small dumbbell, 300 ms; `extra` is appended to the scenario text.
    fn two_short_flows(second_cc: &str, extra: &str) -> cclab_scenario::Scenario {
        let text = format!(
            r#"
            duration = "300ms"
            [topology]
            bottleneck = {{ rate = "100Mbps", delay = "4ms", buffer = 100 }}
            access = {{ rate = "1Gbps", delay = "500us" }}
            [[flows]]
            cc = "cubic"
            size = "28960B"
            [[flows]]
            cc = "{second_cc}"
            size = "28960B"
            start = "200ms"
            {extra}
        "#
        );
        cclab_scenario::from_str("test.toml", &text, &[]).expect("the test scenario is valid")
    }

    /// Run `text`, with the bottleneck's drop-tail replaced by the same FIFO run as a
    /// scheduled discipline if `scheduled`.
    fn run_with_bottleneck(text: &str, scheduled: bool) -> RunResult {
        run_with_bottleneck_into(text, scheduled, &mut NullSink)
    }

    fn run_with_bottleneck_into(
        text: &str,
        scheduled: bool,
        sink: &mut dyn crate::trace::TraceSink,
    ) -> RunResult {
        let scenario =
            cclab_scenario::from_str("test.toml", text, &[]).expect("the test scenario is valid");
        let mut simulation = Simulation::new(&scenario);
        if scheduled {
            let bottleneck = &scenario.topology.dumbbell().expect("a dumbbell").bottleneck;
            let limit = buffer_limit(&scenario, bottleneck.buffer);
            let fifo = TestFifo::new(limit, bottleneck.ecn_threshold);
            simulation.links[BOTTLENECK as usize]
                .replace_qdisc(Qdisc::Scheduled(AnyScheduledQdisc::TestFifo(fifo)));
            // A scheduled discipline's deliveries are events: the links behind it unfold.
            let routes: Vec<Routes> = simulation.flows.iter().map(|f| f.routes).collect();
            simulation.fold_hops(&routes);
        }
        simulation.run(sink, &mut |_| {}).expect("invariants hold")
    }

    #[test]
    fn a_sample_at_the_instant_a_transmission_ends_counts_the_queue_as_drop_tail_does() {
        // 1500-byte packets at 1.2 Mbit/s take exactly 10 ms, and the flow's first packet
        // reaches the bottleneck at exactly 10 ms (it starts at 9 ms and its access link
        // serializes it in 1 ms): every transmission ends on a 10 ms sampling tick. Drop-tail
        // counts the packet whose service starts at the tick as no longer waiting; a
        // scheduled FIFO must report the same queue, although its transmission-end event at
        // that instant is queued after the sample.
        let text = r#"
            duration = "1s"
            [topology]
            bottleneck = { rate = "1200kbps", delay = "5ms", buffer = 50 }
            access = { rate = "12Mbps" }
            [[flows]]
            cc = "newreno"
            start = "9ms"
            size = "40KB"
            [output]
            interval = "10ms"
        "#;
        let mut drop_tail = crate::trace::MemorySink::default();
        let mut scheduled = crate::trace::MemorySink::default();
        run_with_bottleneck_into(text, false, &mut drop_tail);
        run_with_bottleneck_into(text, true, &mut scheduled);
        let busy_ticks = drop_tail.links.iter().filter(|l| l.2 > 0).count();
        assert!(busy_ticks > 5, "the queue must be sampled while busy");
        assert_eq!(scheduled.links, drop_tail.links);
    }

    #[test]
    fn a_scheduled_fifo_bottleneck_gives_the_drop_tail_run() {
        // Overflow, random loss and ECN marks at the bottleneck, flows of both kinds: the
        // scheduled path must count every drop to its flow (the run checks conservation) and
        // leave every packet's fate and time as drop-tail does. Only the event count differs:
        // one transmission-end event per packet through the bottleneck, and one delivery
        // event per packet it delivers (behind drop-tail the receivers' access links fold
        // and take the packets as they are admitted, `folding.rs`; behind a scheduled
        // discipline they cannot). The transfers end before the run does, so that no packet
        // still waits at the end (drop-tail counts a waiting packet as sent at admission, a
        // scheduled discipline when it leaves), and every packet not lost at random is
        // delivered.
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
        let delivered = packets - drop_tail.links[0].stats.random_losses;
        assert_eq!(scheduled.events, drop_tail.events + packets + delivered);
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
        // What every flow holds for certain while it runs, before any other heap
        // allocation: its record and timers, its endpoints (boxed, made when it starts),
        // four access links, its counters at the window's start (boxed, made when the window
        // opens) and its result. The scenario crate's estimate (measured from peak RSS of
        // flows that all run) must be at least that. The access links are counted in full,
        // as when their buffer is limited (`Link::compact` otherwise: the inline part only,
        // and only while the flow runs, with the index of its set in the link pool:
        // `link_pool.rs`).
        let fixed = std::mem::size_of::<Flow>()
            + std::mem::size_of::<crate::endpoints::Running>()
            + 4 * (std::mem::size_of::<Link>() + Link::queue_bytes())
            + std::mem::size_of::<u32>()
            + std::mem::size_of::<FlowCounters>()
            + std::mem::size_of::<FlowResult>();
        assert!(
            cclab_scenario::resources::BYTES_PER_FLOW as usize >= fixed,
            "{fixed} bytes"
        );
    }

    #[test]
    fn a_finished_flow_gives_back_its_links_buffers_and_is_still_reported() {
        // Two flows of 20 segments (29 000 bytes at the default 1448-byte MSS) on 100 Mbit/s
        // with a 10 ms RTT: slow start from 10 segments sends them in two round trips, so both
        // are done well before the 100 ms tick, and the run goes on to 300 ms.
        let text = r#"
            duration = "300ms"
            [topology]
            bottleneck = { rate = "100Mbps", delay = "4ms", buffer = 100 }
            access = { rate = "1Gbps", delay = "500us" }
            [[flows]]
            cc = "newreno"
            count = 2
            size = "28960B"
            [output]
            interval = "100ms"
        "#;
        let scenario =
            cclab_scenario::from_str("test.toml", text, &[]).expect("the test scenario is valid");
        let mut simulation = Simulation::new(&scenario);
        let access_links = |s: &Simulation, id: usize| -> Vec<u32> {
            let routes = s.flows[id].routes;
            [routes.data, routes.ack]
                .iter()
                .flat_map(|p| s.hops[p.start as usize..][..p.len as usize].to_vec())
                .filter(|&l| l != BOTTLENECK && l != BOTTLENECK_REVERSE)
                .collect()
        };
        // A dumbbell flow crosses its own four access links and the shared bottleneck (its
        // data one way, its ACKs the other).
        assert_eq!(access_links(&simulation, 0).len(), 4);
        assert!(
            access_links(&simulation, 0)
                .iter()
                .all(|&l| simulation.links[l as usize].one_flow)
        );
        assert!(!simulation.links[BOTTLENECK as usize].one_flow);
        assert!(!simulation.links[BOTTLENECK_REVERSE as usize].one_flow);
        let until = SimTime::ZERO + SimDuration::from_millis(150);
        run_until(&mut simulation, 150);
        for id in 0..2 {
            assert!(simulation.flows[id].completed_at().is_some());
            assert!(
                simulation.flows[id].released,
                "flow {id} was given back at 100 ms"
            );
            assert!(
                matches!(simulation.flows[id].endpoints, Endpoints::Closed(_)),
                "flow {id}'s endpoints were folded at 100 ms"
            );
            for link in access_links(&simulation, id) {
                assert_eq!(simulation.links[link as usize].buffer_capacity(), 0);
            }
        }
        let result = simulation
            .run(&mut NullSink, &mut |_| {})
            .expect("invariants hold");
        for flow in &result.flows {
            assert_eq!(flow.delivered_bytes, 28_960);
            assert_eq!(flow.bytes_acked, 28_960);
            assert!(flow.completed_at.is_some_and(|t| t < until));
            assert!(
                flow.rtt.count() > 0,
                "the RTT histogram moves into the result"
            );
        }
    }

    #[test]
    fn a_run_ended_before_a_flow_starts_reports_it_with_untouched_endpoints() {
        // `finish` gives the links back before it makes the results, so a flow still pending
        // gets its endpoints (whose NIC rate is its first link's) before that: it reports
        // its own controller, its start and nothing sent, as endpoints never used would.
        let mut simulation = Simulation::new(&two_short_flows("reno", ""));
        run_until(&mut simulation, 99);
        assert!(matches!(simulation.flows[1].endpoints, Endpoints::Pending));
        let result = simulation.finish();
        let first = &result.flows[0];
        assert_eq!(first.cc, "cubic");
        assert_eq!(
            first.delivered_bytes, 28_960,
            "the first flow is done by 99 ms"
        );
        let pending = &result.flows[1];
        assert_eq!(pending.cc, "reno");
        assert_eq!(pending.start, SimTime::ZERO + SimDuration::from_millis(200));
        assert_eq!(
            (
                pending.packets_sent,
                pending.bytes_acked,
                pending.delivered_bytes
            ),
            (0, 0, 0)
        );
        assert_eq!(
            (pending.completed_at, pending.min_rtt, pending.mean_rtt),
            (None, None, None)
        );
        assert_eq!(pending.rtt, crate::histogram::Histogram::default());
        // The links' results are made before the links are given back: the dumbbell reports
        // its bottleneck (`RunResult::links`).
        let names: Vec<&str> = result.links.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["bottleneck"]);
        assert_eq!(result.links[0].rate_bps, 100_000_000);
    }

    #[test]
    fn endpoints_are_made_at_the_start_and_folded_into_the_same_row_when_done() {
        // Flow 0 sends 20 segments from 0 ms and is done long before the 100 ms tick; flow 1
        // starts at 200 ms. At 99 ms flow 0 is done but running, flow 1 has no endpoints; the
        // 100 ms tick folds flow 0's, whose time-series row must stay what its endpoints gave.
        let scenario = two_short_flows("newreno", "[output]\ninterval = \"100ms\"");
        let mut simulation = Simulation::new(&scenario);
        // Folded at the tick: not when its sender goes idle, which leaves nothing to compare.
        simulation.close_when_idle = false;
        assert!(matches!(simulation.flows[0].endpoints, Endpoints::Pending));
        run_until(&mut simulation, 99);
        let Endpoints::Running(running) = &simulation.flows[0].endpoints else {
            panic!("flow 0 runs until the tick");
        };
        assert!(running.sender.is_finished() && running.receiver.completed_at.is_some());
        assert_eq!(simulation.flows[0].in_flight(), Some(0));
        let t = SimTime::ZERO + SimDuration::from_millis(100);
        let row = crate::endpoints::sample(t, 0, &running.sender, &running.receiver);
        assert!(row.srtt.is_some() && row.bytes_acked == 28_960);
        assert!(matches!(simulation.flows[1].endpoints, Endpoints::Pending));
        run_until(&mut simulation, 150);
        let Endpoints::Closed(closed) = &simulation.flows[0].endpoints else {
            panic!("flow 0 is folded at the 100 ms tick");
        };
        assert_eq!(closed.sample(t, 0, &simulation.names), row);
        assert!(matches!(simulation.flows[1].endpoints, Endpoints::Pending));
        run_until(&mut simulation, 210);
        assert!(matches!(
            simulation.flows[1].endpoints,
            Endpoints::Running(_)
        ));
        let result = simulation
            .run(&mut NullSink, &mut |_| {})
            .expect("invariants hold");
        assert_eq!(result.flows[0].cc, "cubic");
        assert_eq!(result.flows[0].bytes_acked, 28_960);
        assert!(result.flows[0].rtt.count() > 0);
        assert_eq!(result.flows[1].delivered_bytes, 28_960);
    }

    #[test]
    fn a_flow_is_folded_at_its_last_ack_and_gives_back_its_links() {
        // Flow 0 of these is done in two round trips, long before the 100 ms tick: the ACK
        // of its last byte stops its sender's timer, and its endpoints are folded and its
        // links given back then.
        let scenario = two_short_flows("newreno", "[output]\ninterval = \"100ms\"");
        let mut simulation = Simulation::new(&scenario);
        simulation.pool_access_links();
        let mut folded_at = None;
        run_until_watching(&mut simulation, 99, |s| {
            if folded_at.is_none() && matches!(s.flows[0].endpoints, Endpoints::Closed(_)) {
                folded_at = Some(s.now);
            }
        });
        let until = SimTime::ZERO + SimDuration::from_millis(99);
        let flow = &simulation.flows[0];
        assert!(flow.released);
        let routes = flow.routes;
        assert_eq!(
            simulation.hops[routes.data.start as usize],
            crate::link_pool::NO_LINK,
            "its links went back to the pool"
        );
        // Folded at the instant the last byte was acknowledged: its completion time (the
        // receiver's) is one ACK's trip earlier, and no tick came between.
        let completed = flow.completed_at().expect("flow 0 is done");
        let folded_at = folded_at.expect("flow 0 was folded before the tick");
        assert!(completed < folded_at && folded_at < until);
    }

    /// Short flows that come and go in two groups (one with SACK, the other sending from
    /// the right with delayed ACKs and a longer RTT), a long flow that runs to the end, a
    /// finite one that starts with the run and a traced one; loss at the bottleneck, so that
    /// some flows retransmit, time out and get late duplicates. 3 s, sampled every 50 ms,
    /// with a steady-state window from 1 s.
    const SHORT_FLOWS_WITH_LOSS: &str = r#"
        duration = "3s"
        seed = 11
        [topology]
        bottleneck = { rate = "30Mbps", delay = "4ms", buffer = 25, loss = 0.02 }
        access = { rate = "200Mbps", delay = "2ms" }
        [[flows]]
        cc = "reno"
        recovery = "sack"
        count = 36
        size = "24KB"
        start_jitter = "2200ms"
        [[flows]]
        cc = "cubic"
        count = 24
        size = "6KB"
        extra_rtt = "30ms"
        direction = "reverse"
        delayed_ack = true
        start = "50ms"
        start_jitter = "2300ms"
        [[flows]]
        cc = "cubic"
        [[flows]]
        cc = "newreno"
        size = "60KB"
        [output]
        interval = "50ms"
        steady_from = "1s"
        trace_packets = [61]
    "#;

    fn short_flows_with_loss() -> cclab_scenario::Scenario {
        cclab_scenario::from_str("test.toml", SHORT_FLOWS_WITH_LOSS, &[])
            .expect("the test scenario is valid")
    }

    #[test]
    fn folding_a_flow_when_its_sender_goes_idle_changes_nothing() {
        // The same run folding done flows at the ticks only must give the same result and
        // stream the same rows, events and packets.
        let run = |close_when_idle: bool| {
            run_text(SHORT_FLOWS_WITH_LOSS, |s| {
                s.close_when_idle = close_when_idle
            })
        };
        let (at_ticks, at_ticks_sink) = run(false);
        let (when_idle, when_idle_sink) = run(true);
        assert_eq!(when_idle, at_ticks);
        assert_eq!(when_idle_sink.flows, at_ticks_sink.flows);
        assert_eq!(when_idle_sink.links, at_ticks_sink.links);
        assert_eq!(when_idle_sink.events, at_ticks_sink.events);
        assert_eq!(when_idle_sink.packets, at_ticks_sink.packets);
        assert!(!at_ticks_sink.packets.is_empty(), "flow 61 is traced");
        let done = at_ticks.flows.iter().filter(|f| f.completed_at.is_some());
        assert!(done.count() > 55, "most short flows end within the run");
        assert!(at_ticks.flows.iter().any(|f| f.retransmissions > 0));
    }

    #[test]
    fn most_done_flows_are_folded_before_the_tick() {
        // Stopped between two ticks, the run folding flows when their senders go idle holds
        // fewer running endpoints than the one folding at the ticks only: the flows done
        // since the last tick are folded already.
        let running_at = |close_when_idle: bool, ms: u64| {
            let mut simulation = Simulation::new(&short_flows_with_loss());
            simulation.close_when_idle = close_when_idle;
            simulation.pool_access_links();
            run_until(&mut simulation, ms);
            let running = simulation
                .flows
                .iter()
                .filter(|f| matches!(f.endpoints, Endpoints::Running(_)))
                .count();
            let done = simulation
                .flows
                .iter()
                .filter(|f| f.completed_at().is_some() && f.endpoints.sender_finished())
                .count();
            (running, done)
        };
        let mut fewer = 0;
        for ms in [349, 999, 1_749, 2_449] {
            let (at_ticks, done) = running_at(false, ms);
            let (when_idle, same_done) = running_at(true, ms);
            assert_eq!(done, same_done);
            assert!(when_idle <= at_ticks, "{when_idle} > {at_ticks} at {ms} ms");
            fewer += at_ticks - when_idle;
        }
        assert!(fewer > 0, "some flows were done between the ticks");
    }

    #[test]
    fn a_flows_rare_parts_cost_it_a_pointer_each() {
        // The `drop` list with its MSS and a workload slot's connection are boxed: a pointer
        // each where they took 32 and 24 bytes, in every one of 100 000 flows; the size
        // (16 bytes) is the group's, or the connection's.
        let pointer = std::mem::size_of::<usize>();
        assert_eq!(std::mem::size_of::<Option<Box<ForcedDrops>>>(), pointer);
        assert_eq!(std::mem::size_of::<Option<Box<Incarnation>>>(), pointer);
        assert!(std::mem::size_of::<Flow>() <= 184 - 24 - 16 - 16);
    }

    #[test]
    fn a_drop_list_drops_the_listed_segments_by_their_index() {
        let scenario = two_short_flows("reno", "drop = [0, 3]");
        let group = &scenario.flows[1];
        let drops = ForcedDrops::of(group).expect("the group has a drop list");
        let segment = |index: u64| Packet::test_data(1040, index * group.mss);
        let dropped: Vec<u64> = (0..6).filter(|&i| drops.has(&segment(i))).collect();
        assert_eq!(dropped, [0, 3]);
        assert!(ForcedDrops::of(&scenario.flows[0]).is_none());
    }

    #[test]
    fn a_timer_due_after_the_end_takes_no_room_in_the_queue() {
        // One 20-segment flow from 0 ms: right after its start its retransmission timer is
        // armed, 1 s ahead (RFC 6298's initial RTO). In a 300 ms run that event would never
        // run and is not in the queue; in a 2 s run it is. The rest is the same.
        let pending_after_start = |duration: &str| {
            let text = SHORT_RUN.replace("DURATION", duration);
            let scenario = cclab_scenario::from_str("test.toml", &text, &[])
                .expect("the test scenario is valid");
            let mut simulation = Simulation::new(&scenario);
            simulation.pool_access_links();
            let (time, event) = simulation.queue.pop().expect("the flow's start");
            assert_eq!((time, event), (SimTime::ZERO, Event::FlowStart(0)));
            simulation.now = time;
            simulation
                .dispatch(event, &mut NullSink)
                .expect("invariants hold");
            assert!(simulation.flows[0].endpoints.get().rto.armed());
            simulation.queue.len()
        };
        assert_eq!(pending_after_start("300ms") + 1, pending_after_start("2s"));
    }

    const SHORT_RUN: &str = r#"
        duration = "DURATION"
        [topology]
        bottleneck = { rate = "100Mbps", delay = "4ms", buffer = 100 }
        access = { rate = "1Gbps", delay = "500us" }
        [[flows]]
        cc = "cubic"
        size = "28960B"
    "#;

    #[test]
    fn finish_gives_the_heap_back_once_with_the_callers_function() {
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        fn count_call() {
            CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let scenario =
            cclab_scenario::from_str("test.toml", &SHORT_RUN.replace("DURATION", "100ms"), &[])
                .expect("the test scenario is valid");
        let plain = Simulation::new(&scenario)
            .run(&mut NullSink, &mut |_| {})
            .expect("invariants hold");
        assert_eq!(CALLS.load(std::sync::atomic::Ordering::Relaxed), 0);
        let giving_back = Simulation::new(&scenario)
            .give_back_heap_with(count_call)
            .run(&mut NullSink, &mut |_| {})
            .expect("invariants hold");
        assert_eq!(CALLS.load(std::sync::atomic::Ordering::Relaxed), 1);
        assert_eq!(giving_back, plain);
    }

    #[test]
    fn finish_gives_every_flows_result_in_order() {
        // More flows than `finish` turns into results between two shrinks of the flows'
        // vector, which it empties from the last, and between two give-backs of the heap:
        // each result is its own flow's (its id, its jittered start), in the flows' order,
        // and every one-segment flow has delivered its segment. The heap is given back once
        // before the results and once when `GIVE_BACK_EVERY` flows are left.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        fn count_call() {
            CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let count = GIVE_BACK_EVERY + 5;
        let text = format!(
            r#"
            duration = "200ms"
            [topology]
            bottleneck = {{ rate = "10Gbps", delay = "5ms" }}
            access = {{ rate = "10Gbps", delay = "1ms" }}
            [[flows]]
            cc = "reno"
            count = {count}
            size = "1000B"
            start_jitter = "100ms"
            [output]
            interval = "50ms"
        "#
        );
        let scenario =
            cclab_scenario::from_str("test.toml", &text, &[]).expect("the test scenario is valid");
        let simulation = Simulation::new(&scenario).give_back_heap_with(count_call);
        let starts: Vec<SimTime> = simulation.flows.iter().map(|f| f.start).collect();
        let result = simulation
            .run(&mut NullSink, &mut |_| {})
            .expect("invariants hold");
        assert_eq!(CALLS.load(std::sync::atomic::Ordering::Relaxed), 2);
        assert_eq!(result.flows.len(), count);
        for (id, flow) in result.flows.iter().enumerate() {
            assert_eq!((flow.id, flow.start), (id as u32, starts[id]));
            assert_eq!(flow.delivered_bytes, 1000);
        }
    }
}
