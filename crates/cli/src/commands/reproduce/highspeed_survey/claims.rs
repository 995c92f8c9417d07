//! The survey's numbers and statements about its curve figures (Figs. 2–6), each judged
//! against our curves over the whole grid of the figure: a statement about a shape ("falls
//! with the RTT", "falls then rises", "improves with the RTT") is decided on every point
//! ([`super::shapes`]), not on the two ends of the range.

use super::super::Comparison;
use super::causes::Reasons;
use super::curves::{Curves, display, show};
use super::shapes::{declines, dip, fitted_change};
use super::verdicts::{A_NEAR_ZERO, UTILIZATION_TOLERANCE, bound, missing, near, statement};

/// The RTT of the fixed flow x2 in the RTT-fairness study (paper §4.2.2).
pub const X2_RTT_MS: f64 = 256.0;

/// Two fairness indices (Jain's, or |A|) closer than this are "as fair": the third decimal the
/// report prints, rounded up to a visible 0.01.
const FAIRNESS_TIE: f64 = 0.01;

/// §4.1.1, Fig. 2: utilization against the bottleneck rate at 64 ms.
pub fn rate(c: &Curves) -> Vec<Comparison> {
    let mut out = Vec::new();
    let low_rates: Vec<f64> =
        c.x.iter()
            .copied()
            .filter(|&x| x < 155.0)
            .flat_map(|x| c.names().into_iter().filter_map(move |cc| c.at(cc, x)))
            .collect();
    let lowest = low_rates.iter().copied().reduce(f64::min);
    out.push(bound(
        "every algorithm's utilization below 155 Mbit/s (10 and 100 Mbit/s, 64 ms), lowest",
        false,
        0.9,
        lowest,
        "see the discussion",
    ));
    let why_low = "our model keeps the link busy: see the discussion (reconstruction alternatives)";
    out.push(near(
        "Hybla utilization at 622 Mbit/s, 64 ms",
        0.15,
        c.at("hybla", 622.0),
        UTILIZATION_TOLERANCE,
        why_low,
    ));
    out.push(near(
        "Hybla utilization at 1 Gbit/s, 64 ms",
        0.1,
        c.at("hybla", 1000.0),
        UTILIZATION_TOLERANCE,
        why_low,
    ));
    for cc in ["compound", "vegas"] {
        out.push(bound(
            &format!("{} utilization at 622 Mbit/s, 64 ms", display(cc)),
            true,
            0.4,
            c.at(cc, 622.0),
            why_low,
        ));
        out.push(near(
            &format!("{} utilization at 1 Gbit/s, 64 ms", display(cc)),
            0.2,
            c.at(cc, 1000.0),
            UTILIZATION_TOLERANCE,
            why_low,
        ));
    }
    for cc in ["bic", "htcp", "highspeed"] {
        out.push(bound(
            &format!("{} utilization at 1 Gbit/s, 64 ms", display(cc)),
            false,
            0.8,
            c.at(cc, 1000.0),
            "see the discussion",
        ));
    }
    let falling: Vec<&str> = c
        .names()
        .into_iter()
        .filter(|cc| match (c.at(cc, 155.0), c.at(cc, 1000.0)) {
            // A fall the paper's figure would show: more than its text's 0.05 precision.
            (Some(a), Some(b)) => a - b > UTILIZATION_TOLERANCE,
            _ => false,
        })
        .collect();
    let n = c.names().len();
    out.push(statement(
        "utilization falls as the rate grows above 155 Mbit/s",
        "all algorithms",
        format!(
            "{} of {n} lower at 1 Gbit/s than at 155 Mbit/s by more than {UTILIZATION_TOLERANCE}{}",
            falling.len(),
            list(&falling)
        ),
        n > 0 && falling.len() == n,
        "with a 1 BDP buffer a loss-based flow never drains the queue, so only slow growth after start-up (Vegas, Reno-like phases) costs utilization; see the discussion",
    ));
    out
}

