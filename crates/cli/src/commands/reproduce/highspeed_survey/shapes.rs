//! The shapes the survey's text reads off its RTT figures ("falls with the RTT", "falls then
//! rises", "improves with the RTT"), decided over every point of a curve rather than its two
//! ends. The paper's RTT axes double (2, 4, …, 512 ms; seed-spec §4.1), so a trend is fitted
//! against log2 of the RTT: each doubling weighs the same, as on the paper's axis.

/// The least-squares fit of `y` against log2(`x`) over `points`, as the change it predicts
/// from the smallest x to the largest (slope × the span in doublings). `None` with fewer than
/// two distinct x or an x that is not positive.
pub fn fitted_change(points: &[(f64, f64)]) -> Option<f64> {
    if points.iter().any(|(x, _)| *x <= 0.0) {
        return None;
    }
    let u: Vec<f64> = points.iter().map(|(x, _)| x.log2()).collect();
    let n = points.len() as f64;
    let u_mean = u.iter().sum::<f64>() / n;
    let y_mean = points.iter().map(|(_, y)| y).sum::<f64>() / n;
    let sxx: f64 = u.iter().map(|u| (u - u_mean).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let sxy: f64 = u
        .iter()
        .zip(points)
        .map(|(u, (_, y))| (u - u_mean) * (y - y_mean))
        .sum();
    let span =
        u.iter().copied().fold(f64::MIN, f64::max) - u.iter().copied().fold(f64::MAX, f64::min);
    Some(sxy / sxx * span)
}

/// Whether `points` (ascending x) fall with x: the last is lower than the first by more than
/// `tolerance`, and no step from one x to the next rises by more than `tolerance` (a rise the
/// paper's figure would show as one).
pub fn declines(points: &[(f64, f64)], tolerance: f64) -> bool {
    match (points.first(), points.last()) {
        (Some(first), Some(last)) if points.len() >= 2 => {
            first.1 - last.1 > tolerance && points.windows(2).all(|w| w[1].1 - w[0].1 <= tolerance)
        }
        _ => false,
    }
}

/// A dip and recovery in `points` (ascending x): the lowest point is inside the range, and
/// both ends lie above it by more than `tolerance`. Returns the lowest point.
pub fn dip(points: &[(f64, f64)], tolerance: f64) -> Option<(f64, f64)> {
    let (i, low) = points
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.1.total_cmp(&b.1.1))?;
    let (first, last) = (points.first()?.1, points.last()?.1);
    (i > 0 && i + 1 < points.len() && first - low.1 > tolerance && last - low.1 > tolerance)
        .then_some(*low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_straight_line_in_log2_is_fitted_exactly() {
        // y = 1 − 0.1 · log2(x / 16) at 16, 32, 64, 128: 1.0, 0.9, 0.8, 0.7; the change from
        // 16 to 128 ms (three doublings) is −0.3.
        let p = [(16.0, 1.0), (32.0, 0.9), (64.0, 0.8), (128.0, 0.7)];
        let change = fitted_change(&p).expect("four distinct positive x");
        assert!((change + 0.3).abs() < 1e-12, "{change}");
        // A V: 1, 0, 1 at 2, 4, 8 ms has no trend (slope 0).
        let v = [(2.0, 1.0), (4.0, 0.0), (8.0, 1.0)];
        assert_eq!(fitted_change(&v), Some(0.0));
        assert_eq!(
            fitted_change(&[(16.0, 1.0)]),
            None,
            "one point has no trend"
        );
        assert_eq!(fitted_change(&[(0.0, 1.0), (16.0, 1.0)]), None);
    }

    #[test]
    fn a_decline_needs_a_fall_over_the_range_and_no_visible_rise() {
        // Falls 0.3 over the range in steps of 0.1: declines at tolerance 0.05.
        let p = [(2.0, 1.0), (4.0, 0.9), (8.0, 0.8), (16.0, 0.7)];
        assert!(declines(&p, 0.05));
        // The same ends with a rise of 0.2 in the middle (0.6 → 0.8): not a decline.
        let bump = [(2.0, 1.0), (4.0, 0.6), (8.0, 0.8), (16.0, 0.7)];
        assert!(!declines(&bump, 0.05));
        // A fall of 0.004 (1.000 to 0.996) is below the tolerance: flat, not a decline.
        assert!(!declines(&[(2.0, 1.0), (512.0, 0.996)], 0.05));
    }

    #[test]
    fn a_dip_is_an_inner_minimum_below_both_ends() {
        // Hybla in the paper: falls, then rises. 0.9 → 0.3 → 0.7: the dip is at 64 ms.
        let p = [(2.0, 0.9), (16.0, 0.5), (64.0, 0.3), (512.0, 0.7)];
        assert_eq!(dip(&p, 0.05), Some((64.0, 0.3)));
        // Lowest at the end: a fall, no recovery.
        assert_eq!(dip(&[(2.0, 0.9), (64.0, 0.5), (512.0, 0.3)], 0.05), None);
        // An inner minimum 0.002 below the ends is noise at tolerance 0.05.
        assert_eq!(dip(&[(2.0, 1.0), (64.0, 0.998), (512.0, 1.0)], 0.05), None);
    }
}
