//! Topologies: what a network looks like, and the pure functions its builders share
//! (minimum-hop routing over a graph, max-min fair shares over routes). Each builder turns
//! its kind of scenario topology into a [`Network`] (links, reported links, every flow's
//! routes); the dumbbell is one builder among others.

pub mod dumbbell;
pub mod graph;
pub mod max_min;
pub mod parking_lot;
pub mod routing;

pub use max_min::max_min_shares;
pub use routing::shortest_path;

use cclab_cc::SimDuration;
use cclab_scenario::{
    Buffer, Link as LinkConfig, LinkKind, LossModel, Scenario, Topology, bdp_bytes,
};

use crate::net::jitter::JitterProcess;
use crate::net::link::Link;
use crate::net::loss::LossProcess;
use crate::net::network::{LinkRole, Network};
use crate::net::qdisc::{BufferLimit, Qdisc, QdiscEnv};
use crate::net::trace::TraceTransmitter;
use crate::rng::Rng;

/// Build the network of `scenario`.
pub fn build(scenario: &Scenario) -> Network {
    match &scenario.topology {
        Topology::Dumbbell(d) => dumbbell::build(scenario, d),
        Topology::ParkingLot(p) => parking_lot::build(scenario, p),
        Topology::Graph(g) => graph::build(scenario, g),
    }
}

/// A scenario buffer as a queue limit: packets or bytes, BDP multiples resolved.
pub(crate) fn buffer_limit(scenario: &Scenario, buffer: Buffer) -> BufferLimit {
    let (packets, bytes) = scenario.buffer_limit(buffer);
    BufferLimit { packets, bytes }
}

/// The delivery schedule of a trace link's direction (`reverse`: its `reverse_trace`);
/// `None` for other kinds, and for a reverse direction without its own trace (a wired link at
/// the trace's mean rate).
pub(crate) fn trace_transmitter(config: &LinkConfig, reverse: bool) -> Option<TraceTransmitter> {
    match &config.kind {
        LinkKind::Trace(trace) if reverse => trace.reverse.as_ref().map(TraceTransmitter::new),
        LinkKind::Trace(trace) => Some(TraceTransmitter::new(&trace.forward)),
        _ => None,
    }
}

/// A shared link of a parking lot or graph, reported in the outputs. Its BDP (for
/// `buffer = "Nbdp"`) is its rate × `rtt`, the base RTT of the longest route through it.
pub(crate) fn core_link(
    scenario: &Scenario,
    name: String,
    config: &LinkConfig,
    rtt: SimDuration,
) -> Link {
    let (packets, bytes) = scenario.buffer_limit_at(config.buffer, bdp_bytes(config.rate_bps, rtt));
    let limit = BufferLimit { packets, bytes };
    let qdisc = Qdisc::build(
        &config.queue,
        config.ecn_threshold,
        QdiscEnv {
            limit,
            rate_bps: config.rate_bps,
            packet_bytes: scenario.packet_bytes(),
            rng: Rng::for_component(scenario.seed, &format!("{name}-qdisc")),
        },
    );
    // Loss, ACK loss and jitter on streams named after the link, as on the dumbbell.
    let (data_loss, ack_loss) = LossProcess::for_link(scenario.seed, &name, config);
    let jitter = JitterProcess::for_link(scenario.seed, &name, config);
    Link::new(
        name,
        config.rate_bps,
        config.delay,
        limit,
        data_loss,
        ack_loss,
    )
    .track_queue_time()
    .with_qdisc(qdisc)
    .with_jitter(jitter)
}

/// Every flow of the scenario, in order, over its own access links and its routes through the
/// core: `routes[g]` is group g's (data links, ACK links), by link id.
pub(crate) fn add_routed_flows(
    network: &mut Network,
    scenario: &Scenario,
    access: &LinkConfig,
    routes: &[(Vec<usize>, Vec<usize>)],
) {
    let mut id = 0u32;
    // Reused for every flow: the network copies each path into its shared table.
    let (mut data, mut ack) = (Vec::new(), Vec::new());
    for (group, (data_core, ack_core)) in scenario.flows.iter().zip(routes) {
        for _ in 0..group.count {
            let [sender_up, sender_down, receiver_down, receiver_up] =
                access_links(network, scenario, access, id, group.extra_rtt);
            data.clear();
            data.push(sender_up);
            data.extend(data_core.iter().map(|&l| l as u32));
            data.push(receiver_down);
            ack.clear();
            ack.push(receiver_up);
            ack.extend(ack_core.iter().map(|&l| l as u32));
            ack.push(sender_down);
            network.add_flow(&data, &ack);
            id += 1;
        }
    }
}

