//! Data Center TCP (RFC 8257; Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010),
//! with Linux's net/ipv4/tcp_dctcp.c where the RFC leaves a choice.
//!
//! - RFC 8257 §3.3: over each observation window (from `WindowEnd = SND.NXT` until
//!   the cumulative ACK passes it) the sender counts the bytes acknowledged and those the
//!   receiver echoed as CE-marked; at the window's end `M = BytesMarked / BytesAcked` and
//!   `α ← (1 − g)·α + g·M`, g = 1/16, α starting at 1 (§3.3 "SHOULD be 1"; Linux
//!   `dctcp_alpha_on_init` = 1024/1024).
//! - §3.3: on CE echoes, `cwnd ← cwnd·(1 − α/2)`, at most once per window of data
//!   (as RFC 3168); ssthresh follows the new cwnd, as Linux's `dctcp_ssthresh` (called by
//!   `tcp_enter_cwr`) sets ssthresh = max(cwnd − cwnd·α/2, 2 segments).
//! - §3.4: growth is standard TCP (the pluggable slow start, RFC 3465 byte counting in
//!   congestion avoidance, as reno.rs).
//! - §3.5: loss is handled as standard TCP, ssthresh = max(FlightSize/2, 2 SMSS) (RFC 5681
//!   eq. 4), and only one reduction per window across ECN and loss. Current Linux agrees
//!   (`dctcp_react_to_loss`: ssthresh = max(cwnd/2, 2) on entering Recovery and on a
//!   timeout).
//!
//! The controller takes the CE marks itself (`responds_to_ecn`): the sender's RFC 3168
//! response (a halving per window) is for the other controllers. The marks come as
//! `Ack::ecn_ce_bytes`, the accurate per-ACK byte count RFC 8257 §3.2's receiver state
//! machine exists to approximate with one ECE bit.

use super::additive_increase::ByteCountedIncrease;
use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, half_flight_ssthresh,
};
use crate::metrics::ControllerMetrics;
use crate::params::{ParamSpec, Params};
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;

const PARAMS: &[ParamSpec] = &[
    // Linux dctcp_shift_g ∈ [0, 10] gives g = 2^-shift ∈ [1/1024, 1].
    ParamSpec::number("g", 1.0 / 16.0, 1.0 / 1024.0, 1.0)
        .doc("EWMA gain of alpha per window of data (RFC 8257 §3.3; Linux 2^-dctcp_shift_g)"),
    ParamSpec::number("initial_alpha", 1.0, 0.0, 1.0)
        .unit("fraction")
        .doc("alpha before the first window ends (RFC 8257 §3.3; Linux dctcp_alpha_on_init/1024)"),
];

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "dctcp",
    aliases: &[],
    summary: "DCTCP: alpha = EWMA (g = 1/16) of the CE-marked fraction per window, cwnd x (1 - alpha/2) once per window of marks; Reno growth and loss response",
    reference: "RFC 8257 §3.3-3.5; Alizadeh et al., Data Center TCP, SIGCOMM 2010; Linux net/ipv4/tcp_dctcp.c",
    params: PARAMS,
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::GivenOrPacketPair,
    build: |config, params, slow_start| {
        Box::new(Dctcp::new(
            config,
            DctcpParams::from_params(params),
            slow_start,
        ))
    },
};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DctcpParams {
    /// EWMA gain g.
    pub g: f64,
    /// α at the start of the connection.
    pub initial_alpha: f64,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams::from_params(&Params::defaults(PARAMS))
    }
}

impl DctcpParams {
    pub fn from_params(params: &Params) -> Self {
        DctcpParams {
            g: params.number("g"),
            initial_alpha: params.number("initial_alpha"),
        }
    }
}

