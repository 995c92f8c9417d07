//! The network: links, their queue disciplines and loss models.

pub mod link;
pub mod loss;
pub mod network;
pub mod qdisc;
