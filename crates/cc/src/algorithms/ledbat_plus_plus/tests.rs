//! LEDBAT++ against the draft's rules, each expectation worked out by hand.

use super::*;
use crate::test_support::{ack, loss, ms, new_timeout, timeout};

const MSS: u64 = 1000;

fn ledbat() -> LedbatPlusPlus {
    LedbatPlusPlus::new(&CcConfig::new(MSS), LedbatPlusPlusParams::default())
}

fn at(now_ms: u64) -> SimTime {
    SimTime::ZERO + ms(now_ms)
}

/// An ACK of one segment at `now_ms` with an RTT sample (and smoothed RTT) of `rtt_ms`.
fn sample(now_ms: u64, rtt_ms: u64) -> Ack {
    Ack {
        now: at(now_ms),
        rtt: Some(ms(rtt_ms)),
        srtt: Some(ms(rtt_ms)),
        prior_in_flight: 1_000_000,
        ..ack(MSS)
    }
}

#[test]
fn gain_is_one_over_the_smaller_of_16_and_twice_target_over_base_rounded_up() {
    // TARGET 60 ms: base 10 ms → ceil(12) = 12; 100 ms → ceil(1.2) = 2; 2 ms → ceil(60),
    // capped at 16; 200 ms → ceil(0.6) = 1.
    for (base_ms, divisor) in [(10, 12.0), (100, 2.0), (2, 16.0), (200, 1.0)] {
        let mut l = ledbat();
        l.on_ack(&sample(0, base_ms));
        assert_eq!(l.gain(), 1.0 / divisor, "base {base_ms} ms");
    }
    assert_eq!(ledbat().gain(), 1.0, "no base delay yet");
}

#[test]
fn slow_start_grows_by_gain_times_bytes_and_ends_past_three_quarters_of_target() {
    let mut l = ledbat();
    let initial = l.cwnd;
    // Base 100 ms: GAIN 1/2, so an ACK of 1000 bytes adds 500.
    l.on_ack(&sample(0, 100));
    assert_eq!(l.cwnd, initial + 500.0);
    assert_eq!(l.mode(), "slow_start");
    // Queueing 44 ms ≤ 45 ms (3/4 of 60): still slow start after the filter's four
    // samples all say so.
    for t in 1..=4 {
        l.on_ack(&sample(t, 144));
    }
    assert_eq!(l.mode(), "slow_start");
    assert_eq!(l.cwnd, initial + 5.0 * 500.0);
    // 46 ms > 45 ms: the fourth sample of 146 ms makes the filtered delay 146 ms.
    for t in 5..=7 {
        l.on_ack(&sample(t, 146));
        assert_eq!(l.mode(), "slow_start");
    }
    l.on_ack(&sample(8, 146));
    assert_eq!(l.mode(), "congestion_avoidance");
}

/// In congestion avoidance at `cwnd` bytes with base 100 ms (GAIN 1/2), a queueing delay of
/// `queuing_ms`, and no slowdown due.
fn avoiding(cwnd: f64, queuing_ms: u64) -> LedbatPlusPlus {
    let mut l = ledbat();
    l.on_ack(&sample(0, 100));
    for t in 1..=4 {
        l.on_ack(&Ack {
            in_recovery: true, // only the delay estimate moves
            ..sample(t, 100 + queuing_ms)
        });
    }
    l.phase = Phase::CongestionAvoidance;
    l.next_slowdown = None;
    l.cwnd = cwnd;
    l
}

#[test]
fn at_or_below_target_the_window_grows_by_gain_segments_per_rtt() {
    // W = 20 segments, GAIN 1/2: +0.5 segment per 20 segments acknowledged, so one
    // segment's ACK adds 0.5 · 1000 · 1000 / 20 000 = 25 bytes.
    for queuing in [0, 30, 60] {
        let mut l = avoiding(20_000.0, queuing);
        l.on_ack(&sample(10, 100 + queuing));
        assert!((l.cwnd - 20_025.0).abs() < 1e-9, "{queuing} ms: {}", l.cwnd);
    }
}

