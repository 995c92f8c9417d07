//! Link-level models of a scenario: queue disciplines, loss models and delay jitter, as plain
//! validated data. The simulator (`cclab_sim::net`) implements them; docs/queues.md describes
//! each with its reference. Defaults live in the `Default` impls, next to their source.

use cclab_cc::SimDuration;

/// `queue`: how a link's queue decides which packets to admit, drop or mark.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueDiscipline {
    /// First in, first out; drop on overflow of `buffer` (and the link's optional
    /// `ecn_threshold` step marking).
    DropTail,
    Red(RedConfig),
    Codel(CodelConfig),
    FqCodel(FqCodelConfig),
    Pie(PieConfig),
    DualPi2(DualPi2Config),
    Xcp(XcpConfig),
    Vcp(VcpConfig),
}

impl QueueDiscipline {
    /// The name used in scenario files and outputs.
    pub fn name(&self) -> &'static str {
        match self {
            QueueDiscipline::DropTail => "droptail",
            QueueDiscipline::Red(_) => "red",
            QueueDiscipline::Codel(_) => "codel",
            QueueDiscipline::FqCodel(_) => "fq_codel",
            QueueDiscipline::Pie(_) => "pie",
            QueueDiscipline::DualPi2(_) => "dualpi2",
            QueueDiscipline::Xcp(_) => "xcp",
            QueueDiscipline::Vcp(_) => "vcp",
        }
    }
}

/// Every discipline name a scenario may give.
pub const QUEUE_DISCIPLINES: [&str; 8] = [
    "droptail", "red", "codel", "fq_codel", "pie", "dualpi2", "xcp", "vcp",
];

/// Random Early Detection: Floyd & Jacobson 1993, with gentle mode (Floyd 2000) and adaptive
/// RED (Floyd, Gummadi & Shenker 2001). Defaults are ns-2's `Queue/RED`.
#[derive(Clone, Debug, PartialEq)]
pub struct RedConfig {
    /// Average-queue thresholds, in packets (in byte mode: in units of `mean_packet_bytes`).
    /// ns-2: thresh_ 5, maxthresh_ 15.
    pub min_th: f64,
    pub max_th: f64,
    /// EWMA weight of the average queue. `None`: ns-2's q_weight_ 0.002, or in adaptive mode
    /// the value Floyd, Gummadi & Shenker (2001) derive from the link's capacity C in
    /// mean-sized packets per second, 1 − exp(−1/C).
    pub w_q: Option<f64>,
    /// Drop probability at `max_th`. ns-2: 1/linterm_ = 0.1.
    pub max_p: f64,
    /// Between max_th and 2·max_th the probability rises linearly from max_p to 1 instead of
    /// jumping to 1. ns-2: gentle_ true.
    pub gentle: bool,
    /// Adapt max_p every 0.5 s to keep the average between the thresholds (Floyd et al. 2001).
    pub adaptive: bool,
    /// Measure the queue in bytes and scale the drop probability by packet size / mean size.
    pub byte_mode: bool,
    /// ns-2 mean_pktsize_, the unit of byte-mode thresholds and of the idle-time correction;
    /// `None`: the scenario's data packet size.
    pub mean_packet_bytes: Option<u64>,
    /// Mark ECN-capable packets CE instead of dropping them early (RFC 3168 §7).
    pub ecn: bool,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            w_q: None,
            max_p: 0.1,
            gentle: true,
            adaptive: false,
            byte_mode: false,
            mean_packet_bytes: None,
            ecn: false,
        }
    }
}

/// CoDel, RFC 8289.
#[derive(Clone, Debug, PartialEq)]
pub struct CodelConfig {
    /// Acceptable standing queue delay. RFC 8289 §4.4: 5 ms.
    pub target: SimDuration,
    /// Sliding window of the minimum sojourn time. RFC 8289 §4.3: 100 ms.
    pub interval: SimDuration,
    /// Mark ECN-capable packets CE instead of dropping them (RFC 8289 §5).
    pub ecn: bool,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig {
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            ecn: false,
        }
    }
}

/// FQ-CoDel, RFC 8290.
#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelConfig {
    /// Number of flow queues packets are hashed into. RFC 8290 §5.1 / Linux: 1024.
    pub flows: u32,
    /// DRR quantum in bytes. RFC 8290 §4: one MTU; Linux: 1514.
    pub quantum: u32,
    /// CoDel's parameters, applied per flow queue (RFC 8290 §5.2).
    pub target: SimDuration,
    pub interval: SimDuration,
    pub ecn: bool,
}

impl Default for FqCodelConfig {
    fn default() -> Self {
        FqCodelConfig {
            flows: 1024,
            quantum: 1514,
            target: SimDuration::from_millis(5),
            interval: SimDuration::from_millis(100),
            ecn: false,
        }
    }
}

