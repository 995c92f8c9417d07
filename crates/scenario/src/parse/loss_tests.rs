//! `loss`, `ack_loss` and `jitter` on the bottleneck: every accepted form, and one sentence
//! naming file, key and problem for every bad value.

use crate::network::*;
use crate::{Scenario, from_str};

fn with_bottleneck(keys: &str) -> String {
    format!(
        "[topology]\nbottleneck = {{ rate = \"10Mbps\", delay = \"10ms\", {keys} }}\n\
         [[flows]]\ncc = \"reno\"\n"
    )
}

fn parse(keys: &str) -> Scenario {
    from_str("t.toml", &with_bottleneck(keys), &[]).expect("valid scenario")
}

/// The error for `keys` must be one line, start with the file and `key`, and say `fragment`.
fn assert_refused(keys: &str, key: &str, fragment: &str) {
    let message = from_str("bad.toml", &with_bottleneck(keys), &[])
        .expect_err(keys)
        .to_string();
    assert!(
        message.starts_with(&format!("bad.toml: {key}: ")),
        "{keys}: {message}"
    );
    assert!(
        message.contains(fragment),
        "{keys}: {message} lacks {fragment}"
    );
    assert!(!message.contains('\n'), "{message} is not one line");
}

#[test]
fn loss_forms() {
    let b = parse("loss = 0.01")
        .topology
        .dumbbell()
        .expect("a dumbbell")
        .bottleneck
        .clone();
    assert_eq!(
        (b.loss, b.ack_loss),
        (LossModel::Bernoulli(0.01), LossModel::None)
    );
    let b = parse("loss = { model = \"bernoulli\", p = 0.01 }")
        .topology
        .dumbbell()
        .expect("a dumbbell")
        .bottleneck
        .clone();
    assert_eq!(b.loss, LossModel::Bernoulli(0.01));
    // Zero is no loss, in either form.
    assert_eq!(
        parse("loss = 0")
            .topology
            .dumbbell()
            .expect("a dumbbell")
            .bottleneck
            .clone()
            .loss,
        LossModel::None
    );
    let b = parse("loss = { model = \"bernoulli\", p = 0.0 }")
        .topology
        .dumbbell()
        .expect("a dumbbell")
        .bottleneck
        .clone();
    assert_eq!(b.loss, LossModel::None);
    let b = parse(
        "loss = { model = \"gilbert-elliott\", p_good_to_bad = 0.01, p_bad_to_good = 0.3, \
         loss_good = 0.001, loss_bad = 0.5 }",
    )
    .topology
    .dumbbell()
    .expect("a dumbbell")
    .bottleneck
    .clone();
    assert_eq!(
        b.loss,
        LossModel::GilbertElliott {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.3,
            loss_good: 0.001,
            loss_bad: 0.5,
        }
    );
    // Loss probabilities default to Gilbert's channel: none when good, all when bad.
    let b = parse(
        "ack_loss = { model = \"gilbert-elliott\", p_good_to_bad = 0.01, p_bad_to_good = 0.3 }",
    )
    .topology
    .dumbbell()
    .expect("a dumbbell")
    .bottleneck
    .clone();
    assert_eq!(b.loss, LossModel::None);
    assert_eq!(
        b.ack_loss,
        LossModel::GilbertElliott {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.3,
            loss_good: 0.0,
            loss_bad: 1.0,
        }
    );
    assert_eq!(
        parse("ack_loss = 0.001")
            .topology
            .dumbbell()
            .expect("a dumbbell")
            .bottleneck
            .clone()
            .ack_loss,
        LossModel::Bernoulli(0.001)
    );
}

