//! Max-min fair shares of flows grouped into route classes: the same progressive filling as
//! `cclab_sim::topology::max_min_shares` (Bertsekas & Gallager, *Data Networks*, §6.5.2),
//! with each class standing for `count` identical flows. Identical flows always freeze
//! together, so the allocation is the per-flow one; the work is per class, not per flow, so
//! that the fair shares of 100 000 flows with staggered starts (one problem per distinct
//! start) stay cheap.

/// The max-min fair rate of one flow of each class, in the unit of `capacities_bps`.
///
/// `routes[c]` lists the links (indexes into `capacities_bps`, each at most once) a flow of
/// class `c` crosses; `counts[c]` is how many flows the class has. A class with no flows or
/// no links gets `f64::INFINITY` (no constraint), as does one whose links are all unloaded.
pub fn max_min_class_shares(
    capacities_bps: &[f64],
    routes: &[Vec<usize>],
    counts: &[u64],
) -> Vec<f64> {
    let mut rates = vec![f64::INFINITY; routes.len()];
    let mut frozen: Vec<bool> = routes
        .iter()
        .zip(counts)
        .map(|(route, &count)| route.is_empty() || count == 0)
        .collect();
    // Per link: unfrozen flows crossing it, and the summed rate of its frozen flows.
    let mut unfrozen_on = vec![0u64; capacities_bps.len()];
    let mut frozen_rate_on = vec![0.0f64; capacities_bps.len()];
    for (c, route) in routes.iter().enumerate() {
        if !frozen[c] {
            for &link in route {
                unfrozen_on[link] += counts[c];
            }
        }
    }
    let mut level = 0.0f64;
    while frozen.iter().any(|&f| !f) {
        let saturation_level = |link: usize| {
            let spare = (capacities_bps[link] - frozen_rate_on[link]).max(0.0);
            spare / unfrozen_on[link] as f64
        };
        let next = (0..capacities_bps.len())
            .filter(|&link| unfrozen_on[link] > 0)
            .map(saturation_level)
            .fold(f64::INFINITY, f64::min);
        // Rates never fall during progressive filling; rounding must not make them.
        level = level.max(next);
        if level.is_infinite() {
            break;
        }
        let saturated: Vec<bool> = (0..capacities_bps.len())
            .map(|link| unfrozen_on[link] > 0 && saturation_level(link) <= level)
            .collect();
        for (c, route) in routes.iter().enumerate() {
            if frozen[c] || !route.iter().any(|&link| saturated[link]) {
                continue;
            }
            frozen[c] = true;
            rates[c] = level;
            for &link in route {
                unfrozen_on[link] -= counts[c];
                frozen_rate_on[link] += level * counts[c] as f64;
            }
        }
    }
    rates
}

#[cfg(test)]
mod tests {
    use super::*;
    use cclab_sim::topology::max_min_shares;

    /// The classes' shares are the per-flow shares of the same flows listed one by one, as
    /// the simulator's progressive filling computes them (itself checked against hand
    /// calculations there).
    fn check(capacities: &[f64], routes: &[Vec<usize>], counts: &[u64]) {
        let classes = max_min_class_shares(capacities, routes, counts);
        let mut flat = Vec::new();
        let mut class_of = Vec::new();
        for (c, route) in routes.iter().enumerate() {
            for _ in 0..counts[c] {
                flat.push(route.clone());
                class_of.push(c);
            }
        }
        let per_flow = max_min_shares(capacities, &flat);
        for (share, &c) in per_flow.iter().zip(&class_of) {
            assert!(
                (share - classes[c]).abs() <= 1e-9 * share.abs(),
                "class {c}: {} vs {share} ({classes:?})",
                classes[c]
            );
        }
    }

    #[test]
    fn classes_agree_with_flows_listed_one_by_one() {
        // A parking lot: 3 long flows over hops 0-2, 1 on hop 0, 4 on hop 1, 2 on hop 2.
        check(
            &[10e6, 4e6, 10e6],
            &[vec![0, 1, 2], vec![0], vec![1], vec![2]],
            &[3, 1, 4, 2],
        );
        // Two chains meeting on one link; an empty class.
        check(
            &[5e6, 8e6, 3e6],
            &[vec![0, 2], vec![1, 2], vec![1], vec![0]],
            &[2, 1, 5, 0],
        );
    }

    /// By hand: a 10 Mbit/s link with a class of 4 flows and a class of 1: 2 Mbit/s each.
    #[test]
    fn one_link_splits_equally_among_all_flows() {
        let shares = max_min_class_shares(&[10e6], &[vec![0], vec![0]], &[4, 1]);
        assert_eq!(shares, [2e6, 2e6]);
    }
}
