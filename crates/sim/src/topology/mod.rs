//! Topologies: what a network looks like, and the pure functions its builders share
//! (minimum-hop routing over a graph, max-min fair shares over routes). Each builder turns
//! its kind of scenario topology into a [`Network`] (links, reported links, every flow's
//! routes); the dumbbell is one builder among others.

pub mod dumbbell;
pub mod max_min;
pub mod routing;

pub use max_min::max_min_shares;
pub use routing::shortest_path;

use cclab_scenario::{Buffer, Scenario};

use crate::net::network::Network;
use crate::net::qdisc::BufferLimit;

/// Build the network of `scenario`.
pub fn build(scenario: &Scenario) -> Network {
    dumbbell::build(scenario, &scenario.topology)
}

/// A scenario buffer as a queue limit: packets or bytes, BDP multiples resolved.
pub(crate) fn buffer_limit(scenario: &Scenario, buffer: Buffer) -> BufferLimit {
    let (packets, bytes) = scenario.buffer_limit(buffer);
    BufferLimit { packets, bytes }
}
