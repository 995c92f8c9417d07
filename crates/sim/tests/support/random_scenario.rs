//! Random small scenarios for property tests, written as scenario TOML so that every case
//! goes through the same parsing and validation as a user's file.
//!
//! Shared by `crates/sim/tests/properties.rs` and `crates/analysis/tests/properties.rs`
//! (included with `#[path]`); it uses only proptest, cclab-cc and cclab-scenario.

#![allow(dead_code)]

use std::fmt;

use cclab_cc::registry::{ALGORITHMS, InitialSsthreshUse, SLOW_STARTS};
use proptest::prelude::*;

/// A generated scenario; `Debug` shows the TOML as written, so a failing case can be pasted
/// into a file and run with `cclab run`.
#[derive(Clone)]
pub struct RandomScenario {
    pub toml: String,
    /// Flows after `count` expansion.
    pub flows: usize,
    /// Per reported link, by name: the longest a packet can wait for the transmitter, in
    /// nanoseconds, when the link's discipline serves first in, first out from a bounded
    /// buffer (drop-tail, RED, CoDel); `None` otherwise. See [`LinkDraw::max_wait_ns`].
    pub max_wait_ns: Vec<(String, Option<u64>)>,
    /// Some ACKs cross a link that is not reported (the dumbbell's reverse direction when it
    /// is not reported, a parking lot's `hopN-reverse`): the reported links' drops then count
    /// the flows' data drops only.
    pub ack_drops_unreported: bool,
    spec: Spec,
}

impl fmt::Debug for RandomScenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{}", self.toml)
    }
}

impl RandomScenario {
    /// The same scenario with every shared link's `queue` given as this TOML value, and without
    /// what only drop-tail's arrival path models the same way in every counter: the step
    /// marking (`ecn_threshold`, drop-tail's own) and random loss of data and ACKs
    /// (drop-tail counts a packet lost on the wire when it admits it, a scheduled discipline
    /// when it starts sending it, so the links' drop counters differ in time though the same
    /// packets are lost). Jitter stays.
    /// The same scenario with every TCP flow table set to one recovery, loss detection and
    /// undo setting (`undo`: 0 off, 1 undo, 2 undo and F-RTO). A table whose controller has
    /// no slow-start threshold runs `reno` for `tahoe` (refused otherwise: docs/scenarios.md).
    pub fn with_recovery(&self, recovery: RecoveryDraw) -> RandomScenario {
        let mut spec = self.spec.clone();
        for (group, _) in &mut spec.groups {
            group.recovery = recovery.recovery;
            if recovery.recovery == "tahoe"
                && ALGORITHMS[group.cc].initial_ssthresh == InitialSsthreshUse::None
            {
                group.recovery = "reno";
            }
            group.loss_detection = recovery.loss_detection;
            group.undo = recovery.undo;
        }
        spec.render()
    }

    pub fn fifo_comparable(&self, queue: &str) -> RandomScenario {
        let mut spec = self.spec.clone();
        for link in spec.topology.links_mut() {
            link.queue = Queue::Verbatim(queue.to_string());
            link.ecn_threshold = None;
            link.loss = Loss::None;
            link.ack_loss = Loss::None;
        }
        spec.render()
    }
}

/// One recovery setting of a flow table: `recovery`, `loss_detection` (written with `sack`
/// only) and `undo` (0 off, 1 `undo`, 2 `undo` and `frto`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryDraw {
    pub recovery: &'static str,
    pub loss_detection: &'static str,
    pub undo: u8,
}

/// Every setting the parser accepts: each recovery with each undo setting, and SACK with
/// both loss detections (RACK-TLP needs SACK and FACK keeps its own rule: RFC 8985 §4).
pub fn every_recovery() -> Vec<RecoveryDraw> {
    let mut all = Vec::new();
    for recovery in ["tahoe", "reno", "newreno", "sack", "fack"] {
        let detections: &[&'static str] = if recovery == "sack" {
            &["dupack", "rack-tlp"]
        } else {
            &["dupack"]
        };
        for &loss_detection in detections {
            for undo in 0..=2 {
                all.push(RecoveryDraw {
                    recovery,
                    loss_detection,
                    undo,
                });
            }
        }
    }
    all
}

#[derive(Clone, Copy, Debug)]
enum Buffer {
    Packets(u64),
    KiloBytes(u64),
    Bdp(f64),
}

