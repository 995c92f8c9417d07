//! The sender's hooks for the connection around the transfer: what the handshake taught it
//! (`tcp/handshake.rs`) and the window the receiver advertises (`tcp/receive_window.rs`).

use cclab_cc::SimDuration;

use crate::tcp::handshake::FALLBACK_RTO;
use crate::tcp::rtt_linux::SequenceState;

use super::Sender;

impl Sender {
    /// The handshake completed before [`Sender::start`]: take its RTT sample (Linux feeds the
    /// SYN's to `tcp_ack_update_rtt`), or without one start the RTO at 3 s (RFC 6298 §5.7,
    /// Linux `tcp_init_metrics`). After more than one SYN retransmission, start from one
    /// segment (Linux `tcp_init_transfer`): the window is capped at one MSS and the cap grows
    /// as slow start does, as after an idle restart, until it reaches the initial window.
    pub fn on_established(&mut self, rtt: Option<SimDuration>, syn_retransmissions: u32) {
        match rtt {
            // Nothing is sent yet: the first round trip ends with the first data ACK.
            Some(sample) => self.rtt.on_sample(sample, SequenceState::default()),
            None => self.rtt.set_initial_rto(FALLBACK_RTO),
        }
        if syn_retransmissions > 1 && self.config.mss < self.cc.cwnd() {
            self.restart_cap = self.config.mss;
        }
    }

    /// The receiver announced its window scale (RFC 7323 §2.2: in its SYN-ACK; the model's
    /// connections learn it when they are built, `tcp/receive_window.rs`'s `window_scale`).
    pub fn set_peer_window_scale(&mut self, scale: u32) {
        self.peer_window_scale = scale;
    }

    /// An ACK carried the receiver's advertised window, in units of 2^(the announced scale)
    /// bytes (RFC 7323 §2.3). It replaces the configured cap from now on.
    pub fn on_window_update(&mut self, scaled_window: u16) {
        self.peer_window = Some((scaled_window as u64) << self.peer_window_scale);
    }

    /// The receive window in force: the one the receiver last advertised, else the
    /// configured one (`u64::MAX`: unlimited).
    #[inline]
    pub(super) fn receive_window(&self) -> u64 {
        match self.peer_window {
            Some(window) => window,
            None => self.config.receive_window.unwrap_or(u64::MAX),
        }
    }
}
