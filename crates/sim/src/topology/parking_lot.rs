//! The parking lot: `hops` links in a chain between nodes 0..=hops (the Common TCP
//! Evaluation Suite's multiple-bottleneck case; Floyd 1991's multiple congested gateways).
//! Hop i joins nodes i − 1 and i: "hopI" carries data towards node `hops`, "hopI-reverse"
//! carries ACKs back (same rate, delay, buffer and queue). A flow enters at node `from` and
//! leaves at node `to` through its own access links, crossing hops from + 1 ..= to.
//!
//! Reported links: hop1..hopN (the data direction). A `buffer = "Nbdp"` of a hop is N × its
//! rate × the base RTT of the longest route through it.

use cclab_scenario::{ParkingLot, Scenario};

use crate::net::network::{LinkRole, Network};
use crate::topology::{add_routed_flows, core_link, longest_rtts, trace_transmitter};

/// Each group's route in core-link indexes (= link ids): forward hops are 0..hops, their
/// reverse directions hops..2·hops.
pub(crate) fn core_routes(
    scenario: &Scenario,
    topology: &ParkingLot,
) -> Vec<(Vec<usize>, Vec<usize>)> {
    let hops = topology.hops.len();
    scenario
        .flows
        .iter()
        .map(|g| {
            let (from, to) = g.route.unwrap_or((0, hops));
            let data: Vec<usize> = (from..to).collect();
            let ack: Vec<usize> = (from..to).rev().map(|h| hops + h).collect();
            (data, ack)
        })
        .collect()
}

pub fn build(scenario: &Scenario, topology: &ParkingLot) -> Network {
    let hops = topology.hops.len();
    let flow_count = scenario.flow_count();
    let routes = core_routes(scenario, topology);
    let delays: Vec<_> = topology
        .hops
        .iter()
        .chain(&topology.hops)
        .map(|l| l.delay)
        .collect();
    let rtts = longest_rtts(&delays, topology.access.delay, &routes);
    let mut network = Network::with_capacity(2 * hops + 4 * flow_count, flow_count, 0);
    for (i, config) in topology.hops.iter().enumerate() {
        let id = network.add_link(
            core_link(scenario, format!("hop{}", i + 1), config, rtts[i])
                .with_trace(trace_transmitter(config, false)),
            LinkRole::Core,
        );
        network.report(id);
    }
    for (i, config) in topology.hops.iter().enumerate() {
        network.add_link(
            core_link(
                scenario,
                format!("hop{}-reverse", i + 1),
                config,
                rtts[hops + i],
            )
            .with_trace(trace_transmitter(config, true)),
            LinkRole::Core,
        );
    }
    add_routed_flows(&mut network, scenario, &topology.access, &routes);
    network
}
