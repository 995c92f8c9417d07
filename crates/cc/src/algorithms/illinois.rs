//! TCP-Illinois: S. Liu, T. Başar, R. Srikant, "TCP-Illinois: A Loss and Delay-Based
//! Congestion Control Algorithm for High-Speed Networks", VALUETOOLS 2006 and Performance
//! Evaluation 65(6–7):417–440, 2008. Details (win_thresh, the θ counter) as in Linux
//! `net/ipv4/tcp_illinois.c`, written from the paper and the authors' ns-2 code.
//!
//! AIMD whose parameters follow the queueing delay: per ACK `cwnd += α/cwnd`, on loss
//! `cwnd ← (1 − β)·cwnd`. Once per round trip, with `d_a` the round's average queueing delay
//! (mean RTT − BaseRTT) and `d_m` the largest queueing delay seen (max RTT − BaseRTT):
//!
//! * α = α_max while `d_a ≤ d1 = d_m/100`; above, `α = κ1/(κ2 + d_a)`, the curve through
//!   (d1, α_max) and (d_m, α_min). After the delay has once exceeded d1, α returns to α_max
//!   only after θ consecutive rounds with `d_a ≤ d1`.
//! * β = β_min while `d_a ≤ d2 = d_m/10`, β_max from `d3 = 0.8·d_m`, linear in between.
//! * Below `win_thresh` packets the flow is Reno (α = 1, β = 1/2).
//!
//! Slow start is the swappable [`SlowStart`] part.

use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;
use crate::time::SimDuration;

use super::additive_increase::ByteCountedIncrease;
use super::rtt_rounds::{RoundStats, RoundTracker};

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("alpha_max", 10.0, 0.0, 1000.0)
        .unit("packets/RTT")
        .doc("additive increase while the queueing delay is negligible"),
    ParamSpec::number("alpha_min", 0.3, 0.0, 1000.0)
        .unit("packets/RTT")
        .doc("additive increase at the largest queueing delay seen"),
    ParamSpec::number("beta_min", 0.125, 0.0, 1.0)
        .doc("multiplicative decrease while the average delay is below d_m/10"),
    ParamSpec::number("beta_max", 0.5, 0.0, 1.0)
        .doc("multiplicative decrease once the average delay reaches 0.8·d_m"),
    ParamSpec::integer("theta", 5, 1, 1000)
        .unit("RTTs")
        .doc("consecutive low-delay rounds before α may return to alpha_max"),
    ParamSpec::integer("win_thresh", 15, 0, 1_000_000)
        .unit("packets")
        .doc("below this window Illinois behaves as Reno (α = 1, β = 1/2)"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "illinois",
    aliases: &[],
    summary: "AIMD with α (0.3..10) and β (1/8..1/2) set each RTT from the queueing delay",
    reference: "Liu, Başar, Srikant, VALUETOOLS 2006 / Perf. Eval. 65 (2008); \
                Linux net/ipv4/tcp_illinois.c",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| Box::new(Illinois::from_params(config, params, slow_start)),
};

/// Reno's parameters, used below `win_thresh` and after a timeout.
const RENO_ALPHA: f64 = 1.0;
const RENO_BETA: f64 = 0.5;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IllinoisParams {
    pub alpha_max: f64,
    pub alpha_min: f64,
    pub beta_min: f64,
    pub beta_max: f64,
    pub theta: u32,
    /// Packets.
    pub win_thresh: u64,
}

impl IllinoisParams {
    pub const PAPER: IllinoisParams = IllinoisParams {
        alpha_max: 10.0,
        alpha_min: 0.3,
        beta_min: 0.125,
        beta_max: 0.5,
        theta: 5,
        win_thresh: 15,
    };

    /// α above d1: `κ1/(κ2 + d_a)` with κ1, κ2 chosen so that α(d1) = α_max and
    /// α(d_m) = α_min: `κ1 = (d_m − d1)·α_min·α_max/(α_max − α_min)`,
    /// `κ2 = (d_m − d1)·α_min/(α_max − α_min) − d1`. Delays in any one unit.
    pub fn alpha_curve(&self, d_a: f64, d_m: f64) -> f64 {
        let d1 = d_m / 100.0;
        let span = self.alpha_max - self.alpha_min;
        if span <= 0.0 {
            return self.alpha_min;
        }
        let kappa1 = (d_m - d1) * self.alpha_min * self.alpha_max / span;
        let kappa2 = (d_m - d1) * self.alpha_min / span - d1;
        kappa1 / (kappa2 + d_a)
    }

