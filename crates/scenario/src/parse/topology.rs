//! `[topology]` by `kind` (dumbbell, parking-lot, graph) and each flow's place in it
//! (`direction`, `route`). Link tables themselves are read by the shared `link` parser.

use toml::{Table, Value};

use super::section::Section;
use super::{default_access, link, path_preset};
use crate::error::ScenarioError;
use crate::link_kind::LinkKind;
use crate::model::*;

/// Most nodes a graph may have (a minimum-hop route crosses at most nodes − 1 links).
const MAX_GRAPH_NODES: usize = 250;

/// The topology kinds, for messages.
const KINDS: &str = "\"dumbbell\", \"parking-lot\" or \"graph\"";

pub(super) fn topology(section: &Section) -> Result<Topology, ScenarioError> {
    match section.get("kind") {
        None => dumbbell(section).map(Topology::Dumbbell),
        Some(Value::String(kind)) => match kind.as_str() {
            "dumbbell" => dumbbell(section).map(Topology::Dumbbell),
            "parking-lot" => parking_lot(section).map(Topology::ParkingLot),
            "graph" => graph(section).map(Topology::Graph),
            other => {
                Err(section.invalid("kind", &format!("unknown topology `{other}`; use {KINDS}")))
            }
        },
        Some(_) => Err(section.invalid("kind", &format!("must be a string: {KINDS}"))),
    }
}

/// `table` without `keys`, read as the same section (for link tables that carry a key the
/// link parser does not know, such as `reverse` or `between`).
fn without(table: &Table, keys: &[&str]) -> Table {
    let mut copy = table.clone();
    for key in keys {
        copy.remove(*key);
    }
    copy
}

fn dumbbell(section: &Section) -> Result<Dumbbell, ScenarioError> {
    section.allow_only(&["kind", "bottleneck", "access"])?;
    let bottleneck_section = section.section("bottleneck")?.ok_or_else(|| {
        section.invalid(
            "bottleneck",
            "missing; write e.g. bottleneck = { rate = \"100Mbps\", delay = \"30ms\" }",
        )
    })?;
    let forward_table = without(bottleneck_section.table, &["reverse"]);
    // A path preset's keys are the forward direction's, and the reverse's defaults.
    let forward_table = path_preset(&Section {
        file: section.file,
        path: bottleneck_section.path.clone(),
        table: &forward_table,
    })?
    .unwrap_or(forward_table);
    let forward = Section {
        file: section.file,
        path: bottleneck_section.path.clone(),
        table: &forward_table,
    };
    let bottleneck = link(&forward, None)?;
    if bottleneck.delay.is_zero() {
        return Err(bottleneck_section.invalid("delay", "must be longer than zero"));
    }
    let reverse = match bottleneck_section.section("reverse")? {
        None => None,
        // One medium carries both directions of a Wi-Fi link: the station's side has its own
        // queue and buffer only, and otherwise the forward table's keys.
        Some(reverse) if matches!(bottleneck.kind, LinkKind::Wifi(_)) => {
            reverse.allow_only(&["buffer", "queue"])?;
            let mut table = forward_table.clone();
            for (key, value) in reverse.table {
                table.insert(key.clone(), value.clone());
            }
            let filled = Section {
                file: section.file,
                path: reverse.path.clone(),
                table: &table,
            };
            Some(link(&filled, None)?)
        }
        Some(reverse) => {
            reverse.allow_only(&["rate", "delay", "buffer", "queue"])?;
            // Defaults: the forward direction's rate, delay and buffer (today's reverse link).
            let mut table = reverse.table.clone();
            for key in ["rate", "delay", "buffer"] {
                if let (None, Some(value)) = (table.get(key), forward_table.get(key)) {
                    table.insert(key.to_string(), value.clone());
                }
            }
            if let LinkKind::Trace(trace) = &bottleneck.kind {
                if trace.reverse.is_some() {
                    return Err(bottleneck_section.invalid(
                        "reverse",
                        "a trace bottleneck's reverse direction is either `reverse_trace` or a `reverse` table, not both",
                    ));
                }
                // A wired reverse direction defaults to the trace's mean rate.
                if table.get("rate").is_none() {
                    let rate = format!("{}bps", bottleneck.rate_bps);
                    table.insert("rate".into(), Value::String(rate));
                }
            }
            let filled = Section {
                file: section.file,
                path: reverse.path.clone(),
                table: &table,
            };
            Some(link(&filled, None)?)
        }
    };
    let access = match section.section("access")? {
        Some(access) => link(&access, Some(&bottleneck))?,
        None => default_access(&bottleneck),
    };
    Ok(Dumbbell {
        bottleneck,
        access,
        reverse,
    })
}

/// The Wi-Fi medium is one contention domain between the two ends of the dumbbell's
/// bottleneck; a chain or graph of media (several contention domains) is not modelled.
fn dumbbell_only(section: &Section, link: &Link) -> Result<(), ScenarioError> {
    if matches!(link.kind, LinkKind::Wifi(_)) {
        return Err(section.invalid(
            "kind",
            "Wi-Fi links are built for the dumbbell's bottleneck only; use a wired link here",
        ));
    }
    Ok(())
}

