//! Random Early Detection: Floyd & Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1(4), 1993 (cited below as [FJ93]), with the gentle variant
//! (Floyd 2000, "Recommendation on using the gentle_ variant of RED"), byte mode (ns-2
//! `bytes_`), ECN marking (RFC 3168) and adaptive RED (Floyd, Gummadi & Shenker, "Adaptive RED:
//! An Algorithm for Increasing the Robustness of RED's Active Queue Management", 2001, cited as
//! [FGS01]). ns-2's `queue/red.cc` and Linux's `include/net/red.h` were read for the details
//! the papers leave open; where they disagree, the choice is said next to the code and in
//! docs/queues.md.
//!
//! RED decides at arrival and serves first in, first out, so it keeps the link's
//! one-event-per-packet path. Queue lengths are the link's: packets (or bytes) waiting for the
//! transmitter, the one in service excluded, as ns-2's `q_->length()` counts them.

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::RedConfig;

use super::{ArrivalContext, ArrivalQdisc, BufferLimit, DropReason, QdiscEnv, Verdict};
use crate::packet::{Ecn, Packet};
use crate::rng::Rng;

/// How often adaptive RED revises max_p: [FGS01] Fig. 2, `interval` = 0.5 s (Linux: a timer
/// of HZ/2).
pub const ADAPTATION_INTERVAL: SimDuration = SimDuration::from_millis(500);

#[derive(Clone, Debug)]
pub struct Red {
    /// Thresholds on the average queue, in packets (byte mode: in mean-sized packets).
    min_th: f64,
    max_th: f64,
    w_q: f64,
    /// The current max_p: the configured one, or the one adaptive RED has moved it to.
    max_p: f64,
    gentle: bool,
    adaptive: bool,
    byte_mode: bool,
    ecn: bool,
    mean_packet_bytes: f64,
    /// Transmission time of a mean-sized packet at the link's rate, in nanoseconds: [FJ93]'s
    /// "typical transmission time", the unit that turns idle time into the number m of
    /// packets that could have been sent.
    packet_time_ns: f64,
    /// The average queue, avg of [FJ93].
    avg: f64,
    /// Packets that arrived since the last mark or drop and were not marked ([FJ93] §7:
    /// "the number of unmarked packets that have arrived since the last marked packet").
    count: u64,
    /// When adaptive RED next revises max_p.
    next_adaptation: SimTime,
    rng: Rng,
    /// The link's buffer limit and rate, as the link was built (see
    /// `AnyArrivalQdisc::on_arrival` for why RED keeps its own copy).
    pub(super) limit: BufferLimit,
    pub(super) rate_bps: u64,
}

/// Where the average queue puts an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Region {
    /// avg < min_th: admit.
    Below,
    /// min_th ≤ avg < max_th, or the gentle region: drop or mark with a probability that
    /// starts from this p_b.
    Early(f64),
    /// avg ≥ max_th (gentle: ≥ 2·max_th): drop.
    Forced,
}

impl Red {
    /// A RED queue for the link `env` describes; its `packet_bytes` (the scenario's data
    /// packet) is the mean packet size unless the configuration gives one.
    pub fn new(config: &RedConfig, env: QdiscEnv) -> Red {
        let QdiscEnv {
            limit,
            rate_bps,
            packet_bytes,
            rng,
        } = env;
        debug_assert!(
            0.0 <= config.min_th && config.min_th < config.max_th,
            "thresholds validated by the scenario parser"
        );
        let mean_packet_bytes = config.mean_packet_bytes.unwrap_or(packet_bytes).max(1) as f64;
        let packet_time_ns = mean_packet_bytes * 8.0 * 1e9 / rate_bps as f64;
        let w_q = match config.w_q {
            Some(w_q) => w_q,
            // [FGS01]: w_q = 1 − exp(−1/C), C the link capacity in mean-sized packets per
            // second, so that the average's time constant is about a second whatever the
            // rate (ns-2 does the same for q_weight_ = 0).
            None if config.adaptive => 1.0 - (-packet_time_ns / 1e9).exp(),
            // ns-2's q_weight_ default.
            None => 0.002,
        };
        Red {
            min_th: config.min_th,
            max_th: config.max_th,
            w_q,
            max_p: config.max_p,
            gentle: config.gentle,
            adaptive: config.adaptive,
            byte_mode: config.byte_mode,
            ecn: config.ecn,
            mean_packet_bytes,
            packet_time_ns,
            avg: 0.0,
            count: 0,
            next_adaptation: SimTime::ZERO + ADAPTATION_INTERVAL,
            rng,
            limit,
            rate_bps,
        }
    }

