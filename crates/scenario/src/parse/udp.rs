//! `kind = "udp"` flow keys: `rate`, `pattern` (with `on`, `off`, `periods`),
//! `packet_size`, and which of the other flow keys a UDP flow takes.

use toml::Value;

use super::on_off::periods;
use super::section::Section;
use crate::error::ScenarioError;
use crate::traffic::UdpConfig;
use crate::traffic::udp::{DEFAULT_PACKET_SIZE, UDP_HEADER_BYTES, UdpPattern};
use crate::units::parse_rate;

/// Keys only a UDP flow takes.
const OWN_KEYS: &[&str] = &["rate", "pattern", "on", "off", "periods", "packet_size"];

/// Keys a UDP flow shares with TCP flows: where and when it runs.
const SHARED_KEYS: &[&str] = &[
    "kind",
    "count",
    "start",
    "start_jitter",
    "extra_rtt",
    "direction",
    "route",
];

/// Check the keys of a flow table: a UDP flow takes its own keys and the shared ones, and a
/// TCP key on it (`cc`, `mss`, `recovery`…) is an error naming the key; a TCP flow must not
/// carry a UDP key. Other unknown keys are left to the caller's check of TCP keys.
pub(super) fn check_keys(section: &Section, is_udp: bool) -> Result<(), ScenarioError> {
    if !is_udp {
        if let Some(key) = OWN_KEYS.iter().find(|k| section.get(k).is_some()) {
            return Err(section.invalid(
                key,
                "a key of UDP flows; add kind = \"udp\" (a TCP flow's rate is its congestion \
                 control's)",
            ));
        }
        return Ok(());
    }
    for key in section.table.keys() {
        let key = key.as_str();
        if OWN_KEYS.contains(&key) || SHARED_KEYS.contains(&key) {
            continue;
        }
        let message = match key {
            "cc" | "params" => {
                "a UDP flow is unresponsive and has no congestion control; remove the key"
            }
            "on_off" => "a TCP application; a UDP source alternates with pattern = \"on-off\"",
            "size" => "a UDP source sends from `start` to the end of the run; remove the key",
            _ if super::is_flow_key(key) => "a TCP key, which a UDP flow does not take; remove it",
            _ => continue, // unknown everywhere: reported below with a suggestion
        };
        return Err(section.invalid(key, message));
    }
    let mut known = OWN_KEYS.to_vec();
    known.extend_from_slice(SHARED_KEYS);
    section.allow_only(&known)
}

pub(super) fn udp(section: &Section) -> Result<UdpConfig, ScenarioError> {
    let rate_bps = match section.get("rate") {
        None => {
            return Err(section.invalid(
                "rate",
                "missing; a UDP flow sends at a given rate, e.g. rate = \"30Mbps\"",
            ));
        }
        Some(Value::String(s)) => parse_rate(s).map_err(|m| section.invalid("rate", &m))?,
        Some(_) => return Err(section.invalid("rate", "must be a rate such as \"30Mbps\"")),
    };
    if rate_bps == 0 {
        return Err(section.invalid("rate", "must be above zero"));
    }
    let pattern_name = match section.get("pattern") {
        None => "cbr",
        Some(Value::String(s)) => s.as_str(),
        Some(_) => {
            return Err(section.invalid("pattern", "must be \"cbr\", \"poisson\" or \"on-off\""));
        }
    };
    let pattern = match pattern_name {
        "cbr" => UdpPattern::Cbr,
        "poisson" => UdpPattern::Poisson,
        "on-off" => UdpPattern::OnOff(periods(section, "an on-off UDP source")?),
        other => {
            return Err(section.invalid(
                "pattern",
                &format!("unknown pattern `{other}`; use \"cbr\", \"poisson\" or \"on-off\""),
            ));
        }
    };
    if !matches!(pattern, UdpPattern::OnOff(_))
        && let Some(key) = ["on", "off", "periods"]
            .into_iter()
            .find(|k| section.get(k).is_some())
    {
        return Err(section.invalid(key, "applies only to pattern = \"on-off\""));
    }
    let packet_size = section.integer_or(
        "packet_size",
        DEFAULT_PACKET_SIZE as i64,
        UDP_HEADER_BYTES as i64 + 1,
        65_535,
    )? as u32;
    Ok(UdpConfig {
        rate_bps,
        pattern,
        packet_size,
    })
}

#[cfg(test)]
#[path = "udp_tests.rs"]
mod tests;
