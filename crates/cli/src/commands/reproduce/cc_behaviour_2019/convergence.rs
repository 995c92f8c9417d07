//! Definitions of convergence time, computed from the paired throughput bins of a run in
//! which a second flow joins a first (`rates.csv`), and the spread of a definition's times
//! over replicates. Pure functions, each checked on hand-made series.
//!
//! The paper's definition is not in its abstract, and the literature uses several: the time
//! until the joiner stays near its fair share (the summary's `convergence_time_s`,
//! docs/metrics.md, ±20 % over 1 s windows until the end), seed-spec §4.2's "all flows
//! within ±10 % of their fair share for at least 5 s", the time until the flows first reach
//! an equal split, or until Jain's index of their rates stays high. Every definition here is
//! one [`Band`] (what counts as converged at one averaging window) and one [`Rule`] (which
//! window of the run the time is taken at).

/// What must hold at an averaging window: both flows' averaged throughput `j` (the joiner)
/// and `o` (the other flow) near an equal split, near a fixed share, or a high Jain's index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Band {
    /// Each flow within ±`tolerance` of the pair's mean (j + o)/2: an equal split of what
    /// the two flows get, the reference where the link's nominal rate is out of TCP's reach
    /// (Wi-Fi). For two flows the joiner alone decides: |j/m − 1| = |o/m − 1|.
    EqualSplit { tolerance: f64 },
    /// Each flow within ±`tolerance` of a fixed fair share (bit/s), as seed-spec's "all flows
    /// within ±10 % of their fair share": half the link's payload rate on a wired path.
    Share { share_bps: f64, tolerance: f64 },
    /// Jain's index (j + o)² / (2 (j² + o²)) at least `min`. For two flows it is
    /// 1 / (1 + d²) with d = |j/m − 1|, so `min` = 0.95 is d ≤ √(1/0.95 − 1) = 0.229: nearly
    /// the ±20 % equal-split band.
    Jain { min: f64 },
}

impl Band {
    /// Whether averaged throughputs `joiner` and `other` (bit/s) are inside.
    pub fn holds(self, joiner: f64, other: f64) -> bool {
        let mean = (joiner + other) / 2.0;
        match self {
            Band::EqualSplit { tolerance } => {
                mean > 0.0 && (joiner / mean - 1.0).abs() <= tolerance
            }
            Band::Share {
                share_bps,
                tolerance,
            } => {
                share_bps > 0.0
                    && (joiner / share_bps - 1.0).abs() <= tolerance
                    && (other / share_bps - 1.0).abs() <= tolerance
            }
            Band::Jain { min } => {
                let squares = joiner * joiner + other * other;
                squares > 0.0 && (joiner + other).powi(2) / (2.0 * squares) >= min
            }
        }
    }
}

/// Which averaging window the convergence time is taken at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    /// The first window of the final unbroken run of inside windows, when that run reaches
    /// the run's last window ("entered and stayed until the end", docs/metrics.md); none
    /// when the last window is outside.
    UntilEnd,
    /// The first window of the first unbroken run of inside windows that covers at least
    /// `seconds` from its first window's start to its last window's end (seed-spec: 5 s).
    HoldFor { seconds: f64 },
    /// The first inside window.
    FirstEntry,
}

