//! TCP-Africa (R. King, R. Baraniuk, R. Riedi, "TCP-Africa: An Adaptive and Fair Rapid
//! Increase Rule for Scalable TCP", IEEE INFOCOM 2005), as summarised in seed-spec §5.16.
//!
//! A delay-sensitive mode switch between HighSpeed TCP's aggressive increase and Reno's:
//! the Vegas backlog estimate `q = cwnd (RTT_avg - RTT_min)/RTT_avg` (packets queued in the
//! network; RTT_avg an EWMA of the RTT samples with gain 1/8, RTT_min the smallest sample)
//! is compared with α (about 1.5 packets):
//! * `q < α`, fast mode: per ACK `cwnd += a(w)/cwnd` with HighSpeed TCP's a(w);
//! * otherwise slow mode: Reno, `cwnd += 1/cwnd`.
//!
//! On a congestion event `cwnd <- (1 - b(w)) cwnd` with HighSpeed TCP's b(w), in both modes.
//! a(w) and b(w) come from RFC 3649 Appendix B ([`highspeed_table`]); below 38 segments they
//! are Reno's, so TCP-Africa is Reno for small windows whatever the mode.

use super::additive_increase::ByteCountedIncrease;
use super::highspeed_table;
use super::multiplicative_decrease::multiplicative_decrease;
use crate::controller::{Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;
use crate::time::SimDuration;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("alpha", 1.5, 0.0, 1000.0)
        .unit("packets")
        .doc("fast (HighSpeed) mode while the Vegas backlog estimate is below alpha packets"),
    ParamSpec::number("rtt_gain", 0.125, 0.001, 1.0)
        .doc("gain of the RTT_avg moving average (RTT_avg += gain * (sample - RTT_avg))"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "africa",
    aliases: &["tcp-africa"],
    summary: "TCP-Africa: HighSpeed a(w)/w increase while the Vegas backlog is below 1.5 packets, Reno otherwise; HighSpeed b(w) decrease",
    reference: "King, Baraniuk, Riedi, IEEE INFOCOM 2005, pp. 1838-1848; RFC 3649 Appendix B for a(w), b(w)",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| Box::new(Africa::new(config, params, slow_start)),
};

pub struct Africa {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    alpha: f64,
    rtt_gain: f64,
    rtt_min: Option<SimDuration>,
    /// RTT_avg in nanoseconds.
    rtt_avg: Option<f64>,
    fast: bool,
    increase: ByteCountedIncrease,
    slow_start: Box<dyn SlowStart>,
}

impl Africa {
    pub fn new(config: &CcConfig, params: &Params, slow_start: Box<dyn SlowStart>) -> Self {
        Africa {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            alpha: params.number("alpha"),
            rtt_gain: params.number("rtt_gain"),
            rtt_min: None,
            rtt_avg: None,
            fast: false,
            increase: ByteCountedIncrease::new(),
            slow_start,
        }
    }

    /// The Vegas backlog estimate q in packets; `None` before the first RTT sample.
    pub fn backlog(&self) -> Option<f64> {
        let (min, avg) = (self.rtt_min?.as_nanos() as f64, self.rtt_avg?);
        if avg <= 0.0 {
            return Some(0.0);
        }
        let w = self.cwnd as f64 / self.mss as f64;
        Some(w * (avg - min).max(0.0) / avg)
    }

    fn measure(&mut self, ack: &Ack) {
        if let Some(rtt) = ack.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
            let sample = rtt.as_nanos() as f64;
            self.rtt_avg = Some(match self.rtt_avg {
                // RTT_avg <- RTT_avg + g (sample - RTT_avg), g = 1/8 by default.
                Some(avg) => avg + self.rtt_gain * (sample - avg),
                None => sample,
            });
        }
        if let Some(min_rtt) = ack.min_rtt {
            self.rtt_min = Some(self.rtt_min.map_or(min_rtt, |m| m.min(min_rtt)));
        }
    }

    fn window_segments(&self) -> u64 {
        self.cwnd / self.mss
    }

    fn reduced_ssthresh(&self, bytes_in_flight: u64) -> u64 {
        let b = highspeed_table::row_for(self.window_segments()).b;
        multiplicative_decrease(bytes_in_flight, 1.0 - b, self.mss)
    }
}

