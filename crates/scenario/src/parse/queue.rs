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
    // With a bare name, an empty table stands for "all defaults".
    let params = params.unwrap_or_else(|| section.empty("queue"));
    match kind {
        "droptail" => {
            params.allow_only(&["kind"])?;
            Ok(QueueDiscipline::DropTail)
        }
        "red" => red(&params).map(QueueDiscipline::Red),
        "codel" => codel(&params).map(QueueDiscipline::Codel),
        "fq_codel" => fq_codel(&params).map(QueueDiscipline::FqCodel),
        "pie" => pie(&params).map(QueueDiscipline::Pie),
        "dualpi2" => dualpi2(&params).map(QueueDiscipline::DualPi2),
        "xcp" => xcp(&params).map(QueueDiscipline::Xcp),
        "vcp" => vcp(&params).map(QueueDiscipline::Vcp),
        other => unreachable!("`{other}` is in QUEUE_DISCIPLINES but has no parser"),
    }
}

/// PIE, RFC 8033: `target`, `tupdate`, `alpha`, `beta`, `max_burst`, `ecn`.
fn pie(params: &Section) -> Result<PieConfig, ScenarioError> {
    params.allow_only(&[
        "kind",
        "target",
        "tupdate",
        "alpha",
        "beta",
        "max_burst",
        "ecn",
    ])?;
    let default = PieConfig::default();
    Ok(PieConfig {
        target: positive_duration(params, "target", default.target)?,
        tupdate: positive_duration(params, "tupdate", default.tupdate)?,
        // Linux `tc pie` takes alpha and beta in sixteenths up to 32, i.e. [0, 2] Hz, the
        // range RFC 8033's gains are tuned in.
        alpha: number_in(params, "alpha", default.alpha, 0.0..=2.0)?,
        beta: number_in(params, "beta", default.beta, 0.0..=2.0)?,
        // Zero is allowed: no burst allowance at all.
        max_burst: params.duration("max_burst")?.unwrap_or(default.max_burst),
        ecn: flag(params, "ecn", default.ecn)?,
    })
}

/// XCP (Katabi et al. 2002 §3.5): `alpha`, `beta`, `gamma`.
fn xcp(params: &Section) -> Result<XcpConfig, ScenarioError> {
    params.allow_only(&["kind", "alpha", "beta", "gamma"])?;
    let default = XcpConfig::default();
    // §4: the controller is stable for 0 < α < π/(4√2) = 0.555 and β = α²√2; wider values
    // are the user's experiment, but negative or absurd ones are typos.
    Ok(XcpConfig {
        alpha: number_in(params, "alpha", default.alpha, 0.0..=1.0)?,
        beta: number_in(params, "beta", default.beta, 0.0..=1.0)?,
        gamma: number_in(params, "gamma", default.gamma, 0.0..=1.0)?,
    })
}

/// VCP (Xia et al. 2005 §3.1): `interval`, `target_utilization`, `kappa`.
fn vcp(params: &Section) -> Result<VcpConfig, ScenarioError> {
    params.allow_only(&["kind", "interval", "target_utilization", "kappa"])?;
    let default = VcpConfig::default();
    Ok(VcpConfig {
        interval: positive_duration(params, "interval", default.interval)?,
        target_utilization: number_in(
            params,
            "target_utilization",
            default.target_utilization,
            0.01..=1.0,
        )?,
        kappa: number_in(params, "kappa", default.kappa, 0.0..=10.0)?,
    })
}

/// DualPI2, RFC 9332: `target`, `tupdate`, `alpha`, `beta`, `coupling`, `step_threshold`.
fn dualpi2(params: &Section) -> Result<DualPi2Config, ScenarioError> {
    params.allow_only(&[
        "kind",
        "target",
        "tupdate",
        "alpha",
        "beta",
        "coupling",
        "step_threshold",
    ])?;
    let default = DualPi2Config::default();
    Ok(DualPi2Config {
        target: positive_duration(params, "target", default.target)?,
        tupdate: positive_duration(params, "tupdate", default.tupdate)?,
        // RFC 9332 Appendix A: alpha = 0.1·Tupdate/RTT_max², beta = 0.3/RTT_max, in Hz;
        // 1000 Hz leaves room for data-centre RTTs of a fraction of a millisecond.
        alpha: number_in(params, "alpha", default.alpha, 0.0..=1000.0)?,
        beta: number_in(params, "beta", default.beta, 0.0..=1000.0)?,
        // Linux takes k as an integer of at least 1 (an 8-bit field); k < 1 would mark L4S
        // traffic less than the square-root law gives classic traffic.
        coupling: number_in(params, "coupling", default.coupling, 1.0..=255.0)?,
        step_threshold: positive_duration(params, "step_threshold", default.step_threshold)?,
    })
}

