//! The medium on its own, driven by a small event loop: saturation throughput against the
//! airtime budget, collisions, retries and in-order delivery. Every expectation is worked out
//! from the configuration in the test.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use cclab_cc::{SimDuration, SimTime};
use cclab_scenario::{LossModel, WifiConfig};

use super::airtime::{exchange_time, subframe_bytes};
use super::{Medium, WifiQueue};
use crate::net::link::Link;
use crate::net::loss::LossProcess;
use crate::net::qdisc::{AnyArrivalQdisc, BufferLimit, DropTail, Qdisc};
use crate::packet::Packet;
use crate::rng::Rng;

const AP: u32 = 0;
const STATION: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Medium(u32),
    Deliver(u32),
}

/// Two Wi-Fi directions and their medium, with the simulation's part played by hand.
struct Harness {
    links: Vec<Link>,
    medium: Medium,
    events: BinaryHeap<Reverse<(SimTime, u64, Step)>>,
    order: u64,
    /// Per direction, the packets that reached the far end, in order.
    delivered: [Vec<Packet>; 2],
    lost: u64,
    next_seq: u64,
    /// When the medium last finished transmissions.
    last_end: SimTime,
}

impl Harness {
    fn new(config: &WifiConfig, seed: u64) -> Self {
        let no_loss = || LossProcess::new(LossModel::None, Rng::for_component(seed, ""));
        let limit = BufferLimit {
            packets: None,
            bytes: None,
        };
        let direction = |name: &str| {
            let qdisc = Qdisc::Arrival(AnyArrivalQdisc::DropTail(DropTail::default()));
            Link::new(
                name.into(),
                config.phy_rate_bps,
                SimDuration::ZERO,
                limit,
                no_loss(),
                no_loss(),
            )
            .with_wifi(WifiQueue::new(qdisc, limit, config))
        };
        Harness {
            links: vec![direction("ap"), direction("station")],
            medium: Medium::new(
                config.clone(),
                AP,
                STATION,
                Rng::for_component(seed, "medium"),
            ),
            events: BinaryHeap::new(),
            order: 0,
            delivered: [Vec::new(), Vec::new()],
            lost: 0,
            next_seq: 0,
            last_end: SimTime::ZERO,
        }
    }

    fn push(&mut self, at: SimTime, step: Step) {
        self.events.push(Reverse((at, self.order, step)));
        self.order += 1;
    }

    /// Act on the medium's outcome, as `Simulation::after_medium` does.
    fn collect(&mut self) {
        let outcome = &mut self.medium.outcome;
        let next = outcome.next.take();
        let deliveries: Vec<_> = outcome.deliveries.drain(..).collect();
        self.lost += outcome.drops.drain(..).count() as u64;
        if let Some((at, generation)) = next {
            self.push(at, Step::Medium(generation));
        }
        for (link, at) in deliveries {
            self.push(at, Step::Deliver(link));
        }
    }

    /// Queue `count` 1500-byte packets at `link` at `now`.
    fn offer(&mut self, now: SimTime, link: u32, count: u32) {
        for _ in 0..count {
            let packet = Packet::test_data(1500, self.next_seq);
            self.next_seq += 1;
            let _ = self.links[link as usize].enqueue(now, packet);
            self.medium.on_backlog(now, link, &mut self.links);
            self.collect();
        }
    }

    /// Run until `end`; `refill` keeps the AP's queue at least this long (saturation).
    fn run(&mut self, end: SimTime, refill: Option<u64>) {
        while let Some(&Reverse((at, _, step))) = self.events.peek() {
            if at > end {
                break;
            }
            self.events.pop();
            match step {
                Step::Medium(generation) => {
                    let before = self.links[AP as usize].stats().wifi.transmissions
                        + self.links[STATION as usize].stats().wifi.transmissions;
                    self.medium.on_event(at, generation, &mut self.links);
                    let after = self.links[AP as usize].stats().wifi.transmissions
                        + self.links[STATION as usize].stats().wifi.transmissions;
                    if after == before {
                        self.last_end = at; // no transmission started: one ended
                    }
                    self.collect();
                }
                Step::Deliver(link) => {
                    let (packet, next) = self.links[link as usize].deliver(at);
                    self.delivered[link as usize].push(packet);
                    if let Some(next) = next {
                        self.push(next, Step::Deliver(link));
                    }
                }
            }
            if let Some(depth) = refill {
                let waiting = self.links[AP as usize].queue_at(at).0;
                if waiting < depth {
                    self.offer(at, AP, (depth - waiting) as u32);
                }
            }
        }
    }
}

