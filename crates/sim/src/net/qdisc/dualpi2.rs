//! DualPI2, the DualQ Coupled AQM of RFC 9332 with a PI2 controller.
//!
//! Two queues share the link: the **L4S queue** takes packets carrying ECT(1) or CE (the L4S
//! identifier, RFC 9331 §5.1), the **classic queue** everything else. One PI controller
//! (Appendix A, `dualpi2_update`) runs on the classic queue's delay and gives the base
//! probability p':
//!
//! ```text
//! every Tupdate:  p' += alpha·(qdelay_C − target) + beta·(qdelay_C − qdelay_C,prev),  p' ∈ [0, 1]
//! classic:        p_C  = p'²        drop (mark ECT(0)) with p_C             (§2.1, §2.4)
//! L4S:            p_CL = k·p'       coupled marking, k = 2 by default       (§2.4, App. C)
//!                 p_L  = max(p_native, p_CL), p_native = step at `step_threshold`
//! ```
//!
//! Squaring p' for the classic queue and not for the L4S queue is the point of the coupling
//! (§2.1): a classic (Reno/CUBIC) flow's rate goes as 1/√p_C = 1/p' and a scalable flow's
//! (DCTCP) as 1/p_L = 1/(k·p'), so both are proportional to 1/p' and the same factor k sets
//! their ratio. Window parity of Reno (1.22/√p_C) and DCTCP (2/p_L) at equal RTTs needs
//! k = 2/1.22 ≈ 1.64; RFC 9332 recommends k = 2 (§2.1, Appendix C).
//!
//! Decisions are taken at dequeue, as in Appendix A and in Linux's default (`drop_early` off,
//! net/sched/sch_dualpi2.c): the step marking needs the packet's sojourn time, and a packet
//! dropped at the head tells the sender a queue earlier. As in Linux `must_drop`, neither queue
//! drops or coupled-marks while less than 2 MTU remain in the two queues together; the step
//! marking applies regardless.
//!
//! **Queue delay.** `qdelay_C` is the sojourn so far of the classic queue's head packet at the
//! update instant (RFC `cq.time()`; 0 when the queue is empty). Linux uses the larger of the
//! two queues' head delays; we follow the RFC's pseudocode, which controls the classic queue
//! and leaves the L4S queue to its step marking.
//!
//! **Scheduler.** Linux's weighted round robin with credits (`dequeue_packet`), not the RFC's
//! alternative time-shifted FIFO: the L4S queue is served while the credit is ≤ 0; each L4S
//! packet sent while classic packets wait adds `W_C · bytes`, each classic packet sent while
//! L4S packets wait subtracts `W_L · bytes`, with W_C = 10 %, W_L = 90 % (Linux's default
//! `c_protection` 10). The credit starts at `MTU · (W_C − W_L)` and returns there when both
//! queues empty. The L4S queue thus gets priority up to 90 % of the link, while a classic
//! queue can never be starved (RFC 9332 §4.2.2, on avoiding classic starvation).
//!
//! **Overload** (§4.2.3). When the coupled probability saturates (k·p' > 1) the L4S traffic is
//! not responding to marks as it should, or the classic load is extreme: L4S packets are then
//! dropped with the classic probability p'² (the rest marked, p_L being 1), and ECT(0)
//! packets of the classic queue are dropped rather than marked, so that unresponsive traffic
//! cannot hold the queue (Linux `drop_overload`, its default).
//!
//! **No timer event.** The update runs at `t = n · Tupdate` from time zero. Between two calls
//! the queues do not change, so the head's sojourn at an update instant is
//! `t − enqueued_at` of the head the queue has then: running every update due (`≤ now`) at the
//! start of each `enqueue` and `dequeue` gives exactly the state a periodic timer would. An
//! update due at the very instant of a call runs before it. At rest (p' = 0, previous delay
//! 0, classic queue empty) the remaining updates are identities and are skipped.

use std::collections::VecDeque;

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::DualPi2Config;

use super::{BufferLimit, Dequeued, DropReason, ScheduledQdisc};
use crate::packet::{Ecn, Packet};
use crate::rng::Rng;

