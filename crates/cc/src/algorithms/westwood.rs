//! TCP Westwood+ (Grieco & Mascolo, "Performance evaluation and comparison of Westwood+,
//! New Reno, and Vegas TCP congestion control", ACM CCR 34(2), 2004; Casetti, Gerla,
//! Mascolo, Sanadidi, Wang, MOBICOM 2001 for Westwood; Linux `net/ipv4/tcp_westwood.c`).
//!
//! Probing is Reno's (pluggable slow start, then +1 SMSS per window of ACKed bytes, RFC 3465
//! byte counting). What changes is the response to congestion: instead of halving, the
//! window is set from the end-to-end bandwidth estimate BWE
//! ([`westwood_filter`](super::westwood_filter)), so that after a loss the sender keeps
//! exactly the pipe it has measured:
//!
//! * 3 duplicate ACKs: `ssthresh = max(BWE·RTT_min, 2 SMSS)`; `cwnd = min(cwnd, ssthresh)`.
//! * RTO: the same ssthresh; `cwnd = 1 SMSS`.
//!
//! `BWE·RTT_min` is rounded down to whole segments, as both sources compute it in segments
//! (Linux: `bw_est * rtt_min / mss_cache`).

use super::westwood_filter::{BweVariant, DEFAULT_FILTER_GAIN, WestwoodBandwidthEstimator};
use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, half_flight_ssthresh,
};
use crate::metrics::ControllerMetrics;
use crate::params::ParamSpec;
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;
use crate::time::SimTime;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::choice("variant", "paper", &["paper", "linux"]).doc(
        "paper: one 7/8 filter stage over per-round samples, cwnd = min(cwnd, ssthresh) after \
         3 dup ACKs; linux: the filter applied twice over windows >= max(RTT, 50 ms), cwnd = \
         ssthresh when recovery ends, RTT_min re-learnt after an RTO",
    ),
    ParamSpec::number("filter_gain", DEFAULT_FILTER_GAIN, 0.0, 0.999)
        .doc("weight g of the previous estimate in each filter stage, BWE = g*BWE + (1-g)*sample"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "westwood",
    aliases: &["westwood+", "westwood_plus"],
    summary: "Reno probing; after loss ssthresh = bandwidth estimate x RTT_min (Westwood+)",
    reference: "Grieco & Mascolo, ACM CCR 34(2) 2004 (Westwood+); Casetti et al., MOBICOM 2001; \
                Linux net/ipv4/tcp_westwood.c",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| {
        Box::new(Westwood::new(
            config,
            slow_start,
            BweVariant::from_choice(params.choice("variant")),
            params.number("filter_gain"),
        ))
    },
};

pub struct Westwood {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged since cwnd last grew in congestion avoidance (RFC 3465 §2.1).
    bytes_acked_in_ca: u64,
    variant: BweVariant,
    bwe: WestwoodBandwidthEstimator,
    slow_start: Box<dyn SlowStart>,
}

impl Westwood {
    pub fn new(
        config: &CcConfig,
        slow_start: Box<dyn SlowStart>,
        variant: BweVariant,
        filter_gain: f64,
    ) -> Self {
        Westwood {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            bytes_acked_in_ca: 0,
            variant,
            bwe: WestwoodBandwidthEstimator::new(variant, filter_gain),
            slow_start,
        }
    }

    /// The bandwidth estimator (for traces and tests).
    pub fn estimator(&self) -> &WestwoodBandwidthEstimator {
        &self.bwe
    }

    /// `max(BWE·RTT_min, 2 SMSS)` in whole segments, once there is a bandwidth sample.
    fn bandwidth_window(&self) -> Option<u64> {
        self.bwe.bdp_bytes().map(|bdp| {
            let segments = (bdp / self.mss as f64).floor() as u64;
            (segments * self.mss).max(2 * self.mss)
        })
    }

