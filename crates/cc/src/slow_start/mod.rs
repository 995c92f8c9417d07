//! Slow start as a part that any loss-based controller can swap.
//!
//! A controller owns cwnd and ssthresh and hands both to its [`SlowStart`] for every ACK that
//! arrives while `cwnd < ssthresh`. The variant grows cwnd and may end slow start early by
//! lowering ssthresh (HyStart does). Congestion avoidance stays the controller's business.

pub mod hystart;
pub mod hystart_plus_plus;
pub mod limited;
pub mod packet_pair;
pub mod round;
pub mod segments;
pub mod smooth_start;
pub mod standard;

use crate::controller::{Ack, CcConfig};
use crate::metrics::SlowStartExit;
use crate::params::{ParamSpec, Params};

/// The part of the window state a slow-start variant may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
}

pub trait SlowStart: Send {
    fn name(&self) -> &'static str;

    /// Grow `window.cwnd` for one ACK that arrived while `cwnd < ssthresh` and
    /// [`Ack::may_grow`] holds. Lowering `window.ssthresh` ends slow start.
    fn on_ack(&mut self, window: &mut Window, ack: &Ack);

    /// Slow start begins again (after a retransmission timeout): forget per-episode state.
    fn restart(&mut self) {}

    /// Why slow start ended, asked right after an [`SlowStart::on_ack`] that left
    /// `cwnd ≥ ssthresh`. A variant that ends slow start early (lowering ssthresh) says which
    /// of its signals did; the default, for variants that never do, is that cwnd reached
    /// ssthresh.
    fn exit_cause(&self) -> SlowStartExit {
        SlowStartExit::SsthreshReached
    }

    /// [`SlowStart::on_ack`] for a controller that keeps cwnd and ssthresh as fields.
    fn grow(&mut self, cwnd: &mut u64, ssthresh: &mut u64, mss: u64, ack: &Ack) {
        let mut window = Window {
            cwnd: *cwnd,
            ssthresh: *ssthresh,
            mss,
        };
        self.on_ack(&mut window, ack);
        *cwnd = window.cwnd;
        *ssthresh = window.ssthresh;
    }
}

/// A slow-start variant in the registry.
pub struct SlowStartInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub reference: &'static str,
    pub params: &'static [ParamSpec],
    pub build: fn(&CcConfig, &Params) -> Box<dyn SlowStart>,
}