/// §4.1.2, Fig. 3: utilization against the RTT at 622 Mbit/s.
pub fn rtt(c: &Curves) -> Vec<Comparison> {
    let mut out = vec![near(
        "H-TCP utilization at 622 Mbit/s, RTT 512 ms",
        0.85,
        c.at("htcp", 512.0),
        UTILIZATION_TOLERANCE,
        "with a 1 BDP buffer the RTT doubles while the queue fills, so H-TCP's adaptive backoff (RTT_min/RTT_max) is 0.5 and its window after a loss is the pipe: the link stays busy at 512 ms as at every RTT; see the discussion",
    )];
    // "除了Hybla之外，其余各类TCP协议的带宽利用率均呈下降趋势": all but Hybla fall.
    let others: Vec<&str> = c.names().into_iter().filter(|cc| *cc != "hybla").collect();
    let falling: Vec<&str> = others
        .iter()
        .copied()
        .filter(|cc| declines(&c.of(cc), UTILIZATION_TOLERANCE))
        .collect();
    out.push(statement(
        &format!(
            "utilization falls as the RTT grows, for every algorithm but Hybla (over the whole grid: more than {UTILIZATION_TOLERANCE} lower at the longest RTT than at the shortest, and never more than {UTILIZATION_TOLERANCE} higher at one RTT than at the one before)"
        ),
        "all but Hybla",
        format!("{} of {} fall{}", falling.len(), others.len(), list(&falling)),
        !others.is_empty() && falling.len() == others.len(),
        "with a 1 BDP buffer a loss-based flow never drains the queue, so only the start-up and slow growth (Vegas) cost utilization; see the discussion",
    ));
    let hybla = c.of("hybla");
    let lowest = hybla.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1));
    let (first, last) = (hybla.first(), hybla.last());
    out.push(statement(
        &format!(
            "Hybla's utilization falls, then rises with the RTT (rho = RTT/25 ms): its lowest point inside the RTT range, both ends more than {UTILIZATION_TOLERANCE} above it"
        ),
        "falls then rises",
        match (lowest, first, last) {
            (Some((xl, vl)), Some((x0, v0)), Some((x1, v1))) => format!(
                "lowest {vl:.3} at {xl} ms; {v0:.3} at {x0} ms, {v1:.3} at {x1} ms"
            ),
            _ => "not run".to_string(),
        },
        dip(&hybla, UTILIZATION_TOLERANCE).is_some(),
        "Hybla fills the link at every RTT here, so there is no dip to recover from; see the discussion",
    ));
    // "Vegas drops sharply": Vegas falls with the RTT (as above), and by the most.
    let drops: Vec<(&str, f64)> = c
        .names()
        .into_iter()
        .filter_map(|cc| {
            let p = c.of(cc);
            Some((cc, p.first()?.1 - p.last()?.1))
        })
        .collect();
    let largest = drops.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    out.push(statement(
        "Vegas's utilization drops most as the RTT grows (falls over the whole grid, as above, and by the most from the shortest to the longest RTT)",
        "Vegas drops sharply",
        match drops.iter().find(|d| d.0 == "vegas") {
            Some((_, d)) => format!(
                "Vegas falls by {d:.3} from the shortest to the longest RTT{}; the largest fall is {}'s",
                if declines(&c.of("vegas"), UTILIZATION_TOLERANCE) {
                    ""
                } else {
                    " (not steadily)"
                },
                largest.map_or("?", |l| display(l.0))
            ),
            None => "not run".to_string(),
        },
        largest.is_some_and(|l| l.0 == "vegas")
            && declines(&c.of("vegas"), UTILIZATION_TOLERANCE),
        "see the discussion",
    ));
    for cc in ["cubic", "scalable"] {
        out.push(bound(
            &format!(
                "{} utilization at 622 Mbit/s, RTT 512 ms (the paper: \"also good\"; we read good as > 0.8, the paper's bar for BIC, H-TCP and HSTCP)",
                display(cc)
            ),
            false,
            0.8,
            c.at(cc, 512.0),
            "see the discussion",
        ));
    }
    out
}

