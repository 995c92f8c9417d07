//! Random small scenarios for property tests, written as scenario TOML so that every case
//! goes through the same parsing and validation as a user's file.
//!
//! Shared by `crates/sim/tests/properties.rs` and `crates/analysis/tests/properties.rs`
//! (included with `#[path]`); it uses only proptest, cclab-cc and cclab-scenario.

#![allow(dead_code)]

use std::fmt;

use cclab_cc::registry::{ALGORITHMS, SLOW_STARTS};
use proptest::prelude::*;

/// A generated scenario; `Debug` shows the TOML as written, so a failing case can be pasted
/// into a file and run with `cclab run`.
#[derive(Clone)]
pub struct RandomScenario {
    pub toml: String,
    /// Flows after `count` expansion.
    pub flows: usize,
}

impl fmt::Debug for RandomScenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{}", self.toml)
    }
}

#[derive(Clone, Copy, Debug)]
enum Buffer {
    Packets(u64),
    KiloBytes(u64),
    Bdp(f64),
}

#[derive(Clone, Debug)]
struct Group {
    cc: usize,
    slow_start: usize,
    count: u32,
    start_ms: u64,
    size: Option<u64>,
    recovery: &'static str,
    delayed_ack: bool,
    ecn: bool,
    pacing: bool,
    mss: u64,
    initial_window: u64,
    receive_window: Option<u64>,
    /// Data segments dropped once at the bottleneck (`drop`).
    drop: Vec<u64>,
}

fn group(duration_ms: u64) -> impl Strategy<Value = Group> {
    (
        (
            0..ALGORITHMS.len(),
            0..SLOW_STARTS.len(),
            1u32..=2,
            // Mostly at 0, sometimes later (before the end of the run).
            prop_oneof![Just(0u64), 0..duration_ms],
            // Finite transfers from one byte to a few hundred packets, or unlimited.
            prop_oneof![Just(None), (1u64..400_000).prop_map(Some)],
        ),
        (
            prop_oneof![Just("reno"), Just("newreno"), Just("sack")],
            any::<bool>(),
            any::<bool>(),
            prop_oneof![3 => Just(false), 1 => Just(true)],
            prop_oneof![Just(1448u64), Just(536), Just(100)],
            prop_oneof![Just(10u64), 1u64..=20],
            prop_oneof![3 => Just(None), 1 => (1u64..=64).prop_map(Some)],
        ),
        prop_oneof![3 => Just(Vec::new()), 1 => prop::collection::vec(0u64..60, 1..4)],
    )
        .prop_map(
            |(
                (cc, slow_start, count, start_ms, size),
                (recovery, delayed_ack, ecn, pacing, mss, initial_window, receive_window),
                drop,
            )| Group {
                cc,
                slow_start,
                count,
                start_ms,
                size,
                recovery,
                delayed_ack,
                ecn,
                pacing,
                mss,
                initial_window,
                receive_window,
                drop,
            },
        )
}

/// One to three `[[flows]]` tables of one or two flows each on a dumbbell of 0.5–20 Mbit/s,
/// 1–40 ms, for 0.2–1.5 s: a few hundred to a few thousand packets, cheap in debug builds.
pub fn random_scenario() -> impl Strategy<Value = RandomScenario> {
    (200u64..=1500)
        .prop_flat_map(|duration_ms| {
            (
                (
                    Just(duration_ms),
                    0u64..=i64::MAX as u64,
                    500u64..=20_000,
                    1u64..=40,
                    prop_oneof![Just(100u64), Just(1000)],
                    // Buffers in packets, bytes (at least one packet) or BDP multiples.
                    prop_oneof![
                        (1u64..=80).prop_map(Buffer::Packets),
                        (2u64..=100).prop_map(Buffer::KiloBytes),
                        prop_oneof![Just(0.25), Just(0.5), Just(1.0), Just(2.0)]
                            .prop_map(Buffer::Bdp),
                    ],
                ),
                (
                    prop_oneof![2 => Just(0.0), 1 => 0.0001f64..0.05],
                    prop_oneof![2 => Just(None), 1 => (1u64..=30).prop_map(Some)],
                    prop::collection::vec(group(duration_ms), 1..=3),
                    // The steady-state window: the whole run, a late part, or empty.
                    prop_oneof![2 => Just(0u64), 1 => 0..duration_ms + 100],
                    prop_oneof![Just(None), (1u64..=20).prop_map(|k| Some(10 * k))],
                ),
            )
        })
        .prop_map(
            |(
                (duration_ms, seed, rate_kbps, delay_ms, access_mbps, buffer),
                (loss, ecn, groups, steady_from_ms, rate_interval_ms),
            )| {
                // A BDP multiple under half a packet of the first flow is invalid: use 2 packets.
                let rtt_ms = 2 * (2 + delay_ms);
                let bdp_bytes = rate_kbps * rtt_ms / 8;
                let buffer = match buffer {
                    Buffer::Packets(p) => p.to_string(),
                    Buffer::KiloBytes(kb) => format!("\"{kb}KB\""),
                    Buffer::Bdp(m) if m * bdp_bytes as f64 >= (groups[0].mss + 52) as f64 => {
                        format!("\"{m}bdp\"")
                    }
                    Buffer::Bdp(_) => "2".to_string(),
                };
                let mut toml = format!(
                    "duration = \"{duration_ms}ms\"\nseed = {seed}\n\n[topology]\n\
                 bottleneck = {{ rate = \"{rate_kbps}kbps\", delay = \"{delay_ms}ms\", \
                 buffer = {buffer}, loss = {loss}"
                );
                if let Some(k) = ecn {
                    toml.push_str(&format!(", ecn_threshold = {k}"));
                }
                toml.push_str(&format!(
                    " }}\naccess = {{ rate = \"{access_mbps}Mbps\", delay = \"1ms\" }}\n"
                ));
                let mut flows = 0;
                for g in &groups {
                    let cc = ALGORITHMS[g.cc];
                    toml.push_str(&format!("\n[[flows]]\ncc = \"{}\"\n", cc.name));
                    if cc.uses_slow_start {
                        toml.push_str(&format!(
                            "slow_start = \"{}\"\n",
                            SLOW_STARTS[g.slow_start].name
                        ));
                    }
                    toml.push_str(&format!(
                        "count = {}\nstart = \"{}ms\"\nsize = {}\nrecovery = \"{}\"\n\
                     delayed_ack = {}\necn = {}\npacing = {}\nmss = {}\ninitial_window = {}\n",
                        g.count,
                        g.start_ms,
                        g.size
                            .map_or_else(|| "\"unlimited\"".to_string(), |s| s.to_string()),
                        g.recovery,
                        g.delayed_ack,
                        g.ecn,
                        g.pacing,
                        g.mss,
                        g.initial_window,
                    ));
                    if let Some(w) = g.receive_window {
                        toml.push_str(&format!("receive_window = {w}\n"));
                    }
                    if !g.drop.is_empty() {
                        toml.push_str(&format!("drop = {:?}\n", g.drop));
                    }
                    flows += g.count as usize;
                }
                // Every flow's packet events, for the checks that follow packets one by one.
                let ids: Vec<String> = (0..flows).map(|i| i.to_string()).collect();
                toml.push_str(&format!(
                    "\n[output]\ninterval = \"10ms\"\nsteady_from = \"{steady_from_ms}ms\"\n\
                 trace_packets = [{}]\n",
                    ids.join(", ")
                ));
                if let Some(ms) = rate_interval_ms {
                    toml.push_str(&format!("rate_interval = \"{ms}ms\"\n"));
                }
                RandomScenario { toml, flows }
            },
        )
}
