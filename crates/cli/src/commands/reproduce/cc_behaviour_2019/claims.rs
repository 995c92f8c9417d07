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
}
