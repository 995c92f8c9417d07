//! A VCP router's queue: Y. Xia, L. Subramanian, I. Stoica, S. Kalyanaraman, "One More Bit Is
//! Enough", SIGCOMM 2005, §3. A drop-tail FIFO whose link measures its load factor over each
//! interval t_ρ (200 ms) and writes it, quantized to two bits, into the departing segments of
//! VCP flows — raising the code, never lowering it, so the most loaded router on the path wins:
//!
//!   ρ = (λ + κq·q̃) / (γ·C·t_ρ)
//!
//! λ the bytes that arrived during the interval, q̃ the persistent queue (the smallest queue a
//! departure left behind during it, bytes), κq = 0.5, γ = 0.98 the target utilization, C the
//! capacity. ρ < 80 % is *low load*, 80 % to 100 % *high load*, 100 % and more *overload*
//! (§3.1). The code of the interval just ended is written during the next one.

use cclab_cc::{LoadFactor, SimTime};
use cclab_scenario::VcpConfig;

use super::fifo::Fifo;
use super::{BufferLimit, Dequeued, DropReason, ScheduledQdisc};
use crate::packet::Packet;

/// §3.1: the load-factor ranges of the 2-bit code.
const LOW_LOAD_BELOW: f64 = 0.8;
const OVERLOAD_FROM: f64 = 1.0;

#[derive(Clone, Debug)]
pub struct Vcp {
    fifo: Fifo,
    config: VcpConfig,
    /// Capacity, bytes per second.
    capacity: f64,
    interval_end: SimTime,
    arrived_bytes: u64,
    min_queue_bytes: Option<u64>,
    load: LoadFactor,
    /// ρ of the last interval, for tests.
    rho: f64,
}

impl Vcp {
    pub fn new(
        config: &VcpConfig,
        limit: BufferLimit,
        rate_bps: u64,
        ecn_threshold: Option<u64>,
    ) -> Self {
        Vcp {
            fifo: Fifo::new(limit, ecn_threshold),
            config: config.clone(),
            capacity: rate_bps as f64 / 8.0,
            interval_end: SimTime::ZERO + config.interval,
            arrived_bytes: 0,
            min_queue_bytes: None,
            load: LoadFactor::Low,
            rho: 0.0,
        }
    }

    /// The load factor of the last interval.
    pub fn load(&self) -> (LoadFactor, f64) {
        (self.load, self.rho)
    }

    /// Close every interval that ended by `now` (§3.1's ρ and its code).
    fn roll(&mut self, now: SimTime) {
        while now >= self.interval_end {
            let t = self.config.interval.as_secs_f64();
            let queue = self.min_queue_bytes.unwrap_or(self.fifo.backlog().1) as f64;
            let rho = (self.arrived_bytes as f64 + self.config.kappa * queue)
                / (self.config.target_utilization * self.capacity * t);
            self.rho = rho;
            self.load = if rho < LOW_LOAD_BELOW {
                LoadFactor::Low
            } else if rho < OVERLOAD_FROM {
                LoadFactor::High
            } else {
                LoadFactor::Overload
            };
            self.arrived_bytes = 0;
            self.min_queue_bytes = None;
            self.interval_end += self.config.interval;
        }
    }
}

impl ScheduledQdisc for Vcp {
    fn enqueue(&mut self, now: SimTime, packet: Packet) -> Result<(), (Packet, DropReason)> {
        self.roll(now);
        // λ counts every arrival, admitted or not: the demand on the link.
        self.arrived_bytes += packet.wire_bytes as u64;
        self.fifo.enqueue(now, packet)
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Dequeued> {
        self.roll(now);
        let mut next = self.fifo.dequeue(now, dropped)?;
        let left_behind = self.fifo.backlog().1;
        self.min_queue_bytes = Some(
            self.min_queue_bytes
                .map_or(left_behind, |q| q.min(left_behind)),
        );
        if next.packet.vcp.is_some() {
            next.packet.vcp = next.packet.vcp.max(Some(self.load));
        }
        Some(next)
    }

    fn backlog(&self) -> (u64, u64) {
        self.fifo.backlog()
    }

    fn ce_marks(&self) -> u64 {
        self.fifo.ce_marks()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cclab_cc::SimDuration;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    fn vcp_segment() -> Packet {
        Packet {
            vcp: Some(LoadFactor::Unmeasured),
            window: 0,
            ts: 0,
            ..Packet::test_data(1000, 0)
        }
    }

    /// A router on an 8 Mbit/s (1 MB/s) link that saw `bytes` arrive in its first 200 ms and
    /// `queued` bytes stay behind the whole time; returns the code it then writes.
    fn code_after(bytes: u64, queued: u64) -> (LoadFactor, f64) {
        let mut v = Vcp::new(
            &VcpConfig::default(),
            BufferLimit::default(),
            8_000_000,
            None,
        );
        v.arrived_bytes = bytes;
        v.min_queue_bytes = Some(queued);
        let mut dropped = Vec::new();
        v.enqueue(at(200), vcp_segment()).expect("no limit");
        let sent = v.dequeue(at(200), &mut dropped).expect("queued");
        (sent.packet.vcp.expect("VCP segment"), v.load().1)
    }

    #[test]
    fn the_load_factor_is_quantized_at_80_and_100_percent() {
        // γ·C·t = 0.98 · 1 MB/s · 0.2 s = 196 000 bytes.
        // 150 000 B: ρ = 0.765 → low. 170 000 B: 0.867 → high. 200 000 B: 1.02 → overload.
        let (code, rho) = code_after(150_000, 0);
        assert!((rho - 150_000.0 / 196_000.0).abs() < 1e-12);
        assert_eq!(code, LoadFactor::Low);
        assert_eq!(code_after(170_000, 0).0, LoadFactor::High);
        assert_eq!(code_after(200_000, 0).0, LoadFactor::Overload);
        // A persistent queue counts half (κq = 0.5): 150 000 B plus 60 000 B queued gives
        // ρ = (150 000 + 30 000)/196 000 = 0.918 → high.
        let (code, rho) = code_after(150_000, 60_000);
        assert!((rho - 180_000.0 / 196_000.0).abs() < 1e-12);
        assert_eq!(code, LoadFactor::High);
    }

    #[test]
    fn a_router_raises_the_code_but_never_lowers_it() {
        let mut v = Vcp::new(
            &VcpConfig::default(),
            BufferLimit::default(),
            8_000_000,
            None,
        );
        let mut dropped = Vec::new();
        let mut segment = vcp_segment();
        segment.vcp = Some(LoadFactor::Overload); // an earlier, overloaded router
        v.enqueue(at(1), segment).expect("no limit");
        let sent = v.dequeue(at(1), &mut dropped).expect("queued");
        assert_eq!(sent.packet.vcp, Some(LoadFactor::Overload));
        // Segments of other flows carry no code and get none.
        v.enqueue(at(2), Packet::test_data(1000, 0))
            .expect("no limit");
        let sent = v.dequeue(at(2), &mut dropped).expect("queued");
        assert_eq!(sent.packet.vcp, None);
    }
}
