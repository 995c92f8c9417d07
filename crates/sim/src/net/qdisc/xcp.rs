//! An XCP router's queue: D. Katabi, M. Handley, C. Rohrs, "Congestion Control for High
//! Bandwidth-Delay Product Networks", SIGCOMM 2002, §3.5. A drop-tail FIFO whose link also
//! writes each data segment's share of the window change into its congestion header.
//!
//! Once per *control interval* d (the average RTT of the traffic, weighted by bytes):
//!
//! - the efficiency controller (§3.5.1) wants the aggregate window to change by
//!   `φ = α·d·S − β·Q` bytes, S the spare bandwidth (capacity − input rate), Q the persistent
//!   queue (the smallest queue an arriving packet saw over the interval), α = 0.4, β = 0.226
//!   (stable for any capacity, delay and number of flows, §4);
//! - the fairness controller (§3.5.2) splits φ AIMD-wise and shuffles `h = max(0, γ·y·d − |φ|)`
//!   bytes (γ = 0.1) from fast to slow flows even when φ = 0, so that flows converge to equal
//!   rates whatever their RTTs:
//!   `ξp = (h + max(φ, 0)) / (d·Σ rtt_i·s_i/cwnd_i)`, `ξn = (h + max(−φ, 0)) / (d·Σ s_i)`,
//!   sums over the packets of the last interval;
//! - each data segment then gets `p_i − n_i` with `p_i = ξp·rtt_i²·s_i/cwnd_i` (equal
//!   throughput increase per flow) and `n_i = ξn·rtt_i·s_i` (decrease proportional to
//!   throughput), and H_feedback = min(H_feedback, p_i − n_i).
//!
//! As in the paper, a packet's feedback is computed as it leaves the queue (dequeue); the
//! persistent queue is the smallest queue a departing packet left behind over the interval.
//! A scheduled discipline, so that the drop-tail fast path pays nothing for it.

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::XcpConfig;

use super::fifo::Fifo;
use super::{BufferLimit, Dequeued, DropReason, ScheduledQdisc};
use crate::packet::{Packet, PacketKind};

/// The first control interval, before any RTT is known (the paper's routers start from an
/// estimate; 100 ms is a typical Internet RTT).
const INITIAL_INTERVAL: SimDuration = SimDuration::from_millis(100);
/// Bounds on the control interval, against a first RTT sample of a few microseconds on a
/// data-centre link or a stray huge one.
const MIN_INTERVAL: SimDuration = SimDuration::from_micros(100);
const MAX_INTERVAL: SimDuration = SimDuration::from_secs(2);

/// What one control interval saw.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sums {
    /// Wire bytes that went through the queue (all traffic: y·d).
    input_bytes: f64,
    /// Σ rtt_i·s_i, Σ rtt_i·s_i/cwnd_i and Σ s_i over XCP data segments (seconds, bytes).
    rtt_bytes: f64,
    rtt_bytes_per_cwnd: f64,
    xcp_bytes: f64,
    /// The smallest queue (bytes) a departure left behind: the persistent queue Q.
    min_queue_bytes: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct Xcp {
    fifo: Fifo,
    alpha: f64,
    beta: f64,
    gamma: f64,
    /// Capacity, bytes per second.
    capacity: f64,
    interval: SimDuration,
    interval_end: SimTime,
    sums: Sums,
    /// The last interval's per-packet scale factors.
    xi_p: f64,
    xi_n: f64,
    /// The last interval's φ and h, for tests and traces.
    phi: f64,
    shuffled: f64,
}

impl Xcp {
    pub fn new(
        config: &XcpConfig,
        limit: BufferLimit,
        rate_bps: u64,
        ecn_threshold: Option<u64>,
    ) -> Self {
        Xcp {
            fifo: Fifo::new(limit, ecn_threshold),
            alpha: config.alpha,
            beta: config.beta,
            gamma: config.gamma,
            capacity: rate_bps as f64 / 8.0,
            interval: INITIAL_INTERVAL,
            interval_end: SimTime::ZERO + INITIAL_INTERVAL,
            sums: Sums::default(),
            xi_p: 0.0,
            xi_n: 0.0,
            phi: 0.0,
            shuffled: 0.0,
        }
    }

    /// φ of the last control interval, bytes.
    pub fn aggregate_feedback(&self) -> f64 {
        self.phi
    }