#[derive(Clone, Debug)]
struct Group {
    cc: usize,
    slow_start: usize,
    count: u32,
    start_ms: u64,
    size: Option<u64>,
    /// Every recovery (`tahoe` only for controllers with a slow-start threshold, which the
    /// parser requires).
    recovery: &'static str,
    /// `loss_detection`, written only with SACK recovery (RACK-TLP needs it).
    loss_detection: &'static str,
    /// `undo` and `frto` (`frto` needs `undo`): 0 neither, 1 undo, 2 both.
    undo: u8,
    limited_transmit: bool,
    /// `rto_estimator`: `"rfc6298"` or `"linux"`.
    rto_estimator: &'static str,
    delayed_ack: bool,
    /// `false`, `true` or `"l4s"`.
    ecn: &'static str,
    pacing: bool,
    mss: u64,
    initial_window: u64,
    receive_window: Option<u64>,
    /// `send_buffer`: its size in bytes (any size from one segment: the sender rounds it to
    /// whole segments), whether it is `"auto"` (then the size is `tcp_wmem[2]`), and whether
    /// it counts `truesize`.
    send_buffer: Option<(u64, bool, bool)>,
    /// Data segments dropped once at the bottleneck (`drop`).
    drop: Vec<u64>,
    /// `handshake`, `drop_syn` (with it), `quick_ack`, and `receive_window = "auto"` (when
    /// no fixed window is drawn).
    connection: (bool, u32, bool, bool),
    /// TCB sharing among the table's flows (docs/sharing.md): `None`, or `sharing` and
    /// `join`; `aggregate` only for controllers that take an assigned window.
    sharing: Option<(&'static str, &'static str)>,
}

fn group(duration_ms: u64) -> impl Strategy<Value = Group> {
    (
        (
            0..ALGORITHMS.len(),
            0..SLOW_STARTS.len(),
            1u32..=2,
            // Mostly at 0, sometimes later (before the end of the run).
            prop_oneof![Just(0u64), 0..duration_ms],
            // Finite transfers from one byte to a few hundred packets, or unlimited.
            prop_oneof![Just(None), (1u64..400_000).prop_map(Some)],
        ),
        (
            prop_oneof![
                Just("tahoe"),
                Just("reno"),
                Just("newreno"),
                Just("sack"),
                Just("fack")
            ],
            any::<bool>(),
            prop_oneof![2 => Just("false"), 1 => Just("true"), 1 => Just("\"l4s\"")],
            prop_oneof![3 => Just(false), 1 => Just(true)],
            prop_oneof![Just(1448u64), Just(536), Just(100)],
            prop_oneof![Just(10u64), 1u64..=20],
            prop_oneof![3 => Just(None), 1 => (1u64..=64).prop_map(Some)],
        ),
        prop_oneof![3 => Just(Vec::new()), 1 => prop::collection::vec(0u64..60, 1..4)],
        prop_oneof![Just("dupack"), Just("rack-tlp")],
        (
            any::<bool>(),
            prop_oneof![3 => Just(0u32), 1 => 1u32..=2],
            any::<bool>(),
            prop_oneof![3 => Just(false), 1 => Just(true)],
        ),
        prop_oneof![
            4 => Just(None),
            1 => Just(Some(("aggregate", "ack-clocked"))),
            1 => Just(Some(("aggregate", "burst"))),
            1 => Just(Some(("aggregate", "paced"))),
            1 => Just(Some(("temporal", ""))),
        ],
        (
            0u8..=2,
            any::<bool>(),
            prop_oneof![Just("rfc6298"), Just("linux")],
            // At least the largest MSS drawn (1448): the parser refuses a buffer below a
            // segment.
            prop_oneof![
                3 => Just(None),
                1 => (1448u64..200_000, any::<bool>(), any::<bool>()).prop_map(Some)
            ],
        ),
    )
        .prop_map(
            |(
                (cc, slow_start, count, start_ms, size),
                (recovery, delayed_ack, ecn, pacing, mss, initial_window, receive_window),
                drop,
                loss_detection,
                connection,
                sharing,
                (undo, limited_transmit, rto_estimator, send_buffer),
            )| Group {
                cc,
                slow_start,
                count,
                start_ms,
                size,
                recovery: if recovery == "tahoe"
                    && ALGORITHMS[cc].initial_ssthresh == InitialSsthreshUse::None
                {
                    "reno"
                } else {
                    recovery
                },
                loss_detection,
                undo,
                limited_transmit,
                rto_estimator,
                delayed_ack,
                ecn,
                pacing,
                mss,
                initial_window,
                receive_window,
                send_buffer,
                drop,
                connection,
                sharing: sharing.filter(|(mode, _)| {
                    *mode != "aggregate"
                        || cclab_cc::registry::takes_assigned_window(ALGORITHMS[cc])
                }),
            },
        )
}

/// A link's queue discipline, with random valid parameters (the ranges docs/scenarios.md
/// gives for each key).
#[derive(Clone, Debug)]
enum Queue {
    /// Drop-tail written three ways: no `queue` key (0), `"droptail"` (1), a table (2).
    DropTail(u8),
    Red {
        min_th: f64,
        max_th: f64,
        w_q: Option<f64>,
        max_p: f64,
        gentle: bool,
        adaptive: bool,
        byte_mode: bool,
        mean_packet_bytes: Option<u64>,
        ecn: bool,
    },
    Codel {
        target_us: u64,
        interval_us: u64,
        ecn: bool,
    },
    FqCodel {
        flows: u32,
        quantum: u32,
        target_us: u64,
        interval_us: u64,
        ecn: bool,
    },
    Pie {
        target_us: u64,
        tupdate_us: u64,
        alpha: f64,
        beta: f64,
        max_burst_ms: u64,
        ecn: bool,
    },
    DualPi2 {
        target_us: u64,
        tupdate_us: u64,
        alpha: f64,
        beta: f64,
        coupling: f64,
        step_threshold_us: u64,
    },
    /// A value given by a test ([`RandomScenario::fifo_comparable`]).
    Verbatim(String),
}

