//! Test driver for the delay-based controllers: an ACK-clocked, window-limited sender on a
//! path whose RTT the test sets per round.
//!
//! The driver mirrors the round definition of [`super::rtt_rounds`]: a round ends at the
//! first ACK whose `snd_una` passes the `snd_nxt` recorded (before the sender refilled its
//! window) at the ACK that ended the previous round. So one call to [`Path::round`] is one
//! controller round, and a decision a controller takes at the end of a round is visible
//! right after the call.

use crate::controller::{Ack, CongestionControl};
use crate::test_support::ack;
use crate::time::{SimDuration, SimTime};

pub struct Path {
    pub mss: u64,
    snd_una: u64,
    snd_nxt: u64,
    round_end: u64,
    now: SimTime,
}

impl Path {
    /// A sender that has just sent its initial window `initial_cwnd` from sequence 0.
    pub fn new(mss: u64, initial_cwnd: u64) -> Self {
        Path {
            mss,
            snd_una: 0,
            snd_nxt: initial_cwnd,
            round_end: initial_cwnd,
            now: SimTime::ZERO,
        }
    }

    /// Deliver one round of ACKs, each covering `segments_per_ack` segments and carrying the
    /// RTT sample `rtt`; after each ACK the sender fills its window (`snd_nxt = snd_una +
    /// cwnd`). Returns the number of ACKs delivered.
    pub fn round(
        &mut self,
        cc: &mut dyn CongestionControl,
        rtt: SimDuration,
        segments_per_ack: u64,
    ) -> u32 {
        self.round_with(cc, rtt, segments_per_ack, |a| a)
    }

    /// Like [`Path::round`], with every ACK passed through `edit` (e.g. to clear
    /// `cwnd_limited`).
    pub fn round_with(
        &mut self,
        cc: &mut dyn CongestionControl,
        rtt: SimDuration,
        segments_per_ack: u64,
        mut edit: impl FnMut(Ack) -> Ack,
    ) -> u32 {
        let mut acks = 0;
        let step = SimDuration::from_nanos(rtt.as_nanos() / 64);
        loop {
            let outstanding = self.snd_nxt - self.snd_una;
            assert!(outstanding > 0, "nothing in flight: the round cannot end");
            let bytes = (segments_per_ack * self.mss).min(outstanding);
            self.snd_una += bytes;
            self.now += step;
            let a = edit(Ack {
                now: self.now,
                rtt: Some(rtt),
                min_rtt: Some(rtt),
                srtt: Some(rtt),
                prior_in_flight: outstanding,
                bytes_in_flight: self.snd_nxt - self.snd_una,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
                ..ack(bytes)
            });
            cc.on_ack(&a);
            acks += 1;
            let ended = self.snd_una > self.round_end;
            if ended {
                // The controller recorded this ACK's (pre-refill) snd_nxt as the next mark.
                self.round_end = self.snd_nxt;
            }
            // Refill the window segment by segment, telling the controller as a sender does.
            let target = self.snd_nxt.max(self.snd_una + cc.cwnd());
            while self.snd_nxt < target {
                let len = self.mss.min(target - self.snd_nxt);
                self.snd_nxt += len;
                cc.on_packet_sent(self.now, len, self.snd_nxt - self.snd_una);
            }
            if ended {
                return acks;
            }
        }
    }
}
