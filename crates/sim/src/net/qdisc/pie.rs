//! PIE, Proportional Integral controller Enhanced (RFC 8033).
//!
//! PIE decides at enqueue: an arriving packet is dropped (or, with ECN, marked) with the
//! probability `drop_prob` (§4.1). Every T_UPDATE the probability follows the queue delay
//! with a PI law (§4.2):
//!
//! ```text
//! p = alpha·(qdelay − QDELAY_REF) + beta·(qdelay − qdelay_old), scaled down while drop_prob is
//!     small (the auto-tuning table of §4.2), capped at +2 % once drop_prob ≥ 10 % (§5.5);
//! drop_prob += p;  drop_prob *= 0.98 when qdelay and qdelay_old are both 0;  bounded to [0, 1]
//! ```
//!
//! **Queue delay by timestamps.** The RFC's pseudocode in §4.3 estimates the delay from the
//! departure rate (Little's law, `queue bytes / avg_dq_rate`), which avoids per-packet
//! timestamps in hardware. Appendix A's pseudocode and Linux's default (`dq_rate_estimator`
//! off, `pie_process_dequeue` in net/sched/sch_pie.c) use the sojourn time of the last
//! dequeued packet instead; we do the same: the simulator knows every packet's enqueue time
//! exactly, and the sojourn is the quantity the target is stated in. As in Linux, the delay is
//! 0 once a dequeue leaves the queue empty — otherwise an idle queue would keep reporting the
//! last packet's sojourn, and the probability would keep rising while nothing queues.
//!
//! **No timer event.** The update runs at `t = n · T_UPDATE` (n ≥ 1, from time zero). Its
//! inputs (the last delay sample, qdelay_old, drop_prob, the burst allowance) change only in
//! `enqueue`, `dequeue` and the update itself, so running every update whose instant has come
//! (`≤ now`) at the start of each call gives exactly the state a periodic timer would: this
//! is a catch-up, not an approximation. An update due at the very instant of a call runs
//! before the call, as a timer queued earlier would. Once the state is a fixed point of the
//! update (drop_prob 0, both delays 0, no burst allowance left) the remaining ticks are
//! skipped in one step.
//!
//! **Burst allowance** (§4.4): starts at MAX_BURST, falls by T_UPDATE at each update, and
//! returns to MAX_BURST at an arrival that finds drop_prob = 0 and both delay samples below
//! QDELAY_REF/2 (Appendix A, `enque`). While it is above zero nothing is dropped early.
//!
//! **Safeguards** (§4.1): no early drop while qdelay_old < QDELAY_REF/2 and drop_prob < 20 %,
//! nor while fewer than 2 MTU of bytes wait (Linux `pie_drop_early`; the RFC says "a couple of
//! packets"), so that PIE stays work conserving.
//!
//! **ECN** (§5.1): with `ecn`, an ECN-capable packet (ECT(0), ECT(1) or already CE) chosen for
//! an early drop is marked CE instead while drop_prob ≤ 10 %; above, it is dropped like any
//! other, since a marking rate that high means the sources do not respond.
//!
//! **De-randomization** (§5.4, optional): not used. Early drops are independent Bernoulli
//! trials with probability drop_prob, as in the RFC's base algorithm and Appendix A. (Linux
//! always de-randomizes with an accumulated probability, `accu_prob`: no drop below 0.85,
//! certain drop at 8.5.) Not used either: Linux's extra +2 % when the delay exceeds 250 ms and
//! its skipped update when the delay sample is 0 with a backlog; byte mode.

use std::collections::VecDeque;

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::PieConfig;

use super::{BufferLimit, Dequeued, DropReason, ScheduledQdisc};
use crate::packet::{Ecn, Packet};
use crate::rng::Rng;

/// §4.1: below this drop probability the delay safeguard applies.
const SAFEGUARD_MAX_PROB: f64 = 0.2;
/// §5.1: above this drop probability ECN-capable packets are dropped, not marked.
const ECN_MAX_PROB: f64 = 0.1;
/// §5.5: once drop_prob is at least this, one update may raise it by at most `CAP_STEP`.
const CAP_FROM_PROB: f64 = 0.1;
const CAP_STEP: f64 = 0.02;
/// §4.2: the decay factor applied while the queue stays empty.
const IDLE_DECAY: f64 = 0.98;

