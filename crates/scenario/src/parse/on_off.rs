//! On/off periods (`on`, `off`, `periods`) and a TCP flow's `on_off` application.

use toml::Value;

use super::section::Section;
use crate::error::ScenarioError;
use crate::traffic::OnOff;
use crate::traffic::on_off::{PeriodDistribution, Periods};
use crate::units::parse_bytes;

/// Keys of an `on_off` table.
const KEYS: &[&str] = &["on", "off", "periods", "burst", "slow_start_after_idle"];

/// `on`, `off` and `periods` of `section` (a UDP flow table or an `on_off` table). `what`
/// names the source in messages.
pub(super) fn periods(section: &Section, what: &str) -> Result<Periods, ScenarioError> {
    let on = section.duration("on")?.ok_or_else(|| {
        section.invalid(
            "on",
            &format!("missing; {what} needs the length of its on periods, e.g. \"1s\""),
        )
    })?;
    if on.is_zero() {
        return Err(section.invalid("on", "must be longer than zero"));
    }
    let off = section.duration("off")?.ok_or_else(|| {
        section.invalid(
            "off",
            &format!("missing; {what} needs the length of its off periods, e.g. \"1s\""),
        )
    })?;
    let distribution = match section.get("periods") {
        None => PeriodDistribution::default(),
        Some(Value::String(s)) if s == "fixed" => PeriodDistribution::Fixed,
        Some(Value::String(s)) if s == "exponential" => PeriodDistribution::Exponential,
        Some(_) => {
            return Err(section.invalid(
                "periods",
                "must be \"exponential\" (the default: periods drawn with means `on` and `off`) or \"fixed\"",
            ));
        }
    };
    Ok(Periods {
        on,
        off,
        distribution,
    })
}

/// The `on_off` table of a TCP flow.
pub(super) fn on_off(flow: &Section) -> Result<OnOff, ScenarioError> {
    let section = match flow.section("on_off") {
        Ok(Some(section)) => section,
        _ => {
            return Err(flow.invalid(
                "on_off",
                "must be a table such as { on = \"1s\", off = \"2s\", burst = \"100KB\" }",
            ));
        }
    };
    section.allow_only(KEYS)?;
    let periods = periods(&section, "an on/off application")?;
    let burst = match section.get("burst") {
        None => None,
        Some(Value::Integer(b)) if *b > 0 => Some(*b as u64),
        Some(Value::String(s)) => match parse_bytes(s) {
            Ok(0) => return Err(section.invalid("burst", "must be at least one byte")),
            Ok(b) => Some(b),
            Err(m) => return Err(section.invalid("burst", &m)),
        },
        Some(_) => {
            return Err(section.invalid("burst", "must be a size such as \"100KB\""));
        }
    };
    let slow_start_after_idle = match section.get("slow_start_after_idle") {
        None => true,
        Some(Value::Boolean(b)) => *b,
        Some(_) => return Err(section.invalid("slow_start_after_idle", "must be true or false")),
    };
    Ok(OnOff {
        periods,
        burst,
        slow_start_after_idle,
    })
}
