//! Fairness between flows: Jain's index and the two-flow index A of the high-speed survey.

/// Jain's fairness index `J = (Σx)² / (n·Σx²)` (Jain, Chiu, Hawe 1984): 1 when all shares are
/// equal, 1/n when one flow has everything. Defined as 1 for no flows or all-zero shares
/// (nobody is favoured).
pub fn jain_index(shares: &[f64]) -> f64 {
    let sum: f64 = shares.iter().sum();
    let sum_of_squares: f64 = shares.iter().map(|x| x * x).sum();
    if shares.is_empty() || sum_of_squares == 0.0 {
        1.0
    } else {
        sum * sum / (shares.len() as f64 * sum_of_squares)
    }
}

/// The survey's RTT-fairness / TCP-friendliness index (seed-spec §4.1, formula (1), after
/// Chiu): `A = (x1 − x2) / (x1 + x2)` for the rates of two flows. Signed and bounded in
/// [−1, 1]: 0 is a fair split, > 0 means flow 1 gets more, ±1 means one flow starves the
/// other. `None` when both rates are zero (nothing to share).
pub fn index_a(x1: f64, x2: f64) -> Option<f64> {
    let total = x1 + x2;
    (total > 0.0).then(|| (x1 - x2) / total)
}

/// The bandwidth-share ratio `x1 / x2` (1 is fair); `None` when `x2` is zero.
pub fn share_ratio(x1: f64, x2: f64) -> Option<f64> {
    (x2 > 0.0).then(|| x1 / x2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_known_values() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0, 5.0]), 1.0);
        // One of four flows takes everything: (x)^2 / (4 x^2) = 1/4.
        assert_eq!(jain_index(&[8.0, 0.0, 0.0, 0.0]), 0.25);
        // Shares 1 and 3: 16 / (2 * 10) = 0.8.
        assert!((jain_index(&[1.0, 3.0]) - 0.8).abs() < 1e-12);
        assert_eq!(jain_index(&[7.0]), 1.0);
        assert_eq!(jain_index(&[]), 1.0);
        assert_eq!(jain_index(&[0.0, 0.0]), 1.0);
    }

    #[test]
    fn index_a_known_values() {
        assert_eq!(index_a(5e6, 5e6), Some(0.0));
        // 3:1 split: (3 - 1) / (3 + 1) = 0.5, and the mirror image -0.5.
        assert_eq!(index_a(75.0, 25.0), Some(0.5));
        assert_eq!(index_a(25.0, 75.0), Some(-0.5));
        // Starvation: one flow has everything.
        assert_eq!(index_a(10.0, 0.0), Some(1.0));
        assert_eq!(index_a(0.0, 10.0), Some(-1.0));
        assert_eq!(index_a(0.0, 0.0), None);
    }

    #[test]
    fn share_ratio_known_values() {
        assert_eq!(share_ratio(75.0, 25.0), Some(3.0));
        assert_eq!(share_ratio(0.0, 25.0), Some(0.0));
        assert_eq!(share_ratio(1.0, 0.0), None);
    }
}
