//! Connection keys of a TCP flow: `handshake`, `quick_ack`, `drop_syn`, and the `"auto"`
//! form of `receive_window` (the numeric forms stay in `flow_group`).

use toml::Value;

use super::section::Section;
use crate::connection::{ConnectionOptions, ScalingRatio, TcpRmem};
use crate::error::ScenarioError;
use crate::units::parse_bytes;

/// The largest `tcp_rmem` or `tcp_wmem` value: the sysctls are C ints (`proc_dointvec_minmax`).
const SYSCTL_INT_LIMIT: u64 = i32::MAX as u64;

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
    let receive_window_auto = receive_window_is_auto(section);
    let tcp_rmem = tcp_rmem(section)?;
    if section.get("tcp_rmem").is_some() && !receive_window_auto {
        return Err(section.invalid(
            "tcp_rmem",
            "sizes the buffer of a receiver that tunes its window; add receive_window = \"auto\" (or stack = \"linux\") or remove the key",
        ));
    }
    let scaling_ratio = match section.get("scaling_ratio") {
        None => ScalingRatio::default(),
        Some(_) if !receive_window_auto => {
            return Err(section.invalid(
                "scaling_ratio",
                "sets the window a tuned receive buffer allows; add receive_window = \"auto\" (or stack = \"linux\") or remove the key",
            ));
        }
        Some(Value::Integer(n)) if (1..=255).contains(n) => ScalingRatio(*n as u8),
        Some(_) => {
            return Err(section.invalid(
                "scaling_ratio",
                "must be an integer from 1 to 255: the receiving host's payload per 256 bytes of packet memory, as Linux's scaling_ratio (128 by default; 160 on a TUN device)",
            ));
        }
    };
    Ok(ConnectionOptions {
        handshake,
        quick_ack,
        receive_window_auto,
        drop_syn,
        tcp_rmem,
        scaling_ratio,
    })
}

/// `tcp_rmem = [min, default, max]`, bytes (integers, as `sysctl net.ipv4.tcp_rmem` prints
/// them, or sizes such as "32MiB").
fn tcp_rmem(section: &Section) -> Result<TcpRmem, ScenarioError> {
    Ok(
        match sysctl_sizes(section, "tcp_rmem", "[4096, 131072, 33554432]")? {
            Some([min, default, max]) => TcpRmem { min, default, max },
            None => TcpRmem::default(),
        },
    )
}

/// A buffer sysctl of three sizes, `key = [min, default, max]` in bytes (integers, as
/// `sysctl net.ipv4.tcp_rmem` or `tcp_wmem` prints them, or sizes such as "32MiB"), or
/// `None` without the key; `example` is the machine's value shown in the error message.
pub(super) fn sysctl_sizes(
    section: &Section,
    key: &str,
    example: &str,
) -> Result<Option<[u64; 3]>, ScenarioError> {
    let Some(value) = section.get(key) else {
        return Ok(None);
    };
    let form = format!(
        "must be three sizes [min, default, max] in bytes, as net.ipv4.{key}, e.g. {example}"
    );
    let Value::Array(values) = value else {
        return Err(section.invalid(key, &form));
    };
    let sizes = values
        .iter()
        .map(|v| match v {
            Value::Integer(b) if *b >= 1 => Ok(*b as u64),
            Value::String(s) => parse_bytes(s).map_err(|m| section.invalid(key, &m)),
            _ => Err(section.invalid(key, &form)),
        })
        .collect::<Result<Vec<u64>, _>>()?;
    let [min, default, max] = sizes[..] else {
        return Err(section.invalid(key, &form));
    };
    if !(1 <= min && min <= default && default <= max) {
        return Err(section.invalid(
            key,
            &format!("must grow from min to default to max, at least 1 byte each (got [{min}, {default}, {max}])"),
        ));
    }
    if max > SYSCTL_INT_LIMIT {
        return Err(section.invalid(
            key,
            &format!(
                "max {max} is above {SYSCTL_INT_LIMIT} bytes, the largest the sysctl (a C int) holds"
            ),
        ));
    }
    Ok(Some([min, default, max]))
}

#[cfg(test)]
#[path = "connection_tests.rs"]
pub(super) mod tests;
