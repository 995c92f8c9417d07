//! One congestion controller per file, each registered in [`crate::registry`].

pub mod reno;
