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
use cclab_sim::{FlowSample, LinkSample, TraceSink};

use crate::metrics::{RateBin, rate_bps};
use crate::output::write_atomic;

pub const RATES_COLUMNS: &[&str] = &["time_s", "flow", "goodput_bps", "throughput_bps"];

/// One flow's binned rates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowRates {
    /// Bytes delivered to the application per bin, as bit/s.
    pub goodput: Vec<RateBin>,
    /// Payload bytes put on the wire (retransmissions included) per bin, as bit/s.
    pub throughput: Vec<RateBin>,
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
        RateSeries::new(scenario.output.rate_interval, &starts)
    }

    /// `rates.csv`: one row per flow and bin, by bin end time then flow.
    pub fn write_csv(&self, dir: &Path) -> io::Result<()> {
        let mut rows: Vec<(SimTime, usize, f64, f64)> = self
            .flows
            .iter()
            .enumerate()
            .flat_map(|(id, f)| {
                f.goodput
                    .iter()
                    .zip(&f.throughput)
                    .map(move |(g, t)| (g.end, id, g.rate_bps, t.rate_bps))
            })
            .collect();
        rows.sort_by_key(|&(end, id, _, _)| (end, id));
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer
            .write_record(RATES_COLUMNS)
            .map_err(io::Error::other)?;
        for (end, id, goodput, throughput) in rows {
            writer
                .write_record([
                    end.as_secs_f64().to_string(),
                    id.to_string(),
                    goodput.to_string(),
                    throughput.to_string(),
                ])
                .map_err(io::Error::other)?;
        }
        let bytes = writer
            .into_inner()
            .map_err(|e| io::Error::other(e.to_string()))?;
        write_atomic(&dir.join("rates.csv"), &bytes)
    }
}

impl TraceSink for RateSeries {
    fn flow_sample(&mut self, s: &FlowSample) {
        if !s.time.as_nanos().is_multiple_of(self.width.as_nanos()) {
            return;
        }
        let id = s.flow as usize;
        let (Some(anchor), Some(flow)) = (self.anchors.get_mut(id), self.flows.get_mut(id)) else {
            return;
        };
        if let Some((from, delivered, sent)) = *anchor {
            if s.time <= from {
                return;
            }
            let seconds = (s.time - from).as_secs_f64();
            let bin = |bytes: u64| RateBin {
                start: from,
                end: s.time,
                rate_bps: rate_bps(bytes, seconds),
            };
            flow.goodput.push(bin(s.delivered_bytes - delivered));
            flow.throughput.push(bin(s.bytes_sent - sent));
        }
        *anchor = Some((s.time, s.delivered_bytes, s.bytes_sent));
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
        }
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
        let rates = |bins: &[RateBin]| bins.iter().map(|b| b.rate_bps).collect::<Vec<_>>();
        // 12_500 B in 0.1 s = 1 Mbit/s; then 12_500 B twice more.
        assert_eq!(rates(&r.flows[0].goodput), [1e6, 1e6, 1e6]);
        assert_eq!(rates(&r.flows[0].throughput), [1.2e6, 0.8e6, 1.2e6]);
        // Flow 1: only 200–300 ms, 1250 B delivered = 100 kbit/s, 2500 B sent.
        assert_eq!(rates(&r.flows[1].goodput), [1e5]);
        assert_eq!(rates(&r.flows[1].throughput), [2e5]);
        assert_eq!(r.flows[1].goodput[0].start.as_nanos(), 200_000_000);
    }
}
