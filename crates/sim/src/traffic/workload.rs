//! Workloads of short TCP flows (`kind = "workload"`): arrivals as a Poisson process at a
//! target load, each arrival a new TCP connection over the group's route, and its flow
//! completion time (FCT) streamed out when it finishes.
//!
//! **Flow slots.** A connection runs in a *slot*: an entry of the simulation's flow table
//! with its own four access links and routes. A finished connection's slot goes back to
//! its workload's free list and the next arrival reuses it; a slot (links and routes added
//! to the network during the run) is created only when every slot of the workload is busy.
//! Memory therefore follows the number of connections open at once, not the number of
//! arrivals.
//!
//! **Quarantine.** A slot is reused only once its connection has finished (the receiver
//! has every byte), its sender has every byte acknowledged, and none of its packets is left
//! in the network (the slot's `in_transit` count, kept for workload slots only, off the
//! common forwarding path, is zero): a late
//! duplicate or ACK of an earlier connection can never reach a later one, and a new
//! connection never queues behind an old one's packets on its access links. Timers of an
//! earlier connection still in the event queue meet the fresh [`TimerSlot`]s of the new one
//! and are ignored (`TimerSlot::on_event` fires only the event it scheduled itself; one that
//! coincides in time with the new connection's own deadline fires that deadline, which is
//! what the new connection's own event would have done).
//!
//! **Completion.** As for the flows that exist from the start (`fct_s`), a flow completes
//! when its receiver holds every byte (with `handshake = true`: when the receiver's FIN
//! reaches the sender, `Flow::completed_at`): FCT = that instant − its arrival. The ideal FCT is
//! the one-way propagation delay of its data path plus its wire bytes (payload and one set
//! of headers per segment) at the slowest link of the path (docs/metrics.md).

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::{FlowGroup, Scenario, WorkloadConfig};

use crate::event::{Event, EventQueue};
use crate::histogram::Histogram;
use crate::net::link::Link;
use crate::net::network::{Path, Routes};
use crate::rng::Rng;
use crate::simulation::{Flow, Simulation};
use crate::traffic::sizes;

/// Upper bounds (bytes, inclusive) of the size buckets FCT statistics are kept in:
/// (0, 10 KB], (10 KB, 100 KB], (100 KB, 1 MB], and above 1 MB (KB = 1000 bytes), the
/// short / medium / long split of the datacenter transport literature (pFabric, HPCC).
pub const BUCKET_UPPER_BYTES: [u64; 3] = [10_000, 100_000, 1_000_000];

/// Index of the bucket of a flow of `size` bytes.
pub fn bucket_of(size: u64) -> usize {
    BUCKET_UPPER_BYTES.partition_point(|&upper| upper < size)
}

/// Slowdowns are kept in a duration histogram as thousandths: 1.000 → 1000, whose
/// log-linear buckets (1/64 wide) hold it to 0.8 %.
pub const SLOWDOWN_SCALE: f64 = 1000.0;

/// One finished short flow, as `flows.csv` writes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinishedFlow {
    /// Index of the `[[flows]]` table of the workload.
    pub group: u32,
    /// The flow's arrival number within its workload, from 0.
    pub id: u64,
    /// The flow slot it ran in (its access links are "workload{group}-slot{slot}-…").
    pub slot: u32,
    pub size_bytes: u64,
    pub start: SimTime,
    pub fct: SimDuration,
    pub ideal_fct: SimDuration,
    pub retransmissions: u64,
    pub timeouts: u64,
}

impl FinishedFlow {
    pub fn slowdown(&self) -> f64 {
        self.fct.as_nanos() as f64 / self.ideal_fct.as_nanos().max(1) as f64
    }
}

/// The short-flow connection a slot runs now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Incarnation {
    /// Index into the simulation's workloads.
    pub(crate) workload: u32,
    pub(crate) arrival: u64,
    /// The bytes it transfers.
    pub(crate) size: u64,
    /// Index of its slot among the workload's.
    pub(crate) slot: u32,
    /// The receiver has every byte and the flow is recorded.
    pub(crate) finished: bool,
    /// Back on the free list.
    pub(crate) released: bool,
}

