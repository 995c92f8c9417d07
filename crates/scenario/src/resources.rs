//! How much memory a run will need, estimated before it starts, so that a scenario that
//! cannot fit is refused with one sentence instead of being killed after minutes of swapping.
//!
//! A run's memory is, to first order, a fixed cost per flow plus the per-flow throughput bins
//! (`[output] rate_interval`) that stability, convergence and `rates.csv` are computed from.
//! Everything else is either independent of the flow count (the bottleneck, the figures) or
//! streamed to disk (`timeseries.csv`, `queue.csv`, `packets.csv`, `rates.csv`,
//! `summary.json`). Packets in flight are not counted: they are bounded by the buffers and
//! the windows, a few megabytes for the documented topologies.

use crate::error::ScenarioError;
use crate::model::{Scenario, Topology};

/// Bytes one flow costs, whatever its controller: its sender, receiver and controller, its
/// four access links and their queues, its results and its summary. Measured (peak RSS of
/// `cclab run examples/dumbbell.toml --set flows.0.count=N --set duration=1s`, 1 000 vs
/// 11 000 flows) at 5.9 kB for Reno and 6.5 kB for BBRv3, the largest controller state;
/// rounded up.
pub const BYTES_PER_FLOW: u64 = 8_000;

/// Bytes per flow and shared link its route crosses beyond the first: a link id in its data
/// path and in its ACK path (4 B each) and a reported-link index in the run result's data
/// routes (4 B). A dumbbell flow's one shared link is inside [`BYTES_PER_FLOW`].
pub const BYTES_PER_EXTRA_HOP: u64 = 12;

/// Bytes per flow and rate bin: its goodput and throughput, two `f64`.
pub const BYTES_PER_RATE_BIN: u64 = 16;

/// Scenarios whose estimate exceeds this are refused: 8 GB (SI), a third of a workstation's
/// memory. 100 000 flows (the largest `count`) for the default 60 s with 100 ms bins need
/// 1.8 GB; the same for 1200 s need 20 GB, and fit in 2.7 GB with 1 s bins.
pub const MEMORY_LIMIT_BYTES: u64 = 8_000_000_000;

/// A run's estimated memory and what it is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEstimate {
    pub flows: u64,
    /// Rate bins over all flows.
    pub rate_bins: u64,
    /// Routes longer than the dumbbell's one shared link: [`BYTES_PER_EXTRA_HOP`] per flow
    /// and shared link beyond the first (0 on a dumbbell).
    pub route_bytes: u64,
    /// Flow slots the workloads are expected to need at once (each costs
    /// [`BYTES_PER_FLOW`]); see [`workload_slots`].
    pub workload_slots: u64,
    pub bytes: u64,
}

/// Slots a workload needs at most, estimated before the run, from its load ρ, arrival rate
/// λ (flows/s), the base RTT and the mean time to serialize a flow at the load link, and
/// its expected arrivals. Two regimes bound the flows open at once: short flows live a few
/// RTTs whatever the load (slow start), λ · (4 RTT + E[size] / rate) on average (Little's
/// law, as in an M/G/∞ queue); and flows sharing a link like an M/G/1 processor-sharing
/// queue number ρ / (1 − ρ) on average whatever the size distribution (Kleinrock,
/// *Queueing Systems* vol. 2, 1976, §4.4). Twice their sum plus 100 covers the peaks of a
/// long run (a slot is also held until its last packets have left the network); it never
/// exceeds the expected arrivals, which bound it at loads near 1.
pub fn workload_slots(
    load: f64,
    arrivals_per_second: f64,
    base_rtt_s: f64,
    mean_serialization_s: f64,
    expected_arrivals: f64,
) -> u64 {
    let processor_sharing = if load < 1.0 {
        load / (1.0 - load)
    } else {
        f64::INFINITY
    };
    let lifetimes = arrivals_per_second * (4.0 * base_rtt_s + mean_serialization_s);
    (2.0 * (lifetimes + processor_sharing) + 100.0)
        .ceil()
        .min(expected_arrivals.ceil())
        .max(1.0) as u64
}

