//! The order a sweep's runs start in, and the workers that run them.
//!
//! Runs are started longest first (Graham's LPT rule: R. L. Graham, "Bounds on
//! multiprocessing timing anomalies", SIAM J. Appl. Math. 17(2), 1969): with `m` workers the
//! last run to finish then starts no later than any other, so the idle time at the end is at
//! most about one short run instead of one long one. A run's length is not known before it
//! runs; [`work_estimate`] is the bits its fastest link could carry, which orders the runs of
//! a grid by rate and duration (what mostly sets their cost: the simulator's work is per
//! packet). The order changes when a run starts, never what it computes: every run is built
//! from its own index and seed.

use std::sync::atomic::{AtomicUsize, Ordering};

use cclab_scenario::{FlowKind, Scenario};

/// A run's estimated work: the bits its fastest link could carry over the run (rate ×
/// duration), or, when every flow is a TCP transfer of a given size, the bits of those
/// transfers if fewer (such a run ends when they finish).
pub fn work_estimate(scenario: &Scenario) -> u128 {
    let capacity = u128::from(scenario.topology.fastest_rate_bps())
        * scenario.duration.as_nanos() as u128
        / 1_000_000_000;
    let sized: Option<u128> = scenario
        .flows
        .iter()
        .map(|g| match (&g.kind, g.size, &g.on_off) {
            (FlowKind::Tcp, Some(size), None) => Some(u128::from(g.count) * u128::from(size) * 8),
            _ => None,
        })
        .sum();
    sized.map_or(capacity, |bits| bits.min(capacity))
}

/// Indices of `work` in the order to start them: the largest first, equal ones in their
/// given order (so a sweep of equal runs starts them in plan order, as before).
pub fn longest_first(work: &[u128]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..work.len()).collect();
    // A stable sort keeps equal estimates in their given order.
    order.sort_by(|&a, &b| work[b].cmp(&work[a]));
    order
}

/// Call `job` for each of `jobs` (in that order of starting) on `threads` workers: each
/// worker takes the next job not yet taken when it is free. A panic in a job ends the
/// worker and is raised again here when the others have finished.
pub fn run_in_order<T: Sync>(jobs: &[T], threads: usize, job: impl Fn(&T) + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = jobs.get(i) else { break };
                    job(item);
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn scenario(text: &str) -> Scenario {
        cclab_scenario::from_str("test.toml", text, &[]).expect("a valid scenario")
    }

    #[test]
    fn work_is_rate_times_duration_or_the_transfers_when_smaller() {
        let dumbbell = |rate: &str, duration: &str, flows: &str| {
            scenario(&format!(
                "name = \"a\"\nduration = \"{duration}\"\n[topology]\n\
                 bottleneck = {{ rate = \"{rate}\", delay = \"10ms\", buffer = \"1bdp\" }}\n\
                 access = {{ rate = \"10Gbps\", delay = \"0.25ms\" }}\n{flows}"
            ))
        };
        let bulk = dumbbell("1Gbps", "1200s", "[[flows]]\ncc = \"cubic\"\n");
        // The dumbbell's fastest link is its bottleneck (access links are each flow's own).
        assert_eq!(work_estimate(&bulk), 1_000_000_000 * 1200);
        let sized = dumbbell(
            "900Mbps",
            "300s",
            "[[flows]]\ncc = \"cubic\"\nsize = \"2GB\"\ncount = 2\n",
        );
        assert_eq!(work_estimate(&sized), 2 * 2_000_000_000 * 8);
        let mixed = dumbbell(
            "10Mbps",
            "1s",
            "[[flows]]\ncc = \"cubic\"\nsize = \"2GB\"\n[[flows]]\ncc = \"reno\"\n",
        );
        // A flow without a size runs to the end: rate × duration.
        assert_eq!(work_estimate(&mixed), 10_000_000);
    }

    #[test]
    fn the_largest_starts_first_and_ties_keep_their_order() {
        assert_eq!(longest_first(&[5, 9, 5, 1, 9]), vec![1, 4, 0, 2, 3]);
        assert_eq!(longest_first(&[]), Vec::<usize>::new());
    }

    #[test]
    fn every_job_runs_once_and_one_worker_takes_them_in_order() {
        let jobs: Vec<usize> = (0..100).collect();
        let seen = Mutex::new(Vec::new());
        run_in_order(&jobs, 1, |&j| seen.lock().unwrap().push(j));
        assert_eq!(seen.into_inner().unwrap(), jobs);
        let seen = Mutex::new(Vec::new());
        run_in_order(&jobs, 4, |&j| seen.lock().unwrap().push(j));
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, jobs);
    }
}
