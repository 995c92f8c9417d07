//! TOML → [`Scenario`], with one-sentence errors that name the file and the key.
//!
//! The file is read as a plain TOML table and walked section by section, so that every
//! unknown key (a typo) is reported with its full path and a suggestion, and every value is
//! checked with the units and ranges that key allows.

use cclab_cc::params::did_you_mean;
use cclab_cc::registry::{InitialSsthreshUse, find_algorithm, find_slow_start};
use cclab_cc::{ParamInput, Params, SimDuration, SimTime};
use toml::{Table, Value};

use crate::error::ScenarioError;
use crate::link_kind::LinkKind;
use crate::model::*;
use crate::network::*;
use crate::traffic::FlowKind;
use crate::traffic::udp::UDP_HEADER_BYTES;
use crate::units::{parse_bdp_multiple, parse_bytes, parse_rate};

mod connection;
mod link_kind;
mod linux_controllers;
mod loss;
mod on_off;
mod pcap;
mod queue;
mod recovery;
mod section;
mod send_buffer;
mod sharing;
mod stack;
mod topology;
mod trace;
mod traffic;
mod udp;
mod undo;
mod wifi;
mod workload;

use section::Section;

/// Validate a whole scenario table. `file` names the source in messages.
pub fn scenario_from_table(file: &str, root: &Table) -> Result<Scenario, ScenarioError> {
    let root = Section {
        file,
        path: String::new(),
        table: root,
    };
    if root.get("sweep").is_some() {
        return Err(root.invalid(
            "sweep",
            "this is a sweep file; run it with `cclab sweep`, validate it with `cclab check`",
        ));
    }
    root.allow_only(&["name", "duration", "seed", "topology", "flows", "output"])?;

    let name = match root.get("name") {
        None => {
            let name = default_name(file);
            if let Err(problem) = check_name(&name) {
                return Err(root.invalid(
                    "name",
                    &format!(
                        "the file name `{name}` {problem}, so it cannot name the output folder; set name = \"...\" \
                         ({NAME_RULE})"
                    ),
                ));
            }
            name
        }
        Some(Value::String(s)) => {
            check_name(s).map_err(|problem| {
                root.invalid(
                    "name",
                    &format!("`{s}` {problem}; the name is the output folder's ({NAME_RULE})"),
                )
            })?;
            s.clone()
        }
        Some(_) => return Err(root.invalid("name", &format!("must be a string ({NAME_RULE})"))),
    };
    let duration = root.duration_or("duration", "60s")?;
    if duration.is_zero() {
        return Err(root.invalid("duration", "must be longer than zero"));
    }
    let seed = match root.get("seed") {
        None => Some(1),
        Some(Value::Integer(i)) => u64::try_from(*i).ok(),
        // TOML integers stop at 2^63 - 1; the rest of the u64 range comes as a string.
        Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
        Some(_) => None,
    }
    .ok_or_else(|| root.invalid("seed", SEED_RANGE))?;

    let topology = topology::topology(
        &root
            .section("topology")?
            .unwrap_or_else(|| root.empty("topology")),
    )?;

    let flows = match root.get("flows") {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Table(t) => flow_group(
                    &Section {
                        file,
                        path: format!("flows.{i}"),
                        table: t,
                    },
                    &topology,
                ),
                _ => Err(root.invalid(&format!("flows.{i}"), "must be a table ([[flows]])")),
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(Value::Array(_)) | None => {
            return Err(root.invalid(
                "flows",
                "no flows; add at least one [[flows]] table with a `cc` key",
            ));
        }
        Some(_) => return Err(root.invalid("flows", "must be an array of [[flows]] tables")),
    };

    let output_section = root
        .section("output")?
        .unwrap_or_else(|| root.empty("output"));
    let mut output = output(&output_section, flows.iter().map(|g| g.count as u64).sum())?;
    output.pcap = pcap::pcap_points(&output_section, &topology, &flows)?;
    output.pcap_payload = pcap::pcap_payload(&output_section)?;

    // summary.json's flows[] lists the flows that exist from the start; the contract wants
    // at least one (docs/traffic.md, "Short-flow workloads").
    if flows.iter().all(|g| g.kind.workload().is_some()) {
        return Err(root.invalid(
            "flows",
            "only workloads; add a [[flows]] table of another kind beside them (e.g. a sized \
             reference transfer with cc and size = \"1MB\"): summary.json lists those flows",
        ));
    }

    let scenario = Scenario {
        name,
        source: file.to_string(),
        duration,
        seed,
        topology,
        flows,
        output,
    };
    check_buffers(&root, &scenario)?;
    check_starts(&root, &scenario)?;
    sharing::check_groups(&root, &scenario.flows)?;
    crate::resources::check_memory(&scenario)?;
    Ok(scenario)
}

