//! The validated scenario: every value typed, in base units, defaults filled in.

use cclab_cc::{AlgorithmInfo, Params, SimDuration, SimTime, SlowStartInfo};

use crate::link_kind::LinkKind;
use crate::network::{Jitter, LossModel, QueueDiscipline};
use crate::traffic::{FlowKind, OnOff};

/// A scenario ready to build a simulation from.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    /// Where it came from, for messages ("examples/dumbbell.toml").
    pub source: String,
    pub duration: SimDuration,
    pub seed: u64,
    pub topology: Topology,
    /// One entry per `[[flows]]` table; `count` identical flows each.
    pub flows: Vec<FlowGroup>,
    pub output: Output,
}

/// `[topology]`: the network's shape, by `kind`.
#[derive(Clone, Debug, PartialEq)]
// One topology per scenario: boxing the dumbbell would only add an indirection.
#[allow(clippy::large_enum_variant)]
pub enum Topology {
    Dumbbell(Dumbbell),
    ParkingLot(ParkingLot),
    Graph(Graph),
}

impl Topology {
    /// The name in scenario files.
    pub fn kind(&self) -> &'static str {
        match self {
            Topology::Dumbbell(_) => "dumbbell",
            Topology::ParkingLot(_) => "parking-lot",
            Topology::Graph(_) => "graph",
        }
    }

    pub fn dumbbell(&self) -> Option<&Dumbbell> {
        match self {
            Topology::Dumbbell(d) => Some(d),
            _ => None,
        }
    }

    /// Every flow's own access links (all kinds give each flow a pair on each side).
    pub fn access(&self) -> &Link {
        match self {
            Topology::Dumbbell(d) => &d.access,
            Topology::ParkingLot(p) => &p.access,
            Topology::Graph(g) => &g.access,
        }
    }

    /// The fastest link that can queue (not the access links): the most a set of flows
    /// could send through one link, for output estimates.
    /// The names of every link between routers, each direction, as the simulator names them
    /// (outputs, `pcap`): "bottleneck" and "bottleneck-reverse"; "hopI" and "hopI-reverse";
    /// "a-b" and "b-a".
    pub fn link_names(&self) -> Vec<String> {
        match self {
            Topology::Dumbbell(_) => vec!["bottleneck".into(), "bottleneck-reverse".into()],
            Topology::ParkingLot(p) => (1..=p.hops.len())
                .flat_map(|i| [format!("hop{i}"), format!("hop{i}-reverse")])
                .collect(),
            Topology::Graph(g) => g
                .links
                .iter()
                .flat_map(|l| {
                    let (a, b) = (&g.nodes[l.between.0], &g.nodes[l.between.1]);
                    [format!("{a}-{b}"), format!("{b}-{a}")]
                })
                .collect(),
        }
    }

    pub fn fastest_rate_bps(&self) -> u64 {
        match self {
            Topology::Dumbbell(d) => d
                .reverse
                .as_ref()
                .map_or(0, |r| r.rate_bps)
                .max(d.bottleneck.rate_bps),
            Topology::ParkingLot(p) => p.hops.iter().map(|l| l.rate_bps).max().unwrap_or(0),
            Topology::Graph(g) => g.links.iter().map(|l| l.link.rate_bps).max().unwrap_or(0),
        }
    }
}

/// Senders S_i – access – router L – bottleneck – router R – access – receivers R_i; every
/// flow has its own pair of access links.
#[derive(Clone, Debug, PartialEq)]
pub struct Dumbbell {
    pub bottleneck: Link,
    pub access: Link,
    /// `bottleneck.reverse`: the right-to-left direction's own rate, buffer, delay and
    /// queue. `None`: the forward direction's rate, delay and buffer, drop-tail, no loss.
    pub reverse: Option<Link>,
}

impl Dumbbell {
    /// The right-to-left direction: `reverse` when given, else today's reverse link (the
    /// forward's rate, delay and buffer, drop-tail, no loss).
    pub fn reverse_link(&self) -> Link {
        self.reverse.clone().unwrap_or_else(|| Link {
            queue: QueueDiscipline::DropTail,
            loss: LossModel::None,
            ack_loss: LossModel::None,
            jitter: None,
            ecn_threshold: None,
            ..self.bottleneck.clone()
        })
    }
}

