//! LEDBAT++: draft-irtf-iccrg-ledbat-plus-plus (Balasubramanian, Ertugay, Havey, Bagnulo;
//! -06, January 2026), the LEDBAT that Windows ships, built on RFC 6817's delay estimate
//! (`ledbat_delay.rs`) with round-trip delays and five changes that fix LEDBAT's latency
//! drift, latecomer advantage and inter-LEDBAT unfairness:
//!
//! - **Target** 60 ms instead of 100 ms.
//! - **Reduced, dynamic gain**: `GAIN = 1 / min(16, ceil(2·TARGET/base_delay))`, so the window
//!   grows by at most one segment per RTT and more slowly on short paths.
//! - **Modified slow start**: the window grows by `GAIN · bytes_acked`, and the initial slow
//!   start ends when the queueing delay exceeds 3/4 of TARGET (or on loss).
//! - **Multiplicative decrease**: per RTT, `W += GAIN` while the queueing delay is at most
//!   TARGET, else `W += max(GAIN − C·W·(queuing_delay/TARGET − 1), −W/2)` with C = 1: the
//!   further above target, the larger the cut, never more than half a window per RTT.
//! - **Periodic slowdowns**: 2 RTTs after the initial slow start ends, the window drops to
//!   2 segments for 2 RTTs (ssthresh keeps the window it had), so that the queue drains and
//!   every LEDBAT++ flow sees the true base delay; then slow start takes it back to ssthresh.
//!   The next slowdown comes 9 times the slowdown's duration later (at most 10 % of the time
//!   spent slowed down).
//!
//! The per-RTT laws are applied per ACK in proportion to the bytes it acknowledges, as
//! RFC 6817 does. Loss halves the window (RFC 6817 §2.4.2); a timeout is RFC 5681's.
//! Sources read for the rules: the draft's text as quoted by implementations, and Apple's
//! production LEDBAT++ (XNU `tcp_ledbat.c`, `ledbat_pp_ack_rcvd`): see
//! docs/algorithms/ledbat-plus-plus.md for where they differ and what we chose.

use crate::algorithms::ledbat_delay::{DelayEstimate, MAX_BASE_HISTORY, MAX_CURRENT_FILTER};
use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, UNLIMITED,
    half_flight_ssthresh,
};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::time::{SimDuration, SimTime};

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("target", 60.0, 1.0, 100.0)
        .unit("ms")
        .doc("TARGET queueing delay (LEDBAT++: 60 ms)"),
    ParamSpec::number("gain_cap", 16.0, 1.0, 64.0)
        .doc("largest divisor of the dynamic GAIN = 1/min(gain_cap, ceil(2 TARGET/base)) (16)"),
    ParamSpec::number("decrease", 1.0, 0.0, 10.0)
        .doc("constant C of the multiplicative decrease GAIN - C W (delay/TARGET - 1) (1)"),
    ParamSpec::number("slowdown_interval", 9.0, 1.0, 100.0)
        .doc("the next slowdown comes this many slowdown durations after one ends (9)"),
    ParamSpec::number("base_history", 10.0, 2.0, 60.0)
        .unit("minutes")
        .doc("minutes of per-minute delay minima kept for the base delay (RFC 6817: 10)"),
    ParamSpec::number("current_filter", 4.0, 1.0, 64.0)
        .unit("samples")
        .doc("the current delay is the minimum of this many last samples (RFC 6817: 4)"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "ledbat++",
    aliases: &["ledbat-plus-plus"],
    summary: "LEDBAT++ scavenger: 60 ms target, dynamic GAIN, slow start to 3/4 target, multiplicative decrease, periodic slowdowns",
    reference: "draft-irtf-iccrg-ledbat-plus-plus-06 (Windows' LEDBAT); RFC 6817 delay estimate",
    params: PARAMS,
    uses_slow_start: false,
    initial_ssthresh: InitialSsthreshUse::None,
    build: |config, params, _slow_start| {
        Box::new(LedbatPlusPlus::new(
            config,
            LedbatPlusPlusParams::from_params(params),
        ))
    },
};

/// RFC 6817 §2.4.2 MIN_CWND, and the window of a slowdown: 2 segments.
const MIN_CWND_SEGMENTS: u64 = 2;
/// A slowdown lasts this many RTTs at the minimum window.
const SLOWDOWN_RTTS: u64 = 2;
/// The first slowdown comes this many RTTs after the initial slow start ends.
const FIRST_SLOWDOWN_RTTS: u64 = 2;
/// Slow start ends when the queueing delay exceeds this fraction of TARGET.
const SLOW_START_EXIT_FRACTION: f64 = 0.75;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LedbatPlusPlusParams {
    pub target: SimDuration,
    pub gain_cap: f64,
    pub decrease: f64,
    pub slowdown_interval: f64,
    pub base_history: usize,
    pub current_filter: usize,
}