#[test]
fn bad_loss_values_name_file_and_key() {
    let cases = [
        (
            "loss = 1.5",
            "topology.bottleneck.loss",
            "probability in [0, 1)",
        ),
        ("loss = -0.1", "topology.bottleneck.loss", "probability"),
        (
            "loss = 1",
            "topology.bottleneck.loss",
            "probability in [0, 1)",
        ),
        ("loss = \"1%\"", "topology.bottleneck.loss", "probability"),
        (
            "ack_loss = 2",
            "topology.bottleneck.ack_loss",
            "probability",
        ),
        (
            "loss = { p = 0.1 }",
            "topology.bottleneck.loss.model",
            "missing; one of bernoulli, gilbert-elliott",
        ),
        (
            "loss = { model = \"gilbert_eliott\" }",
            "topology.bottleneck.loss.model",
            "did you mean \"gilbert-elliott\"",
        ),
        (
            "loss = { model = 3 }",
            "topology.bottleneck.loss.model",
            "name",
        ),
        (
            "loss = { model = \"bernoulli\" }",
            "topology.bottleneck.loss.p",
            "missing",
        ),
        (
            "loss = { model = \"bernoulli\", p = 1.2 }",
            "topology.bottleneck.loss.p",
            "probability",
        ),
        (
            "loss = { model = \"bernoulli\", pr = 0.1 }",
            "topology.bottleneck.loss.pr",
            "did you mean `p`",
        ),
        (
            "loss = { model = \"gilbert-elliott\", p_bad_to_good = 0.3 }",
            "topology.bottleneck.loss.p_good_to_bad",
            "missing",
        ),
        (
            "loss = { model = \"gilbert-elliott\", p_good_to_bad = 0.3 }",
            "topology.bottleneck.loss.p_bad_to_good",
            "missing",
        ),
        (
            "ack_loss = { model = \"gilbert-elliott\", p_good_to_bad = 1.1, p_bad_to_good = 0.3 }",
            "topology.bottleneck.ack_loss.p_good_to_bad",
            "[0, 1]",
        ),
        (
            "loss = { model = \"gilbert-elliott\", p_good_to_bad = 0.1, p_bad_to_good = -0.3 }",
            "topology.bottleneck.loss.p_bad_to_good",
            "[0, 1]",
        ),
        (
            "loss = { model = \"gilbert-elliott\", p_good_to_bad = 0.1, p_bad_to_good = 0 }",
            "topology.bottleneck.loss.p_bad_to_good",
            "never left",
        ),
        (
            "loss = { model = \"gilbert-elliott\", p_good_to_bad = 0.1, p_bad_to_good = 0.3, \
             loss_bad = 1.5 }",
            "topology.bottleneck.loss.loss_bad",
            "[0, 1]",
        ),
        (
            "loss = { model = \"gilbert-elliott\", p_good_to_bad = 0.1, p_bad_to_good = 0.3, \
             loss_good = \"x\" }",
            "topology.bottleneck.loss.loss_good",
            "probability",
        ),
        (
            "loss = { model = \"gilbert-elliott\", p_good_to_bad = 0.1, p_bad_to_good = 0.3, \
             loss_good = 1 }",
            "topology.bottleneck.loss.loss_good",
            "every packet is lost",
        ),
        (
            "loss = { model = \"gilbert-elliott\", p_good_to_bad = 0.1, p_bad_to_good = 0.3, \
             loss_god = 0.1 }",
            "topology.bottleneck.loss.loss_god",
            "did you mean `loss_good`",
        ),
        (
            "ack_los = 0.1",
            "topology.bottleneck.ack_los",
            "did you mean `ack_loss`",
        ),
    ];
    for (keys, key, fragment) in cases {
        assert_refused(keys, key, fragment);
    }
    // Loss is the bottleneck's: an access link refuses both keys.
    let text = "[topology]\nbottleneck = { rate = \"10Mbps\", delay = \"10ms\" }\n\
                access = { rate = \"1Gbps\", ack_loss = 0.1 }\n[[flows]]\ncc = \"reno\"\n";
    let message = from_str("bad.toml", text, &[]).unwrap_err().to_string();
    assert!(
        message.starts_with("bad.toml: topology.access.ack_loss: unknown key"),
        "{message}"
    );
}

