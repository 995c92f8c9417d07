//! Seeded random streams, one per component.
//!
//! SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, statistically sound for simulation draws,
//! and — unlike a generator borrowed from a crate — fixed forever, so a seed gives the same run
//! on every version of cclab's dependencies.

#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A stream for one component: the run's seed mixed with a component label, so that
    /// adding a component never shifts the draws of another.
    pub fn for_component(seed: u64, component: &str) -> Self {
        let mut label_hash: u64 = 0xcbf2_9ce4_8422_2325; // FNV-1a offset basis
        for byte in component.bytes() {
            label_hash = (label_hash ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        let mut rng = Rng {
            state: seed ^ label_hash.rotate_left(17),
        };
        rng.next_u64(); // decorrelate nearby seeds
        rng
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, n)` (0 when `n` is 0), by Lemire's multiply-and-shift: the high 64
    /// bits of a 64 × 64-bit product; its bias is below n / 2^64, far under any draw we make.
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = Rng::for_component(1, "bottleneck-loss");
        let mut b = Rng::for_component(1, "bottleneck-loss");
        let mut c = Rng::for_component(1, "jitter");
        let xs: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
    }

    #[test]
    fn below_is_uniform_in_range() {
        // 100_000 draws below 1000: each in range; mean 499.5 with sd sqrt((1000^2 - 1) / 12)
        // / sqrt(100_000) = 0.913; allow 5 sd. Each decile holds 10_000 ± 5 sd (sd 94.9).
        let mut rng = Rng::for_component(3, "test");
        let draws: Vec<u64> = (0..100_000).map(|_| rng.below(1000)).collect();
        assert!(draws.iter().all(|&d| d < 1000));
        let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
        assert!((mean - 499.5).abs() < 5.0 * 0.913, "{mean}");
        for decile in 0..10 {
            let hits = draws.iter().filter(|&&d| d / 100 == decile).count() as f64;
            assert!(
                (hits - 10_000.0).abs() < 5.0 * 94.9,
                "decile {decile}: {hits}"
            );
        }
        assert_eq!(rng.below(0), 0);
    }

    #[test]
    fn bernoulli_frequency_is_close_to_p() {
        // 200_000 draws at p = 0.01: mean 2000, sd = sqrt(n p (1-p)) = 44.5; allow 5 sd.
        let mut rng = Rng::for_component(7, "test");
        let hits = (0..200_000).filter(|_| rng.chance(0.01)).count() as f64;
        assert!((hits - 2000.0).abs() < 5.0 * 44.5, "{hits}");
    }
}
