//! TCB-sharing keys of a flow table (`group`, `sharing`, `join`, `priority` and the options
//! of docs/sharing.md), and the check that a group's members can share state.

use toml::Value;

use super::section::Section;
use crate::error::ScenarioError;
use crate::model::FlowGroup;
use crate::sharing::{
    JoinMode, JoinWindow, LeaveRule, PacketsPerAck, Sharing, SharingMode, TimeoutRule,
};
use crate::traffic::FlowKind;

/// The keys of this part; the flow parser allows them beside its own (`all_flow_keys`).
pub(super) const KEYS: &[&str] = &[
    "group",
    "sharing",
    "join",
    "priority",
    "scale_growth",
    "join_window",
    "leave",
    "group_timeout",
    "join_packets_per_ack",
    "join_first_segment",
    "temporal_lifetime",
];

/// Read a word key among `choices` (the first is the default when the key is absent).
fn word<T: Copy>(section: &Section, key: &str, choices: &[(&str, T)]) -> Result<T, ScenarioError> {
    let names = || {
        choices
            .iter()
            .map(|(n, _)| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match section.get(key) {
        None => Ok(choices[0].1),
        Some(Value::String(s)) => choices
            .iter()
            .find(|(n, _)| n == s)
            .map(|(_, v)| *v)
            .ok_or_else(|| section.invalid(key, &format!("unknown value `{s}`; use {}", names()))),
        Some(_) => Err(section.invalid(key, &format!("must be one of {}", names()))),
    }
}

fn boolean(section: &Section, key: &str, default: bool) -> Result<bool, ScenarioError> {
    match section.get(key) {
        None => Ok(default),
        Some(Value::Boolean(b)) => Ok(*b),
        Some(_) => Err(section.invalid(key, "must be true or false")),
    }
}

/// The flow table's sharing settings; `None` for `sharing = "none"` (the default). Without
/// `sharing`, no other key of this part may be given.
pub(super) fn sharing(section: &Section) -> Result<Option<Sharing>, ScenarioError> {
    let mode = word(
        section,
        "sharing",
        &[
            ("none", None),
            ("aggregate", Some(SharingMode::Aggregate)),
            ("temporal", Some(SharingMode::Temporal)),
        ],
    )?;
    let Some(mode) = mode else {
        // `sharing = "none"` written out turns sharing off and leaves the other keys unused,
        // so that one `--set flows.N.sharing="none"` compares a coupled run with an
        // uncoupled one; without `sharing` at all they are a mistake.
        if section.get("sharing").is_some() {
            return Ok(None);
        }
        if let Some(key) = KEYS[2..]
            .iter()
            .chain(&KEYS[..1])
            .find(|k| section.get(k).is_some())
        {
            return Err(section.invalid(
                key,
                "applies only to flows that share state; add sharing = \"aggregate\" or \"temporal\"",
            ));
        }
        return Ok(None);
    };
    let group = match section.get("group") {
        None => section.path.clone(),
        Some(Value::String(s)) if !s.is_empty() && s.len() <= 100 => s.clone(),
        Some(_) => return Err(section.invalid("group", "must be a name (1 to 100 characters)")),
    };
    let mut sharing = Sharing::new(group, mode);
    if mode == SharingMode::Temporal
        && let Some(key) = [
            "join",
            "priority",
            "scale_growth",
            "join_window",
            "leave",
            "group_timeout",
            "join_packets_per_ack",
            "join_first_segment",
        ]
        .into_iter()
        .find(|k| section.get(k).is_some())
    {
        return Err(section.invalid(
            key,
            "applies only to sharing = \"aggregate\" (temporal sharing couples no windows)",
        ));
    }
    if mode == SharingMode::Aggregate && section.get("temporal_lifetime").is_some() {
        return Err(section.invalid(
            "temporal_lifetime",
            "applies only to sharing = \"temporal\"",
        ));
    }
    sharing.join = word(
        section,
        "join",
        &[
            ("ack-clocked", JoinMode::AckClocked),
            ("burst", JoinMode::Burst),
            ("paced", JoinMode::Paced),
        ],
    )?;
    sharing.priority = section.integer_or("priority", 1, 1, 1_000_000)? as u32;
    sharing.scale_growth = boolean(section, "scale_growth", false)?;
    sharing.join_window = word(
        section,
        "join_window",
        &[
            ("share", JoinWindow::Share),
            ("add-initial", JoinWindow::AddInitial),
        ],
    )?;
    sharing.leave = word(
        section,
        "leave",
        &[("keep", LeaveRule::Keep), ("remove", LeaveRule::Remove)],
    )?;
    sharing.timeout = word(
        section,
        "group_timeout",
        &[
            ("proportional", TimeoutRule::Proportional),
            ("member", TimeoutRule::Member),
        ],
    )?;
    sharing.packets_per_ack = match section.get("join_packets_per_ack") {
        None => PacketsPerAck::Freed,
        Some(Value::String(s)) if s == "freed" => PacketsPerAck::Freed,
        Some(Value::Integer(n)) if (1..=1000).contains(n) => PacketsPerAck::AtMost(*n as u32),
        Some(_) => {
            return Err(section.invalid(
                "join_packets_per_ack",
                "must be \"freed\" or a number of segments from 1 to 1000",
            ));
        }
    };
    sharing.join_first_segment = boolean(section, "join_first_segment", true)?;
    if let Some(lifetime) = section.duration("temporal_lifetime")? {
        if lifetime.is_zero() {
            return Err(section.invalid("temporal_lifetime", "must be longer than zero"));
        }
        sharing.temporal_lifetime = lifetime;
    }
    Ok(Some(sharing))
}

/// Whether the members of every group can share state: TCP flows (RFC 9040 shares TCP
/// control blocks), one path ("any flows between the same pair of hosts may be grouped":
/// the same direction, route and extra RTT), one MSS (the shares are windows of one segment
/// size), one way of sharing, and controllers whose window can be assigned.
pub(super) fn check_groups(root: &Section, flows: &[FlowGroup]) -> Result<(), ScenarioError> {
    for (i, group) in flows.iter().enumerate() {
        let Some(sharing) = &group.sharing else {
            continue;
        };
        let key = format!("flows.{i}.sharing");
        match &group.kind {
            FlowKind::Tcp => {}
            FlowKind::Udp(_) => {
                return Err(root.invalid(
                    &key,
                    "a UDP flow has no TCP control block to share; remove the key",
                ));
            }
            FlowKind::Workload(_) => {
                return Err(root.invalid(
                    &key,
                    "a workload's short flows come and go in slots and cannot be grouped; group [[flows]] tables of kind \"tcp\"",
                ));
            }
        }
        if group.on_off.is_some() {
            return Err(root.invalid(
                &key,
                "an on/off application's flow would leave its group at its first idle period; remove on_off or the sharing keys",
            ));
        }
        if sharing.mode == SharingMode::Aggregate
            && !cclab_cc::registry::takes_assigned_window(group.cc)
        {
            return Err(root.invalid(
                &key,
                &format!(
                    "`{}` sets its window from its sending rate and cannot take a share of a coupled window; use sharing = \"temporal\" or another cc",
                    group.cc.name
                ),
            ));
        }
        // The first table of the same group, to compare with.
        let Some((j, first)) = flows
            .iter()
            .enumerate()
            .find(|(_, g)| g.sharing.as_ref().is_some_and(|s| s.group == sharing.group))
        else {
            continue;
        };
        if j == i {
            continue;
        }
        let first_sharing = first.sharing.as_ref().expect("found by its sharing");
        let name = &sharing.group;
        let differs = |what: &str| {
            root.invalid(
                &format!("flows.{i}.group"),
                &format!("group \"{name}\" joins flows.{j} and flows.{i}, which have different {what}; members of a group need the same"),
            )
        };
        if group.mss != first.mss {
            return Err(differs("mss"));
        }
        if group.direction != first.direction
            || group.route != first.route
            || group.extra_rtt != first.extra_rtt
        {
            return Err(differs(
                "paths (direction, route or extra_rtt): only flows between the same pair of hosts may be grouped",
            ));
        }
        let group_options = |s: &Sharing| {
            (
                s.mode,
                s.join,
                s.scale_growth,
                s.join_window,
                s.leave,
                s.timeout,
                s.packets_per_ack,
                s.join_first_segment,
                s.temporal_lifetime,
            )
        };
        if group_options(sharing) != group_options(first_sharing) {
            return Err(differs(
                "sharing options (sharing, join and the group's options; only priority may differ)",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "sharing_tests.rs"]
mod tests;
