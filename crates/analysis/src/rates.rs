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
/// with the run's length only by 16 bytes per flow and bin), the last `idle_bins` of them
/// counted rather than stored.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowRates {
    /// Start of the first bin.
    pub first: SimTime,
    /// Bytes delivered to the application per bin, as bit/s.
    pub goodput_bps: Vec<f64>,
    /// Payload bytes put on the wire (retransmissions included) per bin, as bit/s.
    pub throughput_bps: Vec<f64>,
    /// Bins after the stored ones in which the flow delivered and sent nothing (both rates
    /// 0): a flow that is over gets one every bin to the run's end, and 100 000 short flows
    /// stored them at 16 bytes each (docs/performance.md, "Memory per idle flow"). Stored
    /// as zeros when a bin with traffic comes after them.
    pub idle_bins: u32,
}

impl FlowRates {
    /// How many bins it has, stored or idle.
    pub fn len(&self) -> usize {
        self.goodput_bps.len() + self.idle_bins as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bin `i`'s goodput and throughput (bit/s), if it has that bin.
    pub fn bin(&self, i: usize) -> Option<(f64, f64)> {
        match (self.goodput_bps.get(i), self.throughput_bps.get(i)) {
            (Some(&goodput), Some(&throughput)) => Some((goodput, throughput)),
            _ => (i < self.len()).then_some((0.0, 0.0)),
        }
    }

    /// The next bin: counted if idle; else stored after the idle ones, which are stored as
    /// zeros first (`rate_bps` of no bytes). `bins_left` (those after it to the run's end,
    /// when known) sizes the room: a flow's first stored bins get room for two more (a
    /// short transfer's traffic fits in a few bins, and three numbers take glibc's smallest
    /// block, 32 bytes, as one does), and a flow that needs more gets room for the rest of
    /// the run at once: no more than was reserved for every flow at the start before, and
    /// without the doubling that could take twice the 16 bytes per bin that the scenario's
    /// memory estimate counts.
    fn push(&mut self, goodput_bps: f64, throughput_bps: f64, bins_left: Option<usize>) {
        if goodput_bps == 0.0 && throughput_bps == 0.0 {
            self.idle_bins += 1;
            return;
        }
        let needed = self.idle_bins as usize + 1;
        if let Some(bins_left) = bins_left
            && self.goodput_bps.capacity() - self.goodput_bps.len() < needed
        {
            let room = if self.goodput_bps.capacity() == 0 {
                needed + bins_left.min(2)
            } else {
                needed + bins_left
            };
            self.goodput_bps.reserve_exact(room);
            self.throughput_bps.reserve_exact(room);
        }
        let idle = std::mem::take(&mut self.idle_bins) as usize;
        let stored = self.goodput_bps.len() + idle;
        self.goodput_bps.resize(stored, 0.0);
        self.throughput_bps.resize(stored, 0.0);
        self.goodput_bps.push(goodput_bps);
        self.throughput_bps.push(throughput_bps);
    }

    fn bins(&self, width: SimDuration, rates: &[f64]) -> Vec<RateBin> {
        let idle = std::iter::repeat_n(&0.0, self.idle_bins as usize);
        rates
            .iter()
            .chain(idle)
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
    /// The run's end, if known: it sizes a flow's bins when they grow (`FlowRates::push`).
    end: Option<SimTime>,
    /// Per flow: the last bin boundary seen and the counters then (delivered, sent).
    anchors: Vec<Option<(SimTime, u64, u64)>>,
    /// Once the run is over: every flow's bins, goodput then throughput, flow after flow,
    /// out of the heap until [`RateSeries::repack_after_run`] makes the flows' blocks again.
    packed: Option<PackedBins>,
    /// Pack the bins when the run is over ([`RateSeries::pack_when_run_over`]).
    pack_when_run_over: bool,
}

/// Every flow's bins in one vector, goodput then throughput, flow after flow, and how many
/// each flow stored.
#[derive(Clone, Debug)]
struct PackedBins {
    bins: Vec<f64>,
    lengths: Vec<usize>,
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
            end: None,
            anchors,
            packed: None,
            pack_when_run_over: false,
        }
    }

