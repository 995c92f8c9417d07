//! The growth rule of SetCwnd: v1 draft §4.2.3.6 BBRSetCwnd, v3 draft §5.6.4.6 SetCwnd;
//! Linux `bbr_set_cwnd`.
//!
//! After the recovery modulation (`recovery`), and unless packet conservation holds cwnd,
//! cwnd grows by the bytes ACKed: up to the target once the pipe is full, without a cap
//! before that (while below the target or until InitialCwnd has been delivered), never below
//! BBRMinPipeCwnd. The ProbeRTT and model bounds that follow differ between v1 and v3 and
//! are the callers'.

use super::min_pipe_cwnd;
use super::recovery::Recovery;
use crate::controller::Ack;

/// What the cwnd grows toward, and the sizes the rule needs.
#[derive(Clone, Copy, Debug)]
pub struct CwndTarget {
    /// v1: BBRInflight(cwnd_gain); v3: BBR.max_inflight.
    pub target: u64,
    /// v1: BBR.filled_pipe; v3: BBR.full_bw_reached.
    pub filled_pipe: bool,
    pub mss: u64,
    pub initial_cwnd: u64,
}

/// ModulateCwndForRecovery, then the growth rule; returns the new cwnd.
pub fn set_cwnd(
    cwnd: u64,
    ack: &Ack,
    entered_recovery: bool,
    recovery: &Recovery,
    goal: CwndTarget,
) -> u64 {
    let cwnd = recovery.modulate_cwnd(cwnd, ack, entered_recovery, goal.mss);
    if recovery.packet_conservation {
        return cwnd;
    }
    let grown = if goal.filled_pipe {
        (cwnd + ack.bytes_acked).min(goal.target)
    } else if cwnd < goal.target || ack.delivered < goal.initial_cwnd {
        cwnd + ack.bytes_acked
    } else {
        cwnd
    };
    grown.max(min_pipe_cwnd(goal.mss))
}
