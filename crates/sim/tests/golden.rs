//! Golden trajectories: every controller on three short canned scenarios, reduced to a
//! per-RTT digest (window, threshold, bytes in flight, delivered, retransmissions, mode, and
//! the bottleneck's queue and drops) and compared line for line with the reviewed files in
//! `tests/golden/<scenario>/<controller>.txt`.
//!
//! These files are not evidence that a controller is right (the source-derived tests are);
//! they catch *unintended* change: a refactor that was meant to keep behaviour but did not.
//! After an intended change, re-bless with
//!
//! ```sh
//! CCLAB_BLESS=1 cargo test -p cclab-sim --test golden
//! ```
//!
//! and commit the new files with a message that says why the behaviour changed.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use cclab_cc::registry::ALGORITHMS;
use cclab_sim::{MemorySink, RunResult};
use common::{run_scenario, scenario};

/// One canned scenario: a name (the folder of its golden files) and its TOML, with `CC`
/// standing for the controller.
struct Canned {
    name: &'static str,
    toml: &'static str,
}

/// Base RTT of every canned scenario: 2 × (1 ms + 18 ms + 1 ms) = 40 ms, the sampling
/// interval, so each digest line is one round trip.
const CANNED: &[Canned] = &[
    // One flow against a quarter-BDP drop-tail buffer: slow-start overshoot, then
    // recurring loss episodes. 10 Mbit/s × 40 ms = 50 kB, a buffer of 8 packets.
    Canned {
        name: "small-buffer",
        toml: r#"
duration = "3s"
seed = 1
[topology]
bottleneck = { rate = "10Mbps", delay = "18ms", buffer = "0.25bdp" }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "CC"
[output]
interval = "40ms"
"#,
    },
    // Two flows sharing a 1-BDP buffer, the second joining after 1 s with a finite transfer.
    Canned {
        name: "two-flows",
        toml: r#"
duration = "3s"
seed = 1
[topology]
bottleneck = { rate = "10Mbps", delay = "18ms", buffer = "1bdp" }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "CC"
[[flows]]
cc = "CC"
start = "1s"
size = "600KB"
[output]
interval = "40ms"
"#,
    },
    // One flow with 1% random loss, NewReno recovery, ACK every segment.
    Canned {
        name: "random-loss",
        toml: r#"
duration = "3s"
seed = 7
[topology]
bottleneck = { rate = "10Mbps", delay = "18ms", buffer = "1bdp", loss = 0.01 }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
cc = "CC"
recovery = "newreno"
delayed_ack = false
[output]
interval = "40ms"
"#,
    },
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn blessing() -> bool {
    std::env::var_os("CCLAB_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The digest of one run: a header, one line per flow and sampling tick, then the totals.
fn digest(canned: &Canned, cc: &str, result: &RunResult, sink: &MemorySink) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# golden trajectory: {cc} on {}", canned.name);
    let _ = writeln!(
        out,
        "# t_ms flow cwnd ssthresh inflight delivered retrans mode | queue_pkts drops"
    );
    // The simulator samples every flow, then the bottleneck, at each tick.
    let mut links = sink.links.iter().peekable();
    for sample in &sink.flows {
        while links.peek().is_some_and(|l| l.0 < sample.time) {
            links.next();
        }
        let (queue, drops) = links
            .peek()
            .filter(|l| l.0 == sample.time)
            .map_or((0, 0), |l| (l.2, l.4));
        let ssthresh = sample
            .ssthresh_bytes
            .map_or_else(|| "-".to_string(), |s| s.to_string());
        let _ = writeln!(
            out,
            "{} {} {} {} {} {} {} {} | {} {}",
            sample.time.as_nanos() / 1_000_000,
            sample.flow,
            sample.cwnd_bytes,
            ssthresh,
            sample.inflight_bytes,
            sample.delivered_bytes,
            sample.retransmissions,
            sample.mode,
            queue,
            drops,
        );
    }
    for f in &result.flows {
        let completed = f
            .completed_at
            .map_or_else(|| "-".to_string(), |t| t.as_nanos().to_string());
        let _ = writeln!(
            out,
            "# flow {}: sent {} retrans {} timeouts {} fast_recoveries {} drops {} delivered {} completed_ns {}",
            f.id,
            f.packets_sent,
            f.retransmissions,
            f.timeouts,
            f.fast_recoveries,
            f.drops,
            f.delivered_bytes,
            completed,
        );
    }
    // Not the event count: it follows the simulator's bookkeeping, not the behaviour.
    out
}

/// Where two texts first differ: (line number from 1, expected line, actual line).
fn first_difference(expected: &str, actual: &str) -> Option<(usize, String, String)> {
    let mut e = expected.lines();
    let mut a = actual.lines();
    for n in 1.. {
        match (e.next(), a.next()) {
            (None, None) => return None,
            (x, y) if x == y => continue,
            (x, y) => {
                let show = |l: Option<&str>| l.map_or("<end of file>".to_string(), str::to_string);
                return Some((n, show(x), show(y)));
            }
        }
    }
    None
}

/// Run every controller on `canned`; compare with (or, when blessing, write) the golden files.
fn check_scenario(canned: &Canned) {
    let dir = golden_dir().join(canned.name);
    let bless = blessing();
    if bless {
        std::fs::create_dir_all(&dir).expect("create golden folder");
    }
    let mut failures = Vec::new();
    for info in ALGORITHMS {
        let text = canned.toml.replace("\"CC\"", &format!("\"{}\"", info.name));
        let (result, sink) = run_scenario(&scenario(&text));
        let actual = digest(canned, info.name, &result, &sink);
        let path = dir.join(format!("{}.txt", info.name));
        if bless {
            std::fs::write(&path, &actual).expect("write golden file");
            continue;
        }
        let shown = path
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap_or(&path);
        match std::fs::read_to_string(&path) {
            Err(e) => failures.push(format!("{}: cannot read ({e})", shown.display())),
            Ok(expected) => {
                if let Some((line, want, got)) = first_difference(&expected, &actual) {
                    failures.push(format!(
                        "{}: first difference at line {line}\n  golden: {want}\n  now:    {got}",
                        shown.display()
                    ));
                }
            }
        }
    }
    // A golden file without a controller is stale (a controller was renamed or removed).
    if !bless && let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let known = name
                .strip_suffix(".txt")
                .is_some_and(|cc| ALGORITHMS.iter().any(|i| i.name == cc));
            if !known {
                failures.push(format!(
                    "tests/golden/{}/{name}: no controller of that name",
                    canned.name
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "golden trajectories of `{}` changed:\n{}\n\n\
         If the change is intended, re-bless with\n    \
         CCLAB_BLESS=1 cargo test -p cclab-sim --test golden\n\
         review the diff of crates/sim/tests/golden/, and commit it with a message that says \
         why the behaviour changed. If it is not intended, it is a regression.",
        canned.name,
        failures.join("\n")
    );
}

#[test]
fn golden_small_buffer() {
    check_scenario(&CANNED[0]);
}

#[test]
fn golden_two_flows() {
    check_scenario(&CANNED[1]);
}

#[test]
fn golden_random_loss() {
    check_scenario(&CANNED[2]);
}

#[test]
fn first_difference_names_the_line() {
    assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
    assert_eq!(
        first_difference("a\nb\nc\n", "a\nx\nc\n"),
        Some((2, "b".into(), "x".into()))
    );
    assert_eq!(
        first_difference("a\n", "a\nb\n"),
        Some((2, "<end of file>".into(), "b".into()))
    );
}