fn config(preset: &str) -> WifiConfig {
    WifiConfig::preset(preset).expect("a preset")
}

#[test]
fn pure_downlink_saturation_follows_the_airtime_budget() {
    // The AP always holds more than an aggregate; the station sends nothing, so nothing
    // collides and CW stays CWmin. Each cycle is DIFS + B slots + one exchange, with B uniform
    // on {0, …, CWmin}: mean CWmin/2, variance ((CWmin + 1)² − 1)/12. Over N cycles the mean
    // cycle is DIFS + CWmin/2 · slot + exchange, within slot · sqrt(variance / N).
    for preset in ["wifi-5ghz", "wifi-2.4ghz"] {
        let mut config = config(preset);
        config.frame_error_rate = 0.0;
        // Full-size aggregate: as many 1500-byte subframes as the frame and byte limits
        // allow (the airtime limit, 5.484 ms, binds neither preset).
        let subframe = subframe_bytes(&config, 1500);
        let frames =
            (config.max_aggregate_frames as u64).min(config.max_aggregate_bytes / subframe);
        let exchange = exchange_time(&config, frames * subframe).as_secs_f64();
        assert!(
            exchange < config.max_aggregate_time.as_secs_f64(),
            "{preset}"
        );
        let slot = config.slot.as_secs_f64();
        let cw = config.cw_min as f64;
        let cycle = config.difs.as_secs_f64() + cw / 2.0 * slot + exchange;

        let mut harness = Harness::new(&config, 7);
        harness.offer(SimTime::ZERO, AP, 2 * frames as u32);
        harness.run(SimTime::ZERO + SimDuration::from_secs(5), Some(2 * frames));
        let counters = harness.links[AP as usize].stats().wifi;
        let n = counters.transmissions as f64;
        // Every transmission full; the last may still be on the air.
        assert_eq!(counters.frames, counters.transmissions * frames, "{preset}");
        assert_eq!(counters.collisions + counters.retries, 0, "{preset}");
        let done = harness.delivered[AP as usize].len() as f64 / frames as f64;
        let mean_cycle = harness.last_end.as_secs_f64() / done;
        let sd = slot * (((cw + 1.0).powi(2) - 1.0) / 12.0 / n).sqrt();
        assert!(
            (mean_cycle - cycle).abs() < 4.0 * sd + 1e-9,
            "{preset}: mean cycle {mean_cycle} s, expected {cycle} ± {sd}"
        );
        // The goodput this gives: payload bits of an aggregate per cycle.
        let goodput = done * frames as f64 * 1448.0 * 8.0 / harness.last_end.as_secs_f64();
        let expected = frames as f64 * 1448.0 * 8.0 / cycle;
        assert!(
            (goodput / expected - 1.0).abs() < 4.0 * sd / cycle + 1e-9,
            "{preset}: {goodput} vs {expected} bit/s"
        );
        println!(
            "{preset}: {frames} frames per aggregate, {:.2} Mbit/s of TCP payload",
            goodput / 1e6
        );
    }
}

