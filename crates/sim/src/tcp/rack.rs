//! RACK, the time-based half of RFC 8985 RACK-TLP (§6): a segment is lost when a segment sent
//! after it has been delivered and more than RACK.rtt + RACK.reo_wnd have passed since it was
//! sent. This file keeps RACK's per-connection state (§5.2) and works out the reordering
//! window (§6.2 step 4); the walk over the outstanding segments (§6.2 step 5) is the
//! scoreboard's [`Scoreboard::rack_mark_losses`](crate::tcp::scoreboard::Scoreboard).

use cclab_cc::{SimDuration, SimTime};

/// RFC 8985 §6.2 step 4: after a DSACK-driven widening, the window stays wide for this many
/// loss recoveries without a DSACK (Linux `TCP_RACK_RECOVERY_THRESH`).
const REO_WND_PERSIST: u32 = 16;

/// RFC 8985 §5.2 RACK state of one connection.
#[derive(Clone, Debug)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the latest (re)transmission time and end of the most
    /// recently sent segment that has been delivered (SACKed or cumulatively ACKed).
    latest: Option<(SimTime, u64)>,
    /// RACK.rtt: the RTT of that segment.
    rtt: SimDuration,
    /// RACK.fack: the highest sequence delivered so far.
    fack: u64,
    /// RACK.reordering_seen: a never-retransmitted segment was delivered below RACK.fack.
    reordering_seen: bool,
    /// RACK.reo_wnd_mult, RACK.reo_wnd_persist, RACK.dsack_round (§6.2 step 4).
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    dsack_round: Option<u64>,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            latest: None,
            rtt: SimDuration::ZERO,
            fack: 0,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            dsack_round: None,
        }
    }
}

/// RFC 8985 §6.2 `RACK_sent_after(t1, seq1, t2, seq2)`: whether the first transmission was
/// sent after the second (ties in time, as a burst sent at one instant has, broken by
/// sequence).
pub fn sent_after(t1: SimTime, end1: u64, t2: SimTime, end2: u64) -> bool {
    t1 > t2 || (t1 == t2 && end1 > end2)
}

impl Rack {
    /// RACK.xmit_ts and RACK.end_seq, once something has been delivered.
    pub fn latest(&self) -> Option<(SimTime, u64)> {
        self.latest
    }

