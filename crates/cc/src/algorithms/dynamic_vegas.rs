//! Dynamic Vegas: P. Chenna Reddy and P. Chandra Sekhar Reddy, "Dynamic Vegas", i-manager's
//! Journal on Software Engineering 3(2):38–42, 2008 (seed 003; equations restored in
//! seed-spec §2.2).
//!
//! Vegas (see [`super::vegas`]) with a congestion-avoidance rule that never holds cwnd and
//! scales its increase while the increase keeps succeeding, so it can compete with Reno:
//!
//! | queue estimate Δ (packets)       | per ACK (one per packet)            | per RTT            |
//! | -------------------------------- | ----------------------------------- | ------------------ |
//! | Δ < α                            | `cwnd += min(incr1/cwnd, 1)`        | `min(incr1, cwnd)` |
//! | α ≤ Δ < (α+β)/2                  | `cwnd += incr2/cwnd`, incr2 ≤ (α+β)/2 | `incr2`          |
//! | (α+β)/2 ≤ Δ ≤ β                  | `cwnd += 1/cwnd`                    | +1                 |
//! | Δ > β                            | —                                   | −1, once           |
//!
//! `incr1` grows by one for every consecutive RTT with Δ < α and `incr2` for every
//! consecutive RTT in its band; each resets when its condition stops holding, and both are
//! zero in slow start ("Slow Start: values of incr1 and incr2 are set to zero"). The seed's
//! pseudo-code was lost in extraction; the reconstruction choices are parameters:
//! `first_increment` (1: the first RTT in a band already adds one packet, like Vegas; 0: the
//! literal "initial value zero") and the reset of incr2 (seed-spec §2.2 items 1–2).
//! Slow start, Δ, BaseRTT and the loss response are Vegas's (paper variant, ns-2 details).

use crate::controller::CcConfig;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};

use super::vegas::{Adjustment, AvoidanceRule, Variant, VegasCore, VegasSettings};

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("alpha", 1.0, 0.0, 1000.0)
        .unit("packets")
        .doc("lower queue threshold α: scaled increase incr1 while Δ < alpha"),
    ParamSpec::number("beta", 3.0, 0.0, 1000.0)
        .unit("packets")
        .doc("upper queue threshold β: one packet less per RTT while Δ > beta"),
    ParamSpec::number("gamma", 1.0, 0.0, 1000.0)
        .unit("packets")
        .doc("Vegas slow start ends when Δ > gamma"),
    ParamSpec::integer("first_increment", 1, 0, 1)
        .unit("packets")
        .doc("incr1/incr2 in the first RTT of their band (1: grow as Vegas; 0: literal reading)"),
    ParamSpec::boolean("round_delta", false)
        .doc("round Δ to the nearest whole packet as ns-2 does (the seed's simulator)"),
    ParamSpec::choice("incr1_reset", "leave", &["leave", "above-beta"]).doc(
        "when incr1 restarts besides slow start: leave (as soon as Δ ≥ alpha) or above-beta \
         (only when Δ > beta; the seed's symbols are lost, seed-spec §2.2)",
    ),
    ParamSpec::boolean("incr2_reset", true).doc(
        "incr2 restarts when Δ leaves its band (true) or only in slow start (false: the seed \
         states the band reset for incr1 only, seed-spec §2.2 item 2)",
    ),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "dynamic-vegas",
    aliases: &["dynvegas"],
    summary: "Vegas whose increase scales with consecutive uncongested RTTs and never holds",
    reference: "Chenna Reddy & Chandra Sekhar Reddy, \"Dynamic Vegas\", i-manager's J. \
                Software Engineering 3(2) 2008; seed-spec §2.2; Vegas per ns-2 tcp-vegas.cc",
    params: PARAMS,
    uses_slow_start: false,
    initial_ssthresh: InitialSsthreshUse::Given,
    build: |config, params, _slow_start| Box::new(DynamicVegas::from_params(config, params)),
};

