//! On/off periods, shared by a TCP flow's `on_off` application and a UDP source's
//! `pattern = "on-off"`, and the TCP `on_off` application itself. docs/traffic.md describes
//! both models.

use cclab_cc::SimDuration;

/// How the lengths of on and off periods are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PeriodDistribution {
    /// Every on period lasts `on` and every off period `off`.
    Fixed,
    /// Exponentially distributed with means `on` and `off` (the default): ns-2's
    /// Application/Traffic/Exponential, the classic on/off source of the literature.
    #[default]
    Exponential,
}

impl PeriodDistribution {
    /// The name in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            PeriodDistribution::Fixed => "fixed",
            PeriodDistribution::Exponential => "exponential",
        }
    }
}

/// Alternating on and off periods; a source starts with an on period.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Periods {
    /// Length (or mean length) of an on period; longer than zero.
    pub on: SimDuration,
    /// Length (or mean length) of an off period; may be zero.
    pub off: SimDuration,
    pub distribution: PeriodDistribution,
}

/// A TCP flow's on/off application (`on_off = { on, off, periods, burst }`): at the start
/// of each on period it offers `burst` bytes to the connection (without `burst`, as much as
/// TCP takes); when the period ends it stops writing, and what TCP has not sent by then is
/// never written. The connection stays open across periods: its window, RTT estimate and
/// controller state carry over from one burst to the next.
#[derive(Clone, Debug, PartialEq)]
pub struct OnOff {
    pub periods: Periods,
    /// Bytes offered per on period; `None`: backlogged for the whole on period.
    pub burst: Option<u64>,
    /// RFC 5681 §4.1 restart after idle (Linux's `net.ipv4.tcp_slow_start_after_idle`, on
    /// by default): after more than an RTO without sending, the window restarts from
    /// min(initial window, cwnd).
    pub slow_start_after_idle: bool,
}
