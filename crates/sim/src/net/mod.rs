//! The network: links, their queue disciplines, loss models and delay jitter.

pub(crate) mod fifo;
pub mod jitter;
pub mod link;
pub mod loss;
pub mod network;
pub mod qdisc;
pub mod trace;
pub mod wifi;
