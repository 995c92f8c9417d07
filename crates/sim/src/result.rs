//! What a run returns: raw per-flow and per-link totals. Metrics are computed from these by
//! cclab-analysis.

use cclab_cc::{SimDuration, SimTime};

use crate::link::LinkStats;

#[derive(Clone, Debug, PartialEq)]
pub struct FlowResult {
    pub id: u32,
    /// Index of the `[[flows]]` table this flow came from.
    pub group: u32,
    pub cc: &'static str,
    pub start: SimTime,
    pub size: Option<u64>,
    pub bytes_acked: u64,
    pub delivered_bytes: u64,
    pub payload_bytes_sent: u64,
    pub wire_bytes_sent: u64,
    pub packets_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub mean_rtt: Option<SimDuration>,
    pub min_rtt: Option<SimDuration>,
    /// When the receiver had every byte of a finite transfer.
    pub completed_at: Option<SimTime>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkResult {
    pub name: String,
    pub rate_bps: u64,
    /// Transmitter busy time within the run.
    pub busy: SimDuration,
    pub stats: LinkStats,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub duration: SimDuration,
    pub events: u64,
    pub flows: Vec<FlowResult>,
    /// The reported links: the dumbbell's bottleneck.
    pub links: Vec<LinkResult>,
}
