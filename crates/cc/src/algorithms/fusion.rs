//! TCP-Fusion (Kaneko, Fujikawa, Su, Katto, "TCP-Fusion: A Hybrid Congestion Control
//! Algorithm for High-speed Networks", PFLDnet 2007). Equations as reconstructed in cclab's
//! seed-spec §5.21.
//!
//! Fusion combines Reno, Vegas and Westwood+. Once per RTT (a Vegas round, counted with
//! `snd_una`/`snd_nxt`) it compares the Vegas backlog
//! `diff = cwnd·(RTT − RTT_min)/RTT` (packets; RTT = the smallest sample of the round) with
//! `α = cwnd·D_min/RTT`, the packets that `D_min` of queueing delay represents at the current
//! rate (`D_min`: the smallest measurable queueing delay, the timer granularity), and picks
//! the window change for the next round:
//!
//! * `diff < α` (residual capacity): **increase** by `W_inc = B·D_min'/PS` packets, with B the
//!   Westwood+ estimate ([`westwood_filter`](super::westwood_filter)), PS the segment size and
//!   `D_min'` = 1 ms: the packets the path delivers in D_min';
//! * `α ≤ diff ≤ 3α`: **hold**;
//! * `diff > 3α`: **decrease** by `diff − α` packets.
//!
//! A shadow Reno window (slow start, then +1 SMSS per window of ACKed bytes, halved on loss)
//! is kept alongside, and `cwnd = max(cwnd_fusion, cwnd_reno)`: Fusion is never less
//! aggressive than Reno. On loss `cwnd ← max(cwnd/2, cwnd·RTT_min/RTT)`, RTT being the latest
//! sample, so that a loss with an empty queue costs little.
//!
//! The per-round change is spread over the ACKs of the round: an ACK of `b` bytes applies
//! `change·b/W_round` (W_round = cwnd when the change was decided), never exceeding the
//! round's change in total. A round of cwnd-limited ACKs therefore applies exactly the
//! change, with or without delayed ACKs. A decrease also lowers ssthresh to the new cwnd (as
//! Linux Vegas does), so the smaller window stays in congestion avoidance.

use super::westwood_filter::{BweVariant, DEFAULT_FILTER_GAIN, WestwoodBandwidthEstimator};
use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::ControllerMetrics;
use crate::params::ParamSpec;
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::{SlowStart, Window};
use crate::time::SimDuration;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("d_min", 4.0, 0.001, 1000.0)
        .unit("ms")
        .doc("D_min in alpha = cwnd*D_min/RTT: smallest queueing delay taken as a queue (4 ms)"),
    ParamSpec::number("d_min_inc", 1.0, 0.001, 1000.0)
        .unit("ms")
        .doc("D_min' in W_inc = B*D_min'/PS packets per RTT (1 ms: B/12 Mbit/s at 1500 B)"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "fusion",
    aliases: &["tcp-fusion"],
    summary: "Vegas backlog picks increase (by bandwidth x 1 ms) / hold / decrease; Reno floor",
    reference: "Kaneko, Fujikawa, Su, Katto, PFLDnet 2007 (TCP-Fusion); seed-spec §5.21",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| {
        Box::new(Fusion::new(
            config,
            slow_start,
            SimDuration::from_secs_f64(params.number("d_min") * 1e-3),
            SimDuration::from_secs_f64(params.number("d_min_inc") * 1e-3),
        ))
    },
};

/// The phase chosen at the end of the last round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Increase,
    Hold,
    Decrease,
}

pub struct Fusion {
    mss: u64,
    /// The Fusion window in bytes (a real number; `cwnd()` rounds it down).
    window: f64,
    ssthresh: u64,
    /// The shadow Reno window, bytes.
    reno: u64,
    /// Bytes ACKed since the shadow Reno window last grew (RFC 3465 §2.1).
    reno_bytes_acked: u64,
    d_min: SimDuration,
    d_min_inc: SimDuration,
    phase: Phase,
    /// The change decided for this round, bytes (signed), its part already applied, and
    /// the window when it was decided.
    round_change: f64,
    applied: f64,
    round_window: f64,
    /// The current round ends when `snd_una` reaches this; `None` before the first ACK.
    round_end: Option<u64>,
    round_min_rtt: Option<SimDuration>,
    latest_rtt: Option<SimDuration>,
    bwe: WestwoodBandwidthEstimator,
    slow_start: Box<dyn SlowStart>,
}

