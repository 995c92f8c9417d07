//! The XCP sender: D. Katabi, M. Handley, C. Rohrs, "Congestion Control for High
//! Bandwidth-Delay Product Networks", SIGCOMM 2002, §3.1–3.2.
//!
//! The window follows the routers: every data segment carries the sender's cwnd and RTT and
//! asks for a window change (H_feedback); each XCP router on the path (`queue = "xcp"`) lowers
//! the request to its share of the aggregate change it wants (the efficiency and fairness
//! controllers, §3.5, in the simulator's `net/qdisc/xcp.rs`); the receiver echoes it and on
//! every ACK `cwnd = max(cwnd + H_feedback, s)` (§3.2). The sender asks for as much as the
//! routers will give (an unbounded request), so the routers alone set the pace.
//!
//! §3.2: on a loss the sender reacts as TCP does (halving; losses are rare under XCP since
//! the routers keep the queue near empty). A path with no XCP router returns the request
//! untouched: the sender then grows as Reno (slow start, then one segment per RTT), the
//! behaviour the paper's incremental-deployment discussion (§7) assumes for non-XCP paths.

use super::reno_growth::RenoGrowth;
use crate::controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, TimeoutEvent, half_flight_ssthresh,
};
use crate::metrics::ControllerMetrics;
use crate::registry::{AlgorithmInfo, InitialSsthreshUse};
use crate::slow_start::SlowStart;

pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "xcp",
    aliases: &[],
    summary: "router-assisted: cwnd += the feedback XCP routers write into each segment (efficiency phi = 0.4 d S - 0.226 Q, AIMD fairness); needs queue = \"xcp\"",
    reference: "Katabi, Handley, Rohrs, SIGCOMM 2002 §3",
    params: &[],
    uses_slow_start: true,
    initial_ssthresh: InitialSsthreshUse::Given,
    build: |config, _params, slow_start| Box::new(Xcp::new(config, slow_start)),
};

pub struct Xcp {
    mss: u64,
    /// cwnd in fractional bytes: per-segment feedback is often a fraction of a byte.
    cwnd: f64,
    ssthresh: u64,
    /// The last ACK's feedback (bytes), for traces.
    last_feedback: Option<f64>,
    /// Reno growth for a path without an XCP router.
    /// Reno growth and loss response, for a path without a router of ours (and for loss).
    reno: RenoGrowth,
}

impl Xcp {
    pub fn new(config: &CcConfig, slow_start: Box<dyn SlowStart>) -> Self {
        Xcp {
            mss: config.mss,
            cwnd: config.initial_cwnd as f64,
            ssthresh: config.initial_ssthresh,
            last_feedback: None,
            reno: RenoGrowth::new(slow_start),
        }
    }
}

impl CongestionControl for Xcp {
    fn name(&self) -> &'static str {
        INFO.name
    }

    fn xcp_request(&self) -> Option<f64> {
        Some(f64::INFINITY)
    }

    fn on_ack(&mut self, ack: &Ack) {
        let Some(feedback) = ack.xcp_feedback else {
            return;
        };
        if ack.in_recovery {
            return; // the halving governs until recovery ends
        }
        if !feedback.is_finite() {
            self.reno
                .grow(&mut self.cwnd, &mut self.ssthresh, self.mss, ack);
            return;
        }
        self.last_feedback = Some(feedback);
        // §3.2: cwnd = max(cwnd + H_feedback, s).
        self.cwnd = (self.cwnd + feedback).max(self.mss as f64);
    }

    fn on_congestion_event(&mut self, event: &CongestionEvent) {
        self.reno.on_loss(
            &mut self.cwnd,
            &mut self.ssthresh,
            self.mss,
            event.bytes_in_flight,
        );
    }

    fn on_timeout_congestion_event(&mut self, event: &TimeoutEvent) {
        self.ssthresh = half_flight_ssthresh(event.bytes_in_flight, self.mss);
    }

    fn on_retransmission_timeout(&mut self, _event: &TimeoutEvent) {
        self.reno.on_timeout(&mut self.cwnd, self.mss);
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

    fn metrics(&self) -> ControllerMetrics {
        ControllerMetrics {
            increase_per_rtt: self.last_feedback.map(|f| f / self.mss as f64),
            ..ControllerMetrics::with_slow_start(self.reno.slow_start())
        }
    }

    fn mode(&self) -> &'static str {
        if self.last_feedback.is_some() {
            "xcp"
        } else if (self.cwnd as u64) < self.ssthresh {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::UNLIMITED;
    use crate::slow_start::standard::StandardSlowStart;
    use crate::test_support::{ack, loss};

    const MSS: u64 = 1000;

    fn xcp() -> Xcp {
        let config = CcConfig::new(MSS);
        Xcp::new(&config, Box::new(StandardSlowStart::new(&config)))
    }

    #[test]
    fn the_window_moves_by_the_echoed_feedback_but_never_below_one_segment() {
        let mut x = xcp();
        assert_eq!(x.xcp_request(), Some(f64::INFINITY));
        x.on_ack(&Ack {
            xcp_feedback: Some(2_500.5),
            ..ack(MSS)
        });
        assert!((x.cwnd - 12_500.5).abs() < 1e-9);
        x.on_ack(&Ack {
            xcp_feedback: Some(-1e9),
            ..ack(MSS)
        });
        assert_eq!(x.cwnd(), MSS);
    }

    #[test]
    fn without_a_router_the_sender_grows_as_reno() {
        let mut x = xcp();
        // The request came back untouched (infinite): slow start, +1 segment per segment.
        x.on_ack(&Ack {
            xcp_feedback: Some(f64::INFINITY),
            ..ack(MSS)
        });
        assert_eq!(x.cwnd(), 11 * MSS);
        assert_eq!(x.mode(), "slow_start");
    }

    #[test]
    fn a_loss_halves_the_window_as_tcp() {
        let mut x = xcp();
        x.on_congestion_event(&loss(40 * MSS));
        assert_eq!((x.cwnd(), x.ssthresh()), (20 * MSS, 20 * MSS));
        // Feedback during recovery waits for its end.
        x.on_ack(&Ack {
            xcp_feedback: Some(5_000.0),
            in_recovery: true,
            ..ack(MSS)
        });
        assert_eq!(x.cwnd(), 20 * MSS);
        assert_eq!(UNLIMITED, xcp().ssthresh());
    }
}
