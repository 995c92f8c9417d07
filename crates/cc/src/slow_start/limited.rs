//! Limited Slow-Start: S. Floyd, RFC 3742, "Limited Slow-Start for TCP with Large Congestion
//! Windows", 2004.
//!
//! RFC 3742 §2, for each arriving ACK in slow start (cwnd and max_ssthresh in bytes):
//!
//! ```text
//! if cwnd <= max_ssthresh:  cwnd += MSS
//! else:                     K = int(cwnd / (0.5 max_ssthresh));  cwnd += int(MSS / K)
//! ```
//!
//! so above max_ssthresh a window's worth of ACKs adds at most max_ssthresh/2 segments per
//! RTT instead of doubling cwnd. The RFC counts ACKs of one segment each; here the rule runs
//! once per acknowledged segment (`bytes_acked / MSS`, remainder carried to the next ACK), so
//! delayed ACKs give the same growth per RTT. K is recomputed for every segment, as it would
//! be for every ACK.

use super::segments::SegmentCounter;
use super::{SlowStart, SlowStartInfo, Window};
use crate::controller::{Ack, CcConfig};
use crate::params::ParamSpec;

const PARAMS: &[ParamSpec] = &[ParamSpec::integer("max_ssthresh", 100, 1, 1_000_000)
    .unit("segments")
    .doc("RFC 3742 max_ssthresh: above it cwnd grows by at most max_ssthresh/2 segments per RTT")];

pub const INFO: SlowStartInfo = SlowStartInfo {
    name: "limited",
    summary: "slow start up to max_ssthresh, then +MSS/K per ACKed segment with \
              K = int(cwnd/(max_ssthresh/2)): at most max_ssthresh/2 segments per RTT",
    reference: "RFC 3742 §2 (Floyd, Limited Slow-Start, max_ssthresh = 100 MSS)",
    params: PARAMS,
    build: |config, params| {
        Box::new(LimitedSlowStart::new(
            config,
            params.number("max_ssthresh") as u64,
        ))
    },
};

#[derive(Clone, Debug)]
pub struct LimitedSlowStart {
    /// max_ssthresh in bytes.
    max_ssthresh: u64,
    segments: SegmentCounter,
}

impl LimitedSlowStart {
    /// `max_ssthresh_segments` in segments of `config.mss` (RFC 3742 suggests 100).
    pub fn new(config: &CcConfig, max_ssthresh_segments: u64) -> Self {
        LimitedSlowStart {
            max_ssthresh: max_ssthresh_segments.max(1) * config.mss,
            segments: SegmentCounter::new(),
        }
    }
}

impl SlowStart for LimitedSlowStart {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn on_ack(&mut self, window: &mut Window, ack: &Ack) {
        for _ in 0..self.segments.segments(ack.bytes_acked, window.mss) {
            if window.cwnd >= window.ssthresh {
                break;
            }
            let increment = if window.cwnd <= self.max_ssthresh {
                window.mss
            } else {
                // K = int(cwnd / (0.5 max_ssthresh)) = int(2 cwnd / max_ssthresh) ≥ 2 here.
                let k = 2 * window.cwnd / self.max_ssthresh;
                window.mss / k
            };
            // Stop at ssthresh, as standard slow start does.
            window.cwnd = (window.cwnd + increment).min(window.ssthresh);
        }
    }