/// Scheduler weights in percent (Linux `dualpi2_calculate_c_protection`, default wc = 10).
const WEIGHT_CLASSIC: i64 = 10;
const WEIGHT_L4S: i64 = 100 - WEIGHT_CLASSIC;

#[derive(Clone, Debug)]
pub struct DualPi2 {
    config: DualPi2Config,
    limit: BufferLimit,
    /// Wire bytes of a full packet: the scheduler's credit unit and the 2-MTU floor.
    mtu_bytes: u64,
    rng: Rng,
    l4s: VecDeque<Dequeued>,
    classic: VecDeque<Dequeued>,
    /// Wire bytes in both queues.
    bytes: u64,
    /// p', the PI controller's base probability.
    base_prob: f64,
    /// The classic queue delay the previous update saw.
    prev_qdelay: SimDuration,
    next_update: SimTime,
    /// Weighted round robin credit: the L4S queue's turn while ≤ 0.
    credit: i64,
    /// Packets marked CE here (Linux `ecn_mark` + `step_marks`).
    ce_marks: u64,
}

impl DualPi2 {
    pub fn new(config: DualPi2Config, limit: BufferLimit, mtu_bytes: u64, rng: Rng) -> Self {
        assert!(
            !config.tupdate.is_zero(),
            "DualPI2 tupdate must be positive (validated by the scenario)"
        );
        DualPi2 {
            next_update: SimTime::ZERO + config.tupdate,
            config,
            limit,
            mtu_bytes,
            rng,
            l4s: VecDeque::new(),
            classic: VecDeque::new(),
            bytes: 0,
            base_prob: 0.0,
            prev_qdelay: SimDuration::ZERO,
            credit: Self::initial_credit(mtu_bytes),
            ce_marks: 0,
        }
    }

    fn initial_credit(mtu_bytes: u64) -> i64 {
        mtu_bytes as i64 * (WEIGHT_CLASSIC - WEIGHT_L4S)
    }

    /// p', the base probability.
    pub fn base_probability(&self) -> f64 {
        self.base_prob
    }

    /// Set CE on an ECN-capable packet; a CE packet stays CE and is not counted again.
    fn mark(&mut self, packet: &mut Packet) {
        debug_assert!(
            packet.ecn != Ecn::NotEct,
            "only ECN-capable packets are marked"
        );
        if packet.ecn.is_ect() {
            packet.ecn = Ecn::Ce;
            self.ce_marks += 1;
        }
    }

    /// Packets waiting in (L4S, classic).
    pub fn queue_lengths(&self) -> (usize, usize) {
        (self.l4s.len(), self.classic.len())
    }

    /// Run every PI update due at or before `now` (exact: see the module notes).
    fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            if self.at_rest() {
                let tupdate = self.config.tupdate.as_nanos();
                let behind = (now - self.next_update).as_nanos() / tupdate;
                self.next_update += SimDuration::from_nanos(behind * tupdate + tupdate);
                return;
            }
            let at = self.next_update;
            self.update(at);
            self.next_update += self.config.tupdate;
        }
    }

    fn at_rest(&self) -> bool {
        self.base_prob == 0.0 && self.prev_qdelay.is_zero() && self.classic.is_empty()
    }

    /// RFC 9332 Appendix A `dualpi2_update` at instant `at`.
    fn update(&mut self, at: SimTime) {
        let qdelay = self
            .classic
            .front()
            .map_or(SimDuration::ZERO, |head| at - head.enqueued_at);
        let current = qdelay.as_secs_f64();
        let step = self.config.alpha * (current - self.config.target.as_secs_f64())
            + self.config.beta * (current - self.prev_qdelay.as_secs_f64());
        self.base_prob = (self.base_prob + step).clamp(0.0, 1.0);
        self.prev_qdelay = qdelay;
    }

    /// The weighted round robin's choice: the packet, whether it came from the L4S queue,
    /// and the credit change to apply if it is sent.
    fn schedule(&mut self) -> Option<(Dequeued, bool, i64)> {
        let l4s_turn = !self.l4s.is_empty() && (self.classic.is_empty() || self.credit <= 0);
        let (item, from_l4s, change) = if l4s_turn {
            let item = self.l4s.pop_front()?;
            let change = if self.classic.is_empty() {
                0
            } else {
                WEIGHT_CLASSIC * item.packet.wire_bytes as i64
            };
            (item, true, change)
        } else if let Some(item) = self.classic.pop_front() {
            let change = if self.l4s.is_empty() {
                0
            } else {
                -WEIGHT_L4S * item.packet.wire_bytes as i64
            };
            (item, false, change)
        } else {
            self.credit = Self::initial_credit(self.mtu_bytes);
            return None;
        };
        self.bytes -= item.packet.wire_bytes as u64;
        Some((item, from_l4s, change))
    }
}

