//! A plain flow's own access links exist only while it runs: they are made fresh when it
//! starts, and their ids go back to a pool when it is over, for the next flow that starts.
//! With 100 000 flows that mostly wait or are done, four compact links of 168 B per flow
//! (672 B) were the largest part of the run's memory at its end; now only the running flows
//! hold links (docs/performance.md, "Memory per idle flow").
//!
//! Nothing observable changes. A flow's own link (`Link::one_flow`, compact: no queue,
//! statistics or name, never reported) carries only that flow's packets, so before the flow
//! starts it is exactly as built, and once the flow's endpoints are folded (none of its
//! packets in the network, no timer armed: `crate::endpoints`) nothing reaches it again. The
//! link a flow gets is built as the topology built its own (`Link::compact` with its rate and
//! delay, and whether it is folded), under whatever id is free: ids name links in the event
//! queue and in the paths only, never in the events' order (`crate::event`) or the outputs.
//! Flows whose links something else watches keep theirs for the whole run: traced or
//! captured flows (their logs name links by id until the next tick), flows with a `drop`
//! list, runs with workloads (their slots add links as they run) or Wi-Fi (the medium holds
//! its links' ids).

use std::collections::HashMap;

use cclab_cc::SimDuration;

use crate::net::link::Link;
use crate::net::network::{LinkRole, Routes};
use crate::simulation::Simulation;

/// What a path holds in place of a link a flow does not have: it has not started, or it is
/// over. Any use is out of bounds, so a mistake cannot pass unseen.
pub(crate) const NO_LINK: u32 = u32::MAX;

/// One of a flow's own links as the topology built it, and where the flow's paths cross it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct OwnLink {
    rate_bps: u64,
    delay_ns: u64,
    folded: bool,
    role: LinkRole,
    /// On the ACK path (else on the data path), at this hop.
    on_ack_path: bool,
    hop: u32,
}

impl OwnLink {
    /// The link as the topology built it, before any packet.
    fn fresh(&self) -> Link {
        let mut link = Link::compact(self.rate_bps, SimDuration::from_nanos(self.delay_ns));
        link.folded = self.folded;
        link.one_flow = true;
        link
    }

    /// Its entry in `hops`.
    fn hop_index(&self, routes: Routes) -> usize {
        let path = if self.on_ack_path {
            routes.ack
        } else {
            routes.data
        };
        (path.start + self.hop) as usize
    }
}

/// The flows whose own links come and go, what those links are, and the ids free to take.
#[derive(Debug, Default)]
pub(crate) struct LinkPool {
    /// The distinct sets of own links (one per flow group in a dumbbell), each in path order.
    kits: Vec<Vec<OwnLink>>,
    /// Per flow: its set in `kits`, or [`NO_KIT`] for a flow that keeps its links (empty
    /// when no flow's links are pooled).
    flow_kits: Vec<u32>,
    /// Link ids that flows gave back, for the next flows that start.
    free: Vec<u32>,
}

const NO_KIT: u32 = u32::MAX;

impl LinkPool {
    fn kit_index(&self, flow: u32) -> Option<usize> {
        let kit = *self.flow_kits.get(flow as usize)?;
        (kit != NO_KIT).then_some(kit as usize)
    }

    fn kit(&self, flow: u32) -> Option<&[OwnLink]> {
        self.kit_index(flow).map(|kit| self.kits[kit].as_slice())
    }

    /// Does flow `flow` take its links from the pool?
    #[cfg(test)]
    pub(crate) fn is_pooled(&self, flow: u32) -> bool {
        self.kit(flow).is_some()
    }

    /// The rate of the first link of a pooled flow's data path (its NIC), whether or not it
    /// holds the link now; `None` if that link is not a pooled one.
    pub(crate) fn first_data_link_rate(&self, flow: u32) -> Option<u64> {
        self.kit(flow)?
            .iter()
            .find(|own| !own.on_ack_path && own.hop == 0)
            .map(|own| own.rate_bps)
    }

    /// Flow `flow` is over: its links' ids go back to the pool, and its paths no longer name
    /// them. The caller has made sure that none of its packets is on them.
    pub(crate) fn give_back(
        &mut self,
        flow: u32,
        routes: Routes,
        hops: &mut [u32],
        links: &[Link],
    ) {
        let Some(kit) = self.kit_index(flow) else {
            return;
        };
        for own in &self.kits[kit] {
            let link = std::mem::replace(&mut hops[own.hop_index(routes)], NO_LINK);
            debug_assert_eq!(links[link as usize].packets_in_transit(), 0);
            self.free.push(link);
        }
    }
}

/// Keep the entries of `items` (one per link) not marked in `pooled`, in order, in the same
/// allocation shrunk to fit.
fn keep_unpooled<T>(items: &mut Vec<T>, pooled: &[bool]) {
    let mut index = 0;
    items.retain(|_| {
        index += 1;
        !pooled[index - 1]
    });
    items.shrink_to_fit();
}

