//! TCP Hybla (C. Caini, R. Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous
//! networks", International Journal of Satellite Communications and Networking 22(5), 2004).
//!
//! Hybla makes window growth per second independent of the RTT by normalising it to a
//! reference RTT0 = 25 ms: with `ρ = max(RTT/RTT0, 1)`,
//! * slow start: per acknowledged segment `cwnd += 2^ρ - 1` (a flow with ρ times the RTT
//!   then doubles its window ρ times per RTT, as fast per second as the reference flow);
//! * congestion avoidance: per acknowledged segment `cwnd += ρ^2/cwnd`, i.e. ρ² segments
//!   per RTT (counted in bytes, see [`ByteCountedIncrease`]);
//! * loss and timeout responses are Reno's (RFC 5681).
//!
//! Hybla's slow-start rule is part of the algorithm, so this controller does not use the
//! pluggable slow-start part (`uses_slow_start = false`): the 2^ρ - 1 rule replaces it. Like
//! standard slow start (RFC 3465, L = 2) at most 2 segments are counted per ACK, so stretch
//! ACKs cannot cause larger bursts. With ρ = 1 (RTT <= RTT0) Hybla is exactly Reno with
//! standard slow start.
//!
//! RTT is the smallest RTT sample seen (the propagation delay the normalisation is about);
//! Linux's tcp_hybla.c uses the smallest smoothed RTT and fixed-point ρ (1/8 segment).
//!
//! With `initial_ssthresh = "packet-pair"` Hoe's estimate of the pipe size (SIGCOMM 1996)
//! becomes ssthresh as soon as the first ACKs give it. By then `2^ρ - 1` per ACK has
//! usually carried cwnd far past it (ρ = 24 on a 600 ms path adds 16.7 million segments per
//! acknowledged segment), so cwnd is brought down to the estimate too: slow start ends at
//! the estimated pipe size, which is what the estimate is for.

use super::additive_increase::ByteCountedIncrease;
use super::multiplicative_decrease::multiplicative_decrease;
use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::{ControllerMetrics, SlowStartExit};
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::packet_pair::HoeEstimator;
use crate::time::SimDuration;

const PARAMS: &[ParamSpec] = &[ParamSpec::number("rtt0", 25.0, 1.0, 1000.0)
    .unit("ms")
    .doc("reference RTT0: flows with RTT <= rtt0 behave as Reno, longer ones are scaled by rho = RTT/rtt0")];

/// RFC 3465 L: at most this many segments are counted per ACK in slow start.
const SLOW_START_ABC_LIMIT: u64 = 2;

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "hybla",
    aliases: &[],
    summary: "Hybla: rho = max(RTT/25ms, 1); slow start +(2^rho - 1) per segment, CA +rho^2/cwnd per segment; Reno on loss",
    reference: "Caini & Firrincieli, Int. J. Satell. Commun. Netw. 22(5), 2004; Linux net/ipv4/tcp_hybla.c",
    params: PARAMS,
    uses_slow_start: false,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, _slow_start| Box::new(Hybla::new(config, params)),
};

pub struct Hybla {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    rtt0: SimDuration,
    rtt_min: Option<SimDuration>,
    /// Slow-start growth (bytes) not yet added because it is less than one SMSS.
    slow_start_credit: f64,
    increase: ByteCountedIncrease,
    /// Hoe's packet-pair estimate of ssthresh, when asked for.
    hoe: Option<HoeEstimator>,
}

impl Hybla {
    pub fn new(config: &CcConfig, params: &Params) -> Self {
        Hybla {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            rtt0: SimDuration::from_secs_f64(params.number("rtt0") / 1000.0),
            rtt_min: None,
            slow_start_credit: 0.0,
            increase: ByteCountedIncrease::new(),
            hoe: config
                .packet_pair_ssthresh
                .then(|| HoeEstimator::new(config)),
        }
    }

    /// ρ = max(RTT/RTT0, 1); 1 until an RTT has been measured.
    pub fn rho(&self) -> f64 {
        // A ratio of integer nanoseconds: exact for round numbers (100 ms / 25 ms = 4).
        self.rtt_min.map_or(1.0, |rtt| {
            (rtt.as_nanos() as f64 / self.rtt0.as_nanos() as f64).max(1.0)
        })
    }

