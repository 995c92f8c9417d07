//! Unit tests of BBR v3, driven by hand-made ACKs: one stretch ACK per packet-timed round
//! with an exact rate sample (optionally CE-marked), or one-MSS ACKs at chosen times.

use super::*;
use crate::controller::RateSample;
use crate::params::ParamInput;
use crate::test_support::{ack, ms, new_timeout};

const MSS: u64 = 1000;
const RTT: SimDuration = SimDuration::from_millis(100);

/// pacing_rate in bit/s for `gain * bw` with the 1 % margin (draft §5.6.2).
fn paced(gain: f64, bw: f64) -> u64 {
    (gain * bw * (100.0 - 1.0) / 100.0 * 8.0) as u64
}

struct Flow {
    bbr: Bbr3,
    now: SimTime,
    delivered: u64,
}

impl Flow {
    fn new(inputs: &[(&str, ParamInput)]) -> Self {
        let params = Params::from_inputs(PARAMS, inputs.iter().map(|(n, v)| (*n, v))).unwrap();
        Flow {
            bbr: Bbr3::new(&CcConfig::new(MSS), &params),
            now: SimTime::ZERO,
            delivered: 0,
        }
    }

    /// A round-ending stretch ACK one RTT later: `rate * RTT` bytes, rate sample exactly
    /// `rate`, from a packet sent when C.delivered was its value before this ACK.
    fn round(&mut self, rate: f64, in_flight: u64) {
        let at = self.now + RTT;
        let ack = self.rate_ack(at, rate, in_flight);
        self.send(ack);
    }

    fn rate_ack(&mut self, at: SimTime, rate: f64, in_flight: u64) -> Ack {
        let bytes = (rate * RTT.as_secs_f64()).round() as u64;
        let prior_delivered = self.delivered;
        let plain = self.plain_ack(at);
        Ack {
            bytes_acked: bytes,
            delivered: prior_delivered + bytes,
            prior_in_flight: in_flight + bytes,
            bytes_in_flight: in_flight,
            rate_sample: Some(RateSample {
                delivered: bytes,
                interval: RTT,
                prior_delivered,
                is_app_limited: false,
            }),
            ..plain
        }
    }

    /// One MSS ACKed at `at`, RTT sample 100 ms, no rate sample.
    fn plain_ack(&mut self, at: SimTime) -> Ack {
        Ack {
            now: at,
            rtt: Some(RTT),
            min_rtt: Some(RTT),
            srtt: Some(RTT),
            prior_in_flight: 10 * MSS,
            bytes_in_flight: 9 * MSS,
            delivered: self.delivered + MSS,
            ..ack(MSS)
        }
    }

    /// A round-ending ACK as `round`, reporting `ce` of its bytes CE-marked.
    fn ce_round(&mut self, rate: f64, in_flight: u64, ce: u64) {
        let at = self.now + RTT;
        let ack = Ack {
            ecn_ce_bytes: ce,
            ..self.rate_ack(at, rate, in_flight)
        };
        self.send(ack);
    }

    fn send(&mut self, ack: Ack) {
        self.now = ack.now;
        self.delivered = ack.delivered;
        self.bbr.on_ack(&ack);
    }

    /// STARTUP at 1, 2, 4, 8, 8, 8, 8 MB/s: the round-5..7 samples are below
    /// 8e6 * 1.25 = 1e7, so full_bw_reached at round 7 (DRAIN).
    fn into_drain(inputs: &[(&str, ParamInput)]) -> Self {
        let mut flow = Flow::new(inputs);
        for rate in [1e6, 2e6, 4e6, 8e6, 8e6, 8e6, 8e6] {
            flow.round(rate, 5_000_000);
        }
        assert_eq!(flow.bbr.bbr_mode(), Mode::Drain);
        flow
    }

    /// DRAIN ends with nothing in flight; DOWN sees inflight <= BDP at once: CRUISE.
    /// max_bw = bw = 8e6 B/s, min_rtt = 100 ms, BDP = 800 000 B.
    fn into_cruise(inputs: &[(&str, ParamInput)]) -> Self {
        let mut flow = Flow::into_drain(inputs);
        let ack = Ack {
            bytes_in_flight: 0,
            ..flow.plain_ack(flow.now + ms(1))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.bbr_mode(), Mode::ProbeBwCruise);
        flow
    }

    /// CRUISE until the 2.5 s probe wait has passed, REFILL for one round, then UP.
    fn into_up(inputs: &[(&str, ParamInput)]) -> Self {
        let mut flow = Flow::into_cruise(inputs);
        let wait_over = flow.bbr.cycle_stamp + ms(2500) + SimDuration::from_nanos(1);
        let ack = flow.plain_ack(wait_over);
        flow.send(ack);
        assert_eq!(flow.bbr.bbr_mode(), Mode::ProbeBwRefill);
        flow.round(8e6, 900_000);
        assert_eq!(flow.bbr.bbr_mode(), Mode::ProbeBwUp);
        flow
    }
}

#[test]
fn startup_gains_and_initial_pacing() {
    let flow = Flow::new(&[]);
    let bbr = &flow.bbr;
    assert_eq!(bbr.mode(), "startup");
    // StartupPacingGain = 4 ln 2 = 2.772588722239781; cwnd gain 2 (draft §5.3.1.1).
    assert!((bbr.pacing_gain - 2.772_588_722_239_781).abs() < 1e-15);
    assert_eq!(bbr.cwnd_gain, 2.0);
    assert_eq!(bbr.cwnd(), 10 * MSS);
    // InitPacingRate: 4 ln 2 * 10 000 B / 1 ms, no margin.
    let expected = (4.0 * libm::log(2.0) * 10_000.0 / 1e-3 * 8.0) as u64;
    assert_eq!(bbr.pacing_rate(), Some(expected));
    assert!(bbr.controls_recovery_window());
    assert_eq!(bbr.ssthresh(), UNLIMITED);
}

