//! A trace-driven transmitter: packets leave at the delivery opportunities of a mahimahi
//! trace instead of after a serialization time.
//!
//! The semantics are mahimahi's `LinkQueue::rationalize` (src/frontend/link_queue.cc):
//! - each opportunity may release up to 1504 bytes (`PACKET_SIZE`); a packet larger than what
//!   is left of one continues into the next (mahimahi's "packet in transit"), and a packet
//!   leaves the link at the opportunity that carries its last byte;
//! - bytes an opportunity has left when the queue is empty are wasted, not banked;
//! - a packet can use only opportunities after it arrived: mahimahi burns the opportunities
//!   due at or before `now` before it enqueues a packet arriving at `now`;
//! - the schedule repeats with a period equal to its last timestamp (the base timestamp moves
//!   by it at each wrap-around).
//!
//! The link stays first in, first out at this level: the next packet is known to start when
//! the previous one is done, so the departure of each packet follows from the schedule's
//! cursor alone (one event per packet per hop, as on a wired link).

use std::collections::VecDeque;
use std::sync::Arc;

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::trace_link::{DeliverySchedule, OPPORTUNITY_BYTES};

const NS_PER_MS: u64 = 1_000_000;

/// One direction's delivery schedule and where the link is in it.
#[derive(Clone, Debug)]
pub struct TraceTransmitter {
    /// Millisecond timestamps of one period (shared with the scenario).
    times_ms: Arc<[u32]>,
    period_ms: u64,
    /// The next opportunity not yet used: its period and index.
    cycle: u64,
    index: usize,
    /// The last opportunity used: its time, the bytes it has left and its share. A packet
    /// that was waiting by then may still use those bytes.
    last: SimTime,
    left: u32,
    last_share_ns: u64,
    /// Busy time credited to packets that leave after the latest `transmit` call: (departure,
    /// credit), in departure order, so that busy time up to an instant excludes them.
    pending: VecDeque<(SimTime, SimDuration)>,
}

/// One packet's passage through the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmission {
    /// The opportunity that carries its last byte: it leaves the link then.
    pub end: SimTime,
    /// The share of the opportunities' time its bytes used (its "serialization" time).
    pub busy: SimDuration,
}

impl TraceTransmitter {
    pub fn new(schedule: &DeliverySchedule) -> Self {
        TraceTransmitter {
            period_ms: schedule.period_ms(),
            times_ms: schedule.times_ms.clone(),
            cycle: 0,
            index: 0,
            last: SimTime::ZERO,
            left: 0,
            last_share_ns: 0,
            pending: VecDeque::new(),
        }
    }

    /// Time of the next unused opportunity, in milliseconds.
    fn next_ms(&self) -> u64 {
        self.cycle * self.period_ms + self.times_ms[self.index] as u64
    }

    /// Move the cursor to the first opportunity at or after `min_ms` (never backwards).
    fn skip_to(&mut self, min_ms: u64) {
        if min_ms == 0 || self.next_ms() >= min_ms {
            return;
        }
        // Opportunities of period c lie in [c·P, (c + 1)·P]; the first one at or after
        // min_ms is in the period that holds min_ms − 1 (P is the last timestamp, so the
        // search always ends inside it).
        let cycle = (min_ms - 1) / self.period_ms;
        let offset = min_ms - cycle * self.period_ms;
        self.cycle = cycle;
        self.index = self.times_ms.partition_point(|&t| (t as u64) < offset);
    }

    /// The time opportunity `index` stands for, in nanoseconds: the gap since the previous
    /// distinct timestamp (the start of the period for the first), shared equally among the
    /// opportunities at its timestamp, so that a fully used schedule is busy all the time.
    /// Computed when used (two binary searches) rather than stored: a trace may be millions
    /// of lines, and every direction of every link using it has its own transmitter.
    fn share_ns(&self, index: usize) -> u64 {
        let t = self.times_ms[index];
        let first = self.times_ms.partition_point(|&x| x < t);
        let end = self.times_ms.partition_point(|&x| x <= t);
        let previous = if first == 0 {
            0
        } else {
            self.times_ms[first - 1]
        };
        (t - previous) as u64 * NS_PER_MS / (end - first) as u64
    }

