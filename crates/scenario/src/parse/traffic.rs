//! A flow group's `kind` (tcp, udp, workload) and the TCP `on_off` application.

use toml::Value;

use super::section::Section;
use super::{on_off, udp, workload};
use crate::error::ScenarioError;
use crate::model::{Direction, Topology};
use crate::traffic::{FlowKind, OnOff};

const KINDS: &str = "\"tcp\" (the default), \"udp\" or \"workload\"";

/// The flow kind with its own keys read and validated; `topology`, `direction` and `route`
/// (already read) resolve a workload's load link.
pub(super) fn flow_kind(
    section: &Section,
    topology: &Topology,
    direction: Direction,
    route: Option<(usize, usize)>,
) -> Result<FlowKind, ScenarioError> {
    match section.get("kind") {
        None => Ok(FlowKind::Tcp),
        Some(Value::String(s)) => match s.as_str() {
            "tcp" => Ok(FlowKind::Tcp),
            "udp" => udp::udp(section).map(FlowKind::Udp),
            "workload" => {
                workload::workload(section, topology, direction, route).map(FlowKind::Workload)
            }
            other => {
                Err(section.invalid("kind", &format!("unknown flow kind `{other}`; use {KINDS}")))
            }
        },
        Some(_) => Err(section.invalid("kind", &format!("must be a string: {KINDS}"))),
    }
}

/// Whether the flow table has `kind = "udp"` (its keys are checked before they are read).
pub(super) fn is_udp(section: &Section) -> Result<bool, ScenarioError> {
    match section.get("kind") {
        None => Ok(false),
        Some(Value::String(s)) => Ok(s == "udp"),
        Some(_) => Err(section.invalid("kind", &format!("must be a string: {KINDS}"))),
    }
}

/// `on_off`, if given.
pub(super) fn on_off(section: &Section) -> Result<Option<OnOff>, ScenarioError> {
    match section.get("on_off") {
        None => Ok(None),
        Some(_) => on_off::on_off(section).map(Some),
    }
}