#[test]
fn jitter_forms() {
    use cclab_cc::SimDuration;
    let b = parse("jitter = { max = \"5ms\" }")
        .topology
        .dumbbell()
        .expect("a dumbbell")
        .bottleneck
        .clone();
    assert_eq!(
        b.jitter,
        Some(Jitter {
            distribution: JitterDistribution::Uniform {
                max: SimDuration::from_millis(5)
            },
            correlation: 0.0,
            reorder: false,
        })
    );
    let b = parse(
        "jitter = { distribution = \"normal\", mean = \"2ms\", stddev = \"1ms\", \
         correlation = 0.25, reorder = true }",
    )
    .topology
    .dumbbell()
    .expect("a dumbbell")
    .bottleneck
    .clone();
    assert_eq!(
        b.jitter,
        Some(Jitter {
            distribution: JitterDistribution::Normal {
                mean: SimDuration::from_millis(2),
                stddev: SimDuration::from_millis(1),
            },
            correlation: 0.25,
            reorder: true,
        })
    );
    // A normal jitter may be centred on zero (half the draws then add nothing).
    let b = parse("jitter = { distribution = \"normal\", mean = \"0ms\", stddev = \"1ms\" }");
    assert!(
        b.topology
            .dumbbell()
            .expect("a dumbbell")
            .bottleneck
            .clone()
            .jitter
            .is_some()
    );
    assert_eq!(
        parse("loss = 0.1")
            .topology
            .dumbbell()
            .expect("a dumbbell")
            .bottleneck
            .clone()
            .jitter,
        None
    );
}

#[test]
fn bad_jitter_values_name_file_and_key() {
    let key = "topology.bottleneck.jitter";
    let normal = "distribution = \"normal\"";
    let cases = [
        (
            "jitter = \"5ms\"".to_string(),
            key.to_string(),
            "must be a table",
        ),
        ("jitter = { }".into(), format!("{key}.max"), "missing"),
        (
            "jitter = { max = \"0ms\" }".into(),
            format!("{key}.max"),
            "above zero",
        ),
        (
            "jitter = { max = \"-1ms\" }".into(),
            format!("{key}.max"),
            "negative",
        ),
        (
            "jitter = { max = 5 }".into(),
            format!("{key}.max"),
            "needs a unit",
        ),
        (
            "jitter = { max = \"5\" }".into(),
            format!("{key}.max"),
            "no unit",
        ),
        (
            format!("jitter = {{ {normal}, mean = \"2ms\" }}"),
            format!("{key}.stddev"),
            "missing",
        ),
        (
            format!("jitter = {{ {normal}, stddev = \"1ms\" }}"),
            format!("{key}.mean"),
            "missing",
        ),
        (
            format!("jitter = {{ {normal}, mean = \"2ms\", stddev = \"0s\" }}"),
            format!("{key}.stddev"),
            "above zero",
        ),
        (
            format!("jitter = {{ {normal}, mean = \"-2ms\", stddev = \"1ms\" }}"),
            format!("{key}.mean"),
            "negative",
        ),
        (
            format!("jitter = {{ {normal}, mean = \"2ms\", stddev = \"1ms\", max = \"5ms\" }}"),
            format!("{key}.max"),
            "unknown key",
        ),
        (
            "jitter = { max = \"5ms\", stddev = \"1ms\" }".into(),
            format!("{key}.stddev"),
            "unknown key",
        ),
        (
            "jitter = { distribution = \"gaussian\", max = \"5ms\" }".into(),
            format!("{key}.distribution"),
            "unknown jitter distribution",
        ),
        (
            "jitter = { distribution = \"normall\", mean = \"1ms\" }".into(),
            format!("{key}.distribution"),
            "did you mean \"normal\"",
        ),
        (
            "jitter = { max = \"5ms\", correlation = 1 }".into(),
            format!("{key}.correlation"),
            "[0, 1)",
        ),
        (
            "jitter = { max = \"5ms\", correlation = -0.1 }".into(),
            format!("{key}.correlation"),
            "[0, 1)",
        ),
        (
            "jitter = { max = \"5ms\", reorder = \"yes\" }".into(),
            format!("{key}.reorder"),
            "true or false",
        ),
        (
            "jitter = { max = \"5ms\", reoder = true }".into(),
            format!("{key}.reoder"),
            "did you mean `reorder`",
        ),
    ];
    for (keys, key, fragment) in cases {
        assert_refused(&keys, &key, fragment);
    }
}
