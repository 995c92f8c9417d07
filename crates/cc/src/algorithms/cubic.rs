//! CUBIC (RFC 9438, "CUBIC for Fast and Long-Distance Networks", 2023; Ha, Rhee, Xu, OSR
//! 42(5), 2008). Linux's tcp_cubic.c differs in details listed in docs/algorithms/cubic.md.
//!
//! Windows are kept in segments (f64) for the equations and cwnd in bytes (f64, reported
//! rounded down): CUBIC's window follows a continuous function of time, so cwnd grows by
//! fractions of a segment rather than in SMSS steps.
//!
//! * §4.2: `W_cubic(t) = C (t - K)^3 + W_max`, `K = cbrt((W_max - cwnd_epoch)/C)`, t the
//!   time since the current congestion-avoidance stage began (minus application-limited
//!   periods, §4.2 and §5.8). Per ACK the target is `W_cubic(t + RTT)` clamped to
//!   `[cwnd, 1.5 cwnd]` (RTT = smoothed RTT).
//! * §4.3 Reno-friendly region: `W_est += α_cubic * segments_acked / cwnd`, starting at
//!   cwnd_epoch, `α_cubic = 3 (1 - β)/(1 + β)` until W_est reaches cwnd_prior, then 1; if
//!   `W_cubic(t) < W_est` cwnd follows W_est.
//! * §4.4-4.5 concave and convex regions: `cwnd += (target - cwnd)/cwnd` per acknowledged
//!   segment.
//! * §4.6 decrease: `ssthresh = max(FlightSize * β, 2)`, `cwnd = ssthresh`, cwnd_prior = cwnd.
//! * §4.7 fast convergence: `W_max = cwnd (1 + β)/2` if cwnd < W_max, else `W_max = cwnd`.
//! * §4.8 timeout and §4.10 slow-start exit without loss: the next stage starts with K = 0
//!   and W_max = the window at its start.

use super::multiplicative_decrease::multiplicative_decrease;
use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::{SlowStart, Window};
use crate::time::SimTime;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("c", 0.4, 0.01, 10.0)
        .unit("segments/s^3")
        .doc("RFC 9438 C: aggressiveness of the cubic function"),
    ParamSpec::number("beta", 0.7, 0.1, 0.95)
        .doc("RFC 9438 beta_cubic: multiplicative decrease factor"),
    ParamSpec::boolean("fast_convergence", true)
        .doc("RFC 9438 §4.7: release bandwidth by lowering W_max when the window shrinks"),
    ParamSpec::boolean("reno_friendly", true)
        .doc("RFC 9438 §4.3: never grow slower than the AIMD estimate W_est"),
    ParamSpec::boolean("linux_no_loss_floor", false).doc(
        "Linux tcp_cubic.c: until the first loss (and after a timeout) grow at least 1/20 segment per acknowledged segment (5 % per RTT)",
    ),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "cubic",
    aliases: &[],
    summary: "CUBIC: W(t) = C(t-K)^3 + W_max, C = 0.4, beta = 0.7, fast convergence, Reno-friendly region",
    reference: "RFC 9438 §4 (obsoletes RFC 8312); Ha, Rhee, Xu, ACM SIGOPS OSR 42(5), 2008",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| {
        Box::new(Cubic::new(
            config,
            CubicParams::from_params(params),
            slow_start,
        ))
    },
};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicParams {
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
    pub reno_friendly: bool,
    /// Linux's floor on growth while no loss has set W_max ([`NO_LOSS_MAX_ACKS_PER_SEGMENT`]).
    pub linux_no_loss_floor: bool,
}

/// Linux `bictcp_update()`: `if (ca->last_max_cwnd == 0 && ca->cnt > 20) ca->cnt = 20;` —
/// while no loss has set W_max (`last_max_cwnd`, zeroed again by `bictcp_reset()` when a
/// timeout enters TCP_CA_Loss), cwnd grows by one segment per at most 20 acknowledged
/// segments. After a slow-start exit without loss (HyStart) RFC 9438 starts the curve at
/// K = 0, which grows by C·t³ only; Linux grows by at least 5 % per RTT.
const NO_LOSS_MAX_ACKS_PER_SEGMENT: f64 = 20.0;

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams::from_params(&Params::defaults(PARAMS))
    }
}

impl CubicParams {
    pub fn from_params(params: &Params) -> Self {
        CubicParams {
            c: params.number("c"),
            beta: params.number("beta"),
            fast_convergence: params.boolean("fast_convergence"),
            reno_friendly: params.boolean("reno_friendly"),
            linux_no_loss_floor: params.boolean("linux_no_loss_floor"),
        }
    }

    /// RFC 9438 §4.3 Figure 5: α_cubic = 3 (1 - β)/(1 + β), so AIMD(α_cubic, β) has Reno's
    /// average throughput.
    pub fn alpha_cubic(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

/// The region (RFC 9438 §4.3-4.5) the last congestion-avoidance ACK was handled in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    RenoFriendly,
    Concave,
    Convex,
}

/// One congestion-avoidance stage (RFC 9438 "epoch"), in segments and seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Epoch {
    /// t_epoch, moved later by application-limited periods (§4.2).
    start: SimTime,
    k: f64,
    w_max: f64,
    w_est: f64,
}

