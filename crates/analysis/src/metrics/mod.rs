//! Metric formulas: small pure functions, each with its definition (formula, units, edge
//! cases) in its doc comment and its tests next to it. `docs/metrics.md` says which window
//! and which inputs `summary.json` feeds them.

pub mod distribution;
pub mod fair_share;
pub mod fairness;
pub mod fct;
pub mod rates;

pub use distribution::{histogram_quantile_ms, time_weighted_quantile};
pub use fair_share::max_min_class_shares;
pub use fairness::{index_a, jain_index, share_ratio};
pub use rates::{
    RateBin, coefficient_of_variation, convergence_time, moving_average, rate_bps, ratio,
};
