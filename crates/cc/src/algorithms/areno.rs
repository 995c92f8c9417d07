//! TCP Adaptive Reno, ARENO (Shimonishi, Hama, Murase, "Improving efficiency-friendliness
//! tradeoffs of TCP congestion control algorithm", IEEE GLOBECOM 2005; also "TCP-Adaptive
//! Reno", PFLDnet 2006). Equations as reconstructed in cclab's seed-spec §5.20.
//!
//! The window is split into a Reno part and a probing part, `W = W_base + W_probe`:
//!
//! * per ACK (per SMSS of ACKed bytes): `W_base += 1/W` (Reno, +1 segment per RTT) and
//!   `W_probe = max(W_probe + W_inc(c)/W, 0)`;
//! * the congestion level from the RTT: `c = min((RTT − RTT_min)/(RTT_cong − RTT_min), 1)`,
//!   where `RTT_cong`, the RTT at which losses happen, is an EWMA of the RTT just before each
//!   loss: `RTT_cong ← 0.85·RTT_cong + 0.15·RTT_j` (the first loss sets it to `RTT_j`);
//! * the probe increment `W_inc(c) = W_inc_max·e^{−α·c} + β·c + γ` packets per RTT with
//!   `α = 10`, `β = 2·W_inc_max·(1/α − (1/α + 1)·e^{−α})`,
//!   `γ = 1 − 2·W_inc_max·(1/α − (1/α + 1/2)·e^{−α})`, which makes `W_inc(1) = 1` exactly and
//!   `W_inc(0) = W_inc_max·(1 − 2/α + (2/α + 1)·e^{−α}) + 1 ≈ 0.8·W_inc_max + 1`;
//! * `W_inc_max = B/M` packets per RTT, B the Westwood+ bandwidth estimate
//!   ([`westwood_filter`](super::westwood_filter)) and M = 10 Mbit/s;
//! * on loss: `W ← W/(1 + c)` (halving only when fully congested), `W_base = W`,
//!   `W_probe = 0`, `ssthresh = W`.
//!
//! Slow start is the pluggable part; during it `W_base` follows cwnd and `W_probe = 0`.
//! Windows are bytes: `W_base` is whole segments grown by RFC 3465 byte counting, `W_probe`
//! is a real number of bytes (an ACK of `b` bytes adds `W_inc·SMSS·b/cwnd`), and
//! `cwnd = W_base + ⌊W_probe⌋`.

use super::westwood_filter::{BweVariant, DEFAULT_FILTER_GAIN, WestwoodBandwidthEstimator};
use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::ControllerMetrics;
use crate::params::ParamSpec;
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;
use crate::time::SimDuration;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("alpha", 10.0, 0.1, 100.0)
        .doc("steepness of W_inc(c) = W_inc_max*e^(-alpha*c) + beta*c + gamma (paper: 10)"),
    ParamSpec::number("m", 10.0, 0.001, 100_000.0)
        .unit("Mbit/s")
        .doc("M in W_inc_max = B/M packets per RTT (paper: 10 Mbit/s)"),
    ParamSpec::number("rtt_cong_weight", 0.85, 0.0, 1.0)
        .doc("EWMA weight of the old RTT_cong when a loss adds the RTT just before it"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "areno",
    aliases: &["adaptive_reno"],
    summary: "Reno base window plus a probe window that grows with bandwidth when the RTT is low",
    reference: "Shimonishi, Hama, Murase, IEEE GLOBECOM 2005 (TCP-Adaptive Reno); seed-spec §5.20",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| {
        Box::new(AdaptiveReno::new(
            config,
            slow_start,
            params.number("alpha"),
            params.number("m") * 1e6,
            params.number("rtt_cong_weight"),
        ))
    },
};

/// ARENO's probe increment in packets per RTT at congestion level `c`:
/// `W_inc(c) = W_inc_max·e^{−α·c} + β·c + γ` with β and γ chosen so that `W_inc(1) = 1`.
pub fn window_increment(c: f64, w_inc_max: f64, alpha: f64) -> f64 {
    let e = libm::exp(-alpha);
    let beta = 2.0 * w_inc_max * (1.0 / alpha - (1.0 / alpha + 1.0) * e);
    let gamma = 1.0 - 2.0 * w_inc_max * (1.0 / alpha - (1.0 / alpha + 0.5) * e);
    w_inc_max * libm::exp(-alpha * c) + beta * c + gamma
}

