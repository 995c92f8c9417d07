//! Scenario and sweep files from arbitrary text: parse, apply `--set` overrides, validate,
//! and for sweeps plan the runs. Every outcome must be a value or a `ScenarioError`; a panic,
//! a hang or an allocation past the fuzzer's limits is a bug.
//!
//! Comment lines `#set KEY=VALUE` in the input are applied as `--set` overrides, in order,
//! as `cclab run/check/sweep --set` does.

#![no_main]

use cclab_scenario::sweep::Seeds;
use cclab_scenario::{Sweep, apply_override, parse_table};
use libfuzzer_sys::fuzz_target;

/// Sweeps with more runs than this are not planned: planning is linear in the run count,
/// and a limit on it belongs to the sweep loader, not to the fuzzer.
const MAX_RUNS: u64 = 64;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let overrides: Vec<String> = text
        .lines()
        .filter_map(|line| line.strip_prefix("#set "))
        .map(str::to_string)
        .collect();

    // As a scenario: what `cclab run` and `cclab check` do.
    if let Err(e) = cclab_scenario::from_str("fuzz.toml", text, &overrides) {
        let _ = e.to_string();
    }

    // As a sweep: what `cclab sweep` and `cclab check` do with a sweep file.
    let Ok(mut table) = parse_table("fuzz.toml", text) else {
        return;
    };
    for assignment in &overrides {
        if apply_override(&mut table, assignment).is_err() {
            return;
        }
    }
    match Sweep::from_table("fuzz.toml", table) {
        Ok(sweep) => {
            let _ = sweep.fingerprint();
            // The grid's size, counted here with overflow in mind.
            let replicates = match &sweep.seeds {
                Seeds::Count(n) => *n,
                Seeds::List(list) => list.len() as u64,
            };
            let count = sweep.axes.iter().try_fold(replicates, |n, axis| {
                n.checked_mul(axis.values.len() as u64)
            });
            if count.is_some_and(|n| n <= MAX_RUNS) {
                match sweep.expand() {
                    Ok(runs) => assert_eq!(Some(runs.len() as u64), count, "planned runs"),
                    Err(e) => {
                        let _ = e.to_string();
                    }
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
