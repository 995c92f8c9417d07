//! TCP Prague, the scalable controller of L4S (draft-briscoe-iccrg-prague-congestion-control;
//! RFC 9331 §4.3's requirements on L4S senders), as the L4S team's Linux module
//! `net/ipv4/tcp_prague.c` (v0.6) implements it. DCTCP's law with the L4S safety changes:
//!
//! - α, an EWMA (g = 1/16) of the CE-marked fraction of the bytes delivered, updated once per
//!   round trip and only once the path has shown it marks (`saw_ce`); α starts at 1.
//! - On CE echoes, at most once per round trip (Linux `tcp_enter_cwr`), `cwnd −= α·cwnd/2`.
//! - Additive increase on the *unmarked* bytes only (Linux `acked −= ece_delta`): the total
//!   increase per RTT is proportional to (1 − p), so a saturated marking does not keep
//!   growing the window.
//! - RTT independence (`rtt_scaling = "rate"`, Linux's default `RTT_CONTROL_RATE`): after
//!   500 round trips out of slow start, a flow whose srtt is below the 25 ms target grows by
//!   (srtt/target)² segments per RTT, and updates α and reduces at most once per target RTT,
//!   so that its rate evolves as a 25 ms flow's would. Flows of different RTTs below the
//!   target then converge to the same rate (RFC 9331 §4.3 "reduce RTT dependence").
//! - Pacing at 100 % of cwnd/srtt in congestion avoidance, 200 % in slow start.
//! - Loss: cwnd halves (Linux `prague_enter_loss`).
//!
//! Not modelled: the classic-ECN AQM detection and fallback (off by default in Linux,
//! `prague_ecn_fallback = 0`), the GSO burst sizing, undo.

use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, half_flight_ssthresh,
};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;
use crate::time::{SimDuration, SimTime};

