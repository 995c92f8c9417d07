//! Linux's variation term against `tcp_rtt_estimator()` (net/ipv4/tcp_input.c), each
//! expected value worked by hand from the kernel's equations in the comments:
//! err = R − SRTT; mdev += |err| − mdev/4, with (|err| − mdev/4)/8 when err < 0 and that is
//! positive; mdev_max = max(mdev_max, mdev) and rttvar = max(rttvar, mdev_max); once snd_una
//! passes rtt_seq: rttvar −= (rttvar − mdev_max)/4 if mdev_max < rttvar, rtt_seq = snd_nxt,
//! mdev_max = rto_min. First sample: mdev = 2R, rttvar = mdev_max = max(2R, rto_min).

use super::*;

fn ms(x: u64) -> SimDuration {
    SimDuration::from_millis(x)
}

fn us(x: u64) -> SimDuration {
    SimDuration::from_micros(x)
}

fn ns(x: u64) -> SimDuration {
    SimDuration::from_nanos(x)
}

const RTO_MIN: SimDuration = SimDuration::from_millis(200);

fn seq(snd_una: u64, snd_nxt: u64) -> SequenceState {
    SequenceState { snd_una, snd_nxt }
}

fn state(v: &LinuxVariation) -> (SimDuration, SimDuration, SimDuration) {
    (v.mdev(), v.mdev_max(), v.rttvar())
}

#[test]
fn the_first_sample_makes_the_rto_three_rtts_or_srtt_plus_rto_min() {
    // R = 100 ms: mdev = 200 ms ("make sure rto = 3*rtt"), rttvar = mdev_max = 200 ms.
    let v = LinuxVariation::first(ms(100), RTO_MIN, seq(0, 10));
    assert_eq!(state(&v), (ms(200), ms(200), ms(200)));
    // R = 40 ms: mdev = 80 ms, but rttvar = mdev_max = max(80, 200) = 200 ms.
    let v = LinuxVariation::first(ms(40), RTO_MIN, seq(0, 10));
    assert_eq!(state(&v), (ms(80), ms(200), ms(200)));
}

#[test]
fn mdev_has_gain_one_quarter_but_a_falling_rtt_moves_it_one_eighth_as_much() {
    // First sample 100 ms, round trip ends when snd_una passes 100: mdev = 200 ms.
    let mut v = LinuxVariation::first(ms(100), RTO_MIN, seq(0, 100));
    // R = 180 against SRTT 100: err = +80, mdev += 80 − 200/4 = 30 → 230 ms, above
    // mdev_max (200): mdev_max = rttvar = 230 ms at once. snd_una 50 ≤ 100: same round trip.
    v.update(ms(180), ms(100), RTO_MIN, seq(50, 150));
    assert_eq!(state(&v), (ms(230), ms(230), ms(230)));
    // SRTT is now 7/8·100 + 1/8·180 = 110. R = 30: err = −80, |err| − mdev/4 = 80 − 57.5 =
    // 22.5 > 0, so mdev += 22.5/8 = 2.8125 → 232.8125 ms (RFC 6298's rule would add 22.5).
    v.update(ms(30), ms(110), RTO_MIN, seq(50, 150));
    let m = ns(232_812_500);
    assert_eq!(state(&v), (m, m, m));
    // SRTT = 7/8·110 + 1/8·30 = 100. R = 95: err = −5, |err| − mdev/4 = 5 − 58.203125 < 0:
    // full weight, mdev = 232.8125 − 58.203125 + 5 = 179.609375 ms; mdev_max and rttvar keep
    // 232.8125 (nothing decays inside a round trip).
    v.update(ms(95), ms(100), RTO_MIN, seq(50, 150));
    assert_eq!(v.mdev(), ns(179_609_375));
    assert_eq!((v.mdev_max(), v.rttvar()), (m, m));
}

