//! Compound TCP: K. Tan, J. Song, Q. Zhang, M. Sridharan, "A Compound TCP Approach for
//! High-speed and Long Distance Networks", IEEE INFOCOM 2006; M. Sridharan, K. Tan,
//! D. Bansal, D. Thaler, draft-sridharan-tcpm-ctcp-02 (2008).
//!
//! The sending window is the sum of a Reno window and a delay-based window,
//! `win = cwnd + dwnd`. The loss component grows `cwnd += 1/win` per ACK (one packet per
//! round of `win`) and uses the ordinary slow start (the swappable [`SlowStart`] part) while
//! `cwnd < ssthresh`. Once per round trip in congestion avoidance the delay component
//! estimates this flow's queued packets like Vegas, `diff = win·(1 − BaseRTT/RTT)`, and
//!
//! ```text
//! dwnd ← dwnd + max(α·win^k − 1, 0)     if diff < γ   (scalable, HSTCP-like growth)
//! dwnd ← max(dwnd − ζ·diff, 0)          if diff ≥ γ   (give back the estimated queue)
//! ```
//!
//! On loss `dwnd ← max(win·(1 − β) − cwnd/2, 0)` and `cwnd ← cwnd/2`, so `win` shrinks to
//! `win·(1 − β)` (or to `cwnd/2` if that is larger). Defaults α = 1/8, β = 1/2, k = 0.75,
//! ζ = 1, γ = 30 packets. Windows are in packets in the equations and bytes in the state.

use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, half_flight_ssthresh,
};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;

use super::byte_counter::ByteCounter;
use super::rtt_rounds::{RoundStats, RoundTracker};

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("alpha", 0.125, 0.0, 10.0)
        .doc("α: scale of the delay window's growth α·win^k − 1 per RTT"),
    ParamSpec::number("beta", 0.5, 0.0, 1.0)
        .doc("β: multiplicative decrease of the whole window win on loss"),
    ParamSpec::number("k", 0.75, 0.0, 2.0)
        .doc("k: exponent of the delay window's growth (0.75 ≈ HSTCP's response function)"),
    ParamSpec::number("zeta", 1.0, 0.0, 100.0)
        .doc("ζ: dwnd shrinks by ζ·diff per RTT while diff ≥ γ"),
    ParamSpec::number("gamma", 30.0, 0.0, 100_000.0)
        .unit("packets")
        .doc("γ: queued packets (diff) above which the delay window backs off"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "compound",
    aliases: &["ctcp"],
    summary: "win = Reno cwnd + delay window dwnd (grows α·win^k per RTT until ~γ packets queue)",
    reference: "Tan, Song, Zhang, Sridharan, IEEE INFOCOM 2006; draft-sridharan-tcpm-ctcp-02",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| Box::new(Compound::from_params(config, params, slow_start)),
};

/// The delay component's constants (paper notation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompoundParams {
    pub alpha: f64,
    pub beta: f64,
    pub k: f64,
    pub zeta: f64,
    /// Packets.
    pub gamma: f64,
}

impl CompoundParams {
    pub const PAPER: CompoundParams = CompoundParams {
        alpha: 0.125,
        beta: 0.5,
        k: 0.75,
        zeta: 1.0,
        gamma: 30.0,
    };
}

pub struct Compound {
    mss: u64,
    /// Loss-based (Reno) component, bytes.
    cwnd: u64,
    /// Delay-based component, bytes.
    dwnd: u64,
    ssthresh: u64,
    params: CompoundParams,
    /// Reno's `cwnd += 1/win` per ACK, counted in bytes.
    reno: ByteCounter,
    rounds: RoundTracker,
    slow_start: Box<dyn SlowStart>,
}

impl Compound {
    pub fn new(config: &CcConfig, params: CompoundParams, slow_start: Box<dyn SlowStart>) -> Self {
        Compound {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            dwnd: 0,
            ssthresh: config.initial_ssthresh,
            params,
            reno: ByteCounter::new(),
            rounds: RoundTracker::new(),
            slow_start,
        }
    }

