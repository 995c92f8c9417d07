//! One congestion controller per file, each registered in [`crate::registry`].

pub mod areno;
pub mod bbr;
pub mod bbr3;
pub mod fusion;
pub mod libra;
pub mod reno;
pub mod veno;
pub mod westwood;
pub mod westwood_filter;
