//! Standard slow start: RFC 5681 §3.1 with Appropriate Byte Counting, RFC 3465 §2.2.

use super::{SlowStart, SlowStartInfo, Window};
use crate::controller::{Ack, CcConfig};
use crate::params::ParamSpec;

const PARAMS: &[ParamSpec] = &[ParamSpec::integer("abc_limit", 2, 1, 64)
    .unit("segments")
    .doc("RFC 3465 L: at most L*SMSS of growth per ACK (2 lets delayed ACKs double cwnd per RTT)")];

pub const INFO: SlowStartInfo = SlowStartInfo {
    name: "standard",
    summary: "exponential growth, cwnd += min(bytes_acked, L*SMSS) per ACK, capped at ssthresh",
    reference: "RFC 5681 §3.1; RFC 3465 §2.2 (ABC, L = 2)",
    params: PARAMS,
    build: |config, params| {
        Box::new(StandardSlowStart::with_abc_limit(
            config,
            params.number("abc_limit") as u64,
        ))
    },
};

#[derive(Clone, Debug)]
pub struct StandardSlowStart {
    abc_limit_bytes: u64,
}

impl StandardSlowStart {
    /// RFC 3465 with L = 2.
    pub fn new(config: &CcConfig) -> Self {
        Self::with_abc_limit(config, 2)
    }

    pub fn with_abc_limit(config: &CcConfig, segments: u64) -> Self {
        StandardSlowStart {
            abc_limit_bytes: segments * config.mss,
        }
    }
}

impl SlowStart for StandardSlowStart {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, window: &mut Window, ack: &Ack) {
        // RFC 3465 §2.2: cwnd += min(N, L*SMSS). Like Linux (tcp_slow_start) we stop at
        // ssthresh, so the first congestion-avoidance round starts exactly there.
        let growth = ack.bytes_acked.min(self.abc_limit_bytes);
        window.cwnd = (window.cwnd + growth).min(window.ssthresh.max(window.cwnd));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::ack;

    #[test]
    fn grows_by_bytes_acked_up_to_two_segments() {
        let config = CcConfig::new(1000);
        let mut ss = StandardSlowStart::new(&config);
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: 100_000,
            mss: 1000,
        };
        ss.on_ack(&mut w, &ack(1000));
        assert_eq!(w.cwnd, 11_000);
        // A delayed ACK covering two segments: + 2 SMSS (L = 2).
        ss.on_ack(&mut w, &ack(2000));
        assert_eq!(w.cwnd, 13_000);
        // A stretch ACK of five segments is limited to L*SMSS = 2000.
        ss.on_ack(&mut w, &ack(5000));
        assert_eq!(w.cwnd, 15_000);
    }

    #[test]
    fn stops_at_ssthresh() {
        let config = CcConfig::new(1000);
        let mut ss = StandardSlowStart::new(&config);
        let mut w = Window {
            cwnd: 9_500,
            ssthresh: 10_000,
            mss: 1000,
        };
        ss.on_ack(&mut w, &ack(2000));
        assert_eq!(w.cwnd, 10_000);
    }

    #[test]
    fn doubles_per_round_with_delayed_acks() {
        // One round: cwnd/MSS segments, one ACK per two segments, +2 MSS each => doubling.
        let config = CcConfig::new(1000);
        let mut ss = StandardSlowStart::new(&config);
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        for _ in 0..5 {
            ss.on_ack(&mut w, &ack(2000));
        }
        assert_eq!(w.cwnd, 20_000);
    }
}
