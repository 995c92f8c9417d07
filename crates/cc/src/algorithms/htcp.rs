//! H-TCP (D. Leith, R. Shorten, "H-TCP: TCP for high-speed and long-distance networks",
//! PFLDnet 2004), with the adaptive backoff and RTT scaling of the same authors' later
//! description (draft-leith-tcp-htcp) as Linux's tcp_htcp.c and FreeBSD's cc_htcp implement
//! them.
//!
//! * Increase: per ACK `cwnd += 2 (1 - β) α / cwnd` (counted in bytes), where Δ is the time
//!   since the last congestion event and `α(Δ) = 1` for `Δ <= Δ_L = 1 s`, else
//!   `α(Δ) = 1 + 10 (Δ - Δ_L) + ((Δ - Δ_L)/2)^2`. The factor `2 (1 - β)` keeps
//!   AIMD(2(1-β)α, β) as friendly as Reno's AIMD(1, 0.5).
//! * RTT scaling (high-speed mode only): `α <- max(1, α * clamp(RTT_min/RTT_ref, 0.1, 2))`,
//!   RTT_ref = 100 ms, so flows with different RTTs gain window at similar rates per second.
//! * Adaptive backoff: on congestion `cwnd <- β cwnd` with `β = RTT_min/RTT_max` clamped to
//!   [0.5, 0.8], RTT_max the largest RTT since the previous congestion event; β = 0.5 instead
//!   when the throughput measured just before this event differs by more than 20% from the
//!   one before the previous event (and at the first event, when there is nothing to compare).

use super::additive_increase::ByteCountedIncrease;
use super::multiplicative_decrease::multiplicative_decrease;
use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;
use crate::time::{SimDuration, SimTime};

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("delta_l", 1.0, 0.0, 100.0)
        .unit("s")
        .doc("Δ_L: time after a congestion event spent in low-speed (Reno-like) mode"),
    ParamSpec::boolean("adaptive_backoff", true)
        .doc("beta = RTT_min/RTT_max in [beta_min, beta_max]; false: beta = beta_min always"),
    ParamSpec::number("beta_min", 0.5, 0.1, 0.99).doc("lower bound of the adaptive backoff beta"),
    ParamSpec::number("beta_max", 0.8, 0.1, 0.99).doc("upper bound of the adaptive backoff beta"),
    ParamSpec::number("throughput_threshold", 0.2, 0.0, 10.0)
        .doc("relative throughput change between congestion epochs that resets beta to beta_min"),
    ParamSpec::boolean("rtt_scaling", true)
        .doc("scale alpha by RTT_min/rtt_ref (clamped to [0.1, 2]) in high-speed mode"),
    ParamSpec::number("rtt_ref", 100.0, 1.0, 10_000.0)
        .unit("ms")
        .doc("reference RTT of the RTT scaling"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "htcp",
    aliases: &["h-tcp"],
    summary: "H-TCP: alpha(Δ) = 1 + 10(Δ-1) + ((Δ-1)/2)^2 after 1 s without loss, adaptive beta = RTT_min/RTT_max in [0.5, 0.8]",
    reference: "Leith & Shorten, H-TCP, PFLDnet 2004; draft-leith-tcp-htcp; Linux net/ipv4/tcp_htcp.c",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| {
        Box::new(Htcp::new(
            config,
            HtcpParams::from_params(params),
            slow_start,
        ))
    },
};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HtcpParams {
    pub delta_l: SimDuration,
    pub adaptive_backoff: bool,
    pub beta_min: f64,
    pub beta_max: f64,
    pub throughput_threshold: f64,
    pub rtt_scaling: bool,
    pub rtt_ref: SimDuration,
}

impl Default for HtcpParams {
    fn default() -> Self {
        HtcpParams::from_params(&Params::defaults(PARAMS))
    }
}

impl HtcpParams {
    pub fn from_params(params: &Params) -> Self {
        HtcpParams {
            delta_l: SimDuration::from_secs_f64(params.number("delta_l")),
            adaptive_backoff: params.boolean("adaptive_backoff"),
            beta_min: params.number("beta_min"),
            beta_max: params.number("beta_max"),
            throughput_threshold: params.number("throughput_threshold"),
            rtt_scaling: params.boolean("rtt_scaling"),
            rtt_ref: SimDuration::from_secs_f64(params.number("rtt_ref") / 1000.0),
        }
    }
}