impl Default for LedbatPlusPlusParams {
    fn default() -> Self {
        LedbatPlusPlusParams::from_params(&Params::defaults(PARAMS))
    }
}

impl LedbatPlusPlusParams {
    pub fn from_params(params: &Params) -> Self {
        LedbatPlusPlusParams {
            target: SimDuration::from_secs_f64(params.number("target") / 1000.0),
            gain_cap: params.number("gain_cap"),
            decrease: params.number("decrease"),
            slowdown_interval: params.number("slowdown_interval"),
            base_history: (params.number("base_history").round() as usize)
                .clamp(2, MAX_BASE_HISTORY),
            current_filter: (params.number("current_filter").round() as usize)
                .clamp(1, MAX_CURRENT_FILTER),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// The initial slow start: `GAIN · bytes_acked` per ACK until the queueing delay
    /// exceeds 3/4 TARGET or a loss.
    InitialSlowStart,
    /// The per-RTT law; a slowdown is due at `next_slowdown`.
    CongestionAvoidance,
    /// At the minimum window from `began` until `until`.
    Slowdown { began: SimTime, until: SimTime },
    /// Slow start back to ssthresh after the slowdown that began at `began`.
    Regrowing { began: SimTime },
}

pub struct LedbatPlusPlus {
    mss: u64,
    params: LedbatPlusPlusParams,
    /// cwnd in fractional bytes: GAIN·MSS·bytes_acked/cwnd is often below a byte.
    cwnd: f64,
    ssthresh: u64,
    delays: DelayEstimate,
    phase: Phase,
    /// When the next slowdown starts (in congestion avoidance).
    next_slowdown: Option<SimTime>,
    /// The sender's smoothed RTT, which times slowdowns.
    srtt: Option<SimDuration>,
}

impl LedbatPlusPlus {
    pub fn new(config: &CcConfig, params: LedbatPlusPlusParams) -> Self {
        LedbatPlusPlus {
            mss: config.mss,
            params,
            cwnd: config.initial_cwnd as f64,
            ssthresh: UNLIMITED,
            delays: DelayEstimate::new(params.base_history, params.current_filter),
            phase: Phase::InitialSlowStart,
            next_slowdown: None,
            srtt: None,
        }
    }

    fn min_cwnd(&self) -> f64 {
        (MIN_CWND_SEGMENTS * self.mss) as f64
    }

    /// `GAIN = 1 / min(gain_cap, ceil(2·TARGET/base_delay))`; 1 before a base delay is known.
    pub fn gain(&self) -> f64 {
        let Some(base) = self.delays.base().filter(|b| !b.is_zero()) else {
            return 1.0;
        };
        let ratio = (2.0 * self.params.target.as_secs_f64() / base.as_secs_f64()).ceil();
        1.0 / ratio.clamp(1.0, self.params.gain_cap)
    }

    /// `count` smoothed RTTs (or, before a sample, the base delay; else TARGET).
    fn rtts(&self, count: u64) -> SimDuration {
        let rtt = self
            .srtt
            .or(self.delays.base())
            .unwrap_or(self.params.target);
        rtt * count
    }

    /// The per-RTT change of the window in segments at queueing delay `queuing` (s):
    /// `+GAIN` at or below TARGET, else `max(GAIN − C·W·(queuing/TARGET − 1), −W/2)`.
    fn per_rtt_change(&self, queuing: f64) -> f64 {
        let gain = self.gain();
        let target = self.params.target.as_secs_f64();
        if queuing <= target {
            return gain;
        }
        let segments = self.cwnd / self.mss as f64;
        (gain - self.params.decrease * segments * (queuing / target - 1.0)).max(-segments / 2.0)
    }

    fn end_initial_slow_start(&mut self, now: SimTime) {
        self.phase = Phase::CongestionAvoidance;
        self.next_slowdown = Some(now + self.rtts(FIRST_SLOWDOWN_RTTS));
    }

    fn start_slowdown(&mut self, now: SimTime) {
        self.ssthresh = self.cwnd as u64;
        self.cwnd = self.min_cwnd();
        self.phase = Phase::Slowdown {
            began: now,
            until: now + self.rtts(SLOWDOWN_RTTS),
        };
        self.next_slowdown = None;
    }

    /// Slow start after a slowdown is over: the next slowdown comes `slowdown_interval`
    /// times the whole slowdown's duration (minimum window and regrowth) later.
    fn end_regrowth(&mut self, now: SimTime, began: SimTime) {
        let duration = now.saturating_since(began);
        self.phase = Phase::CongestionAvoidance;
        self.next_slowdown = Some(
            now + SimDuration::from_secs_f64(
                duration.as_secs_f64() * self.params.slowdown_interval,
            ),
        );
    }
}

impl CongestionControl for LedbatPlusPlus {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        if let Some(srtt) = ack.srtt {
            self.srtt = Some(srtt);
        }
        if let Some(delay) = ack.rtt {
            self.delays.on_sample(ack.now, delay);
        }
        // Loss recovery sets the window (the halving); the update resumes after it.
        if ack.in_recovery {
            return;
        }
        let Some(queuing) = self.delays.queuing_delay_s() else {
            return;
        };
        let target = self.params.target.as_secs_f64();
        let acked = ack.bytes_acked as f64;
        if let Phase::Slowdown { began, until } = self.phase {
            if ack.now < until {
                self.cwnd = self.min_cwnd();
                return;
            }
            self.phase = Phase::Regrowing { began };
        }
        match self.phase {
            Phase::InitialSlowStart => {
                if queuing > SLOW_START_EXIT_FRACTION * target {
                    self.end_initial_slow_start(ack.now);
                } else {
                    self.cwnd += self.gain() * acked;
                    return;
                }
            }
            Phase::Regrowing { began } => {
                if (self.cwnd as u64) < self.ssthresh && queuing <= target {
                    self.cwnd = (self.cwnd + self.gain() * acked).min(self.ssthresh as f64);
                    if (self.cwnd as u64) >= self.ssthresh {
                        self.end_regrowth(ack.now, began);
                    }
                    return;
                }
                self.end_regrowth(ack.now, began);
            }
            Phase::Slowdown { .. } | Phase::CongestionAvoidance => {}
        }
        if self.phase == Phase::CongestionAvoidance
            && self.next_slowdown.is_some_and(|at| ack.now >= at)
        {
            self.start_slowdown(ack.now);
            return;
        }
        // The per-RTT change, spread over the window's worth of ACKs.
        let mss = self.mss as f64;
        let change = self.per_rtt_change(queuing) * mss * acked / self.cwnd;
        self.cwnd = (self.cwnd + change).max(self.min_cwnd());
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        // RFC 6817 §2.4.2: cwnd = min(cwnd, max(cwnd/2, MIN_CWND · MSS)); ssthresh follows
        // so that the sender's recovery (PRR) steers the flight down to it.
        self.cwnd = self.cwnd.min((self.cwnd / 2.0).max(self.min_cwnd()));
        self.ssthresh = self.cwnd as u64;
        match self.phase {
            Phase::InitialSlowStart => self.end_initial_slow_start(event.now),
            Phase::Regrowing { began } => self.end_regrowth(event.now, began),
            Phase::Slowdown { .. } | Phase::CongestionAvoidance => {}
        }
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        self.ssthresh = half_flight_ssthresh(event.bytes_in_flight, self.mss);
    }

    fn on_retransmission_timeout(&mut self, event: &TimeoutEvent) {
        // RFC 5681 §3.1's one-segment loss window, regrown by the modified slow start up to
        // ssthresh (as Apple's LEDBAT++ does after a timeout); slowdowns resume after it.
        self.cwnd = self.mss as f64;
        self.phase = Phase::Regrowing { began: event.now };
        self.next_slowdown = None;
    }

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Linux `tcp_reno_undo_cwnd` (Apple's LEDBAT++ has no undo): the window and
        // threshold come back; the phase stays (a regrowth ends once cwnd reaches ssthresh).
        self.cwnd = self.cwnd.max(event.prior_cwnd as f64);
        self.ssthresh = self.ssthresh.max(event.prior_ssthresh);
    }

    fn cwnd(&self) -> u64 {
        (self.cwnd as u64).max(self.mss)
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd as f64;
        self.ssthresh = ssthresh;
    }

    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics {
            min_rtt: self.delays.base(),
            ..Default::default()
        }
    }

    fn mode(&self) -> &'static str {
        match self.phase {
            Phase::InitialSlowStart | Phase::Regrowing { .. } => "slow_start",
            Phase::CongestionAvoidance => "congestion_avoidance",
            Phase::Slowdown { .. } => "slowdown",
        }
    }
}

#[cfg(test)]
mod tests;
