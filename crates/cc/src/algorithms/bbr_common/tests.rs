//! Unit tests of the shared pieces on their own; the controllers' tests (`bbr/tests.rs`,
//! `bbr3/tests.rs`) cover them again in context.

use super::cwnd::{CwndTarget, set_cwnd};
use super::full_bw::FullBw;
use super::idle::is_restart_from_idle;
use super::pacing::{first_srtt, nominal_bandwidth, set_pacing_rate};
use super::probe_rtt::ProbeRttClock;
use super::rate_sample::delivery_rate;
use super::recovery::Recovery;
use super::round::RoundCounter;
use crate::controller::{Ack, CongestionEvent, RateSample};
use crate::test_support::{ack, ms};
use crate::time::{SimDuration, SimTime};

const MSS: u64 = 1000;

fn at(t_ms: u64) -> SimTime {
    SimTime::ZERO + ms(t_ms)
}

#[test]
fn a_round_ends_when_a_packet_sent_after_its_start_is_delivered() {
    let mut round = RoundCounter::default();
    round.start_at(10_000);
    // No rate sample, or one from a packet sent before the round began: same round.
    assert!(!round.update(None, 12_000));
    assert!(!round.update(Some(9_999), 12_000));
    assert_eq!(round.count, 0);
    // P.delivered = 10 000 reached: the round ends and the next one runs to 12 000.
    assert!(round.update(Some(10_000), 12_000));
    assert_eq!((round.count, round.next_round_delivered), (1, 12_000));
    // The flag holds for one ACK only.
    assert!(!round.update(Some(11_000), 13_000));
    assert!(!round.start);
}

#[test]
fn the_pipe_is_full_after_three_rounds_without_25_percent_growth() {
    let mut full = FullBw::default();
    // 1e6 >= 0 * 1.25: baseline; 1.25e6 >= 1.25e6: new baseline, count restarts.
    assert!(!full.update(1e6));
    assert!(!full.update(1.25e6));
    assert_eq!((full.bw, full.count), (1.25e6, 0));
    // 1.5e6 < 1.5625e6 three times: full on the third.
    assert!(!full.update(1.5e6));
    assert!(!full.update(1.5e6));
    assert!(full.update(1.5e6));
    assert_eq!((full.bw, full.count), (1.25e6, 3));
    full.reset();
    assert_eq!((full.bw, full.count), (0.0, 0));
}

#[test]
fn save_cwnd_keeps_the_larger_window_once_recovery_or_probe_rtt_has_cut_it() {
    let mut r = Recovery::default();
    r.prior_cwnd = 50_000;
    // Open state, not ProbeRTT: the current cwnd, even if smaller.
    r.save_cwnd(30_000, false);
    assert_eq!(r.prior_cwnd, 30_000);
    // In ProbeRTT (or recovery): max(prior_cwnd, cwnd).
    r.save_cwnd(4_000, true);
    assert_eq!(r.prior_cwnd, 30_000);
    r.in_loss_recovery = true;
    r.save_cwnd(40_000, false);
    assert_eq!(r.prior_cwnd, 40_000);
    assert_eq!(r.restore_cwnd(10_000), 40_000);
    assert_eq!(r.restore_cwnd(45_000), 45_000);
}

