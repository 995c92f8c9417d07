//! The ACK-aggregation allowance of Linux's BBR v1 (`tcp_bbr.c` since Linux 5.1,
//! `bbr_update_ack_aggregation` and `bbr_ack_aggregation_cwnd`), in the `linux` variant only
//! (draft-00, the paper variant, has none). When ACKs arrive in bursts (aggregation in Wi-Fi,
//! GRO, delayed ACKs, a stalled path), a window of exactly gain·BDP leaves the sender idle
//! between bursts; Linux adds to the cwnd target the largest recent excess of acknowledged
//! data over what the bandwidth estimate predicts:
//!
//! - An *epoch* starts at an ACK; `expected = bw · (now − epoch start)`. Each ACK adds its
//!   newly acknowledged bytes to `epoch_acked`; when `epoch_acked ≤ expected` (the ACK rate
//!   fell to the estimate) or the epoch has acknowledged 2^20 packets, a new epoch starts at
//!   this ACK (`bbr_ack_epoch_acked_reset_thresh`).
//! - `extra = epoch_acked − expected`, at most cwnd, goes into a max filter of two slots of
//!   5 packet-timed rounds each (`bbr_extra_acked_win_rtts`): the max over the last 5–10
//!   rounds.
//! - Once the pipe is full, the cwnd target is `gain·BDP + min(max extra, bw · 100 ms)`
//!   (`bbr_extra_acked_gain` = 1, `bbr_extra_acked_max_us` = 100 ms), before the
//!   quantization budget.
//!
//! Linux counts packets and starts the first epoch at connection start; the model counts
//! bytes and starts it at the first ACK with a rate sample.

use crate::time::{SimDuration, SimTime};

/// `bbr_extra_acked_win_rtts`: rounds per filter slot.
const SLOT_ROUNDS: u32 = 5;
/// `bbr_extra_acked_max_us`: the allowance is at most 100 ms of data at the estimate.
const MAX_ALLOWANCE_TIME: SimDuration = SimDuration::from_millis(100);
/// `bbr_ack_epoch_acked_reset_thresh`: an epoch ends after 2^20 packets acknowledged.
const EPOCH_RESET_PACKETS: u64 = 1 << 20;

#[derive(Clone, Debug, Default)]
pub(super) struct AckAggregation {
    epoch_start: Option<SimTime>,
    /// Bytes acknowledged in this epoch.
    epoch_acked: u64,
    /// The filter's two slots (bytes) and the one being filled.
    slots: [u64; 2],
    slot: usize,
    /// Rounds since the current slot began.
    slot_rounds: u32,
}

impl AckAggregation {
    /// One ACK that acknowledged `acked` bytes and carried a rate sample. `round_start`: the
    /// ACK ended a packet-timed round; `bw`: the bandwidth estimate, bytes per second.
    pub(super) fn update(
        &mut self,
        now: SimTime,
        round_start: bool,
        bw: f64,
        acked: u64,
        cwnd: u64,
        mss: u64,
    ) {
        if acked == 0 {
            return;
        }
        if round_start {
            self.slot_rounds += 1;
            if self.slot_rounds >= SLOT_ROUNDS {
                self.slot_rounds = 0;
                self.slot ^= 1;
                self.slots[self.slot] = 0;
            }
        }
        let start = *self.epoch_start.get_or_insert(now);
        let mut expected = (bw * now.saturating_since(start).as_secs_f64()) as u64;
        if self.epoch_acked <= expected || self.epoch_acked + acked >= EPOCH_RESET_PACKETS * mss {
            self.epoch_acked = 0;
            self.epoch_start = Some(now);
            expected = 0;
        }
        self.epoch_acked += acked;
        let extra = (self.epoch_acked - expected).min(cwnd);
        self.slots[self.slot] = self.slots[self.slot].max(extra);
    }

    /// The filter's value: the largest excess over the last 5–10 rounds, bytes.
    pub(super) fn extra_acked(&self) -> u64 {
        self.slots[0].max(self.slots[1])
    }

    /// `bbr_ack_aggregation_cwnd`: what the cwnd target gains, bytes; nothing before the pipe
    /// is full.
    pub(super) fn allowance(&self, bw: f64, filled_pipe: bool) -> u64 {
        if !filled_pipe {
            return 0;
        }
        let cap = (bw * MAX_ALLOWANCE_TIME.as_secs_f64()) as u64;
        self.extra_acked().min(cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    /// 1 MB/s: 1000 bytes per millisecond, so `expected` is the epoch's length in ms × 1000.
    const BW: f64 = 1e6;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// Hand-worked from `bbr_update_ack_aggregation`: a burst at 0 ms (10 kB, nothing
    /// expected yet: extra 10 kB), 2 kB more at 5 ms (12 kB acknowledged, 5 kB expected:
    /// extra 7 kB, the filter keeps 10 kB), then 3 kB at 20 ms, when 20 kB were expected and
    /// only 12 kB came: a new epoch, extra 3 kB.
    #[test]
    fn extra_is_the_excess_over_the_estimate_since_the_epoch_began() {
        let mut a = AckAggregation::default();
        a.update(at(0), false, BW, 10_000, 1_000_000, MSS);
        assert_eq!((a.epoch_acked, a.extra_acked()), (10_000, 10_000));
        a.update(at(5), false, BW, 2_000, 1_000_000, MSS);
        assert_eq!((a.epoch_acked, a.extra_acked()), (12_000, 10_000));
        a.update(at(20), false, BW, 3_000, 1_000_000, MSS);
        assert_eq!((a.epoch_start, a.epoch_acked), (Some(at(20)), 3_000));
        assert_eq!(a.slots[a.slot], 10_000, "the slot keeps its max");
        // Clamped by cwnd: a 50 kB burst with cwnd 20 kB counts 20 kB.
        let mut b = AckAggregation::default();
        b.update(at(0), false, BW, 50_000, 20_000, MSS);
        assert_eq!(b.extra_acked(), 20_000);
    }

    /// The max filter forgets a burst after 5 to 10 rounds: the slot it is in is cleared
    /// when the filter comes back to it, 10 round starts later.
    #[test]
    fn the_filter_spans_two_slots_of_five_rounds() {
        let mut a = AckAggregation::default();
        a.update(at(0), false, BW, 10_000, 1_000_000, MSS);
        // One ACK per round afterwards, each exactly at the estimate (1 kB per ms): new
        // epochs with no excess beyond their own 1 kB.
        for round in 1..=9 {
            a.update(at(round * 10), true, BW, 1_000, 1_000_000, MSS);
            assert_eq!(a.extra_acked(), 10_000, "round {round}");
        }
        a.update(at(100), true, BW, 1_000, 1_000_000, MSS);
        assert_eq!(a.extra_acked(), 1_000);
    }

    /// `bbr_ack_aggregation_cwnd`: zero until the pipe is full, then at most 100 ms of data
    /// at the estimate (1 MB/s: 100 kB).
    #[test]
    fn the_allowance_waits_for_a_full_pipe_and_is_capped_at_100_ms_of_data() {
        let mut a = AckAggregation::default();
        a.update(at(0), false, BW, 150_000, 1_000_000, MSS);
        assert_eq!(a.allowance(BW, false), 0);
        assert_eq!(a.allowance(BW, true), 100_000);
        assert_eq!(a.allowance(2e6, true), 150_000);
    }
}