    pub fn for_scenario(scenario: &Scenario) -> Self {
        let starts: Vec<SimTime> = scenario
            .flows
            .iter()
            .flat_map(|g| std::iter::repeat_n(g.start, g.count as usize))
            .collect();
        let mut series = RateSeries::new(scenario.output.rate_interval, &starts);
        // A flow's bins are made as they come, sized by the run's end (`FlowRates::push`),
        // rather than reserved for the whole run at the start: a short flow stores a bin or
        // two, and counts the idle ones after.
        series.end = Some(SimTime::ZERO + scenario.duration);
        series
    }

    /// Once the run is over (no sample comes any more): each flow's bins moved into fresh
    /// blocks, made after `give_back` has run with the old ones freed. The bins were made
    /// as the flows ran, two small blocks per flow scattered through the heap among the
    /// run's own blocks, and a page that holds any live block stays resident after the run
    /// frees the rest: at 100 000 flows they kept about 50 MiB of freed heap resident beside
    /// the results and the summaries (docs/performance.md, "Memory per idle flow"). Freed
    /// together, then made again one after the other, they take a few pages. The bins'
    /// values, and so everything read from them, are unchanged.
    pub fn repack_after_run(&mut self, give_back: impl FnOnce()) {
        let packed = match self.packed.take() {
            Some(packed) => packed,
            None => self.pack(),
        };
        give_back();
        let mut rest = packed.bins.as_slice();
        for (f, n) in self.flows.iter_mut().zip(packed.lengths) {
            let (goodput, after) = rest.split_at(n);
            let (throughput, after) = after.split_at(n);
            f.goodput_bps = goodput.to_vec();
            f.throughput_bps = throughput.to_vec();
            rest = after;
        }
    }

    /// Move the bins out of the heap when the run is over, before the simulation makes its
    /// results: the bins' small blocks then no longer keep the pages of the flows' freed
    /// records resident while the results are made (docs/performance.md, "Memory per idle
    /// flow"). Nothing may read the bins after that until [`RateSeries::repack_after_run`].
    pub fn pack_when_run_over(&mut self) {
        self.pack_when_run_over = true;
    }