/// `hops` links in a chain between nodes 0..=hops, named "hop1".."hopN"; every flow enters
/// at node `from` and leaves at node `to` through its own access links.
#[derive(Clone, Debug, PartialEq)]
pub struct ParkingLot {
    /// One per hop, in order (hop i joins nodes i − 1 and i). Each carries data left to
    /// right; ACKs go back over a reverse link of the same rate, delay and buffer.
    pub hops: Vec<Link>,
    pub access: Link,
}

/// Nodes and duplex links listed in the file; routes by minimum hop count.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    pub nodes: Vec<String>,
    pub links: Vec<GraphLink>,
    /// Every flow's own access links at its end nodes.
    pub access: Link,
}

/// A listed graph link: two one-way links, "a-b" (the node names in the order given) and
/// "b-a".
#[derive(Clone, Debug, PartialEq)]
pub struct GraphLink {
    /// Node indexes, in the order given.
    pub between: (usize, usize),
    pub link: Link,
}

/// Which way a flow's data goes on a dumbbell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    /// Left to right, over `bottleneck`.
    #[default]
    Forward,
    /// Right to left, over `bottleneck-reverse`: data from the right-hand hosts.
    Reverse,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// What carries the packets: a wire (the default), a Wi-Fi medium or a trace.
    pub kind: LinkKind,
    /// Bit/s. A Wi-Fi or trace link's nominal rate (its preset's PHY rate, its trace's mean),
    /// for BDP multiples and estimates.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: SimDuration,
    pub queue: QueueDiscipline,
    pub buffer: Buffer,
    /// Random loss of data segments on this link (both directions of a dumbbell bottleneck).
    pub loss: LossModel,
    /// Random loss of ACKs on this link (both directions of a dumbbell bottleneck).
    pub ack_loss: LossModel,
    /// Random extra delay per packet; `None`: none.
    pub jitter: Option<Jitter>,
    /// Mark ECN-capable packets CE when they arrive to find at least this many packets
    /// waiting (DCTCP-style step marking); `None`: no marking.
    pub ecn_threshold: Option<u64>,
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
    /// 4.3BSD-Tahoe as ns-2's `TcpAgent`: the third duplicate ACK retransmits the lost
    /// segment and slow-starts from one segment (go-back-N), with no fast recovery.
    Tahoe,
    /// Mathis & Mahdavi 1996 forward acknowledgment: the forward-most SACKed byte is the loss
    /// horizon and `awnd = snd.nxt − snd.fack + retran_data` the data in flight.
    Fack,
}

impl Recovery {
    /// Every name `recovery` accepts, in the order the docs list them.
    pub const NAMES: [&'static str; 5] = ["reno", "newreno", "sack", "tahoe", "fack"];

    pub fn name(self) -> &'static str {
        match self {
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
            Recovery::Tahoe => "tahoe",
            Recovery::Fack => "fack",
        }
    }

    pub fn from_name(name: &str) -> Option<Recovery> {
        [
            Recovery::Reno,
            Recovery::NewReno,
            Recovery::Sack,
            Recovery::Tahoe,
            Recovery::Fack,
        ]
        .into_iter()
        .find(|r| r.name() == name)
    }

    /// The receiver sends SACK blocks and the sender keeps them on its scoreboard (RFC 2018).
    pub fn uses_sack(self) -> bool {
        matches!(self, Recovery::Sack | Recovery::Fack)
    }
}

/// `loss_detection` of a flow group: how the sender decides a segment is lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LossDetection {
    /// RFC 6675 §4 IsLost (DupThresh = 3 SACKed segments above a hole), or three duplicate
    /// ACKs without SACK (RFC 5681 §3.2): the rule every flow used before RACK-TLP.
    #[default]
    DupAck,
    /// RFC 8985 RACK-TLP: a segment is lost when one sent after it was delivered more than
    /// RACK.rtt + reo_wnd ago; a tail loss probe stands in for the first RTO. Needs SACK.
    RackTlp,
}

impl LossDetection {
    pub fn name(self) -> &'static str {
        match self {
            LossDetection::DupAck => "dupack",
            LossDetection::RackTlp => "rack-tlp",
        }
    }
}

