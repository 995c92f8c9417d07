//! One direction of a Wi-Fi link: its queue (any discipline) and the frames its MAC has sent
//! at least once and not yet handed to the far end.
//!
//! Frames leave the queue when the medium gives this direction a transmission, up to the
//! aggregation limits. Once sent, a frame stays in `outstanding`, in sequence order, until it
//! is received and every frame before it is received or given up: the receiver's reordering
//! buffer of a block-ACK agreement (IEEE 802.11-2016 §10.24.7), which hands frames up in order.
//! A frame that failed waits there for its retransmission, ahead of the queue (the MAC retries
//! it in the next transmission, as a block-ACK originator does), until it has failed
//! `retry_limit + 1` times and is dropped. The window of outstanding frames never exceeds
//! `max_aggregate_frames` (the block-ACK window: no frame is sent beyond the oldest
//! unacknowledged one plus the window).

use std::collections::VecDeque;

use cclab_cc::SimTime;
use cclab_scenario::WifiConfig;

use super::airtime::{ppdu_time, subframe_bytes};
use crate::net::link::LinkStats;
use crate::net::qdisc::{
    ArrivalContext, ArrivalQdisc, BufferLimit, Dequeued, DropReason, Qdisc, ScheduledQdisc, Verdict,
};
use crate::packet::Packet;

/// Counters of a Wi-Fi direction (in its link's `LinkStats`), all monotone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WifiCounters {
    /// Transmissions (A-MPDUs) this direction sent, collided ones included.
    pub transmissions: u64,
    /// Frames (MPDUs) in them, retransmissions included.
    pub frames: u64,
    /// Frames sent again after a failure.
    pub retries: u64,
    /// Transmissions that collided with the other direction's.
    pub collisions: u64,
    /// Frames dropped after `retry_limit + 1` failed attempts.
    pub retry_drops: u64,
}

