//! Restart from idle: v1 draft §4.3.4.4 BBRHandleRestartFromIdle, v3 draft §5.4.1
//! HandleRestartFromIdle; Linux `bbr_cwnd_event` on `CA_EVENT_TX_START`.
//!
//! What the restart does (pace at 1.0 * bw in ProbeBW, maybe end ProbeRTT, v3's ACK
//! aggregation epoch) is the caller's; this says whether a send is one.

/// A segment of `bytes` sent with `bytes_in_flight` in flight restarts from idle when
/// nothing else was in flight, outside loss recovery. Whether `bytes_in_flight` already
/// counts this segment or not, "nothing else in flight" is `bytes_in_flight <= bytes`.
pub fn is_restart_from_idle(bytes: u64, bytes_in_flight: u64, in_loss_recovery: bool) -> bool {
    bytes_in_flight <= bytes && !in_loss_recovery
}
