//! PCC Vivace: M. Dong, T. Meng, D. Zarchy, E. Arslan, Y. Gilad, P. B. Godfrey, M. Schapira,
//! "PCC Vivace: Online-Learning Congestion Control", NSDI 2018 (§3–4), with the structure of
//! the authors' user-space implementation (PCC-Uspace `pcc_vivace_rc.cpp`,
//! `pcc_monitor_interval.cpp`; read, no code copied) where the paper leaves details open.
//!
//! Vivace is rate-based. It sends at a rate r for a *monitor interval* (MI, about one RTT),
//! scores the MI with the utility (§3, eq. 1)
//!
//!   u(x) = x^t − b·x·dRTT/dT − c·x·L,   t = 0.9, b = 900, c = 11.35,
//!
//! x the MI's sending rate in Mbit/s, dRTT/dT the slope of the RTT over the MI (s/s), L its
//! loss rate, and moves r up the utility's gradient (§4):
//!
//! - *starting*: double r every MI while the utility rises; when it falls, go back to the last
//!   rate and start probing;
//! - *probing*: four MIs, two pairs at r(1 + ε) and r(1 − ε) (ε = 0.05), each pair's order
//!   alternating; when both pairs agree on the direction, the gradient
//!   γ = (u₊ − u₋)/(r₊ − r₋) (Mbit/s⁻¹) sets the step, else probe again;
//! - *moving*: r += θ·m·γ, the confidence amplifier m growing by one each consecutive MI, the
//!   step bounded by ω·r with ω growing by 0.05 each time the bound binds (§4.2's dynamic
//!   change boundary); when an MI's gradient turns against the direction, probe again.
//!
//! The files: `monitor.rs` keeps the monitor intervals (what was sent in each, what came back);
//! `utility.rs` is eq. 1; this file is the rate control.

mod monitor;
mod utility;

pub use utility::utility;

use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, UNLIMITED,
};
use crate::metrics::{ControllerMetrics, SlowStartExit};
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::time::{SimDuration, SimTime};

use monitor::{MiResult, Monitor};

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("epsilon", 0.05, 0.005, 0.5)
        .doc("probing step ε: the two test rates are r(1 ± ε) (paper §4.1: 0.05)"),
    ParamSpec::number("exponent", 0.9, 0.1, 1.0)
        .doc("t in u = x^t − b·x·dRTT/dT − c·x·L (paper §3: 0.9)"),
    ParamSpec::number("latency_coefficient", 900.0, 0.0, 100_000.0)
        .doc("b, the weight of the RTT gradient (paper §3: 900)"),
    ParamSpec::number("loss_coefficient", 11.35, 0.0, 100_000.0)
        .doc("c, the weight of the loss rate (paper §3: 11.35)"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "vivace",
    aliases: &["pcc-vivace"],
    summary: "rate-based online learning: monitor intervals scored by u = x^0.9 - 900 x dRTT/dT - 11.35 x L, gradient ascent with confidence amplifier and dynamic change bound",
    reference: "Dong et al., PCC Vivace, NSDI 2018 §3-4; PCC-Uspace pcc_vivace_rc.cpp",
    params: PARAMS,
    uses_slow_start: false,
    initial_ssthresh: InitialSsthreshUse::None,
    build: |config, params, _slow_start| {
        Box::new(Vivace::new(config, VivaceParams::from_params(params)))
    },
};

/// PCC-Uspace `kGradientStepFactor`: Mbit/s of rate change per unit of utility gradient
/// (utility per Mbit/s), before the amplifier.
const STEP_PER_GRADIENT_MBPS: f64 = 0.1;
/// PCC-Uspace `kMinAmplifier`: the confidence amplifier's first value in the moving state.
const MIN_AMPLIFIER: f64 = 10.0;
/// PCC-Uspace `kMinChangeBound` and `kChangeBoundStepSize`: ω starts at 10 % of the rate
/// and grows by 5 % each consecutive MI that hits it.
const MIN_CHANGE_BOUND: f64 = 0.10;
const CHANGE_BOUND_STEP: f64 = 0.05;
/// PCC-Uspace `kMinChangeProportion`: no step smaller than 1 % of the rate.
const MIN_CHANGE_PROPORTION: f64 = 0.01;
/// No rate below two segments per RTT's worth at 10 ms (a floor, not from the paper).
const MIN_RATE_BPS: f64 = 100_000.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VivaceParams {
    pub epsilon: f64,
    pub utility: utility::UtilityParams,
}

impl Default for VivaceParams {
    fn default() -> Self {
        VivaceParams::from_params(&Params::defaults(PARAMS))
    }
}

impl VivaceParams {
    pub fn from_params(params: &Params) -> Self {
        VivaceParams {
            epsilon: params.number("epsilon"),
            utility: utility::UtilityParams {
                exponent: params.number("exponent"),
                latency: params.number("latency_coefficient"),
                loss: params.number("loss_coefficient"),
            },
        }
    }
}