#[test]
fn fast_recovery_conserves_packets_then_restores_the_saved_window() {
    let mut r = Recovery::default();
    let mut cwnd = 100_000;
    let first = Ack {
        now: at(1),
        in_recovery: true,
        bytes_in_flight: 60_000,
        newly_lost: 3 * MSS,
        ..ack(2 * MSS)
    };
    assert!(r.on_ack(&first, &mut cwnd, false));
    assert!(r.in_loss_recovery && r.in_fast_recovery && r.packet_conservation);
    assert_eq!(r.prior_cwnd, 100_000);
    // Entry: pipe + max(acked, 1 MSS) = 62 000 (the entry ACK's losses are in the pipe).
    cwnd = r.modulate_cwnd(cwnd, &first, true, MSS);
    assert_eq!(cwnd, 62_000);
    // Later: 5 000 lost -> 57 000, but conservation keeps pipe + acked = 58 000.
    let next = Ack {
        now: at(2),
        in_recovery: true,
        bytes_in_flight: 57_000,
        newly_lost: 5 * MSS,
        ..ack(MSS)
    };
    assert!(!r.on_ack(&next, &mut cwnd, false));
    assert_eq!(r.modulate_cwnd(cwnd, &next, false, MSS), 58_000);
    // After the first round: losses come off cwnd, never below 1 MSS.
    r.on_round_start();
    assert_eq!(r.modulate_cwnd(3_000, &next, false, MSS), MSS);
    // The flag falls: recovery ends, the saved window comes back.
    let open = Ack {
        now: at(3),
        ..ack(MSS)
    };
    cwnd = 20_000;
    assert!(!r.on_ack(&open, &mut cwnd, false));
    assert!(!r.in_loss_recovery && !r.packet_conservation);
    assert_eq!(cwnd, 100_000);
    // Outside recovery the modulation leaves cwnd alone.
    assert_eq!(r.modulate_cwnd(20_000, &next, false, MSS), 20_000);
}

#[test]
fn a_congestion_event_uses_the_ack_of_the_same_instant_and_enters_once() {
    let mut r = Recovery::default();
    let mut cwnd = 100_000;
    let plain = Ack {
        now: at(5),
        bytes_in_flight: 40_000,
        ..ack(0)
    };
    r.on_ack(&plain, &mut cwnd, false);
    let event = |now, bytes_in_flight| CongestionEvent {
        now,
        bytes_in_flight,
        srtt: None,
        min_rtt: None,
    };
    // Same instant as that ACK: its pipe, + max(0, 1 MSS).
    assert!(r.on_congestion_event(&event(at(5), 45_000), &mut cwnd, false, MSS));
    assert_eq!((cwnd, r.prior_cwnd), (41_000, 100_000));
    // Already in recovery: ignored.
    assert!(!r.on_congestion_event(&event(at(6), 1_000), &mut cwnd, false, MSS));
    assert_eq!(cwnd, 41_000);
    r.exit(&mut cwnd);
    assert_eq!(cwnd, 100_000);
    // Later, with no ACK at that instant: the event's own flight size.
    assert!(r.on_congestion_event(&event(at(9), 45_000), &mut cwnd, false, MSS));
    assert_eq!(cwnd, 46_000);
}

#[test]
fn a_timeout_saves_cwnd_without_packet_conservation() {
    let mut r = Recovery::default();
    r.on_timeout(80_000, false);
    assert!(r.in_loss_recovery && !r.in_fast_recovery && !r.packet_conservation);
    assert_eq!(r.prior_cwnd, 80_000);
}

#[test]
fn cwnd_grows_by_the_bytes_acked_up_to_the_target_once_the_pipe_is_full() {
    let r = Recovery::default();
    let goal = |target, filled_pipe| CwndTarget {
        target,
        filled_pipe,
        mss: MSS,
        initial_cwnd: 10 * MSS,
    };
    let a = Ack {
        delivered: 50_000,
        ..ack(3 * MSS)
    };
    // Full pipe: min(cwnd + acked, target).
    assert_eq!(set_cwnd(20_000, &a, false, &r, goal(21_000, true)), 21_000);
    assert_eq!(set_cwnd(30_000, &a, false, &r, goal(21_000, true)), 21_000);
    // Before: grows while below the target, holds above it...
    assert_eq!(set_cwnd(20_000, &a, false, &r, goal(21_000, false)), 23_000);
    assert_eq!(set_cwnd(30_000, &a, false, &r, goal(21_000, false)), 30_000);
    // ...unless less than InitialCwnd has been delivered.
    let early = Ack {
        delivered: 9_999,
        ..a
    };
    assert_eq!(
        set_cwnd(30_000, &early, false, &r, goal(21_000, false)),
        33_000
    );
    // Never below BBRMinPipeCwnd = 4 packets.
    assert_eq!(set_cwnd(1_000, &a, false, &r, goal(2_000, true)), 4 * MSS);
}

