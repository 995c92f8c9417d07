//! Pacing-rate rules common to v1 (draft §4.2.1) and v3 (draft §5.6.2); Linux
//! `bbr_init_pacing_rate_from_rtt`, `bbr_set_pacing_rate`. The gains and the pacing margin
//! differ between the versions and variants and are the callers'.

use crate::controller::Ack;
use crate::time::SimDuration;

/// InitPacingRate's `nominal_bandwidth = InitialCwnd / (SRTT or 1 ms)`, bytes per second.
pub fn nominal_bandwidth(initial_cwnd: u64, srtt: Option<SimDuration>) -> f64 {
    let rtt_ns = srtt
        .filter(|s| !s.is_zero())
        .unwrap_or(SimDuration::from_millis(1))
        .as_nanos() as f64;
    initial_cwnd as f64 * 1e9 / rtt_ns
}

/// The SRTT to re-initialise the pacing rate from, once: v1 draft §4.2.1 uses "the initial
/// SRTT after the first non-zero RTT sample" (Linux re-initialises it then, too).
pub fn first_srtt(has_seen_rtt: &mut bool, ack: &Ack) -> Option<SimDuration> {
    let srtt = ack.srtt.filter(|s| !s.is_zero());
    if *has_seen_rtt || srtt.is_none() {
        return None;
    }
    *has_seen_rtt = true;
    srtt
}

/// SetPacingRateWithGain: before the pipe is full the rate is only raised, so that the
/// initial rate is not undercut by early, low samples.
pub fn set_pacing_rate(pacing_rate: &mut f64, rate: f64, filled_pipe: bool) {
    if filled_pipe || rate > *pacing_rate {
        *pacing_rate = rate;
    }
}

/// Payload bytes per second to the bit/s the sender paces at.
pub fn bits_per_second(bytes_per_second: f64) -> Option<u64> {
    Some((bytes_per_second * 8.0) as u64)
}
