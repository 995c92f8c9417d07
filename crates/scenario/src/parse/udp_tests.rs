//! `kind = "udp"` flows and TCP `on_off` applications: every accepted form, and one sentence
//! naming file, key and problem for every bad one.

use cclab_cc::SimDuration;

use crate::traffic::on_off::{PeriodDistribution, Periods};
use crate::traffic::udp::UdpPattern;
use crate::traffic::{FlowKind, OnOff, UdpConfig};
use crate::{Scenario, from_str};

fn with_flows(flows: &str) -> String {
    format!(
        "[topology]\nbottleneck = {{ rate = \"100Mbps\", delay = \"10ms\" }}\n\
         [[flows]]\ncc = \"cubic\"\n[[flows]]\n{flows}\n"
    )
}

fn parse(flows: &str) -> Scenario {
    from_str("t.toml", &with_flows(flows), &[]).expect("valid scenario")
}

fn udp(flows: &str) -> UdpConfig {
    match &parse(flows).flows[1].kind {
        FlowKind::Udp(config) => config.clone(),
        other => panic!("not a UDP flow: {other:?}"),
    }
}

/// The error for the second flow table `flows` must be one line, start with the file and
/// `key`, and say `fragment`.
fn assert_refused(flows: &str, key: &str, fragment: &str) {
    let message = from_str("bad.toml", &with_flows(flows), &[])
        .expect_err(flows)
        .to_string();
    assert!(
        message.starts_with(&format!("bad.toml: {key}: ")),
        "{flows}: {message}"
    );
    assert!(
        message.contains(fragment),
        "{flows}: {message} lacks {fragment}"
    );
    assert!(!message.contains('\n'), "{message} is not one line");
}

#[test]
fn udp_defaults_are_cbr_of_1500_byte_packets() {
    let config = udp("kind = \"udp\"\nrate = \"30Mbps\"");
    assert_eq!(
        config,
        UdpConfig {
            rate_bps: 30_000_000,
            pattern: UdpPattern::Cbr,
            packet_size: 1500,
        }
    );
    // IPv4 20 + UDP 8 header bytes.
    assert_eq!(config.payload_bytes(), 1472);
    // The group's wire and payload sizes are the UDP packet's.
    let scenario = parse("kind = \"udp\"\nrate = \"30Mbps\"\npacket_size = 1000");
    assert_eq!(
        (scenario.flows[1].mss, scenario.flows[1].header_bytes),
        (972, 28)
    );
}

#[test]
fn udp_patterns_and_shared_keys() {
    assert_eq!(
        udp("kind = \"udp\"\nrate = \"1Mbps\"\npattern = \"poisson\"").pattern,
        UdpPattern::Poisson
    );
    let on_off = udp(
        "kind = \"udp\"\nrate = \"1Mbps\"\npattern = \"on-off\"\non = \"1s\"\noff = \"500ms\"\n\
         periods = \"fixed\"",
    );
    assert_eq!(
        on_off.pattern,
        UdpPattern::OnOff(Periods {
            on: SimDuration::from_secs(1),
            off: SimDuration::from_millis(500),
            distribution: PeriodDistribution::Fixed,
        })
    );
    // 1 Mbit/s on for 1 s of every 1.5 s: 2/3 Mbit/s on average.
    assert!((on_off.mean_rate_bps() - 1e6 * 2.0 / 3.0).abs() < 1e-6);
    let exponential =
        udp("kind = \"udp\"\nrate = \"1Mbps\"\npattern = \"on-off\"\non = \"1s\"\noff = \"1s\"");
    assert!(matches!(
        exponential.pattern,
        UdpPattern::OnOff(Periods {
            distribution: PeriodDistribution::Exponential,
            ..
        })
    ));
    let s = parse(
        "kind = \"udp\"\nrate = \"1Mbps\"\ncount = 3\nstart = \"2s\"\nextra_rtt = \"10ms\"\n\
         direction = \"reverse\"",
    );
    assert_eq!(s.flows[1].count, 3);
    assert_eq!(s.flow_count(), 4);
}

