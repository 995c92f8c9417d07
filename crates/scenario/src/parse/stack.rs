//! `stack = "linux" | "rfc"`: every default of the TCP model the way Linux 6.x has it, or
//! the way the standards-track RFCs do, so that a user chooses what to compare against with
//! one key. The stack fills in the keys the table does not give; a key the table gives wins.
//! Without `stack`, the model's own defaults (docs/scenarios.md) apply, as before. TCP Small
//! Queues stays on in both: it only changes where a window's packets wait at the sender (in
//! the socket rather than at its NIC), not when they leave it, and without it the model would
//! hold a whole window in the host's queue.
//!
//! | key | `linux` | `rfc` | why |
//! | --- | --- | --- | --- |
//! | `loss_detection` | `"rack-tlp"` (with SACK) | `"dupack"` | Linux: `tcp_recovery = 1` (RACK) and TLP on since 4.18/5.0; RFC 6675's rule |
//! | `limited_transmit` | true | true | Linux counts duplicates as SACKed (`tcp_add_reno_sack`); RFC 5681 §3.2 SHOULD use RFC 3042 |
//! | `lost_retransmission` | `"continue"` | `"reduce"` | Linux sends a lost retransmission again within the recovery under way (`tcp_fastretrans_alert`); RFC 5681 §4.3 reduces again |
//! | `reduce_from` | `"cwnd"` | `"flight"` | every Linux module's `ssthresh()` reads `snd_cwnd` (`tcp_reno_ssthresh`); RFC 5681 §3.1 and RFC 9438 §4.6 use the flight |
//! | `prr_bound` | `"safe_ack"` | `"ssrb"` | Linux's `tcp_cwnd_reduction` adds PRR's extra segment only on an ACK that advances `snd_una` with no new loss; RFC 6937 §3 on every ACK |
//! | `undo`, `frto` | true | false | Linux's `tcp_try_undo_*` and `tcp_frto = 2`; RFC 3708, 3522 and 5682 are Experimental |
//! | `quick_ack` | true | false | Linux's `tcp_incr_quickack`, and `tcp_grow_window`'s quick-ACK while the window grows; RFC 5681 §4.2 delays every ACK it may |
//! | `min_rto` | `"200ms"` | `"1s"` | Linux's `TCP_RTO_MIN`; RFC 6298 §2.4 |
//! | `rto_estimator` | `"linux"` | `"rfc6298"` | Linux's `tcp_rtt_estimator` (RTO = SRTT + a variation of at least `min_rto`); RFC 6298 §2 |
//! | `receive_window` | `"auto"` | as given | Linux's `tcp_rcv_space_adjust` (DRS); no RFC tunes it |
//! | `send_buffer` | `"auto"` | as given | Linux's `tcp_sndbuf_expand`: 2–3 windows of 2304 bytes per segment, up to `tcp_wmem[2]` (4 MiB); no RFC has one |
//! | `send_buffer_accounting` | `"truesize"` (with a buffer) | as given | Linux counts `sk_wmem_queued` in `skb->truesize` (832 bytes per skb above the payload) |
//! | `handshake` | finite flows and workloads | the same | both open and close connections; their FCT then counts from the SYN |
//!
//! `"linux"` also sets the Linux variant of the flow's controller where the kernel module
//! differs from the paper or RFC (CUBIC's HyStart and no-loss floor, BBR's `tcp_bbr.c`, ...:
//! parse/linux_controllers.rs).

use cclab_cc::registry::find_algorithm;
use toml::{Table, Value};

use super::linux_controllers;
use super::section::Section;
use crate::error::ScenarioError;

/// The stacks `stack` names.
const STACKS: &str = "\"linux\" or \"rfc\"";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stack {
    Linux,
    Rfc,
}

/// The flow table with the stack's defaults filled in, or `None` without `stack`.
pub(super) fn expand(section: &Section) -> Result<Option<Table>, ScenarioError> {
    let stack = match section.get("stack") {
        None => return Ok(None),
        Some(Value::String(s)) if s == "linux" => Stack::Linux,
        Some(Value::String(s)) if s == "rfc" => Stack::Rfc,
        Some(_) => return Err(section.invalid("stack", &format!("must be {STACKS}"))),
    };
    let mut table = section.table.clone();
    let mut default = |key: &str, value: Value| {
        table.entry(key.to_string()).or_insert(value);
    };
    let linux = stack == Stack::Linux;
    // RACK-TLP needs SACK (RFC 8985 §4): a table that asks for another recovery keeps
    // RFC 6675's rule rather than being refused for a combination it did not write.
    let sack = section
        .get("recovery")
        .is_none_or(|r| r.as_str() == Some("sack"));
    let loss_detection = if linux && sack { "rack-tlp" } else { "dupack" };
    default("loss_detection", Value::String(loss_detection.into()));
    default("limited_transmit", Value::Boolean(true));
    // Linux keeps the recovery under way when one of its retransmissions is lost
    // (`tcp_fastretrans_alert`, TCP_CA_Recovery); RFC 5681 §4.3 reduces again.
    default(
        "lost_retransmission",
        Value::String(if linux { "continue" } else { "reduce" }.into()),
    );
    // Linux's modules compute ssthresh from snd_cwnd; RFC 5681 and RFC 9438 from the flight.
    default(
        "reduce_from",
        Value::String(if linux { "cwnd" } else { "flight" }.into()),
    );
    // Linux's `tcp_cwnd_reduction` slow-starts towards ssthresh only on a "safe" ACK
    // (`FLAG_SND_UNA_ADVANCED && !newly_lost`); RFC 6937 §3's PRR-SSRB on every ACK.
    default(
        "prr_bound",
        Value::String(if linux { "safe_ack" } else { "ssrb" }.into()),
    );
    // Linux undoes spurious reductions (DSACK, timestamps) and runs F-RTO (`tcp_frto = 2`);
    // both are Experimental RFCs (3708, 3522, 5682), not the standards-track baseline.
    default("undo", Value::Boolean(linux));
    default("frto", Value::Boolean(linux));
    default("quick_ack", Value::Boolean(linux));
    default(
        "min_rto",
        Value::String(if linux { "200ms" } else { "1s" }.into()),
    );
    default(
        "rto_estimator",
        Value::String(if linux { "linux" } else { "rfc6298" }.into()),
    );
    if linux {
        default("receive_window", Value::String("auto".into()));
        // Linux's auto-tuned `sk_sndbuf` (`tcp_sndbuf_expand`, up to `tcp_wmem[2]`), which
        // counts `skb->truesize`.
        default("send_buffer", Value::String("auto".into()));
        if section.get("send_buffer").and_then(Value::as_str) != Some("unlimited") {
            default("send_buffer_accounting", Value::String("truesize".into()));
        }
    }
    // The handshake for what has a completion time to measure: finite flows and workloads
    // (an on/off application cannot take one yet; `connection.rs` says so).
    let finite = section
        .get("size")
        .is_some_and(|s| s.as_str() != Some("unlimited"));
    let workload = section.get("kind").and_then(Value::as_str) == Some("workload");
    if (finite || workload) && section.get("on_off").is_none() {
        default("handshake", Value::Boolean(true));
    }
    if linux
        && let Some(cc) = section.get("cc").and_then(Value::as_str)
        && let Ok(info) = find_algorithm(cc)
    {
        // An unknown name is left to `flow_group`, which refuses it with a suggestion.
        linux_controllers::fill_in(&mut table, info.name);
    }
    Ok(Some(table))
}

#[cfg(test)]
#[path = "stack_tests.rs"]
mod tests;
