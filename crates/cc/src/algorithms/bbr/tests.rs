//! Unit tests of BBR v1, driven by hand-made ACKs: one stretch ACK per packet-timed round
//! with an exact rate sample, or one-MSS ACKs at chosen times.

use super::probe_bw::{GAIN_CYCLE_LEN, PROBE_BW_PACING_GAINS};
use super::*;
use crate::controller::RateSample;
use crate::params::ParamInput;
use crate::test_support::{ack, new_timeout};

const MSS: u64 = 1000;
const RTT: SimDuration = SimDuration::from_millis(100);

fn params(inputs: &[(&str, ParamInput)]) -> Params {
    Params::from_inputs(PARAMS, inputs.iter().map(|(n, v)| (*n, v))).unwrap()
}

fn text(s: &str) -> ParamInput {
    ParamInput::Text(s.to_string())
}

/// A sender driving one BBR instance: `delivered` is C.delivered.
struct Flow {
    bbr: Bbr,
    now: SimTime,
    delivered: u64,
}

impl Flow {
    fn new(inputs: &[(&str, ParamInput)]) -> Self {
        Flow {
            bbr: Bbr::new(&CcConfig::new(MSS), &params(inputs)),
            now: SimTime::ZERO,
            delivered: 0,
        }
    }

    /// One stretch ACK one RTT later that ends a packet-timed round: it delivers
    /// `rate * RTT` bytes, and its rate sample is exactly `rate` (that many bytes over one
    /// RTT), taken from a packet sent when C.delivered was the previous round's end.
    fn round(&mut self, rate: f64, app_limited: bool, in_flight: u64) {
        self.now += RTT;
        let bytes = (rate * RTT.as_secs_f64()).round() as u64;
        let prior_delivered = self.delivered;
        self.delivered += bytes;
        let ack = Ack {
            bytes_acked: bytes,
            prior_in_flight: in_flight + bytes,
            bytes_in_flight: in_flight,
            rate_sample: Some(RateSample {
                delivered: bytes,
                interval: RTT,
                prior_delivered,
                is_app_limited: app_limited,
            }),
            ..self.plain_ack(self.now)
        };
        self.delivered = ack.delivered;
        self.bbr.on_ack(&ack);
    }

    /// An ACK of one MSS at `at`, RTT sample = RTprop, no rate sample; tests override
    /// fields with struct update syntax and pass it to `on_ack` themselves.
    fn plain_ack(&mut self, at: SimTime) -> Ack {
        self.now = at;
        self.delivered += MSS;
        Ack {
            now: at,
            rtt: Some(RTT),
            min_rtt: Some(RTT),
            srtt: Some(RTT),
            prior_in_flight: 10 * MSS,
            bytes_in_flight: 9 * MSS,
            delivered: self.delivered,
            ..ack(MSS)
        }
    }

    fn send(&mut self, ack: Ack) {
        self.delivered = ack.delivered;
        self.bbr.on_ack(&ack);
    }

    /// STARTUP with BtlBw rising 1, 2, 4, 8 MB/s then flat at 8 MB/s: rounds 5, 6, 7
    /// bring no 25 % growth, so the pipe is full at round 7 (DRAIN); an ACK with little in
    /// flight then ends DRAIN. Afterwards BtlBw = 8e6 B/s, RTprop = 100 ms, so
    /// BDP = 8e6 * 0.1 = 800 000 bytes.
    fn into_probe_bw(inputs: &[(&str, ParamInput)]) -> Self {
        let mut flow = Flow::new(inputs);
        for rate in [1e6, 2e6, 4e6, 8e6, 8e6, 8e6, 8e6] {
            flow.round(rate, false, 5_000_000);
        }
        assert_eq!(flow.bbr.bbr_mode(), Mode::Drain);
        let ack = Ack {
            bytes_in_flight: 0,
            ..flow.plain_ack(flow.now + SimDuration::from_millis(1))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.bbr_mode(), Mode::ProbeBw);
        flow
    }
}

fn high_gain() -> f64 {
    2.0 / libm::log(2.0)
}

#[test]
fn starts_in_startup_with_2_over_ln2_and_an_initial_pacing_rate() {
    let flow = Flow::new(&[]);
    let bbr = &flow.bbr;
    assert_eq!(bbr.mode(), "startup");
    assert_eq!(bbr.cwnd(), 10 * MSS);
    assert_eq!(bbr.ssthresh(), UNLIMITED);
    assert!(bbr.controls_recovery_window());
    // 2/ln 2 = 2.8853900817779268 for both gains (draft §4.3.2.1).
    assert!((bbr.pacing_gain - 2.885_390_081_777_926_8).abs() < 1e-15);
    assert_eq!(bbr.cwnd_gain, bbr.pacing_gain);
    // draft §4.2.1: high_gain * InitialCwnd / 1 ms = 2.885 * 10 000 B / 1e-3 s, in bit/s.
    let expected = (high_gain() * 10_000.0 / 1e-3 * 8.0) as u64;
    assert_eq!(bbr.pacing_rate(), Some(expected));
}