impl Fusion {
    pub fn new(
        config: &CcConfig,
        slow_start: Box<dyn SlowStart>,
        d_min: SimDuration,
        d_min_inc: SimDuration,
    ) -> Self {
        Fusion {
            mss: config.mss,
            window: config.initial_cwnd as f64,
            ssthresh: config.initial_ssthresh,
            reno: config.initial_cwnd,
            reno_bytes_acked: 0,
            d_min,
            d_min_inc,
            phase: Phase::Hold,
            round_change: 0.0,
            applied: 0.0,
            round_window: config.initial_cwnd as f64,
            round_end: None,
            round_min_rtt: None,
            latest_rtt: None,
            bwe: WestwoodBandwidthEstimator::new(BweVariant::Paper, DEFAULT_FILTER_GAIN),
            slow_start,
        }
    }

    /// The phase chosen at the end of the last round.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The shadow Reno window in bytes.
    pub fn reno_window(&self) -> u64 {
        self.reno
    }

    /// `W_inc = B·D_min'/PS`, packets per RTT (0 before the first bandwidth sample).
    pub fn w_inc(&self) -> f64 {
        self.bwe.bandwidth().unwrap_or(0.0) * self.d_min_inc.as_secs_f64() / self.mss as f64
    }

    /// End of a Vegas round: choose the phase and the change for the next round.
    fn end_round(&mut self) {
        let (Some(rtt), Some(rtt_min)) = (self.round_min_rtt, self.bwe.rtt_min()) else {
            return;
        };
        if rtt.is_zero() {
            return;
        }
        let rtt_s = rtt.as_secs_f64();
        let cwnd_packets = self.window / self.mss as f64;
        let diff = cwnd_packets * rtt.saturating_sub(rtt_min).as_secs_f64() / rtt_s;
        let alpha = cwnd_packets * self.d_min.as_secs_f64() / rtt_s;
        let (phase, packets) = if diff < alpha {
            (Phase::Increase, self.w_inc())
        } else if diff <= 3.0 * alpha {
            (Phase::Hold, 0.0)
        } else {
            (Phase::Decrease, -(diff - alpha))
        };
        self.phase = phase;
        self.round_change = packets * self.mss as f64;
        self.applied = 0.0;
        self.round_window = self.window;
    }

    /// `max(cwnd/2, cwnd·RTT_min/RTT)`, at least 2 segments.
    fn loss_window(&self) -> f64 {
        let half = self.window / 2.0;
        let delay_scaled = match (self.bwe.rtt_min(), self.latest_rtt) {
            (Some(min), Some(rtt)) if !rtt.is_zero() => {
                self.window * min.as_secs_f64() / rtt.as_secs_f64()
            }
            _ => half,
        };
        half.max(delay_scaled).max(2.0 * self.mss as f64).floor()
    }

    fn forget_round_change(&mut self) {
        self.round_change = 0.0;
        self.applied = 0.0;
        self.reno_bytes_acked = 0;
    }
}

impl CongestionControl for Fusion {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        self.bwe.on_ack(ack);
        if let Some(rtt) = ack.rtt {
            self.latest_rtt = Some(rtt);
            self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        if ack.may_grow() {
            if self.window < self.ssthresh as f64 {
                let mut window = Window {
                    cwnd: self.cwnd(),
                    ssthresh: self.ssthresh,
                    mss: self.mss,
                };
                self.slow_start.on_ack(&mut window, ack);
                self.window = window.cwnd as f64;
                self.ssthresh = window.ssthresh;
                // Reno would have slow-started just the same.
                self.reno = window.cwnd;
                self.reno_bytes_acked = 0;
            } else {
                // Shadow Reno: +1 SMSS per window of ACKed bytes.
                self.reno_bytes_acked += ack.bytes_acked;
                if self.reno_bytes_acked >= self.reno {
                    self.reno_bytes_acked -= self.reno;
                    self.reno += self.mss;
                }
                // This round's share of the Fusion change, bounded by the round's total.
                if self.round_window > 0.0 {
                    let share = self.round_change * ack.bytes_acked as f64 / self.round_window;
                    let remaining = self.round_change - self.applied;
                    let step = if self.round_change >= 0.0 {
                        share.min(remaining)
                    } else {
                        share.max(remaining)
                    };
                    self.applied += step;
                    self.window += step;
                }
                // cwnd = max(cwnd_fusion, cwnd_reno), never below 2 segments.
                self.window = self.window.max(self.reno as f64).max(2.0 * self.mss as f64);
                // A delay-based decrease also lowers ssthresh, as Linux Vegas does, so that
                // the smaller window is not slow-started back up on the next ACK.
                if self.round_change < 0.0 {
                    self.ssthresh = self.ssthresh.min(self.cwnd());
                }
            }
        }
        // Vegas round accounting runs in every state.
        match self.round_end {
            None => self.round_end = Some(ack.snd_nxt),
            Some(end) if ack.snd_una >= end => {
                self.end_round();
                self.round_end = Some(ack.snd_nxt);
                self.round_min_rtt = None;
            }
            Some(_) => {}
        }
    }

