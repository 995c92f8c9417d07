//! Reno / NewReno congestion response (RFC 5681; the NewReno part, RFC 6582, is loss
//! recovery and lives in the sender).
//!
//! Slow start is the pluggable part; congestion avoidance counts bytes (RFC 3465 §2.1, as
//! Linux's `tcp_cong_avoid_ai` counts ACKed segments): cwnd grows by one SMSS each time a
//! full window of bytes has been acknowledged, i.e. one SMSS per RTT even with delayed ACKs.

use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, half_flight_ssthresh,
};
use crate::metrics::ControllerMetrics;
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "reno",
    aliases: &["newreno"],
    summary: "AIMD: +1 MSS per RTT, halve on loss (NewReno response; recovery is the sender's)",
    reference: "RFC 5681 §3.1-3.2; RFC 6582; RFC 3465 byte counting",
    params: &[],
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, _params, slow_start| Box::new(Reno::new(config, slow_start)),
};

pub struct Reno {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged since cwnd last grew in congestion avoidance (RFC 3465 §2.1).
    bytes_acked_in_ca: u64,
    slow_start: Box<dyn SlowStart>,
}

impl Reno {
    pub fn new(config: &CcConfig, slow_start: Box<dyn SlowStart>) -> Self {
        Reno {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            bytes_acked_in_ca: 0,
            slow_start,
        }
    }
}

impl CongestionControl for Reno {
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
        // RFC 3465 §2.1: when bytes_acked reaches cwnd, cwnd += SMSS.
        self.bytes_acked_in_ca += ack.bytes_acked;
        if self.bytes_acked_in_ca >= self.cwnd {
            self.bytes_acked_in_ca -= self.cwnd;
            self.cwnd += self.mss;
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        // RFC 5681 §3.2 step 2: ssthresh = max(FlightSize/2, 2*SMSS); cwnd after recovery.
        self.ssthresh = half_flight_ssthresh(event.bytes_in_flight, self.mss);
        self.cwnd = self.ssthresh;
        self.bytes_acked_in_ca = 0;
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // RFC 5681 §3.1 eq. (4).
        self.ssthresh = half_flight_ssthresh(event.bytes_in_flight, self.mss);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // RFC 5681 §3.1: the loss window LW = 1 SMSS.
        self.cwnd = self.mss;
        self.bytes_acked_in_ca = 0;
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::UNLIMITED;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, loss, timeout};

    const MSS: u64 = 1000;

    fn reno() -> Reno {
        let config = CcConfig::new(MSS);
        Reno::new(&config, Box::new(StandardSlowStart::new(&config)))
    }

    #[test]
    fn starts_with_rfc6928_window_and_no_threshold() {
        let r = reno();
        assert_eq!(r.cwnd(), 10 * MSS);
        assert_eq!(r.ssthresh(), UNLIMITED);
    }

    #[test]
    fn slow_start_then_one_mss_per_window_in_avoidance() {
        let mut r = reno();
        r.on_congestion_event(&loss(40 * MSS));
        // ssthresh = FlightSize/2 = 20 MSS; cwnd after recovery = ssthresh.
        assert_eq!((r.cwnd(), r.ssthresh()), (20 * MSS, 20 * MSS));
        // 20 ACKs of one segment (one RTT): +1 MSS exactly once.
        for _ in 0..19 {
            r.on_ack(&ack(MSS));
        }
        assert_eq!(r.cwnd(), 20 * MSS);
        r.on_ack(&ack(MSS));
        assert_eq!(r.cwnd(), 21 * MSS);
        // Delayed ACKs (2 segments each) give the same growth per window of data.
        for _ in 0..10 {
            r.on_ack(&ack(2 * MSS));
        }
        assert_eq!(r.cwnd(), 21 * MSS);
        r.on_ack(&ack(2 * MSS));
        assert_eq!(r.cwnd(), 22 * MSS);
    }

    #[test]
    fn bytes_beyond_a_window_carry_over_to_the_next_increase() {
        // RFC 3465 §2.1: when bytes_acked ≥ cwnd, bytes_acked −= cwnd and cwnd += SMSS; the
        // excess counts toward the next increase.
        let mut r = reno();
        r.on_congestion_event(&loss(40 * MSS));
        assert_eq!(r.cwnd(), 20 * MSS);
        // ACKs of 6 segments: the 4th brings bytes_acked to 24 MSS ≥ 20 MSS, so cwnd becomes
        // 21 MSS with 4 MSS carried over.
        for _ in 0..4 {
            r.on_ack(&ack(6 * MSS));
        }
        assert_eq!(r.cwnd(), 21 * MSS);
        // 4 + 6 + 6 = 16 MSS < 21 MSS: no increase yet; the third ACK makes 22 MSS ≥ 21 MSS.
        // Without the carry it would take a fourth (6 + 6 + 6 = 18 < 21).
        r.on_ack(&ack(6 * MSS));
        r.on_ack(&ack(6 * MSS));
        assert_eq!(r.cwnd(), 21 * MSS);
        r.on_ack(&ack(6 * MSS));
        assert_eq!(r.cwnd(), 22 * MSS);
    }

    #[test]
    fn ssthresh_never_below_two_segments() {
        let mut r = reno();
        r.on_congestion_event(&loss(3 * MSS));
        assert_eq!(r.ssthresh(), 2 * MSS);
    }

    #[test]
    fn timeout_collapses_to_loss_window_then_slow_starts() {
        let mut r = reno();
        new_timeout(&mut r, &timeout(30 * MSS));
        assert_eq!((r.cwnd(), r.ssthresh()), (MSS, 15 * MSS));
        r.on_ack(&ack(MSS));
        assert_eq!(r.cwnd(), 2 * MSS);
    }

    #[test]
    fn timeout_within_a_loss_episode_keeps_ssthresh() {
        let mut r = reno();
        r.on_congestion_event(&loss(40 * MSS));
        r.on_retransmission_timeout(&timeout(80 * MSS));
        assert_eq!((r.cwnd(), r.ssthresh()), (MSS, 20 * MSS));
    }

    #[test]
    fn no_growth_in_recovery_or_when_not_cwnd_limited() {
        let mut r = reno();
        r.on_ack(&Ack {
            in_recovery: true,
            ..ack(MSS)
        });
        r.on_ack(&Ack {
            cwnd_limited: false,
            ..ack(MSS)
        });
        assert_eq!(r.cwnd(), 10 * MSS);
    }
}