#[test]
fn first_rtt_sample_reinitialises_the_pacing_rate() {
    let mut flow = Flow::new(&[]);
    // An ACK without a rate sample, SRTT = 100 ms: 2.885 * 10 000 B / 0.1 s.
    let ack = flow.plain_ack(SimTime::ZERO + RTT);
    flow.send(ack);
    let expected = (high_gain() * 10_000.0 / 0.1 * 8.0) as u64;
    assert_eq!(flow.bbr.pacing_rate(), Some(expected));
}

#[test]
fn full_pipe_after_three_rounds_of_less_than_25_percent_growth() {
    let mut flow = Flow::new(&[]);
    // (rate sample, BtlBw after, full_bw after, full_bw_count after), per round:
    // round 1: BtlBw 1e6 >= 0 * 1.25 -> new baseline 1e6
    // round 2: 2e6 >= 1.25e6 -> baseline 2e6; round 3: 4e6 >= 2.5e6 -> 4e6;
    // round 4: 8e6 >= 5e6 -> 8e6; round 5: BtlBw 9e6 < 8e6 * 1.25 = 1e7 -> count 1;
    // round 6: 9e6 -> count 2; round 7: BtlBw 9.9e6 < 1e7 -> count 3 -> pipe full.
    let rounds = [
        (1e6, 1e6, 1e6, 0),
        (2e6, 2e6, 2e6, 0),
        (4e6, 4e6, 4e6, 0),
        (8e6, 8e6, 8e6, 0),
        (9e6, 9e6, 8e6, 1),
        (9e6, 9e6, 8e6, 2),
    ];
    for (i, (rate, btl_bw, full_bw, count)) in rounds.into_iter().enumerate() {
        flow.round(rate, false, 5_000_000);
        assert_eq!(flow.bbr.round.count, i as u64 + 1);
        assert_eq!(flow.bbr.btl_bw(), btl_bw, "round {}", i + 1);
        assert_eq!(flow.bbr.full_bw.bw, full_bw, "round {}", i + 1);
        assert_eq!(flow.bbr.full_bw.count, count, "round {}", i + 1);
        assert_eq!(flow.bbr.mode(), "startup");
        // pacing_rate = high_gain * BtlBw once that exceeds the initial rate.
        let pacing = (high_gain() * btl_bw * 8.0) as u64;
        assert_eq!(flow.bbr.pacing_rate(), Some(pacing), "round {}", i + 1);
    }
    flow.round(9.9e6, false, 5_000_000);
    assert_eq!(flow.bbr.round.count, 7);
    assert!(flow.bbr.filled_pipe);
    // DRAIN: pacing gain ln 2 / 2 = 0.34657..., cwnd gain stays 2/ln 2 (draft §4.3.3).
    assert_eq!(flow.bbr.mode(), "drain");
    assert!((flow.bbr.pacing_gain - libm::log(2.0) / 2.0).abs() < 1e-15);
    assert!((flow.bbr.cwnd_gain - high_gain()).abs() < 1e-15);
    // Once the pipe is full the pacing rate may fall: 0.3466 * 9.9e6 B/s.
    let pacing = (flow.bbr.drain_gain * 9.9e6 * 8.0) as u64;
    assert_eq!(flow.bbr.pacing_rate(), Some(pacing));
}

#[test]
fn app_limited_rounds_do_not_count_toward_a_full_pipe() {
    let mut flow = Flow::new(&[]);
    for rate in [1e6, 2e6, 4e6, 8e6, 8e6, 8e6] {
        flow.round(rate, false, 5_000_000);
    }
    assert_eq!(flow.bbr.full_bw.count, 2);
    // Three app-limited rounds: no count (draft §4.3.2.2 skips them).
    for _ in 0..3 {
        flow.round(8e6, true, 5_000_000);
    }
    assert_eq!(flow.bbr.full_bw.count, 2);
    assert_eq!(flow.bbr.mode(), "startup");
    flow.round(8e6, false, 5_000_000);
    assert_eq!(flow.bbr.mode(), "drain");
}

