//! A link's random impairments: `loss` and `ack_loss` (a [`LossModel`]) and `jitter` (a
//! [`Jitter`]). docs/scenarios.md lists the keys, docs/model.md the models and their sources.

use cclab_cc::SimDuration;
use cclab_cc::params::did_you_mean;
use toml::Value;

use super::section::{Section, as_f64};
use crate::error::ScenarioError;
use crate::network::*;

/// The loss model names a table may give in `model`.
const LOSS_MODELS: [&str; 2] = ["bernoulli", "gilbert-elliott"];

/// The jitter distributions a table may give in `distribution`.
const JITTER_DISTRIBUTIONS: [&str; 2] = ["uniform", "normal"];

/// `loss` or `ack_loss` (`key`) of `section`: a probability (Bernoulli, as before tables
/// were accepted), or a table naming its `model`. Absent or 0: no loss.
pub(super) fn loss(section: &Section, key: &str) -> Result<LossModel, ScenarioError> {
    let params = match section.get(key) {
        None => return Ok(LossModel::None),
        Some(Value::Table(_)) => section.section(key)?.expect("the key holds a table"),
        Some(value) => return bernoulli(section, key, value),
    };
    let model = match params.get("model") {
        Some(Value::String(model)) => model.as_str(),
        Some(_) => return Err(params.invalid("model", "must be a loss model name")),
        None => {
            return Err(params.invalid(
                "model",
                &format!("missing; one of {}", LOSS_MODELS.join(", ")),
            ));
        }
    };
    match model {
        "bernoulli" => {
            params.allow_only(&["model", "p"])?;
            match params.get("p") {
                Some(p) => bernoulli(&params, "p", p),
                None => Err(params.invalid("p", "missing; the loss probability, e.g. 0.01")),
            }
        }
        "gilbert-elliott" => gilbert_elliott(&params),
        other => {
            let hint = did_you_mean(other, LOSS_MODELS)
                .map(|s| format!("did you mean \"{s}\"?"))
                .unwrap_or_else(|| format!("known: {}", LOSS_MODELS.join(", ")));
            Err(params.invalid("model", &format!("unknown loss model `{other}`; {hint}")))
        }
    }
}

/// Independent loss with probability `value`, in [0, 1): a link that loses every packet
/// carries nothing (the range `loss = p` always had).
fn bernoulli(section: &Section, key: &str, value: &Value) -> Result<LossModel, ScenarioError> {
    match as_f64(value) {
        Some(0.0) => Ok(LossModel::None),
        Some(p) if (0.0..1.0).contains(&p) => Ok(LossModel::Bernoulli(p)),
        _ => Err(section.invalid(key, "must be a probability in [0, 1), e.g. 0.0001")),
    }
}

/// `{ model = "gilbert-elliott", p_good_to_bad, p_bad_to_good, loss_good, loss_bad }`. The
/// loss probabilities default to Gilbert's channel (1960: no loss in the good state, every
/// packet lost in the bad one), as netem's `loss gemodel` does.
fn gilbert_elliott(params: &Section) -> Result<LossModel, ScenarioError> {
    params.allow_only(&[
        "model",
        "p_good_to_bad",
        "p_bad_to_good",
        "loss_good",
        "loss_bad",
    ])?;
    let p_good_to_bad = probability(params, "p_good_to_bad", None)?;
    let p_bad_to_good = probability(params, "p_bad_to_good", None)?;
    if p_bad_to_good == 0.0 {
        return Err(params.invalid(
            "p_bad_to_good",
            "must be above 0: with 0 the bad state is never left",
        ));
    }
    let loss_good = probability(params, "loss_good", Some(0.0))?;
    let loss_bad = probability(params, "loss_bad", Some(1.0))?;
    // π_B = p / (p + r) (the chain's stationary distribution): a long-run loss rate of 1 is a
    // link that carries nothing.
    let pi_bad = p_good_to_bad / (p_good_to_bad + p_bad_to_good);
    if (1.0 - pi_bad) * loss_good + pi_bad * loss_bad >= 1.0 {
        return Err(params.invalid(
            "loss_good",
            "with these values every packet is lost; lower loss_good or loss_bad",
        ));
    }
    Ok(LossModel::GilbertElliott {
        p_good_to_bad,
        p_bad_to_good,
        loss_good,
        loss_bad,
    })
}