/// `{ kind = "red", ... }`: Floyd & Jacobson's thresholds, weight and probability, checked
/// for the ranges the algorithm needs. The thresholds are not compared with the link's
/// buffer (neither ns-2 nor Linux does): above the buffer they are simply out of reach, and
/// the buffer's overflow drops take over, as docs/queues.md says.
fn red(params: &Section) -> Result<RedConfig, ScenarioError> {
    params.allow_only(&[
        "kind",
        "min_th",
        "max_th",
        "w_q",
        "max_p",
        "gentle",
        "adaptive",
        "byte_mode",
        "mean_packet_bytes",
        "ecn",
    ])?;
    let defaults = RedConfig::default();
    let min_th = number(params, "min_th")?.unwrap_or(defaults.min_th);
    let max_th = number(params, "max_th")?.unwrap_or(defaults.max_th);
    if min_th < 0.0 {
        return Err(params.invalid(
            "min_th",
            &format!("{min_th} is negative; the average queue threshold is a packet count ≥ 0"),
        ));
    }
    if max_th <= min_th {
        let key = if params.get("max_th").is_some() {
            "max_th"
        } else {
            "min_th"
        };
        return Err(params.invalid(
            key,
            &format!(
                "max_th ({max_th}) must be above min_th ({min_th}): RED's drop probability \
                 rises between the two"
            ),
        ));
    }
    let w_q = number(params, "w_q")?;
    if let Some(w_q) = w_q
        && !(w_q > 0.0 && w_q <= 1.0)
    {
        return Err(params.invalid(
            "w_q",
            &format!("{w_q} is not a weight in (0, 1]; ns-2's default is 0.002"),
        ));
    }
    let max_p = number(params, "max_p")?.unwrap_or(defaults.max_p);
    if !(max_p > 0.0 && max_p <= 1.0) {
        return Err(params.invalid(
            "max_p",
            &format!("{max_p} is not a probability in (0, 1]; ns-2's default is 0.1"),
        ));
    }
    let mean_packet_bytes = match params.get("mean_packet_bytes") {
        None => None,
        Some(Value::Integer(b)) if *b >= 1 => Some(*b as u64),
        Some(_) => {
            return Err(params.invalid(
                "mean_packet_bytes",
                "must be a whole number of bytes, at least 1",
            ));
        }
    };
    Ok(RedConfig {
        min_th,
        max_th,
        w_q,
        max_p,
        gentle: flag(params, "gentle", defaults.gentle)?,
        adaptive: flag(params, "adaptive", defaults.adaptive)?,
        byte_mode: flag(params, "byte_mode", defaults.byte_mode)?,
        mean_packet_bytes,
        ecn: flag(params, "ecn", defaults.ecn)?,
    })
}

/// A finite number, if the key is present.
fn number(section: &Section, key: &str) -> Result<Option<f64>, ScenarioError> {
    match section.get(key) {
        None => Ok(None),
        Some(value) => match as_f64(value) {
            Some(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(section.invalid(key, "must be a number")),
        },
    }
}

/// CoDel's `target` and `interval` (RFC 8289 §4.3–4.4): both positive, the target below the
/// interval (the RFC sets it at 5–10 % of the interval).
fn codel_times(
    params: &Section,
    default_target: SimDuration,
    default_interval: SimDuration,
) -> Result<(SimDuration, SimDuration), ScenarioError> {
    let target = positive_duration(params, "target", default_target)?;
    let interval = positive_duration(params, "interval", default_interval)?;
    if target >= interval {
        return Err(params.invalid(
            "target",
            &format!("{target} must be shorter than the interval ({interval})"),
        ));
    }
    Ok((target, interval))
}

/// `codel`: target, interval, ecn.
fn codel(params: &Section) -> Result<CodelConfig, ScenarioError> {
    params.allow_only(&["kind", "target", "interval", "ecn"])?;
    let default = CodelConfig::default();
    let (target, interval) = codel_times(params, default.target, default.interval)?;
    Ok(CodelConfig {
        target,
        interval,
        ecn: flag(params, "ecn", default.ecn)?,
    })
}

/// `fq_codel`: flows, quantum, target, interval, ecn. Linux bounds: 1 to 65536 flow queues,
/// a quantum of at least 256 bytes; the quantum is capped at 1 MB here (a quantum far above
/// a packet turns DRR into plain round robin of bursts).
fn fq_codel(params: &Section) -> Result<FqCodelConfig, ScenarioError> {
    params.allow_only(&["kind", "flows", "quantum", "target", "interval", "ecn"])?;
    let default = FqCodelConfig::default();
    let flows = params.integer_or("flows", default.flows as i64, 1, 65_536)? as u32;
    let quantum = params.integer_or("quantum", default.quantum as i64, 256, 1 << 20)? as u32;
    let (target, interval) = codel_times(params, default.target, default.interval)?;
    Ok(FqCodelConfig {
        flows,
        quantum,
        target,
        interval,
        ecn: flag(params, "ecn", default.ecn)?,
    })
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
