//! A TCP connection's two endpoints built from a flow group's settings: the sender with its
//! controller and slow-start variant, and the receiver. Used for the flows that exist from
//! the start and for every short flow a workload starts during the run.

use cclab_cc::slow_start::packet_pair;
use cclab_cc::{CcConfig, UNLIMITED};
use cclab_scenario::{FlowGroup, InitialSsthresh, LossDetection};

use crate::tcp::receive_window::{ReceiveWindow, window_scale};
use crate::tcp::receiver::{Receiver, ReceiverConfig};
use crate::tcp::sender::{Sender, SenderConfig};

/// Fresh endpoints of flow `id` of `group`, carrying `size` application bytes (`None`:
/// unlimited), whose sender's NIC (its first link) runs at `nic_rate_bps` (`None`: the
/// sender keeps no TCP Small Queues limit, as for a UDP flow's idle sender). A group with
/// `small_queues = false` keeps none either: its host's device takes each packet at once
/// (a TUN device, whose `tun_net_xmit` orphans the skb, so `tcp_small_queue_check` never
/// finds the socket's packets waiting), and every packet TCP sends goes to the access link.
pub fn endpoints(
    group: &FlowGroup,
    id: u32,
    size: Option<u64>,
    nic_rate_bps: Option<u64>,
) -> (Sender, Receiver) {
    let cc_config = CcConfig {
        mss: group.mss,
        initial_cwnd: group.initial_window,
        initial_ssthresh: match group.initial_ssthresh {
            InitialSsthresh::Unlimited | InitialSsthresh::PacketPair => UNLIMITED,
            InitialSsthresh::Bytes(b) => b,
        },
        packet_pair_ssthresh: group.initial_ssthresh == InitialSsthresh::PacketPair,
    };
    let mut slow_start = (group.slow_start.build)(&cc_config, &group.slow_start_params);
    if cc_config.packet_pair_ssthresh {
        slow_start = packet_pair::wrap(slow_start, &cc_config);
    }
    let cc = (group.cc.build)(&cc_config, &group.params, slow_start);
    let mut sender = Sender::new(
        SenderConfig {
            flow: id,
            mss: group.mss,
            header_bytes: group.header_bytes,
            size,
            recovery: group.recovery,
            loss_detection: group.loss_detection,
            limited_transmit: group.limited_transmit,
            lost_retransmission: group.lost_retransmission,
            reduce_from: group.reduce_from,
            prr_bound: group.prr_bound,
            receive_window: group.receive_window,
            send_buffer: group.send_buffer,
            min_rto: group.min_rto,
            rto_estimator: group.rto_estimator,
            pacing: group.pacing,
            ecn: group.ecn,
            nic_rate_bps: nic_rate_bps.filter(|_| group.small_queues),
        },
        cc,
    );
    if group.undo {
        sender.enable_undo(group.frto);
    }
    if group.connection.receive_window_auto {
        // The scale the receiver announces in its SYN-ACK (RFC 7323 §2.2).
        sender.set_peer_window_scale(window_scale(group.connection.tcp_rmem));
    }
    let receiver = Receiver::new(ReceiverConfig {
        flow: id,
        header_bytes: group.header_bytes,
        sack: group.recovery.uses_sack(),
        // RACK-TLP adapts its reordering window to DSACKs (RFC 8985 §6.2).
        // So does undo (RFC 3708: all retransmissions DSACKed), when SACK is on.
        dsack: group.loss_detection == LossDetection::RackTlp
            || (group.undo && group.recovery.uses_sack()),
        delayed_ack: group.delayed_ack,
        size,
        fin: group.connection.handshake,
        quick_acks: if group.connection.quick_ack {
            // The window the receiver starts with: the configured one, or Linux's initial
            // 64 KB (an auto-tuned window starts there too).
            let window = group.receive_window.unwrap_or(
                ReceiveWindow::new(
                    group.mss,
                    group.connection.tcp_rmem,
                    group.connection.scaling_ratio,
                )
                .window(),
            );
            crate::tcp::receiver::quick_acks(window, group.mss)
        } else {
            0
        },
        auto_window_mss: group.connection.receive_window_auto.then_some(group.mss),
        tcp_rmem: group.connection.tcp_rmem,
        scaling_ratio: group.connection.scaling_ratio,
    });
    (sender, receiver)
}
