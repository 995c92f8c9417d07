//! Metric formulas, each a small pure function with its definition in the doc comment.

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

/// Bytes over seconds, in bit/s; 0 for an empty interval.
pub fn rate_bps(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 * 8.0 / seconds
    } else {
        0.0
    }
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
    fn rates() {
        assert_eq!(rate_bps(1_000_000, 8.0), 1_000_000.0);
        assert_eq!(rate_bps(100, 0.0), 0.0);
    }
}