pub struct Dctcp {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    params: DctcpParams,
    /// RFC 8257 §3.3 DCTCP.Alpha: the estimated fraction of bytes that meet congestion.
    alpha: f64,
    /// RFC 8257 §3.3 WindowEnd: SND.NXT when the observation window began; `None` until the
    /// first ACK tells us SND.NXT.
    window_end: Option<u64>,
    /// RFC 8257 §3.3 BytesAcked and BytesMarked of the current observation window.
    bytes_acked: u64,
    bytes_marked: u64,
    /// SND.NXT at the last ECN reduction: no other until the cumulative ACK passes it (one
    /// reduction per window of data, RFC 3168 §6.1.2 as RFC 8257 §3.3 keeps it).
    reduced_until: Option<u64>,
    /// Bytes acknowledged since cwnd last grew in congestion avoidance (RFC 3465 §2.1).
    increase: ByteCountedIncrease,
    slow_start: Box<dyn SlowStart>,
}

impl Dctcp {
    pub fn new(config: &CcConfig, params: DctcpParams, slow_start: Box<dyn SlowStart>) -> Self {
        Dctcp {
            mss: config.mss,
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            params,
            alpha: params.initial_alpha,
            window_end: None,
            bytes_acked: 0,
            bytes_marked: 0,
            reduced_until: None,
            increase: ByteCountedIncrease::new(),
            slow_start,
        }
    }

    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// RFC 8257 §3.3: count the ACK into the observation window and, once the
    /// cumulative ACK reaches WindowEnd, fold the window's marked fraction into α.
    fn observe(&mut self, ack: &Ack) {
        self.bytes_acked += ack.bytes_acked;
        self.bytes_marked += ack.ecn_ce_bytes;
        match self.window_end {
            // The first window ends at the SND.NXT of the first ACK.
            None => self.window_end = Some(ack.snd_nxt),
            // The window ends once the cumulative ACK passes WindowEnd (§3.3); we test ≥ as
            // Linux does (`!before(snd_una, next_seq)`), so the ACK that reaches WindowEnd
            // closes it and an idle sender's window (snd_una = snd_nxt) ends on its next ACK.
            Some(end) if ack.snd_una >= end => {
                // M = BytesMarked / BytesAcked (0 for a window that acknowledged
                // nothing, as Linux divides by max(1, delivered)).
                let marked_fraction = if self.bytes_acked == 0 {
                    0.0
                } else {
                    (self.bytes_marked as f64 / self.bytes_acked as f64).min(1.0)
                };
                // α ← (1 − g)·α + g·M.
                self.alpha = (1.0 - self.params.g) * self.alpha + self.params.g * marked_fraction;
                // The next window ends at today's SND.NXT; counters restart.
                self.window_end = Some(ack.snd_nxt);
                self.bytes_acked = 0;
                self.bytes_marked = 0;
            }
            Some(_) => {}
        }
    }

    /// RFC 8257 §3.3's cwnd·(1 − α/2) with Linux's floor of 2 segments (`dctcp_ssthresh`).
    fn reduce_for_marks(&mut self, snd_nxt: u64) {
        let kept = (self.cwnd as f64 * (1.0 - self.alpha / 2.0)).round() as u64;
        self.cwnd = kept.max(2 * self.mss);
        self.ssthresh = self.cwnd;
        self.increase.reset();
        self.reduced_until = Some(snd_nxt);
    }