impl CongestionControl for Africa {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        self.measure(ack);
        if !ack.may_grow() {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
            return;
        }
        // Without an RTT sample there is no delay evidence: stay in the conservative mode.
        self.fast = self.backlog().is_some_and(|q| q < self.alpha);
        let per_rtt = if self.fast {
            f64::from(highspeed_table::row_for(self.window_segments()).a)
        } else {
            1.0
        };
        self.increase
            .grow(&mut self.cwnd, self.mss, ack.bytes_acked, per_rtt);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        // HighSpeed TCP's decrease, in either mode.
        self.ssthresh = self.reduced_ssthresh(event.bytes_in_flight);
        self.cwnd = self.ssthresh;
        self.increase.reset();
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // HighSpeed's b(w) sets ssthresh.
        self.ssthresh = self.reduced_ssthresh(event.bytes_in_flight);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // cwnd = the 1-SMSS loss window.
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
        } else if self.fast {
            "fast"
        } else {
            "slow"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, loss, timeout};
    use crate::time::SimTime;

    const MSS: u64 = 1000;

    fn africa_at(cwnd_segments: u64) -> Africa {
        let config = CcConfig::new(MSS);
        let mut a = Africa::new(
            &config,
            &Params::defaults(PARAMS),
            Box::new(StandardSlowStart::new(&config)),
        );
        a.cwnd = cwnd_segments * MSS;
        a.ssthresh = cwnd_segments * MSS;
        a
    }

    /// A one-segment ACK carrying an RTT sample of `rtt_us` microseconds.
    fn ack_rtt_us(rtt_us: u64) -> Ack {
        Ack {
            now: SimTime::ZERO,
            rtt: Some(SimDuration::from_micros(rtt_us)),
            ..ack(MSS)
        }
    }

    fn acks_until_growth(a: &mut Africa, rtt_us: u64) -> u64 {
        let before = a.cwnd();
        let mut n = 0;
        while a.cwnd() == before {
            a.on_ack(&ack_rtt_us(rtt_us));
            n += 1;
            assert!(n < 100_000, "cwnd never grew");
        }
        n
    }

    #[test]
    fn fast_mode_uses_highspeed_increase_without_queueing() {
        // RTT samples all 100 ms: RTT_avg = RTT_min, q = 0 < 1.5: fast mode. w = 1000 is in
        // the HighSpeed row (851, 1058], a = 8: one SMSS per 1000/8 = 125 segments.
        let mut a = africa_at(1000);
        assert_eq!(acks_until_growth(&mut a, 100_000), 125);
        assert_eq!(a.mode(), "fast");
        assert_eq!(a.backlog(), Some(0.0));
    }

    #[test]
    fn switches_to_slow_mode_when_the_backlog_reaches_alpha() {
        let mut a = africa_at(1000);
        a.on_ack(&ack_rtt_us(100_000));
        assert_eq!(a.mode(), "fast");
        // One sample of 101 ms: RTT_avg = 100 + (101 - 100)/8 = 100.125 ms,
        // q = 1000 * 0.125/100.125 = 1.248 < 1.5: still fast.
        a.on_ack(&ack_rtt_us(101_000));
        let q1 = 1000.0 * 0.125 / 100.125;
        assert!((a.backlog().unwrap() - q1).abs() < 1e-9);
        assert_eq!(a.mode(), "fast");
        // A second: RTT_avg = 100.125 + (101 - 100.125)/8 = 100.234375 ms,
        // q = 1000 * 0.234375/100.234375 = 2.338 >= 1.5: slow mode.
        a.on_ack(&ack_rtt_us(101_000));
        let q2 = 1000.0 * 0.234_375 / 100.234_375;
        assert!((a.backlog().unwrap() - q2).abs() < 1e-9);
        assert_eq!(a.mode(), "slow");
        // Slow mode is Reno: one SMSS per 1000 segments. (The ACKs above left 2 * 8000 (fast)
        // + 1000 (slow) = 17 000 bytes of the 1 000 000 credit: 983 more segments.)
        let mut a_slow = africa_at(1000);
        a_slow.rtt_min = Some(SimDuration::from_millis(100));
        a_slow.rtt_avg = Some(110e6);
        assert_eq!(acks_until_growth(&mut a_slow, 110_000), 1000);
        assert_eq!(acks_until_growth(&mut a, 101_000), 983);
    }

    #[test]
    fn reno_below_38_segments_in_either_mode() {
        // w = 30: a(30) = 1, so fast mode adds one SMSS per 30 segments.
        let mut a = africa_at(30);
        assert_eq!(acks_until_growth(&mut a, 100_000), 30);
        assert_eq!(a.mode(), "fast");
        a.on_congestion_event(&loss(31 * MSS));
        assert_eq!(a.ssthresh(), 15_500, "b(31) = 0.5");
    }

    #[test]
    fn highspeed_decrease_in_both_modes() {
        // w = 1000: b = 0.33 -> ssthresh = 0.67 FlightSize.
        let mut a = africa_at(1000);
        a.on_ack(&ack_rtt_us(100_000));
        a.on_congestion_event(&loss(1000 * MSS));
        assert_eq!((a.cwnd(), a.ssthresh()), (670_000, 670_000));
        let mut a = africa_at(1000);
        a.rtt_min = Some(SimDuration::from_millis(100));
        a.rtt_avg = Some(150e6);
        a.on_ack(&ack_rtt_us(150_000));
        assert_eq!(a.mode(), "slow");
        a.on_congestion_event(&loss(1000 * MSS));
        assert_eq!(a.ssthresh(), 670_000);
    }

    #[test]
    fn slow_mode_without_rtt_samples() {
        let mut a = africa_at(1000);
        a.on_ack(&ack(MSS));
        assert_eq!(a.backlog(), None);
        assert_eq!(a.mode(), "slow");
    }

    #[test]
    fn timeout_within_a_loss_episode_keeps_ssthresh() {
        let mut a = africa_at(1000);
        a.on_congestion_event(&loss(1000 * MSS));
        a.on_retransmission_timeout(&timeout(500 * MSS));
        assert_eq!((a.cwnd(), a.ssthresh()), (MSS, 670_000));
    }

    #[test]
    fn timeout_floor_and_no_growth() {
        let mut a = africa_at(1000);
        new_timeout(&mut a, &timeout(1000 * MSS));
        assert_eq!((a.cwnd(), a.ssthresh()), (MSS, 670_000));
        a.on_ack(&ack(MSS));
        assert_eq!(a.cwnd(), 2 * MSS);
        let mut a = africa_at(3);
        a.on_congestion_event(&loss(3 * MSS));
        assert_eq!(a.ssthresh(), 2 * MSS);
        let mut a = africa_at(1000);
        for _ in 0..200 {
            a.on_ack(&Ack {
                in_recovery: true,
                ..ack_rtt_us(100_000)
            });
            a.on_ack(&Ack {
                cwnd_limited: false,
                ..ack_rtt_us(100_000)
            });
        }
        assert_eq!(a.cwnd(), 1000 * MSS);
    }
}