impl Queue {
    /// The `queue` value, or `None` for no key.
    fn toml(&self) -> Option<String> {
        Some(match self {
            Queue::DropTail(0) => return None,
            Queue::DropTail(1) => "\"droptail\"".to_string(),
            Queue::DropTail(_) => "{ kind = \"droptail\" }".to_string(),
            Queue::Red {
                min_th,
                max_th,
                w_q,
                max_p,
                gentle,
                adaptive,
                byte_mode,
                mean_packet_bytes,
                ecn,
            } => {
                let mut t = format!(
                    "{{ kind = \"red\", min_th = {min_th:?}, max_th = {max_th:?}, \
                     max_p = {max_p:?}, gentle = {gentle}, adaptive = {adaptive}, \
                     byte_mode = {byte_mode}, ecn = {ecn}"
                );
                if let Some(w) = w_q {
                    t.push_str(&format!(", w_q = {w:?}"));
                }
                if let Some(b) = mean_packet_bytes {
                    t.push_str(&format!(", mean_packet_bytes = {b}"));
                }
                t + " }"
            }
            Queue::Codel {
                target_us,
                interval_us,
                ecn,
            } => format!(
                "{{ kind = \"codel\", target = \"{target_us}us\", interval = \"{interval_us}us\", \
                 ecn = {ecn} }}"
            ),
            Queue::FqCodel {
                flows,
                quantum,
                target_us,
                interval_us,
                ecn,
            } => format!(
                "{{ kind = \"fq_codel\", flows = {flows}, quantum = {quantum}, \
                 target = \"{target_us}us\", interval = \"{interval_us}us\", ecn = {ecn} }}"
            ),
            Queue::Pie {
                target_us,
                tupdate_us,
                alpha,
                beta,
                max_burst_ms,
                ecn,
            } => format!(
                "{{ kind = \"pie\", target = \"{target_us}us\", tupdate = \"{tupdate_us}us\", \
                 alpha = {alpha:?}, beta = {beta:?}, max_burst = \"{max_burst_ms}ms\", ecn = {ecn} }}"
            ),
            Queue::DualPi2 {
                target_us,
                tupdate_us,
                alpha,
                beta,
                coupling,
                step_threshold_us,
            } => format!(
                "{{ kind = \"dualpi2\", target = \"{target_us}us\", tupdate = \"{tupdate_us}us\", \
                 alpha = {alpha:?}, beta = {beta:?}, coupling = {coupling:?}, \
                 step_threshold = \"{step_threshold_us}us\" }}"
            ),
            Queue::Verbatim(v) => v.clone(),
        })
    }

    /// Serves first in, first out and drops arrivals only when the buffer is full or earlier
    /// (drop-tail, RED, CoDel's and PIE's FIFO): a packet then waits at most for the packets
    /// ahead of it in the buffer and the one in service. Not FQ-CoDel, whose round robin lets
    /// later arrivals of other flows go first, nor DualPI2, whose L4S queue goes first.
    fn fifo(&self) -> bool {
        matches!(
            self,
            Queue::DropTail(_) | Queue::Red { .. } | Queue::Codel { .. } | Queue::Pie { .. }
        )
    }
}

/// CoDel's target and interval in microseconds: target 0.5–20 ms, below the interval.
fn codel_times() -> impl Strategy<Value = (u64, u64)> {
    (500u64..=20_000).prop_flat_map(|target| (Just(target), target + 1..=target + 200_000))
}