    pub fn from_params(config: &CcConfig, params: &Params, slow_start: Box<dyn SlowStart>) -> Self {
        let params = CompoundParams {
            alpha: params.number("alpha"),
            beta: params.number("beta"),
            k: params.number("k"),
            zeta: params.number("zeta"),
            gamma: params.number("gamma"),
        };
        Compound::new(config, params, slow_start)
    }

    /// The delay-based window in bytes.
    pub fn dwnd(&self) -> u64 {
        self.dwnd
    }

    /// The loss-based window in bytes.
    pub fn loss_window(&self) -> u64 {
        self.cwnd
    }

    fn win(&self) -> u64 {
        self.cwnd + self.dwnd
    }

    fn packets_to_bytes(&self, packets: f64) -> u64 {
        (packets * self.mss as f64).round() as u64
    }

    /// Once per round trip, outside slow start: the dwnd rule of INFOCOM 2006 §3.
    fn update_dwnd(&mut self, round: &RoundStats, ack: &Ack) {
        let (Some(base), Some(rtt)) = (self.rounds.base_rtt(), round.mean_rtt()) else {
            return;
        };
        if rtt.is_zero() {
            return;
        }
        // diff = (Expected − Actual)·BaseRTT = win·(1 − BaseRTT/RTT), in packets.
        let win = self.win() as f64 / self.mss as f64;
        let diff = win * (1.0 - base.as_nanos() as f64 / rtt.as_nanos() as f64);
        if diff < self.params.gamma {
            if ack.may_grow() {
                let growth = self.params.alpha * libm::pow(win, self.params.k) - 1.0;
                if growth > 0.0 {
                    self.dwnd += self.packets_to_bytes(growth);
                }
            }
        } else {
            let decrease = self.packets_to_bytes(self.params.zeta * diff);
            self.dwnd = self.dwnd.saturating_sub(decrease);
        }
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        let finished = self.rounds.on_ack(ack);
        if ack.in_recovery {
            self.rounds.restart();
            return;
        }
        if ack.may_grow() {
            if self.cwnd < self.ssthresh {
                self.slow_start
                    .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
            } else {
                // cwnd += 1/win per ACK: one segment for every win bytes acknowledged.
                let segments = self.reno.on_ack(ack.bytes_acked, 1.0, self.win());
                self.cwnd += segments * self.mss;
            }
        }
        // Slow start is left to the loss component alone (dwnd stays as it is).
        if let Some(round) = finished
            && self.cwnd >= self.ssthresh
        {
            self.update_dwnd(&round, ack);
        }
    }