    /// Whether CE marks on this ACK may reduce the window: not in loss recovery (that window
    /// was reduced already, RFC 8257 §3.5) and not before the cumulative ACK has passed the
    /// data outstanding at the last ECN reduction (an ACK up to exactly that point still
    /// acknowledges the window already reduced for).
    fn may_reduce(&self, ack: &Ack) -> bool {
        !ack.in_recovery && self.reduced_until.is_none_or(|point| ack.snd_una > point)
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, ack: &Ack) {
        // α first, so that a reduction on the ACK that closes a window uses it (Linux runs
        // dctcp_update_alpha from in_ack_event before tcp_enter_cwr reads ssthresh()).
        self.observe(ack);
        if ack.ecn_ce_bytes > 0 && self.may_reduce(ack) {
            self.reduce_for_marks(ack.snd_nxt);
            return;
        }
        if !ack.may_grow() {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.slow_start
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
            return;
        }
        // RFC 3465 §2.1: when bytes_acked reaches cwnd, cwnd += SMSS.
        self.increase
            .grow(&mut self.cwnd, self.mss, ack.bytes_acked, 1.0);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        // RFC 8257 §3.5: as standard TCP, RFC 5681 §3.2 step 2.
        self.ssthresh = half_flight_ssthresh(event.bytes_in_flight, self.mss);
        self.cwnd = self.ssthresh;
        self.increase.reset();
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        // RFC 8257 §3.5 / RFC 5681 §3.1 eq. (4).
        self.ssthresh = half_flight_ssthresh(event.bytes_in_flight, self.mss);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        // RFC 8257 §3.5: "the cwnd MUST be set to no more than the loss window".
        self.cwnd = self.mss;
        self.increase.reset();
        self.slow_start.restart();
    }

    fn on_undo(&mut self, event: &crate::controller::UndoEvent) {
        // Linux `tcp_reno_undo_cwnd`: the window and threshold come back, nothing else.
        (self.cwnd, self.ssthresh) = event.reno_restore(self.cwnd, self.ssthresh);
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn assign_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd;
        self.ssthresh = ssthresh;
    }

