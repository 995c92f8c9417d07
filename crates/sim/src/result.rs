//! What a run returns: raw per-flow and per-link totals. Metrics are computed from these by
//! cclab-analysis.

use cclab_cc::{SimDuration, SimTime};

use crate::histogram::Histogram;
use crate::net::link::LinkStats;
use crate::traffic::udp::UdpResult;
pub use crate::traffic::workload::{BucketStats, WorkloadResult};

/// A flow's monotone counters at one instant; the difference of two snapshots gives the
/// counts within a window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowCounters {
    pub delivered_bytes: u64,
    pub payload_bytes_sent: u64,
    pub wire_bytes_sent: u64,
    pub packets_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    /// Data segments of this flow dropped anywhere on its path.
    pub drops: u64,
    pub rtt: Histogram,
}

impl FlowCounters {
    /// The counts accumulated since `earlier`.
    pub fn since(&self, earlier: &FlowCounters) -> FlowCounters {
        FlowCounters {
            delivered_bytes: self.delivered_bytes - earlier.delivered_bytes,
            payload_bytes_sent: self.payload_bytes_sent - earlier.payload_bytes_sent,
            wire_bytes_sent: self.wire_bytes_sent - earlier.wire_bytes_sent,
            packets_sent: self.packets_sent - earlier.packets_sent,
            retransmissions: self.retransmissions - earlier.retransmissions,
            timeouts: self.timeouts - earlier.timeouts,
            drops: self.drops - earlier.drops,
            rtt: self.rtt.since(&earlier.rtt),
        }
    }
}

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
    /// Window reductions undone as spurious; `None` for flows without `undo`.
    pub undos: Option<u64>,
    /// Payload bytes the receiver reported CE-marked; window reductions they caused (RFC 3168).
    pub ce_bytes: u64,
    pub ecn_reductions: u64,
    pub mean_rtt: Option<SimDuration>,
    pub min_rtt: Option<SimDuration>,
    /// When the receiver had every byte of a finite transfer; with `handshake = true`, when
    /// the sender's FIN was acknowledged.
    pub completed_at: Option<SimTime>,
    /// `handshake = true`: the connection's opening; `None` for flows without one. Boxed:
    /// 8 bytes of each result instead of 32, for the few flows that open connections
    /// (docs/performance.md, "Memory per idle flow"). Read through
    /// [`FlowResult::handshake_time`], [`FlowResult::syn_drops`] and
    /// [`FlowResult::syn_ack_drops`].
    pub handshake: Option<Box<HandshakeResult>>,
    /// Data segments dropped anywhere on the path; ACKs dropped on the reverse path.
    pub drops: u64,
    pub ack_drops: u64,
    /// Every RTT sample of the run.
    pub rtt: Histogram,
    /// The counters when the steady-state window opened (zero if the flow started later).
    pub at_window_start: CountersAtWindowStart,
    /// `kind = "udp"`: what its sink measured; `None` for TCP flows. Boxed, so that a TCP
    /// flow pays one pointer.
    pub udp: Option<Box<UdpResult>>,
}

/// A flow's counters when the steady-state window opened: boxed, and no allocation at all
/// where they are zero (a flow that started after the window opened, or every flow of a run
/// whose window opens at 0). Reads as [`FlowCounters`]. 8 bytes of the result instead of 144,
/// for each of 100 000 flows (docs/performance.md, "Memory per idle flow").
#[derive(Clone, Default)]
pub struct CountersAtWindowStart(Option<Box<FlowCounters>>);

/// What a flow that had not started when the window opened had counted then.
static NO_COUNTERS: FlowCounters = FlowCounters {
    delivered_bytes: 0,
    payload_bytes_sent: 0,
    wire_bytes_sent: 0,
    packets_sent: 0,
    retransmissions: 0,
    timeouts: 0,
    drops: 0,
    rtt: Histogram::new(),
};

impl CountersAtWindowStart {
    /// Counters kept boxed as they are (`None`: all zero).
    pub fn from_box(counters: Option<Box<FlowCounters>>) -> Self {
        CountersAtWindowStart(counters)
    }
}

impl From<FlowCounters> for CountersAtWindowStart {
    fn from(counters: FlowCounters) -> Self {
        CountersAtWindowStart(Some(Box::new(counters)))
    }
}

impl std::ops::Deref for CountersAtWindowStart {
    type Target = FlowCounters;

    fn deref(&self) -> &FlowCounters {
        self.0.as_deref().unwrap_or(&NO_COUNTERS)
    }
}

/// Compared by value: zero counters boxed or not are the same counters.
impl PartialEq for CountersAtWindowStart {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for CountersAtWindowStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// How a flow with `handshake = true` opened its connection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HandshakeResult {
    /// From the first SYN to the first SYN-ACK; `None` while the connection was not yet
    /// established.
    pub time: Option<SimDuration>,
    /// SYNs dropped on the data path and SYN-ACKs on the reverse path.
    pub syn_drops: u64,
    pub syn_ack_drops: u64,
}

impl FlowResult {
    /// `handshake = true`: from the first SYN to the first SYN-ACK; `None` otherwise (or
    /// while the connection was not yet established).
    pub fn handshake_time(&self) -> Option<SimDuration> {
        self.handshake.as_ref().and_then(|h| h.time)
    }

    /// SYNs dropped on the data path (`handshake = true`; 0 otherwise).
    pub fn syn_drops(&self) -> u64 {
        self.handshake.as_ref().map_or(0, |h| h.syn_drops)
    }