/// FCT and slowdown statistics of one size bucket, in fixed memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BucketStats {
    /// FCTs in nanoseconds.
    pub fct: Histogram,
    /// Slowdowns × [`SLOWDOWN_SCALE`].
    pub slowdown: Histogram,
}

/// What a workload did over the run.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadResult {
    /// Index of its `[[flows]]` table.
    pub group: u32,
    pub cc: &'static str,
    pub arrivals: u64,
    pub finished: u64,
    /// Arrived but not finished by the end of the run.
    pub unfinished: u64,
    /// Application bytes of every arrival.
    pub offered_bytes: u64,
    /// Application bytes the receivers got during the run (finished and unfinished flows).
    pub delivered_bytes: u64,
    /// Arrivals happen in `[start, arrivals_until)`.
    pub start: SimTime,
    pub arrivals_until: SimTime,
    /// The load's link and its rate.
    pub load_link: String,
    pub load_rate_bps: u64,
    /// Slots created: the most connections open at once (plus those in quarantine).
    pub slots: u32,
    /// Packets that left the network (delivered or dropped) after their connection was
    /// entirely done — receiver complete, sender fully acknowledged — such as a spurious
    /// retransmission's duplicate: each would have reached the next connection of the slot
    /// had the slot been reused at once. The quarantine held their slots until they were gone.
    pub late_packets: u64,
    /// Per bucket of [`BUCKET_UPPER_BYTES`], then the flows above the last bound.
    pub buckets: Vec<BucketStats>,
}

/// One workload's arrival process, slots and statistics.
pub(crate) struct Workload {
    group: u32,
    config: FlowGroup,
    workload: WorkloadConfig,
    arrivals_rng: Rng,
    sizes_rng: Rng,
    /// Mean gap between arrivals, 1 / λ, in nanoseconds.
    mean_gap_ns: f64,
    /// No arrival at or after this instant.
    arrivals_until: SimTime,
    /// Shared links of the route, by id: data, ACKs.
    core: (Vec<u32>, Vec<u32>),
    /// One-way propagation delay of the data path and its slowest rate (the ideal FCT).
    one_way: SimDuration,
    bottleneck_bps: u64,
    /// Flow id of each of its slots, and the slots free (indexes into `slots`).
    slots: Vec<u32>,
    free: Vec<u32>,
    arrivals: u64,
    finished: u64,
    offered_bytes: u64,
    /// Bytes of the finished flows.
    finished_bytes: u64,
    late_packets: u64,
    buckets: Vec<BucketStats>,
    /// Which of a slot's access links (sender up, sender down, receiver down, receiver up)
    /// are folded (`crate::folding`), as chosen for its stand-ins when the topology was built.
    pub(crate) folded_access: [bool; 4],
}

/// Every workload of a run.
#[derive(Default)]
pub(crate) struct Workloads {
    pub(crate) groups: Vec<Workload>,
    /// Flows finished since the last sampling tick, handed to the sink with the packet log.
    pub(crate) log: Vec<FinishedFlow>,
    /// Flow ids from here on are workload slots (the flows that exist from the start come
    /// first); they are not sampled into the time series or listed in `flows[]`.
    pub(crate) first_slot: u32,
    /// The scenario, to build new slots' access links from (only when there are workloads).
    scenario: Option<Box<Scenario>>,
    /// A workload slot whose packet is reaching its endpoint now: checked for completion
    /// once the endpoint has handled it (`Simulation::forward`).
    pub(crate) arrived: Option<u32>,
}

