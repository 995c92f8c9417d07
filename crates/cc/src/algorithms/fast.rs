//! FAST TCP: D. X. Wei, C. Jin, S. H. Low, S. Hegde, "FAST TCP: Motivation, Architecture,
//! Algorithms, Performance", IEEE/ACM Trans. Networking 14(6):1246–1259, 2006; C. Jin,
//! D. X. Wei, S. H. Low, "FAST TCP: motivation, architecture, algorithms, performance",
//! IEEE INFOCOM 2004 (RTT averaging).
//!
//! Once per update period (here: once per round trip) the window moves toward the point
//! where the flow keeps α of its packets in queues:
//!
//! `w ← min{ 2w, (1 − γ)·w + γ·(BaseRTT/RTT · w + α) }`
//!
//! with `RTT` the average round-trip time and `BaseRTT` the smallest one seen. At a fixed
//! point `w = BaseRTT/RTT·w + α`, i.e. `w·(RTT − BaseRTT)/RTT = α`: α packets queued. The
//! `2w` cap bounds the start-up, so FAST needs no separate slow start. A loss halves the
//! window.
//!
//! The average RTT is the INFOCOM 2004 estimator: per ACK,
//! `avg ← (1 − η)·avg + η·rtt` with `η = min(3/w, 1/4)`; we weight by the packets an ACK
//! covers, `η = min(3·acked/w, 1/4)`, so delayed ACKs average over the same time.

use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, UNLIMITED,
};
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};

use super::rtt_rounds::RoundTracker;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("alpha", 200.0, 1.0, 100_000.0)
        .unit("packets")
        .doc("packets each flow aims to keep queued in the network (equilibrium backlog)"),
    ParamSpec::number("gamma", 0.5, 0.01, 1.0)
        .doc("step size: fraction of the way to the target window taken per update (paper: 0.5)"),
    ParamSpec::boolean("every_other_rtt", false).doc(
        "update every other round trip, as the Caltech Linux and ns-2 implementations did \
         (false: every round trip)",
    ),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "fast",
    aliases: &["fast-tcp"],
    summary: "delay-based: w ← min{2w, (1−γ)w + γ(BaseRTT/RTT·w + α)} per RTT, halve on loss",
    reference: "Wei, Jin, Low, Hegde, IEEE/ACM ToN 14(6) 2006; Jin, Wei, Low, INFOCOM 2004",
    params: PARAMS,
    uses_slow_start: false,
    initial_ssthresh: InitialSsthreshUse::None,
    build: |config, params, _slow_start| Box::new(Fast::from_params(config, params)),
};

/// ToN 2006 eq. (the window control): one update of the window `w` (packets).
pub fn window_update(w: f64, base_over_rtt: f64, alpha: f64, gamma: f64) -> f64 {
    (2.0 * w).min((1.0 - gamma) * w + gamma * (base_over_rtt * w + alpha))
}

pub struct Fast {
    mss: u64,
    /// Window in bytes, kept fractional: the update equation is real-valued.
    cwnd: f64,
    ssthresh: u64,
    alpha: f64,
    gamma: f64,
    every_other_rtt: bool,
    /// With `every_other_rtt`: the round that just ended is one without an update.
    skip_this_round: bool,
    rounds: RoundTracker,
    /// Average RTT in nanoseconds (INFOCOM 2004 estimator).
    avg_rtt: Option<f64>,
}

impl Fast {
    pub fn new(config: &CcConfig, alpha: f64, gamma: f64, every_other_rtt: bool) -> Self {
        Fast {
            mss: config.mss,
            cwnd: config.initial_cwnd.max(2 * config.mss) as f64,
            ssthresh: UNLIMITED,
            alpha,
            gamma,
            every_other_rtt,
            skip_this_round: true,
            rounds: RoundTracker::new(),
            avg_rtt: None,
        }
    }

    pub fn from_params(config: &CcConfig, params: &Params) -> Self {
        Fast::new(
            config,
            params.number("alpha"),
            params.number("gamma"),
            params.boolean("every_other_rtt"),
        )
    }

    /// Window in packets (fractional).
    pub fn window_packets(&self) -> f64 {
        self.cwnd / self.mss as f64
    }

    fn floor(&self) -> f64 {
        2.0 * self.mss as f64
    }

    fn average_rtt(&mut self, ack: &Ack) {
        let Some(rtt) = ack.rtt else {
            return;
        };
        let sample = rtt.as_nanos() as f64;
        self.avg_rtt = Some(match self.avg_rtt {
            None => sample,
            Some(avg) => {
                let eta = (3.0 * ack.bytes_acked as f64 / self.cwnd).min(0.25);
                // (1 − η)·avg + η·rtt, written so that a steady RTT leaves avg exact.
                avg + eta * (sample - avg)
            }
        });
    }