    /// Use the next opportunity: its time and share.
    fn take_next(&mut self) -> (SimTime, u64) {
        let at = SimTime::from_nanos(self.next_ms() * NS_PER_MS);
        let share = self.share_ns(self.index);
        self.index += 1;
        if self.index == self.times_ms.len() {
            self.index = 0;
            self.cycle += 1;
        }
        (at, share)
    }

    /// Send a packet of `bytes` that reached the link at `arrival` and whose turn comes at
    /// `now` (the previous packet is done): when it leaves, and the busy time it used.
    pub fn transmit(&mut self, now: SimTime, arrival: SimTime, bytes: u32) -> Transmission {
        // The simulation's clock is at `arrival` or later (a FIFO link computes departures
        // at admission, `now` may lie ahead): what left by then is no longer pending.
        while self.pending.front().is_some_and(|&(end, _)| end <= arrival) {
            self.pending.pop_front();
        }
        let mut remaining = bytes;
        // Busy time in ns × OPPORTUNITY_BYTES, divided once at the end.
        let mut credit: u128 = 0;
        // What the last opportunity used has left, if this packet was waiting by then.
        if self.left > 0 && self.last > arrival && self.last >= now {
            let used = remaining.min(self.left);
            remaining -= used;
            self.left -= used;
            credit += used as u128 * self.last_share_ns as u128;
        } else {
            self.left = 0;
        }
        if remaining > 0 {
            // Opportunities strictly after the arrival (mahimahi burns those due at its
            // arrival first) and not in the past.
            let after_arrival = arrival.as_nanos() / NS_PER_MS + 1;
            let not_before = now.as_nanos().div_ceil(NS_PER_MS);
            self.skip_to(after_arrival.max(not_before));
        }
        while remaining > 0 {
            let (at, share) = self.take_next();
            let used = remaining.min(OPPORTUNITY_BYTES);
            remaining -= used;
            credit += used as u128 * share as u128;
            self.last = at;
            self.left = OPPORTUNITY_BYTES - used;
            self.last_share_ns = share;
        }
        let busy = SimDuration::from_nanos((credit / OPPORTUNITY_BYTES as u128) as u64);
        if self.last > arrival {
            self.pending.push_back((self.last, busy));
        }
        Transmission {
            end: self.last,
            busy,
        }
    }