#[test]
fn startup_ends_after_three_rounds_without_25_percent_growth_of_the_sample() {
    let mut flow = Flow::new(&[]);
    // (sample, full_bw, count): the baseline moves on each >= 25 % rise of RS.delivery_rate.
    for (i, (rate, full_bw, count)) in [
        (1e6, 1e6, 0),
        (2e6, 2e6, 0),
        (4e6, 4e6, 0),
        (8e6, 8e6, 0),
        (9e6, 8e6, 1),
        (9.9e6, 8e6, 2),
    ]
    .into_iter()
    .enumerate()
    {
        flow.round(rate, 5_000_000);
        assert_eq!(flow.bbr.round.count, i as u64 + 1);
        assert_eq!(
            (flow.bbr.full_bw.bw, flow.bbr.full_bw.count),
            (full_bw, count)
        );
        assert_eq!(flow.bbr.mode(), "startup");
    }
    // 9.5e6 < 1e7: third round without growth.
    flow.round(9.5e6, 5_000_000);
    assert!(flow.bbr.full_bw_reached && flow.bbr.full_bw_now);
    assert_eq!(flow.bbr.mode(), "drain");
    assert_eq!(flow.bbr.pacing_gain, 0.5);
    assert_eq!(flow.bbr.cwnd_gain, 2.0);
    assert_eq!(flow.bbr.drain_start_round, 7);
    // max_bw is the best sample, 9.9e6; DRAIN paces at 0.5 * 9.9e6 * 0.99.
    assert_eq!(flow.bbr.max_bw(), 9.9e6);
    assert_eq!(flow.bbr.pacing_rate(), Some(paced(0.5, 9.9e6)));
}

#[test]
fn drain_ends_when_inflight_is_down_to_the_bdp() {
    let mut flow = Flow::into_drain(&[]);
    // Inflight(1.0) = max(BDP, offload budget, 4 MSS) = max(8e6 * 0.1 = 800 000,
    // 3 * 3 960 (0.5 * 8e6 * 0.99 B/s * 1 ms), 4 000) = 800 000.
    assert_eq!(flow.bbr.inflight(flow.bbr.bw, 1.0), 800_000);
    let ack = Ack {
        bytes_in_flight: 800_001,
        ..flow.plain_ack(flow.now + ms(1))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "drain");
    let ack = Ack {
        bytes_in_flight: 800_000,
        ..flow.plain_ack(flow.now + ms(1))
    };
    flow.send(ack);
    // ProbeBW_DOWN, and on the same ACK inflight <= BDP means CRUISE.
    assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
    assert_eq!(flow.bbr.pacing_gain, 1.0);
}

#[test]
fn drain_ends_after_three_rounds_even_with_a_standing_queue() {
    let mut flow = Flow::into_drain(&[]);
    // drain_start_round = 7: rounds 8, 9, 10 stay (round_count > 7 + 3 is false)...
    for round in 8..=10 {
        flow.round(7e6, 2_000_000);
        assert_eq!(flow.bbr.round.count, round);
        assert_eq!(flow.bbr.mode(), "drain");
    }
    // ...round 11 leaves for ProbeBW_DOWN, where 2 MB in flight is no time to cruise.
    flow.round(7e6, 2_000_000);
    assert_eq!(flow.bbr.mode(), "probe_bw_down");
    assert_eq!(flow.bbr.pacing_gain, 0.9);
}

