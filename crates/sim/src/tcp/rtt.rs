//! RTT estimation and the retransmission timeout, RFC 6298.

use cclab_cc::SimDuration;

/// RFC 6298 §2.1: RTO before any measurement.
const INITIAL_RTO: SimDuration = SimDuration::from_secs(1);
/// RFC 6298 §2.5 allows a maximum of at least 60 s.
const MAX_RTO: SimDuration = SimDuration::from_secs(60);
/// Clock granularity G of RFC 6298 §2.2–2.3 (Linux measures in microseconds, but its RTO
/// arithmetic works in jiffies; 1 ms is the common case).
const CLOCK_GRANULARITY: SimDuration = SimDuration::from_millis(1);

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<SimDuration>,
    rttvar: SimDuration,
    min_rtt: Option<SimDuration>,
    latest: Option<SimDuration>,
    min_rto: SimDuration,
    /// Exponential backoff factor (RFC 6298 §5.5): RTO is doubled per timeout.
    backoff_exponent: u32,
    /// The RTO until the first measurement: 1 s (§2.1), or 3 s after a handshake that gave
    /// no sample (§5.7).
    initial_rto: SimDuration,
}

impl RttEstimator {
    pub fn new(min_rto: SimDuration) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: SimDuration::ZERO,
            min_rtt: None,
            latest: None,
            min_rto,
            backoff_exponent: 0,
            initial_rto: INITIAL_RTO,
        }
    }

    /// RFC 6298 §5.7: the RTO before the first measurement is `rto` (3 s when the SYN or
    /// SYN-ACK was retransmitted and gave no sample).
    pub fn set_initial_rto(&mut self, rto: SimDuration) {
        self.initial_rto = rto;
    }

    /// A new RTT measurement R (RFC 6298 §2.2–2.3, α = 1/8, β = 1/4). A valid sample also
    /// ends the backoff (§5.7: the RTO is recomputed from the estimator).
    pub fn on_sample(&mut self, rtt: SimDuration) {
        self.latest = Some(rtt);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        match self.srtt {
            None => {
                // §2.2: SRTT <- R, RTTVAR <- R/2.
                self.srtt = Some(rtt);
                self.rttvar = rtt / 2;
            }
            Some(srtt) => {
                // §2.3: RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R|; SRTT <- 7/8 SRTT + 1/8 R.
                let deviation = srtt.as_nanos().abs_diff(rtt.as_nanos());
                self.rttvar = SimDuration::from_nanos((3 * self.rttvar.as_nanos() + deviation) / 4);
                self.srtt = Some(SimDuration::from_nanos(
                    (7 * srtt.as_nanos() + rtt.as_nanos()) / 8,
                ));
            }
        }
        self.backoff_exponent = 0;
    }

    /// Start from an earlier connection's estimates (RFC 9040, temporal sharing, initialisation of a new TCB:
    /// new_RTT = old_RTT, new_RTTVAR = old_RTTVAR) instead of RFC 6298 §2.1's "no sample
    /// yet"; the connection's own samples then update them as §2.3 says.
    pub fn seed(&mut self, srtt: SimDuration, rttvar: SimDuration) {
        self.srtt = Some(srtt);
        self.rttvar = rttvar;
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt
    }

    pub fn rttvar(&self) -> SimDuration {
        self.rttvar
    }

    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.min_rtt
    }

    pub fn latest(&self) -> Option<SimDuration> {
        self.latest
    }

    /// RFC 6298 §2.2–2.4: RTO = SRTT + max(G, 4·RTTVAR), at least the minimum RTO (Linux
    /// uses 200 ms where the RFC says 1 s), then doubled per backoff, at most 60 s.
    pub fn rto(&self) -> SimDuration {
        let base = match self.srtt {
            None => self.initial_rto,
            Some(srtt) => (srtt + CLOCK_GRANULARITY.max(self.rttvar * 4)).max(self.min_rto),
        };
        base.saturating_mul(1u64 << self.backoff_exponent.min(30))
            .min(MAX_RTO)
    }

    /// RFC 6298 §5.5: back the timer off after it expired.
    pub fn back_off(&mut self) {
        if self.rto() < MAX_RTO {
            self.backoff_exponent += 1;
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
        let mut e = RttEstimator::new(ms(200));
        assert_eq!(e.rto(), ms(1000));
        e.on_sample(ms(100));
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
        assert_eq!(
            (e.srtt(), e.rttvar(), e.rto()),
            (Some(ms(100)), ms(50), ms(300))
        );
        e.on_sample(ms(60));
        // RTTVAR = 3/4*50 + 1/4*|100-60| = 37.5 + 10 = 47.5; SRTT = 7/8*100 + 1/8*60 = 95.
        assert_eq!(e.rttvar(), SimDuration::from_micros(47_500));
        assert_eq!(e.srtt(), Some(ms(95)));
        assert_eq!(e.rto(), ms(95 + 190));
        assert_eq!(e.min_rtt(), Some(ms(60)));
    }

    #[test]
    fn min_rto_and_backoff() {
        let mut e = RttEstimator::new(ms(200));
        for _ in 0..50 {
            e.on_sample(ms(10));
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
        e.on_sample(ms(10));
        assert_eq!(e.rto(), ms(200));
    }
}