fn queue() -> impl Strategy<Value = Queue> {
    prop_oneof![
        5 => (0u8..3).prop_map(Queue::DropTail),
        1 => (
            1_000u64..=30_000,
            1_000u64..=30_000,
            0.0f64..=2.0,
            0.0f64..=2.0,
            0u64..=200,
            any::<bool>(),
        )
            .prop_map(|(target_us, tupdate_us, alpha, beta, max_burst_ms, ecn)| Queue::Pie {
                target_us,
                tupdate_us,
                alpha,
                beta,
                max_burst_ms,
                ecn,
            }),
        1 => (
            1_000u64..=30_000,
            1_000u64..=30_000,
            0.0f64..=1.0,
            0.0f64..=10.0,
            1.0f64..=4.0,
            100u64..=5_000,
        )
            .prop_map(
                |(target_us, tupdate_us, alpha, beta, coupling, step_threshold_us)| {
                    Queue::DualPi2 {
                        target_us,
                        tupdate_us,
                        alpha,
                        beta,
                        coupling,
                        step_threshold_us,
                    }
                }
            ),
        1 => (
            0.0f64..20.0,
            0.5f64..30.0,
            prop_oneof![Just(None), (0.0005f64..=1.0).prop_map(Some)],
            0.01f64..=1.0,
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            prop_oneof![Just(None), (64u64..=1500).prop_map(Some)],
            any::<bool>(),
        )
            .prop_map(
                |(min_th, gap, w_q, max_p, gentle, adaptive, byte_mode, mean_packet_bytes, ecn)| {
                    Queue::Red {
                        min_th,
                        max_th: min_th + gap,
                        w_q,
                        max_p,
                        gentle,
                        adaptive,
                        byte_mode,
                        mean_packet_bytes,
                        ecn,
                    }
                }
            ),
        1 => (codel_times(), any::<bool>()).prop_map(|((target_us, interval_us), ecn)| {
            Queue::Codel {
                target_us,
                interval_us,
                ecn,
            }
        }),
        1 => (
            prop_oneof![Just(1024u32), 1u32..=16],
            256u32..=3000,
            codel_times(),
            any::<bool>(),
        )
            .prop_map(|(flows, quantum, (target_us, interval_us), ecn)| Queue::FqCodel {
                flows,
                quantum,
                target_us,
                interval_us,
                ecn,
            }),
    ]
}

/// A `loss` or `ack_loss` value (docs/scenarios.md, loss-model tables).
#[derive(Clone, Debug)]
enum Loss {
    /// No key.
    None,
    /// `loss = p`.
    Probability(f64),
    /// `{ model = "bernoulli", p }`.
    Bernoulli(f64),
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
}

impl Loss {
    fn toml(&self) -> Option<String> {
        match self {
            Loss::None => None,
            Loss::Probability(p) => Some(format!("{p:?}")),
            Loss::Bernoulli(p) => Some(format!("{{ model = \"bernoulli\", p = {p:?} }}")),
            Loss::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => Some(format!(
                "{{ model = \"gilbert-elliott\", p_good_to_bad = {p_good_to_bad:?}, \
                 p_bad_to_good = {p_bad_to_good:?}, loss_good = {loss_good:?}, \
                 loss_bad = {loss_bad:?} }}"
            )),
        }
    }
}

/// No loss in half the cases, else Bernoulli up to 5 % (as a number or a table) or a
/// Gilbert–Elliott chain whose long-run loss stays a few percent at most: bursts of mean
/// length 1/p_bad_to_good ≤ 20 packets, entered with probability ≤ 0.5 %.
fn loss() -> impl Strategy<Value = Loss> {
    prop_oneof![
        4 => Just(Loss::None),
        2 => (0.0001f64..0.05).prop_map(Loss::Probability),
        1 => (0.0001f64..0.05).prop_map(Loss::Bernoulli),
        1 => (0.0f64..=0.005, 0.05f64..=1.0, 0.0f64..=0.01, 0.0f64..=1.0).prop_map(
            |(p_good_to_bad, p_bad_to_good, loss_good, loss_bad)| Loss::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            }
        ),
    ]
}

/// A `jitter` table: uniform up to 0.1–10 ms or normal (mean 0–5 ms, deviation
/// 0.1–3 ms), any correlation in [0, 0.9], order kept or not.
fn jitter() -> impl Strategy<Value = Option<String>> {
    let distribution = prop_oneof![
        (100u64..=10_000).prop_map(|max| format!("max = \"{max}us\"")),
        (0u64..=5_000, 100u64..=3_000).prop_map(|(mean, stddev)| format!(
            "distribution = \"normal\", mean = \"{mean}us\", stddev = \"{stddev}us\""
        )),
    ];
    prop_oneof![
        2 => Just(None),
        1 => (
            distribution,
            prop_oneof![Just(None), (0.0f64..=0.9).prop_map(Some)],
            prop_oneof![Just(None), any::<bool>().prop_map(Some)],
        )
            .prop_map(|(distribution, correlation, reorder)| {
                let mut t = format!("{{ {distribution}");
                if let Some(c) = correlation {
                    t.push_str(&format!(", correlation = {c:?}"));
                }
                if let Some(r) = reorder {
                    t.push_str(&format!(", reorder = {r}"));
                }
                Some(t + " }")
            }),
    ]
}

/// The bottleneck.
#[derive(Clone, Debug)]
struct LinkDraw {
    rate_kbps: u64,
    delay_ms: u64,
    buffer: Buffer,
    queue: Queue,
    loss: Loss,
    ack_loss: Loss,
    jitter: Option<String>,
    /// Drop-tail only (it is drop-tail's step marking).
    ecn_threshold: Option<u64>,
}