/// When incr1 restarts outside slow start. The seed's sentence is "If ? becomes greater
/// than ? or SlowStart is activated, incr1 is reset to zero", its symbols lost (seed-spec
/// §2.2): Δ > α or Δ > β.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Incr1Reset {
    /// As soon as Δ ≥ α (our reading: the counter counts *consecutive* RTTs below α).
    Leave,
    /// Only when Δ > β: incr1 survives rounds in [α, β] and resumes when Δ < α again.
    AboveBeta,
}

/// Dynamic Vegas's congestion-avoidance rule (seed-spec §2.2 table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicVegasRule {
    pub alpha: f64,
    pub beta: f64,
    /// incr1 / incr2 in the first RTT of their band (0 or 1).
    pub first_increment: f64,
    pub incr1_reset: Incr1Reset,
    /// incr2 restarts when Δ leaves its band (otherwise only in slow start).
    pub incr2_reset: bool,
    /// Consecutive RTTs with Δ < α.
    low_rounds: u32,
    /// Consecutive RTTs with α ≤ Δ < (α+β)/2.
    middle_rounds: u32,
}

impl DynamicVegasRule {
    pub fn new(alpha: f64, beta: f64, first_increment: f64) -> Self {
        DynamicVegasRule {
            alpha,
            beta,
            first_increment,
            incr1_reset: Incr1Reset::Leave,
            incr2_reset: true,
            low_rounds: 0,
            middle_rounds: 0,
        }
    }

    /// The rule with the counter resets of seed-spec §2.2 item 2 chosen.
    pub fn with_resets(mut self, incr1_reset: Incr1Reset, incr2_reset: bool) -> Self {
        self.incr1_reset = incr1_reset;
        self.incr2_reset = incr2_reset;
        self
    }

    /// Δ ≥ α this round: incr1's run of RTTs below α ends, unless it restarts only above β.
    fn leave_low_band(&mut self) {
        if self.incr1_reset == Incr1Reset::Leave {
            self.low_rounds = 0;
        }
    }

    /// Δ is outside incr2's band this round.
    fn leave_middle_band(&mut self) {
        if self.incr2_reset {
            self.middle_rounds = 0;
        }
    }

    /// The current incr1 (packets per RTT), 0 outside its band.
    pub fn incr1(&self) -> f64 {
        Self::counter(self.low_rounds, self.first_increment)
    }

    /// The current incr2 (packets per RTT) before its cap, 0 outside its band.
    pub fn incr2(&self) -> f64 {
        Self::counter(self.middle_rounds, self.first_increment)
    }

    /// Increment-then-apply: the n-th consecutive RTT in a band uses first + (n − 1).
    fn counter(rounds: u32, first_increment: f64) -> f64 {
        if rounds == 0 {
            0.0
        } else {
            first_increment + f64::from(rounds - 1)
        }
    }
}

impl AvoidanceRule for DynamicVegasRule {
    const NAME: &'static str = "dynamic-vegas";

    fn decide(&mut self, delta: f64) -> Adjustment {
        let middle = (self.alpha + self.beta) / 2.0;
        if delta > self.beta {
            // "When Δ > β, cwnd is decremented by one." Both readings of the incr1 reset
            // restart it here.
            self.low_rounds = 0;
            self.leave_middle_band();
            Adjustment::Decrease { packets: 1.0 }
        } else if delta < self.alpha {
            // "increment the cwnd by incr1/cwnd … If Δ < α continues to hold, increment
            // incr1"; the one-packet-per-ACK cap is applied by the Vegas core.
            self.leave_middle_band();
            self.low_rounds += 1;
            Adjustment::Increase {
                packets: self.incr1(),
            }
        } else if delta < middle {
            // "(Δ − α) < (β − Δ): cwnd is incremented by incr2/cwnd … The maximum value by
            // which cwnd is incremented is ((α+β)/2)/cwnd."
            self.leave_low_band();
            self.middle_rounds += 1;
            Adjustment::Increase {
                packets: self.incr2().min(middle),
            }
        } else {
            // Upper half of [α, β]: "increment cwnd by 1/cwnd" — unlike Vegas, never hold.
            self.leave_low_band();
            self.leave_middle_band();
            Adjustment::Increase { packets: 1.0 }
        }
    }

