//! cclab-sim: a fast, deterministic packet-level simulator of TCP over a dumbbell, a parking
//! lot or a graph of links (`topology`).
//!
//! Build a [`Simulation`] from a validated [`cclab_scenario::Scenario`], run it with a
//! [`TraceSink`] for the time series, and get a [`RunResult`] with per-flow and per-link
//! totals. Time is integer nanoseconds; ties between events break by the order they were
//! scheduled (`event.rs`); every
//! random draw comes from a per-component seeded stream. Same scenario and seed, same run.

pub mod capture;
mod endpoints;
pub mod event;
mod flow_starts;
mod folding;
pub mod histogram;
mod link_pool;
pub mod net;
pub mod packet;
pub mod range_set;
pub mod result;
pub mod rng;
mod serialization;
pub mod sharing;
pub mod simulation;
pub mod tcp;
pub mod topology;
pub mod trace;
pub mod traffic;

pub use histogram::Histogram;
pub use result::{
    BucketStats, CountersAtWindowStart, DataRoutes, FlowCounters, FlowResult, HandshakeResult,
    LinkResult, RunResult, WorkloadResult,
};
pub use simulation::{SimError, Simulation};
pub use trace::{
    FinishedFlow, FlowEvent, FlowEventKind, FlowSample, GroupSample, LinkSample, MemorySink,
    NullSink, PacketEvent, PacketEventKind, SharedSample, Tee, TraceSink, UdpSample,
};
pub use traffic::udp::UdpResult;