    /// [`Self::bandwidth_window`]. Before the first bandwidth sample the sources give no
    /// usable value (Linux would return 2 segments); we fall back to RFC 5681
    /// `max(FlightSize/2, 2 SMSS)` instead.
    fn bandwidth_ssthresh(&self, bytes_in_flight: u64) -> u64 {
        self.bandwidth_window()
            .unwrap_or_else(|| half_flight_ssthresh(bytes_in_flight, self.mss))
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        // The estimate is a measurement: it runs on every ACK, also in recovery.
        self.bwe.on_ack(ack);
        if !ack.may_grow() {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
            return;
        }
        // Reno congestion avoidance, RFC 3465 §2.1: cwnd += SMSS per cwnd bytes ACKed.
        self.bytes_acked_in_ca += ack.bytes_acked;
        if self.bytes_acked_in_ca >= self.cwnd {
            self.bytes_acked_in_ca -= self.cwnd;
            self.cwnd += self.mss;
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        match self.variant {
            // Grieco & Mascolo: "if (cwin > ssthresh) cwin = ssthresh".
            BweVariant::Paper => {
                self.ssthresh = self.bandwidth_ssthresh(event.bytes_in_flight);
                self.cwnd = self.cwnd.min(self.ssthresh);
            }
            // Linux `.ssthresh = tcp_reno_ssthresh`: max(snd_cwnd >> 1, 2) segments, the
            // target PRR brings the window down to during recovery. The estimate replaces it
            // when the reduction completes (`on_reduction_complete`), with the estimate of then.
            BweVariant::Linux => {
                self.ssthresh = (self.cwnd / self.mss / 2).max(2) * self.mss;
                self.cwnd = self.ssthresh;
            }
        }
        self.bytes_acked_in_ca = 0;
    }

    fn on_reduction_complete(&mut self, _now: SimTime) {
        // Linux `tcp_end_cwnd_reduction` raises CA_EVENT_COMPLETE_CWR when fast recovery or
        // an ECN reduction reaches its end (also after an undo there, but not after a
        // partial or DSACK undo before it), and Westwood+ sets
        // snd_cwnd = snd_ssthresh = BWE·RTT_min, even above the window before the loss.
        // Without a sample yet Reno's half stays (Linux: 2 segments; see bandwidth_ssthresh).
        if self.variant == BweVariant::Linux
            && let Some(window) = self.bandwidth_window()
        {
            self.ssthresh = window;
            self.cwnd = window;
        }
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // The same ssthresh as after a fast retransmit.
        self.ssthresh = self.bandwidth_ssthresh(event.bytes_in_flight);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // Loss window of one segment.
        self.cwnd = self.mss;
        self.bytes_acked_in_ca = 0;
        self.bwe.on_timeout();
        self.slow_start.restart();
    }

    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics {
            bandwidth_bps: self.bwe.bandwidth().map(|bytes_per_s| bytes_per_s * 8.0),
            min_rtt: self.bwe.rtt_min(),
            ..ControllerMetrics::with_slow_start(self.slow_start.as_ref())
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
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::new_timeout;
    use crate::test_support::{ack, loss, timeout};
    use crate::time::{SimDuration, SimTime};

    const MSS: u64 = 1000;

    fn westwood(variant: BweVariant) -> Westwood {
        let config = CcConfig::new(MSS);
        Westwood::new(
            &config,
            Box::new(StandardSlowStart::new(&config)),
            variant,
            DEFAULT_FILTER_GAIN,
        )
    }

    /// An ACK of `bytes` at `now_ms` with `snd_una = una`, `snd_nxt = nxt` and an RTT sample.
    fn ack_at(bytes: u64, now_ms: u64, una: u64, nxt: u64, rtt_ms: u64) -> Ack {
        Ack {
            now: SimTime::ZERO + SimDuration::from_millis(now_ms),
            rtt: Some(SimDuration::from_millis(rtt_ms)),
            snd_una: una,
            snd_nxt: nxt,
            ..ack(bytes)
        }
    }

    /// Measure one round in the paper variant: an opening ACK at t = 0 that sets the round
    /// marker at 10 MSS, then ten 1-MSS ACKs, 10 ms apart, the last reaching the marker.
    /// b_1 = 10,000 B / 0.1 s = 100,000 B/s = BWE (the first sample seeds the filter).
    /// Every ACK carries an RTT sample of `rtt_ms` except the last, which carries `min_rtt_ms`.
    fn measure_100kbps(w: &mut Westwood, rtt_ms: u64, min_rtt_ms: u64) {
        w.on_ack(&ack_at(MSS, 0, 0, 10 * MSS, rtt_ms));
        for i in 1..=10 {
            let rtt = if i == 10 { min_rtt_ms } else { rtt_ms };
            w.on_ack(&ack_at(MSS, 10 * i, i * MSS, (i + 10) * MSS, rtt));
        }
        assert_eq!(w.estimator().bandwidth(), Some(100_000.0));
    }

    #[test]
    fn starts_like_reno() {
        let w = westwood(BweVariant::Paper);
        assert_eq!((w.cwnd(), w.ssthresh()), (10 * MSS, UNLIMITED));
    }

    #[test]
    fn loss_sets_ssthresh_to_bandwidth_times_min_rtt() {
        let mut w = westwood(BweVariant::Paper);
        measure_100kbps(&mut w, 100, 80);
        // Slow start grew cwnd from 10 to 21 MSS over the 11 ACKs (+1 MSS each).
        assert_eq!(w.cwnd(), 21 * MSS);
        // The metrics view: BWE = 100,000 B/s = 800 kbit/s, RTT_min = 80 ms.
        let m = w.metrics();
        assert!((m.bandwidth_bps.unwrap() / 800_000.0 - 1.0).abs() < 1e-9);
        assert_eq!(m.min_rtt, Some(SimDuration::from_millis(80)));
        // BWE * RTT_min = 100,000 B/s * 0.080 s = 8,000 B = 8 segments.
        w.on_congestion_event(&loss(21 * MSS));
        assert_eq!(w.ssthresh(), 8 * MSS);
        // cwnd = min(cwnd, ssthresh) = min(21, 8) MSS.
        assert_eq!(w.cwnd(), 8 * MSS);
    }

    #[test]
    fn loss_keeps_a_window_already_below_the_estimate() {
        let mut w = westwood(BweVariant::Paper);
        measure_100kbps(&mut w, 1000, 1000);
        // BWE * RTT_min = 100,000 * 1.0 = 100,000 B = 100 segments > cwnd = 21 segments.
        w.on_congestion_event(&loss(21 * MSS));
        assert_eq!((w.ssthresh(), w.cwnd()), (100 * MSS, 21 * MSS));
        // cwnd < ssthresh: the next ACK slow-starts again (+1 MSS).
        w.on_ack(&ack_at(MSS, 200, 11 * MSS, 40 * MSS, 1000));
        assert_eq!(w.cwnd(), 22 * MSS);
    }

    #[test]
    fn estimate_is_rounded_down_to_segments_and_floored_at_two() {
        let mut w = westwood(BweVariant::Paper);
        // BWE * RTT_min = 100,000 * 0.0125 = 1,250 B -> 1 segment -> floor of 2 segments.
        measure_100kbps(&mut w, 100, 12);
        w.on_congestion_event(&loss(21 * MSS));
        assert_eq!((w.ssthresh(), w.cwnd()), (2 * MSS, 2 * MSS));
        // 100,000 * 0.087 = 8,700 B -> 8 segments (rounded down, not to nearest).
        let mut w = westwood(BweVariant::Paper);
        measure_100kbps(&mut w, 100, 87);
        w.on_congestion_event(&loss(21 * MSS));
        assert_eq!(w.ssthresh(), 8 * MSS);
    }

    #[test]
    fn timeout_uses_the_same_ssthresh_and_a_one_segment_window() {
        let mut w = westwood(BweVariant::Paper);
        measure_100kbps(&mut w, 100, 100);
        // 100,000 * 0.1 = 10,000 B = 10 segments.
        new_timeout(&mut w, &timeout(21 * MSS));
        assert_eq!((w.cwnd(), w.ssthresh()), (MSS, 10 * MSS));
        w.on_ack(&ack_at(MSS, 200, 11 * MSS, 12 * MSS, 100));
        assert_eq!(w.cwnd(), 2 * MSS);
    }

    #[test]
    fn without_an_estimate_loss_falls_back_to_half_the_flight() {
        let mut w = westwood(BweVariant::Paper);
        w.on_congestion_event(&loss(30 * MSS));
        assert_eq!((w.ssthresh(), w.cwnd()), (15 * MSS, 10 * MSS));
    }

    #[test]
    fn linux_variant_sets_cwnd_to_ssthresh_even_above_cwnd() {
        let mut w = westwood(BweVariant::Linux);
        // All ACKs in recovery, so cwnd stays 10 MSS while the estimator measures. Linux
        // windows: the first ACK (t = 0) opens one; with RTT 200 ms and an ACK every 10 ms the
        // ACK at 210 ms closes it, holding the ACKs at 10..200 ms = 20,000 B over 0.210 s.
        for i in 0..=21u64 {
            w.on_ack(&Ack {
                in_recovery: true,
                ..ack_at(MSS, 10 * i, i * MSS, 0, 200)
            });
        }
        let bwe = 20_000.0 / 0.210; // 95,238.1 B/s
        assert!((w.estimator().bandwidth().unwrap() - bwe).abs() < 1e-6);
        assert_eq!(w.cwnd(), 10 * MSS);
        // The loss: Reno's ssthresh, half the window (tcp_reno_ssthresh), 5 segments.
        w.on_congestion_event(&loss(10 * MSS));
        assert_eq!((w.ssthresh(), w.cwnd()), (5 * MSS, 5 * MSS));
        // Recovery completes: BWE * RTT_min = 95,238.1 * 0.2 = 19,047.6 B -> 19 segments,
        // cwnd = ssthresh, above the window before the loss.
        w.on_reduction_complete(SimTime::ZERO + SimDuration::from_millis(400));
        assert_eq!((w.ssthresh(), w.cwnd()), (19 * MSS, 19 * MSS));
    }

    #[test]
    fn linux_variant_uses_the_estimate_of_the_end_of_recovery() {
        // The estimate grows during recovery: the window set when it ends is the later one.
        let mut w = westwood(BweVariant::Linux);
        // Windows of 210 ms at an ACK every 10 ms: 20,000 B per window, 95,238.1 B/s.
        for i in 0..=21u64 {
            w.on_ack(&Ack {
                in_recovery: true,
                ..ack_at(MSS, 10 * i, i * MSS, 0, 200)
            });
        }
        w.on_congestion_event(&loss(10 * MSS));
        // In recovery the ACKs come twice as fast, 2 MSS every 10 ms from 220 to 850 ms. The
        // windows opened at 210, 420 and 630 ms close at 420, 630 and 840 ms (each more than
        // 200 ms after it opened), the closing ACK's bytes counting toward the next one:
        // 1,000 + 20 x 2,000 = 41,000 B, then 21 x 2,000 = 42,000 B twice, each over 0.210 s.
        let mut una = 22 * MSS;
        for i in 22..=85u64 {
            una += 2 * MSS;
            w.on_ack(&Ack {
                in_recovery: true,
                ..ack_at(2 * MSS, 10 * i, una, 0, 200)
            });
        }
        let (mut ns_est, mut bw_est) = (20_000.0 / 0.210, 20_000.0 / 0.210);
        for sample in [41_000.0 / 0.210, 42_000.0 / 0.210, 42_000.0 / 0.210] {
            ns_est = 0.875 * ns_est + 0.125 * sample;
            bw_est = 0.875 * bw_est + 0.125 * ns_est;
        }
        assert!((w.estimator().bandwidth().unwrap() - bw_est).abs() < 1e-6);
        // Recovery completes: 103,328.5 B/s * 0.2 s = 20,665.7 B -> 20 segments, where the
        // estimate at the loss gave 19.
        w.on_reduction_complete(SimTime::ZERO + SimDuration::from_millis(860));
        assert_eq!((bw_est * 0.2 / MSS as f64).floor() as u64, 20);
        assert_eq!((w.ssthresh(), w.cwnd()), (20 * MSS, 20 * MSS));
    }

    #[test]
    fn linux_variant_without_an_estimate_keeps_renos_half_after_recovery() {
        let mut w = westwood(BweVariant::Linux);
        w.on_congestion_event(&loss(10 * MSS));
        w.on_reduction_complete(SimTime::ZERO);
        assert_eq!((w.ssthresh(), w.cwnd()), (5 * MSS, 5 * MSS));
    }

    #[test]
    fn congestion_avoidance_is_reno() {
        let mut w = westwood(BweVariant::Paper);
        measure_100kbps(&mut w, 100, 100);
        w.on_congestion_event(&loss(21 * MSS));
        assert_eq!(w.cwnd(), 10 * MSS);
        // One window of delayed ACKs (5 x 2 MSS) adds exactly one segment.
        for i in 0..4 {
            w.on_ack(&ack_at(2 * MSS, 200 + i, 0, 0, 100));
        }
        assert_eq!(w.cwnd(), 10 * MSS);
        w.on_ack(&ack_at(2 * MSS, 205, 0, 0, 100));
        assert_eq!(w.cwnd(), 11 * MSS);
    }

    #[test]
    fn no_growth_in_recovery_or_when_not_cwnd_limited() {
        let mut w = westwood(BweVariant::Paper);
        w.on_ack(&Ack {
            in_recovery: true,
            ..ack(MSS)
        });
        w.on_ack(&Ack {
            cwnd_limited: false,
            ..ack(MSS)
        });
        assert_eq!(w.cwnd(), 10 * MSS);
    }
}
