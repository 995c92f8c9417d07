//! Flow sizes drawn from a workload's distribution by inverse-transform sampling (Devroye,
//! *Non-Uniform Random Variate Generation*, 1986, §2.1): one uniform draw per size, except
//! the lognormal, which takes two (Box–Muller, ibid. §5.4). Sizes are rounded up to whole
//! bytes and are at least 1.

use cclab_scenario::SizeDistribution;

use crate::rng::Rng;

/// A size in bytes from `distribution`, drawn from `rng`.
pub fn draw(distribution: &SizeDistribution, rng: &mut Rng) -> u64 {
    let bytes = match distribution {
        SizeDistribution::Fixed { bytes } => return (*bytes).max(1),
        // F⁻¹(u) = −mean · ln(1 − u); 1 − u is in (0, 1], so the logarithm is finite.
        SizeDistribution::Exponential { mean } => -mean * (1.0 - rng.next_f64()).ln(),
        // F(x) = 1 − (x_m / x)^α for x ≥ x_m: F⁻¹(u) = x_m / (1 − u)^(1/α), with the scale
        // x_m = mean (α − 1) / α that gives the mean asked for.
        SizeDistribution::Pareto { mean, shape } => {
            let scale = mean * (shape - 1.0) / shape;
            scale / (1.0 - rng.next_f64()).powf(1.0 / shape)
        }
        // exp(μ + σ Z) with Z standard normal and μ = ln(mean) − σ²/2, so that
        // E[size] = exp(μ + σ²/2) = mean.
        SizeDistribution::Lognormal { mean, sigma } => {
            let mu = mean.ln() - sigma * sigma / 2.0;
            (mu + sigma * standard_normal(rng)).exp()
        }
        SizeDistribution::Cdf(cdf) => {
            let u = rng.next_f64();
            let points = &cdf.points;
            // The first point whose probability reaches u (the last has probability 1 > u).
            let i = points
                .partition_point(|&(_, p)| p < u)
                .min(points.len() - 1);
            if i == 0 {
                points[0].0 as f64
            } else {
                let ((s0, p0), (s1, p1)) = (points[i - 1], points[i]);
                // p1 > p0 here: u ≤ p1 and u > p0.
                s0 as f64 + (s1 as f64 - s0 as f64) * (u - p0) / (p1 - p0)
            }
        }
    };
    // Far above any flow a run can carry; keeps the conversion exact and finite.
    bytes.ceil().clamp(1.0, 1e15) as u64
}

/// One standard normal draw by the Box–Muller transform (its cosine half).
fn standard_normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - rng.next_f64(); // in (0, 1]: ln is finite
    let u2 = rng.next_f64();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[cfg(test)]
mod tests {
    use cclab_scenario::{EmpiricalCdf, SizeDistribution};

    use super::draw;
    use crate::rng::Rng;

    /// Mean of `n` draws.
    fn sample_mean(distribution: &SizeDistribution, n: u64) -> f64 {
        let mut rng = Rng::for_component(11, "sizes-test");
        (0..n)
            .map(|_| draw(distribution, &mut rng) as f64)
            .sum::<f64>()
            / n as f64
    }

    /// The sample mean of n draws has standard deviation sd / √n (central limit theorem);
    /// allow 5 of them, plus the half byte rounding up adds on average.
    fn assert_mean(distribution: &SizeDistribution, n: u64, mean: f64, sd: f64) {
        let got = sample_mean(distribution, n);
        let tolerance = 5.0 * sd / (n as f64).sqrt() + 1.0;
        assert!(
            (got - mean).abs() < tolerance,
            "{}: sample mean {got}, expected {mean} ± {tolerance}",
            distribution.name()
        );
    }

    #[test]
    fn a_fixed_size_is_exact() {
        let fixed = SizeDistribution::Fixed { bytes: 12_345 };
        assert_eq!(sample_mean(&fixed, 1000), 12_345.0);
    }

    #[test]
    fn an_exponentials_sample_mean_is_within_its_standard_error() {
        // Exponential: sd = mean.
        let d = SizeDistribution::Exponential { mean: 100_000.0 };
        assert_mean(&d, 200_000, 100_000.0, 100_000.0);
    }

    #[test]
    fn a_paretos_sample_mean_is_within_its_standard_error() {
        // α = 3: x_m = mean (α − 1)/α = 20 000; variance x_m² α / ((α − 1)² (α − 2))
        // = 4e8 · 3 / 4 = 3e8, sd = 17 320.5. (α ≤ 2 has no finite variance, and no such
        // bound.)
        let d = SizeDistribution::Pareto {
            mean: 30_000.0,
            shape: 3.0,
        };
        assert_mean(&d, 400_000, 30_000.0, 3e8f64.sqrt());
    }

    #[test]
    fn a_lognormals_sample_mean_is_within_its_standard_error() {
        // σ = 1: variance (e^{σ²} − 1) mean² → sd = mean √(e − 1) = 1.3108 mean.
        let d = SizeDistribution::Lognormal {
            mean: 50_000.0,
            sigma: 1.0,
        };
        assert_mean(
            &d,
            400_000,
            50_000.0,
            50_000.0 * (std::f64::consts::E - 1.0).sqrt(),
        );
    }

    #[test]
    fn a_cdfs_sample_mean_and_quantiles_follow_its_points() {
        // Point mass 0.2 at 100 B, then uniform on [100, 300]: mean 180 (by hand), second
        // moment 0.2 · 100² + 0.8 · (300³ − 100³) / (3 · 200) = 2000 + 34 666.7 = 36 666.7,
        // variance 36 666.7 − 180² = 4266.7.
        let d = SizeDistribution::Cdf(EmpiricalCdf {
            file: "test".into(),
            points: vec![(100, 0.2), (300, 1.0)],
        });
        assert_mean(&d, 100_000, 180.0, 4266.7f64.sqrt());
        let mut rng = Rng::for_component(5, "cdf");
        let draws: Vec<u64> = (0..10_000).map(|_| draw(&d, &mut rng)).collect();
        assert!(draws.iter().all(|&s| (100..=300).contains(&s)));
        // P(size = 100) = 0.2 (plus the rounding of the uniform part just above 100, under
        // 1/200 of 0.8): 2000 ± 5 sd, sd = √(10 000 · 0.2 · 0.8) = 40.
        let at_100 = draws.iter().filter(|&&s| s == 100).count() as f64;
        assert!((at_100 - 2000.0).abs() < 5.0 * 40.0 + 40.0, "{at_100}");
    }
}
