//! PCC Vivace's utility (Dong et al., NSDI 2018, §3 eq. 1):
//!
//!   u(x) = x^t − b·x·dRTT/dT − c·x·L
//!
//! x the MI's sending rate in Mbit/s, dRTT/dT its RTT gradient (seconds per second), L its
//! loss rate. t < 1 makes the utility strictly concave so that competing senders converge to a
//! unique fair equilibrium (§3, Theorem 1); b penalizes a growing queue before any loss, c
//! loss, at a rate that tolerates random loss up to about 5 % (§3.2).

use super::monitor::MiResult;

/// RTT gradients smaller than this are noise and count as 0 (the authors' implementation
/// filters small RTT inflation the same way).
pub const RTT_GRADIENT_FILTER: f64 = 0.01;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UtilityParams {
    /// t.
    pub exponent: f64,
    /// b.
    pub latency: f64,
    /// c.
    pub loss: f64,
}

/// The utility of a finished MI.
pub fn utility(mi: &MiResult, params: &UtilityParams) -> f64 {
    let x = mi.sending_rate_bps / 1e6;
    let gradient = if mi.rtt_gradient.abs() < RTT_GRADIENT_FILTER {
        0.0
    } else {
        mi.rtt_gradient
    };
    x.powf(params.exponent) - params.latency * x * gradient - params.loss * x * mi.loss_rate
}
