//! HyStart (hybrid slow start): S. Ha and I. Rhee, "Hybrid Slow Start for High-Bandwidth and
//! Long-Distance Networks", PFLDnet 2008 (journal version "Taming the elephants: New TCP slow
//! start", Computer Networks 55(9), 2011); Linux `net/ipv4/tcp_cubic.c` (`hystart_update`,
//! `cubictcp_acked`, `bictcp_hystart_reset`), whose constants are used here.
//!
//! cwnd grows as in standard slow start; HyStart only finds an earlier exit, setting
//! `ssthresh = cwnd` on the first of two signals, once cwnd ≥ `low_window` (16) segments:
//!
//! * **ACK train**: the ACKs of the current round keep arriving at most `ack_delta` (2 ms)
//!   apart, and the train has lasted longer than minRTT/2 since the round began. A train
//!   that long means the flight already spans half the path's RTT at the bottleneck rate,
//!   i.e. cwnd is near the BDP.
//! * **Delay increase**: once the round has 8 RTT samples, its minimum RTT exceeds the
//!   reference by η = clamp(minRTT/8, 4 ms, 16 ms): a queue is building.
//!
//! Rounds are counted in sequence space ([`RoundTracker`]). minRTT is the smallest sample seen
//! since the start or the last timeout (Linux resets `delay_min` with the rest of its state
//! on a timeout). The delay reference is a parameter: `min-rtt` (default) is Linux, which
//! keeps a running minimum over the whole round, tests from the 9th sample on and compares
//! with minRTT (`curr_rtt > delay_min + HYSTART_DELAY_THRESH(delay_min >> 3)`), as every
//! Linux version since 2.6.29 has; `previous-round` compares the first 8 samples' minimum
//! with the previous round's (the test HyStart++, RFC 9406 §4.2, adopted).

use super::round::RoundTracker;
use super::standard::StandardSlowStart;
use super::{SlowStart, SlowStartInfo, Window};
use crate::controller::{Ack, CcConfig};
use crate::metrics::SlowStartExit;
use crate::params::{ParamSpec, Params};
use crate::time::{SimDuration, SimTime};

/// Linux `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay test.
pub const MIN_SAMPLES: u32 = 8;
/// Linux `HYSTART_DELAY_MIN` / `HYSTART_DELAY_MAX`: bounds of the delay threshold η.
pub const DELAY_THRESH_MIN: SimDuration = SimDuration::from_millis(4);
pub const DELAY_THRESH_MAX: SimDuration = SimDuration::from_millis(16);

const PARAMS: &[ParamSpec] = &[
    ParamSpec::choice("detect", "both", &["both", "ack-train", "delay"])
        .doc("exit signals in use (Linux hystart_detect 3, 1, 2)"),
    ParamSpec::integer("low_window", 16, 1, 1_000_000)
        .unit("segments")
        .doc("HyStart is active only from this cwnd on (Linux hystart_low_window)"),
    ParamSpec::number("ack_delta", 2.0, 0.0, 1000.0)
        .unit("ms")
        .doc("largest ACK spacing that continues an ACK train (Linux hystart_ack_delta_us)"),
    ParamSpec::choice("delay_reference", "min-rtt", &["min-rtt", "previous-round"]).doc(
        "delay test: (Linux) the round's running minimum from the 9th sample vs the \
         connection's minimum RTT, or the first 8 samples vs the previous round's minimum",
    ),
    ParamSpec::integer("abc_limit", 2, 1, 64)
        .unit("segments")
        .doc("RFC 3465 L of the slow-start growth: at most L*SMSS per ACK"),
];

pub const INFO: SlowStartInfo = SlowStartInfo {
    name: "hystart",
    summary: "standard slow start that exits (ssthresh = cwnd) on an ACK train longer than \
              minRTT/2 or a round-minimum RTT increase of clamp(minRTT/8, 4, 16) ms",
    reference: "Ha & Rhee, Hybrid Slow Start, PFLDnet 2008 / Computer Networks 2011; Linux \
                tcp_cubic.c hystart_update (low window 16, ack_delta 2 ms, 8 samples)",
    params: PARAMS,
    build: |config, params| Box::new(HyStart::new(config, HyStartSettings::from_params(params))),
};

