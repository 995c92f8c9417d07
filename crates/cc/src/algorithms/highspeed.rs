//! HighSpeed TCP (S. Floyd, RFC 3649, "HighSpeed TCP for Large Congestion Windows", 2003),
//! with the a(w)/b(w) table of RFC 3649 Appendix B as Linux's tcp_highspeed.c uses it.
//!
//! Congestion avoidance: per ACK `cwnd += a(w)/cwnd` (a(w) segments per RTT, counted in
//! bytes, see [`ByteCountedIncrease`]); on a congestion event `cwnd <- (1 - b(w)) cwnd`.
//! For w <= Low_Window = 38 segments the table gives a = 1, b = 0.5: standard TCP (RFC 3649
//! §5). Slow start is the pluggable part (RFC 3649 §9 leaves it standard or RFC 3742).

use super::additive_increase::ByteCountedIncrease;
use super::highspeed_table::{self, LOW_WINDOW};
use super::multiplicative_decrease::multiplicative_decrease;
use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::ControllerMetrics;
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "highspeed",
    aliases: &["hstcp"],
    summary: "HighSpeed TCP: cwnd += a(w)/w per ACK, cwnd *= 1 - b(w) on loss; Reno up to 38 segments",
    reference: "RFC 3649 §5 and Appendix B (a(w)/b(w) table as in Linux net/ipv4/tcp_highspeed.c)",
    params: &[],
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, _params, slow_start| Box::new(HighSpeed::new(config, slow_start)),
};

pub struct HighSpeed {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    increase: ByteCountedIncrease,
    slow_start: Box<dyn SlowStart>,
}

impl HighSpeed {
    pub fn new(config: &CcConfig, slow_start: Box<dyn SlowStart>) -> Self {
        HighSpeed {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            increase: ByteCountedIncrease::new(),
            slow_start,
        }
    }

    /// The window in whole segments, the `w` that indexes the table (Linux uses snd_cwnd).
    fn window_segments(&self) -> u64 {
        self.cwnd / self.mss
    }