pub struct Cubic {
    mss: u64,
    /// Congestion window in bytes; `cwnd()` reports it rounded down. Written only by
    /// `set_cwnd`, which keeps `cwnd_bytes` in step.
    cwnd: f64,
    /// `cwnd` rounded down, kept at every write: the sender asks for the window several
    /// times per packet, and the float-to-integer conversion cost more than the call.
    cwnd_bytes: u64,
    ssthresh: u64,
    params: CubicParams,
    /// W_max in segments, `None` before the first reduction and after a timeout.
    w_max: Option<f64>,
    /// A loss (not a timeout) set W_max: Linux's `last_max_cwnd != 0`.
    w_max_from_loss: bool,
    /// cwnd_prior in segments: cwnd when ssthresh was last set (§4.3, §4.6).
    cwnd_prior: Option<f64>,
    epoch: Option<Epoch>,
    region: Option<Region>,
    /// Start of the current application-limited period, if one is under way.
    app_limited_since: Option<SimTime>,
    /// The last ACK left nothing in flight: the next transmission ends the idle period.
    idle: bool,
    slow_start: Box<dyn SlowStart>,
}

impl Cubic {
    /// Set the window (bytes) and its rounded-down copy. A finite non-negative f64 casts
    /// exactly after flooring; cwnd is never below 1 SMSS.
    #[inline]
    fn set_cwnd(&mut self, cwnd: f64) {
        self.cwnd = cwnd;
        self.cwnd_bytes = cwnd as u64;
    }

    pub fn new(config: &CcConfig, params: CubicParams, slow_start: Box<dyn SlowStart>) -> Self {
        Cubic {
            mss: config.mss,
            cwnd: config.initial_cwnd as f64,
            cwnd_bytes: (config.initial_cwnd as f64) as u64,
            ssthresh: config.initial_ssthresh,
            params,
            w_max: None,
            w_max_from_loss: false,
            cwnd_prior: None,
            epoch: None,
            region: None,
            app_limited_since: None,
            idle: false,
            slow_start,
        }
    }

    /// W_max in segments (`None` until the first reduction, and after a timeout until the
    /// next congestion-avoidance stage starts).
    pub fn w_max_segments(&self) -> Option<f64> {
        self.w_max
    }

    /// K in seconds of the current congestion-avoidance stage.
    pub fn k_seconds(&self) -> Option<f64> {
        self.epoch.map(|e| e.k)
    }

    /// t_epoch of the current congestion-avoidance stage, after application-limited shifts.
    pub fn epoch_start(&self) -> Option<SimTime> {
        self.epoch.map(|e| e.start)
    }

