//! Temporal sharing (RFC 9040, "Temporal Sharing"): when a connection closes, its RTT, RTTVAR,
//! ssthresh and cwnd are cached for its host pair (the group); a connection that opens
//! later starts from them instead of RFC 6298's "no sample yet" and the initial window.
//!
//! The merge function of the cache update is left open by RFC 9040 ("merge(curr, old)"):
//! here the latest closed connection replaces the entry. Freshness: an entry older than
//! `temporal_lifetime` (default one hour, Linux's `TCP_METRICS_TIMEOUT` for its TCP metrics
//! cache) is not used. Decay of the cached cwnd over the time since the close: RFC 9040
//! points at congestion window validation for it; as RFC 2861 §3 / RFC 7661 do for an idle
//! connection, the window halves for every RTO (of the cached RTT) that has passed, never
//! below the initial window, and ssthresh is first raised to at least 3/4 of the cached cwnd
//! so that slow start can regrow toward it.

use cclab_cc::{SimDuration, SimTime, UNLIMITED};

/// RFC 6298 §2: RTO = SRTT + max(G, 4·RTTVAR), at least the minimum RTO; G taken as 0.
fn rto(srtt: SimDuration, rttvar: SimDuration, min_rto: SimDuration) -> SimDuration {
    (srtt + rttvar * 4).max(min_rto)
}

/// A closed connection's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CachedTcb {
    pub srtt: SimDuration,
    pub rttvar: SimDuration,
    /// [`UNLIMITED`] if the connection never set one.
    pub ssthresh: u64,
    pub cwnd: u64,
    pub closed_at: SimTime,
}

/// What a new connection starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InitialTcb {
    pub srtt: SimDuration,
    pub rttvar: SimDuration,
    pub cwnd: u64,
    pub ssthresh: u64,
}

/// One host pair's cache.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemporalCache {
    pub entry: Option<CachedTcb>,
}

impl TemporalCache {
    /// RFC 9040's cache update at close: the closing connection's state replaces the
    /// entry. A connection without an RTT sample has nothing worth caching.
    pub fn on_close(&mut self, tcb: CachedTcb) {
        self.entry = Some(tcb);
    }

    /// RFC 9040's initialisation of a new TCB from a fresh entry, with the cwnd decayed
    /// over the time since the close; `None` without a fresh entry (the connection starts as
    /// usual).
    pub fn initial(
        &self,
        now: SimTime,
        lifetime: SimDuration,
        initial_window: u64,
        min_rto: SimDuration,
    ) -> Option<InitialTcb> {
        let tcb = self.entry?;
        let age = now.saturating_since(tcb.closed_at);
        if age >= lifetime {
            return None;
        }
        let rto = rto(tcb.srtt, tcb.rttvar, min_rto);
        let halvings = (age.as_nanos() / rto.as_nanos().max(1)).min(63) as u32;
        let decayed = (tcb.cwnd >> halvings).max(initial_window);
        let ssthresh = if decayed < tcb.cwnd {
            // RFC 2861 §3: ssthresh = max(ssthresh, 3/4 cwnd) before cwnd is reduced.
            match tcb.ssthresh {
                UNLIMITED => UNLIMITED,
                s => s.max(tcb.cwnd / 4 * 3),
            }
        } else {
            tcb.ssthresh
        };
        Some(InitialTcb {
            srtt: tcb.srtt,
            rttvar: tcb.rttvar,
            cwnd: decayed,
            ssthresh,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(n: u64) -> SimDuration {
        SimDuration::from_millis(n)
    }

    fn at(seconds: f64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs_f64(seconds)
    }

    /// A connection closed at t = 10 s with SRTT 100 ms, RTTVAR 25 ms (so RTO = 100 + 4·25 =
    /// 200 ms), ssthresh 40 segments and cwnd 64 segments.
    fn cache() -> TemporalCache {
        let mut cache = TemporalCache::default();
        cache.on_close(CachedTcb {
            srtt: ms(100),
            rttvar: ms(25),
            ssthresh: 40 * MSS,
            cwnd: 64 * MSS,
            closed_at: at(10.0),
        });
        cache
    }

    #[test]
    fn an_empty_cache_gives_nothing() {
        let cache = TemporalCache::default();
        assert_eq!(
            cache.initial(at(1.0), ms(3_600_000), 10 * MSS, ms(200)),
            None
        );
    }

    #[test]
    fn a_connection_opened_at_once_takes_the_cached_state_unchanged() {
        // Less than one RTO (200 ms) after the close: no halving (RFC 9040's initialisation:
        // new_RTT = old_RTT, new_RTTVAR = old_RTTVAR, new_ssthresh = old_ssthresh,
        // new_sendcwnd = old_sendcwnd).
        let init = cache()
            .initial(at(10.15), ms(3_600_000), 10 * MSS, ms(200))
            .expect("fresh");
        assert_eq!(
            init,
            InitialTcb {
                srtt: ms(100),
                rttvar: ms(25),
                cwnd: 64 * MSS,
                ssthresh: 40 * MSS,
            }
        );
    }

    #[test]
    fn the_cached_window_halves_per_rto_since_the_close_down_to_the_initial_window() {
        // 0.45 s after the close = 2 whole RTOs of 200 ms: 64 → 16 segments; ssthresh raised
        // to max(40, 3/4 · 64 = 48) segments (RFC 2861 §3).
        let init = cache()
            .initial(at(10.45), ms(3_600_000), 10 * MSS, ms(200))
            .expect("fresh");
        assert_eq!(init.cwnd, 16 * MSS);
        assert_eq!(init.ssthresh, 48 * MSS);
        // 3 RTOs: 8 segments would be below the initial window of 10: 10.
        let init = cache()
            .initial(at(10.65), ms(3_600_000), 10 * MSS, ms(200))
            .expect("fresh");
        assert_eq!(init.cwnd, 10 * MSS);
    }

    #[test]
    fn the_cache_is_used_only_while_fresh() {
        // Lifetime 5 s: at 14.9 s (4.9 s old) it is used, at 15 s it is not.
        assert!(
            cache()
                .initial(at(14.9), ms(5000), 10 * MSS, ms(200))
                .is_some()
        );
        assert_eq!(cache().initial(at(15.0), ms(5000), 10 * MSS, ms(200)), None);
    }

    #[test]
    fn the_latest_close_replaces_the_entry() {
        let mut cache = cache();
        let later = CachedTcb {
            srtt: ms(80),
            rttvar: ms(10),
            ssthresh: UNLIMITED,
            cwnd: 20 * MSS,
            closed_at: at(11.0),
        };
        cache.on_close(later);
        assert_eq!(cache.entry, Some(later));
    }
}