    /// The average queue, in packets (byte mode: mean-sized packets).
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// The current max_p (moved by adaptive RED).
    pub fn max_p(&self) -> f64 {
        self.max_p
    }

    /// The EWMA weight in use.
    pub fn w_q(&self) -> f64 {
        self.w_q
    }

    /// (1 − w_q)^m for an idle time, m = idle / typical transmission time ([FJ93] §4 and
    /// Fig. 2: "m ← f(time − q_time)", f linear in time). m is kept real: ns-2 truncates it
    /// to an integer, Linux tabulates it; the law is the same at whole packet times.
    fn idle_decay(&self, idle: SimDuration) -> f64 {
        let m = idle.as_nanos() as f64 / self.packet_time_ns;
        (1.0 - self.w_q).powf(m)
    }

    /// The instantaneous queue q of [FJ93]: packets waiting, or in byte mode bytes waiting in
    /// units of the mean packet size (ns-2 `queue_in_bytes_`, thresholds scaled alike).
    fn instantaneous_queue(&self, context: &ArrivalContext) -> f64 {
        if self.byte_mode {
            context.waiting_bytes as f64 / self.mean_packet_bytes
        } else {
            context.waiting_packets as f64
        }
    }

    /// [FJ93] Fig. 2, "calculate the new average queue size avg".
    fn update_average(&mut self, context: &ArrivalContext) {
        match context.idle_since {
            // The link was idle (nothing waiting, nothing in service) since `since`: the
            // average decays as if m packets had found the queue empty, avg ← (1 − w_q)^m·avg.
            // As in the paper and Linux (`red_calc_qavg_from_idle_time`), this replaces the
            // EWMA step for this arrival; ns-2 applies m + 1 steps.
            Some(since) => self.avg *= self.idle_decay(context.now.saturating_since(since)),
            // avg ← (1 − w_q)·avg + w_q·q.
            None => {
                let q = self.instantaneous_queue(context);
                self.avg = (1.0 - self.w_q) * self.avg + self.w_q * q;
            }
        }
    }

