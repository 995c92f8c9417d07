//! What a `[[flows]]` table sends: TCP (bulk, sized, or an on/off application), unresponsive
//! UDP, or a workload of short TCP flows arriving at random.

pub mod on_off;
pub mod udp;
pub mod workload;

pub use on_off::OnOff;
pub use udp::UdpConfig;
pub use workload::{EmpiricalCdf, SizeDistribution, WorkloadConfig};

/// `kind` of a flow group.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum FlowKind {
    /// A TCP connection per flow (the default).
    #[default]
    Tcp,
    /// `kind = "udp"`: an unresponsive source per flow.
    Udp(UdpConfig),
    /// `kind = "workload"`: short TCP flows arriving as a Poisson process.
    Workload(WorkloadConfig),
}

impl FlowKind {
    /// The workload's configuration, if this is one.
    pub fn workload(&self) -> Option<&WorkloadConfig> {
        match self {
            FlowKind::Workload(w) => Some(w),
            _ => None,
        }
    }

    /// The name in scenario files and outputs.
    pub fn name(&self) -> &'static str {
        match self {
            FlowKind::Tcp => "tcp",
            FlowKind::Udp(_) => "udp",
            FlowKind::Workload(_) => "workload",
        }
    }
}
