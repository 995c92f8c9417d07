//! `kind = "workload"`: short TCP flows arriving as a Poisson process at a target load, with
//! sizes drawn from a distribution.

/// A workload's arrival rate and size distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadConfig {}