impl LinkDraw {
    /// The link's keys, without braces; `buffer` as [`LinkDraw::buffer`] writes it.
    /// `explicit`: a parking lot's `hopN` table, which inherits every key it does not give
    /// from `link`, so drop-tail and no loss are written out (jitter cannot be written as
    /// none: a hop without its own inherits `link`'s, which changes no bound checked here).
    fn keys(&self, buffer: &str, explicit: bool) -> String {
        let mut t = format!(
            "rate = \"{}kbps\", delay = \"{}ms\", buffer = {buffer}",
            self.rate_kbps, self.delay_ms
        );
        let or_explicit = |value: Option<String>, none: &str| {
            value.or_else(|| explicit.then(|| none.to_string()))
        };
        for (key, value) in [
            ("loss", or_explicit(self.loss.toml(), "0")),
            ("ack_loss", or_explicit(self.ack_loss.toml(), "0")),
            ("jitter", self.jitter.clone()),
            ("queue", or_explicit(self.queue.toml(), "\"droptail\"")),
            ("ecn_threshold", self.ecn_threshold.map(|k| k.to_string())),
        ] {
            if let Some(value) = value {
                t.push_str(&format!(", {key} = {value}"));
            }
        }
        t
    }

    /// The buffer as written, and its limit: waiting packets or waiting bytes.
    fn buffer(&self, base_rtt_ms: u64, first_wire: u64) -> (String, BufferBound) {
        match self.buffer {
            Buffer::Packets(p) => (p.to_string(), BufferBound::Packets(p)),
            Buffer::KiloBytes(kb) => (format!("\"{kb}KB\""), BufferBound::Bytes(kb * 1000)),
            Buffer::Bdp(m) => {
                // rate × base RTT: kbit/s × ms = bits, / 8 = bytes.
                let bdp_bytes = m * (self.rate_kbps * base_rtt_ms) as f64 / 8.0;
                // A BDP multiple under half a packet of the first flow is invalid: 2 packets.
                if bdp_bytes >= first_wire as f64 {
                    // The simulator rounds to whole packets of the first flow's wire size
                    // (docs/scenarios.md); one more than the ceiling bounds any rounding.
                    let packets = (bdp_bytes / first_wire as f64).ceil() as u64 + 1;
                    (format!("\"{m}bdp\""), BufferBound::Packets(packets))
                } else {
                    ("2".to_string(), BufferBound::Packets(2))
                }
            }
        }
    }

    /// The longest wait for the transmitter on a FIFO-like link whose packets are at most
    /// `max_wire` bytes: the bytes that may wait ahead (the buffer) plus the packet in
    /// service, at the link's rate. The link serializes back-to-back packets with a carried
    /// remainder (`Link::serialization`), so a run of packets takes at most its bytes' exact
    /// time rounded down plus the one nanosecond the carry can add: hence `+ 1`.
    fn max_wait_ns(&self, bound: BufferBound, max_wire: u64) -> Option<u64> {
        if !self.queue.fifo() {
            return None;
        }
        let waiting_bytes = match bound {
            BufferBound::Packets(p) => p * max_wire,
            BufferBound::Bytes(b) => b,
        };
        let bits = u128::from(waiting_bytes + max_wire) * 8;
        Some((bits * 1_000_000_000 / (u128::from(self.rate_kbps) * 1000)) as u64 + 1)
    }
}

#[derive(Clone, Copy, Debug)]
enum BufferBound {
    Packets(u64),
    Bytes(u64),
}

fn bottleneck() -> impl Strategy<Value = LinkDraw> {
    (
        500u64..=20_000,
        1u64..=40,
        // Buffers in packets, bytes (at least one packet) or BDP multiples.
        prop_oneof![
            (1u64..=80).prop_map(Buffer::Packets),
            (2u64..=100).prop_map(Buffer::KiloBytes),
            prop_oneof![Just(0.25), Just(0.5), Just(1.0), Just(2.0)].prop_map(Buffer::Bdp),
        ],
        queue(),
        (loss(), loss(), jitter()),
        prop_oneof![2 => Just(None), 1 => (1u64..=30).prop_map(Some)],
    )
        .prop_map(
            |(rate_kbps, delay_ms, buffer, queue, (loss, ack_loss, jitter), ecn_threshold)| {
                LinkDraw {
                    rate_kbps,
                    delay_ms,
                    buffer,
                    ecn_threshold: ecn_threshold.filter(|_| matches!(queue, Queue::DropTail(_))),
                    queue,
                    loss,
                    ack_loss,
                    jitter,
                }
            },
        )
}

/// The bottleneck's right-to-left direction (`bottleneck.reverse`).
#[derive(Clone, Debug)]
struct ReverseDraw {
    /// `None`: the forward direction's rate.
    rate_kbps: Option<u64>,
    /// Packets.
    buffer: u64,
    queue: Queue,
}