#[test]
fn drain_ends_when_inflight_is_down_to_the_bdp() {
    let mut flow = Flow::new(&[("quanta", text("mss"))]);
    for rate in [1e6, 2e6, 4e6, 8e6, 8e6, 8e6, 8e6] {
        flow.round(rate, false, 5_000_000);
    }
    assert_eq!(flow.bbr.mode(), "drain");
    // BBRInflight(1) = BtlBw * RTprop + 3 * send_quantum = 8e6 * 0.1 + 3 * 1000 = 803 000.
    let t = flow.now;
    let ack = Ack {
        bytes_in_flight: 803_001,
        ..flow.plain_ack(t + SimDuration::from_millis(10))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "drain");
    let ack = Ack {
        bytes_in_flight: 803_000,
        ..flow.plain_ack(t + SimDuration::from_millis(20))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw");
    // Deterministic entry (seed 0): the 5/4 phase, cwnd gain 2.
    assert_eq!((flow.bbr.cycle_index, flow.bbr.pacing_gain), (0, 1.25));
    assert_eq!(flow.bbr.cwnd_gain, 2.0);
}

#[test]
fn probe_bw_gain_cycle_advances_one_phase_per_rtprop() {
    let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
    let t0 = flow.now;
    let ms = SimDuration::from_millis;
    // BDP = 800 000 B; BBRInflight(1.25) = 1.25 * 800 000 + 3 000 = 1 003 000;
    // BBRInflight(1) = 803 000.
    let ack_at = |flow: &mut Flow, at: SimTime, prior_in_flight: u64, newly_lost: u64| {
        let ack = Ack {
            prior_in_flight,
            newly_lost,
            ..flow.plain_ack(at)
        };
        flow.send(ack);
        flow.bbr.cycle_index
    };
    // Phase 0 (5/4): not over at exactly one RTprop, even with inflight at target...
    assert_eq!(ack_at(&mut flow, t0 + ms(100), 1_003_000, 0), 0);
    // ...nor after it while inflight is short of 1.25 BDP and nothing was lost...
    assert_eq!(ack_at(&mut flow, t0 + ms(150), 1_002_999, 0), 0);
    // ...but over once inflight reaches it (or, see below, on loss).
    assert_eq!(ack_at(&mut flow, t0 + ms(150), 1_003_000, 0), 1);
    assert_eq!(flow.bbr.pacing_gain, 0.75);
    // Phase 1 (3/4) ends early once inflight is down to BBRInflight(1) (draft §4.3.4.3).
    let t1 = flow.now;
    assert_eq!(ack_at(&mut flow, t1 + ms(10), 803_001, 0), 1);
    assert_eq!(ack_at(&mut flow, t1 + ms(20), 803_000, 0), 2);
    assert_eq!(flow.bbr.pacing_gain, 1.0);
    // Phases 2..7 (gain 1) last one RTprop each: advance only when now - stamp > 100 ms.
    for phase in 2..8 {
        let stamp = flow.bbr.cycle_stamp;
        assert_eq!(ack_at(&mut flow, stamp + ms(100), 900_000, 0), phase);
        let next = (phase + 1) % 8;
        assert_eq!(
            ack_at(
                &mut flow,
                stamp + ms(100) + SimDuration::from_nanos(1),
                900_000,
                0
            ),
            next
        );
        assert_eq!(flow.bbr.pacing_gain, PROBE_BW_PACING_GAINS[next]);
    }
    // Back in phase 0: a loss ends it after one RTprop even below 1.25 BDP.
    let stamp = flow.bbr.cycle_stamp;
    assert_eq!(ack_at(&mut flow, stamp + ms(101), 800_000, 0), 0);
    assert_eq!(ack_at(&mut flow, stamp + ms(102), 800_000, MSS), 1);
    // Phase 1 also ends after one RTprop when inflight stays high.
    let stamp = flow.bbr.cycle_stamp;
    assert_eq!(ack_at(&mut flow, stamp + ms(100), 900_000, 0), 1);
    assert_eq!(ack_at(&mut flow, stamp + ms(101), 900_000, 0), 2);
}

#[test]
fn steady_state_cwnd_is_two_bdp_plus_three_send_quanta() {
    let mut flow = Flow::into_probe_bw(&[]);
    // STARTUP grew cwnd far above 2 BDP; from now on each ACK cuts it to the target at
    // once or grows it by the bytes ACKed, never above the target (draft §4.2.3.6).
    // Phase 0 ends (inflight >= 1.25 BDP + quanta): phase 1, gain 0.75, pacing
    // 6e6 B/s = 48 Mbit/s >= 24 Mbit/s, so send_quantum = 6e6 * 1 ms = 6 000 B (draft
    // §4.2.2) and cwnd = 2 * 800 000 + 3 * 6 000 = 1 618 000.
    let t = flow.now + SimDuration::from_millis(101);
    let ack = Ack {
        prior_in_flight: 2_000_000,
        ..flow.plain_ack(t)
    };
    flow.send(ack);
    assert_eq!(flow.bbr.pacing_gain, 0.75);
    assert_eq!(flow.bbr.cwnd(), 1_618_000);
    // Phase 1 ends after one RTprop: gain 1, pacing 8e6 B/s = 64 Mbit/s,
    // send_quantum = 8 000 B, target = 2 * 800 000 + 3 * 8 000 = 1 624 000; cwnd grows by
    // the 1 000 bytes ACKed to 1 619 000...
    let t = flow.now + SimDuration::from_millis(101);
    let ack = flow.plain_ack(t);
    flow.send(ack);
    assert_eq!(flow.bbr.pacing_gain, 1.0);
    assert_eq!(flow.bbr.send_quantum, 8_000);
    assert_eq!(flow.bbr.pacing_rate(), Some(64_000_000));
    assert_eq!(flow.bbr.cwnd(), 1_619_000);
    // ...and an ACK of 10 000 bytes takes it to the target, not beyond.
    let t = flow.now + SimDuration::from_millis(1);
    let ack = Ack {
        bytes_acked: 10 * MSS,
        ..flow.plain_ack(t)
    };
    flow.send(ack);
    assert_eq!(flow.bbr.cwnd(), 1_624_000);
}

#[test]
fn below_target_cwnd_grows_by_the_bytes_acked() {
    let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
    flow.bbr.cwnd = 500_000;
    let t = flow.now;
    let ack = Ack {
        bytes_acked: 3 * MSS,
        ..flow.plain_ack(t + SimDuration::from_millis(1))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.cwnd(), 503_000);
}

#[test]
fn pacing_rate_is_gain_times_btlbw() {
    let flow = Flow::into_probe_bw(&[]);
    // Phase 0: 1.25 * 8e6 B/s * 8 = 80 Mbit/s.
    assert_eq!(flow.bbr.pacing_rate(), Some(80_000_000));

    // Linux: gain 320/256 = 1.25 and a 1 % margin: 1.25 * 8e6 * 0.99 * 8 = 79.2 Mbit/s.
    let flow = Flow::into_probe_bw(&[("variant", text("linux"))]);
    assert_eq!(flow.bbr.pacing_rate(), Some(79_200_000));
    assert_eq!(flow.bbr.high_gain, 739.0 / 256.0);
    assert_eq!(flow.bbr.drain_gain, 88.0 / 256.0);
}

#[test]
fn linux_variant_rounds_cwnd_to_even_packets_and_adds_two_in_the_probe_phase() {
    let mut flow = Flow::into_probe_bw(&[("variant", text("linux")), ("quanta", text("mss"))]);
    // Phase 0: BDP = 800 packets; cwnd = 2 * 800 + 3 = 1603 -> even 1604 -> +2 = 1606.
    assert_eq!(flow.bbr.inflight(2.0), 1_606 * MSS);
    // Phase 0 target 1.25: 1000 + 3 = 1003 -> 1004 -> +2 = 1006 packets.
    assert_eq!(flow.bbr.inflight(1.25), 1_006 * MSS);
    let t = flow.now + SimDuration::from_millis(101);
    let ack = Ack {
        prior_in_flight: 1_006 * MSS,
        ..flow.plain_ack(t)
    };
    flow.send(ack);
    assert_eq!(flow.bbr.cycle_index, 1);
    // Other phases: no +2.
    assert_eq!(flow.bbr.inflight(2.0), 1_604 * MSS);
}

/// Linux `bbr_set_cwnd` adds the ACK-aggregation allowance. `into_probe_bw`'s rounds are
/// stretch ACKs, one BDP (800 kB at 8 MB/s × 100 ms) per RTT: at each, the bytes expected
/// since the previous ACK (8e6 × 0.1 = 800 kB) match what came, so a new epoch starts and
/// the whole 800 kB counts as excess (cwnd is above it from the 500 ms round on). The
/// allowance is min(800 kB, 100 ms × 8 MB/s = 800 kB) = 800 packets: the phase-0 target is
/// 2 × 800 + 800 + 3 = 2403 → even 2404 → +2 = 2406 packets. The paper variant (draft-00)
/// has no allowance.
#[test]
fn linux_variant_adds_the_ack_aggregation_allowance_to_the_cwnd_target() {
    let linux = Flow::into_probe_bw(&[("variant", text("linux")), ("quanta", text("mss"))]);
    assert_eq!(linux.bbr.ack_aggregation.extra_acked(), 800 * MSS);
    assert_eq!(linux.bbr.cwnd_target(), 2_406 * MSS);
    assert_eq!(
        linux.bbr.inflight(2.0),
        1_606 * MSS,
        "BBRInflight itself has none"
    );
    let paper = Flow::into_probe_bw(&[("quanta", text("mss"))]);
    assert_eq!(paper.bbr.cwnd_target(), paper.bbr.inflight(2.0));
}

#[test]
fn btlbw_filter_forgets_a_sample_after_ten_rounds() {
    let mut flow = Flow::new(&[]);
    flow.round(10e6, false, 5_000_000);
    assert_eq!(flow.bbr.round.count, 1);
    // Rounds 2..=10: the round-1 sample is still inside the 10-round window.
    for _ in 2..=10 {
        flow.round(5e6, false, 5_000_000);
        assert_eq!(flow.bbr.btl_bw(), 10e6);
    }
    // Round 11: round 1 is 10 rounds old and leaves the window.
    flow.round(5e6, false, 5_000_000);
    assert_eq!(flow.bbr.round.count, 11);
    assert_eq!(flow.bbr.btl_bw(), 5e6);
}

#[test]
fn app_limited_samples_do_not_lower_btlbw_but_may_raise_it() {
    let mut flow = Flow::new(&[]);
    flow.round(10e6, false, 5_000_000);
    // Twenty app-limited rounds at 1 MB/s: skipped, and the estimate does not age.
    for _ in 0..20 {
        flow.round(1e6, true, 5_000_000);
    }
    assert_eq!(flow.bbr.btl_bw(), 10e6);
    // An app-limited sample above the estimate is used (draft §4.1.1.4).
    flow.round(12e6, true, 5_000_000);
    assert_eq!(flow.bbr.btl_bw(), 12e6);
}

#[test]
fn rate_samples_shorter_than_min_rtt_are_ignored() {
    let mut flow = Flow::new(&[]);
    let t = flow.now + RTT;
    let prior_delivered = flow.delivered;
    let ack = Ack {
        rate_sample: Some(RateSample {
            delivered: 1_000_000,
            interval: SimDuration::from_millis(99),
            prior_delivered,
            is_app_limited: false,
        }),
        ..flow.plain_ack(t)
    };
    flow.send(ack);
    // The round still counts; the implausible 10 MB/s sample does not.
    assert_eq!(flow.bbr.round.count, 1);
    assert_eq!(flow.bbr.btl_bw(), 0.0);
}

#[test]
fn probe_rtt_after_ten_seconds_without_a_new_min_rtt() {
    let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
    let stamp = flow.bbr.rtprop_stamp;
    assert_eq!(stamp, flow.now);
    let ms = SimDuration::from_millis;
    let slower = |flow: &mut Flow, at: SimTime, in_flight: u64| {
        let ack = Ack {
            rtt: Some(ms(120)),
            bytes_in_flight: in_flight,
            ..flow.plain_ack(at)
        };
        flow.send(ack);
    };
    // RTT samples above RTprop for 10 s do not refresh it; at exactly 10 s it has not
    // expired yet (draft: Now() > rtprop_stamp + 10 s).
    for s in 1..=10 {
        slower(&mut flow, stamp + SimDuration::from_secs(s), 800_000);
        assert_eq!(flow.bbr.mode(), "probe_bw", "{s} s");
    }
    let cwnd_before = flow.bbr.cwnd();
    slower(
        &mut flow,
        stamp + SimDuration::from_secs(10) + ms(1),
        800_000,
    );
    assert_eq!(flow.bbr.mode(), "probe_rtt");
    assert_eq!(flow.bbr.pacing_gain, 1.0);
    // cwnd capped at BBRMinPipeCwnd = 4 packets; the expired RTprop took the new sample.
    assert_eq!(flow.bbr.cwnd(), 4 * MSS);
    assert_eq!(flow.bbr.rtprop(), Some(ms(120)));
    assert_eq!(flow.bbr.recovery.prior_cwnd, cwnd_before);
    // Inflight 5 packets: the 200 ms clock has not started.
    let t = flow.now;
    slower(&mut flow, t + ms(10), 5 * MSS);
    assert_eq!(flow.bbr.probe_rtt.done_stamp, None);
    // Inflight <= 4 packets: done at now + 200 ms, and a new round starts now.
    let t_low = t + ms(20);
    slower(&mut flow, t_low, 4 * MSS);
    assert_eq!(flow.bbr.probe_rtt.done_stamp, Some(t_low + ms(200)));
    let round_end = flow.delivered;
    assert_eq!(flow.bbr.round.next_round_delivered, round_end);
    // A packet sent now is treated as app-limited (draft §4.3.5).
    assert!(flow.bbr.sample_is_app_limited(&RateSample {
        delivered: MSS,
        interval: RTT,
        prior_delivered: round_end,
        is_app_limited: false,
    }));
    // 100 ms later the round ends (sample from a packet sent at round_end)...
    let ack = Ack {
        bytes_in_flight: 4 * MSS,
        rate_sample: Some(RateSample {
            delivered: 4 * MSS,
            interval: RTT,
            prior_delivered: round_end,
            is_app_limited: false,
        }),
        ..flow.plain_ack(t_low + ms(100))
    };
    flow.send(ack);
    assert!(flow.bbr.probe_rtt.round_done);
    // ...but 200 ms have not passed: still ProbeRTT at exactly 200 ms...
    slower(&mut flow, t_low + ms(200), 4 * MSS);
    assert_eq!(flow.bbr.mode(), "probe_rtt");
    assert_eq!(flow.bbr.cwnd(), 4 * MSS);
    // ...and out just after: back to PROBE_BW (pipe filled), 5/4 phase, RTprop stamp
    // renewed so the next ProbeRTT is 10 s away. The 100 ms sample taken at low
    // inflight re-measured RTprop, so cwnd is restored to cwnd_before (+1 000 ACKed) and
    // bounded by the target 2 * 8e6 * 0.1 + 3 000 = 1 603 000.
    assert_eq!(flow.bbr.rtprop(), Some(RTT));
    let t_exit = t_low + ms(200) + SimDuration::from_nanos(1);
    slower(&mut flow, t_exit, 4 * MSS);
    assert_eq!(flow.bbr.mode(), "probe_bw");
    assert_eq!(flow.bbr.cycle_index, 0);
    assert_eq!(flow.bbr.rtprop_stamp, t_exit);
    assert_eq!(cwnd_before, 1_603_000);
    assert_eq!(flow.bbr.cwnd(), 1_603_000);
    // The low-rate samples of ProbeRTT did not lower BtlBw.
    assert_eq!(flow.bbr.btl_bw(), 8e6);
}

#[test]
fn probe_rtt_waits_for_a_round_as_well_as_200_ms() {
    let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
    let stamp = flow.bbr.rtprop_stamp;
    let ms = SimDuration::from_millis;
    let enter = Ack {
        rtt: Some(ms(120)),
        bytes_in_flight: 4 * MSS,
        ..flow.plain_ack(stamp + SimDuration::from_secs(11))
    };
    flow.send(enter);
    assert_eq!(flow.bbr.mode(), "probe_rtt");
    let t_low = flow.now;
    assert_eq!(flow.bbr.probe_rtt.done_stamp, Some(t_low + ms(200)));
    // 300 ms later but no round has ended (no rate sample): stay.
    let ack = flow.plain_ack(t_low + ms(300));
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_rtt");
    // The round ends: leave.
    let prior_delivered = flow.bbr.round.next_round_delivered;
    let ack = Ack {
        rate_sample: Some(RateSample {
            delivered: 4 * MSS,
            interval: RTT,
            prior_delivered,
            is_app_limited: false,
        }),
        ..flow.plain_ack(t_low + ms(310))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw");
}

#[test]
fn probe_rtt_before_the_pipe_is_full_returns_to_startup() {
    let mut flow = Flow::new(&[]);
    flow.round(1e6, false, 4 * MSS);
    let stamp = flow.bbr.rtprop_stamp;
    let ms = SimDuration::from_millis;
    let ack = Ack {
        rtt: Some(ms(150)),
        bytes_in_flight: 4 * MSS,
        ..flow.plain_ack(stamp + SimDuration::from_secs(11))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_rtt");
    let t = flow.now;
    let prior_delivered = flow.bbr.round.next_round_delivered;
    let ack = Ack {
        rate_sample: Some(RateSample {
            delivered: 4 * MSS,
            interval: ms(150),
            prior_delivered,
            is_app_limited: false,
        }),
        ..flow.plain_ack(t + ms(201))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "startup");
    assert_eq!(flow.bbr.pacing_gain, flow.bbr.high_gain);
}

#[test]
fn packet_conservation_for_one_round_of_fast_recovery_then_restore() {
    let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
    let c0 = flow.bbr.cwnd();
    let t = flow.now;
    let ms = SimDuration::from_millis;
    // The ACK that starts recovery: cwnd = pipe + max(delivered, 1 MSS) = 500 000 + 2 000.
    let ack = Ack {
        in_recovery: true,
        bytes_acked: 2 * MSS,
        bytes_in_flight: 500_000,
        newly_lost: 3 * MSS,
        ..flow.plain_ack(t + ms(1))
    };
    let start_delivered = ack.delivered;
    flow.send(ack);
    assert_eq!(flow.bbr.cwnd(), 502_000);
    assert_eq!(flow.bbr.recovery.prior_cwnd, c0);
    // The sender then raises the congestion event: already handled, nothing changes.
    flow.bbr.on_congestion_event(&CongestionEvent {
        now: t + ms(1),
        bytes_in_flight: 503_000,
        srtt: Some(RTT),
        min_rtt: Some(RTT),
    });
    assert_eq!(flow.bbr.cwnd(), 502_000);
    // Next ACK: 4 000 newly lost -> 498 000, but conservation keeps
    // cwnd >= pipe + delivered = 499 000 + 1 000 = 500 000.
    let ack = Ack {
        in_recovery: true,
        bytes_in_flight: 499_000,
        newly_lost: 4 * MSS,
        ..flow.plain_ack(t + ms(2))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.cwnd(), 500_000);
    // Losses without conservation headroom: 500 000 - 10 000 = 490 000 >= 480 000 + 1 000.
    let ack = Ack {
        in_recovery: true,
        bytes_in_flight: 480_000,
        newly_lost: 10 * MSS,
        ..flow.plain_ack(t + ms(3))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.cwnd(), 490_000);
    // One round after recovery began, conservation ends: cwnd grows by the bytes ACKed
    // toward the target (490 000 + 1 000).
    let ack = Ack {
        in_recovery: true,
        bytes_in_flight: 480_000,
        rate_sample: Some(RateSample {
            delivered: 100_000,
            interval: RTT,
            prior_delivered: start_delivered,
            is_app_limited: false,
        }),
        ..flow.plain_ack(t + ms(101))
    };
    flow.send(ack);
    assert!(!flow.bbr.recovery.packet_conservation);
    assert_eq!(flow.bbr.cwnd(), 491_000);
    // Recovery ends: the saved cwnd comes back.
    flow.bbr.on_recovery_exit(t + ms(150));
    assert_eq!(flow.bbr.cwnd(), c0);
}

#[test]
fn congestion_event_after_a_plain_ack_uses_that_ack() {
    let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
    let t = flow.now + SimDuration::from_millis(1);
    // The triggering ACK arrives without the recovery flag; the event follows.
    let ack = Ack {
        bytes_in_flight: 300_000,
        bytes_acked: 0,
        ..flow.plain_ack(t)
    };
    flow.send(ack);
    flow.bbr.on_congestion_event(&CongestionEvent {
        now: t,
        bytes_in_flight: 310_000,
        srtt: Some(RTT),
        min_rtt: Some(RTT),
    });
    // cwnd = pipe after that ACK + max(0, 1 MSS).
    assert_eq!(flow.bbr.cwnd(), 301_000);
    assert!(flow.bbr.recovery.packet_conservation);
    // The falling edge of the recovery flag also ends recovery.
    let c_prior = flow.bbr.recovery.prior_cwnd;
    let ack = flow.plain_ack(t + SimDuration::from_millis(50));
    flow.send(ack);
    assert!(!flow.bbr.recovery.in_loss_recovery);
    // Restored, then bounded by the target 2 * 800 000 + 3 000.
    assert_eq!(flow.bbr.cwnd(), (c_prior + MSS).min(1_603_000));
}

#[test]
fn retransmission_timeout_cuts_to_one_packet_then_regrows() {
    let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
    let c0 = flow.bbr.cwnd();
    new_timeout(
        &mut flow.bbr,
        &TimeoutEvent {
            now: flow.now,
            bytes_in_flight: 600_000,
        },
    );
    assert_eq!(flow.bbr.cwnd(), MSS);
    assert_eq!(flow.bbr.recovery.prior_cwnd, c0);
    let t = flow.now;
    // First ACK: 1 000 + 1 000 = 2 000, raised to the 4-packet floor.
    let ack = Ack {
        in_recovery: true,
        bytes_in_flight: 0,
        ..flow.plain_ack(t + RTT)
    };
    flow.send(ack);
    assert_eq!(flow.bbr.cwnd(), 4 * MSS);
    let ack = Ack {
        in_recovery: true,
        bytes_in_flight: 0,
        bytes_acked: 2 * MSS,
        ..flow.plain_ack(t + RTT + SimDuration::from_millis(1))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.cwnd(), 6 * MSS);
    flow.bbr.on_recovery_exit(flow.now);
    assert_eq!(flow.bbr.cwnd(), c0);
}

#[test]
fn timeout_during_fast_recovery_keeps_the_pre_recovery_cwnd() {
    let mut flow = Flow::into_probe_bw(&[("quanta", text("mss"))]);
    let c0 = flow.bbr.cwnd();
    let ack = Ack {
        in_recovery: true,
        bytes_in_flight: 200_000,
        ..flow.plain_ack(flow.now + SimDuration::from_millis(1))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.cwnd(), 201_000);
    // SaveCwnd in recovery keeps max(prior_cwnd, cwnd) = c0, not the cut window.
    flow.bbr.on_retransmission_timeout(&TimeoutEvent {
        now: flow.now,
        bytes_in_flight: 200_000,
    });
    assert_eq!((flow.bbr.cwnd(), flow.bbr.recovery.prior_cwnd), (MSS, c0));
    flow.bbr.on_recovery_exit(flow.now);
    assert_eq!(flow.bbr.cwnd(), c0);
}

#[test]
fn cwnd_never_below_four_packets_on_a_tiny_bdp() {
    let mut flow = Flow::new(&[("quanta", text("mss"))]);
    // 1 000 B/s * 100 ms = 100 B of BDP: 2 * 100 + 3 000 = 3 200 < 4 000.
    for _ in 0..4 {
        flow.round(1_000.0, false, 0);
    }
    assert_eq!(flow.bbr.mode(), "probe_bw");
    assert_eq!(flow.bbr.inflight(2.0), 3_200);
    assert_eq!(flow.bbr.cwnd(), 4 * MSS);
}

#[test]
fn seeded_start_phases_skip_the_drain_phase_and_reproduce() {
    let mut seen = [false; GAIN_CYCLE_LEN];
    for seed in 1..=40 {
        let flow = Flow::into_probe_bw(&[("seed", ParamInput::Number(seed as f64))]);
        let again = Flow::into_probe_bw(&[("seed", ParamInput::Number(seed as f64))]);
        assert_eq!(flow.bbr.cycle_index, again.bbr.cycle_index);
        assert_ne!(
            flow.bbr.cycle_index, 1,
            "seed {seed} started in the 3/4 phase"
        );
        seen[flow.bbr.cycle_index] = true;
    }
    assert_eq!(seen.iter().filter(|s| **s).count(), 7);
}

#[test]
fn restart_from_idle_paces_at_btlbw_in_probe_bw() {
    let mut flow = Flow::into_probe_bw(&[]);
    // In the 5/4 phase; a send with nothing else in flight restarts from idle.
    flow.bbr.on_packet_sent(flow.now, MSS, MSS);
    assert!(flow.bbr.idle_restart);
    assert_eq!(flow.bbr.pacing_rate(), Some(64_000_000));
    // With other data in flight it is not a restart.
    let mut flow = Flow::into_probe_bw(&[]);
    flow.bbr.on_packet_sent(flow.now, MSS, 2 * MSS);
    assert!(!flow.bbr.idle_restart);
}

#[test]
fn builds_from_the_registry_with_defaults() {
    let config = CcConfig::new(1448);
    let cc = (INFO.build)(
        &config,
        &Params::defaults(INFO.params),
        Box::new(crate::slow_start::standard::StandardSlowStart::new(&config)),
    );
    assert_eq!(cc.name(), "bbr");
    assert_eq!(cc.mode(), "startup");
    const { assert!(!INFO.uses_slow_start) };
}

/// Linux `bbr_undo_cwnd`: a spurious reduction resets the full-pipe detector (full_bw,
/// full_bw_cnt: "spurious slow-down") and leaves cwnd as it is. Two flat rounds counted
/// (as in `app_limited_rounds_do_not_count_toward_a_full_pipe`), then an undo: the count
/// restarts from zero, so the pipe is not yet full after one more flat round — the first
/// round after the reset sets a new baseline (8e6 ≥ 0 · 1.25), the next three count.
#[test]
fn undo_resets_the_full_pipe_detector_and_keeps_cwnd() {
    let mut flow = Flow::new(&[]);
    for rate in [1e6, 2e6, 4e6, 8e6, 8e6, 8e6] {
        flow.round(rate, false, 5_000_000);
    }
    assert_eq!(flow.bbr.full_bw.count, 2);
    let cwnd = flow.bbr.cwnd();
    flow.bbr.on_undo(&crate::controller::UndoEvent {
        now: flow.now,
        prior_cwnd: 4 * cwnd,
        prior_ssthresh: crate::controller::UNLIMITED,
    });
    assert_eq!(flow.bbr.cwnd(), cwnd);
    assert_eq!((flow.bbr.full_bw.bw, flow.bbr.full_bw.count), (0.0, 0));
    for count in [0, 1, 2] {
        flow.round(8e6, false, 5_000_000);
        assert_eq!(flow.bbr.full_bw.count, count);
        assert_eq!(flow.bbr.mode(), "startup");
    }
    flow.round(8e6, false, 5_000_000);
    assert_eq!(flow.bbr.mode(), "drain");
}
