//! `recovery`, the pairs it refuses with `cc` and `loss_detection`, `limited_transmit`,
//! `lost_retransmission`, `reduce_from` and `prr_bound`.

use cclab_cc::params::did_you_mean;
use cclab_cc::registry::{AlgorithmInfo, InitialSsthreshUse};
use toml::Value;

use super::Section;
use crate::error::ScenarioError;
use crate::model::{LossDetection, LostRetransmission, PrrBound, Recovery, ReduceFrom};

/// "\"reno\", \"newreno\", \"sack\", \"tahoe\" or \"fack\"", for messages.
fn listed() -> String {
    let quoted: Vec<String> = Recovery::NAMES.iter().map(|n| format!("\"{n}\"")).collect();
    let (last, rest) = quoted.split_last().expect("NAMES is not empty");
    format!("{} or {last}", rest.join(", "))
}

/// `recovery` (default `sack`). Tahoe needs a controller with a slow-start threshold: its
/// whole response to a loss is ssthresh = FlightSize/2 and a slow start from one segment back
/// up to it (Fall & Floyd 1996 §2), which a controller without one (BBR, Copa, FAST…) has no
/// meaning for.
pub(super) fn recovery(
    section: &Section,
    cc: &'static AlgorithmInfo,
) -> Result<Recovery, ScenarioError> {
    let recovery = match section.get("recovery") {
        None => Recovery::Sack,
        Some(Value::String(s)) => Recovery::from_name(s).ok_or_else(|| {
            let hint = did_you_mean(s, Recovery::NAMES)
                .map(|s| format!("did you mean \"{s}\"?"))
                .unwrap_or_else(|| format!("use {}", listed()));
            section.invalid("recovery", &format!("unknown recovery `{s}`; {hint}"))
        })?,
        Some(_) => return Err(section.invalid("recovery", &format!("must be {}", listed()))),
    };
    if recovery == Recovery::Tahoe && cc.initial_ssthresh == InitialSsthreshUse::None {
        return Err(section.invalid(
            "recovery",
            &format!(
                "\"tahoe\" slow-starts back to ssthresh after a loss, and `{}` has no slow-start \
                 threshold; use another recovery or a controller with one (reno, cubic…)",
                cc.name
            ),
        ));
    }
    Ok(recovery)
}

/// RFC 8985 §4: RACK-TLP needs the SACK scoreboard; without SACK the sender cannot tell which
/// later segment was delivered. FACK has that scoreboard, but its forward-most-SACK rule *is*
/// a loss-detection rule, the one RACK replaced: Linux disabled FACK by default in 4.11 as
/// "RACK is the successor of FACK" and removed it in 4.15 because RACK "subsumed FACK", and
/// never ran RACK and FACK marking the same scoreboard by design. So `rack-tlp` goes with
/// `sack` only; `fack` keeps its own rule.
pub(super) fn check_loss_detection(
    section: &Section,
    recovery: Recovery,
    loss_detection: LossDetection,
) -> Result<(), ScenarioError> {
    if loss_detection != LossDetection::RackTlp || recovery == Recovery::Sack {
        return Ok(());
    }
    let why = if recovery == Recovery::Fack {
        "FACK's forward-most-SACK rule is itself the loss detection RACK replaces (Linux \
         retired FACK for RACK in 4.15)"
    } else {
        "it needs SACK (RFC 8985 §4)"
    };
    Err(section.invalid(
        "loss_detection",
        &format!(
            "\"rack-tlp\" cannot go with recovery = \"{}\": {why}; use recovery = \"sack\"",
            recovery.name()
        ),
    ))
}

/// `limited_transmit` (default false): RFC 3042.
pub(super) fn limited_transmit(section: &Section) -> Result<bool, ScenarioError> {
    match section.get("limited_transmit") {
        None => Ok(false),
        Some(Value::Boolean(b)) => Ok(*b),
        Some(_) => Err(section.invalid("limited_transmit", "must be true or false")),
    }
}

/// `lost_retransmission` (default `"reduce"`, RFC 5681 §4.3; `"continue"`, Linux).
pub(super) fn lost_retransmission(section: &Section) -> Result<LostRetransmission, ScenarioError> {
    section.choice_or(
        "lost_retransmission",
        LostRetransmission::Reduce,
        &[
            ("reduce", LostRetransmission::Reduce),
            ("continue", LostRetransmission::Continue),
        ],
        "must be \"reduce\" (RFC 5681 §4.3: a new reduction) or \"continue\" (Linux: the same recovery)",
    )
}

/// `reduce_from` (default `"flight"`, the RFCs; `"cwnd"`, Linux).
pub(super) fn reduce_from(section: &Section) -> Result<ReduceFrom, ScenarioError> {
    section.choice_or(
        "reduce_from",
        ReduceFrom::Flight,
        &[("flight", ReduceFrom::Flight), ("cwnd", ReduceFrom::Cwnd)],
        "must be \"flight\" (RFC 5681 §3.1: FlightSize) or \"cwnd\" (Linux: snd_cwnd)",
    )
}

/// `prr_bound` (default `"ssrb"`, RFC 6937; `"safe_ack"`, Linux).
pub(super) fn prr_bound(section: &Section) -> Result<PrrBound, ScenarioError> {
    section.choice_or(
        "prr_bound",
        PrrBound::Ssrb,
        &[("ssrb", PrrBound::Ssrb), ("safe_ack", PrrBound::SafeAck)],
        "must be \"ssrb\" (RFC 6937: the extra segment on every ACK) or \"safe_ack\" \
         (Linux tcp_cwnd_reduction: only on an ACK that advances snd_una with no new loss)",
    )
}

#[cfg(test)]
#[path = "recovery_tests.rs"]
mod tests;
