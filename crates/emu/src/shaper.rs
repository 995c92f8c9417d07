//! One direction of the bottleneck on the wall clock: the simulator's [`Link`] (queue
//! discipline, transmitter, propagation delay, random loss) decides when each real packet
//! arrives at the far end, exactly as it would in a simulation; the shaper keeps the packet's
//! bytes meanwhile and hands them over when that time comes.
//!
//! The simulator's packets carry no bytes, so each real packet is parked in a slot and the
//! simulated packet's `seq` names the slot: the link may reorder, drop or hold packets as
//! its discipline pleases, and the bytes follow. Time is nanoseconds since the start of the
//! emulation, the same `SimTime` the link uses in a simulation, and it only moves forward:
//! the caller runs every due event ([`Shaper::run_due`]) before offering a packet at `now`,
//! so the link sees the same order of calls as under the simulator's event queue.

use cclab_cc::SimTime;
use cclab_sim::net::link::{Admission, Link};
use cclab_sim::packet::{Ecn, Packet, PacketKind};

/// What the shaper needs to know about a real packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub flow: u32,
    pub kind: PacketKind,
    pub payload: u32,
    pub ecn: Ecn,
}

pub struct Shaper {
    pub link: Link,
    slots: Vec<Option<Vec<u8>>>,
    free: Vec<u32>,
    next_delivery: Option<SimTime>,
    /// Scheduled disciplines: when the transmission in progress ends.
    transmission_end: Option<SimTime>,
    dropped: Vec<(Packet, cclab_sim::net::link::DropReason)>,
}

impl Shaper {
    pub fn new(link: Link) -> Self {
        Shaper {
            link,
            slots: Vec::new(),
            free: Vec::new(),
            next_delivery: None,
            transmission_end: None,
            dropped: Vec::new(),
        }
    }

    /// The earliest time something is due: a delivery or the end of a transmission.
    pub fn next_deadline(&self) -> Option<SimTime> {
        match (self.next_delivery, self.transmission_end) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Offer a packet (its `bytes`, an IP datagram) at `now`.
    pub fn offer(&mut self, now: SimTime, header: Header, bytes: Vec<u8>) {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(bytes);
                slot
            }
            None => {
                self.slots.push(Some(bytes));
                (self.slots.len() - 1) as u32
            }
        };
        let wire_bytes = self.slots[slot as usize].as_ref().map_or(0, Vec::len) as u32;
        let packet = Packet {
            flow: header.flow,
            hop: 0,
            kind: header.kind,
            retransmission: false,
            sack_count: 0,
            ecn: header.ecn,
            wire_bytes,
            payload: header.payload,
            seq: slot as u64,
            sack: Default::default(),
            ce_bytes: 0,
            xcp: Default::default(),
            vcp: None,
            // The real packet carries its own window; the link does not look at this one.
            window: 0,
            ts: 0,
        };
        match self.link.enqueue(now, packet) {
            Admission::Admitted {
                arrival,
                first_in_flight,
            } => {
                if first_in_flight {
                    self.next_delivery = Some(arrival);
                }
            }
            Admission::Dropped(_) => self.release(slot),
            Admission::Scheduled => self.collect_service(false),
        }
    }

    /// After a scheduled discipline acted: the transmission it started, the delivery it
    /// needs, the packets it dropped. `after_transmission`: the call was `on_transmitted`,
    /// so no new transmission means the transmitter is idle.
    fn collect_service(&mut self, after_transmission: bool) {
        let service = self.link.take_service(&mut self.dropped);
        if service.transmission_end.is_some() || after_transmission {
            self.transmission_end = service.transmission_end;
        }
        if let Some(arrival) = service.first_arrival {
            self.next_delivery = Some(self.next_delivery.map_or(arrival, |t| t.min(arrival)));
        }
        let dropped = std::mem::take(&mut self.dropped);
        for (packet, _) in &dropped {
            self.release(packet.seq as u32);
        }
        self.dropped = dropped;
        self.dropped.clear();
    }

    fn release(&mut self, slot: u32) {
        self.slots[slot as usize] = None;
        self.free.push(slot);
    }

    /// Run everything due by `now`, in time order; `deliver(bytes, due)` gets each packet
    /// that reaches the far end and the time it was due.
    pub fn run_due(&mut self, now: SimTime, mut deliver: impl FnMut(Vec<u8>, SimTime)) {
        loop {
            let delivery = self.next_delivery.filter(|&t| t <= now);
            let transmission = self.transmission_end.filter(|&t| t <= now);
            match (delivery, transmission) {
                // A transmission that ends first (or at the same time) frees the
                // transmitter first, as the simulator's LinkTransmitted event does.
                (_, Some(end)) if delivery.is_none_or(|d| end <= d) => {
                    self.link.on_transmitted(end);
                    self.collect_service(true);
                }
                (Some(due), _) => {
                    let (packet, next) = self.link.deliver(due);
                    self.next_delivery = next;
                    let slot = packet.seq as u32;
                    if let Some(mut bytes) = self.slots[slot as usize].take() {
                        if packet.ecn == Ecn::Ce {
                            mark_ce(&mut bytes);
                        }
                        deliver(bytes, due);
                    }
                    self.free.push(slot);
                }
                _ => break,
            }
        }
    }
}

