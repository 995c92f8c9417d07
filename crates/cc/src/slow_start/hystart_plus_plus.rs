//! HyStart++: P. Balasubramanian, Y. Huang, M. Olson, RFC 9406, "HyStart++: Modified Slow
//! Start for TCP", 2023.
//!
//! RFC 9406 §4.2, per round (rounds in sequence space, [`RoundTracker`]) and per ACK:
//!
//! * **Slow start**: `cwnd += min(N, L·SMSS)`. Track the round's minimum RTT over all its
//!   samples. Once the round has `N_RTT_SAMPLE` (8) samples and the previous round had any:
//!   `RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR, MAX_RTT_THRESH))`
//!   (4 ms, 16 ms, 8); if `currentRoundMinRTT ≥ lastRoundMinRTT + RttThresh`, remember
//!   `cssBaselineMinRtt = currentRoundMinRTT` and enter Conservative Slow Start (CSS).
//! * **CSS**: `cwnd += min(N, L·SMSS) / CSS_GROWTH_DIVISOR` (4). Once the round has 8
//!   samples, if `currentRoundMinRTT < cssBaselineMinRtt` the exit was spurious: resume slow
//!   start. CSS lasts at most `CSS_ROUNDS` (5) rounds, the partial round in which it began
//!   counting as one; then `ssthresh = cwnd` (congestion avoidance).
//!
//! Loss during slow start or CSS is the controller's business (it lowers ssthresh). As
//! RFC 9406 §4.3 recommends, HyStart++ runs only in the first slow start: after CSS has ended
//! or after a retransmission timeout ([`SlowStart::restart`]) growth is plain
//! `min(N, L·SMSS)`. L defaults to 8, the RFC's value for an unpaced sender (§4.3); a paced
//! sender should use a very large L ("infinity").

use super::round::RoundTracker;
use super::{SlowStart, SlowStartInfo, Window};
use crate::controller::{Ack, CcConfig};
use crate::metrics::SlowStartExit;
use crate::params::{ParamSpec, Params};
use crate::time::SimDuration;

const PARAMS: &[ParamSpec] = &[
    ParamSpec::integer("css_growth_divisor", 4, 1, 64)
        .doc("CSS_GROWTH_DIVISOR: CSS grows cwnd at 1/divisor of the slow-start rate"),
    ParamSpec::integer("css_rounds", 5, 1, 1000)
        .unit("rounds")
        .doc("CSS_ROUNDS: rounds of CSS (the partial first one included) before ssthresh = cwnd"),
    ParamSpec::integer("n_rtt_sample", 8, 1, 1000)
        .unit("samples")
        .doc("N_RTT_SAMPLE: RTT samples a round needs before the delay tests"),
    ParamSpec::number("min_rtt_thresh", 4.0, 0.0, 10_000.0)
        .unit("ms")
        .doc("MIN_RTT_THRESH: lower bound of the RTT increase that ends slow start"),
    ParamSpec::number("max_rtt_thresh", 16.0, 0.0, 10_000.0)
        .unit("ms")
        .doc("MAX_RTT_THRESH: upper bound of the RTT increase that ends slow start"),
    ParamSpec::integer("min_rtt_divisor", 8, 1, 1000)
        .doc("MIN_RTT_DIVISOR: RttThresh = clamp(lastRoundMinRTT / divisor)"),
    ParamSpec::integer("abc_limit", 8, 1, 1_000_000)
        .unit("segments")
        .doc("L: growth per ACK at most L*SMSS (8 unpaced; a large value for a paced sender)"),
];

pub const INFO: SlowStartInfo = SlowStartInfo {
    name: "hystart++",
    summary: "slow start that enters Conservative Slow Start (growth/4) when the round's min RTT \
              rises by clamp(minRTT/8, 4, 16) ms; back to slow start if the RTT falls, \
              congestion avoidance after 5 CSS rounds",
    reference: "RFC 9406 §4 (Balasubramanian, Huang, Olson, HyStart++, 2023)",
    params: PARAMS,
    build: |config, params| {
        Box::new(HyStartPlusPlus::new(
            config,
            HyStartPlusPlusSettings::from_params(params),
        ))
    },
};