fn parking_lot(section: &Section) -> Result<ParkingLot, ScenarioError> {
    let hops = match section.get("hops") {
        Some(Value::Integer(h)) if (1..=64).contains(h) => *h as usize,
        Some(Value::Integer(_)) => {
            return Err(section.invalid("hops", "must be 1 to 64 links in the chain"));
        }
        Some(_) => return Err(section.invalid("hops", "must be an integer, e.g. hops = 3")),
        None => return Err(section.invalid("hops", "missing; write e.g. hops = 3")),
    };
    let mut known: Vec<String> = ["kind", "hops", "link", "access"]
        .iter()
        .map(|k| k.to_string())
        .collect();
    known.extend((1..=hops).map(|i| format!("hop{i}")));
    let known_refs: Vec<&str> = known.iter().map(String::as_str).collect();
    section.allow_only(&known_refs)?;
    let link_section = section.section("link")?.ok_or_else(|| {
        section.invalid(
            "link",
            "missing; write e.g. link = { rate = \"100Mbps\", delay = \"10ms\" }",
        )
    })?;
    let mut links = Vec::with_capacity(hops);
    for i in 1..=hops {
        // A per-hop table overrides the shared `link` keys it names.
        let table = match section.section(&format!("hop{i}"))? {
            None => link_section.table.clone(),
            Some(hop) => {
                let mut table = link_section.table.clone();
                for (key, value) in hop.table {
                    table.insert(key.clone(), value.clone());
                }
                table
            }
        };
        let path = if section.get(&format!("hop{i}")).is_some() {
            section.key_path(&format!("hop{i}"))
        } else {
            link_section.path.clone()
        };
        let hop = Section {
            file: section.file,
            path,
            table: &table,
        };
        let parsed = link(&hop, None)?;
        dumbbell_only(&hop, &parsed)?;
        if parsed.delay.is_zero() {
            return Err(hop.invalid("delay", "must be longer than zero"));
        }
        links.push(parsed);
    }
    let access = match section.section("access")? {
        Some(access) => link(&access, Some(&links[0]))?,
        None => default_access(&links[0]),
    };
    Ok(ParkingLot {
        hops: links,
        access,
    })
}