/// `lost_retransmission` of a flow group: what a fast recovery does when a retransmission
/// it sent is lost too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LostRetransmission {
    /// RFC 5681 §4.3: "the loss of a retransmission [...] MUST [lower] cwnd (and ssthresh)"
    /// again: a new recovery episode with its own reduction.
    #[default]
    Reduce,
    /// Linux (`tcp_fastretrans_alert`, case `TCP_CA_Recovery`): the segment is marked lost
    /// and sent again within the recovery under way, which keeps its reduction. (A
    /// retransmission lost after a timeout still starts a fast recovery that reduces, as
    /// Linux's `TCP_CA_Loss` case does with `FLAG_LOST_RETRANS`.)
    Continue,
}

impl LostRetransmission {
    pub fn name(self) -> &'static str {
        match self {
            LostRetransmission::Reduce => "reduce",
            LostRetransmission::Continue => "continue",
        }
    }
}

/// `reduce_from` of a flow group: what a loss or ECN reduction is computed from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReduceFrom {
    /// RFC 5681 §3.1 (`ssthresh = max(FlightSize / 2, 2·SMSS)`), RFC 9438 §4.6
    /// (`flight_size · β`): the data in flight, here RFC 6675's pipe.
    #[default]
    Flight,
    /// Linux: every module's `ssthresh()` reads `snd_cwnd` (`tcp_reno_ssthresh`:
    /// `max(snd_cwnd >> 1, 2)`; CUBIC's `bictcp_recalc_ssthresh`: `snd_cwnd · β`), the window
    /// in force, even when the flight is held below it by the receive window, the send
    /// buffer or the application.
    Cwnd,
}

impl ReduceFrom {
    pub fn name(self) -> &'static str {
        match self {
            ReduceFrom::Flight => "flight",
            ReduceFrom::Cwnd => "cwnd",
        }
    }
}

/// `prr_bound` of a flow group: when PRR's slow-start reduction bound adds its extra segment
/// once the flight has fallen to ssthresh or below.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrrBound {
    /// RFC 6937 §3, PRR-SSRB: on every ACK, `sndcnt = min(ssthresh − pipe,
    /// max(prr_delivered − prr_out, DeliveredData) + MSS)`.
    #[default]
    Ssrb,
    /// Linux `tcp_cwnd_reduction` (draft-ietf-tcpm-prr-rfc6937bis: "SafeACK"): the extra
    /// segment only on an ACK that advances `snd_una` and marks nothing newly lost
    /// (`FLAG_SND_UNA_ADVANCED && !newly_lost`); otherwise
    /// `min(ssthresh − pipe, max(prr_delivered − prr_out, DeliveredData))`.
    SafeAck,
}

impl PrrBound {
    pub fn name(self) -> &'static str {
        match self {
            PrrBound::Ssrb => "ssrb",
            PrrBound::SafeAck => "safe_ack",
        }
    }
}

/// `rto_estimator` of a flow group: how the retransmission timeout follows the RTT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RtoEstimator {
    /// RFC 6298 §2: RTO = SRTT + max(G, 4·RTTVAR), at least `min_rto`, at most 60 s.
    #[default]
    Rfc6298,
    /// Linux `tcp_rtt_estimator`/`tcp_set_rto`: RTO = SRTT + a variation term that falls
    /// slowly (once per round trip) and never below `min_rto`; at most 120 s.
    Linux,
}