/// RFC 9406 §4.3 constants; `Default` is the RFC's recommended values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyStartPlusPlusSettings {
    pub css_growth_divisor: u64,
    pub css_rounds: u32,
    pub n_rtt_sample: u32,
    pub min_rtt_thresh: SimDuration,
    pub max_rtt_thresh: SimDuration,
    pub min_rtt_divisor: u64,
    /// L in segments.
    pub abc_limit: u64,
}

impl Default for HyStartPlusPlusSettings {
    fn default() -> Self {
        HyStartPlusPlusSettings {
            css_growth_divisor: 4,
            css_rounds: 5,
            n_rtt_sample: 8,
            min_rtt_thresh: SimDuration::from_millis(4),
            max_rtt_thresh: SimDuration::from_millis(16),
            min_rtt_divisor: 8,
            abc_limit: 8,
        }
    }
}

impl HyStartPlusPlusSettings {
    pub fn from_params(params: &Params) -> Self {
        let ms = |name: &str| SimDuration::from_secs_f64(params.number(name) * 1e-3);
        HyStartPlusPlusSettings {
            css_growth_divisor: params.number("css_growth_divisor") as u64,
            css_rounds: params.number("css_rounds") as u32,
            n_rtt_sample: params.number("n_rtt_sample") as u32,
            min_rtt_thresh: ms("min_rtt_thresh"),
            max_rtt_thresh: ms("max_rtt_thresh"),
            min_rtt_divisor: params.number("min_rtt_divisor") as u64,
            abc_limit: params.number("abc_limit") as u64,
        }
    }
}

/// Where HyStart++ is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start with the delay-increase test.
    SlowStart,
    /// Conservative Slow Start.
    ConservativeSlowStart,
    /// HyStart++ is over (CSS ended, or a timeout restarted slow start): plain slow start.
    Off,
}

#[derive(Clone, Debug)]
pub struct HyStartPlusPlus {
    settings: HyStartPlusPlusSettings,
    phase: Phase,
    rounds: RoundTracker,
    last_round_min_rtt: Option<SimDuration>,
    current_round_min_rtt: Option<SimDuration>,
    rtt_sample_count: u32,
    /// The round minimum that started CSS (`cssBaselineMinRtt`).
    css_baseline_min_rtt: Option<SimDuration>,
    /// Rounds completed in CSS, the partial entry round included.
    css_round_count: u32,
    /// Growth bytes not yet added because of the division by CSS_GROWTH_DIVISOR.
    css_remainder: u64,
    /// CSS ended this slow start (ssthresh = cwnd after CSS_ROUNDS).
    css_completed: bool,
}