/// What the delay-increase test compares the round's minimum RTT with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayReference {
    /// Linux: the running minimum of the round against the connection's minimum RTT, tested
    /// from the 9th sample on, with `min > minRTT + η`.
    MinRtt,
    /// The minimum of the previous round's first 8 samples; the test runs once the current
    /// round has 8 samples, with `min ≥ previous + η`.
    PreviousRound,
}

/// HyStart's settings; `Default` is the Linux module's defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyStartSettings {
    pub ack_train: bool,
    pub delay_increase: bool,
    /// Segments.
    pub low_window: u64,
    pub ack_delta: SimDuration,
    pub delay_reference: DelayReference,
    /// RFC 3465 L for the slow-start growth, segments.
    pub abc_limit: u64,
}

impl Default for HyStartSettings {
    fn default() -> Self {
        HyStartSettings {
            ack_train: true,
            delay_increase: true,
            low_window: 16,
            ack_delta: SimDuration::from_millis(2),
            delay_reference: DelayReference::MinRtt,
            abc_limit: 2,
        }
    }
}

impl HyStartSettings {
    pub fn from_params(params: &Params) -> Self {
        let detect = params.choice("detect");
        HyStartSettings {
            ack_train: detect != "delay",
            delay_increase: detect != "ack-train",
            low_window: params.number("low_window") as u64,
            ack_delta: SimDuration::from_secs_f64(params.number("ack_delta") * 1e-3),
            delay_reference: match params.choice("delay_reference") {
                "previous-round" => DelayReference::PreviousRound,
                _ => DelayReference::MinRtt,
            },
            abc_limit: params.number("abc_limit") as u64,
        }
    }
}

#[derive(Clone, Debug)]
pub struct HyStart {
    settings: HyStartSettings,
    growth: StandardSlowStart,
    rounds: RoundTracker,
    /// The signal that ended this slow start; HyStart stays quiet until the next timeout
    /// (Linux `found`).
    found: Option<SlowStartExit>,
    /// Smallest RTT sample since the start or the last timeout (Linux `delay_min`).
    min_rtt: Option<SimDuration>,
    /// When the current round's first ACK arrived (Linux `round_start`).
    round_start: SimTime,
    /// The last ACK of the current ACK train (Linux `last_ack`).
    last_train_ack: SimTime,
    /// Minimum RTT of the current round (first 8 samples, or all for `MinRtt`).
    round_min_rtt: Option<SimDuration>,
    round_samples: u32,
    previous_round_min_rtt: Option<SimDuration>,
}

impl HyStart {
    pub fn new(config: &CcConfig, settings: HyStartSettings) -> Self {
        HyStart {
            settings,
            growth: StandardSlowStart::with_abc_limit(config, settings.abc_limit),
            rounds: RoundTracker::new(),
            found: None,
            min_rtt: None,
            round_start: SimTime::ZERO,
            last_train_ack: SimTime::ZERO,
            round_min_rtt: None,
            round_samples: 0,
            previous_round_min_rtt: None,
        }
    }

    /// Whether HyStart has ended this slow start.
    pub fn found(&self) -> bool {
        self.found.is_some()
    }

