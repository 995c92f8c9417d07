//! Wi-Fi links (`kind = "wifi"`): the two directions of the dumbbell's bottleneck share one
//! half-duplex medium, won by contention, with aggregation, per-frame errors and MAC
//! retransmissions. Each direction is a [`crate::net::link::Link`] whose queue is a
//! [`WifiQueue`]; the [`Medium`] decides when either transmits and what its frames become.
//! docs/links.md ("Wi-Fi links") gives the model, its parameters and their sources.

pub mod airtime;
pub mod medium;
pub mod queue;
#[cfg(test)]
mod tests;

pub use medium::{Medium, MediumOutcome};
pub use queue::{Aggregate, WifiCounters, WifiQueue};