/// The network: a dumbbell (with or without its own reverse direction), a parking lot of
/// 1–3 hops, or a connected graph of 3–5 nodes.
#[derive(Clone, Debug)]
enum TopologyDraw {
    Dumbbell {
        bottleneck: Box<LinkDraw>,
        reverse: Option<ReverseDraw>,
    },
    /// Hop 1 is `link`; the others are `hopN` tables giving every key.
    ParkingLot { hops: Vec<LinkDraw> },
    /// Nodes `n0`…; a chain n0–n1–…, then any extra links (distinct pairs).
    Graph {
        nodes: usize,
        links: Vec<(usize, usize, LinkDraw)>,
    },
}

impl TopologyDraw {
    fn links_mut(&mut self) -> Vec<&mut LinkDraw> {
        match self {
            TopologyDraw::Dumbbell { bottleneck, .. } => vec![&mut **bottleneck],
            TopologyDraw::ParkingLot { hops } => hops.iter_mut().collect(),
            TopologyDraw::Graph { links, .. } => links.iter_mut().map(|(_, _, l)| l).collect(),
        }
    }
}

/// Where a flow group goes: the dumbbell's direction, or a route between node indexes.
#[derive(Clone, Copy, Debug)]
enum Place {
    Forward,
    Reverse,
    Route(usize, usize),
}

fn topology() -> impl Strategy<Value = TopologyDraw> {
    prop_oneof![
        3 => (
            bottleneck(),
            prop_oneof![
                2 => Just(None),
                1 => (
                    prop_oneof![Just(None), (100u64..=20_000).prop_map(Some)],
                    1u64..=40,
                    queue(),
                )
                    .prop_map(|(rate_kbps, buffer, queue)| Some(ReverseDraw {
                        rate_kbps,
                        buffer,
                        queue,
                    })),
            ],
        )
            .prop_map(|(bottleneck, reverse)| TopologyDraw::Dumbbell {
                bottleneck: Box::new(bottleneck),
                reverse,
            }),
        1 => prop::collection::vec(bottleneck(), 1..=3)
            .prop_map(|hops| TopologyDraw::ParkingLot { hops }),
        1 => (3usize..=5)
            .prop_flat_map(|nodes| {
                (
                    Just(nodes),
                    prop::collection::vec(bottleneck(), nodes - 1),
                    prop::collection::vec(((0..nodes), (0..nodes), bottleneck()), 0..=2),
                )
            })
            .prop_map(|(nodes, chain, extra)| {
                let mut links: Vec<(usize, usize, LinkDraw)> = chain
                    .into_iter()
                    .enumerate()
                    .map(|(i, l)| (i, i + 1, l))
                    .collect();
                for (a, b, l) in extra {
                    let taken = links
                        .iter()
                        .any(|&(x, y, _)| (x, y) == (a, b) || (y, x) == (a, b));
                    if a != b && !taken {
                        links.push((a, b, l));
                    }
                }
                TopologyDraw::Graph { nodes, links }
            }),
    ]
}

fn place(topology: &TopologyDraw) -> BoxedStrategy<Place> {
    match topology {
        TopologyDraw::Dumbbell { .. } => {
            prop_oneof![3 => Just(Place::Forward), 1 => Just(Place::Reverse)].boxed()
        }
        TopologyDraw::ParkingLot { hops } => {
            let hops = hops.len();
            (0..hops)
                .prop_flat_map(move |from| (Just(from), from + 1..=hops))
                .prop_map(|(from, to)| Place::Route(from, to))
                .boxed()
        }
        TopologyDraw::Graph { nodes, .. } => {
            let nodes = *nodes;
            (0..nodes, 1..nodes)
                .prop_map(move |(from, step)| Place::Route(from, (from + step) % nodes))
                .boxed()
        }
    }
}

/// Everything drawn for one scenario; [`Spec::render`] writes it as TOML.
#[derive(Clone, Debug)]
struct Spec {
    duration_ms: u64,
    seed: u64,
    access_mbps: u64,
    topology: TopologyDraw,
    groups: Vec<(Group, Place)>,
    steady_from_ms: u64,
    rate_interval_ms: Option<u64>,
}