    fn update_window(&mut self, ack: &Ack) {
        if self.every_other_rtt {
            self.skip_this_round = !self.skip_this_round;
            if self.skip_this_round {
                return;
            }
        }
        let (Some(base), Some(avg)) = (self.rounds.base_rtt(), self.avg_rtt) else {
            return;
        };
        if avg <= 0.0 {
            return;
        }
        let w = self.window_packets();
        let updated = window_update(w, base.as_nanos() as f64 / avg, self.alpha, self.gamma);
        if updated > w && !ack.cwnd_limited {
            // An application-limited sender learns nothing about a larger window.
            return;
        }
        self.cwnd = (updated * self.mss as f64).max(self.floor());
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        let finished = self.rounds.on_ack(ack);
        self.average_rtt(ack);
        if ack.in_recovery {
            // The window is the sender's business until recovery ends; start a fresh round.
            self.rounds.restart();
            return;
        }
        if finished.is_some() {
            self.update_window(ack);
        }
    }

    fn on_congestion_event(&mut self, _event: &CongestionEvent) {
        // "Multiplicative decrease on loss": halve.
        self.cwnd = (self.cwnd / 2.0).max(self.floor());
        self.ssthresh = self.cwnd as u64;
        self.rounds.restart();
    }

    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {
        // A reported value only: FAST's control law does not read ssthresh (fast.md).
        self.ssthresh = ((self.cwnd / 2.0).max(self.floor())) as u64;
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // RFC 5681 loss window; the 2w cap of the update regrows it by doubling per RTT.
        self.cwnd = self.mss as f64;
        self.rounds.restart();
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

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Linux `tcp_reno_undo_cwnd`: the window and threshold come back, nothing else.
        self.cwnd = self.cwnd.max(event.prior_cwnd as f64);
        self.ssthresh = self.ssthresh.max(event.prior_ssthresh);
    }

    fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd as f64;
        self.ssthresh = ssthresh;
    }

    fn mode(&self) -> &'static str {
        // One control law from start-up to equilibrium; no slow start.
        "congestion_avoidance"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::delay_harness::Path;
    use crate::test_support::new_timeout;
    use crate::test_support::{loss, ms, timeout};
    use crate::time::SimDuration;

    const MSS: u64 = 1000;

    fn fast(alpha: f64) -> Fast {
        Fast::new(&CcConfig::new(MSS), alpha, 0.5, false)
    }

    #[test]
    fn one_update_by_hand() {
        // w = 100, BaseRTT/RTT = 100/120, α = 20, γ = 0.5:
        // 0.5·100 + 0.5·(100·100/120 + 20) = 50 + 0.5·103.333 = 101.667; 2w = 200 does not bind.
        let w = window_update(100.0, 100.0 / 120.0, 20.0, 0.5);
        assert!((w - (50.0 + 0.5 * (100.0 * 100.0 / 120.0 + 20.0))).abs() < 1e-12);
        assert!((w - 101.666_666_666_666_67).abs() < 1e-9);
        // No queueing and a large α: the 2w cap binds (10 → min(20, 5 + 0.5·210 = 110)).
        assert_eq!(window_update(10.0, 1.0, 200.0, 0.5), 20.0);
        // At the fixed point w* = α·RTT/(RTT − BaseRTT) = 20·120/20 = 120 nothing moves.
        assert!((window_update(120.0, 100.0 / 120.0, 20.0, 0.5) - 120.0).abs() < 1e-12);
    }

    #[test]
    fn converges_to_the_fixed_point_at_a_fixed_rtt() {
        // RTT held at 120 ms over a 100 ms BaseRTT, α = 20:
        // w* solves w = (1−γ)w + γ(w·100/120 + 20) ⇔ w·(1 − 100/120) = 20 ⇔ w* = 120.
        // Near it the error shrinks by 1 − γ(1 − 100/120) = 1 − 0.5/6 = 11/12 per update.
        let mut f = fast(20.0);
        let mut path = Path::new(MSS, 10 * MSS);
        path.round(&mut f, ms(100), 1);
        // BaseRTT = average = 100 ms: w ← min(20, 5 + 0.5·(10 + 20) = 20) = 20.
        assert_eq!(f.cwnd(), 20 * MSS);
        let mut errors = Vec::new();
        for _ in 0..200 {
            path.round(&mut f, ms(120), 1);
            errors.push(f.window_packets() - 120.0);
        }
        // Once the RTT average has settled, consecutive errors keep the ratio 11/12.
        for pair in errors[40..60].windows(2) {
            assert!((pair[1] / pair[0] - 11.0 / 12.0).abs() < 1e-6, "{pair:?}");
        }
        assert!(errors[199].abs() < 1e-3, "w = {}", f.window_packets());
        assert!(f.cwnd().abs_diff(120 * MSS) <= 1, "cwnd = {}", f.cwnd());
    }

    #[test]
    fn keeps_alpha_packets_queued_at_a_bottleneck() {
        // Bottleneck of 1000 packets/s, BaseRTT 100 ms: BDP = 100 packets and each queued
        // packet adds 1 ms. With α = 20 the equilibrium is w = BDP + α = 120 packets
        // (w·(RTT − BaseRTT)/RTT = α with w/RTT = 1000/s ⇒ queue = α), RTT = 120 ms.
        let mut f = fast(20.0);
        let mut path = Path::new(MSS, 10 * MSS);
        for _ in 0..300 {
            let queue = (f.window_packets() - 100.0).max(0.0);
            let rtt = SimDuration::from_secs_f64(0.100 + queue / 1000.0);
            path.round(&mut f, rtt, 1);
        }
        assert!(
            (f.window_packets() - 120.0).abs() < 0.01,
            "w = {}",
            f.window_packets()
        );
    }

    #[test]
    fn update_every_other_round_when_asked() {
        let mut f = Fast::new(&CcConfig::new(MSS), 200.0, 0.5, true);
        let mut path = Path::new(MSS, 10 * MSS);
        // The first round updates (10 → 20 by the 2w cap), the second holds, the third
        // updates again (20 → 40).
        path.round(&mut f, ms(100), 1);
        assert_eq!(f.cwnd(), 20 * MSS);
        path.round(&mut f, ms(100), 1);
        assert_eq!(f.cwnd(), 20 * MSS);
        path.round(&mut f, ms(100), 1);
        assert_eq!(f.cwnd(), 40 * MSS);
    }

    #[test]
    fn loss_halves_and_timeout_restarts_from_one_segment() {
        let mut f = fast(200.0);
        f.cwnd = 300.0 * MSS as f64;
        f.on_congestion_event(&loss(300 * MSS));
        assert_eq!((f.cwnd(), f.ssthresh()), (150 * MSS, 150 * MSS));
        f.cwnd = 3.0 * MSS as f64;
        f.on_congestion_event(&loss(3 * MSS));
        assert_eq!(f.cwnd(), 2 * MSS);
        f.cwnd = 80.0 * MSS as f64;
        new_timeout(&mut f, &timeout(80 * MSS));
        assert_eq!((f.cwnd(), f.ssthresh()), (MSS, 40 * MSS));
        // The 2w cap doubles the window per round from there (BaseRTT = RTT).
        let mut path = Path::new(MSS, MSS);
        path.round(&mut f, ms(100), 1);
        assert_eq!(f.cwnd(), 2 * MSS);
        path.round(&mut f, ms(100), 1);
        assert_eq!(f.cwnd(), 4 * MSS);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited_or_in_recovery_but_decrease_still_applies() {
        let mut f = fast(20.0);
        let mut path = Path::new(MSS, 10 * MSS);
        path.round_with(&mut f, ms(100), 1, |a| Ack {
            cwnd_limited: false,
            ..a
        });
        assert_eq!(f.cwnd(), 10 * MSS);
        path.round_with(&mut f, ms(100), 1, |a| Ack {
            in_recovery: true,
            ..a
        });
        assert_eq!(f.cwnd(), 10 * MSS);
        // A window far above its target shrinks even when application-limited:
        // w = 200 at RTT = 2·BaseRTT: 0.5·200 + 0.5·(100 + 20) = 160.
        let mut f = fast(20.0);
        f.cwnd = 200.0 * MSS as f64;
        let mut path = Path::new(MSS, 200 * MSS);
        path.round_with(&mut f, ms(100), 1, |a| Ack {
            cwnd_limited: false,
            ..a
        });
        assert_eq!(f.cwnd(), 200 * MSS); // first round: BaseRTT = RTT, target above w
        f.avg_rtt = Some(200e6);
        path.round_with(&mut f, ms(200), 1, |a| Ack {
            cwnd_limited: false,
            ..a
        });
        // The round's samples were all 200 ms, so the average stayed at 200 ms.
        assert!((f.window_packets() - 160.0).abs() < 1e-9);
    }
}
