//! Copa: V. Arun and H. Balakrishnan, "Copa: Practical Delay-Based Congestion Control for the
//! Internet", NSDI 2018 (§2; the arXiv version with the authors' errata). Where the paper leaves
//! a mechanism open we follow the authors' code (genericCC `markoviancc.cc`, the code of the
//! paper's experiments) or Meta's mvfst `Copa.cpp`, and say so.
//!
//! - §2.1 target rate: `λt = 1/(δ·dq)` packets per second, with the queueing delay
//!   `dq = RTTstanding − RTTmin`; RTTstanding is the smallest RTT over the last srtt/2,
//!   RTTmin the smallest over the last 10 s.
//! - §2.1 window update, on every ACK: with the current rate `λ = cwnd/RTTstanding`, if
//!   `λ ≤ λt` then `cwnd += v/(δ·cwnd)`, else `cwnd −= v/(δ·cwnd)` (packets, per packet
//!   acknowledged), so cwnd moves by about `v/δ` packets per RTT.
//! - §2.1 velocity v: once per RTT the direction of cwnd (up or down compared with one RTT
//!   ago) is compared with the last one; after three RTTs in the same direction v doubles
//!   every RTT; a change of direction resets v to 1.
//! - §2.1 slow start: cwnd doubles every RTT until λ exceeds λt.
//! - §2.1 pacing: packets leave at `2·cwnd/RTTstanding`.
//! - §2.2 competitive mode: Copa's own oscillation empties the queue every five RTTs or so;
//!   when the queue was not nearly empty (`RTTstanding < RTTmin + 0.1·(RTTmax − RTTmin)`,
//!   RTTmax over the last four RTTs) at least once in the last five RTTs, a buffer-filling
//!   flow is present and Copa competes: `1/δ` grows by 1 per RTT without loss and halves on
//!   a loss (at most once per RTT), never below 2 (δ ≤ 0.5). Back in the default mode
//!   δ returns to its default.
//!
//! Loss in the default mode changes nothing (the paper's robustness to non-congestive loss,
//! §5.5); the sender's loss recovery retransmits, and Copa's window stays in charge
//! (`controls_recovery_window`), as in mvfst where QUIC has no PRR.

use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, UNLIMITED,
};
use crate::metrics::{ControllerMetrics, SlowStartExit};
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::running_minmax::RunningMinMax;
use crate::time::{SimDuration, SimTime};

