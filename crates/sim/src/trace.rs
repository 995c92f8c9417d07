//! Time-series records streamed out of a run. The simulator calls a [`TraceSink`] at every
//! sampling tick; writers (CSV files, in-memory collectors for tests) implement it.

use cclab_cc::{SimDuration, SimTime};

pub use crate::capture::Captured;
pub use crate::traffic::workload::FinishedFlow;

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
    /// Payload bytes put on the wire, retransmissions included.
    pub bytes_sent: u64,
    pub retransmissions: u64,
    pub pacing_rate_bps: Option<u64>,
    /// The controller's mode label.
    pub mode: &'static str,
    /// TCB sharing: the flow's group and the window it assigns the flow; `None` for a flow
    /// in no group.
    pub shared: Option<SharedSample>,
}

/// A group member's part of its time-series row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedSample {
    /// Index into the run's groups, in order of first appearance in the scenario.
    pub group: u32,
    /// Its share `P(i)·S_CW/S_P` of the aggregate window, bytes.
    pub assigned_cwnd_bytes: u64,
}

/// A coupled group (`sharing = "aggregate"`) at a sampling tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupSample {
    pub time: SimTime,
    /// Index into the run's groups.
    pub group: u32,
    /// Members that have joined and not yet left.
    pub members: u32,
    /// S_P.
    pub priority_sum: u64,
    /// S_CW.
    pub aggregate_cwnd_bytes: u64,
    /// S_SS; `None` while unlimited.
    pub aggregate_ssthresh_bytes: Option<u64>,
    /// The 2-RTT freeze after a decrease is running (RFC 8699 Algorithm 2).
    pub frozen: bool,
}

/// A UDP flow's counters at a sampling tick: it has no window, RTT or mode to sample, only
/// what its rates are made of (`rates.csv`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UdpSample {
    pub time: SimTime,
    pub flow: u32,
    /// Payload bytes that reached the sink.
    pub delivered_bytes: u64,
    /// Payload bytes put on the wire.
    pub bytes_sent: u64,
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

/// What happened to a packet of a traced flow (scenario `[output] trace_packets`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketEventKind {
    /// The sender put a new data segment on its access link.
    Send,
    /// The sender put a data segment on the wire again.
    Retransmit,
    /// A data segment was dropped on the link at `hop` of the flow's path.
    Drop,
    /// A data segment reached the receiver.
    Receive,
    /// An ACK reached the sender; `seq` is the cumulative acknowledgment.
    Ack,
    /// An ACK was dropped on the link at `hop` of the reverse path.
    AckDrop,
    /// `handshake = true`: the sender sent a SYN (`seq` 0, no bytes).
    Syn,
    /// A SYN-ACK reached the sender.
    SynAck,
    /// The receiver's FIN, acknowledging every byte (`seq`), reached the sender.
    Fin,
    /// A SYN (on the data path) or SYN-ACK (on the reverse path) was dropped. A lost FIN
    /// is an `AckDrop`.
    SynDrop,
}

impl PacketEventKind {
    pub fn name(self) -> &'static str {
        match self {
            PacketEventKind::Send => "send",
            PacketEventKind::Retransmit => "retransmit",
            PacketEventKind::Drop => "drop",
            PacketEventKind::Receive => "receive",
            PacketEventKind::Ack => "ack",
            PacketEventKind::AckDrop => "ack_drop",
            PacketEventKind::Syn => "syn",
            PacketEventKind::SynAck => "syn_ack",
            PacketEventKind::Fin => "fin",
            PacketEventKind::SynDrop => "syn_drop",
        }
    }
}

/// One packet event of a traced flow: the data of a tcptrace-style sequence plot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketEvent {
    pub time: SimTime,
    pub flow: u32,
    pub kind: PacketEventKind,
    /// Data: first byte carried. ACK: cumulative acknowledgment.
    pub seq: u64,
    /// Payload bytes (0 for ACKs).
    pub bytes: u32,
    /// Index on the flow's path (data or ACK path by `kind`) of the link the packet was on:
    /// the first for sends, the last for arrivals, where it was lost for drops.
    pub hop: u8,
    /// That link's id in the network.
    pub link: u32,
}

/// What happened to a flow's controller or sender (`events.csv`): recorded when it happens,
/// not at sampling ticks, so nothing between two samples is lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowEventKind {
    /// The controller's mode label changed (`from` → `to`); `detail` names the call that
    /// changed it: `ack`, `loss`, `ecn`, `timeout`, `recovery_end` or `send`.
    Mode,
    /// The controller left slow start (`from` → `to` as for [`FlowEventKind::Mode`], which is
    /// also recorded); `detail` is the cause ([`cclab_cc::SlowStartExit::name`]).
    SlowStartExit,
    /// Fast recovery began; `detail` is the recovery (`reno`, `newreno`, `sack`, `fack`, or
    /// `tahoe` for Tahoe's fast retransmit and slow start), or `retransmission_lost` when a
    /// lost retransmission started a new episode.
    RecoveryStart,
    /// The cumulative ACK passed the recovery point (or, for Reno, the first new ACK; for
    /// Tahoe, what was outstanding at its fast retransmit).
    RecoveryEnd,
    /// A retransmission timeout fired; `detail` is `ssthresh_held` when the sender did not
    /// count it as a new congestion event (ssthresh kept, only cwnd collapses).
    Timeout,
    /// The cumulative ACK passed the point the timeout marked lost.
    TimeoutRecoveryEnd,
    /// CE marks started an RFC 3168 window reduction (the sender's response).
    EcnReductionStart,
    EcnReductionEnd,
    /// An on/off application resumed after more than an RTO of silence: the window
    /// restarts from RW = min(IW, cwnd) (RFC 5681 §4.1).
    IdleRestart,
    /// A window reduction proved spurious and was undone (flows with `undo`); `detail` says
    /// how it was found: `dsack`, `timestamp` (Eifel, or nothing was retransmitted) or `frto`.
    Undo,
}

