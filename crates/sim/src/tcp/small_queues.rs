//! TCP Small Queues: how much of its own data a sender lets wait in its host's transmit queue.
//!
//! Linux `tcp_small_queue_check` (net/ipv4/tcp_output.c) stops `tcp_write_xmit` while more
//! than `limit = max(2·skb truesize, sk_pacing_rate >> 10)` bytes of the socket sit in the
//! qdisc and NIC, capped by `net.ipv4.tcp_limit_output_bytes` (16 × 64 KiB = 1 MiB; older
//! kernels used 128 or 256 KiB, 2025 kernels 4 MiB) and doubled for retransmissions; the
//! socket resumes when the NIC has sent enough. So a window larger than the path can carry
//! stays in the socket instead of flooding the host queue, the flow stops being
//! cwnd-limited, and the window stops growing (`tcp_is_cwnd_limited`). Without it a sender
//! whose window runs away (Hybla's `2^ρ − 1` per ACK at ρ = 10) would park millions of
//! packets on its access link.
//!
//! A host whose device takes every packet at once keeps no such limit: a TUN device's
//! `tun_net_xmit` (drivers/net/tun.c) calls `skb_orphan` on each skb it queues for the
//! reading process, which runs the skb's destructor and takes its truesize out of
//! `sk_wmem_alloc` before the packet has gone anywhere, so `tcp_small_queue_check` never
//! finds the socket over its limit. A flow with `small_queues = false` models that host:
//! it has no `SmallQueues`, and every packet TCP sends goes to its access link at once.
//!
//! The sender's access link carries only its own data, so the host knows when its NIC will
//! be idle: `busy_until` advances by each packet's serialization time, computed as the link
//! computes it (exactly, unless the access link's own buffer drops a packet, which only an
//! access buffer smaller than the limit can do). cclab counts wire bytes where Linux counts
//! skb truesize (about twice as much for 1500-byte packets).

use cclab_cc::{SimDuration, SimTime};

use crate::serialization::Serialization;

/// Linux `sysctl_tcp_limit_output_bytes`: 16 × 65536.
pub const LIMIT_OUTPUT_BYTES: u64 = 16 * 65_536;

#[derive(Clone, Debug)]
pub struct SmallQueues {
    nic_rate_bps: u64,
    /// A full-sized packet's bytes on the wire.
    wire_packet: u64,
    /// Transmission time of two packets: the smallest limit.
    two_packets: SimDuration,
    /// When the NIC will have sent every packet handed to it so far.
    busy_until: SimTime,
    /// Sub-nanosecond serialization remainder, carried as `Link` carries it.
    carry: u64,
    /// The NIC's time for the packet size seen last (`crate::serialization`).
    serialization: Serialization,
}

impl SmallQueues {
    pub fn new(nic_rate_bps: u64, wire_packet: u64) -> Self {
        let mut host = SmallQueues {
            nic_rate_bps: nic_rate_bps.max(1),
            wire_packet,
            two_packets: SimDuration::ZERO,
            busy_until: SimTime::ZERO,
            carry: 0,
            serialization: Serialization::new(nic_rate_bps.max(1)),
        };
        host.two_packets = host.time_to_send(2 * wire_packet);
        host
    }

    /// Transmission time of the smallest limit, two packets.
    pub fn two_packets(&self) -> SimDuration {
        self.two_packets
    }

    /// The byte limit for a sender whose pacing rate (Linux `sk_pacing_rate`, here in bit/s)
    /// is `pacing_rate_bps`: about 1 ms of it (`>> 10`), at least two packets, at most
    /// [`LIMIT_OUTPUT_BYTES`]. (Linux doubles it for a retransmission: the sender does.)
    pub fn limit(&self, pacing_rate_bps: Option<u64>) -> u64 {
        let per_millisecond = pacing_rate_bps.map_or(u64::MAX, |bps| (bps / 8) >> 10);
        per_millisecond
            .max(2 * self.wire_packet)
            .min(LIMIT_OUTPUT_BYTES)
    }

