//! TCP Vegas: L. S. Brakmo and L. L. Peterson, "TCP Vegas: End to End Congestion Avoidance on
//! a Global Internet", IEEE JSAC 13(8):1465–1480, 1995 (first in SIGCOMM '94 with
//! S. W. O'Malley). Mechanism details follow the ns-2 reference implementation
//! (`tcp/tcp-vegas.cc`, derived from the Arizona code); the `linux` variant follows Linux
//! `net/ipv4/tcp_vegas.c`.
//!
//! Once per round trip Vegas compares the throughput it expects with its window,
//! `Expected = cwnd / BaseRTT`, with the throughput it gets, `Actual = cwnd / RTT`, and turns
//! the difference into the number of its own packets sitting in queues:
//! `Δ = (Expected − Actual)·BaseRTT = cwnd·(RTT − BaseRTT)/RTT` (packets). In congestion
//! avoidance it adds one packet over the next RTT when Δ < α, removes one when Δ > β, and
//! otherwise holds. Its slow start doubles cwnd only every other RTT (holding it in between
//! so Δ is measured on a stable window) and ends when Δ > γ.
//!
//! The round machinery and the slow start are shared with Dynamic Vegas
//! ([`super::dynamic_vegas`]), which differs only in its congestion-avoidance rule: the rule
//! is the type parameter `R` of [`VegasCore`].

use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::{ControllerMetrics, SlowStartExit};
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};

use super::rtt_rounds::{RoundStats, RoundTracker};

const PARAMS: &[ParamSpec] = &[
    ParamSpec::choice("variant", "paper", &["paper", "linux"]).doc(
        "paper: Δ from the round's mean RTT, slow start every other RTT, 3/4 cwnd on loss \
         (JSAC 1995 / ns-2); linux: tcp_vegas.c (Δ over BaseRTT, min RTT, Reno slow start, \
         halving); Linux also uses alpha = 2, beta = 4",
    ),
    ParamSpec::number("alpha", 1.0, 0.0, 1000.0)
        .unit("packets")
        .doc("grow by one packet per RTT while Δ < alpha (paper and ns-2: 1; Linux: 2)"),
    ParamSpec::number("beta", 3.0, 0.0, 1000.0)
        .unit("packets")
        .doc("shrink by one packet per RTT while Δ > beta (paper and ns-2: 3; Linux: 4)"),
    ParamSpec::number("gamma", 1.0, 0.0, 1000.0)
        .unit("packets")
        .doc("leave slow start when Δ > gamma (paper, ns-2 and Linux: 1)"),
    ParamSpec::boolean("round_delta", false).doc(
        "round Δ to the nearest whole packet before comparing, as ns-2 does \
         (int(Δ + 0.5)); paper variant only",
    ),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "vegas",
    aliases: &[],
    summary: "delay-based: keep alpha..beta packets queued, ±1 packet per RTT; own slow start",
    reference: "Brakmo & Peterson, IEEE JSAC 13(8) 1995; ns-2 tcp-vegas.cc; \
                Linux net/ipv4/tcp_vegas.c (variant = \"linux\")",
    params: PARAMS,
    uses_slow_start: false,
    initial_ssthresh: InitialSsthreshUse::Given,
    build: |config, params, _slow_start| Box::new(Vegas::from_params(config, params)),
};

/// Which reference implementation's mechanisms to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Brakmo & Peterson 1995 as implemented in ns-2.
    Paper,
    /// Linux `tcp_vegas.c`.
    Linux,
}

impl Variant {
    fn from_name(name: &str) -> Variant {
        if name == "linux" {
            Variant::Linux
        } else {
            Variant::Paper
        }
    }

    /// Linux waits for three RTT samples in a round, so that at least one of them is not
    /// from a delayed ACK; ns-2 uses whatever samples the round had.
    fn min_samples(self) -> u32 {
        match self {
            Variant::Paper => 1,
            Variant::Linux => 3,
        }
    }
}

