//! `recovery` (with `tahoe` and `fack`), its pairs with `cc` and `loss_detection`, and
//! `limited_transmit`: every accepted form, and one sentence naming file, key and problem
//! for every refused one.

use crate::model::Recovery;
use crate::{Scenario, from_str};

const BASE: &str = "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n[[flows]]\n";

fn parse(flow_keys: &str) -> Scenario {
    from_str("r.toml", &format!("{BASE}{flow_keys}"), &[]).expect("valid scenario")
}

/// The error for `flow_keys` is one line, starts with the file and `key`, and says every
/// one of `fragments`.
fn assert_refused(flow_keys: &str, key: &str, fragments: &[&str]) {
    let message = from_str("r.toml", &format!("{BASE}{flow_keys}"), &[])
        .expect_err(flow_keys)
        .to_string();
    assert!(
        message.starts_with(&format!("r.toml: flows.0.{key}: ")) && !message.contains('\n'),
        "{flow_keys}: {message}"
    );
    for fragment in fragments {
        assert!(
            message.contains(fragment),
            "{flow_keys}: {message} lacks {fragment}"
        );
    }
}

#[test]
fn every_recovery_name_parses_to_its_variant() {
    for (name, recovery) in [
        ("reno", Recovery::Reno),
        ("newreno", Recovery::NewReno),
        ("sack", Recovery::Sack),
        ("tahoe", Recovery::Tahoe),
        ("fack", Recovery::Fack),
    ] {
        let s = parse(&format!("cc = \"reno\"\nrecovery = \"{name}\"\n"));
        assert_eq!(s.flows[0].recovery, recovery);
        assert_eq!(recovery.name(), name);
    }
    // The default stays RFC 6675 SACK.
    assert_eq!(parse("cc = \"reno\"\n").flows[0].recovery, Recovery::Sack);
    // SACK blocks flow for the two SACK scoreboards only (RFC 2018).
    assert!(Recovery::Sack.uses_sack() && Recovery::Fack.uses_sack());
    assert!(!Recovery::Reno.uses_sack() && !Recovery::Tahoe.uses_sack());
}

#[test]
fn unknown_recoveries_get_a_hint_listing_all_five() {
    assert_refused(
        "cc = \"reno\"\nrecovery = \"tahoo\"\n",
        "recovery",
        &["unknown recovery `tahoo`", "did you mean \"tahoe\""],
    );
    assert_refused(
        "cc = \"reno\"\nrecovery = \"vegas\"\n",
        "recovery",
        &["\"reno\", \"newreno\", \"sack\", \"tahoe\" or \"fack\""],
    );
    assert_refused(
        "cc = \"reno\"\nrecovery = 3\n",
        "recovery",
        &["must be \"reno\", \"newreno\", \"sack\", \"tahoe\" or \"fack\""],
    );
}

/// Tahoe's response is ssthresh and a slow start back to it: controllers without a threshold
/// are refused; any with one (including the pluggable slow starts, seed 000's smooth start)
/// is accepted.
#[test]
fn tahoe_needs_a_controller_with_a_slow_start_threshold() {
    for cc in ["bbr", "copa"] {
        assert_refused(
            &format!("cc = \"{cc}\"\nrecovery = \"tahoe\"\n"),
            "recovery",
            &["\"tahoe\"", cc, "no slow-start threshold"],
        );
    }
    for keys in [
        "cc = \"cubic\"\n",
        "cc = \"reno\"\nslow_start = \"smooth-start\"\n",
    ] {
        let s = parse(&format!("{keys}recovery = \"tahoe\"\n"));
        assert_eq!(s.flows[0].recovery, Recovery::Tahoe);
    }
}

/// RACK-TLP goes with SACK only: Reno, NewReno and Tahoe have no SACK (RFC 8985 §4), and
/// FACK's own loss rule is what RACK replaced.
#[test]
fn rack_tlp_goes_with_sack_only() {
    for recovery in ["reno", "newreno", "tahoe"] {
        assert_refused(
            &format!("cc = \"reno\"\nrecovery = \"{recovery}\"\nloss_detection = \"rack-tlp\"\n"),
            "loss_detection",
            &["needs SACK", recovery],
        );
    }
    assert_refused(
        "cc = \"reno\"\nrecovery = \"fack\"\nloss_detection = \"rack-tlp\"\n",
        "loss_detection",
        &["\"fack\"", "RACK replaces", "use recovery = \"sack\""],
    );
    let s = parse("cc = \"reno\"\nrecovery = \"fack\"\nloss_detection = \"dupack\"\n");
    assert_eq!(s.flows[0].recovery, Recovery::Fack);
}

#[test]
fn limited_transmit_is_off_by_default_and_a_boolean() {
    assert!(!parse("cc = \"reno\"\n").flows[0].limited_transmit);
    assert!(parse("cc = \"reno\"\nlimited_transmit = true\n").flows[0].limited_transmit);
    assert!(!parse("cc = \"reno\"\nlimited_transmit = false\n").flows[0].limited_transmit);
    let s = from_str(
        "r.toml",
        &format!("{BASE}cc = \"reno\"\n"),
        &["flows.0.limited_transmit=true".into()],
    )
    .expect("--set");
    assert!(s.flows[0].limited_transmit);
    assert_refused(
        "cc = \"reno\"\nlimited_transmit = \"yes\"\n",
        "limited_transmit",
        &["must be true or false"],
    );
}
