//! What carries a link's packets: a wire of fixed rate (the default), a shared Wi-Fi medium,
//! or a recorded delivery schedule (a mahimahi trace). The simulator implements each
//! (`cclab_sim::net`); docs/links.md describes them with their sources.

pub use crate::trace_link::TraceConfig;
pub use crate::wifi::WifiConfig;

/// `kind` of a link table.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LinkKind {
    /// A point-to-point wire: serialization at `rate`, then `delay`.
    #[default]
    Wired,
    /// `kind = "wifi"`: a half-duplex medium shared by both directions, won by contention,
    /// with aggregation and MAC retransmissions.
    Wifi(WifiConfig),
    /// `kind = "trace"`: packets leave at the delivery opportunities of a trace file.
    Trace(TraceConfig),
}

impl LinkKind {
    /// The name in scenario files.
    pub fn name(&self) -> &'static str {
        match self {
            LinkKind::Wired => "wired",
            LinkKind::Wifi(_) => "wifi",
            LinkKind::Trace(_) => "trace",
        }
    }
}