impl Spec {
    fn render(self) -> RandomScenario {
        let first_wire = self.groups[0].0.mss + 52;
        let max_wire = self
            .groups
            .iter()
            .map(|(g, _)| g.mss + 52)
            .max()
            .unwrap_or(first_wire);
        let mut toml = format!(
            "duration = \"{}ms\"\nseed = {}\n\n[topology]\n",
            self.duration_ms, self.seed
        );
        let access = format!(
            "access = {{ rate = \"{}Mbps\", delay = \"1ms\" }}\n",
            self.access_mbps
        );
        let mut max_wait_ns = Vec::new();
        // A BDP multiple is the dumbbell's own; elsewhere the per-link BDP depends on the
        // longest route through the link (docs/scenarios.md), so other shapes get packets.
        let fixed = |link: &LinkDraw| -> (String, BufferBound) {
            match link.buffer {
                Buffer::Bdp(m) => {
                    let p = ((m * 8.0) as u64).max(1);
                    (p.to_string(), BufferBound::Packets(p))
                }
                _ => link.buffer(0, first_wire),
            }
        };
        let ack_drops_unreported = match &self.topology {
            TopologyDraw::Dumbbell {
                bottleneck,
                reverse,
            } => {
                let base_rtt_ms = 2 * (2 + bottleneck.delay_ms);
                let (buffer, bound) = bottleneck.buffer(base_rtt_ms, first_wire);
                toml.push_str(&format!(
                    "bottleneck = {{ {}",
                    bottleneck.keys(&buffer, false)
                ));
                max_wait_ns.push((
                    "bottleneck".to_string(),
                    bottleneck.max_wait_ns(bound, max_wire),
                ));
                if let Some(r) = reverse {
                    toml.push_str(&format!(", reverse = {{ buffer = {}", r.buffer));
                    if let Some(rate) = r.rate_kbps {
                        toml.push_str(&format!(", rate = \"{rate}kbps\""));
                    }
                    if let Some(q) = r.queue.toml() {
                        toml.push_str(&format!(", queue = {q}"));
                    }
                    toml.push_str(" }");
                }
                toml.push_str(" }\n");
                toml.push_str(&access);
                // docs/scenarios.md: reported when it has a table or carries data.
                let reverse_reported = reverse.is_some()
                    || self.groups.iter().any(|(_, p)| matches!(p, Place::Reverse));
                if reverse_reported {
                    // The reverse direction as a link: its own rate, buffer and queue, no
                    // impairment that matters to the bound.
                    let as_link = reverse.as_ref().map(|r| LinkDraw {
                        rate_kbps: r.rate_kbps.unwrap_or(bottleneck.rate_kbps),
                        buffer: Buffer::Packets(r.buffer),
                        queue: r.queue.clone(),
                        ..(**bottleneck).clone()
                    });
                    let bound = match &as_link {
                        Some(l) => l.max_wait_ns(
                            BufferBound::Packets(match l.buffer {
                                Buffer::Packets(p) => p,
                                _ => unreachable!("built with packets above"),
                            }),
                            max_wire,
                        ),
                        // Without a table: the forward's rate and buffer, drop-tail.
                        None => LinkDraw {
                            queue: Queue::DropTail(0),
                            ..(**bottleneck).clone()
                        }
                        .max_wait_ns(bound, max_wire),
                    };
                    max_wait_ns.push(("bottleneck-reverse".to_string(), bound));
                }
                !reverse_reported
            }
            TopologyDraw::ParkingLot { hops } => {
                toml.push_str(&format!("kind = \"parking-lot\"\nhops = {}\n", hops.len()));
                for (i, hop) in hops.iter().enumerate() {
                    let (buffer, bound) = fixed(hop);
                    let key = if i == 0 {
                        "link".to_string()
                    } else {
                        format!("hop{}", i + 1)
                    };
                    toml.push_str(&format!("{key} = {{ {} }}\n", hop.keys(&buffer, i > 0)));
                    max_wait_ns.push((format!("hop{}", i + 1), hop.max_wait_ns(bound, max_wire)));
                }
                toml.push_str(&access);
                // ACKs come back over `hopN-reverse`, not reported.
                true
            }
            TopologyDraw::Graph { nodes, links } => {
                let names: Vec<String> = (0..*nodes).map(|i| format!("\"n{i}\"")).collect();
                toml.push_str(&format!(
                    "kind = \"graph\"\nnodes = [{}]\nlinks = [\n",
                    names.join(", ")
                ));
                for (a, b, link) in links {
                    let (buffer, bound) = fixed(link);
                    toml.push_str(&format!(
                        "  {{ between = [\"n{a}\", \"n{b}\"], {} }},\n",
                        link.keys(&buffer, false)
                    ));
                    // Both directions are reported, with the same keys.
                    let wait = link.max_wait_ns(bound, max_wire);
                    max_wait_ns.push((format!("n{a}-n{b}"), wait));
                    max_wait_ns.push((format!("n{b}-n{a}"), wait));
                }
                toml.push_str("]\n");
                toml.push_str(&access);
                false
            }
        };
        let mut flows = 0;
        for (g, place) in &self.groups {
            let cc = ALGORITHMS[g.cc];
            toml.push_str(&format!("\n[[flows]]\ncc = \"{}\"\n", cc.name));
            if cc.uses_slow_start {
                toml.push_str(&format!(
                    "slow_start = \"{}\"\n",
                    SLOW_STARTS[g.slow_start].name
                ));
            }
            match (place, &self.topology) {
                (Place::Forward, _) => {}
                (Place::Reverse, _) => toml.push_str("direction = \"reverse\"\n"),
                (Place::Route(from, to), TopologyDraw::Graph { .. }) => toml.push_str(&format!(
                    "route = {{ from = \"n{from}\", to = \"n{to}\" }}\n"
                )),
                (Place::Route(from, to), _) => {
                    toml.push_str(&format!("route = {{ from = {from}, to = {to} }}\n"))
                }
            }
            toml.push_str(&format!(
                "count = {}\nstart = \"{}ms\"\nsize = {}\nrecovery = \"{}\"\n\
                 delayed_ack = {}\necn = {}\npacing = {}\nmss = {}\ninitial_window = {}\n",
                g.count,
                g.start_ms,
                g.size
                    .map_or_else(|| "\"unlimited\"".to_string(), |s| s.to_string()),
                g.recovery,
                g.delayed_ack,
                g.ecn,
                g.pacing,
                g.mss,
                g.initial_window,
            ));
            let (handshake, drop_syn, quick_ack, auto_window) = g.connection;
            match g.receive_window {
                Some(w) => toml.push_str(&format!("receive_window = {w}\n")),
                None if auto_window => toml.push_str("receive_window = \"auto\"\n"),
                None => {}
            }
            match g.send_buffer {
                Some((bytes, true, _)) => toml.push_str(&format!(
                    "send_buffer = \"auto\"\ntcp_wmem = [{}, {}, {bytes}]\n",
                    bytes.min(4096),
                    bytes.min(16_384)
                )),
                Some((bytes, false, _)) => {
                    toml.push_str(&format!("send_buffer = \"{bytes}B\"\n"));
                }
                None => {}
            }
            if let Some((_, _, true)) = g.send_buffer {
                toml.push_str("send_buffer_accounting = \"truesize\"\n");
            }
            if handshake {
                toml.push_str(&format!("handshake = true\ndrop_syn = {drop_syn}\n"));
            }
            if quick_ack {
                toml.push_str("quick_ack = true\n");
            }
            if g.recovery == "sack" {
                toml.push_str(&format!("loss_detection = \"{}\"\n", g.loss_detection));
            }
            if g.undo >= 1 {
                toml.push_str("undo = true\n");
            }
            if g.undo == 2 {
                toml.push_str("frto = true\n");
            }
            toml.push_str(&format!(
                "limited_transmit = {}\nrto_estimator = \"{}\"\n",
                g.limited_transmit, g.rto_estimator
            ));
            if !g.drop.is_empty() {
                toml.push_str(&format!("drop = {:?}\n", g.drop));
            }
            match g.sharing {
                Some((mode, "")) => toml.push_str(&format!("sharing = \"{mode}\"\n")),
                Some((mode, join)) => {
                    toml.push_str(&format!("sharing = \"{mode}\"\njoin = \"{join}\"\n"))
                }
                None => {}
            }
            flows += g.count as usize;
        }
        // Every flow's packet events, for the checks that follow packets one by one.
        let ids: Vec<String> = (0..flows).map(|i| i.to_string()).collect();
        toml.push_str(&format!(
            "\n[output]\ninterval = \"10ms\"\nsteady_from = \"{}ms\"\n\
             trace_packets = [{}]\n",
            self.steady_from_ms,
            ids.join(", ")
        ));
        if let Some(ms) = self.rate_interval_ms {
            toml.push_str(&format!("rate_interval = \"{ms}ms\"\n"));
        }
        RandomScenario {
            toml,
            flows,
            max_wait_ns,
            ack_drops_unreported,
            spec: self,
        }
    }
}

