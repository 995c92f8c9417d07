//! Hoe's estimated initial ssthresh: J. C. Hoe, "Improving the Start-up Behavior of a
//! Congestion Control Scheme for TCP", Proc. ACM SIGCOMM 1996 (seed-spec §5.27).
//!
//! Segments sent back to back leave the bottleneck spaced by their transmission time there,
//! and their ACKs keep that spacing (the packet-pair principle, Keshav 1991). Hoe estimates
//! the bottleneck bandwidth from the first closely spaced ACKs with a least-squares fit over
//! three ACKs, and sets `ssthresh = bandwidth × RTT` (the path's bandwidth-delay product)
//! instead of the arbitrarily high default, so that slow start stops near the pipe size.
//!
//! Here the fit is the slope of cumulative acknowledged bytes against ACK arrival time over
//! three consecutive ACKs; with equal spacing it equals the packet-pair estimate
//! bytes/gap. The RTT is the smallest sample seen so far (the ACK's `min_rtt` or `rtt`). ACKs
//! belong to one train while each follows the previous one by at most half that RTT; a
//! longer gap (the next flight, e.g. with an initial window of one segment) starts a new
//! train. The estimate is made once per connection, is never below 2 SMSS (RFC 5681's floor),
//! and is written into `window.ssthresh` before the wrapped variant sees the ACK. The result
//! is bytes of payload: ACK spacing reflects wire sizes, acknowledged bytes count payload.

use super::{SlowStart, Window};
use crate::controller::{Ack, CcConfig};
use crate::metrics::SlowStartExit;
use crate::time::{SimDuration, SimTime};

/// ACKs in the least-squares fit (Hoe: three).
pub const TRAIN_ACKS: usize = 3;

/// `inner` with its initial ssthresh replaced by Hoe's packet-pair estimate.
pub fn wrap(inner: Box<dyn SlowStart>, config: &CcConfig) -> Box<dyn SlowStart> {
    Box::new(PacketPairSsthresh::new(inner, config))
}

pub struct PacketPairSsthresh {
    inner: Box<dyn SlowStart>,
    estimator: HoeEstimator,
    /// The estimate is this slow start's ssthresh (set, and no timeout since).
    estimate_in_force: bool,
}

impl PacketPairSsthresh {
    pub fn new(inner: Box<dyn SlowStart>, config: &CcConfig) -> Self {
        PacketPairSsthresh {
            inner,
            estimator: HoeEstimator::new(config),
            estimate_in_force: false,
        }
    }

    /// The estimate in bytes, once made.
    pub fn estimate(&self) -> Option<u64> {
        self.estimator.estimate()
    }
}

/// Hoe's estimate on its own, for controllers with their own start-up (Hybla).
pub struct HoeEstimator {
    /// RFC 5681: ssthresh is never below 2 SMSS.
    floor: u64,
    /// (arrival time, cumulative acknowledged bytes) of the current train.
    train: [(SimTime, u64); TRAIN_ACKS],
    train_len: usize,
    acked_bytes: u64,
    min_rtt: Option<SimDuration>,
    /// The estimate, once made (it is made only once).
    estimate: Option<u64>,
}

impl HoeEstimator {
    pub fn new(config: &CcConfig) -> Self {
        HoeEstimator {
            floor: 2 * config.mss,
            train: [(SimTime::ZERO, 0); TRAIN_ACKS],
            train_len: 0,
            acked_bytes: 0,
            min_rtt: None,
            estimate: None,
        }
    }

    /// The estimate in bytes, once made.
    pub fn estimate(&self) -> Option<u64> {
        self.estimate
    }

    /// Feed one ACK; returns the estimate on the ACK that completes it (once per connection).
    pub fn on_ack(&mut self, ack: &Ack) -> Option<u64> {
        if self.estimate.is_some() {
            return None;
        }
        self.estimate = self.observe(ack);
        self.estimate
    }

    /// A new flight starts (slow start begins again): the next ACK starts a new train.
    pub fn restart(&mut self) {
        self.train_len = 0;
    }

    fn observe(&mut self, ack: &Ack) -> Option<u64> {
        self.acked_bytes += ack.bytes_acked;
        for sample in [ack.rtt, ack.min_rtt].into_iter().flatten() {
            self.min_rtt = Some(self.min_rtt.map_or(sample, |m| m.min(sample)));
        }
        if self.train_len > 0 {
            let gap = ack.now.saturating_since(self.train[self.train_len - 1].0);
            if self.min_rtt.is_some_and(|rtt| gap > rtt / 2) {
                self.train_len = 0; // a new flight: its first ACK starts the train
            }
        }
        self.train[self.train_len] = (ack.now, self.acked_bytes);
        self.train_len += 1;
        if self.train_len < TRAIN_ACKS {
            return None;
        }
        let estimate = match (least_squares_slope(&self.train), self.min_rtt) {
            (Some(bytes_per_second), Some(rtt)) => {
                Some(((bytes_per_second * rtt.as_secs_f64()) as u64).max(self.floor))
            }
            _ => None,
        };
        if estimate.is_none() {
            // No spread in time (compressed ACKs) or no RTT yet: slide the window by one ACK.
            self.train.rotate_left(1);
            self.train_len = TRAIN_ACKS - 1;
        }
        estimate
    }
}