    /// Busy time credited to packets that leave after `t` (at most a queue's worth).
    pub fn busy_after(&self, t: SimTime) -> SimDuration {
        self.pending
            .iter()
            .filter(|&&(end, _)| end > t)
            .fold(SimDuration::ZERO, |sum, &(_, busy)| sum + busy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transmitter(times: &[u32]) -> TraceTransmitter {
        TraceTransmitter::new(&DeliverySchedule {
            file: "test".into(),
            times_ms: times.into(),
        })
    }

    fn ms(t: u64) -> SimTime {
        SimTime::from_nanos(t * NS_PER_MS)
    }

    fn us(t: u64) -> SimTime {
        SimTime::from_nanos(t * 1000)
    }

    /// Send `(arrival, bytes)` packets in order through a FIFO: each starts when it arrives
    /// or when the one before it is done, whichever is later (as the link does).
    fn departures(tx: &mut TraceTransmitter, packets: &[(SimTime, u32)]) -> Vec<SimTime> {
        let mut done = SimTime::ZERO;
        packets
            .iter()
            .map(|&(arrival, bytes)| {
                let now = arrival.max(done);
                done = tx.transmit(now, arrival, bytes).end;
                done
            })
            .collect()
    }

    #[test]
    fn a_hand_worked_mahimahi_example() {
        // Opportunities at 2, 4, 4, 7 ms (period 7). Worked through rationalize():
        // - A (1500 B, arrives 0.5 ms): the opportunity at 2 carries it, 4 bytes left over.
        // - B (500 B, arrives 1 ms, waiting at 2): 4 bytes at 2, then 496 at the first
        //   opportunity at 4, which has 1008 left; B leaves at 4.
        // - C (2000 B, arrives 3 ms, waiting at 4): 1008 bytes of the first opportunity at 4,
        //   the second one at 4 carries the other 992 (512 left): C leaves at 4.
        // - D (1500 B, arrives 4.5 ms): the 512 bytes left at 4 came before it and are lost;
        //   the opportunity at 7 carries it.
        // - E (100 B, arrives 7 ms exactly): the opportunity at 7 was used before E arrived
        //   (mahimahi burns opportunities due at `now` before enqueueing), so E waits for the
        //   next period: 7 + 2 = 9 ms.
        let mut tx = transmitter(&[2, 4, 4, 7]);
        let got = departures(
            &mut tx,
            &[
                (us(500), 1500),
                (us(1000), 500),
                (us(3000), 2000),
                (us(4500), 1500),
                (ms(7), 100),
            ],
        );
        assert_eq!(got, vec![ms(2), ms(4), ms(4), ms(7), ms(9)]);
    }

    #[test]
    fn a_saturated_constant_trace_carries_1504_bytes_per_millisecond() {
        // Lines "1": one opportunity per ms, period 1 ms. 1500-byte packets all waiting from
        // t = 0: packet k (from 1) ends at ceil(1500 k / 1504) ms, as leftover bytes carry
        // into the next packet; 376 packets take exactly 375 ms.
        let mut tx = transmitter(&[1]);
        let packets = vec![(SimTime::ZERO, 1500); 376];
        let got = departures(&mut tx, &packets);
        for (i, end) in got.iter().enumerate() {
            let k = i as u64 + 1;
            assert_eq!(*end, ms((1500 * k).div_ceil(1504)), "packet {k}");
        }
        assert_eq!(got[375], ms(375));
    }

    #[test]
    fn a_packet_larger_than_an_opportunity_spans_several() {
        // 4000 B over opportunities at 1, 2, 3 ms: 1504 + 1504 + 992.
        let mut tx = transmitter(&[1, 2, 3]);
        assert_eq!(tx.transmit(SimTime::ZERO, SimTime::ZERO, 4000).end, ms(3));
    }

    #[test]
    fn the_schedule_repeats_with_its_last_timestamp_as_period() {
        // Period 10 ms: opportunities at 0, 10 | 10, 20 | 20, 30...
        let mut tx = transmitter(&[0, 10]);
        // Arriving at 25 ms: the next opportunity after 25 is at 30.
        assert_eq!(tx.transmit(ms(25), ms(25), 100).end, ms(30));
        // At 30 exactly the one at 30 (the fourth period's first, 3·10 + 0) has gone by: the
        // next one is 40.
        assert_eq!(tx.transmit(ms(30), ms(30), 100).end, ms(40));
    }

    #[test]
    fn each_opportunity_stands_for_its_share_of_the_gap_before_it() {
        // Timestamps 0, 3, 3, 3, 4: the one at 0 follows the period's start (gap 0), the three
        // at 3 share 3 ms, the one at 4 has 1 ms; together the whole 4 ms period.
        let tx = transmitter(&[0, 3, 3, 3, 4]);
        let shares: Vec<u64> = (0..5).map(|i| tx.share_ns(i)).collect();
        assert_eq!(shares, vec![0, 1_000_000, 1_000_000, 1_000_000, 1_000_000]);
    }

    #[test]
    fn busy_time_is_the_share_of_the_opportunities_used() {
        // One opportunity every 2 ms: each stands for 2 ms. A 752-byte packet uses half of
        // one: 1 ms busy.
        let mut tx = transmitter(&[2]);
        let t = tx.transmit(SimTime::ZERO, SimTime::ZERO, 752);
        assert_eq!(
            t,
            Transmission {
                end: ms(2),
                busy: SimDuration::from_millis(1)
            }
        );
        assert_eq!(tx.busy_after(ms(1)), SimDuration::from_millis(1));
        assert_eq!(tx.busy_after(ms(2)), SimDuration::ZERO);
        // Ten more packets of 1504 bytes admitted at 3 ms leave at 4, 6, ... 22 ms, each
        // 2 ms busy: after 10 ms, those leaving at 12..=22 ms (six) are still to come.
        for _ in 0..10 {
            let now = tx.last.max(ms(3));
            tx.transmit(now, ms(3), 1504);
        }
        assert_eq!(tx.busy_after(ms(10)), SimDuration::from_millis(12));
    }
}