/// Set the IPv4 ECN field to CE (RFC 3168 §5) and recompute the header checksum
/// (RFC 791 §3.1, computed as RFC 1071 describes).
pub fn mark_ce(packet: &mut [u8]) {
    if packet.len() < 20 || packet[0] >> 4 != 4 || packet[1] & 0b11 == 0b11 {
        return;
    }
    packet[1] |= 0b11;
    let header_len = ((packet[0] & 0x0f) as usize * 4).min(packet.len());
    packet[10] = 0;
    packet[11] = 0;
    let checksum = ipv4_checksum(&packet[..header_len]);
    packet[10..12].copy_from_slice(&checksum.to_be_bytes());
}

/// The one's complement of the one's complement sum of the 16-bit words (RFC 1071).
pub fn ipv4_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = header
        .chunks(2)
        .map(|w| u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]) as u32)
        .sum();
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cclab_cc::SimDuration;
    use cclab_scenario::LossModel;
    use cclab_sim::net::loss::LossProcess;
    use cclab_sim::net::qdisc::BufferLimit;
    use cclab_sim::rng::Rng;

    fn header() -> Header {
        Header {
            flow: 0,
            kind: PacketKind::Data,
            payload: 1448,
            ecn: Ecn::NotEct,
        }
    }

    fn link(rate_bps: u64, delay_ms: u64, packets: u64) -> Link {
        let none = || LossProcess::new(LossModel::None, Rng::for_component(1, ""));
        Link::new(
            "bottleneck".into(),
            rate_bps,
            SimDuration::from_millis(delay_ms),
            BufferLimit {
                packets: Some(packets),
                bytes: None,
            },
            none(),
            none(),
        )
    }

    #[test]
    fn back_to_back_packets_leave_one_serialization_time_apart_after_the_delay() {
        // 1500 bytes at 12 Mbit/s: 1 ms each; delay 10 ms. Three packets offered at 0 arrive
        // at 11, 12 and 13 ms (hand calculation: start_i = i ms, arrival = start + 1 + 10).
        let mut shaper = Shaper::new(link(12_000_000, 10, 10));
        for i in 0..3u8 {
            shaper.offer(SimTime::ZERO, header(), vec![i; 1500]);
        }
        assert_eq!(
            shaper.next_deadline(),
            Some(SimTime::from_nanos(11_000_000))
        );
        let mut out = Vec::new();
        shaper.run_due(SimTime::from_nanos(12_500_000), |b, t| {
            out.push((b[0], t.as_nanos()))
        });
        assert_eq!(out, vec![(0, 11_000_000), (1, 12_000_000)]);
        shaper.run_due(SimTime::from_nanos(20_000_000), |b, t| {
            out.push((b[0], t.as_nanos()))
        });
        assert_eq!(out[2], (2, 13_000_000));
        assert_eq!(shaper.next_deadline(), None);
    }

    #[test]
    fn a_full_drop_tail_buffer_drops_and_frees_the_slot() {
        // Buffer of 1 waiting packet: the first is in transmission, the second waits, the
        // third finds the buffer full (BufferLimit counts waiting packets only).
        let mut shaper = Shaper::new(link(12_000_000, 0, 1));
        for i in 0..3u8 {
            shaper.offer(SimTime::ZERO, header(), vec![i; 1500]);
        }
        assert_eq!(shaper.link.stats().overflow_drops, 1);
        let mut out = Vec::new();
        shaper.run_due(SimTime::from_nanos(10_000_000), |b, _| out.push(b[0]));
        assert_eq!(out, vec![0, 1]);
        assert_eq!(shaper.free.len(), 3);
    }

    #[test]
    fn ce_marking_keeps_the_checksum_valid() {
        // RFC 1071's example header bytes do not matter: any header whose checksum field
        // holds its checksum sums to 0xffff, i.e. recomputing over it gives 0.
        let mut packet = vec![
            0x45, 0x02, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0, 0, 10, 77, 0, 1, 10, 77,
            0, 2,
        ];
        let checksum = ipv4_checksum(&packet);
        packet[10..12].copy_from_slice(&checksum.to_be_bytes());
        mark_ce(&mut packet);
        assert_eq!(packet[1] & 0b11, 0b11);
        assert_eq!(ipv4_checksum(&packet), 0);
    }
}
