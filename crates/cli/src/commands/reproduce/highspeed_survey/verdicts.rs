//! How a published number or statement of the survey is judged against ours. The paper gives
//! its numbers in its text, read off its figures to one or two digits ("0.15", "≈ 0.85"), so
//! a number it states as approximate agrees within ±0.05 of utilization; its inequalities
//! ("< 0.4", "> 0.8") hold or do not.

use super::super::{Comparison, Verdict};

/// The tolerance on a utilization the paper states as a number (its text rounds to 0.05).
pub const UTILIZATION_TOLERANCE: f64 = 0.05;

/// |A| at or below this counts as "A ≈ 0" (A = (x1 − x2)/(x1 + x2): 0.1 is a 55:45 split).
pub const A_NEAR_ZERO: f64 = 0.1;

/// A number the paper states as (about) `paper`, ours `ours`.
pub fn near(claim: &str, paper: f64, ours: Option<f64>, tolerance: f64, why: &str) -> Comparison {
    match ours {
        None => missing(claim, &format!("{paper}")),
        Some(v) => {
            let within = (v - paper).abs() <= tolerance;
            Comparison {
                claim: claim.to_string(),
                paper: format!("{paper}"),
                ours: format!("{v:.3} (difference {:+.3})", v - paper),
                verdict: if within {
                    Verdict::WithinTolerance
                } else {
                    Verdict::Disagrees
                },
                reason: if within {
                    format!("tolerance ±{tolerance}")
                } else {
                    format!("outside ±{tolerance}: {why}")
                },
            }
        }
    }
}

/// The paper's inequality `ours < bound` (`below`) or `ours > bound`.
pub fn bound(claim: &str, below: bool, limit: f64, ours: Option<f64>, why: &str) -> Comparison {
    let paper = format!("{} {limit}", if below { "<" } else { ">" });
    match ours {
        None => missing(claim, &paper),
        Some(v) => {
            let holds = if below { v < limit } else { v > limit };
            Comparison {
                claim: claim.to_string(),
                paper,
                ours: format!("{v:.3}"),
                verdict: if holds {
                    Verdict::Agrees
                } else {
                    Verdict::Disagrees
                },
                reason: if holds {
                    String::new()
                } else {
                    why.to_string()
                },
            }
        }
    }
}

/// A statement that holds or not, with what we found.
pub fn statement(claim: &str, paper: &str, ours: String, holds: bool, why: &str) -> Comparison {
    Comparison {
        claim: claim.to_string(),
        paper: paper.to_string(),
        ours,
        verdict: if holds {
            Verdict::Agrees
        } else {
            Verdict::Disagrees
        },
        reason: if holds {
            String::new()
        } else {
            why.to_string()
        },
    }
}

/// A claim whose runs are not in this form (a thinned `--quick` grid, or a study not run).
pub fn missing(claim: &str, paper: &str) -> Comparison {
    Comparison {
        claim: claim.to_string(),
        paper: paper.to_string(),
        ours: "not run".to_string(),
        verdict: Verdict::Disagrees,
        reason: "this form of the reproduction has no run at this point".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stated_number_agrees_within_the_tolerance_only() {
        // The paper's H-TCP ≈ 0.85 at 512 ms: 0.88 is within 0.05, 0.70 is not.
        assert_eq!(
            near("h", 0.85, Some(0.88), 0.05, "").verdict,
            Verdict::WithinTolerance
        );
        let far = near("h", 0.85, Some(0.70), 0.05, "slow growth");
        assert_eq!(far.verdict, Verdict::Disagrees);
        assert!(far.reason.contains("slow growth"));
        assert!(far.ours.contains("-0.150"), "{}", far.ours);
    }

    #[test]
    fn an_inequality_holds_or_not() {
        // "CTCP < 0.4 at 622 Mbit/s".
        assert_eq!(
            bound("c", true, 0.4, Some(0.39), "").verdict,
            Verdict::Agrees
        );
        assert_eq!(
            bound("c", true, 0.4, Some(0.4), "").verdict,
            Verdict::Disagrees,
            "0.4 is not below 0.4"
        );
        // "BIC > 0.8 at 1 Gbit/s".
        assert_eq!(
            bound("b", false, 0.8, Some(0.95), "").verdict,
            Verdict::Agrees
        );
        assert_eq!(bound("b", false, 0.8, None, "").ours, "not run");
    }
}