/// What `seed` accepts, for messages.
pub(crate) const SEED_RANGE: &str = "must be an integer from 0 to 18446744073709551615 \
     (TOML integers stop at 9223372036854775807: write larger seeds as a string, \
     e.g. seed = \"18446744073709551615\")";

/// What `name` accepts, for messages.
const NAME_RULE: &str = "1 to 100 letters, digits, `.`, `-`, `_` or `+`, not starting with `.`";

/// `name` becomes the folder `out/<name>`: it must be one plain path component, so that it
/// cannot climb out of `out/` (`../x`), be absolute (`/srv/x`), be hidden or special (`.`,
/// `..`) or carry control characters into a folder name.
fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("is empty");
    }
    if name.chars().count() > 100 {
        return Err("is longer than 100 characters");
    }
    if name.starts_with('.') {
        return Err("starts with `.`");
    }
    if name.contains(['/', '\\']) {
        return Err("contains a path separator");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
    {
        return Err("has a character other than letters, digits, `.`, `-`, `_` and `+`");
    }
    Ok(())
}

/// A flow that starts at or after the end of the run never sends: its goodput would count
/// as zero in `jain_index` and its RTT as 0 ms. Reject it (with jitter: its latest start).
fn check_starts(root: &Section, scenario: &Scenario) -> Result<(), ScenarioError> {
    let end = SimTime::ZERO + scenario.duration;
    for (i, group) in scenario.flows.iter().enumerate() {
        if group.start >= end {
            return Err(root.invalid(
                &format!("flows.{i}.start"),
                &format!(
                    "{} is at or after the end of the run (duration {}); start the flows earlier or lengthen `duration`",
                    group.start - SimTime::ZERO,
                    scenario.duration
                ),
            ));
        }
        // The latest start is start + start_jitter - 1 ns.
        if group.start + group.start_jitter > end {
            return Err(root.invalid(
                &format!("flows.{i}.start_jitter"),
                &format!(
                    "start {} plus start_jitter {} reaches past the end of the run (duration {}); \
                     use a smaller jitter or an earlier start",
                    group.start - SimTime::ZERO,
                    group.start_jitter,
                    scenario.duration
                ),
            ));
        }
    }
    Ok(())
}

/// Default width of rate bins: 100 ms, rounded up to a whole number of sampling intervals.
const DEFAULT_RATE_INTERVAL_NS: u64 = 100_000_000;
/// Default convergence averaging window: 1 s, rounded up to a whole number of rate bins.
const DEFAULT_CONVERGENCE_WINDOW_NS: u64 = 1_000_000_000;

