//! `undo` and `frto` of a TCP flow group: undo of spurious window reductions (DSACK and
//! timestamps, as Linux's `tcp_try_undo_*`) and F-RTO (RFC 5682).

use toml::Value;

use super::section::Section;
use crate::error::ScenarioError;

/// The flow's (`undo`, `frto`) switches, both off by default (today's behaviour).
/// DSACK-based undo needs the SACK option; timestamps work without it, so `undo` with
/// `recovery = "reno"` or `"newreno"` is accepted (Eifel detection only).
pub(super) fn undo_and_frto(section: &Section) -> Result<(bool, bool), ScenarioError> {
    let switch = |key: &str| match section.get(key) {
        None => Ok(false),
        Some(Value::Boolean(b)) => Ok(*b),
        Some(_) => Err(section.invalid(key, "must be true or false")),
    };
    let undo = switch("undo")?;
    let frto = switch("frto")?;
    // RFC 5682 leaves the response to a spurious timeout to RFC 4015, which the model
    // implements as the undo: F-RTO without it would detect and do nothing.
    if frto && !undo {
        return Err(section.invalid(
            "frto",
            "needs undo = true (a spurious timeout is answered by undoing it, RFC 4015)",
        ));
    }
    Ok((undo, frto))
}

#[cfg(test)]
#[path = "undo_tests.rs"]
mod tests;