    /// β from the average queueing delay: β_min up to d2 = d_m/10, β_max from
    /// d3 = 0.8·d_m, the straight line between (d2, β_min) and (d3, β_max) in between.
    pub fn beta_of_delay(&self, d_a: f64, d_m: f64) -> f64 {
        let d2 = d_m / 10.0;
        let d3 = 0.8 * d_m;
        if d_a <= d2 {
            self.beta_min
        } else if d_a >= d3 {
            self.beta_max
        } else {
            self.beta_min + (self.beta_max - self.beta_min) * (d_a - d2) / (d3 - d2)
        }
    }
}

pub struct Illinois {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    params: IllinoisParams,
    alpha: f64,
    beta: f64,
    max_rtt: Option<SimDuration>,
    /// The average delay has exceeded d1 since α was last at α_max.
    rtt_above: bool,
    /// Consecutive rounds with d_a ≤ d1 since then.
    rtt_low: u32,
    increase: ByteCountedIncrease,
    rounds: RoundTracker,
    slow_start: Box<dyn SlowStart>,
}

impl Illinois {
    pub fn new(config: &CcConfig, params: IllinoisParams, slow_start: Box<dyn SlowStart>) -> Self {
        Illinois {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            params,
            // Linux starts at α_max and Reno's β.
            alpha: params.alpha_max,
            beta: RENO_BETA,
            max_rtt: None,
            rtt_above: false,
            rtt_low: 0,
            increase: ByteCountedIncrease::new(),
            rounds: RoundTracker::new(),
            slow_start,
        }
    }

    pub fn from_params(config: &CcConfig, params: &Params, slow_start: Box<dyn SlowStart>) -> Self {
        let params = IllinoisParams {
            alpha_max: params.number("alpha_max"),
            alpha_min: params.number("alpha_min"),
            beta_min: params.number("beta_min"),
            beta_max: params.number("beta_max"),
            theta: params.number("theta") as u32,
            win_thresh: params.number("win_thresh") as u64,
        };
        Illinois::new(config, params, slow_start)
    }

    /// Current additive increase (packets per RTT).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Current multiplicative decrease factor.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// α for this round, with the θ-round wait before returning to α_max.
    fn next_alpha(&mut self, d_a: f64, d_m: f64) -> f64 {
        if d_a <= d_m / 100.0 {
            if !self.rtt_above {
                return self.params.alpha_max;
            }
            // "α is set to α_max only after d_a stays below d1 for θ RTTs", so that one
            // good round does not cause a sudden window increase.
            self.rtt_low += 1;
            if self.rtt_low < self.params.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return self.params.alpha_max;
        }
        self.rtt_above = true;
        self.rtt_low = 0;
        self.params.alpha_curve(d_a, d_m)
    }

    fn end_of_round(&mut self, round: &RoundStats) {
        if self.cwnd < self.params.win_thresh * self.mss {
            self.alpha = RENO_ALPHA;
            self.beta = RENO_BETA;
            return;
        }
        let (Some(base), Some(mean), Some(max)) =
            (self.rounds.base_rtt(), round.mean_rtt(), self.max_rtt)
        else {
            return;
        };
        let d_a = mean.saturating_sub(base).as_nanos() as f64;
        let d_m = max.saturating_sub(base).as_nanos() as f64;
        self.alpha = self.next_alpha(d_a, d_m);
        self.beta = self.params.beta_of_delay(d_a, d_m);
    }

    /// `(1 − β)·cwnd`, at least 2 segments.
    fn reduced_window(&self) -> u64 {
        let decrease = (self.cwnd as f64 * self.beta) as u64;
        (self.cwnd - decrease.min(self.cwnd)).max(2 * self.mss)
    }
}