/// A flow's four access links (sender up and down, receiver down and up), as the dumbbell
/// builds them; `extra_rtt` goes on the sender's, half each way. Returns their ids.
pub(crate) fn access_links(
    network: &mut Network,
    scenario: &Scenario,
    access: &LinkConfig,
    flow: u32,
    extra_rtt: SimDuration,
) -> [u32; 4] {
    access_link_set(scenario, access, &format!("flow{flow}"), extra_rtt)
        .map(|(link, role)| network.add_link(link, role))
}

/// The four access links of one flow (sender up and down, receiver down and up) named
/// "`prefix`-sender-up" and so on, with their roles; `extra_rtt` goes on the sender's, half
/// each way. Also what a workload adds when it needs a new flow slot during the run.
pub(crate) fn access_link_set(
    scenario: &Scenario,
    access: &LinkConfig,
    prefix: &str,
    extra_rtt: SimDuration,
) -> [(Link, LinkRole); 4] {
    let limit = buffer_limit(scenario, access.buffer);
    let extra_forward = SimDuration::from_nanos(extra_rtt.as_nanos().div_ceil(2));
    let extra_reverse = extra_rtt - extra_forward;
    let make = |name: &str, extra: SimDuration, role: LinkRole| {
        let no_loss = || LossProcess::new(LossModel::None, Rng::for_component(scenario.seed, ""));
        (
            access_link(
                || format!("{prefix}-{name}"),
                access.rate_bps,
                access.delay + extra,
                limit,
                no_loss,
            ),
            role,
        )
    };
    [
        make("sender-up", extra_forward, LinkRole::SenderAccess),
        make("sender-down", extra_reverse, LinkRole::SenderAccess),
        make("receiver-down", SimDuration::ZERO, LinkRole::ReceiverAccess),
        make("receiver-up", SimDuration::ZERO, LinkRole::ReceiverAccess),
    ]
}

/// A flow's access link named `name()`, which loses nothing: compact ([`Link::compact`]: no
/// name, queue or statistics) if its buffer is unlimited, as nothing is decided or observed
/// there; else in full, its queue able to overflow.
pub(crate) fn access_link(
    name: impl FnOnce() -> String,
    rate_bps: u64,
    delay: SimDuration,
    limit: BufferLimit,
    no_loss: impl Fn() -> LossProcess,
) -> Link {
    if limit.packets.is_none() && limit.bytes.is_none() {
        return Link::compact(rate_bps, delay);
    }
    Link::new(name(), rate_bps, delay, limit, no_loss(), no_loss())
}

/// Per flow group, the shared links its data and its ACKs cross, by link id, in travel
/// order: what a workload's flow slots are routed over (the builders give the flows that
/// exist from the start the same routes).
pub(crate) fn group_core_routes(scenario: &Scenario) -> Vec<(Vec<u32>, Vec<u32>)> {
    let routes = match &scenario.topology {
        Topology::Dumbbell(_) => {
            use dumbbell::{BOTTLENECK, BOTTLENECK_REVERSE};
            return scenario
                .flows
                .iter()
                .map(|g| match g.direction {
                    cclab_scenario::Direction::Forward => {
                        (vec![BOTTLENECK], vec![BOTTLENECK_REVERSE])
                    }
                    cclab_scenario::Direction::Reverse => {
                        (vec![BOTTLENECK_REVERSE], vec![BOTTLENECK])
                    }
                })
                .collect();
        }
        Topology::ParkingLot(p) => parking_lot::core_routes(scenario, p),
        Topology::Graph(g) => graph::core_routes(scenario, g),
    };
    // Both builders add the core links first, in the order of these indexes.
    routes
        .into_iter()
        .map(|(data, ack)| {
            let ids = |v: Vec<usize>| v.into_iter().map(|l| l as u32).collect();
            (ids(data), ids(ack))
        })
        .collect()
}

/// Per core link, the base RTT of the longest route through it (data or ACK direction):
/// `routes` gives each flow's core links both ways, `delays` each core link's delay, and
/// every route adds its two access links each way. A link no route crosses gets its own
/// round trip, 2 × its delay.
pub(crate) fn longest_rtts(
    delays: &[SimDuration],
    access_delay: SimDuration,
    routes: &[(Vec<usize>, Vec<usize>)],
) -> Vec<SimDuration> {
    let mut longest: Vec<SimDuration> = delays.iter().map(|&d| d * 2).collect();
    for (data, ack) in routes {
        let rtt = data
            .iter()
            .chain(ack)
            .fold(access_delay * 4, |t, &l| t + delays[l]);
        for &l in data.iter().chain(ack) {
            longest[l] = longest[l].max(rtt);
        }
    }
    longest
}
