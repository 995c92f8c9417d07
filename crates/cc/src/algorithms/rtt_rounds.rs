//! Per-round-trip RTT measurement shared by the delay-based controllers (Vegas, Dynamic
//! Vegas, FAST, Compound, Illinois, YeAH).
//!
//! A *round* is one round trip of data, delimited the way Linux's `tcp_vegas.c` does it: when
//! a round starts we record `snd_nxt`; the round ends at the first ACK whose cumulative point
//! `snd_una` lies strictly beyond that mark, i.e. the first ACK for data sent after the round
//! began. With an ACK-clocked sender that is exactly one RTT (one window of bytes) after the
//! ACK that started the round. The ACK that ends a round also starts the next one, so rounds
//! tile the ACK stream without gaps. Every RTT sample of the round is kept as a count, a
//! minimum, a maximum and a sum (for the mean), without allocation.
//!
//! The tracker also keeps `BaseRTT`, the smallest sample ever seen (Brakmo & Peterson 1995
//! §3.2: "the minimum of all measured round trip times").

use crate::controller::Ack;
use crate::time::{SimDuration, SimTime};

/// The RTT samples of one finished round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundStats {
    /// Number of RTT samples taken during the round.
    pub samples: u32,
    min_nanos: u64,
    max_nanos: u64,
    sum_nanos: u128,
}

impl RoundStats {
    const EMPTY: RoundStats = RoundStats {
        samples: 0,
        min_nanos: u64::MAX,
        max_nanos: 0,
        sum_nanos: 0,
    };

    fn add(&mut self, rtt: SimDuration) {
        let nanos = rtt.as_nanos();
        self.samples += 1;
        self.min_nanos = self.min_nanos.min(nanos);
        self.max_nanos = self.max_nanos.max(nanos);
        self.sum_nanos += u128::from(nanos);
    }

    /// A finished round made of `samples` (for tests of the controllers' equations).
    #[cfg(test)]
    pub fn of(samples: &[SimDuration]) -> RoundStats {
        let mut stats = RoundStats::EMPTY;
        for &rtt in samples {
            stats.add(rtt);
        }
        stats
    }

    /// Smallest sample of the round (Linux Vegas: filters out delayed-ACK inflation).
    pub fn min_rtt(&self) -> Option<SimDuration> {
        (self.samples > 0).then(|| SimDuration::from_nanos(self.min_nanos))
    }

    /// Largest sample of the round.
    pub fn max_rtt(&self) -> Option<SimDuration> {
        (self.samples > 0).then(|| SimDuration::from_nanos(self.max_nanos))
    }

    /// Arithmetic mean of the round's samples, truncated to whole nanoseconds (ns-2 Vegas
    /// and Illinois use the mean RTT of the last round).
    pub fn mean_rtt(&self) -> Option<SimDuration> {
        (self.samples > 0).then(|| {
            // The mean of u64 values fits in u64.
            SimDuration::from_nanos((self.sum_nanos / u128::from(self.samples)) as u64)
        })
    }
}

/// Splits the ACK stream into rounds and collects each round's RTT samples.
#[derive(Clone, Debug)]
pub struct RoundTracker {
    /// `snd_nxt` when the current round began; `None` until the next ACK starts a round.
    round_end: Option<u64>,
    current: RoundStats,
    base_rtt: Option<SimDuration>,
    /// When the latest ACK arrived: a send at that instant was clocked out by it.
    last_ack: Option<SimTime>,
}

impl Default for RoundTracker {
    fn default() -> Self {
        Self::new()
    }
}

impl RoundTracker {
    pub const fn new() -> Self {
        RoundTracker {
            round_end: None,
            current: RoundStats::EMPTY,
            base_rtt: None,
            last_ack: None,
        }
    }

    /// Smallest RTT sample seen so far (`BaseRTT`).
    pub fn base_rtt(&self) -> Option<SimDuration> {
        self.base_rtt
    }