/// Slope of bytes against time (bytes per second) by least squares:
/// `Σ(t − t̄)(b − b̄) / Σ(t − t̄)²`; `None` if the points do not spread in time.
fn least_squares_slope(points: &[(SimTime, u64); TRAIN_ACKS]) -> Option<f64> {
    // Relative to the first point, so that the f64 values stay small and exact enough.
    let (t0, b0) = points[0];
    let t = points.map(|(time, _)| time.saturating_since(t0).as_secs_f64());
    let b = points.map(|(_, bytes)| (bytes - b0) as f64);
    let n = TRAIN_ACKS as f64;
    let t_mean = t.iter().sum::<f64>() / n;
    let b_mean = b.iter().sum::<f64>() / n;
    let covariance: f64 = t
        .iter()
        .zip(&b)
        .map(|(t, b)| (t - t_mean) * (b - b_mean))
        .sum();
    let variance: f64 = t.iter().map(|t| (t - t_mean) * (t - t_mean)).sum();
    let slope = covariance / variance;
    (variance > 0.0 && slope > 0.0).then_some(slope)
}

impl SlowStart for PacketPairSsthresh {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn on_ack(&mut self, window: &mut Window, ack: &Ack) {
        if let Some(estimate) = self.estimator.on_ack(ack) {
            window.ssthresh = estimate;
            self.estimate_in_force = true;
        }
        // An estimate at or below cwnd ends slow start at once.
        if window.cwnd < window.ssthresh {
            self.inner.on_ack(window, ack);
        }
    }

    fn restart(&mut self) {
        // The estimate is made once; an unfinished train is not continued across a timeout.
        self.estimator.restart();
        self.inner.restart();
        self.estimate_in_force = false;
    }