    /// The Reno-friendly estimate W_est in segments.
    pub fn w_est_segments(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_est)
    }

    /// RFC 9438 Figure 1, in segments, for t seconds into `epoch`.
    fn w_cubic(&self, epoch: &Epoch, t: f64) -> f64 {
        let dt = t - epoch.k;
        self.params.c * dt * dt * dt + epoch.w_max
    }

    fn start_epoch(&mut self, now: SimTime, cwnd_epoch: f64) -> Epoch {
        // §4.8/§4.10: without a W_max from a loss, W_max = the window at the stage's start,
        // which makes K = 0 below.
        let w_max = *self.w_max.get_or_insert(cwnd_epoch);
        self.cwnd_prior.get_or_insert(cwnd_epoch);
        Epoch {
            start: now,
            // §4.2 Figure 2: K = cbrt((W_max - cwnd_epoch)/C); negative if W_max < cwnd_epoch.
            k: libm::cbrt((w_max - cwnd_epoch) / self.params.c),
            w_max,
            // §4.3: W_est starts at cwnd_epoch.
            w_est: cwnd_epoch,
        }
    }

    /// §4.2 and §5.8: t must not include application-limited periods (idle ones included).
    /// Such a period starts at an ACK that was not cwnd-limited or left nothing in flight,
    /// and ends at the next cwnd-limited ACK or, after idleness, at the next transmission;
    /// the epoch start moves later by its length.
    fn track_application_limited(&mut self, ack: &Ack) {
        if self.epoch.is_none() || ack.in_recovery {
            return;
        }
        let nothing_in_flight = ack.bytes_in_flight == 0;
        if !ack.cwnd_limited || nothing_in_flight {
            self.app_limited_since.get_or_insert(ack.now);
            self.idle = nothing_in_flight;
        } else {
            self.end_application_limited(ack.now);
        }
    }

    fn end_application_limited(&mut self, now: SimTime) {
        self.idle = false;
        if let (Some(since), Some(epoch)) = (self.app_limited_since.take(), self.epoch.as_mut()) {
            let paused = now.saturating_since(since);
            epoch.start = (epoch.start + paused).min(now);
        }
    }

    fn forget_epoch(&mut self) {
        self.epoch = None;
        self.region = None;
        self.app_limited_since = None;
        self.idle = false;
    }

    fn congestion_avoidance(&mut self, ack: &Ack) {
        let mss = self.mss as f64;
        let cwnd_seg = self.cwnd / mss;
        let mut epoch = match self.epoch {
            Some(epoch) => epoch,
            None => self.start_epoch(ack.now, cwnd_seg),
        };
        let t = ack.now.saturating_since(epoch.start).as_secs_f64();
        let rtt = ack.srtt.or(ack.rtt).map_or(0.0, |d| d.as_secs_f64());
        // §4.2: target = W_cubic(t + RTT), within [cwnd, 1.5 cwnd].
        let target = self
            .w_cubic(&epoch, t + rtt)
            .clamp(cwnd_seg, 1.5 * cwnd_seg);
        let segments_acked = ack.bytes_acked as f64 / mss;

        let reno_friendly = self.params.reno_friendly && {
            // §4.3 Figure 4; α_cubic becomes 1 once W_est reaches cwnd_prior.
            let cwnd_prior = self.cwnd_prior.unwrap_or(epoch.w_max);
            let alpha = if epoch.w_est >= cwnd_prior {
                1.0
            } else {
                self.params.alpha_cubic()
            };
            epoch.w_est += alpha * segments_acked / cwnd_seg;
            self.w_cubic(&epoch, t) < epoch.w_est
        };
        if reno_friendly {
            // §4.3: cwnd = W_est. (W_est can trail a cwnd that the cubic curve already
            // raised; cwnd is never lowered on an ACK.)
            self.region = Some(Region::RenoFriendly);
            self.set_cwnd(self.cwnd.max(epoch.w_est * mss));
        } else {
            self.region = Some(if cwnd_seg < epoch.w_max {
                Region::Concave
            } else {
                Region::Convex
            });
            // §4.4-4.5: cwnd += (target - cwnd)/cwnd per acknowledged segment.
            self.set_cwnd(self.cwnd + (target - cwnd_seg) / cwnd_seg * ack.bytes_acked as f64);
        }
        if self.params.linux_no_loss_floor && !self.w_max_from_loss {
            let floor = cwnd_seg * mss + ack.bytes_acked as f64 / NO_LOSS_MAX_ACKS_PER_SEGMENT;
            self.set_cwnd(self.cwnd.max(floor));
        }
        self.epoch = Some(epoch);
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        // Before growth, so that a period that ends at this ACK moves t_epoch first.
        self.track_application_limited(ack);
        if !ack.may_grow() {
            return;
        }
        let had_epoch = self.epoch.is_some();
        if self.cwnd() < self.ssthresh {
            let mut window = Window {
                cwnd: self.cwnd(),
                ssthresh: self.ssthresh,
                mss: self.mss,
            };
            self.slow_start.on_ack(&mut window, ack);
            self.set_cwnd(window.cwnd as f64);
            self.ssthresh = window.ssthresh;
            return;
        }
        self.congestion_avoidance(ack);
        // The ACK that starts a stage may itself leave nothing in flight: the idle time after
        // it is not part of t either (§5.8).
        if !had_epoch {
            self.track_application_limited(ack);
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        let cwnd_seg = self.cwnd / self.mss as f64;
        // §4.7 fast convergence.
        self.w_max = Some(match self.w_max {
            Some(w_max) if self.params.fast_convergence && cwnd_seg < w_max => {
                cwnd_seg * (1.0 + self.params.beta) / 2.0
            }
            _ => cwnd_seg,
        });
        self.w_max_from_loss = true;
        // §4.6: ssthresh = flight_size * β_cubic (>= 2 SMSS), cwnd_prior = cwnd,
        // cwnd = ssthresh.
        self.cwnd_prior = Some(cwnd_seg);
        self.ssthresh = multiplicative_decrease(event.bytes_in_flight, self.params.beta, self.mss);
        self.set_cwnd(self.ssthresh as f64);
        self.forget_epoch();
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // §4.8: ssthresh as in §4.6.
        self.cwnd_prior = Some(self.cwnd / self.mss as f64);
        self.ssthresh = multiplicative_decrease(event.bytes_in_flight, self.params.beta, self.mss);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // §4.8: cwnd = the 1-SMSS loss window, and the next congestion-avoidance stage
        // starts with K = 0 and W_max = its initial window.
        self.set_cwnd(self.mss as f64);
        self.w_max = None;
        self.w_max_from_loss = false;
        self.forget_epoch();
        self.slow_start.restart();
    }

    /// Only a send from an empty pipe ends an idle period: `idle` is set only by an ACK that
    /// left nothing in flight, and nothing but a send fills the pipe again (a timeout in
    /// between forgets the epoch and clears `idle`).
    fn observes_sends(&self) -> crate::controller::SendsObserved {
        crate::controller::SendsObserved::FromIdle
    }

    fn on_packet_sent(&mut self, now: SimTime, _bytes: u64, _bytes_in_flight: u64) {
        if self.idle {
            self.end_application_limited(now);
        }
    }

    fn metrics(&self) -> ControllerMetrics {
        let mss = self.mss as f64;
        ControllerMetrics {
            w_max: self.w_max.map(|w| (w * mss) as u64),
            cubic_k_s: self.k_seconds(),
            ..ControllerMetrics::with_slow_start(self.slow_start.as_ref())
        }
    }

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Linux `tcp_reno_undo_cwnd`: the window and threshold come back, nothing else.
        self.set_cwnd(self.cwnd.max(event.prior_cwnd as f64));
        self.ssthresh = self.ssthresh.max(event.prior_ssthresh);
    }

    fn cwnd(&self) -> u64 {
        self.cwnd_bytes
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.set_cwnd(cwnd as f64);
        self.ssthresh = ssthresh;
    }

    fn mode(&self) -> &'static str {
        if self.cwnd() < self.ssthresh {
            return "slow_start";
        }
        match self.region {
            Some(Region::RenoFriendly) => "reno_friendly",
            Some(Region::Concave) => "concave",
            Some(Region::Convex) => "convex",
            None => "congestion_avoidance",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::SlowStartExit;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, loss, timeout};
    use crate::time::SimDuration;

    const MSS: u64 = 1000;
    const C: f64 = 0.4;
    const BETA: f64 = 0.7;

    fn cubic_with(params: CubicParams) -> Cubic {
        let config = CcConfig::new(MSS);
        Cubic::new(&config, params, Box::new(StandardSlowStart::new(&config)))
    }

    fn pure_cubic() -> CubicParams {
        CubicParams {
            reno_friendly: false,
            ..CubicParams::default()
        }
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// A cwnd-limited ACK of `segments` segments at `now_ms` with smoothed RTT `rtt_ms`.
    fn ca_ack(segments: u64, now_ms: u64, rtt_ms: u64) -> Ack {
        let rtt = SimDuration::from_millis(rtt_ms);
        Ack {
            now: at(now_ms),
            rtt: Some(rtt),
            min_rtt: Some(rtt),
            srtt: Some(rtt),
            bytes_in_flight: 50 * MSS,
            ..ack(segments * MSS)
        }
    }

    /// A CUBIC that just had a loss at a window (and FlightSize) of `w` segments.
    fn after_loss(params: CubicParams, w: u64) -> Cubic {
        let mut c = cubic_with(params);
        c.set_cwnd((w * MSS) as f64);
        c.ssthresh = w * MSS;
        c.on_congestion_event(&loss(w * MSS));
        c
    }

    fn segments(c: &Cubic) -> f64 {
        c.cwnd / MSS as f64
    }

    #[test]
    fn loss_sets_beta_window_w_max_and_k() {
        let mut c = after_loss(CubicParams::default(), 100);
        // ssthresh = cwnd = 0.7 * 100 segments; W_max = 100.
        assert_eq!((c.cwnd(), c.ssthresh()), (70 * MSS, 70 * MSS));
        assert_eq!(c.w_max_segments(), Some(100.0));
        c.on_ack(&ca_ack(1, 1000, 100));
        // K = cbrt(W_max (1 - β)/C) = cbrt(100 * 0.3/0.4) = cbrt(75) = 4.2172 s.
        let k = libm::cbrt(100.0 * (1.0 - BETA) / C);
        assert!((c.k_seconds().unwrap() - k).abs() < 1e-12);
        assert!((k - 4.2172).abs() < 1e-4);
        // The metrics view reports the same, W_max in bytes.
        let m = c.metrics();
        assert_eq!(m.w_max, Some(100 * MSS));
        assert!((m.cubic_k_s.unwrap() - k).abs() < 1e-12);
        assert_eq!(m.slow_start_exit, Some(SlowStartExit::SsthreshReached));
    }

    #[test]
    fn window_follows_w_t_from_rfc_9438() {
        // After a loss at 100 segments: cwnd = 70, K = cbrt(75). The first CA ACK (1 segment,
        // t = 0, RTT = 0.1 s) moves cwnd by (W(0.1) - 70)/70 segments; an ACK t seconds later
        // by (clamp(W(t + 0.1), cwnd, 1.5 cwnd) - cwnd)/cwnd, with
        // W(t) = 0.4 (t - K)^3 + 100.
        let k = libm::cbrt(100.0 * (1.0 - BETA) / C);
        let w = |t: f64| C * (t - k) * (t - k) * (t - k) + 100.0;
        for (t_ms, region) in [
            (500, "concave"),
            (2000, "concave"),
            (4117, "concave"), // t + RTT = K: target W(K) = W_max = 100
            (6000, "convex"),
            (10_000, "convex"), // W(10.1) = 181.6 > 1.5 cwnd: target clamped to 1.5 cwnd
        ] {
            let mut c = after_loss(pure_cubic(), 100);
            c.on_ack(&ca_ack(1, 1000, 100));
            let cwnd1 = 70.0 + (w(0.1) - 70.0) / 70.0;
            assert!((segments(&c) - cwnd1).abs() < 1e-9, "first ACK at t = 0");
            // The region is decided by cwnd at the ACK (before it grows) against W_max = 100.
            if t_ms == 6000 {
                // Carry cwnd above W_max first so that the convex label applies.
                c.set_cwnd(101.0 * MSS as f64);
            }
            let before = segments(&c);
            c.on_ack(&ca_ack(1, 1000 + t_ms, 100));
            let t = t_ms as f64 / 1000.0;
            let target = w(t + 0.1).clamp(before, 1.5 * before);
            let expected = before + (target - before) / before;
            assert!(
                (segments(&c) - expected).abs() < 1e-9,
                "t = {t}: cwnd {} expected {expected}",
                segments(&c)
            );
            if t_ms != 10_000 {
                assert_eq!(c.mode(), region, "t = {t}");
            }
        }
        // Spot-check the curve itself: W(0) = W_max - C K^3 = 100 - 30 = 70 and W(K) = 100.
        assert!((w(0.0) - 70.0).abs() < 1e-9 && (w(k) - 100.0).abs() < 1e-12);
    }

    #[test]
    fn cwnd_tracks_w_t_over_many_round_trips() {
        // One ACK per segment, ACKs of a round spread evenly over the 100 ms RTT. Because the
        // per-ACK rule aims at W(t + RTT), cwnd at time t stays close to W(t) itself; compare
        // at whole seconds against the RFC curve with W_max = 100, K = cbrt(75).
        let k = libm::cbrt(100.0 * (1.0 - BETA) / C);
        let w = |t: f64| C * (t - k) * (t - k) * (t - k) + 100.0;
        let mut c = after_loss(pure_cubic(), 100);
        let start_ms = 1000;
        let mut now_ns = start_ms * 1_000_000;
        let rtt_ns = 100_000_000;
        let mut checked = 0;
        for round in 0..80u64 {
            let acks = (c.cwnd() / MSS).max(1);
            for _ in 0..acks {
                c.on_ack(&Ack {
                    now: SimTime::from_nanos(now_ns),
                    ..ca_ack(1, 0, 100)
                });
                now_ns += rtt_ns / acks;
            }
            now_ns = start_ms * 1_000_000 + (round + 1) * rtt_ns;
            if (round + 1) % 10 == 0 {
                let t = (round + 1) as f64 * 0.1;
                let err = segments(&c) - w(t);
                // W changes by 3 C (t - K)^2, up to 17 segments/s at t = 8 s: a quarter-segment
                // band allows about 15 ms (0.15 RTT) of lag or lead, no more.
                assert!(
                    err.abs() < 0.25,
                    "t = {t}: cwnd {} W(t) {}",
                    segments(&c),
                    w(t)
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 8);
    }

    #[test]
    fn fast_convergence_releases_bandwidth() {
        // First loss at 100 segments: W_max = 100, cwnd = 70. Second loss at 80 < 100:
        // W_max = 80 (1 + 0.7)/2 = 68, cwnd = 56, K = cbrt((68 - 56)/0.4) = cbrt(30).
        let mut c = after_loss(CubicParams::default(), 100);
        c.set_cwnd(80.0 * MSS as f64);
        c.on_congestion_event(&loss(80 * MSS));
        assert!((c.w_max_segments().unwrap() - 68.0).abs() < 1e-9);
        assert_eq!(c.cwnd(), 56 * MSS);
        c.on_ack(&ca_ack(1, 1000, 100));
        assert!((c.k_seconds().unwrap() - libm::cbrt(30.0)).abs() < 1e-9);

        // Without fast convergence: W_max = 80, K = cbrt((80 - 56)/0.4) = cbrt(60).
        let params = CubicParams {
            fast_convergence: false,
            ..CubicParams::default()
        };
        let mut c = after_loss(params, 100);
        c.set_cwnd(80.0 * MSS as f64);
        c.on_congestion_event(&loss(80 * MSS));
        assert_eq!(c.w_max_segments(), Some(80.0));
        c.on_ack(&ca_ack(1, 1000, 100));
        assert!((c.k_seconds().unwrap() - libm::cbrt(60.0)).abs() < 1e-9);
    }

    #[test]
    fn reno_friendly_region_rules_small_windows_at_short_rtt() {
        // Loss at 10 segments: cwnd 7, K = cbrt(7.5) = 1.957 s. RTT 1 ms: one round of
        // 7 one-segment ACKs within 1 ms. W_cubic(0.001) = 0.4 (0.001 - 1.957)^3 + 10 = 7.003,
        // while W_est gains α_cubic = 3 * 0.3/1.7 = 0.529 per RTT.
        let alpha = 3.0 * (1.0 - BETA) / (1.0 + BETA);
        let mut c = after_loss(CubicParams::default(), 10);
        let mut w_est: f64 = 7.0;
        for i in 0..7 {
            c.on_ack(&ca_ack(1, 1000, 1));
            // RFC 9438 Figure 4, cwnd = W_est in this region.
            w_est += alpha * 1.0 / w_est.max(7.0);
            assert!(
                (c.w_est_segments().unwrap() - w_est).abs() < 1e-9,
                "ACK {i}"
            );
        }
        assert_eq!(c.mode(), "reno_friendly");
        assert!((segments(&c) - w_est).abs() < 1e-9);
        // One RTT brought W_est (and cwnd) close to 7 + α: between 7 + α*7/7.53 and 7 + α.
        assert!(segments(&c) > 7.0 + alpha * 7.0 / 7.53 && segments(&c) < 7.0 + alpha);

        // Once W_est reaches cwnd_prior = 10, α becomes 1: a round of w ACKs adds one segment.
        let mut now = 1001;
        while c.w_est_segments().unwrap() < 10.0 {
            c.on_ack(&ca_ack(1, now, 1));
            now += 1;
        }
        let before = segments(&c);
        let w = c.cwnd() / MSS;
        for _ in 0..w {
            c.on_ack(&ca_ack(1, now, 1));
        }
        // Sum of 1/cwnd over w ACKs with cwnd in [before, before + 1]: about one segment
        // (w/before), where α_cubic would give about half of one.
        let gained = segments(&c) - before;
        let w = w as f64;
        assert!(
            gained > w / (before + 1.0) && gained <= w / before + 1e-12,
            "{gained}"
        );
        assert!(w / (before + 1.0) > 0.85);
    }

    #[test]
    fn cubic_region_rules_large_windows_at_long_rtt() {
        // Loss at 1000 segments, RTT 100 ms: after 1 s (10 RTTs) W_cubic(1) =
        // 0.4 (1 - cbrt(750))^3 + 1000 = 788.6, far above W_est <= 700 + 10 * 0.53.
        let mut c = after_loss(CubicParams::default(), 1000);
        c.on_ack(&ca_ack(1, 1000, 100));
        c.on_ack(&ca_ack(1, 2000, 100));
        assert_eq!(c.mode(), "concave");
        assert!(c.w_est_segments().unwrap() < 700.1);
    }

    #[test]
    fn delayed_acks_count_segments() {
        // One ACK of 2 segments moves cwnd by 2 (target - cwnd)/cwnd.
        let k = libm::cbrt(75.0);
        let w = |t: f64| C * (t - k) * (t - k) * (t - k) + 100.0;
        let mut c = after_loss(pure_cubic(), 100);
        c.on_ack(&ca_ack(2, 1000, 100));
        let expected = 70.0 + 2.0 * (w(0.1) - 70.0) / 70.0;
        assert!((segments(&c) - expected).abs() < 1e-9);
    }

    #[test]
    fn timeout_then_epoch_with_k_zero() {
        let mut c = after_loss(CubicParams::default(), 100);
        new_timeout(&mut c, &timeout(70 * MSS));
        // ssthresh = 0.7 * 70 = 49 segments; cwnd = 1 SMSS; W_max forgotten.
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 49 * MSS));
        assert_eq!(c.w_max_segments(), None);
        // Slow start up to ssthresh, then the first CA ACK: W_max = 49, K = 0.
        let mut now = 2000;
        while c.cwnd() < c.ssthresh() {
            c.on_ack(&ca_ack(1, now, 100));
            now += 1;
        }
        c.on_ack(&ca_ack(1, now, 100));
        assert_eq!(c.w_max_segments(), Some(49.0));
        assert_eq!(c.k_seconds(), Some(0.0));
    }

    #[test]
    fn timeout_within_a_loss_episode_keeps_ssthresh() {
        let mut c = after_loss(CubicParams::default(), 100);
        c.on_retransmission_timeout(&timeout(60 * MSS));
        assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 70 * MSS));
        // cwnd_prior stays the pre-loss window (100): W_est uses α_cubic until it gets there.
        assert_eq!(c.cwnd_prior, Some(100.0));
        assert_eq!(c.w_max_segments(), None);
    }

    /// Linux's floor: after a slow-start exit at 100 segments without loss (K = 0), 100
    /// one-segment ACKs within 10 ms at a 100 ms RTT add C·(0.11 s)³ ≈ 0.0005 segments by
    /// the curve. RFC 9438's Reno-friendly W_est (α = 1: W_est starts at cwnd_prior = W_max)
    /// adds 1/cwnd per ACK and cwnd follows it: dW/dn = 1/W, W = √(100² + 2·100) ≈ 100.995.
    /// With the floor of 1/20 segment per ACK, cwnd stays above W_est: +100/20 = 5 segments
    /// exactly (Linux cnt = 20: one segment per 20 ACKs). After a loss the floor is gone;
    /// after a timeout it is back.
    #[test]
    fn linux_no_loss_floor_grows_five_percent_per_rtt_until_a_loss() {
        let params = CubicParams {
            linux_no_loss_floor: true,
            ..CubicParams::default()
        };
        let exit_at = |params: CubicParams| {
            let mut c = cubic_with(params);
            c.set_cwnd((100 * MSS) as f64);
            c.ssthresh = 100 * MSS;
            c
        };
        let mut linux = exit_at(params);
        let mut rfc = exit_at(CubicParams::default());
        for i in 0..100 {
            linux.on_ack(&ca_ack(1, 1000 + i / 10, 100));
            rfc.on_ack(&ca_ack(1, 1000 + i / 10, 100));
        }
        assert!(
            (segments(&linux) - 105.0).abs() < 1e-9,
            "{}",
            segments(&linux)
        );
        assert!(
            (segments(&rfc) - 10_200f64.sqrt()).abs() < 1e-3,
            "{}",
            segments(&rfc)
        );

        // A loss at 105 segments: W_max = 105, cwnd = 73.5; the next stage grows by the RFC
        // curve alone, as the RFC variant does from the same state.
        let mut after = after_loss(params, 105);
        let mut reference = after_loss(CubicParams::default(), 105);
        for c in [&mut after, &mut reference] {
            for i in 0..50 {
                c.on_ack(&ca_ack(1, 2000 + i, 100));
            }
        }
        assert_eq!(after.cwnd, reference.cwnd);

        // A timeout: W_max is forgotten (Linux `bictcp_reset`), and the floor applies again
        // in the next congestion avoidance.
        after.on_timeout_congestion_event(&timeout(50 * MSS));
        after.on_retransmission_timeout(&timeout(50 * MSS));
        after.set_cwnd((40 * MSS) as f64);
        after.ssthresh = 40 * MSS;
        after.on_ack(&ca_ack(1, 3000, 100));
        assert!(
            (segments(&after) - 40.05).abs() < 1e-9,
            "{}",
            segments(&after)
        );
    }

    #[test]
    fn slow_start_exit_without_loss_starts_with_k_zero() {
        let config = CcConfig {
            initial_ssthresh: 20 * MSS,
            ..CcConfig::new(MSS)
        };
        let mut c = Cubic::new(
            &config,
            CubicParams::default(),
            Box::new(StandardSlowStart::new(&config)),
        );
        for i in 0..10 {
            c.on_ack(&ca_ack(1, 10 + i, 100));
        }
        assert_eq!(c.cwnd(), 20 * MSS);
        c.on_ack(&ca_ack(1, 100, 100));
        assert_eq!((c.w_max_segments(), c.k_seconds()), (Some(20.0), Some(0.0)));
    }

    #[test]
    fn application_limited_time_is_not_counted_in_t() {
        let mut c = after_loss(CubicParams::default(), 100);
        c.on_ack(&ca_ack(1, 1000, 100));
        assert_eq!(c.epoch_start(), Some(at(1000)));
        // Not cwnd-limited from 2 s until a cwnd-limited ACK at 4 s: t_epoch moves 2 s later.
        c.on_ack(&Ack {
            cwnd_limited: false,
            ..ca_ack(1, 2000, 100)
        });
        c.on_ack(&Ack {
            cwnd_limited: false,
            ..ca_ack(1, 3000, 100)
        });
        assert_eq!(c.epoch_start(), Some(at(1000)));
        c.on_ack(&ca_ack(1, 4000, 100));
        assert_eq!(c.epoch_start(), Some(at(3000)));
        // Idle: an ACK leaves nothing in flight at 5 s, the next send is at 9 s.
        c.on_ack(&Ack {
            bytes_in_flight: 0,
            ..ca_ack(1, 5000, 100)
        });
        c.on_packet_sent(at(9000), MSS, MSS);
        assert_eq!(c.epoch_start(), Some(at(7000)));
    }

    #[test]
    fn idle_right_after_the_ack_that_starts_a_stage_is_not_counted_in_t() {
        // The first CA ACK after a loss starts the stage at 1 s and leaves nothing in flight;
        // the next send is at 4 s, so t_epoch moves 3 s later (RFC 9438 §5.8).
        let mut c = after_loss(CubicParams::default(), 100);
        c.on_ack(&Ack {
            bytes_in_flight: 0,
            ..ca_ack(1, 1000, 100)
        });
        assert_eq!(c.epoch_start(), Some(at(1000)));
        c.on_packet_sent(at(4000), MSS, MSS);
        assert_eq!(c.epoch_start(), Some(at(4000)));
    }

    #[test]
    fn a_loss_ends_the_stage_and_the_next_starts_with_its_own_k() {
        // A stage runs from 1 s (K = cbrt(75) after a loss at 100). A second loss at 80 < 100
        // (fast convergence: W_max = 80 (1 + 0.7)/2 = 68, cwnd = 56) ends it (RFC 9438 §4.2:
        // t_epoch is the start of the current congestion-avoidance stage); the next CA ACK at
        // 5 s starts a new one with K = cbrt((68 - 56)/0.4) = cbrt(30).
        let mut c = after_loss(CubicParams::default(), 100);
        c.on_ack(&ca_ack(1, 1000, 100));
        assert_eq!(c.epoch_start(), Some(at(1000)));
        c.set_cwnd(80.0 * MSS as f64);
        c.on_congestion_event(&loss(80 * MSS));
        assert_eq!((c.epoch_start(), c.k_seconds()), (None, None));
        assert_eq!(c.mode(), "congestion_avoidance");
        c.on_ack(&ca_ack(1, 5000, 100));
        assert_eq!(c.epoch_start(), Some(at(5000)));
        assert!((c.k_seconds().unwrap() - libm::cbrt(30.0)).abs() < 1e-9);
        // W_est restarts from cwnd_epoch = 56: one ACK of one segment adds α_cubic/56
        // (α_cubic = 1 only once W_est reaches cwnd_prior = 80).
        let alpha = 3.0 * (1.0 - BETA) / (1.0 + BETA);
        assert!((c.w_est_segments().unwrap() - (56.0 + alpha / 56.0)).abs() < 1e-9);
        // A timeout ends the stage as well.
        c.on_retransmission_timeout(&timeout(56 * MSS));
        assert_eq!((c.epoch_start(), c.k_seconds()), (None, None));
    }

    #[test]
    fn w_est_counts_the_segments_an_ack_covers() {
        // RFC 9438 Figure 4: W_est += α_cubic · segments_acked / cwnd. After a loss at 10:
        // cwnd = W_est = 7; one delayed ACK of 2 segments adds 2 α_cubic / 7.
        let alpha = 3.0 * (1.0 - BETA) / (1.0 + BETA);
        let mut c = after_loss(CubicParams::default(), 10);
        c.on_ack(&ca_ack(2, 1000, 1));
        let expected = 7.0 + alpha * 2.0 / 7.0;
        assert!((c.w_est_segments().unwrap() - expected).abs() < 1e-12);
    }

    #[test]
    fn cwnd_equal_to_w_max_is_the_convex_region() {
        // RFC 9438 §4.4-4.5: concave while cwnd < W_max, convex when cwnd >= W_max. Leaving
        // slow start without a loss (initial ssthresh = initial window = 10 segments), the
        // first CA ACK sets W_max = cwnd = 10: convex.
        let config = CcConfig {
            initial_ssthresh: 10 * MSS,
            ..CcConfig::new(MSS)
        };
        let mut c = Cubic::new(
            &config,
            pure_cubic(),
            Box::new(StandardSlowStart::new(&config)),
        );
        assert_eq!(c.mode(), "congestion_avoidance");
        c.on_ack(&ca_ack(1, 100, 100));
        assert_eq!(c.w_max_segments(), Some(10.0));
        assert_eq!(c.mode(), "convex");
    }

    #[test]
    fn fast_convergence_only_below_the_previous_w_max() {
        // RFC 9438 §4.7: W_max shrinks to cwnd (1 + β)/2 only if cwnd < W_max. A second
        // loss at exactly the previous W_max (100) keeps W_max = 100.
        let mut c = after_loss(CubicParams::default(), 100);
        c.set_cwnd(100.0 * MSS as f64);
        c.on_congestion_event(&loss(100 * MSS));
        assert_eq!(c.w_max_segments(), Some(100.0));
    }

    #[test]
    fn timeout_remembers_the_window_as_cwnd_prior() {
        // cwnd_prior is cwnd when ssthresh is set (RFC 9438 §4.6, §4.8): a timeout that is a
        // new congestion event at cwnd = 70 segments (after a loss at 100) sets ssthresh = 0.7 · 70 = 49 and
        // cwnd_prior = 70.
        let mut c = after_loss(CubicParams::default(), 100);
        new_timeout(&mut c, &timeout(70 * MSS));
        assert_eq!(c.ssthresh(), 49 * MSS);
        assert_eq!(c.cwnd_prior, Some(70.0));
    }

    #[test]
    fn mode_says_slow_start_only_below_ssthresh() {
        // on_ack slow-starts while cwnd < ssthresh; at cwnd = ssthresh (right after a loss)
        // the next ACK is congestion avoidance, and the label says so.
        let c = cubic_with(CubicParams::default());
        assert_eq!(c.mode(), "slow_start");
        let c = after_loss(CubicParams::default(), 100);
        assert_eq!(c.cwnd(), c.ssthresh());
        assert_eq!(c.mode(), "congestion_avoidance");
    }

    #[test]
    fn floor_and_no_growth_when_not_allowed() {
        let c = after_loss(CubicParams::default(), 2);
        assert_eq!(c.ssthresh(), 2 * MSS);
        let mut c = after_loss(CubicParams::default(), 100);
        for i in 0..50 {
            c.on_ack(&Ack {
                in_recovery: true,
                ..ca_ack(1, 1000 + i, 100)
            });
            c.on_ack(&Ack {
                cwnd_limited: false,
                ..ca_ack(1, 1000 + i, 100)
            });
        }
        assert_eq!(c.cwnd(), 70 * MSS);
    }
}