    fn slow_start(&mut self, bytes_acked: u64) {
        let counted = bytes_acked.min(SLOW_START_ABC_LIMIT * self.mss);
        // Caini & Firrincieli: cwnd += 2^ρ - 1 per acknowledged segment.
        self.slow_start_credit += (libm::exp2(self.rho()) - 1.0) * counted as f64;
        let steps = (self.slow_start_credit / self.mss as f64).floor();
        self.slow_start_credit -= steps * self.mss as f64;
        let grown = self
            .cwnd
            .saturating_add((steps as u64).saturating_mul(self.mss));
        // Like standard slow start, stop at ssthresh.
        self.cwnd = grown.min(self.ssthresh.max(self.cwnd));
        if self.cwnd >= self.ssthresh {
            self.slow_start_credit = 0.0;
        }
    }

    fn reset_growth(&mut self) {
        self.slow_start_credit = 0.0;
        self.increase.reset();
    }
}

impl CongestionControl for Hybla {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        for sample in [ack.rtt, ack.min_rtt].into_iter().flatten() {
            self.rtt_min = Some(self.rtt_min.map_or(sample, |m| m.min(sample)));
        }
        // Hoe's estimate measures every slow-start ACK, also those that may not grow the
        // window (after the first ACK cwnd is so large that the sender is not cwnd-limited).
        if self.cwnd < self.ssthresh
            && !ack.in_recovery
            && let Some(estimate) = self.hoe.as_mut().and_then(|hoe| hoe.on_ack(ack))
        {
            self.ssthresh = estimate;
            self.cwnd = self.cwnd.min(estimate);
            return;
        }
        if !ack.may_grow() {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start(ack.bytes_acked);
        } else {
            // cwnd += ρ²/cwnd per acknowledged segment: ρ² segments per RTT.
            let rho = self.rho();
            self.increase
                .grow(&mut self.cwnd, self.mss, ack.bytes_acked, rho * rho);
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        // Reno: ssthresh = max(FlightSize/2, 2 SMSS), cwnd = ssthresh.
        self.ssthresh = multiplicative_decrease(event.bytes_in_flight, 0.5, self.mss);
        self.cwnd = self.ssthresh;
        self.reset_growth();
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // Reno: ssthresh = max(FlightSize/2, 2 SMSS).
        self.ssthresh = multiplicative_decrease(event.bytes_in_flight, 0.5, self.mss);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // cwnd = the 1-SMSS loss window.
        self.cwnd = self.mss;
        self.reset_growth();
        if let Some(hoe) = &mut self.hoe {
            hoe.restart();
        }
    }

    fn metrics(&self) -> ControllerMetrics {
        // Slow start ends at ssthresh: Hoe's estimate if that is still the threshold.
        let estimate = self.hoe.as_ref().and_then(HoeEstimator::estimate);
        ControllerMetrics {
            min_rtt: self.rtt_min,
            slow_start_exit: Some(if estimate == Some(self.ssthresh) {
                SlowStartExit::PacketPair
            } else {
                SlowStartExit::SsthreshReached
            }),
            ..ControllerMetrics::default()
        }
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
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, ack_with_rtt, loss, timeout};

    const MSS: u64 = 1000;

    fn hybla() -> Hybla {
        Hybla::new(&CcConfig::new(MSS), &Params::defaults(PARAMS))
    }

    /// A Hybla that has seen `rtt_ms`, with cwnd = ssthresh = `cwnd_segments` (congestion
    /// avoidance) or, if `slow_start`, cwnd = `cwnd_segments` and no ssthresh.
    fn hybla_at(rtt_ms: u64, cwnd_segments: u64, slow_start: bool) -> Hybla {
        let mut h = hybla();
        h.on_ack(&Ack {
            cwnd_limited: false,
            ..ack_with_rtt(MSS, 0, rtt_ms)
        });
        h.cwnd = cwnd_segments * MSS;
        h.ssthresh = if slow_start {
            UNLIMITED
        } else {
            cwnd_segments * MSS
        };
        h
    }

