//! `send_buffer`, `tcp_wmem` and `send_buffer_accounting` of a TCP flow table
//! (crates/scenario/src/send_buffer.rs).

use toml::Value;

use super::at_least_a_segment;
use super::connection::sysctl_sizes;
use super::section::Section;
use crate::error::ScenarioError;
use crate::send_buffer::{SendBuffer, SendBufferAccounting, SendBufferSize, TCP_WMEM_DEFAULT};

/// The flow's send buffer, `None` when unlimited (no key, or `"unlimited"`).
pub(super) fn send_buffer(
    section: &Section,
    mss: u64,
) -> Result<Option<SendBuffer>, ScenarioError> {
    let size = match section.get("send_buffer") {
        None => None,
        Some(Value::String(s)) if s == "unlimited" => None,
        Some(Value::String(s)) if s == "auto" => {
            let [_, initial, max] = sysctl_sizes(section, "tcp_wmem", "[4096, 16384, 4194304]")?
                .unwrap_or(TCP_WMEM_DEFAULT);
            if max < mss {
                return Err(section.invalid(
                    "tcp_wmem",
                    &format!("max must hold at least one segment ({mss} bytes)"),
                ));
            }
            Some(SendBufferSize::Auto { initial, max })
        }
        Some(Value::String(s)) => Some(SendBufferSize::Fixed(at_least_a_segment(
            section,
            "send_buffer",
            s,
            mss,
        )?)),
        Some(_) => {
            return Err(section.invalid(
                "send_buffer",
                "must be \"unlimited\", \"auto\" or bytes (\"4MiB\")",
            ));
        }
    };
    if section.get("tcp_wmem").is_some() && !matches!(size, Some(SendBufferSize::Auto { .. })) {
        return Err(section.invalid(
            "tcp_wmem",
            "sizes a send buffer that is tuned; add send_buffer = \"auto\" or remove the key",
        ));
    }
    let accounting = match section.get("send_buffer_accounting") {
        None => SendBufferAccounting::Payload,
        Some(_) if size.is_none() => {
            return Err(section.invalid(
                "send_buffer_accounting",
                "says what a send buffer counts, and this flow has none; add send_buffer or remove the key",
            ));
        }
        Some(Value::String(s)) if s == "payload" => SendBufferAccounting::Payload,
        Some(Value::String(s)) if s == "truesize" => SendBufferAccounting::Truesize,
        Some(_) => {
            return Err(section.invalid(
                "send_buffer_accounting",
                "must be \"payload\" or \"truesize\" (Linux's skb->truesize)",
            ));
        }
    };
    Ok(size.map(|size| SendBuffer { size, accounting }))
}

#[cfg(test)]
#[path = "send_buffer_tests.rs"]
mod tests;