    fn reset(&mut self) {
        self.low_rounds = 0;
        self.middle_rounds = 0;
    }
}

/// Dynamic Vegas.
pub type DynamicVegas = VegasCore<DynamicVegasRule>;

impl DynamicVegas {
    pub fn from_params(config: &CcConfig, params: &Params) -> Self {
        let settings = VegasSettings {
            variant: Variant::Paper,
            gamma: params.number("gamma"),
            round_delta: params.boolean("round_delta"),
        };
        let incr1_reset = if params.choice("incr1_reset") == "above-beta" {
            Incr1Reset::AboveBeta
        } else {
            Incr1Reset::Leave
        };
        let rule = DynamicVegasRule::new(
            params.number("alpha"),
            params.number("beta"),
            params.number("first_increment"),
        )
        .with_resets(incr1_reset, params.boolean("incr2_reset"));
        VegasCore::new(config, settings, rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::delay_harness::Path;
    use crate::controller::CongestionControl;
    use crate::params::ParamInput;
    use crate::test_support::new_timeout;
    use crate::test_support::{ms, timeout};

    const MSS: u64 = 1000;

    fn dynamic_with(inputs: &[(&str, ParamInput)]) -> DynamicVegas {
        let params = Params::from_inputs(PARAMS, inputs.iter().map(|(n, v)| (*n, v))).unwrap();
        DynamicVegas::from_params(&CcConfig::new(MSS), &params)
    }

    /// Congestion avoidance at `packets` with BaseRTT 100 ms learnt in one round, and the
    /// rule's counters and any planned increase cleared.
    fn in_avoidance(packets: u64, path: &mut Path) -> DynamicVegas {
        let mut v = dynamic_with(&[]);
        v.set_window_for_test(packets * MSS, packets * MSS);
        path.round(&mut v, ms(100), 1);
        v.set_window_for_test(packets * MSS, packets * MSS);
        v.rule_mut_for_test().reset();
        v
    }

    fn rule() -> DynamicVegasRule {
        DynamicVegasRule::new(1.0, 3.0, 1.0)
    }

    #[test]
    fn incr1_grows_by_one_per_consecutive_round_below_alpha_and_resets() {
        let mut r = rule();
        for expected in [1.0, 2.0, 3.0] {
            assert_eq!(r.decide(0.5), Adjustment::Increase { packets: expected });
        }
        // Δ ≥ α resets incr1; the next round below α starts again at 1.
        r.decide(2.5);
        assert_eq!(r.decide(0.0), Adjustment::Increase { packets: 1.0 });
        // first_increment = 0: the literal reading adds nothing in the first round.
        let mut literal = DynamicVegasRule::new(1.0, 3.0, 0.0);
        assert_eq!(literal.decide(0.0), Adjustment::Increase { packets: 0.0 });
        assert_eq!(literal.decide(0.0), Adjustment::Increase { packets: 1.0 });
    }

    #[test]
    fn incr2_grows_in_the_lower_half_of_the_band_capped_at_the_midpoint() {
        let mut r = rule();
        // (α+β)/2 = 2: Δ = 1.5 satisfies (Δ − α) = 0.5 < (β − Δ) = 1.5.
        let steps: Vec<Adjustment> = (0..4).map(|_| r.decide(1.5)).collect();
        let increase = |packets| Adjustment::Increase { packets };
        assert_eq!(
            steps,
            vec![increase(1.0), increase(2.0), increase(2.0), increase(2.0)]
        );
        // Δ = α belongs to this band; leaving it resets incr2.
        r.decide(2.5);
        assert_eq!(r.decide(1.0), increase(1.0));
    }

    #[test]
    fn incr1_reset_above_beta_keeps_the_count_through_the_alpha_beta_band() {
        // The other reading of "If Δ becomes greater than β … incr1 is reset to zero":
        // rounds in [α, β] leave incr1 alone, the next round below α goes on counting.
        let mut r = rule().with_resets(Incr1Reset::AboveBeta, true);
        r.decide(0.0);
        r.decide(0.0); // incr1 = 2
        assert_eq!(r.decide(2.5), Adjustment::Increase { packets: 1.0 });
        assert_eq!(r.decide(1.5), Adjustment::Increase { packets: 1.0 }); // incr2 = 1
        assert_eq!(r.decide(0.0), Adjustment::Increase { packets: 3.0 });
        // Above β it restarts under both readings.
        r.decide(3.5);
        assert_eq!(r.decide(0.0), Adjustment::Increase { packets: 1.0 });
    }

    #[test]
    fn incr2_without_band_reset_restarts_only_in_slow_start() {
        // seed-spec §2.2 item 2: the seed states no reset for incr2 except slow start.
        let mut r = rule().with_resets(Incr1Reset::Leave, false);
        assert_eq!(r.decide(1.5), Adjustment::Increase { packets: 1.0 });
        r.decide(0.0);
        r.decide(2.5);
        r.decide(3.5);
        // Second round in the band: incr2 = 2, the cap (α+β)/2 = 2.
        assert_eq!(r.decide(1.5), Adjustment::Increase { packets: 2.0 });
        r.reset(); // slow start
        assert_eq!(r.decide(1.5), Adjustment::Increase { packets: 1.0 });
    }

    #[test]
    fn upper_band_grows_one_per_rtt_and_above_beta_shrinks_one() {
        let mut r = rule();
        r.decide(0.0);
        r.decide(0.0);
        // (α+β)/2 ≤ Δ ≤ β: +1 packet per RTT (Vegas would hold), counters reset.
        assert_eq!(r.decide(2.0), Adjustment::Increase { packets: 1.0 });
        assert_eq!(r.decide(3.0), Adjustment::Increase { packets: 1.0 });
        assert_eq!(r.incr1(), 0.0);
        // Δ > β: −1.
        assert_eq!(r.decide(3.01), Adjustment::Decrease { packets: 1.0 });
    }

    #[test]
    fn incr1_growth_over_consecutive_rtts() {
        let mut path = Path::new(MSS, 20 * MSS);
        let mut v = in_avoidance(20, &mut path);
        // Every round at BaseRTT: Δ = 0 < α. The decision at the end of a round is spread
        // over the next: +incr1 with incr1 = 1, 2, 3, 4 → 20, 21, 23, 26, 30.
        let mut windows = Vec::new();
        for _ in 0..5 {
            path.round(&mut v, ms(100), 1);
            windows.push(v.cwnd() / MSS);
        }
        assert_eq!(windows, vec![20, 21, 23, 26, 30]);
    }

    #[test]
    fn incr1_is_capped_at_one_packet_per_ack() {
        let mut path = Path::new(MSS, 4 * MSS);
        let mut v = in_avoidance(4, &mut path);
        // Nine earlier rounds below α: this round's incr1 = 10 > cwnd = 4 packets, so the
        // per-ACK increment min(10/4, 1) = 1 packet: the window doubles to 8, not 14.
        v.rule_mut_for_test().low_rounds = 9;
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.rule_mut_for_test().incr1(), 10.0);
        assert_eq!(v.cwnd(), 4 * MSS);
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.cwnd(), 8 * MSS);
    }