#[test]
fn probe_rtt_lasts_200_ms_and_a_round_after_inflight_is_low() {
    let mut clock = ProbeRttClock::default();
    let mut round = RoundCounter::default();
    clock.enter(100_000);
    let low = |t_ms, in_flight, delivered| Ack {
        now: at(t_ms),
        bytes_in_flight: in_flight,
        delivered,
        ..ack(MSS)
    };
    // Inflight above the target: the clock does not start.
    assert!(!clock.on_ack(&low(0, 5_000, 101_000), 4_000, &mut round));
    assert_eq!(clock.done_stamp, None);
    // At the target: 200 ms from now, and a round from C.delivered = 102 000.
    assert!(!clock.on_ack(&low(10, 4_000, 102_000), 4_000, &mut round));
    assert_eq!(clock.done_stamp, Some(at(210)));
    assert_eq!(round.next_round_delivered, 102_000);
    // Packets sent from entry up to delivered + inflight = 106 000 are app-limited.
    assert!(clock.marks_app_limited(100_000) && clock.marks_app_limited(106_000));
    assert!(!clock.marks_app_limited(99_999) && !clock.marks_app_limited(106_001));
    // 300 ms but no round: stay; the round ends at 150 ms: noted, 200 ms not over.
    round.start = false;
    assert!(!clock.on_ack(&low(300, 4_000, 103_000), 4_000, &mut round));
    let mut clock2 = clock.clone();
    round.start = true;
    assert!(!clock2.on_ack(&low(150, 4_000, 103_000), 4_000, &mut round));
    assert!(clock2.round_done);
    // Round done and past 210 ms: over, and the clock stops.
    round.start = false;
    assert!(!clock2.on_ack(&low(210, 4_000, 104_000), 4_000, &mut round));
    assert!(clock2.on_ack(&low(211, 4_000, 104_000), 4_000, &mut round));
    assert_eq!(clock2.done_stamp, None);
    // A restart from idle checks only the time.
    assert!(!clock.finish(at(210)));
    assert!(clock.finish(at(211)));
}

#[test]
fn rate_samples_pacing_and_idle_restart() {
    let rs = RateSample {
        delivered: 100_000,
        interval: ms(100),
        prior_delivered: 0,
        is_app_limited: false,
    };
    assert_eq!(delivery_rate(&rs, Some(ms(100))), Some(1e6));
    assert_eq!(delivery_rate(&rs, Some(ms(101))), None);
    let zero = RateSample {
        interval: SimDuration::ZERO,
        ..rs
    };
    assert_eq!(delivery_rate(&zero, None), None);
    // InitialCwnd / 1 ms without an SRTT, / SRTT with one.
    assert_eq!(nominal_bandwidth(10_000, None), 1e7);
    assert_eq!(nominal_bandwidth(10_000, Some(ms(100))), 1e5);
    // The first non-zero SRTT, once.
    let mut seen = false;
    let zero_srtt = Ack {
        srtt: Some(SimDuration::ZERO),
        ..ack(MSS)
    };
    let real = Ack {
        srtt: Some(ms(40)),
        ..ack(MSS)
    };
    assert_eq!(first_srtt(&mut seen, &zero_srtt), None);
    assert_eq!(first_srtt(&mut seen, &real), Some(ms(40)));
    assert_eq!(first_srtt(&mut seen, &real), None);
    // Raise-only before the pipe is full.
    let mut rate = 5.0;
    set_pacing_rate(&mut rate, 4.0, false);
    assert_eq!(rate, 5.0);
    set_pacing_rate(&mut rate, 4.0, true);
    assert_eq!(rate, 4.0);
    // Idle restart: nothing else in flight, outside recovery.
    assert!(is_restart_from_idle(MSS, MSS, false));
    assert!(is_restart_from_idle(MSS, 0, false));
    assert!(!is_restart_from_idle(MSS, MSS + 1, false));
    assert!(!is_restart_from_idle(MSS, MSS, true));
}