pub struct AdaptiveReno {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Reno part of the window, bytes (whole segments).
    w_base: u64,
    /// Bytes ACKed since `w_base` last grew (RFC 3465 §2.1, against the whole window W).
    base_bytes_acked: u64,
    /// Probing part of the window, bytes (≥ 0).
    w_probe: f64,
    alpha: f64,
    /// M, bits per second.
    m_bps: f64,
    rtt_cong_weight: f64,
    /// The latest RTT sample: the RTT in c, and RTT_j at a loss.
    rtt: Option<SimDuration>,
    /// RTT_cong in seconds, once a loss has happened.
    rtt_cong: Option<f64>,
    bwe: WestwoodBandwidthEstimator,
    slow_start: Box<dyn SlowStart>,
}

impl AdaptiveReno {
    pub fn new(
        config: &CcConfig,
        slow_start: Box<dyn SlowStart>,
        alpha: f64,
        m_bps: f64,
        rtt_cong_weight: f64,
    ) -> Self {
        AdaptiveReno {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            w_base: config.initial_cwnd,
            base_bytes_acked: 0,
            w_probe: 0.0,
            alpha,
            m_bps,
            rtt_cong_weight,
            rtt: None,
            rtt_cong: None,
            bwe: WestwoodBandwidthEstimator::new(BweVariant::Paper, DEFAULT_FILTER_GAIN),
            slow_start,
        }
    }

    /// `W_inc_max = B/M`, packets per RTT (0 before the first bandwidth sample).
    pub fn w_inc_max(&self) -> f64 {
        self.bwe.bandwidth_bps() / self.m_bps
    }

    /// The congestion level c ∈ [0, 1]: 0 until a loss has given RTT_cong, or without RTT
    /// samples. If RTT_cong is not above RTT_min, any queueing counts as full congestion.
    pub fn congestion_level(&self) -> f64 {
        let (Some(rtt), Some(rtt_min), Some(rtt_cong)) =
            (self.rtt, self.bwe.rtt_min(), self.rtt_cong)
        else {
            return 0.0;
        };
        let queueing = rtt.saturating_sub(rtt_min).as_secs_f64();
        let span = rtt_cong - rtt_min.as_secs_f64();
        if span <= 0.0 {
            return if queueing > 0.0 { 1.0 } else { 0.0 };
        }
        (queueing / span).min(1.0)
    }

    /// RTT_cong in seconds, once known.
    pub fn rtt_cong(&self) -> Option<f64> {
        self.rtt_cong
    }

    /// The Reno part of the window in bytes.
    pub fn base_window(&self) -> u64 {
        self.w_base
    }

    /// The probe part of the window in bytes.
    pub fn probe_window(&self) -> f64 {
        self.w_probe
    }

    /// A loss: update RTT_cong with the RTT just before it, then `W/(1 + c)`.
    fn reduced_window(&mut self) -> u64 {
        if let Some(rtt_j) = self.rtt {
            let rtt_j = rtt_j.as_secs_f64();
            let g = self.rtt_cong_weight;
            self.rtt_cong = Some(match self.rtt_cong {
                None => rtt_j,
                Some(previous) => g * previous + (1.0 - g) * rtt_j,
            });
        }
        let c = self.congestion_level();
        ((self.cwnd as f64 / (1.0 + c)).floor() as u64).max(2 * self.mss)
    }
}