    #[test]
    fn bands_at_a_fixed_rtt_above_base() {
        let mut path = Path::new(MSS, 20 * MSS);
        let mut v = in_avoidance(20, &mut path);
        path.round(&mut v, ms(100), 1); // Δ = 0 → incr1 = 1 for the next round
        // At 108 ms, Δ = W·8/108:
        //   W = 21: 1.556 (incr2 = 1), 22: 1.630 (incr2 = 2), 24: 1.778 (incr2 = min(3, 2)),
        //   26: 1.926 (2), 28: 2.074 ≥ (α+β)/2 → +1, 29: 2.148 → +1, 30: 2.222 → +1 …
        let mut windows = Vec::new();
        for _ in 0..7 {
            path.round(&mut v, ms(108), 1);
            windows.push(v.cwnd() / MSS);
        }
        assert_eq!(windows, vec![21, 22, 24, 26, 28, 29, 30]);
        // +1 per RTT continues while Δ ≤ β = 3, i.e. W ≤ 40.5: 31 … 40 in rounds 8–17;
        // round 18 lands W = 41, Δ = 41·8/108 = 3.04 > β → −1 at once → 40.
        for _ in 0..11 {
            path.round(&mut v, ms(108), 1);
        }
        assert_eq!(v.cwnd(), 40 * MSS);
    }