    /// RFC 3649 §5: `w <- (1 - b(w)) w`, b indexed by cwnd and applied to FlightSize (see
    /// [`multiplicative_decrease`]).
    fn reduced_ssthresh(&self, bytes_in_flight: u64) -> u64 {
        let b = highspeed_table::row_for(self.window_segments()).b;
        multiplicative_decrease(bytes_in_flight, 1.0 - b, self.mss)
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        if !ack.may_grow() {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
            return;
        }
        // RFC 3649 §5: w <- w + a(w)/w per ACK, a(w) from Appendix B.
        let a = highspeed_table::row_for(self.window_segments()).a;
        self.increase
            .grow(&mut self.cwnd, self.mss, ack.bytes_acked, f64::from(a));
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.ssthresh = self.reduced_ssthresh(event.bytes_in_flight);
        self.cwnd = self.ssthresh;
        self.increase.reset();
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // As Linux: the same b(w) sets ssthresh.
        self.ssthresh = self.reduced_ssthresh(event.bytes_in_flight);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // cwnd falls to the 1-SMSS loss window.
        self.cwnd = self.mss;
        self.increase.reset();
        self.slow_start.restart();
    }

    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics::with_slow_start(self.slow_start.as_ref())
    }

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Linux `tcp_reno_undo_cwnd`: the window and threshold come back, nothing else.
        (self.cwnd, self.ssthresh) = event.reno_restore(self.cwnd, self.ssthresh);
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd;
        self.ssthresh = ssthresh;
    }

    fn mode(&self) -> &'static str {
        if self.cwnd < self.ssthresh {
            "slow_start"
        } else if self.window_segments() <= LOW_WINDOW {
            "reno"
        } else {
            "highspeed"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, loss, timeout};

    const MSS: u64 = 1000;

    fn highspeed_at(cwnd_segments: u64) -> HighSpeed {
        let config = CcConfig::new(MSS);
        let mut h = HighSpeed::new(&config, Box::new(StandardSlowStart::new(&config)));
        h.cwnd = cwnd_segments * MSS;
        h.ssthresh = cwnd_segments * MSS;
        h
    }

    /// Number of one-segment ACKs until cwnd first grows.
    fn acks_until_growth(h: &mut HighSpeed) -> u64 {
        let before = h.cwnd();
        let mut n = 0;
        while h.cwnd() == before {
            h.on_ack(&ack(MSS));
            n += 1;
            assert!(n < 1_000_000, "cwnd never grew");
        }
        n
    }

    #[test]
    fn reno_below_low_window() {
        // w = 30 <= 38: a = 1, one SMSS per window of 30 segments.
        let mut h = highspeed_at(30);
        assert_eq!(h.mode(), "reno");
        assert_eq!(acks_until_growth(&mut h), 30);
        assert_eq!(h.cwnd(), 31 * MSS);
        // b = 0.5: ssthresh = FlightSize/2.
        h.on_congestion_event(&loss(31 * MSS));
        assert_eq!((h.cwnd(), h.ssthresh()), (15_500, 15_500));
    }

    #[test]
    fn increase_a_w_segments_per_rtt_from_the_table() {
        // w = 1000 is in the row (851, 1058]: a = 8. cwnd += 8/1000 per segment, so one SMSS
        // per 1000/8 = 125 segments acknowledged.
        let mut h = highspeed_at(1000);
        assert_eq!(h.mode(), "highspeed");
        assert_eq!(acks_until_growth(&mut h), 125);
        // w = 100 is in the row (38, 118]: a = 2 -> one SMSS per 50 segments.
        let mut h = highspeed_at(100);
        assert_eq!(acks_until_growth(&mut h), 50);
        // w = 10 000 in (9991, 10661]: a = 30 -> ceil(10 000/30) = 334 segments.
        let mut h = highspeed_at(10_000);
        assert_eq!(acks_until_growth(&mut h), 334);
        // Delayed ACKs: w = 1000, ACKs of 2 SMSS -> 125 segments = 63 ACKs (62.5 rounded up).
        let mut h = highspeed_at(1000);
        let mut n = 0;
        while h.cwnd() == 1000 * MSS {
            h.on_ack(&ack(2 * MSS));
            n += 1;
        }
        assert_eq!(n, 63);
    }

    #[test]
    fn decrease_b_w_from_the_table() {
        // w = 1000: b = 0.33 -> ssthresh = 0.67 * FlightSize = 670 000 bytes.
        let mut h = highspeed_at(1000);
        h.on_congestion_event(&loss(1000 * MSS));
        assert_eq!((h.cwnd(), h.ssthresh()), (670_000, 670_000));
        // w = 200: row (118, 221], b = 0.41 -> 0.59 * 200 000 = 118 000.
        let mut h = highspeed_at(200);
        h.on_congestion_event(&loss(200 * MSS));
        assert_eq!(h.ssthresh(), 118_000);
        // w = 100 000, beyond the last row: b = 0.10 -> 0.9 * 1e8 = 9e7.
        let mut h = highspeed_at(100_000);
        h.on_congestion_event(&loss(100_000 * MSS));
        assert_eq!(h.ssthresh(), 90_000_000);
    }

    #[test]
    fn timeout_uses_b_w_and_the_loss_window() {
        let mut h = highspeed_at(1000);
        new_timeout(&mut h, &timeout(1000 * MSS));
        assert_eq!((h.cwnd(), h.ssthresh()), (MSS, 670_000));
        assert_eq!(h.mode(), "slow_start");
        // Slow start resumes: +1 SMSS per SMSS acknowledged.
        h.on_ack(&ack(MSS));
        assert_eq!(h.cwnd(), 2 * MSS);
    }

    #[test]
    fn timeout_within_a_loss_episode_keeps_ssthresh() {
        let mut h = highspeed_at(1000);
        h.on_congestion_event(&loss(1000 * MSS));
        h.on_retransmission_timeout(&timeout(600 * MSS));
        assert_eq!((h.cwnd(), h.ssthresh()), (MSS, 670_000));
    }

    #[test]
    fn ssthresh_floor_is_two_segments() {
        let mut h = highspeed_at(3);
        h.on_congestion_event(&loss(3 * MSS));
        assert_eq!(h.ssthresh(), 2 * MSS);
    }

    #[test]
    fn no_growth_in_recovery_or_when_not_cwnd_limited() {
        let mut h = highspeed_at(1000);
        for _ in 0..200 {
            h.on_ack(&Ack {
                in_recovery: true,
                ..ack(MSS)
            });
            h.on_ack(&Ack {
                cwnd_limited: false,
                ..ack(MSS)
            });
        }
        assert_eq!(h.cwnd(), 1000 * MSS);
    }
}