    /// SYN-ACKs dropped on the reverse path (`handshake = true`; 0 otherwise).
    pub fn syn_ack_drops(&self) -> u64 {
        self.handshake.as_ref().map_or(0, |h| h.syn_ack_drops)
    }

    /// The counters at the end of the run.
    pub fn counters(&self) -> FlowCounters {
        FlowCounters {
            delivered_bytes: self.delivered_bytes,
            payload_bytes_sent: self.payload_bytes_sent,
            wire_bytes_sent: self.wire_bytes_sent,
            packets_sent: self.packets_sent,
            retransmissions: self.retransmissions,
            timeouts: self.timeouts,
            drops: self.drops,
            rtt: self.rtt.clone(),
        }
    }

    /// The counts within the steady-state window.
    pub fn window(&self) -> FlowCounters {
        self.counters().since(&self.at_window_start)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkResult {
    pub name: String,
    pub rate_bps: u64,
    /// Transmitter busy time within the run.
    pub busy: SimDuration,
    pub stats: LinkStats,
    /// Counters and busy time when the steady-state window opened.
    pub at_window_start: LinkStats,
    pub busy_at_window_start: SimDuration,
    /// A direction of a Wi-Fi link (its MAC counters are `stats.wifi`).
    pub wifi: bool,
}

/// Which reported links each flow's data crosses, the input of its max-min fair share
/// ([`crate::topology::fair_share`]): flow `i` crosses `links[i]`, indexes into
/// [`RunResult::links`]. Flat, so that 100 000 flows cost no allocation each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataRoutes {
    /// Reported-link indexes of every flow, back to back.
    pub hops: Vec<u32>,
    /// Per flow: where its indexes start in `hops`, and how many there are.
    pub spans: Vec<(u32, u32)>,
}

impl DataRoutes {
    /// The reported links flow `flow`'s data crosses, as indexes into `RunResult::links`.
    pub fn of(&self, flow: usize) -> &[u32] {
        let (start, len) = self.spans[flow];
        &self.hops[start as usize..(start + len) as usize]
    }

    pub fn push(&mut self, links: impl IntoIterator<Item = u32>) {
        let start = self.hops.len() as u32;
        self.hops.extend(links);
        self.spans.push((start, self.hops.len() as u32 - start));
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    pub duration: SimDuration,
    /// Start of the steady-state window (`[output] steady_from`); it ends with the run.
    pub window_start: SimTime,
    pub events: u64,
    pub flows: Vec<FlowResult>,
    /// The reported links, in the order of the outputs: every link that can queue (not the
    /// flows' own access links), named as the topology names them (the dumbbell's
    /// "bottleneck").
    pub links: Vec<LinkResult>,
    /// Which of them each flow's data crosses: what the flows' fair shares are computed from.
    pub data_routes: DataRoutes,
    /// Per workload (`kind = "workload"` flow table), in the order of the tables.
    pub workloads: Vec<WorkloadResult>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The result of a short flow without a handshake.
    fn a_flow_result() -> FlowResult {
        let text = r#"
            duration = "100ms"
            [topology]
            bottleneck = { rate = "100Mbps", delay = "4ms" }
            access = { rate = "1Gbps", delay = "500us" }
            [[flows]]
            cc = "reno"
            size = "10KB"
        "#;
        let (mut result, _) = crate::simulation::run_text(text, |_| {});
        result.flows.remove(0)
    }

    #[test]
    fn a_result_keeps_its_handshake_boxed_and_reads_it_as_before() {
        // The handshake's time and drops take one pointer of every result (32 bytes
        // inline, 336 bytes a result before).
        assert_eq!(
            std::mem::size_of::<Option<Box<HandshakeResult>>>(),
            std::mem::size_of::<usize>()
        );
        assert!(std::mem::size_of::<FlowResult>() <= 336 - 24);
        let handshake = HandshakeResult {
            time: Some(SimDuration::from_millis(21)),
            syn_drops: 2,
            syn_ack_drops: 1,
        };
        let with = |handshake: Option<HandshakeResult>| FlowResult {
            handshake: handshake.map(Box::new),
            ..a_flow_result()
        };
        let opened = with(Some(handshake.clone()));
        assert_eq!(opened.handshake_time(), Some(SimDuration::from_millis(21)));
        assert_eq!((opened.syn_drops(), opened.syn_ack_drops()), (2, 1));
        let opening = with(Some(HandshakeResult {
            time: None,
            ..handshake
        }));
        assert_eq!(opening.handshake_time(), None);
        assert_eq!((opening.syn_drops(), opening.syn_ack_drops()), (2, 1));
        let plain = with(None);
        assert_eq!(plain.handshake_time(), None);
        assert_eq!((plain.syn_drops(), plain.syn_ack_drops()), (0, 0));
    }

    #[test]
    fn counters_at_window_start_read_as_zeros_when_not_boxed() {
        let none = CountersAtWindowStart::default();
        assert_eq!(*none, FlowCounters::default());
        assert_eq!(none, CountersAtWindowStart::from(FlowCounters::default()));
        let mut rtt = Histogram::default();
        rtt.record(5);
        let some = CountersAtWindowStart::from(FlowCounters {
            delivered_bytes: 3,
            rtt,
            ..FlowCounters::default()
        });
        assert_eq!(some.delivered_bytes, 3);
        assert_ne!(some, none);
        assert_eq!(
            format!("{none:?}"),
            format!("{:?}", FlowCounters::default())
        );
    }
}