    /// Record this ACK's RTT sample; if the ACK ends the current round, return the round's
    /// samples (the ending ACK's own sample included, as Linux's `pkts_acked` runs before
    /// `cong_avoid`) and start the next round at this ACK.
    pub fn on_ack(&mut self, ack: &Ack) -> Option<RoundStats> {
        self.last_ack = Some(ack.now);
        if let Some(rtt) = ack.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |base| base.min(rtt)));
            self.current.add(rtt);
        }
        match self.round_end {
            None => {
                self.round_end = Some(ack.snd_nxt);
                None
            }
            Some(end) if ack.snd_una > end => {
                let finished = self.current;
                self.current = RoundStats::EMPTY;
                self.round_end = Some(ack.snd_nxt);
                Some(finished)
            }
            Some(_) => None,
        }
    }

    /// Forget the current round: the next ACK starts a fresh one. Linux re-arms Vegas this
    /// way after a timeout, after loss recovery and when restarting from idle, because the
    /// samples of an interrupted round describe a window that no longer exists. `BaseRTT`
    /// is kept.
    pub fn restart(&mut self) {
        self.round_end = None;
        self.current = RoundStats::EMPTY;
    }

    /// A segment of `bytes` left the sender, `bytes_in_flight` including it. If nothing else
    /// was outstanding and no ACK clocked it out at this instant, the sender had been idle
    /// and the round in progress spans the idle time: measuring starts afresh (Linux Vegas
    /// resets on `CA_EVENT_TX_START`; `BaseRTT` is kept, the paper's "minimum of all measured
    /// round trip times"). A one-segment window also sends from an empty pipe, but on the ACK
    /// that emptied it; restarting there would never let a round finish (Linux Vegas falls
    /// back to Reno then, with fewer than 3 samples).
    pub fn on_packet_sent(&mut self, now: SimTime, bytes: u64, bytes_in_flight: u64) {
        if bytes_in_flight == bytes && self.last_ack != Some(now) {
            self.restart();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::ack;

    fn ack_at(snd_una: u64, snd_nxt: u64, rtt_ms: Option<u64>) -> Ack {
        Ack {
            snd_una,
            snd_nxt,
            rtt: rtt_ms.map(SimDuration::from_millis),
            ..ack(1000)
        }
    }

    #[test]
    fn a_round_ends_at_the_first_ack_beyond_the_recorded_snd_nxt() {
        let mut t = RoundTracker::new();
        // The first ACK starts a round that ends once snd_una passes 4000.
        assert_eq!(t.on_ack(&ack_at(1000, 4000, Some(100))), None);
        assert_eq!(t.on_ack(&ack_at(2000, 5000, Some(120))), None);
        assert_eq!(t.on_ack(&ack_at(3000, 6000, None)), None);
        // snd_una == 4000 has not passed the mark yet (Linux: after(ack, beg_snd_nxt)).
        assert_eq!(t.on_ack(&ack_at(4000, 7000, Some(110))), None);
        let round = t.on_ack(&ack_at(5000, 8000, Some(130))).unwrap();
        // Samples 100, 120, 110, 130 ms: min 100, max 130, mean 460/4 = 115.
        assert_eq!(round.samples, 4);
        assert_eq!(round.min_rtt(), Some(SimDuration::from_millis(100)));
        assert_eq!(round.max_rtt(), Some(SimDuration::from_millis(130)));
        assert_eq!(round.mean_rtt(), Some(SimDuration::from_millis(115)));
        // The ending ACK started the next round, which ends after snd_una passes 8000.
        assert_eq!(t.on_ack(&ack_at(8000, 9000, Some(90))), None);
        let next = t.on_ack(&ack_at(9000, 9000, None)).unwrap();
        assert_eq!(next.samples, 1);
        assert_eq!(t.base_rtt(), Some(SimDuration::from_millis(90)));
    }

    #[test]
    fn restart_discards_the_interrupted_round_but_keeps_base_rtt() {
        let mut t = RoundTracker::new();
        t.on_ack(&ack_at(1000, 3000, Some(50)));
        t.on_ack(&ack_at(2000, 4000, Some(70)));
        t.restart();
        // The next ACK starts a new round (snd_nxt 6000) instead of ending the old one.
        assert_eq!(t.on_ack(&ack_at(4000, 6000, Some(80))), None);
        let round = t.on_ack(&ack_at(7000, 8000, Some(80))).unwrap();
        assert_eq!(round.samples, 2);
        assert_eq!(round.mean_rtt(), Some(SimDuration::from_millis(80)));
        assert_eq!(t.base_rtt(), Some(SimDuration::from_millis(50)));
    }

    #[test]
    fn a_one_segment_window_finishes_rounds_but_a_send_after_idle_restarts() {
        let mut t = RoundTracker::new();
        let at = |ms| SimTime::ZERO + SimDuration::from_millis(ms);
        let one = |snd_una, ms| Ack {
            now: at(ms),
            ..ack_at(snd_una, snd_una, Some(100))
        };
        // One segment per RTT: each ACK empties the pipe and clocks out the next segment.
        assert_eq!(t.on_ack(&one(1000, 100)), None);
        t.on_packet_sent(at(100), 1000, 1000);
        let round = t
            .on_ack(&one(2000, 200))
            .expect("the round ends one RTT later");
        assert_eq!(round.samples, 2);
        // Idle: the next segment leaves 5 s after the last ACK; its round starts afresh.
        t.on_packet_sent(at(5200), 1000, 1000);
        assert_eq!(t.on_ack(&one(3000, 5300)), None);
    }

    #[test]
    fn a_round_without_samples_reports_none() {
        let mut t = RoundTracker::new();
        t.on_ack(&ack_at(1000, 2000, None));
        let round = t.on_ack(&ack_at(3000, 3000, None)).unwrap();
        assert_eq!(round.samples, 0);
        assert_eq!(round.min_rtt(), None);
        assert_eq!(round.mean_rtt(), None);
        assert_eq!(t.base_rtt(), None);
    }
}