impl CongestionControl for AdaptiveReno {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        self.bwe.on_ack(ack);
        if ack.rtt.is_some() {
            self.rtt = ack.rtt;
        }
        if !ack.may_grow() {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
            self.w_base = self.cwnd;
            self.w_probe = 0.0;
            self.base_bytes_acked = 0;
            return;
        }
        let window = self.cwnd;
        // W_base += 1/W per segment ACKed: one SMSS per W bytes ACKed.
        self.base_bytes_acked += ack.bytes_acked;
        if self.base_bytes_acked >= window {
            self.base_bytes_acked -= window;
            self.w_base += self.mss;
        }
        // W_probe = max(W_probe + W_inc(c)/W, 0) per segment ACKed.
        let w_inc = window_increment(self.congestion_level(), self.w_inc_max(), self.alpha);
        let step = w_inc * self.mss as f64 * ack.bytes_acked as f64 / window as f64;
        self.w_probe = (self.w_probe + step).max(0.0);
        self.cwnd = self.w_base + self.w_probe.floor() as u64;
    }

    fn on_congestion_event(&mut self, _event: &CongestionEvent) {
        let w = self.reduced_window();
        self.ssthresh = w;
        self.cwnd = w;
        self.w_base = w;
        self.w_probe = 0.0;
        self.base_bytes_acked = 0;
    }

    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {
        // The sources describe only the fast-retransmit response; we apply the same
        // ssthresh.
        self.ssthresh = self.reduced_window();
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // Reno's one-segment loss window.
        self.cwnd = self.mss;
        self.w_base = self.mss;
        self.w_probe = 0.0;
        self.base_bytes_acked = 0;
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
    use crate::time::SimTime;

    const MSS: u64 = 1000;

    fn areno_in_ca(cwnd_segments: u64) -> AdaptiveReno {
        let config = CcConfig {
            initial_cwnd: cwnd_segments * MSS,
            initial_ssthresh: cwnd_segments * MSS,
            ..CcConfig::new(MSS)
        };
        AdaptiveReno::new(
            &config,
            Box::new(StandardSlowStart::new(&config)),
            10.0,
            10e6,
            0.85,
        )
    }

    /// An ACK that only measures (not cwnd-limited, so no growth).
    fn measuring(now_us: u64, una: u64, nxt: u64, rtt_ms: u64) -> Ack {
        Ack {
            now: SimTime::from_nanos(now_us * 1000),
            rtt: Some(SimDuration::from_millis(rtt_ms)),
            snd_una: una,
            snd_nxt: nxt,
            cwnd_limited: false,
            ..ack(MSS)
        }
    }

    /// One Westwood+ round of 10 MSS in 800 µs: B = 10,000 B / 0.0008 s = 12.5e6 B/s
    /// = 100 Mbit/s, so W_inc_max = 100/10 = 10 packets per RTT. RTT samples of `rtt_ms`.
    fn measure_100mbps(a: &mut AdaptiveReno, rtt_ms: u64) {
        a.on_ack(&measuring(0, 0, 10 * MSS, rtt_ms));
        for i in 1..=10 {
            a.on_ack(&measuring(80 * i, i * MSS, 20 * MSS, rtt_ms));
        }
        assert!((a.w_inc_max() - 10.0).abs() < 1e-9);
    }

    fn rtt_ack(bytes: u64, rtt_ms: u64) -> Ack {
        Ack {
            rtt: Some(SimDuration::from_millis(rtt_ms)),
            ..ack(bytes)
        }
    }

    #[test]
    fn w_inc_is_one_at_full_congestion() {
        // W_inc(1) = W_max e^-10 + 2 W_max (0.1 - 1.1 e^-10) + 1 - 2 W_max (0.1 - 0.6 e^-10)
        //          = W_max e^-10 (1 - 2.2 + 1.2) + 1 = 1 for any W_max.
        for w_max in [0.0, 1.0, 10.0, 1234.5] {
            assert!((window_increment(1.0, w_max, 10.0) - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn beta_and_gamma_give_a_mean_increment_of_one_over_the_congestion_levels() {
        // The second condition behind β and γ (with W_inc(1) = 1): ∫₀¹ W_inc(c) dc = 1, by
        // the midpoint rule; and the dip below zero that max(W_probe, 0) absorbs, at
        // c = ln(α W_max/β)/α where the derivative −α W_max e^(−αc) + β vanishes.
        for w_max in [10.0, 50.0] {
            let n = 100_000;
            let mean = (0..n)
                .map(|i| window_increment((i as f64 + 0.5) / n as f64, w_max, 10.0))
                .sum::<f64>()
                / n as f64;
            assert!((mean - 1.0).abs() < 1e-6, "W_inc_max {w_max}: mean {mean}");
            let beta = 2.0 * w_max * (0.1 - 1.1 * (-10.0f64).exp());
            let c_min = (10.0 * w_max / beta).ln() / 10.0;
            assert!((c_min - 0.391).abs() < 0.001);
            assert!(window_increment(c_min, w_max, 10.0) < 1.0 - 0.1 * w_max);
        }
    }

    #[test]
    fn w_inc_on_an_empty_path() {
        // W_inc(0) = W_max + gamma = W_max (1 - 2/alpha + (2/alpha + 1) e^-alpha) + 1.
        // W_max = 10, alpha = 10: 10 (0.8 + 1.2 e^-10) + 1 = 9 + 12 e^-10,
        // e^-10 = 4.539992976248485e-5 -> 9.000544799157150.
        assert!((window_increment(0.0, 10.0, 10.0) - 9.000_544_799_157_15).abs() < 1e-12);
        // W_max = 0 (no estimate yet): beta = 0, gamma = 1 -> W_inc = 1 at every level.
        assert_eq!(window_increment(0.0, 0.0, 10.0), 1.0);
        assert_eq!(window_increment(0.5, 0.0, 10.0), 1.0);
    }

    #[test]
    fn w_inc_max_comes_from_the_westwood_estimate() {
        let mut a = areno_in_ca(20);
        assert_eq!(a.w_inc_max(), 0.0);
        measure_100mbps(&mut a, 100);
    }

    #[test]
    fn congestion_level_at_known_rtts() {
        let mut a = areno_in_ca(20);
        // RTT_min = 100 ms.
        measure_100mbps(&mut a, 100);
        // No loss yet: RTT_cong unknown, c = 0.
        a.on_ack(&measuring(2_000, 11 * MSS, 20 * MSS, 180));
        assert_eq!(a.congestion_level(), 0.0);
        // First loss with RTT_j = 200 ms: RTT_cong = 200 ms.
        a.on_ack(&measuring(3_000, 12 * MSS, 20 * MSS, 200));
        a.on_congestion_event(&loss(20 * MSS));
        assert!((a.rtt_cong().unwrap() - 0.2).abs() < 1e-12);
        // c = (RTT - 100)/(200 - 100): 150 ms -> 0.5, 100 ms -> 0, 250 ms -> min(1.5, 1) = 1.
        for (rtt, c) in [(150, 0.5), (100, 0.0), (250, 1.0), (125, 0.25)] {
            a.on_ack(&measuring(4_000, 13 * MSS, 20 * MSS, rtt));
            assert!((a.congestion_level() - c).abs() < 1e-12, "rtt {rtt} ms");
        }
    }

    #[test]
    fn loss_divides_the_window_by_one_plus_c() {
        let mut a = areno_in_ca(20);
        measure_100mbps(&mut a, 100);
        // First loss at RTT_j = 200 ms: RTT_cong = 200, c = 100/100 = 1 -> W = 20/2 = 10 MSS.
        a.on_ack(&measuring(2_000, 11 * MSS, 20 * MSS, 200));
        a.on_congestion_event(&loss(20 * MSS));
        assert_eq!((a.cwnd(), a.ssthresh()), (10 * MSS, 10 * MSS));
        assert_eq!(a.probe_window(), 0.0);
        // Back to 20 MSS for easy numbers; second loss at RTT_j = 150 ms:
        // RTT_cong = 0.85 * 200 + 0.15 * 150 = 170 + 22.5 = 192.5 ms,
        // c = (150 - 100)/(192.5 - 100) = 50/92.5 = 0.540540...,
        // W = 20,000 / 1.540540... = 12,982.45 -> 12,982 bytes.
        a.cwnd = 20 * MSS;
        a.on_ack(&measuring(3_000, 12 * MSS, 20 * MSS, 150));
        a.on_congestion_event(&loss(20 * MSS));
        assert!((a.rtt_cong().unwrap() - 0.1925).abs() < 1e-12);
        assert_eq!(a.cwnd(), 12_982);
        assert_eq!(a.ssthresh(), 12_982);
        // A loss with no queueing (RTT_j = RTT_min): c = 0, the window is kept.
        a.cwnd = 20 * MSS;
        a.on_ack(&measuring(4_000, 13 * MSS, 20 * MSS, 100));
        a.on_congestion_event(&loss(20 * MSS));
        assert_eq!(a.cwnd(), 20 * MSS);
    }

    #[test]
    fn timeout_uses_the_same_threshold_and_one_segment() {
        let mut a = areno_in_ca(20);
        measure_100mbps(&mut a, 100);
        a.on_ack(&measuring(2_000, 11 * MSS, 20 * MSS, 200));
        new_timeout(&mut a, &timeout(20 * MSS));
        assert_eq!((a.cwnd(), a.ssthresh()), (MSS, 10 * MSS));
        // Slow start from one segment.
        a.on_ack(&rtt_ack(MSS, 100));
        assert_eq!(a.cwnd(), 2 * MSS);
    }

    #[test]
    fn probe_grows_by_w_inc_over_w_per_ack() {
        let mut a = areno_in_ca(20);
        measure_100mbps(&mut a, 100);
        // No loss yet, so c = 0 and W_inc = 9.000544799 packets per RTT.
        // One ACK of 1 MSS at W = 20 MSS: W_probe += 9.000544799 * 1000 * 1000/20000
        // = 450.027 bytes; W_base unchanged (1,000 of 20,000 bytes counted).
        a.on_ack(&rtt_ack(MSS, 100));
        let w_inc = 9.000_544_799_157_15;
        assert!((a.probe_window() - w_inc * 1000.0 / 20.0).abs() < 1e-6);
        assert_eq!(a.cwnd(), 20 * MSS + 450);
    }

    #[test]
    fn one_round_at_an_empty_path() {
        // c = 0: over one round of 20 one-MSS ACKs (the window at its start), W_probe gains
        // sum(W_inc(0) * MSS / W_i) with W_i growing from 20 MSS to below 30 MSS inside the
        // round: between 9.0005 * 1000 * 20/30 and 9.0005 * 1000 bytes.
        let mut a = areno_in_ca(20);
        measure_100mbps(&mut a, 100);
        for _ in 0..20 {
            a.on_ack(&rtt_ack(MSS, 100));
        }
        let probe = a.probe_window();
        assert!((6_000.36..=9_000.545).contains(&probe), "{probe}");
        // W_base += 1/W per ACK, counted in bytes against the whole window W: 20,000 bytes are
        // less than W (20,000 + the probe), so the Reno part has not yet gained its segment.
        assert_eq!(a.base_window(), 20 * MSS);
        assert_eq!(a.cwnd(), 20 * MSS + probe.floor() as u64);
        // It gains it at the first ACK that brings the count to the window then in force.
        let mut counted = 20 * MSS;
        loop {
            let window = a.cwnd();
            a.on_ack(&rtt_ack(MSS, 100));
            counted += MSS;
            if counted >= window {
                break;
            }
            assert_eq!(a.base_window(), 20 * MSS);
        }
        assert_eq!(a.base_window(), 21 * MSS);
    }

    #[test]
    fn at_full_congestion_the_probe_adds_about_one_segment_per_round() {
        let mut a = areno_in_ca(20);
        measure_100mbps(&mut a, 100);
        // First loss at RTT_j = 200 ms: RTT_cong = 200 ms, c = 1, cwnd 20 -> 10 MSS.
        a.on_ack(&measuring(2_000, 11 * MSS, 20 * MSS, 200));
        a.on_congestion_event(&loss(20 * MSS));
        assert_eq!(a.cwnd(), 10 * MSS);
        // RTT 200 ms keeps c = 1, W_inc = 1: ten ACKs (one round) add sum(1000/W_i) bytes to
        // the probe with W_i in [10, 12) MSS: between 1000 * 10/12 and 1000 bytes.
        for _ in 0..10 {
            a.on_ack(&rtt_ack(MSS, 200));
        }
        let probe = a.probe_window();
        assert!((833.3..=1_000.0).contains(&probe), "{probe}");
    }

    #[test]
    fn probe_never_goes_negative() {
        // W_inc_max = 10, alpha = 10: beta = 20 (0.1 - 1.1 e^-10) = 1.999001,
        // gamma = 1 - 20 (0.1 - 0.6 e^-10) = -0.999455; at c = 0.4:
        // W_inc = 10 e^-4 + 0.4 * 1.999001 - 0.999455 = 0.183156 + 0.799600 - 0.999455
        // = -0.016699 < 0, so the probe shrinks and is clamped at zero.
        let w_inc = window_increment(0.4, 10.0, 10.0);
        assert!(w_inc < 0.0, "{w_inc}");
        let mut a = areno_in_ca(20);
        measure_100mbps(&mut a, 100);
        a.on_ack(&measuring(2_000, 11 * MSS, 20 * MSS, 200));
        a.on_congestion_event(&loss(20 * MSS)); // RTT_cong = 200 ms, cwnd 10 MSS
        for _ in 0..30 {
            a.on_ack(&rtt_ack(MSS, 140)); // c = 0.4
        }
        assert_eq!(a.probe_window(), 0.0);
        // Only the Reno part grew: 30 MSS ACKed against W = 10, then 11 -> +2 segments.
        assert_eq!(a.cwnd(), 12 * MSS);
    }

    #[test]
    fn no_growth_in_recovery_or_when_not_cwnd_limited() {
        let mut a = areno_in_ca(10);
        a.on_ack(&Ack {
            in_recovery: true,
            ..rtt_ack(MSS, 100)
        });
        a.on_ack(&Ack {
            cwnd_limited: false,
            ..rtt_ack(MSS, 100)
        });
        assert_eq!(a.cwnd(), 10 * MSS);
    }
}
