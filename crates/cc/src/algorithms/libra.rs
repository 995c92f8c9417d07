//! TCP Libra (Marfia, Palazzi, Pau, Gerla, Sanadidi, Roccetti: "TCP Libra: Exploring
//! RTT-Fairness for TCP", UCLA CSD TR050037 2005 / Networking 2007, LNCS 4479; "TCP Libra:
//! Derivation, analysis, and comparison with other RTT-fair TCPs", Computer Networks 54,
//! 2010). **A reconstruction**: the papers' equations could not be read (see
//! `docs/algorithms/libra.md`); this follows cclab's seed-spec §5.9 and fills its gaps with
//! choices stated here and in the docs.
//!
//! Libra is NewReno with a different window adjustment, designed so that flows with
//! different RTTs get the same throughput:
//!
//! * increase, per RTT: `Δ = α·T²/(T + T1)` packets, T the (smoothed) RTT in seconds, and
//!   `α = k1·P`. For `T ≪ T1` the increase grows as T², which cancels the RTT in the rate
//!   growth: a window of w packets is a rate w/T, and +Δ per RTT raises the rate by
//!   `Δ/T² = α/(T + T1)` per second, nearly the same for every RTT. For `T ≫ T1` the
//!   increase is only linear in T, bounding long-RTT flows' aggressiveness (T1 trades
//!   RTT-fairness against stability);
//! * penalty factor (our form): `P = e^{−k2·m}` with the congestion measure
//!   `m = (T − T_min)/(T_max − T_min)` ∈ [0, 1], the queueing delay relative to the largest
//!   seen; the increase slows as the queue builds;
//! * decrease on loss (our form): `cwnd ← cwnd·(1 − β)`, `β = β_min + (1/2 − β_min)·m`:
//!   NewReno's halving when the queue is at its largest, a smaller cut (β_min = 1/8) when a
//!   loss finds the queue empty.
//!
//! Growth is byte counted: +1 SMSS each time `Σ bytes_acked·Δ` reaches cwnd, i.e. Δ segments
//! per window of ACKed bytes whatever the ACK size (Linux `tcp_cong_avoid_ai` with
//! `w = cwnd/Δ`). Before an RTT is known the increase is NewReno's 1 segment per RTT.
//! Slow start is the pluggable part.

use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::ControllerMetrics;
use crate::params::ParamSpec;
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;
use crate::time::SimDuration;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("k1", 110.0, 0.001, 1.0e9)
        .unit("packets/s")
        .doc(
            "alpha = k1*P; default (ours) makes the increase 1 packet/RTT at T = 100 ms, T1 = 1 s",
        ),
    ParamSpec::number("k2", 0.0, 0.0, 100.0).doc(
        "penalty steepness: P = exp(-k2*m), m = queueing delay / largest queueing delay \
         (default 0: no penalty, which keeps flows of different RTTs fair)",
    ),
    ParamSpec::number("t1", 1.0, 0.001, 100.0)
        .unit("s")
        .doc("T1 in alpha*T^2/(T+T1): RTTs well below T1 get RTT-independent rate growth"),
    ParamSpec::number("beta_min", 0.125, 0.0, 0.5)
        .doc("loss decrease with an empty queue; it rises linearly to 1/2 at the largest queue"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "libra",
    aliases: &[],
    summary: "RTT-fair NewReno: +k1*P*T^2/(T+T1) per RTT, loss cut scaled by queueing delay \
              (reconstruction)",
    reference: "Marfia et al., Networking 2007 (LNCS 4479) and Computer Networks 54 (2010); \
                seed-spec §5.9; equations reconstructed, see docs/algorithms/libra.md",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| {
        Box::new(Libra::new(
            config,
            slow_start,
            LibraParams {
                k1: params.number("k1"),
                k2: params.number("k2"),
                t1: params.number("t1"),
                beta_min: params.number("beta_min"),
            },
        ))
    },
};

