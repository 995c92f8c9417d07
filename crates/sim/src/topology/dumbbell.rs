//! The dumbbell: senders S_i – access – router L – bottleneck – router R – access – receivers
//! R_i. The bottleneck is a duplex link, one [`Link`] per direction ("bottleneck" left to
//! right, "bottleneck-reverse" back, with its own rate, delay, buffer and queue when the
//! scenario gives `bottleneck.reverse`); every flow has its own pair of access links on each
//! side (one per direction), so flows meet only at the bottleneck. A `direction = "reverse"`
//! flow sends from the right: its data takes "bottleneck-reverse", its ACKs "bottleneck".
//!
//! Links are created in the order every earlier version created them (the bottleneck, its
//! reverse direction, then per flow: sender up, sender down, receiver down, receiver up), with
//! the same random streams, so that a drop-tail dumbbell runs exactly as before.

use cclab_cc::SimDuration;
use cclab_scenario::{
    Direction, Dumbbell, Link as LinkConfig, LinkKind, LossModel, Scenario, WifiConfig, bdp_bytes,
};

use crate::net::jitter::JitterProcess;
use crate::net::link::Link;
use crate::net::loss::LossProcess;
use crate::net::network::{LinkRole, Network};
use crate::net::qdisc::{Qdisc, QdiscEnv};
use crate::net::wifi::{Medium, WifiQueue};
use crate::rng::Rng;
use crate::topology::{buffer_limit, trace_transmitter};

/// Link ids of the two bottleneck directions.
pub const BOTTLENECK: u32 = 0;
pub const BOTTLENECK_REVERSE: u32 = 1;

/// Links on each path: access, bottleneck, access.
const HOPS: usize = 3;

pub fn build(scenario: &Scenario, topology: &Dumbbell) -> Network {
    let access_limit = buffer_limit(scenario, topology.access.buffer);
    let no_loss = || LossProcess::new(LossModel::None, Rng::for_component(scenario.seed, ""));
    let flow_count = scenario.flow_count();
    let mut network = Network::with_capacity(2 + 4 * flow_count, flow_count, 2 * HOPS * flow_count);
    match &topology.bottleneck.kind {
        LinkKind::Wifi(config) => add_wifi_bottleneck(&mut network, scenario, topology, config),
        _ => add_wired_bottleneck(&mut network, scenario, topology),
    }

    let mut id = 0u32;
    for group in &scenario.flows {
        // extra_rtt goes on the sender's access link, half in each direction.
        let extra_forward = SimDuration::from_nanos(group.extra_rtt.as_nanos().div_ceil(2));
        let extra_reverse = group.extra_rtt - extra_forward;
        for _ in 0..group.count {
            let mut access = |name: &str, extra: SimDuration, role: LinkRole| {
                network.add_link(
                    super::access_link(
                        || format!("flow{id}-{name}"),
                        topology.access.rate_bps,
                        topology.access.delay + extra,
                        access_limit,
                        no_loss,
                    ),
                    role,
                )
            };
            let sender_up = access("sender-up", extra_forward, LinkRole::SenderAccess);
            let sender_down = access("sender-down", extra_reverse, LinkRole::SenderAccess);
            let receiver_down =
                access("receiver-down", SimDuration::ZERO, LinkRole::ReceiverAccess);
            let receiver_up = access("receiver-up", SimDuration::ZERO, LinkRole::ReceiverAccess);
            // A reverse flow's sender is on the right: its data crosses the bottleneck's
            // reverse direction, its ACKs the forward one.
            let (data, ack) = match group.direction {
                Direction::Forward => (BOTTLENECK, BOTTLENECK_REVERSE),
                Direction::Reverse => (BOTTLENECK_REVERSE, BOTTLENECK),
            };
            network.add_flow(
                &[sender_up, data, receiver_down],
                &[receiver_up, ack, sender_down],
            );
            id += 1;
        }
    }
    network
}