/// A probability in [0, 1]; `default` when absent, or an error naming the key if required.
fn probability(params: &Section, key: &str, default: Option<f64>) -> Result<f64, ScenarioError> {
    match (params.get(key), default) {
        (None, Some(d)) => Ok(d),
        (None, None) => Err(params.invalid(key, "missing; a probability in [0, 1]")),
        (Some(v), _) => match as_f64(v) {
            Some(p) if (0.0..=1.0).contains(&p) => Ok(p),
            _ => Err(params.invalid(key, "must be a probability in [0, 1]")),
        },
    }
}

/// `jitter = { max = "5ms" }` (uniform in [0, max]) or `{ distribution = "normal", mean,
/// stddev }` (normal, truncated at 0), with an optional `correlation` in [0, 1) and
/// `reorder` (whether packets may overtake each other).
pub(super) fn jitter(section: &Section) -> Result<Option<Jitter>, ScenarioError> {
    let Some(params) = section.section("jitter")? else {
        return Ok(None);
    };
    let distribution = match params.get("distribution") {
        None => "uniform",
        Some(Value::String(d)) => d.as_str(),
        Some(_) => return Err(params.invalid("distribution", "must be \"uniform\" or \"normal\"")),
    };
    let common = ["distribution", "correlation", "reorder"];
    let distribution = match distribution {
        "uniform" => {
            params.allow_only(&[&common[..], &["max"]].concat())?;
            let max = positive_duration(&params, "max", "the largest delay added, e.g. \"5ms\"")?;
            JitterDistribution::Uniform { max }
        }
        "normal" => {
            params.allow_only(&[&common[..], &["mean", "stddev"]].concat())?;
            let mean = params
                .duration("mean")?
                .ok_or_else(|| params.invalid("mean", "missing; e.g. mean = \"2ms\""))?;
            let stddev = positive_duration(&params, "stddev", "e.g. stddev = \"1ms\"")?;
            JitterDistribution::Normal { mean, stddev }
        }
        other => {
            let hint = did_you_mean(other, JITTER_DISTRIBUTIONS)
                .map(|s| format!("did you mean \"{s}\"?"))
                .unwrap_or_else(|| format!("known: {}", JITTER_DISTRIBUTIONS.join(", ")));
            return Err(params.invalid(
                "distribution",
                &format!("unknown jitter distribution `{other}`; {hint}"),
            ));
        }
    };
    let correlation = match params.get("correlation") {
        None => 0.0,
        Some(v) => match as_f64(v) {
            Some(c) if (0.0..1.0).contains(&c) => c,
            _ => {
                return Err(params.invalid(
                    "correlation",
                    "must be in [0, 1): the weight of the previous delay in the next",
                ));
            }
        },
    };
    let reorder = match params.get("reorder") {
        None => false,
        Some(Value::Boolean(b)) => *b,
        Some(_) => return Err(params.invalid("reorder", "must be true or false")),
    };
    Ok(Some(Jitter {
        distribution,
        correlation,
        reorder,
    }))
}

/// A required duration above zero.
fn positive_duration(
    params: &Section,
    key: &str,
    hint: &str,
) -> Result<SimDuration, ScenarioError> {
    match params.duration(key)? {
        None => Err(params.invalid(key, &format!("missing; {hint}"))),
        Some(d) if d.is_zero() => Err(params.invalid(key, "must be above zero")),
        Some(d) => Ok(d),
    }
}

#[cfg(test)]
#[path = "loss_tests.rs"]
mod tests;
