//! Loss recovery: the cwnd saved on entry and restored on exit, and packet conservation for
//! the first round of fast recovery.
//!
//! v1: draft-cardwell-iccrg-bbr-congestion-control-00 §4.2.3.4 (BBRSaveCwnd, BBRRestoreCwnd,
//! BBRModulateCwndForRecovery). v3: draft-ietf-ccwg-bbr-06 §5.6.4.4 keeps only SaveCwnd /
//! RestoreCwnd; the recovery window follows draft-cardwell-iccrg-bbr-congestion-control-02
//! §4.6.4.4, which is v1's. Linux: `bbr_save_cwnd`, `bbr_set_cwnd_to_recover_or_restore`.
//! Entering fast recovery also starts a round, as Linux does, so that conservation lasts
//! exactly one round trip: the caller owns the round counter and starts it.

use crate::controller::{Ack, CongestionEvent};
use crate::time::SimTime;

/// What the most recent ACK left behind, for a congestion event raised right after it.
#[derive(Clone, Copy, Debug)]
struct LastAck {
    now: SimTime,
    bytes_in_flight: u64,
    bytes_acked: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Recovery {
    /// In loss recovery: fast recovery or after a retransmission timeout.
    pub in_loss_recovery: bool,
    /// In fast recovery proper (not after a timeout); v3's STARTUP loss exit needs it.
    pub in_fast_recovery: bool,
    /// cwnd follows packet conservation (the first round of fast recovery).
    pub packet_conservation: bool,
    /// BBR.prior_cwnd: the last cwnd not cut by recovery or ProbeRTT.
    pub prior_cwnd: u64,
    last_ack: Option<LastAck>,
}

impl Recovery {
    /// SaveCwnd: remember `cwnd` unless recovery or ProbeRTT has already cut it, in which
    /// case keep the larger of the two.
    pub fn save_cwnd(&mut self, cwnd: u64, in_probe_rtt: bool) {
        self.prior_cwnd = if !self.in_loss_recovery && !in_probe_rtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    /// RestoreCwnd.
    pub fn restore_cwnd(&self, cwnd: u64) -> u64 {
        cwnd.max(self.prior_cwnd)
    }

    /// Upon entering fast recovery: save cwnd and start packet conservation. The window
    /// itself comes from `modulate_cwnd` (or `on_congestion_event`).
    fn enter_fast_recovery(&mut self, cwnd: u64, in_probe_rtt: bool) {
        self.save_cwnd(cwnd, in_probe_rtt);
        self.in_loss_recovery = true;
        self.in_fast_recovery = true;
        self.packet_conservation = true;
    }

    /// Upon exiting loss recovery: the cwnd to use (the saved one if larger).
    fn exit_loss_recovery(&mut self, cwnd: u64) -> u64 {
        if !self.in_loss_recovery {
            return cwnd;
        }
        self.in_loss_recovery = false;
        self.in_fast_recovery = false;
        self.packet_conservation = false;
        self.restore_cwnd(cwnd)
    }

    /// Follows the sender's recovery flag on each ACK: its rising edge starts fast recovery
    /// (the sender may also announce it through `on_congestion_event`), its falling edge
    /// ends recovery (the sender may also call `on_recovery_exit`, see `exit`). Returns
    /// whether recovery began on this ACK; then the caller starts a round.
    pub fn on_ack(&mut self, ack: &Ack, cwnd: &mut u64, in_probe_rtt: bool) -> bool {
        let entered = if ack.in_recovery && !self.in_loss_recovery {
            self.enter_fast_recovery(*cwnd, in_probe_rtt);
            true
        } else {
            if !ack.in_recovery {
                *cwnd = self.exit_loss_recovery(*cwnd);
            }
            false
        };
        self.last_ack = Some(LastAck {
            now: ack.now,
            bytes_in_flight: ack.bytes_in_flight,
            bytes_acked: ack.bytes_acked,
        });
        entered
    }

    /// `on_recovery_exit`: restore the saved cwnd.
    pub fn exit(&mut self, cwnd: &mut u64) {
        *cwnd = self.exit_loss_recovery(*cwnd);
    }

    /// A congestion event: unless recovery has already begun (the triggering ACK carried
    /// the flag), enter fast recovery with the window `pipe + max(acked, 1 MSS)` and return
    /// true.
    /// The simulator announces the loss before the triggering ACK's `on_ack` (see the call
    /// order on the trait), so the event's flight size is used; a driver that calls `on_ack`
    /// first is handled too: then that ACK's pipe and ACKed bytes are used. The caller
    /// starts a round and applies its ProbeRTT bound.
    pub fn on_congestion_event(
        &mut self,
        event: &CongestionEvent,
        cwnd: &mut u64,
        in_probe_rtt: bool,
        mss: u64,
    ) -> bool {
        if self.in_loss_recovery {
            return false;
        }
        let (in_flight, acked) = match self.last_ack {
            Some(last) if last.now == event.now => (last.bytes_in_flight, last.bytes_acked),
            _ => (event.bytes_in_flight, 0),
        };
        self.enter_fast_recovery(*cwnd, in_probe_rtt);
        *cwnd = fast_recovery_window(in_flight, acked, mss);
        true
    }

    /// Upon a retransmission timeout: save cwnd; recovery without packet conservation (the
    /// caller sets cwnd to one packet).
    pub fn on_timeout(&mut self, cwnd: u64, in_probe_rtt: bool) {
        self.save_cwnd(cwnd, in_probe_rtt);
        self.in_loss_recovery = true;
        self.in_fast_recovery = false;
        self.packet_conservation = false;
    }

    /// A round ended: packet conservation lasts only the first round of recovery (Linux
    /// clears it on the round start, having started a round on recovery entry).
    pub fn on_round_start(&mut self) {
        self.packet_conservation = false;
    }

    /// ModulateCwndForRecovery: on entry `cwnd = pipe + max(acked, 1 MSS)`; later, each loss
    /// takes its bytes off cwnd (at least 1 MSS left); under packet conservation cwnd never
    /// falls below `pipe + acked`.
    pub fn modulate_cwnd(&self, cwnd: u64, ack: &Ack, entered_now: bool, mss: u64) -> u64 {
        if !self.in_loss_recovery {
            return cwnd;
        }
        let mut cwnd = cwnd;
        if entered_now {
            cwnd = fast_recovery_window(ack.bytes_in_flight, ack.bytes_acked, mss);
        } else if ack.newly_lost > 0 {
            cwnd = cwnd.saturating_sub(ack.newly_lost).max(mss);
        }
        if self.packet_conservation {
            cwnd = cwnd.max(ack.bytes_in_flight + ack.bytes_acked);
        }
        cwnd
    }
}

/// The fast-recovery window: `cwnd = packets_in_flight + max(packets_delivered, 1)`.
fn fast_recovery_window(bytes_in_flight: u64, bytes_acked: u64, mss: u64) -> u64 {
    bytes_in_flight + bytes_acked.max(mss)
}
