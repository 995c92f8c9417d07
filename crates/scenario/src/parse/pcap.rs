//! `[output] pcap` and `pcap_payload`: which packets go to pcap files.

use cclab_cc::params::did_you_mean;
use toml::Value;

use super::section::Section;
use crate::error::ScenarioError;
use crate::model::{FlowGroup, PcapPoint, Topology};

/// At most this many flows may each get a pcap file (`pcap = ["flows"]`): each is an open
/// file with its own buffer while the run lasts.
pub const MAX_FLOW_CAPTURES: u64 = 1024;

pub fn pcap_points(
    section: &Section,
    topology: &Topology,
    flows: &[FlowGroup],
) -> Result<Vec<PcapPoint>, ScenarioError> {
    let expected = "must be a list of link names and/or \"flows\", e.g. [\"bottleneck\"]";
    let Some(value) = section.get("pcap") else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = value else {
        return Err(section.invalid("pcap", expected));
    };
    let names = topology.link_names();
    let mut points = Vec::new();
    for item in items {
        let Value::String(name) = item else {
            return Err(section.invalid("pcap", expected));
        };
        let point = if name == "flows" {
            let captured: u64 = flows
                .iter()
                .filter(|g| g.kind.workload().is_none())
                .map(|g| g.count as u64)
                .sum();
            if captured > MAX_FLOW_CAPTURES {
                return Err(section.invalid(
                    "pcap",
                    &format!(
                        "\"flows\" writes one file per flow, and there are {captured} (at most {MAX_FLOW_CAPTURES}); capture a link instead, e.g. [\"bottleneck\"]"
                    ),
                ));
            }
            PcapPoint::Flows
        } else if names.iter().any(|n| n == name) {
            PcapPoint::Link(name.clone())
        } else {
            let hint = did_you_mean(name, names.iter().map(String::as_str).chain(["flows"]))
                .map(|s| format!("; did you mean \"{s}\"?"))
                .unwrap_or_else(|| format!("; the links are {}", names.join(", ")));
            return Err(section.invalid("pcap", &format!("no link named \"{name}\"{hint}")));
        };
        if points.contains(&point) {
            return Err(section.invalid("pcap", &format!("\"{name}\" is listed twice")));
        }
        points.push(point);
    }
    Ok(points)
}

pub fn pcap_payload(section: &Section) -> Result<bool, ScenarioError> {
    match section.get("pcap_payload") {
        None => Ok(false),
        Some(Value::Boolean(b)) => Ok(*b),
        Some(_) => Err(section.invalid("pcap_payload", "must be true or false")),
    }
}
