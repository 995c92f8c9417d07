//! The validated scenario: every value typed, in base units, defaults filled in.

use cclab_cc::{AlgorithmInfo, Params, SimDuration, SimTime, SlowStartInfo};

/// A scenario ready to build a simulation from.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    /// Where it came from, for messages ("examples/dumbbell.toml").
    pub source: String,
    pub duration: SimDuration,
    pub seed: u64,
    pub topology: Dumbbell,
    /// One entry per `[[flows]]` table; `count` identical flows each.
    pub flows: Vec<FlowGroup>,
    pub output: Output,
}

/// Senders S_i – access – router L – bottleneck – router R – access – receivers R_i; every
/// flow has its own pair of access links.
#[derive(Clone, Debug, PartialEq)]
pub struct Dumbbell {
    pub bottleneck: Link,
    pub access: Link,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// Bit/s.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: SimDuration,
    pub queue: QueueDiscipline,
    pub buffer: Buffer,
    /// Bernoulli loss probability per packet (after serialization).
    pub loss: f64,
    /// Mark ECN-capable packets CE when they arrive to find at least this many packets
    /// waiting (DCTCP-style step marking); `None`: no marking.
    pub ecn_threshold: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueDiscipline {
    DropTail,
}

/// A queue limit. Packets waiting for the transmitter count; the one being serialized does not
/// (as in ns-2 and ns-3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Buffer {
    Packets(u64),
    Bytes(u64),
    /// A multiple of the bottleneck BDP, converted to whole packets of the first flow's size.
    Bdp(f64),
    Unlimited,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// RFC 5681 fast retransmit / fast recovery; the first new ACK ends recovery.
    Reno,
    /// RFC 6582: recovery lasts until all data outstanding at its start is acknowledged.
    NewReno,
    /// RFC 6675 SACK-based loss recovery with RFC 6937 proportional rate reduction.
    Sack,
}

impl Recovery {
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}

/// How the initial slow-start threshold is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialSsthresh {
    Unlimited,
    Bytes(u64),
    /// Estimated from the spacing of the first ACKs (Hoe 1996), starting from unlimited.
    PacketPair,
}

/// `[[flows]]`: `count` identical flows.
#[derive(Clone, Debug)]
pub struct FlowGroup {
    pub cc: &'static AlgorithmInfo,
    pub params: Params,
    pub count: u32,
    pub start: SimTime,
    /// Application bytes to send; `None` for an unlimited (bulk) transfer.
    pub size: Option<u64>,
    /// Added to the round trip of these flows (half on each direction of the sender's
    /// access link).
    pub extra_rtt: SimDuration,
    pub mss: u64,
    /// Bytes of IP + TCP headers per data packet (52 = IPv4 20 + TCP 20 + timestamps 12).
    pub header_bytes: u64,
    /// Initial congestion window in bytes.
    pub initial_window: u64,
    pub initial_ssthresh: InitialSsthresh,
    pub slow_start: &'static SlowStartInfo,
    pub slow_start_params: Params,
    pub recovery: Recovery,
    /// ACK every second full segment (RFC 5681 §4.2) with this timer, or every segment.
    pub delayed_ack: Option<SimDuration>,
    /// Receiver's advertised window in bytes; `None` for unlimited.
    pub receive_window: Option<u64>,
    pub min_rto: SimDuration,
    /// Pace at cwnd/srtt (×2 in slow start, ×1.2 after, as Linux does) when the controller
    /// does not set a pacing rate itself.
    pub pacing: bool,
    /// ECN-capable transport (RFC 3168 ECT): the bottleneck may mark CE instead of queueing
    /// silently, and the receiver echoes the CE-marked bytes.
    pub ecn: bool,
    /// Data-segment indexes (first transmissions, from 0) dropped once at the bottleneck.
    pub drop: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Time-series sampling interval.
    pub interval: SimDuration,
    /// Start of the steady-state measurement window `[steady_from, duration]`.
    pub steady_from: SimDuration,
    /// Width of the rate bins (throughput over time, stability, convergence); a whole
    /// multiple of `interval`.
    pub rate_interval: SimDuration,
    /// Averaging window of the rates that convergence time is judged on; a whole multiple of
    /// `rate_interval`.
    pub convergence_window: SimDuration,
    /// Flow ids (after `count` expansion) whose every packet event goes to `packets.csv`.
    pub trace_packets: Vec<u32>,
}

impl Scenario {
    /// Total number of flows after expanding `count`.
    pub fn flow_count(&self) -> usize {
        self.flows.iter().map(|g| g.count as usize).sum()
    }

    /// Round-trip propagation delay of the dumbbell without `extra_rtt`:
    /// 2 × (access + bottleneck + access).
    pub fn base_rtt(&self) -> SimDuration {
        let one_way = self.topology.access.delay * 2 + self.topology.bottleneck.delay;
        one_way * 2
    }

    /// Bottleneck bandwidth-delay product in bytes, from [`Scenario::base_rtt`].
    pub fn bdp_bytes(&self) -> u64 {
        (self.topology.bottleneck.rate_bps as u128 * self.base_rtt().as_nanos() as u128
            / 8_000_000_000) as u64
    }

    /// Wire size of a full data packet of the first flow group, the unit of packet buffers.
    pub fn packet_bytes(&self) -> u64 {
        let first = &self.flows[0];
        first.mss + first.header_bytes
    }

    /// A buffer limit resolved against this scenario: (packets, bytes), `None` = no limit.
    pub fn buffer_limit(&self, buffer: Buffer) -> (Option<u64>, Option<u64>) {
        match buffer {
            Buffer::Packets(p) => (Some(p), None),
            Buffer::Bytes(b) => (None, Some(b)),
            Buffer::Bdp(multiple) => {
                let packets =
                    (self.bdp_bytes() as f64 * multiple / self.packet_bytes() as f64).round();
                (Some((packets as u64).max(1)), None)
            }
            Buffer::Unlimited => (None, None),
        }
    }
}