fn output(section: &Section, flow_count: u64) -> Result<Output, ScenarioError> {
    section.allow_only(&[
        "interval",
        "steady_from",
        "rate_interval",
        "convergence_window",
        "trace_packets",
        "pcap",
        "pcap_payload",
        "max_size",
    ])?;
    let interval = section.duration_or("interval", "10ms")?;
    if interval.is_zero() {
        return Err(section.invalid("interval", "must be longer than zero"));
    }
    // A window that starts at or after the end is empty (its metrics are null), not an
    // error: shortening a run with `--set duration=...` must keep its file valid.
    let steady_from = section.duration_or("steady_from", "0s")?;
    let rate_interval = match section.duration("rate_interval")? {
        Some(d) => {
            if d.is_zero() || !d.as_nanos().is_multiple_of(interval.as_nanos()) {
                return Err(section.invalid(
                    "rate_interval",
                    &format!(
                        "must be a whole multiple of `interval` ({interval}), e.g. 10 x {interval}"
                    ),
                ));
            }
            d
        }
        None => SimDuration::from_nanos(
            DEFAULT_RATE_INTERVAL_NS.div_ceil(interval.as_nanos()) * interval.as_nanos(),
        ),
    };
    let convergence_window = match section.duration("convergence_window")? {
        Some(d) => {
            if d.is_zero() || !d.as_nanos().is_multiple_of(rate_interval.as_nanos()) {
                return Err(section.invalid(
                    "convergence_window",
                    &format!(
                        "must be a whole multiple of `rate_interval` ({rate_interval}), e.g. 10 x {rate_interval}"
                    ),
                ));
            }
            d
        }
        None => SimDuration::from_nanos(
            DEFAULT_CONVERGENCE_WINDOW_NS.div_ceil(rate_interval.as_nanos())
                * rate_interval.as_nanos(),
        ),
    };
    let trace_packets = match section.get("trace_packets") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::Integer(i) if (0..flow_count as i64).contains(i) => Ok(*i as u32),
                Value::Integer(i) => Err(section.invalid(
                    "trace_packets",
                    &format!(
                        "flow {i} does not exist; flows are numbered 0 to {}",
                        flow_count - 1
                    ),
                )),
                _ => Err(section.invalid("trace_packets", "must be a list of flow ids, e.g. [0]")),
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => {
            return Err(section.invalid("trace_packets", "must be a list of flow ids, e.g. [0]"));
        }
    };
    let max_size = match section.get("max_size") {
        None => Some(MAX_OUTPUT_DEFAULT),
        Some(Value::String(s)) if s == "unlimited" => None,
        Some(Value::String(s)) => {
            Some(parse_bytes(s).map_err(|m| section.invalid("max_size", &m))?)
        }
        Some(_) => {
            return Err(section.invalid(
                "max_size",
                "must be a size such as \"10GiB\" or \"unlimited\"",
            ));
        }
    };
    Ok(Output {
        interval,
        steady_from,
        rate_interval,
        convergence_window,
        trace_packets,
        pcap: Vec::new(),
        pcap_payload: false,
        max_size,
    })
}

/// The file stem, the default scenario name.
fn default_name(file: &str) -> String {
    std::path::Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("scenario")
        .to_string()
}

/// Access links default to ten times the bottleneck rate, no delay and no buffer limit.
pub(super) fn default_access(bottleneck: &Link) -> Link {
    Link {
        kind: LinkKind::Wired,
        rate_bps: bottleneck.rate_bps.saturating_mul(10),
        delay: SimDuration::ZERO,
        queue: QueueDiscipline::DropTail,
        buffer: Buffer::Unlimited,
        loss: LossModel::None,
        ack_loss: LossModel::None,
        jitter: None,
        ecn_threshold: None,
    }
}