    fn on_congestion_event(&mut self, _event: &CongestionEvent) {
        // dwnd = (win·(1 − β) − cwnd/2)^+, cwnd = cwnd/2 (floored at 2 MSS).
        let win = self.win();
        self.cwnd = (self.cwnd / 2).max(2 * self.mss);
        let target = (win as f64 * (1.0 - self.params.beta)).round() as u64;
        self.dwnd = target.saturating_sub(self.cwnd);
        self.ssthresh = self.cwnd;
        self.reno.reset();
        self.rounds.restart();
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // RFC 5681 §3.1 eq. (4).
        self.ssthresh = half_flight_ssthresh(event.bytes_in_flight, self.mss);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // The delay component is a congestion-avoidance mechanism: drop it and restart
        // from the RFC 5681 loss window.
        self.cwnd = self.mss;
        self.dwnd = 0;
        self.reno.reset();
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
        ControllerMetrics::with_slow_start(self.slow_start.as_ref())
    }

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Linux's `tcp_reno_undo_cwnd` applied to the whole window win = cwnd + dwnd: the
        // loss-based part takes back what the reduction took, the delay part stays as it is.
        self.cwnd = self.cwnd.max(event.prior_cwnd.saturating_sub(self.dwnd));
        self.ssthresh = self.ssthresh.max(event.prior_ssthresh);
    }

    fn cwnd(&self) -> u64 {
        self.win()
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        // cwnd() is the loss-based part plus the delay-based dwnd: dwnd is kept as far as
        // the assigned window holds it with at least one segment of loss-based window.
        self.dwnd = self.dwnd.min(cwnd.saturating_sub(self.mss));
        self.cwnd = cwnd - self.dwnd;
        self.ssthresh = ssthresh;
    }

    fn mode(&self) -> &'static str {
        if self.cwnd < self.ssthresh {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::delay_harness::Path;
    use crate::controller::UNLIMITED;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{loss, ms, timeout};

    const MSS: u64 = 1000;

    fn compound() -> Compound {
        let config = CcConfig::new(MSS);
        Compound::new(
            &config,
            CompoundParams::PAPER,
            Box::new(StandardSlowStart::new(&config)),
        )
    }

    /// Congestion avoidance with the given loss and delay windows (packets) and a BaseRTT
    /// of 100 ms learnt in one round, after which the windows are put back.
    fn in_avoidance(cwnd: u64, dwnd: u64) -> (Compound, Path) {
        let mut c = compound();
        let mut path = Path::new(MSS, (cwnd + dwnd) * MSS);
        let set = |c: &mut Compound| {
            c.cwnd = cwnd * MSS;
            c.dwnd = dwnd * MSS;
            c.ssthresh = cwnd * MSS;
            c.reno.reset();
        };
        set(&mut c);
        path.round(&mut c, ms(100), 1);
        set(&mut c);
        (c, path)
    }

    /// Undo after a fast recovery: the paper's loss response cut the whole window win =
    /// cwnd + dwnd = 80 + 20 = 100 packets to cwnd = 40, dwnd = (100·(1 − β) − 40)^+ = 10
    /// (β = 0.5). `tcp_reno_undo_cwnd` on the whole window: win comes back to 100 packets
    /// with dwnd kept, so cwnd = 100 − 10 = 90; ssthresh to prior_ssthresh.
    #[test]
    fn undo_restores_the_whole_window_and_keeps_the_delay_part() {
        let (mut c, _) = in_avoidance(80, 20);
        let prior = c.cwnd();
        assert_eq!(prior, 100 * MSS);
        c.on_congestion_event(&loss(100 * MSS));
        assert_eq!((c.loss_window(), c.dwnd()), (40 * MSS, 10 * MSS));
        c.on_undo(&crate::controller::UndoEvent {
            now: crate::time::SimTime::ZERO,
            prior_cwnd: prior,
            prior_ssthresh: 80 * MSS,
        });
        assert_eq!((c.loss_window(), c.dwnd()), (90 * MSS, 10 * MSS));
        assert_eq!((c.cwnd(), c.ssthresh()), (prior, 80 * MSS));
    }

    #[test]
    fn delay_window_grows_by_alpha_win_to_the_k_minus_one() {
        let (mut c, mut path) = in_avoidance(80, 0);
        // One round at BaseRTT: 80 ACKs grow the loss window by 1/win each → 81 packets.
        // diff = 0 < γ, so dwnd += 0.125·81^0.75 − 1 = 0.125·27 − 1 = 2.375 packets.
        path.round(&mut c, ms(100), 1);
        assert_eq!(c.loss_window(), 81 * MSS);
        assert_eq!(c.dwnd(), 2375);
        assert_eq!(c.cwnd(), 81 * MSS + 2375);
        // Every further round at BaseRTT adds α·win^k − 1 for the window it ends with.
        for _ in 0..5 {
            let before = c.dwnd();
            path.round(&mut c, ms(100), 1);
            let win = (c.loss_window() + before) as f64 / MSS as f64;
            let expected = (1000.0 * (0.125 * libm::pow(win, 0.75) - 1.0)).round() as u64;
            assert_eq!(c.dwnd() - before, expected);
        }
    }

    #[test]
    fn no_delay_growth_at_or_below_sixteen_packets() {
        // α·win^k − 1 ≤ 0 ⇔ win^0.75 ≤ 8 ⇔ win ≤ 16: at win = 16 the increment is exactly 0.
        let (mut c, mut path) = in_avoidance(15, 0);
        path.round(&mut c, ms(100), 1);
        assert_eq!((c.loss_window(), c.dwnd()), (16 * MSS, 0));
    }

    #[test]
    fn delay_window_gives_back_the_queue_above_gamma() {
        let (mut c, mut path) = in_avoidance(100, 50);
        // One round at 125 ms: about 150 ACKs grow cwnd by one (win 150 → 151). Then
        // diff = 151·(1 − 100/125) = 30.2 ≥ γ = 30 → dwnd = 50 − ζ·30.2 = 19.8 packets.
        path.round(&mut c, ms(125), 1);
        assert_eq!(c.loss_window(), 101 * MSS);
        assert_eq!(c.dwnd(), 19_800);
        // With diff ≥ dwnd it bottoms out at zero: at 200 ms, win ≈ 121 packets gives
        // diff ≈ 121·(1 − 100/200) ≈ 60 > 19.8.
        path.round(&mut c, ms(200), 1);
        assert_eq!(c.dwnd(), 0);
    }

    #[test]
    fn loss_halves_the_loss_window_and_resizes_dwnd_to_win_times_one_minus_beta() {
        let mut c = compound();
        c.cwnd = 100 * MSS;
        c.dwnd = 50 * MSS;
        c.ssthresh = 100 * MSS;
        c.on_congestion_event(&loss(150 * MSS));
        // win = 150: cwnd = 50, dwnd = 150·(1 − 1/2) − 50 = 25, win = 75 = 150·(1 − β).
        assert_eq!(
            (c.loss_window(), c.dwnd(), c.cwnd()),
            (50 * MSS, 25 * MSS, 75 * MSS)
        );
        assert_eq!(c.ssthresh(), 50 * MSS);
        // Without a delay window the result is plain halving: 40 → 20, dwnd = 20 − 20 = 0.
        c.cwnd = 40 * MSS;
        c.dwnd = 0;
        c.on_congestion_event(&loss(40 * MSS));
        assert_eq!((c.loss_window(), c.dwnd()), (20 * MSS, 0));
        // Floor of 2 MSS on the loss window.
        c.cwnd = 3 * MSS;
        c.on_congestion_event(&loss(3 * MSS));
        assert_eq!(c.cwnd(), 2 * MSS);
    }

    #[test]
    fn slow_start_is_the_loss_component_alone() {
        let mut c = compound();
        let mut path = Path::new(MSS, 10 * MSS);
        assert_eq!(
            (c.cwnd(), c.ssthresh(), c.mode()),
            (10 * MSS, UNLIMITED, "slow_start")
        );
        // Standard slow start, one ACK per segment: the first round has 11 ACKs (the first
        // one starts it) → 21, the second 20 ACKs → 41; dwnd untouched.
        path.round(&mut c, ms(100), 1);
        assert_eq!((c.cwnd(), c.dwnd()), (21 * MSS, 0));
        path.round(&mut c, ms(100), 1);
        assert_eq!((c.cwnd(), c.dwnd()), (41 * MSS, 0));
    }

    #[test]
    fn timeout_drops_the_delay_window() {
        let mut c = compound();
        c.cwnd = 100 * MSS;
        c.dwnd = 50 * MSS;
        c.ssthresh = 100 * MSS;
        new_timeout(&mut c, &timeout(150 * MSS));
        assert_eq!((c.cwnd(), c.dwnd(), c.ssthresh()), (MSS, 0, 75 * MSS));
        assert_eq!(c.mode(), "slow_start");
    }

    #[test]
    fn no_growth_when_not_cwnd_limited_or_in_recovery() {
        let (mut c, mut path) = in_avoidance(80, 0);
        path.round_with(&mut c, ms(100), 1, |a| Ack {
            cwnd_limited: false,
            ..a
        });
        assert_eq!((c.loss_window(), c.dwnd()), (80 * MSS, 0));
        path.round_with(&mut c, ms(100), 1, |a| Ack {
            in_recovery: true,
            ..a
        });
        assert_eq!((c.loss_window(), c.dwnd()), (80 * MSS, 0));
    }
}