/// Libra's constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LibraParams {
    /// α = k1·P, packets per second.
    pub k1: f64,
    /// P = e^{−k2·m}.
    pub k2: f64,
    /// T1, seconds.
    pub t1: f64,
    /// Loss decrease at m = 0.
    pub beta_min: f64,
}

impl LibraParams {
    /// `Δ = k1·e^{−k2·m}·T²/(T + T1)`: the increase per RTT in packets at RTT `t`
    /// (seconds) and congestion measure `m`.
    pub fn increase_per_rtt(&self, t: f64, m: f64) -> f64 {
        let penalty = libm::exp(-self.k2 * m);
        self.k1 * penalty * t * t / (t + self.t1)
    }

    /// `β = β_min + (1/2 − β_min)·m`: the fraction of cwnd removed on loss.
    pub fn decrease(&self, m: f64) -> f64 {
        self.beta_min + (0.5 - self.beta_min) * m
    }
}

pub struct Libra {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    params: LibraParams,
    /// Σ bytes_acked·Δ since cwnd last grew, in byte-packets.
    credit: f64,
    srtt: Option<SimDuration>,
    rtt_min: Option<SimDuration>,
    rtt_max: Option<SimDuration>,
    slow_start: Box<dyn SlowStart>,
}

impl Libra {
    pub fn new(config: &CcConfig, slow_start: Box<dyn SlowStart>, params: LibraParams) -> Self {
        Libra {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            params,
            credit: 0.0,
            srtt: None,
            rtt_min: None,
            rtt_max: None,
            slow_start,
        }
    }

    /// The congestion measure m ∈ [0, 1]: the smoothed RTT's queueing delay relative to the
    /// largest RTT sample's. 0 while no queueing has been seen.
    pub fn congestion_measure(&self) -> f64 {
        let (Some(t), Some(min), Some(max)) = (self.srtt, self.rtt_min, self.rtt_max) else {
            return 0.0;
        };
        let span = max.saturating_sub(min).as_secs_f64();
        if span <= 0.0 {
            return 0.0;
        }
        (t.saturating_sub(min).as_secs_f64() / span).min(1.0)
    }

    /// The current increase per RTT in packets (NewReno's 1 until an RTT is known).
    pub fn current_increase(&self) -> f64 {
        match self.srtt {
            Some(t) => self
                .params
                .increase_per_rtt(t.as_secs_f64(), self.congestion_measure()),
            None => 1.0,
        }
    }

    fn reduced_window(&self) -> u64 {
        let beta = self.params.decrease(self.congestion_measure());
        ((self.cwnd as f64 * (1.0 - beta)).floor() as u64).max(2 * self.mss)
    }
}

