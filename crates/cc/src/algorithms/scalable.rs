//! Scalable TCP (T. Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area
//! Networks", ACM CCR 33(2), 2003), with Linux's tcp_scalable.c as a variant.
//!
//! Paper: above the legacy window (16 segments), per ACK `cwnd += a` with a = 0.01 (so cwnd
//! grows by a factor 1.01 per RTT: multiplicative increase) and on congestion
//! `cwnd <- cwnd - b cwnd` with b = 0.125. At or below the legacy window it is standard TCP
//! (+1 segment per RTT, halve on loss). "Per ACK" means per acknowledged segment: the
//! increase is scaled by bytes_acked/SMSS so delayed ACKs change nothing (RFC 3465).
//!
//! Linux variant: +1 segment per min(cwnd, AI_CNT) acknowledged segments (AI_CNT = 100, the
//! paper's 1/a; cwnd <= 100 is therefore Reno-like growth) and `cwnd - cwnd/8` on every
//! loss, whatever the window.

use super::additive_increase::ByteCountedIncrease;
use super::multiplicative_decrease::multiplicative_decrease;
use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::choice("variant", "paper", &["paper", "linux"])
        .doc("paper: +a per ACKed segment above legacy_window; linux: +1 segment per min(cwnd, ai_cnt) ACKed segments, cwnd*(1-b) at every window"),
    ParamSpec::number("a", 0.01, 0.0001, 0.5)
        .unit("segments")
        .doc("increase per acknowledged segment above the legacy window (paper variant)"),
    ParamSpec::number("b", 0.125, 0.01, 0.5)
        .doc("fraction of the window removed on a congestion event (Scalable regime)"),
    ParamSpec::integer("legacy_window", 16, 0, 1_000_000)
        .unit("segments")
        .doc("at or below this window Scalable behaves as Reno (paper variant)"),
    ParamSpec::integer("ai_cnt", 100, 1, 1_000_000)
        .unit("segments")
        .doc("Linux TCP_SCALABLE_AI_CNT: +1 segment per min(cwnd, ai_cnt) ACKed segments (linux variant)"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "scalable",
    aliases: &["stcp"],
    summary: "Scalable TCP: MIMD, +0.01 segment per ACKed segment (x1.01 per RTT), x0.875 on loss; Reno below 16 segments",
    reference: "T. Kelly, Scalable TCP, ACM CCR 33(2), 2003; Linux net/ipv4/tcp_scalable.c (variant)",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| {
        Box::new(Scalable::new(
            config,
            ScalableParams::from_params(params),
            slow_start,
        ))
    },
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalableVariant {
    Paper,
    Linux,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalableParams {
    pub variant: ScalableVariant,
    pub a: f64,
    pub b: f64,
    pub legacy_window: u64,
    pub ai_cnt: u64,
}

impl Default for ScalableParams {
    fn default() -> Self {
        ScalableParams::from_params(&Params::defaults(PARAMS))
    }
}

impl ScalableParams {
    pub fn from_params(params: &Params) -> Self {
        ScalableParams {
            variant: match params.choice("variant") {
                "linux" => ScalableVariant::Linux,
                _ => ScalableVariant::Paper,
            },
            a: params.number("a"),
            b: params.number("b"),
            legacy_window: params.number("legacy_window") as u64,
            ai_cnt: params.number("ai_cnt") as u64,
        }
    }
}

pub struct Scalable {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    params: ScalableParams,
    increase: ByteCountedIncrease,
    slow_start: Box<dyn SlowStart>,
}

impl Scalable {
    pub fn new(config: &CcConfig, params: ScalableParams, slow_start: Box<dyn SlowStart>) -> Self {
        Scalable {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            params,
            increase: ByteCountedIncrease::new(),
            slow_start,
        }
    }

    fn window_segments(&self) -> u64 {
        self.cwnd / self.mss
    }

    /// Whether cwnd is in the Scalable (MIMD) regime rather than the Reno-like one.
    fn scalable_regime(&self) -> bool {
        match self.params.variant {
            ScalableVariant::Paper => self.window_segments() > self.params.legacy_window,
            ScalableVariant::Linux => self.window_segments() > self.params.ai_cnt,
        }
    }

    /// Segments added per window of acknowledged data (the `A` of `cwnd += A/cwnd`).
    fn increase_per_window(&self) -> f64 {
        let w = self.cwnd as f64 / self.mss as f64;
        match self.params.variant {
            // Paper: cwnd += a per acknowledged segment = a*w per window.
            ScalableVariant::Paper if self.scalable_regime() => self.params.a * w,
            ScalableVariant::Paper => 1.0,
            // Linux: +1 per min(w, ai_cnt) segments = w/min(w, ai_cnt) per window.
            ScalableVariant::Linux => (w / self.params.ai_cnt as f64).max(1.0),
        }
    }

    fn reduced_ssthresh(&self, bytes_in_flight: u64) -> u64 {
        let retain = match self.params.variant {
            ScalableVariant::Paper if !self.scalable_regime() => 0.5,
            _ => 1.0 - self.params.b,
        };
        multiplicative_decrease(bytes_in_flight, retain, self.mss)
    }
}

impl CongestionControl for Scalable {
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
        let per_window = self.increase_per_window();
        self.increase
            .grow(&mut self.cwnd, self.mss, ack.bytes_acked, per_window);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        // Kelly §2: cwnd <- cwnd - b*cwnd (Reno's halving at or below the legacy window).
        self.ssthresh = self.reduced_ssthresh(event.bytes_in_flight);
        self.cwnd = self.ssthresh;
        self.increase.reset();
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // Linux sets ssthresh with the same rule on a timeout.
        self.ssthresh = self.reduced_ssthresh(event.bytes_in_flight);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // cwnd = 1-SMSS loss window.
        self.cwnd = self.mss;
        self.increase.reset();
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
        } else if self.scalable_regime() {
            "scalable"
        } else {
            "legacy"
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

    fn scalable_at(cwnd_segments: u64, params: ScalableParams) -> Scalable {
        let config = CcConfig::new(MSS);
        let mut s = Scalable::new(&config, params, Box::new(StandardSlowStart::new(&config)));
        s.cwnd = cwnd_segments * MSS;
        s.ssthresh = cwnd_segments * MSS;
        s
    }

    fn linux() -> ScalableParams {
        ScalableParams {
            variant: ScalableVariant::Linux,
            ..ScalableParams::default()
        }
    }

    #[test]
    fn grows_by_one_percent_per_rtt() {
        // w = 100 > 16: +0.01 per ACKed segment; one RTT = 100 segments => +1 = x1.01.
        let mut s = scalable_at(100, ScalableParams::default());
        assert_eq!(s.mode(), "scalable");
        for _ in 0..99 {
            s.on_ack(&ack(MSS));
        }
        assert_eq!(s.cwnd(), 100 * MSS);
        s.on_ack(&ack(MSS));
        assert_eq!(s.cwnd(), 101 * MSS);

        // w = 1000: one RTT of 1000 segments gives 1000 * 1.01 = 1010 segments (one SMSS
        // every 1/0.01 = 100 segments, independent of w).
        let mut s = scalable_at(1000, ScalableParams::default());
        for _ in 0..1000 {
            s.on_ack(&ack(MSS));
        }
        assert_eq!(s.cwnd(), 1010 * MSS);
        // Same with delayed ACKs: 500 ACKs of 2 segments in the next RTT-sized batch of
        // 1000 segments => +10 more.
        for _ in 0..500 {
            s.on_ack(&ack(2 * MSS));
        }
        assert_eq!(s.cwnd(), 1020 * MSS);
    }

    #[test]
    fn backs_off_by_one_eighth() {
        // b = 0.125: ssthresh = 0.875 * FlightSize.
        let mut s = scalable_at(100, ScalableParams::default());
        s.on_congestion_event(&loss(100 * MSS));
        assert_eq!((s.cwnd(), s.ssthresh()), (87_500, 87_500));
        let mut s = scalable_at(1000, ScalableParams::default());
        s.on_congestion_event(&loss(1000 * MSS));
        assert_eq!(s.cwnd(), 875_000);
    }

    #[test]
    fn reno_at_or_below_the_legacy_window() {
        // w = 16 = legacy window: +1 per 16 segments, halve on loss.
        let mut s = scalable_at(16, ScalableParams::default());
        assert_eq!(s.mode(), "legacy");
        for _ in 0..15 {
            s.on_ack(&ack(MSS));
        }
        assert_eq!(s.cwnd(), 16 * MSS);
        s.on_ack(&ack(MSS));
        assert_eq!(s.cwnd(), 17 * MSS);
        let mut s = scalable_at(16, ScalableParams::default());
        s.on_congestion_event(&loss(16 * MSS));
        assert_eq!(s.ssthresh(), 8 * MSS);
    }

    #[test]
    fn linux_variant_counts_min_cwnd_ai_cnt() {
        // w = 200 > AI_CNT = 100: +1 per 100 segments.
        let mut s = scalable_at(200, linux());
        assert_eq!(s.mode(), "scalable");
        for _ in 0..99 {
            s.on_ack(&ack(MSS));
        }
        assert_eq!(s.cwnd(), 200 * MSS);
        s.on_ack(&ack(MSS));
        assert_eq!(s.cwnd(), 201 * MSS);
        // w = 30 < AI_CNT: +1 per 30 segments (Reno-like growth) ...
        let mut s = scalable_at(30, linux());
        for _ in 0..29 {
            s.on_ack(&ack(MSS));
        }
        assert_eq!(s.cwnd(), 30 * MSS);
        s.on_ack(&ack(MSS));
        assert_eq!(s.cwnd(), 31 * MSS);
        // ... but the decrease is cwnd/8 at every window: 0.875 * 30 000 = 26 250.
        let mut s = scalable_at(30, linux());
        s.on_congestion_event(&loss(30 * MSS));
        assert_eq!(s.ssthresh(), 26_250);
    }

    #[test]
    fn timeout_and_floor() {
        let mut s = scalable_at(100, ScalableParams::default());
        new_timeout(&mut s, &timeout(100 * MSS));
        assert_eq!((s.cwnd(), s.ssthresh()), (MSS, 87_500));
        s.on_ack(&ack(MSS));
        assert_eq!(s.cwnd(), 2 * MSS, "slow start after the timeout");
        let mut s = scalable_at(3, ScalableParams::default());
        s.on_congestion_event(&loss(3 * MSS));
        assert_eq!(s.ssthresh(), 2 * MSS);
    }

    #[test]
    fn timeout_within_a_loss_episode_keeps_ssthresh() {
        let mut s = scalable_at(100, ScalableParams::default());
        s.on_congestion_event(&loss(100 * MSS));
        s.on_retransmission_timeout(&timeout(80 * MSS));
        assert_eq!((s.cwnd(), s.ssthresh()), (MSS, 87_500));
    }

    #[test]
    fn no_growth_in_recovery_or_when_not_cwnd_limited() {
        let mut s = scalable_at(100, ScalableParams::default());
        for _ in 0..200 {
            s.on_ack(&Ack {
                in_recovery: true,
                ..ack(MSS)
            });
            s.on_ack(&Ack {
                cwnd_limited: false,
                ..ack(MSS)
            });
        }
        assert_eq!(s.cwnd(), 100 * MSS);
    }
}