/// §4.2.1, Fig. 4: Jain's index of two flows of one algorithm against their RTT.
pub fn intra(c: &Curves, reasons: &Reasons) -> Vec<Comparison> {
    let mut out = Vec::new();
    let means = c.means();
    let best = means.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let htcp = means.iter().find(|m| m.0 == "htcp").map(|m| m.1);
    // "even at small RTT": H-TCP is also (within the tie) the fairest at the shortest RTT.
    let shortest = c.x.first().copied();
    let at_shortest: Vec<(&str, f64)> = c
        .names()
        .into_iter()
        .filter_map(|cc| Some((cc, c.at(cc, shortest?)?)))
        .collect();
    let best_short = at_shortest.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    let htcp_short = at_shortest.iter().find(|s| s.0 == "htcp").map(|s| s.1);
    out.push(statement(
        &format!(
            "H-TCP has the best intra-protocol fairness, even at small RTT (Jain's index: mean over the RTTs, and at the shortest RTT, within {FAIRNESS_TIE} of the best)"
        ),
        "H-TCP best, even at small RTT",
        format!(
            "mean: H-TCP {}, best {} {}; at {} ms: H-TCP {}, best {} {}",
            show(htcp),
            best.map_or("?", |b| display(b.0)),
            show(best.map(|b| b.1)),
            shortest.map_or("?".to_string(), |x| x.to_string()),
            show(htcp_short),
            best_short.map_or("?", |b| display(b.0)),
            show(best_short.map(|b| b.1)),
        ),
        matches!((htcp, best), (Some(h), Some(b)) if h >= b.1 - FAIRNESS_TIE)
            && matches!((htcp_short, best_short), (Some(h), Some(b)) if h >= b.1 - FAIRNESS_TIE),
        "see the discussion",
    ));
    let trends: Vec<(&str, f64)> = c
        .names()
        .into_iter()
        .filter_map(|cc| Some((cc, fitted_change(&c.of(cc))?)))
        .collect();
    let as_fair: Vec<&str> = trends
        .iter()
        .filter(|t| t.1 >= -FAIRNESS_TIE)
        .map(|t| t.0)
        .collect();
    let rising = trends.iter().filter(|t| t.1 > FAIRNESS_TIE).count();
    let n = c.names().len();
    out.push(statement(
        &format!(
            "intra-protocol fairness improves with the RTT (least-squares change of Jain's index over the RTT range, against log2 RTT, ≥ −{FAIRNESS_TIE})"
        ),
        "generally improves",
        format!(
            "{} of {n} as fair or fairer at long RTTs{}, {rising} of them by more than {FAIRNESS_TIE}",
            as_fair.len(),
            list(&as_fair)
        ),
        2 * as_fair.len() > n,
        "see the discussion",
    ));
    // The paper sets aside its 512 ms point for Vegas (both flows tiny, so "fair"): Vegas is
    // poor at the RTTs below the longest.
    let longest = c.x.last().copied();
    let below_longest: Vec<(&str, f64)> = c
        .names()
        .into_iter()
        .filter_map(|cc| {
            let v: Vec<f64> = c
                .of(cc)
                .into_iter()
                .filter(|(x, _)| Some(*x) != longest)
                .map(|(_, v)| v)
                .collect();
            (!v.is_empty()).then(|| (cc, v.iter().sum::<f64>() / v.len() as f64))
        })
        .collect();
    let worst = below_longest.iter().min_by(|a, b| a.1.total_cmp(&b.1));
    out.push(statement(
        "Vegas's intra-protocol fairness is poor (the lowest mean Jain's index over the RTTs below the longest, which the paper sets aside for Vegas)",
        "Vegas poor",
        format!(
            "Vegas {}; lowest {} {}",
            show(below_longest.iter().find(|s| s.0 == "vegas").map(|s| s.1)),
            worst.map_or("?", |w| display(w.0)),
            show(worst.map(|w| w.1))
        ),
        worst.is_some_and(|w| w.0 == "vegas"),
        &reasons.vegas_poor,
    ));
    let mean_of = |cc: &str| means.iter().find(|m| m.0 == cc).map(|m| m.1);
    out.push(statement(
        "YeAH is much fairer than Vegas (mean Jain's index over the RTTs)",
        "YeAH much better than Vegas",
        format!(
            "YeAH {}, Vegas {}",
            show(mean_of("yeah")),
            show(mean_of("vegas"))
        ),
        matches!((mean_of("yeah"), mean_of("vegas")), (Some(y), Some(v)) if y > v),
        &reasons.yeah_fairer,
    ));
    out
}

/// The largest |A| of each algorithm over x1's RTTs other than x2's own 256 ms.
pub fn largest_abs_a(c: &Curves) -> Vec<(&str, f64)> {
    c.names()
        .into_iter()
        .filter_map(|cc| {
            c.of(cc)
                .into_iter()
                .filter(|(x, _)| *x != X2_RTT_MS)
                .map(|(_, a)| a.abs())
                .reduce(f64::max)
                .map(|m| (cc, m))
        })
        .collect()
}