const PARAMS: &[ParamSpec] = &[
    ParamSpec::choice("rtt_scaling", "rate", &["rate", "none"]).doc(
        "rate: below the target RTT grow by (srtt/target)^2 per RTT and react at most once \
         per target RTT (Linux RTT_CONTROL_RATE, the default); none: DCTCP's per-RTT law",
    ),
    ParamSpec::number("rtt_target", 25.0, 1.0, 100.0)
        .unit("ms")
        .doc("RTT independence target (Linux prague_rtt_target: 25 ms)"),
    ParamSpec::number("rtt_transition", 500.0, 0.0, 100_000.0)
        .unit("rounds")
        .doc("round trips after slow start before RTT independence applies (Linux: 500)"),
    ParamSpec::number("g", 1.0 / 16.0, 1.0 / 1024.0, 1.0)
        .doc("EWMA gain of alpha per round trip (Linux PRAGUE_SHIFT_G = 4: 1/16)"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "prague",
    aliases: &["tcp-prague"],
    summary: "L4S: DCTCP's alpha and cwnd x (1 - alpha/2) per RTT of marks, increase on unmarked bytes, RTT independence below 25 ms, paced",
    reference: "draft-briscoe-iccrg-prague-congestion-control; RFC 9331 §4.3; L4STeam Linux net/ipv4/tcp_prague.c",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::Given,
    build: |config, params, slow_start| {
        Box::new(Prague::new(
            config,
            PragueParams::from_params(params),
            slow_start,
        ))
    },
};

/// Linux `MIN_CWND`: two segments.
const MIN_CWND_SEGMENTS: f64 = 2.0;
/// Linux `MAX_SCALED_RTT`: no RTT scaling above 100 ms.
const MAX_SCALED_RTT: SimDuration = SimDuration::from_millis(100);

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PragueParams {
    pub rtt_scaling: bool,
    pub rtt_target: SimDuration,
    pub rtt_transition: u64,
    pub g: f64,
}

impl Default for PragueParams {
    fn default() -> Self {
        PragueParams::from_params(&Params::defaults(PARAMS))
    }
}

impl PragueParams {
    pub fn from_params(params: &Params) -> Self {
        PragueParams {
            rtt_scaling: params.choice("rtt_scaling") == "rate",
            rtt_target: SimDuration::from_secs_f64(params.number("rtt_target") / 1000.0),
            rtt_transition: params.number("rtt_transition").round() as u64,
            g: params.number("g"),
        }
    }
}

pub struct Prague {
    mss: u64,
    params: PragueParams,
    /// cwnd in fractional bytes (Linux `frac_cwnd`): per-ACK increases are fractions of a
    /// segment, and with RTT scaling very small ones.
    cwnd: f64,
    ssthresh: u64,
    alpha: f64,
    /// CE marks have been seen: the path has an L4S AQM, α may move.
    saw_ce: bool,
    /// The round in progress ends when the cumulative ACK reaches this SND.NXT.
    round_end: Option<u64>,
    /// Bytes delivered and CE-marked since α was last updated.
    delivered: u64,
    marked: u64,
    /// Round trips since slow start last ended (Linux `ca->round`).
    rounds: u64,
    /// When α was last updated and the window last reduced for marks.
    alpha_stamp: SimTime,
    cwr_stamp: Option<SimTime>,
    /// No other reduction for marks until the cumulative ACK passes this SND.NXT (one per
    /// round trip, as Linux's CWR state).
    cwr_until: Option<u64>,
    srtt: Option<SimDuration>,
    slow_start: Box<dyn SlowStart>,
}

impl Prague {
    pub fn new(config: &CcConfig, params: PragueParams, slow_start: Box<dyn SlowStart>) -> Self {
        Prague {
            mss: config.mss,
            params,
            cwnd: config.initial_cwnd as f64,
            ssthresh: config.initial_ssthresh,
            alpha: 1.0,
            saw_ce: false,
            round_end: None,
            delivered: 0,
            marked: 0,
            rounds: 0,
            alpha_stamp: SimTime::ZERO,
            cwr_stamp: None,
            cwr_until: None,
            srtt: None,
            slow_start,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    fn in_slow_start(&self) -> bool {
        (self.cwnd as u64) < self.ssthresh
    }

    /// Linux `prague_is_rtt_indep`: RTT scaling is on, slow start is over and the flow is
    /// old enough.
    fn rtt_independent(&self) -> bool {
        self.params.rtt_scaling
            && !self.in_slow_start()
            && self.rounds >= self.params.rtt_transition
    }

    /// Linux `prague_rate_scaled_ai_ack_increase`: segments added per RTT, (srtt/target)²
    /// below the target (so the window grows by one segment per target²/srtt, and the rate
    /// by one segment per target² whatever the RTT), 1 otherwise.
    pub fn increase_per_rtt(&self) -> f64 {
        let Some(srtt) = self.srtt else {
            return 1.0;
        };
        let target = self.params.rtt_target;
        if !self.params.rtt_scaling
            || self.rounds < self.params.rtt_transition
            || srtt.is_zero()
            || srtt > MAX_SCALED_RTT
            || srtt >= target
        {
            return 1.0;
        }
        let ratio = srtt.as_secs_f64() / target.as_secs_f64();
        ratio * ratio
    }

    /// At the end of a round trip: fold the marked fraction into α (once the path has
    /// marked, and with RTT independence at most once per target RTT), and start a new round.
    fn end_of_round(&mut self, ack: &Ack) {
        if self.round_end.is_some_and(|end| ack.snd_una < end) {
            return;
        }
        let due = !self.rtt_independent()
            || ack.now.saturating_since(self.alpha_stamp) >= self.params.rtt_target;
        if self.round_end.is_some() && !due {
            return; // keep counting until the target RTT has passed
        }
        if self.saw_ce && self.round_end.is_some() {
            let fraction = if self.delivered == 0 {
                0.0
            } else {
                (self.marked as f64 / self.delivered as f64).min(1.0)
            };
            self.alpha = (1.0 - self.params.g) * self.alpha + self.params.g * fraction;
            self.alpha_stamp = ack.now;
        }
        // Linux prague_new_round.
        self.round_end = Some(ack.snd_nxt);
        self.delivered = 0;
        self.marked = 0;
        if !self.in_slow_start() {
            self.rounds += 1;
        }
    }

    /// Linux `prague_enter_cwr`: `cwnd −= α·cwnd/2`, once per round trip and, with RTT
    /// independence, once per target RTT.
    fn reduce_for_marks(&mut self, ack: &Ack) {
        if self.cwr_until.is_some_and(|point| ack.snd_una <= point) {
            return;
        }
        if self.rtt_independent()
            && self
                .cwr_stamp
                .is_some_and(|at| ack.now.saturating_since(at) < self.params.rtt_target)
        {
            return;
        }
        self.cwnd =
            (self.cwnd - self.alpha * self.cwnd / 2.0).max(MIN_CWND_SEGMENTS * self.mss as f64);
        self.ssthresh = self.cwnd as u64;
        self.cwr_stamp = Some(ack.now);
        self.cwr_until = Some(ack.snd_nxt);
    }
}

impl CongestionControl for Prague {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        if ack.srtt.is_some() {
            self.srtt = ack.srtt;
        }
        let marked = ack.ecn_ce_bytes.min(ack.bytes_acked);
        if marked > 0 {
            self.saw_ce = true;
        }
        self.delivered += ack.bytes_acked;
        self.marked += marked;
        if marked > 0 && !ack.in_recovery {
            self.reduce_for_marks(ack);
        }
        // Only the unmarked bytes grow the window (Linux `acked -= rs->ece_delta`).
        let unmarked = ack.bytes_acked - marked;
        if unmarked > 0 && ack.may_grow() {
            if self.in_slow_start() {
                let mut cwnd = self.cwnd as u64;
                let grow = Ack {
                    bytes_acked: unmarked,
                    ..*ack
                };
                self.slow_start
                    .grow(&mut cwnd, &mut self.ssthresh, self.mss, &grow);
                self.cwnd = cwnd as f64;
            } else {
                let mss = self.mss as f64;
                self.cwnd += self.increase_per_rtt() * unmarked as f64 * mss / self.cwnd;
            }
        }
        self.end_of_round(ack);
    }

    fn on_congestion_event(&mut self, _event: &CongestionEvent) {
        // Linux prague_enter_loss: frac_cwnd −= frac_cwnd/2.
        self.cwnd = (self.cwnd / 2.0).max(MIN_CWND_SEGMENTS * self.mss as f64);
        self.ssthresh = self.cwnd as u64;
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        self.ssthresh = half_flight_ssthresh(event.bytes_in_flight, self.mss);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // RFC 5681 §3.1's loss window; slow start again.
        self.cwnd = self.mss as f64;
        self.slow_start.restart();
    }

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Linux `tcp_reno_undo_cwnd`: the window and threshold come back, nothing else.
        self.cwnd = self.cwnd.max(event.prior_cwnd as f64);
        self.ssthresh = self.ssthresh.max(event.prior_ssthresh);
    }

    fn cwnd(&self) -> u64 {
        (self.cwnd as u64).max(self.mss)
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd as f64;
        self.ssthresh = ssthresh;
    }

    fn paces(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<u64> {
        // Linux prague_update_pacing_rate: cwnd/srtt, doubled while cwnd < ssthresh/2.
        let srtt = self.srtt?.as_secs_f64();
        let mut rate = self.cwnd * 8.0 / srtt.max(1e-9);
        if (self.cwnd as u64) < self.ssthresh / 2 {
            rate *= 2.0;
        }
        Some((rate as u64).max(1))
    }

    fn responds_to_ecn(&self) -> bool {
        true
    }

    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics {
            ecn_alpha: Some(self.alpha),
            increase_per_rtt: Some(self.increase_per_rtt()),
            ..ControllerMetrics::with_slow_start(self.slow_start.as_ref())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::{ack, loss, ms};

    const MSS: u64 = 1000;

    fn prague(params: PragueParams) -> Prague {
        let config = CcConfig::new(MSS);
        Prague::new(&config, params, Box::new(StandardSlowStart::new(&config)))
    }

    /// A Prague in congestion avoidance at `segments`, srtt 10 ms, its first round open
    /// until SND.NXT = `segments` segments.
    fn at(segments: u64, params: PragueParams) -> Prague {
        let mut p = prague(params);
        p.cwnd = (segments * MSS) as f64;
        p.ssthresh = segments * MSS;
        p.srtt = Some(ms(10));
        p.round_end = Some(segments * MSS);
        p
    }

    /// One round of `segments` one-segment ACKs at 1 ms spacing from `now_ms`, the first
    /// `marked` CE-marked; SND.NXT stays a window ahead. Returns the next SND.UNA.
    fn round(p: &mut Prague, start: u64, segments: u64, marked: u64, now_ms: u64) -> u64 {
        for i in 0..segments {
            let una = start + (i + 1) * MSS;
            p.on_ack(&Ack {
                now: SimTime::ZERO + ms(now_ms + i),
                snd_una: una,
                snd_nxt: una + segments * MSS,
                ecn_ce_bytes: if i < marked { MSS } else { 0 },
                srtt: Some(ms(10)),
                in_recovery: true, // measure α without the reductions
                ..ack(MSS)
            });
        }
        start + segments * MSS
    }

    #[test]
    fn alpha_starts_at_one_and_is_an_ewma_of_the_marked_fraction_per_round() {
        let mut p = at(20, PragueParams::default());
        assert_eq!(p.alpha(), 1.0);
        // A round without marks before any CE: no AQM shown yet, α stays 1 (Linux saw_ce).
        let start = round(&mut p, 0, 20, 0, 0);
        assert_eq!(p.alpha(), 1.0);
        // Rounds with half the bytes marked: α_n = 0.5 + 0.5·(15/16)^n.
        let mut start = start;
        for n in 1..=4 {
            start = round(&mut p, start, 20, 10, 100 * n);
            let expected = 0.5 + 0.5 * (15.0f64 / 16.0).powi(n as i32);
            assert!(
                (p.alpha() - expected).abs() < 1e-12,
                "round {n}: {}",
                p.alpha()
            );
        }
    }

    #[test]
    fn marks_reduce_by_alpha_half_once_per_round_trip() {
        let mut p = at(100, PragueParams::default());
        p.alpha = 0.5;
        let marked = |una: u64, nxt: u64| Ack {
            snd_una: una,
            snd_nxt: nxt,
            ecn_ce_bytes: MSS,
            ..ack(MSS)
        };
        // cwnd − α·cwnd/2 = 100 − 25 = 75 segments.
        p.on_ack(&marked(MSS, 100 * MSS));
        assert_eq!(p.cwnd(), 75 * MSS);
        // More marks before SND.UNA passes the reduction's SND.NXT: no second reduction.
        p.on_ack(&marked(50 * MSS, 150 * MSS));
        assert_eq!(p.cwnd(), 75 * MSS);
        p.on_ack(&marked(101 * MSS, 200 * MSS));
        assert_eq!(p.cwnd(), 56 * MSS + 250); // 75 − 0.5·75/2 = 56.25 segments
    }

    #[test]
    fn only_unmarked_bytes_grow_the_window() {
        let mut p = at(10, PragueParams::default());
        p.cwr_until = Some(u64::MAX); // hold the reduction off
        // Two segments acknowledged, one marked: +1·1000·1000/10 000 = 100 bytes, as for
        // one unmarked segment.
        p.on_ack(&Ack {
            bytes_acked: 2 * MSS,
            ecn_ce_bytes: MSS,
            ..ack(2 * MSS)
        });
        assert!((p.cwnd - 10_100.0).abs() < 1e-9, "{}", p.cwnd);
    }

    #[test]
    fn below_the_target_rtt_growth_scales_with_the_rtt_squared_after_the_transition() {
        let mut p = at(10, PragueParams::default());
        p.srtt = Some(ms(5));
        // Before 500 rounds: Reno's one segment per RTT.
        assert_eq!(p.increase_per_rtt(), 1.0);
        p.rounds = 500;
        // (5/25)² = 0.04 segment per RTT.
        assert!((p.increase_per_rtt() - 0.04).abs() < 1e-12);
        p.srtt = Some(ms(30));
        assert_eq!(
            p.increase_per_rtt(),
            1.0,
            "at or above the target: unscaled"
        );
        let mut none = at(
            10,
            PragueParams {
                rtt_scaling: false,
                ..PragueParams::default()
            },
        );
        none.rounds = 500;
        none.srtt = Some(ms(5));
        assert_eq!(none.increase_per_rtt(), 1.0);
    }

    #[test]
    fn pacing_is_cwnd_over_srtt_doubled_early_in_slow_start() {
        let p = at(10, PragueParams::default());
        // 10 000 B · 8 / 10 ms = 8 Mbit/s.
        assert_eq!(p.pacing_rate(), Some(8_000_000));
        let mut early = prague(PragueParams::default());
        early.ssthresh = 100 * MSS;
        early.srtt = Some(ms(10));
        assert_eq!(early.pacing_rate(), Some(16_000_000));
    }

    #[test]
    fn loss_halves_the_window() {
        let mut p = at(40, PragueParams::default());
        p.on_congestion_event(&loss(40 * MSS));
        assert_eq!((p.cwnd(), p.ssthresh()), (20 * MSS, 20 * MSS));
    }
}
