//! YeAH-TCP: A. Baiocchi, A. P. Castellani, F. Vacirca, "YeAH-TCP: Yet Another Highspeed
//! TCP", PFLDnet 2007. Details as in Linux `net/ipv4/tcp_yeah.c` (by the same Castellani).
//!
//! Two modes, chosen once per round trip from a Vegas-style estimate of this flow's queued
//! packets `Q = cwnd·(RTT_min − BaseRTT)/RTT_min` (RTT_min: smallest sample of the round)
//! and the queueing delay `RTT_min − BaseRTT`:
//!
//! * **fast** when `Q ≤ α` and the delay is at most `BaseRTT/φ`: Scalable-TCP growth, one
//!   packet per `min(cwnd, 100)` packets acknowledged;
//! * **slow** otherwise: Reno growth, and *precautionary decongestion* when `Q > α`: cwnd
//!   gives back `min(Q/γ, cwnd/2^ε)` packets (never going below the estimated window of a
//!   competing Reno flow, `reno_count`), and ssthresh = cwnd.
//!
//! On loss the window shrinks by `max(min(Q, cwnd/2), cwnd/2^δ)` — only the queue it built —
//! unless the flow has spent ρ consecutive rounds in slow mode (a sign of competing with
//! loss-based flows), in which case it halves like Reno. `reno_count` emulates a Reno window
//! (+1 per slow round, halved on loss) and is reset after ζ fast rounds. Slow start is the
//! swappable [`SlowStart`] part.

use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;

use super::byte_counter::ByteCounter;
use super::rtt_rounds::{RoundStats, RoundTracker};

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("alpha", 80.0, 0.0, 100_000.0)
        .unit("packets")
        .doc("α: largest queue Q (packets) this flow may build and stay in fast mode"),
    ParamSpec::number("gamma", 1.0, 0.01, 1000.0)
        .doc("γ: decongestion removes Q/γ packets per round (1: the whole estimated queue)"),
    ParamSpec::integer("delta", 3, 0, 16)
        .doc("δ: a loss removes at least cwnd/2^δ (3: one eighth)"),
    ParamSpec::integer("epsilon", 1, 0, 16)
        .doc("ε: decongestion removes at most cwnd/2^ε per round (1: half)"),
    ParamSpec::number("phy", 8.0, 0.01, 1000.0)
        .doc("φ: fast mode needs queueing delay ≤ BaseRTT/φ"),
    ParamSpec::integer("rho", 16, 1, 1_000_000)
        .unit("RTTs")
        .doc("ρ: after this many consecutive slow rounds a loss halves the window like Reno"),
    ParamSpec::integer("zeta", 50, 1, 1_000_000)
        .unit("RTTs")
        .doc("ζ: fast rounds after which the Reno-window estimate is reset"),
    ParamSpec::integer("stcp_ai_cnt", 100, 1, 1_000_000)
        .unit("packets")
        .doc("fast mode adds one packet per min(cwnd, stcp_ai_cnt) acknowledged (STCP a = 0.01)"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "yeah",
    aliases: &["yeah-tcp"],
    summary: "Scalable growth while the queue is small, Reno plus decongestion otherwise",
    reference: "Baiocchi, Castellani, Vacirca, PFLDnet 2007; Linux net/ipv4/tcp_yeah.c",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| Box::new(Yeah::from_params(config, params, slow_start)),
};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct YeahParams {
    /// Packets.
    pub alpha: f64,
    pub gamma: f64,
    pub delta: u32,
    pub epsilon: u32,
    pub phy: f64,
    pub rho: u32,
    pub zeta: u32,
    /// Packets.
    pub stcp_ai_cnt: u64,
}

impl YeahParams {
    pub const PAPER: YeahParams = YeahParams {
        alpha: 80.0,
        gamma: 1.0,
        delta: 3,
        epsilon: 1,
        phy: 8.0,
        rho: 16,
        zeta: 50,
        stcp_ai_cnt: 100,
    };
}

/// Linux needs more than two RTT samples in a round (one may be a delayed ACK's).
const MIN_SAMPLES: u32 = 3;

