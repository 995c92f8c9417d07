//! Random loss on a link: the scenario's [`LossModel`] with its state and random stream.

use cclab_scenario::LossModel;

use crate::rng::Rng;

/// A loss model being run: draws whether each packet is lost.
#[derive(Clone, Debug)]
pub struct LossProcess {
    model: LossModel,
    rng: Rng,
    /// Gilbert–Elliott: the chain is in its bad state. Starts good (as netem's `gemodel`).
    bad: bool,
}

impl LossProcess {
    pub fn new(model: LossModel, rng: Rng) -> Self {
        LossProcess {
            model,
            rng,
            bad: false,
        }
    }

    /// The data-segment and ACK loss processes of the link `link_name` (the scenario's `loss`
    /// and `ack_loss`), each with its own stream, so that one never shifts the other's draws.
    /// The data stream of the dumbbell's bottleneck keeps the name it always had,
    /// "bottleneck-loss".
    pub fn for_link(
        seed: u64,
        link_name: &str,
        link: &cclab_scenario::Link,
    ) -> (LossProcess, LossProcess) {
        (
            LossProcess::new(
                link.loss.clone(),
                Rng::for_component(seed, &format!("{link_name}-loss")),
            ),
            LossProcess::new(
                link.ack_loss.clone(),
                Rng::for_component(seed, &format!("{link_name}-ack-loss")),
            ),
        )
    }

    /// No packet is ever lost: callers skip the draw.
    #[inline(always)]
    pub fn is_none(&self) -> bool {
        matches!(self.model, LossModel::None)
    }

    /// Is the next packet lost?
    pub fn lose(&mut self) -> bool {
        match self.model {
            LossModel::None => false,
            LossModel::Bernoulli(p) => self.rng.chance(p),
            LossModel::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => {
                // Each packet first moves the chain, then meets the loss probability of the
                // state it is in (Gilbert 1960; Elliott 1963; netem's `loss gemodel`).
                let leave = if self.bad {
                    p_bad_to_good
                } else {
                    p_good_to_bad
                };
                if self.rng.chance(leave) {
                    self.bad = !self.bad;
                }
                let loss = if self.bad { loss_bad } else { loss_good };
                self.rng.chance(loss)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gilbert_elliott(p: f64, r: f64, loss_good: f64, loss_bad: f64) -> LossProcess {
        LossProcess::new(
            LossModel::GilbertElliott {
                p_good_to_bad: p,
                p_bad_to_good: r,
                loss_good,
                loss_bad,
            },
            Rng::for_component(11, "test-ge"),
        )
    }

    /// Standard deviation of the mean of `n` successive values of a two-state chain's
    /// indicator, by the Markov-chain central limit theorem: the loss indicator of a
    /// Gilbert–Elliott packet is a function of a stationary chain whose state autocorrelation
    /// at lag k is λ^k with λ = 1 − p − r (the chain's second eigenvalue). For a loss draw
    /// X_t = 1{lost}, Var(X) = m(1 − m) with m the loss rate, and Cov(X_t, X_{t+k}) =
    /// (l_B − l_G)² π_G π_B λ^k for k ≥ 1 (the loss draws are independent given the states).
    /// The asymptotic variance of the sum over n is then n·[m(1 − m) + 2 c λ/(1 − λ)] with
    /// c = (l_B − l_G)² π_G π_B.
    fn loss_rate_sd(p: f64, r: f64, loss_good: f64, loss_bad: f64, n: f64) -> f64 {
        let pi_bad = p / (p + r);
        let pi_good = 1.0 - pi_bad;
        let m = pi_good * loss_good + pi_bad * loss_bad;
        let lambda = 1.0 - p - r;
        let c = (loss_bad - loss_good).powi(2) * pi_good * pi_bad;
        ((m * (1.0 - m) + 2.0 * c * lambda / (1.0 - lambda)) / n).sqrt()
    }

    #[test]
    fn gilbert_elliott_long_run_loss_rate_is_the_stationary_mixture() {
        // (p, r, loss_good, loss_bad): Gilbert's channel, Elliott's with loss in both states,
        // and a chain that changes state often.
        let cases = [
            (0.01, 0.3, 0.0, 1.0),
            (0.05, 0.2, 0.01, 0.6),
            (0.4, 0.5, 0.1, 0.9),
        ];
        let n = 2_000_000;
        for (p, r, lg, lb) in cases {
            let mut process = gilbert_elliott(p, r, lg, lb);
            let lost = (0..n).filter(|_| process.lose()).count() as f64;
            let pi_bad = p / (p + r);
            let expected = (1.0 - pi_bad) * lg + pi_bad * lb;
            let sd = loss_rate_sd(p, r, lg, lb, n as f64);
            let rate = lost / n as f64;
            // 5 standard deviations: a false alarm about once in 1.7 million runs.
            assert!(
                (rate - expected).abs() < 5.0 * sd,
                "p {p} r {r}: rate {rate}, expected {expected} ± {sd}"
            );
        }
    }

    #[test]
    fn gilbert_loss_bursts_last_one_over_r_on_average() {
        // loss_good = 0, loss_bad = 1: a packet is lost exactly when the chain is bad, so a
        // burst of losses is a stay in the bad state, geometric with mean 1/r and variance
        // (1 − r)/r². Bursts are independent (the chain is Markov), so their mean over k
        // bursts has standard deviation sqrt((1 − r)/r² / k).
        for (p, r) in [(0.01, 0.3), (0.002, 0.05), (0.1, 0.9)] {
            let mut process = gilbert_elliott(p, r, 0.0, 1.0);
            let (mut bursts, mut lost, mut in_burst) = (0u64, 0u64, false);
            for _ in 0..3_000_000 {
                let l = process.lose();
                if l {
                    lost += 1;
                    if !in_burst {
                        bursts += 1;
                    }
                }
                in_burst = l;
            }
            let k = bursts as f64;
            let mean = lost as f64 / k;
            let sd = ((1.0 - r) / (r * r) / k).sqrt();
            assert!(
                k > 1000.0,
                "too few bursts ({k}) for the test to mean anything"
            );
            assert!(
                (mean - 1.0 / r).abs() < 5.0 * sd,
                "p {p} r {r}: mean burst {mean}, expected {} ± {sd}",
                1.0 / r
            );
        }
    }

    #[test]
    fn bernoulli_draws_are_the_streams_draws() {
        // `loss = p` draws exactly what it always did: one `chance(p)` per packet from the
        // stream, so old scenarios keep their losses packet for packet.
        let mut process = LossProcess::new(
            LossModel::Bernoulli(0.1),
            Rng::for_component(4, "bottleneck-loss"),
        );
        let mut rng = Rng::for_component(4, "bottleneck-loss");
        for _ in 0..10_000 {
            assert_eq!(process.lose(), rng.chance(0.1));
        }
    }

    #[test]
    fn the_bottleneck_data_stream_keeps_its_name() {
        let text = "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\", \
                    loss = 0.2, ack_loss = 0.3 }\n[[flows]]\ncc = \"reno\"\n";
        let scenario = cclab_scenario::from_str("t.toml", text, &[]).expect("valid");
        let dumbbell = scenario.topology.dumbbell().expect("a dumbbell");
        let (mut data, mut ack) = LossProcess::for_link(9, "bottleneck", &dumbbell.bottleneck);
        let mut old = Rng::for_component(9, "bottleneck-loss");
        let mut acks = Rng::for_component(9, "bottleneck-ack-loss");
        for _ in 0..1000 {
            assert_eq!(data.lose(), old.chance(0.2));
            assert_eq!(ack.lose(), acks.chance(0.3));
        }
    }
}