/// A link table. `bottleneck` is `Some` for access links, whose defaults derive from it.
pub(super) fn link(section: &Section, bottleneck: Option<&Link>) -> Result<Link, ScenarioError> {
    // Random loss and ECN marking are properties of the shared bottleneck only.
    // A shared link may be a Wi-Fi medium or a trace, with the keys of its kind.
    if bottleneck.is_none() {
        let mut known = vec![
            "rate",
            "delay",
            "queue",
            "buffer",
            "loss",
            "ack_loss",
            "jitter",
            "ecn_threshold",
        ];
        let kind = link_kind::kind_name(section)?;
        known.extend_from_slice(link_kind::extra_keys(kind));
        if kind == "wired" {
            known.push("preset");
        }
        section.allow_only(&known)?;
    } else {
        section.allow_only(&["rate", "delay", "queue", "buffer"])?;
    }
    if bottleneck.is_none()
        && let Some(table) = path_preset(section)?
    {
        return link(
            &Section {
                file: section.file,
                path: section.path.clone(),
                table: &table,
            },
            None,
        );
    }
    let kind = link_kind::link_kind(section)?;
    let defaults = bottleneck.map(default_access);
    let rate_bps = match (section.get("rate"), &defaults, &kind) {
        // A trace's rate is what its opportunities offer.
        (None, None, LinkKind::Trace(trace)) => trace.forward.mean_rate_bps(),
        (Some(_), _, LinkKind::Trace(_)) => {
            return Err(section.invalid(
                "rate",
                "a trace link's rate is its trace's (the mean of its delivery opportunities); remove `rate`",
            ));
        }
        // A Wi-Fi link's nominal rate is its PHY rate (its kind refuses `rate`).
        (None, None, LinkKind::Wifi(wifi)) => wifi.phy_rate_bps,
        (None, Some(d), _) => d.rate_bps,
        (None, None, _) => {
            return Err(section.invalid("rate", "missing; write e.g. rate = \"100Mbps\""));
        }
        (Some(Value::String(s)), _, _) => parse_rate(s).map_err(|m| section.invalid("rate", &m))?,
        (Some(_), _, _) => {
            return Err(section.invalid("rate", "must be a string with a unit, e.g. \"100Mbps\""));
        }
    };
    let delay = match (section.get("delay"), &defaults) {
        (None, Some(d)) => d.delay,
        (None, None) => {
            return Err(section.invalid("delay", "missing; write e.g. delay = \"30ms\""));
        }
        (Some(_), _) => section.duration("delay")?.expect("the key is present"),
    };
    let queue = queue::queue(section)?;
    // Access links are per flow (four each): a discipline there would be a per-host qdisc,
    // which cclab does not model, so it is refused rather than silently ignored.
    if bottleneck.is_some() && queue != QueueDiscipline::DropTail {
        return Err(section.invalid(
            "queue",
            &format!(
                "access links are drop-tail; `{}` can go on a bottleneck or topology link",
                queue.name()
            ),
        ));
    }
    let buffer = match section.get("buffer") {
        None => defaults.as_ref().map_or(Buffer::Bdp(1.0), |d| d.buffer),
        Some(Value::Integer(p)) if *p > 0 => Buffer::Packets(*p as u64),
        Some(Value::Integer(_)) => {
            return Err(section.invalid("buffer", "must hold at least one packet"));
        }
        Some(Value::String(s)) if s == "unlimited" => Buffer::Unlimited,
        Some(Value::String(s)) => match parse_bdp_multiple(s) {
            Some(multiple) => Buffer::Bdp(multiple.map_err(|m| section.invalid("buffer", &m))?),
            None => {
                let bytes = parse_bytes(s).map_err(|m| {
                    section.invalid(
                        "buffer",
                        &format!("{m} (or packets as an integer, or \"1bdp\")"),
                    )
                })?;
                if bytes == 0 {
                    return Err(section.invalid("buffer", "must hold at least one packet"));
                }
                Buffer::Bytes(bytes)
            }
        },
        Some(_) => {
            return Err(section.invalid(
                "buffer",
                "must be packets (integer), bytes (\"150KB\") or a BDP multiple (\"1bdp\")",
            ));
        }
    };
    let loss = loss::loss(section, "loss")?;
    let ack_loss = loss::loss(section, "ack_loss")?;
    let jitter = loss::jitter(section)?;
    let ecn_threshold = match section.get("ecn_threshold") {
        None => None,
        Some(Value::Integer(k)) if *k >= 1 => Some(*k as u64),
        Some(_) => {
            return Err(section.invalid(
                "ecn_threshold",
                "must be a queue length in packets (integer, at least 1)",
            ));
        }
    };
    Ok(Link {
        kind,
        rate_bps,
        delay,
        queue,
        buffer,
        loss,
        ack_loss,
        jitter,
        ecn_threshold,
    })
}

/// A wired link table with `preset = "pantheon-..."`: the preset's keys, overridden by the
/// table's own (without `preset`). `None`: no preset (or one of another kind's, such as Wi-Fi's).
pub(super) fn path_preset(section: &Section) -> Result<Option<Table>, ScenarioError> {
    let Some(value) = section.get("preset") else {
        return Ok(None);
    };
    if link_kind::kind_name(section)? != "wired" {
        return Ok(None);
    }
    let names = || {
        crate::path_preset::PATH_PRESETS
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>()
    };
    let preset = match value {
        Value::String(name) => crate::path_preset::find_path_preset(name).ok_or_else(|| {
            let hint = did_you_mean(name, names())
                .map(|s| format!("did you mean \"{s}\"?"))
                .unwrap_or_else(|| format!("known: {}", names().join(", ")));
            section.invalid("preset", &format!("unknown path preset `{name}`; {hint}"))
        })?,
        _ => {
            return Err(section.invalid(
                "preset",
                &format!("must be a preset name: {}", names().join(", ")),
            ));
        }
    };
    let mut table = preset.keys();
    for (key, value) in section.table {
        if key != "preset" {
            table.insert(key.clone(), value.clone());
        }
    }
    Ok(Some(table))
}

