//! RTT estimation and the retransmission timeout: RFC 6298, or Linux's variant of it
//! (`rto_estimator`; the variation term in `rtt_linux.rs`).

use cclab_cc::SimDuration;
use cclab_scenario::RtoEstimator;

use crate::tcp::rtt_linux::{LinuxVariation, SequenceState};

/// RFC 6298 §2.1: RTO before any measurement (Linux's `TCP_TIMEOUT_INIT` too).
const INITIAL_RTO: SimDuration = SimDuration::from_secs(1);
/// RFC 6298 §2.5 allows a maximum of at least 60 s.
const MAX_RTO: SimDuration = SimDuration::from_secs(60);
/// Linux's `TCP_RTO_MAX` (`tcp_bound_rto`, and the backoff's ceiling).
const LINUX_MAX_RTO: SimDuration = SimDuration::from_secs(120);
/// Clock granularity G of RFC 6298 §2.2–2.3 (Linux measures in microseconds, but its RTO
/// arithmetic works in jiffies; 1 ms is the common case).
const CLOCK_GRANULARITY: SimDuration = SimDuration::from_millis(1);

/// The variation term added to SRTT for the RTO.
#[derive(Clone, Debug)]
enum Variation {
    /// RFC 6298 §2: RTTVAR, the RTO adds max(G, 4·RTTVAR) and is floored at `min_rto`.
    Rfc6298 { rttvar: SimDuration },
    /// Linux `tcp_rtt_estimator`: `None` until the first sample.
    Linux(Option<LinuxVariation>),
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<SimDuration>,
    variation: Variation,
    min_rtt: Option<SimDuration>,
    latest: Option<SimDuration>,
    min_rto: SimDuration,
    /// Exponential backoff factor (RFC 6298 §5.5): RTO is doubled per timeout.
    backoff_exponent: u32,
    /// The RTO until the first measurement: 1 s (§2.1), or 3 s after a handshake that gave
    /// no sample (§5.7).
    initial_rto: SimDuration,
    /// [`RttEstimator::rto`], worked out again by every method that changes what it depends
    /// on: the sender reads it on nearly every ACK (to restart the timer) and on timer
    /// events, more often than samples come.
    rto: SimDuration,
}

impl RttEstimator {
    /// `min_rto` is RFC 6298 §2.4's floor on the RTO, or Linux's `tcp_rto_min`, the floor
    /// on its variation term.
    pub fn new(min_rto: SimDuration, estimator: RtoEstimator) -> Self {
        RttEstimator {
            srtt: None,
            variation: match estimator {
                RtoEstimator::Rfc6298 => Variation::Rfc6298 {
                    rttvar: SimDuration::ZERO,
                },
                RtoEstimator::Linux => Variation::Linux(None),
            },
            min_rtt: None,
            latest: None,
            min_rto,
            backoff_exponent: 0,
            initial_rto: INITIAL_RTO,
            rto: INITIAL_RTO,
        }
    }

    /// RFC 6298 §5.7: the RTO before the first measurement is `rto` (3 s when the SYN or
    /// SYN-ACK was retransmitted and gave no sample).
    pub fn set_initial_rto(&mut self, rto: SimDuration) {
        self.initial_rto = rto;
        self.rto = self.compute_rto();
    }

    /// A new RTT measurement R (RFC 6298 §2.2–2.3, α = 1/8, β = 1/4; Linux keeps the same
    /// SRTT and its own variation, which needs the sequence state `seq` to tell round trips
    /// apart). A valid sample also ends the backoff (§5.7: the RTO is recomputed from the
    /// estimator; Linux `tcp_ack_update_rtt` resets `icsk_backoff`).
    pub fn on_sample(&mut self, rtt: SimDuration, seq: SequenceState) {
        self.latest = Some(rtt);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        match (self.srtt, &mut self.variation) {
            (None, Variation::Rfc6298 { rttvar }) => {
                // §2.2: SRTT <- R, RTTVAR <- R/2.
                *rttvar = rtt / 2;
            }
            (Some(srtt), Variation::Rfc6298 { rttvar }) => {
                // §2.3: RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R| (before SRTT moves).
                let deviation = srtt.as_nanos().abs_diff(rtt.as_nanos());
                *rttvar = SimDuration::from_nanos((3 * rttvar.as_nanos() + deviation) / 4);
            }
            (Some(srtt), Variation::Linux(Some(linux))) => {
                linux.update(rtt, srtt, self.min_rto, seq);
            }
            (_, Variation::Linux(linux)) => {
                *linux = Some(LinuxVariation::first(rtt, self.min_rto, seq));
            }
        }
        // §2.2: SRTT <- R; §2.3: SRTT <- 7/8 SRTT + 1/8 R (Linux: `srtt += m`, m = R − SRTT,
        // on SRTT scaled by 8: the same average).
        self.srtt = Some(match self.srtt {
            None => rtt,
            Some(srtt) => SimDuration::from_nanos((7 * srtt.as_nanos() + rtt.as_nanos()) / 8),
        });
        self.backoff_exponent = 0;
        self.rto = self.compute_rto();
    }