impl Simulation {
    /// Take the plain flows' own links out of the network, to be made when each flow starts
    /// (module docs). Only before the first event (links are renumbered, and events name
    /// links), and not in runs where something else holds link ids.
    pub(crate) fn pool_access_links(&mut self) {
        if self.events != 0
            || !self.pool_links
            || self.captures.is_some()
            || self.wifi.is_some()
            || !self.workloads.groups.is_empty()
        {
            return;
        }
        let mut kits: HashMap<Vec<OwnLink>, u32> = HashMap::new();
        let mut flow_kits = vec![NO_KIT; self.flows.len()];
        let mut pooled = vec![false; self.links.len()];
        let first_slot = self.workloads.first_slot as usize;
        for (id, flow) in self.flows[..first_slot].iter().enumerate() {
            if !flow.is_plain(self.sharing.as_deref(), id)
                || flow.watched
                || flow.drop.is_some()
                || !matches!(flow.endpoints, crate::endpoints::Endpoints::Pending)
            {
                continue;
            }
            let Some(own) = self.own_links(flow.routes) else {
                continue;
            };
            for own in &own {
                pooled[self.hops[own.hop_index(flow.routes)] as usize] = true;
            }
            let next = kits.len() as u32;
            flow_kits[id] = *kits.entry(own).or_insert(next);
        }
        if kits.is_empty() {
            return;
        }
        let mut ordered = vec![Vec::new(); kits.len()];
        for (kit, index) in kits {
            ordered[index as usize] = kit;
        }
        self.renumber_links_without(&pooled);
        self.link_pool = LinkPool {
            kits: ordered,
            flow_kits,
            free: Vec::new(),
        };
    }

    /// The own links of a flow whose `routes` these are, if it has any and each is on its
    /// paths once (a link a path crossed twice would need two entries rewritten).
    fn own_links(&self, routes: Routes) -> Option<Vec<OwnLink>> {
        let mut own = Vec::new();
        for (on_ack_path, path) in [(false, routes.data), (true, routes.ack)] {
            let hops = &self.hops[path.start as usize..][..path.len as usize];
            for (hop, &id) in hops.iter().enumerate() {
                let link = &self.links[id as usize];
                if !(link.one_flow && link.is_compact()) {
                    continue;
                }
                own.push(OwnLink {
                    rate_bps: link.rate_bps(),
                    delay_ns: link.delay().as_nanos(),
                    folded: link.folded,
                    role: self.roles[id as usize],
                    on_ack_path,
                    hop: hop as u32,
                });
            }
        }
        let mut ids: Vec<u32> = own.iter().map(|o| self.hops[o.hop_index(routes)]).collect();
        ids.sort_unstable();
        ids.dedup();
        (!own.is_empty() && ids.len() == own.len()).then_some(own)
    }

    /// Drop the links marked in `pooled` and number the others from 0 in their order; every
    /// path, the reported links and the flows' drop links follow (a pooled link's entries
    /// become [`NO_LINK`]).
    fn renumber_links_without(&mut self, pooled: &[bool]) {
        let mut new_id = vec![NO_LINK; pooled.len()];
        let mut next = 0u32;
        for (id, &pooled) in pooled.iter().enumerate() {
            if !pooled {
                new_id[id] = next;
                next += 1;
            }
        }
        // In place, and the room given back by shrinking: the vector is a mapping of its
        // own (every flow's four links, 67 MB at 100 000 flows), and glibc raises its mapping
        // threshold to the size of a mapping freed, after which the run's later large
        // allocations (the results, the summaries) would come from the heap and stay resident
        // (docs/performance.md, "Memory per idle flow").
        keep_unpooled(&mut self.links, pooled);
        keep_unpooled(&mut self.roles, pooled);
        let renumber = |id: &mut u32| *id = new_id[*id as usize];
        self.hops.iter_mut().for_each(renumber);
        self.reported.iter_mut().for_each(renumber);
        for flow in &mut self.flows {
            renumber(&mut flow.drop_link);
        }
    }

    /// Flow `id` starts: if it is pooled, it gets its own links, fresh, under free ids (or
    /// new ones).
    pub(crate) fn attach_pooled_links(&mut self, id: u32) {
        let Some(kit) = self.link_pool.kit_index(id) else {
            return;
        };
        let routes = self.flows[id as usize].routes;
        for own in &self.link_pool.kits[kit] {
            let link = match self.link_pool.free.pop() {
                Some(free) => {
                    self.links[free as usize] = own.fresh();
                    self.roles[free as usize] = own.role;
                    free
                }
                None => {
                    self.links.push(own.fresh());
                    self.roles.push(own.role);
                    self.links.len() as u32 - 1
                }
            };
            let hop = own.hop_index(routes);
            debug_assert_eq!(
                self.hops[hop], NO_LINK,
                "a pooled flow starts without links"
            );
            self.hops[hop] = link;
        }
    }
}

#[cfg(test)]
mod tests {
    use cclab_cc::{SimDuration, SimTime};