impl HyStartPlusPlus {
    pub fn new(_config: &CcConfig, settings: HyStartPlusPlusSettings) -> Self {
        HyStartPlusPlus {
            settings,
            phase: Phase::SlowStart,
            rounds: RoundTracker::new(),
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            rtt_sample_count: 0,
            css_baseline_min_rtt: None,
            css_round_count: 0,
            css_remainder: 0,
            css_completed: false,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// RFC 9406 §4.2: `RttThresh = max(MIN_RTT_THRESH, min(last / MIN_RTT_DIVISOR,
    /// MAX_RTT_THRESH))`, written as in the RFC so that a minimum above the maximum wins.
    fn rtt_thresh(&self, last_round_min_rtt: SimDuration) -> SimDuration {
        (last_round_min_rtt / self.settings.min_rtt_divisor)
            .min(self.settings.max_rtt_thresh)
            .max(self.settings.min_rtt_thresh)
    }
}

/// Standard slow-start growth, stopping at ssthresh (as `StandardSlowStart`).
fn grow(window: &mut Window, bytes: u64) {
    window.cwnd = (window.cwnd + bytes).min(window.ssthresh.max(window.cwnd));
}

impl SlowStart for HyStartPlusPlus {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, window: &mut Window, ack: &Ack) {
        // min(N, L*SMSS), RFC 9406 §4.2.
        let growth = ack
            .bytes_acked
            .min(self.settings.abc_limit.saturating_mul(window.mss));
        if self.phase == Phase::Off {
            grow(window, growth);
            return;
        }

        if self.rounds.on_ack(ack) {
            if self.phase == Phase::ConservativeSlowStart {
                // "CSS lasts at most CSS_ROUNDS rounds. If the transition into CSS happens in
                // the middle of a round, that partial round counts towards the limit."
                self.css_round_count += 1;
                if self.css_round_count >= self.settings.css_rounds {
                    // "enter congestion avoidance by setting the ssthresh to the current cwnd"
                    window.ssthresh = window.cwnd;
                    self.phase = Phase::Off;
                    self.css_completed = true;
                    return;
                }
            }
            // "At the start of each round during standard slow start and CSS".
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = None;
            self.rtt_sample_count = 0;
        }

        match self.phase {
            Phase::SlowStart => grow(window, growth),
            Phase::ConservativeSlowStart => {
                // cwnd += min(N, L*SMSS) / CSS_GROWTH_DIVISOR, the remainder carried so that
                // the division loses no bytes over the phase.
                let total = growth + self.css_remainder;
                let divisor = self.settings.css_growth_divisor.max(1);
                grow(window, total / divisor);
                self.css_remainder = total % divisor;
            }
            Phase::Off => {}
        }

        if let Some(rtt) = ack.rtt {
            self.current_round_min_rtt =
                Some(self.current_round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.rtt_sample_count += 1;
        }
        if self.rtt_sample_count < self.settings.n_rtt_sample {
            return;
        }
        let Some(current) = self.current_round_min_rtt else {
            return;
        };
        match self.phase {
            Phase::SlowStart => {
                let increased = self
                    .last_round_min_rtt
                    .is_some_and(|last| current >= last + self.rtt_thresh(last));
                if increased {
                    self.css_baseline_min_rtt = Some(current);
                    self.css_round_count = 0;
                    self.css_remainder = 0;
                    self.phase = Phase::ConservativeSlowStart;
                }
            }
            Phase::ConservativeSlowStart => {
                if self.css_baseline_min_rtt.is_some_and(|base| current < base) {
                    // The RTT fell back below the baseline: the exit was spurious.
                    self.css_baseline_min_rtt = None;
                    self.phase = Phase::SlowStart;
                }
            }
            Phase::Off => {}
        }
    }

    fn restart(&mut self) {
        // RFC 9406 §4.3: later slow starts use standard slow start.
        self.phase = Phase::Off;
        self.css_completed = false;
    }

    fn exit_cause(&self) -> SlowStartExit {
        if self.css_completed {
            SlowStartExit::HystartPlusPlusCss
        } else {
            SlowStartExit::SsthreshReached
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::UNLIMITED;
    use crate::params::ParamInput;
    use crate::test_support::ack;
    use crate::time::SimTime;

    const MSS: u64 = 1000;

    /// Plays the sender: rounds of one-segment ACKs 5 ms apart, each round acknowledging
    /// the data that was in flight when it began.
    struct Driver {
        hs: HyStartPlusPlus,
        w: Window,
        acked: u64,
        now_us: u64,
        round_first: u64,
        round_len: u64,
    }

    impl Driver {
        fn new(settings: HyStartPlusPlusSettings) -> Self {
            Driver {
                hs: HyStartPlusPlus::new(&CcConfig::new(MSS), settings),
                w: Window {
                    cwnd: 20 * MSS,
                    ssthresh: UNLIMITED,
                    mss: MSS,
                },
                acked: 0,
                now_us: 1_000_000,
                round_first: 0,
                round_len: 0,
            }
        }

        fn start_round(&mut self, len: u64) {
            self.round_first = self.acked;
            self.round_len = len;
        }

        /// One ACK of one segment with an RTT sample of `rtt_us`.
        fn ack(&mut self, rtt_us: u64) {
            self.now_us += 5000;
            let j = self.acked - self.round_first;
            let a = Ack {
                now: SimTime::from_nanos(self.now_us * 1000),
                rtt: Some(SimDuration::from_micros(rtt_us)),
                snd_una: (self.acked + 1) * MSS,
                // The round's data ends at round_first + round_len segments; the sender
                // sends one more segment per ACK.
                snd_nxt: (self.round_first + self.round_len + j) * MSS,
                ..ack(MSS)
            };
            self.hs.on_ack(&mut self.w, &a);
            self.acked += 1;
        }

        fn round(&mut self, len: u64, rtt_us: u64) {
            self.start_round(len);
            for _ in 0..len {
                self.ack(rtt_us);
            }
        }

        fn cwnd_segments(&self) -> f64 {
            self.w.cwnd as f64 / MSS as f64
        }
    }

    /// Round 0 at 100 ms (10 ACKs, +1 segment each: cwnd 20 -> 30), then round 1 of 20 ACKs
    /// at 113 ms. RttThresh = max(4, min(100/8, 16)) = 12.5 ms and 113 ≥ 112.5, so CSS
    /// starts at round 1's 8th sample, after that ACK's slow-start growth: 30 + 8 = 38; the
    /// other 12 ACKs add a quarter segment each: 38 + 3 = 41 segments.
    fn enter_css(d: &mut Driver) {
        d.round(10, 100_000);
        assert_eq!(d.hs.phase(), Phase::SlowStart);
        d.start_round(20);
        for sample in 1..=7 {
            d.ack(113_000);
            assert_eq!(d.hs.phase(), Phase::SlowStart, "only {sample} samples");
        }
        d.ack(113_000);
        assert_eq!(d.hs.phase(), Phase::ConservativeSlowStart);
        assert_eq!(d.cwnd_segments(), 38.0);
        for _ in 8..20 {
            d.ack(113_000);
        }
        assert_eq!(d.cwnd_segments(), 41.0);
    }

    #[test]
    fn slow_start_to_css_to_congestion_avoidance_after_css_rounds() {
        let mut d = Driver::new(HyStartPlusPlusSettings::default());
        enter_css(&mut d);
        // Rounds 2–5 (10 ACKs each) stay in CSS at the baseline RTT: 40 × 0.25 = +10.
        for _ in 2..=5 {
            d.round(10, 113_000);
            assert_eq!(d.hs.phase(), Phase::ConservativeSlowStart);
            assert_eq!(d.w.ssthresh, UNLIMITED);
        }
        assert_eq!(d.cwnd_segments(), 51.0);
        // Round 6's first ACK completes the 5th CSS round (round 1, partial, counts):
        // ssthresh = cwnd = 51 segments and no growth on that ACK.
        assert_eq!(d.hs.exit_cause(), SlowStartExit::SsthreshReached);
        d.start_round(10);
        d.ack(113_000);
        assert_eq!(d.hs.phase(), Phase::Off);
        assert_eq!((d.w.cwnd, d.w.ssthresh), (51 * MSS, 51 * MSS));
        assert_eq!(d.hs.exit_cause(), SlowStartExit::HystartPlusPlusCss);
        // A timeout's slow start is standard and ends at ssthresh.
        d.hs.restart();
        assert_eq!(d.hs.exit_cause(), SlowStartExit::SsthreshReached);
    }

    #[test]
    fn css_returns_to_slow_start_when_the_rtt_falls_below_the_baseline() {
        let mut d = Driver::new(HyStartPlusPlusSettings::default());
        enter_css(&mut d);
        // Round 2 at 105 ms < baseline 113 ms: the first 8 ACKs grow by a quarter (41 + 2),
        // the 8th sample ends CSS, the last two grow by a full segment: 45.
        d.start_round(10);
        for _ in 0..7 {
            d.ack(105_000);
        }
        assert_eq!(d.hs.phase(), Phase::ConservativeSlowStart);
        d.ack(105_000);
        assert_eq!(d.hs.phase(), Phase::SlowStart);
        assert_eq!(d.cwnd_segments(), 43.0);
        d.ack(105_000);
        d.ack(105_000);
        assert_eq!(d.cwnd_segments(), 45.0);
        // Slow start again, tested against the last round: 118 ms < 105 + 13.125 stays in
        // slow start; then 133 ms ≥ 118 + 14.75 enters CSS anew, with a fresh round count.
        d.round(10, 118_000);
        assert_eq!(d.hs.phase(), Phase::SlowStart);
        d.round(10, 133_000);
        assert_eq!(d.hs.phase(), Phase::ConservativeSlowStart);
        for _ in 0..4 {
            d.round(10, 133_000);
        }
        assert_eq!(
            d.w.ssthresh, UNLIMITED,
            "four round ends in CSS are not five"
        );
        d.start_round(10);
        d.ack(133_000);
        assert_eq!(d.hs.phase(), Phase::Off);
        assert_eq!(d.w.ssthresh, d.w.cwnd);
    }

    #[test]
    fn css_growth_is_divided_without_losing_bytes() {
        let mut d = Driver::new(HyStartPlusPlusSettings::default());
        enter_css(&mut d);
        // Four ACKs of 999 bytes: 249 + 250 + 250 + 250 (remainders 3, 2, 1, 0) = 999.
        let before = d.w.cwnd;
        for _ in 0..4 {
            d.hs.on_ack(&mut d.w, &ack(999));
        }
        assert_eq!(d.w.cwnd, before + 999);
        // CSS_GROWTH_DIVISOR = 2: half a segment per one-segment ACK.
        let mut d = Driver::new(HyStartPlusPlusSettings {
            css_growth_divisor: 2,
            ..HyStartPlusPlusSettings::default()
        });
        d.round(10, 100_000);
        d.start_round(20);
        for _ in 0..8 {
            d.ack(113_000);
        }
        assert_eq!(d.cwnd_segments(), 38.0);
        d.ack(113_000);
        assert_eq!(d.cwnd_segments(), 38.5);
    }

    #[test]
    fn slow_start_growth_is_limited_to_l_segments_per_ack() {
        // L = 8: a stretch ACK of 10 segments adds 8.
        let mut d = Driver::new(HyStartPlusPlusSettings::default());
        d.hs.on_ack(&mut d.w, &ack(10 * MSS));
        assert_eq!(d.w.cwnd, 28 * MSS);
        // A delayed ACK of 2 segments adds 2: doubling per round.
        d.hs.on_ack(&mut d.w, &ack(2 * MSS));
        assert_eq!(d.w.cwnd, 30 * MSS);
    }

    #[test]
    fn rtt_threshold_is_clamped_to_4_and_16_ms() {
        let hs = HyStartPlusPlus::new(&CcConfig::new(MSS), HyStartPlusPlusSettings::default());
        let ms = SimDuration::from_millis;
        // 20/8 = 2.5 → 4; 100/8 = 12.5; 200/8 = 25 → 16.
        assert_eq!(hs.rtt_thresh(ms(20)), ms(4));
        assert_eq!(hs.rtt_thresh(ms(100)), SimDuration::from_micros(12_500));
        assert_eq!(hs.rtt_thresh(ms(200)), ms(16));
        // In use: after a 20 ms round, 24 ms enters CSS and 23.999 ms does not.
        for (rtt_us, phase) in [
            (23_999, Phase::SlowStart),
            (24_000, Phase::ConservativeSlowStart),
        ] {
            let mut d = Driver::new(HyStartPlusPlusSettings::default());
            d.round(10, 20_000);
            d.round(10, rtt_us);
            assert_eq!(d.hs.phase(), phase, "{rtt_us} us");
        }
    }

    #[test]
    fn only_the_first_slow_start_later_ones_are_standard() {
        let mut d = Driver::new(HyStartPlusPlusSettings::default());
        d.round(10, 100_000);
        d.hs.restart();
        assert_eq!(d.hs.phase(), Phase::Off);
        // A large RTT increase no longer leads to CSS: every ACK adds a full segment.
        let before = d.cwnd_segments();
        d.round(10, 200_000);
        d.round(10, 300_000);
        assert_eq!(d.hs.phase(), Phase::Off);
        assert_eq!(d.cwnd_segments(), before + 20.0);
        assert_eq!(d.w.ssthresh, UNLIMITED);
    }

    #[test]
    fn parameters_map_to_the_rfc_constants() {
        assert_eq!(PARAMS[0].name, "css_growth_divisor");
        assert_eq!(
            HyStartPlusPlusSettings::from_params(&Params::defaults(PARAMS)),
            HyStartPlusPlusSettings::default()
        );
        let params = Params::from_inputs(
            PARAMS,
            [
                ("css_rounds", &ParamInput::Number(3.0)),
                ("min_rtt_thresh", &ParamInput::Number(2.5)),
            ],
        )
        .unwrap();
        let settings = HyStartPlusPlusSettings::from_params(&params);
        assert_eq!(settings.css_rounds, 3);
        assert_eq!(settings.min_rtt_thresh, SimDuration::from_micros(2500));
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