pub struct Yeah {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    params: YeahParams,
    /// Consecutive rounds in slow mode (`doing_reno_now`); 0 means fast mode.
    slow_rounds: u32,
    /// Estimated window of a competing Reno flow, bytes (`reno_count`).
    reno_count: u64,
    /// Fast rounds since `reno_count` was last reset.
    fast_count: u32,
    /// Q of the last round, packets (`lastQ`).
    last_queue: f64,
    increase: ByteCounter,
    rounds: RoundTracker,
    slow_start: Box<dyn SlowStart>,
}

impl Yeah {
    pub fn new(config: &CcConfig, params: YeahParams, slow_start: Box<dyn SlowStart>) -> Self {
        Yeah {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            params,
            slow_rounds: 0,
            reno_count: 2 * config.mss,
            fast_count: 0,
            last_queue: 0.0,
            increase: ByteCounter::new(),
            rounds: RoundTracker::new(),
            slow_start,
        }
    }

    pub fn from_params(config: &CcConfig, params: &Params, slow_start: Box<dyn SlowStart>) -> Self {
        let params = YeahParams {
            alpha: params.number("alpha"),
            gamma: params.number("gamma"),
            delta: params.number("delta") as u32,
            epsilon: params.number("epsilon") as u32,
            phy: params.number("phy"),
            rho: params.number("rho") as u32,
            zeta: params.number("zeta") as u32,
            stcp_ai_cnt: params.number("stcp_ai_cnt") as u64,
        };
        Yeah::new(config, params, slow_start)
    }

    pub fn in_fast_mode(&self) -> bool {
        self.slow_rounds == 0
    }

    fn floor(&self) -> u64 {
        2 * self.mss
    }

    /// The once-per-RTT mode decision and precautionary decongestion.
    fn end_of_round(&mut self, round: &RoundStats) {
        let (Some(base), Some(rtt)) = (self.rounds.base_rtt(), round.min_rtt()) else {
            return;
        };
        if round.samples < MIN_SAMPLES || rtt.is_zero() {
            return;
        }
        let queue_delay = rtt.saturating_sub(base).as_nanos() as f64;
        // Q = cwnd·(RTT − BaseRTT)/RTT packets: this flow's backlog at the bottleneck.
        let queue = self.cwnd as f64 / self.mss as f64 * queue_delay / rtt.as_nanos() as f64;
        let p = self.params;
        if queue > p.alpha || queue_delay > base.as_nanos() as f64 / p.phy {
            // Slow (Reno) mode.
            if queue > p.alpha && self.cwnd > self.reno_count {
                // Precautionary decongestion: drain the queue, at most cwnd/2^ε at once,
                // never below the window a competing Reno flow would have.
                let drain = (queue / p.gamma * self.mss as f64) as u64;
                let reduction = drain.min(self.cwnd >> p.epsilon);
                self.cwnd = self
                    .cwnd
                    .saturating_sub(reduction)
                    .max(self.reno_count)
                    .max(self.floor());
                self.ssthresh = self.cwnd;
            }
            // Emulate Reno: start from half the window, then +1 per slow round.
            if self.reno_count <= 2 * self.mss {
                self.reno_count = (self.cwnd / 2).max(2 * self.mss);
            } else {
                self.reno_count += self.mss;
            }
            self.slow_rounds = self.slow_rounds.saturating_add(1);
        } else {
            self.fast_count += 1;
            if self.fast_count > p.zeta {
                // A long uncontested stretch: forget the Reno-window estimate.
                self.reno_count = 2 * self.mss;
                self.fast_count = 0;
            }
            self.slow_rounds = 0;
        }
        self.last_queue = queue;
    }

    /// The window after a loss (Linux `tcp_yeah_ssthresh`).
    fn window_after_loss(&mut self) -> u64 {
        let half = (self.cwnd / 2).max(self.floor());
        let reduction = if self.slow_rounds < self.params.rho {
            // Not competing with Reno: remove the queue this flow built, at least
            // cwnd/2^δ and at most half.
            let queue = (self.last_queue * self.mss as f64) as u64;
            queue.min(half).max(self.cwnd >> self.params.delta)
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count / 2).max(2 * self.mss);
        self.cwnd.saturating_sub(reduction).max(self.floor())
    }
}