/// The bottleneck's two directions as wires of fixed rate, each with its queue.
fn add_wired_bottleneck(network: &mut Network, scenario: &Scenario, topology: &Dumbbell) {
    let bottleneck_limit = buffer_limit(scenario, topology.bottleneck.buffer);
    let qdisc = Qdisc::build(
        &topology.bottleneck.queue,
        topology.bottleneck.ecn_threshold,
        QdiscEnv {
            limit: bottleneck_limit,
            rate_bps: topology.bottleneck.rate_bps,
            packet_bytes: scenario.packet_bytes(),
            rng: Rng::for_component(scenario.seed, "bottleneck-qdisc"),
        },
    );
    // `loss` and `ack_loss` apply to the packets crossing the bottleneck in either direction:
    // each direction runs both, on streams named after it.
    let bottleneck_loss =
        |name: &str| LossProcess::for_link(scenario.seed, name, &topology.bottleneck);
    let (forward_data_loss, forward_ack_loss) = bottleneck_loss("bottleneck");
    let (reverse_data_loss, reverse_ack_loss) = bottleneck_loss("bottleneck-reverse");
    // Jitter likewise delays the packets of both directions, each on its own stream.
    let bottleneck_jitter =
        |name: &str| JitterProcess::for_link(scenario.seed, name, &topology.bottleneck);
    let bottleneck = network.add_link(
        Link::new(
            "bottleneck".into(),
            topology.bottleneck.rate_bps,
            topology.bottleneck.delay,
            bottleneck_limit,
            forward_data_loss,
            forward_ack_loss,
        )
        .track_queue_time()
        .with_qdisc(qdisc)
        .with_jitter(bottleneck_jitter("bottleneck"))
        .with_trace(trace_transmitter(&topology.bottleneck, false)),
        LinkRole::Core,
    );
    let carries_data = scenario
        .flows
        .iter()
        .any(|g| g.direction == Direction::Reverse);
    let reverse = match &topology.reverse {
        // Today's reverse link: built exactly as before `reverse` existed.
        None => Link::new(
            "bottleneck-reverse".into(),
            topology.bottleneck.rate_bps,
            topology.bottleneck.delay,
            bottleneck_limit,
            reverse_data_loss,
            reverse_ack_loss,
        )
        .with_jitter(bottleneck_jitter("bottleneck-reverse"))
        .with_trace(trace_transmitter(&topology.bottleneck, true)),
        // The bottleneck's `loss`, `ack_loss` and `jitter` apply to both directions. Its own rate, delay, buffer and queue; a BDP buffer is its own rate × base RTT.
        Some(config) => {
            let (packets, bytes) = scenario.buffer_limit_at(
                config.buffer,
                bdp_bytes(config.rate_bps, scenario.base_rtt()),
            );
            let limit = crate::net::qdisc::BufferLimit { packets, bytes };
            Link::new(
                "bottleneck-reverse".into(),
                config.rate_bps,
                config.delay,
                limit,
                reverse_data_loss,
                reverse_ack_loss,
            )
            .with_jitter(bottleneck_jitter("bottleneck-reverse"))
            .with_qdisc(Qdisc::build(
                &config.queue,
                config.ecn_threshold,
                QdiscEnv {
                    limit,
                    rate_bps: config.rate_bps,
                    packet_bytes: scenario.packet_bytes(),
                    rng: Rng::for_component(scenario.seed, "bottleneck-reverse-qdisc"),
                },
            ))
        }
    };
    let reported_reverse = topology.reverse.is_some() || carries_data;
    let reverse = network.add_link(
        if reported_reverse {
            reverse.track_queue_time()
        } else {
            reverse
        },
        LinkRole::Core,
    );
    debug_assert_eq!((bottleneck, reverse), (BOTTLENECK, BOTTLENECK_REVERSE));
    network.report(BOTTLENECK);
    // Reported when it is configured or carries data: old scenarios keep one link.
    if reported_reverse {
        network.report(BOTTLENECK_REVERSE);
    }
}

/// The bottleneck as a Wi-Fi link: its two directions (the access point's frames forward,
/// the station's back) are links whose queues the shared medium serves (`net::wifi`). Each
/// has the bottleneck's queue and buffer, or the station's own from `bottleneck.reverse`;
/// both are reported.
fn add_wifi_bottleneck(
    network: &mut Network,
    scenario: &Scenario,
    topology: &Dumbbell,
    config: &WifiConfig,
) {
    let direction = |name: &str, link: &LinkConfig| {
        let (packets, bytes) =
            scenario.buffer_limit_at(link.buffer, bdp_bytes(link.rate_bps, scenario.base_rtt()));
        let limit = crate::net::qdisc::BufferLimit { packets, bytes };
        let qdisc = Qdisc::build(
            &link.queue,
            link.ecn_threshold,
            QdiscEnv {
                limit,
                rate_bps: link.rate_bps,
                packet_bytes: scenario.packet_bytes(),
                rng: Rng::for_component(scenario.seed, &format!("{name}-qdisc")),
            },
        );
        let no_loss = || LossProcess::new(LossModel::None, Rng::for_component(scenario.seed, ""));
        Link::new(
            name.into(),
            link.rate_bps,
            link.delay,
            limit,
            no_loss(),
            no_loss(),
        )
        .track_queue_time()
        .with_wifi(WifiQueue::new(qdisc, limit, config))
    };
    let reverse = topology.reverse.as_ref().unwrap_or(&topology.bottleneck);
    let ap = network.add_link(
        direction("bottleneck", &topology.bottleneck),
        LinkRole::Core,
    );
    let station = network.add_link(direction("bottleneck-reverse", reverse), LinkRole::Core);
    debug_assert_eq!((ap, station), (BOTTLENECK, BOTTLENECK_REVERSE));
    network.report(BOTTLENECK);
    network.report(BOTTLENECK_REVERSE);
    network.wifi = Some(Box::new(Medium::new(
        config.clone(),
        BOTTLENECK,
        BOTTLENECK_REVERSE,
        Rng::for_component(scenario.seed, "wifi-medium"),
    )));
}