impl FlowEventKind {
    pub fn name(self) -> &'static str {
        match self {
            FlowEventKind::Mode => "mode",
            FlowEventKind::SlowStartExit => "slow_start_exit",
            FlowEventKind::RecoveryStart => "recovery_start",
            FlowEventKind::RecoveryEnd => "recovery_end",
            FlowEventKind::Timeout => "timeout",
            FlowEventKind::TimeoutRecoveryEnd => "timeout_recovery_end",
            FlowEventKind::EcnReductionStart => "ecn_reduction_start",
            FlowEventKind::EcnReductionEnd => "ecn_reduction_end",
            FlowEventKind::IdleRestart => "idle_restart",
            FlowEventKind::Undo => "undo",
        }
    }
}

/// One event of a flow, with the controller's window right after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowEvent {
    pub time: SimTime,
    pub flow: u32,
    pub kind: FlowEventKind,
    /// Mode labels before and after (mode changes and slow-start exits); empty otherwise.
    pub from: &'static str,
    pub to: &'static str,
    pub detail: &'static str,
    /// The controller's cwnd and ssthresh (`None` while unlimited) after the event.
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: Option<u64>,
}

pub trait TraceSink {
    fn flow_sample(&mut self, sample: &FlowSample);
    fn link_sample(&mut self, sample: &LinkSample<'_>);
    /// A coupled group's aggregate at a sampling tick (runs with TCB sharing only).
    fn group_sample(&mut self, _sample: &GroupSample) {}
    /// Called only for flows listed in `[output] trace_packets`. `link` names the link of
    /// `event.link` as outputs do: a shared link by its name, a flow's own access links
    /// "sender-access" and "receiver-access".
    fn packet_event(&mut self, _event: &PacketEvent, _link: &str) {}
    /// Every flow event, in time order (handed over at sampling ticks and at the end).
    fn flow_event(&mut self, _event: &FlowEvent) {}
    /// Every short flow of a workload that finished, in order of completion (handed over
    /// at sampling ticks and at the end).
    fn finished_flow(&mut self, _flow: &FinishedFlow) {}
    /// A UDP flow's counters at a sampling tick (in place of [`TraceSink::flow_sample`]).
    fn udp_sample(&mut self, _sample: &UdpSample) {}
    /// A packet seen at a capture point of `[output] pcap`, in time order (handed over at
    /// sampling ticks and at the end).
    fn capture(&mut self, _captured: &Captured) {}
    /// The run is over: nothing more comes, and the results are made next. What a sink kept
    /// only to take the next samples can go before they take their memory.
    fn run_over(&mut self) {}
}

/// Feeds every record to two sinks (files and the metrics collector, say).
pub struct Tee<'a, A: ?Sized, B: ?Sized>(pub &'a mut A, pub &'a mut B);

impl<A: TraceSink + ?Sized, B: TraceSink + ?Sized> TraceSink for Tee<'_, A, B> {
    fn flow_sample(&mut self, sample: &FlowSample) {
        self.0.flow_sample(sample);
        self.1.flow_sample(sample);
    }
    fn group_sample(&mut self, sample: &GroupSample) {
        self.0.group_sample(sample);
        self.1.group_sample(sample);
    }
    fn link_sample(&mut self, sample: &LinkSample<'_>) {
        self.0.link_sample(sample);
        self.1.link_sample(sample);
    }
    fn packet_event(&mut self, event: &PacketEvent, link: &str) {
        self.0.packet_event(event, link);
        self.1.packet_event(event, link);
    }
    fn flow_event(&mut self, event: &FlowEvent) {
        self.0.flow_event(event);
        self.1.flow_event(event);
    }
    fn capture(&mut self, captured: &Captured) {
        self.0.capture(captured);
        self.1.capture(captured);
    }
    fn finished_flow(&mut self, flow: &FinishedFlow) {
        self.0.finished_flow(flow);
        self.1.finished_flow(flow);
    }
    fn udp_sample(&mut self, sample: &UdpSample) {
        self.0.udp_sample(sample);
        self.1.udp_sample(sample);
    }
    fn run_over(&mut self) {
        self.0.run_over();
        self.1.run_over();
    }
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
    pub packets: Vec<PacketEvent>,
    pub events: Vec<FlowEvent>,
    pub finished: Vec<FinishedFlow>,
    pub udp: Vec<UdpSample>,
    pub groups: Vec<GroupSample>,
}

impl TraceSink for MemorySink {
    fn group_sample(&mut self, sample: &GroupSample) {
        self.groups.push(*sample);
    }
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
    fn packet_event(&mut self, event: &PacketEvent, _link: &str) {
        self.packets.push(*event);
    }
    fn flow_event(&mut self, event: &FlowEvent) {
        self.events.push(*event);
    }
    fn finished_flow(&mut self, flow: &FinishedFlow) {
        self.finished.push(*flow);
    }
    fn udp_sample(&mut self, sample: &UdpSample) {
        self.udp.push(*sample);
    }
}
