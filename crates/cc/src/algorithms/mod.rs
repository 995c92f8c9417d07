//! One congestion controller per file (or, for the large BBR v1 and v3, per folder with one
//! file per state and `bbr_common` for what they share), each registered in
//! [`crate::registry`].

pub mod additive_increase;
pub mod africa;
pub mod areno;
pub mod bbr;
pub mod bbr3;
mod bbr_common;
pub mod bic;
pub mod byte_counter;
pub mod compound;
pub mod copa;
pub mod cubic;
pub mod dctcp;
#[cfg(test)]
mod delay_harness;
pub mod dynamic_vegas;
pub mod fast;
pub mod fusion;
pub mod highspeed;
pub mod highspeed_table;
pub mod htcp;
pub mod hybla;
pub mod illinois;
pub mod ledbat;
pub mod ledbat_delay;
pub mod ledbat_plus_plus;
pub mod libra;
pub mod multiplicative_decrease;
pub mod prague;
pub mod reno;
pub mod reno_growth;
pub mod rtt_rounds;
pub mod scalable;
pub mod vcp;
pub mod vegas;
pub mod veno;
pub mod vivace;
pub mod westwood;
pub mod westwood_filter;
pub mod xcp;
pub mod yeah;