impl Scenario {
    /// The memory a run of this scenario needs: [`BYTES_PER_FLOW`] per flow plus
    /// [`BYTES_PER_RATE_BIN`] per flow and rate bin, a flow having a bin per `rate_interval`
    /// from its start to the end (rounded up).
    pub fn memory_estimate(&self) -> MemoryEstimate {
        let width = self.output.rate_interval.as_nanos().max(1) as u128;
        let end = self.duration.as_nanos() as u128;
        let mut flows: u128 = 0;
        let mut rate_bins: u128 = 0;
        let mut extra_hops: u128 = 0;
        for group in &self.flows {
            let active = end.saturating_sub(group.start.as_nanos() as u128);
            flows += group.count as u128;
            rate_bins += group.count as u128 * active.div_ceil(width);
            // Shared links on the route: a parking lot's from..to; a graph's minimum-hop
            // path has at most nodes − 1 links (and at most as many as are listed).
            let shared = match (&self.topology, group.route) {
                (Topology::ParkingLot(_), Some((from, to))) => to - from,
                (Topology::Graph(g), _) => (g.nodes.len() - 1).min(g.links.len()),
                _ => 1,
            };
            extra_hops += group.count as u128 * shared.saturating_sub(1) as u128;
        }
        let route_bytes = extra_hops * BYTES_PER_EXTRA_HOP as u128;
        let end_time = cclab_cc::SimTime::ZERO + self.duration;
        let workload_slots: u128 = self
            .flows
            .iter()
            .filter_map(|g| {
                let w = g.kind.workload()?;
                let until = w.stop.map_or(end_time, |s| s.min(end_time));
                let span = until.saturating_since(g.start).as_secs_f64();
                let lambda = w.arrivals_per_second();
                let serialization_s = w.sizes.mean_bytes() * 8.0 / w.load_rate_bps as f64;
                Some(workload_slots(
                    w.load,
                    lambda,
                    self.base_rtt().as_secs_f64(),
                    serialization_s,
                    lambda * span,
                ) as u128)
            })
            .sum();
        let bytes = (flows + workload_slots) * BYTES_PER_FLOW as u128
            + rate_bins * BYTES_PER_RATE_BIN as u128
            + route_bytes;
        // Saturate: anything beyond 2^64 bytes is refused all the same.
        let clamp = |x: u128| u64::try_from(x).unwrap_or(u64::MAX);
        MemoryEstimate {
            flows: clamp(flows),
            rate_bins: clamp(rate_bins),
            route_bytes: clamp(route_bytes),
            workload_slots: clamp(workload_slots),
            bytes: clamp(bytes),
        }
    }
}

