//! LEDBAT, Low Extra Delay Background Transport: RFC 6817 (Shalunov, Hazel, Iyengar,
//! Kühlewind, 2012), the scavenger that keeps at most TARGET of queueing delay of its own and
//! yields to standard TCP, which fills queues beyond it.
//!
//! - §2.4.2 on every ACK: `queuing_delay = FILTER(current_delays) − MIN(base_delays)`,
//!   `off_target = (TARGET − queuing_delay)/TARGET` and
//!   `cwnd += GAIN · off_target · bytes_newly_acked · MSS / cwnd`, capped at
//!   `flightsize + ALLOWED_INCREASE · MSS` and floored at `MIN_CWND · MSS`.
//! - §2.4.2 base delay: the minimum of each minute, kept for the last BASE_HISTORY minutes
//!   (a route change then ages out); current delay: a MIN filter over the last
//!   CURRENT_FILTER samples (§3.4.2 suggests a small MIN filter against noise).
//! - §2.4.2 loss: `cwnd = min(cwnd, max(cwnd/2, MIN_CWND · MSS))`, at most once per RTT
//!   (the sender raises one congestion event per recovery episode).
//!
//! Delay: RFC 6817 measures one-way delay from timestamps; the simulated sender has the RTT
//! of each ACK. On a path whose ACK direction does not queue, the RTT is the one-way delay
//! plus a constant, which the base delay subtracts; so `queuing_delay` is the same. (LEDBAT++,
//! draft-irtf-iccrg-ledbat-plus-plus §3, moved to round-trip delays for deployability too.)

use crate::algorithms::ledbat_delay::{DelayEstimate, MAX_BASE_HISTORY, MAX_CURRENT_FILTER};
use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, UNLIMITED,
    half_flight_ssthresh,
};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::time::SimDuration;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("target", 100.0, 1.0, 100.0)
        .unit("ms")
        .doc("TARGET queueing delay (RFC 6817 §3.2: 100 ms, and it MUST NOT be above 100 ms)"),
    ParamSpec::number("gain", 1.0, 0.001, 1.0)
        .doc("GAIN of the per-ACK update (RFC 6817 §2.4.2: 1, and it MUST NOT exceed 1)"),
    ParamSpec::number("base_history", 10.0, 2.0, 60.0)
        .unit("minutes")
        .doc("BASE_HISTORY: minutes of per-minute delay minima kept (RFC 6817 §2.4.2: 10)"),
    ParamSpec::number("current_filter", 4.0, 1.0, 64.0)
        .unit("samples")
        .doc("CURRENT_FILTER: the current delay is the minimum of this many last samples (§3.4.2)"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "ledbat",
    aliases: &[],
    summary: "scavenger: cwnd += GAIN (TARGET - queuing_delay)/TARGET per cwnd of ACKs, queuing delay over a 10-minute base; yields to TCP",
    reference: "RFC 6817 §2.4 (LEDBAT); delays from RTTs as draft-irtf-iccrg-ledbat-plus-plus §3",
    params: PARAMS,
    uses_slow_start: false,
    initial_ssthresh: InitialSsthreshUse::None,
    build: |config, params, _slow_start| {
        Box::new(Ledbat::new(config, LedbatParams::from_params(params)))
    },
};

/// RFC 6817 §2.4.2: MIN_CWND SHOULD be 2 (segments).
const MIN_CWND_SEGMENTS: u64 = 2;
/// RFC 6817 §2.4.2: ALLOWED_INCREASE SHOULD be 1 (segment).
const ALLOWED_INCREASE_SEGMENTS: u64 = 1;
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LedbatParams {
    pub target: SimDuration,
    pub gain: f64,
    pub base_history: usize,
    pub current_filter: usize,
}

impl Default for LedbatParams {
    fn default() -> Self {
        LedbatParams::from_params(&Params::defaults(PARAMS))
    }
}

impl LedbatParams {
    pub fn from_params(params: &Params) -> Self {
        LedbatParams {
            target: SimDuration::from_secs_f64(params.number("target") / 1000.0),
            gain: params.number("gain"),
            base_history: (params.number("base_history").round() as usize)
                .clamp(2, MAX_BASE_HISTORY),
            current_filter: (params.number("current_filter").round() as usize)
                .clamp(1, MAX_CURRENT_FILTER),
        }
    }
}

