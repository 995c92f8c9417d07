//! Connection keys of a TCP flow: `handshake`, `quick_ack`, `drop_syn`, and the `"auto"`
//! form of `receive_window` (the numeric forms stay in `flow_group`).

use toml::Value;

use super::section::Section;
use crate::connection::ConnectionOptions;
use crate::error::ScenarioError;

/// `receive_window = "auto"`: the receiver tunes its window (`flow_group` then leaves the
/// sender's fixed cap off).
pub(super) fn receive_window_is_auto(section: &Section) -> bool {
    matches!(section.get("receive_window"), Some(Value::String(s)) if s == "auto")
}

/// The connection options of a TCP flow table. `on_off` says whether the flow runs an
/// on/off application.
pub(super) fn connection_options(
    section: &Section,
    on_off: bool,
) -> Result<ConnectionOptions, ScenarioError> {
    let flag = |key: &str| match section.get(key) {
        None => Ok(false),
        Some(Value::Boolean(b)) => Ok(*b),
        Some(_) => Err(section.invalid(key, "must be true or false")),
    };
    let handshake = flag("handshake")?;
    let quick_ack = flag("quick_ack")?;
    let drop_syn = match section.get("drop_syn") {
        None => 0,
        Some(Value::Integer(n)) if (0..=6).contains(n) => *n as u32,
        Some(_) => {
            return Err(section.invalid(
                "drop_syn",
                "must be the number of SYNs to lose, 0 to 6 (Linux's tcp_syn_retries)",
            ));
        }
    };
    if drop_syn > 0 && !handshake {
        return Err(section.invalid(
            "drop_syn",
            "drops SYNs, which only a flow with handshake = true sends; add it or remove the key",
        ));
    }
    if handshake && on_off {
        return Err(section.invalid(
            "handshake",
            "is not modelled for an on/off application yet; remove it or the on_off table",
        ));
    }
    Ok(ConnectionOptions {
        handshake,
        quick_ack,
        receive_window_auto: receive_window_is_auto(section),
        drop_syn,
    })
}

#[cfg(test)]
#[path = "connection_tests.rs"]
mod tests;
