//! What the simulation does for a flow with `handshake = true` (the model is in
//! `handshake.rs`): send SYNs and run their timer, answer them at the receiver, start the
//! sender on the SYN-ACK, and complete the flow on the receiver's FIN. Out of line: flows
//! without a handshake never come here.

use crate::event::{Event, TimerAction};
use crate::packet::{Packet, PacketKind};
use crate::simulation::Simulation;
use crate::tcp::handshake::syn_ack;

impl Simulation {
    /// Flow `id` opens its connection now: its first SYN.
    #[cold]
    #[inline(never)]
    pub(crate) fn open_connection(&mut self, id: u32) {
        self.send_syn(id);
    }

    /// Send a SYN of flow `id` and arm its timer. A SYN the scenario loses (`drop_syn`) is
    /// dropped at the flow's drop link as `drop` drops data segments; it is dropped when
    /// sent rather than after crossing the access link, which changes no time that matters
    /// (a lost packet arrives nowhere).
    fn send_syn(&mut self, id: u32) {
        let now = self.now;
        let flow = &mut self.flows[id as usize];
        let Some(handshake) = flow.handshake.as_deref_mut() else {
            return;
        };
        let (mut syn, lost) = handshake.send_syn(now, id);
        if let Some(at) = handshake.timer.set(handshake.deadline()) {
            self.queue.schedule(at, Event::HandshakeTimer(id));
        }
        if !lost {
            self.emit(syn);
            return;
        }
        let data = flow.routes.data;
        let path = &self.hops[data.start as usize..][..data.len as usize];
        let drop_link = flow.drop_link;
        syn.hop = path.iter().position(|&l| l == drop_link).unwrap_or(0) as u8;
        self.conservation.created += 1;
        if flow.watched {
            self.watch_emit(&syn);
        }
        self.links[drop_link as usize].force_drop();
        self.count_drop(&syn);
    }

    /// Flow `id`'s SYN timer event.
    #[cold]
    #[inline(never)]
    pub(crate) fn on_handshake_timer(&mut self, id: u32) {
        let now = self.now;
        let Some(handshake) = self.flows[id as usize].handshake.as_deref_mut() else {
            return;
        };
        match handshake.timer.on_event(now) {
            TimerAction::Fire => {
                if handshake.on_timer(now) {
                    self.send_syn(id);
                }
            }
            TimerAction::Reschedule(at) => self.queue.schedule(at, Event::HandshakeTimer(id)),
            TimerAction::Ignore => {}
        }
    }

    /// A SYN, SYN-ACK or FIN reached its endpoint.
    #[cold]
    #[inline(never)]
    pub(crate) fn on_connection_packet(&mut self, packet: Packet) {
        let now = self.now;
        let id = packet.flow;
        let flow = &mut self.flows[id as usize];
        match packet.kind {
            // The receiver accepts: every SYN gets its SYN-ACK.
            PacketKind::Syn => self.emit(syn_ack(&packet)),
            PacketKind::SynAck => {
                let Some(handshake) = flow.handshake.as_deref_mut() else {
                    return;
                };
                if let Some(established) = handshake.on_syn_ack(now) {
                    flow.endpoints
                        .get()
                        .sender
                        .on_established(established.rtt, established.syn_retransmissions);
                    flow.endpoints.get().sender.start(now, &mut self.outbox);
                    self.after_sender(id);
                }
            }
            PacketKind::Fin => {
                // The receiver's FIN is an ACK of every byte and of the sender's FIN.
                let ack = Packet {
                    kind: PacketKind::Ack,
                    ..packet
                };
                if ack.window != 0 {
                    flow.endpoints.get().sender.on_window_update(ack.window);
                }
                flow.endpoints
                    .get()
                    .sender
                    .on_ack(now, &ack, &mut self.outbox);
                if flow.endpoints.get_ref().sender.is_finished()
                    && let Some(handshake) = flow.handshake.as_deref_mut()
                {
                    handshake.fin_acked_at.get_or_insert(now);
                }
                self.after_sender(id);
            }
            PacketKind::Data | PacketKind::Ack => {
                debug_assert!(false, "data and ACKs are handled by the forwarding path")
            }
        }
    }
}
