//! BIC TCP (L. Xu, K. Harfoush, I. Rhee, "Binary Increase Congestion Control (BIC) for Fast
//! Long-Distance Networks", IEEE INFOCOM 2004), with Linux's tcp_bic.c as a variant.
//!
//! W_max is the window just before the last reduction. Each RTT the window grows by
//! * binary search below W_max: halfway to W_max, `bic_inc = (W_max - cwnd)/2` (the target
//!   `(W_max + W_min)/2` of the paper with W_min = the current window);
//! * max probing at or above W_max: `bic_inc = cwnd - W_max`, slow near W_max then doubling
//!   each RTT, the mirror image of the binary search;
//!
//! clamped to `[S_min, S_max]`, so far from W_max the growth is linear at S_max. The paper
//! takes one step per RTT: `bic_inc` is worked out from the window at the start of each
//! round trip (a round ends at the first ACK beyond the `snd_nxt` recorded when it began)
//! and spread over that round's ACKs (`bic_inc/cwnd` per acknowledged segment, counted in
//! bytes), so the distance to W_max halves per RTT. On a
//! congestion event W_max = cwnd (fast convergence: `cwnd (1 + β)/2` if cwnd is below the
//! previous W_max) and cwnd <- β cwnd. At or below `low_window` BIC is Reno. This formulation
//! of the paper's algorithm is the one restated in Ha, Rhee, Xu, "CUBIC: A New TCP-Friendly
//! High-Speed TCP Variant" (OSR 42(5), 2008), Fig. 1.
//!
//! Linux variant (tcp_bic.c): binary search goes a quarter of the way (B = 4) with a floor of
//! B/smooth_part = 0.2 segment/RTT when within B segments of W_max; max probing grows 0.2
//! segment/RTT for B segments above W_max, then `(cwnd - W_max)/(B - 1)`, then S_max; before
//! the first loss the growth is at least 5% of cwnd per RTT. Linux works the increment out
//! again on every ACK from the current window, so the distance shrinks continuously, by
//! e^(-1/4) per RTT in the binary search.

use super::additive_increase::ByteCountedIncrease;
use super::multiplicative_decrease::multiplicative_decrease;
use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("beta", 0.8, 0.5, 0.99)
        .doc("multiplicative decrease: cwnd <- beta*cwnd above low_window (Linux 819/1024)"),
    ParamSpec::number("s_max", 32.0, 1.0, 1000.0)
        .unit("segments")
        .doc("largest increase per RTT (paper 32; Linux max_increment 16)"),
    ParamSpec::number("s_min", 0.01, 0.0001, 10.0)
        .unit("segments")
        .doc("smallest increase per RTT (paper variant)"),
    ParamSpec::integer("low_window", 14, 0, 1_000_000)
        .unit("segments")
        .doc("at or below this window BIC is Reno: +1 per RTT, halve on loss"),
    ParamSpec::boolean("fast_convergence", true)
        .doc("on a loss below the previous W_max, set W_max = cwnd*(1+beta)/2"),
    ParamSpec::choice("variant", "paper", &["paper", "linux"]).doc(
        "paper: halfway binary search, max probing cwnd-W_max; linux: tcp_bic.c increments (B = 4, smooth_part = 20)",
    ),
];