#[derive(Clone, Debug)]
pub struct Pie {
    config: PieConfig,
    limit: BufferLimit,
    /// Wire bytes of a full packet: the MTU of the 2-MTU safeguard.
    mtu_bytes: u64,
    rng: Rng,
    queue: VecDeque<Dequeued>,
    queue_bytes: u64,
    drop_prob: f64,
    /// The latest delay sample (`current_qdelay` in the RFC's pseudocode).
    qdelay: SimDuration,
    /// The sample the previous update used.
    qdelay_old: SimDuration,
    burst_allowance: SimDuration,
    next_update: SimTime,
    /// Packets marked CE here (Linux `ecn_mark`).
    ce_marks: u64,
}

impl Pie {
    pub fn new(config: PieConfig, limit: BufferLimit, mtu_bytes: u64, rng: Rng) -> Self {
        assert!(
            !config.tupdate.is_zero(),
            "PIE tupdate must be positive (validated by the scenario)"
        );
        Pie {
            burst_allowance: config.max_burst,
            next_update: SimTime::ZERO + config.tupdate,
            config,
            limit,
            mtu_bytes,
            rng,
            queue: VecDeque::new(),
            queue_bytes: 0,
            drop_prob: 0.0,
            qdelay: SimDuration::ZERO,
            qdelay_old: SimDuration::ZERO,
            ce_marks: 0,
        }
    }

    /// The current drop probability.
    pub fn drop_probability(&self) -> f64 {
        self.drop_prob
    }

    /// Run every periodic update due at or before `now` (see the module notes: exact).
    fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            if self.at_rest() {
                // Every further update would leave the state as it is: jump to the last one
                // due, keeping the update instants on the grid n·T_UPDATE.
                let tupdate = self.config.tupdate.as_nanos();
                let behind = (now - self.next_update).as_nanos() / tupdate;
                self.next_update += SimDuration::from_nanos(behind * tupdate + tupdate);
                return;
            }
            self.update();
            self.next_update += self.config.tupdate;
        }
    }

    /// drop_prob 0, both samples 0, no burst allowance left: `update` changes nothing.
    fn at_rest(&self) -> bool {
        self.drop_prob == 0.0
            && self.qdelay.is_zero()
            && self.qdelay_old.is_zero()
            && self.burst_allowance.is_zero()
    }

    /// One T_UPDATE step: RFC 8033 §4.2 and Appendix A `calculate_drop_prob`.
    fn update(&mut self) {
        let qdelay = self.qdelay.as_secs_f64();
        let qdelay_old = self.qdelay_old.as_secs_f64();
        let target = self.config.target.as_secs_f64();
        let mut p =
            self.config.alpha * (qdelay - target) + self.config.beta * (qdelay - qdelay_old);
        // §4.2 auto-tuning: the smaller drop_prob, the smaller the step, so that a light load
        // (few drops per second) is not driven by gains sized for heavy congestion.
        p /= auto_tuning_divisor(self.drop_prob);
        // §5.5 cap drop adjustment: no jump of more than 2 % at high probabilities.
        if self.drop_prob >= CAP_FROM_PROB && p > CAP_STEP {
            p = CAP_STEP;
        }
        let mut drop_prob = self.drop_prob + p;
        // §4.2: decay while congestion is gone (two consecutive zero samples).
        if self.qdelay.is_zero() && self.qdelay_old.is_zero() {
            drop_prob *= IDLE_DECAY;
        }
        self.drop_prob = drop_prob.clamp(0.0, 1.0);
        self.qdelay_old = self.qdelay;
        // §4.4: the allowance runs down by one update period, bottoming at zero.
        self.burst_allowance = self.burst_allowance.saturating_sub(self.config.tupdate);
    }

    /// §4.1 `drop_early`, after the burst allowance has run out.
    fn drop_early(&mut self) -> bool {
        let half_target = self.config.target / 2;
        if self.qdelay_old < half_target && self.drop_prob < SAFEGUARD_MAX_PROB {
            return false;
        }
        if self.queue_bytes < 2 * self.mtu_bytes {
            return false;
        }
        self.rng.chance(self.drop_prob)
    }
}

