//! A scenario checked for what emulation can run, and turned into what to run: the two
//! directions of the bottleneck (the simulator's links, built as the simulator builds a
//! dumbbell's) and the flows (kernel TCP connections).
//!
//! What the first version runs: a dumbbell with a wired bottleneck, any queue discipline,
//! random loss, TCP flows in the forward direction with bulk or finite sizes and start
//! times. Each side's access links add their delay (as propagation, both directions); at the
//! rates of access links their serialization time is left out. Everything else is refused
//! with one sentence naming the key.

use cclab_cc::SimDuration;
use cclab_scenario::{Direction, EcnMode, FlowKind, LinkKind, Scenario, Topology};
use cclab_sim::net::link::Link;
use cclab_sim::net::loss::LossProcess;
use cclab_sim::net::qdisc::{BufferLimit, Qdisc, QdiscEnv};
use cclab_sim::rng::Rng;

use crate::endpoint::FlowSpec;
use crate::error::EmuError;
use crate::preflight::kernel_name;

/// First port of the flows: flow `i` listens on `BASE_PORT + i`.
pub const BASE_PORT: u16 = 5000;

pub struct Plan {
    pub forward: Link,
    pub reverse: Link,
    pub flows: Vec<FlowSpec>,
    /// The flows' cclab names of their `cc`, by flow id (for summary.json).
    pub cc_names: Vec<String>,
    /// The IP MTU of both hosts: MSS plus headers, so that the kernel's segments are the
    /// scenario's packets.
    pub mtu: u64,
    pub duration: SimDuration,
    pub interval: SimDuration,
    /// The sender host asks for ECN (`net.ipv4.tcp_ecn = 1`, RFC 3168); a sysctl of the
    /// namespace, so all flows agree.
    pub ecn: bool,
}

fn unsupported(key: &str, why: &str) -> EmuError {
    EmuError::Unsupported(format!("{key}: {why}"))
}

/// Check `scenario` and build its plan; `available`: the kernel's congestion controls.
pub fn plan(scenario: &Scenario, available: &[String]) -> Result<Plan, EmuError> {
    let Topology::Dumbbell(dumbbell) = &scenario.topology else {
        return Err(unsupported(
            "topology",
            "emulation runs a dumbbell only (parking lots and graphs are not emulated yet)",
        ));
    };
    let bottleneck = &dumbbell.bottleneck;
    if !matches!(bottleneck.kind, LinkKind::Wired) {
        return Err(unsupported(
            "topology.bottleneck.kind",
            &format!(
                "emulation runs a wired bottleneck only, not {}",
                bottleneck.kind.name()
            ),
        ));
    }
    if bottleneck.jitter.is_some() {
        return Err(unsupported(
            "topology.bottleneck.jitter",
            "jitter is not emulated yet",
        ));
    }
    let first = &scenario.flows[0];
    let mut flows = Vec::new();
    let mut cc_names = Vec::new();
    for (index, group) in scenario.flows.iter().enumerate() {
        let key = |k: &str| format!("flows.{index}.{k}");
        if !matches!(group.kind, FlowKind::Tcp) {
            return Err(unsupported(&key("kind"), "emulation runs TCP flows only"));
        }
        if group.on_off.is_some() {
            return Err(unsupported(
                &key("on_off"),
                "on-off applications are not emulated yet",
            ));
        }
        if group.direction != Direction::Forward {
            return Err(unsupported(
                &key("direction"),
                "reverse flows are not emulated yet",
            ));
        }
        if !group.extra_rtt.is_zero() {
            return Err(unsupported(
                &key("extra_rtt"),
                "per-flow RTTs are not emulated yet (all flows share one sender host)",
            ));
        }
        if !group.start_jitter.is_zero() {
            return Err(unsupported(
                &key("start_jitter"),
                "start jitter is not emulated yet",
            ));
        }
        if !group.drop.is_empty() {
            return Err(unsupported(
                &key("drop"),
                "forced drops are not emulated yet",
            ));
        }
        if group.ecn == EcnMode::L4s {
            return Err(unsupported(
                &key("ecn"),
                "the kernel's TCP has no L4S (ECT(1)) sender; use ecn = true or false",
            ));
        }
        if group.ecn != first.ecn {
            return Err(unsupported(
                &key("ecn"),
                "all flows share the sender host's net.ipv4.tcp_ecn, so their ecn must be the same",
            ));
        }
        if group.mss != first.mss || group.header_bytes != first.header_bytes {
            return Err(unsupported(
                &key("mss"),
                "all flows share one host MTU, so their mss and header_bytes must be the same",
            ));
        }
        let Some(kernel_cc) = kernel_name(group.cc.name, available) else {
            return Err(unsupported(
                &key("cc"),
                &format!(
                    "the kernel does not offer {} (it offers {}; see /proc/sys/net/ipv4/tcp_available_congestion_control)",
                    group.cc.name,
                    available.join(", ")
                ),
            ));
        };
        for _ in 0..group.count {
            let id = flows.len() as u32;
            flows.push(FlowSpec {
                id,
                port: BASE_PORT + id as u16,
                cc: kernel_cc.to_string(),
                start_ns: group.start.as_nanos(),
                size: group.size,
            });
            cc_names.push(group.cc.name.to_string());
        }
    }
    if flows.len() > 1000 {
        return Err(unsupported("flows", "emulation runs at most 1000 flows"));
    }
    // Access links on both sides: their propagation delay, in each direction.
    let access = dumbbell.access.delay * 2;
    let forward_limit = limit(scenario.buffer_limit(bottleneck.buffer));
    let (data_loss, ack_loss) = LossProcess::for_link(scenario.seed, "bottleneck", bottleneck);
    let forward = Link::new(
        "bottleneck".into(),
        bottleneck.rate_bps,
        bottleneck.delay + access,
        forward_limit,
        data_loss,
        ack_loss,
    )
    .track_queue_time()
    .with_qdisc(Qdisc::build(
        &bottleneck.queue,
        bottleneck.ecn_threshold,
        QdiscEnv {
            limit: forward_limit,
            rate_bps: bottleneck.rate_bps,
            packet_bytes: scenario.packet_bytes(),
            rng: Rng::for_component(scenario.seed, "bottleneck-qdisc"),
        },
    ));
    let reverse_config = dumbbell.reverse_link();
    let reverse_limit = limit(scenario.buffer_limit_at(
        reverse_config.buffer,
        cclab_scenario::bdp_bytes(reverse_config.rate_bps, scenario.base_rtt()),
    ));
    // The bottleneck's loss applies to both directions (as in the simulator's dumbbell).
    let (reverse_data_loss, reverse_ack_loss) =
        LossProcess::for_link(scenario.seed, "bottleneck-reverse", bottleneck);
    let reverse = Link::new(
        "bottleneck-reverse".into(),
        reverse_config.rate_bps,
        reverse_config.delay + access,
        reverse_limit,
        reverse_data_loss,
        reverse_ack_loss,
    )
    .with_qdisc(Qdisc::build(
        &reverse_config.queue,
        reverse_config.ecn_threshold,
        QdiscEnv {
            limit: reverse_limit,
            rate_bps: reverse_config.rate_bps,
            packet_bytes: scenario.packet_bytes(),
            rng: Rng::for_component(scenario.seed, "bottleneck-reverse-qdisc"),
        },
    ));
    Ok(Plan {
        forward,
        reverse,
        flows,
        cc_names,
        mtu: first.mss + first.header_bytes,
        duration: scenario.duration,
        interval: scenario.output.interval,
        ecn: first.ecn == EcnMode::Classic,
    })
}

