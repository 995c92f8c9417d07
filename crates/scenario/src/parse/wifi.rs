//! `kind = "wifi"` link keys: `preset` and the overrides of its values.

use cclab_cc::SimDuration;
use toml::Value;

use super::section::{Section, as_f64};
use crate::error::ScenarioError;
use crate::units::{parse_bytes, parse_rate};
use crate::wifi::{WIFI_PRESETS, WifiConfig};

/// Keys of a Wi-Fi link beyond a wired link's.
pub(super) const KEYS: &[&str] = &[
    "kind",
    "preset",
    "phy_rate",
    "frame_error_rate",
    "retry_limit",
    "max_aggregate_frames",
    "max_aggregate_bytes",
    "max_aggregate_time",
    "slot",
    "sifs",
    "difs",
    "cw_min",
    "cw_max",
    "preamble",
    "block_ack",
    "frame_overhead",
];

/// Wired keys a Wi-Fi link refuses, and why.
const REFUSED: &[(&str, &str)] = &[
    (
        "rate",
        "a Wi-Fi link's rate is its PHY rate: set `phy_rate` (the preset gives one)",
    ),
    (
        "loss",
        "a Wi-Fi link loses frames through `frame_error_rate` and `retry_limit`",
    ),
    (
        "ack_loss",
        "a Wi-Fi link loses frames through `frame_error_rate` and `retry_limit`",
    ),
    ("jitter", "a Wi-Fi link's delay varies through contention"),
];