/// RFC 8033 §4.2: the divisor of the PI step for the current drop probability.
fn auto_tuning_divisor(drop_prob: f64) -> f64 {
    if drop_prob < 0.000_001 {
        2048.0
    } else if drop_prob < 0.000_01 {
        512.0
    } else if drop_prob < 0.000_1 {
        128.0
    } else if drop_prob < 0.001 {
        32.0
    } else if drop_prob < 0.01 {
        8.0
    } else if drop_prob < 0.1 {
        2.0
    } else {
        1.0
    }
}

impl ScheduledQdisc for Pie {
    fn enqueue(&mut self, now: SimTime, mut packet: Packet) -> Result<(), (Packet, DropReason)> {
        self.catch_up(now);
        if self.limit.exceeded_by(
            self.queue.len() as u64 + 1,
            self.queue_bytes + packet.wire_bytes as u64,
        ) {
            return Err((packet, DropReason::Overflow));
        }
        // §4.4 / Appendix A `enque`: congestion has gone, the full allowance is back.
        let half_target = self.config.target / 2;
        if self.drop_prob == 0.0 && self.qdelay < half_target && self.qdelay_old < half_target {
            self.burst_allowance = self.config.max_burst;
        }
        if self.burst_allowance.is_zero() && self.drop_early() {
            let capable = packet.ecn != Ecn::NotEct;
            if !(self.config.ecn && capable && self.drop_prob <= ECN_MAX_PROB) {
                return Err((packet, DropReason::Aqm));
            }
            if packet.ecn.is_ect() {
                packet.ecn = Ecn::Ce;
                self.ce_marks += 1;
            }
        }
        self.queue_bytes += packet.wire_bytes as u64;
        self.queue.push_back(Dequeued {
            packet,
            enqueued_at: now,
        });
        Ok(())
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        _dropped: &mut Vec<(Packet, DropReason)>,
    ) -> Option<Dequeued> {
        self.catch_up(now);
        let head = self.queue.pop_front()?;
        self.queue_bytes -= head.packet.wire_bytes as u64;
        self.qdelay = if self.queue.is_empty() {
            SimDuration::ZERO
        } else {
            now - head.enqueued_at
        };
        Some(head)
    }