fn limit((packets, bytes): (Option<u64>, Option<u64>)) -> BufferLimit {
    BufferLimit { packets, bytes }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(text: &str) -> Scenario {
        cclab_scenario::from_str("test.toml", text, &[]).expect("a valid scenario")
    }

    const DUMBBELL: &str = r#"
        name = "t"
        duration = "10s"
        [topology]
        bottleneck = { rate = "20Mbps", delay = "18ms", buffer = "1bdp" }
        access = { rate = "1Gbps", delay = "1ms" }
        [[flows]]
        cc = "cubic"
        count = 2
        start = "1s"
        size = "1MB"
    "#;

    fn kernel() -> Vec<String> {
        ["reno", "bbr", "cubic"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn a_dumbbell_becomes_two_links_and_kernel_flows() {
        let plan = plan(&scenario(DUMBBELL), &kernel()).expect("emulable");
        // One-way delay: bottleneck 18 ms + two access links of 1 ms (base RTT 40 ms).
        assert_eq!(plan.forward.delay(), SimDuration::from_millis(20));
        assert_eq!(plan.reverse.delay(), SimDuration::from_millis(20));
        assert_eq!(plan.forward.rate_bps(), 20_000_000);
        assert_eq!(plan.flows.len(), 2);
        assert_eq!(plan.flows[1].port, BASE_PORT + 1);
        assert_eq!(plan.flows[0].cc, "cubic");
        assert_eq!(plan.flows[0].start_ns, 1_000_000_000);
        assert_eq!(plan.flows[0].size, Some(1_000_000));
        // Default mss 1448 + header_bytes 52 (docs/scenarios.md).
        assert_eq!(plan.mtu, 1500);
    }

    #[test]
    fn a_controller_the_kernel_lacks_is_refused_with_the_kernels_list() {
        let text = DUMBBELL.replace("cubic", "vegas");
        let Err(error) = plan(&scenario(&text), &kernel()) else {
            panic!("vegas is not in the kernel's list");
        };
        assert_eq!(
            error.to_string(),
            "flows.0.cc: the kernel does not offer vegas (it offers reno, bbr, cubic; see /proc/sys/net/ipv4/tcp_available_congestion_control)"
        );
    }

    #[test]
    fn ecn_is_one_switch_of_the_sender_host() {
        let with_ecn = DUMBBELL.replace("count = 2", "count = 2\n        ecn = true");
        assert!(plan(&scenario(&with_ecn), &kernel()).expect("emulable").ecn);
        assert!(!plan(&scenario(DUMBBELL), &kernel()).expect("emulable").ecn);
        let mixed = format!("{with_ecn}\n        [[flows]]\n        cc = \"cubic\"\n");
        let Err(error) = plan(&scenario(&mixed), &kernel()) else {
            panic!("flows with and without ECN share one sysctl");
        };
        assert!(error.to_string().starts_with("flows.1.ecn: "), "{error}");
    }
}
