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