    #[test]
    fn above_beta_decreases_by_one_and_resets_the_counters() {
        let mut path = Path::new(MSS, 20 * MSS);
        let mut v = in_avoidance(20, &mut path);
        path.round(&mut v, ms(100), 1);
        path.round(&mut v, ms(100), 1); // incr1 = 2 planned, cwnd 21
        assert_eq!(v.cwnd(), 21 * MSS);
        // 125 ms: the planned +2 lands (23), then Δ = 23·25/125 = 4.6 > β → 22.
        path.round(&mut v, ms(125), 1);
        assert_eq!(v.cwnd(), 22 * MSS);
        assert!(
            v.ssthresh() <= v.cwnd(),
            "a decrease must not restart slow start"
        );
        assert_eq!(v.rule_mut_for_test().incr1(), 0.0);
        // Back at BaseRTT the increase starts over at incr1 = 1.
        path.round(&mut v, ms(100), 1);
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.cwnd(), 23 * MSS);
    }

    #[test]
    fn counters_are_zero_in_slow_start() {
        let mut path = Path::new(MSS, 26 * MSS);
        let mut v = in_avoidance(26, &mut path);
        for _ in 0..3 {
            path.round(&mut v, ms(100), 1);
        }
        assert_eq!(v.rule_mut_for_test().incr1(), 3.0);
        // A timeout at 32 packets re-enters slow start: counters to zero, ssthresh = 16,
        // cwnd = 2 (ns-2).
        v.set_window_for_test(32 * MSS, 32 * MSS);
        new_timeout(&mut v, &timeout(32 * MSS));
        assert_eq!(v.rule_mut_for_test().incr1(), 0.0);
        assert_eq!((v.cwnd(), v.ssthresh()), (2 * MSS, 16 * MSS));
        // Even stale counters are cleared by every round that ends in slow start.
        v.rule_mut_for_test().low_rounds = 7;
        let mut path = Path::new(MSS, 2 * MSS);
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.rule_mut_for_test().incr1(), 0.0);
        // Vegas slow start (grow, hold, grow …) reaches ssthresh = 16: 2 → 4 → 5 → 8 → 9
        // → 16 (the growth round is capped at ssthresh).
        let mut windows = Vec::new();
        for _ in 0..4 {
            path.round(&mut v, ms(100), 1);
            windows.push(v.cwnd() / MSS);
        }
        assert_eq!(windows, vec![5, 8, 9, 16]);
        assert_eq!(v.mode(), "congestion_avoidance");
        // The round that reached ssthresh ended in avoidance with Δ = 0: incr1 = 1, then 2.
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.cwnd(), 17 * MSS);
        path.round(&mut v, ms(100), 1);
        assert_eq!(v.cwnd(), 19 * MSS);
    }

    #[test]
    fn registered_with_its_own_start_up() {
        let info = crate::registry::find_algorithm("dynamic-vegas").unwrap();
        assert!(!info.uses_slow_start);
        let v = dynamic_with(&[]);
        assert_eq!(v.name(), "dynamic-vegas");
    }
}
