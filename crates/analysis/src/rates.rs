//! Per-flow rates over time, binned from the time-series samples: the data behind
//! `rates.csv`, the throughput figure, stability and convergence time.
//!
//! Bins are the intervals `(k·Δ, (k+1)·Δ]` of width Δ = `[output] rate_interval` that lie
//! wholly after the flow's start. Δ is a whole multiple of the sampling interval, so every
//! bin boundary is a sampling tick and each bin's bytes are exact differences of the
//! cumulative counters, not estimates.

use std::io;
use std::path::Path;

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::Scenario;
use cclab_sim::{FlowSample, LinkSample, TraceSink, UdpSample};

use crate::metrics::{RateBin, rate_bps};
use crate::output::write_atomic_with;

pub const RATES_COLUMNS: &[&str] = &["time_s", "flow", "goodput_bps", "throughput_bps"];

/// One flow's binned rates: consecutive bins from `first`, two numbers per bin (memory grows
/// with the run's length only by 16 bytes per flow and bin).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowRates {
    /// Start of the first bin.
    pub first: SimTime,
    /// Bytes delivered to the application per bin, as bit/s.
    pub goodput_bps: Vec<f64>,
    /// Payload bytes put on the wire (retransmissions included) per bin, as bit/s.
    pub throughput_bps: Vec<f64>,
}

impl FlowRates {
    fn bins(&self, width: SimDuration, rates: &[f64]) -> Vec<RateBin> {
        rates
            .iter()
            .enumerate()
            .map(|(i, &rate_bps)| {
                let start = self.first + width * i as u64;
                RateBin {
                    start,
                    end: start + width,
                    rate_bps,
                }
            })
            .collect()
    }

    pub fn goodput_bins(&self, width: SimDuration) -> Vec<RateBin> {
        self.bins(width, &self.goodput_bps)
    }

    pub fn throughput_bins(&self, width: SimDuration) -> Vec<RateBin> {
        self.bins(width, &self.throughput_bps)
    }
}

/// Collects [`FlowRates`] for every flow from the samples of a run (a [`TraceSink`]).
#[derive(Clone, Debug)]
pub struct RateSeries {
    pub width: SimDuration,
    pub flows: Vec<FlowRates>,
    /// Per flow: the last bin boundary seen and the counters then (delivered, sent).
    anchors: Vec<Option<(SimTime, u64, u64)>>,
}

impl RateSeries {
    /// Bins of `width` for flows starting at `starts`.
    pub fn new(width: SimDuration, starts: &[SimTime]) -> Self {
        assert!(!width.is_zero(), "rate bins need a positive width");
        let anchors = starts
            .iter()
            // A flow starting on a boundary has zero counters there; otherwise its first
            // boundary is the first tick on a boundary after the start.
            .map(|&s| {
                s.as_nanos()
                    .is_multiple_of(width.as_nanos())
                    .then_some((s, 0, 0))
            })
            .collect();
        RateSeries {
            width,
            flows: vec![FlowRates::default(); starts.len()],
            anchors,
        }
    }

    pub fn for_scenario(scenario: &Scenario) -> Self {
        let starts: Vec<SimTime> = scenario
            .flows
            .iter()
            .flat_map(|g| std::iter::repeat_n(g.start, g.count as usize))
            .collect();
        let mut series = RateSeries::new(scenario.output.rate_interval, &starts);
        // Reserve each flow's bins once: grown by doubling they could take twice the 16 bytes
        // per bin that the scenario's memory estimate counts (and that it has accepted).
        let width = scenario.output.rate_interval.as_nanos();
        let end = scenario.duration.as_nanos();
        for (flow, start) in series.flows.iter_mut().zip(&starts) {
            let bins = end.saturating_sub(start.as_nanos()).div_ceil(width) as usize;
            flow.goodput_bps.reserve_exact(bins);
            flow.throughput_bps.reserve_exact(bins);
        }
        series
    }

    /// `rates.csv`: one row per flow and bin, by bin end time then flow. Streamed to a
    /// temporary file and renamed into place: the rows are never held in memory (with 100 000
    /// flows a run's rows would cost several times the bins themselves).
    pub fn write_csv(&self, dir: &Path) -> io::Result<()> {
        let width = self.width.as_nanos();
        // Every bin boundary is a multiple of the width, so bin i of a flow ends at grid step
        // first/width + i + 1; walking the steps in order and the flows in order at each step
        // gives the (end time, flow) order without sorting.
        let step_of = |f: &FlowRates| f.first.as_nanos() / width;
        let (mut low, mut high) = (u64::MAX, 0);
        for f in self.flows.iter().filter(|f| !f.goodput_bps.is_empty()) {
            low = low.min(step_of(f));
            high = high.max(step_of(f) + f.goodput_bps.len() as u64);
        }
        write_atomic_with(&dir.join("rates.csv"), |out| {
            let mut writer = csv::Writer::from_writer(out);
            writer
                .write_record(RATES_COLUMNS)
                .map_err(io::Error::other)?;
            for step in low..high {
                for (id, f) in self.flows.iter().enumerate() {
                    let Some(i) = step.checked_sub(step_of(f)) else {
                        continue;
                    };
                    let (Some(&goodput), Some(&throughput)) = (
                        f.goodput_bps.get(i as usize),
                        f.throughput_bps.get(i as usize),
                    ) else {
                        continue;
                    };
                    let end = f.first + self.width * (i + 1);
                    writer
                        .write_record([
                            end.as_secs_f64().to_string(),
                            id.to_string(),
                            goodput.to_string(),
                            throughput.to_string(),
                        ])
                        .map_err(io::Error::other)?;
                }
            }
            writer.flush()
        })
    }
}