impl CongestionControl for Yeah {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        let finished = self.rounds.on_ack(ack);
        if ack.in_recovery {
            self.rounds.restart();
            return;
        }
        // tcp_yeah.c returns before both growth and the round decision when the sender is
        // not cwnd-limited.
        if !ack.cwnd_limited {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
        } else {
            // Fast: STCP, +1 per min(cwnd, 100) packets; slow: Reno, +1 per cwnd.
            let per = if self.in_fast_mode() {
                self.cwnd.min(self.params.stcp_ai_cnt * self.mss)
            } else {
                self.cwnd
            };
            let segments = self.increase.on_ack(ack.bytes_acked, 1.0, per);
            self.cwnd += segments * self.mss;
        }
        if let Some(round) = finished {
            self.end_of_round(&round);
        }
    }

    fn on_congestion_event(&mut self, _event: &CongestionEvent) {
        self.ssthresh = self.window_after_loss();
        self.cwnd = self.ssthresh;
        self.increase.reset();
        self.rounds.restart();
    }

    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {
        // Linux tcp_yeah_ssthresh, as after a fast retransmit.
        self.ssthresh = self.window_after_loss();
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        self.cwnd = self.mss;
        self.increase.reset();
        self.rounds.restart();
        self.slow_start.restart();
    }

    fn on_recovery_exit(&mut self, _now: crate::time::SimTime) {
        self.rounds.restart();
    }

    fn observes_sends(&self) -> crate::controller::SendsObserved {
        crate::controller::SendsObserved::FromIdle
    }

    fn on_packet_sent(&mut self, now: crate::time::SimTime, bytes: u64, bytes_in_flight: u64) {
        self.rounds.on_packet_sent(now, bytes, bytes_in_flight);
    }

    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics {
            min_rtt: self.rounds.base_rtt(),
            backlog_segments: self.rounds.base_rtt().map(|_| self.last_queue),
            ..ControllerMetrics::with_slow_start(self.slow_start.as_ref())
        }
    }

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Linux `tcp_reno_undo_cwnd`: the window and threshold come back, nothing else.
        (self.cwnd, self.ssthresh) = event.reno_restore(self.cwnd, self.ssthresh);
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd;
        self.ssthresh = ssthresh;
    }

    fn mode(&self) -> &'static str {
        if self.cwnd < self.ssthresh {
            "slow_start"
        } else if self.in_fast_mode() {
            "fast"
        } else {
            "slow"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::delay_harness::Path;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, ack_with_rtt, loss, ms, timeout};
    use crate::time::SimDuration;

    const MSS: u64 = 1000;

    fn us(n: u64) -> SimDuration {
        SimDuration::from_micros(n)
    }

    /// Congestion avoidance at `packets`, BaseRTT 100 ms.
    fn yeah(packets: u64) -> Yeah {
        let config = CcConfig::new(MSS);
        let mut y = Yeah::new(
            &config,
            YeahParams::PAPER,
            Box::new(StandardSlowStart::new(&config)),
        );
        y.cwnd = packets * MSS;
        y.ssthresh = packets * MSS;
        y.rounds.on_ack(&ack_with_rtt(MSS, 0, 100));
        y
    }

    fn round_at(rtt: SimDuration) -> RoundStats {
        RoundStats::of(&[rtt, rtt + ms(1), rtt + ms(2)])
    }

    #[test]
    fn mode_from_queue_and_queueing_delay() {
        let mut y = yeah(200);
        assert_eq!(y.mode(), "fast");
        // 105 ms: Q = 200·5/105 = 9.5 ≤ 80, delay 5 ms ≤ 100/8 = 12.5 ms → fast.
        y.end_of_round(&round_at(ms(105)));
        assert_eq!((y.mode(), y.fast_count), ("fast", 1));
        // 115 ms: Q = 200·15/115 = 26.1 ≤ 80 but delay 15 ms > 12.5 ms → slow; no
        // decongestion (Q ≤ α); reno_count starts at cwnd/2 = 100.
        y.end_of_round(&round_at(ms(115)));
        assert_eq!(y.mode(), "slow");
        assert_eq!((y.cwnd(), y.reno_count), (200 * MSS, 100 * MSS));
        // 112.5 ms: delay exactly BaseRTT/φ is still fast (Linux: rtt − base > base/φ).
        y.end_of_round(&round_at(us(112_500)));
        assert_eq!((y.mode(), y.fast_count), ("fast", 2));
        // Only the round's minimum counts: samples 104, 130, 160 ms give Q = 200·4/104.
        y.end_of_round(&RoundStats::of(&[ms(130), ms(104), ms(160)]));
        assert_eq!(y.mode(), "fast");
        // Fewer than three samples: no decision.
        y.end_of_round(&RoundStats::of(&[ms(300), ms(300)]));
        assert_eq!(y.mode(), "fast");
    }

    #[test]
    fn decongestion_drains_the_estimated_queue() {
        // 200 ms with 200 packets: Q = 200·100/200 = 100 > α = 80 → slow mode and
        // reduction = min(Q/γ, cwnd/2^ε) = min(100, 100) = 100 → cwnd = ssthresh = 100;
        // reno_count = 100/2 = 50.
        let mut y = yeah(200);
        y.end_of_round(&round_at(ms(200)));
        assert_eq!(
            (y.cwnd(), y.ssthresh(), y.mode()),
            (100 * MSS, 100 * MSS, "slow")
        );
        assert_eq!(y.reno_count, 50 * MSS);
        assert_eq!(y.last_queue, 100.0);
        // 150 ms with 300 packets: Q = 300·50/150 = 100 → min(100, 150) = 100 → 200;
        // reno_count, already estimated, grows by one packet per slow round.
        let mut y = yeah(300);
        y.reno_count = 50 * MSS;
        y.end_of_round(&round_at(ms(150)));
        assert_eq!((y.cwnd(), y.reno_count), (200 * MSS, 51 * MSS));
        // Capped at cwnd/2^ε: 400 ms with 120 packets: Q = 120·300/400 = 90 → min(90, 60).
        let mut y = yeah(120);
        y.end_of_round(&round_at(ms(400)));
        assert_eq!(y.cwnd(), 60 * MSS);
        // … and never below reno_count (100 here).
        let mut y = yeah(120);
        y.reno_count = 100 * MSS;
        y.end_of_round(&round_at(ms(400)));
        assert_eq!(y.cwnd(), 100 * MSS);
        // A window at or below reno_count is left alone.
        let mut y = yeah(120);
        y.reno_count = 120 * MSS;
        y.end_of_round(&round_at(ms(400)));
        assert_eq!(y.cwnd(), 120 * MSS);
        // γ = 2 drains half the queue: 200 packets at 200 ms → 200 − 50 = 150.
        let mut y = yeah(200);
        y.params.gamma = 2.0;
        y.end_of_round(&round_at(ms(200)));
        assert_eq!(y.cwnd(), 150 * MSS);
    }

    #[test]
    fn loss_removes_the_queue_unless_competing_with_reno() {
        // Fast flow, cwnd 200: reduction = max(min(Q, cwnd/2), cwnd/8).
        for (queue, after) in [(30.0, 170), (10.0, 175), (150.0, 100)] {
            let mut y = yeah(200);
            y.last_queue = queue;
            y.reno_count = 50 * MSS;
            y.fast_count = 7;
            y.on_congestion_event(&loss(200 * MSS));
            assert_eq!(
                (y.cwnd(), y.ssthresh()),
                (after * MSS, after * MSS),
                "Q = {queue}"
            );
            assert_eq!((y.reno_count, y.fast_count), (25 * MSS, 0));
        }
        // ρ = 16 consecutive slow rounds: Reno halving whatever Q is.
        let mut y = yeah(200);
        y.last_queue = 10.0;
        y.slow_rounds = 16;
        y.on_congestion_event(&loss(200 * MSS));
        assert_eq!(y.cwnd(), 100 * MSS);
        // 15 slow rounds are not enough.
        let mut y = yeah(200);
        y.last_queue = 10.0;
        y.slow_rounds = 15;
        y.on_congestion_event(&loss(200 * MSS));
        assert_eq!(y.cwnd(), 175 * MSS);
    }

    #[test]
    fn zeta_fast_rounds_reset_the_reno_estimate() {
        let mut y = yeah(200);
        y.reno_count = 80 * MSS;
        for _ in 0..50 {
            y.end_of_round(&round_at(ms(100)));
        }
        assert_eq!(y.reno_count, 80 * MSS);
        // The 51st fast round exceeds ζ = 50.
        y.end_of_round(&round_at(ms(100)));
        assert_eq!((y.reno_count, y.fast_count), (2 * MSS, 0));
    }

    #[test]
    fn fast_mode_grows_like_scalable_tcp_and_slow_mode_like_reno() {
        // Plain ACKs (no round ends): fast mode, cwnd 200 → +1 per min(200, 100) = 100
        // packets acknowledged: +2 after 200 one-packet ACKs, or 100 delayed ACKs.
        let mut y = yeah(200);
        for _ in 0..99 {
            y.on_ack(&ack(2 * MSS));
        }
        assert_eq!(y.cwnd(), 201 * MSS);
        y.on_ack(&ack(2 * MSS));
        assert_eq!(y.cwnd(), 202 * MSS);
        // Below 100 packets STCP's count is cwnd: Reno-like.
        let mut y = yeah(50);
        for _ in 0..50 {
            y.on_ack(&ack(MSS));
        }
        assert_eq!(y.cwnd(), 51 * MSS);
        // Slow mode: +1 per cwnd = 200 packets.
        let mut y = yeah(200);
        y.slow_rounds = 1;
        for _ in 0..199 {
            y.on_ack(&ack(MSS));
        }
        assert_eq!(y.cwnd(), 200 * MSS);
        y.on_ack(&ack(MSS));
        assert_eq!(y.cwnd(), 201 * MSS);
    }

    #[test]
    fn decongestion_can_end_slow_start() {
        let config = CcConfig::new(MSS);
        let mut y = Yeah::new(
            &config,
            YeahParams::PAPER,
            Box::new(StandardSlowStart::new(&config)),
        );
        y.cwnd = 200 * MSS;
        let mut path = Path::new(MSS, 200 * MSS);
        // Delayed ACKs, slow start +2 MSS per ACK. The first round has 101 ACKs (the first
        // one starts it) → 200 + 202 = 402 packets; Q = 0 → fast, still in slow start.
        path.round(&mut y, ms(100), 2);
        assert_eq!((y.cwnd(), y.mode()), (402 * MSS, "slow_start"));
        // The next round acknowledges the 400 packets sent during the first (200 ACKs,
        // +400 → 802) at 200 ms: Q = 802·100/200 = 401 > α → slow mode, reduction
        // min(401, 802/2) = 401 → cwnd = ssthresh = 401: slow start is over.
        assert_eq!(path.round(&mut y, ms(200), 2), 200);
        assert_eq!(
            (y.cwnd(), y.ssthresh(), y.mode()),
            (401 * MSS, 401 * MSS, "slow")
        );
    }

    #[test]
    fn timeout_applies_the_loss_rule_then_slow_starts() {
        let mut y = yeah(200);
        y.last_queue = 30.0;
        new_timeout(&mut y, &timeout(200 * MSS));
        assert_eq!(
            (y.cwnd(), y.ssthresh(), y.mode()),
            (MSS, 170 * MSS, "slow_start")
        );
        y.on_ack(&ack(MSS));
        assert_eq!(y.cwnd(), 2 * MSS);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited_or_in_recovery() {
        let mut y = yeah(50);
        for _ in 0..100 {
            y.on_ack(&Ack {
                cwnd_limited: false,
                ..ack(MSS)
            });
            y.on_ack(&Ack {
                in_recovery: true,
                ..ack(MSS)
            });
        }
        assert_eq!(y.cwnd(), 50 * MSS);
    }
}
