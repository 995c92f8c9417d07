//! The Westwood+ end-to-end bandwidth estimate, shared by `westwood`, `areno` and `fusion`.
//!
//! Westwood+ (Grieco & Mascolo, ACM CCR 34(2), 2004) takes one bandwidth sample per round
//! trip, `b_k = d_k / Δ_k` (bytes acknowledged during the round over the round's duration),
//! and low-pass filters the samples, `BWE_k = g·BWE_{k−1} + (1 − g)·b_k` with `g = 7/8`.
//! One sample per RTT instead of one per ACK is what distinguishes Westwood+ from the original
//! Westwood: ACK compression can no longer alias the estimate.
//!
//! Two variants:
//! * [`BweVariant::Paper`]: rounds are counted with sequence numbers (a round ends at the
//!   first ACK whose `snd_una` reaches the `snd_nxt` recorded when the round began), and one
//!   filter stage is applied.
//! * [`BweVariant::Linux`] (`net/ipv4/tcp_westwood.c`): a sampling window closes at the first
//!   ACK that arrives more than `max(RTT, 50 ms)` after the window opened (the ACK that closes
//!   a window counts toward the next one), and the 7/8 filter is applied twice: once to the
//!   samples (`bw_ns_est`) and once more to that output (`bw_est`).
//!
//! Both variants seed the filter with the first sample instead of starting from zero, as the
//! Westwood+ authors changed Linux to do in 2.6.18 ("better performances in the case of small
//! file transfers"). The estimate is in payload bytes per second, in real numbers (Linux keeps
//! integer bytes per jiffy).
//!
//! RTT_min is the smallest RTT sample seen; the Linux variant forgets it after a
//! retransmission timeout and re-learns it from the next sample (Linux `reset_rtt_min`).

use crate::controller::Ack;
use crate::time::{SimDuration, SimTime};

/// Which bandwidth-estimation rules to follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BweVariant {
    /// One filter stage over per-round samples (Grieco & Mascolo 2004).
    Paper,
    /// Two filter stages over windows of at least max(RTT, 50 ms) (Linux tcp_westwood.c).
    Linux,
}

impl BweVariant {
    /// Parse the `variant` parameter value used by the controllers (`"paper"`, `"linux"`).
    pub fn from_choice(choice: &str) -> Self {
        if choice == "linux" {
            BweVariant::Linux
        } else {
            BweVariant::Paper
        }
    }
}

/// Linux `TCP_WESTWOOD_RTT_MIN`: the shortest sampling window (HZ/20).
pub const LINUX_MIN_SAMPLE_INTERVAL: SimDuration = SimDuration::from_millis(50);

/// The filter weight of the previous estimate, 7/8 (Linux `westwood_do_filter`).
pub const DEFAULT_FILTER_GAIN: f64 = 0.875;

/// The Westwood+ bandwidth estimator. No allocation; O(1) per ACK.
#[derive(Clone, Debug)]
pub struct WestwoodBandwidthEstimator {
    variant: BweVariant,
    /// Weight `g` of the previous estimate in each filter stage.
    gain: f64,
    /// When the current sampling round/window began; `None` before the first ACK.
    window_start: Option<SimTime>,
    /// Paper variant: the round ends when `snd_una` reaches this.
    round_end_seq: u64,
    /// Bytes acknowledged in the current round/window (`d_k`, Linux `bk`).
    window_bytes: u64,
    /// Linux variant: the RTT that sets the window length (Linux `w->rtt`).
    last_rtt: Option<SimDuration>,
    /// Linux variant: the first filter stage (`bw_ns_est`).
    first_stage: f64,
    /// The estimate, bytes per second (`BWE`, Linux `bw_est`).
    estimate: f64,
    samples: u64,
    rtt_min: Option<SimDuration>,
    reset_rtt_min: bool,
}