/// §4.2.2, Fig. 5: index A of two flows of one algorithm, x2 at 256 ms, against x1's RTT.
pub fn rtt_fairness(c: &Curves, reasons: &Reasons) -> Vec<Comparison> {
    let mut out = Vec::new();
    let mut ranked = largest_abs_a(c);
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
    let hybla = ranked.iter().find(|r| r.0 == "hybla").map(|r| r.1);
    let others_far = ranked
        .iter()
        .filter(|r| r.0 != "hybla")
        .all(|r| r.1 > A_NEAR_ZERO);
    let ranking = ranked
        .iter()
        .map(|(cc, a)| format!("{} {a:.2}", display(cc)))
        .collect::<Vec<_>>()
        .join(", ");
    out.push(statement(
        &format!(
            "only Hybla keeps A ≈ 0 (largest |A| over x1's RTTs ≤ {A_NEAR_ZERO}, every other algorithm's above)"
        ),
        "only Hybla",
        format!("largest |A|: {ranking}"),
        hybla.is_some_and(|h| h <= A_NEAR_ZERO) && others_far,
        &reasons.only_hybla,
    ));
    out.push(statement(
        "YeAH has the second-best RTT fairness (second-smallest largest |A|)",
        "YeAH second best",
        format!("second: {}", ranked.get(1).map_or("?", |r| display(r.0))),
        ranked.get(1).is_some_and(|r| r.0 == "yeah"),
        &reasons.yeah_second,
    ));
    let n = c.names().len();
    let shorter = c.x.iter().any(|&x| x < X2_RTT_MS);
    let longer = c.x.iter().any(|&x| x > X2_RTT_MS);
    let sign_claim = "A > 0 at every x1 shorter than x2's 256 ms, A < 0 at every x1 longer";
    if shorter && longer {
        let signed: Vec<&str> = c
            .names()
            .into_iter()
            .filter(|cc| {
                let p = c.of(cc);
                !p.is_empty()
                    && p.iter().all(|&(x, a)| {
                        (x < X2_RTT_MS && a > 0.0) || (x > X2_RTT_MS && a < 0.0) || x == X2_RTT_MS
                    })
            })
            .collect();
        out.push(statement(
            sign_claim,
            "most algorithms",
            format!("{} of {n}{}", signed.len(), list(&signed)),
            2 * signed.len() > n,
            "see the discussion",
        ));
    } else {
        out.push(missing(sign_claim, "most algorithms"));
    }
    let equal_claim = format!("A ≈ 0 (|A| ≤ {A_NEAR_ZERO}) when both flows have 256 ms");
    if c.x.contains(&X2_RTT_MS) {
        let near_zero: Vec<&str> = c
            .names()
            .into_iter()
            .filter(|cc| c.at(cc, X2_RTT_MS).is_some_and(|a| a.abs() <= A_NEAR_ZERO))
            .collect();
        out.push(statement(
            &equal_claim,
            "most algorithms",
            format!("{} of {n}{}", near_zero.len(), list(&near_zero)),
            2 * near_zero.len() > n,
            "see the discussion",
        ));
    } else {
        out.push(missing(&equal_claim, "most algorithms"));
    }
    out
}

/// §4.3, Fig. 6: index A of each algorithm (x1) against Reno (x2) at the same RTT.
pub fn friendliness(c: &Curves, reasons: &Reasons) -> Vec<Comparison> {
    let mut out = Vec::new();
    let means = c.means();
    let least = means.iter().max_by(|a, b| a.1.total_cmp(&b.1));
    // At how many RTTs STCP's A is the largest.
    let stcp_first =
        c.x.iter()
            .filter(|&&x| {
                let at: Vec<(&str, f64)> = c
                    .names()
                    .into_iter()
                    .filter_map(|cc| Some((cc, c.at(cc, x)?)))
                    .collect();
                at.iter()
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .is_some_and(|m| m.0 == "scalable")
            })
            .count();
    out.push(statement(
        "STCP is the least friendly to Reno over the RTT range (largest mean A over the RTTs)",
        "STCP worst",
        format!(
            "largest: {} {}; STCP {}, the largest A at {stcp_first} of {} RTTs",
            least.map_or("?", |l| display(l.0)),
            show(least.map(|l| l.1)),
            show(means.iter().find(|m| m.0 == "scalable").map(|m| m.1)),
            c.x.len()
        ),
        least.is_some_and(|l| l.0 == "scalable"),
        "see the discussion",
    ));
    let vegas = c.of("vegas");
    out.push(statement(
        "Vegas is friendlier than Reno (A < 0 at every RTT)",
        "Vegas friendly",
        vegas
            .iter()
            .map(|(x, a)| format!("{a:.3} at {x} ms"))
            .collect::<Vec<_>>()
            .join(", "),
        !vegas.is_empty() && vegas.iter().all(|(_, a)| *a < 0.0),
        "see the discussion",
    ));
    // "A值越趋于0表明其友好性越好": closer to 0 is friendlier, so |A| should shrink.
    let improving: Vec<&str> = c
        .names()
        .into_iter()
        .filter(|cc| {
            let abs: Vec<(f64, f64)> = c.of(cc).into_iter().map(|(x, a)| (x, a.abs())).collect();
            fitted_change(&abs).is_some_and(|d| d <= FAIRNESS_TIE)
        })
        .collect();
    let n = c.names().len();
    out.push(statement(
        &format!(
            "friendliness improves with the RTT (least-squares change of |A| over the RTT range, against log2 RTT, ≤ {FAIRNESS_TIE})"
        ),
        "improves",
        format!("{} of {n}{}", improving.len(), list(&improving)),
        2 * improving.len() > n,
        &reasons.friendliness_rtt,
    ));
    out
}

