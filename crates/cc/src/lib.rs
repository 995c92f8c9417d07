//! cclab-cc: congestion-control algorithms as pure state machines.
//!
//! Each controller implements [`CongestionControl`]: ACK, loss and timeout events come in with
//! the time and the measurements the sender made; cwnd, ssthresh and an optional pacing rate
//! come out. There is no I/O and no clock, so the simulator, an emulator and unit tests drive
//! the same code. Controllers are found by name in [`registry`].

pub mod algorithms;
pub mod controller;
pub mod metrics;
pub mod params;
pub mod registry;
pub mod running_minmax;
pub mod seeded_rng;
pub mod slow_start;
#[doc(hidden)]
pub mod test_support;
pub mod time;
pub mod windowed_filter;

pub use controller::{
    Ack, CcConfig, CongestionControl, CongestionEvent, LoadFactor, RateSample, SendsObserved,
    TimeoutEvent, UNLIMITED, UndoEvent,
};
pub use metrics::{ControllerMetrics, SlowStartExit};
pub use params::{ParamError, ParamInput, ParamKind, ParamSpec, ParamValue, Params};
pub use registry::{ALGORITHMS, AlgorithmInfo, SLOW_STARTS, UnknownName};
pub use slow_start::{SlowStart, SlowStartInfo, Window};
pub use time::{SimDuration, SimTime};
