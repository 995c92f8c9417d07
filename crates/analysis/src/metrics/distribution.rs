//! Percentiles: of RTT samples (from the sender's histogram) and of the queue length weighted
//! by time (from the link's time-at-length distribution).

use cclab_sim::Histogram;

/// The `q`-quantile of a histogram of nanosecond samples, in milliseconds (within 0.8 %; see
/// [`Histogram::quantile`]); `None` without samples.
pub fn histogram_quantile_ms(histogram: &Histogram, q: f64) -> Option<f64> {
    histogram.quantile(q).map(|ns| ns / 1e6)
}

/// The time-weighted `q`-quantile of a quantity that took the value `n` for `time_at[n]` time
/// units: the smallest `n` such that the quantity was at most `n` for at least a fraction `q`
/// of the total time. For the queue, "the queue held at most p99 packets 99 % of the time".
/// `None` when no time was recorded.
pub fn time_weighted_quantile(time_at: &[u64], q: f64) -> Option<u64> {
    let total: u128 = time_at.iter().map(|&t| t as u128).sum();
    if total == 0 {
        return None;
    }
    // ⌈q · total⌉ in integers, so that q = 1 needs all of the time.
    let target = ((q.clamp(0.0, 1.0) * total as f64).ceil() as u128).clamp(1, total);
    let mut seen = 0u128;
    for (n, &t) in time_at.iter().enumerate() {
        seen += t as u128;
        if seen >= target {
            return Some(n as u64);
        }
    }
    Some(time_at.len() as u64 - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_quantiles() {
        // Empty 90 s, 5 packets for 9 s, 40 packets for 1 s (100 s in all).
        let mut time_at = vec![0u64; 41];
        time_at[0] = 90;
        time_at[5] = 9;
        time_at[40] = 1;
        assert_eq!(time_weighted_quantile(&time_at, 0.5), Some(0));
        assert_eq!(time_weighted_quantile(&time_at, 0.9), Some(0));
        assert_eq!(time_weighted_quantile(&time_at, 0.95), Some(5));
        assert_eq!(time_weighted_quantile(&time_at, 0.99), Some(5));
        assert_eq!(time_weighted_quantile(&time_at, 0.999), Some(40));
        assert_eq!(time_weighted_quantile(&time_at, 1.0), Some(40));
        // A queue that never held anything; no time at all.
        assert_eq!(time_weighted_quantile(&[100], 0.99), Some(0));
        assert_eq!(time_weighted_quantile(&[], 0.99), None);
        assert_eq!(time_weighted_quantile(&[0, 0], 0.99), None);
    }

    #[test]
    fn histogram_quantile_in_ms() {
        let mut h = Histogram::default();
        assert_eq!(histogram_quantile_ms(&h, 0.99), None);
        h.record(64_000_000);
        assert_eq!(histogram_quantile_ms(&h, 0.99), Some(64.0));
    }
}
