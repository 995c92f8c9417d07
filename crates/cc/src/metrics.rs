//! What a controller reports about itself: [`ControllerMetrics`], a plain view of its model
//! (bandwidth estimate, minimum RTT, gains, window bounds…), and [`SlowStartExit`], why a slow
//! start ended. Traces and tests read these instead of reaching into a controller's fields.
//!
//! The view is `Copy` and built on demand without allocating; a controller fills in the
//! fields it has state for and leaves the rest `None`. The simulator reads it only when
//! something happens (a mode change), not on every ACK.

use crate::time::SimDuration;

/// Why a slow start (or a model-based start-up) ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlowStartExit {
    /// cwnd grew to ssthresh (a configured initial ssthresh, or one set by an earlier
    /// reduction).
    SsthreshReached,
    /// A loss detected by duplicate ACKs or SACK lowered ssthresh (fast recovery began).
    Loss,
    /// CE marks lowered ssthresh (the sender's RFC 3168 response).
    Ecn,
    /// A retransmission timeout.
    Timeout,
    /// HyStart: an ACK train longer than minRTT/2.
    HystartAckTrain,
    /// HyStart: the round's minimum RTT rose by more than η.
    HystartDelay,
    /// HyStart++ (RFC 9406): Conservative Slow Start ran its CSS_ROUNDS rounds.
    HystartPlusPlusCss,
    /// cwnd reached Hoe's packet-pair estimate of the BDP, which replaced ssthresh.
    PacketPair,
    /// Smooth-start's lag-point phase brought cwnd to ssthresh.
    SmoothStart,
    /// BBR: the bandwidth estimate stopped growing by 25 % for three rounds.
    FullBandwidth,
    /// BBR v3: too much loss in a round of start-up (draft §5.3.1.3).
    StartupHighLoss,
    /// BBR v3: too high a CE-marked share for rounds of start-up (Linux).
    StartupHighEcn,
    /// Vegas: the backlog estimate Δ exceeded γ.
    VegasGamma,
    /// Copa: the sending rate exceeded the target rate 1/(δ·dq).
    CopaTarget,
    /// PCC Vivace: a doubled rate scored a lower utility.
    UtilityFell,
}

impl SlowStartExit {
    /// The label written to `events.csv`.
    pub fn name(self) -> &'static str {
        match self {
            SlowStartExit::SsthreshReached => "ssthresh_reached",
            SlowStartExit::Loss => "loss",
            SlowStartExit::Ecn => "ecn",
            SlowStartExit::Timeout => "timeout",
            SlowStartExit::HystartAckTrain => "hystart_ack_train",
            SlowStartExit::HystartDelay => "hystart_delay",
            SlowStartExit::HystartPlusPlusCss => "hystart++_css",
            SlowStartExit::PacketPair => "packet_pair",
            SlowStartExit::SmoothStart => "smooth_start",
            SlowStartExit::FullBandwidth => "full_bandwidth",
            SlowStartExit::StartupHighLoss => "startup_high_loss",
            SlowStartExit::StartupHighEcn => "startup_high_ecn",
            SlowStartExit::VegasGamma => "vegas_gamma",
            SlowStartExit::CopaTarget => "copa_target",
            SlowStartExit::UtilityFell => "utility_fell",
        }
    }
}

/// Mode labels ([`crate::CongestionControl::mode`]) that mean "slow start": `slow_start` for
/// window-based controllers, `startup` for BBR. Leaving one of them is a slow-start exit.
pub fn is_slow_start_mode(mode: &str) -> bool {
    mode == "slow_start" || mode == "startup"
}

/// A controller's model as it stands, field by field; `None` where the controller has no
/// such state. Units: bit/s, bytes, [`SimDuration`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ControllerMetrics {
    /// Bottleneck bandwidth estimate in bit/s of payload: BBR's BtlBw / BBR v3's max_bw,
    /// Westwood+'s BWE.
    pub bandwidth_bps: Option<f64>,
    /// The controller's own estimate of the path's minimum (propagation) RTT: BBR's
    /// RTprop / min_rtt, Vegas's BaseRTT, Westwood+'s RTT_min.
    pub min_rtt: Option<SimDuration>,
    /// BBR pacing gain and cwnd gain of the current state.
    pub pacing_gain: Option<f64>,
    pub cwnd_gain: Option<f64>,
    /// BBR v3's long-term and short-term bounds on inflight (inflight_hi, inflight_lo),
    /// in bytes; `None` while unset.
    pub inflight_hi: Option<u64>,
    pub inflight_lo: Option<u64>,
    /// CUBIC's W_max (the window before the last reduction), bytes.
    pub w_max: Option<u64>,
    /// CUBIC's K in seconds: the time from the epoch start until the cubic reaches W_max
    /// (negative when the epoch started above W_max).
    pub cubic_k_s: Option<f64>,
    /// Adaptive AIMD: the additive increase of the current congestion-avoidance law,
    /// segments per RTT (Illinois α).
    pub increase_per_rtt: Option<f64>,
    /// Adaptive AIMD: the fraction of cwnd the next loss takes away, cwnd ← (1 − d)·cwnd
    /// (Illinois β; H-TCP 1 − β).
    pub decrease_fraction: Option<f64>,
    /// Vegas family: Δ (diff), the segments the flow is estimated to keep queued, as of
    /// the last finished round (Veno's N, YeAH's Q).
    pub backlog_segments: Option<f64>,
    /// The smoothed CE-marked share of delivered data, in [0, 1] (BBR v3's and DCTCP's α).
    pub ecn_alpha: Option<f64>,
    /// Why the latest slow start ended, when the controller or its slow-start part decided
    /// it on an ACK. Meaningful right after the ACK that left slow start (the simulator reads
    /// it then); exits by loss, ECN or timeout are known to the sender.
    pub slow_start_exit: Option<SlowStartExit>,
}

impl ControllerMetrics {
    /// The view of a controller whose only reported state is its slow-start part's.
    pub fn with_slow_start(slow_start: &dyn crate::slow_start::SlowStart) -> Self {
        ControllerMetrics {
            slow_start_exit: Some(slow_start.exit_cause()),
            ..ControllerMetrics::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_modes_are_the_two_start_up_labels() {
        assert!(is_slow_start_mode("slow_start"));
        assert!(is_slow_start_mode("startup"));
        for other in ["congestion_avoidance", "drain", "probe_bw", "concave", ""] {
            assert!(!is_slow_start_mode(other), "{other}");
        }
    }

    #[test]
    fn exit_causes_have_distinct_labels() {
        let all = [
            SlowStartExit::SsthreshReached,
            SlowStartExit::Loss,
            SlowStartExit::Ecn,
            SlowStartExit::Timeout,
            SlowStartExit::HystartAckTrain,
            SlowStartExit::HystartDelay,
            SlowStartExit::HystartPlusPlusCss,
            SlowStartExit::PacketPair,
            SlowStartExit::SmoothStart,
            SlowStartExit::FullBandwidth,
            SlowStartExit::StartupHighLoss,
            SlowStartExit::StartupHighEcn,
            SlowStartExit::VegasGamma,
            SlowStartExit::CopaTarget,
            SlowStartExit::UtilityFell,
        ];
        let names: std::collections::BTreeSet<_> = all.iter().map(|e| e.name()).collect();
        assert_eq!(names.len(), all.len());
    }
}
