//! The arithmetic behind each comparison with the paper's abstract: pure functions of the
//! per-module numbers, so each is checked on hand-made values.

/// How far `name`'s value lies below the lowest of the others, as a fraction of that
/// lowest value: 1 − x_name / min(others). The paper's "BBR's goodput is at least 22.5 %
/// lower than the other protocols'" holds when this is ≥ 0.225. Returns the gap and the
/// module with the lowest other value; `None` without `name` or without others.
pub fn gap_below_lowest_other(values: &[(String, f64)], name: &str) -> Option<(f64, String)> {
    let own = values.iter().find(|(n, _)| n == name)?.1;
    let (lowest, value) = values
        .iter()
        .filter(|(n, _)| n != name)
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    Some((1.0 - own / value, lowest.clone()))
}

/// `name`'s value over the mean of the others' values, minus one: the paper's "CUBIC
/// generates 129 % more retransmissions than the other protocols" is this = 1.29.
pub fn excess_over_mean_of_others(values: &[(String, f64)], name: &str) -> Option<f64> {
    let own = values.iter().find(|(n, _)| n == name)?.1;
    let others: Vec<f64> = values
        .iter()
        .filter(|(n, _)| n != name)
        .map(|(_, v)| *v)
        .collect();
    if others.is_empty() {
        return None;
    }
    let mean = others.iter().sum::<f64>() / others.len() as f64;
    (mean > 0.0).then(|| own / mean - 1.0)
}

/// The smallest buffer from which the utilization stays at or above `full` for every larger
/// buffer too: `points` are (buffer, utilization) in any order. `None` when even the
/// largest buffer is below `full`.
pub fn full_use_from(points: &[(f64, f64)], full: f64) -> Option<f64> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut from = None;
    for &(buffer, utilization) in sorted.iter().rev() {
        if utilization >= full {
            from = Some(buffer);
        } else {
            break;
        }
    }
    from
}

