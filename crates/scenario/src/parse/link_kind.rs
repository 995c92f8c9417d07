//! A link's `kind` key and the keys each kind adds.

use toml::Value;

use super::section::Section;
use super::{trace, wifi};
use crate::error::ScenarioError;
use crate::link_kind::LinkKind;

/// Every kind a link may give.
const KINDS: &str = "\"wired\" (the default), \"wifi\" or \"trace\"";

/// The kind named by `section`'s `kind` key (absent: wired), before its own keys are read.
pub(super) fn kind_name<'a>(section: &Section<'a>) -> Result<&'a str, ScenarioError> {
    match section.get("kind") {
        None => Ok("wired"),
        Some(Value::String(s)) if ["wired", "wifi", "trace"].contains(&s.as_str()) => Ok(s),
        Some(Value::String(s)) => {
            Err(section.invalid("kind", &format!("unknown link kind `{s}`; use {KINDS}")))
        }
        Some(_) => Err(section.invalid("kind", &format!("must be a string: {KINDS}"))),
    }
}

/// The keys a link of kind `name` takes beyond a wired link's.
pub(super) fn extra_keys(name: &str) -> &'static [&'static str] {
    match name {
        "wifi" => wifi::KEYS,
        "trace" => trace::KEYS,
        _ => &[],
    }
}

/// The link kind with its own keys read and validated.
pub(super) fn link_kind(section: &Section) -> Result<LinkKind, ScenarioError> {
    match kind_name(section)? {
        "wifi" => wifi::wifi(section).map(LinkKind::Wifi),
        "trace" => trace::trace(section).map(LinkKind::Trace),
        _ => Ok(LinkKind::Wired),
    }
}