    fn restart(&mut self) {
        self.segments.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::UNLIMITED;
    use crate::params::{ParamInput, Params};
    use crate::test_support::ack;

    const MSS: u64 = 1000;

    fn limited() -> LimitedSlowStart {
        LimitedSlowStart::new(&CcConfig::new(MSS), 100)
    }

    fn window(cwnd: u64) -> Window {
        Window {
            cwnd,
            ssthresh: UNLIMITED,
            mss: MSS,
        }
    }

    #[test]
    fn standard_growth_up_to_and_at_max_ssthresh() {
        let mut ss = limited();
        let mut w = window(50 * MSS);
        ss.on_ack(&mut w, &ack(MSS));
        assert_eq!(w.cwnd, 51 * MSS);
        // A delayed ACK of two segments: the rule runs twice, +2 MSS.
        ss.on_ack(&mut w, &ack(2 * MSS));
        assert_eq!(w.cwnd, 53 * MSS);
        // cwnd <= max_ssthresh still takes the full segment (RFC 3742 uses "<=").
        let mut w = window(100 * MSS);
        ss.on_ack(&mut w, &ack(MSS));
        assert_eq!(w.cwnd, 101 * MSS);
    }

    #[test]
    fn above_max_ssthresh_each_segment_adds_mss_over_k() {
        let mut ss = limited();
        // cwnd = 101 MSS: K = int(101000 / 50000) = 2, + int(1000/2) = 500 bytes.
        let mut w = window(101 * MSS);
        ss.on_ack(&mut w, &ack(MSS));
        assert_eq!(w.cwnd, 101_500);
        // cwnd = 150 MSS: K = int(150000 / 50000) = 3, + int(1000/3) = 333 bytes.
        let mut w = window(150 * MSS);
        ss.on_ack(&mut w, &ack(MSS));
        assert_eq!(w.cwnd, 150_333);
        // A delayed ACK: two segments, K = 3 for both: + 333 + 333.
        ss.on_ack(&mut w, &ack(2 * MSS));
        assert_eq!(w.cwnd, 150_999);
        // cwnd = 1000 MSS: K = 20, + 50 bytes.
        let mut w = window(1000 * MSS);
        ss.on_ack(&mut w, &ack(MSS));
        assert_eq!(w.cwnd, 1_000_050);
    }

    #[test]
    fn about_half_max_ssthresh_per_rtt_with_or_without_delayed_acks() {
        // cwnd = 200 MSS: one RTT acknowledges 200 segments. K = int(cwnd/50 MSS) = 4 until
        // cwnd reaches 250 MSS, each segment adds int(1000/4) = 250 bytes:
        // 200 × 250 = 50 000 bytes = 50 MSS = max_ssthresh/2, landing exactly on 250 MSS.
        for segments_per_ack in [1, 2] {
            let mut ss = limited();
            let mut w = window(200 * MSS);
            for _ in 0..200 / segments_per_ack {
                ss.on_ack(&mut w, &ack(segments_per_ack * MSS));
            }
            assert_eq!(w.cwnd, 250 * MSS, "{segments_per_ack} segments per ACK");
        }
        // cwnd = 300 MSS: K = 6 below 350 MSS, int(1000/6) = 166 bytes per segment:
        // 300 × 166 = 49 800 bytes (300 000 + 49 800 < 350 000, so K stays 6): 49.8 MSS.
        let mut ss = limited();
        let mut w = window(300 * MSS);
        for _ in 0..300 {
            ss.on_ack(&mut w, &ack(MSS));
        }
        assert_eq!(w.cwnd, 349_800);
    }

    #[test]
    fn partial_segments_are_carried_and_growth_stops_at_ssthresh() {
        let mut ss = limited();
        let mut w = window(10 * MSS);
        ss.on_ack(&mut w, &ack(MSS / 2));
        assert_eq!(w.cwnd, 10 * MSS);
        ss.on_ack(&mut w, &ack(MSS / 2));
        assert_eq!(w.cwnd, 11 * MSS);
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: 11 * MSS + 500,
            mss: MSS,
        };
        ss.on_ack(&mut w, &ack(5 * MSS));
        assert_eq!(w.cwnd, 11 * MSS + 500);
    }

    #[test]
    fn max_ssthresh_is_the_first_parameter_in_segments() {
        assert_eq!(PARAMS[0].name, "max_ssthresh");
        let params =
            Params::from_inputs(PARAMS, [("max_ssthresh", &ParamInput::Number(10.0))]).unwrap();
        let mut ss = (INFO.build)(&CcConfig::new(MSS), &params);
        // max_ssthresh = 10 MSS; at cwnd 20 MSS: K = int(20/5) = 4, + 250 bytes.
        let mut w = window(20 * MSS);
        ss.on_ack(&mut w, &ack(MSS));
        assert_eq!(w.cwnd, 20_250);
    }

    #[test]
    fn registered_and_drives_reno() {
        let info = crate::registry::find_slow_start(INFO.name).unwrap();
        assert_eq!(info.name, INFO.name);
        let config = CcConfig::new(1448);
        let reno = crate::registry::find_algorithm("reno").unwrap();
        let mut cc = crate::registry::build(
            reno,
            &Params::defaults(reno.params),
            info,
            &Params::defaults(info.params),
            &config,
        );
        // IW 10 segments, no ssthresh yet: a delayed ACK grows cwnd by two segments.
        cc.on_ack(&ack(2 * 1448));
        assert_eq!(cc.cwnd(), 12 * 1448);
    }
}
