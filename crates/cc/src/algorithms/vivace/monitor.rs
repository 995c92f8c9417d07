//! Monitor intervals: what was sent at each rate, and what came back for it.
//!
//! PCC attributes every packet to the MI that sent it and finishes an MI once each of its
//! packets is acknowledged or lost (PCC-Uspace `pcc_monitor_interval.cpp`). The controller
//! trait gives no packet identities, so positions stand in for them: every byte sent (new or
//! retransmitted) takes the next position, and every byte the ACKs account for — delivered
//! (`Ack::delivered`) or declared lost (`Ack::newly_lost`) — the next accounted position. On a
//! FIFO path both run in the same order, so the bytes of an MI are those whose positions fall
//! in its range. A retransmission whose original was not lost is never accounted for; an MI
//! whose last packet left more than two RTTs ago is finished anyway and the accounted position
//! catches up, so such drift does not stall the controller.

use crate::controller::Ack;
use crate::time::{SimDuration, SimTime};

/// MIs in flight at once: one opens per RTT and finishes about an RTT after it closes.
pub const CAPACITY: usize = 8;

/// What a finished MI measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MiResult {
    pub id: u64,
    pub target_rate_bps: f64,
    /// Bytes sent over the time from the first to the last send, bit/s.
    pub sending_rate_bps: f64,
    /// Lost bytes over the bytes accounted for.
    pub loss_rate: f64,
    /// Least-squares slope of the RTT samples against their send times (s/s).
    pub rtt_gradient: f64,
}

/// Running sums for the least-squares slope of RTT against send time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Regression {
    n: f64,
    sum_t: f64,
    sum_r: f64,
    sum_tt: f64,
    sum_tr: f64,
}

impl Regression {
    fn add(&mut self, t: f64, r: f64) {
        self.n += 1.0;
        self.sum_t += t;
        self.sum_r += r;
        self.sum_tt += t * t;
        self.sum_tr += t * r;
    }

