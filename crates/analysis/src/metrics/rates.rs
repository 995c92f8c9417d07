//! Rates and their behaviour over time: rates over an interval, stability (coefficient of
//! variation of binned rates) and convergence time to a fair share.

use cclab_cc::{SimDuration, SimTime};

/// Bytes over seconds, in bit/s; 0 for an empty interval.
pub fn rate_bps(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds
    } else {
        0.0
    }
}

/// `numerator / denominator`, `None` when the denominator is zero (e.g. retransmissions per
/// packet of a flow that sent nothing, wire bytes per delivered byte of a flow that delivered
/// nothing).
pub fn ratio(numerator: f64, denominator: f64) -> Option<f64> {
    (denominator != 0.0).then(|| numerator / denominator)
}

/// One flow's rate over `(start, end]` (bit/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateBin {
    pub start: SimTime,
    pub end: SimTime,
    pub rate_bps: f64,
}

/// The bins lying wholly inside `[from, until]`.
pub fn bins_within(
    bins: &[RateBin],
    from: SimTime,
    until: SimTime,
) -> impl Iterator<Item = &RateBin> {
    bins.iter()
        .filter(move |b| b.start >= from && b.end <= until)
}

/// Trailing moving averages of `k` consecutive bins: one bin per run of `k`, spanning from
/// the first one's start to the last one's end, with their mean rate (bins of equal width).
/// Empty when there are fewer than `k` bins; `k = 1` returns the bins themselves.
pub fn moving_average(bins: &[RateBin], k: usize) -> Vec<RateBin> {
    if k == 0 {
        return Vec::new();
    }
    bins.windows(k)
        .map(|w| RateBin {
            start: w[0].start,
            end: w[k - 1].end,
            rate_bps: w.iter().map(|b| b.rate_bps).sum::<f64>() / k as f64,
        })
        .collect()
}

/// Coefficient of variation `CV = σ / μ` of `values`, with the population standard deviation
/// `σ = sqrt(Σ(x − μ)² / n)`. Dimensionless; 0 for a constant rate. `None` for fewer than two
/// values or a zero mean (a flow that sent nothing has no stability to speak of).
pub fn coefficient_of_variation(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return None;
    }
    let variance = values.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    Some(variance.sqrt() / mean)
}