/// PIE, RFC 8033.
#[derive(Clone, Debug, PartialEq)]
pub struct PieConfig {
    /// QDELAY_REF. RFC 8033 §5: 15 ms.
    pub target: SimDuration,
    /// T_UPDATE. RFC 8033 §5: 15 ms.
    pub tupdate: SimDuration,
    /// Gains in Hz. RFC 8033 §5: alpha 0.125, beta 1.25.
    pub alpha: f64,
    pub beta: f64,
    /// MAX_BURST. RFC 8033 §5: 150 ms.
    pub max_burst: SimDuration,
    /// Mark ECN-capable packets while the drop probability is at most 10 % (RFC 8033 §5.1).
    pub ecn: bool,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target: SimDuration::from_millis(15),
            tupdate: SimDuration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimDuration::from_millis(150),
            ecn: false,
        }
    }
}

/// DualPI2, RFC 9332: an L4S queue and a classic queue, coupled.
#[derive(Clone, Debug, PartialEq)]
pub struct DualPi2Config {
    /// Classic queue's target delay. RFC 9332 Appendix A: 15 ms.
    pub target: SimDuration,
    /// PI update interval. RFC 9332 Appendix A: 16 ms.
    pub tupdate: SimDuration,
    /// PI gains in Hz. RFC 9332 Appendix A: alpha 0.16, beta 3.2.
    pub alpha: f64,
    pub beta: f64,
    /// Coupling factor k: L4S marking probability k·p'. RFC 9332 §2.4: 2.
    pub coupling: f64,
    /// L4S queue's step marking threshold (sojourn time). RFC 9332 Appendix A: 1 ms.
    pub step_threshold: SimDuration,
}

impl Default for DualPi2Config {
    fn default() -> Self {
        DualPi2Config {
            target: SimDuration::from_millis(15),
            tupdate: SimDuration::from_millis(16),
            alpha: 0.16,
            beta: 3.2,
            coupling: 2.0,
            step_threshold: SimDuration::from_millis(1),
        }
    }
}

/// Random loss on a link, drawn per packet after serialization.
/// A VCP router (Xia, Subramanian, Stoica, Kalyanaraman, SIGCOMM 2005, §3): a drop-tail FIFO
/// whose link measures its load factor per interval and writes it, in two bits, into VCP
/// segments.
#[derive(Clone, Debug, PartialEq)]
pub struct VcpConfig {
    /// t_ρ, the measurement interval (§3.1: 200 ms).
    pub interval: SimDuration,
    /// γ, the target utilization (§3.1: 0.98).
    pub target_utilization: f64,
    /// κq, the weight of the persistent queue (§3.1: 0.5).
    pub kappa: f64,
}

impl Default for VcpConfig {
    fn default() -> Self {
        VcpConfig {
            interval: SimDuration::from_millis(200),
            target_utilization: 0.98,
            kappa: 0.5,
        }
    }
}

/// An XCP router (Katabi, Handley, Rohrs, SIGCOMM 2002, §3.5): a drop-tail FIFO whose link
/// computes each XCP data segment's share of the aggregate window change.
#[derive(Clone, Debug, PartialEq)]
pub struct XcpConfig {
    /// α of the efficiency controller φ = α·d·S − β·Q (§3.5.1; stable for α = 0.4, §4).
    pub alpha: f64,
    /// β of the efficiency controller (§3.5.1: 0.226 = α²·√2).
    pub beta: f64,
    /// γ, the share of traffic shuffled each interval (§3.5.2: 0.1).
    pub gamma: f64,
}

impl Default for XcpConfig {
    fn default() -> Self {
        XcpConfig {
            alpha: 0.4,
            beta: 0.226,
            gamma: 0.1,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    None,
    /// Each packet lost independently with this probability.
    Bernoulli(f64),
    /// Two-state Markov chain (Gilbert 1960, Elliott 1963): each packet first moves the chain
    /// (good→bad with `p_good_to_bad`, bad→good with `p_bad_to_good`), then is lost with the
    /// loss probability of the state it is in.
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
}

impl LossModel {
    pub fn is_none(&self) -> bool {
        matches!(self, LossModel::None | LossModel::Bernoulli(0.0))
    }
}

/// Random extra delay per packet, added after serialization to the propagation delay.
#[derive(Clone, Debug, PartialEq)]
pub struct Jitter {
    pub distribution: JitterDistribution,
    /// Each draw is `correlation · previous + (1 − correlation) · fresh` (netem's
    /// correlation), in [0, 1).
    pub correlation: f64,
    /// `false`: a packet never overtakes the one sent before it (its arrival is held to
    /// the previous arrival); `true`: jitter may reorder packets.
    pub reorder: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum JitterDistribution {
    /// Uniform in `[0, max]`.
    Uniform { max: SimDuration },
    /// Normal with this mean and standard deviation, truncated at zero.
    Normal {
        mean: SimDuration,
        stddev: SimDuration,
    },
}