    /// The wrapped variant's own signal if it ended slow start early; otherwise cwnd
    /// reached the packet-pair estimate, or (after a timeout) the ssthresh set then.
    fn exit_cause(&self) -> SlowStartExit {
        match self.inner.exit_cause() {
            SlowStartExit::SsthreshReached if self.estimate_in_force => SlowStartExit::PacketPair,
            cause => cause,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::UNLIMITED;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::ack;

    const MSS: u64 = 1448;

    fn packet_pair() -> PacketPairSsthresh {
        let config = CcConfig::new(MSS);
        PacketPairSsthresh::new(Box::new(StandardSlowStart::new(&config)), &config)
    }

    fn window(cwnd: u64) -> Window {
        Window {
            cwnd,
            ssthresh: UNLIMITED,
            mss: MSS,
        }
    }

    /// An ACK of `bytes` arriving at `now_us` with an RTT sample of `rtt_us`.
    fn ack_at(bytes: u64, now_us: u64, rtt_us: u64) -> Ack {
        Ack {
            now: SimTime::from_nanos(now_us * 1000),
            rtt: Some(SimDuration::from_micros(rtt_us)),
            ..ack(bytes)
        }
    }

    // Bottleneck 10 Mbit/s, 1500-byte packets (1448 payload + 52 header): one packet every
    // 1500·8 / 10^7 s = 1.2 ms. RTT 100 ms. Payload rate 1448 B / 1.2 ms = 1 206 666.7 B/s;
    // ssthresh = 1 206 666.7 × 0.1 = 120 666.7 bytes (the payload BDP), rounded down.
    const BDP_10MBPS_100MS: u64 = 120_666;

    #[test]
    fn three_acks_spaced_by_the_bottleneck_give_the_bdp() {
        let mut pp = packet_pair();
        let mut w = window(10 * MSS);
        pp.on_ack(&mut w, &ack_at(MSS, 100_000, 100_000));
        pp.on_ack(&mut w, &ack_at(MSS, 101_200, 100_000));
        assert_eq!(w.ssthresh, UNLIMITED);
        pp.on_ack(&mut w, &ack_at(MSS, 102_400, 100_000));
        assert_eq!(w.ssthresh, BDP_10MBPS_100MS);
        assert_eq!(pp.estimate(), Some(BDP_10MBPS_100MS));
        // The wrapped standard slow start grew cwnd by one segment per ACK meanwhile.
        assert_eq!(w.cwnd, 13 * MSS);
    }

    #[test]
    fn delayed_acks_give_the_same_estimate() {
        // Two segments per ACK, so ACKs 2.4 ms apart: 2896 B / 2.4 ms is the same rate.
        let mut pp = packet_pair();
        let mut w = window(10 * MSS);
        for k in 0..3 {
            pp.on_ack(&mut w, &ack_at(2 * MSS, 100_000 + k * 2_400, 100_000));
        }
        assert_eq!(w.ssthresh, BDP_10MBPS_100MS);
    }

    #[test]
    fn uneven_spacing_is_fitted_by_least_squares() {
        // ACKs at t = 0, 1, 3 ms with cumulative bytes b = 1448, 2896, 4344.
        // t̄ = 4/3 ms, b̄ = 2896; Σ(t−t̄)(b−b̄) = (−4/3)(−1448) + 0 + (5/3)(1448) = 4344;
        // Σ(t−t̄)² = 16/9 + 1/9 + 25/9 = 42/9; slope = 4344 · 9/42 = 930.857 B/ms;
        // × 100 ms = 93 085.7 bytes. (The end points alone would give 965.3 B/ms.)
        let mut pp = packet_pair();
        let mut w = window(10 * MSS);
        for t in [0, 1_000, 3_000] {
            pp.on_ack(&mut w, &ack_at(MSS, 50_000 + t, 100_000));
        }
        assert_eq!(w.ssthresh, 93_085);
    }

    #[test]
    fn a_gap_longer_than_half_the_rtt_starts_a_new_train() {
        // Initial window of one segment: flights of 1, 2, 4 segments one RTT apart.
        let mut pp = packet_pair();
        let mut w = window(MSS);
        for now_us in [100_000, 200_000, 201_200] {
            pp.on_ack(&mut w, &ack_at(MSS, now_us, 100_000));
        }
        // Across flights (100 ms, then 1.2 ms) there is no estimate yet.
        assert_eq!(w.ssthresh, UNLIMITED);
        // Third flight: the 98.8 ms gap starts a train; its third ACK gives the estimate.
        for now_us in [300_000, 301_200] {
            pp.on_ack(&mut w, &ack_at(MSS, now_us, 100_000));
            assert_eq!(w.ssthresh, UNLIMITED);
        }
        pp.on_ack(&mut w, &ack_at(MSS, 302_400, 100_000));
        assert_eq!(w.ssthresh, BDP_10MBPS_100MS);
    }

    #[test]
    fn an_estimate_below_cwnd_ends_slow_start_at_once() {
        let mut pp = packet_pair();
        let mut w = window(100 * MSS);
        for k in 0..3 {
            pp.on_ack(&mut w, &ack_at(MSS, 100_000 + k * 1_200, 100_000));
        }
        // Two ACKs grew cwnd (102 segments = 147 696 bytes); the third set ssthresh below
        // it and the wrapped variant was not called.
        assert_eq!((w.cwnd, w.ssthresh), (102 * MSS, BDP_10MBPS_100MS));
        assert_eq!(pp.exit_cause(), SlowStartExit::PacketPair);
        // After a timeout ssthresh is the controller's again.
        pp.restart();
        assert_eq!(pp.exit_cause(), SlowStartExit::SsthreshReached);
    }

    #[test]
    fn the_estimate_is_at_least_two_segments() {
        // 100-byte ACKs 40 ms apart: 2500 B/s × 0.1 s = 250 bytes, raised to 2 × 1448.
        let mut pp = packet_pair();
        let mut w = window(MSS);
        for k in 0..3 {
            pp.on_ack(&mut w, &ack_at(100, 100_000 + k * 40_000, 100_000));
        }
        assert_eq!(w.ssthresh, 2 * MSS);
    }

    #[test]
    fn estimated_once_and_never_again() {
        let mut pp = packet_pair();
        let mut w = window(10 * MSS);
        for k in 0..3 {
            pp.on_ack(&mut w, &ack_at(MSS, 100_000 + k * 1_200, 100_000));
        }
        // Later the controller lowers ssthresh (a loss); a faster train, or a timeout and a
        // new slow start, does not bring the estimator back.
        w.ssthresh = 15 * MSS;
        pp.restart();
        w.cwnd = MSS;
        for k in 0..6 {
            pp.on_ack(&mut w, &ack_at(MSS, 900_000 + k * 100, 100_000));
        }
        assert_eq!(w.ssthresh, 15 * MSS);
        assert_eq!(w.cwnd, 7 * MSS);
    }

    #[test]
    fn simultaneous_acks_give_no_estimate() {
        let mut pp = packet_pair();
        let mut w = window(10 * MSS);
        for _ in 0..5 {
            pp.on_ack(&mut w, &ack_at(MSS, 100_000, 100_000));
        }
        assert_eq!(w.ssthresh, UNLIMITED);
        assert_eq!(pp.estimate(), None);
    }

    #[test]
    fn wraps_any_variant_and_keeps_its_name() {
        let config = CcConfig::new(MSS);
        let inner = (crate::slow_start::limited::INFO.build)(
            &config,
            &crate::params::Params::defaults(crate::slow_start::limited::INFO.params),
        );
        let mut ss = wrap(inner, &config);
        assert_eq!(ss.name(), "limited");
        let mut w = window(10 * MSS);
        ss.on_ack(&mut w, &ack(2 * MSS));
        assert_eq!(w.cwnd, 12 * MSS);
    }
}