/// A byte buffer smaller than one packet, or a BDP multiple that rounds to no packet, would
/// drop everything: reject it here, where the packet size is known.
fn check_buffers(root: &Section, scenario: &Scenario) -> Result<(), ScenarioError> {
    let packet = scenario.packet_bytes();
    let too_small = |key: &str, bytes: u64| {
        Err(root.invalid(
            key,
            &format!("{bytes} bytes cannot hold one {packet}-byte packet"),
        ))
    };
    match &scenario.topology {
        Topology::Dumbbell(d) => {
            if let Some(Buffer::Bytes(bytes)) = d.reverse.as_ref().map(|r| r.buffer)
                && bytes < packet
            {
                return too_small("topology.bottleneck.reverse.buffer", bytes);
            }
            match d.bottleneck.buffer {
                Buffer::Bytes(bytes) if bytes < packet => {
                    too_small("topology.bottleneck.buffer", bytes)
                }
                Buffer::Bdp(multiple)
                    if (scenario.bdp_bytes() as f64 * multiple) < packet as f64 / 2.0 =>
                {
                    Err(root.invalid(
                        "topology.bottleneck.buffer",
                        &format!(
                            "{multiple}bdp is less than half a packet (the BDP is {} bytes); give packets instead",
                            scenario.bdp_bytes()
                        ),
                    ))
                }
                _ => Ok(()),
            }
        }
        Topology::ParkingLot(p) => {
            for (i, hop) in p.hops.iter().enumerate() {
                if let Buffer::Bytes(bytes) = hop.buffer
                    && bytes < packet
                {
                    return too_small(&format!("topology.hop{}.buffer", i + 1), bytes);
                }
            }
            Ok(())
        }
        Topology::Graph(g) => {
            for (i, l) in g.links.iter().enumerate() {
                if let Buffer::Bytes(bytes) = l.link.buffer
                    && bytes < packet
                {
                    return too_small(&format!("topology.links.{i}.buffer"), bytes);
                }
            }
            Ok(())
        }
    }
}

const FLOW_KEYS: &[&str] = &[
    "kind",
    "on_off",
    "cc",
    "count",
    "start",
    "start_jitter",
    "size",
    "extra_rtt",
    "mss",
    "header_bytes",
    "initial_window",
    "initial_ssthresh",
    "slow_start",
    "slow_start_params",
    "recovery",
    "loss_detection",
    "limited_transmit",
    "lost_retransmission",
    "reduce_from",
    "prr_bound",
    "stack",
    "undo",
    "frto",
    "delayed_ack",
    "delayed_ack_timeout",
    "receive_window",
    "tcp_rmem",
    "scaling_ratio",
    "send_buffer",
    "send_buffer_accounting",
    "tcp_wmem",
    "small_queues",
    "handshake",
    "quick_ack",
    "drop_syn",
    "min_rto",
    "rto_estimator",
    "pacing",
    "ecn",
    "params",
    "drop",
    "direction",
    "route",
];

/// Keys only a workload takes.
const WORKLOAD_KEYS: &[&str] = &["load", "load_link", "sizes", "stop"];

/// Every key a flow table may have: [`FLOW_KEYS`], the TCB-sharing keys (parse/sharing.rs)
/// and the workload keys, in that order (the order `did you mean` suggestions break ties in).
fn all_flow_keys() -> Vec<&'static str> {
    [FLOW_KEYS, sharing::KEYS, WORKLOAD_KEYS].concat()
}

/// Whether `key` is a flow key of any kind.
fn is_flow_key(key: &str) -> bool {
    [FLOW_KEYS, sharing::KEYS, WORKLOAD_KEYS]
        .iter()
        .any(|keys| keys.contains(&key))
}