    /// Start from an earlier connection's estimates (RFC 9040, temporal sharing, initialisation of a new TCB:
    /// new_RTT = old_RTT, new_RTTVAR = old_RTTVAR) instead of RFC 6298 §2.1's "no sample
    /// yet"; the connection's own samples then update them as §2.3 says.
    /// With Linux's estimator the variation starts as `LinuxVariation::seeded` says.
    pub fn seed(&mut self, srtt: SimDuration, rttvar: SimDuration) {
        self.srtt = Some(srtt);
        self.variation = match self.variation {
            Variation::Rfc6298 { .. } => Variation::Rfc6298 { rttvar },
            Variation::Linux(_) => {
                Variation::Linux(Some(LinuxVariation::seeded(rttvar, self.min_rto)))
            }
        };
        self.rto = self.compute_rto();
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt
    }

    /// RTTVAR on RFC 6298's scale (Linux's rttvar, which stands for 4·RTTVAR, divided by 4).
    pub fn rttvar(&self) -> SimDuration {
        match &self.variation {
            Variation::Rfc6298 { rttvar } => *rttvar,
            Variation::Linux(linux) => linux
                .as_ref()
                .map_or(SimDuration::ZERO, |linux| linux.rttvar() / 4),
        }
    }

    /// Linux's variation state (`mdev`, `mdev_max`, `rttvar`) once it has a sample.
    pub fn linux_variation(&self) -> Option<&LinuxVariation> {
        match &self.variation {
            Variation::Linux(linux) => linux.as_ref(),
            Variation::Rfc6298 { .. } => None,
        }
    }

    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt
    }

    pub fn latest(&self) -> Option<SimDuration> {
        self.latest
    }

    /// RFC 6298 §2.2–2.4: RTO = SRTT + max(G, 4·RTTVAR), at least the minimum RTO (Linux
    /// uses 200 ms where the RFC says 1 s), then doubled per backoff, at most 60 s. Linux
    /// (`__tcp_set_rto`, `tcp_bound_rto`, `inet_csk_rto_backoff`): RTO = SRTT + rttvar, whose
    /// rttvar is already at least `tcp_rto_min`, doubled per backoff, at most 120 s. (The
    /// kernel rounds the RTO up to whole jiffies; the model keeps nanoseconds.)
    #[inline]
    pub fn rto(&self) -> SimDuration {
        debug_assert_eq!(self.rto, self.compute_rto(), "the RTO kept in step");
        self.rto
    }

    fn compute_rto(&self) -> SimDuration {
        let base = match (self.srtt, &self.variation) {
            (None, _) => self.initial_rto,
            (Some(srtt), Variation::Rfc6298 { rttvar }) => {
                (srtt + CLOCK_GRANULARITY.max(*rttvar * 4)).max(self.min_rto)
            }
            (Some(srtt), Variation::Linux(linux)) => {
                srtt + linux.as_ref().map_or(self.min_rto, LinuxVariation::rttvar)
            }
        };
        base.saturating_mul(1u64 << self.backoff_exponent.min(30))
            .min(self.max_rto())
    }

    /// The RTO's ceiling: RFC 6298 §2.5's 60 s (at least), Linux's `TCP_RTO_MAX`.
    fn max_rto(&self) -> SimDuration {
        match self.variation {
            Variation::Rfc6298 { .. } => MAX_RTO,
            Variation::Linux(_) => LINUX_MAX_RTO,
        }
    }

    /// RFC 6298 §5.5: back the timer off after it expired.
    pub fn back_off(&mut self) {
        if self.rto() < self.max_rto() {
            self.backoff_exponent += 1;
            self.rto = self.compute_rto();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    #[test]
    fn first_and_later_samples_follow_rfc6298() {
        let mut e = RttEstimator::new(ms(200), RtoEstimator::Rfc6298);
        assert_eq!(e.rto(), ms(1000));
        e.on_sample(ms(100), SequenceState::default());
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
        assert_eq!(
            (e.srtt(), e.rttvar(), e.rto()),
            (Some(ms(100)), ms(50), ms(300))
        );
        e.on_sample(ms(60), SequenceState::default());
        // RTTVAR = 3/4*50 + 1/4*|100-60| = 37.5 + 10 = 47.5; SRTT = 7/8*100 + 1/8*60 = 95.
        assert_eq!(e.rttvar(), SimDuration::from_micros(47_500));
        assert_eq!(e.srtt(), Some(ms(95)));
        assert_eq!(e.rto(), ms(95 + 190));
        assert_eq!(e.min_rtt(), Some(ms(60)));
    }

    #[test]
    fn min_rto_and_backoff() {
        let mut e = RttEstimator::new(ms(200), RtoEstimator::Rfc6298);
        for _ in 0..50 {
            e.on_sample(ms(10), SequenceState::default());
        }
        // RTTVAR has decayed to ~0: RTO = max(200 ms, 10 ms + G).
        assert_eq!(e.rto(), ms(200));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(800));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), MAX_RTO);
        e.on_sample(ms(10), SequenceState::default());
        assert_eq!(e.rto(), ms(200));
    }

    fn round(n: u64) -> SequenceState {
        // One sample per round trip: snd_una passes the snd_nxt of the previous sample.
        SequenceState {
            snd_una: n,
            snd_nxt: n,
        }
    }

    #[test]
    fn linux_rto_is_srtt_plus_rttvar_three_rtts_at_first() {
        let mut e = RttEstimator::new(ms(200), RtoEstimator::Linux);
        assert_eq!(e.rto(), ms(1000), "TCP_TIMEOUT_INIT");
        e.on_sample(ms(100), round(0));
        // SRTT 100, rttvar = max(2·100, 200) = 200: RTO = 300 ms (srtt + rttvar, not 4·).
        assert_eq!((e.srtt(), e.rto()), (Some(ms(100)), ms(300)));
        // RTTVAR on RFC 6298's scale for sharing's cache: 200/4.
        assert_eq!(e.rttvar(), ms(50));
        let mut e = RttEstimator::new(ms(200), RtoEstimator::Linux);
        e.on_sample(ms(600), round(0));
        assert_eq!(e.rto(), ms(1800));
    }

    #[test]
    fn on_a_steady_600_ms_path_linux_keeps_rto_min_above_srtt_where_rfc6298_keeps_g() {
        let (mut linux, mut rfc) = (
            RttEstimator::new(ms(200), RtoEstimator::Linux),
            RttEstimator::new(ms(200), RtoEstimator::Rfc6298),
        );
        for n in 0..200 {
            linux.on_sample(ms(600), round(n));
            rfc.on_sample(ms(600), round(n));
        }
        // Linux: SRTT 600 + rttvar, which decays to rto_min (200 ms) and stops there (within
        // the 3 ns its truncating quarter-steps leave).
        assert!(linux.rto() >= ms(800) && linux.rto() < ms(800) + SimDuration::from_nanos(4));
        // RFC 6298: RTTVAR decays by 3/4 per sample toward 0 (300·0.75^199 ms truncates to
        // 0 ns), so RTO = SRTT + max(G, 4·RTTVAR) = 600 + 1 ms, above
        // min_rto.
        assert_eq!(rfc.rto(), ms(601));
    }

    #[test]
    fn linux_backoff_doubles_up_to_120_s() {
        let mut e = RttEstimator::new(ms(200), RtoEstimator::Linux);
        e.on_sample(ms(100), round(0));
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), ms(1200), "300 ms << 2");
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), LINUX_MAX_RTO);
        e.on_sample(ms(100), round(1));
        // The sample ends the backoff; SRTT 100, err 0: mdev = 200 − 50 = 150; the round
        // trip ends, mdev_max (200) = rttvar: rttvar stays 200. RTO = 300 ms.
        assert_eq!(e.rto(), ms(300));
    }

    #[test]
    fn a_seeded_linux_estimator_floors_the_variation_at_rto_min() {
        let mut e = RttEstimator::new(ms(200), RtoEstimator::Linux);
        // 4·10 ms = 40 ms < 200 ms.
        e.seed(ms(600), ms(10));
        assert_eq!(e.rto(), ms(800));
    }
}
