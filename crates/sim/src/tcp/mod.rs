//! The TCP endpoints: one module per concern.

pub mod connection;
pub mod delivery_rate;
pub mod handshake;
mod handshake_events;
pub mod rack;
pub mod receive_window;
pub mod receiver;
pub mod rtt;
pub mod rtt_linux;
pub mod scoreboard;
pub mod sender;
pub mod small_queues;
pub mod tlp;
