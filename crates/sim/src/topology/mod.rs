//! Topologies: what a network looks like, and the pure functions its builders share
//! (minimum-hop routing over a graph, max-min fair shares over routes).

pub mod max_min;
pub mod routing;

pub use max_min::max_min_shares;
pub use routing::shortest_path;
