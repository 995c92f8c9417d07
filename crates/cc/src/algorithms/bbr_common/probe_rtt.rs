//! The ProbeRTT clock: v1 draft §4.3.5 BBRHandleProbeRTT, v3 draft §5.3.4.3 HandleProbeRTT
//! and CheckProbeRTTDone; Linux `bbr_update_min_rtt` / `bbr_check_probe_rtt_done`.
//!
//! Once inflight has dropped to the ProbeRTT target (v1: BBRMinPipeCwnd; v3: half the BDP),
//! ProbeRTT lasts at least 200 ms and at least one packet-timed round. What happens on exit
//! (which RTT stamp is renewed, which state follows) is the caller's.
//!
//! Both drafts mark the connection app-limited during ProbeRTT ("ignore low rate samples":
//! `C.app_limited = C.delivered + inflight`). The sender cannot be told, so the clock
//! remembers the `C.delivered` range `[from, to]` and the controllers treat rate samples of
//! packets sent while it covered `C.delivered` as app-limited themselves.

use super::round::RoundCounter;
use crate::controller::Ack;
use crate::time::{SimDuration, SimTime};

/// ProbeRTTDuration (v1 draft §2) = BBR.ProbeRTTDuration (v3 draft §2.16.2): 200 ms.
const PROBE_RTT_DURATION: SimDuration = SimDuration::from_millis(200);

#[derive(Clone, Debug, Default)]
pub struct ProbeRttClock {
    /// BBR.probe_rtt_done_stamp: when the 200 ms are over; `None` until inflight is low.
    pub done_stamp: Option<SimTime>,
    /// BBR.probe_rtt_round_done: a round has passed since inflight got low.
    pub round_done: bool,
    /// `C.delivered` range of the packets sent during ProbeRTT (see the module comment).
    app_limited: Option<(u64, u64)>,
}

impl ProbeRttClock {
    /// On entering ProbeRTT at `C.delivered = delivered`: the clock waits for inflight to
    /// drop, and packets sent from now on count as app-limited.
    pub fn enter(&mut self, delivered: u64) {
        self.done_stamp = None;
        self.app_limited = Some((delivered, delivered));
    }

    /// The per-ACK part of HandleProbeRTT while in ProbeRTT: extends the app-limited range
    /// to `C.delivered + inflight`, starts the 200 ms and a new round once
    /// `inflight <= target`, and notes the end of that round. Returns whether
    /// ProbeRTT is over (the round is done and the 200 ms have passed); the clock has then
    /// stopped and the caller leaves ProbeRTT.
    pub fn on_ack(&mut self, ack: &Ack, target: u64, round: &mut RoundCounter) -> bool {
        let mark = ack.delivered + ack.bytes_in_flight;
        if let Some((_, to)) = &mut self.app_limited {
            *to = (*to).max(mark);
        }
        match self.done_stamp {
            None if ack.bytes_in_flight <= target => {
                self.done_stamp = Some(ack.now + PROBE_RTT_DURATION);
                self.round_done = false;
                round.start_at(ack.delivered);
                false
            }
            None => false,
            Some(_) => {
                if round.start {
                    self.round_done = true;
                }
                self.round_done && self.finish(ack.now)
            }
        }
    }

    /// The timing half of CheckProbeRTTDone: true once the 200 ms are over, and then the
    /// clock stops. `on_ack` also waits for the round; a restart from idle checks only the
    /// time (Linux `bbr_cwnd_event`, v3 draft §5.4.1).
    pub fn finish(&mut self, now: SimTime) -> bool {
        let Some(done) = self.done_stamp else {
            return false;
        };
        if now <= done {
            return false;
        }
        self.done_stamp = None;
        true
    }

    /// Whether a rate sample of a packet sent at `C.delivered = prior_delivered` was sent
    /// during ProbeRTT, hence app-limited.
    pub fn marks_app_limited(&self, prior_delivered: u64) -> bool {
        self.app_limited
            .is_some_and(|(from, to)| (from..=to).contains(&prior_delivered))
    }
}