/// Convergence time of a flow that started at `from` towards `fair_share_bps`, judged on its
/// rate bins lying wholly inside `[from, until]` (`until`: the next change in the set of
/// active flows, or the end of the run).
///
/// A bin is *inside* when `|rate / fair_share − 1| ≤ tolerance`. The flow has converged at
/// `t*`, the start of the first bin of the final unbroken run of inside bins that reaches the
/// last bin before `until` (it reached its share and stayed there); the result is `t* − from`,
/// resolved to one bin. `None` when the last bin is outside (it never settled), when there is
/// no whole bin, or when the fair share is not positive.
pub fn convergence_time(
    bins: &[RateBin],
    from: SimTime,
    until: SimTime,
    fair_share_bps: f64,
    tolerance: f64,
) -> Option<SimDuration> {
    if fair_share_bps <= 0.0 {
        return None;
    }
    let inside = |b: &RateBin| (b.rate_bps / fair_share_bps - 1.0).abs() <= tolerance;
    let mut settled_at: Option<SimTime> = None;
    for bin in bins_within(bins, from, until) {
        if inside(bin) {
            settled_at.get_or_insert(bin.start);
        } else {
            settled_at = None;
        }
    }
    settled_at.map(|t| t.saturating_since(from))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(seconds: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs_f64(seconds)
    }

    /// One-second bins starting at `first`, with the given rates.
    fn bins(first: f64, rates: &[f64]) -> Vec<RateBin> {
        rates
            .iter()
            .enumerate()
            .map(|(i, &r)| RateBin {
                start: s(first + i as f64),
                end: s(first + i as f64 + 1.0),
                rate_bps: r,
            })
            .collect()
    }

    #[test]
    fn rates_and_ratios() {
        assert_eq!(rate_bps(1_000_000, 8.0), 1_000_000.0);
        assert_eq!(rate_bps(100, 0.0), 0.0);
        assert_eq!(ratio(3.0, 4.0), Some(0.75));
        assert_eq!(ratio(3.0, 0.0), None);
    }

    #[test]
    fn coefficient_of_variation_known_values() {
        // 1, 3: mean 2, σ = 1, CV = 0.5.
        assert_eq!(coefficient_of_variation(&[1.0, 3.0]), Some(0.5));
        assert_eq!(coefficient_of_variation(&[4.0, 4.0, 4.0]), Some(0.0));
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, σ = 2 (the textbook example), CV = 0.4.
        let cv = coefficient_of_variation(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert!((cv - 0.4).abs() < 1e-12);
        // Edge cases: one bin, no bins, zero goodput.
        assert_eq!(coefficient_of_variation(&[5.0]), None);
        assert_eq!(coefficient_of_variation(&[]), None);
        assert_eq!(coefficient_of_variation(&[0.0, 0.0]), None);
    }

    #[test]
    fn moving_averages() {
        let b = bins(0.0, &[1.0, 2.0, 3.0, 6.0]);
        let avg = moving_average(&b, 2);
        assert_eq!(
            avg.iter().map(|b| b.rate_bps).collect::<Vec<_>>(),
            [1.5, 2.5, 4.5]
        );
        assert_eq!((avg[1].start, avg[1].end), (s(1.0), s(3.0)));
        assert_eq!(moving_average(&b, 1), b);
        assert!(moving_average(&b, 5).is_empty());
        assert!(moving_average(&b, 0).is_empty());
    }

    #[test]
    fn convergence_reaches_and_stays() {
        // Fair share 10; band ±20 % = [8, 12]. The flow starts at 20 s, ramps up, overshoots
        // once at 24 s, and stays inside from 25 s: converged after 5 s.
        let b = bins(20.0, &[2.0, 6.0, 9.0, 11.0, 13.0, 10.0, 9.0, 11.5, 10.0]);
        assert_eq!(
            convergence_time(&b, s(20.0), s(29.0), 10.0, 0.2),
            Some(SimDuration::from_secs(5))
        );
        // Judged only up to `until`: at 24 s the bin at 23 s is the last, and inside.
        assert_eq!(
            convergence_time(&b, s(20.0), s(24.0), 10.0, 0.2),
            Some(SimDuration::from_secs(2))
        );
    }

    #[test]
    fn convergence_edge_cases() {
        // Inside from the first bin: converged at once.
        let b = bins(0.0, &[10.0, 10.0]);
        assert_eq!(
            convergence_time(&b, s(0.0), s(2.0), 10.0, 0.2),
            Some(SimDuration::ZERO)
        );
        // A start between bin boundaries: the first whole bin begins 0.5 s later.
        let late = bins(1.0, &[10.0]);
        assert_eq!(
            convergence_time(&late, s(0.5), s(2.0), 10.0, 0.2),
            Some(SimDuration::from_millis(500))
        );
        // Leaves the band in the last bin: never converged.
        let b = bins(0.0, &[10.0, 10.0, 5.0]);
        assert_eq!(convergence_time(&b, s(0.0), s(3.0), 10.0, 0.2), None);
        // Zero goodput throughout; no whole bin; no fair share.
        let zero = bins(0.0, &[0.0, 0.0]);
        assert_eq!(convergence_time(&zero, s(0.0), s(2.0), 10.0, 0.2), None);
        assert_eq!(convergence_time(&b, s(0.0), s(0.5), 10.0, 0.2), None);
        assert_eq!(convergence_time(&b, s(0.0), s(3.0), 0.0, 0.2), None);
        // Exactly on the band's edge counts as inside.
        let edge = bins(0.0, &[8.0, 12.0]);
        assert_eq!(
            convergence_time(&edge, s(0.0), s(2.0), 10.0, 0.2),
            Some(SimDuration::ZERO)
        );
    }
}