impl CongestionControl for Libra {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        if let Some(rtt) = ack.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
            self.rtt_max = Some(self.rtt_max.map_or(rtt, |m| m.max(rtt)));
        }
        if ack.srtt.is_some() {
            self.srtt = ack.srtt;
        }
        if !ack.may_grow() {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
            return;
        }
        // Δ segments per cwnd bytes ACKed: +1 SMSS each time Σ bytes·Δ reaches cwnd.
        self.credit += ack.bytes_acked as f64 * self.current_increase();
        while self.credit >= self.cwnd as f64 {
            self.credit -= self.cwnd as f64;
            self.cwnd += self.mss;
        }
    }

    fn on_congestion_event(&mut self, _event: &CongestionEvent) {
        self.ssthresh = self.reduced_window();
        self.cwnd = self.ssthresh;
        self.credit = 0.0;
    }

    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {
        self.ssthresh = self.reduced_window();
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        self.cwnd = self.mss;
        self.credit = 0.0;
        self.slow_start.restart();
    }

    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics::with_slow_start(self.slow_start.as_ref())
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
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, loss, timeout};

    const MSS: u64 = 1000;
    const DEFAULTS: LibraParams = LibraParams {
        k1: 110.0,
        k2: 2.0,
        t1: 1.0,
        beta_min: 0.125,
    };

    fn libra_in_ca(cwnd_segments: u64) -> Libra {
        let config = CcConfig {
            initial_cwnd: cwnd_segments * MSS,
            initial_ssthresh: cwnd_segments * MSS,
            ..CcConfig::new(MSS)
        };
        Libra::new(&config, Box::new(StandardSlowStart::new(&config)), DEFAULTS)
    }

    /// An ACK of `bytes` with an RTT sample and smoothed RTT of `rtt_ms`.
    fn rtt_ack(bytes: u64, rtt_ms: u64, srtt_ms: u64) -> Ack {
        Ack {
            rtt: Some(SimDuration::from_millis(rtt_ms)),
            srtt: Some(SimDuration::from_millis(srtt_ms)),
            ..ack(bytes)
        }
    }

    #[test]
    fn increase_per_rtt_at_two_rtts() {
        // Empty queue (m = 0, P = 1), k1 = 110, T1 = 1 s:
        // T = 10 ms:  110 * 0.01^2 / 1.01 = 0.011/1.01 = 0.0108910891 packets per RTT;
        // T = 100 ms: 110 * 0.1^2 / 1.1 = 1.1/1.1 = 1 packet per RTT.
        let slow = DEFAULTS.increase_per_rtt(0.01, 0.0);
        let fast = DEFAULTS.increase_per_rtt(0.1, 0.0);
        assert!((slow - 0.011 / 1.01).abs() < 1e-12);
        assert!((fast - 1.0).abs() < 1e-12);
        // RTT fairness: the rate w/T grows by Δ/T² per second: 0.0108911/0.0001 = 108.91
        // and 1/0.01 = 100 packets/s per second: a ratio of (0.1 + 1)/(0.01 + 1) = 1.0891,
        // where Reno (Δ = 1 for both) gives 0.01/0.0001 = 100.
        let ratio = (slow / (0.01 * 0.01)) / (fast / (0.1 * 0.1));
        assert!((ratio - 1.1 / 1.01).abs() < 1e-9);
        // Above T1 the increase is only linear in T: T = 10 s -> 110 * 100 / 11 = 1000,
        // T = 20 s -> 110 * 400 / 21 = 2095.2, a ratio of 2.095 (not 4).
        let r = DEFAULTS.increase_per_rtt(20.0, 0.0) / DEFAULTS.increase_per_rtt(10.0, 0.0);
        assert!((r - (400.0 / 21.0) / (100.0 / 11.0)).abs() < 1e-12);
    }

    #[test]
    fn controller_grows_by_the_per_rtt_increase() {
        // T = 10 ms: Δ = 0.0108911 segments per window, so +1 segment after cwnd/Δ bytes:
        // 10,000 / 0.0108911 = 918,181.8 bytes -> at the 919th one-segment ACK.
        let mut l = libra_in_ca(10);
        for _ in 0..918 {
            l.on_ack(&rtt_ack(MSS, 10, 10));
        }
        assert_eq!(l.cwnd(), 10 * MSS);
        l.on_ack(&rtt_ack(MSS, 10, 10));
        assert_eq!(l.cwnd(), 11 * MSS);
        // T = 50 ms: Δ = 110 * 0.0025 / 1.05 = 0.2619048 -> 10,000 / 0.2619048 = 38,181.8
        // bytes: the 39th ACK; the same with delayed ACKs of 2 segments: the 20th ACK.
        for (bytes, acks) in [(MSS, 39), (2 * MSS, 20)] {
            let mut l = libra_in_ca(10);
            for _ in 0..acks - 1 {
                l.on_ack(&rtt_ack(bytes, 50, 50));
            }
            assert_eq!(l.cwnd(), 10 * MSS);
            l.on_ack(&rtt_ack(bytes, 50, 50));
            assert_eq!(l.cwnd(), 11 * MSS);
        }
    }

    #[test]
    fn penalty_slows_the_increase_as_the_queue_builds() {
        let mut l = libra_in_ca(10);
        // RTT_min = 100 ms, RTT_max = 200 ms; srtt 150 ms: m = 50/100 = 0.5, P = e^-1.
        l.on_ack(&Ack {
            cwnd_limited: false,
            ..rtt_ack(MSS, 100, 100)
        });
        l.on_ack(&Ack {
            cwnd_limited: false,
            ..rtt_ack(MSS, 200, 150)
        });
        assert!((l.congestion_measure() - 0.5).abs() < 1e-12);
        // Δ = 110 * e^-1 * 0.15^2 / 1.15 = 2.1521739 * 0.3678794 = 0.7917405 packets per RTT.
        let expected = 110.0 * 0.15 * 0.15 / 1.15 * (-1.0f64).exp();
        assert!((l.current_increase() - expected).abs() < 1e-12);
        assert!((expected - 0.791_740_5).abs() < 1e-7);
    }

    #[test]
    fn loss_decrease_scales_with_the_queue() {
        // RTT_min = 100 ms, RTT_max = 200 ms, cwnd 20 segments.
        // m = 0.5 (srtt 150 ms): beta = 1/8 + 3/8 * 0.5 = 0.3125 -> 20,000 * 0.6875 = 13,750.
        // m = 1 (srtt 200 ms): beta = 1/2 -> 10,000. m = 0 (srtt 100 ms): 1/8 -> 17,500.
        for (srtt, expected) in [(150, 13_750), (200, 10_000), (100, 17_500)] {
            let mut l = libra_in_ca(20);
            l.on_ack(&Ack {
                cwnd_limited: false,
                ..rtt_ack(MSS, 100, 100)
            });
            l.on_ack(&Ack {
                cwnd_limited: false,
                ..rtt_ack(MSS, 200, srtt)
            });
            l.on_congestion_event(&loss(20 * MSS));
            assert_eq!(
                (l.cwnd(), l.ssthresh()),
                (expected, expected),
                "srtt {srtt}"
            );
        }
    }

    #[test]
    fn without_queueing_history_the_cut_is_beta_min_and_floored_at_two_segments() {
        // No RTT spread yet: m = 0, beta = 1/8: 20 -> 17.5 segments.
        let mut l = libra_in_ca(20);
        l.on_congestion_event(&loss(20 * MSS));
        assert_eq!(l.cwnd(), 17_500);
        // 2 segments * 7/8 = 1,750 B -> floor 2,000 B.
        let mut l = libra_in_ca(2);
        l.on_congestion_event(&loss(2 * MSS));
        assert_eq!(l.ssthresh(), 2 * MSS);
    }

    #[test]
    fn timeout_collapses_to_one_segment() {
        let mut l = libra_in_ca(20);
        l.on_ack(&Ack {
            cwnd_limited: false,
            ..rtt_ack(MSS, 100, 100)
        });
        l.on_ack(&Ack {
            cwnd_limited: false,
            ..rtt_ack(MSS, 200, 200)
        });
        new_timeout(&mut l, &timeout(20 * MSS));
        assert_eq!((l.cwnd(), l.ssthresh()), (MSS, 10 * MSS));
        l.on_ack(&rtt_ack(MSS, 100, 150));
        assert_eq!(l.cwnd(), 2 * MSS);
    }

    #[test]
    fn before_an_rtt_it_grows_like_newreno() {
        let mut l = libra_in_ca(10);
        for _ in 0..9 {
            l.on_ack(&ack(MSS));
        }
        assert_eq!(l.cwnd(), 10 * MSS);
        l.on_ack(&ack(MSS));
        assert_eq!(l.cwnd(), 11 * MSS);
    }

    #[test]
    fn no_growth_in_recovery_or_when_not_cwnd_limited() {
        let mut l = libra_in_ca(10);
        for _ in 0..50 {
            l.on_ack(&Ack {
                in_recovery: true,
                ..rtt_ack(MSS, 100, 100)
            });
            l.on_ack(&Ack {
                cwnd_limited: false,
                ..rtt_ack(MSS, 100, 100)
            });
        }
        assert_eq!(l.cwnd(), 10 * MSS);
    }
}
