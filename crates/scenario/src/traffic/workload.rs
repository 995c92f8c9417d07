//! `kind = "workload"`: short TCP flows arriving as a Poisson process at a target load, with
//! sizes drawn from a distribution (docs/traffic.md, "Short-flow workloads").

use cclab_cc::SimTime;

/// A workload's arrival rate and size distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadConfig {
    /// Offered load as a fraction of `load_rate_bps`, in (0, 1].
    pub load: f64,
    /// The link the load is a fraction of, as named in the outputs ("bottleneck", "hop2",
    /// "a-b"); the default is the slowest shared link of the group's data path.
    pub load_link: String,
    /// That link's rate (bit/s).
    pub load_rate_bps: u64,
    pub sizes: SizeDistribution,
    /// No arrival at or after this instant; `None`: arrivals until the end of the run.
    pub stop: Option<SimTime>,
}

impl WorkloadConfig {
    /// Poisson arrival rate (flows per second): the offered load in payload bytes per second,
    /// load × rate / 8, over the mean flow size. The load counts application payload, not
    /// headers (docs/traffic.md).
    pub fn arrivals_per_second(&self) -> f64 {
        self.load * self.load_rate_bps as f64 / 8.0 / self.sizes.mean_bytes()
    }
}

/// Where flow sizes come from. Every size is a whole number of bytes, at least 1.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDistribution {
    /// Every flow carries `bytes`.
    Fixed { bytes: u64 },
    /// Exponential with this mean (bytes).
    Exponential { mean: f64 },
    /// Pareto (type I) with this mean and shape α > 1: scale x_m = mean (α − 1) / α.
    Pareto { mean: f64, shape: f64 },
    /// Lognormal with this mean and σ of the underlying normal: μ = ln(mean) − σ² / 2.
    Lognormal { mean: f64, sigma: f64 },
    /// An empirical CDF read from a file.
    Cdf(EmpiricalCdf),
}

impl SizeDistribution {
    /// The name in scenario files and outputs.
    pub fn name(&self) -> &'static str {
        match self {
            SizeDistribution::Fixed { .. } => "fixed",
            SizeDistribution::Exponential { .. } => "exponential",
            SizeDistribution::Pareto { .. } => "pareto",
            SizeDistribution::Lognormal { .. } => "lognormal",
            SizeDistribution::Cdf(_) => "cdf",
        }
    }

    /// The distribution's mean in bytes (before rounding sizes up to whole bytes, which
    /// adds less than one byte).
    pub fn mean_bytes(&self) -> f64 {
        match self {
            SizeDistribution::Fixed { bytes } => *bytes as f64,
            SizeDistribution::Exponential { mean }
            | SizeDistribution::Pareto { mean, .. }
            | SizeDistribution::Lognormal { mean, .. } => *mean,
            SizeDistribution::Cdf(cdf) => cdf.mean_bytes(),
        }
    }
}

/// A piecewise-linear CDF: `points` are (size in bytes, cumulative probability), sizes
/// strictly increasing, probabilities non-decreasing from ≥ 0 to exactly 1. A draw u in
/// [0, 1) falls in the first segment whose probability reaches it and is interpolated
/// linearly within it; a first point with probability p₀ > 0 is a point mass of p₀ at its
/// size (the convention of the pFabric/HPCC traffic generators).
#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    /// The file as given in the scenario, for messages and outputs.
    pub file: String,
    pub points: Vec<(u64, f64)>,
}

impl EmpiricalCdf {
    /// Mean of the interpolated distribution: the point mass at the first size plus, per
    /// segment, its probability times its midpoint.
    pub fn mean_bytes(&self) -> f64 {
        let Some(&(first, p0)) = self.points.first() else {
            return 0.0;
        };
        let mut mean = p0 * first as f64;
        for pair in self.points.windows(2) {
            let ((s0, q0), (s1, q1)) = (pair[0], pair[1]);
            mean += (q1 - q0) * (s0 as f64 + s1 as f64) / 2.0;
        }
        mean
    }
}