impl Workloads {
    /// The scenario's workloads, with their first arrivals scheduled. `links` are the
    /// network's links (for the ideal FCT's delays and rates); `first_slot` the number of
    /// flows that exist from the start.
    pub(crate) fn new(
        scenario: &Scenario,
        links: &[Link],
        first_slot: u32,
        queue: &mut EventQueue,
    ) -> Self {
        let mut workloads = Workloads {
            groups: Vec::new(),
            log: Vec::new(),
            first_slot,
            scenario: None,
            arrived: None,
        };
        if scenario.flows.iter().all(|g| g.kind.workload().is_none()) {
            return workloads;
        }
        let core_routes = crate::topology::group_core_routes(scenario);
        let access = scenario.topology.access();
        let end = SimTime::ZERO + scenario.duration;
        for (group, config) in scenario.flows.iter().enumerate() {
            let Some(workload) = config.kind.workload() else {
                continue;
            };
            let core = core_routes[group].clone();
            let template = crate::topology::access_link_set(
                scenario,
                access,
                &format!("workload{group}"),
                config.extra_rtt,
            );
            // Sender up, the shared links, receiver down.
            let data_links = std::iter::once(&template[0].0)
                .chain(core.0.iter().map(|&l| &links[l as usize]))
                .chain(std::iter::once(&template[2].0));
            let (one_way, bottleneck_bps) = data_links
                .fold((SimDuration::ZERO, u64::MAX), |(delay, rate), link| {
                    (delay + link.delay(), rate.min(link.rate_bps()))
                });
            let index = workloads.groups.len() as u32;
            let mut w = Workload {
                group: group as u32,
                config: config.clone(),
                workload: workload.clone(),
                arrivals_rng: Rng::for_component(
                    scenario.seed,
                    &format!("workload{group}-arrivals"),
                ),
                sizes_rng: Rng::for_component(scenario.seed, &format!("workload{group}-sizes")),
                mean_gap_ns: 1e9 / workload.arrivals_per_second(),
                arrivals_until: workload.stop.map_or(end, |s| s.min(end)),
                core,
                one_way,
                bottleneck_bps,
                slots: Vec::new(),
                free: Vec::new(),
                arrivals: 0,
                finished: 0,
                offered_bytes: 0,
                finished_bytes: 0,
                late_packets: 0,
                buckets: vec![BucketStats::default(); BUCKET_UPPER_BYTES.len() + 1],
                folded_access: [false; 4],
            };
            // A Poisson process from `start`: the first arrival one exponential gap later.
            let first = config.start + w.next_gap();
            if first < w.arrivals_until {
                queue.schedule(first, Event::WorkloadArrival(index));
            }
            workloads.groups.push(w);
        }
        workloads.scenario = Some(Box::new(scenario.clone()));
        workloads
    }
}

impl Workloads {
    /// Hand the flows finished since the last call to `sink`. Out of line, to keep the
    /// event loop's code as it was without workloads.
    #[inline(never)]
    pub(crate) fn flush_log(&mut self, sink: &mut dyn crate::trace::TraceSink) {
        for finished in self.log.drain(..) {
            sink.finished_flow(&finished);
        }
    }
}

impl Workload {
    /// An exponential gap with mean 1 / λ (inverse transform), to the nanosecond.
    fn next_gap(&mut self) -> SimDuration {
        let gap = -self.mean_gap_ns * (1.0 - self.arrivals_rng.next_f64()).ln();
        SimDuration::from_nanos(gap.round().min(u64::MAX as f64 / 2.0) as u64)
    }

    /// The ideal FCT of `size` bytes: the data path's one-way propagation delay plus the
    /// transfer's wire bytes at the path's slowest link.
    fn ideal_fct(&self, size: u64) -> SimDuration {
        let segments = size.div_ceil(self.config.mss);
        let wire_bits = (size + segments * self.config.header_bytes) as u128 * 8;
        let serialization_ns = (wire_bits * 1_000_000_000).div_ceil(self.bottleneck_bps as u128);
        self.one_way + SimDuration::from_nanos(serialization_ns as u64)
    }
}

