//! A graph: the nodes and duplex links the scenario lists. Listed link e between nodes
//! (a, b) becomes two one-way links, "a-b" (id 2e) and "b-a" (id 2e + 1), both reported.
//! A flow's data takes the minimum-hop path from its `from` node to its `to` node
//! ([`shortest_path`], ties broken by edge order); its ACKs retrace it backwards. Every
//! flow has its own access links at both ends, as on a dumbbell.
//!
//! A `buffer = "Nbdp"` of a link is N × its rate × the base RTT of the longest route
//! through it (either direction).

use cclab_scenario::{Graph, Scenario};

use crate::net::network::{LinkRole, Network};
use crate::topology::{
    add_routed_flows, core_link, longest_rtts, shortest_path, trace_transmitter,
};

/// One-way link ids of a route from `from` over `edges` (listed-link indexes in travel
/// order), with the ids of the opposite directions in reverse order (the ACK path).
fn directed(graph: &Graph, from: usize, edges: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut at = from;
    let mut data = Vec::with_capacity(edges.len());
    for &e in edges {
        let (a, b) = graph.links[e].between;
        if at == a {
            data.push(2 * e);
            at = b;
        } else {
            data.push(2 * e + 1);
            at = a;
        }
    }
    let ack = data.iter().rev().map(|&l| l ^ 1).collect();
    (data, ack)
}

/// Each group's route in one-way link indexes (= link ids), data and ACKs.
pub(crate) fn core_routes(scenario: &Scenario, graph: &Graph) -> Vec<(Vec<usize>, Vec<usize>)> {
    let edges: Vec<(usize, usize)> = graph.links.iter().map(|l| l.between).collect();
    scenario
        .flows
        .iter()
        .map(|g| {
            let (from, to) = g
                .route
                .expect("graph flows have a route (checked by the scenario parser)");
            let path = shortest_path(graph.nodes.len(), &edges, from, to)
                .expect("every graph flow's ends are connected (checked by the scenario parser)");
            directed(graph, from, &path)
        })
        .collect()
}

pub fn build(scenario: &Scenario, graph: &Graph) -> Network {
    let edges: Vec<(usize, usize)> = graph.links.iter().map(|l| l.between).collect();
    let routes = core_routes(scenario, graph);
    let delays: Vec<_> = graph
        .links
        .iter()
        .flat_map(|l| [l.link.delay, l.link.delay])
        .collect();
    let rtts = longest_rtts(&delays, graph.access.delay, &routes);
    let flow_count = scenario.flow_count();
    let mut network = Network::with_capacity(2 * edges.len() + 4 * flow_count, flow_count, 0);
    for (e, l) in graph.links.iter().enumerate() {
        let (a, b) = (&graph.nodes[l.between.0], &graph.nodes[l.between.1]);
        // A trace link: "a-b" follows `trace`, "b-a" `reverse_trace`.
        for (name, rtt, reverse) in [
            (format!("{a}-{b}"), rtts[2 * e], false),
            (format!("{b}-{a}"), rtts[2 * e + 1], true),
        ] {
            let link = core_link(scenario, name, &l.link, rtt)
                .with_trace(trace_transmitter(&l.link, reverse));
            let id = network.add_link(link, LinkRole::Core);
            network.report(id);
        }
    }
    add_routed_flows(&mut network, scenario, &graph.access, &routes);
    network
}