impl RtoEstimator {
    pub fn name(self) -> &'static str {
        match self {
            RtoEstimator::Rfc6298 => "rfc6298",
            RtoEstimator::Linux => "linux",
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
    /// What the flows send: TCP (the default), UDP, or a workload of short TCP flows.
    pub kind: FlowKind,
    /// `on_off`: a TCP flow's application alternates sending and silence; `None`: it sends
    /// from `start` until `size` is done (or forever).
    pub on_off: Option<OnOff>,
    pub cc: &'static AlgorithmInfo,
    pub params: Params,
    pub count: u32,
    pub start: SimTime,
    /// Each flow starts at `start` plus a uniform random offset in `[0, start_jitter)`, drawn
    /// from the flow's own seeded stream; zero (the default) draws nothing.
    pub start_jitter: SimDuration,
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
    /// `loss_detection`: RFC 6675's duplicate-ACK rule (the default) or RFC 8985 RACK-TLP.
    pub loss_detection: LossDetection,
    /// `limited_transmit`: RFC 3042 — the first and second duplicate ACKs each send one new
    /// segment (FlightSize ≤ cwnd + 2·SMSS) without changing cwnd. SACK and FACK senders
    /// send on duplicate ACKs by their pipe rule whatever this says (RFC 6675 §5 step 3).
    pub limited_transmit: bool,
    /// `lost_retransmission`: a new reduction (RFC 5681 §4.3) or Linux's same recovery.
    pub lost_retransmission: LostRetransmission,
    /// `reduce_from`: the flight (the RFCs) or the window (Linux) a reduction starts from.
    pub reduce_from: ReduceFrom,
    /// `prr_bound`: PRR-SSRB's extra segment on every ACK (RFC 6937) or on a safe one (Linux).
    pub prr_bound: PrrBound,
    /// `undo`: undo window reductions found spurious by DSACK or timestamps (Linux
    /// `tcp_try_undo_*`); off by default.
    pub undo: bool,
    /// `frto`: F-RTO (RFC 5682) after a retransmission timeout; needs `undo`.
    pub frto: bool,
    /// ACK every second full segment (RFC 5681 §4.2) with this timer, or every segment.
    pub delayed_ack: Option<SimDuration>,
    /// Receiver's advertised window in bytes; `None` for unlimited (or tuned by the
    /// receiver: `connection.receive_window_auto`).
    pub receive_window: Option<u64>,
    /// `send_buffer`: the socket's send buffer (the application can have at most this much
    /// written and unacknowledged: Linux's `sk_sndbuf`), fixed or auto-tuned, counted in
    /// payload or in Linux's `truesize` (`send_buffer_accounting`); `None`: unlimited.
    pub send_buffer: Option<crate::send_buffer::SendBuffer>,
    /// `small_queues`: the sender keeps TCP Small Queues' limit on what waits at its NIC
    /// (Linux `tcp_small_queue_check`; the default), or, `false`, its host's device takes
    /// every packet at once, as a TUN device does (`tun_net_xmit` orphans each skb), so
    /// TSQ never holds the sender (docs/model.md, "Send buffer").
    pub small_queues: bool,
    /// Handshake and close, quick-ACK, receive-window auto-tuning (all off by default).
    pub connection: crate::connection::ConnectionOptions,
    /// RFC 6298 §2.4's floor on the RTO; with Linux's estimator, `tcp_rto_min`, the floor
    /// on the variation term added to SRTT.
    pub min_rto: SimDuration,
    /// `rto_estimator`: RFC 6298 (the default) or Linux's.
    pub rto_estimator: RtoEstimator,
    /// Pace at cwnd/srtt (×2 in slow start, ×1.2 after, as Linux does) when the controller
    /// does not set a pacing rate itself.
    pub pacing: bool,
    /// ECN-capable transport: the bottleneck may mark CE instead of queueing silently, and
    /// the receiver echoes the CE-marked bytes.
    pub ecn: EcnMode,
    /// Data-segment indexes (first transmissions, from 0) dropped once at the bottleneck.
    pub drop: Vec<u64>,
    /// `direction` (dumbbell only).
    pub direction: Direction,
    /// `route = { from, to }`: node indexes (parking lot: 0..=hops; graph: into `nodes`);
    /// `None` on a dumbbell.
    pub route: Option<(usize, usize)>,
    /// TCB sharing (`group`, `sharing`, `join`, `priority` and options; docs/sharing.md);
    /// `None` for `sharing = "none"`, the default.
    pub sharing: Option<crate::sharing::Sharing>,
}

/// `ecn` of a flow group: the ECN codepoint its data segments carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnMode {
    /// `ecn = false`: not ECN-capable.
    #[default]
    Off,
    /// `ecn = true`: ECT(0), the classic codepoint (RFC 3168).
    Classic,
    /// `ecn = "l4s"`: ECT(1), the L4S identifier (RFC 9331 §4), for a scalable controller
    /// such as DCTCP; a DualPI2 queue serves these packets in its low-latency queue.
    L4s,
}