pub(super) fn wifi(section: &Section) -> Result<WifiConfig, ScenarioError> {
    for (key, why) in REFUSED {
        if section.get(key).is_some() {
            return Err(section.invalid(key, &format!("not for a Wi-Fi link; {why}")));
        }
    }
    let presets = WIFI_PRESETS
        .iter()
        .map(|p| format!("\"{p}\""))
        .collect::<Vec<_>>()
        .join(" or ");
    let mut config = match section.get("preset") {
        None => {
            return Err(section.invalid(
                "preset",
                &format!("missing; a Wi-Fi link starts from a preset: {presets}"),
            ));
        }
        Some(Value::String(name)) => WifiConfig::preset(name).ok_or_else(|| {
            section.invalid(
                "preset",
                &format!("unknown Wi-Fi preset `{name}`; use {presets}"),
            )
        })?,
        Some(_) => return Err(section.invalid("preset", &format!("must be {presets}"))),
    };
    if let Some(value) = section.get("phy_rate") {
        config.phy_rate_bps = match value {
            Value::String(s) => parse_rate(s).map_err(|m| section.invalid("phy_rate", &m))?,
            _ => {
                return Err(
                    section.invalid("phy_rate", "must be a rate with a unit, e.g. \"866.7Mbps\"")
                );
            }
        };
    }
    if let Some(value) = section.get("frame_error_rate") {
        config.frame_error_rate = match as_f64(value) {
            Some(p) if (0.0..1.0).contains(&p) => p,
            _ => {
                return Err(section.invalid(
                    "frame_error_rate",
                    "must be a probability in [0, 1), e.g. 0.1",
                ));
            }
        };
    }
    config.retry_limit =
        section.integer_or("retry_limit", config.retry_limit as i64, 0, 255)? as u32;
    config.max_aggregate_frames = section.integer_or(
        "max_aggregate_frames",
        config.max_aggregate_frames as i64,
        1,
        1024,
    )? as u32;
    if let Some(value) = section.get("max_aggregate_bytes") {
        config.max_aggregate_bytes = match value {
            Value::Integer(b) if *b >= 1 => *b as u64,
            Value::String(s) => {
                parse_bytes(s).map_err(|m| section.invalid("max_aggregate_bytes", &m))?
            }
            _ => 0,
        };
        if config.max_aggregate_bytes == 0 {
            return Err(section.invalid(
                "max_aggregate_bytes",
                "must be a positive size: bytes (integer) or e.g. \"64KB\"",
            ));
        }
    }
    let positive = |key: &str, value: &mut SimDuration| -> Result<(), ScenarioError> {
        if let Some(d) = section.duration(key)? {
            if d.is_zero() {
                return Err(section.invalid(key, "must be longer than zero"));
            }
            *value = d;
        }
        Ok(())
    };
    positive("max_aggregate_time", &mut config.max_aggregate_time)?;
    positive("slot", &mut config.slot)?;
    positive("difs", &mut config.difs)?;
    // SIFS, preamble and block ACK may be zero (to study an idealized MAC); their sum with
    // the payload is a transmission's airtime, which is never zero.
    for (key, value) in [
        ("sifs", &mut config.sifs),
        ("preamble", &mut config.preamble),
        ("block_ack", &mut config.block_ack),
    ] {
        if let Some(d) = section.duration(key)? {
            *value = d;
        }
    }
    config.cw_min = section.integer_or("cw_min", config.cw_min as i64, 0, 65_535)? as u32;
    config.cw_max = section.integer_or("cw_max", config.cw_max as i64, 0, 65_535)? as u32;
    if config.cw_max < config.cw_min {
        return Err(section.invalid(
            "cw_max",
            &format!(
                "{} is below cw_min ({}); the window doubles from cw_min up to cw_max",
                config.cw_max, config.cw_min
            ),
        ));
    }
    config.frame_overhead_bytes = section.integer_or(
        "frame_overhead",
        config.frame_overhead_bytes as i64,
        0,
        4096,
    )? as u32;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use cclab_cc::SimDuration;

    use crate::error::ScenarioError;
    use crate::link_kind::LinkKind;
    use crate::model::{Buffer, Scenario, Topology};
    use crate::network::QueueDiscipline;
    use crate::wifi::WifiConfig;

    fn parse(bottleneck: &str, topology_extra: &str) -> Result<Scenario, ScenarioError> {
        let text = format!(
            "[topology]\n{topology_extra}\nbottleneck = {bottleneck}\n[[flows]]\ncc = \"cubic\"\n"
        );
        crate::from_str("wifi.toml", &text, &[])
    }

    fn wifi_of(scenario: &Scenario) -> (&crate::model::Link, &WifiConfig) {
        let Topology::Dumbbell(d) = &scenario.topology else {
            panic!("a dumbbell")
        };
        match &d.bottleneck.kind {
            LinkKind::Wifi(config) => (&d.bottleneck, config),
            other => panic!("{other:?}"),
        }
    }

    fn error(bottleneck: &str, topology_extra: &str) -> (String, String) {
        match parse(bottleneck, topology_extra) {
            Err(ScenarioError::Invalid { key, message, .. }) => (key, message),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_preset_gives_every_value_and_the_nominal_rate() {
        let s = parse(
            r#"{ kind = "wifi", preset = "wifi-5ghz", delay = "5ms", buffer = 500 }"#,
            "",
        )
        .expect("valid");
        let (link, config) = wifi_of(&s);
        assert_eq!(config, &WifiConfig::preset("wifi-5ghz").expect("a preset"));
        // The link's nominal rate (BDP multiples, access defaults) is the PHY rate.
        assert_eq!(link.rate_bps, 866_666_667);
        assert_eq!(link.buffer, Buffer::Packets(500));
        assert_eq!(link.delay, SimDuration::from_millis(5));
    }

    #[test]
    fn every_preset_value_can_be_overridden() {
        let s = parse(
            r#"{ kind = "wifi", preset = "wifi-2.4ghz", delay = "5ms", phy_rate = "65Mbps",
                 frame_error_rate = 0.02, retry_limit = 3, max_aggregate_frames = 32,
                 max_aggregate_bytes = "32KB", max_aggregate_time = "2ms", slot = "20us",
                 sifs = "10us", difs = "50us", cw_min = 31, cw_max = 255, preamble = "36us",
                 block_ack = "44us", frame_overhead = 50, queue = "codel" }"#,
            "",
        )
        .expect("valid");
        let (link, config) = wifi_of(&s);
        let us = SimDuration::from_micros;
        assert_eq!(
            config,
            &WifiConfig {
                preset: "wifi-2.4ghz",
                phy_rate_bps: 65_000_000,
                frame_error_rate: 0.02,
                retry_limit: 3,
                max_aggregate_frames: 32,
                max_aggregate_bytes: 32_000,
                max_aggregate_time: us(2000),
                slot: us(20),
                sifs: us(10),
                difs: us(50),
                cw_min: 31,
                cw_max: 255,
                preamble: us(36),
                block_ack: us(44),
                frame_overhead_bytes: 50,
            }
        );
        assert_eq!(link.rate_bps, 65_000_000);
        assert!(matches!(link.queue, QueueDiscipline::Codel(_)));
    }

    #[test]
    fn the_stations_queue_may_differ_and_keeps_the_medium() {
        let s = parse(
            r#"{ kind = "wifi", preset = "wifi-5ghz", delay = "5ms", buffer = 500,
                 reverse = { buffer = 100, queue = "fq_codel" } }"#,
            "",
        )
        .expect("valid");
        let Topology::Dumbbell(d) = &s.topology else {
            panic!("a dumbbell")
        };
        let reverse = d.reverse.as_ref().expect("a reverse direction");
        assert_eq!(reverse.kind, d.bottleneck.kind);
        assert_eq!(reverse.buffer, Buffer::Packets(100));
        assert_eq!(reverse.delay, d.bottleneck.delay);
        assert!(matches!(reverse.queue, QueueDiscipline::FqCodel(_)));
    }

    #[test]
    fn bad_wifi_input_names_the_key_and_the_problem() {
        let base = r#"kind = "wifi", preset = "wifi-5ghz", delay = "5ms""#;
        let cases = [
            (r#"{ kind = "wifi", delay = "5ms" }"#, "preset", "missing"),
            (
                r#"{ kind = "wifi", preset = "wifi-6ghz", delay = "5ms" }"#,
                "preset",
                "unknown Wi-Fi preset",
            ),
            (
                &format!("{{ {base}, rate = \"100Mbps\" }}"),
                "rate",
                "phy_rate",
            ),
            (
                &format!("{{ {base}, loss = 0.01 }}"),
                "loss",
                "frame_error_rate",
            ),
            (
                &format!("{{ {base}, frame_error_rate = 1.0 }}"),
                "frame_error_rate",
                "[0, 1)",
            ),
            (
                &format!("{{ {base}, cw_min = 31, cw_max = 15 }}"),
                "cw_max",
                "below cw_min",
            ),
            (
                &format!("{{ {base}, slot = \"0us\" }}"),
                "slot",
                "longer than zero",
            ),
            (&format!("{{ {base}, slot = 9 }}"), "slot", "needs a unit"),
            (
                &format!("{{ {base}, max_aggregate_frames = 0 }}"),
                "max_aggregate_frames",
                "outside",
            ),
            (&format!("{{ {base}, phy_rate = 866 }}"), "phy_rate", "unit"),
            (
                &format!("{{ {base}, aggregate = 3 }}"),
                "aggregate",
                "unknown key",
            ),
            (
                &format!("{{ {base}, reverse = {{ rate = \"1Mbps\" }} }}"),
                "reverse.rate",
                "unknown key",
            ),
        ];
        for (bottleneck, key, problem) in cases {
            let (got_key, message) = error(bottleneck, "");
            assert_eq!(
                got_key,
                format!("topology.bottleneck.{key}"),
                "{bottleneck}"
            );
            assert!(message.contains(problem), "{bottleneck}: {message}");
        }
    }

    #[test]
    fn wifi_is_refused_off_the_dumbbell() {
        let text = r#"
            [topology]
            kind = "parking-lot"
            hops = 2
            link = { kind = "wifi", preset = "wifi-5ghz", delay = "5ms" }
            [[flows]]
            cc = "cubic"
        "#;
        match crate::from_str("lot.toml", text, &[]) {
            Err(ScenarioError::Invalid { key, message, .. }) => {
                assert_eq!(key, "topology.link.kind");
                assert!(message.contains("dumbbell"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