impl CongestionControl for Illinois {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        if let Some(rtt) = ack.rtt {
            self.max_rtt = Some(self.max_rtt.map_or(rtt, |max| max.max(rtt)));
        }
        let finished = self.rounds.on_ack(ack);
        if ack.in_recovery {
            self.rounds.restart();
            return;
        }
        if let Some(round) = finished {
            self.end_of_round(&round);
        }
        if !ack.may_grow() {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
        } else {
            // cwnd += α/cwnd per ACK, by byte counting.
            self.increase
                .grow(&mut self.cwnd, self.mss, ack.bytes_acked, self.alpha);
        }
    }

    fn on_congestion_event(&mut self, _event: &CongestionEvent) {
        self.ssthresh = self.reduced_window();
        self.cwnd = self.ssthresh;
        self.increase.reset();
        self.rounds.restart();
    }

    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {
        // Linux computes ssthresh with the current β (before the reset below).
        self.ssthresh = self.reduced_window();
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // Linux tcp_illinois_state(TCP_CA_Loss), on every timeout: α and β back to Reno's,
        // the low-delay history forgotten.
        self.cwnd = self.mss;
        self.alpha = RENO_ALPHA;
        self.beta = RENO_BETA;
        self.rtt_above = false;
        self.rtt_low = 0;
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
            increase_per_rtt: Some(self.alpha),
            decrease_fraction: Some(self.beta),
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::delay_harness::Path;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, loss, ms, timeout};

    const MSS: u64 = 1000;
    const P: IllinoisParams = IllinoisParams::PAPER;

    fn illinois() -> Illinois {
        let config = CcConfig::new(MSS);
        Illinois::new(&config, P, Box::new(StandardSlowStart::new(&config)))
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn alpha_curve_at_d1_a_tenth_and_the_maximum_delay() {
        // d_m = 100 (any unit), d1 = 1, α_max − α_min = 9.7:
        // κ1 = 99·0.3·10/9.7 = 297/9.7, κ2 = 99·0.3/9.7 − 1 = 20/9.7.
        // d_a = d1:     κ1/(κ2 + 1)   = 297/(20 + 9.7)  = 10   = α_max
        // d_a = d_m/10: κ1/(κ2 + 10)  = 297/(20 + 97)   = 33/13 ≈ 2.538
        // d_a = d_m:    κ1/(κ2 + 100) = 297/(20 + 970)  = 0.3  = α_min
        assert!(close(P.alpha_curve(1.0, 100.0), 10.0));
        assert!(close(P.alpha_curve(10.0, 100.0), 33.0 / 13.0));
        assert!(close(P.alpha_curve(100.0, 100.0), 0.3));
        // The curve does not depend on the delay unit: d_m = 40 ms gives the same values.
        assert!(close(P.alpha_curve(4e6, 40e6), 33.0 / 13.0));
    }

    #[test]
    fn beta_at_zero_a_tenth_and_the_maximum_delay() {
        // d_a ≤ d_m/10 → β_min; d_a ≥ 0.8·d_m → β_max; linear between:
        // d_a = 0.45·d_m → 1/8 + (1/2 − 1/8)·(0.45 − 0.1)/(0.8 − 0.1) = 0.125 + 0.1875.
        assert_eq!(P.beta_of_delay(0.0, 100.0), 0.125);
        assert_eq!(P.beta_of_delay(10.0, 100.0), 0.125);
        assert!(close(P.beta_of_delay(45.0, 100.0), 0.3125));
        assert_eq!(P.beta_of_delay(80.0, 100.0), 0.5);
        assert_eq!(P.beta_of_delay(100.0, 100.0), 0.5);
    }

    /// Congestion avoidance at `packets` with BaseRTT 100 ms.
    fn in_avoidance(packets: u64) -> (Illinois, Path) {
        let mut c = illinois();
        c.cwnd = packets * MSS;
        c.ssthresh = packets * MSS;
        let mut path = Path::new(MSS, packets * MSS);
        path.round(&mut c, ms(100), 1);
        (c, path)
    }

    #[test]
    fn alpha_and_beta_follow_the_delay_round_by_round() {
        let (mut c, mut path) = in_avoidance(100);
        // d_m = d_a = 0 so far: never above d1 → α_max, β_min.
        assert_eq!((c.alpha(), c.beta()), (10.0, 0.125));
        // A round at 200 ms: d_a = d_m = 100 ms → α_min, β_max.
        path.round(&mut c, ms(200), 1);
        assert!(close(c.alpha(), 0.3));
        assert_eq!(c.beta(), 0.5);
        // 110 ms: d_a = 10 ms = d_m/10 → α = 33/13, β = β_min.
        path.round(&mut c, ms(110), 1);
        assert!(close(c.alpha(), 33.0 / 13.0));
        assert_eq!(c.beta(), 0.125);
        // Back at BaseRTT (d_a = 0 ≤ d1): α waits θ = 5 rounds before returning to α_max.
        for _ in 0..4 {
            path.round(&mut c, ms(100), 1);
            assert!(close(c.alpha(), 33.0 / 13.0));
        }
        path.round(&mut c, ms(100), 1);
        assert_eq!(c.alpha(), 10.0);
    }

    #[test]
    fn the_theta_rounds_must_be_consecutive() {
        let (mut c, mut path) = in_avoidance(100);
        path.round(&mut c, ms(200), 1); // d_m = 100 ms, α = 0.3
        for _ in 0..4 {
            path.round(&mut c, ms(100), 1);
        }
        // A round above d1 (d_a = 50 ms: α = κ1/(κ2 + 50) = 297/(20 + 485) = 0.588) resets
        // the count, so four more low rounds are not enough.
        path.round(&mut c, ms(150), 1);
        assert!(close(c.alpha(), 297.0 / 505.0));
        for _ in 0..4 {
            path.round(&mut c, ms(100), 1);
        }
        assert!(close(c.alpha(), 297.0 / 505.0));
        path.round(&mut c, ms(100), 1);
        assert_eq!(c.alpha(), 10.0);
    }

    #[test]
    fn reno_below_win_thresh() {
        // A 100-packet window under a 1000-packet threshold: α = 1, β = 1/2 whatever the
        // delay (here d_a = d_m = 100 ms, which would otherwise give α_min, β_max).
        let (mut c, mut path) = in_avoidance(100);
        c.params.win_thresh = 1000;
        path.round(&mut c, ms(200), 1);
        assert_eq!((c.alpha(), c.beta()), (1.0, 0.5));
    }

    #[test]
    fn additive_increase_is_alpha_over_cwnd_per_ack() {
        let mut c = illinois();
        c.cwnd = 100 * MSS;
        c.ssthresh = 100 * MSS;
        // α = 10: each 1-MSS ACK earns 10 000 credit; the k-th segment costs the window at
        // that time, (100 + k − 1)·1000. After n ACKs, k segments fit when
        // 100k + k(k−1)/2 ≤ 10n: n = 10 → k = 1 (100 ≤ 100); n = 100 → k = 9
        // (936 ≤ 1000 < 1045).
        for _ in 0..10 {
            c.on_ack(&ack(MSS));
        }
        assert_eq!(c.cwnd(), 101 * MSS);
        for _ in 0..90 {
            c.on_ack(&ack(MSS));
        }
        assert_eq!(c.cwnd(), 109 * MSS);
        // α = 1 is Reno: +1 per window of bytes, also with delayed ACKs.
        c.alpha = 1.0;
        c.increase.reset();
        for _ in 0..54 {
            c.on_ack(&ack(2 * MSS));
        }
        assert_eq!(c.cwnd(), 109 * MSS);
        c.on_ack(&ack(2 * MSS));
        assert_eq!(c.cwnd(), 110 * MSS);
    }

    #[test]
    fn loss_multiplies_by_one_minus_beta() {
        let mut c = illinois();
        c.cwnd = 100 * MSS;
        c.beta = 0.125;
        assert_eq!(c.metrics().decrease_fraction, Some(0.125));
        c.on_congestion_event(&loss(100 * MSS));
        // (1 − 1/8)·100 = 87.5 packets.
        assert_eq!((c.cwnd(), c.ssthresh()), (87_500, 87_500));
        c.beta = 0.5;
        c.cwnd = 3 * MSS;
        c.on_congestion_event(&loss(3 * MSS));
        assert_eq!(c.cwnd(), 2 * MSS);
    }

    #[test]
    fn timeout_uses_current_beta_then_resets_to_reno() {
        let mut c = illinois();
        c.cwnd = 80 * MSS;
        c.alpha = 0.3;
        c.beta = 0.25;
        c.rtt_above = true;
        new_timeout(&mut c, &timeout(80 * MSS));
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 60 * MSS));
        assert_eq!((c.alpha(), c.beta()), (1.0, 0.5));
        assert!(!c.rtt_above);
        // Slow start from one segment (standard part).
        c.on_ack(&ack(MSS));
        assert_eq!(c.cwnd(), 2 * MSS);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited_or_in_recovery() {
        let mut c = illinois();
        c.cwnd = 100 * MSS;
        c.ssthresh = 100 * MSS;
        for _ in 0..200 {
            c.on_ack(&Ack {
                cwnd_limited: false,
                ..ack(MSS)
            });
            c.on_ack(&Ack {
                in_recovery: true,
                ..ack(MSS)
            });
        }
        assert_eq!(c.cwnd(), 100 * MSS);
    }
}
