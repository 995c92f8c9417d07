//! The controllers' own Linux choices that `stack = "linux"` fills in besides the TCP model's
//! keys (parse/stack.rs): where the kernel module a flow's `cc` names differs from the paper
//! or RFC the controller follows by default, its documented Linux variant, so that one key
//! makes a flow behave as the kernel's module does (docs/scenarios.md#stacks).
//!
//! | `cc` | fills in | Linux source |
//! | --- | --- | --- |
//! | `cubic` | `slow_start = "hystart"`, `params.linux_no_loss_floor = true` | `tcp_cubic.c`: `hystart = 1`; `bictcp_update` grows at least 5 % per RTT while no loss has set `last_max_cwnd` |
//! | `bbr` | `params.variant = "linux"` | `tcp_bbr.c` (gains 739/256 and 88/256, its rounding, `bbr_extra_acked`) |
//! | `bic` | `params.variant = "linux"`, `params.s_max = 16` | `tcp_bic.c` (`BICTCP_B` = 4, `smooth_part` = 20, `max_increment` = 16) |
//! | `vegas` | `params.variant = "linux"`, `params.alpha = 2`, `params.beta = 4` | `tcp_vegas.c` (`alpha` = 2, `beta` = 4) |
//! | `westwood` | `params.variant = "linux"` | `tcp_westwood.c` |
//! | `scalable` | `params.variant = "linux"` | `tcp_scalable.c` |
//!
//! As for the model's keys, what the table gives wins, key by key inside `params` too: a flow
//! with `params = { variant = "paper" }` keeps the paper's BBR, and one that names its own
//! `slow_start` or `slow_start_params` keeps that slow start. `stack = "rfc"` fills in
//! nothing here: every controller's default is its paper or RFC.

use toml::{Table, Value};

/// One setting: a top-level flow key, or a key of the flow's `params` table.
enum Setting {
    Flow(&'static str, Value),
    Param(&'static str, Value),
}

/// The Linux settings of the controller named `cc` (its canonical name), none for a
/// controller whose default already is the kernel's or that Linux does not have.
fn settings(cc: &str) -> Vec<Setting> {
    let variant = || Setting::Param("variant", Value::String("linux".into()));
    match cc {
        "cubic" => vec![
            Setting::Flow("slow_start", Value::String("hystart".into())),
            Setting::Param("linux_no_loss_floor", Value::Boolean(true)),
        ],
        "bbr" | "westwood" | "scalable" => vec![variant()],
        "bic" => vec![variant(), Setting::Param("s_max", Value::Integer(16))],
        "vegas" => vec![
            variant(),
            Setting::Param("alpha", Value::Integer(2)),
            Setting::Param("beta", Value::Integer(4)),
        ],
        _ => Vec::new(),
    }
}

/// Fill the Linux settings of `table`'s controller into it, keeping every key it gives.
/// `cc` is the controller's canonical name (aliases resolved by the caller). A `params` that
/// is not a table is left alone, for `flow_group` to refuse with its own sentence.
pub(super) fn fill_in(table: &mut Table, cc: &str) {
    for setting in settings(cc) {
        match setting {
            Setting::Flow(key, value) => {
                // A table that configures its slow start keeps it: `slow_start_params` alone
                // belongs to the standard slow start it names implicitly.
                if !table.contains_key("slow_start") && !table.contains_key("slow_start_params") {
                    table.insert(key.to_string(), value);
                }
            }
            Setting::Param(key, value) => {
                let params = table
                    .entry("params")
                    .or_insert_with(|| Value::Table(Table::new()));
                if let Value::Table(params) = params {
                    params.entry(key).or_insert(value);
                }
            }
        }
    }
}