fn graph(section: &Section) -> Result<Graph, ScenarioError> {
    section.allow_only(&["kind", "nodes", "links", "access"])?;
    let nodes: Vec<String> = match section.get("nodes") {
        Some(Value::Array(items)) if items.len() >= 2 => items
            .iter()
            .map(|v| match v {
                Value::String(s) if !s.is_empty() => Ok(s.clone()),
                _ => Err(section.invalid("nodes", "must list node names (strings)")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(section.invalid(
                "nodes",
                "must list at least two node names, e.g. nodes = [\"a\", \"r1\", \"b\"]",
            ));
        }
        None => {
            return Err(section.invalid(
                "nodes",
                "missing; write e.g. nodes = [\"a\", \"r1\", \"b\"]",
            ));
        }
    };
    // A packet's position on its path is one byte: with its two access links, a route
    // must stay within 256 links.
    if nodes.len() > MAX_GRAPH_NODES {
        return Err(section.invalid(
            "nodes",
            &format!(
                "{} nodes; at most {MAX_GRAPH_NODES} are supported",
                nodes.len()
            ),
        ));
    }
    for (i, name) in nodes.iter().enumerate() {
        if nodes[..i].contains(name) {
            return Err(section.invalid("nodes", &format!("`{name}` is listed twice")));
        }
    }
    let node = |s: &Section, key: &str, v: &Value| -> Result<usize, ScenarioError> {
        match v {
            Value::String(name) => nodes.iter().position(|n| n == name).ok_or_else(|| {
                s.invalid(
                    key,
                    &format!("unknown node `{name}`; nodes are {}", nodes.join(", ")),
                )
            }),
            _ => Err(s.invalid(key, "must name nodes from `nodes`")),
        }
    };
    let items = match section.get("links") {
        Some(Value::Array(items)) if !items.is_empty() => items,
        _ => {
            return Err(section.invalid(
                "links",
                "must list links, e.g. links = [{ between = [\"a\", \"r1\"], rate = \"1Gbps\", delay = \"1ms\" }]",
            ));
        }
    };
    let mut links: Vec<GraphLink> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Value::Table(table) = item else {
            return Err(section.invalid(&format!("links.{i}"), "must be a table"));
        };
        let entry = Section {
            file: section.file,
            path: section.key_path(&format!("links.{i}")),
            table,
        };
        let between = match entry.get("between") {
            Some(Value::Array(pair)) if pair.len() == 2 => (
                node(&entry, "between", &pair[0])?,
                node(&entry, "between", &pair[1])?,
            ),
            _ => {
                return Err(entry.invalid(
                    "between",
                    "must name two nodes, e.g. between = [\"a\", \"r1\"]",
                ));
            }
        };
        if between.0 == between.1 {
            return Err(entry.invalid("between", "joins a node to itself"));
        }
        let (a, b) = between;
        if links
            .iter()
            .any(|l| l.between == (a, b) || l.between == (b, a))
        {
            return Err(entry.invalid(
                "between",
                &format!(
                    "a link between `{}` and `{}` is listed twice",
                    nodes[a], nodes[b]
                ),
            ));
        }
        let table = without(table, &["between"]);
        let parsed = link(
            &Section {
                file: section.file,
                path: entry.path.clone(),
                table: &table,
            },
            None,
        )?;
        dumbbell_only(&entry, &parsed)?;
        if parsed.delay.is_zero() {
            return Err(entry.invalid("delay", "must be longer than zero"));
        }
        links.push(GraphLink {
            between,
            link: parsed,
        });
    }
    let fastest = links
        .iter()
        .max_by_key(|l| l.link.rate_bps)
        .map(|l| l.link.clone())
        .expect("at least one link (checked above)");
    let access = match section.section("access")? {
        Some(access) => link(&access, Some(&fastest))?,
        None => default_access(&fastest),
    };
    Ok(Graph {
        nodes,
        links,
        access,
    })
}

/// A flow's `direction` and `route`, checked against the topology.
pub(super) fn flow_place(
    section: &Section,
    topology: &Topology,
) -> Result<(Direction, Option<(usize, usize)>), ScenarioError> {
    let direction = match section.get("direction") {
        None => Direction::Forward,
        Some(value) => {
            if !matches!(topology, Topology::Dumbbell(_)) {
                return Err(section.invalid(
                    "direction",
                    &format!(
                        "applies to a dumbbell only; on a {} give the flow a `route` instead",
                        topology.kind()
                    ),
                ));
            }
            match value {
                Value::String(s) if s == "forward" => Direction::Forward,
                Value::String(s) if s == "reverse" => Direction::Reverse,
                _ => {
                    return Err(section.invalid("direction", "must be \"forward\" or \"reverse\""));
                }
            }
        }
    };
    let route = section.section("route")?;
    let place = match topology {
        Topology::Dumbbell(_) => {
            if route.is_some() {
                return Err(section.invalid(
                    "route",
                    "a dumbbell has one path each way; use direction = \"reverse\" instead",
                ));
            }
            None
        }
        Topology::ParkingLot(p) => {
            let hops = p.hops.len();
            match route {
                None => Some((0, hops)),
                Some(route) => {
                    route.allow_only(&["from", "to"])?;
                    let end = |key: &str, default: usize| match route.get(key) {
                        None => Ok(default),
                        Some(Value::Integer(i)) if (0..=hops as i64).contains(i) => Ok(*i as usize),
                        Some(_) => Err(route.invalid(
                            key,
                            &format!("must be a node index from 0 to {hops} (hops = {hops})"),
                        )),
                    };
                    let (from, to) = (end("from", 0)?, end("to", hops)?);
                    if from >= to {
                        return Err(route.invalid(
                            "to",
                            &format!(
                                "must be past `from` ({from}): data flows from node 0 towards node {hops}"
                            ),
                        ));
                    }
                    Some((from, to))
                }
            }
        }
        Topology::Graph(g) => {
            let route = route.ok_or_else(|| {
                section.invalid(
                    "route",
                    "missing; a graph flow names its ends, e.g. route = { from = \"a\", to = \"c\" }",
                )
            })?;
            route.allow_only(&["from", "to"])?;
            let end = |key: &str| match route.get(key) {
                Some(Value::String(name)) => {
                    g.nodes.iter().position(|n| n == name).ok_or_else(|| {
                        route.invalid(
                            key,
                            &format!("unknown node `{name}`; nodes are {}", g.nodes.join(", ")),
                        )
                    })
                }
                Some(_) => Err(route.invalid(key, "must be a node name")),
                None => Err(route.invalid(key, "missing; name a node")),
            };
            let (from, to) = (end("from")?, end("to")?);
            if from == to {
                return Err(route.invalid("to", "is the same node as `from`"));
            }
            if !connected(g, from, to) {
                return Err(route.invalid(
                    "to",
                    &format!(
                        "no route between `{}` and `{}`: no chain of links joins them",
                        g.nodes[from], g.nodes[to]
                    ),
                ));
            }
            Some((from, to))
        }
    };
    Ok((direction, place))
}

/// Is there a chain of (duplex) links from `from` to `to`?
fn connected(graph: &Graph, from: usize, to: usize) -> bool {
    let mut seen = vec![false; graph.nodes.len()];
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(n) = stack.pop() {
        if n == to {
            return true;
        }
        for l in &graph.links {
            let (a, b) = l.between;
            let next = if a == n {
                b
            } else if b == n {
                a
            } else {
                continue;
            };
            if !seen[next] {
                seen[next] = true;
                stack.push(next);
            }
        }
    }
    false
}