/// RTT-long throughput samples (bytes acknowledged over at least RTT_min).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct ThroughputMeter {
    interval_start: Option<SimTime>,
    bytes: u64,
    /// The last completed sample, bytes per second.
    last: Option<f64>,
}

impl ThroughputMeter {
    fn on_ack(&mut self, now: SimTime, bytes_acked: u64, rtt_min: Option<SimDuration>) {
        let Some(start) = self.interval_start else {
            self.interval_start = Some(now);
            self.bytes = 0;
            return;
        };
        self.bytes += bytes_acked;
        let elapsed = now.saturating_since(start);
        if let Some(rtt_min) = rtt_min
            && elapsed >= rtt_min
            && !elapsed.is_zero()
        {
            self.last = Some(self.bytes as f64 / elapsed.as_secs_f64());
            self.interval_start = Some(now);
            self.bytes = 0;
        }
    }

    /// Loss recovery: the ACK clock is disturbed, start a fresh interval afterwards.
    fn interrupt(&mut self) {
        self.interval_start = None;
        self.bytes = 0;
    }
}

pub struct Htcp {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    params: HtcpParams,
    beta: f64,
    /// Time of the last congestion event (or of the first ACK, before any).
    last_congestion: Option<SimTime>,
    rtt_min: Option<SimDuration>,
    /// Largest RTT sample since the last congestion event (outside loss recovery).
    rtt_max: Option<SimDuration>,
    throughput: ThroughputMeter,
    /// Throughput measured just before the previous congestion event, B(k-1).
    previous_epoch_throughput: Option<f64>,
    high_speed: bool,
    increase: ByteCountedIncrease,
    slow_start: Box<dyn SlowStart>,
    /// What the last reduction reset, for an undo (Linux `htcp_reset`'s `undo_last_cong`,
    /// `undo_maxRTT`, `undo_old_maxB`); `None` once recovery ended without one.
    undo: Option<HtcpUndo>,
}

/// H-TCP's measurements before a reduction, restored if it proves spurious.
#[derive(Clone, Copy, Debug, PartialEq)]
struct HtcpUndo {
    last_congestion: Option<SimTime>,
    rtt_max: Option<SimDuration>,
    throughput: ThroughputMeter,
    previous_epoch_throughput: Option<f64>,
}

impl Htcp {
    pub fn new(config: &CcConfig, params: HtcpParams, slow_start: Box<dyn SlowStart>) -> Self {
        Htcp {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            beta: params.beta_min,
            params,
            last_congestion: None,
            rtt_min: None,
            rtt_max: None,
            throughput: ThroughputMeter::default(),
            previous_epoch_throughput: None,
            undo: None,
            high_speed: false,
            increase: ByteCountedIncrease::new(),
            slow_start,
        }
    }

    /// The backoff factor β in use (set at the last congestion event).
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// Time since the last congestion event, Δ.
    fn delta(&self, now: SimTime) -> SimDuration {
        self.last_congestion
            .map_or(SimDuration::ZERO, |t| now.saturating_since(t))
    }

    /// α(Δ) of the paper, before RTT scaling: 1 up to Δ_L, then quadratic in Δ - Δ_L.
    fn alpha_of_delta(&self, delta: SimDuration) -> f64 {
        if delta <= self.params.delta_l {
            return 1.0;
        }
        let d = (delta - self.params.delta_l).as_secs_f64();
        1.0 + 10.0 * d + (d / 2.0) * (d / 2.0)
    }

    /// The increase per RTT at `now`: `2 (1 - β) α`, α RTT-scaled in high-speed mode.
    pub fn increase_per_rtt(&self, now: SimTime) -> f64 {
        let delta = self.delta(now);
        let mut alpha = self.alpha_of_delta(delta);
        if self.params.rtt_scaling
            && delta > self.params.delta_l
            && let Some(rtt_min) = self.rtt_min
        {
            let ratio =
                (rtt_min.as_nanos() as f64 / self.params.rtt_ref.as_nanos() as f64).clamp(0.1, 2.0);
            alpha = (alpha * ratio).max(1.0);
        }
        2.0 * (1.0 - self.beta) * alpha
    }