    /// Measure this ACK; return the signal if slow start should end here.
    fn detect(&mut self, window: &Window, ack: &Ack) -> Option<SlowStartExit> {
        if self.rounds.on_ack(ack) {
            // Linux bictcp_hystart_reset: the round and the ACK train start at this ACK.
            self.round_start = ack.now;
            self.last_train_ack = ack.now;
            self.previous_round_min_rtt = self.round_min_rtt;
            self.round_min_rtt = None;
            self.round_samples = 0;
        }
        // Linux cubictcp_acked: ACKs without an RTT sample do not feed HyStart.
        let rtt = ack.rtt?;
        let min_rtt = self.min_rtt.map_or(rtt, |m| m.min(rtt));
        self.min_rtt = Some(min_rtt);

        // Collect the round's minimum; `delay_test_due` says whether this sample is tested.
        let delay_test_due = match self.settings.delay_reference {
            DelayReference::PreviousRound => {
                if self.round_samples < MIN_SAMPLES {
                    self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |m| m.min(rtt)));
                    self.round_samples += 1;
                }
                self.round_samples >= MIN_SAMPLES
            }
            DelayReference::MinRtt => {
                // tcp_cubic.c: curr_rtt = min(curr_rtt, delay); the test runs only once
                // sample_cnt has already reached HYSTART_MIN_SAMPLES.
                self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |m| m.min(rtt)));
                if self.round_samples < MIN_SAMPLES {
                    self.round_samples += 1;
                    false
                } else {
                    true
                }
            }
        };

        // ACK-train bookkeeping runs on every sample so a train is not cut when cwnd
        // crosses the low window mid-round; the exits below are gated by the low window.
        let in_train = ack.now.saturating_since(self.last_train_ack) <= self.settings.ack_delta;
        if in_train {
            self.last_train_ack = ack.now;
        }
        if window.cwnd < self.settings.low_window.saturating_mul(window.mss) {
            return None;
        }
        // Ha & Rhee: the train of closely spaced ACKs lasted more than minRTT/2 (Linux: the
        // unpaced threshold delay_min >> 1; no TSO/GRO cushion, see the docs).
        if self.settings.ack_train
            && in_train
            && ack.now.saturating_since(self.round_start) > min_rtt / 2
        {
            return Some(SlowStartExit::HystartAckTrain);
        }
        if self.settings.delay_increase && delay_test_due {
            // η = clamp(minRTT/8, 4 ms, 16 ms) (Linux HYSTART_DELAY_THRESH(delay_min >> 3)).
            let eta = (min_rtt / 8).max(DELAY_THRESH_MIN).min(DELAY_THRESH_MAX);
            let increased = match (self.settings.delay_reference, self.round_min_rtt) {
                (DelayReference::PreviousRound, Some(current)) => self
                    .previous_round_min_rtt
                    .is_some_and(|previous| current >= previous + eta),
                (DelayReference::MinRtt, Some(current)) => current > min_rtt + eta,
                (_, None) => false,
            };
            if increased {
                return Some(SlowStartExit::HystartDelay);
            }
        }
        None
    }
}