/// One to three `[[flows]]` tables of one or two flows each, for 0.2–1.5 s, on a dumbbell
/// (three cases in five; flows in either direction, the reverse direction sometimes its own
/// link), a parking lot of 1–3 hops or a graph of 3–5 nodes (flows on random routes), links
/// of 0.5–20 Mbit/s and 1–40 ms: a few hundred to a few thousand packets, cheap in debug
/// builds. Each shared link's discipline is drop-tail (half the cases), RED, CoDel or
/// FQ-CoDel with random valid parameters, with random loss, ACK loss and jitter.
pub fn random_scenario() -> impl Strategy<Value = RandomScenario> {
    (200u64..=1500, topology())
        .prop_flat_map(|(duration_ms, topology)| {
            let place = place(&topology);
            (
                Just(duration_ms),
                0u64..=i64::MAX as u64,
                prop_oneof![Just(100u64), Just(1000)],
                Just(topology),
                prop::collection::vec((group(duration_ms), place), 1..=3),
                // The steady-state window: the whole run, a late part, or empty.
                prop_oneof![2 => Just(0u64), 1 => 0..duration_ms + 100],
                prop_oneof![Just(None), (1u64..=20).prop_map(|k| Some(10 * k))],
            )
        })
        .prop_map(
            |(
                duration_ms,
                seed,
                access_mbps,
                topology,
                groups,
                steady_from_ms,
                rate_interval_ms,
            )| {
                Spec {
                    duration_ms,
                    seed,
                    access_mbps,
                    topology,
                    groups,
                    steady_from_ms,
                    rate_interval_ms,
                }
                .render()
            },
        )
}