impl WestwoodBandwidthEstimator {
    /// `gain` is the weight of the previous estimate in each filter stage (7/8 in both sources).
    pub fn new(variant: BweVariant, gain: f64) -> Self {
        WestwoodBandwidthEstimator {
            variant,
            gain,
            window_start: None,
            round_end_seq: 0,
            window_bytes: 0,
            last_rtt: None,
            first_stage: 0.0,
            estimate: 0.0,
            samples: 0,
            rtt_min: None,
            reset_rtt_min: false,
        }
    }

    /// Account one ACK. Measurement runs in every sender state (also during recovery).
    pub fn on_ack(&mut self, ack: &Ack) {
        match self.window_start {
            None => {
                // The first ACK opens the first window. Its bytes belong to a round we did not
                // see begin, so they are not counted (Linux `first_ack` does the same).
                self.window_start = Some(ack.now);
                self.round_end_seq = ack.snd_nxt;
            }
            Some(start) => match self.variant {
                BweVariant::Paper => {
                    // The ACK that completes the round delivers the round's last data.
                    self.window_bytes += ack.bytes_acked;
                    let elapsed = ack.now.saturating_since(start);
                    if ack.snd_una >= self.round_end_seq && !elapsed.is_zero() {
                        self.take_sample(elapsed);
                        self.window_start = Some(ack.now);
                        self.round_end_seq = ack.snd_nxt;
                    }
                }
                BweVariant::Linux => {
                    // westwood_update_window runs before this ACK's bytes are added, with
                    // the RTT known before this ACK.
                    let elapsed = ack.now.saturating_since(start);
                    if let Some(rtt) = self.last_rtt
                        && elapsed > rtt.max(LINUX_MIN_SAMPLE_INTERVAL)
                    {
                        self.take_sample(elapsed);
                        self.window_start = Some(ack.now);
                    }
                    self.window_bytes += ack.bytes_acked;
                }
            },
        }
        if let Some(rtt) = ack.rtt {
            self.last_rtt = Some(rtt);
            self.rtt_min = match self.rtt_min {
                Some(min) if !self.reset_rtt_min => Some(min.min(rtt)),
                _ => Some(rtt),
            };
            self.reset_rtt_min = false;
        }
    }

    /// A retransmission timeout: the Linux variant re-learns RTT_min from the next sample
    /// (`CA_EVENT_LOSS` sets `reset_rtt_min`, for hand-overs in wireless networks).
    pub fn on_timeout(&mut self) {
        if self.variant == BweVariant::Linux {
            self.reset_rtt_min = true;
        }
    }

    fn take_sample(&mut self, elapsed: SimDuration) {
        let sample = self.window_bytes as f64 / elapsed.as_secs_f64();
        self.window_bytes = 0;
        self.samples += 1;
        let g = self.gain;
        match self.variant {
            BweVariant::Paper => {
                // Grieco & Mascolo: BWE_k = g·BWE_{k−1} + (1 − g)·b_k, seeded with b_1.
                self.estimate = if self.samples == 1 {
                    sample
                } else {
                    g * self.estimate + (1.0 - g) * sample
                };
            }
            BweVariant::Linux => {
                // westwood_filter: fill an empty filter with the sample, else two stages.
                if self.first_stage == 0.0 && self.estimate == 0.0 {
                    self.first_stage = sample;
                    self.estimate = sample;
                } else {
                    self.first_stage = g * self.first_stage + (1.0 - g) * sample;
                    self.estimate = g * self.estimate + (1.0 - g) * self.first_stage;
                }
            }
        }
    }

    /// The filtered bandwidth estimate in payload bytes per second; `None` before the first
    /// sample.
    pub fn bandwidth(&self) -> Option<f64> {
        (self.samples > 0).then_some(self.estimate)
    }

    /// The estimate in bits per second (0 before the first sample).
    pub fn bandwidth_bps(&self) -> f64 {
        self.bandwidth().unwrap_or(0.0) * 8.0
    }

    /// Smallest RTT sample (since the last timeout, in the Linux variant).
    pub fn rtt_min(&self) -> Option<SimDuration> {
        self.rtt_min
    }