pub struct Ledbat {
    mss: u64,
    params: LedbatParams,
    /// cwnd in fractional bytes: GAIN · off_target · MSS²/cwnd is often below a byte.
    cwnd: f64,
    ssthresh: u64,
    /// RFC 6817 §2.4.2 base and current delays.
    delays: DelayEstimate,
    /// queuing_delay of the last ACK (signed: a sample below the filter's base gives < 0).
    queuing_delay_s: Option<f64>,
}

impl Ledbat {
    pub fn new(config: &CcConfig, params: LedbatParams) -> Self {
        Ledbat {
            mss: config.mss,
            params,
            cwnd: config.initial_cwnd as f64,
            ssthresh: UNLIMITED,
            delays: DelayEstimate::new(params.base_history, params.current_filter),
            queuing_delay_s: None,
        }
    }

    /// The queueing delay estimate of the last ACK, seconds.
    pub fn queuing_delay_s(&self) -> Option<f64> {
        self.queuing_delay_s
    }

    fn min_cwnd(&self) -> f64 {
        (MIN_CWND_SEGMENTS * self.mss) as f64
    }
}

impl CongestionControl for Ledbat {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        let Some(delay) = ack.rtt else {
            return;
        };
        self.delays.on_sample(ack.now, delay);
        let Some(queuing_delay) = self.delays.queuing_delay_s() else {
            return;
        };
        self.queuing_delay_s = Some(queuing_delay);
        // Loss recovery sets the window (the halving); LEDBAT's update resumes after it.
        if ack.in_recovery {
            return;
        }
        let target = self.params.target.as_secs_f64();
        let off_target = (target - queuing_delay) / target;
        let mss = self.mss as f64;
        self.cwnd += self.params.gain * off_target * ack.bytes_acked as f64 * mss / self.cwnd;
        // Never more than one segment beyond what was in flight: the application- or
        // receiver-limited sender does not inflate its window (§2.4.2).
        let max_allowed = (ack.prior_in_flight + ALLOWED_INCREASE_SEGMENTS * self.mss) as f64;
        self.cwnd = self.cwnd.min(max_allowed).max(self.min_cwnd());
    }

    fn on_congestion_event(&mut self, _event: &CongestionEvent) {
        // §2.4.2: cwnd = min(cwnd, max(cwnd/2, MIN_CWND · MSS)); ssthresh follows so that
        // the sender's recovery (PRR) steers the flight down to it.
        self.cwnd = self.cwnd.min((self.cwnd / 2.0).max(self.min_cwnd()));
        self.ssthresh = self.cwnd as u64;
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // RFC 6817 §2.4.2 asks LEDBAT to respond to loss at least as TCP does: RFC 5681.
        self.ssthresh = half_flight_ssthresh(event.bytes_in_flight, self.mss);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // RFC 5681 §3.1's one-segment loss window; the per-ACK update regrows it (it only
        // grows toward at most one segment beyond the flight, so no slow-start burst).
        self.cwnd = self.mss as f64;
    }

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Linux `tcp_reno_undo_cwnd`: the window and threshold come back, nothing else.
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
        // LEDBAT has one law; no slow start.
        "congestion_avoidance"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{ack, ms};
    use crate::time::SimTime;

    const MSS: u64 = 1000;

    fn ledbat() -> Ledbat {
        Ledbat::new(&CcConfig::new(MSS), LedbatParams::default())
    }

    /// An ACK of one segment at `now_ms` with a delay sample of `rtt_ms` and plenty in
    /// flight (so the ALLOWED_INCREASE cap does not bind).
    fn sample(now_ms: u64, rtt_ms: u64) -> Ack {
        Ack {
            now: SimTime::ZERO + ms(now_ms),
            rtt: Some(ms(rtt_ms)),
            prior_in_flight: 1_000_000,
            ..ack(MSS)
        }
    }

    #[test]
    fn with_no_queue_cwnd_grows_by_gain_mss_squared_over_cwnd_per_segment() {
        // Base 50 ms and current 50 ms: off_target = 1, so +GAIN·1·1000·1000/10 000 = 100 B.
        let mut l = ledbat();
        l.on_ack(&sample(0, 50));
        assert!((l.cwnd - 10_100.0).abs() < 1e-9, "{}", l.cwnd);
    }

    #[test]
    fn off_target_scales_the_step_and_turns_negative_above_target() {
        // Base 50 ms; the current filter takes the minimum of the last four samples, so
        // four samples of 100 ms give queuing_delay = 50 ms: off_target = 0.5.
        let mut l = ledbat();
        l.on_ack(&sample(0, 50));
        for t in 1..=4 {
            l.on_ack(&sample(t, 100));
        }
        let before = l.cwnd;
        l.on_ack(&sample(5, 100));
        let expected = 0.5 * 1000.0 * 1000.0 / before;
        assert!((l.cwnd - before - expected).abs() < 1e-9);
        // 200 ms samples: queuing_delay 150 ms, off_target = −0.5: the same step down.
        for t in 6..=9 {
            l.on_ack(&sample(t, 200));
        }
        let before = l.cwnd;
        l.on_ack(&sample(10, 200));
        assert!((l.cwnd - before + 0.5 * 1e6 / before).abs() < 1e-9);
        let queuing = l.queuing_delay_s().expect("sampled");
        assert!((queuing - 0.15).abs() < 1e-12, "{queuing}");
    }

    #[test]
    fn at_the_target_delay_the_window_holds() {
        let mut l = ledbat();
        l.on_ack(&sample(0, 50));
        for t in 1..=4 {
            l.on_ack(&sample(t, 150));
        }
        let before = l.cwnd;
        l.on_ack(&sample(5, 150));
        assert_eq!(l.cwnd, before);
    }

    #[test]
    fn the_window_never_exceeds_the_flight_plus_one_segment_nor_falls_below_two() {
        let mut l = ledbat();
        l.on_ack(&Ack {
            prior_in_flight: 3 * MSS,
            ..sample(0, 50)
        });
        assert_eq!(l.cwnd(), 4 * MSS);
        // A huge delay: the step down is floored at MIN_CWND = 2 segments.
        for t in 1..=200 {
            l.on_ack(&sample(t, 5_000));
        }
        assert_eq!(l.cwnd(), 2 * MSS);
    }

    #[test]
    fn the_base_delay_is_the_minimum_of_per_minute_minima_over_base_history_minutes() {
        let mut l = ledbat();
        // Minute 0: 40 ms; minutes 1..=10: 60 ms. After ten more minutes the 40 ms minute
        // has rolled out of the ten-entry history.
        l.on_ack(&sample(0, 40));
        assert_eq!(l.delays.base(), Some(ms(40)));
        for minute in 1..=9 {
            l.on_ack(&sample(minute * 60_000, 60));
            assert_eq!(l.delays.base(), Some(ms(40)), "minute {minute}");
        }
        l.on_ack(&sample(10 * 60_000, 60));
        assert_eq!(l.delays.base(), Some(ms(60)));
        // Within a minute the entry keeps its minimum.
        l.on_ack(&sample(10 * 60_000 + 5, 55));
        assert_eq!(l.delays.base(), Some(ms(55)));
    }

    #[test]
    fn loss_halves_the_window_but_not_below_two_segments() {
        let mut l = ledbat();
        l.on_congestion_event(&crate::test_support::loss(10 * MSS));
        assert_eq!(l.cwnd(), 5 * MSS);
        assert_eq!(l.ssthresh(), 5 * MSS);
        l.cwnd = (3 * MSS) as f64;
        l.on_congestion_event(&crate::test_support::loss(3 * MSS));
        assert_eq!(l.cwnd(), 2 * MSS);
    }

    #[test]
    fn a_timeout_is_rfc_5681s() {
        let mut l = ledbat();
        crate::test_support::new_timeout(&mut l, &crate::test_support::timeout(10 * MSS));
        assert_eq!(l.cwnd(), MSS);
        assert_eq!(l.ssthresh(), 5 * MSS);
    }
}