    /// Every flow's bins moved into one vector (a mapping of its own at 100 000 flows),
    /// their blocks freed, with how many each flow stored.
    fn pack(&mut self) -> PackedBins {
        let stored: usize = self.flows.iter().map(|f| f.goodput_bps.len()).sum();
        let mut bins = Vec::with_capacity(2 * stored);
        let mut lengths = Vec::with_capacity(self.flows.len());
        for f in &mut self.flows {
            lengths.push(f.goodput_bps.len());
            bins.extend(std::mem::take(&mut f.goodput_bps));
            bins.extend(std::mem::take(&mut f.throughput_bps));
        }
        PackedBins { bins, lengths }
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
        for f in self.flows.iter().filter(|f| !f.is_empty()) {
            low = low.min(step_of(f));
            high = high.max(step_of(f) + f.len() as u64);
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
                    let Some((goodput, throughput)) = f.bin(i as usize) else {
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
            if flow.is_empty() {
                flow.first = from;
            }
            let seconds = (time - from).as_secs_f64();
            let bins_left = self.end.map(|end| {
                (end.saturating_since(time).as_nanos() / self.width.as_nanos()) as usize
            });
            flow.push(
                rate_bps(delivered_bytes - delivered, seconds),
                rate_bps(bytes_sent - sent, seconds),
                bins_left,
            );
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

    /// Where each flow's last bin boundary was (32 B a flow) is read by samples only: given
    /// back before the results are made, the peak of a run of many idle flows
    /// (docs/performance.md, "Memory per idle flow").
    fn run_over(&mut self) {
        self.anchors = Vec::new();
        if self.pack_when_run_over {
            self.packed = Some(self.pack());
        }
    }
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
            idle_bins: 0,
        };
        r.flows[1] = FlowRates {
            first: SimTime::ZERO + width * 2,
            goodput_bps: vec![5.5],
            throughput_bps: vec![6.0],
            idle_bins: 0,
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

    #[test]
    fn idle_bins_are_counted_and_read_as_zeros() {
        // 100 ms bins over a 1 s run; flow 0 sends in its first bin and is done, flow 1
        // sends in the first, idles two bins and sends again, then is done.
        let width = SimDuration::from_millis(100);
        let mut r = RateSeries::new(width, &[SimTime::ZERO; 2]);
        // As `for_scenario` sets it for a 1 s run.
        r.end = Some(SimTime::ZERO + SimDuration::from_secs(1));
        for ms in (0..=1000).step_by(100) {
            r.flow_sample(&sample(
                ms,
                0,
                if ms >= 100 { 1250 } else { 0 },
                1250.min(ms * 20),
            ));
            let (d1, s1) = match ms {
                0 => (0, 0),
                100..=300 => (2500, 2500),
                _ => (5000, 5000),
            };
            r.flow_sample(&sample(ms, 1, d1, s1));
        }
        // What storing every bin gives: 1250 B in 0.1 s = 100 kbit/s, then zeros; flow 1's
        // second burst in the bin ending at 0.4 s.
        let mut zeros = vec![0.0; 10];
        zeros[0] = 1e5;
        assert_eq!((r.flows[0].len(), r.flows[0].idle_bins), (10, 9));
        assert_eq!(r.flows[0].goodput_bps, [1e5]);
        let rates = |bins: Vec<RateBin>| bins.iter().map(|b| b.rate_bps).collect::<Vec<_>>();
        assert_eq!(rates(r.flows[0].goodput_bins(width)), zeros);
        assert_eq!(rates(r.flows[0].throughput_bins(width)), zeros);
        let mut flow_1 = vec![0.0; 10];
        flow_1[0] = 2e5;
        flow_1[3] = 2e5;
        assert_eq!(r.flows[1].goodput_bps, flow_1[..4]);
        assert_eq!(r.flows[1].idle_bins, 6);
        assert_eq!(rates(r.flows[1].goodput_bins(width)), flow_1);
        let bins = r.flows[1].throughput_bins(width);
        assert_eq!(bins[9].end, SimTime::ZERO + SimDuration::from_secs(1));
        assert_eq!(r.flows[1].bin(9), Some((0.0, 0.0)));
        assert_eq!(r.flows[1].bin(10), None);
        // A short flow holds room for three bins, one allocation each of the smallest size;
        // flow 1, which needed more, room for the rest of the run, no more than the ten bins
        // reserved for each flow before.
        assert_eq!(r.flows[0].goodput_bps.capacity(), 3);
        assert!(r.flows[1].goodput_bps.capacity() <= 10);
        // The rows are those of the same bins all stored.
        let mut stored = r.clone();
        stored.flows[0] = FlowRates {
            first: r.flows[0].first,
            goodput_bps: zeros.clone(),
            throughput_bps: zeros,
            idle_bins: 0,
        };
        stored.flows[1].goodput_bps = flow_1.clone();
        stored.flows[1].throughput_bps = flow_1;
        stored.flows[1].idle_bins = 0;
        let dir = std::env::temp_dir().join(format!("cclab-idle-rates-{}", std::process::id()));
        let read = |series: &RateSeries, name: &str| {
            let dir = dir.join(name);
            std::fs::create_dir_all(&dir).unwrap();
            series.write_csv(&dir).unwrap();
            std::fs::read_to_string(dir.join("rates.csv")).unwrap()
        };
        let (counted, all_stored) = (read(&r, "counted"), read(&stored, "stored"));
        assert_eq!(counted, all_stored);
        assert_eq!(counted.lines().count(), 1 + 2 * 10);
        // Repacked after the run, the bins are the same and so are the rows; the heap is
        // given back once, with the old bins freed and the new ones not yet made.
        let mut repacked = r.clone();
        let mut given_back = 0;
        repacked.repack_after_run(|| given_back += 1);
        assert_eq!(given_back, 1);
        assert_eq!(repacked.flows, r.flows);
        assert_eq!(repacked.flows[1].goodput_bps.capacity(), 4);
        assert_eq!(read(&repacked, "repacked"), counted);
        // Packed when the run is over (`cclab run`): no flow holds a block of bins until the
        // repack, which makes the same bins as a repack of the bins in place.
        let mut packed_at_end = r.clone();
        packed_at_end.pack_when_run_over();
        packed_at_end.run_over();
        assert!(
            packed_at_end
                .flows
                .iter()
                .all(|f| f.goodput_bps.capacity() == 0 && f.throughput_bps.capacity() == 0)
        );
        packed_at_end.repack_after_run(|| given_back += 1);
        assert_eq!(given_back, 2);
        assert_eq!(packed_at_end.flows, r.flows);
        assert_eq!(read(&packed_at_end, "packed"), counted);
        // Without being asked, the run's end leaves the bins where they are (sweeps read
        // them without a repack).
        let mut left = r.clone();
        left.run_over();
        assert_eq!(left.flows, r.flows);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