/// A scored rate.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    rate_bps: f64,
    utility: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// Doubling; the last MI's sample, if scored.
    Starting { last: Option<Sample> },
    /// Four probe MIs; `first` is the id of the first, `results` their samples so far.
    Probing {
        first: Option<u64>,
        results: [Option<Sample>; 4],
        high_first: bool,
    },
    Moving {
        last: Sample,
        up: bool,
        amplifier: f64,
        bound: f64,
        gradient: f64,
    },
}

pub struct Vivace {
    mss: u64,
    initial_cwnd: u64,
    params: VivaceParams,
    /// The rate the controller aims at (`target_rate_`), bit/s; `None` until the first RTT.
    target_bps: Option<f64>,
    state: State,
    /// Probing rounds alternate which of the pair goes first (the paper randomizes; a fixed
    /// alternation keeps runs deterministic without a random stream).
    probe_high_first: bool,
    monitor: Monitor,
    srtt: Option<SimDuration>,
    /// Set by a timeout: the window stays at two segments until the next ACK.
    after_timeout: bool,
}

impl Vivace {
    pub fn new(config: &CcConfig, params: VivaceParams) -> Self {
        Vivace {
            mss: config.mss,
            initial_cwnd: config.initial_cwnd,
            params,
            target_bps: None,
            state: State::Starting { last: None },
            probe_high_first: true,
            monitor: Monitor::default(),
            srtt: None,
            after_timeout: false,
        }
    }

    /// The rate of the MI about to start, given its id (probes differ from the target).
    fn rate_for_next_mi(&mut self, id: u64) -> f64 {
        let target = self.target_bps.unwrap_or(0.0);
        match &mut self.state {
            State::Starting { .. } | State::Moving { .. } => target,
            State::Probing {
                first, high_first, ..
            } => {
                let first = *first.get_or_insert(id);
                let offset = id - first;
                if offset > 3 {
                    return target;
                }
                // Pairs (0, 1) and (2, 3): high then low, or low then high, alternating
                // between the pairs (PCC-Uspace's two orders).
                let high = if *high_first {
                    offset == 0 || offset == 3
                } else {
                    offset == 1 || offset == 2
                };
                let epsilon = self.params.epsilon;
                if high {
                    target * (1.0 + epsilon)
                } else {
                    target * (1.0 - epsilon)
                }
            }
        }
    }

    fn start_probing(&mut self) {
        self.probe_high_first = !self.probe_high_first;
        self.state = State::Probing {
            first: None,
            results: [None; 4],
            high_first: self.probe_high_first,
        };
    }

    /// The gradient between two samples, utility per Mbit/s.
    fn gradient(a: Sample, b: Sample) -> f64 {
        if a.rate_bps == b.rate_bps {
            return 0.0;
        }
        (a.utility - b.utility) / ((a.rate_bps - b.rate_bps) / 1e6)
    }

    /// The moving state's step, bit/s: θ·m·γ bounded by ω·r, at least 1 % of r.
    fn moving_step(target: f64, gradient: f64, amplifier: &mut f64, bound: &mut f64) -> f64 {
        let mut step = gradient * STEP_PER_GRADIENT_MBPS * 1e6 * *amplifier;
        *amplifier += 1.0;
        let sign = step.signum();
        step = step.abs();
        let ratio = step / target;
        if ratio > *bound {
            step = *bound * target;
            *bound += CHANGE_BOUND_STEP;
        } else {
            *bound = MIN_CHANGE_BOUND;
        }
        if ratio < MIN_CHANGE_PROPORTION {
            step = MIN_CHANGE_PROPORTION * target;
        }
        sign * step
    }

    /// A monitor interval finished: score it and decide.
    fn on_mi_result(&mut self, result: MiResult) {
        let sample = Sample {
            rate_bps: result.target_rate_bps,
            utility: utility(&result, &self.params.utility),
        };
        let Some(target) = self.target_bps else {
            return;
        };
        match self.state {
            State::Starting { last } => match last {
                Some(last) if last.utility > sample.utility && last.rate_bps < sample.rate_bps => {
                    // The doubled rate scored worse: back to the last good one, and probe.
                    self.target_bps = Some(last.rate_bps);
                    self.start_probing();
                }
                _ => {
                    self.state = State::Starting { last: Some(sample) };
                    self.target_bps = Some(target * 2.0);
                }
            },
            State::Probing {
                first,
                mut results,
                high_first,
            } => {
                let Some(first) = first else { return };
                let Some(offset) = result.id.checked_sub(first).filter(|&o| o <= 3) else {
                    return;
                };
                results[offset as usize] = Some(sample);
                self.state = State::Probing {
                    first: Some(first),
                    results,
                    high_first,
                };
                if let [Some(a), Some(b), Some(c), Some(d)] = results {
                    let (g1, g2) = (Self::gradient(a, b), Self::gradient(c, d));
                    if (g1 > 0.0) != (g2 > 0.0) {
                        self.start_probing(); // inconclusive
                        return;
                    }
                    let better = if a.utility > b.utility { a } else { b };
                    let mut amplifier = MIN_AMPLIFIER;
                    let mut bound = MIN_CHANGE_BOUND;
                    let step = Self::moving_step(better.rate_bps, g2, &mut amplifier, &mut bound);
                    self.target_bps = Some((better.rate_bps + step).max(MIN_RATE_BPS));
                    self.state = State::Moving {
                        last: d,
                        up: g2 > 0.0,
                        amplifier,
                        bound,
                        gradient: g2,
                    };
                }
            }
            State::Moving {
                last,
                up,
                mut amplifier,
                mut bound,
                ..
            } => {
                let gradient = Self::gradient(sample, last);
                if (gradient >= 0.0) == up {
                    let step = Self::moving_step(target, gradient, &mut amplifier, &mut bound);
                    self.target_bps = Some((target + step).max(MIN_RATE_BPS));
                    self.state = State::Moving {
                        last: sample,
                        up,
                        amplifier,
                        bound,
                        gradient,
                    };
                } else {
                    // The gradient turned: settle at the last rate that still pointed our way.
                    self.target_bps = Some(last.rate_bps.max(MIN_RATE_BPS));
                    self.start_probing();
                }
            }
        }
    }
}