fn flow_group(section: &Section, topology: &Topology) -> Result<FlowGroup, ScenarioError> {
    // `stack` fills in the keys the table leaves out; everything below reads the result.
    let expanded = stack::expand(section)?;
    let with_stack;
    let section = match &expanded {
        Some(table) => {
            with_stack = Section {
                file: section.file,
                path: section.path.clone(),
                table,
            };
            &with_stack
        }
        None => section,
    };
    let is_udp = traffic::is_udp(section)?;
    udp::check_keys(section, is_udp)?;
    if !is_udp {
        section.allow_only(&all_flow_keys())?;
    }
    let cc_name = match section.get("cc") {
        Some(Value::String(s)) => s,
        Some(_) => return Err(section.invalid("cc", "must be an algorithm name such as \"cubic\"")),
        // A UDP flow has no controller: its group keeps the TCP fields' defaults, which
        // nothing reads (the simulator gives it a UDP source instead of TCP endpoints).
        None if is_udp => "reno",
        None => {
            return Err(section.invalid("cc", "missing; name an algorithm from `cclab algorithms`"));
        }
    };
    let cc = find_algorithm(cc_name).map_err(|e| section.invalid("cc", &e.to_string()))?;
    let params = params_table(section, "params", cc.params)?;

    let count = section.integer_or("count", 1, 1, 100_000)? as u32;
    let start = SimTime::ZERO + section.duration_or("start", "0s")?;
    let start_jitter = section.duration_or("start_jitter", "0s")?;
    let size = match section.get("size") {
        None => None,
        Some(Value::String(s)) if s == "unlimited" => None,
        Some(Value::Integer(b)) if *b > 0 => Some(*b as u64),
        Some(Value::String(s)) => match parse_bytes(s) {
            Ok(0) => return Err(section.invalid("size", "must be at least one byte")),
            Ok(b) => Some(b),
            Err(m) => return Err(section.invalid("size", &m)),
        },
        Some(_) => {
            return Err(section.invalid("size", "must be \"unlimited\" or a size such as \"1MB\""));
        }
    };
    let extra_rtt = section.duration_or("extra_rtt", "0ms")?;
    let mss = section.integer_or("mss", 1448, 64, 65_000)? as u64;
    let header_bytes = section.integer_or("header_bytes", 52, 0, 1000)? as u64;

    let initial_window = match section.get("initial_window") {
        None => 10 * mss,
        Some(Value::Integer(segments)) if (1..=1000).contains(segments) => *segments as u64 * mss,
        // RFC 3390: min(4*MSS, max(2*MSS, 4380 bytes)).
        Some(Value::String(s)) if s == "rfc3390" => (4 * mss).min((2 * mss).max(4380)),
        // RFC 6928: min(10*MSS, max(2*MSS, 14600 bytes)).
        Some(Value::String(s)) if s == "rfc6928" => (10 * mss).min((2 * mss).max(14600)),
        Some(_) => {
            return Err(section.invalid(
                "initial_window",
                "must be segments (1 to 1000), \"rfc3390\" or \"rfc6928\"",
            ));
        }
    };
    let initial_ssthresh = match section.get("initial_ssthresh") {
        None => InitialSsthresh::Unlimited,
        Some(Value::String(s)) if s == "unlimited" => InitialSsthresh::Unlimited,
        Some(Value::String(s)) if s == "packet-pair" => InitialSsthresh::PacketPair,
        Some(Value::Integer(segments)) if *segments >= 2 => {
            InitialSsthresh::Bytes(*segments as u64 * mss)
        }
        Some(Value::String(s)) => match parse_bytes(s) {
            Ok(b) if b >= 2 * mss => InitialSsthresh::Bytes(b),
            Ok(_) => {
                return Err(section.invalid("initial_ssthresh", "must be at least 2 segments"));
            }
            Err(m) => return Err(section.invalid("initial_ssthresh", &m)),
        },
        Some(_) => {
            return Err(section.invalid(
                "initial_ssthresh",
                "must be \"unlimited\", \"packet-pair\", segments (integer, at least 2) or bytes (\"64KB\")",
            ));
        }
    };

    if cc.initial_ssthresh == InitialSsthreshUse::None
        && initial_ssthresh != InitialSsthresh::Unlimited
    {
        return Err(section.invalid(
            "initial_ssthresh",
            &format!("`{}` has no slow-start threshold; remove the key", cc.name),
        ));
    }
    if cc.initial_ssthresh != InitialSsthreshUse::GivenOrPacketPair
        && initial_ssthresh == InitialSsthresh::PacketPair
    {
        return Err(section.invalid(
            "initial_ssthresh",
            &format!(
                "`{}` has its own start-up, which does not take the packet-pair estimate; \
                 give segments or bytes",
                cc.name
            ),
        ));
    }
    let (slow_start, slow_start_shorthand) = match section.get("slow_start") {
        None => ("standard", None),
        Some(Value::String(s)) => match s.split_once(':') {
            Some((name, arg)) => (name, Some(arg)),
            None => (s.as_str(), None),
        },
        Some(_) => {
            return Err(section.invalid("slow_start", "must be a name such as \"standard\""));
        }
    };
    let slow_start =
        find_slow_start(slow_start).map_err(|e| section.invalid("slow_start", &e.to_string()))?;
    if !cc.uses_slow_start
        && (slow_start.name != "standard" || section.get("slow_start_params").is_some())
    {
        return Err(section.invalid(
            "slow_start",
            &format!(
                "`{}` has its own start-up and does not use a slow-start variant; remove the key",
                cc.name
            ),
        ));
    }
    let mut slow_start_params = params_table(section, "slow_start_params", slow_start.params)?;
    if let Some(arg) = slow_start_shorthand {
        let first = slow_start.params.first().ok_or_else(|| {
            section.invalid(
                "slow_start",
                &format!("`{}` takes no argument after `:`", slow_start.name),
            )
        })?;
        slow_start_params
            .set(first.name, &input_from_word(arg))
            .map_err(|e| section.invalid("slow_start", &e.to_string()))?;
    }

    let recovery = recovery::recovery(section, cc)?;
    let loss_detection = match section.get("loss_detection") {
        None => LossDetection::DupAck,
        Some(Value::String(s)) if s == "dupack" => LossDetection::DupAck,
        Some(Value::String(s)) if s == "rack-tlp" => LossDetection::RackTlp,
        Some(_) => {
            return Err(section.invalid("loss_detection", "must be \"dupack\" or \"rack-tlp\""));
        }
    };
    recovery::check_loss_detection(section, recovery, loss_detection)?;
    let limited_transmit = recovery::limited_transmit(section)?;
    let lost_retransmission = recovery::lost_retransmission(section)?;
    let reduce_from = recovery::reduce_from(section)?;
    let prr_bound = recovery::prr_bound(section)?;
    let (undo, frto) = undo::undo_and_frto(section)?;
    let delayed_ack_enabled = match section.get("delayed_ack") {
        None => true,
        Some(Value::Boolean(b)) => *b,
        Some(_) => return Err(section.invalid("delayed_ack", "must be true or false")),
    };
    let delayed_ack_timeout = section.duration_or("delayed_ack_timeout", "40ms")?;
    if delayed_ack_timeout.is_zero() {
        return Err(section.invalid("delayed_ack_timeout", "must be longer than zero"));
    }
    let receive_window = match section.get("receive_window") {
        None => None,
        Some(Value::String(s)) if s == "unlimited" => None,
        // The receiver advertises the window it tunes (`connection`).
        _ if connection::receive_window_is_auto(section) => None,
        Some(Value::Integer(segments)) if *segments >= 1 => Some(*segments as u64 * mss),
        Some(Value::String(s)) => Some(at_least_a_segment(section, "receive_window", s, mss)?),
        Some(_) => {
            return Err(section.invalid(
                "receive_window",
                "must be \"unlimited\", \"auto\", segments (integer) or bytes (\"64KB\")",
            ));
        }
    };
    let send_buffer = send_buffer::send_buffer(section, mss)?;
    // A host whose device orphans each packet (TUN) never lets TSQ hold the sender.
    let small_queues = match section.get("small_queues") {
        None => true,
        Some(Value::Boolean(b)) => *b,
        Some(_) => return Err(section.invalid("small_queues", "must be true or false")),
    };
    let min_rto = section.duration_or("min_rto", "200ms")?;
    if min_rto.is_zero() {
        return Err(section.invalid("min_rto", "must be longer than zero"));
    }
    let rto_estimator = match section.get("rto_estimator") {
        None => RtoEstimator::Rfc6298,
        Some(Value::String(s)) if s == "rfc6298" => RtoEstimator::Rfc6298,
        Some(Value::String(s)) if s == "linux" => RtoEstimator::Linux,
        Some(_) => {
            return Err(section.invalid("rto_estimator", "must be \"rfc6298\" or \"linux\""));
        }
    };
    let pacing = match section.get("pacing") {
        None => false,
        Some(Value::Boolean(b)) => *b,
        Some(_) => return Err(section.invalid("pacing", "must be true or false")),
    };
    let ecn = match section.get("ecn") {
        None | Some(Value::Boolean(false)) => EcnMode::Off,
        Some(Value::Boolean(true)) => EcnMode::Classic,
        Some(Value::String(s)) if s == "l4s" => EcnMode::L4s,
        Some(_) => {
            return Err(section.invalid(
                "ecn",
                "must be true or false, or \"l4s\" to send ECT(1), the L4S identifier",
            ));
        }
    };
    let drop = match section.get("drop") {
        None => Vec::new(),
        Some(Value::Array(items)) => {
            let mut indexes = items
                .iter()
                .map(|v| match v {
                    Value::Integer(i) if *i >= 0 => Ok(*i as u64),
                    _ => {
                        Err(section.invalid("drop", "must list segment indexes (integers from 0)"))
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            indexes.sort_unstable();
            indexes.dedup();
            indexes
        }
        Some(_) => {
            return Err(section.invalid("drop", "must be an array of segment indexes, e.g. [100]"));
        }
    };

    let (direction, route) = topology::flow_place(section, topology)?;
    let kind = traffic::flow_kind(section, topology, direction, route)?;
    if !matches!(kind, crate::traffic::FlowKind::Workload(_))
        && let Some(key) = WORKLOAD_KEYS.iter().find(|k| section.get(k).is_some())
    {
        return Err(section.invalid(
            key,
            "belongs to kind = \"workload\" (short flows arriving at random); add that kind or remove the key",
        ));
    }
    // A workload has no flows of its own before the run: they arrive during it.
    let (count, size) = match kind {
        crate::traffic::FlowKind::Workload(_) => (0, None),
        _ => (count, size),
    };
    let on_off = traffic::on_off(section)?;
    let connection = connection::connection_options(section, on_off.is_some())?;
    let sharing = sharing::sharing(section)?;
    // A UDP group's packet size as TCP's mss + headers, so that what reads a group's wire
    // and payload sizes (packet_bytes, fair shares) sees its packets.
    let (mss, header_bytes) = match &kind {
        FlowKind::Udp(udp) => (udp.payload_bytes() as u64, UDP_HEADER_BYTES as u64),
        _ => (mss, header_bytes),
    };
    Ok(FlowGroup {
        kind,
        on_off,
        direction,
        route,
        cc,
        params,
        count,
        start,
        start_jitter,
        size,
        extra_rtt,
        mss,
        header_bytes,
        initial_window,
        initial_ssthresh,
        slow_start,
        slow_start_params,
        recovery,
        loss_detection,
        limited_transmit,
        lost_retransmission,
        reduce_from,
        prr_bound,
        undo,
        frto,
        delayed_ack: delayed_ack_enabled.then_some(delayed_ack_timeout),
        receive_window,
        send_buffer,
        small_queues,
        connection,
        min_rto,
        rto_estimator,
        pacing,
        ecn,
        drop,
        sharing,
    })
}

/// `params = { beta = 0.7 }` checked against an algorithm's declarations.
fn params_table(
    section: &Section,
    key: &str,
    specs: &'static [cclab_cc::ParamSpec],
) -> Result<Params, ScenarioError> {
    let mut params = Params::defaults(specs);
    let Some(table) = section.section(key)? else {
        return Ok(params);
    };
    for (name, value) in table.table {
        let input = match value {
            Value::Integer(i) => ParamInput::Number(*i as f64),
            Value::Float(x) => ParamInput::Number(*x),
            Value::Boolean(b) => ParamInput::Bool(*b),
            Value::String(s) => ParamInput::Text(s.clone()),
            _ => return Err(table.invalid(name, "must be a number, true/false or a word")),
        };
        params
            .set(name, &input)
            .map_err(|e| table.invalid(name, &e.to_string()))?;
    }
    Ok(params)
}

/// The argument of `slow_start = "name:arg"`: a number, a boolean or a word.
fn input_from_word(word: &str) -> ParamInput {
    if let Ok(x) = word.parse::<f64>() {
        ParamInput::Number(x)
    } else if let Ok(b) = word.parse::<bool>() {
        ParamInput::Bool(b)
    } else {
        ParamInput::Text(word.to_string())
    }
}

/// A size in bytes (`"64KB"`) for a window or buffer `key`, which must hold at least one
/// segment of `mss` bytes.
fn at_least_a_segment(
    section: &Section,
    key: &str,
    text: &str,
    mss: u64,
) -> Result<u64, ScenarioError> {
    match parse_bytes(text) {
        Ok(bytes) if bytes >= mss => Ok(bytes),
        Ok(_) => Err(section.invalid(
            key,
            &format!("must hold at least one segment ({mss} bytes)"),
        )),
        Err(m) => Err(section.invalid(key, &m)),
    }
}