    /// The control interval ended at `now`: compute the next one's ξp and ξn (§3.5).
    fn end_interval(&mut self, now: SimTime, queue_bytes: u64) {
        let d = self.interval.as_secs_f64();
        let sums = self.sums;
        let input_rate = sums.input_bytes / d;
        let spare = self.capacity - input_rate;
        let persistent_queue = sums.min_queue_bytes.unwrap_or(queue_bytes) as f64;
        let phi = self.alpha * d * spare - self.beta * persistent_queue;
        let shuffled = (self.gamma * sums.input_bytes - phi.abs()).max(0.0);
        self.phi = phi;
        self.shuffled = shuffled;
        self.xi_p = if sums.rtt_bytes_per_cwnd > 0.0 {
            (shuffled + phi.max(0.0)) / (d * sums.rtt_bytes_per_cwnd)
        } else {
            0.0
        };
        self.xi_n = if sums.xcp_bytes > 0.0 {
            (shuffled + (-phi).max(0.0)) / (d * sums.xcp_bytes)
        } else {
            0.0
        };
        // The next interval: the traffic's average RTT (§3.5: "the average RTT over all
        // packets"), weighted by bytes, as the paper's Σ rtt·s / Σ s.
        if sums.xcp_bytes > 0.0 {
            let average = SimDuration::from_secs_f64(sums.rtt_bytes / sums.xcp_bytes);
            self.interval = average.clamp(MIN_INTERVAL, MAX_INTERVAL);
        }
        self.interval_end = now + self.interval;
        self.sums = Sums::default();
    }

    /// This segment's share: p_i − n_i bytes.
    fn feedback(&self, rtt: f64, bytes: f64, cwnd: f64) -> f64 {
        let positive = self.xi_p * rtt * rtt * bytes / cwnd;
        let negative = self.xi_n * rtt * bytes;
        positive - negative
    }
}

impl Xcp {
    /// A packet leaves for the wire at `now`: account it and write its share (§3.5).
    fn on_departure(&mut self, now: SimTime, packet: &mut Packet) {
        let queued_bytes = self.fifo.backlog().1;
        while now >= self.interval_end {
            self.end_interval(self.interval_end, queued_bytes);
        }
        let bytes = packet.wire_bytes as f64;
        self.sums.input_bytes += bytes;
        let left_behind = queued_bytes;
        self.sums.min_queue_bytes = Some(
            self.sums
                .min_queue_bytes
                .map_or(left_behind, |q| q.min(left_behind)),
        );
        if packet.kind == PacketKind::Data && packet.xcp.is_present() && packet.xcp.rtt_us > 0 {
            let rtt = packet.xcp.rtt_us as f64 * 1e-6;
            let cwnd = packet.xcp.cwnd_bytes as f64;
            self.sums.rtt_bytes += rtt * bytes;
            self.sums.rtt_bytes_per_cwnd += rtt * bytes / cwnd;
            self.sums.xcp_bytes += bytes;
            let share = self.feedback(rtt, bytes, cwnd) as f32;
            packet.xcp.feedback_bytes = packet.xcp.feedback_bytes.min(share);
        }
    }
}