    use crate::result::RunResult;
    use crate::simulation::{Simulation, run_text};
    use crate::trace::{MemorySink, NullSink};

    use super::NO_LINK;

    /// Short flows that come and go (their starts spread over most of the run, so that later
    /// ones take the links earlier ones gave back), in two groups whose access links differ
    /// (`extra_rtt`), one of them sending from the right; a long flow that runs to the end,
    /// and a traced one that keeps its links; loss at the bottleneck, so that some flows
    /// retransmit and time out.
    const COMINGS_AND_GOINGS: &str = r#"
        duration = "3s"
        seed = 7
        [topology]
        bottleneck = { rate = "20Mbps", delay = "5ms", buffer = 30, loss = 0.01 }
        access = { rate = "100Mbps", delay = "1ms" }
        [[flows]]
        cc = "newreno"
        count = 40
        size = "30KB"
        start_jitter = "2500ms"
        [[flows]]
        cc = "cubic"
        count = 30
        size = "5KB"
        extra_rtt = "20ms"
        direction = "reverse"
        start = "100ms"
        start_jitter = "2400ms"
        [[flows]]
        cc = "cubic"
        [output]
        interval = "50ms"
        trace_packets = [3]
    "#;

    /// `COMINGS_AND_GOINGS` run with `configure` must give the reference run's result and
    /// everything it streamed. Traced packets are compared without their link ids: the
    /// traced flow keeps its links under new ids when the others' are pooled, and outputs
    /// name a drop's link by its role (`drop_location`), never by id.
    fn assert_same_run(
        configure: impl FnOnce(&mut Simulation),
        reference: (RunResult, MemorySink),
    ) {
        let (result, sink) = run_text(COMINGS_AND_GOINGS, configure);
        let (reference, reference_sink) = reference;
        assert_eq!(result, reference);
        assert_eq!(sink.flows, reference_sink.flows);
        assert_eq!(sink.links, reference_sink.links);
        let without_ids = |sink: &MemorySink| -> Vec<_> {
            let mut packets = sink.packets.clone();
            packets.iter_mut().for_each(|p| p.link = 0);
            packets
        };
        assert_eq!(without_ids(&sink), without_ids(&reference_sink));
        assert_eq!(sink.events, reference_sink.events);
        assert!(!reference_sink.packets.is_empty(), "flow 3 is traced");
        let done = reference.flows.iter().filter(|f| f.completed_at.is_some());
        assert!(done.count() > 60, "most short flows end within the run");
        assert!(reference.flows.iter().any(|f| f.retransmissions > 0));
    }

    #[test]
    fn pooled_access_links_change_nothing() {
        // The reference is the run in which every flow keeps its four links from the start.
        let kept = run_text(COMINGS_AND_GOINGS, |s| s.pool_links = false);
        assert_same_run(|_| {}, kept);
    }

    #[test]
    fn only_running_flows_hold_links_and_later_flows_reuse_them() {
        let scenario = cclab_scenario::from_str("test.toml", COMINGS_AND_GOINGS, &[])
            .expect("the test scenario is valid");
        let mut simulation = Simulation::new(&scenario);
        let flows = simulation.flows.len();
        assert_eq!(simulation.links.len(), 2 + 4 * flows);
        simulation.pool_access_links();
        // The bottleneck's two directions stay, and the traced flow's four links; the long
        // flow's and the short flows' are made when each starts.
        assert_eq!(simulation.links.len(), 2 + 4);
        assert!(simulation.link_pool.is_pooled(0) && !simulation.link_pool.is_pooled(3));
        let most_running = |simulation: &mut Simulation, until_ms: u64| {
            let until = SimTime::ZERO + SimDuration::from_millis(until_ms);
            let mut most = 0;
            while simulation.queue.peek_time().is_some_and(|t| t <= until) {
                let (time, event) = simulation.queue.pop().expect("peeked");
                simulation.now = time;
                simulation.events += 1;
                simulation
                    .dispatch(event, &mut NullSink)
                    .expect("invariants hold");
                let holding = (0..flows as u32)
                    .filter(|&id| {
                        let routes = simulation.flows[id as usize].routes;
                        simulation.hops[routes.data.start as usize] != NO_LINK
                    })
                    .count();
                most = most.max(holding);
            }
            most
        };
        let most = most_running(&mut simulation, 2_900);
        // Every flow but the traced one holds links only while it runs: the links are the
        // kept six and four per flow at the busiest moment, fewer than one set per flow.
        assert_eq!(simulation.links.len(), 2 + 4 * most);
        assert!(most < flows / 2, "{most} of {flows} flows at once");
        // A flow that is over holds none, and its ids are free for the next.
        let over = (0..flows as u32)
            .filter(|&id| simulation.flows[id as usize].released && id != 3)
            .count();
        assert!(over > 50, "{over} flows over");
        assert_eq!(simulation.link_pool.free.len() % 4, 0);
    }
}