impl EcnMode {
    /// The data is ECN-capable (either codepoint).
    pub fn is_capable(self) -> bool {
        self != EcnMode::Off
    }
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
    /// `pcap`: where packets are captured into pcap files (`pcap/NAME.pcap`).
    pub pcap: Vec<PcapPoint>,
    /// `pcap_payload`: store the payload bytes (zeros: the model carries none) after the
    /// headers; otherwise the snapshot length is the headers.
    pub pcap_payload: bool,
    /// Largest estimated output (bytes) `cclab run` accepts; `None`: no limit.
    pub max_size: Option<u64>,
}

/// One entry of `[output] pcap`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PcapPoint {
    /// Both directions of the duplex link this link belongs to, as `tcpdump` on that
    /// interface would see them: `pcap/NAME.pcap`.
    Link(String),
    /// `"flows"`: one file per flow at its sender, `pcap/flowN.pcap` (TCP and UDP flows; a
    /// workload's short flows are captured on links only).
    Flows,
}

/// Default of `output.max_size`: 1 GiB.
pub const MAX_OUTPUT_DEFAULT: u64 = 1 << 30;

/// Bytes per row of the output files, measured on `examples/dumbbell.toml` (10 Mbit/s, 60 s,
/// `trace_packets = [0]`) and rounded up by about a quarter, since counters grow longer at
/// higher rates and longer runs: timeseries.csv 95.6, queue.csv 38.2, rates.csv 22.7,
/// packets.csv 34.8 bytes per row, and 2.5 packets.csv rows per data packet (send, receive,
/// and an ACK for every second segment). summary.json: about 1.5 kB per flow plus 1 kB.
const TIMESERIES_ROW_BYTES: u64 = 120;
const QUEUE_ROW_BYTES: u64 = 50;
const RATES_ROW_BYTES: u64 = 30;
const PACKETS_ROW_BYTES: u64 = 45;
const PACKETS_ROWS_PER_PACKET: u64 = 3;
const SUMMARY_FLOW_BYTES: u64 = 2000;
const SUMMARY_BASE_BYTES: u64 = 2000;
/// pcap: a 16-byte record header and the IPv4 + TCP headers with options (at most 20 + 60)
/// per packet, rounded up.
const PCAP_PACKET_BYTES: u64 = 100;
/// flows.csv: one row per finished short flow of a workload, about 90 bytes (nine columns,
/// times with up to 17 significant digits), rounded up.
const FLOWS_ROW_BYTES: u64 = 120;

/// Estimated rows and bytes of each output file of a run, from the scenario alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputEstimate {
    /// Rows: one per flow per sample (an upper bound: flows not yet started write none).
    pub timeseries_rows: u64,
    /// Rows: one per sample and reported link.
    pub queue_rows: u64,
    /// Rows: one per flow per rate bin.
    pub rates_rows: u64,
    /// Rows: packet events of the traced flows, if together they filled the bottleneck.
    pub packets_rows: u64,
    pub flows: u64,
    /// Rows of flows.csv: the workloads' expected arrivals (one row per finished flow).
    pub flows_csv_rows: u64,
    /// Packets written to pcap files, and bytes per packet (more with `pcap_payload`).
    pub pcap_packets: u64,
    pub pcap_packet_bytes: u64,
}

impl OutputEstimate {
    pub fn timeseries_bytes(&self) -> u64 {
        self.timeseries_rows.saturating_mul(TIMESERIES_ROW_BYTES)
    }
    pub fn queue_bytes(&self) -> u64 {
        self.queue_rows.saturating_mul(QUEUE_ROW_BYTES)
    }
    pub fn rates_bytes(&self) -> u64 {
        self.rates_rows.saturating_mul(RATES_ROW_BYTES)
    }
    pub fn packets_bytes(&self) -> u64 {
        self.packets_rows.saturating_mul(PACKETS_ROW_BYTES)
    }
    pub fn flows_csv_bytes(&self) -> u64 {
        self.flows_csv_rows.saturating_mul(FLOWS_ROW_BYTES)
    }
    pub fn pcap_bytes(&self) -> u64 {
        self.pcap_packets.saturating_mul(self.pcap_packet_bytes)
    }
    pub fn summary_bytes(&self) -> u64 {
        self.flows
            .saturating_mul(SUMMARY_FLOW_BYTES)
            .saturating_add(SUMMARY_BASE_BYTES)
    }