impl Simulation {
    /// A short flow of workload `index` arrives now: draw its size, start it in a free slot
    /// (or a new one), and schedule the next arrival. Out of line: the event loop's dispatch
    /// stays as small as it was without workloads.
    #[inline(never)]
    pub(crate) fn on_workload_arrival(&mut self, index: u32) {
        let now = self.now;
        let w = &mut self.workloads.groups[index as usize];
        let size = sizes::draw(&w.workload.sizes, &mut w.sizes_rng);
        let next = now + w.next_gap();
        if next < w.arrivals_until {
            self.queue.schedule(next, Event::WorkloadArrival(index));
        }
        let arrival = w.arrivals;
        w.arrivals += 1;
        w.offered_bytes += size;
        let slot = match w.free.pop() {
            Some(slot) => slot,
            None => self.new_workload_slot(index),
        };
        let w = &self.workloads.groups[index as usize];
        let id = w.slots[slot as usize];
        let flow = &mut self.flows[id as usize];
        debug_assert_eq!(flow.in_transit, 0, "a slot is reused only when empty");
        let nic_rate_bps =
            self.links[self.hops[flow.routes.data.start as usize] as usize].rate_bps();
        let (sender, receiver) =
            crate::tcp::connection::endpoints(&w.config, id, Some(size), Some(nic_rate_bps));
        // Fresh endpoints with fresh timers: events an earlier connection left in the queue
        // are ignored.
        flow.endpoints = crate::endpoints::Endpoints::running(sender, receiver);
        flow.start = now;
        flow.data_drops = 0;
        flow.ack_drops = 0;
        flow.arrived = 0;
        let incarnation = Incarnation {
            workload: index,
            arrival,
            size,
            slot,
            finished: false,
            released: false,
        };
        // The slot's box, reused from one connection to the next.
        match flow.incarnation.as_deref_mut() {
            Some(current) => *current = incarnation,
            None => flow.incarnation = Some(Box::new(incarnation)),
        }
        flow.handshake = crate::simulation::handshake_of(&w.config, now);
        if flow.handshake.is_some() {
            self.open_connection(id);
            return;
        }
        flow.endpoints.get().sender.start(now, &mut self.outbox);
        self.after_sender(id);
    }

    /// Add a slot to workload `index`: four access links and the routes over them, and a
    /// flow-table entry (its endpoints are set by the arrival). Returns its slot index.
    #[cold]
    #[inline(never)]
    fn new_workload_slot(&mut self, index: u32) -> u32 {
        let w = &self.workloads.groups[index as usize];
        let id = self.flows.len() as u32;
        let slot = w.slots.len();
        let prefix = format!("workload{}-slot{slot}", w.group);
        let (ids, routes) = self.add_slot_links(index, &prefix);
        let w = &mut self.workloads.groups[index as usize];
        for (&link, folded) in ids.iter().zip(w.folded_access) {
            let link = &mut self.links[link as usize];
            // Folded as the stand-in slots' links were when the topology was built
            // (`Simulation::fold_hops`): the same links on the same routes.
            link.folded = folded;
            // Lean (`Link::lean`, `Simulation::mark_lean_links`) if it can be: a slot's access
            // links are never reported and no `drop` list names them.
            let lean = link.can_be_lean();
            link.set_lean(lean);
        }
        let [sender_up, ..] = ids;
        w.slots.push(id);
        // Placeholder endpoints, replaced by the arrival that asked for the slot.
        let (sender, receiver) = crate::tcp::connection::endpoints(&w.config, id, Some(1), Some(1));
        self.flows.push(Flow {
            group: w.group,
            start: self.now,
            started: false,
            endpoints: crate::endpoints::Endpoints::running(sender, receiver),
            routes,
            drop_link: sender_up,
            drop: None,
            data_drops: 0,
            ack_drops: 0,
            arrived: 0,
            traced: false,
            at_window_start: None,
            udp: None,
            on_off: None,
            watched: true,
            in_transit: 0,
            incarnation: None,
            handshake: None,
            released: false,
        });
        slot as u32
    }