const PARAMS: &[ParamSpec] = &[
    ParamSpec::number("delta", 0.5, 0.001, 10.0)
        .doc("δ of the default mode: the target rate is 1/(δ·dq) (paper §2.1: 0.5; mvfst's default is 0.05)"),
    ParamSpec::boolean("competitive", true).doc(
        "switch to the competitive mode (AIMD on 1/δ) when the queue never nearly empties in \
         five RTTs (paper §2.2); false keeps δ fixed, as mvfst does",
    ),
    ParamSpec::number("min_rtt_window", 10.0, 0.1, 1000.0)
        .unit("s")
        .doc("RTTmin is the smallest RTT over this window (paper §2.1: 10 s)"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "copa",
    aliases: &[],
    summary: "delay-based: move cwnd toward the target rate 1/(delta dq) with a velocity that doubles; competitive mode against buffer-fillers",
    reference: "Arun & Balakrishnan, Copa, NSDI 2018 §2; genericCC markoviancc.cc; mvfst Copa.cpp",
    params: PARAMS,
    uses_slow_start: false,
    initial_ssthresh: InitialSsthreshUse::None,
    build: |config, params, _slow_start| {
        Box::new(Copa::new(config, CopaParams::from_params(params)))
    },
};

/// Velocity doubles only after the direction held for this many RTTs (paper §2.1).
const SAME_DIRECTION_RTTS: u32 = 3;
/// The queue is "nearly empty" below this fraction of the recent delay range (paper §2.2).
const NEARLY_EMPTY_FRACTION: f64 = 0.1;
/// RTTmax, the top of that range, is taken over this many RTTs (paper §2.2).
const MAX_RTT_WINDOW_RTTS: u64 = 4;
/// Competitive mode once the queue was not nearly empty for this many RTTs (paper §2.2).
const EMPTY_QUEUE_PERIOD_RTTS: u64 = 5;
/// cwnd never falls below two packets (genericCC's `max(2, window)`; mvfst's minimum cwnd).
const MIN_CWND_PACKETS: f64 = 2.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CopaParams {
    pub delta: f64,
    pub competitive: bool,
    pub min_rtt_window: SimDuration,
}

impl Default for CopaParams {
    fn default() -> Self {
        CopaParams::from_params(&Params::defaults(PARAMS))
    }
}

impl CopaParams {
    pub fn from_params(params: &Params) -> Self {
        CopaParams {
            delta: params.number("delta"),
            competitive: params.boolean("competitive"),
            min_rtt_window: SimDuration::from_secs_f64(params.number("min_rtt_window")),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Up,
    Down,
}

/// Paper §2.1's velocity: how many times faster than one packet per RTT·δ cwnd moves.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Velocity {
    v: f64,
    direction: Direction,
    /// RTTs in a row the direction held.
    same_direction: u32,
    /// When the direction was last judged, and cwnd then (bytes).
    checked_at: Option<(SimTime, f64)>,
}

impl Velocity {
    fn new() -> Self {
        Velocity {
            v: 1.0,
            direction: Direction::Up,
            same_direction: 0,
            checked_at: None,
        }
    }

    /// Once per RTT: the direction cwnd moved since the last check; double v once it held
    /// for three RTTs, reset it on a change.
    fn once_per_rtt(&mut self, now: SimTime, srtt: SimDuration, cwnd: f64) {
        let Some((at, cwnd_then)) = self.checked_at else {
            self.checked_at = Some((now, cwnd));
            return;
        };
        if now.saturating_since(at) < srtt {
            return;
        }
        let direction = if cwnd > cwnd_then {
            Direction::Up
        } else {
            Direction::Down
        };
        if direction == self.direction {
            self.same_direction += 1;
            if self.same_direction >= SAME_DIRECTION_RTTS {
                self.v *= 2.0;
            }
        } else {
            self.reset(direction);
        }
        self.direction = direction;
        self.checked_at = Some((now, cwnd));
    }

    /// v back to 1 heading `direction`.
    fn reset(&mut self, direction: Direction) {
        self.v = 1.0;
        self.same_direction = 0;
        self.direction = direction;
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    SlowStart,
    Default,
    Competitive,
}

pub struct Copa {
    mss: u64,
    params: CopaParams,
    /// cwnd in bytes, fractional: per-ACK steps are often below a byte's worth of packets.
    cwnd: f64,
    mode: Mode,
    /// 1/δ now: 1/params.delta in the default mode, AIMD-driven in the competitive mode.
    inverse_delta: f64,
    velocity: Velocity,
    rtt_min: RunningMinMax,
    rtt_standing: RunningMinMax,
    /// RTTmax over the last four RTTs, for the competitive-mode test.
    rtt_max: RunningMinMax,
    /// The last time the queue was nearly empty; `None` before the first RTT sample.
    nearly_empty_at: Option<SimTime>,
    /// Competitive mode: when 1/δ last grew and last halved.
    delta_grown_at: SimTime,
    delta_halved_at: Option<SimTime>,
    /// The last ACK's srtt, for loss events (which carry it too, but only when known).
    srtt: Option<SimDuration>,
    /// RTTstanding and dq after the last ACK with an RTT sample.
    standing: Option<SimDuration>,
    queueing_delay: Option<SimDuration>,
}

impl Copa {
    pub fn new(config: &CcConfig, params: CopaParams) -> Self {
        Copa {
            mss: config.mss,
            params,
            cwnd: config.initial_cwnd as f64,
            mode: Mode::SlowStart,
            inverse_delta: 1.0 / params.delta,
            velocity: Velocity::new(),
            rtt_min: RunningMinMax::min(),
            rtt_standing: RunningMinMax::min(),
            rtt_max: RunningMinMax::max(),
            nearly_empty_at: None,
            delta_grown_at: SimTime::ZERO,
            delta_halved_at: None,
            srtt: None,
            standing: None,
            queueing_delay: None,
        }
    }

    /// δ in force now.
    pub fn delta(&self) -> f64 {
        1.0 / self.inverse_delta
    }

    /// Whether the competitive mode is on.
    pub fn is_competitive(&self) -> bool {
        self.mode == Mode::Competitive
    }

    /// The current velocity v.
    pub fn velocity(&self) -> f64 {
        self.velocity.v
    }

    fn min_cwnd(&self) -> f64 {
        MIN_CWND_PACKETS * self.mss as f64
    }

    /// Paper §2.2: judge the mode from whether the queue nearly emptied in the last five
    /// RTTs, and run the competitive mode's additive increase of 1/δ.
    fn update_mode(&mut self, now: SimTime, rtt: SimDuration, srtt: SimDuration) {
        let rtt_max = self.rtt_max.update(now, rtt, srtt * MAX_RTT_WINDOW_RTTS);
        let (Some(min), Some(standing)) = (self.rtt_min.get(), self.standing) else {
            return;
        };
        let range = rtt_max.saturating_sub(min).as_secs_f64();
        let nearly_empty =
            standing.saturating_sub(min).as_secs_f64() < NEARLY_EMPTY_FRACTION * range;
        if nearly_empty {
            self.nearly_empty_at = Some(now);
        }
        let last_empty = *self.nearly_empty_at.get_or_insert(now);
        if self.mode == Mode::SlowStart || !self.params.competitive {
            return;
        }
        let competing = now.saturating_since(last_empty) > srtt * EMPTY_QUEUE_PERIOD_RTTS;
        match (self.mode, competing) {
            (Mode::Default, true) => {
                // Entering: 1/δ starts from the default mode's and grows from there.
                self.mode = Mode::Competitive;
                self.delta_grown_at = now;
            }
            (Mode::Competitive, false) => {
                self.mode = Mode::Default;
                self.inverse_delta = 1.0 / self.params.delta;
            }
            (Mode::Competitive, true) if now.saturating_since(self.delta_grown_at) >= srtt => {
                // One RTT without a loss halving: 1/δ += 1.
                self.inverse_delta += 1.0;
                self.delta_grown_at = now;
            }
            _ => {}
        }
    }
}

impl CongestionControl for Copa {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        let Some(rtt) = ack.rtt else {
            return;
        };
        let srtt = ack.srtt.unwrap_or(rtt);
        self.srtt = Some(srtt);
        let now = ack.now;
        let min = self.rtt_min.update(now, rtt, self.params.min_rtt_window);
        let standing = self.rtt_standing.update(now, rtt, srtt / 2);
        self.standing = Some(standing);
        let queueing_delay = standing.saturating_sub(min);
        self.queueing_delay = Some(queueing_delay);
        self.update_mode(now, rtt, srtt);

        // λ ≤ λt  ⟺  cwnd/RTTstanding ≤ 1/(δ·dq)  ⟺  cwnd·δ·dq ≤ RTTstanding (cwnd in
        // packets); an empty queue (dq = 0) makes λt infinite.
        let cwnd_packets = self.cwnd / self.mss as f64;
        let increase = queueing_delay.is_zero()
            || cwnd_packets * self.delta() * queueing_delay.as_secs_f64() <= standing.as_secs_f64();
        let packets_acked = ack.bytes_acked as f64 / self.mss as f64;

        if self.mode == Mode::SlowStart {
            if increase {
                // Doubling per RTT, one packet per packet acknowledged (genericCC's
                // `_the_window += 1` per ACK), while the window limits the sender.
                if ack.cwnd_limited {
                    self.cwnd += ack.bytes_acked as f64;
                }
                return;
            }
            // λ exceeded λt: slow start ends, and this ACK already decreases.
            self.mode = Mode::Default;
        }

        self.velocity.once_per_rtt(now, srtt, self.cwnd);
        let direction = if increase {
            Direction::Up
        } else {
            Direction::Down
        };
        // mvfst: a velocity built up heading the other way is stale the moment the target
        // is crossed; without this, cwnd overshoots for up to an RTT at the old speed.
        if direction != self.velocity.direction && self.velocity.v > 1.0 {
            self.velocity.reset(direction);
        }
        // genericCC caps the velocity at cwnd (packets), so that one RTT moves cwnd by at
        // most cwnd/δ.
        let v = self.velocity.v.min(cwnd_packets.max(1.0));
        let step = v * packets_acked / (self.delta() * cwnd_packets) * self.mss as f64;
        if increase {
            // As every controller here, no growth while the application or the receive
            // window, not cwnd, limits the sender (RFC 7661).
            if ack.cwnd_limited {
                self.cwnd += step;
            }
        } else {
            self.cwnd = (self.cwnd - step).max(self.min_cwnd());
        }
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        // Paper §2.2: only the competitive mode reacts, halving 1/δ at most once per RTT.
        if self.mode != Mode::Competitive {
            return;
        }
        let srtt = event.srtt.or(self.srtt).unwrap_or(SimDuration::ZERO);
        if self
            .delta_halved_at
            .is_some_and(|at| event.now.saturating_since(at) < srtt)
        {
            return;
        }
        self.inverse_delta = (self.inverse_delta / 2.0).max(2.0);
        self.delta_halved_at = Some(event.now);
        self.delta_grown_at = event.now;
    }

    fn on_timeout_congestion_event(&mut self, _event: &TimeoutEvent) {}

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // The paper is silent. mvfst drops cwnd to its two-packet minimum on persistent
        // congestion; we do too, and start again with slow start (the queue has drained by
        // now, so doubling to the target is the quickest way back).
        self.cwnd = self.min_cwnd();
        self.mode = Mode::SlowStart;
        self.velocity = Velocity::new();
    }

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Copa has no threshold; the window a timeout took comes back (Linux
        // `tcp_reno_undo_cwnd`), and the delay target then steers it as before.
        self.cwnd = self.cwnd.max(event.prior_cwnd as f64);
    }

    fn cwnd(&self) -> u64 {
        (self.cwnd as u64).max(self.mss)
    }

    fn ssthresh(&self) -> u64 {
        UNLIMITED
    }

    fn assign_window(&mut self, cwnd: u64, _ssthresh: u64) {
        // No slow-start threshold: only the window is taken.
        self.cwnd = cwnd as f64;
    }

    fn paces(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<u64> {
        // Paper §2.1: 2·cwnd/RTTstanding.
        let standing = self.standing?.as_secs_f64();
        (standing > 0.0).then(|| ((2.0 * self.cwnd * 8.0 / standing) as u64).max(1))
    }

    fn controls_recovery_window(&self) -> bool {
        true
    }

    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics {
            min_rtt: self.rtt_min.get(),
            // The backlog Copa aims for: at the target rate, λt·dq = 1/δ packets queued.
            backlog_segments: self
                .queueing_delay
                .zip(self.standing)
                .map(|(dq, standing)| {
                    self.cwnd / self.mss as f64 * dq.as_secs_f64()
                        / standing.as_secs_f64().max(1e-9)
                }),
            slow_start_exit: (self.mode != Mode::SlowStart).then_some(SlowStartExit::CopaTarget),
            ..Default::default()
        }
    }

    fn mode(&self) -> &'static str {
        match self.mode {
            Mode::SlowStart => "slow_start",
            Mode::Default => "default",
            Mode::Competitive => "competitive",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{ack, ms};

    const MSS: u64 = 1000;

    fn copa(params: CopaParams) -> Copa {
        Copa::new(&CcConfig::new(MSS), params)
    }

    fn at(now_ms: u64) -> SimTime {
        SimTime::ZERO + ms(now_ms)
    }

    /// An ACK of one packet at `now_ms` with an RTT sample `rtt_ms` and srtt `srtt_ms`.
    fn sample(now_ms: u64, rtt_ms: u64, srtt_ms: u64) -> Ack {
        Ack {
            now: at(now_ms),
            rtt: Some(ms(rtt_ms)),
            srtt: Some(ms(srtt_ms)),
            ..ack(MSS)
        }
    }

    /// A Copa out of slow start with cwnd `packets` and an RTTmin of 100 ms sampled at t = 0:
    /// an ACK at t = 1 s still sees that RTTmin (10 s window) but not in its RTTstanding
    /// (srtt/2 window).
    fn settled(packets: u64) -> Copa {
        let mut c = copa(CopaParams::default());
        c.on_ack(&sample(0, 100, 100));
        c.mode = Mode::Default;
        c.cwnd = (packets * MSS) as f64;
        c
    }

    #[test]
    fn below_the_target_rate_cwnd_grows_by_v_over_delta_cwnd_per_packet() {
        // RTTmin 100 ms, RTTstanding 110 ms: dq = 10 ms, λt = 1/(0.5 · 0.010 s) = 200 pkt/s.
        // cwnd 20 packets: λ = 20/0.110 s = 181.8 pkt/s ≤ λt, so cwnd += v/(δ·cwnd) =
        // 1/(0.5 · 20) = 0.1 packet = 100 bytes.
        let mut c = settled(20);
        c.on_ack(&sample(1000, 110, 110));
        assert!((c.cwnd - 20_100.0).abs() < 1e-9, "{}", c.cwnd);
    }

    #[test]
    fn above_the_target_rate_cwnd_shrinks_by_v_over_delta_cwnd_per_packet() {
        // Same delays; cwnd 30 packets: λ = 30/0.110 = 272.7 pkt/s > λt = 200, so cwnd −=
        // 1/(0.5 · 30) packet = 66.67 bytes.
        let mut c = settled(30);
        c.on_ack(&sample(1000, 110, 110));
        assert!(
            (c.cwnd - (30_000.0 - 1000.0 / 15.0)).abs() < 1e-9,
            "{}",
            c.cwnd
        );
    }

    #[test]
    fn the_equilibrium_window_is_rttstanding_over_delta_dq_packets() {
        // At λ = λt: cwnd = RTTstanding/(δ·dq) = 0.110/(0.5 · 0.010) = 22 packets. Just
        // below it Copa increases, just above it decreases.
        let mut below = settled(22);
        below.cwnd -= 1.0;
        below.on_ack(&sample(1000, 110, 110));
        assert!(below.cwnd > 21_999.0);
        let mut above = settled(22);
        above.cwnd += 1.0;
        above.on_ack(&sample(1000, 110, 110));
        assert!(above.cwnd < 22_001.0);
    }

    #[test]
    fn a_delayed_ack_of_two_packets_moves_cwnd_twice_as_far() {
        let mut one = settled(20);
        one.on_ack(&sample(1000, 110, 110));
        let mut two = settled(20);
        two.on_ack(&Ack {
            bytes_acked: 2 * MSS,
            ..sample(1000, 110, 110)
        });
        assert!(((two.cwnd - 20_000.0) - 2.0 * (one.cwnd - 20_000.0)).abs() < 1e-9);
    }

    #[test]
    fn velocity_doubles_each_rtt_after_three_rtts_in_one_direction_and_resets_on_a_turn() {
        // An empty queue (every RTT = RTTmin) keeps λt infinite: cwnd rises every RTT.
        let mut c = settled(20);
        let mut velocities = Vec::new();
        for rtt_index in 1..=6 {
            // Ten ACKs per 100 ms RTT, the last at the RTT boundary.
            for k in 1..=10 {
                c.on_ack(&sample(rtt_index * 100 - 100 + k * 10, 100, 100));
            }
            velocities.push(c.velocity());
        }
        // First RTT: the first check records the starting point. Then "up" for the 1st,
        // 2nd, 3rd RTT → doubles from the third on.
        assert_eq!(velocities, vec![1.0, 1.0, 1.0, 2.0, 4.0, 8.0]);
        // A queue builds: RTTstanding 200 ms vs RTTmin 100 ms, dq = 100 ms, λt = 20 pkt/s,
        // far below λ: the very next ACK heads down, and the stale velocity resets.
        c.on_ack(&sample(700, 200, 100));
        assert_eq!(c.velocity(), 1.0);
    }

    #[test]
    fn slow_start_doubles_until_the_rate_exceeds_the_target() {
        let mut c = copa(CopaParams::default());
        // Empty queue: each packet acknowledged adds a packet.
        for k in 0..10 {
            c.on_ack(&sample(k, 100, 100));
        }
        assert_eq!(c.cwnd(), 20 * MSS);
        assert_eq!(c.mode(), "slow_start");
        // dq = 10 ms (RTTstanding 110 ms once the 100 ms samples left its srtt/2 window):
        // λt = 200 pkt/s, λ = 20/0.110 = 182 pkt/s, still below: still doubling…
        c.on_ack(&sample(100, 110, 100));
        assert_eq!(c.cwnd(), 21 * MSS);
        // …until cwnd · δ · dq > RTTstanding: 21 packets at dq = 100 ms (RTTstanding 200).
        c.on_ack(&sample(300, 200, 100));
        assert_eq!(c.mode(), "default");
        assert!(c.cwnd() < 21 * MSS);
        assert_eq!(c.metrics().slow_start_exit, Some(SlowStartExit::CopaTarget));
    }

    #[test]
    fn pacing_is_twice_cwnd_over_rttstanding() {
        let mut c = settled(20);
        c.on_ack(&sample(1000, 110, 110));
        // RTTstanding = 110 ms: 2 · cwnd · 8 / 0.110 s.
        let expected = 2.0 * c.cwnd * 8.0 / 0.110;
        assert_eq!(c.pacing_rate(), Some(expected as u64));
    }

    #[test]
    fn a_queue_that_never_empties_for_five_rtts_switches_to_competitive_mode() {
        // RTT 100 ms empty, then a standing queue of 100 ms (RTTs 200 ms) that never drains:
        // RTTstanding − RTTmin = 100 ms is never below 10 % of RTTmax − RTTmin = 100 ms.
        let mut c = settled(20);
        let srtt = 200;
        // RTTstanding (over srtt/2 = 100 ms) still holds the 100 ms sample of t = 0 until the
        // filter lets it go at t > 100 ms: the last nearly-empty ACK is the one at t = 91.
        let mut t = 1;
        while t <= 91 + 5 * srtt {
            c.on_ack(&sample(t, 200, srtt));
            assert!(!c.is_competitive(), "at {t} ms");
            t += 10;
        }
        // Five srtt after t = 91 (t = 1101 > 1091).
        c.on_ack(&sample(t, 200, srtt));
        assert!(c.is_competitive());
        assert_eq!(c.delta(), 0.5);
        // One RTT later without loss: 1/δ = 2 + 1.
        c.on_ack(&sample(t + srtt, 200, srtt));
        assert!((c.delta() - 1.0 / 3.0).abs() < 1e-12);
        // A loss halves 1/δ (3 → 1.5, floored at 2: δ ≤ 0.5), once per RTT.
        c.on_congestion_event(&CongestionEvent {
            now: at(t + srtt + 10),
            bytes_in_flight: 0,
            srtt: Some(ms(srtt)),
            min_rtt: None,
        });
        assert_eq!(c.delta(), 0.5);
        // The queue drains to RTTmin: default mode, default δ.
        c.on_ack(&sample(t + srtt + 20, 100, srtt));
        assert_eq!(c.mode(), "default");
        assert_eq!(c.delta(), 0.5);
    }

    #[test]
    fn loss_changes_nothing_in_the_default_mode() {
        let mut c = settled(20);
        c.on_ack(&sample(1000, 110, 110));
        let before = c.cwnd();
        c.on_congestion_event(&crate::test_support::loss(before));
        assert_eq!(c.cwnd(), before);
        assert!(c.controls_recovery_window());
    }

    #[test]
    fn a_timeout_restarts_from_two_packets_in_slow_start() {
        let mut c = settled(20);
        crate::test_support::new_timeout(&mut c, &crate::test_support::timeout(20 * MSS));
        assert_eq!(c.cwnd(), 2 * MSS);
        assert_eq!(c.mode(), "slow_start");
    }
}
