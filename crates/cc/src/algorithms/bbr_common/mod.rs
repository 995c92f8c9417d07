//! What BBR v1 (`bbr`) and BBR v3 (`bbr3`) share: the pieces whose logic is the same in
//! draft-cardwell-iccrg-bbr-congestion-control-00 (v1), draft-ietf-ccwg-bbr-06 (v3) and
//! Linux `net/ipv4/tcp_bbr.c`. Where the two versions differ only in a constant or a bound,
//! the caller passes it in (ProbeRTT's inflight target, the start-up bandwidth signal, the
//! cwnd target); the version-specific parts of the state machines stay in `bbr/` and `bbr3/`.
//!
//! - `round`: packet-timed round trips (v1 draft §4.1.1.3, v3 draft §5.5.1).
//! - `full_bw`: the full-pipe (plateau) estimator of STARTUP (v1 §4.3.2.2, v3 §5.3.1.2).
//! - `rate_sample`: usable delivery rates (delivery-rate draft §3.3).
//! - `probe_rtt`: the ProbeRTT clock and its app-limited marking (v1 §4.3.5, v3 §5.3.4.3).
//! - `recovery`: SaveCwnd / RestoreCwnd and packet conservation (v1 §4.2.3.4, v2 draft-02
//!   §4.6.4.4, v3 §5.6.4.4).
//! - `cwnd`: the growth rule of SetCwnd (v1 §4.2.3.6, v3 §5.6.4.6).
//! - `pacing`: the initial pacing rate and the raise-only rule before the pipe is full
//!   (v1 §4.2.1, v3 §5.6.2).
//! - `idle`: restart from idle (v1 §4.3.4.4, v3 §5.4.1).

pub mod cwnd;
pub mod full_bw;
pub mod idle;
pub mod pacing;
pub mod probe_rtt;
pub mod rate_sample;
pub mod recovery;
pub mod round;
#[cfg(test)]
mod tests;

/// BBRMinPipeCwnd (v1 draft §2) = BBR.MinPipeCwnd (v3 draft §2.8): 4 packets, the least
/// cwnd that keeps the pipe full with delayed ACKs.
pub const MIN_PIPE_CWND_PACKETS: u64 = 4;

/// BBRMinPipeCwnd in bytes.
pub fn min_pipe_cwnd(mss: u64) -> u64 {
    MIN_PIPE_CWND_PACKETS * mss
}

/// Largest send quantum, 64 KB (v1 draft §4.2.2, v3 draft §5.6.3; Linux `GSO_MAX_SIZE`
/// bound in `bbr_tso_segs_goal`).
pub const MAX_SEND_QUANTUM: u64 = 64 * 1024;