impl ScheduledQdisc for DualPi2 {
    fn enqueue(&mut self, now: SimTime, packet: Packet) -> Result<(), (Packet, DropReason)> {
        self.catch_up(now);
        let waiting = (self.l4s.len() + self.classic.len()) as u64;
        if self
            .limit
            .exceeded_by(waiting + 1, self.bytes + packet.wire_bytes as u64)
        {
            return Err((packet, DropReason::Overflow));
        }
        self.bytes += packet.wire_bytes as u64;
        let item = Dequeued {
            packet,
            enqueued_at: now,
        };
        // RFC 9331 §5.1: ECT(1) and CE go to the L4S queue.
        match packet.ecn {
            Ecn::Ect1 | Ecn::Ce => self.l4s.push_back(item),
            Ecn::NotEct | Ecn::Ect => self.classic.push_back(item),
        }
        Ok(())
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Dequeued> {
        self.catch_up(now);
        let p = self.base_prob;
        let coupled = self.config.coupling * p;
        let overload = coupled > 1.0;
        while let Some((mut item, from_l4s, change)) = self.schedule() {
            // Linux `must_drop`: no drop or coupled mark below 2 MTU of backlog.
            let aqm = self.bytes >= 2 * self.mtu_bytes;
            if from_l4s {
                if aqm && overload {
                    // §4.2.3: the classic drop probability applies to L4S packets too; the
                    // others are marked (p_L saturates at 1).
                    if self.rng.chance(p * p) {
                        dropped.push((item.packet, DropReason::Aqm));
                        continue;
                    }
                    self.mark(&mut item.packet);
                } else {
                    // p_L = max(p_native, p_CL), the native AQM being a step on the sojourn
                    // (Linux `do_step_aqm`: marks when it exceeds the threshold).
                    let step = now - item.enqueued_at > self.config.step_threshold;
                    if step || (aqm && self.rng.chance(coupled)) {
                        self.mark(&mut item.packet);
                    }
                }
            } else if aqm && self.rng.chance(p * p) {
                if overload || item.packet.ecn == Ecn::NotEct {
                    dropped.push((item.packet, DropReason::Aqm));
                    continue;
                }
                self.mark(&mut item.packet);
            }
            self.credit += change;
            return Some(item);
        }
        None
    }

    fn backlog(&self) -> (u64, u64) {
        ((self.l4s.len() + self.classic.len()) as u64, self.bytes)
    }

    /// A packet already CE is not counted.
    fn ce_marks(&self) -> u64 {
        self.ce_marks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u64 = 1500;

    fn packet(ecn: Ecn, seq: u64) -> Packet {
        Packet {
            ecn,
            ..Packet::test_data(MTU as u32, seq)
        }
    }

    fn dualpi2() -> DualPi2 {
        DualPi2::new(
            DualPi2Config::default(),
            BufferLimit::default(),
            MTU,
            Rng::for_component(7, "dualpi2"),
        )
    }

    fn at_us(x: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_micros(x)
    }

    fn at_ms(x: u64) -> SimTime {
        at_us(1000 * x)
    }

    fn assert_close(actual: f64, expected: f64) {
        assert!(
            (actual - expected).abs() <= 1e-12 * expected.abs().max(1e-12),
            "{actual} != {expected}"
        );
    }

    /// Dequeue everything at `now`: (sent packets, dropped packets).
    fn drain(q: &mut DualPi2, now: SimTime) -> (Vec<Packet>, Vec<Packet>) {
        let (mut sent, mut dropped) = (Vec::new(), Vec::new());
        let mut drops = Vec::new();
        while let Some(item) = q.dequeue(now, &mut drops) {
            sent.push(item.packet);
        }
        for (packet, reason) in drops {
            assert_eq!(reason, DropReason::Aqm);
            dropped.push(packet);
        }
        (sent, dropped)
    }

    #[test]
    fn classification_by_codepoint() {
        let mut q = dualpi2();
        for ecn in [Ecn::NotEct, Ecn::Ect, Ecn::Ect1, Ecn::Ce, Ecn::Ect1] {
            q.enqueue(at_ms(0), packet(ecn, 0)).unwrap();
        }
        // RFC 9331 §5.1: ECT(1) and CE are L4S; Not-ECT and ECT(0) classic.
        assert_eq!(q.queue_lengths(), (3, 2));
        assert_eq!(q.backlog(), (5, 5 * MTU));
    }

    #[test]
    fn pi_update_by_hand_with_the_appendix_a_gains() {
        // alpha 0.16 Hz, beta 3.2 Hz, target 15 ms, Tupdate 16 ms.
        let mut q = dualpi2();
        q.enqueue(at_ms(0), packet(Ecn::NotEct, 0)).unwrap();
        q.enqueue(at_ms(20), packet(Ecn::NotEct, 1)).unwrap();
        // t = 16 ms: the head has waited 16 ms. 0.16·(0.016 − 0.015) + 3.2·(0.016 − 0) = 0.05136.
        q.catch_up(at_ms(16));
        assert_close(q.base_prob, 0.05136);
        // t = 32 ms: 32 ms. 0.16·0.017 + 3.2·0.016 = 0.05392.
        let p2 = 0.05136 + 0.05392;
        // The dequeue at 32 ms runs the update first, then sends the first packet (one packet
        // left: under 2 MTU, so no drop whatever p').
        let first = q.dequeue(at_ms(32), &mut Vec::new()).unwrap();
        assert_eq!(first.packet.seq, 0);
        assert_close(q.base_prob, p2);
        // t = 48 ms: the head (enqueued at 20 ms) has waited 28 ms:
        // 0.16·0.013 + 3.2·(0.028 − 0.032) = −0.01072.
        let p3 = p2 - 0.01072;
        let second = q.dequeue(at_ms(48), &mut Vec::new()).unwrap();
        assert_eq!(second.packet.seq, 1);
        assert_close(q.base_prob, p3);
        // Empty from then on: 64 ms: 0.16·(−0.015) + 3.2·(0 − 0.028) = −0.092; 80 ms and
        // 96 ms: −0.0024 each; bounded at 0.
        q.catch_up(at_ms(64));
        assert_close(q.base_prob, p3 - 0.092);
        q.catch_up(at_ms(80));
        assert_close(q.base_prob, p3 - 0.092 - 0.0024);
        q.catch_up(at_ms(96));
        assert_eq!(q.base_prob, 0.0);
        // At rest: the remaining updates are skipped on the 16 ms grid.
        q.catch_up(at_ms(1000));
        assert_eq!(q.next_update, at_ms(1008));
    }

    #[test]
    fn catching_up_equals_running_every_update() {
        // p' = 0.5 with an empty classic queue: each update subtracts
        // 0.16·0.015 + 3.2·(previous delay) until p' reaches 0; one catch-up over 10 s must
        // give what 625 timer firings give.
        let mut caught_up = dualpi2();
        caught_up.base_prob = 0.5;
        caught_up.prev_qdelay = SimDuration::from_millis(20);
        let mut timer = caught_up.clone();
        caught_up.catch_up(at_ms(10_000));
        for n in 1..=625 {
            timer.update(at_ms(16 * n));
        }
        assert_eq!(caught_up.base_prob, timer.base_prob);
        assert_eq!(caught_up.prev_qdelay, timer.prev_qdelay);
        assert_eq!(caught_up.next_update, at_ms(10_016));
        assert!(caught_up.at_rest());
    }

    /// `n` classic packets of `classic` codepoint and `n` ECT(1) packets, plus two of each so
    /// that 2 MTU always remain while the counted ones leave; all at t = 0 with p' forced.
    fn loaded(p: f64, n: u64, classic: Ecn) -> DualPi2 {
        let mut q = dualpi2();
        q.base_prob = p;
        for i in 0..n + 2 {
            q.enqueue(at_ms(0), packet(classic, i)).unwrap();
            let mut l4s = packet(Ecn::Ect1, i);
            l4s.flow = L4S_FLOW;
            q.enqueue(at_ms(0), l4s).unwrap();
        }
        q
    }

    /// The flow id `loaded` gives its L4S packets, to tell the queues apart once marked.
    const L4S_FLOW: u32 = 1;

    fn count(packets: &[Packet], pred: impl Fn(&Packet) -> bool) -> u64 {
        packets.iter().filter(|p| pred(p)).count() as u64
    }

    #[test]
    fn coupling_classic_drops_p_squared_and_l4s_marks_k_p() {
        // p' = 0.3, k = 2: p_C = 0.09, p_CL = 0.6. Sojourns are 0 (all at t = 0, before the
        // first update), so the step never fires. 20 000 packets a queue:
        // classic drops: mean 1800, σ = √(20000·0.09·0.91) ≈ 40.5, ±4 σ = ±162;
        // L4S marks: mean 12 000, σ = √(20000·0.6·0.4) ≈ 69.3, ±4 σ = ±277.
        // (The last two packets of each queue leave under the 2-MTU floor: ±2 more.)
        let mut q = loaded(0.3, 20_000, Ecn::NotEct);
        let (sent, dropped) = drain(&mut q, at_ms(0));
        let classic_drops = count(&dropped, |p| p.flow != L4S_FLOW);
        assert_eq!(classic_drops, dropped.len() as u64, "no L4S drops");
        assert!((1636..=1964).contains(&classic_drops), "{classic_drops}");
        let l4s_marks = count(&sent, |p| p.flow == L4S_FLOW && p.ecn == Ecn::Ce);
        assert!((11_721..=12_279).contains(&l4s_marks), "{l4s_marks}");
        assert_eq!(q.ce_marks(), l4s_marks);
        // Classic ECT(0) packets are marked with p_C instead of dropped.
        let mut q = loaded(0.3, 20_000, Ecn::Ect);
        let (sent, dropped) = drain(&mut q, at_ms(0));
        assert!(dropped.is_empty());
        let classic_marks = count(&sent, |p| p.flow != L4S_FLOW && p.ecn == Ecn::Ce);
        assert!((1636..=1964).contains(&classic_marks), "{classic_marks}");
    }

    #[test]
    fn overload_drops_l4s_at_the_classic_probability_and_stops_classic_marking() {
        // p' = 0.6: k·p' = 1.2 > 1. L4S packets dropped with p'² = 0.36, all others marked;
        // classic ECT(0) packets dropped, not marked, with 0.36. Per queue: mean 7200,
        // σ = √(20000·0.36·0.64) ≈ 67.9, ±4 σ ≈ ±272 (+2 for the floor).
        let mut q = loaded(0.6, 20_000, Ecn::Ect);
        let (sent, dropped) = drain(&mut q, at_ms(0));
        let l4s_drops = count(&dropped, |p| p.flow == L4S_FLOW);
        let classic_drops = count(&dropped, |p| p.flow != L4S_FLOW);
        for drops in [l4s_drops, classic_drops] {
            assert!((6926..=7474).contains(&drops), "{drops}");
        }
        // Every L4S packet sent above the floor is marked; no classic packet is.
        let sent_l4s = count(&sent, |p| p.flow == L4S_FLOW);
        assert_eq!(sent_l4s, 20_002 - l4s_drops);
        assert!(count(&sent, |p| p.ecn == Ecn::Ect1) <= 2);
        assert_eq!(count(&sent, |p| p.flow != L4S_FLOW && p.ecn == Ecn::Ce), 0);
    }

    #[test]
    fn step_marking_on_the_l4s_sojourn() {
        let mut q = dualpi2();
        for i in 0..4 {
            q.enqueue(at_ms(0), packet(Ecn::Ect1, i)).unwrap();
        }
        let mut drops = Vec::new();
        // Sojourn exactly 1 ms: not above the threshold (p' = 0, so no coupled mark either).
        let a = q.dequeue(at_us(1000), &mut drops).unwrap();
        assert_eq!(a.packet.ecn, Ecn::Ect1);
        // 1.001 ms: marked, even with one packet left (the step ignores the 2-MTU floor).
        let b = q.dequeue(at_us(1001), &mut drops).unwrap();
        assert_eq!(b.packet.ecn, Ecn::Ce);
        // Classic packets are never step-marked.
        q.enqueue(at_us(1001), packet(Ecn::Ect, 9)).unwrap();
        let _ = drain(&mut q, at_ms(5));
        assert!(drops.is_empty());
        let mut q = dualpi2();
        q.enqueue(at_ms(0), packet(Ecn::Ect, 0)).unwrap();
        assert_eq!(
            q.dequeue(at_ms(10), &mut drops).unwrap().packet.ecn,
            Ecn::Ect
        );
    }

    #[test]
    fn l4s_marking_is_the_larger_of_step_and_coupled() {
        // p' = 0.1, k = 2: p_CL = 0.2. With sojourns above 1 ms every L4S packet is marked.
        let mut q = loaded(0.1, 1000, Ecn::NotEct);
        let (sent, _) = drain(&mut q, at_ms(2));
        assert_eq!(count(&sent, |p| p.ecn == Ecn::Ect1), 0);
        // With zero sojourn, only the coupled 20 %: 1000 packets, mean 200, σ ≈ 12.6, ±4 σ.
        let mut q = loaded(0.1, 1000, Ecn::NotEct);
        let (sent, _) = drain(&mut q, at_ms(0));
        let marks = count(&sent, |p| p.flow == L4S_FLOW && p.ecn == Ecn::Ce);
        assert!((149..=251).contains(&marks), "{marks}");
    }

    #[test]
    fn weighted_round_robin_gives_the_l4s_queue_nine_packets_in_ten() {
        let mut q = dualpi2();
        for i in 0..20 {
            q.enqueue(at_ms(0), packet(Ecn::Ect1, i)).unwrap();
            q.enqueue(at_ms(0), packet(Ecn::NotEct, i)).unwrap();
        }
        let (sent, dropped) = drain(&mut q, at_ms(0));
        assert!(dropped.is_empty());
        let order: String = sent
            .iter()
            .map(|p| if p.ecn == Ecn::NotEct { 'C' } else { 'L' })
            .collect();
        // Credit starts at 1500·(10 − 90) = −120 000; each L packet while C waits adds
        // 10·1500, each C packet while L waits subtracts 90·1500: L is served while the credit
        // is ≤ 0, i.e. 9 L (−120 000 → +15 000), 1 C (→ −120 000), 9 L, 1 C, then the two L
        // left, then the classic queue alone.
        let expected = format!(
            "{}C{}C{}{}",
            "L".repeat(9),
            "L".repeat(9),
            "LL",
            "C".repeat(18)
        );
        assert_eq!(order, expected);
        // Both queues empty: the credit is reset.
        assert_eq!(q.credit, -120_000);
    }

    #[test]
    fn the_shared_buffer_limit_overflows() {
        let mut q = DualPi2::new(
            DualPi2Config::default(),
            BufferLimit {
                packets: Some(2),
                bytes: None,
            },
            MTU,
            Rng::for_component(7, "dualpi2"),
        );
        q.enqueue(at_ms(0), packet(Ecn::Ect1, 0)).unwrap();
        q.enqueue(at_ms(0), packet(Ecn::NotEct, 1)).unwrap();
        assert_eq!(
            q.enqueue(at_ms(0), packet(Ecn::Ect1, 2)),
            Err((packet(Ecn::Ect1, 2), DropReason::Overflow))
        );
    }
}
