//! Time-series records streamed out of a run. The simulator calls a [`TraceSink`] at every
//! sampling tick; writers (CSV files, in-memory collectors for tests) implement it.

use cclab_cc::{SimDuration, SimTime};

/// One flow's state at a sampling tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowSample {
    pub time: SimTime,
    pub flow: u32,
    pub cwnd_bytes: u64,
    /// `None` while unlimited.
    pub ssthresh_bytes: Option<u64>,
    pub srtt: Option<SimDuration>,
    /// The latest RTT sample.
    pub rtt: Option<SimDuration>,
    pub inflight_bytes: u64,
    /// Cumulatively acknowledged bytes (snd_una).
    pub bytes_acked: u64,
    /// Bytes delivered in order to the receiving application.
    pub delivered_bytes: u64,
    pub retransmissions: u64,
    pub pacing_rate_bps: Option<u64>,
    /// The controller's mode label.
    pub mode: &'static str,
}

/// One link's queue at a sampling tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSample<'a> {
    pub time: SimTime,
    pub link: &'a str,
    pub queue_pkts: u64,
    pub queue_bytes: u64,
    /// Cumulative drops (all causes).
    pub drops: u64,
    /// Cumulative wire bytes sent.
    pub tx_bytes: u64,
}

pub trait TraceSink {
    fn flow_sample(&mut self, sample: &FlowSample);
    fn link_sample(&mut self, sample: &LinkSample<'_>);
}

/// Discards everything (benchmarks, tests that only need the summary).
pub struct NullSink;

impl TraceSink for NullSink {
    fn flow_sample(&mut self, _: &FlowSample) {}
    fn link_sample(&mut self, _: &LinkSample<'_>) {}
}

/// Keeps every record in memory (tests).
#[derive(Default)]
pub struct MemorySink {
    pub flows: Vec<FlowSample>,
    pub links: Vec<(SimTime, String, u64, u64, u64)>,
}

impl TraceSink for MemorySink {
    fn flow_sample(&mut self, sample: &FlowSample) {
        self.flows.push(*sample);
    }
    fn link_sample(&mut self, s: &LinkSample<'_>) {
        self.links.push((
            s.time,
            s.link.to_string(),
            s.queue_pkts,
            s.queue_bytes,
            s.drops,
        ));
    }
}