impl ScheduledQdisc for Xcp {
    fn enqueue(&mut self, now: SimTime, packet: Packet) -> Result<(), (Packet, DropReason)> {
        self.fifo.enqueue(now, packet)
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Dequeued> {
        let mut next = self.fifo.dequeue(now, dropped)?;
        self.on_departure(now, &mut next.packet);
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
    use crate::packet::XcpHeader;

    /// A departure at `now_ms` leaving `queued_bytes` behind.
    fn depart(x: &mut Xcp, now_ms: f64, queued_bytes: u64, packet: &mut Packet) {
        let now = SimTime::ZERO + SimDuration::from_secs_f64(now_ms / 1e3);
        // Fill the queue to `queued_bytes` with 1000-byte packets that stay behind.
        x.fifo = Fifo::new(BufferLimit::default(), None);
        for _ in 0..queued_bytes / 1000 {
            x.fifo
                .enqueue(now, Packet::test_data(1000, 0))
                .expect("no limit");
        }
        x.on_departure(now, packet);
    }

    fn router() -> Xcp {
        Xcp::new(&config(), BufferLimit::default(), 8_000_000, None)
    }

    fn segment(cwnd: u32, rtt_ms: u32) -> Packet {
        Packet {
            xcp: XcpHeader {
                cwnd_bytes: cwnd,
                rtt_us: rtt_ms * 1000,
                feedback_bytes: f32::INFINITY,
            },
            ..Packet::test_data(1000, 0)
        }
    }

    fn config() -> XcpConfig {
        XcpConfig::default()
    }

    #[test]
    fn the_defaults_are_the_papers() {
        let c = config();
        assert_eq!((c.alpha, c.beta, c.gamma), (0.4, 0.226, 0.1));
    }

    #[test]
    fn one_flow_gets_phi_spread_over_its_window_of_packets() {
        // 8 Mbit/s = 1 MB/s. First interval (100 ms): one flow, cwnd 10 000 B, RTT 100 ms,
        // sends 10 packets of 1000 B, each leaving 2000 B queued behind it: y = 10 kB / 0.1 s = 100 kB/s,
        // S = 900 kB/s, Q = 2000 B. φ = 0.4·0.1·900 000 − 0.226·2000 = 35 548 B;
        // h = max(0, 0.1·10 000 − 35 548) = 0.
        // ξp = φ/(d·Σ rtt·s/cwnd) = 35 548 / (0.1 · 10·0.1·1000/10 000) = 3 554 800;
        // p_i = ξp·rtt²·s/cwnd = 3 554 800·0.01·0.1 = 3 554.8 B per packet: over the
        // ten packets of the next window, φ.
        let mut x = router();
        for i in 0..10 {
            let mut p = segment(10_000, 100);
            depart(&mut x, i as f64 * 10.0, 2000, &mut p);
        }
        let mut p = segment(10_000, 100);
        depart(&mut x, 100.0, 2000, &mut p);
        let phi = 0.4 * 0.1 * 900_000.0 - 0.226 * 2000.0;
        assert!(
            (x.aggregate_feedback() - phi).abs() < 1e-6,
            "{}",
            x.aggregate_feedback()
        );
        assert_eq!(x.shuffled, 0.0);
        let expected = phi / 10.0;
        assert!(
            (p.xcp.feedback_bytes as f64 - expected).abs() < 0.01,
            "{} vs {expected}",
            p.xcp.feedback_bytes
        );
    }

    #[test]
    fn a_persistent_queue_gives_negative_feedback_proportional_to_throughput() {
        // The link full (y = C = 1 MB/s: 100 packets in 100 ms) with 50 000 B standing behind
        // every departure:
        // φ = 0 − 0.226·50 000 = −11 300 B; h = max(0, 0.1·100 000 − 11 300) = 0.
        // ξn = 11 300/(0.1·100 000) = 1.13; n_i = ξn·rtt·s = 1.13·0.1·1000 = 113 B.
        let mut x = router();
        for i in 0..100 {
            let mut p = segment(100_000, 100);
            depart(&mut x, i as f64, 50_000, &mut p);
        }
        let mut p = segment(100_000, 100);
        depart(&mut x, 100.0, 50_000, &mut p);
        assert!((x.aggregate_feedback() + 11_300.0).abs() < 1e-6);
        assert!(
            (p.xcp.feedback_bytes as f64 + 113.0).abs() < 0.01,
            "{}",
            p.xcp.feedback_bytes
        );
    }

    #[test]
    fn at_equilibrium_shuffling_moves_bandwidth_from_the_faster_flow() {
        // Two flows fill the link exactly (φ ≈ 0 with no queue): h = γ·y·d = 0.1·100 000 =
        // 10 000 B is taken from each in proportion to throughput and given back equally per
        // flow, so the flow with the larger window gets less (net negative) and the smaller
        // one more (net positive).
        let mut x = router();
        for i in 0..100 {
            // 75 packets of the big flow (cwnd 75 000), 25 of the small one (cwnd 25 000).
            let cwnd = if i % 4 == 0 { 25_000 } else { 75_000 };
            let mut p = segment(cwnd, 100);
            depart(&mut x, i as f64, 0, &mut p);
        }
        let (mut big, mut small) = (segment(75_000, 100), segment(25_000, 100));
        depart(&mut x, 100.0, 0, &mut big);
        depart(&mut x, 100.0, 0, &mut small);
        assert!(x.aggregate_feedback().abs() < 1e-6);
        assert!((x.shuffled - 10_000.0).abs() < 1e-6);
        assert!(big.xcp.feedback_bytes < 0.0, "{}", big.xcp.feedback_bytes);
        assert!(
            small.xcp.feedback_bytes > 0.0,
            "{}",
            small.xcp.feedback_bytes
        );
    }

    #[test]
    fn feedback_never_rises_above_what_the_sender_or_an_earlier_router_granted() {
        let mut x = router();
        for i in 0..10 {
            let mut p = segment(10_000, 100);
            depart(&mut x, i as f64 * 10.0, 0, &mut p);
        }
        let mut p = segment(10_000, 100);
        p.xcp.feedback_bytes = 5.0;
        depart(&mut x, 100.0, 0, &mut p);
        assert_eq!(p.xcp.feedback_bytes, 5.0);
    }
}