    fn measure(&mut self, ack: &Ack) {
        self.last_congestion.get_or_insert(ack.now);
        if let Some(rtt) = ack.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
            if !ack.in_recovery {
                self.rtt_max = Some(self.rtt_max.map_or(rtt, |m| m.max(rtt)));
            }
        }
        if let Some(min_rtt) = ack.min_rtt {
            self.rtt_min = Some(self.rtt_min.map_or(min_rtt, |m| m.min(min_rtt)));
        }
        if ack.in_recovery {
            self.throughput.interrupt();
        } else {
            self.throughput
                .on_ack(ack.now, ack.bytes_acked, self.rtt_min);
        }
    }

    /// A congestion event at `now`: choose β for this backoff and start a new epoch.
    fn on_backoff(&mut self, now: SimTime) {
        self.undo = Some(HtcpUndo {
            last_congestion: self.last_congestion,
            rtt_max: self.rtt_max,
            throughput: self.throughput,
            previous_epoch_throughput: self.previous_epoch_throughput,
        });
        let throughput = self.throughput.last;
        let throughput_changed = match (throughput, self.previous_epoch_throughput) {
            (Some(b), Some(previous)) => {
                (b - previous).abs() > self.params.throughput_threshold * previous
            }
            // The first event, or an epoch too short to measure: nothing to rely on.
            _ => true,
        };
        self.beta = match (self.rtt_min, self.rtt_max) {
            (Some(min), Some(max))
                if self.params.adaptive_backoff && !throughput_changed && !max.is_zero() =>
            {
                (min.as_nanos() as f64 / max.as_nanos() as f64).clamp(
                    self.params.beta_min,
                    self.params.beta_max.max(self.params.beta_min),
                )
            }
            _ => self.params.beta_min,
        };
        self.previous_epoch_throughput = throughput;
        self.throughput = ThroughputMeter::default();
        self.rtt_max = None;
        self.restart_delta(now);
    }

    /// Δ counts from `now`; growth starts over in low-speed mode.
    fn restart_delta(&mut self, now: SimTime) {
        self.last_congestion = Some(now);
        self.high_speed = false;
        self.increase.reset();
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        self.measure(ack);
        if !ack.may_grow() {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
            return;
        }
        self.high_speed = self.delta(ack.now) > self.params.delta_l;
        let per_rtt = self.increase_per_rtt(ack.now);
        self.increase
            .grow(&mut self.cwnd, self.mss, ack.bytes_acked, per_rtt);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.on_backoff(event.now);
        self.ssthresh = multiplicative_decrease(event.bytes_in_flight, self.beta, self.mss);
        self.cwnd = self.ssthresh;
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // As Linux's htcp_recalc_ssthresh: the same backoff (β update) sets ssthresh.
        self.on_backoff(event.now);
        self.ssthresh = multiplicative_decrease(event.bytes_in_flight, self.beta, self.mss);
    }

    fn on_retransmission_timeout(&mut self, event: &TimeoutEvent) {
        // Every timeout restarts Δ, as Linux's htcp_reset on entering TCP_CA_Loss does (a
        // repeated timeout holds ssthresh and β); cwnd = the 1-SMSS loss window.
        self.restart_delta(event.now);
        self.cwnd = self.mss;
        self.slow_start.restart();
    }

    /// α(Δ) depends on the time since the last loss, which the view is not given: only β.
    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics {
            decrease_fraction: Some(1.0 - self.beta),
            ..ControllerMetrics::with_slow_start(self.slow_start.as_ref())
        }
    }

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Linux `htcp_cwnd_undo`: Δ counts again from the previous congestion event, and the
        // maximum RTT and the throughput of the previous epoch come back (β is not
        // restored), then `tcp_reno_undo_cwnd`. Our meter of this epoch's throughput was
        // reset by the reduction (Linux's maxB is not), so it comes back too.
        if let Some(saved) = self.undo.take() {
            self.last_congestion = saved.last_congestion;
            self.rtt_max = saved.rtt_max;
            self.throughput = saved.throughput;
            self.previous_epoch_throughput = saved.previous_epoch_throughput;
        }
        (self.cwnd, self.ssthresh) = event.reno_restore(self.cwnd, self.ssthresh);
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        // Linux `htcp_state(TCP_CA_Open)` clears `undo_last_cong`: a later undo restores the
        // window only.
        self.undo = None;
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
        } else if self.high_speed {
            "high_speed"
        } else {
            "low_speed"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::CongestionEvent;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, timeout};

    const MSS: u64 = 1000;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    fn htcp_with(params: HtcpParams) -> Htcp {
        let config = CcConfig::new(MSS);
        Htcp::new(&config, params, Box::new(StandardSlowStart::new(&config)))
    }

    fn unscaled() -> HtcpParams {
        HtcpParams {
            rtt_scaling: false,
            ..HtcpParams::default()
        }
    }

    fn loss_at(ms: u64, flight_segments: u64) -> CongestionEvent {
        CongestionEvent {
            now: at(ms),
            bytes_in_flight: flight_segments * MSS,
            srtt: None,
            min_rtt: None,
        }
    }

    /// Linux `htcp_cwnd_undo`: a spurious reduction at 3 s leaves Δ counting from the
    /// congestion event at 1 s, so 2.5 s later Δ = 4.5 s (not 2.5 s); the window and
    /// threshold come back as `tcp_reno_undo_cwnd` restores them.
    #[test]
    fn undo_restores_the_congestion_epoch() {
        let mut h = htcp_with(unscaled());
        h.on_ack(&Ack {
            now: at(100),
            ..ack(MSS)
        });
        h.on_congestion_event(&loss_at(1000, 40));
        let (cwnd, ssthresh) = (h.cwnd(), h.ssthresh());
        h.on_congestion_event(&loss_at(3000, cwnd / MSS));
        assert_eq!(h.delta(at(5500)), SimDuration::from_millis(2500));
        h.on_undo(&crate::controller::UndoEvent {
            now: at(3200),
            prior_cwnd: cwnd,
            prior_ssthresh: ssthresh,
        });
        assert_eq!(h.delta(at(5500)), SimDuration::from_millis(4500));
        assert_eq!((h.cwnd(), h.ssthresh()), (cwnd, ssthresh));
        // Recovery that ends without an undo forgets the saved epoch (`htcp_state(Open)`).
        h.on_congestion_event(&loss_at(6000, cwnd / MSS));
        h.on_recovery_exit(at(6100));
        h.on_undo(&crate::controller::UndoEvent {
            now: at(6200),
            prior_cwnd: cwnd,
            prior_ssthresh: ssthresh,
        });
        assert_eq!(h.delta(at(7000)), SimDuration::from_millis(1000));
    }

    fn ack_at(ms: u64, rtt_ms: u64) -> Ack {
        let rtt = SimDuration::from_millis(rtt_ms);
        Ack {
            now: at(ms),
            rtt: Some(rtt),
            min_rtt: Some(rtt),
            srtt: Some(rtt),
            bytes_in_flight: 10 * MSS,
            ..ack(MSS)
        }
    }

    /// The paper's α(Δ) = 1 + 10 (Δ - 1) + ((Δ - 1)/2)^2 for Δ > 1 s, else 1.
    fn paper_alpha(delta_s: f64) -> f64 {
        if delta_s <= 1.0 {
            1.0
        } else {
            let d = delta_s - 1.0;
            1.0 + 10.0 * d + (d / 2.0) * (d / 2.0)
        }
    }

    #[test]
    fn alpha_of_time_since_congestion() {
        let mut h = htcp_with(unscaled());
        h.on_congestion_event(&loss_at(0, 100));
        // β = 0.5 at the first event, so 2 (1 - β) α = α.
        assert_eq!(h.beta(), 0.5);
        for (delta_ms, expected) in [(500, 1.0), (1000, 1.0), (2000, 11.25), (5000, 45.0)] {
            // α(1) = 1; α(2) = 1 + 10 + 0.25 = 11.25; α(5) = 1 + 40 + 4 = 45.
            assert_eq!(paper_alpha(delta_ms as f64 / 1000.0), expected);
            let got = h.increase_per_rtt(at(delta_ms));
            assert!((got - expected).abs() < 1e-9, "Δ = {delta_ms} ms: {got}");
        }
    }

    #[test]
    fn growth_follows_alpha() {
        // cwnd = 50 segments after a loss at 100; at Δ = 2 s, α = 11.25: each 1000-byte ACK
        // earns 11 250 of the 50 000 needed for one SMSS -> the 5th ACK (56 250) grows cwnd.
        let mut h = htcp_with(unscaled());
        h.on_congestion_event(&loss_at(0, 100));
        assert_eq!(h.cwnd(), 50 * MSS);
        for _ in 0..4 {
            h.on_ack(&ack_at(2000, 100));
        }
        assert_eq!(h.cwnd(), 50 * MSS);
        assert_eq!(h.mode(), "high_speed");
        h.on_ack(&ack_at(2000, 100));
        assert_eq!(h.cwnd(), 51 * MSS);
        // At Δ <= 1 s: α = 1, Reno: one SMSS per window.
        let mut h = htcp_with(unscaled());
        h.on_congestion_event(&loss_at(0, 100));
        for _ in 0..49 {
            h.on_ack(&ack_at(500, 100));
        }
        assert_eq!(h.cwnd(), 50 * MSS);
        assert_eq!(h.mode(), "low_speed");
        h.on_ack(&ack_at(500, 100));
        assert_eq!(h.cwnd(), 51 * MSS);
    }

    #[test]
    fn rtt_scaling_of_alpha() {
        // α(2 s) = 11.25 times clamp(RTT_min/100 ms, 0.1, 2), at least 1; β = 0.5.
        for (rtt_ms, expected) in [
            (50, 11.25 * 0.5),
            (100, 11.25),
            (150, 11.25 * 1.5),
            (400, 11.25 * 2.0), // ratio 4 clamped to 2
            (5, 1.125),         // ratio 0.05 clamped to 0.1
        ] {
            let mut h = htcp_with(HtcpParams::default());
            h.on_congestion_event(&loss_at(0, 100));
            h.on_ack(&Ack {
                cwnd_limited: false,
                ..ack_at(10, rtt_ms)
            });
            let got = h.increase_per_rtt(at(2000));
            assert!((got - expected).abs() < 1e-9, "RTT {rtt_ms} ms: {got}");
        }
        // RTT 2 ms at Δ = 1.5 s: α = 1 + 5 + 0.0625 = 6.0625, ratio 0.1 -> 0.606, floored at 1.
        let mut h = htcp_with(HtcpParams::default());
        h.on_congestion_event(&loss_at(0, 100));
        h.on_ack(&Ack {
            cwnd_limited: false,
            ..ack_at(10, 2)
        });
        assert!((h.increase_per_rtt(at(1500)) - 1.0).abs() < 1e-12);
        // Low-speed mode is not scaled: α = 1 at Δ = 0.5 s even with a 400 ms RTT.
        let mut h = htcp_with(HtcpParams::default());
        h.on_congestion_event(&loss_at(0, 100));
        h.on_ack(&Ack {
            cwnd_limited: false,
            ..ack_at(10, 400)
        });
        assert!((h.increase_per_rtt(at(500)) - 1.0).abs() < 1e-12);
    }

    /// Two seconds of one-segment ACKs every `spacing_us`, RTT rising linearly from
    /// `rtt_min_ms` to `rtt_max_ms`, not cwnd-limited (cwnd stays put), starting at `start_ms`.
    fn epoch(h: &mut Htcp, start_ms: u64, spacing_us: u64, rtt_min_ms: u64, rtt_max_ms: u64) {
        let n = 2_000_000 / spacing_us;
        for i in 0..=n {
            let rtt_us = rtt_min_ms * 1000 + (rtt_max_ms - rtt_min_ms) * 1000 * i / n;
            let rtt = SimDuration::from_micros(rtt_us);
            h.on_ack(&Ack {
                now: at(start_ms) + SimDuration::from_micros(i * spacing_us),
                rtt: Some(rtt),
                min_rtt: None,
                srtt: Some(rtt),
                cwnd_limited: false,
                ..ack(MSS)
            });
        }
    }

    #[test]
    fn adaptive_backoff_beta() {
        let mut h = htcp_with(HtcpParams::default());
        // Epoch 1 then the first congestion event: nothing to compare -> β = 0.5.
        epoch(&mut h, 0, 1000, 100, 125);
        h.on_congestion_event(&loss_at(2001, 100));
        assert_eq!((h.beta(), h.ssthresh()), (0.5, 50 * MSS));
        // Epoch 2 with the same throughput (1 segment/ms): β = RTT_min/RTT_max = 100/125.
        epoch(&mut h, 2002, 1000, 100, 125);
        h.on_congestion_event(&loss_at(4003, 100));
        assert!((h.beta() - 0.8).abs() < 1e-12);
        assert_eq!(h.ssthresh(), 80 * MSS);
        // The metrics view: the next loss takes 1 − β = 20 % away.
        assert!((h.metrics().decrease_fraction.unwrap() - 0.2).abs() < 1e-12);
        // Epoch 3: queueing delay up to 110 ms -> 100/110 = 0.909, clamped to 0.8.
        epoch(&mut h, 4004, 1000, 100, 110);
        h.on_congestion_event(&loss_at(6005, 100));
        assert!((h.beta() - 0.8).abs() < 1e-12);
        // Epoch 4: up to 400 ms -> 0.25, clamped to 0.5.
        epoch(&mut h, 6006, 1000, 100, 400);
        h.on_congestion_event(&loss_at(8007, 100));
        assert_eq!(h.beta(), 0.5);
        // Epoch 5: RTT 100..120 (β would be 0.833 -> 0.8) but throughput doubled (one
        // segment every 500 us): a change above 20% resets β to 0.5.
        epoch(&mut h, 8008, 500, 100, 120);
        h.on_congestion_event(&loss_at(10_009, 100));
        assert_eq!(h.beta(), 0.5);
        // Epoch 6: same doubled throughput again, RTT 100..120: β = 100/120 = 0.833 -> 0.8.
        epoch(&mut h, 10_010, 500, 100, 120);
        h.on_congestion_event(&loss_at(12_011, 100));
        assert!((h.beta() - 0.8).abs() < 1e-12);
        // Epoch 7: RTT 100..160 -> β = 0.625 (inside the bounds), throughput unchanged.
        epoch(&mut h, 12_012, 500, 100, 160);
        h.on_congestion_event(&loss_at(14_013, 100));
        assert!((h.beta() - 0.625).abs() < 1e-12);
        assert_eq!(h.ssthresh(), 62_500);
        // The increase factor 2 (1 - β) follows: 0.75 in low-speed mode.
        assert!((h.increase_per_rtt(at(14_100)) - 0.75).abs() < 1e-12);
    }

    #[test]
    fn fixed_backoff_when_not_adaptive() {
        let params = HtcpParams {
            adaptive_backoff: false,
            ..HtcpParams::default()
        };
        let mut h = htcp_with(params);
        epoch(&mut h, 0, 1000, 100, 125);
        h.on_congestion_event(&loss_at(2001, 100));
        epoch(&mut h, 2002, 1000, 100, 125);
        h.on_congestion_event(&loss_at(4003, 100));
        assert_eq!(h.beta(), 0.5);
    }

    #[test]
    fn timeout_is_a_congestion_event_with_loss_window() {
        let mut h = htcp_with(unscaled());
        new_timeout(
            &mut h,
            &TimeoutEvent {
                now: at(3000),
                ..timeout(40 * MSS)
            },
        );
        assert_eq!((h.cwnd(), h.ssthresh()), (MSS, 20 * MSS));
        // Δ restarts at the timeout: 1 s later α is still 1.
        assert!((h.increase_per_rtt(at(4000)) - 1.0).abs() < 1e-12);
        h.on_ack(&ack_at(3100, 100));
        assert_eq!(h.cwnd(), 2 * MSS);
    }

    #[test]
    fn timeout_within_a_loss_episode_keeps_ssthresh_and_beta() {
        let mut h = htcp_with(unscaled());
        epoch(&mut h, 0, 1000, 100, 125);
        h.on_congestion_event(&loss_at(2001, 100));
        epoch(&mut h, 2002, 1000, 100, 125);
        h.on_congestion_event(&loss_at(4003, 100));
        assert_eq!(h.ssthresh(), 80 * MSS);
        h.on_retransmission_timeout(&TimeoutEvent {
            now: at(4500),
            ..timeout(60 * MSS)
        });
        assert_eq!((h.cwnd(), h.ssthresh()), (MSS, 80 * MSS));
        assert!((h.beta() - 0.8).abs() < 1e-12);
        // Δ restarted at 4.5 s: at 6.5 s, α(2 s) = 11.25, times 2 (1 - 0.8) = 4.5.
        assert!((h.increase_per_rtt(at(6500)) - 4.5).abs() < 1e-9);
    }

    #[test]
    fn floor_and_no_growth_when_not_allowed() {
        let mut h = htcp_with(unscaled());
        h.on_congestion_event(&loss_at(0, 3));
        assert_eq!(h.ssthresh(), 2 * MSS);
        let mut h = htcp_with(unscaled());
        h.on_congestion_event(&loss_at(0, 100));
        for i in 0..100 {
            h.on_ack(&Ack {
                in_recovery: true,
                ..ack_at(5000 + i, 100)
            });
            h.on_ack(&Ack {
                cwnd_limited: false,
                ..ack_at(5000 + i, 100)
            });
        }
        assert_eq!(h.cwnd(), 50 * MSS);
    }
}
