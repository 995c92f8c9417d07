//! Max-min fair rates of flows over links of fixed capacity, by progressive filling.
//!
//! Reference: Bertsekas & Gallager, *Data Networks* (2nd ed., 1992), §6.5.2, "Max-min
//! fairness": start every flow at rate 0 and raise all rates together; when a link becomes
//! saturated, the flows crossing it are frozen at their current rate; continue raising the
//! others until every flow is frozen. The result is the unique max-min fair allocation: every
//! flow has a *bottleneck* link — one that is saturated and on which no other flow has a
//! higher rate.
//!
//! The filling is computed in closed steps, not by small increments: all unfrozen flows share
//! one rate (the fill *level*), and the next link to saturate is the one whose remaining
//! capacity per unfrozen flow, `(capacity − rates of its frozen flows) / unfrozen flows`, is the
//! smallest. That value is the next level, reached exactly. A network of `L` links and `F` flows
//! takes at most `min(L, F)` steps.

/// Max-min fair rate of each flow, in the unit of `capacities_bps` (bit/s).
///
/// `capacities_bps[l]` is link `l`'s capacity; `routes[f]` lists the links flow `f` crosses, by
/// index into `capacities_bps`. The result has one rate per route, in the same order.
///
/// Conventions:
/// - A flow whose route crosses no link (an empty route) meets no constraint: its rate is
///   `f64::INFINITY`. The same holds for a flow whose links all have infinite capacity.
/// - A route is read as a *set* of links: a link listed twice counts once. A simple path
///   never crosses the same link twice in the same direction, and counting it twice would
///   model a flow that loads the link with twice its own rate, which no route we build does.
/// - A link of capacity 0 gives its flows rate 0.
/// - The order of links within a route does not matter; the result is a pure function of the
///   inputs (no randomness, no dependence on hash order).
///
/// # Panics
/// If a route names a link index `>= capacities_bps.len()`, or a capacity is negative or NaN:
/// both are bugs in the caller (the topology builders produce routes from their own link
/// lists and validated rates), like an out-of-range slice index.
pub fn max_min_shares(capacities_bps: &[f64], routes: &[Vec<usize>]) -> Vec<f64> {
    for (link, &capacity) in capacities_bps.iter().enumerate() {
        assert!(
            capacity >= 0.0,
            "link {link} has capacity {capacity}: capacities must be non-negative numbers"
        );
    }
    let routes: Vec<Vec<usize>> = routes.iter().map(|route| distinct_links(route)).collect();
    for (flow, route) in routes.iter().enumerate() {
        for &link in route {
            assert!(
                link < capacities_bps.len(),
                "flow {flow} crosses link {link}, but there are only {} links",
                capacities_bps.len()
            );
        }
    }

    let mut rates = vec![f64::INFINITY; routes.len()];
    let mut frozen: Vec<bool> = routes.iter().map(|route| route.is_empty()).collect();
    // Per link: how many unfrozen flows cross it, and the summed rate of its frozen flows.
    let mut unfrozen_on = vec![0usize; capacities_bps.len()];
    let mut frozen_rate_on = vec![0.0f64; capacities_bps.len()];
    for route in routes.iter() {
        for &link in route {
            unfrozen_on[link] += 1;
        }
    }

    let mut level = 0.0f64;
    while frozen.iter().any(|&is_frozen| !is_frozen) {
        // The level at which each loaded link saturates; the smallest comes next.
        let saturation_level = |link: usize| {
            let spare = (capacities_bps[link] - frozen_rate_on[link]).max(0.0);
            spare / unfrozen_on[link] as f64
        };
        let next_level = (0..capacities_bps.len())
            .filter(|&link| unfrozen_on[link] > 0)
            .map(saturation_level)
            .fold(f64::INFINITY, f64::min);
        // Rounding can put a link's saturation level a hair below the current level after
        // earlier freezes; rates never fall during progressive filling, so clamp.
        level = level.max(next_level);
        if level.is_infinite() {
            // Only links of infinite capacity remain: nothing bounds the unfrozen flows.
            break;
        }
        let saturated: Vec<usize> = (0..capacities_bps.len())
            .filter(|&link| unfrozen_on[link] > 0 && saturation_level(link) <= level)
            .collect();
        for (flow, route) in routes.iter().enumerate() {
            if frozen[flow] || !route.iter().any(|link| saturated.contains(link)) {
                continue;
            }
            frozen[flow] = true;
            rates[flow] = level;
            for &link in route {
                unfrozen_on[link] -= 1;
                frozen_rate_on[link] += level;
            }
        }
    }
    rates
}

