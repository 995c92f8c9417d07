//! `queue = "name"` or `queue = { kind = "name", ... }` on a link: a [`QueueDiscipline`].
//!
//! Each discipline's parameters have their defaults in its `Default` impl
//! (`crate::network`); a table gives any of them by name, in the units the docs give.

use cclab_cc::SimDuration;
use cclab_cc::params::did_you_mean;
use toml::Value;

use super::section::{Section, as_f64};
use crate::error::ScenarioError;
use crate::network::*;

/// The disciplines the simulator implements; the others of [`QUEUE_DISCIPLINES`] are refused
/// with a clear message until they are built.
const BUILT: &[&str] = &["droptail"];

/// The `queue` key of `section` (drop-tail when absent).
pub(super) fn queue(section: &Section) -> Result<QueueDiscipline, ScenarioError> {
    let (kind, params) = match section.get("queue") {
        None => return Ok(QueueDiscipline::DropTail),
        Some(Value::String(kind)) => (kind.as_str(), None),
        Some(Value::Table(_)) => {
            let params = section.section("queue")?.expect("the key holds a table");
            let kind = match params.get("kind") {
                Some(Value::String(kind)) => kind.as_str(),
                Some(_) => return Err(params.invalid("kind", "must be a discipline name")),
                None => {
                    return Err(params.invalid(
                        "kind",
                        &format!("missing; one of {}", QUEUE_DISCIPLINES.join(", ")),
                    ));
                }
            };
            (kind, Some(params))
        }
        Some(_) => {
            return Err(section.invalid(
                "queue",
                "must be a discipline name such as \"codel\", or a table such as \
                 { kind = \"red\", min_th = 5, max_th = 15 }",
            ));
        }
    };
    if !QUEUE_DISCIPLINES.contains(&kind) {
        let hint = did_you_mean(kind, QUEUE_DISCIPLINES)
            .map(|s| format!("did you mean \"{s}\"?"))
            .unwrap_or_else(|| format!("known: {}", QUEUE_DISCIPLINES.join(", ")));
        return Err(section.invalid(
            "queue",
            &format!("unknown queue discipline `{kind}`; {hint}"),
        ));
    }
    if !BUILT.contains(&kind) {
        return Err(section.invalid(
            "queue",
            &format!(
                "queue discipline `{kind}` is not available yet; built: {}",
                BUILT.join(", ")
            ),
        ));
    }
    // With a bare name, an empty table stands for "all defaults".
    let params = params.unwrap_or_else(|| section.empty("queue"));
    match kind {
        "droptail" => {
            params.allow_only(&["kind"])?;
            Ok(QueueDiscipline::DropTail)
        }
        other => unreachable!("`{other}` is in BUILT but has no parser"),
    }
}

/// A number in `range` (inclusive), or `default`.
#[allow(dead_code)] // used by the disciplines' parsers as they are built
pub(super) fn number_in(
    section: &Section,
    key: &str,
    default: f64,
    range: std::ops::RangeInclusive<f64>,
) -> Result<f64, ScenarioError> {
    match section.get(key) {
        None => Ok(default),
        Some(value) => match as_f64(value) {
            Some(x) if range.contains(&x) => Ok(x),
            Some(x) => Err(section.invalid(
                key,
                &format!("{x} is outside [{}, {}]", range.start(), range.end()),
            )),
            None => Err(section.invalid(key, "must be a number")),
        },
    }
}

/// A boolean, or `default`.
#[allow(dead_code)] // used by the disciplines' parsers as they are built
pub(super) fn flag(section: &Section, key: &str, default: bool) -> Result<bool, ScenarioError> {
    match section.get(key) {
        None => Ok(default),
        Some(Value::Boolean(b)) => Ok(*b),
        Some(_) => Err(section.invalid(key, "must be true or false")),
    }
}

/// A positive duration, or `default`.
#[allow(dead_code)] // used by the disciplines' parsers as they are built
pub(super) fn positive_duration(
    section: &Section,
    key: &str,
    default: SimDuration,
) -> Result<SimDuration, ScenarioError> {
    match section.duration(key)? {
        None => Ok(default),
        Some(d) if d.is_zero() => Err(section.invalid(key, "must be longer than zero")),
        Some(d) => Ok(d),
    }
}