/// " (a, b, c)" of the paper's names, or nothing.
fn list(ccs: &[&str]) -> String {
    if ccs.is_empty() {
        String::new()
    } else {
        format!(
            " ({})",
            ccs.iter()
                .map(|c| display(c))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::Verdict;
    use super::*;

    /// Curves with a value for every x.
    fn curves(x: &[f64], series: &[(&str, &[f64])]) -> Curves {
        Curves {
            x: x.to_vec(),
            series: series
                .iter()
                .map(|(cc, v)| (cc.to_string(), v.iter().map(|&v| Some(v)).collect()))
                .collect(),
        }
    }

    fn verdict(out: &[Comparison], claim_starts: &str) -> Verdict {
        out.iter()
            .find(|c| c.claim.starts_with(claim_starts))
            .unwrap_or_else(|| panic!("no claim `{claim_starts}`"))
            .verdict
    }

    const RTTS: [f64; 9] = [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0];

    #[test]
    fn the_papers_fig_3_shapes_agree_over_the_whole_grid() {
        // Fig. 3 as the paper describes it: H-TCP falls to 0.85 at 512 ms, Vegas drops
        // sharply, Hybla falls then rises.
        let paper = curves(
            &RTTS,
            &[
                ("htcp", &[1.0, 1.0, 0.99, 0.97, 0.95, 0.93, 0.9, 0.88, 0.85]),
                ("vegas", &[1.0, 0.9, 0.8, 0.6, 0.4, 0.3, 0.2, 0.1, 0.05]),
                ("hybla", &[1.0, 0.8, 0.5, 0.3, 0.2, 0.15, 0.3, 0.6, 0.8]),
            ],
        );
        let out = rtt(&paper);
        assert_eq!(verdict(&out, "H-TCP utilization"), Verdict::WithinTolerance);
        assert_eq!(verdict(&out, "utilization falls"), Verdict::Agrees);
        assert_eq!(verdict(&out, "Hybla's utilization"), Verdict::Agrees);
        assert_eq!(verdict(&out, "Vegas's utilization"), Verdict::Agrees);
    }

    #[test]
    fn a_shape_seen_at_the_two_ends_only_does_not_agree() {
        // The ends fall by 0.15 for H-TCP, but it rises by 0.1 at 64 ms: not a decline.
        // Hybla's ends are above a dip of only 0.002: no dip.
        let bumpy = curves(
            &RTTS,
            &[
                ("htcp", &[1.0, 0.95, 0.9, 0.85, 0.8, 0.9, 0.88, 0.86, 0.85]),
                ("hybla", &[1.0, 1.0, 1.0, 1.0, 1.0, 0.998, 1.0, 1.0, 1.0]),
            ],
        );
        let out = rtt(&bumpy);
        assert_eq!(verdict(&out, "utilization falls"), Verdict::Disagrees);
        assert_eq!(verdict(&out, "Hybla's utilization"), Verdict::Disagrees);
    }

    #[test]
    fn largest_abs_a_ignores_x2s_own_rtt() {
        // At x1 = 256 ms both flows have x2's RTT: the equal-RTT point is not RTT unfairness.
        let c = curves(
            &[16.0, 256.0, 512.0],
            &[("hybla", &[0.05, 0.9, -0.02]), ("cubic", &[0.6, 0.0, -0.3])],
        );
        assert_eq!(largest_abs_a(&c), vec![("hybla", 0.05), ("cubic", 0.6)]);
    }

    #[test]
    fn the_sign_of_a_must_hold_at_every_rtt_of_x1() {
        let x = [16.0, 32.0, 64.0, 128.0, 256.0, 512.0];
        // BIC and CUBIC as the paper says (positive below 256 ms, ≈ 0 at it, negative
        // above); HSTCP turns negative at 64 ms although its two ends have the right signs.
        let c = curves(
            &x,
            &[
                ("bic", &[0.9, 0.8, 0.6, 0.3, 0.02, -0.3]),
                ("cubic", &[0.5, 0.4, 0.3, 0.1, -0.05, -0.2]),
                ("highspeed", &[0.9, 0.1, -0.1, -0.2, 0.5, -0.4]),
            ],
        );
        let out = rtt_fairness(&c, &Reasons::default());
        let sign = out
            .iter()
            .find(|c| c.claim.starts_with("A > 0"))
            .expect("the sign claim is made");
        assert_eq!(sign.ours, "2 of 3 (BIC, CUBIC)");
        assert_eq!(sign.verdict, Verdict::Agrees, "two of three is most");
        let equal = out
            .iter()
            .find(|c| c.claim.starts_with("A ≈ 0"))
            .expect("the equal-RTT claim is made");
        assert_eq!(equal.ours, "2 of 3 (BIC, CUBIC)", "HSTCP's 0.5 is not ≈ 0");
        // Without x1 = 256 ms (the --quick grid) the equal-RTT claim has no run.
        let quick = curves(&[16.0, 128.0], &[("bic", &[0.9, 0.3])]);
        assert_eq!(
            rtt_fairness(&quick, &Reasons::default())
                .iter()
                .find(|c| c.claim.starts_with("A ≈ 0"))
                .expect("made")
                .ours,
            "not run"
        );
    }

    #[test]
    fn intra_fairness_reads_the_whole_grid() {
        let x = [16.0, 32.0, 64.0, 128.0, 256.0, 512.0];
        // H-TCP fair everywhere; Vegas the least fair below 512 ms and "fair" at 512 ms, as
        // the paper describes (both flows tiny); STCP the lowest at 512 ms only.
        let c = curves(
            &x,
            &[
                ("htcp", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
                ("vegas", &[0.7, 0.75, 0.8, 0.8, 0.85, 1.0]),
                ("scalable", &[0.9, 0.9, 0.9, 0.9, 0.9, 0.6]),
                ("yeah", &[0.95, 0.96, 0.97, 0.98, 0.99, 1.0]),
            ],
        );
        let out = intra(&c, &Reasons::default());
        assert_eq!(verdict(&out, "H-TCP has the best"), Verdict::Agrees);
        assert_eq!(verdict(&out, "Vegas's intra-protocol"), Verdict::Agrees);
        assert_eq!(verdict(&out, "YeAH is much fairer"), Verdict::Agrees);
        // H-TCP flat, Vegas and YeAH rising, STCP falling by 0.3 at 512 ms (least squares
        // over log2 RTT = 4..9, mean 6.5: Σ(u − ū)(y − ȳ) = −2.5·0.05 + 2.5·(−0.25) = −0.75,
        // Σ(u − ū)² = 17.5, × 5 doublings ≈ −0.21): 3 of 4.
        let improves = out
            .iter()
            .find(|c| c.claim.starts_with("intra-protocol fairness improves"))
            .expect("made");
        assert!(improves.ours.starts_with("3 of 4"), "{}", improves.ours);
        assert_eq!(improves.verdict, Verdict::Agrees);
    }

    #[test]
    fn stcp_must_be_the_least_friendly_over_the_range() {
        let x = [16.0, 64.0, 256.0];
        // STCP above BIC at two RTTs of three, but BIC's mean is larger: BIC 0.9 mean,
        // STCP (0.95 + 0.9 + 0.5)/3 ≈ 0.78.
        let c = curves(
            &x,
            &[("scalable", &[0.95, 0.9, 0.5]), ("bic", &[0.9, 0.85, 0.95])],
        );
        let out = friendliness(&c, &Reasons::default());
        let stcp = out
            .iter()
            .find(|c| c.claim.starts_with("STCP is the least friendly"))
            .expect("made");
        assert_eq!(stcp.verdict, Verdict::Disagrees);
        assert!(
            stcp.ours.contains("the largest A at 2 of 3 RTTs"),
            "{}",
            stcp.ours
        );
        // |A| falls for STCP (0.95 → 0.5) and rises for BIC: one of two improves, not most.
        assert_eq!(verdict(&out, "friendliness improves"), Verdict::Disagrees);
    }
}