    fn slope(&self) -> f64 {
        let denominator = self.n * self.sum_tt - self.sum_t * self.sum_t;
        if self.n < 2.0 || denominator.abs() < 1e-18 {
            return 0.0;
        }
        (self.n * self.sum_tr - self.sum_t * self.sum_r) / denominator
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Interval {
    id: u64,
    target_rate_bps: f64,
    /// Sending stops (the next MI opens) at this time.
    closes_at: SimTime,
    /// Positions [start, end) of the bytes it sent.
    start: u64,
    end: u64,
    first_sent: SimTime,
    last_sent: SimTime,
    acked: u64,
    lost: u64,
    rtts: Regression,
}

impl Interval {
    fn result(&self) -> MiResult {
        let span = self
            .last_sent
            .saturating_since(self.first_sent)
            .as_secs_f64();
        let sent_bits = (self.end - self.start) as f64 * 8.0;
        let accounted = self.acked + self.lost;
        MiResult {
            id: self.id,
            target_rate_bps: self.target_rate_bps,
            sending_rate_bps: if span > 0.0 {
                sent_bits / span
            } else {
                self.target_rate_bps
            },
            loss_rate: if accounted == 0 {
                0.0
            } else {
                self.lost as f64 / accounted as f64
            },
            rtt_gradient: self.rtts.slope(),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Monitor {
    /// Oldest first; `len` of them in use.
    intervals: [Option<Interval>; CAPACITY],
    next_id: u64,
    sent: u64,
    accounted: u64,
    /// `Ack::delivered` at the last ACK.
    delivered: Option<u64>,
    srtt: SimDuration,
}

impl Monitor {
    fn open_interval(&self) -> Option<&Interval> {
        self.intervals.iter().rev().flatten().next()
    }

    /// The MI that is sending closed (or there is none): the next packet opens a new one.
    pub fn needs_new_interval(&self, now: SimTime) -> bool {
        self.open_interval().is_none_or(|mi| now >= mi.closes_at)
    }

    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// The rate of the MI sending now.
    pub fn current_rate(&self) -> Option<f64> {
        self.open_interval().map(|mi| mi.target_rate_bps)
    }

    /// Open the next MI at `now`, sending at `rate_bps` for `duration`.
    pub fn open(&mut self, now: SimTime, rate_bps: f64, duration: SimDuration) {
        self.srtt = duration;
        let interval = Interval {
            id: self.next_id,
            target_rate_bps: rate_bps,
            closes_at: now + duration,
            start: self.sent,
            end: self.sent,
            first_sent: now,
            last_sent: now,
            acked: 0,
            lost: 0,
            rtts: Regression::default(),
        };
        self.next_id += 1;
        if let Some(free) = self.intervals.iter_mut().find(|slot| slot.is_none()) {
            *free = Some(interval);
        } else {
            // Every slot busy (ACKs stopped coming): the oldest is abandoned unscored.
            self.intervals.rotate_left(1);
            self.intervals[CAPACITY - 1] = Some(interval);
        }
    }

    /// A packet of `bytes` left at `now` (it belongs to the open MI).
    pub fn on_sent(&mut self, now: SimTime, bytes: u64) {
        self.sent += bytes;
        if let Some(mi) = self.intervals.iter_mut().rev().flatten().next() {
            mi.end = self.sent;
            mi.last_sent = now;
        }
    }

    /// Account an ACK; write the MIs it finished (oldest first) into `finished` and return
    /// how many.
    pub fn on_ack(&mut self, ack: &Ack, finished: &mut [Option<MiResult>; CAPACITY]) -> usize {
        let delivered = match self.delivered.replace(ack.delivered) {
            Some(before) => ack.delivered.saturating_sub(before),
            None => 0,
        };
        // The RTT sample belongs to the MI holding the newest byte this ACK accounts for.
        let rtt = ack.rtt.map(|rtt| {
            let sent_at = ack.now.saturating_since(SimTime::ZERO).saturating_sub(rtt);
            (sent_at.as_secs_f64(), rtt.as_secs_f64())
        });
        self.account(delivered, false);
        self.account(ack.newly_lost, true);
        if let Some((t, r)) = rtt {
            let position = self.accounted.saturating_sub(1);
            if let Some(mi) = self
                .intervals
                .iter_mut()
                .flatten()
                .find(|mi| (mi.start..mi.end.max(mi.start + 1)).contains(&position))
            {
                mi.rtts.add(t, r);
            }
        }
        self.collect(ack.now, finished)
    }

    /// Hand `bytes` accounted positions to the MIs they fall in.
    fn account(&mut self, mut bytes: u64, lost: bool) {
        while bytes > 0 {
            let accounted = self.accounted;
            let Some(mi) = self
                .intervals
                .iter_mut()
                .flatten()
                .find(|mi| accounted < mi.end)
            else {
                self.accounted += bytes;
                return;
            };
            if accounted < mi.start {
                // Bytes sent before this MI (before the first MI opened).
                let skipped = (mi.start - accounted).min(bytes);
                self.accounted += skipped;
                bytes -= skipped;
                continue;
            }
            let take = bytes.min(mi.end - accounted);
            if lost {
                mi.lost += take;
            } else {
                mi.acked += take;
            }
            self.accounted += take;
            bytes -= take;
        }
    }

    /// Finish, oldest first, every closed MI whose bytes are all accounted for or whose last
    /// byte left more than two RTTs ago.
    fn collect(&mut self, now: SimTime, finished: &mut [Option<MiResult>; CAPACITY]) -> usize {
        let mut n = 0;
        while let Some(mi) = self.intervals[0] {
            let closed = now >= mi.closes_at;
            let complete = self.accounted >= mi.end;
            let stale = now.saturating_since(mi.last_sent) > self.srtt * 2;
            if !(closed && (complete || stale)) {
                break;
            }
            if mi.end > mi.start {
                finished[n] = Some(mi.result());
                n += 1;
            }
            self.accounted = self.accounted.max(mi.end);
            self.intervals.rotate_left(1);
            self.intervals[CAPACITY - 1] = None;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{ack, ms};

    fn at(t_ms: u64) -> SimTime {
        SimTime::ZERO + ms(t_ms)
    }

    #[test]
    fn the_regression_slope_of_a_linear_series_is_its_slope() {
        let mut r = Regression::default();
        for i in 0..10 {
            let t = i as f64 * 0.01;
            r.add(t, 0.05 + 0.2 * t);
        }
        assert!((r.slope() - 0.2).abs() < 1e-9);
    }

    #[test]
    fn an_interval_finishes_when_its_bytes_are_accounted_for_and_measures_them() {
        let mut m = Monitor::default();
        m.open(at(0), 8e6, ms(10));
        // Ten 1000-byte packets over 9 ms: 80 000 bits / 9 ms.
        for i in 0..10 {
            m.on_sent(at(i), 1000);
        }
        let mut finished = [None; CAPACITY];
        // The first ACK sets the delivered baseline.
        assert_eq!(
            m.on_ack(
                &Ack {
                    delivered: 0,
                    ..ack(0)
                },
                &mut finished
            ),
            0
        );
        // 8 delivered, 2 lost, at t = 20 ms (closed): finished, loss 0.2.
        let n = m.on_ack(
            &Ack {
                now: at(20),
                delivered: 8000,
                newly_lost: 2000,
                ..ack(8000)
            },
            &mut finished,
        );
        assert_eq!(n, 1);
        let r = finished[0].expect("finished");
        assert!((r.loss_rate - 0.2).abs() < 1e-12);
        assert!((r.sending_rate_bps - 80_000.0 / 0.009).abs() < 1e-6);
    }

    #[test]
    fn a_stale_interval_finishes_after_two_rtts() {
        let mut m = Monitor::default();
        m.open(at(0), 8e6, ms(10));
        m.on_sent(at(0), 1000);
        let mut finished = [None; CAPACITY];
        m.on_ack(
            &Ack {
                delivered: 0,
                ..ack(0)
            },
            &mut finished,
        );
        assert_eq!(
            m.on_ack(
                &Ack {
                    now: at(15),
                    ..ack(0)
                },
                &mut finished
            ),
            0
        );
        assert_eq!(
            m.on_ack(
                &Ack {
                    now: at(21),
                    ..ack(0)
                },
                &mut finished
            ),
            1
        );
    }
}