#[test]
fn equal_countdowns_collide_and_exhaust_the_retries() {
    // CW fixed at 0: both directions, backlogged at once, reach zero on the same slot at every
    // contention, collide, and never back off further (min(2·1 − 1, 0) = 0). Every frame
    // fails retry_limit + 1 times and is lost; each collision lasts the longer exchange.
    let mut config = config("wifi-5ghz");
    config.cw_min = 0;
    config.cw_max = 0;
    config.retry_limit = 2;
    config.frame_error_rate = 0.0;
    let mut harness = Harness::new(&config, 1);
    harness.offer(SimTime::ZERO, AP, 3);
    harness.offer(SimTime::ZERO, STATION, 1);
    harness.run(SimTime::ZERO + SimDuration::from_secs(1), None);
    let ap = harness.links[AP as usize].stats().wifi;
    let station = harness.links[STATION as usize].stats().wifi;
    assert_eq!((ap.transmissions, ap.collisions, ap.retry_drops), (3, 3, 3));
    assert_eq!(
        (
            station.transmissions,
            station.collisions,
            station.retry_drops
        ),
        (3, 3, 1)
    );
    assert_eq!(ap.retries, 6, "each of 3 frames sent twice more");
    assert_eq!(harness.lost, 4);
    assert!(harness.delivered.iter().all(Vec::is_empty));
    let cycle = config.difs + exchange_time(&config, 3 * subframe_bytes(&config, 1500));
    assert_eq!(harness.last_end, SimTime::ZERO + cycle * 3);
    assert_eq!(harness.links[AP as usize].stats().random_losses, 3);
    assert_eq!(harness.links[AP as usize].packets_in_transit(), 0);
}

#[test]
fn frames_are_lost_after_their_retries_with_probability_e_to_the_r_plus_one() {
    // Alone on the medium, a frame fails each attempt with probability e, independently, and
    // is lost after R + 1 failures: P(lost) = e^(R+1). Over n frames the lost share has
    // standard deviation sqrt(p (1 − p) / n). Attempts per frame: P(k) = e^(k−1) (1 − e) for
    // k ≤ R and P(R + 1) = e^R, whose mean is (1 − e^(R+1)) / (1 − e).
    let (e, r) = (0.4f64, 2u32);
    let mut config = config("wifi-2.4ghz");
    config.frame_error_rate = e;
    config.retry_limit = r;
    let mut harness = Harness::new(&config, 11);
    harness.offer(SimTime::ZERO, AP, 100);
    harness.run(SimTime::ZERO + SimDuration::from_secs(20), Some(100));
    let counters = harness.links[AP as usize].stats().wifi;
    let held = harness.links[AP as usize].packets_in_transit();
    let settled = harness.delivered[AP as usize].len() as u64 + counters.retry_drops;
    let sent = harness.links[AP as usize].stats().packets;
    assert!(
        sent - settled <= held,
        "in-flight frames are the only unsettled ones"
    );
    let n = settled as f64;
    let p = e.powi(r as i32 + 1);
    let lost = counters.retry_drops as f64 / n;
    let sd = (p * (1.0 - p) / n).sqrt();
    assert!(n > 50_000.0, "{n} frames");
    assert!(
        (lost - p).abs() < 4.0 * sd,
        "lost {lost}, expected {p} ± {sd}"
    );
    assert_eq!(harness.lost, counters.retry_drops);
    let attempts = counters.frames as f64 / sent as f64;
    let expected_attempts = (1.0 - p) / (1.0 - e);
    // Var(attempts) ≤ E[A²] ≤ (R + 1)²: a loose but sure bound for the tolerance.
    let attempts_sd = ((r + 1) as f64).powi(2).sqrt() / n.sqrt();
    assert!(
        (attempts - expected_attempts).abs() < 4.0 * attempts_sd,
        "{attempts} attempts per frame, expected {expected_attempts}"
    );
}

#[test]
fn frames_reach_the_far_end_in_order_despite_retries() {
    // The receiver's reordering buffer hands frames on in sequence, skipping only the lost.
    let mut config = config("wifi-5ghz");
    config.frame_error_rate = 0.3;
    config.retry_limit = 1;
    let mut harness = Harness::new(&config, 5);
    harness.offer(SimTime::ZERO, AP, 200);
    harness.offer(SimTime::ZERO, STATION, 50);
    harness.run(SimTime::ZERO + SimDuration::from_secs(2), Some(200));
    for direction in &harness.delivered {
        assert!(!direction.is_empty());
        assert!(direction.windows(2).all(|w| w[0].seq < w[1].seq));
    }
    let ap = harness.links[AP as usize].stats().wifi;
    assert!(ap.retry_drops > 0 && ap.retries > 0);
}