/// The time from `start` (the joiner's start) to the start of the averaging window at which
/// `band` and `rule` call the flows converged. `bins` are (bin end, joiner's throughput,
/// other's throughput), contiguous bins of width `width` from the joiner's first whole bin
/// on, in time order; each window averages `window` bins and slides by one bin. `None` when
/// no window qualifies (or none fits).
pub fn convergence_time(
    bins: &[(f64, f64, f64)],
    start: f64,
    width: f64,
    window: usize,
    band: Band,
    rule: Rule,
) -> Option<f64> {
    if window == 0 || bins.len() < window {
        return None;
    }
    // inside[p]: the window of bins p ..= p + window − 1.
    let inside: Vec<bool> = (0..=bins.len() - window)
        .map(|p| {
            let span = &bins[p..p + window];
            let joiner = span.iter().map(|b| b.1).sum::<f64>() / window as f64;
            let other = span.iter().map(|b| b.2).sum::<f64>() / window as f64;
            band.holds(joiner, other)
        })
        .collect();
    let first = match rule {
        Rule::UntilEnd => {
            if !inside.last().copied().unwrap_or(false) {
                return None;
            }
            inside.iter().rposition(|i| !i).map_or(0, |p| p + 1)
        }
        Rule::FirstEntry => inside.iter().position(|i| *i)?,
        Rule::HoldFor { seconds } => {
            // k windows from p on cover (k − 1 + window) bins; a millionth of a bin absorbs
            // the rounding of `seconds / width`.
            let bins_needed = (seconds / width - 1e-6).ceil().max(0.0) as usize;
            let windows_needed = (bins_needed + 1).saturating_sub(window).max(1);
            let mut run = 0;
            let mut found = None;
            for (p, is_inside) in inside.iter().enumerate() {
                run = if *is_inside { run + 1 } else { 0 };
                if run == windows_needed {
                    found = Some(p + 1 - run);
                    break;
                }
            }
            found?
        }
    };
    // Window `first` starts one bin width before bin `first`'s end.
    Some((bins[first].0 - width - start).max(0.0))
}

/// The spread of one definition's convergence times over replicates, a replicate that never
/// converged counting as slower than any that did (a censored time: it did not converge
/// before the run ended).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// The median; `None` when half or more of the replicates never converged (the middle
    /// is not a time).
    pub median: Option<f64>,
    /// The lower and upper quartiles (Tukey's hinges: the medians of the lower and upper
    /// halves), `None` where not a time.
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    /// Replicates that converged, of all.
    pub converged: usize,
    pub n: usize,
}

/// The median of sorted values, `None` (infinite) standing for "never": the mean of the two
/// middle values for an even count.
fn median_of(sorted: &[Option<f64>]) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        Some((sorted[n / 2 - 1]? + sorted[n / 2]?) / 2.0)
    }
}

/// Orders times with "never" (`None`) after every time.
fn never_last(a: &Option<f64>, b: &Option<f64>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(x), Some(y)) => x.total_cmp(y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
}

impl Spread {
    pub fn of(times: &[Option<f64>]) -> Spread {
        let mut sorted = times.to_vec();
        sorted.sort_by(never_last);
        let n = sorted.len();
        // Tukey's hinges: for odd n the median belongs to both halves.
        let half = n.div_ceil(2);
        Spread {
            median: median_of(&sorted),
            lower: median_of(&sorted[..half]),
            upper: median_of(&sorted[n - half..]),
            converged: sorted.iter().flatten().count(),
            n,
        }
    }
}

/// The share of pairs (one replicate of `a`, one of `b`) in which `a` converged sooner, a
/// tie counting half and "never" being later than any time (two nevers tie): the
/// probability that a random replicate of `a` beats one of `b` (the Mann-Whitney statistic
/// over the product). `None` without replicates on either side.
pub fn share_sooner(a: &[Option<f64>], b: &[Option<f64>]) -> Option<f64> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let mut wins = 0.0;
    for x in a {
        for y in b {
            wins += match never_last(x, y) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            };
        }
    }
    Some(wins / (a.len() * b.len()) as f64)
}

/// A module and its median time (`None`: never).
pub type Median = (String, Option<f64>);