impl CongestionControl for Vivace {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn observes_sends(&self) -> crate::controller::SendsObserved {
        crate::controller::SendsObserved::All
    }

    fn on_packet_sent(&mut self, now: SimTime, bytes: u64, _bytes_in_flight: u64) {
        let Some(srtt) = self.srtt else {
            return;
        };
        if self.monitor.needs_new_interval(now) {
            let id = self.monitor.next_id();
            let rate = self.rate_for_next_mi(id);
            // An MI lasts about an RTT (paper §4: "roughly an RTT"), at least long enough
            // for a few packets at its rate.
            let packets_time =
                SimDuration::from_secs_f64(4.0 * self.mss as f64 * 8.0 / rate.max(1.0));
            self.monitor.open(now, rate, srtt.max(packets_time));
        }
        self.monitor.on_sent(now, bytes);
    }

    fn on_ack(&mut self, ack: &Ack) {
        self.after_timeout = false;
        if let Some(srtt) = ack.srtt {
            self.srtt = Some(srtt);
            if self.target_bps.is_none() {
                // Start from the initial window per RTT.
                self.target_bps = Some(self.initial_cwnd as f64 * 8.0 / srtt.as_secs_f64());
            }
        }
        let mut finished = [None; monitor::CAPACITY];
        let n = self.monitor.on_ack(ack, &mut finished);
        for result in finished.into_iter().take(n).flatten() {
            self.on_mi_result(result);
        }
    }

    fn on_congestion_event(&mut self, _event: &CongestionEvent) {
        // Rate-based: losses enter the utility through the MIs, not as window cuts.
    }

    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {}

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // The pipe is empty and the rate stays: send the retransmission with a small
        // window and let the next ACK reopen it.
        self.after_timeout = true;
    }

    fn on_undo(&mut self, _event: &crate::controller::UndoEvent) {
        // Rate-based: a timeout only shrank the window to two segments until the next ACK
        // (`after_timeout`); the timeout being spurious, that ends, and the rate never moved.
        self.after_timeout = false;
    }

    fn cwnd(&self) -> u64 {
        if self.after_timeout {
            return 2 * self.mss;
        }
        match (self.target_bps, self.srtt) {
            // Twice what the rate puts in flight in one RTT: the pacer, not the window,
            // limits the sender.
            (Some(rate), Some(srtt)) => {
                let bytes = 2.0 * rate * srtt.as_secs_f64() / 8.0;
                (bytes as u64).max(2 * self.mss)
            }
            _ => self.initial_cwnd,
        }
    }

    fn ssthresh(&self) -> u64 {
        UNLIMITED
    }

    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        // Rate-based: the window follows the rate (cwnd() is twice rate × srtt), so the
        // assigned window becomes the target rate that gives it. Scenario checks keep Vivace
        // out of coupled groups (registry::WINDOW_FOLLOWS_RATE); this serves temporal sharing.
        let _ = ssthresh;
        self.after_timeout = false;
        match self.srtt {
            Some(srtt) => {
                self.target_bps = Some(cwnd as f64 * 8.0 / (2.0 * srtt.as_secs_f64()));
            }
            None => self.initial_cwnd = cwnd,
        }
    }

    fn paces(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<u64> {
        // The current MI's rate (a probe differs from the target).
        let rate = self.monitor.current_rate().or(self.target_bps)?;
        Some((rate as u64).max(1))
    }

    fn controls_recovery_window(&self) -> bool {
        true
    }

    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics {
            bandwidth_bps: self.target_bps,
            slow_start_exit: (!matches!(self.state, State::Starting { .. }))
                .then_some(SlowStartExit::UtilityFell),
            ..Default::default()
        }
    }

    fn mode(&self) -> &'static str {
        match self.state {
            State::Starting { .. } => "startup",
            State::Probing { .. } => "probing",
            State::Moving { .. } => "moving",
        }
    }
}

#[cfg(test)]
mod tests;