    /// All files together.
    pub fn total_bytes(&self) -> u64 {
        [
            self.timeseries_bytes(),
            self.queue_bytes(),
            self.rates_bytes(),
            self.packets_bytes(),
            self.flows_csv_bytes(),
            self.pcap_bytes(),
            self.summary_bytes(),
        ]
        .into_iter()
        .fold(0, u64::saturating_add)
    }

    /// The largest file: (file name, its rows, the `[output]` key that sizes it).
    pub fn largest(&self) -> (&'static str, u64, &'static str) {
        [
            (
                self.timeseries_bytes(),
                ("timeseries.csv", self.timeseries_rows, "interval"),
            ),
            (
                self.packets_bytes(),
                ("packets.csv", self.packets_rows, "trace_packets"),
            ),
            (
                self.rates_bytes(),
                ("rates.csv", self.rates_rows, "rate_interval"),
            ),
            (
                self.queue_bytes(),
                ("queue.csv", self.queue_rows, "interval"),
            ),
            (
                self.flows_csv_bytes(),
                ("flows.csv", self.flows_csv_rows, "load"),
            ),
            (self.pcap_bytes(), ("pcap/", self.pcap_packets, "pcap")),
        ]
        .into_iter()
        .max_by_key(|(bytes, _)| *bytes)
        .map(|(_, what)| what)
        .unwrap_or(("timeseries.csv", 0, "interval"))
    }
}

/// A byte count for people: "1.0 GiB", "512.0 MiB", "900 B".
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

impl Scenario {
    /// How large the output folder of `cclab run` will be, before running.
    pub fn output_estimate(&self) -> OutputEstimate {
        let duration = self.duration.as_nanos() as u128;
        let flows = self.flow_count() as u128;
        // The run samples at interval, 2 × interval, ... up to the end.
        let samples = duration / self.output.interval.as_nanos().max(1) as u128;
        let bins = duration.div_ceil(self.output.rate_interval.as_nanos().max(1) as u128);
        let packets_rows = if self.output.trace_packets.is_empty() {
            0
        } else {
            // Together the traced flows send at most about the bottleneck's rate in their
            // smallest packets (drops at the bottleneck are rows too, but then fewer are
            // delivered and acknowledged).
            let smallest_packet = self
                .groups_of(&self.output.trace_packets)
                .map(|g| g.mss + g.header_bytes)
                .min()
                .unwrap_or_else(|| self.packet_bytes())
                .max(1) as u128;
            let packets = self.topology.fastest_rate_bps() as u128 * duration
                / (8 * 1_000_000_000 * smallest_packet);
            packets * PACKETS_ROWS_PER_PACKET as u128
        };
        // Each capture point sees at most the fastest link's rate of packets one way and an
        // ACK for each the other way.
        let pcap_packets = if self.output.pcap.is_empty() {
            0
        } else {
            let packets = self.topology.fastest_rate_bps() as u128 * duration
                / (8 * 1_000_000_000 * self.packet_bytes().max(1) as u128);
            2 * packets * self.output.pcap.len() as u128
        };
        let pcap_packet_bytes = PCAP_PACKET_BYTES
            + if self.output.pcap_payload {
                self.flows.iter().map(|g| g.mss).max().unwrap_or(0)
            } else {
                0
            };
        let clamp = |x: u128| u64::try_from(x).unwrap_or(u64::MAX);
        OutputEstimate {
            pcap_packets: clamp(pcap_packets),
            pcap_packet_bytes,
            timeseries_rows: clamp(flows * samples),
            queue_rows: clamp(samples * self.reported_links() as u128),
            rates_rows: clamp(flows * bins),
            packets_rows: clamp(packets_rows),
            flows: clamp(flows),
            flows_csv_rows: self.expected_arrivals(),
        }
    }

    /// Short flows the workloads are expected to start: per workload, its arrival rate
    /// times the span of its arrivals, `[start, min(stop, end))`.
    pub fn expected_arrivals(&self) -> u64 {
        let end = SimTime::ZERO + self.duration;
        let arrivals: f64 = self
            .flows
            .iter()
            .filter_map(|g| {
                let w = g.kind.workload()?;
                let until = w.stop.map_or(end, |s| s.min(end));
                let span = until.saturating_since(g.start).as_secs_f64();
                Some(w.arrivals_per_second() * span)
            })
            .sum();
        arrivals.ceil().min(u64::MAX as f64) as u64
    }