    /// BWE × RTT_min in bytes, once both exist.
    pub fn bdp_bytes(&self) -> Option<f64> {
        Some(self.bandwidth()? * self.rtt_min?.as_secs_f64())
    }

    /// Number of bandwidth samples taken so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::ack;

    const MSS: u64 = 1000;

    /// An ACK of one MSS at `now_ms`, moving `snd_una` to `una`; `snd_nxt` = `nxt`.
    fn ack_at(now_ms: f64, una: u64, nxt: u64, rtt_ms: Option<u64>) -> Ack {
        Ack {
            now: SimTime::from_nanos((now_ms * 1e6).round() as u64),
            rtt: rtt_ms.map(SimDuration::from_millis),
            snd_una: una,
            snd_nxt: nxt,
            ..ack(MSS)
        }
    }

    /// Drive one round of `acks` evenly spaced one-MSS ACKs over `rtt_ms`, starting right
    /// after `*now_ms`; every ACK carries an RTT sample of `rtt_ms`. The last ACK of the round
    /// finds `next_acks` segments sent beyond it (its `snd_nxt`), so the next round ends after
    /// exactly `next_acks` ACKs.
    fn round(
        est: &mut WestwoodBandwidthEstimator,
        now_ms: &mut f64,
        una: &mut u64,
        (acks, next_acks): (u64, u64),
        rtt_ms: u64,
    ) {
        for i in 1..=acks {
            *now_ms += rtt_ms as f64 / acks as f64;
            *una += MSS;
            let nxt = if i == acks {
                *una + next_acks * MSS
            } else {
                *una + acks * MSS
            };
            est.on_ack(&ack_at(*now_ms, *una, nxt, Some(rtt_ms)));
        }
    }

    #[test]
    fn paper_filter_one_sample_per_round() {
        let mut est = WestwoodBandwidthEstimator::new(BweVariant::Paper, DEFAULT_FILTER_GAIN);
        // The first ACK opens the first round at t = 0 with snd_nxt = 10 MSS.
        est.on_ack(&ack_at(0.0, 0, 10 * MSS, Some(100)));
        assert_eq!(est.bandwidth(), None);
        let (mut now, mut una) = (0.0, 0);
        // Round 1: 10 MSS in 100 ms => b_1 = 10,000 B / 0.1 s = 100,000 B/s; BWE_1 = b_1.
        round(&mut est, &mut now, &mut una, (10, 20), 100);
        assert_eq!(est.samples(), 1);
        assert_eq!(est.bandwidth(), Some(100_000.0));
        // Round 2: 20 MSS in 100 ms => b_2 = 200,000 B/s;
        // BWE_2 = 7/8 * 100,000 + 1/8 * 200,000 = 87,500 + 25,000 = 112,500.
        round(&mut est, &mut now, &mut una, (20, 20), 100);
        assert_eq!(est.samples(), 2);
        assert!((est.bandwidth().unwrap() - 112_500.0).abs() < 1e-6);
        // Round 3: again 200,000 B/s => 7/8 * 112,500 + 25,000 = 98,437.5 + 25,000 = 123,437.5.
        round(&mut est, &mut now, &mut una, (20, 20), 100);
        assert!((est.bandwidth().unwrap() - 123_437.5).abs() < 1e-6);
        assert_eq!(est.rtt_min(), Some(SimDuration::from_millis(100)));
        // BWE * RTT_min = 123,437.5 * 0.1 = 12,343.75 bytes.
        assert!((est.bdp_bytes().unwrap() - 12_343.75).abs() < 1e-6);
        assert!((est.bandwidth_bps() - 987_500.0).abs() < 1e-6);
    }