/// The modules in order of their convergence time, fastest first; a module that never
/// settled (`None`) counts as slower than any that did.
pub fn fastest_first(times: &[(String, Option<f64>)]) -> Vec<(String, Option<f64>)> {
    let mut sorted = times.to_vec();
    sorted.sort_by(|a, b| match (a.1, b.1) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    sorted
}

/// Convergence to an equal split of what two flows actually get: the time from `start` until
/// the joiner's throughput, averaged over `window` bins, entered and stayed within
/// ±`tolerance` of the pair's mean (averaged over the same bins) until the last bin. It is
/// docs/metrics.md's convergence time with the fair share f replaced by the pair's mean
/// throughput, for links (Wi-Fi) whose nominal rate the flows cannot reach, where the
/// summary's share of the nominal rate is never met. `bins` are (bin end, joiner's
/// throughput, other's throughput) from the joiner's first whole bin on, in time order, of
/// width `width`. `None` when the last averaged point is outside, or no window fits.
pub fn equal_split_convergence(
    bins: &[(f64, f64, f64)],
    start: f64,
    width: f64,
    window: usize,
    tolerance: f64,
) -> Option<f64> {
    if window == 0 || bins.len() < window {
        return None;
    }
    // For each window ending at bin i (i ≥ window − 1): is the joiner inside?
    let inside: Vec<bool> = (window - 1..bins.len())
        .map(|i| {
            let span = &bins[i + 1 - window..=i];
            let joiner: f64 = span.iter().map(|b| b.1).sum();
            let other: f64 = span.iter().map(|b| b.2).sum();
            let mean = (joiner + other) / 2.0;
            mean > 0.0 && (joiner / mean - 1.0).abs() <= tolerance
        })
        .collect();
    if !inside.last().copied().unwrap_or(false) {
        return None;
    }
    let first = inside.iter().rposition(|i| !i).map_or(0, |p| p + 1);
    // Window `first` ends at bin first + window − 1 and starts one bin width before bin
    // `first`'s end.
    let window_start = bins[first].0 - width;
    Some((window_start - start).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, f64)]) -> Vec<(String, f64)> {
        pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    #[test]
    fn the_gap_is_measured_against_the_lowest_other_module() {
        // BBR 77.5 against 100 and 120: 1 − 77.5/100 = 0.225, the paper's bound exactly.
        let v = values(&[("bbr", 77.5), ("cubic", 120.0), ("vegas", 100.0)]);
        let (gap, lowest) = gap_below_lowest_other(&v, "bbr").unwrap();
        assert!((gap - 0.225).abs() < 1e-12);
        assert_eq!(lowest, "vegas");
        // BBR above the lowest other: the gap is negative, 1 − 90/60 = −0.5.
        let v = values(&[("bbr", 90.0), ("vegas", 60.0)]);
        assert!((gap_below_lowest_other(&v, "bbr").unwrap().0 + 0.5).abs() < 1e-12);
        assert!(gap_below_lowest_other(&values(&[("bbr", 1.0)]), "bbr").is_none());
    }

    #[test]
    fn the_excess_is_over_the_mean_of_the_others() {
        // CUBIC 229 against the mean of 50 and 150 = 100: 129 % more.
        let v = values(&[("cubic", 229.0), ("reno", 50.0), ("bbr", 150.0)]);
        assert!((excess_over_mean_of_others(&v, "cubic").unwrap() - 1.29).abs() < 1e-12);
        let none = values(&[("cubic", 5.0), ("bbr", 0.0)]);
        assert!(excess_over_mean_of_others(&none, "cubic").is_none());
    }

    #[test]
    fn full_use_starts_where_every_larger_buffer_is_full_too() {
        // Full at 20 and above; 10 is full too but 15 is not, so it starts at 20.
        let p = [
            (5.0, 0.7),
            (10.0, 0.96),
            (15.0, 0.9),
            (20.0, 0.95),
            (50.0, 0.99),
        ];
        assert_eq!(full_use_from(&p, 0.95), Some(20.0));
        assert_eq!(full_use_from(&[(5.0, 0.5), (1000.0, 0.9)], 0.95), None);
    }

    #[test]
    fn modules_that_never_settled_rank_last() {
        let t = vec![
            ("reno".to_string(), None),
            ("bbr".to_string(), Some(1.5)),
            ("cubic".to_string(), Some(0.5)),
        ];
        let order: Vec<String> = fastest_first(&t).into_iter().map(|(n, _)| n).collect();
        assert_eq!(order, ["cubic", "bbr", "reno"]);
    }

    #[test]
    fn equal_split_convergence_starts_at_the_first_window_of_the_final_inside_run() {
        // 0.1 s bins from a joiner started at 10.0 s; window 2 bins, ±20 %. The joiner sends
        // 1 against 9 for three bins, then 5 against 5. Window ending at bin 3 (10.3..10.4)
        // averages (1 + 5)/2 = 3 against (9 + 5)/2 = 7: mean 5, 3/5 − 1 = −0.4, outside. The
        // window ending at bin 4 holds bins 3 and 4 (both 5 : 5): inside, and so are the
        // later ones; it starts at bin 3's start, 10.3 s: 0.3 s after the join.
        let bins: Vec<(f64, f64, f64)> = (0..8)
            .map(|k| {
                let end = 10.0 + 0.1 * (k + 1) as f64;
                if k < 3 {
                    (end, 1.0, 9.0)
                } else {
                    (end, 5.0, 5.0)
                }
            })
            .collect();
        let t = equal_split_convergence(&bins, 10.0, 0.1, 2, 0.2).unwrap();
        assert!((t - 0.3).abs() < 1e-9, "{t}");
        // Ending outside: never settled.
        let mut late = bins.clone();
        late.push((10.9, 1.0, 9.0));
        assert!(equal_split_convergence(&late, 10.0, 0.1, 2, 0.2).is_none());
        // Inside from the first window: 0.
        let even = vec![(10.1, 4.0, 4.5), (10.2, 4.0, 4.5)];
        assert_eq!(equal_split_convergence(&even, 10.0, 0.1, 2, 0.2), Some(0.0));
        assert!(equal_split_convergence(&even[..1], 10.0, 0.1, 2, 0.2).is_none());
    }
}