    /// How many links the outputs report (`summary.json` `links[]`, `queue.csv` rows per
    /// sample): the dumbbell's bottleneck, and its reverse direction when it has a `reverse`
    /// table or carries data; a parking lot's hops; both directions of every graph link.
    pub fn reported_links(&self) -> u64 {
        match &self.topology {
            Topology::Dumbbell(d) => {
                let reverse = d.reverse.is_some()
                    || self.flows.iter().any(|g| g.direction == Direction::Reverse);
                1 + reverse as u64
            }
            Topology::ParkingLot(p) => p.hops.len() as u64,
            Topology::Graph(g) => 2 * g.links.len() as u64,
        }
    }

    /// The flow groups that the flow ids belong to.
    fn groups_of<'a>(&'a self, ids: &'a [u32]) -> impl Iterator<Item = &'a FlowGroup> + 'a {
        ids.iter().filter_map(move |&id| {
            let mut first = 0u64;
            self.flows.iter().find(|g| {
                first += g.count as u64;
                (id as u64) < first
            })
        })
    }

    /// Total number of flows after expanding `count`.
    pub fn flow_count(&self) -> usize {
        self.flows.iter().map(|g| g.count as usize).sum()
    }

    /// Round-trip propagation delay without `extra_rtt`: on a dumbbell
    /// 2 × (access + bottleneck + access); on a parking lot the long path's,
    /// 2 × (access + hops × link + access); on a graph the longest of its flows' routes
    /// (computed by the simulator's builder; here the sum of every link's delay bounds it).
    pub fn base_rtt(&self) -> SimDuration {
        let access = self.topology.access().delay * 2;
        let core = match &self.topology {
            Topology::Dumbbell(d) => d.bottleneck.delay,
            Topology::ParkingLot(p) => p.hops.iter().fold(SimDuration::ZERO, |t, l| t + l.delay),
            Topology::Graph(g) => g
                .links
                .iter()
                .fold(SimDuration::ZERO, |t, l| t + l.link.delay),
        };
        (access + core) * 2
    }

    /// Bottleneck bandwidth-delay product in bytes (dumbbell; other kinds: their slowest
    /// link's rate), from [`Scenario::base_rtt`].
    pub fn bdp_bytes(&self) -> u64 {
        let rate = match &self.topology {
            Topology::Dumbbell(d) => d.bottleneck.rate_bps,
            Topology::ParkingLot(p) => p.hops.iter().map(|l| l.rate_bps).min().unwrap_or(0),
            Topology::Graph(g) => g.links.iter().map(|l| l.link.rate_bps).min().unwrap_or(0),
        };
        bdp_bytes(rate, self.base_rtt())
    }

    /// Wire size of a full data packet of the first flow group, the unit of packet buffers.
    pub fn packet_bytes(&self) -> u64 {
        let first = &self.flows[0];
        first.mss + first.header_bytes
    }

    /// A buffer limit resolved against this scenario's BDP ([`Scenario::bdp_bytes`]):
    /// (packets, bytes), `None` = no limit.
    pub fn buffer_limit(&self, buffer: Buffer) -> (Option<u64>, Option<u64>) {
        self.buffer_limit_at(buffer, self.bdp_bytes())
    }

    /// A buffer limit with BDP multiples resolved against `bdp_bytes` (a link's own BDP:
    /// parking-lot and graph links, docs/scenarios.md).
    pub fn buffer_limit_at(&self, buffer: Buffer, bdp_bytes: u64) -> (Option<u64>, Option<u64>) {
        match buffer {
            Buffer::Packets(p) => (Some(p), None),
            Buffer::Bytes(b) => (None, Some(b)),
            Buffer::Bdp(multiple) => {
                let packets = (bdp_bytes as f64 * multiple / self.packet_bytes() as f64).round();
                (Some((packets as u64).max(1)), None)
            }
            Buffer::Unlimited => (None, None),
        }
    }
}

/// Bytes in flight at `rate_bps` over `rtt`.
pub fn bdp_bytes(rate_bps: u64, rtt: SimDuration) -> u64 {
    (rate_bps as u128 * rtt.as_nanos() as u128 / 8_000_000_000) as u64
}