#[test]
fn udp_errors_name_the_key() {
    // A UDP flow has no congestion control to name.
    assert_refused(
        "kind = \"udp\"\nrate = \"1Mbps\"\ncc = \"cubic\"",
        "flows.1.cc",
        "no congestion control",
    );
    // TCP-only keys mean nothing to an unresponsive source.
    for key in ["mss = 1000", "recovery = \"sack\"", "initial_window = 4"] {
        let name = key.split(' ').next().unwrap();
        assert_refused(
            &format!("kind = \"udp\"\nrate = \"1Mbps\"\n{key}"),
            &format!("flows.1.{name}"),
            "TCP key",
        );
    }
    // The rate is what a UDP flow is about: it must be there and above zero.
    assert_refused("kind = \"udp\"", "flows.1.rate", "missing");
    assert_refused(
        "kind = \"udp\"\nrate = \"0Mbps\"",
        "flows.1.rate",
        "must be positive",
    );
    assert_refused("kind = \"udp\"\nrate = 30", "flows.1.rate", "rate such as");
    // Patterns are three words.
    assert_refused(
        "kind = \"udp\"\nrate = \"1Mbps\"\npattern = \"bursty\"",
        "flows.1.pattern",
        "unknown pattern `bursty`",
    );
    // On/off needs both period lengths, and they belong to it alone.
    assert_refused(
        "kind = \"udp\"\nrate = \"1Mbps\"\npattern = \"on-off\"\non = \"1s\"",
        "flows.1.off",
        "missing",
    );
    assert_refused(
        "kind = \"udp\"\nrate = \"1Mbps\"\non = \"1s\"",
        "flows.1.on",
        "only to pattern = \"on-off\"",
    );
    assert_refused(
        "kind = \"udp\"\nrate = \"1Mbps\"\npattern = \"on-off\"\non = \"0s\"\noff = \"1s\"",
        "flows.1.on",
        "longer than zero",
    );
    // A packet must hold its 28 header bytes and one byte more.
    assert_refused(
        "kind = \"udp\"\nrate = \"1Mbps\"\npacket_size = 28",
        "flows.1.packet_size",
        "outside [29, 65535]",
    );
    // A UDP key on a TCP flow is a missing `kind`.
    assert_refused(
        "cc = \"reno\"\nrate = \"1Mbps\"",
        "flows.1.rate",
        "kind = \"udp\"",
    );
}

#[test]
fn on_off_application_forms() {
    let s = parse(
        "cc = \"reno\"\non_off = { on = \"1s\", off = \"2s\", periods = \"fixed\", burst = \"100KB\" }",
    );
    assert_eq!(
        s.flows[1].on_off,
        Some(OnOff {
            periods: Periods {
                on: SimDuration::from_secs(1),
                off: SimDuration::from_secs(2),
                distribution: PeriodDistribution::Fixed,
            },
            burst: Some(100_000),
            slow_start_after_idle: true,
        })
    );
    let backlogged = parse("cc = \"reno\"\non_off = { on = \"1s\", off = \"2s\" }");
    let on_off = backlogged.flows[1].on_off.clone().expect("an application");
    assert_eq!(on_off.burst, None);
    assert_eq!(on_off.periods.distribution, PeriodDistribution::Exponential);
    let kept = parse(
        "cc = \"reno\"\non_off = { on = \"1s\", off = \"2s\", slow_start_after_idle = false }",
    );
    assert!(
        !kept.flows[1]
            .on_off
            .clone()
            .expect("an application")
            .slow_start_after_idle
    );
    assert_eq!(parse("cc = \"reno\"").flows[1].on_off, None);
}

#[test]
fn on_off_errors_name_the_key() {
    assert_refused(
        "cc = \"reno\"\non_off = \"1s\"",
        "flows.1.on_off",
        "must be a table",
    );
    assert_refused(
        "cc = \"reno\"\non_off = { off = \"1s\" }",
        "flows.1.on_off.on",
        "missing",
    );
    assert_refused(
        "cc = \"reno\"\non_off = { on = \"1s\", off = \"1s\", burst = \"0B\" }",
        "flows.1.on_off.burst",
        "at least one byte",
    );
    assert_refused(
        "cc = \"reno\"\non_off = { on = \"1s\", off = \"1s\", periods = \"pareto\" }",
        "flows.1.on_off.periods",
        "\"fixed\"",
    );
    assert_refused(
        "cc = \"reno\"\non_off = { on = \"1s\", off = \"1s\", bursts = 3 }",
        "flows.1.on_off.bursts",
        "did you mean `burst`",
    );
    // A UDP source has its own on/off pattern.
    assert_refused(
        "kind = \"udp\"\nrate = \"1Mbps\"\non_off = { on = \"1s\", off = \"1s\" }",
        "flows.1.on_off",
        "pattern = \"on-off\"",
    );
}
