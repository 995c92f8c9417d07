//! `start_jitter`: each flow starts at a seeded uniform offset after `start`, so replicates
//! with different seeds differ (ns-2 users add start-time jitter for the same reason), while
//! the default (no jitter) leaves starts, and so every output, exactly as written.

mod common;

use cclab_cc::{SimDuration, SimTime};
use common::run;

fn text(seed: u64, jitter: &str) -> String {
    format!(
        r#"
duration = "2s"
seed = {seed}
[topology]
bottleneck = {{ rate = "10Mbps", delay = "10ms" }}
[[flows]]
cc = "reno"
count = 20
start = "0.5s"
start_jitter = "{jitter}"
"#
    )
}

fn starts(seed: u64, jitter: &str) -> Vec<SimTime> {
    let (result, _) = run(&text(seed, jitter));
    result.flows.iter().map(|f| f.start).collect()
}

#[test]
fn starts_fall_in_the_jitter_window_and_follow_the_seed() {
    let start = SimTime::ZERO + SimDuration::from_millis(500);
    let jitter = SimDuration::from_millis(100);
    let a = starts(1, "100ms");
    // Every start in [start, start + jitter).
    assert!(a.iter().all(|&s| s >= start && s < start + jitter), "{a:?}");
    // 20 draws from 10^8 ns: two equal ones would be a broken stream, not chance.
    let mut distinct = a.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 20, "{a:?}");
    // Same seed, same starts; another seed, other starts.
    assert_eq!(a, starts(1, "100ms"));
    assert_ne!(a, starts(2, "100ms"));
}

#[test]
fn no_jitter_starts_exactly_at_start_whatever_the_seed() {
    let start = SimTime::ZERO + SimDuration::from_millis(500);
    for seed in [1, 2] {
        assert!(starts(seed, "0s").iter().all(|&s| s == start));
    }
    // Without jitter the seed drives nothing here (no random loss): two seeds, one run.
    let (a, _) = run(&text(1, "0s"));
    let (b, _) = run(&text(2, "0s"));
    let acked =
        |r: &cclab_sim::RunResult| r.flows.iter().map(|f| f.bytes_acked).collect::<Vec<_>>();
    assert_eq!(acked(&a), acked(&b));
}