/// What a congestion-avoidance rule asks for at the end of a round.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Adjustment {
    /// Grow by this many packets over the next round (at most doubling cwnd: one packet per
    /// packet acknowledged).
    Increase {
        packets: f64,
    },
    Hold,
    /// Shrink by this many packets now.
    Decrease {
        packets: f64,
    },
}

/// The congestion-avoidance decision of a Vegas-family controller.
pub trait AvoidanceRule: Send {
    /// Registry name of the controller using this rule.
    const NAME: &'static str;
    /// Decide from the round's queue estimate Δ (packets).
    fn decide(&mut self, delta: f64) -> Adjustment;
    /// Slow start is running or (re)starting: forget any per-rule history.
    fn reset(&mut self);
}

/// Vegas's own rule (JSAC 1995 §3.2): +1 below α, −1 above β, hold in between.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasRule {
    pub alpha: f64,
    pub beta: f64,
}

impl AvoidanceRule for VegasRule {
    const NAME: &'static str = "vegas";

    fn decide(&mut self, delta: f64) -> Adjustment {
        if delta > self.beta {
            Adjustment::Decrease { packets: 1.0 }
        } else if delta < self.alpha {
            Adjustment::Increase { packets: 1.0 }
        } else {
            Adjustment::Hold
        }
    }

    fn reset(&mut self) {}
}

/// Settings shared by the Vegas family.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasSettings {
    pub variant: Variant,
    /// Slow-start exit threshold (packets).
    pub gamma: f64,
    /// ns-2 rounds Δ to an integer (`int(Δ + 0.5)`).
    pub round_delta: bool,
}

/// An increase spread over one round: `total` bytes, handed out in proportion to the bytes
/// acknowledged out of `window`, never beyond `target`. ns-2 adds `incr/cwnd` per ACK; this is
/// the same in bytes, with integer remainders so the round adds exactly `total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SpreadIncrease {
    target: u64,
    total: u64,
    window: u64,
    remainder: u64,
}

impl SpreadIncrease {
    fn step(&mut self, bytes_acked: u64) -> u64 {
        let numerator =
            u128::from(self.total) * u128::from(bytes_acked) + u128::from(self.remainder);
        let window = u128::from(self.window);
        // remainder < window, so it fits in u64; the quotient is at most total * bytes_acked
        // / window + 1, far below u64::MAX for any real window.
        self.remainder = (numerator % window) as u64;
        (numerator / window) as u64
    }
}

/// The Vegas machinery (rounds, BaseRTT, Δ, slow start, loss response) with a pluggable
/// congestion-avoidance rule.
pub struct VegasCore<R> {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    settings: VegasSettings,
    rounds: RoundTracker,
    /// Paper slow start: the current round doubles cwnd (otherwise it holds).
    growth_round: bool,
    /// Paper congestion avoidance: the increase decided at the end of the last round.
    increase: Option<SpreadIncrease>,
    rule: R,
    /// Δ of the last finished round that had one, packets (for [`ControllerMetrics`]).
    last_delta: Option<f64>,
    /// The current (or last) slow start ended because Δ exceeded γ.
    left_by_gamma: bool,
}

/// TCP Vegas.
pub type Vegas = VegasCore<VegasRule>;

impl Vegas {
    pub fn from_params(config: &CcConfig, params: &Params) -> Self {
        let settings = VegasSettings {
            variant: Variant::from_name(params.choice("variant")),
            gamma: params.number("gamma"),
            round_delta: params.boolean("round_delta"),
        };
        let rule = VegasRule {
            alpha: params.number("alpha"),
            beta: params.number("beta"),
        };
        VegasCore::new(config, settings, rule)
    }
}

impl<R: AvoidanceRule> VegasCore<R> {
    pub fn new(config: &CcConfig, settings: VegasSettings, rule: R) -> Self {
        VegasCore {
            mss: config.mss,
            // Never below the 2-segment floor every Vegas implementation keeps.
            cwnd: config.initial_cwnd.max(2 * config.mss),
            ssthresh: config.initial_ssthresh,
            settings,
            rounds: RoundTracker::new(),
            // The first round grows: there is nothing to compare yet.
            growth_round: true,
            increase: None,
            rule,
            last_delta: None,
            left_by_gamma: false,
        }
    }

    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    fn floor(&self) -> u64 {
        2 * self.mss
    }

