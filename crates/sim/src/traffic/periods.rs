//! On and off period lengths, fixed or drawn from a flow's own seeded stream, for on/off
//! sources of either kind (UDP `pattern = "on-off"`, TCP `on_off`).

use cclab_cc::SimDuration;
use cclab_scenario::traffic::on_off::{PeriodDistribution, Periods};

use crate::rng::Rng;

/// An exponentially distributed duration with mean `mean`, by inversion: −mean · ln(1 − U)
/// with U uniform in [0, 1), so that 1 − U is in (0, 1] and the logarithm is finite.
pub fn exponential(rng: &mut Rng, mean_ns: f64) -> SimDuration {
    let draw = -mean_ns * (1.0 - rng.next_f64()).ln();
    // A finite, non-negative f64 casts to the nearest representable u64 below 2^64 (`as`
    // saturates), far beyond any run's length.
    SimDuration::from_nanos(draw.round() as u64)
}

/// The lengths of successive on and off periods of one source.
#[derive(Clone, Debug)]
pub struct PeriodClock {
    periods: Periods,
    rng: Rng,
}

impl PeriodClock {
    /// `rng` is the flow's own stream: drawing from it shifts no other component's draws.
    pub fn new(periods: Periods, rng: Rng) -> Self {
        PeriodClock { periods, rng }
    }

    /// The length of the next on period.
    pub fn on(&mut self) -> SimDuration {
        self.draw(self.periods.on)
    }

    /// The length of the next off period.
    pub fn off(&mut self) -> SimDuration {
        self.draw(self.periods.off)
    }

    fn draw(&mut self, mean: SimDuration) -> SimDuration {
        match self.periods.distribution {
            PeriodDistribution::Fixed => mean,
            PeriodDistribution::Exponential => exponential(&mut self.rng, mean.as_nanos() as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponential_draws_have_the_mean_and_spread_of_the_distribution() {
        // 100 000 draws with mean 1 ms: an exponential's standard deviation equals its mean,
        // so the sample mean has sd 1 ms / sqrt(100 000) = 3.16 µs; allow 4 sd. The fraction
        // above the mean is e^-1 = 0.3679 (binomial sd sqrt(p(1-p)/n) = 0.00152; 4 sd).
        let mut rng = Rng::for_component(5, "test");
        let n = 100_000;
        let draws: Vec<f64> = (0..n)
            .map(|_| exponential(&mut rng, 1e6).as_nanos() as f64)
            .collect();
        let mean = draws.iter().sum::<f64>() / n as f64;
        assert!((mean - 1e6).abs() < 4.0 * 3162.3, "{mean}");
        let above = draws.iter().filter(|&&d| d > 1e6).count() as f64 / n as f64;
        assert!((above - (-1.0f64).exp()).abs() < 4.0 * 0.00152, "{above}");
    }

    #[test]
    fn fixed_periods_are_the_given_lengths() {
        let periods = Periods {
            on: SimDuration::from_millis(300),
            off: SimDuration::from_millis(700),
            distribution: PeriodDistribution::Fixed,
        };
        let mut clock = PeriodClock::new(periods, Rng::for_component(1, "test"));
        for _ in 0..3 {
            assert_eq!(clock.on(), SimDuration::from_millis(300));
            assert_eq!(clock.off(), SimDuration::from_millis(700));
        }
    }
}