    /// Add the four access links of a slot of workload `index`, named after `prefix`, to the
    /// network, and the slot's routes over them: data from the sender's up link over the
    /// workload's shared links to the receiver's down link, ACKs from the receiver's up link
    /// back to the sender's down link. Returns the links' ids (sender up, sender down,
    /// receiver down, receiver up) and the routes.
    fn add_slot_links(&mut self, index: u32, prefix: &str) -> ([u32; 4], Routes) {
        let w = &self.workloads.groups[index as usize];
        let scenario = self
            .workloads
            .scenario
            .as_deref()
            .expect("a run with workloads keeps its scenario (Workloads::new)");
        let access = crate::topology::access_link_set(
            scenario,
            scenario.topology.access(),
            prefix,
            w.config.extra_rtt,
        );
        let mut ids = [0u32; 4];
        for (i, (link, role)) in access.into_iter().enumerate() {
            ids[i] = self.links.len() as u32;
            self.links.push(link);
            self.roles.push(role);
        }
        let [sender_up, sender_down, receiver_down, receiver_up] = ids;
        let mut add_path = |links: &[u32]| {
            let start = self.hops.len() as u32;
            self.hops.extend_from_slice(links);
            Path {
                start,
                len: links.len() as u32,
            }
        };
        let data: Vec<u32> = std::iter::once(sender_up)
            .chain(w.core.0.iter().copied())
            .chain(std::iter::once(receiver_down))
            .collect();
        let ack: Vec<u32> = std::iter::once(receiver_up)
            .chain(w.core.1.iter().copied())
            .chain(std::iter::once(sender_down))
            .collect();
        let routes = Routes {
            data: add_path(&data),
            ack: add_path(&ack),
        };
        (ids, routes)
    }

    /// Add two stand-in slots per workload to the network (links and paths, no flow-table
    /// entry), for the choice of the links to fold (`Simulation::fold_hops`): a slot's links
    /// are made as the run goes, but where its packets come from and go to is known when the
    /// topology is built. Two, so that a shared link entered from the slots' own links has
    /// several sources, as it has once a second connection is open at once. Their routes are
    /// pushed onto `routes`; returns each workload's stand-ins' link ids. The caller takes
    /// the links and paths out again.
    pub(crate) fn add_stand_in_slots(&mut self, routes: &mut Vec<Routes>) -> Vec<[[u32; 4]; 2]> {
        (0..self.workloads.groups.len() as u32)
            .map(|index| {
                [0, 1].map(|stand_in| {
                    let (ids, slot_routes) =
                        self.add_slot_links(index, &format!("workload-stand-in{stand_in}"));
                    routes.push(slot_routes);
                    ids
                })
            })
            .collect()
    }

    /// After the choice of the links to fold: each workload's slots fold the links its
    /// stand-ins (`add_stand_in_slots`) fold.
    pub(crate) fn adopt_stand_in_folds(&mut self, stand_ins: &[[[u32; 4]; 2]]) {
        for (w, [first, second]) in self.workloads.groups.iter_mut().zip(stand_ins) {
            let folded = first.map(|link| self.links[link as usize].folded);
            debug_assert_eq!(
                folded,
                second.map(|link| self.links[link as usize].folded),
                "two slots of one workload fold alike"
            );
            w.folded_access = folded;
        }
    }

    /// A packet of workload flow `id` left the network (delivered or dropped): record the
    /// flow if its receiver just completed, and free its slot once it is done and empty.
    ///
    /// Called for every packet of every slot (1.04 M times in `bench-workload-1gbps` at
    /// 10 s), nearly always mid-transfer, where there is nothing to do: that test comes
    /// first, in a function small enough to need no registers saved; the rest is out of
    /// line. As one function it cost 58 instructions a call, 15 of them its prologue and
    /// epilogue; split, 60.5 M instructions became 38.3 M (callgrind, docs/performance.md).
    #[inline(never)]
    pub(crate) fn on_workload_packet_gone(&mut self, id: u32) {
        let flow = &self.flows[id as usize];
        let mid_transfer = flow.incarnation.as_ref().is_some_and(|i| !i.finished);
        if mid_transfer && flow.completed_at().is_none() {
            return;
        }
        self.on_workload_packet_gone_after_completion(id);
    }