    fn responds_to_ecn(&self) -> bool {
        true
    }

    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics {
            ecn_alpha: Some(self.alpha),
            ..ControllerMetrics::with_slow_start(self.slow_start.as_ref())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::UNLIMITED;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::{ack, loss, new_timeout, timeout};

    const MSS: u64 = 1000;

    fn dctcp_with(params: DctcpParams) -> Dctcp {
        let config = CcConfig::new(MSS);
        Dctcp::new(&config, params, Box::new(StandardSlowStart::new(&config)))
    }

    /// A DCTCP in congestion avoidance at `segments` with α = `alpha`.
    fn dctcp_at(segments: u64, alpha: f64) -> Dctcp {
        let mut d = dctcp_with(DctcpParams {
            initial_alpha: alpha,
            ..DctcpParams::default()
        });
        d.cwnd = segments * MSS;
        d.ssthresh = segments * MSS;
        d
    }

    /// The first ACK sets WindowEnd to its SND.NXT (RFC 8257 §3.3): one window of
    /// `segments` ahead, acknowledging nothing.
    fn prime(d: &mut Dctcp, segments: u64) {
        d.on_ack(&Ack {
            snd_nxt: segments * MSS,
            ..ack(0)
        });
    }

    /// One window of data: `segments` one-segment ACKs, the first sent at `start` (bytes),
    /// `marked` of them CE-marked (the first ones). The sender keeps sending one segment
    /// per ACK, so SND.NXT stays one window ahead of SND.UNA.
    fn window(d: &mut Dctcp, start: u64, segments: u64, marked: u64) -> u64 {
        for i in 0..segments {
            let una = start + (i + 1) * MSS;
            d.on_ack(&Ack {
                snd_una: una,
                snd_nxt: una + segments * MSS,
                ecn_ce_bytes: if i < marked { MSS } else { 0 },
                ..ack(MSS)
            });
        }
        start + segments * MSS
    }

    #[test]
    fn parameters_default_to_rfc_8257_and_linux() {
        let d = dctcp_with(DctcpParams::default());
        // RFC 8257 §3.3: g = 1/16, α initialised to 1 (Linux dctcp_shift_g = 4,
        // dctcp_alpha_on_init = DCTCP_MAX_ALPHA).
        assert_eq!(d.params.g, 0.0625);
        assert_eq!(d.alpha(), 1.0);
        assert_eq!(d.metrics().ecn_alpha, Some(1.0));
        assert!(d.responds_to_ecn());
        assert_eq!((d.cwnd(), d.ssthresh()), (10 * MSS, UNLIMITED));
    }

    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction_per_window() {
        // Windows of 20 segments, every other one CE-marked (M = 0.5), from α0 = 1:
        // α_n = (15/16)·α_(n−1) + (1/16)·0.5, i.e. α_n = 0.5 + 0.5·(15/16)^n:
        //   n = 1: 0.96875, n = 2: 0.939453125, n = 8: 0.798359736…
        // The ACKs are in loss recovery, where the marks do not reduce cwnd (that window was
        // reduced already, RFC 8257 §3.5) but α is still measured.
        let mut d = dctcp_at(20, 1.0);
        prime(&mut d, 20);
        let expected = |n: i32| 0.5 + 0.5 * (15.0f64 / 16.0).powi(n);
        assert_eq!(expected(1), 0.968_75);
        assert_eq!(expected(2), 0.939_453_125);
        let mut start = 0;
        for n in 1..=8 {
            for i in 0..20 {
                let una = start + (i + 1) * MSS;
                d.on_ack(&Ack {
                    snd_una: una,
                    snd_nxt: una + 20 * MSS,
                    ecn_ce_bytes: if i % 2 == 0 { MSS } else { 0 },
                    in_recovery: true,
                    ..ack(MSS)
                });
            }
            start += 20 * MSS;
            assert!(
                (d.alpha() - expected(n)).abs() < 1e-12,
                "window {n}: α {} expected {}",
                d.alpha(),
                expected(n)
            );
        }
        assert!((d.alpha() - 0.798_359_737).abs() < 1e-9);
        assert_eq!(d.cwnd(), 20 * MSS);
        // The cut the next marked window brings: cwnd·(1 − α_8/2) = 20 000·0.600820131…
        // = 12 016 bytes.
        d.on_ack(&Ack {
            snd_una: start + MSS,
            snd_nxt: start + 21 * MSS,
            ecn_ce_bytes: MSS,
            ..ack(MSS)
        });
        assert_eq!(d.cwnd(), 12_016);
    }

    #[test]
    fn unmarked_windows_decay_alpha_geometrically() {
        // M = 0: α_n = (15/16)^n; after 16 windows (1 − 1/16)^16 = 0.356_074_…
        let mut d = dctcp_at(10, 1.0);
        prime(&mut d, 10);
        let mut start = 0;
        for _ in 0..16 {
            start = window(&mut d, start, 10, 0);
        }
        assert!((d.alpha() - (15.0f64 / 16.0).powi(16)).abs() < 1e-12);
        assert!((d.alpha() - 0.356_074).abs() < 1e-6);
    }

    #[test]
    fn a_mark_cuts_cwnd_by_half_alpha_once_per_window() {
        // α = 0.5: cwnd ← 40 000·(1 − 0.25) = 30 000 on the first marked ACK.
        let mut d = dctcp_at(40, 0.5);
        d.on_ack(&Ack {
            snd_una: 1000,
            snd_nxt: 40_000,
            ecn_ce_bytes: MSS,
            ..ack(MSS)
        });
        assert_eq!((d.cwnd(), d.ssthresh()), (30_000, 30_000));
        // More marks for data sent before the reduction (SND.UNA ≤ 40 000): no second cut.
        for una in [2000, 20_000, 40_000] {
            d.on_ack(&Ack {
                snd_una: una,
                snd_nxt: 70_000,
                ecn_ce_bytes: MSS,
                ..ack(MSS)
            });
        }
        assert_eq!(d.cwnd(), 30_000);
        // The next window's first mark cuts again, with the same α (the observation window
        // that started at the first ACK, WindowEnd = 40 000, ended at SND.UNA = 40 000 and
        // folded in M = 4/4 = 1: α = 15/16·0.5 + 1/16 = 0.53125).
        assert!((d.alpha() - 0.531_25).abs() < 1e-12);
        d.on_ack(&Ack {
            snd_una: 41_000,
            snd_nxt: 70_000,
            ecn_ce_bytes: MSS,
            ..ack(MSS)
        });
        // 30 000·(1 − 0.265625) = 22 031.25 → 22 031.
        assert_eq!(d.cwnd(), 22_031);
    }

    #[test]
    fn full_marking_halves_and_no_marks_never_reduce() {
        // α = 1 (the initial value): the first mark halves, as RFC 3168 would.
        let mut d = dctcp_at(40, 1.0);
        d.on_ack(&Ack {
            snd_una: 1000,
            snd_nxt: 40_000,
            ecn_ce_bytes: MSS,
            ..ack(MSS)
        });
        assert_eq!(d.cwnd(), 20_000);
        // Without CE marks DCTCP is Reno: +1 MSS per window of acknowledged data.
        let mut d = dctcp_at(20, 1.0);
        let end = window(&mut d, 0, 20, 0);
        assert_eq!(d.cwnd(), 21 * MSS);
        window(&mut d, end, 21, 0);
        assert_eq!(d.cwnd(), 22 * MSS);
        // With α = 0 a mark removes nothing: cwnd·(1 − 0) (RFC 8257 §3.3: "when no sent
        // packets have experienced congestion, DCTCP.Alpha equals zero, and cwnd is left
        // unchanged").
        let mut d = dctcp_at(20, 0.0);
        d.on_ack(&Ack {
            snd_una: 1000,
            snd_nxt: 20_000,
            ecn_ce_bytes: MSS,
            ..ack(MSS)
        });
        assert_eq!(d.cwnd(), 20 * MSS);
    }

    #[test]
    fn marks_in_loss_recovery_do_not_reduce_again_and_the_floor_is_two_segments() {
        let mut d = dctcp_at(40, 1.0);
        d.on_congestion_event(&loss(40 * MSS));
        assert_eq!(d.cwnd(), 20 * MSS);
        d.on_ack(&Ack {
            snd_una: 1000,
            snd_nxt: 40_000,
            ecn_ce_bytes: MSS,
            in_recovery: true,
            ..ack(MSS)
        });
        assert_eq!(
            d.cwnd(),
            20 * MSS,
            "RFC 8257 §3.5: one reduction per window"
        );
        // 3 segments with α = 1 would keep 1.5: the floor is 2 (Linux dctcp_ssthresh).
        let mut d = dctcp_at(3, 1.0);
        d.on_ack(&Ack {
            snd_una: 1000,
            snd_nxt: 3000,
            ecn_ce_bytes: MSS,
            ..ack(MSS)
        });
        assert_eq!(d.cwnd(), 2 * MSS);
    }

    #[test]
    fn loss_and_timeout_are_reno() {
        // RFC 8257 §3.5: ssthresh = FlightSize/2 whatever α is.
        let mut d = dctcp_at(40, 0.1);
        d.on_congestion_event(&loss(40 * MSS));
        assert_eq!((d.cwnd(), d.ssthresh()), (20 * MSS, 20 * MSS));
        let mut d = dctcp_at(40, 0.1);
        new_timeout(&mut d, &timeout(30 * MSS));
        assert_eq!((d.cwnd(), d.ssthresh()), (MSS, 15 * MSS));
        d.on_ack(&ack(MSS));
        assert_eq!(d.cwnd(), 2 * MSS, "slow start after the timeout");
    }

    #[test]
    fn a_mark_in_slow_start_ends_it() {
        // ssthresh ← the reduced cwnd (Linux tcp_enter_cwr sets ssthresh from
        // dctcp_ssthresh): 10 000·(1 − 1/2) = 5 000, then congestion avoidance.
        let mut d = dctcp_with(DctcpParams::default());
        d.on_ack(&Ack {
            snd_una: 1000,
            snd_nxt: 10_000,
            ecn_ce_bytes: MSS,
            ..ack(MSS)
        });
        assert_eq!((d.cwnd(), d.ssthresh()), (5000, 5000));
        assert_eq!(d.mode(), "congestion_avoidance");
    }
}
