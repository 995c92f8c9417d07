//! Delay jitter on a link: a random extra delay per packet, added to the propagation delay
//! (the scenario's [`Jitter`]), and the wire that lets packets overtake each other when the
//! jitter may reorder them.
//!
//! Correlation is netem's (Linux `sch_netem.c`, `get_crandom`): each value is
//! `c · previous + (1 − c) · fresh`, an AR(1) process whose lag-1 autocorrelation is c, with
//! the fresh draws' mean and a variance lowered by (1 − c)/(1 + c).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::{Jitter, JitterDistribution};

use crate::packet::Packet;
use crate::rng::Rng;

/// The jitter of one link direction: its configuration, random stream and last value.
#[derive(Clone, Debug)]
pub struct JitterProcess {
    distribution: JitterDistribution,
    correlation: f64,
    pub reorder: bool,
    rng: Rng,
    /// The previous value, in nanoseconds; `None` before the first draw (which is then a
    /// fresh draw, not pulled toward an arbitrary start).
    previous: Option<f64>,
}

impl JitterProcess {
    pub fn new(config: &Jitter, rng: Rng) -> Self {
        JitterProcess {
            distribution: config.distribution.clone(),
            correlation: config.correlation,
            reorder: config.reorder,
            rng,
            previous: None,
        }
    }

    /// The jitter of the link `link_name` (the scenario's `jitter`), on a stream named after
    /// the link; `None` without jitter.
    pub fn for_link(
        seed: u64,
        link_name: &str,
        link: &cclab_scenario::Link,
    ) -> Option<JitterProcess> {
        let config = link.jitter.as_ref()?;
        let rng = Rng::for_component(seed, &format!("{link_name}-jitter"));
        Some(JitterProcess::new(config, rng))
    }

    /// A fresh value of the distribution, in nanoseconds, at least 0.
    fn fresh(&mut self) -> f64 {
        match self.distribution {
            JitterDistribution::Uniform { max } => self.rng.next_f64() * max.as_nanos() as f64,
            JitterDistribution::Normal { mean, stddev } => {
                // Box–Muller (1958): sqrt(−2 ln u1)·cos(2π u2) is standard normal for
                // independent uniform u1 in (0, 1] and u2 in [0, 1).
                let u1 = 1.0 - self.rng.next_f64();
                let u2 = self.rng.next_f64();
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                // A delay cannot be negative: such draws count as 0, as netem sends a packet
                // whose time has passed at once.
                (mean.as_nanos() as f64 + z * stddev.as_nanos() as f64).max(0.0)
            }
        }
    }

    /// The extra delay of the next packet.
    pub fn draw(&mut self) -> SimDuration {
        let fresh = self.fresh();
        let value = match self.previous {
            None => fresh,
            Some(previous) => self.correlation * previous + (1.0 - self.correlation) * fresh,
        };
        self.previous = Some(value);
        SimDuration::from_nanos(value.round() as u64)
    }
}

/// A packet on a wire where packets may overtake each other, ordered by arrival time and then
/// by the order they were sent (so simultaneous arrivals keep their order).
#[derive(Clone, Copy, Debug)]
struct InFlight {
    arrival: SimTime,
    sent: u64,
    packet: Packet,
}

impl PartialEq for InFlight {
    fn eq(&self, other: &Self) -> bool {
        (self.arrival, self.sent) == (other.arrival, other.sent)
    }
}
impl Eq for InFlight {}
impl PartialOrd for InFlight {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for InFlight {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.arrival, self.sent).cmp(&(other.arrival, other.sent))
    }
}

/// The packets propagating on a reordering wire: each has its own delivery event, and the
/// event at time t takes the earliest packet, which arrives at t.
#[derive(Clone, Debug, Default)]
pub struct ReorderingWire {
    heap: BinaryHeap<Reverse<InFlight>>,
    sent: u64,
}

impl ReorderingWire {
    pub fn push(&mut self, arrival: SimTime, packet: Packet) {
        self.heap.push(Reverse(InFlight {
            arrival,
            sent: self.sent,
            packet,
        }));
        self.sent += 1;
    }