    /// Δ in packets for a finished round, or `None` without enough samples.
    fn queue_estimate(&self, round: &RoundStats) -> Option<f64> {
        let base = self.rounds.base_rtt()?.as_nanos();
        if base == 0 || round.samples < self.settings.variant.min_samples() {
            return None;
        }
        match self.settings.variant {
            Variant::Paper => {
                // JSAC §3.2: Diff = (Expected − Actual)·BaseRTT = cwnd·(RTT − BaseRTT)/RTT,
                // with RTT the mean of the round's samples as ns-2 measures it.
                let rtt = round.mean_rtt()?.as_nanos() as f64;
                let cwnd_packets = self.cwnd as f64 / self.mss as f64;
                let delta = cwnd_packets * (rtt - base as f64) / rtt;
                Some(if self.settings.round_delta {
                    (delta + 0.5).floor()
                } else {
                    delta
                })
            }
            Variant::Linux => {
                // tcp_vegas.c: diff = cwnd·(rtt − baseRTT)/baseRTT in integer packets, with
                // rtt the minimum sample of the round.
                let rtt = round.min_rtt()?.as_nanos();
                let diff = u128::from(self.cwnd) * u128::from(rtt - base)
                    / (u128::from(base) * u128::from(self.mss));
                Some(diff as f64)
            }
        }
    }

    /// The once-per-RTT decision, taken on the ACK that ends a round (before that ACK's own
    /// growth, as in ns-2 and Linux).
    fn end_of_round(&mut self, round: &RoundStats, ack: &Ack) {
        // The previous round's spread increase lands in full: the round acknowledged about
        // one window, and a remainder of a few bytes must not be lost round after round.
        if let Some(increase) = self.increase.take()
            && ack.may_grow()
        {
            self.cwnd = self.cwnd.max(increase.target);
        }
        let delta = self.queue_estimate(round);
        if delta.is_some() {
            self.last_delta = delta;
        }
        if self.in_slow_start() {
            // Dynamic Vegas: "Slow Start: values of incr1 and incr2 are set to zero."
            self.rule.reset();
            match self.settings.variant {
                Variant::Paper => {
                    if self.growth_round {
                        // Hold the next round so Expected and Actual see a stable window.
                        self.growth_round = false;
                    } else if delta.is_some_and(|d| d > self.settings.gamma) {
                        // ns-2: leave slow start and give back 1/8 of the window.
                        self.cwnd = (self.cwnd - self.cwnd / 8).max(self.floor());
                        self.ssthresh = self.cwnd;
                        self.left_by_gamma = true;
                    } else {
                        self.growth_round = true;
                    }
                }
                Variant::Linux => {
                    if delta.is_some_and(|d| d > self.settings.gamma) {
                        self.leave_slow_start_linux(round);
                        self.left_by_gamma = !self.in_slow_start();
                    }
                }
            }
            return;
        }
        let Some(delta) = delta else {
            return;
        };
        match self.rule.decide(delta) {
            Adjustment::Decrease { packets } => {
                let decrease = (packets * self.mss as f64) as u64;
                self.cwnd = self.cwnd.saturating_sub(decrease).max(self.floor());
                // Stay in congestion avoidance (Linux: ssthresh = min(ssthresh, cwnd);
                // ns-2 pins ssthresh at 2 after leaving slow start).
                self.ssthresh = self.ssthresh.min(self.cwnd);
            }
            Adjustment::Hold => {}
            Adjustment::Increase { packets } => {
                if !ack.may_grow() {
                    return;
                }
                // At most one packet per packet acknowledged, i.e. doubling per round.
                let total = ((packets * self.mss as f64) as u64).min(self.cwnd);
                if total == 0 {
                    return;
                }
                match self.settings.variant {
                    // tcp_vegas.c: snd_cwnd++ at the round boundary.
                    Variant::Linux => self.cwnd += total,
                    // ns-2: v_incr_ = incr/cwnd added on every ACK of the next round.
                    Variant::Paper => {
                        self.increase = Some(SpreadIncrease {
                            target: self.cwnd + total,
                            total,
                            window: self.cwnd,
                            remainder: 0,
                        });
                    }
                }
            }
        }
    }