impl SlowStart for HyStart {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, window: &mut Window, ack: &Ack) {
        // As in Linux, detection (pkts_acked) runs before growth (cong_avoid): the ACK that
        // finds the exit adds nothing in slow start.
        if self.found.is_none() {
            self.found = self.detect(window, ack);
            if self.found.is_some() {
                window.ssthresh = window.cwnd;
            }
        }
        if window.cwnd < window.ssthresh {
            self.growth.on_ack(window, ack);
        }
    }

    fn restart(&mut self) {
        // Linux cubictcp_state(TCP_CA_Loss): bictcp_reset (found, delay_min) and
        // bictcp_hystart_reset (a new round at the next ACK).
        self.rounds.reset();
        self.found = None;
        self.min_rtt = None;
        self.round_min_rtt = None;
        self.round_samples = 0;
        self.previous_round_min_rtt = None;
    }

    fn exit_cause(&self) -> SlowStartExit {
        self.found.unwrap_or(SlowStartExit::SsthreshReached)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::UNLIMITED;
    use crate::params::ParamInput;
    use crate::test_support::ack;

    const MSS: u64 = 1000;

    fn hystart(settings: HyStartSettings) -> HyStart {
        HyStart::new(&CcConfig::new(MSS), settings)
    }

    fn linux() -> HyStartSettings {
        HyStartSettings::default()
    }

    fn previous_round() -> HyStartSettings {
        HyStartSettings {
            delay_reference: DelayReference::PreviousRound,
            ..HyStartSettings::default()
        }
    }

    /// The ACK of segment `index` (one segment per ACK) at `now_us` with an RTT sample.
    /// Rounds hold `per_round` segments: the round of segment r·per_round + j began when
    /// segments up to (r+1)·per_round had been sent, so snd_nxt = ((r+1)·per_round + j)·MSS.
    fn ack_of(index: u64, per_round: u64, now_us: u64, rtt_us: u64) -> Ack {
        let (r, j) = (index / per_round, index % per_round);
        Ack {
            now: SimTime::from_nanos(now_us * 1000),
            rtt: Some(SimDuration::from_micros(rtt_us)),
            snd_una: (index + 1) * MSS,
            snd_nxt: ((r + 1) * per_round + j) * MSS,
            ..ack(MSS)
        }
    }

    /// Plays a controller whose cwnd stays at `cwnd` segments (so growth cannot move the
    /// low-window test) through rounds of `per_round` ACKs spaced `spacing_us`, round r
    /// carrying RTT samples `rtts_us[r]`. Returns (round, ACK in round) of the exit.
    fn first_exit(
        hs: &mut HyStart,
        cwnd: u64,
        rtts_us: &[u64],
        per_round: u64,
        spacing_us: u64,
    ) -> Option<(u64, u64)> {
        for (r, &rtt) in (0u64..).zip(rtts_us) {
            for j in 0..per_round {
                let index = r * per_round + j;
                let mut w = Window {
                    cwnd: cwnd * MSS,
                    ssthresh: UNLIMITED,
                    mss: MSS,
                };
                hs.on_ack(
                    &mut w,
                    &ack_of(index, per_round, 1_000_000 + index * spacing_us, rtt),
                );
                if w.ssthresh != UNLIMITED {
                    assert_eq!(w.ssthresh, cwnd * MSS, "exit sets ssthresh = cwnd");
                    return Some((r, j));
                }
            }
        }
        None
    }

    #[test]
    fn ack_train_longer_than_half_the_min_rtt_ends_slow_start() {
        let mut hs = hystart(HyStartSettings::default());
        let mut w = Window {
            cwnd: 100 * MSS,
            ssthresh: UNLIMITED,
            mss: MSS,
        };
        // One round (200 segments in flight), ACKs 1 ms apart, RTT 100 ms: minRTT/2 = 50 ms.
        // ACK k arrives k ms after the round's first ACK; the train exceeds 50 ms at k = 51.
        // ACKs 0..=50 each add one segment: cwnd = 151 segments when ACK 51 ends slow start.
        for k in 0..=50 {
            hs.on_ack(&mut w, &ack_of(k, 200, 1_000_000 + k * 1000, 100_000));
            assert_eq!(
                w.ssthresh, UNLIMITED,
                "ACK {k}: train of {k} ms is not > 50 ms"
            );
        }
        assert_eq!(w.cwnd, 151 * MSS);
        assert_eq!(hs.exit_cause(), SlowStartExit::SsthreshReached);
        hs.on_ack(&mut w, &ack_of(51, 200, 1_051_000, 100_000));
        assert!(hs.found());
        assert_eq!(hs.exit_cause(), SlowStartExit::HystartAckTrain);
        assert_eq!((w.cwnd, w.ssthresh), (151 * MSS, 151 * MSS));
    }

    #[test]
    fn an_ack_gap_above_ack_delta_breaks_the_train() {
        // 100 ACKs 3 ms apart span 297 ms, but no two are within 2 ms: no train.
        let mut hs = hystart(HyStartSettings::default());
        assert_eq!(first_exit(&mut hs, 100, &[100_000], 100, 3000), None);
        // Exactly 2 ms apart continues the train (Linux `<=`): ACK j is 2j ms into the
        // round, and 2j > 50 first at j = 26.
        let mut hs = hystart(HyStartSettings::default());
        assert_eq!(
            first_exit(&mut hs, 100, &[100_000], 100, 2000),
            Some((0, 26))
        );
    }

    #[test]
    fn delay_increase_against_the_previous_round() {
        // ACKs 5 ms apart (no train), 10 per round. minRTT = 100 ms, η = clamp(12.5, 4, 16)
        // = 12.5 ms. Round 1's first 8 samples have minimum 113 ≥ 100 + 12.5: exit at the
        // 8th sample (index 7).
        let mut hs = hystart(previous_round());
        assert_eq!(
            first_exit(&mut hs, 20, &[100_000, 113_000], 10, 5000),
            Some((1, 7))
        );
        assert_eq!(hs.exit_cause(), SlowStartExit::HystartDelay);
        // 112 ms < 112.5 ms: no exit.
        let mut hs = hystart(previous_round());
        assert_eq!(
            first_exit(&mut hs, 20, &[100_000, 112_000, 112_000], 10, 5000),
            None
        );
    }

    #[test]
    fn delay_threshold_is_clamped_to_4_and_16_ms() {
        // Previous-round reference (`≥`). minRTT 20 ms: 20/8 = 2.5 ms → η = 4 ms; 24 ms
        // exits, 23.999 ms does not.
        let mut hs = hystart(previous_round());
        assert_eq!(
            first_exit(&mut hs, 20, &[20_000, 24_000], 10, 5000),
            Some((1, 7))
        );
        let mut hs = hystart(previous_round());
        assert_eq!(first_exit(&mut hs, 20, &[20_000, 23_999], 10, 5000), None);
        // minRTT 200 ms: 25 ms → η = 16 ms; 216 ms exits, 215.999 ms does not.
        let mut hs = hystart(previous_round());
        assert_eq!(
            first_exit(&mut hs, 20, &[200_000, 216_000], 10, 5000),
            Some((1, 7))
        );
        let mut hs = hystart(previous_round());
        assert_eq!(first_exit(&mut hs, 20, &[200_000, 215_999], 10, 5000), None);
        // Linux reference (strict `>`, from the 9th sample): 24.001 ms exits, 24 ms does not.
        let mut hs = hystart(linux());
        assert_eq!(
            first_exit(&mut hs, 20, &[20_000, 24_001], 10, 5000),
            Some((1, 8))
        );
        let mut hs = hystart(linux());
        assert_eq!(first_exit(&mut hs, 20, &[20_000, 24_000], 10, 5000), None);
    }

    #[test]
    fn linux_reference_tests_from_the_ninth_sample_against_min_rtt() {
        // Linux checks once 8 samples are counted, i.e. from the 9th, with a strict `>`:
        // 113 > 100 + 12.5 at index 8.
        let mut hs = hystart(linux());
        assert_eq!(
            first_exit(&mut hs, 20, &[100_000, 113_000], 10, 5000),
            Some((1, 8))
        );
        // A gradual rise of 8 ms per round: against the previous round (108 vs 100, then
        // 116 vs 108, both below +12.5) there is no exit; against minRTT, 116 > 112.5 in
        // round 2.
        let gradual = [100_000, 108_000, 116_000];
        let mut hs = hystart(previous_round());
        assert_eq!(first_exit(&mut hs, 20, &gradual, 10, 5000), None);
        let mut hs = hystart(linux());
        assert_eq!(first_exit(&mut hs, 20, &gradual, 10, 5000), Some((2, 8)));
    }

    #[test]
    fn inactive_below_sixteen_segments() {
        for settings in [linux(), previous_round()] {
            // A 99 ms ACK train and a 50 % RTT increase at cwnd = 15 segments: no exit.
            let mut hs = hystart(settings);
            assert_eq!(first_exit(&mut hs, 15, &[100_000], 100, 1000), None);
            let mut hs = hystart(settings);
            assert_eq!(first_exit(&mut hs, 15, &[100_000, 150_000], 10, 5000), None);
            // The same patterns at 16 segments exit (train: 51 ms > 50 ms at ACK 51).
            let mut hs = hystart(settings);
            assert_eq!(
                first_exit(&mut hs, 16, &[100_000], 100, 1000),
                Some((0, 51))
            );
            let mut hs = hystart(settings);
            assert!(first_exit(&mut hs, 16, &[100_000, 150_000], 10, 5000).is_some());
        }
    }

    #[test]
    fn detect_selects_the_signals() {
        let only = |detect: &str| {
            let params =
                Params::from_inputs(PARAMS, [("detect", &ParamInput::Text(detect.into()))])
                    .unwrap();
            hystart(HyStartSettings::from_params(&params))
        };
        assert_eq!(PARAMS[0].name, "detect");
        assert_eq!(
            HyStartSettings::from_params(&Params::defaults(PARAMS)),
            HyStartSettings::default()
        );
        let params = Params::from_inputs(
            PARAMS,
            [(
                "delay_reference",
                &ParamInput::Text("previous-round".into()),
            )],
        )
        .unwrap();
        assert_eq!(HyStartSettings::from_params(&params), previous_round());
        // Delay signal only: the ACK train is ignored (Linux reference: 9th sample).
        assert_eq!(
            first_exit(&mut only("delay"), 100, &[100_000], 100, 1000),
            None
        );
        assert_eq!(
            first_exit(&mut only("delay"), 20, &[100_000, 113_000], 10, 5000),
            Some((1, 8))
        );
        // ACK train only: the delay increase is ignored.
        assert_eq!(
            first_exit(&mut only("ack-train"), 20, &[100_000, 150_000], 10, 5000),
            None
        );
        assert_eq!(
            first_exit(&mut only("ack-train"), 100, &[100_000], 100, 1000),
            Some((0, 51))
        );
    }

    #[test]
    fn quiet_after_an_exit_until_a_timeout_restarts_it() {
        let mut hs = hystart(HyStartSettings::default());
        assert_eq!(
            first_exit(&mut hs, 100, &[100_000], 100, 1000),
            Some((0, 51))
        );
        // Found: a later train in the same slow start changes nothing (Linux `found`).
        let mut w = Window {
            cwnd: 200 * MSS,
            ssthresh: 300 * MSS,
            mss: MSS,
        };
        for k in 100..200 {
            hs.on_ack(&mut w, &ack_of(k, 100, 2_000_000 + k * 1000, 100_000));
        }
        assert_eq!(w.ssthresh, 300 * MSS);
        // Growth continued as standard slow start: 100 ACKs of one segment, capped at 300.
        assert_eq!(w.cwnd, 300 * MSS);
        hs.restart();
        assert!(!hs.found());
        assert_eq!(hs.exit_cause(), SlowStartExit::SsthreshReached);
        assert_eq!(
            first_exit(&mut hs, 100, &[100_000], 100, 1000),
            Some((0, 51))
        );
    }

    #[test]
    fn grows_like_standard_slow_start_with_delayed_acks() {
        // No RTT samples, so no signal: +2 segments per delayed ACK (L = 2).
        let mut hs = hystart(HyStartSettings::default());
        let mut w = Window {
            cwnd: 20 * MSS,
            ssthresh: UNLIMITED,
            mss: MSS,
        };
        for _ in 0..10 {
            hs.on_ack(&mut w, &ack(2 * MSS));
        }
        assert_eq!(w.cwnd, 40 * MSS);
    }

    #[test]
    fn registered_and_drives_reno() {
        let info = crate::registry::find_slow_start(INFO.name).unwrap();
        assert_eq!(info.name, INFO.name);
        let config = CcConfig::new(1448);
        let reno = crate::registry::find_algorithm("reno").unwrap();
        let mut cc = crate::registry::build(
            reno,
            &Params::defaults(reno.params),
            info,
            &Params::defaults(info.params),
            &config,
        );
        // IW 10 segments, no ssthresh yet: a delayed ACK grows cwnd by two segments.
        cc.on_ack(&ack(2 * 1448));
        assert_eq!(cc.cwnd(), 12 * 1448);
    }
}