/// Bytes as SI gigabytes with one decimal, the unit of the limit.
fn gigabytes(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

/// Refuse a scenario whose [`Scenario::memory_estimate`] exceeds [`MEMORY_LIMIT_BYTES`],
/// naming the largest flow table's `count` (the usual culprit) and the sum behind the
/// estimate.
pub(crate) fn check_memory(scenario: &Scenario) -> Result<(), ScenarioError> {
    let estimate = scenario.memory_estimate();
    if estimate.bytes <= MEMORY_LIMIT_BYTES {
        return Ok(());
    }
    // A workload near load 1 keeps ever more flows open: name its `load`.
    if estimate.workload_slots.saturating_mul(BYTES_PER_FLOW) > estimate.bytes / 2 {
        let first = scenario
            .flows
            .iter()
            .position(|g| g.kind.workload().is_some())
            .unwrap_or(0);
        return Err(ScenarioError::Invalid {
            file: scenario.source.clone(),
            key: format!("flows.{first}.load"),
            message: format!(
                "the workloads would keep up to about {} flows open at once ({} B each), about {} \
                 of memory, more than the limit of {}; lower `load` (open flows grow without \
                 bound as it nears 1), stop arrivals earlier (`stop`) or shorten the run",
                estimate.workload_slots,
                BYTES_PER_FLOW,
                gigabytes(estimate.bytes),
                gigabytes(MEMORY_LIMIT_BYTES),
            ),
        });
    }
    let largest = (0..scenario.flows.len())
        .max_by_key(|&i| (scenario.flows[i].count, std::cmp::Reverse(i)))
        .unwrap_or(0);
    let bins_per_flow = estimate.rate_bins / estimate.flows.max(1);
    let routes = match estimate.route_bytes {
        0 => String::new(),
        bytes => format!(" + {bytes} B of routes"),
    };
    Err(ScenarioError::Invalid {
        file: scenario.source.clone(),
        key: format!("flows.{largest}.count"),
        message: format!(
            "{} flows for {} s with {} s rate bins need about {} of memory ({} flows × {} B + \
             {} rate bins × {} B{routes}, about {} bins per flow), more than the limit of {}; use \
             fewer flows, a shorter duration or a wider output.rate_interval",
            estimate.flows,
            scenario.duration.as_secs_f64(),
            scenario.output.rate_interval.as_secs_f64(),
            gigabytes(estimate.bytes),
            estimate.flows,
            BYTES_PER_FLOW,
            estimate.rate_bins,
            BYTES_PER_RATE_BIN,
            bins_per_flow,
            gigabytes(MEMORY_LIMIT_BYTES),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(extra: &str) -> Result<Scenario, ScenarioError> {
        crate::from_str(
            "big.toml",
            &format!(
                "[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\" }}\n[[flows]]\ncc = \"reno\"\ncount = 100000\n{extra}"
            ),
            &[],
        )
    }

    #[test]
    fn estimate_is_flows_times_bytes_plus_bins() {
        // Defaults: 60 s, 100 ms bins. By hand: 100 000 × 8000 B + 100 000 × 600 × 16 B
        // = 0.8 GB + 0.96 GB.
        let s = scenario("").unwrap();
        assert_eq!(
            s.memory_estimate(),
            MemoryEstimate {
                flows: 100_000,
                rate_bins: 60_000_000,
                route_bytes: 0,
                workload_slots: 0,
                bytes: 1_760_000_000,
            }
        );
        // A parking lot's long flows cross every hop: 100 000 flows × 3 hops beyond the
        // first × 12 B = 3.6 MB more than on a dumbbell.
        let s = crate::from_str(
            "p.toml",
            "[topology]\nkind = \"parking-lot\"\nhops = 4\nlink = { rate = \"10Mbps\", delay = \"10ms\" }\n[[flows]]\ncc = \"reno\"\ncount = 100000\n",
            &[],
        )
        .unwrap();
        let e = s.memory_estimate();
        assert_eq!(e.route_bytes, 3_600_000);
        assert_eq!(e.bytes, 1_760_000_000 + 3_600_000);
        // A second table starting at 45 s has bins for 15 s only: 2 × 150 more.
        let s = crate::from_str(
            "t.toml",
            "duration = \"60s\"\n[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n[[flows]]\ncc = \"reno\"\n[[flows]]\ncc = \"reno\"\ncount = 2\nstart = \"45s\"\n",
            &[],
        )
        .unwrap();
        let e = s.memory_estimate();
        assert_eq!((e.flows, e.rate_bins), (3, 600 + 2 * 150));
        assert_eq!(e.bytes, 3 * 8000 + 900 * 16);
    }

    #[test]
    fn scenarios_over_the_limit_are_refused_with_the_estimate() {
        // The example, plus one flow in a first table: 1200 s / 100 ms = 12 000 bins
        // per flow, 100 001 × 12 000 × 16 B = 19.2 GB of bins plus 100 001 × 8000 B = 0.8 GB.
        let big = |output: &str| {
            crate::from_str(
                "big.toml",
                &format!(
                    "duration = \"1200s\"\n[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\" }}\n[[flows]]\ncc = \"reno\"\n[[flows]]\ncc = \"cubic\"\ncount = 100000\n{output}"
                ),
                &[],
            )
        };
        let m = big("").unwrap_err().to_string();
        assert!(
            m.starts_with("big.toml: flows.1.count: 100001 flows for 1200 s with 0.1 s rate bins need about 20.0 GB of memory (100001 flows × 8000 B + 1200012000 rate bins × 16 B"),
            "{m}"
        );
        assert!(m.contains("more than the limit of 8.0 GB;"), "{m}");
        // With 1 s bins the same run fits: 100 001 × 1200 × 16 B + 100 001 × 8000 B.
        let fits = big("[output]\nrate_interval = \"1s\"\n").unwrap();
        assert_eq!(
            fits.memory_estimate().bytes,
            100_001 * 1200 * 16 + 100_001 * 8000
        );
    }
}
