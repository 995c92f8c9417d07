//! Delivery-rate samples as BBR uses them (draft-cheng-iccrg-delivery-rate-estimation §3.3
//! GenerateRateSample; Linux `tcp_rate_gen`).

use crate::controller::RateSample;
use crate::time::SimDuration;

/// Delivery rate in payload bytes per second, or `None` when the sample is unusable: the
/// delivery-rate draft (§3.3) discards samples whose interval is shorter than the
/// connection's min RTT (they would overstate the rate); the check is repeated here in case
/// the sender did not apply it.
pub fn delivery_rate(rs: &RateSample, min_rtt: Option<SimDuration>) -> Option<f64> {
    if rs.interval.is_zero() || min_rtt.is_some_and(|m| rs.interval < m) {
        return None;
    }
    Some(rs.delivered as f64 * 1e9 / rs.interval.as_nanos() as f64)
}