impl WifiCounters {
    /// The counts since `earlier`, a snapshot of these.
    pub fn since(&self, earlier: &WifiCounters) -> WifiCounters {
        WifiCounters {
            transmissions: self.transmissions - earlier.transmissions,
            frames: self.frames - earlier.frames,
            retries: self.retries - earlier.retries,
            collisions: self.collisions - earlier.collisions,
            retry_drops: self.retry_drops - earlier.retry_drops,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrameState {
    /// Waiting for its next attempt (it failed, or it is in the air now).
    Unacknowledged,
    /// Received; waits for the frames before it.
    Received,
    /// Retries exhausted: dropped (already counted), its place skipped.
    Lost,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    packet: Packet,
    failures: u32,
    state: FrameState,
    /// In the transmission on the air now.
    in_air: bool,
}

/// What one transmission carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Aggregate {
    pub frames: u32,
    /// Subframe bytes (overheads and padding included).
    pub bytes: u64,
}

pub struct WifiQueue {
    qdisc: Qdisc,
    /// An arrival-deciding discipline (drop-tail, RED) only decides: the packets it admits
    /// wait here. A scheduled discipline holds its own.
    fifo: VecDeque<Dequeued>,
    fifo_bytes: u64,
    /// A packet a scheduled discipline handed over that did not fit the last aggregate.
    carry: Option<Dequeued>,
    limit: BufferLimit,
    rate_bps: u64,
    /// When this direction last had nothing queued or outstanding (RED's idle correction).
    idle_since: SimTime,
    outstanding: VecDeque<Frame>,
    /// Outstanding frames neither received nor lost.
    unacknowledged: usize,
    /// Outstanding frames lost to retries: counted as dropped, no longer held.
    lost: usize,
}

impl WifiQueue {
    pub fn new(qdisc: Qdisc, limit: BufferLimit, config: &WifiConfig) -> Self {
        WifiQueue {
            qdisc,
            fifo: VecDeque::new(),
            fifo_bytes: 0,
            carry: None,
            limit,
            rate_bps: config.phy_rate_bps,
            idle_since: SimTime::ZERO,
            outstanding: VecDeque::new(),
            unacknowledged: 0,
            lost: 0,
        }
    }

    /// Packets and bytes waiting in the queue (not yet sent once).
    pub fn waiting(&self) -> (u64, u64) {
        let carried = self
            .carry
            .map_or((0, 0), |d| (1, d.packet.wire_bytes as u64));
        let (packets, bytes) = match &self.qdisc {
            Qdisc::Scheduled(q) => q.backlog(),
            Qdisc::Arrival(_) => (self.fifo.len() as u64, self.fifo_bytes),
        };
        (packets + carried.0, bytes + carried.1)
    }

    /// Packets this direction holds: queued, or sent and not yet handed on or lost.
    pub fn held(&self) -> u64 {
        self.waiting().0 + (self.outstanding.len() - self.lost) as u64
    }

    /// Frames to send: queued ones, or outstanding ones awaiting a retransmission.
    pub fn has_frames(&self) -> bool {
        self.unacknowledged > 0 || self.waiting().0 > 0
    }

    /// CE marks the discipline made, for a scheduled one (an arrival one's are counted by
    /// the link as they happen).
    pub fn scheduled_ce_marks(&self) -> Option<u64> {
        match &self.qdisc {
            Qdisc::Scheduled(q) => Some(q.ce_marks()),
            Qdisc::Arrival(_) => None,
        }
    }

    /// Offer `packet` to the discipline at `now`: `Ok(marked)` if it was admitted (and
    /// whether an arrival-deciding discipline marked it CE), or the packet the discipline
    /// dropped (a scheduled one may drop another it held) with the reason.
    pub fn enqueue(
        &mut self,
        now: SimTime,
        mut packet: Packet,
    ) -> Result<bool, (Packet, DropReason)> {
        match &mut self.qdisc {
            Qdisc::Scheduled(q) => q.enqueue(now, packet).map(|()| false),
            Qdisc::Arrival(q) => {
                // The "transmitter" of a Wi-Fi direction is busy while it has anything to
                // send or in flight: an arrival then waits.
                let busy = !self.fifo.is_empty() || !self.outstanding.is_empty();
                let context = ArrivalContext {
                    now,
                    waiting_packets: self.fifo.len() as u64,
                    waiting_bytes: self.fifo_bytes,
                    transmitter_busy: busy,
                    idle_since: (!busy).then_some(self.idle_since),
                    rate_bps: self.rate_bps,
                    limit: self.limit,
                };
                let ecn_before = packet.ecn;
                match q.on_arrival(&context, &mut packet) {
                    Verdict::Drop(reason) => Err((packet, reason)),
                    Verdict::Admit => {
                        self.fifo_bytes += packet.wire_bytes as u64;
                        self.fifo.push_back(Dequeued {
                            packet,
                            enqueued_at: now,
                        });
                        Ok(packet.ecn != ecn_before)
                    }
                }
            }
        }
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Dequeued> {
        match &mut self.qdisc {
            Qdisc::Scheduled(q) => q.dequeue(now, dropped),
            Qdisc::Arrival(_) => {
                let next = self.fifo.pop_front()?;
                self.fifo_bytes -= next.packet.wire_bytes as u64;
                Some(next)
            }
        }
    }

    /// Build the aggregate of a transmission starting at `now`: first the outstanding frames
    /// awaiting a retransmission, in order, then new frames from the queue while the
    /// block-ACK window has room, each while the frame, byte and airtime limits allow (the
    /// first frame always goes). New frames are counted into `stats` (packets and bytes
    /// entering the transmitter, their queueing delay if `track_delay`); packets the
    /// discipline drops on dequeue go to `dropped`.
    pub fn take_aggregate(
        &mut self,
        now: SimTime,
        config: &WifiConfig,
        stats: &mut LinkStats,
        track_delay: bool,
        dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Aggregate {
        let mut aggregate = Aggregate::default();
        let fits = |aggregate: &Aggregate, wire_bytes: u32| {
            let bytes = aggregate.bytes + subframe_bytes(config, wire_bytes);
            aggregate.frames == 0
                || (aggregate.frames < config.max_aggregate_frames
                    && bytes <= config.max_aggregate_bytes
                    && ppdu_time(config, bytes) <= config.max_aggregate_time)
        };
        for frame in self.outstanding.iter_mut() {
            if frame.state != FrameState::Unacknowledged {
                continue;
            }
            if !fits(&aggregate, frame.packet.wire_bytes) {
                break;
            }
            frame.in_air = true;
            aggregate.frames += 1;
            aggregate.bytes += subframe_bytes(config, frame.packet.wire_bytes);
            stats.wifi.retries += 1;
        }
        let window = config.max_aggregate_frames as usize;
        while self.outstanding.len() < window {
            // A scheduled discipline chooses at dequeue, so its next packet's size is known
            // only once taken: one that does not fit waits in `carry`, first for next time.
            if self.carry.is_none() && matches!(self.qdisc, Qdisc::Scheduled(_)) {
                self.carry = self.dequeue(now, dropped);
            }
            let next_bytes = match (&self.carry, &self.qdisc) {
                (Some(carried), _) => carried.packet.wire_bytes,
                (None, Qdisc::Arrival(_)) => match self.fifo.front() {
                    Some(next) => next.packet.wire_bytes,
                    None => break,
                },
                (None, Qdisc::Scheduled(_)) => break,
            };
            if !fits(&aggregate, next_bytes) {
                break;
            }
            let Some(Dequeued {
                packet,
                enqueued_at,
            }) = self.carry.take().or_else(|| self.dequeue(now, dropped))
            else {
                break;
            };
            if track_delay {
                stats.queue_delay.record((now - enqueued_at).as_nanos());
            }
            stats.packets += 1;
            stats.bytes += packet.wire_bytes as u64;
            self.outstanding.push_back(Frame {
                packet,
                failures: 0,
                state: FrameState::Unacknowledged,
                in_air: true,
            });
            self.unacknowledged += 1;
            aggregate.frames += 1;
            aggregate.bytes += subframe_bytes(config, packet.wire_bytes);
        }
        if aggregate.frames > 0 {
            stats.wifi.transmissions += 1;
            stats.wifi.frames += aggregate.frames as u64;
        }
        aggregate
    }

    /// The transmission on the air ended: each of its frames failed (`collided`, or at random
    /// with `config.frame_error_rate` drawn by `fails`) or was received. Frames that exhausted
    /// their retries go to `lost`; frames now in order go to `deliver`. Returns whether any
    /// frame got through (the transmission's block ACK came back).
    pub fn finish_transmission(
        &mut self,
        config: &WifiConfig,
        counters: &mut WifiCounters,
        collided: bool,
        mut fails: impl FnMut() -> bool,
        mut lost: impl FnMut(Packet),
        mut deliver: impl FnMut(Packet),
    ) -> bool {
        let mut any_received = false;
        for frame in self.outstanding.iter_mut() {
            if !frame.in_air {
                continue;
            }
            frame.in_air = false;
            if collided || fails() {
                frame.failures += 1;
                if frame.failures > config.retry_limit {
                    frame.state = FrameState::Lost;
                    self.unacknowledged -= 1;
                    self.lost += 1;
                    counters.retry_drops += 1;
                    lost(frame.packet);
                }
            } else {
                frame.state = FrameState::Received;
                self.unacknowledged -= 1;
                any_received = true;
            }
        }
        if collided {
            counters.collisions += 1;
        }
        while let Some(front) = self.outstanding.front() {
            match front.state {
                FrameState::Unacknowledged => break,
                FrameState::Received => deliver(front.packet),
                FrameState::Lost => self.lost -= 1,
            }
            self.outstanding.pop_front();
        }
        any_received
    }

    /// Remember when this direction went idle (RED's idle-time correction).
    pub fn note_idle(&mut self, now: SimTime) {
        if self.outstanding.is_empty() && self.waiting().0 == 0 {
            self.idle_since = now;
        }
    }
}