/// The rank (1 = fastest) of `name` among modules by their median, "never" last and ties
/// sharing the better rank; with the fastest other module. `None` without `name`.
pub fn rank_by_median(medians: &[Median], name: &str) -> Option<(usize, Option<Median>)> {
    let own = medians.iter().find(|(m, _)| m == name)?.1;
    let ahead = medians
        .iter()
        .filter(|(m, t)| m != name && never_last(t, &own) == std::cmp::Ordering::Less)
        .count();
    let fastest_other = medians
        .iter()
        .filter(|(m, _)| m != name)
        .min_by(|a, b| never_last(&a.1, &b.1))
        .cloned();
    Some((ahead + 1, fastest_other))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0.1 s bins from a joiner started at 10.0 s: bin k ends at 10.0 + 0.1 (k + 1); the
    /// pair's rates per bin as given.
    fn bins(rates: &[(f64, f64)]) -> Vec<(f64, f64, f64)> {
        rates
            .iter()
            .enumerate()
            .map(|(k, &(j, o))| (10.0 + 0.1 * (k + 1) as f64, j, o))
            .collect()
    }

    const EQUAL_20: Band = Band::EqualSplit { tolerance: 0.2 };

    #[test]
    fn the_bands_at_one_window() {
        // Equal split: 6 against 4, mean 5: 6/5 − 1 = 0.2, inside ±20 %, not ±10 %.
        assert!(EQUAL_20.holds(6.0, 4.0));
        assert!(!Band::EqualSplit { tolerance: 0.1 }.holds(6.0, 4.0));
        assert!(!EQUAL_20.holds(0.0, 0.0));
        // A fixed share of 5: 5.4 and 4.6 are both within ±10 %; 5.4 and 6 are not (6/5 − 1
        // = 0.2), though the joiner alone is.
        let share = Band::Share {
            share_bps: 5.0,
            tolerance: 0.1,
        };
        assert!(share.holds(5.4, 4.6));
        assert!(!share.holds(5.4, 6.0));
        // Jain: 6.1 against 3.9: (10)² / (2 (37.21 + 15.21)) = 100 / 104.84 = 0.9538 ≥ 0.95,
        // though 6.1/5 − 1 = 0.22 is outside ±20 %; 6.2 against 3.8: 100 / 105.76 = 0.9455.
        assert!(Band::Jain { min: 0.95 }.holds(6.1, 3.9));
        assert!(!EQUAL_20.holds(6.1, 3.9));
        assert!(!Band::Jain { min: 0.95 }.holds(6.2, 3.8));
    }

    #[test]
    fn until_the_end_starts_at_the_first_window_of_the_final_inside_run() {
        // Window 2 bins. 1 : 9 for three bins, then 5 : 5. The window of bins 2 and 3
        // averages 3 : 7, mean 5, 3/5 − 1 = −0.4: outside. The window of bins 3 and 4 (both
        // 5 : 5) is inside, as are the later ones; it starts at bin 3's start, 10.3 s.
        let mut rates = vec![(1.0, 9.0); 3];
        rates.extend(vec![(5.0, 5.0); 5]);
        let b = bins(&rates);
        let t = convergence_time(&b, 10.0, 0.1, 2, EQUAL_20, Rule::UntilEnd).unwrap();
        assert!((t - 0.3).abs() < 1e-9, "{t}");
        // Ending outside: never.
        let mut late = rates.clone();
        late.push((1.0, 9.0));
        assert_eq!(
            convergence_time(&bins(&late), 10.0, 0.1, 2, EQUAL_20, Rule::UntilEnd),
            None
        );
        // Inside from the first window: 0.
        let even = bins(&[(4.0, 4.5), (4.0, 4.5)]);
        assert_eq!(
            convergence_time(&even, 10.0, 0.1, 2, EQUAL_20, Rule::UntilEnd),
            Some(0.0)
        );
        assert_eq!(
            convergence_time(&even[..1], 10.0, 0.1, 2, EQUAL_20, Rule::UntilEnd),
            None
        );
    }

    #[test]
    fn first_entry_and_holding_take_the_first_qualifying_window() {
        // Window 1 bin. Bins: out, in, out, in, in, in, out. First entry: bin 1, which starts
        // at 10.1 s. Holding 0.3 s (three one-bin windows): bins 3-5, from 10.3 s. Holding
        // 0.4 s: never. Until the end: never (the last bin is out).
        let (i, o) = ((5.0, 5.0), (1.0, 9.0));
        let b = bins(&[o, i, o, i, i, i, o]);
        let at = |rule| convergence_time(&b, 10.0, 0.1, 1, EQUAL_20, rule);
        assert!((at(Rule::FirstEntry).unwrap() - 0.1).abs() < 1e-9);
        assert!((at(Rule::HoldFor { seconds: 0.3 }).unwrap() - 0.3).abs() < 1e-9);
        assert_eq!(at(Rule::HoldFor { seconds: 0.4 }), None);
        assert_eq!(at(Rule::UntilEnd), None);
        // Window 2 bins over in, in, in, out: windows (0,1) and (1,2) are inside, (2,3)
        // averages 3 : 7, outside. Two windows of two bins cover three bins, 0.3 s: holding
        // 0.3 s is met from 10.0 s, holding 0.4 s is not.
        let b = bins(&[i, i, i, o]);
        let hold = |s| convergence_time(&b, 10.0, 0.1, 2, EQUAL_20, Rule::HoldFor { seconds: s });
        assert_eq!(hold(0.3), Some(0.0));
        assert_eq!(hold(0.4), None);
        // A hold shorter than one window is one window.
        assert_eq!(hold(0.1), Some(0.0));
    }

    #[test]
    fn the_time_counts_from_the_joiners_start_not_its_first_bin() {
        // The joiner started at 9.95 s; its first whole bin is (10.0, 10.1]. Inside from the
        // first window: 10.0 − 9.95 = 0.05 s.
        let b = bins(&[(5.0, 5.0), (5.0, 5.0)]);
        let t = convergence_time(&b, 9.95, 0.1, 1, EQUAL_20, Rule::FirstEntry).unwrap();
        assert!((t - 0.05).abs() < 1e-9, "{t}");
    }

    #[test]
    fn a_spread_counts_never_as_slower_than_every_time() {
        // 4, 1, never, 3, 2, 6, 5, 8 sorted: 1 2 3 4 5 6 8 never. Median (4 + 5)/2 = 4.5;
        // hinges: lower half 1 2 3 4 → 2.5, upper half 5 6 8 never → (6 + 8)/2 = 7.
        let s = Spread::of(&[
            Some(4.0),
            Some(1.0),
            None,
            Some(3.0),
            Some(2.0),
            Some(6.0),
            Some(5.0),
            Some(8.0),
        ]);
        assert_eq!(
            (s.median, s.lower, s.upper, s.converged, s.n),
            (Some(4.5), Some(2.5), Some(7.0), 7, 8)
        );
        // Half never: the median's upper middle is never, so no median.
        let s = Spread::of(&[Some(1.0), None, Some(2.0), None]);
        assert_eq!((s.median, s.lower, s.upper), (None, Some(1.5), None));
        // Odd count: 3 values, the median in both halves: 1 | 2 | 7 → hinges 1.5 and 4.5.
        let s = Spread::of(&[Some(7.0), Some(1.0), Some(2.0)]);
        assert_eq!(
            (s.median, s.lower, s.upper),
            (Some(2.0), Some(1.5), Some(4.5))
        );
    }

    #[test]
    fn share_sooner_is_the_fraction_of_pairs_won() {
        // a = {1, never}, b = {2, never}: (1,2) win, (1,never) win, (never,2) loss,
        // (never,never) tie: (1 + 1 + 0 + 0.5) / 4 = 0.625.
        assert_eq!(
            share_sooner(&[Some(1.0), None], &[Some(2.0), None]),
            Some(0.625)
        );
        assert_eq!(share_sooner(&[], &[Some(1.0)]), None);
    }

    #[test]
    fn the_rank_counts_the_modules_strictly_ahead() {
        let m = |pairs: &[(&str, Option<f64>)]| -> Vec<(String, Option<f64>)> {
            pairs.iter().map(|(n, t)| (n.to_string(), *t)).collect()
        };
        // bbr 3 behind cubic 1 and reno 3 (a tie shares the better rank): 2nd.
        let medians = m(&[
            ("bbr", Some(3.0)),
            ("cubic", Some(1.0)),
            ("reno", Some(3.0)),
            ("vegas", None),
        ]);
        let (rank, fastest) = rank_by_median(&medians, "bbr").unwrap();
        assert_eq!(rank, 2);
        assert_eq!(fastest, Some(("cubic".to_string(), Some(1.0))));
        // Never: behind every module with a time, tied with the other nevers.
        let medians = m(&[("bbr", None), ("cubic", Some(9.0)), ("reno", None)]);
        assert_eq!(rank_by_median(&medians, "bbr").unwrap().0, 2);
        assert!(rank_by_median(&medians, "westwood").is_none());
    }
}