    #[test]
    fn rho_is_rtt_over_rtt0_at_least_one() {
        assert_eq!(hybla().rho(), 1.0, "no RTT yet");
        // 25/25 = 1; 10/25 = 0.4 -> 1; 100/25 = 4; 500/25 = 20; 60/25 = 2.4.
        for (rtt, rho) in [(25, 1.0), (10, 1.0), (100, 4.0), (500, 20.0), (60, 2.4)] {
            assert!((hybla_at(rtt, 10, true).rho() - rho).abs() < 1e-12);
        }
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_per_segment() {
        // RTT 25 ms: 2^1 - 1 = 1 segment per ACKed segment (standard slow start).
        let mut h = hybla_at(25, 10, true);
        h.on_ack(&ack_with_rtt(MSS, 1, 25));
        assert_eq!(h.cwnd(), 11 * MSS);
        // RTT 100 ms: 2^4 - 1 = 15 segments per ACKed segment.
        let mut h = hybla_at(100, 10, true);
        h.on_ack(&ack_with_rtt(MSS, 1, 100));
        assert_eq!(h.cwnd(), 25 * MSS);
        // RTT 500 ms: 2^20 - 1 = 1 048 575 segments per ACKed segment.
        let mut h = hybla_at(500, 10, true);
        h.on_ack(&ack_with_rtt(MSS, 1, 500));
        assert_eq!(h.cwnd(), (10 + 1_048_575) * MSS);
        // ... but never beyond ssthresh.
        let mut h = hybla_at(500, 10, true);
        h.ssthresh = 64 * MSS;
        h.on_ack(&ack_with_rtt(MSS, 1, 500));
        assert_eq!(h.cwnd(), 64 * MSS);
    }

    #[test]
    fn packet_pair_estimate_ends_slow_start_at_the_pipe_size() {
        // RTT 100 ms (ρ = 4); the first flight's ACKs leave a 10 Mbit/s bottleneck 1.2 ms
        // apart, one 1500-byte packet (1000 payload bytes here) each: Hoe's least-squares
        // slope is 1000 B / 1.2 ms = 833 333 B/s, times 100 ms = 83 333 bytes.
        let config = CcConfig {
            packet_pair_ssthresh: true,
            ..CcConfig::new(MSS)
        };
        let mut h = Hybla::new(&config, &Params::defaults(PARAMS));
        let at = |us: u64| Ack {
            now: crate::time::SimTime::from_nanos(us * 1000),
            rtt: Some(SimDuration::from_millis(100)),
            ..ack(MSS)
        };
        h.on_ack(&at(100_000));
        // The first ACK already added 2^4 - 1 = 15 segments: 10 + 15 = 25.
        assert_eq!(h.cwnd(), 25 * MSS);
        h.on_ack(&at(101_200));
        assert_eq!((h.cwnd(), h.ssthresh()), (40 * MSS, UNLIMITED));
        h.on_ack(&at(102_400));
        assert_eq!(h.ssthresh(), 83_333);
        // 55 segments had not yet overshot the estimate: cwnd keeps them, and slow start
        // goes on to the estimate.
        assert_eq!(h.cwnd(), 40 * MSS);
        h.on_ack(&at(103_600));
        assert_eq!(h.cwnd(), 55 * MSS);
        h.on_ack(&at(104_800));
        assert_eq!(h.cwnd(), 70 * MSS);
        h.on_ack(&at(106_000));
        assert_eq!(h.cwnd(), 83_333, "slow start stops at the estimate");

        // At 500 ms (ρ = 20) the first ACK alone passes any pipe: the estimate brings cwnd
        // down to it. 1000 B / 1.2 ms × 500 ms = 416 666 bytes.
        let mut h = Hybla::new(&config, &Params::defaults(PARAMS));
        let at = |us: u64| Ack {
            now: crate::time::SimTime::from_nanos(us * 1000),
            rtt: Some(SimDuration::from_millis(500)),
            ..ack(MSS)
        };
        for us in [500_000, 501_200, 502_400] {
            h.on_ack(&at(us));
        }
        assert_eq!((h.cwnd(), h.ssthresh()), (416_666, 416_666));
    }

    #[test]
    fn slow_start_keeps_fractions_and_counts_delayed_acks() {
        // RTT 60 ms: ρ = 2.4, 2^2.4 - 1 = 4.278 segments per segment: one ACK adds 4,
        // four ACKs 17.11 -> 17 in total.
        let mut h = hybla_at(60, 10, true);
        h.on_ack(&ack_with_rtt(MSS, 1, 60));
        assert_eq!(h.cwnd(), 14 * MSS);
        for _ in 0..3 {
            h.on_ack(&ack_with_rtt(MSS, 1, 60));
        }
        assert_eq!(h.cwnd(), 27 * MSS);
        // RTT 100 ms, a delayed ACK of 2 segments: 2 * 15 = 30; a stretch ACK of 5 segments
        // counts as 2 (RFC 3465 L = 2): 30 again.
        let mut h = hybla_at(100, 10, true);
        h.on_ack(&ack_with_rtt(2 * MSS, 1, 100));
        assert_eq!(h.cwnd(), 40 * MSS);
        h.on_ack(&ack_with_rtt(5 * MSS, 2, 100));
        assert_eq!(h.cwnd(), 70 * MSS);
    }

    #[test]
    fn congestion_avoidance_adds_rho_squared_per_rtt() {
        // RTT 25 ms: ρ² = 1, Reno: one SMSS per 100 segments at cwnd = 100.
        let mut h = hybla_at(25, 100, false);
        for _ in 0..99 {
            h.on_ack(&ack_with_rtt(MSS, 1, 25));
        }
        assert_eq!(h.cwnd(), 100 * MSS);
        h.on_ack(&ack_with_rtt(MSS, 1, 25));
        assert_eq!(h.cwnd(), 101 * MSS);
        // RTT 100 ms: ρ² = 16 segments per RTT; each segment earns 16/100 of one SMSS, so the
        // 7th segment (112/100) grows cwnd.
        let mut h = hybla_at(100, 100, false);
        for _ in 0..6 {
            h.on_ack(&ack_with_rtt(MSS, 1, 100));
        }
        assert_eq!(h.cwnd(), 100 * MSS);
        h.on_ack(&ack_with_rtt(MSS, 1, 100));
        assert_eq!(h.cwnd(), 101 * MSS);
        // RTT 500 ms: ρ² = 400 per RTT, 4 SMSS per segment at cwnd = 100.
        let mut h = hybla_at(500, 100, false);
        h.on_ack(&ack_with_rtt(MSS, 1, 500));
        assert_eq!(h.cwnd(), 104 * MSS);
    }

    #[test]
    fn reno_loss_and_timeout_responses() {
        let mut h = hybla_at(100, 100, false);
        h.on_congestion_event(&loss(100 * MSS));
        assert_eq!((h.cwnd(), h.ssthresh()), (50 * MSS, 50 * MSS));
        let mut h = hybla_at(100, 100, false);
        new_timeout(&mut h, &timeout(100 * MSS));
        assert_eq!((h.cwnd(), h.ssthresh()), (MSS, 50 * MSS));
        // Hybla slow start resumes from the loss window: 1 + 15 = 16 segments.
        h.on_ack(&ack_with_rtt(MSS, 5, 100));
        assert_eq!(h.cwnd(), 16 * MSS);
        let mut h = hybla_at(100, 3, false);
        h.on_congestion_event(&loss(3 * MSS));
        assert_eq!(h.ssthresh(), 2 * MSS);
    }

    #[test]
    fn timeout_within_a_loss_episode_keeps_ssthresh() {
        let mut h = hybla_at(100, 100, false);
        h.on_congestion_event(&loss(100 * MSS));
        h.on_retransmission_timeout(&timeout(30 * MSS));
        assert_eq!((h.cwnd(), h.ssthresh()), (MSS, 50 * MSS));
    }

    #[test]
    fn no_growth_in_recovery_or_when_not_cwnd_limited() {
        let mut h = hybla_at(100, 10, true);
        h.on_ack(&Ack {
            in_recovery: true,
            ..ack(MSS)
        });
        h.on_ack(&Ack {
            cwnd_limited: false,
            ..ack(MSS)
        });
        assert_eq!(h.cwnd(), 10 * MSS);
    }
}
