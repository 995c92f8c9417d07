//! The VCP sender: Y. Xia, L. Subramanian, I. Stoica, S. Kalyanaraman, "One More Bit Is
//! Enough", SIGCOMM 2005, §3–4.
//!
//! The routers (`queue = "vcp"`) quantize their load factor into two bits on each segment; the
//! receiver echoes the highest; the sender picks its law from it (§3.2):
//!
//! - *low load* (ρ < 80 %): multiplicative increase, `cwnd ← cwnd·(1 + ξ(rtt))` per RTT, with
//!   ξ(rtt) = (1 + ξ)^(rtt/t_ρ) − 1 and ξ = 0.0625, so that per unit time the growth does not
//!   depend on the RTT (§4.1);
//! - *high load* (80–100 %): additive increase, `cwnd ← cwnd + α·(rtt/t_ρ)²` segments per RTT,
//!   α = 1 (the same RTT scaling, §4.1);
//! - *overload* (≥ 100 %): multiplicative decrease, `cwnd ← β·cwnd`, β = 0.875, once: the codes
//!   of the next t_ρ + RTT still describe the load before it, so they are not acted on (§3.2's
//!   "freeze", reconstructed: the paper holds the window for the router's next interval).
//!
//! Loss is handled as TCP does (halving). A path without a VCP router echoes "unmeasured": the
//! sender then grows as Reno.

use super::reno_growth::RenoGrowth;
use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, LoadFactor, TimeoutEvent,
    half_flight_ssthresh,
};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;
use crate::time::{SimDuration, SimTime};

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("xi", 0.0625, 0.0001, 1.0)
        .doc("ξ, the multiplicative increase per t_ρ under low load (§4.1: 0.0625)"),
    ParamSpec::number("alpha", 1.0, 0.01, 100.0)
        .unit("segments")
        .doc("α, the additive increase per t_ρ under high load (§4.1: 1)"),
    ParamSpec::number("beta", 0.875, 0.1, 0.99)
        .doc("β, the multiplicative decrease on overload (§4.1: 0.875)"),
    ParamSpec::number("interval", 200.0, 1.0, 10_000.0)
        .unit("ms")
        .doc("t_ρ, the routers' measurement interval the laws are scaled to (§3.1: 200 ms)"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "vcp",
    aliases: &[],
    summary: "router-assisted, 2-bit load factor: MI (xi = 0.0625) under low load, AI under high load, MD (x 0.875) on overload; needs queue = \"vcp\"",
    reference: "Xia, Subramanian, Stoica, Kalyanaraman, One More Bit Is Enough, SIGCOMM 2005 §3-4",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::Given,
    build: |config, params, slow_start| {
        Box::new(Vcp::new(config, VcpParams::from_params(params), slow_start))
    },
};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VcpParams {
    pub xi: f64,
    pub alpha: f64,
    pub beta: f64,
    pub interval: SimDuration,
}

impl Default for VcpParams {
    fn default() -> Self {
        VcpParams::from_params(&Params::defaults(PARAMS))
    }
}

impl VcpParams {
    pub fn from_params(params: &Params) -> Self {
        VcpParams {
            xi: params.number("xi"),
            alpha: params.number("alpha"),
            beta: params.number("beta"),
            interval: SimDuration::from_secs_f64(params.number("interval") / 1000.0),
        }
    }
}

pub struct Vcp {
    mss: u64,
    params: VcpParams,
    /// cwnd in fractional bytes.
    cwnd: f64,
    ssthresh: u64,
    /// After a decrease, codes are not acted on until then.
    frozen_until: Option<SimTime>,
    last_load: Option<LoadFactor>,
    /// Reno growth and loss response, for a path without a router of ours (and for loss).
    reno: RenoGrowth,
}

impl Vcp {
    pub fn new(config: &CcConfig, params: VcpParams, slow_start: Box<dyn SlowStart>) -> Self {
        Vcp {
            mss: config.mss,
            params,
            cwnd: config.initial_cwnd as f64,
            ssthresh: config.initial_ssthresh,
            frozen_until: None,
            last_load: None,
            reno: RenoGrowth::new(slow_start),
        }
    }

    /// §4.1: ξ(rtt) = (1 + ξ)^(rtt/t_ρ) − 1.
    pub fn xi_for(&self, rtt: SimDuration) -> f64 {
        let ratio = rtt.as_secs_f64() / self.params.interval.as_secs_f64();
        (1.0 + self.params.xi).powf(ratio) - 1.0
    }

    /// §4.1: α(rtt) = α·(rtt/t_ρ)² segments per RTT.
    pub fn alpha_for(&self, rtt: SimDuration) -> f64 {
        let ratio = rtt.as_secs_f64() / self.params.interval.as_secs_f64();
        self.params.alpha * ratio * ratio
    }
}

impl CongestionControl for Vcp {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn vcp(&self) -> bool {
        true
    }