    /// tcp_vegas.c: cwnd = min(cwnd, target_cwnd + 1) with target_cwnd = cwnd·BaseRTT/RTT in
    /// whole packets (the +1 makes up for the truncation), then ssthresh = min(ssthresh, cwnd).
    fn leave_slow_start_linux(&mut self, round: &RoundStats) {
        let (Some(base), Some(rtt)) = (self.rounds.base_rtt(), round.min_rtt()) else {
            return;
        };
        let target_packets = u128::from(self.cwnd) * u128::from(base.as_nanos())
            / (u128::from(rtt.as_nanos()) * u128::from(self.mss));
        // target_packets <= cwnd / mss, so it fits in u64.
        let target = (target_packets as u64 + 1) * self.mss;
        self.cwnd = self.cwnd.min(target).max(self.floor());
        self.ssthresh = self.ssthresh.min(self.cwnd);
    }

    /// Slow-start growth on one ACK: RFC 3465 byte counting with L = 2, capped at ssthresh.
    fn slow_start_step(&mut self, ack: &Ack) {
        let growth = ack.bytes_acked.min(2 * self.mss);
        self.cwnd = (self.cwnd + growth).min(self.ssthresh.max(self.cwnd));
    }
}

#[cfg(test)]
impl<R: AvoidanceRule> VegasCore<R> {
    /// Put the controller at a given window and threshold, with no increase in progress.
    pub(crate) fn set_window_for_test(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd;
        self.ssthresh = ssthresh;
        self.increase = None;
    }

    pub(crate) fn rule_mut_for_test(&mut self) -> &mut R {
        &mut self.rule
    }
}