    /// p_b for the current average and a packet of `wire_bytes`.
    fn region(&self, wire_bytes: u32) -> Region {
        let avg = self.avg;
        let p_b = if avg < self.min_th {
            return Region::Below;
        } else if avg < self.max_th {
            // [FJ93] Fig. 2: p_b ← max_p·(avg − min_th)/(max_th − min_th).
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle && avg < 2.0 * self.max_th {
            // Floyd 2000: from max_p at max_th to 1 at 2·max_th, linearly.
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        } else {
            return Region::Forced;
        };
        let p_b = if self.byte_mode {
            // [FJ93] §4: p_b ← p_b·PacketSize/MaximumPacketSize, here relative to the mean
            // packet size as in ns-2's byte mode, so a large packet is more likely dropped.
            p_b * wire_bytes as f64 / self.mean_packet_bytes
        } else {
            p_b
        };
        Region::Early(p_b.min(1.0))
    }

    /// [FJ93] §7, method 2: p_a = p_b/(1 − count·p_b), 1 once count·p_b ≥ 1. With count the
    /// unmarked arrivals since the last mark, the n-th packet after a mark is the next one
    /// marked with probability p_b for every n in 1..=1/p_b: marks are spaced uniformly, not
    /// geometrically. (Fig. 2 increments count before testing, which shifts the range to
    /// 1..1/p_b − 1, as ns-2 does; Linux's divisionless Fig. 17 version gives 1..=1/p_b.)
    fn early_probability(&self, p_b: f64) -> f64 {
        let spent = self.count as f64 * p_b;
        if spent < 1.0 {
            (p_b / (1.0 - spent)).min(1.0)
        } else {
            1.0
        }
    }

    /// Adaptive RED's revisions of max_p due up to `now` ([FGS01] Fig. 2), each with the
    /// average as it stood at its own instant. Between arrivals the average changes only by
    /// the idle decay: the link is either busy throughout (its busy period ends only after
    /// the last admitted packet) or idle since `idle_since`, as Linux's timer applies
    /// `red_calc_qavg_from_idle_time` before deciding.
    fn adapt_until(&mut self, now: SimTime, idle_since: Option<SimTime>) {
        while self.next_adaptation <= now {
            let tick = self.next_adaptation;
            let avg = match idle_since {
                Some(since) if since < tick => self.avg * self.idle_decay(tick - since),
                _ => self.avg,
            };
            self.adapt(avg);
            self.next_adaptation = tick + ADAPTATION_INTERVAL;
        }
    }

    /// [FGS01] Fig. 2: target = [min_th + 0.4·(max_th − min_th), min_th + 0.6·(max_th −
    /// min_th)]; above it and max_p ≤ 0.5: max_p += α = min(0.01, max_p/4); below it and
    /// max_p ≥ 0.01: max_p ·= β = 0.9.
    fn adapt(&mut self, avg: f64) {
        let span = self.max_th - self.min_th;
        let (target_low, target_high) = (self.min_th + 0.4 * span, self.min_th + 0.6 * span);
        if avg > target_high && self.max_p <= 0.5 {
            self.max_p += (0.01f64).min(self.max_p / 4.0);
        } else if avg < target_low && self.max_p >= 0.01 {
            self.max_p *= 0.9;
        }
    }
}

impl ArrivalQdisc for Red {
    /// Kept out of line, so that `Link::enqueue`, which every drop-tail packet runs through,
    /// does not grow by RED's body (see `AnyArrivalQdisc::on_arrival`).
    #[inline(never)]
    fn on_arrival(&mut self, context: &ArrivalContext, packet: &mut Packet) -> Verdict {
        if self.adaptive {
            self.adapt_until(context.now, context.idle_since);
        }
        self.update_average(context);
        let region = self.region(packet.wire_bytes);
        // A packet that finds the transmitter idle goes straight into service: it never waits,
        // so RED neither drops nor marks it (ns-2: "a packet that arrives to an idle queue will
        // never be dropped"). It still counts as an unmarked arrival.
        if !context.transmitter_busy {
            match region {
                Region::Early(_) => self.count += 1,
                Region::Below | Region::Forced => self.count = 0,
            }
            return Verdict::Admit;
        }
        // The buffer is the hard limit: RED has updated its average first (ns-2 and Linux
        // alike) and the drop resets count, as ns-2 does for every forced drop.
        if context.limit.exceeded_by(
            context.waiting_packets + 1,
            context.waiting_bytes + packet.wire_bytes as u64,
        ) {
            self.count = 0;
            return Verdict::Drop(DropReason::Overflow);
        }
        match region {
            // [FJ93] Fig. 2: "else count ← −1", i.e. no unmarked packet counted yet.
            Region::Below => {
                self.count = 0;
                Verdict::Admit
            }
            // [FJ93] Fig. 2: "else if max_th ≤ avg: mark the arriving packet, count ← 0". Even
            // an ECN-capable packet is dropped here, as in ns-2 (`setbit_` acts in drop_early
            // only) and Linux with `harddrop`: past this point the queue is persistently
            // congested, and marks would let ECN-capable flows that ignore CE keep it full
            // (the concern of RFC 3168 §7).
            Region::Forced => {
                self.count = 0;
                Verdict::Drop(DropReason::Aqm)
            }
            Region::Early(p_b) => {
                let p_a = self.early_probability(p_b);
                if self.rng.chance(p_a) {
                    self.count = 0;
                    // RFC 3168 §5: set CE instead of dropping when the transport is
                    // ECN-capable (ECT, or already CE upstream).
                    if self.ecn && packet.ecn != Ecn::NotEct {
                        packet.ecn = Ecn::Ce;
                        Verdict::Admit
                    } else {
                        Verdict::Drop(DropReason::Aqm)
                    }
                } else {
                    self.count += 1;
                    Verdict::Admit
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::qdisc::BufferLimit;

    /// 10 Mbit/s of 1500-byte packets: a typical transmission time of 1.2 ms.
    const RATE: u64 = 10_000_000;
    const PACKET: u64 = 1500;
    const PACKET_TIME_NS: u64 = 1_200_000;

    fn config() -> RedConfig {
        RedConfig {
            w_q: Some(0.002),
            ..RedConfig::default()
        }
    }

    fn red(config: RedConfig) -> Red {
        let env = QdiscEnv {
            limit: BufferLimit::default(),
            rate_bps: RATE,
            packet_bytes: PACKET,
            rng: Rng::for_component(1, "red-test"),
        };
        Red::new(&config, env)
    }

    fn packet(wire_bytes: u32, ecn: Ecn) -> Packet {
        Packet {
            ecn,
            ..Packet::test_data(wire_bytes, 0)
        }
    }

    fn at(ns: u64) -> SimTime {
        SimTime::from_nanos(ns)
    }

    /// An arrival at `now` that finds the transmitter busy and `waiting` full-sized packets
    /// queued, with no buffer limit.
    fn busy(now: SimTime, waiting: u64) -> ArrivalContext {
        ArrivalContext {
            now,
            waiting_packets: waiting,
            waiting_bytes: waiting * PACKET,
            transmitter_busy: true,
            idle_since: None,
            rate_bps: RATE,
            limit: BufferLimit::default(),
        }
    }

    /// An arrival at `now` to a link idle since `since`.
    fn idle(now: SimTime, since: SimTime) -> ArrivalContext {
        ArrivalContext {
            transmitter_busy: false,
            idle_since: Some(since),
            ..busy(now, 0)
        }
    }

    fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
        (actual - expected).abs() <= tolerance * expected.abs().max(1e-300)
    }

    #[test]
    fn average_follows_the_ewma_law() {
        // [FJ93] §4: n arrivals at a constant queue q from avg = 0 give
        // avg = q·(1 − (1 − w_q)^n). Thresholds out of reach: nothing is dropped.
        let mut q = red(RedConfig {
            min_th: 1000.0,
            max_th: 2000.0,
            ..config()
        });
        let mut p = packet(1500, Ecn::NotEct);
        for n in 1..=1000u32 {
            assert_eq!(
                q.on_arrival(&busy(at(n as u64), 10), &mut p),
                Verdict::Admit
            );
            let expected = 10.0 * (1.0 - 0.998f64.powi(n as i32));
            assert!(
                close(q.average(), expected, 1e-12),
                "n = {n}: {}",
                q.average()
            );
        }
        // 10·(1 − 0.998^1000) = 10·(1 − 0.135065) = 8.64935.
        assert!((q.average() - 8.64935).abs() < 1e-5);
    }

    #[test]
    fn idle_time_decays_the_average_by_m_packet_times() {
        // [FJ93] Fig. 2: after an idle period avg ← (1 − w_q)^m·avg, m = idle time /
        // typical transmission time. 120 ms idle at 1.2 ms per 1500-byte packet: m = 100.
        let mut q = red(config());
        q.avg = 8.0;
        let mut p = packet(1500, Ecn::NotEct);
        let now = at(1_000_000_000);
        let since = at(1_000_000_000 - 100 * PACKET_TIME_NS);
        assert_eq!(q.on_arrival(&idle(now, since), &mut p), Verdict::Admit);
        // 8·0.998^100 = 8·0.818567 = 6.54853: the idle step replaces this arrival's EWMA step.
        assert!(close(q.average(), 8.0 * 0.998f64.powi(100), 1e-12));
        assert!((q.average() - 6.54853).abs() < 1e-5);

        // Half a packet time: m = 0.5.
        q.avg = 8.0;
        let since = at(1_000_000_000 - PACKET_TIME_NS / 2);
        q.on_arrival(&idle(now, since), &mut p);
        assert!(close(q.average(), 8.0 * 0.998f64.sqrt(), 1e-12));

        // A link that went idle just now: m = 0, the average stands.
        q.avg = 8.0;
        q.on_arrival(&idle(now, now), &mut p);
        assert_eq!(q.average(), 8.0);

        // mean_packet_bytes sets the packet time: 1000 B at 10 Mbit/s is 0.8 ms, so the same
        // 120 ms make m = 150.
        let mut q = red(RedConfig {
            mean_packet_bytes: Some(1000),
            ..config()
        });
        q.avg = 8.0;
        let since = at(1_000_000_000 - 100 * PACKET_TIME_NS);
        q.on_arrival(&idle(now, since), &mut p);
        assert!(close(q.average(), 8.0 * 0.998f64.powi(150), 1e-12));
    }

    #[test]
    fn drop_probability_rises_linearly_between_the_thresholds() {
        // [FJ93] Fig. 2: p_b = max_p·(avg − min_th)/(max_th − min_th), min_th 5, max_th 15,
        // max_p 0.1.
        let mut q = red(RedConfig {
            gentle: false,
            ..config()
        });
        for (avg, expected) in [
            (4.99, None),
            (5.0, Some(0.0)),
            (7.5, Some(0.025)),
            (10.0, Some(0.05)),
            (14.0, Some(0.09)),
        ] {
            q.avg = avg;
            match (q.region(1500), expected) {
                (Region::Below, None) => {}
                (Region::Early(p_b), Some(e)) => {
                    assert!((p_b - e).abs() < 1e-15, "avg {avg}: {p_b}")
                }
                (region, _) => panic!("avg {avg}: {region:?}"),
            }
        }
        // Without gentle, avg ≥ max_th drops every packet.
        q.avg = 15.0;
        assert_eq!(q.region(1500), Region::Forced);
        q.avg = 14.999;
        assert!(matches!(q.region(1500), Region::Early(_)));
    }

    #[test]
    fn gentle_mode_rises_from_max_p_to_one_up_to_twice_max_th() {
        // Floyd 2000: between max_th (15) and 2·max_th (30), p_b goes linearly from max_p
        // (0.1) to 1: p_b = 0.1 + 0.9·(avg − 15)/15.
        let mut q = red(config());
        for (avg, expected) in [(15.0, 0.1), (22.5, 0.55), (27.0, 0.82), (29.9, 0.994)] {
            q.avg = avg;
            match q.region(1500) {
                Region::Early(p_b) => assert!((p_b - expected).abs() < 1e-12, "avg {avg}: {p_b}"),
                region => panic!("avg {avg}: {region:?}"),
            }
        }
        q.avg = 30.0;
        assert_eq!(q.region(1500), Region::Forced);
        // There every packet is dropped and count restarts ([FJ93] Fig. 2).
        q.count = 7;
        let mut p = packet(1500, Ecn::NotEct);
        q.avg = 40.0;
        assert_eq!(
            q.on_arrival(&busy(at(1), 40), &mut p),
            Verdict::Drop(DropReason::Aqm)
        );
        assert_eq!(q.count, 0);
    }

    /// Gaps (in arrivals) between successive early drops with the average held at `avg`.
    fn drop_gaps(avg: f64, arrivals: u64) -> Vec<u64> {
        let mut q = red(RedConfig {
            gentle: false,
            ..config()
        });
        let mut gaps = Vec::new();
        let mut since_last = 0;
        for i in 0..arrivals {
            q.avg = avg;
            let mut p = packet(1500, Ecn::NotEct);
            // The queue stands at the average, so the EWMA step keeps it there.
            let verdict = q.on_arrival(&busy(at(i), avg as u64), &mut p);
            since_last += 1;
            if verdict == Verdict::Drop(DropReason::Aqm) {
                gaps.push(since_last);
                since_last = 0;
            }
        }
        gaps.remove(0); // the first gap starts at an arbitrary packet
        gaps
    }

    #[test]
    fn early_drops_are_spaced_uniformly() {
        // [FJ93] §7, method 2: with p_a = p_b/(1 − count·p_b) the number X of arrivals from
        // one drop to the next is uniform on {1, ..., 1/p_b}: P[X = n] = p_b. At avg = 10,
        // p_b = 0.05: X uniform on 1..=20 (a geometric spacing would exceed 20 with
        // probability 0.95^20 = 36 %).
        let gaps = drop_gaps(10.0, 200_000);
        let n = gaps.len() as f64;
        assert!(
            gaps.iter().all(|&g| (1..=20).contains(&g)),
            "gap outside 1..=20"
        );
        // Pearson's chi-square against 20 equally likely values, 19 degrees of freedom: the
        // 0.1 % critical value is 43.82.
        let expected = n / 20.0;
        let chi2: f64 = (1..=20u64)
            .map(|v| {
                let observed = gaps.iter().filter(|&&g| g == v).count() as f64;
                (observed - expected).powi(2) / expected
            })
            .sum();
        assert!(chi2 < 43.82, "chi-square {chi2} over {n} gaps");
        // Mean (1 + 20)/2 = 10.5, standard deviation sqrt((20² − 1)/12) = 5.766; within 5
        // standard errors.
        let mean = gaps.iter().sum::<u64>() as f64 / n;
        assert!(
            (mean - 10.5).abs() < 5.0 * 5.766 / n.sqrt(),
            "mean gap {mean}"
        );
    }

    #[test]
    fn early_drop_rate_is_the_reciprocal_of_the_mean_gap() {
        // At avg = 7.5, p_b = 0.025: gaps uniform on 1..=40, mean 20.5, so a long run drops
        // 1/20.5 = 4.878 % of arrivals. Renewal theory: the count of drops in N arrivals has
        // variance N·Var[X]/E[X]³ = 200 000·133.25/8615.1 = 3093 (sd 55.6); allow 5 sd.
        let arrivals = 200_000;
        let drops = drop_gaps(7.5, arrivals).len() as f64 + 1.0;
        let expected = arrivals as f64 / 20.5;
        assert!(
            (drops - expected).abs() < 5.0 * 55.6,
            "{drops} drops, expected {expected:.0}"
        );
    }

    #[test]
    fn count_restarts_below_min_th_after_drops_and_on_overflow() {
        let mut q = red(config());
        let mut p = packet(1500, Ecn::NotEct);
        // [FJ93] Fig. 2: below min_th count is reset.
        q.count = 7;
        q.avg = 2.0;
        assert_eq!(q.on_arrival(&busy(at(1), 2), &mut p), Verdict::Admit);
        assert_eq!(q.count, 0);
        // An arrival that finds the transmitter idle is never dropped, even with the average
        // far above max_th, and counts as an unmarked arrival in the early region.
        q.avg = 100.0;
        assert_eq!(q.on_arrival(&idle(at(2), at(2)), &mut p), Verdict::Admit);
        q.avg = 10.0;
        q.count = 3;
        assert_eq!(q.on_arrival(&idle(at(3), at(3)), &mut p), Verdict::Admit);
        assert_eq!(q.count, 4);
        // Overflow of the buffer drops whatever the average and resets count (ns-2's forced
        // drop).
        let full = ArrivalContext {
            limit: BufferLimit {
                packets: Some(10),
                bytes: None,
            },
            ..busy(at(4), 10)
        };
        q.avg = 2.0;
        q.count = 5;
        assert_eq!(
            q.on_arrival(&full, &mut p),
            Verdict::Drop(DropReason::Overflow)
        );
        assert_eq!(q.count, 0);
        // One below the limit is admitted.
        let room = ArrivalContext {
            waiting_packets: 9,
            waiting_bytes: 9 * PACKET,
            ..full
        };
        assert_eq!(q.on_arrival(&room, &mut p), Verdict::Admit);
    }

    #[test]
    fn byte_mode_measures_bytes_and_scales_the_probability_by_size() {
        let mut q = red(RedConfig {
            byte_mode: true,
            mean_packet_bytes: Some(1000),
            gentle: false,
            ..config()
        });
        // The queue is 5000 bytes = 5 mean-sized packets: avg = 0.002·5 from 0.
        let mut p = packet(1000, Ecn::NotEct);
        let context = ArrivalContext {
            waiting_bytes: 5000,
            waiting_packets: 2,
            ..busy(at(1), 0)
        };
        q.on_arrival(&context, &mut p);
        assert!(close(q.average(), 0.01, 1e-12));
        // [FJ93] §4: p_b·size/mean. At avg 10, p_b = 0.05: 0.025 for 500 bytes, 0.05 for
        // 1000, 0.075 for 1500.
        q.avg = 10.0;
        for (size, expected) in [(500, 0.025), (1000, 0.05), (1500, 0.075)] {
            match q.region(size) {
                Region::Early(p_b) => assert!((p_b - expected).abs() < 1e-15),
                region => panic!("{region:?}"),
            }
        }
        // Capped at 1: max_p 1 at avg 14.9 gives 0.99, times 1.5.
        q.max_p = 1.0;
        q.avg = 14.9;
        assert_eq!(q.region(1500), Region::Early(1.0));
    }

    #[test]
    fn adaptive_red_moves_max_p_every_half_second() {
        // [FGS01] Fig. 2 with min_th 5, max_th 15: target [9, 11]. Above it max_p grows by
        // min(0.01, max_p/4), below it shrinks by 0.9, at 0.5, 1.0, 1.5 s...
        let mut q = red(RedConfig {
            adaptive: true,
            ..config()
        });
        let mut p = packet(1500, Ecn::NotEct);
        let mut arrive = |q: &mut Red, ms: u64, avg: f64| {
            q.avg = avg;
            q.on_arrival(&busy(at(ms * 1_000_000), avg as u64), &mut p);
            q.max_p()
        };
        // avg 14 > 11: 0.1 + 0.01 at 0.5 s, + 0.01 at 1.0 s, + 0.01 at 1.5 s.
        assert!(close(arrive(&mut q, 400, 14.0), 0.1, 1e-15));
        assert!(close(arrive(&mut q, 500, 14.0), 0.11, 1e-12));
        assert!(close(arrive(&mut q, 1200, 14.0), 0.12, 1e-12));
        assert!(close(arrive(&mut q, 1700, 14.0), 0.13, 1e-12));
        // avg 6 < 9: two revisions (2.0 and 2.5 s) in one catch-up: 0.13·0.9·0.9 = 0.1053.
        assert!(close(arrive(&mut q, 2600, 6.0), 0.1053, 1e-12));
        // avg 10, inside the target: unchanged at 3.0 s.
        assert!(close(arrive(&mut q, 3000, 10.0), 0.1053, 1e-12));

        // Bounds: max_p grows only while ≤ 0.5 (0.5 → 0.51, then stays) ...
        let mut q = red(RedConfig {
            adaptive: true,
            max_p: 0.5,
            ..config()
        });
        assert!(close(arrive(&mut q, 500, 14.0), 0.51, 1e-12));
        assert!(close(arrive(&mut q, 1000, 14.0), 0.51, 1e-12));
        // ... by max_p/4 when that is below 0.01 (0.02 → 0.025 → 0.03125) ...
        let mut q = red(RedConfig {
            adaptive: true,
            max_p: 0.02,
            ..config()
        });
        assert!(close(arrive(&mut q, 500, 14.0), 0.025, 1e-12));
        assert!(close(arrive(&mut q, 1000, 14.0), 0.03125, 1e-12));
        // ... and shrinks only while ≥ 0.01 (0.011 → 0.0099, then stays).
        let mut q = red(RedConfig {
            adaptive: true,
            max_p: 0.011,
            ..config()
        });
        assert!(close(arrive(&mut q, 500, 2.0), 0.0099, 1e-12));
        assert!(close(arrive(&mut q, 1000, 2.0), 0.0099, 1e-12));
    }

    #[test]
    fn adaptive_red_sees_the_average_decay_while_the_link_is_idle() {
        // avg 14 when the link goes idle at 0.45 s. At 0.5 s the idle decay gives
        // 14·0.998^(50/1.2) = 14·0.91996 = 12.88 > 11: max_p 0.1 → 0.11. At 1.0 s,
        // 14·0.998^(550/1.2) = 14·0.39946 = 5.59 < 9: 0.11 → 0.099.
        let mut q = red(RedConfig {
            adaptive: true,
            ..config()
        });
        q.avg = 14.0;
        let mut p = packet(1500, Ecn::NotEct);
        q.on_arrival(&idle(at(1_200_000_000), at(450_000_000)), &mut p);
        assert!(close(q.max_p(), 0.099, 1e-12), "{}", q.max_p());
        // The arrival's own idle step: m = 750/1.2 = 625.
        assert!(close(q.average(), 14.0 * 0.998f64.powf(625.0), 1e-12));
    }

    #[test]
    fn adaptive_red_derives_w_q_from_the_link_capacity() {
        // [FGS01]: w_q = 1 − exp(−1/C); 10 Mbit/s of 1500-byte packets is C = 833.3 packets/s:
        // w_q = 1 − exp(−0.0012) = 0.00119928.
        let adaptive = red(RedConfig {
            adaptive: true,
            w_q: None,
            ..RedConfig::default()
        });
        let capacity: f64 = 10e6 / (8.0 * 1500.0);
        assert!(close(adaptive.w_q(), 1.0 - (-1.0 / capacity).exp(), 1e-12));
        assert!((adaptive.w_q() - 0.00119928).abs() < 1e-8);
        // Plain RED keeps ns-2's 0.002; a given w_q is kept in either mode.
        assert_eq!(red(RedConfig::default()).w_q(), 0.002);
        let given = red(RedConfig {
            adaptive: true,
            w_q: Some(0.01),
            ..RedConfig::default()
        });
        assert_eq!(given.w_q(), 0.01);
    }

    #[test]
    fn ecn_marks_capable_packets_instead_of_dropping_them_early() {
        let mut q = red(RedConfig {
            ecn: true,
            ..config()
        });
        // avg 10: p_b = 0.05, and 19 unmarked arrivals make p_a = 0.05/(1 − 0.95) = 1.
        let early = |q: &mut Red, avg: f64, ecn: Ecn| {
            q.avg = avg;
            q.count = 19;
            let mut p = packet(1500, ecn);
            let verdict = q.on_arrival(&busy(at(1), avg as u64), &mut p);
            (verdict, p.ecn, q.count)
        };
        assert_eq!(early(&mut q, 10.0, Ecn::Ect), (Verdict::Admit, Ecn::Ce, 0));
        // Already CE upstream: still ECN-capable, stays CE.
        assert_eq!(early(&mut q, 10.0, Ecn::Ce), (Verdict::Admit, Ecn::Ce, 0));
        // Not ECN-capable: dropped.
        assert_eq!(
            early(&mut q, 10.0, Ecn::NotEct),
            (Verdict::Drop(DropReason::Aqm), Ecn::NotEct, 0)
        );
        // The gentle region is early too: p_b = 0.55 at avg 22.5, p_a = 1 with count 19.
        assert_eq!(early(&mut q, 22.5, Ecn::Ect), (Verdict::Admit, Ecn::Ce, 0));
        // Past 2·max_th the drop is forced, ECN-capable or not (ns-2; Linux `harddrop`).
        assert_eq!(
            early(&mut q, 30.0, Ecn::Ect),
            (Verdict::Drop(DropReason::Aqm), Ecn::Ect, 0)
        );
        // A full buffer drops.
        let full = ArrivalContext {
            limit: BufferLimit {
                packets: Some(10),
                bytes: None,
            },
            ..busy(at(2), 10)
        };
        let mut p = packet(1500, Ecn::Ect);
        assert_eq!(
            q.on_arrival(&full, &mut p),
            Verdict::Drop(DropReason::Overflow)
        );
        // Without `ecn` an ECN-capable packet is dropped like any other.
        let mut plain = red(config());
        assert_eq!(
            early(&mut plain, 10.0, Ecn::Ect),
            (Verdict::Drop(DropReason::Aqm), Ecn::Ect, 0)
        );
    }

    #[test]
    fn a_link_built_with_red_drops_early_and_counts_it() {
        use crate::net::link::{Admission, Link};
        use crate::net::loss::LossProcess;
        use crate::net::qdisc::Qdisc;
        use cclab_scenario::{LossModel, QueueDiscipline};

        // w_q = 1 makes the average the queue itself: min_th 1, max_th 2, no gentle region.
        let config = QueueDiscipline::Red(RedConfig {
            min_th: 1.0,
            max_th: 2.0,
            w_q: Some(1.0),
            gentle: false,
            ..RedConfig::default()
        });
        let limit = BufferLimit {
            packets: Some(10),
            bytes: None,
        };
        let qdisc = Qdisc::build(
            &config,
            None,
            QdiscEnv {
                limit,
                rate_bps: 1_000_000,
                packet_bytes: 1000,
                rng: Rng::for_component(1, "red-link"),
            },
        );
        let no_loss = || LossProcess::new(LossModel::None, Rng::for_component(1, "none"));
        let mut link = Link::new(
            "red".into(),
            1_000_000,
            SimDuration::ZERO,
            limit,
            no_loss(),
            no_loss(),
        )
        .with_qdisc(qdisc);
        // Five packets at once: the first goes into service, the second finds 0 waiting
        // (avg 0), the third 1 (avg = min_th, p_b = 0: admitted), the fourth and fifth 2
        // (avg = max_th: dropped early although the buffer holds 10).
        let admissions: Vec<_> = (0..5)
            .map(|_| link.enqueue(at(0), packet(1000, Ecn::NotEct)))
            .collect();
        assert!(
            admissions[..3]
                .iter()
                .all(|a| matches!(a, Admission::Admitted { .. }))
        );
        assert_eq!(admissions[3], Admission::Dropped(DropReason::Aqm));
        assert_eq!(admissions[4], Admission::Dropped(DropReason::Aqm));
        assert_eq!(
            (link.stats().aqm_drops, link.stats().overflow_drops),
            (2, 0)
        );
    }
}
