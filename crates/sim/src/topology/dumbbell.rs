//! The dumbbell: senders S_i – access – router L – bottleneck – router R – access – receivers
//! R_i. The bottleneck is a duplex link, one [`Link`] per direction; every flow has its own
//! pair of access links on each side (one per direction), so flows meet only at the
//! bottleneck.
//!
//! Links are created in the order every earlier version created them (the bottleneck, its
//! reverse direction, then per flow: sender up, sender down, receiver down, receiver up), with
//! the same random streams, so that a drop-tail dumbbell runs exactly as before.

use cclab_cc::SimDuration;
use cclab_scenario::{Dumbbell, LossModel, Scenario};

use crate::net::jitter::JitterProcess;
use crate::net::link::Link;
use crate::net::loss::LossProcess;
use crate::net::network::{LinkRole, Network};
use crate::net::qdisc::{Qdisc, QdiscEnv};
use crate::rng::Rng;
use crate::topology::buffer_limit;

/// Link ids of the two bottleneck directions.
pub const BOTTLENECK: u32 = 0;
pub const BOTTLENECK_REVERSE: u32 = 1;

/// Links on each path: access, bottleneck, access.
const HOPS: usize = 3;

pub fn build(scenario: &Scenario, topology: &Dumbbell) -> Network {
    let bottleneck_limit = buffer_limit(scenario, topology.bottleneck.buffer);
    let access_limit = buffer_limit(scenario, topology.access.buffer);
    let no_loss = || LossProcess::new(LossModel::None, Rng::for_component(scenario.seed, ""));
    let flow_count = scenario.flow_count();
    let mut network = Network::with_capacity(2 + 4 * flow_count, flow_count, 2 * HOPS * flow_count);
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
        .with_jitter(bottleneck_jitter("bottleneck")),
        LinkRole::Core,
    );
    let reverse = network.add_link(
        Link::new(
            "bottleneck-reverse".into(),
            topology.bottleneck.rate_bps,
            topology.bottleneck.delay,
            bottleneck_limit,
            reverse_data_loss,
            reverse_ack_loss,
        )
        .with_jitter(bottleneck_jitter("bottleneck-reverse")),
        LinkRole::Core,
    );
    debug_assert_eq!((bottleneck, reverse), (BOTTLENECK, BOTTLENECK_REVERSE));
    network.report(BOTTLENECK);

    let mut id = 0u32;
    for group in &scenario.flows {
        // extra_rtt goes on the sender's access link, half in each direction.
        let extra_forward = SimDuration::from_nanos(group.extra_rtt.as_nanos().div_ceil(2));
        let extra_reverse = group.extra_rtt - extra_forward;
        for _ in 0..group.count {
            let mut access = |name: &str, extra: SimDuration, role: LinkRole| {
                network.add_link(
                    Link::new(
                        format!("flow{id}-{name}"),
                        topology.access.rate_bps,
                        topology.access.delay + extra,
                        access_limit,
                        no_loss(),
                        no_loss(),
                    ),
                    role,
                )
            };
            let sender_up = access("sender-up", extra_forward, LinkRole::SenderAccess);
            let sender_down = access("sender-down", extra_reverse, LinkRole::SenderAccess);
            let receiver_down =
                access("receiver-down", SimDuration::ZERO, LinkRole::ReceiverAccess);
            let receiver_up = access("receiver-up", SimDuration::ZERO, LinkRole::ReceiverAccess);
            network.add_flow(
                &[sender_up, BOTTLENECK, receiver_down],
                &[receiver_up, BOTTLENECK_REVERSE, sender_down],
            );
            id += 1;
        }
    }
    network
}