    #[test]
    fn paper_round_needs_snd_una_past_the_marker() {
        let mut est = WestwoodBandwidthEstimator::new(BweVariant::Paper, DEFAULT_FILTER_GAIN);
        est.on_ack(&ack_at(0.0, 0, 5 * MSS, None));
        // Four ACKs leave snd_una below the 5 MSS marker: no sample, however long it takes.
        for i in 1..=4 {
            est.on_ack(&ack_at(i as f64 * 100.0, i * MSS, 9 * MSS, None));
        }
        assert_eq!(est.samples(), 0);
        // The fifth reaches it: 5 MSS in 500 ms = 10,000 B/s.
        est.on_ack(&ack_at(500.0, 5 * MSS, 10 * MSS, None));
        assert_eq!(est.bandwidth(), Some(10_000.0));
    }

    #[test]
    fn linux_filter_runs_twice_over_rtt_windows() {
        let mut est = WestwoodBandwidthEstimator::new(BweVariant::Linux, DEFAULT_FILTER_GAIN);
        // First ACK at t = 0 opens the window (its bytes are not counted).
        est.on_ack(&ack_at(0.0, 0, 0, Some(100)));
        // ACKs every 10 ms; the window closes at the first ACK with elapsed > max(100, 50) ms,
        // i.e. at t = 110 ms, before that ACK's bytes are added: 10 ACKs (t = 10..100 ms) =
        // 10,000 bytes over 0.110 s.
        for i in 1..=11u64 {
            est.on_ack(&ack_at(i as f64 * 10.0, 0, 0, Some(100)));
        }
        let s1 = 10_000.0 / 0.110;
        assert_eq!(est.samples(), 1);
        assert!((est.bandwidth().unwrap() - s1).abs() < 1e-6);
        // The second window opened at 110 ms and holds that ACK's 1,000 bytes. ACKs of 2 MSS
        // every 10 ms from 120 ms: at 210 ms the elapsed time is 100 ms (not > 100), at 220 ms
        // it is 110 ms, so the ACK at 220 ms closes it. Bytes = 1,000 + 10 ACKs (120..210 ms)
        // * 2,000 = 21,000 over 0.110 s.
        for i in 12..=22u64 {
            est.on_ack(&Ack {
                bytes_acked: 2 * MSS,
                ..ack_at(i as f64 * 10.0, 0, 0, Some(100))
            });
        }
        assert_eq!(est.samples(), 2);
        let s2 = 21_000.0 / 0.110;
        // bw_ns_est = 7/8 s1 + 1/8 s2; bw_est = 7/8 s1 + 1/8 bw_ns_est.
        let ns = 0.875 * s1 + 0.125 * s2;
        let expected = 0.875 * s1 + 0.125 * ns;
        assert!((est.bandwidth().unwrap() - expected).abs() < 1e-6);
    }

    #[test]
    fn linux_windows_are_at_least_50_ms() {
        let mut est = WestwoodBandwidthEstimator::new(BweVariant::Linux, DEFAULT_FILTER_GAIN);
        est.on_ack(&ack_at(0.0, 0, 0, Some(10)));
        // RTT 10 ms, ACKs every 10 ms: the window closes only when elapsed > 50 ms (t = 60),
        // holding the ACKs at 10..50 ms = 5,000 bytes over 0.060 s.
        for i in 1..=5u64 {
            est.on_ack(&ack_at(i as f64 * 10.0, 0, 0, Some(10)));
        }
        assert_eq!(est.samples(), 0);
        est.on_ack(&ack_at(60.0, 0, 0, Some(10)));
        assert!((est.bandwidth().unwrap() - 5_000.0 / 0.060).abs() < 1e-6);
    }

    #[test]
    fn rtt_min_is_relearnt_after_timeout_only_in_linux_variant() {
        for (variant, expected_ms) in [(BweVariant::Paper, 80), (BweVariant::Linux, 120)] {
            let mut est = WestwoodBandwidthEstimator::new(variant, DEFAULT_FILTER_GAIN);
            est.on_ack(&ack_at(0.0, 0, 0, Some(80)));
            est.on_timeout();
            est.on_ack(&ack_at(1.0, 0, 0, Some(120)));
            est.on_ack(&ack_at(2.0, 0, 0, Some(150)));
            assert_eq!(est.rtt_min(), Some(SimDuration::from_millis(expected_ms)));
        }
    }
}