#[test]
fn rttvar_jumps_up_at_once_and_decays_a_quarter_per_round_trip_toward_mdev_max() {
    // First 100 ms: mdev = mdev_max = rttvar = 200 ms; the round trip ends past snd_una 10.
    let mut v = LinuxVariation::first(ms(100), RTO_MIN, seq(0, 10));
    // R = 500 against SRTT 100 within the round trip: mdev += 400 − 50 → 550 ms, and rttvar
    // follows at once.
    v.update(ms(500), ms(100), RTO_MIN, seq(5, 20));
    assert_eq!(state(&v), (ms(550), ms(550), ms(550)));
    // SRTT = (7·100 + 500)/8 = 150. R = 150, snd_una 11 passes 10: mdev = 550 − 137.5 =
    // 412.5. The round trip's mdev_max (550) is not below rttvar (550): no decay. Then
    // rtt_seq = 20 and mdev_max = rto_min.
    v.update(ms(150), ms(150), RTO_MIN, seq(11, 20));
    assert_eq!(state(&v), (us(412_500), ms(200), ms(550)));
    // R = 150 again inside the new round trip (snd_una 15 ≤ 20): mdev = 412.5 − 103.125 =
    // 309.375 > mdev_max (200): mdev_max = 309.375; rttvar keeps 550 (no decay yet).
    v.update(ms(150), ms(150), RTO_MIN, seq(15, 20));
    assert_eq!(state(&v), (us(309_375), us(309_375), ms(550)));
    // R = 150, snd_una 21 passes 20: mdev = 309.375 − 77.34375 = 232.03125 (below
    // mdev_max); the round trip ends: rttvar −= (550 − 309.375)/4 = 60.15625 → 489.84375,
    // then mdev_max = rto_min = 200.
    v.update(ms(150), ms(150), RTO_MIN, seq(21, 30));
    assert_eq!(state(&v), (ns(232_031_250), ms(200), ns(489_843_750)));
}

#[test]
fn on_a_steady_path_rttvar_falls_to_rto_min_and_no_lower() {
    // R = 600 ms every round trip (one sample per round trip, each passing rtt_seq).
    let r = ms(600);
    let mut v = LinuxVariation::first(r, RTO_MIN, seq(0, 1));
    assert_eq!(state(&v), (ms(1200), ms(1200), ms(1200)));
    // Round 2: mdev = 1200 − 300 = 900; mdev_max (1200) = rttvar: no decay; mdev_max = 200.
    v.update(r, r, RTO_MIN, seq(2, 2));
    assert_eq!(state(&v), (ms(900), ms(200), ms(1200)));
    // Round 3: mdev = 900 − 225 = 675 = mdev_max; rttvar −= (1200 − 675)/4 = 131.25 → 1068.75.
    v.update(r, r, RTO_MIN, seq(3, 3));
    assert_eq!(state(&v), (ms(675), ms(200), us(1_068_750)));
    // Round 4: mdev = 675 − 168.75 = 506.25; rttvar −= (1068.75 − 506.25)/4 = 140.625 →
    // 928.125.
    v.update(r, r, RTO_MIN, seq(4, 4));
    assert_eq!(state(&v), (us(506_250), ms(200), us(928_125)));
    // mdev keeps falling by 3/4 per sample toward 0, so from some round on mdev_max stays at
    // rto_min and rttvar approaches 200 ms by a quarter of the gap per round trip; it never
    // goes below (the gap's quarter truncates to 0 ns once the gap is under 4 ns).
    for round in 5..200 {
        v.update(r, r, RTO_MIN, seq(round, round));
    }
    assert!(v.mdev() < ns(1_000));
    assert!(
        v.rttvar() >= RTO_MIN && v.rttvar() < RTO_MIN + ns(4),
        "{:?}",
        v.rttvar()
    );
}

#[test]
fn a_seeded_variation_starts_at_four_rttvar_floored_at_rto_min_and_its_first_sample_ends_a_round() {
    // RFC-scale RTTVAR 100 ms → 400 ms on the kernel's scale.
    let mut v = LinuxVariation::seeded(ms(100), RTO_MIN);
    assert_eq!(state(&v), (ms(400), ms(400), ms(400)));
    assert_eq!(LinuxVariation::seeded(ms(10), RTO_MIN).rttvar(), RTO_MIN);
    // R = SRTT: mdev = 400 − 100 = 300; the round trip ends (no rtt_seq yet): mdev_max (400)
    // is not below rttvar, no decay; mdev_max = 200.
    v.update(ms(50), ms(50), RTO_MIN, seq(0, 0));
    assert_eq!(state(&v), (ms(300), ms(200), ms(400)));
}