#[test]
fn probe_bw_cycles_down_cruise_refill_up_down() {
    let mut flow = Flow::into_cruise(&[]);
    assert_eq!(flow.bbr.pacing_rate(), Some(paced(1.0, 8e6)));
    // CRUISE holds until the (deterministic) 2.5 s probe wait has passed.
    let stamp = flow.bbr.cycle_stamp;
    let ack = flow.plain_ack(stamp + ms(2500));
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
    let ack = flow.plain_ack(stamp + ms(2500) + SimDuration::from_nanos(1));
    flow.send(ack);
    // REFILL: gain 1, short-term model reset, a new round started.
    assert_eq!(flow.bbr.mode(), "probe_bw_refill");
    assert_eq!(flow.bbr.pacing_gain, 1.0);
    assert!(flow.bbr.bw_shortterm.is_infinite());
    assert_eq!(flow.bbr.round.next_round_delivered, flow.delivered);
    // An ACK within the round: still REFILL.
    let ack = flow.plain_ack(flow.now + ms(10));
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw_refill");
    // One round of REFILL: UP at 1.25, cwnd gain 2.25, full_bw = this sample.
    flow.round(8e6, 900_000);
    assert_eq!(flow.bbr.mode(), "probe_bw_up");
    assert_eq!((flow.bbr.pacing_gain, flow.bbr.cwnd_gain), (1.25, 2.25));
    assert_eq!(flow.bbr.full_bw.bw, 8e6);
    assert!(flow.bbr.is_bw_probe_sample);
    assert_eq!(flow.bbr.pacing_rate(), Some(paced(1.25, 8e6)));
    // Three rounds without a 25 % rise (8e6 < 1e7): full_bw_now, then DOWN at 0.9.
    for count in 1..=2 {
        flow.round(8e6, 1_000_000);
        assert_eq!(flow.bbr.full_bw.count, count);
        assert_eq!(flow.bbr.mode(), "probe_bw_up");
    }
    flow.round(8e6, 1_000_000);
    assert_eq!(flow.bbr.mode(), "probe_bw_down");
    assert_eq!(flow.bbr.pacing_gain, 0.9);
    assert!(!flow.bbr.prev_probe_too_high);
    // DOWN -> CRUISE once inflight <= Inflight(max_bw, 1) = 800 000 (no inflight_longterm,
    // so no headroom condition).
    let ack = Ack {
        bytes_in_flight: 800_001,
        ..flow.plain_ack(flow.now + ms(10))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw_down");
    let ack = Ack {
        bytes_in_flight: 800_000,
        ..flow.plain_ack(flow.now + ms(10))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
}

#[test]
fn max_bw_filter_advances_one_slot_per_probe_cycle() {
    let mut flow = Flow::into_cruise(&[]);
    // The DOWN entered on leaving DRAIN is in ACKS_PROBE_STOPPING: the next round end
    // advances cycle_count to 1; samples from cycle 0 (8e6) still count.
    assert_eq!(flow.bbr.cycle_count, 0);
    flow.round(5e6, 700_000);
    assert_eq!(flow.bbr.cycle_count, 1);
    assert_eq!(flow.bbr.max_bw(), 8e6);
    // Samples in cycle 1 cannot age out cycle 0 (window = current + previous cycle).
    flow.round(5e6, 700_000);
    assert_eq!(flow.bbr.max_bw(), 8e6);
    // Force the next cycle: cycle 2 forgets cycle 0.
    flow.bbr.cycle_count = 2;
    flow.round(5e6, 700_000);
    assert_eq!(flow.bbr.max_bw(), 5e6);
}

#[test]
fn reno_coexistence_rounds_can_start_the_probe_before_the_wall_clock() {
    let mut flow = Flow::into_cruise(&[]);
    // Shrink the path: bw 200 000 B/s so BDP = 20 000 B = 20 packets;
    // TargetInflight = min(BDP, cwnd) = 20 packets -> probe after 20 rounds.
    flow.bbr.max_bw_filter.reset();
    flow.bbr.max_bw_filter.update(flow.bbr.cycle_count, 2e5, 2);
    flow.bbr.bw = 2e5;
    assert_eq!(flow.bbr.target_inflight(), 20_000);
    flow.bbr.rounds_since_probe_up = 19;
    let ack = flow.plain_ack(flow.now + ms(1));
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
    flow.bbr.rounds_since_probe_up = 20;
    let ack = flow.plain_ack(flow.now + ms(1));
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw_refill");
}

#[test]
fn loss_rate_above_two_percent_in_probe_up_sets_inflight_longterm() {
    let mut flow = Flow::into_up(&[]);
    assert_eq!(flow.bbr.inflight_longterm(), INFINITE);
    // RS.lost = 20 000 lost in this round; RS.tx_in_flight = 1 000 000 in flight
    // + 1 000 ACKed + 20 000 lost = 1 021 000; 2 % of it is 20 420 > 20 000: tolerated.
    let ack = Ack {
        bytes_in_flight: 1_000_000,
        newly_lost: 20_000,
        ..flow.plain_ack(flow.now + ms(5))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw_up");
    assert_eq!(flow.bbr.inflight_longterm(), INFINITE);
    // 1 000 more lost: 21 000 > 0.02 * (1 000 000 + 1 000 + 21 000) = 20 440: too high.
    // inflight_longterm = max(tx_in_flight, Beta * min(BDP, cwnd))
    //                   = max(1 022 000, 0.7 * 800 000 = 560 000) = 1 022 000.
    let ack = Ack {
        bytes_in_flight: 1_000_000,
        newly_lost: 1_000,
        ..flow.plain_ack(flow.now + ms(5))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.inflight_longterm(), 1_022_000);
    assert_eq!(flow.bbr.mode(), "probe_bw_down");
    assert!(flow.bbr.prev_probe_too_high);
    assert!(!flow.bbr.is_bw_probe_sample);
}

#[test]
fn beta_bounds_the_cut_and_headroom_gates_cruise() {
    let mut flow = Flow::into_up(&[]);
    let cwnd = flow.bbr.cwnd();
    assert!(cwnd >= 800_000);
    // 12 000 lost of tx_in_flight 500 000 + 1 000 + 12 000 = 513 000 (2 % = 10 260): too
    // high, and Beta * min(BDP, cwnd) = 0.7 * 800 000 = 560 000 > 513 000.
    let ack = Ack {
        bytes_in_flight: 500_000,
        newly_lost: 12_000,
        ..flow.plain_ack(flow.now + ms(5))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.inflight_longterm(), 560_000);
    assert_eq!(flow.bbr.mode(), "probe_bw_down");
    // DOWN -> CRUISE needs inflight <= InflightWithHeadroom =
    // 560 000 - max(1 MSS, 0.15 * 560 000 = 84 000) = 476 000 (and <= BDP); 500 000 was
    // in flight, so DOWN holds. (The round's 12 000 lost still exceed 2 % of the
    // tx_in_flight estimates below, so inflight_longterm is not raised back.)
    assert_eq!(flow.bbr.inflight_with_headroom(), 476_000);
    let ack = Ack {
        bytes_in_flight: 476_001,
        ..flow.plain_ack(flow.now + ms(5))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw_down");
    // In DOWN cwnd is capped at inflight_longterm.
    assert!(flow.bbr.cwnd() <= 560_000);
    let ack = Ack {
        bytes_in_flight: 476_000,
        ..flow.plain_ack(flow.now + ms(5))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
    // CRUISE caps cwnd at the headroom-adjusted bound.
    assert_eq!(flow.bbr.cwnd(), 476_000);
}

#[test]
fn short_term_bounds_cut_once_per_lossy_round_and_reset_on_refill() {
    let mut flow = Flow::into_cruise(&[]);
    let cwnd0 = flow.bbr.cwnd();
    // A loss in CRUISE starts a loss round (NoteLoss)...
    let ack = Ack {
        newly_lost: MSS,
        ..flow.plain_ack(flow.now + ms(10))
    };
    flow.send(ack);
    assert!(flow.bbr.is_loss_in_round);
    assert!(flow.bbr.bw_shortterm.is_infinite());
    // ...which ends at the ACK of a packet sent after it: bw_latest = 6e6,
    // inflight_latest = 600 000. InitLowerBounds: bw_shortterm = max_bw = 8e6,
    // inflight_shortterm = cwnd; LossLowerBounds:
    // bw_shortterm = max(6e6, 0.7 * 8e6 = 5.6e6) = 6e6,
    // inflight_shortterm = max(600 000, 0.7 * cwnd).
    let ack = flow.rate_ack(flow.now + ms(100), 6e6, 500_000);
    flow.send(ack);
    assert_eq!(flow.bbr.bw_shortterm, 6e6);
    let inflight_lo = 600_000u64.max((0.7 * cwnd0 as f64) as u64);
    assert_eq!(flow.bbr.inflight_shortterm(), inflight_lo);
    // bw = min(max_bw, bw_shortterm) = 6e6 sets the pacing rate; cwnd obeys the bound.
    assert_eq!(flow.bbr.bw(), 6e6);
    assert_eq!(flow.bbr.pacing_rate(), Some(paced(1.0, 6e6)));
    assert!(flow.bbr.cwnd() <= inflight_lo);
    // A round without loss changes nothing.
    let cwnd1 = flow.bbr.cwnd();
    let ack = flow.rate_ack(flow.now + ms(100), 3e6, 300_000);
    flow.send(ack);
    assert_eq!(flow.bbr.bw_shortterm, 6e6);
    // Another lossy round: bw_shortterm = max(3e6, 0.7 * 6e6 = 4.2e6) = 4.2e6 (bw_latest
    // restarted at the last round end with that round's 3e6 sample),
    // inflight_shortterm = max(300 000, 0.7 * previous).
    let ack = Ack {
        newly_lost: MSS,
        ..flow.plain_ack(flow.now + ms(10))
    };
    flow.send(ack);
    let ack = flow.rate_ack(flow.now + ms(100), 3e6, 300_000);
    flow.send(ack);
    assert!((flow.bbr.bw_shortterm - 0.7 * 6e6).abs() < 1e-6);
    assert_eq!(
        flow.bbr.inflight_shortterm(),
        300_000u64.max((0.7 * inflight_lo as f64) as u64)
    );
    assert!(flow.bbr.cwnd() <= cwnd1);
    // REFILL forgets the short-term model.
    let wait_over = flow.bbr.cycle_stamp + ms(2500) + SimDuration::from_nanos(1);
    let ack = flow.plain_ack(wait_over);
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw_refill");
    assert!(flow.bbr.bw_shortterm.is_infinite());
    assert_eq!(flow.bbr.inflight_shortterm(), INFINITE);
    assert_eq!(flow.bbr.bw(), 8e6);
}

#[test]
fn probing_states_do_not_cut_the_short_term_bounds() {
    let mut flow = Flow::into_up(&[]);
    // A small loss in UP (below 2 %), then the loss round ends: IsProbingBW, no cut.
    let ack = Ack {
        bytes_in_flight: 1_000_000,
        newly_lost: MSS,
        ..flow.plain_ack(flow.now + ms(5))
    };
    flow.send(ack);
    flow.round(8e6, 1_000_000);
    assert!(flow.bbr.bw_shortterm.is_infinite());
    assert_eq!(flow.bbr.inflight_shortterm(), INFINITE);
}

#[test]
fn inflight_longterm_grows_in_probe_up_when_cwnd_limited_by_it() {
    let mut flow = Flow::into_up(&[]);
    flow.bbr.inflight_longterm = 900_000;
    flow.bbr.cwnd = 900_000;
    flow.bbr.bw_probe_up_rounds = 0;
    flow.bbr.raise_inflight_longterm_slope();
    // First slope: growth 1 << 0 = 1 packet per cwnd ACKed: per_inc = 900 000 / 1.
    assert_eq!(flow.bbr.probe_up_acked_per_inc, 900_000);
    assert_eq!(flow.bbr.bw_probe_up_rounds, 1);
    // ACKs of 100 000 bytes with 800 000 in flight (tx_in_flight 900 000, not above
    // inflight_longterm) while cwnd-limited at inflight_longterm: after 900 000 bytes,
    // +1 MSS.
    for i in 1..=9 {
        let ack = Ack {
            bytes_acked: 100_000,
            bytes_in_flight: 800_000,
            ..flow.plain_ack(flow.now + ms(1))
        };
        flow.send(ack);
        let expected = if i < 9 { 900_000 } else { 901_000 };
        assert_eq!(flow.bbr.inflight_longterm(), expected, "ACK {i}");
    }
    // Next slope doubles the growth: per_inc = cwnd / 2.
    flow.bbr.cwnd = 900_000;
    flow.bbr.raise_inflight_longterm_slope();
    assert_eq!(flow.bbr.probe_up_acked_per_inc, 450_000);
    // Not cwnd-limited: no growth.
    let before = flow.bbr.inflight_longterm();
    let ack = Ack {
        bytes_acked: 100_000,
        bytes_in_flight: 800_000,
        cwnd_limited: false,
        ..flow.plain_ack(flow.now + ms(5))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.inflight_longterm(), before);
}

#[test]
fn startup_exits_on_persistent_high_loss() {
    let run = |loss_events: u64| {
        let mut flow = Flow::new(&[]);
        flow.round(1e6, 100_000);
        flow.round(2e6, 100_000);
        assert_eq!(flow.bbr.round.count, 2);
        // Fast recovery starts (round 2 becomes the recovery's first round); each of
        // the next ACKs marks 2 500 bytes lost.
        for i in 0..loss_events {
            let ack = Ack {
                in_recovery: true,
                bytes_in_flight: 100_000,
                newly_lost: 2_500,
                ..flow.plain_ack(flow.now + ms(1))
            };
            flow.send(ack);
            assert_eq!(flow.bbr.loss_events_in_round, i as u32 + 1);
        }
        // The ACK that ends the round (and the loss round): 250 000 B delivered at
        // 2.5e6 B/s, 300 000 B left in flight (above Inflight(1) = BDP = 200 000, so
        // DRAIN does not end at once); RS.lost = 2 500 * n,
        // RS.tx_in_flight = 300 000 + 250 000 + lost.
        let ack = Ack {
            in_recovery: true,
            ..flow.rate_ack(flow.now + ms(90), 2.5e6, 300_000)
        };
        flow.send(ack);
        flow
    };
    // 6 loss events, 15 000 lost > 0.02 * 565 000 = 11 300, after a full round in
    // recovery: STARTUP ends; inflight_longterm = max(BDP = 2e6 * 0.1 = 200 000,
    // inflight_latest = 250 000) = 250 000.
    let flow = run(6);
    assert_eq!(flow.bbr.round.count, 3);
    assert!(flow.bbr.full_bw_reached);
    assert_eq!(flow.bbr.mode(), "drain");
    assert_eq!(flow.bbr.inflight_longterm(), 250_000);
    // 5 loss events: 12 500 > 0.02 * 562 500 = 11 250, but fewer than 6: stay.
    let flow = run(5);
    assert_eq!(flow.bbr.mode(), "startup");
    assert_eq!(flow.bbr.inflight_longterm(), INFINITE);
}

#[test]
fn probe_rtt_every_five_seconds_at_half_the_bdp() {
    let mut flow = Flow::into_cruise(&[]);
    // probe_rtt_min_delay was last lowered by the first sample, at t = 100 ms; equal
    // samples do not refresh it (strict <), so it expires after 5.1 s.
    assert_eq!(flow.bbr.probe_rtt_min_stamp, SimTime::ZERO + ms(100));
    let t_exp = SimTime::ZERO + ms(5100);
    let ack = Ack {
        bytes_in_flight: 700_000,
        ..flow.plain_ack(t_exp)
    };
    flow.send(ack);
    // (The probe wait has passed too: CRUISE went on to REFILL.)
    assert_eq!(flow.bbr.mode(), "probe_bw_refill");
    let ack = Ack {
        bytes_in_flight: 700_000,
        ..flow.plain_ack(t_exp + ms(1))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_rtt");
    assert_eq!((flow.bbr.pacing_gain, flow.bbr.cwnd_gain), (1.0, 0.5));
    // ProbeRTTCwnd = max(0.5 * 8e6 * 0.1 = 400 000, 4 MSS).
    assert_eq!(flow.bbr.cwnd(), 400_000);
    // Inflight reaches it: 200 ms clock and a new round start.
    let t_low = t_exp + ms(50);
    let ack = Ack {
        bytes_in_flight: 400_000,
        ..flow.plain_ack(t_low)
    };
    flow.send(ack);
    assert_eq!(flow.bbr.probe_rtt.done_stamp, Some(t_low + ms(200)));
    // Round done before 200 ms: stay.
    let ack = flow.rate_ack(t_low + ms(100), 4e6, 400_000);
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_rtt");
    // After 200 ms: leave through DOWN straight to CRUISE, the next ProbeRTT 5 s away.
    let t_exit = t_low + ms(201);
    let ack = Ack {
        bytes_in_flight: 400_000,
        ..flow.plain_ack(t_exit)
    };
    flow.send(ack);
    assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
    assert_eq!(flow.bbr.probe_rtt_min_stamp, t_exit);
    assert!(flow.bbr.cwnd() > 400_000);
    // The 4e6 sample from inside ProbeRTT was app-limited and did not count.
    assert_eq!(flow.bbr.max_bw(), 8e6);
}

#[test]
fn packet_conservation_in_recovery_and_restore() {
    let mut flow = Flow::into_cruise(&[]);
    let c0 = flow.bbr.cwnd();
    let ack = Ack {
        in_recovery: true,
        bytes_acked: 2 * MSS,
        bytes_in_flight: 300_000,
        newly_lost: MSS,
        ..flow.plain_ack(flow.now + ms(1))
    };
    flow.send(ack);
    // pipe + max(ACKed, 1 MSS) = 302 000.
    assert_eq!(flow.bbr.cwnd(), 302_000);
    assert_eq!(flow.bbr.recovery.prior_cwnd, c0);
    // More losses: 302 000 - 5 000 = 297 000 < pipe + ACKed = 299 000 + 1 000.
    let ack = Ack {
        in_recovery: true,
        bytes_in_flight: 299_000,
        newly_lost: 5 * MSS,
        ..flow.plain_ack(flow.now + ms(1))
    };
    flow.send(ack);
    assert_eq!(flow.bbr.cwnd(), 300_000);
    flow.bbr.on_recovery_exit(flow.now);
    assert_eq!(flow.bbr.cwnd(), c0);
}

#[test]
fn timeout_cuts_to_one_packet() {
    let mut flow = Flow::into_cruise(&[]);
    let c0 = flow.bbr.cwnd();
    new_timeout(
        &mut flow.bbr,
        &TimeoutEvent {
            now: flow.now,
            bytes_in_flight: 500_000,
        },
    );
    assert_eq!(flow.bbr.cwnd(), MSS);
    assert!(flow.bbr.is_loss_in_round);
    let ack = Ack {
        in_recovery: true,
        bytes_in_flight: 0,
        ..flow.plain_ack(flow.now + RTT)
    };
    flow.send(ack);
    // 1 000 + 1 000 ACKed, floored at 4 packets.
    assert_eq!(flow.bbr.cwnd(), 4 * MSS);
    let ack = flow.plain_ack(flow.now + ms(1));
    flow.send(ack);
    assert!(flow.bbr.cwnd() >= c0.min(flow.bbr.max_inflight));
}

#[test]
fn seeded_probe_timing_stays_in_the_drafts_ranges() {
    let mut offsets = [false; 2];
    for seed in 1..=30 {
        let flow = Flow::into_cruise(&[("seed", ParamInput::Number(seed as f64))]);
        let again = Flow::into_cruise(&[("seed", ParamInput::Number(seed as f64))]);
        let wait = flow.bbr.bw_probe_wait;
        assert_eq!(wait, again.bbr.bw_probe_wait);
        assert!(wait >= SimDuration::from_secs(2) && wait < SimDuration::from_secs(3));
        offsets[flow.bbr.rounds_since_probe_up as usize] = true;
    }
    assert_eq!(offsets, [true, true]);
    let flow = Flow::into_cruise(&[]);
    assert_eq!(flow.bbr.bw_probe_wait, ms(2500));
}

// ---- ECN (Linux tcp_bbr.c v3) ----------------------------------------------------------

/// The helpers' RTT is 100 ms, above the default 5 ms eligibility bound: these tests lift
/// the bound (ecn_max_rtt = 0: any RTT) unless they test it.
fn any_rtt() -> [(&'static str, ParamInput); 1] {
    [("ecn_max_rtt", ParamInput::Number(0.0))]
}

#[test]
fn ecn_parameters_default_to_linux_values() {
    let bbr = Flow::new(&[]).bbr;
    // Linux tcp_bbr.c: ecn_alpha_gain 16/256, ecn_thresh 128/256, ecn_factor 1/3 (85/256
    // in its fixed point), ecn_reprobe_gain 128/256, ecn_max_rtt 5 000 us, alpha starts
    // at 1 (256/256).
    assert_eq!(bbr.ecn.alpha_gain, 1.0 / 16.0);
    assert_eq!(bbr.ecn.thresh, 0.5);
    assert_eq!(bbr.ecn.factor, 1.0 / 3.0);
    assert_eq!(bbr.ecn.reprobe_gain, 0.5);
    assert_eq!(bbr.ecn.max_rtt, Some(ms(5)));
    assert!(bbr.ecn.enabled);
    assert_eq!(bbr.ecn_alpha(), 1.0);
    assert!(!bbr.ecn_eligible());
    assert!(bbr.responds_to_ecn());
}

#[test]
fn ecn_alpha_is_an_ewma_of_the_ce_share_per_round_and_two_high_rounds_end_startup() {
    let mut flow = Flow::new(&any_rtt());
    // Round 1 (100 000 B, no marks): min_rtt is not known yet when the round starts
    // (UpdateMinRTT runs later on that ACK), so the flow is not eligible and alpha stays
    // at its initial 1.
    flow.ce_round(1e6, 100_000, 0);
    assert!(!flow.bbr.ecn_eligible());
    assert_eq!(flow.bbr.ecn_alpha(), 1.0);
    // Round 2 (200 000 B, 100 000 CE): eligible; the first ratio covers everything since
    // the connection began (alpha_last_delivered starts at 0): 100 000 / 300 000 = 1/3.
    // alpha = 15/16 * 1 + 1/16 * 1/3 = 0.958 333...
    flow.ce_round(2e6, 100_000, 100_000);
    assert!(flow.bbr.ecn_eligible());
    let mut alpha = 15.0 / 16.0 + 1.0 / 16.0 / 3.0;
    assert!((flow.bbr.ecn_alpha() - alpha).abs() < 1e-12);
    // Round 3 (400 000 B, none): alpha = 15/16 * 0.958 333 = 0.898 437 5.
    flow.ce_round(4e6, 100_000, 0);
    alpha *= 15.0 / 16.0;
    assert!((flow.bbr.ecn_alpha() - 0.898_437_5).abs() < 1e-12);
    // Round 4 (800 000 B, all marked): alpha = 15/16 * 0.898 437 5 + 1/16
    // = 0.904 785 156 25; the first STARTUP round with a CE share >= 50 %.
    flow.ce_round(8e6, 100_000, 800_000);
    alpha = 15.0 / 16.0 * alpha + 1.0 / 16.0;
    assert!((flow.bbr.ecn_alpha() - 0.904_785_156_25).abs() < 1e-12);
    assert_eq!(flow.bbr.startup_ecn_rounds, 1);
    assert_eq!(flow.bbr.mode(), "startup");
    // Round 5 decides, with 800 000 B delivered: STARTUP's check is ce_ratio >= 50 %
    // (Linux bbr_check_ecn_too_high_in_startup), so 399 999 CE bytes restart the count
    // and exactly 400 000 make the second round in a row that ends STARTUP.
    let first_four = || {
        let mut flow = Flow::new(&any_rtt());
        for (rate, ce) in [(1e6, 0), (2e6, 100_000), (4e6, 0), (8e6, 800_000)] {
            flow.ce_round(rate, 100_000, ce);
        }
        flow
    };
    let mut below = first_four();
    below.ce_round(8e6, 1_000_000, 399_999);
    assert_eq!(below.bbr.startup_ecn_rounds, 0);
    assert_eq!(below.bbr.mode(), "startup");
    let mut at = first_four();
    at.ce_round(8e6, 1_000_000, 400_000);
    assert_eq!(at.bbr.mode(), "drain");
    // With 400 001 (above 50 %, so the round is also "too high" and DRAIN does not raise
    // inflight_longterm to RS.tx_in_flight on the same ACK): STARTUP ends although the
    // bandwidth grew within 3 rounds (full_bw_count 1); inflight_longterm =
    // max(BDP = 8e6 B/s * 100 ms = 800 000, inflight_latest = 800 000) = 800 000.
    // alpha = 15/16 * 0.904 785 156 25 + 1/16 * 400 001 / 800 000. (1 MB in flight >
    // Inflight(1) = 800 000, so DRAIN does not end on the same ACK.)
    flow.ce_round(8e6, 1_000_000, 400_001);
    alpha = 15.0 / 16.0 * alpha + 400_001.0 / 800_000.0 / 16.0;
    assert!((flow.bbr.ecn_alpha() - alpha).abs() < 1e-12);
    assert!((alpha - 0.879_486_162_109_375).abs() < 1e-12);
    assert_eq!(flow.bbr.full_bw.count, 1);
    assert!(flow.bbr.full_bw_reached);
    assert_eq!(flow.bbr.mode(), "drain");
    assert_eq!(flow.bbr.inflight_longterm(), 800_000);
}

#[test]
fn a_probe_up_round_with_more_than_half_its_data_ce_marked_sets_inflight_longterm() {
    // Exactly 50 % is not too high (Linux: RS.delivered_ce > RS.delivered * ecn_thresh).
    let mut flow = Flow::into_up(&any_rtt());
    flow.ce_round(8e6, 900_000, 400_000);
    assert_eq!(flow.bbr.mode(), "probe_bw_up");
    assert_eq!(flow.bbr.inflight_longterm(), INFINITE);
    assert!(!flow.bbr.prev_probe_too_high);
    // One byte more: the round's 800 000 B carried 400 001 CE bytes, > 50 %. As for a
    // loss rate above 2 % (HandleInflightTooHigh): inflight_longterm = max(RS.tx_in_flight,
    // Beta * min(BDP, cwnd)) = max(900 000 in flight + 800 000 ACKed, 0.7 * 800 000)
    // = 1 700 000, and UP ends for DOWN (900 000 in flight > BDP: no CRUISE yet).
    let mut flow = Flow::into_up(&any_rtt());
    flow.ce_round(8e6, 900_000, 400_001);
    assert_eq!(flow.bbr.inflight_longterm(), 1_700_000);
    assert_eq!(flow.bbr.mode(), "probe_bw_down");
    assert!(flow.bbr.prev_probe_too_high);
    assert!(!flow.bbr.is_bw_probe_sample);
    // A loss-free ECN round does not cut the short-term bounds in UP (probing).
    assert!(flow.bbr.bw_shortterm.is_infinite());
}

#[test]
fn a_probe_stops_within_the_round_once_marks_exceed_half_the_last_rounds_data() {
    let mut flow = Flow::into_up(&any_rtt());
    // The round that started UP delivered 1 000 + 1 000 (two plain ACKs) + 800 000 B.
    assert_eq!(flow.bbr.ecn_last_round_delivered, 802_000);
    // ACKs of 100 000 B, all marked, within the next round: 400 000 CE bytes are not
    // more than 50 % of 802 000 = 401 000...
    let marked = |flow: &mut Flow| {
        let ack = Ack {
            bytes_acked: 100_000,
            delivered: flow.delivered + 100_000,
            bytes_in_flight: 900_000,
            ecn_ce_bytes: 100_000,
            ..flow.plain_ack(flow.now + ms(10))
        };
        flow.send(ack);
    };
    for _ in 0..4 {
        marked(&mut flow);
    }
    assert_eq!(flow.bbr.mode(), "probe_bw_up");
    assert_eq!(flow.bbr.inflight_longterm(), INFINITE);
    // ...500 000 are: the data of one round trip is more than half marked whatever the
    // rest of this round brings. inflight_longterm = max(900 000 in flight + 100 000
    // ACKed, 0.7 * min(BDP, cwnd)) = 1 000 000; DOWN.
    marked(&mut flow);
    assert_eq!(flow.bbr.inflight_longterm(), 1_000_000);
    assert_eq!(flow.bbr.mode(), "probe_bw_down");
}

#[test]
fn ce_marks_outside_probes_cut_inflight_shortterm_by_ecn_factor_times_alpha() {
    let mut flow = Flow::into_cruise(&any_rtt());
    // Clean numbers: alpha 0.5, and a round whose CE share is 0.5 keeps it there
    // (15/16 * 0.5 + 1/16 * 0.5); cwnd 600 000.
    flow.bbr.ecn_alpha = 0.5;
    flow.bbr.cwnd = 600_000;
    let round_bytes = flow.delivered - flow.bbr.alpha_last_delivered + 800_000;
    flow.ce_round(8e6, 500_000, round_bytes / 2);
    assert_eq!(flow.bbr.ecn_alpha(), 0.5);
    // InitLowerBounds: inflight_shortterm = cwnd; ECN cut: 600 000 * (1 - 1/3 * 0.5)
    // = 500 000 (within a byte: 1/3 is not exact in binary). No floor at
    // inflight_latest (800 000), unlike the loss cut; bw_shortterm is not cut.
    let lo1 = flow.bbr.inflight_shortterm();
    assert!(lo1.abs_diff(500_000) <= 1, "inflight_shortterm {lo1}");
    assert!(flow.bbr.bw_shortterm.is_infinite());
    assert_eq!(flow.bbr.bw(), 8e6);
    assert!(flow.bbr.cwnd() <= lo1);
    assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
    // A round without marks: no cut; alpha = 15/16 * 0.5 = 0.468 75.
    flow.ce_round(8e6, 400_000, 0);
    assert_eq!(flow.bbr.inflight_shortterm(), lo1);
    assert_eq!(flow.bbr.ecn_alpha(), 0.468_75);
    // A round with 10 % marked (80 000 of 800 000): alpha = 15/16 * 0.468 75 + 1/16 * 0.1
    // = 0.445 703 125; inflight_shortterm = lo1 * (1 - 0.445 703 125 / 3).
    flow.ce_round(8e6, 400_000, 80_000);
    let alpha = 15.0 / 16.0 * 0.468_75 + 0.1 / 16.0;
    assert!((flow.bbr.ecn_alpha() - 0.445_703_125).abs() < 1e-12);
    let lo2 = (lo1 as f64 * (1.0 - alpha / 3.0)) as u64;
    assert!(flow.bbr.inflight_shortterm().abs_diff(lo2) <= 1);
    assert!(lo2 < 426_000 && lo2 > 425_000, "{lo2}");
    // Loss and marks in the same round. The loss cut is max(inflight_latest, 0.7 * lo2)
    // = 800 000: inflight_latest is the largest delivery since the loss round began,
    // the previous round's 800 000 (the loss cut never goes below what the path just
    // delivered, and here even lifts the bound). The ECN cut lo2 * (1 - alpha' / 3),
    // alpha' = 15/16 * alpha + 1/16 * 300 000 / 301 000, is about 357 000: the lower wins.
    let ack = Ack {
        newly_lost: MSS,
        ..flow.plain_ack(flow.now + ms(10))
    };
    flow.send(ack);
    let alpha_before = flow.bbr.ecn_alpha();
    let lo_before = flow.bbr.inflight_shortterm();
    flow.ce_round(3e6, 300_000, 300_000);
    let ratio = 300_000.0 / (1_000.0 + 300_000.0);
    let alpha = 15.0 / 16.0 * alpha_before + ratio / 16.0;
    let ecn_lo = (lo_before as f64 * (1.0 - alpha / 3.0)) as u64;
    let loss_lo = 800_000u64.max((0.7 * lo_before as f64) as u64);
    assert_eq!(loss_lo, 800_000);
    assert!(ecn_lo < 358_000 && ecn_lo > 356_000, "{ecn_lo}");
    assert!(flow.bbr.inflight_shortterm().abs_diff(ecn_lo) <= 1);
}

#[test]
fn no_ecn_response_when_ineligible_or_disabled() {
    for (inputs, why) in [
        (vec![], "min_rtt 100 ms above ecn_max_rtt 5 ms"),
        (
            vec![
                ("ecn_max_rtt", ParamInput::Number(0.0)),
                ("ecn", ParamInput::Bool(false)),
            ],
            "ecn = false",
        ),
        (
            vec![
                ("ecn_max_rtt", ParamInput::Number(0.0)),
                ("ecn_factor", ParamInput::Number(0.0)),
            ],
            "ecn_factor = 0",
        ),
    ] {
        // STARTUP: every byte marked for three rounds, growing bandwidth: no exit.
        let mut flow = Flow::new(&inputs);
        for rate in [1e6, 2e6, 4e6] {
            let bytes = (rate * 0.1) as u64;
            flow.ce_round(rate, 100_000, bytes);
        }
        assert_eq!(flow.bbr.mode(), "startup", "{why}");
        assert!(!flow.bbr.ecn_eligible(), "{why}");
        assert_eq!(flow.bbr.ecn_alpha(), 1.0, "{why}");
        // CRUISE: a fully marked round cuts nothing; UP: a fully marked round goes on.
        let mut flow = Flow::into_cruise(&inputs);
        flow.ce_round(8e6, 500_000, 800_000);
        assert_eq!(flow.bbr.inflight_shortterm(), INFINITE, "{why}");
        let mut flow = Flow::into_up(&inputs);
        flow.ce_round(8e6, 900_000, 800_000);
        assert_eq!(flow.bbr.mode(), "probe_bw_up", "{why}");
        assert_eq!(flow.bbr.inflight_longterm(), INFINITE, "{why}");
    }
}

#[test]
fn eligibility_needs_min_rtt_at_most_ecn_max_rtt() {
    // Linux: ecn_eligible once min_rtt <= bbr_ecn_max_rtt_us (5 000 us); decided at a
    // round start, so the second round (the first one knows min_rtt).
    let eligible_after_two_rounds = |rtt: SimDuration| {
        let mut flow = Flow::new(&[]);
        for _ in 0..2 {
            let ack = Ack {
                rtt: Some(rtt),
                min_rtt: Some(rtt),
                srtt: Some(rtt),
                ..flow.rate_ack(flow.now + RTT, 1e6, 10_000)
            };
            flow.send(ack);
        }
        flow.bbr.ecn_eligible()
    };
    assert!(eligible_after_two_rounds(ms(5)));
    assert!(!eligible_after_two_rounds(
        ms(5) + SimDuration::from_nanos(1)
    ));
}

#[test]
fn marks_without_loss_start_the_next_probe_once_they_stop() {
    let reprobe = |inputs: &[(&str, ParamInput)], lose: bool| {
        let mut flow = Flow::into_cruise(inputs);
        flow.bbr.inflight_longterm = 600_000;
        // A CE echo: Linux enters CWR until snd_una passes snd_nxt = 50 000.
        let ack = Ack {
            ecn_ce_bytes: MSS,
            snd_una: 10_000,
            snd_nxt: 50_000,
            ..flow.plain_ack(flow.now + ms(1))
        };
        flow.send(ack);
        assert!(flow.bbr.ecn_in_cycle);
        if lose {
            let ack = Ack {
                newly_lost: MSS,
                snd_una: 11_000,
                snd_nxt: 50_000,
                ..flow.plain_ack(flow.now + ms(1))
            };
            flow.send(ack);
        }
        // snd_una reaches 50 000 but does not pass it: still CWR, still CRUISE.
        let ack = Ack {
            snd_una: 50_000,
            snd_nxt: 60_000,
            ..flow.plain_ack(flow.now + ms(1))
        };
        flow.send(ack);
        assert_eq!(flow.bbr.mode(), "probe_bw_cruise");
        // Past it, no marks: Open again.
        let ack = Ack {
            snd_una: 51_000,
            snd_nxt: 60_000,
            ..flow.plain_ack(flow.now + ms(1))
        };
        flow.send(ack);
        flow
    };
    // Re-probe: REFILL at once (well before the 2.5 s wait), and the first UP round's
    // inflight_longterm growth is 2^n packets per cwnd ACKed with
    // n = floor(log2(600 000 * 0.5 / 1 000)) = floor(log2(300)) = 8.
    let mut flow = reprobe(&any_rtt(), false);
    assert_eq!(flow.bbr.mode(), "probe_bw_refill");
    assert_eq!(flow.bbr.bw_probe_up_rounds, 8);
    // RaiseInflightLongtermSlope when UP starts: cwnd / 2^8 bytes ACKed per +1 MSS, with
    // the cwnd UP starts from (REFILL: the CRUISE cap 600 000 - 15 % = 510 000, plus the
    // 1 000 B the REFILL ACK added).
    let cwnd = flow.bbr.cwnd();
    assert_eq!(cwnd, 511_000);
    flow.round(8e6, 500_000);
    assert_eq!(flow.bbr.mode(), "probe_bw_up");
    assert_eq!(flow.bbr.bw_probe_up_rounds, 9);
    assert_eq!(flow.bbr.probe_up_acked_per_inc, 511_000 / 256);
    // Not after a cycle with loss, nor with ecn_reprobe_gain = 0.
    assert_eq!(reprobe(&any_rtt(), true).bbr.mode(), "probe_bw_cruise");
    let off = [
        ("ecn_max_rtt", ParamInput::Number(0.0)),
        ("ecn_reprobe_gain", ParamInput::Number(0.0)),
    ];
    assert_eq!(reprobe(&off, false).bbr.mode(), "probe_bw_cruise");
}

#[test]
fn builds_from_the_registry_with_defaults() {
    let config = CcConfig::new(1448);
    let cc = (INFO.build)(
        &config,
        &Params::defaults(INFO.params),
        Box::new(crate::slow_start::standard::StandardSlowStart::new(&config)),
    );
    assert_eq!(cc.name(), "bbr3");
    assert_eq!(cc.mode(), "startup");
}

/// Linux BBRv3 `bbr_undo_cwnd`: a spurious reduction resets the full-bandwidth detector
/// and the short-term bounds the losses set (`bbr_reset_lower_bounds`: bw_lo,
/// inflight_lo back to "unset") and returns cwnd unchanged. The bounds are those of
/// `short_term_bounds_cut_once_per_lossy_round_and_reset_on_refill`'s first lossy round.
#[test]
fn undo_resets_the_short_term_bounds_and_keeps_cwnd() {
    let mut flow = Flow::into_cruise(&[]);
    let ack = Ack {
        newly_lost: MSS,
        ..flow.plain_ack(flow.now + ms(10))
    };
    flow.send(ack);
    let ack = flow.rate_ack(flow.now + ms(100), 6e6, 500_000);
    flow.send(ack);
    assert_eq!(flow.bbr.bw_shortterm, 6e6);
    assert_ne!(flow.bbr.inflight_shortterm(), INFINITE);
    flow.bbr.full_bw.count = 2;
    let cwnd = flow.bbr.cwnd();
    flow.bbr.on_undo(&crate::controller::UndoEvent {
        now: flow.now,
        prior_cwnd: 2 * cwnd,
        prior_ssthresh: crate::controller::UNLIMITED,
    });
    assert_eq!(flow.bbr.cwnd(), cwnd);
    assert!(flow.bbr.bw_shortterm.is_infinite());
    assert_eq!(flow.bbr.inflight_shortterm(), INFINITE);
    assert_eq!((flow.bbr.full_bw.bw, flow.bbr.full_bw.count), (0.0, 0));
}