#[test]
fn above_target_the_decrease_grows_with_the_excess_and_stops_at_half_a_window() {
    // 90 ms: GAIN − W (90/60 − 1) = 0.5 − 20 · 0.5 = −9.5 segments per RTT, so one
    // segment's ACK takes 9.5 · 1000 · 1000 / 20 000 = 475 bytes.
    let mut l = avoiding(20_000.0, 90);
    l.on_ack(&sample(10, 190));
    assert!((l.cwnd - (20_000.0 - 475.0)).abs() < 1e-9, "{}", l.cwnd);
    // 200 ms: 0.5 − 20 · (200/60 − 1) = −46.2 segments, more than half a window: −W/2 =
    // −10 segments per RTT, 500 bytes for one segment's ACK.
    let mut l = avoiding(20_000.0, 200);
    l.on_ack(&sample(10, 300));
    assert!((l.cwnd - 19_500.0).abs() < 1e-9, "{}", l.cwnd);
    // Never below MIN_CWND = 2 segments.
    let mut l = avoiding(2_100.0, 200);
    l.on_ack(&sample(10, 300));
    assert_eq!(l.cwnd, 2_000.0);
}

#[test]
fn slowdowns_come_two_rtts_after_slow_start_and_nine_durations_apart() {
    let mut l = ledbat();
    // Base and smoothed RTT 100 ms; a loss at 1 s ends the initial slow start.
    l.on_ack(&sample(0, 100));
    l.cwnd = 30_000.0;
    l.on_congestion_event(&CongestionEvent {
        now: at(1000),
        ..loss(30_000)
    });
    assert_eq!(l.cwnd, 15_000.0);
    assert_eq!(l.mode(), "congestion_avoidance");
    // The first slowdown is due 2 RTTs later, at 1.2 s.
    l.on_ack(&sample(1199, 100));
    assert_eq!(l.mode(), "congestion_avoidance");
    let before = l.cwnd;
    l.on_ack(&sample(1200, 100));
    assert_eq!(l.mode(), "slowdown");
    assert_eq!(l.cwnd(), 2 * MSS);
    assert_eq!(l.ssthresh(), before as u64, "ssthresh keeps the window");
    // Two RTTs at 2 segments: until 1.4 s.
    l.on_ack(&sample(1399, 100));
    assert_eq!(l.cwnd(), 2 * MSS);
    // Then slow start with GAIN 1/2 back to ssthresh: 2000 + 500 per segment acknowledged.
    l.on_ack(&sample(1400, 100));
    assert_eq!(l.mode(), "slow_start");
    assert_eq!(l.cwnd, 2_500.0);
    let target = l.ssthresh() as f64;
    let mut t = 1400;
    while l.mode() == "slow_start" {
        t += 1;
        l.on_ack(&sample(t, 100));
    }
    assert_eq!(l.cwnd, target);
    // It lasted from 1.2 s to t: the next one comes 9 times that later.
    let duration = t - 1200;
    assert_eq!(l.next_slowdown, Some(at(t + 9 * duration)));
}

#[test]
fn loss_halves_the_window_but_not_below_two_segments_and_a_timeout_is_rfc_5681s() {
    let mut l = ledbat();
    l.on_congestion_event(&loss(10 * MSS));
    assert_eq!(l.cwnd(), 5 * MSS);
    assert_eq!(l.ssthresh(), 5 * MSS);
    l.cwnd = (3 * MSS) as f64;
    l.on_congestion_event(&loss(3 * MSS));
    assert_eq!(l.cwnd(), 2 * MSS);
    let mut l = ledbat();
    new_timeout(&mut l, &timeout(10 * MSS));
    assert_eq!(l.cwnd(), MSS);
    assert_eq!(l.ssthresh(), 5 * MSS);
    assert_eq!(l.mode(), "slow_start");
}