    /// `None` if a packet may go to the NIC now (at most `allowed` of work, the
    /// [`time_to_send`](Self::time_to_send) of the limit, waits there), else when enough
    /// will have left.
    pub fn blocked_until(&self, now: SimTime, allowed: SimDuration) -> Option<SimTime> {
        let backlog = self.busy_until.saturating_since(now);
        (backlog > allowed).then(|| now + backlog.saturating_sub(allowed))
    }

    /// A packet of `wire_bytes` went to the NIC at `now`.
    pub fn on_send(&mut self, now: SimTime, wire_bytes: u64) {
        if self.busy_until <= now {
            self.busy_until = now;
            self.carry = 0;
        }
        // Fits in u64: a packet's bits × 10^9 plus a remainder below the rate.
        self.busy_until += self
            .serialization
            .time(wire_bytes, self.nic_rate_bps, &mut self.carry);
    }

    /// The most time the NIC may still need: the largest limit, doubled for a retransmission,
    /// plus the packet handed over when the backlog was just within it (rounded up).
    pub fn worst_backlog(&self) -> SimDuration {
        self.time_to_send(2 * LIMIT_OUTPUT_BYTES + self.wire_packet) + SimDuration::from_nanos(1)
    }

    /// The NIC's transmission time for `bytes` (rounded down).
    pub fn time_to_send(&self, bytes: u64) -> SimDuration {
        let nanos = bytes as u128 * 8 * 1_000_000_000 / self.nic_rate_bps as u128;
        SimDuration::from_nanos(nanos.min(u64::MAX as u128) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIRE: u64 = 1500;

    #[test]
    fn limit_is_a_millisecond_of_pacing_rate_within_two_packets_and_one_mebibyte() {
        // 100 Mbit/s = 12.5 MB/s; >> 10 gives 12207 bytes.
        let host = SmallQueues::new(1_000_000_000, WIRE);
        assert_eq!(host.limit(Some(100_000_000)), 12_207);
        // 10 Mbit/s: 1220 bytes, below the two-packet floor.
        assert_eq!(host.limit(Some(10_000_000)), 3_000);
        // 100 Gbit/s: 12.2 MB, above the cap; no rate known yet: the cap.
        assert_eq!(host.limit(Some(100_000_000_000)), 1_048_576);
        assert_eq!(host.limit(None), 1_048_576);
    }

    #[test]
    fn sender_waits_until_the_nic_has_drained_to_the_limit() {
        // 12 Mbit/s NIC: a 1500-byte packet takes 1 ms.
        let mut host = SmallQueues::new(12_000_000, WIRE);
        let t0 = SimTime::ZERO;
        let allowed = host.two_packets();
        assert_eq!(allowed, SimDuration::from_millis(2));
        for _ in 0..3 {
            assert_eq!(host.blocked_until(t0, allowed), None);
            host.on_send(t0, WIRE);
        }
        // Three packets (3 ms of work) wait; more than two packets: blocked until the NIC is
        // 1 ms in, when exactly two remain.
        let release = t0 + SimDuration::from_millis(1);
        assert_eq!(host.blocked_until(t0, allowed), Some(release));
        assert_eq!(host.blocked_until(release, allowed), None);
        // Idle NIC: the next packet starts at once.
        let later = t0 + SimDuration::from_millis(10);
        host.on_send(later, WIRE);
        assert_eq!(host.blocked_until(later, allowed), None);
    }

    #[test]
    fn busy_time_carries_the_sub_nanosecond_remainder_as_links_do() {
        // 7 Mbit/s: 1500 B take 1714285.714 ns; 7000 of them exactly 12 s.
        let mut host = SmallQueues::new(7_000_000, WIRE);
        for _ in 0..7000 {
            host.on_send(SimTime::ZERO, WIRE);
        }
        assert_eq!(host.busy_until, SimTime::ZERO + SimDuration::from_secs(12));
    }
}