/// The route's links without repeats, in first-seen order.
fn distinct_links(route: &[usize]) -> Vec<usize> {
    let mut links = Vec::with_capacity(route.len());
    for &link in route {
        if !links.contains(&link) {
            links.push(link);
        }
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MBPS: f64 = 1e6;

    fn assert_rates(actual: &[f64], expected: &[f64]) {
        assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
        for (flow, (&got, &want)) in actual.iter().zip(expected).enumerate() {
            // Relative 1e-12: the closed steps are a handful of subtractions and one division.
            assert!(
                (got - want).abs() <= 1e-12 * want.abs(),
                "flow {flow}: got {got}, expected {want} (all: {actual:?})"
            );
        }
    }

    /// Parking lot of three hops at 10, 20 and 10 Mbit/s: flow 0 crosses all three, flows 1,
    /// 2, 3 cross one hop each (hop 1, 2, 3).
    /// Hand calculation: saturation levels start at 10/2 = 5 (hop 1), 20/2 = 10 (hop 2),
    /// 10/2 = 5 (hop 3). Level 5 saturates hops 1 and 3: flows 0, 1, 3 freeze at 5. Hop 2 has
    /// 20 − 5 = 15 left for flow 2 alone, which freezes at 15.
    #[test]
    fn parking_lot_10_20_10() {
        let capacities = [10.0 * MBPS, 20.0 * MBPS, 10.0 * MBPS];
        let routes = vec![vec![0, 1, 2], vec![0], vec![1], vec![2]];
        let rates = max_min_shares(&capacities, &routes);
        assert_rates(&rates, &[5.0 * MBPS, 5.0 * MBPS, 15.0 * MBPS, 5.0 * MBPS]);
    }

    /// Parking lot at 10, 20 and 15 Mbit/s, same flows: three distinct steps.
    /// Hand calculation: levels 10/2 = 5, 20/2 = 10, 15/2 = 7.5. Level 5 saturates hop 1:
    /// flows 0 and 1 freeze at 5. Hop 2: (20 − 5)/1 = 15; hop 3: (15 − 5)/1 = 10. Level 10
    /// saturates hop 3: flow 3 freezes at 10. Level 15 saturates hop 2: flow 2 at 15.
    #[test]
    fn parking_lot_10_20_15_freezes_in_three_steps() {
        let capacities = [10.0 * MBPS, 20.0 * MBPS, 15.0 * MBPS];
        let routes = vec![vec![0, 1, 2], vec![0], vec![1], vec![2]];
        let rates = max_min_shares(&capacities, &routes);
        assert_rates(&rates, &[5.0 * MBPS, 5.0 * MBPS, 15.0 * MBPS, 10.0 * MBPS]);
    }

    /// Keshav, *An Engineering Approach to Computer Networking* (1997), pp. 215–217, Example 1:
    /// four sources with demands 2, 2.6, 4 and 5 share a resource of capacity 10; the max-min
    /// fair allocation is 2, 2.6, 2.7, 2.7. A demand is modelled as a private link of that
    /// capacity in front of the shared link (link 4).
    /// Worked by progressive filling: levels are 2, 2.6, 4, 5 (private links) and 10/4 = 2.5
    /// (shared). Level 2 saturates source 1's link: it freezes at 2. Shared: (10 − 2)/3 = 2.667.
    /// Level 2.6 saturates source 2's link: it freezes at 2.6. Shared: (10 − 4.6)/2 = 2.7,
    /// below 4 and 5, so level 2.7 saturates the shared link: sources 3 and 4 freeze at 2.7.
    #[test]
    fn keshav_example_demands_as_private_links() {
        let capacities = [2.0, 2.6, 4.0, 5.0, 10.0];
        let routes = vec![vec![0, 4], vec![1, 4], vec![2, 4], vec![3, 4]];
        let rates = max_min_shares(&capacities, &routes);
        assert_rates(&rates, &[2.0, 2.6, 2.7, 2.7]);
    }

    /// A flow crossing no link meets no constraint (documented: `f64::INFINITY`); it does not
    /// take capacity from the others: the single flow on the 10 Mbit/s link gets all of it.
    #[test]
    fn flow_with_empty_route_is_unbounded() {
        let rates = max_min_shares(&[10.0 * MBPS], &[vec![], vec![0]]);
        assert_eq!(rates[0], f64::INFINITY);
        assert_rates(&rates[1..], &[10.0 * MBPS]);
    }

    /// A link listed twice in a route counts once (documented): two flows on one 10 Mbit/s
    /// link get 5 each, whether or not one of them lists the link twice.
    #[test]
    fn duplicate_link_in_route_counts_once() {
        let rates = max_min_shares(&[10.0 * MBPS], &[vec![0, 0], vec![0]]);
        assert_rates(&rates, &[5.0 * MBPS, 5.0 * MBPS]);
    }

    /// Infinite-capacity links never saturate: a flow on one only is unbounded, a flow that
    /// also crosses a finite link is bounded by it.
    #[test]
    fn infinite_capacity_links_do_not_bound() {
        let rates = max_min_shares(&[f64::INFINITY, 8.0], &[vec![0], vec![0, 1]]);
        assert_eq!(rates[0], f64::INFINITY);
        assert_rates(&rates[1..], &[8.0]);
    }

    /// A zero-capacity link starves its flows and leaves the rest to the others.
    #[test]
    fn zero_capacity_link_gives_zero() {
        let rates = max_min_shares(&[0.0, 6.0], &[vec![0, 1], vec![1], vec![1]]);
        assert_rates(&rates, &[0.0, 3.0, 3.0]);
    }

    #[test]
    fn no_flows_no_rates() {
        assert!(max_min_shares(&[1.0, 2.0], &[]).is_empty());
    }

    #[test]
    #[should_panic(expected = "crosses link 3")]
    fn route_outside_the_link_list_is_a_caller_bug() {
        max_min_shares(&[1.0, 2.0], &[vec![3]]);
    }

    /// Random networks: up to 6 links of 1 to 1000 units, up to 8 flows each crossing a
    /// non-empty random subset of links (duplicates allowed).
    fn network() -> impl Strategy<Value = (Vec<f64>, Vec<Vec<usize>>)> {
        prop::collection::vec(1.0f64..1000.0, 1..=6).prop_flat_map(|capacities| {
            let links = capacities.len();
            let routes =
                prop::collection::vec(prop::collection::vec(0..links, 1..=links + 1), 1..=8);
            (Just(capacities), routes)
        })
    }

    /// Tolerance for "saturated" and "equal" in the property tests: the filling rounds at each
    /// of at most 6 steps, so a relative 1e-9 is far above rounding and far below any real gap.
    const REL: f64 = 1e-9;

    fn load(capacities: &[f64], routes: &[Vec<usize>], rates: &[f64]) -> Vec<f64> {
        let mut load = vec![0.0; capacities.len()];
        for (route, rate) in routes.iter().zip(rates) {
            for link in distinct_links(route) {
                load[link] += rate;
            }
        }
        load
    }

    proptest! {
        /// Feasibility: no link carries more than its capacity.
        #[test]
        fn no_link_over_capacity((capacities, routes) in network()) {
            let rates = max_min_shares(&capacities, &routes);
            let load = load(&capacities, &routes, &rates);
            for (link, (&carried, &capacity)) in load.iter().zip(&capacities).enumerate() {
                prop_assert!(carried <= capacity * (1.0 + REL),
                    "link {} carries {} over capacity {}", link, carried, capacity);
            }
        }

        /// The defining property of max-min fairness (Bertsekas & Gallager §6.5.2): every flow
        /// has a bottleneck link — saturated, and no flow on it has a higher rate.
        #[test]
        fn every_flow_has_a_bottleneck((capacities, routes) in network()) {
            let rates = max_min_shares(&capacities, &routes);
            let load = load(&capacities, &routes, &rates);
            for (flow, route) in routes.iter().enumerate() {
                let has_bottleneck = route.iter().any(|&link| {
                    let saturated = load[link] >= capacities[link] * (1.0 - REL);
                    let highest_on_link = routes.iter().zip(&rates)
                        .filter(|(other, _)| other.contains(&link))
                        .all(|(_, &other_rate)| rates[flow] >= other_rate * (1.0 - REL));
                    saturated && highest_on_link
                });
                prop_assert!(has_bottleneck,
                    "flow {} (rate {}) has no bottleneck; rates {:?}, load {:?}",
                    flow, rates[flow], rates, load);
            }
        }
    }
}