impl RateSeries {
    /// Flow `flow`'s cumulative delivered and sent payload bytes at tick `time`.
    fn record(&mut self, time: SimTime, flow: u32, delivered_bytes: u64, bytes_sent: u64) {
        if !time.as_nanos().is_multiple_of(self.width.as_nanos()) {
            return;
        }
        let id = flow as usize;
        let (Some(anchor), Some(flow)) = (self.anchors.get_mut(id), self.flows.get_mut(id)) else {
            return;
        };
        if let Some((from, delivered, sent)) = *anchor {
            if time <= from {
                return;
            }
            // Boundaries are ticks, so bins come back to back, each one width long.
            debug_assert_eq!(time - from, self.width);
            if flow.goodput_bps.is_empty() {
                flow.first = from;
            }
            let seconds = (time - from).as_secs_f64();
            flow.goodput_bps
                .push(rate_bps(delivered_bytes - delivered, seconds));
            flow.throughput_bps
                .push(rate_bps(bytes_sent - sent, seconds));
        }
        *anchor = Some((time, delivered_bytes, bytes_sent));
    }
}

impl TraceSink for RateSeries {
    fn flow_sample(&mut self, s: &FlowSample) {
        self.record(s.time, s.flow, s.delivered_bytes, s.bytes_sent);
    }

    /// A UDP flow's rates come from its sink's and source's counters, as a TCP flow's from
    /// its receiver's and sender's: in the same bins, files and figures.
    fn udp_sample(&mut self, s: &UdpSample) {
        self.record(s.time, s.flow, s.delivered_bytes, s.bytes_sent);
    }

    fn link_sample(&mut self, _: &LinkSample<'_>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(ms: u64, flow: u32, delivered: u64, sent: u64) -> FlowSample {
        FlowSample {
            time: SimTime::ZERO + SimDuration::from_millis(ms),
            flow,
            cwnd_bytes: 0,
            ssthresh_bytes: None,
            srtt: None,
            rtt: None,
            inflight_bytes: 0,
            bytes_acked: 0,
            delivered_bytes: delivered,
            bytes_sent: sent,
            retransmissions: 0,
            pacing_rate_bps: None,
            mode: "",
            shared: None,
        }
    }

    #[test]
    fn csv_rows_come_by_bin_end_then_flow() {
        // Flow 0 has bins ending at 0.2 and 0.3 s, flow 1 (started later) one ending at
        // 0.3 s, flow 2 none: rows (0.2, 0), (0.3, 0), (0.3, 1), as written by hand below.
        let width = SimDuration::from_millis(100);
        let mut r = RateSeries::new(width, &[SimTime::ZERO; 3]);
        r.flows[0] = FlowRates {
            first: SimTime::ZERO + width,
            goodput_bps: vec![1.0, 2.0],
            throughput_bps: vec![3.0, 4.0],
        };
        r.flows[1] = FlowRates {
            first: SimTime::ZERO + width * 2,
            goodput_bps: vec![5.5],
            throughput_bps: vec![6.0],
        };
        let dir = std::env::temp_dir().join(format!("cclab-rates-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        r.write_csv(&dir).unwrap();
        let text = std::fs::read_to_string(dir.join("rates.csv")).unwrap();
        assert_eq!(
            text,
            "time_s,flow,goodput_bps,throughput_bps\n0.2,0,1,3\n0.3,0,2,4\n0.3,1,5.5,6\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bins_are_exact_differences_at_boundaries() {
        // 100 ms bins; flow 0 starts at 0, flow 1 at 150 ms (its first whole bin is 200–300).
        let mut r = RateSeries::new(
            SimDuration::from_millis(100),
            &[SimTime::ZERO, SimTime::ZERO + SimDuration::from_millis(150)],
        );
        for (ms, d0, s0, d1, s1) in [
            (50, 1000, 2000, 0, 0),
            (100, 12_500, 15_000, 0, 0),
            (150, 13_000, 16_000, 0, 0),
            (200, 25_000, 25_000, 100, 100),
            (250, 26_000, 26_000, 200, 200),
            (300, 37_500, 40_000, 1350, 2600),
        ] {
            r.flow_sample(&sample(ms, 0, d0, s0));
            if ms >= 150 {
                r.flow_sample(&sample(ms, 1, d1, s1));
            }
        }
        // 12_500 B in 0.1 s = 1 Mbit/s; then 12_500 B twice more.
        assert_eq!(r.flows[0].goodput_bps, [1e6, 1e6, 1e6]);
        assert_eq!(r.flows[0].throughput_bps, [1.2e6, 0.8e6, 1.2e6]);
        // Flow 1: only 200–300 ms, 1250 B delivered = 100 kbit/s, 2500 B sent.
        assert_eq!(r.flows[1].goodput_bps, [1e5]);
        assert_eq!(r.flows[1].throughput_bps, [2e5]);
        let bins = r.flows[1].goodput_bins(r.width);
        assert_eq!(
            (bins[0].start.as_nanos(), bins[0].end.as_nanos()),
            (200_000_000, 300_000_000)
        );
    }
}