    fn backlog(&self) -> (u64, u64) {
        (self.queue.len() as u64, self.queue_bytes)
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

    fn packet(ecn: Ecn) -> Packet {
        Packet {
            ecn,
            ..Packet::test_data(MTU as u32, 0)
        }
    }

    fn pie(config: PieConfig) -> Pie {
        Pie::new(
            config,
            BufferLimit::default(),
            MTU,
            Rng::for_component(7, "pie"),
        )
    }

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    fn at_ms(x: u64) -> SimTime {
        SimTime::ZERO + ms(x)
    }

    fn assert_close(actual: f64, expected: f64) {
        assert!(
            (actual - expected).abs() <= 1e-12 * expected.abs().max(1e-12),
            "{actual} != {expected}"
        );
    }

    /// One update from the given state, with the RFC's defaults (alpha 1/8 Hz, beta 5/4 Hz,
    /// QDELAY_REF 15 ms).
    fn step(drop_prob: f64, qdelay_ms: u64, qdelay_old_ms: u64) -> f64 {
        let mut q = pie(PieConfig::default());
        q.drop_prob = drop_prob;
        q.qdelay = ms(qdelay_ms);
        q.qdelay_old = ms(qdelay_old_ms);
        q.update();
        assert_eq!(q.qdelay_old, ms(qdelay_ms), "qdelay_old takes the sample");
        q.drop_prob
    }

    #[test]
    fn probability_update_follows_rfc8033_section_4_2_by_hand() {
        // From rest, a 45 ms sample: 0.125·(0.045 − 0.015) + 1.25·(0.045 − 0) = 0.06, and
        // drop_prob < 0.000001 divides the step by 2048.
        assert_close(step(0.0, 45, 0), 0.06 / 2048.0);
        // The delay holds at 45 ms: only the integral term, 0.125·0.030 = 0.00375; drop_prob
        // 2.93e-5 lies in [0.00001, 0.0001): divided by 128.
        let p1 = 0.06 / 2048.0;
        assert_close(step(p1, 45, 45), p1 + 0.00375 / 128.0);
        // The delay falls from 45 to 25 ms at drop_prob 0.005 ([0.001, 0.01): /8):
        // 0.125·0.010 + 1.25·(−0.020) = −0.02375 → −0.00296875.
        assert_close(step(0.005, 25, 45), 0.005 - 0.02375 / 8.0);
        // At drop_prob 0.05 ([0.01, 0.1): /2), a sample of 100 ms after 20 ms:
        // 0.125·0.085 + 1.25·0.080 = 0.110625 → +0.0553125 (no cap below 10 %).
        assert_close(step(0.05, 100, 20), 0.05 + 0.110625 / 2.0);
        // The same step at drop_prob 0.15 is capped at +2 % (§5.5).
        assert_close(step(0.15, 100, 20), 0.17);
        // A negative step is never capped: 25 ms after 45 ms at 0.15 (no scaling at ≥ 10 %).
        assert_close(step(0.15, 25, 45), 0.15 - 0.02375);
        // Both samples zero: step 0.125·(−0.015) = −0.001875, then the decay ×0.98.
        assert_close(step(0.5, 0, 0), (0.5 - 0.001875) * 0.98);
        // Bounded to [0, 1].
        assert_eq!(step(0.99, 500, 0), 1.0);
        assert_eq!(step(0.000_000_5, 0, 45), 0.0);
    }

    #[test]
    fn auto_tuning_table_of_section_4_2() {
        let cases = [
            (0.0, 2048.0),
            (0.000_000_999, 2048.0),
            (0.000_001, 512.0),
            (0.000_01, 128.0),
            (0.000_1, 32.0),
            (0.001, 8.0),
            (0.01, 2.0),
            (0.099, 2.0),
            (0.1, 1.0),
            (1.0, 1.0),
        ];
        for (p, divisor) in cases {
            assert_eq!(auto_tuning_divisor(p), divisor, "drop_prob {p}");
        }
    }

    #[test]
    fn updates_run_on_the_t_update_grid_when_a_call_comes() {
        let mut q = pie(PieConfig::default());
        q.enqueue(at_ms(0), packet(Ecn::NotEct)).unwrap();
        q.enqueue(at_ms(0), packet(Ecn::NotEct)).unwrap();
        q.enqueue(at_ms(0), packet(Ecn::NotEct)).unwrap();
        // Dequeue at 14 ms: no update yet; the sample is the head's sojourn, 14 ms.
        q.dequeue(at_ms(14), &mut Vec::new()).unwrap();
        assert_eq!((q.qdelay, q.drop_prob), (ms(14), 0.0));
        // The call at 30 ms first runs the updates due at 15 and 30 ms, both with the 14 ms
        // sample: 0.125·(−0.001) + 1.25·0.014 = 0.017375 → 0.017375/2048; then
        // 0.125·(−0.001) = −0.000125, divided by 512 since 8.48e-6 lies in [1e-6, 1e-5).
        let p1 = 0.017_375 / 2048.0;
        let p2 = p1 - 0.000_125 / 512.0;
        q.dequeue(at_ms(30), &mut Vec::new()).unwrap();
        assert_close(q.drop_prob, p2);
        // That dequeue saw a 30 ms sojourn with one packet left; the last dequeue empties the
        // queue, so the sample drops to 0 (Linux `pie_process_dequeue`).
        assert_eq!(q.qdelay, ms(30));
        q.dequeue(at_ms(31), &mut Vec::new()).unwrap();
        assert_eq!(q.qdelay, SimDuration::ZERO);
        // Burst allowance: 150 ms less two updates.
        assert_eq!(q.burst_allowance, ms(120));
    }

    #[test]
    fn a_state_at_rest_skips_ahead_on_the_grid() {
        let mut q = pie(PieConfig::default());
        // Idle from the start: the allowance runs out after ten updates (150 ms), then every
        // update is the identity.
        q.catch_up(SimTime::ZERO + SimDuration::from_secs(10));
        assert!(q.at_rest());
        // 10 s is not a multiple of 15 ms: the next update is at ⌈10 / 0.015⌉ · 15 ms.
        assert_eq!(q.next_update, at_ms(667 * 15));
    }

    #[test]
    fn catching_up_equals_running_every_update() {
        // A queue that saw congestion then emptied: drop_prob decays (×0.98 once both samples
        // are 0), the allowance runs out, and the state comes to rest; catching up over 10 s
        // in one call must give what 666 timer firings give.
        let mut caught_up = pie(PieConfig::default());
        caught_up.drop_prob = 0.3;
        caught_up.qdelay_old = ms(40);
        caught_up.burst_allowance = ms(60);
        let mut timer = caught_up.clone();
        caught_up.catch_up(SimTime::ZERO + SimDuration::from_secs(10));
        for _ in 0..666 {
            timer.update();
        }
        assert_eq!(caught_up.drop_prob, timer.drop_prob);
        assert_eq!(caught_up.qdelay_old, timer.qdelay_old);
        assert_eq!(caught_up.burst_allowance, timer.burst_allowance);
        // 666 · 15 ms = 9.99 s: the next firing is at 10.005 s.
        assert_eq!(caught_up.next_update, at_ms(667 * 15));
        // The decay reached exactly zero only through the clamp: it came to rest.
        assert!(caught_up.at_rest());
    }

    /// A queue whose early-drop decision depends on `drop_prob` alone: no allowance left,
    /// qdelay_old above QDELAY_REF/2, two MTU waiting, and all calls before the first update.
    fn congested(config: PieConfig, drop_prob: f64) -> Pie {
        let mut q = pie(config);
        q.drop_prob = drop_prob;
        q.qdelay_old = ms(20);
        q.qdelay = ms(20);
        q.burst_allowance = SimDuration::ZERO;
        q.enqueue(at_ms(0), packet(Ecn::NotEct)).unwrap();
        q.enqueue(at_ms(0), packet(Ecn::NotEct)).unwrap();
        q
    }

    /// Offer `n` packets at 1 ms (before the first update): (dropped, marked).
    fn offer(q: &mut Pie, n: u64, ecn: Ecn) -> (u64, u64) {
        let (mut dropped, mut marked) = (0, 0);
        for _ in 0..n {
            match q.enqueue(at_ms(1), packet(ecn)) {
                Err((_, reason)) => {
                    assert_eq!(reason, DropReason::Aqm);
                    dropped += 1;
                }
                Ok(()) => {
                    if q.queue.back().unwrap().packet.ecn == Ecn::Ce && ecn != Ecn::Ce {
                        marked += 1;
                    }
                }
            }
        }
        (dropped, marked)
    }

    #[test]
    fn drops_at_the_fixed_probability() {
        // 20 000 Bernoulli(0.3) trials: mean 6000, standard deviation √(20000·0.3·0.7) ≈ 64.8;
        // ±4 σ = ±260.
        let mut q = congested(PieConfig::default(), 0.3);
        let (dropped, marked) = offer(&mut q, 20_000, Ecn::NotEct);
        assert_eq!(marked, 0);
        assert!((5740..=6260).contains(&dropped), "{dropped} drops");
    }

    #[test]
    fn ecn_capable_packets_are_marked_up_to_ten_percent_and_dropped_above() {
        let ecn = PieConfig {
            ecn: true,
            ..PieConfig::default()
        };
        // p = 0.08: ECT packets are marked, never dropped; 20 000 trials: mean 1600,
        // σ = √(20000·0.08·0.92) ≈ 38.4, ±4 σ ≈ ±154.
        for codepoint in [Ecn::Ect, Ecn::Ect1] {
            let mut q = congested(ecn.clone(), 0.08);
            let (dropped, marked) = offer(&mut q, 20_000, codepoint);
            assert_eq!(dropped, 0);
            assert!((1446..=1754).contains(&marked), "{marked} marks");
            assert_eq!(q.ce_marks(), marked);
        }
        // A packet already CE stays CE and is not counted as a mark of this queue.
        {
            let mut q = congested(ecn.clone(), 0.08);
            assert_eq!(offer(&mut q, 1000, Ecn::Ce), (0, 0));
            assert_eq!(q.ce_marks(), 0);
        }
        // Not-ECT packets at the same p are dropped.
        let mut q = congested(ecn.clone(), 0.08);
        let (dropped, marked) = offer(&mut q, 20_000, Ecn::NotEct);
        assert_eq!(marked, 0);
        assert!((1446..=1754).contains(&dropped), "{dropped} drops");
        // p = 0.12 > 10 %: ECT packets are dropped; mean 2400, σ ≈ 46, ±4 σ ≈ ±184.
        let mut q = congested(ecn, 0.12);
        let (dropped, marked) = offer(&mut q, 20_000, Ecn::Ect);
        assert_eq!(marked, 0);
        assert!((2216..=2584).contains(&dropped), "{dropped} drops");
        // Without `ecn`, ECT packets are dropped at any p.
        let mut q = congested(PieConfig::default(), 0.08);
        let (dropped, marked) = offer(&mut q, 20_000, Ecn::Ect);
        assert_eq!(marked, 0);
        assert!((1446..=1754).contains(&dropped), "{dropped} drops");
    }

    #[test]
    fn safeguards_keep_pie_work_conserving() {
        // qdelay_old (5 ms) below QDELAY_REF/2 and drop_prob 0.15 < 0.2: no early drop.
        let mut q = congested(PieConfig::default(), 0.15);
        q.qdelay_old = ms(5);
        assert_eq!(offer(&mut q, 1000, Ecn::NotEct), (0, 0));
        // The same delay at drop_prob 0.25 ≥ 0.2: the safeguard is off.
        let mut q = congested(PieConfig::default(), 0.25);
        q.qdelay_old = ms(5);
        assert!(offer(&mut q, 1000, Ecn::NotEct).0 > 0);
        // Fewer than 2 MTU waiting (one packet): no early drop even at drop_prob 1. Each
        // arrival is dequeued again so that the backlog stays at one packet.
        let mut q = pie(PieConfig::default());
        q.drop_prob = 1.0;
        q.qdelay_old = ms(20);
        q.burst_allowance = SimDuration::ZERO;
        q.enqueue(at_ms(0), packet(Ecn::NotEct)).unwrap();
        for _ in 0..100 {
            q.enqueue(at_ms(1), packet(Ecn::NotEct)).unwrap();
            q.dequeue(at_ms(1), &mut Vec::new()).unwrap();
        }
        // With two waiting, drop_prob 1 drops every arrival.
        q.enqueue(at_ms(1), packet(Ecn::NotEct)).unwrap();
        assert_eq!(offer(&mut q, 100, Ecn::NotEct), (100, 0));
    }

    #[test]
    fn burst_allowance_protects_a_burst_for_max_burst_then_runs_out() {
        let mut q = pie(PieConfig::default());
        // At rest: an arrival restores the full 150 ms allowance.
        q.enqueue(at_ms(0), packet(Ecn::NotEct)).unwrap();
        q.enqueue(at_ms(0), packet(Ecn::NotEct)).unwrap();
        q.enqueue(at_ms(0), packet(Ecn::NotEct)).unwrap();
        assert_eq!(q.burst_allowance, ms(150));
        // Congestion: make every early-drop decision a drop once the allowance is gone.
        q.drop_prob = 1.0;
        q.qdelay = ms(100);
        q.qdelay_old = ms(100);
        // Updates at 15, 30, ..., 135 ms leave 15 ms of allowance: still no drop.
        assert!(q.enqueue(at_ms(140), packet(Ecn::NotEct)).is_ok());
        assert_eq!(q.burst_allowance, ms(15));
        // The update at 150 ms exhausts it (§4.4: decremented by T_UPDATE, bottomed at 0).
        assert_eq!(
            q.enqueue(at_ms(150), packet(Ecn::NotEct)),
            Err((packet(Ecn::NotEct), DropReason::Aqm))
        );
        assert_eq!(q.burst_allowance, SimDuration::ZERO);
        // Congestion gone (drop_prob 0, both samples under 7.5 ms): the next arrival restores
        // the allowance.
        q.drop_prob = 0.0;
        q.qdelay = ms(7);
        q.qdelay_old = ms(7);
        q.enqueue(at_ms(151), packet(Ecn::NotEct)).unwrap();
        assert_eq!(q.burst_allowance, ms(150));
    }

    #[test]
    fn the_buffer_limit_overflows() {
        let mut q = Pie::new(
            PieConfig::default(),
            BufferLimit {
                packets: Some(2),
                bytes: None,
            },
            MTU,
            Rng::for_component(7, "pie"),
        );
        q.enqueue(at_ms(0), packet(Ecn::NotEct)).unwrap();
        q.enqueue(at_ms(0), packet(Ecn::NotEct)).unwrap();
        assert_eq!(
            q.enqueue(at_ms(0), packet(Ecn::NotEct)),
            Err((packet(Ecn::NotEct), DropReason::Overflow))
        );
        assert_eq!(q.backlog(), (2, 2 * MTU));
    }
}