    /// [`Simulation::on_workload_packet_gone`] once the flow has completed (or for a flow
    /// that is not a workload's).
    #[cold]
    #[inline(never)]
    fn on_workload_packet_gone_after_completion(&mut self, id: u32) {
        let flow = &mut self.flows[id as usize];
        let completed_at = flow.completed_at();
        let Some(incarnation) = flow.incarnation.as_mut() else {
            return;
        };
        let w = &mut self.workloads.groups[incarnation.workload as usize];
        // Done before this packet left: it is a late one (its completion was recorded by
        // an earlier packet, and the sender had nothing left to send).
        if incarnation.finished
            && flow.endpoints.get_ref().sender.is_finished()
            && !incarnation.released
        {
            w.late_packets += 1;
        }
        if !incarnation.finished
            && let Some(done) = completed_at
        {
            incarnation.finished = true;
            let size = incarnation.size;
            let finished = FinishedFlow {
                group: w.group,
                id: incarnation.arrival,
                slot: incarnation.slot,
                size_bytes: size,
                start: flow.start,
                fct: done.saturating_since(flow.start),
                ideal_fct: w.ideal_fct(size),
                retransmissions: flow.endpoints.get_ref().sender.stats.retransmissions,
                timeouts: flow.endpoints.get_ref().sender.stats.timeouts,
            };
            w.finished += 1;
            w.finished_bytes += size;
            let bucket = &mut w.buckets[bucket_of(size)];
            bucket.fct.record(finished.fct.as_nanos());
            bucket
                .slowdown
                .record((finished.slowdown() * SLOWDOWN_SCALE).round() as u64);
            self.workloads.log.push(finished);
        }
        if incarnation.finished
            && !incarnation.released
            && flow.in_transit == 0
            && flow.endpoints.get_ref().sender.is_finished()
        {
            incarnation.released = true;
            w.free.push(incarnation.slot);
        }
    }

    /// The workloads' results at the end of the run (unfinished flows' delivered bytes
    /// included).
    pub(crate) fn workload_results(&self) -> Vec<WorkloadResult> {
        let first_slot = self.workloads.first_slot as usize;
        self.workloads
            .groups
            .iter()
            .enumerate()
            .map(|(index, w)| {
                // Bytes the receivers of the unfinished flows got so far.
                let partial: u64 = self.flows[first_slot..]
                    .iter()
                    .filter_map(|f| {
                        let inc = f.incarnation.as_deref()?;
                        (inc.workload as usize == index && !inc.finished)
                            .then(|| f.endpoints.get_ref().receiver.delivered())
                    })
                    .sum();
                WorkloadResult {
                    group: w.group,
                    cc: w.config.cc.name,
                    arrivals: w.arrivals,
                    finished: w.finished,
                    unfinished: w.arrivals - w.finished,
                    offered_bytes: w.offered_bytes,
                    delivered_bytes: w.finished_bytes + partial,
                    start: w.config.start,
                    arrivals_until: w.arrivals_until,
                    load_link: w.workload.load_link.clone(),
                    load_rate_bps: w.workload.load_rate_bps,
                    slots: w.slots.len() as u32,
                    late_packets: w.late_packets,
                    buckets: w.buckets.clone(),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_closed_above() {
        assert_eq!(bucket_of(1), 0);
        assert_eq!(bucket_of(10_000), 0);
        assert_eq!(bucket_of(10_001), 1);
        assert_eq!(bucket_of(100_000), 1);
        assert_eq!(bucket_of(1_000_000), 2);
        assert_eq!(bucket_of(1_000_001), 3);
    }
}