impl<R: AvoidanceRule> CongestionControl for VegasCore<R> {
    fn name(&self) -> &'static str {
        R::NAME
    }

    fn on_ack(&mut self, ack: &Ack) {
        let finished = self.rounds.on_ack(ack);
        if ack.in_recovery {
            // Linux disables Vegas outside the Open state and starts a fresh round when
            // recovery ends: samples taken now describe the pre-loss window.
            self.rounds.restart();
            return;
        }
        let was_in_slow_start = self.in_slow_start();
        if let Some(round) = &finished {
            self.end_of_round(round, ack);
        }
        if !ack.may_grow() {
            return;
        }
        if self.in_slow_start() {
            let grows = match self.settings.variant {
                // ns-2 applies the new round's increment already on the deciding ACK.
                Variant::Paper => self.growth_round,
                // tcp_vegas.c: the round boundary either ends slow start or grows.
                Variant::Linux => was_in_slow_start,
            };
            if grows {
                self.slow_start_step(ack);
            }
        } else if finished.is_none()
            && let Some(increase) = self.increase.as_mut()
        {
            // The increase decided at a round's end is spread over the next round's ACKs.
            let step = increase.step(ack.bytes_acked);
            self.cwnd = (self.cwnd + step).min(increase.target.max(self.cwnd));
        }
    }

    fn on_congestion_event(&mut self, _event: &CongestionEvent) {
        match self.settings.variant {
            Variant::Paper => {
                // ns-2 / Arizona: a window of at most 3 packets goes to 2, otherwise Vegas
                // keeps 3/4 of it; ssthresh only steers slow start, so stay in avoidance.
                self.cwnd = if self.cwnd <= 3 * self.mss {
                    self.floor()
                } else {
                    self.cwnd - self.cwnd / 4
                };
                self.ssthresh = self.cwnd;
            }
            Variant::Linux => {
                // tcp_reno_ssthresh: max(cwnd/2, 2).
                self.ssthresh = (self.cwnd / 2).max(self.floor());
                self.cwnd = self.ssthresh;
            }
        }
        self.increase = None;
        self.rounds.restart();
    }

    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {
        // ns-2 and Linux (tcp_reno_ssthresh): ssthresh = half the window.
        self.ssthresh = (self.cwnd / 2).max(self.floor());
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // ns-2: cwnd = v_slowstart_ = 2 packets; Linux: the 1-segment loss window. Both
        // restart Vegas's measurements and its slow start.
        self.cwnd = match self.settings.variant {
            Variant::Paper => self.floor(),
            Variant::Linux => self.mss,
        };
        self.increase = None;
        self.growth_round = true;
        self.rounds.restart();
        self.rule.reset();
        self.left_by_gamma = false;
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
            backlog_segments: self.last_delta,
            slow_start_exit: Some(if self.left_by_gamma {
                SlowStartExit::VegasGamma
            } else {
                SlowStartExit::SsthreshReached
            }),
            ..ControllerMetrics::default()
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::delay_harness::Path;
    use crate::controller::UNLIMITED;
    use crate::params::ParamInput;
    use crate::test_support::new_timeout;
    use crate::test_support::{loss, ms, timeout};

    const MSS: u64 = 1000;

    fn vegas_with(inputs: &[(&str, ParamInput)]) -> Vegas {
        let params = Params::from_inputs(PARAMS, inputs.iter().map(|(n, v)| (*n, v))).unwrap();
        Vegas::from_params(&CcConfig::new(MSS), &params)
    }

    fn vegas() -> Vegas {
        vegas_with(&[])
    }

    fn linux() -> Vegas {
        vegas_with(&[
            ("variant", ParamInput::Text("linux".into())),
            ("alpha", ParamInput::Number(2.0)),
            ("beta", ParamInput::Number(4.0)),
        ])
    }

    /// A Vegas in congestion avoidance with `packets` of window and a BaseRTT of 100 ms
    /// learnt in one round at that RTT (whose decision, Δ = 0 < α, is cleared).
    fn in_avoidance(mut v: Vegas, packets: u64, path: &mut Path) -> Vegas {
        v.cwnd = packets * MSS;
        v.ssthresh = packets * MSS;
        path.round(&mut v, ms(100), 1);
        v.increase = None;
        v.cwnd = packets * MSS;
        v
    }

    #[test]
    fn queue_estimate_is_cwnd_times_rtt_excess_over_rtt() {
        // BaseRTT 100 ms, cwnd 20 packets, round samples 120, 125, 130 ms (mean 125, min 120):
        // paper Δ = 20·(125 − 100)/125 = 4 packets;
        // Linux diff = 20·(120 − 100)/100 = 4 packets (min sample, divided by BaseRTT);
        // with samples 125, 125, 125 Linux gives 20·25/100 = 5 where the paper gives 4.
        let spread = RoundStats::of(&[ms(120), ms(125), ms(130)]);
        let flat = RoundStats::of(&[ms(125), ms(125), ms(125)]);
        for (v, on_spread, on_flat) in [(vegas(), 4.0, 4.0), (linux(), 4.0, 5.0)] {
            let mut path = Path::new(MSS, 20 * MSS);
            let v = in_avoidance(v, 20, &mut path);
            assert_eq!(v.queue_estimate(&spread), Some(on_spread));
            assert_eq!(v.queue_estimate(&flat), Some(on_flat));
        }
    }

    #[test]
    fn paper_delta_uses_the_mean_and_rounds_only_when_asked() {
        let mut path = Path::new(MSS, 10 * MSS);
        let mut v = in_avoidance(vegas(), 10, &mut path);
        // Samples 110 and 130 ms: mean 120; Δ = 10·20/120 = 1.6667.
        let round = RoundStats::of(&[ms(110), ms(130)]);
        let delta = v.queue_estimate(&round).unwrap();
        assert!((delta - 10.0 * 20.0 / 120.0).abs() < 1e-12);
        // ns-2 rounding: int(1.6667 + 0.5) = 2.
        v.settings.round_delta = true;
        assert_eq!(v.queue_estimate(&round), Some(2.0));
        // No samples, no estimate.
        assert_eq!(v.queue_estimate(&RoundStats::of(&[])), None);
    }

    #[test]
    fn vegas_rule_grows_below_alpha_holds_between_shrinks_above_beta() {
        let mut rule = VegasRule {
            alpha: 1.0,
            beta: 3.0,
        };
        assert_eq!(rule.decide(0.5), Adjustment::Increase { packets: 1.0 });
        assert_eq!(rule.decide(1.0), Adjustment::Hold);
        assert_eq!(rule.decide(3.0), Adjustment::Hold);
        assert_eq!(rule.decide(3.2), Adjustment::Decrease { packets: 1.0 });
    }

    #[test]
    fn avoidance_plus_one_below_alpha_hold_between_minus_one_above_beta() {
        let mut path = Path::new(MSS, 20 * MSS);
        let mut v = in_avoidance(vegas(), 20, &mut path);
        // Round at 104 ms: Δ = 20·4/104 = 0.77 < α = 1 → one packet more over the next
        // round.
        path.round(&mut v, ms(104), 1);
        assert_eq!(v.cwnd(), 20 * MSS);
        // That round (at 110 ms) grows by exactly 1 MSS, spread over its ACKs; its own
        // Δ = 21·10/110 = 1.91 lies in [α, β] → hold.
        path.round(&mut v, ms(110), 1);
        assert_eq!(v.cwnd(), 21 * MSS);
        path.round(&mut v, ms(110), 1);
        assert_eq!(v.cwnd(), 21 * MSS);
        // 125 ms: Δ = 21·25/125 = 4.2 > β = 3 → one packet less, at once.
        path.round(&mut v, ms(125), 1);
        assert_eq!(v.cwnd(), 20 * MSS);
        assert_eq!(v.ssthresh(), 20 * MSS);
        assert_eq!(v.mode(), "congestion_avoidance");
    }

    #[test]
    fn increase_is_spread_over_the_round_and_independent_of_delayed_acks() {
        let mut path = Path::new(MSS, 20 * MSS);
        let mut v = in_avoidance(vegas(), 20, &mut path);
        // Δ = 0 → +1 packet over the next round.
        path.round(&mut v, ms(100), 2);
        assert_eq!(v.cwnd(), 20 * MSS);
        // Delayed ACKs (2 segments): each of the next round's 10 ACKs adds
        // 1000·2000/20000 = 100 bytes, so cwnd grows smoothly by exactly 1 MSS.
        let mut seen = Vec::new();
        path.round_with(&mut v, ms(100), 2, |a| {
            seen.push(a.bytes_acked);
            a
        });
        assert_eq!(seen, vec![2 * MSS; 10]);
        assert_eq!(v.cwnd(), 21 * MSS);
        path.round(&mut v, ms(100), 2);
        assert_eq!(v.cwnd(), 22 * MSS);
    }

    #[test]
    fn paper_slow_start_doubles_every_other_round_and_exits_above_gamma() {
        let mut v = vegas();
        let mut path = Path::new(MSS, 10 * MSS);
        assert_eq!((v.cwnd(), v.ssthresh()), (10 * MSS, UNLIMITED));
        // Round 1 grows: +1 MSS for each of the 10 ACKs before the one that ends the round
        // (ns-2 applies a round's decision from the deciding ACK on; this one says "hold").
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.cwnd(), 20 * MSS);
        assert_eq!(v.mode(), "slow_start");
        // Round 2 holds; its last ACK measures Δ = 0 ≤ γ, decides "grow" and grows by one.
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.cwnd(), 21 * MSS);
        // Round 3 (20 ACKs) grows on all but its last: 21 + 19 = 40, double round 2's 20.
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.cwnd(), 40 * MSS);
        // Round 4 holds at 110 ms: Δ = 40·10/110 = 3.64 > γ = 1 → leave slow start with
        // cwnd − cwnd/8 = 40 − 5 = 35 packets, ssthresh = cwnd.
        assert_eq!(
            v.metrics().slow_start_exit,
            Some(SlowStartExit::SsthreshReached)
        );
        path.round(&mut v, ms(110), 1);
        assert_eq!((v.cwnd(), v.ssthresh()), (35 * MSS, 35 * MSS));
        assert_eq!(v.mode(), "congestion_avoidance");
        // The metrics view: BaseRTT 100 ms, Δ of that round, and why slow start ended.
        let m = v.metrics();
        assert_eq!(m.min_rtt, Some(ms(100)));
        assert!((m.backlog_segments.unwrap() - 40.0 * 10.0 / 110.0).abs() < 1e-9);
        assert_eq!(m.slow_start_exit, Some(SlowStartExit::VegasGamma));
    }

    #[test]
    fn paper_slow_start_continues_while_delta_is_at_most_gamma() {
        let mut v = vegas();
        let mut path = Path::new(MSS, 10 * MSS);
        path.round(&mut v, ms(100), 1); // grow → 20
        // Hold round at 105 ms: Δ = 20·5/105 = 0.95 ≤ γ → grow again (+1 on the deciding ACK).
        path.round(&mut v, ms(105), 1);
        assert_eq!(v.cwnd(), 21 * MSS);
        path.round(&mut v, ms(105), 1);
        assert_eq!(v.cwnd(), 40 * MSS);
        // Hold round at 105 ms with 40 packets: Δ = 40·5/105 = 1.90 > γ → exit at 35.
        path.round(&mut v, ms(105), 1);
        assert_eq!(v.cwnd(), 35 * MSS);
    }

    #[test]
    fn linux_slow_start_every_round_and_exit_to_target_plus_one() {
        let mut v = linux();
        let mut path = Path::new(MSS, 10 * MSS);
        // Every ACK grows: round 1 has 11 ACKs (the first one starts it) → 21.
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.cwnd(), 21 * MSS);
        // Round 2: 20 ACKs → 41.
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.cwnd(), 41 * MSS);
        // Round 3 at 110 ms: 40 ACKs; 39 grow (→ 80), the last one decides:
        // diff = 80·10/100 = 8 > γ → target = 80·100/110 = 72.7 → 72 packets,
        // cwnd = min(80, 72 + 1) = 73, ssthresh = 73.
        path.round(&mut v, ms(110), 1);
        assert_eq!((v.cwnd(), v.ssthresh()), (73 * MSS, 73 * MSS));
        assert_eq!(v.metrics().backlog_segments, Some(8.0));
        assert_eq!(v.metrics().slow_start_exit, Some(SlowStartExit::VegasGamma));
    }

    #[test]
    fn linux_avoidance_steps_at_the_round_boundary() {
        let mut path = Path::new(MSS, 20 * MSS);
        let mut v = in_avoidance(linux(), 20, &mut path);
        // 105 ms: diff = 20·5/100 = 1 < α = 2 → +1 at once.
        path.round(&mut v, ms(105), 1);
        assert_eq!(v.cwnd(), 21 * MSS);
        // 115 ms: diff = 21·15/100 = 3.15 → 3, within [2, 4] → hold.
        path.round(&mut v, ms(115), 1);
        assert_eq!(v.cwnd(), 21 * MSS);
        // 125 ms: diff = 21·25/100 = 5.25 → 5 > β = 4 → −1.
        path.round(&mut v, ms(125), 1);
        assert_eq!(v.cwnd(), 20 * MSS);
    }

    #[test]
    fn linux_needs_three_samples_per_round() {
        let mut path = Path::new(MSS, 4 * MSS);
        let mut v = in_avoidance(linux(), 4, &mut path);
        // At 130 ms diff = 4·30/100 = 1.2 → 1 < α = 2 would grow, but with delayed ACKs a
        // 4-packet round has only 2 samples: Linux behaves like Reno and makes no decision.
        assert_eq!(path.round(&mut v, ms(130), 2), 2);
        assert_eq!(v.cwnd(), 4 * MSS);
        // With one ACK per packet the next round has 3 samples and grows by one.
        assert_eq!(path.round(&mut v, ms(130), 1), 3);
        assert_eq!(v.cwnd(), 5 * MSS);
    }

    #[test]
    fn loss_keeps_three_quarters_and_stays_in_avoidance() {
        let mut v = vegas();
        v.cwnd = 40 * MSS;
        v.on_congestion_event(&loss(40 * MSS));
        // 40 − 40/4 = 30.
        assert_eq!((v.cwnd(), v.ssthresh()), (30 * MSS, 30 * MSS));
        // A window of 3 packets or less drops to the 2-packet floor.
        v.cwnd = 3 * MSS;
        v.on_congestion_event(&loss(3 * MSS));
        assert_eq!((v.cwnd(), v.ssthresh()), (2 * MSS, 2 * MSS));
        // Linux variant halves (tcp_reno_ssthresh), floor 2.
        let mut l = linux();
        l.cwnd = 41 * MSS;
        l.on_congestion_event(&loss(41 * MSS));
        assert_eq!((l.cwnd(), l.ssthresh()), (20_500, 20_500));
        l.cwnd = 3 * MSS;
        l.on_congestion_event(&loss(3 * MSS));
        assert_eq!(l.cwnd(), 2 * MSS);
    }

    #[test]
    fn timeout_restarts_slow_start() {
        let mut v = vegas();
        v.cwnd = 40 * MSS;
        v.ssthresh = 40 * MSS;
        new_timeout(&mut v, &timeout(40 * MSS));
        // ns-2: ssthresh = 40/2 = 20, cwnd = 2 packets.
        assert_eq!((v.cwnd(), v.ssthresh()), (2 * MSS, 20 * MSS));
        // Slow start (growth round first) caps at ssthresh.
        let mut path = Path::new(MSS, 2 * MSS);
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.cwnd(), 4 * MSS);
        let mut l = linux();
        l.cwnd = 40 * MSS;
        new_timeout(&mut l, &timeout(40 * MSS));
        assert_eq!((l.cwnd(), l.ssthresh()), (MSS, 20 * MSS));
    }

    #[test]
    fn no_growth_when_not_cwnd_limited_or_in_recovery() {
        let mut path = Path::new(MSS, 20 * MSS);
        let mut v = in_avoidance(vegas(), 20, &mut path);
        path.round(&mut v, ms(100), 1); // Δ = 0 → increase planned
        path.round_with(&mut v, ms(100), 1, |a| Ack {
            cwnd_limited: false,
            ..a
        });
        assert_eq!(v.cwnd(), 20 * MSS);
        path.round_with(&mut v, ms(100), 1, |a| Ack {
            in_recovery: true,
            ..a
        });
        assert_eq!(v.cwnd(), 20 * MSS);
        // Slow start does not grow either.
        let mut s = vegas();
        let mut path = Path::new(MSS, 10 * MSS);
        path.round_with(&mut s, ms(100), 1, |a| Ack {
            cwnd_limited: false,
            ..a
        });
        assert_eq!(s.cwnd(), 10 * MSS);
    }

    #[test]
    fn sending_after_idle_restarts_the_round() {
        let mut path = Path::new(MSS, 20 * MSS);
        let mut v = in_avoidance(vegas(), 20, &mut path);
        // A round is under way (started by the last ACK, mark = its snd_nxt). After an idle
        // period the next ACK would end it with samples spanning the idle time; a send with
        // nothing outstanding restarts it instead, so that ACK only starts a new round.
        v.on_packet_sent(crate::time::SimTime::ZERO, MSS, MSS);
        let next = Ack {
            rtt: Some(ms(300)),
            snd_una: 1_000_000,
            snd_nxt: 1_000_000,
            ..crate::test_support::ack(MSS)
        };
        v.on_ack(&next);
        // Δ would have been 20·200/300 = 13 > β: no decrease happened.
        assert_eq!(v.cwnd(), 20 * MSS);
        // While data is outstanding a send does not restart anything.
        v.on_packet_sent(crate::time::SimTime::ZERO, MSS, 5 * MSS);
        v.on_ack(&Ack {
            snd_una: 1_001_000,
            ..next
        });
        assert_eq!(v.cwnd(), 19 * MSS);
    }

    #[test]
    fn registry_builds_vegas_without_the_slow_start_part() {
        let info = crate::registry::find_algorithm("vegas").unwrap();
        assert!(!info.uses_slow_start);
        let v = vegas();
        assert_eq!(v.name(), "vegas");
        assert_eq!(v.cwnd(), 10 * MSS);
    }
}