/// Linux BICTCP_B: the binary search moves 1/B of the distance to W_max per RTT.
const LINUX_B: f64 = 4.0;
/// Linux smooth_part: near W_max the increase is B/smooth_part = 0.2 segment per RTT.
const LINUX_SMOOTH_PART: f64 = 20.0;

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "bic",
    aliases: &["bictcp"],
    summary: "BIC: binary search toward W_max, max probing above it, increments clamped to [S_min, S_max], cwnd*0.8 on loss",
    reference: "Xu, Harfoush, Rhee, IEEE INFOCOM 2004; Ha, Rhee, Xu, OSR 42(5) 2008 Fig. 1; Linux net/ipv4/tcp_bic.c (variant, defaults)",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| {
        Box::new(Bic::new(config, BicParams::from_params(params), slow_start))
    },
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BicVariant {
    Paper,
    Linux,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BicParams {
    pub beta: f64,
    pub s_max: f64,
    pub s_min: f64,
    pub low_window: u64,
    pub fast_convergence: bool,
    pub variant: BicVariant,
}

impl Default for BicParams {
    fn default() -> Self {
        BicParams::from_params(&Params::defaults(PARAMS))
    }
}

impl BicParams {
    pub fn from_params(params: &Params) -> Self {
        BicParams {
            beta: params.number("beta"),
            s_max: params.number("s_max"),
            s_min: params.number("s_min"),
            low_window: params.number("low_window") as u64,
            fast_convergence: params.boolean("fast_convergence"),
            variant: match params.choice("variant") {
                "linux" => BicVariant::Linux,
                _ => BicVariant::Paper,
            },
        }
    }
}

pub struct Bic {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    params: BicParams,
    /// Window (segments) just before the last reduction; 0 = none yet (or forgotten after a
    /// timeout, as Linux's bictcp_reset does), which puts BIC in max probing.
    w_max: f64,
    /// A congestion event has happened (Linux `loss_cwnd != 0`).
    seen_loss: bool,
    /// Paper variant: the current round ends at the first ACK beyond this `snd_nxt`; its
    /// increase, fixed at the round's start, is `round_increase` segments.
    round_end: Option<u64>,
    round_increase: f64,
    /// cwnd when the round began: the round's ACKs cover about this many bytes.
    round_window: u64,
    increase: ByteCountedIncrease,
    slow_start: Box<dyn SlowStart>,
}

impl Bic {
    pub fn new(config: &CcConfig, params: BicParams, slow_start: Box<dyn SlowStart>) -> Self {
        Bic {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            params,
            w_max: 0.0,
            seen_loss: false,
            round_end: None,
            round_increase: 0.0,
            round_window: config.initial_cwnd,
            increase: ByteCountedIncrease::new(),
            slow_start,
        }
    }

    /// W_max in segments (0 when unknown).
    pub fn w_max_segments(&self) -> f64 {
        self.w_max
    }

    fn window(&self) -> f64 {
        self.cwnd as f64 / self.mss as f64
    }

    fn at_or_below_low_window(&self) -> bool {
        self.cwnd / self.mss <= self.params.low_window
    }

    /// Segments to add over the next RTT at the current window.
    fn increase_per_rtt(&self) -> f64 {
        if self.at_or_below_low_window() {
            return 1.0; // Reno
        }
        let w = self.window();
        let p = &self.params;
        match p.variant {
            BicVariant::Paper => {
                let bic_inc = if w < self.w_max {
                    (self.w_max - w) / 2.0 // binary search: halfway to W_max
                } else {
                    w - self.w_max // max probing
                };
                bic_inc.clamp(p.s_min, p.s_max.max(p.s_min))
            }
            BicVariant::Linux => {
                let smooth = LINUX_B / LINUX_SMOOTH_PART;
                let mut inc = if w < self.w_max {
                    let dist = (self.w_max - w) / LINUX_B;
                    if dist > p.s_max {
                        p.s_max
                    } else if dist <= 1.0 {
                        smooth
                    } else {
                        dist
                    }
                } else if w < self.w_max + LINUX_B {
                    smooth
                } else if w < self.w_max + p.s_max * (LINUX_B - 1.0) {
                    (w - self.w_max) / (LINUX_B - 1.0)
                } else {
                    p.s_max
                };
                if !self.seen_loss {
                    // Linux: before any loss, cnt <= 20, i.e. at least 5% of cwnd per RTT.
                    inc = inc.max(w / 20.0);
                }
                inc
            }
        }
    }

    fn on_reduction(&mut self, bytes_in_flight: u64) -> u64 {
        let w = self.window();
        // W_max and fast convergence (paper §III; Linux bictcp_recalc_ssthresh).
        self.w_max = if self.params.fast_convergence && w < self.w_max {
            w * (1.0 + self.params.beta) / 2.0
        } else {
            w
        };
        self.seen_loss = true;
        self.increase.reset();
        self.round_end = None;
        let retain = if self.at_or_below_low_window() {
            0.5
        } else {
            self.params.beta
        };
        multiplicative_decrease(bytes_in_flight, retain, self.mss)
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        if !ack.may_grow() {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
            return;
        }
        let per_rtt = match self.params.variant {
            BicVariant::Paper => {
                // One binary-search (or probing) step per round trip.
                if self.round_end.is_none_or(|end| ack.snd_una > end) {
                    self.round_end = Some(ack.snd_nxt);
                    self.round_increase = self.increase_per_rtt();
                    self.round_window = self.cwnd;
                }
                // Spread the step over the bytes the round acknowledges (the window at its
                // start), not over the growing cwnd, so the round adds the whole step.
                self.round_increase * self.cwnd as f64 / self.round_window as f64
            }
            BicVariant::Linux => self.increase_per_rtt(),
        };
        self.increase
            .grow(&mut self.cwnd, self.mss, ack.bytes_acked, per_rtt);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.ssthresh = self.on_reduction(event.bytes_in_flight);
        self.cwnd = self.ssthresh;
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // Linux: ssthresh from the usual rule.
        self.ssthresh = self.on_reduction(event.bytes_in_flight);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // Linux bictcp_state(TCP_CA_Loss): bictcp_reset forgets W_max and the loss.
        self.increase.reset();
        self.round_end = None;
        self.cwnd = self.mss;
        self.w_max = 0.0;
        self.seen_loss = false;
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

    fn mode(&self) -> &'static str {
        if self.cwnd < self.ssthresh {
            "slow_start"
        } else if self.at_or_below_low_window() {
            "reno"
        } else if self.window() < self.w_max {
            "binary_search"
        } else {
            "max_probing"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, loss, timeout};

    const MSS: u64 = 1000;

    fn bic_with(params: BicParams) -> Bic {
        let config = CcConfig::new(MSS);
        Bic::new(&config, params, Box::new(StandardSlowStart::new(&config)))
    }

    /// A BIC in congestion avoidance at `cwnd_segments` with the given W_max.
    fn bic_at(cwnd_segments: u64, w_max: f64, params: BicParams) -> Bic {
        let mut b = bic_with(params);
        b.cwnd = cwnd_segments * MSS;
        b.ssthresh = cwnd_segments * MSS;
        b.w_max = w_max;
        b.seen_loss = true;
        b
    }

    /// One-segment ACKs until cwnd first grows.
    fn acks_until_growth(b: &mut Bic) -> u64 {
        let before = b.cwnd();
        let mut n = 0;
        while b.cwnd() == before {
            b.on_ack(&ack(MSS));
            n += 1;
            assert!(n < 10_000_000, "cwnd never grew");
        }
        n
    }

    #[test]
    fn backs_off_to_beta_and_records_w_max() {
        let mut b = bic_at(100, 0.0, BicParams::default());
        b.on_congestion_event(&loss(100 * MSS));
        // beta = 0.8: 0.8 * 100 000 = 80 000; W_max = 100 (cwnd before the loss).
        assert_eq!((b.cwnd(), b.ssthresh()), (80 * MSS, 80 * MSS));
        assert_eq!(b.w_max_segments(), 100.0);
        assert_eq!(b.mode(), "binary_search");
    }

    #[test]
    fn binary_search_goes_halfway_to_w_max() {
        let mut b = bic_at(100, 0.0, BicParams::default());
        b.on_congestion_event(&loss(100 * MSS));
        // cwnd = 80, W_max = 100: bic_inc = (100 - 80)/2 = 10 segments per RTT, i.e. one SMSS
        // per 80/10 = 8 segments acknowledged.
        assert_eq!(acks_until_growth(&mut b), 8);
        // Still in the same round: bic_inc stays 10, spread over the 80 segments the round
        // acknowledges: again one SMSS per 8 segments.
        assert_eq!(acks_until_growth(&mut b), 8);
        assert_eq!(b.cwnd(), 82 * MSS);
    }

    /// Deliver one round trip of one-segment ACKs to a window-limited sender: the round ends
    /// at the first ACK beyond the `snd_nxt` recorded at its start. Returns cwnd in segments.
    fn round_trip(b: &mut Bic, snd_una: &mut u64, snd_nxt: &mut u64) -> f64 {
        let end = *snd_nxt;
        while *snd_una <= end {
            *snd_una += MSS;
            b.on_ack(&Ack {
                snd_una: *snd_una,
                snd_nxt: *snd_nxt,
                ..ack(MSS)
            });
            *snd_nxt = (*snd_nxt).max(*snd_una + b.cwnd());
        }
        b.cwnd() as f64 / MSS as f64
    }

    #[test]
    fn binary_search_halves_the_distance_each_round_trip() {
        // W_max = 1000, cwnd = 800 after the cut, S_max raised to 1000 so that no clamp
        // applies: the paper's steps put the window at 900, 950, 975, 987.5 after 1..4 round
        // trips (the distance 200 halves each time); within one segment, as cwnd grows in
        // whole segments and a round's last ACK already belongs to the next.
        let params = BicParams {
            s_max: 1000.0,
            ..BicParams::default()
        };
        let mut b = bic_at(800, 1000.0, params);
        let (mut una, mut nxt) = (0, 800 * MSS);
        // The first ACK starts the first round.
        for (n, expected) in [(1, 900.0), (2, 950.0), (3, 975.0), (4, 987.5)] {
            let w = round_trip(&mut b, &mut una, &mut nxt);
            assert!(
                (w - expected).abs() <= 1.5,
                "after {n} rounds: {w}, expected {expected}"
            );
        }
        // Linux recomputes the step from the current window on every ACK, a quarter of the
        // distance per RTT: the distance shrinks continuously by e^(-1/4) = 0.78 per RTT,
        // 200 -> 156 after one round trip.
        let linux = BicParams {
            variant: BicVariant::Linux,
            s_max: 1000.0,
            ..BicParams::default()
        };
        let mut b = bic_at(800, 1000.0, linux);
        let (mut una, mut nxt) = (0, 800 * MSS);
        let w = round_trip(&mut b, &mut una, &mut nxt);
        let expected = 1000.0 - 200.0 * (-0.25f64).exp();
        assert!(
            (w - expected).abs() <= 1.5,
            "linux after one round: {w}, expected {expected}"
        );
    }

    #[test]
    fn s_max_clamps_far_below_w_max() {
        // W_max = 1000, cwnd = 800: (1000 - 800)/2 = 100 > S_max = 32 -> +32 per RTT, one
        // SMSS per 800/32 = 25 segments.
        let mut b = bic_at(800, 1000.0, BicParams::default());
        assert_eq!(acks_until_growth(&mut b), 25);
        // With Linux's max_increment S_max = 16: 800/16 = 50 segments.
        let params = BicParams {
            s_max: 16.0,
            ..BicParams::default()
        };
        let mut b = bic_at(800, 1000.0, params);
        assert_eq!(acks_until_growth(&mut b), 50);
    }

    #[test]
    fn s_min_clamps_next_to_w_max() {
        // cwnd = 100 = W_max - 0.5 would give 0.25; with S_min raised to 1 (to keep the
        // test short) the increase is 1 per RTT: one SMSS per 100 segments.
        let params = BicParams {
            s_min: 1.0,
            ..BicParams::default()
        };
        let mut b = bic_at(100, 100.5, params);
        assert_eq!(acks_until_growth(&mut b), 100);
        // Default S_min = 0.01 at cwnd = W_max exactly (bic_inc = 0): one SMSS per
        // 100/0.01 = 10 000 segments.
        let mut b = bic_at(100, 100.0, BicParams::default());
        assert_eq!(acks_until_growth(&mut b), 10_000);
    }

    #[test]
    fn max_probing_accelerates_away_from_w_max() {
        // cwnd = 108, W_max = 100: bic_inc = 8 -> ceil(108/8) = 14 segments.
        let mut b = bic_at(108, 100.0, BicParams::default());
        assert_eq!(b.mode(), "max_probing");
        assert_eq!(acks_until_growth(&mut b), 14);
        // cwnd = 104: bic_inc = 4 -> 104/4 = 26 segments (slower closer to W_max).
        let mut b = bic_at(104, 100.0, BicParams::default());
        assert_eq!(acks_until_growth(&mut b), 26);
        // cwnd = 200: 100 > S_max -> 32, 200/32 = 6.25 -> 7 segments.
        let mut b = bic_at(200, 100.0, BicParams::default());
        assert_eq!(acks_until_growth(&mut b), 7);
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut b = bic_at(90, 100.0, BicParams::default());
        b.on_congestion_event(&loss(90 * MSS));
        // 90 < W_max = 100: W_max = 90 * (1 + 0.8)/2 = 81.
        assert!((b.w_max_segments() - 81.0).abs() < 1e-9);
        assert_eq!(b.cwnd(), 72 * MSS);
        // Without fast convergence W_max = 90.
        let params = BicParams {
            fast_convergence: false,
            ..BicParams::default()
        };
        let mut b = bic_at(90, 100.0, params);
        b.on_congestion_event(&loss(90 * MSS));
        assert_eq!(b.w_max_segments(), 90.0);
    }

    #[test]
    fn reno_at_or_below_low_window() {
        // w = 14 = low_window: +1 per 14 segments, halve on loss.
        let mut b = bic_at(14, 100.0, BicParams::default());
        assert_eq!(b.mode(), "reno");
        assert_eq!(acks_until_growth(&mut b), 14);
        let mut b = bic_at(14, 0.0, BicParams::default());
        b.on_congestion_event(&loss(14 * MSS));
        assert_eq!(b.ssthresh(), 7 * MSS);
    }

    #[test]
    fn linux_variant_increments() {
        let linux = BicParams {
            variant: BicVariant::Linux,
            s_max: 16.0, // Linux max_increment
            ..BicParams::default()
        };
        // cwnd 80, W_max 100: dist = 20/4 = 5 -> 80/5 = 16 segments per SMSS.
        let mut b = bic_at(80, 100.0, linux);
        assert_eq!(acks_until_growth(&mut b), 16);
        // cwnd 98: dist = 0.5 <= 1 -> 4/20 = 0.2 per RTT -> 98/0.2 = 490 segments.
        let mut b = bic_at(98, 100.0, linux);
        assert_eq!(acks_until_growth(&mut b), 490);
        // cwnd 112, W_max 100: 104 <= 112 < 100 + 16*3 -> (112 - 100)/3 = 4 -> 28 segments.
        let mut b = bic_at(112, 100.0, linux);
        assert_eq!(acks_until_growth(&mut b), 28);
        // Before any loss: at least cwnd/20 per RTT. cwnd 400 far above W_max = 0 would get
        // S_max = 16; 400/20 = 20 is larger -> one SMSS per 400/20 = 20 segments.
        let mut b = bic_at(400, 0.0, linux);
        b.seen_loss = false;
        assert_eq!(acks_until_growth(&mut b), 20);
    }

    #[test]
    fn timeout_forgets_w_max() {
        let mut b = bic_at(100, 0.0, BicParams::default());
        new_timeout(&mut b, &timeout(100 * MSS));
        assert_eq!((b.cwnd(), b.ssthresh()), (MSS, 80 * MSS));
        assert_eq!(b.w_max_segments(), 0.0);
        b.on_ack(&ack(MSS));
        assert_eq!(b.cwnd(), 2 * MSS);
    }

    #[test]
    fn timeout_within_a_loss_episode_keeps_ssthresh() {
        let mut b = bic_at(100, 0.0, BicParams::default());
        b.on_congestion_event(&loss(100 * MSS));
        b.on_retransmission_timeout(&timeout(70 * MSS));
        assert_eq!((b.cwnd(), b.ssthresh()), (MSS, 80 * MSS));
        assert_eq!(b.w_max_segments(), 0.0);
    }

    #[test]
    fn floor_and_no_growth_when_not_allowed() {
        let mut b = bic_at(3, 0.0, BicParams::default());
        b.on_congestion_event(&loss(3 * MSS));
        assert_eq!(b.ssthresh(), 2 * MSS);
        let mut b = bic_at(100, 120.0, BicParams::default());
        for _ in 0..100 {
            b.on_ack(&Ack {
                in_recovery: true,
                ..ack(MSS)
            });
            b.on_ack(&Ack {
                cwnd_limited: false,
                ..ack(MSS)
            });
        }
        assert_eq!(b.cwnd(), 100 * MSS);
    }
}
