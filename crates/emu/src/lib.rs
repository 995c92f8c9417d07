//! cclab-emu: run real kernel TCP through cclab's links.
//!
//! Each side of a dumbbell (the senders, the receivers) is a Linux network namespace with a
//! TUN device; one cclab process reads the packets from both TUNs, passes them through the
//! scenario's bottleneck — the simulator's own [`cclab_sim::net::link::Link`] and queue
//! disciplines, driven by the wall clock instead of the event queue — and writes each to the
//! other TUN when the link says it arrives. The flows are real TCP connections between two
//! small endpoint programs (see [`endpoint`]) with the kernel's congestion control.
//!
//! Layout: [`preflight`] (root, TUN, the kernel's congestion controls), [`tun`] (the device),
//! [`host`] (a process in its own namespace), [`shaper`] (a `Link` on the wall clock),
//! [`forwarder`] (the loop between the two TUNs), [`endpoint`] and [`tcp_info`] (the TCP
//! programs), [`plan`] (a scenario checked and turned into what to run), [`output`] (the run's
//! folder), [`emulation`] (all of it, in order).

pub mod emulation;
pub mod endpoint;
pub mod error;
pub mod forwarder;
pub mod host;
pub mod output;
pub mod plan;
pub mod preflight;
pub mod shaper;
pub mod tcp_info;
pub mod tun;

pub use emulation::{Emulation, EmulationReport, emulate, prepare};
pub use error::EmuError;