    fn on_ack(&mut self, ack: &Ack) {
        let Some(load) = ack.vcp_load else {
            return;
        };
        if load == LoadFactor::Unmeasured {
            self.reno
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
            return;
        }
        self.last_load = Some(load);
        if ack.in_recovery || self.frozen_until.is_some_and(|until| ack.now < until) {
            return;
        }
        let rtt = ack.srtt.or(ack.rtt).unwrap_or(self.params.interval);
        let mss = self.mss as f64;
        let acked = ack.bytes_acked as f64;
        match load {
            LoadFactor::Low if ack.cwnd_limited => {
                // ×(1 + ξ(rtt)) over the window's worth of ACKs.
                self.cwnd += self.xi_for(rtt) * acked;
            }
            LoadFactor::High if ack.cwnd_limited => {
                self.cwnd += self.alpha_for(rtt) * mss * acked / self.cwnd;
            }
            LoadFactor::Overload => {
                self.cwnd = (self.cwnd * self.params.beta).max(mss);
                self.ssthresh = self.cwnd as u64;
                self.frozen_until = Some(ack.now + rtt + self.params.interval);
            }
            _ => {}
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.reno.on_loss(
            &mut self.cwnd,
            &mut self.ssthresh,
            self.mss,
            event.bytes_in_flight,
        );
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        self.ssthresh = half_flight_ssthresh(event.bytes_in_flight, self.mss);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        self.reno.on_timeout(&mut self.cwnd, self.mss);
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
        ControllerMetrics::with_slow_start(self.reno.slow_start())
    }

    fn mode(&self) -> &'static str {
        match self.last_load {
            Some(LoadFactor::Low) => "mi",
            Some(LoadFactor::High) => "ai",
            Some(LoadFactor::Overload) => "md",
            _ if (self.cwnd as u64) < self.ssthresh => "slow_start",
            _ => "congestion_avoidance",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::{ack, ms};

    const MSS: u64 = 1000;

    fn vcp() -> Vcp {
        let config = CcConfig::new(MSS);
        Vcp::new(
            &config,
            VcpParams::default(),
            Box::new(StandardSlowStart::new(&config)),
        )
    }

    fn echo(load: LoadFactor, now_ms: u64) -> Ack {
        Ack {
            now: SimTime::ZERO + ms(now_ms),
            vcp_load: Some(load),
            srtt: Some(ms(50)),
            ..ack(MSS)
        }
    }

    #[test]
    fn the_laws_are_scaled_to_the_rtt_as_section_4_1_says() {
        let v = vcp();
        // rtt = t_ρ: ξ itself and α itself.
        assert!((v.xi_for(ms(200)) - 0.0625).abs() < 1e-12);
        assert!((v.alpha_for(ms(200)) - 1.0).abs() < 1e-12);
        // rtt = 50 ms: ξ(50) = 1.0625^0.25 − 1 = 0.015272…, α(50) = (1/4)² = 1/16.
        assert!((v.xi_for(ms(50)) - (1.0625f64.powf(0.25) - 1.0)).abs() < 1e-12);
        assert!((v.alpha_for(ms(50)) - 0.0625).abs() < 1e-12);
        // Four 50 ms RTTs of MI grow the window as one 200 ms RTT does.
        assert!(((1.0 + v.xi_for(ms(50))).powi(4) - 1.0625).abs() < 1e-12);
    }

    #[test]
    fn low_load_multiplies_high_load_adds_overload_cuts_once() {
        let mut v = vcp();
        // 10 000 B window: low load, one segment acked: +ξ(50 ms)·1000.
        v.on_ack(&echo(LoadFactor::Low, 0));
        let after_mi = 10_000.0 + (1.0625f64.powf(0.25) - 1.0) * 1000.0;
        assert!((v.cwnd - after_mi).abs() < 1e-9);
        // High load: +α(50)·MSS·MSS/cwnd.
        v.on_ack(&echo(LoadFactor::High, 1));
        let after_ai = after_mi + 0.0625 * 1000.0 * 1000.0 / after_mi;
        assert!((v.cwnd - after_ai).abs() < 1e-9);
        // Overload: ×0.875, then frozen for srtt + t_ρ = 250 ms.
        v.on_ack(&echo(LoadFactor::Overload, 2));
        let cut = after_ai * 0.875;
        assert!((v.cwnd - cut).abs() < 1e-9);
        v.on_ack(&echo(LoadFactor::Overload, 100));
        v.on_ack(&echo(LoadFactor::Low, 200));
        assert!((v.cwnd - cut).abs() < 1e-9, "frozen");
        v.on_ack(&echo(LoadFactor::Overload, 253));
        assert!((v.cwnd - cut * 0.875).abs() < 1e-9);
    }

    #[test]
    fn without_a_router_the_sender_grows_as_reno() {
        let mut v = vcp();
        assert!(v.vcp());
        v.on_ack(&echo(LoadFactor::Unmeasured, 0));
        assert_eq!(v.cwnd(), 11 * MSS);
    }
}