    /// The earliest packet and its arrival time.
    pub fn pop(&mut self) -> Option<(SimTime, Packet)> {
        self.heap.pop().map(|Reverse(p)| (p.arrival, p.packet))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(distribution: JitterDistribution, correlation: f64) -> JitterProcess {
        JitterProcess::new(
            &Jitter {
                distribution,
                correlation,
                reorder: false,
            },
            Rng::for_component(21, "test-jitter"),
        )
    }

    /// Sample mean, variance and lag-1 autocorrelation of `n` draws, in nanoseconds.
    fn moments(process: &mut JitterProcess, n: usize) -> (f64, f64, f64) {
        let xs: Vec<f64> = (0..n).map(|_| process.draw().as_nanos() as f64).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let lag1 = xs
            .windows(2)
            .map(|w| (w[0] - mean) * (w[1] - mean))
            .sum::<f64>()
            / ((n - 1) as f64 * var);
        (mean, var, lag1)
    }

    #[test]
    fn uniform_jitter_has_the_uniform_mean_and_variance() {
        // Uniform on [0, M]: mean M/2, variance M²/12. Over n independent draws the sample
        // mean has sd sqrt(M²/12/n); the sample variance has sd sqrt((μ4 − σ⁴)/n) with
        // μ4 = M⁴/80 for the uniform, i.e. σ⁴·(9/5 − 1) = 0.8 σ⁴.
        let max = 5_000_000.0;
        let n = 200_000;
        let max_duration = SimDuration::from_nanos(max as u64);
        let mut p = process(JitterDistribution::Uniform { max: max_duration }, 0.0);
        let (mean, var, lag1) = moments(&mut p, n);
        let sigma2 = max * max / 12.0;
        let n = n as f64;
        assert!(
            (mean - max / 2.0).abs() < 5.0 * (sigma2 / n).sqrt(),
            "{mean}"
        );
        assert!(
            (var - sigma2).abs() < 5.0 * (0.8 * sigma2 * sigma2 / n).sqrt(),
            "{var}"
        );
        // Independent draws: lag-1 autocorrelation 0 with sd 1/sqrt(n).
        assert!(lag1.abs() < 5.0 / n.sqrt(), "{lag1}");
    }

    #[test]
    fn normal_jitter_has_the_normal_mean_and_variance() {
        // Mean 10 ms, sd 2 ms: a draw below 0 lies 5 sd out (probability 3e-7), so the
        // truncation changes neither moment measurably. Sample mean sd σ/sqrt(n); sample
        // variance sd σ²·sqrt(2/n) (normal fourth moment 3σ⁴).
        let (mu, sigma) = (10_000_000.0, 2_000_000.0);
        let n = 200_000;
        let mut p = process(
            JitterDistribution::Normal {
                mean: SimDuration::from_nanos(mu as u64),
                stddev: SimDuration::from_nanos(sigma as u64),
            },
            0.0,
        );
        let (mean, var, _) = moments(&mut p, n);
        let n = n as f64;
        assert!((mean - mu).abs() < 5.0 * sigma / n.sqrt(), "{mean}");
        let s2 = sigma * sigma;
        assert!((var - s2).abs() < 5.0 * s2 * (2.0 / n).sqrt(), "{var}");
    }

    #[test]
    fn normal_jitter_is_never_negative() {
        // Mean 0: half the fresh draws are negative and count as 0.
        let mut p = process(
            JitterDistribution::Normal {
                mean: SimDuration::ZERO,
                stddev: SimDuration::from_millis(1),
            },
            0.0,
        );
        let zeros = (0..10_000).filter(|_| p.draw().is_zero()).count() as f64;
        // Binomial(10 000, 1/2): sd 50.
        assert!((zeros - 5000.0).abs() < 5.0 * 50.0, "{zeros}");
    }

    #[test]
    fn correlation_is_the_lag_one_autocorrelation() {
        // V_t = c·V_{t−1} + (1 − c)·F_t is AR(1) with coefficient c: lag-1 autocorrelation c,
        // mean E[F], variance Var(F)·(1 − c)/(1 + c). The sample autocorrelation of an AR(1)
        // has asymptotic sd sqrt((1 − c²)/n) (Bartlett's formula); the sample mean has sd
        // sqrt(Var(V)/n · (1 + c)/(1 − c)).
        let max = 4_000_000.0;
        let n = 200_000;
        for c in [0.25, 0.5, 0.9] {
            let max_duration = SimDuration::from_nanos(max as u64);
            let mut p = process(JitterDistribution::Uniform { max: max_duration }, c);
            let (mean, var, lag1) = moments(&mut p, n);
            let n = n as f64;
            assert!(
                (lag1 - c).abs() < 5.0 * ((1.0 - c * c) / n).sqrt(),
                "c {c}: {lag1}"
            );
            let var_v = max * max / 12.0 * (1.0 - c) / (1.0 + c);
            let mean_sd = (var_v / n * (1.0 + c) / (1.0 - c)).sqrt();
            assert!(
                (mean - max / 2.0).abs() < 5.0 * mean_sd,
                "c {c}: mean {mean}"
            );
            // The variance shrinks by (1 − c)/(1 + c); checked to 10 %, far beyond its
            // sampling error here (and far from the uncorrelated variance for c ≥ 0.25).
            assert!(
                (var / var_v - 1.0).abs() < 0.1,
                "c {c}: var {var}, expected {var_v}"
            );
        }
    }

    #[test]
    fn the_reordering_wire_hands_out_packets_by_arrival_then_send_order() {
        let mut wire = ReorderingWire::default();
        let packet = |seq| Packet::test_data(1000, seq);
        for (t, seq) in [(30, 0), (10, 1), (30, 2), (20, 3)] {
            wire.push(SimTime::from_nanos(t), packet(seq));
        }
        let order: Vec<_> = std::iter::from_fn(|| wire.pop())
            .map(|(t, p)| (t.as_nanos(), p.seq))
            .collect();
        assert_eq!(order, vec![(10, 1), (20, 3), (30, 0), (30, 2)]);
    }
}