    pub fn rtt(&self) -> SimDuration {
        self.rtt
    }

    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }

    pub fn reo_wnd_mult(&self) -> u32 {
        self.reo_wnd_mult
    }

    /// RFC 8985 §6.2 steps 2–3 for one newly delivered segment `[.., end)` last sent at
    /// `sent`. `min_rtt` is the connection's minimum RTT before this ACK.
    pub fn on_delivered(
        &mut self,
        now: SimTime,
        end: u64,
        sent: SimTime,
        retransmitted: bool,
        min_rtt: Option<SimDuration>,
    ) {
        // Step 3: a never-retransmitted segment below the highest delivered sequence was
        // delivered out of order.
        if !retransmitted && end < self.fack {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(end);
        // Step 2: a retransmitted segment acknowledged sooner than the minimum RTT after its
        // retransmission was most likely delivered by its original transmission (we have no
        // TCP timestamps to tell): it says nothing about when the retransmission left.
        let rtt = now - sent;
        if retransmitted && min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        // As Linux `tcp_rack_advance`: RACK follows the most recently sent delivered segment.
        if self.latest.is_none_or(|(t, e)| sent_after(sent, end, t, e)) {
            self.latest = Some((sent, end));
            self.rtt = rtt;
        }
    }

    /// RFC 8985 §6.2 step 4, DSACK part, on every ACK: widen the window by one step of
    /// min_RTT/4 per round trip that sees a DSACK (a spurious retransmission, RFC 2883), and
    /// remember it for 16 recoveries.
    pub fn on_ack(&mut self, snd_una: u64, snd_nxt: u64, dsack: bool) {
        if self.dsack_round.is_some_and(|round| snd_una >= round) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() && dsack {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// RFC 8985 §6.2 step 4: on leaving fast or RTO recovery, count down the recoveries the
    /// widened window persists for.
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// RFC 8985 §6.2 step 4 `RACK_update_reo_wnd`: zero until reordering has been seen while
    /// in recovery or once DupThresh segments are SACKed (so that RACK is as quick as the
    /// duplicate-ACK rule on a path that does not reorder), else
    /// min(reo_wnd_mult · min_RTT / 4, SRTT).
    pub fn reo_wnd(
        &self,
        in_recovery: bool,
        sacked_at_least_dup_thresh: bool,
        min_rtt: Option<SimDuration>,
        srtt: Option<SimDuration>,
    ) -> SimDuration {
        if !self.reordering_seen && (in_recovery || sacked_at_least_dup_thresh) {
            return SimDuration::ZERO;
        }
        let (Some(min_rtt), Some(srtt)) = (min_rtt, srtt) else {
            return SimDuration::ZERO;
        };
        (min_rtt / 4)
            .saturating_mul(self.reo_wnd_mult as u64)
            .min(srtt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    fn at(x: u64) -> SimTime {
        SimTime::ZERO + ms(x)
    }

    #[test]
    fn rack_follows_the_most_recently_sent_delivered_segment() {
        let mut r = Rack::default();
        // Segments [0,1000) sent at 0 and [1000,2000) at 10 ms; the later one arrives first.
        r.on_delivered(at(100), 2000, at(10), false, None);
        assert_eq!((r.latest(), r.rtt()), (Some((at(10), 2000)), ms(90)));
        // The earlier one, delivered later, does not move RACK back (§6.2 step 2) but shows
        // reordering (step 3: never retransmitted, below RACK.fack).
        r.on_delivered(at(105), 1000, at(0), false, None);
        assert_eq!(r.latest(), Some((at(10), 2000)));
        assert!(r.reordering_seen());
        // A burst at one instant: the higher end is the later send.
        assert!(sent_after(at(5), 3000, at(5), 2000));
        assert!(!sent_after(at(5), 2000, at(5), 3000));
    }

    #[test]
    fn a_retransmission_acked_within_min_rtt_is_ignored() {
        // §6.2 step 2: the ACK came 5 ms after the retransmission, less than the 50 ms
        // minimum RTT: it was the original that arrived.
        let mut r = Rack::default();
        r.on_delivered(at(100), 1000, at(95), true, Some(ms(50)));
        assert_eq!(r.latest(), None);
        r.on_delivered(at(200), 1000, at(140), true, Some(ms(50)));
        assert_eq!(r.latest(), Some((at(140), 1000)));
    }

    #[test]
    fn reordering_window_follows_rfc_8985_step_4() {
        let mut r = Rack::default();
        let (min, srtt) = (Some(ms(40)), Some(ms(60)));
        // No reordering seen: zero in recovery or with DupThresh SACKed, else min_RTT/4.
        assert_eq!(r.reo_wnd(true, false, min, srtt), SimDuration::ZERO);
        assert_eq!(r.reo_wnd(false, true, min, srtt), SimDuration::ZERO);
        assert_eq!(r.reo_wnd(false, false, min, srtt), ms(10));
        r.reordering_seen = true;
        assert_eq!(r.reo_wnd(true, true, min, srtt), ms(10));
        // A DSACK widens it by one min_RTT/4 per round: 2 · 10 ms.
        r.on_ack(0, 10_000, true);
        assert_eq!(r.reo_wnd(false, false, min, srtt), ms(20));
        // Another DSACK in the same round (snd_una below 10 000) does not.
        r.on_ack(5_000, 12_000, true);
        assert_eq!(r.reo_wnd_mult(), 2);
        // Next round: it does; capped at SRTT (4 · 10 = 40, 5 · 10 = 50, 6 · 10 = 60 ≥ 60).
        for (una, nxt) in [(10_000, 20_000), (20_000, 30_000), (30_000, 40_000)] {
            r.on_ack(una, nxt, true);
        }
        assert_eq!(r.reo_wnd_mult(), 5);
        assert_eq!(r.reo_wnd(false, false, min, srtt), ms(50));
        r.on_ack(40_000, 50_000, true);
        assert_eq!(r.reo_wnd(false, false, min, srtt), ms(60));
        // 16 recoveries without a DSACK reset the multiplier to 1.
        for _ in 0..15 {
            r.on_recovery_exit();
        }
        assert_eq!(r.reo_wnd_mult(), 6);
        r.on_recovery_exit();
        assert_eq!(r.reo_wnd(false, false, min, srtt), ms(10));
    }
}