    fn on_congestion_event(&mut self, _event: &CongestionEvent) {
        let reno_half = (self.window / 2.0).floor() as u64;
        self.window = self.loss_window();
        self.ssthresh = self.window as u64;
        self.reno = reno_half.max(2 * self.mss);
        self.forget_round_change();
    }

    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {
        self.ssthresh = self.loss_window() as u64;
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        self.window = self.mss as f64;
        self.reno = self.mss;
        self.forget_round_change();
        self.slow_start.restart();
    }

    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics::with_slow_start(self.slow_start.as_ref())
    }

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Linux `tcp_reno_undo_cwnd` on the Fusion window; the shadow Reno window keeps its
        // reduction (it only bounds the window from below).
        self.window = self.window.max(event.prior_cwnd as f64);
        self.ssthresh = self.ssthresh.max(event.prior_ssthresh);
    }

    fn cwnd(&self) -> u64 {
        self.window as u64
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.window = cwnd as f64;
        self.ssthresh = ssthresh;
    }

    fn mode(&self) -> &'static str {
        if self.window < self.ssthresh as f64 {
            "slow_start"
        } else {
            match self.phase {
                Phase::Increase => "increase",
                Phase::Hold => "hold",
                Phase::Decrease => "decrease",
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, loss, timeout};
    use crate::time::SimTime;

    const MSS: u64 = 1000;

    fn fusion_in_ca(cwnd_segments: u64) -> Fusion {
        let config = CcConfig {
            initial_cwnd: cwnd_segments * MSS,
            initial_ssthresh: cwnd_segments * MSS,
            ..CcConfig::new(MSS)
        };
        Fusion::new(
            &config,
            Box::new(StandardSlowStart::new(&config)),
            SimDuration::from_millis(4),
            SimDuration::from_millis(1),
        )
    }

    /// Feeds ACKs of one MSS, a round at a time, keeping `snd_una`/`snd_nxt` consistent.
    struct Flow {
        now_us: u64,
        una: u64,
    }

    impl Flow {
        /// The first ACK: it opens the first round, which ends after `next` more ACKs.
        fn open(f: &mut Fusion, next: u64, rtt_ms: u64) -> Flow {
            f.on_ack(&Ack {
                now: SimTime::ZERO,
                rtt: Some(SimDuration::from_millis(rtt_ms)),
                snd_una: 0,
                snd_nxt: next * MSS,
                cwnd_limited: false,
                ..ack(MSS)
            });
            Flow { now_us: 0, una: 0 }
        }

        /// `acks` ACKs spread over `rtt_ms`, each with an RTT sample of `rtt_ms`; the last one
        /// ends the round and leaves `next` segments outstanding for the next round.
        fn round(&mut self, f: &mut Fusion, acks: u64, next: u64, rtt_ms: u64, grow: bool) {
            for i in 1..=acks {
                self.now_us += rtt_ms * 1000 / acks;
                self.una += MSS;
                let nxt = self.una + if i == acks { next } else { acks } * MSS;
                f.on_ack(&Ack {
                    now: SimTime::from_nanos(self.now_us * 1000),
                    rtt: Some(SimDuration::from_millis(rtt_ms)),
                    snd_una: self.una,
                    snd_nxt: nxt,
                    cwnd_limited: grow,
                    ..ack(MSS)
                });
            }
        }
    }

    /// cwnd = 100 MSS, RTT_min = 50 ms. A measuring round of 100 MSS in 50 ms gives
    /// B = 100,000 B / 0.05 s = 2e6 B/s, W_inc = 2e6 * 0.001 / 1000 = 2 packets per RTT; the
    /// round's RTT equals RTT_min, so diff = 0 < alpha = 100 * 0.004/0.05 = 8: increase.
    fn measured() -> (Fusion, Flow) {
        let mut f = fusion_in_ca(100);
        let mut flow = Flow::open(&mut f, 100, 50);
        flow.round(&mut f, 100, 100, 50, false);
        assert_eq!(f.bwe.bandwidth(), Some(2e6));
        assert!((f.w_inc() - 2.0).abs() < 1e-12);
        assert_eq!(f.phase(), Phase::Increase);
        (f, flow)
    }

    #[test]
    fn increase_phase_adds_w_inc_per_round() {
        let (mut f, mut flow) = measured();
        assert_eq!(f.mode(), "increase");
        // One cwnd-limited round of 100 ACKs: Fusion +2 MSS; shadow Reno +1 MSS.
        flow.round(&mut f, 100, 102, 50, true);
        assert_eq!(f.cwnd(), 102 * MSS);
        assert_eq!(f.reno_window(), 101 * MSS);
    }

    #[test]
    fn increase_is_the_same_with_delayed_acks() {
        let (mut f, mut flow) = measured();
        // The same round acknowledged by 50 ACKs of 2 MSS.
        for i in 1..=50u64 {
            flow.now_us += 1000;
            flow.una += 2 * MSS;
            f.on_ack(&Ack {
                now: SimTime::from_nanos(flow.now_us * 1000),
                rtt: Some(SimDuration::from_millis(50)),
                snd_una: flow.una,
                snd_nxt: flow.una + if i == 50 { 102 } else { 100 } * MSS,
                ..ack(2 * MSS)
            });
        }
        assert_eq!(f.cwnd(), 102 * MSS);
    }

    /// After `measured`, a loss at RTT = RTT_min keeps the Fusion window
    /// (max(100/2, 100 * 50/50) = 100 MSS) but halves the shadow Reno window to 50 MSS,
    /// then a measuring round at `rtt_ms` chooses the phase for the next round.
    fn after_loss_measuring_at(rtt_ms: u64) -> (Fusion, Flow) {
        let (mut f, mut flow) = measured();
        f.on_congestion_event(&loss(100 * MSS));
        assert_eq!(
            (f.cwnd(), f.ssthresh(), f.reno_window()),
            (100 * MSS, 100 * MSS, 50 * MSS)
        );
        flow.round(&mut f, 100, 100, rtt_ms, false);
        (f, flow)
    }

    #[test]
    fn hold_phase_keeps_the_window() {
        // RTT 55 ms: diff = 100 * 5/55 = 9.09, alpha = 100 * 0.004/0.055 = 7.27,
        // 3 alpha = 21.8: alpha <= diff <= 3 alpha -> hold.
        let (mut f, mut flow) = after_loss_measuring_at(55);
        assert_eq!(f.phase(), Phase::Hold);
        assert_eq!(f.mode(), "hold");
        flow.round(&mut f, 100, 100, 55, true);
        assert_eq!(f.cwnd(), 100 * MSS);
        // Meanwhile the shadow Reno window grew: 100 MSS ACKed against 50 then 51 -> 51 MSS.
        assert_eq!(f.reno_window(), 51 * MSS);
    }

    #[test]
    fn hold_band_runs_from_alpha_to_three_alpha() {
        // diff/alpha = (RTT − 50 ms)/D_min with D_min = 4 ms and cwnd = 100 packets:
        // RTT 53 ms: diff = 100·3/53 = 5.66 < alpha = 100·4/53 = 7.55: increase;
        // RTT 54 ms: diff = alpha = 7.41 (the same product): hold (alpha ≤ diff);
        // RTT 61 ms: diff = 100·11/61 = 18.0 ≤ 3 alpha = 19.7: still hold;
        // RTT 63 ms: diff = 100·13/63 = 20.6 > 3 alpha = 19.0: decrease.
        for (rtt_ms, phase) in [
            (53, Phase::Increase),
            (54, Phase::Hold),
            (61, Phase::Hold),
            (63, Phase::Decrease),
        ] {
            let (f, _) = after_loss_measuring_at(rtt_ms);
            assert_eq!(f.phase(), phase, "RTT {rtt_ms} ms");
        }
    }

    #[test]
    fn decrease_phase_removes_diff_minus_alpha() {
        // RTT 100 ms: diff = 100 * 50/100 = 50, alpha = 100 * 0.004/0.1 = 4, 3 alpha = 12:
        // decrease by 50 - 4 = 46 packets over the next round: 100 -> 54 MSS.
        let (mut f, mut flow) = after_loss_measuring_at(100);
        assert_eq!(f.phase(), Phase::Decrease);
        flow.round(&mut f, 100, 54, 100, true);
        assert_eq!(f.cwnd(), 54 * MSS);
        assert_eq!(f.reno_window(), 51 * MSS);
        // ssthresh followed the window down, so the flow stays in congestion avoidance.
        assert_eq!(f.ssthresh(), 54 * MSS);
        assert_eq!(f.mode(), "decrease");
    }

    #[test]
    fn shadow_reno_window_is_a_floor() {
        // RTT 200 ms: diff = 100 * 150/200 = 75, alpha = 100 * 0.004/0.2 = 2: the decrease of
        // 73 packets would leave 27 MSS, below the shadow Reno window (51 MSS by the round's
        // end), so cwnd stops at the Reno window.
        let (mut f, mut flow) = after_loss_measuring_at(200);
        assert_eq!(f.phase(), Phase::Decrease);
        flow.round(&mut f, 100, 51, 200, true);
        assert_eq!(f.reno_window(), 51 * MSS);
        assert_eq!(f.cwnd(), 51 * MSS);
    }

    #[test]
    fn loss_keeps_the_larger_of_half_and_the_delay_ratio() {
        // Latest RTT 80 ms, RTT_min 50 ms: max(100/2, 100 * 50/80 = 62.5) = 62.5 MSS.
        let (mut f, mut flow) = measured();
        flow.round(&mut f, 100, 100, 80, false);
        f.on_congestion_event(&loss(100 * MSS));
        assert_eq!((f.cwnd(), f.ssthresh()), (62_500, 62_500));
        // Shadow Reno halves: 50 MSS.
        assert_eq!(f.reno_window(), 50 * MSS);
        // Latest RTT 200 ms: max(100/2, 100 * 50/200 = 25) = 50 MSS.
        let (mut f, mut flow) = measured();
        flow.round(&mut f, 100, 100, 200, false);
        f.on_congestion_event(&loss(100 * MSS));
        assert_eq!(f.cwnd(), 50 * MSS);
    }

    #[test]
    fn timeout_sets_one_segment_and_the_loss_threshold() {
        let (mut f, mut flow) = measured();
        flow.round(&mut f, 100, 100, 80, false);
        new_timeout(&mut f, &timeout(100 * MSS));
        assert_eq!((f.cwnd(), f.ssthresh()), (MSS, 62_500));
        assert_eq!(f.mode(), "slow_start");
        f.on_ack(&ack(MSS));
        assert_eq!((f.cwnd(), f.reno_window()), (2 * MSS, 2 * MSS));
    }

    #[test]
    fn without_measurements_it_behaves_like_reno() {
        // No RTT samples, no bandwidth: the phase stays hold, the Reno floor grows cwnd.
        let mut f = fusion_in_ca(10);
        for _ in 0..10 {
            f.on_ack(&ack(MSS));
        }
        assert_eq!(f.cwnd(), 11 * MSS);
    }

    #[test]
    fn no_growth_in_recovery_or_when_not_cwnd_limited() {
        let (mut f, _) = measured();
        for _ in 0..200 {
            f.on_ack(&Ack {
                in_recovery: true,
                ..ack(MSS)
            });
            f.on_ack(&Ack {
                cwnd_limited: false,
                ..ack(MSS)
            });
        }
        assert_eq!(f.cwnd(), 100 * MSS);
    }
}
