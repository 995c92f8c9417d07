//! Fast recovery (RFC 6675 with PRR, RFC 6582, RFC 5681) and ECN reductions: entering,
//! the window while in them, leaving.

use cclab_cc::{CongestionEvent, SimTime};
use cclab_scenario::{PrrBound, Recovery, ReduceFrom};

use crate::trace::FlowEventKind;

use super::{DUP_THRESH, ModeCause, Sender};

/// Linux `tcp_ca_state`, reduced to what the model distinguishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossState {
    Open,
    /// Fast recovery until the cumulative ACK reaches `point` (snd_nxt at its start).
    Recovery {
        point: u64,
    },
    /// After a retransmission timeout, until the ACK reaches `point`.
    Loss {
        point: u64,
    },
    /// An ECN-triggered window reduction (Linux `TCP_CA_CWR`), until the ACK reaches `point`.
    Cwr {
        point: u64,
    },
}

/// RFC 6937 state for one recovery episode.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Prr {
    pub(super) delivered: u64,
    pub(super) out: u64,
    pub(super) recover_fs: u64,
}

impl Sender {
    /// Enter, continue or leave fast recovery / timeout recovery after an ACK. Returns true
    /// for a NewReno partial ACK other than the first of the episode.
    pub(super) fn update_loss_state(
        &mut self,
        now: SimTime,
        advanced: bool,
        prior_in_flight: u64,
    ) -> bool {
        let una = self.board.snd_una();
        let mut later_partial_ack = false;
        // An ECN reduction ends once the cumulative ACK passes its point (Linux
        // tcp_fastretrans_alert: CWR is held until snd_una is beyond high_seq). An ACK up to
        // exactly the point acknowledges only the window already reduced for, so the CE marks
        // it reports must not start a second reduction (RFC 3168 §6.1.2: at most once per
        // window of data).
        if let LossState::Cwr { point } = self.state
            && una > point
        {
            self.exit_recovery(now);
        }
        match self.state {
            LossState::Open | LossState::Cwr { .. } => {
                let loss_detected = match self.config.recovery {
                    // RACK may mark any segment first (Linux `tcp_time_to_recover`: lost_out).
                    Recovery::Sack if self.rack_tlp.is_some() => self.board.lost_bytes() > 0,
                    Recovery::Sack => self.board.first_is_lost(),
                    // RFC 6582 §3.2 step 1: three duplicates, and the ACK covers more than
                    // `recover` (so one window of losses reduces cwnd once).
                    Recovery::NewReno => {
                        self.dup_acks as u64 == DUP_THRESH && self.recover.is_none_or(|r| una > r)
                    }
                    Recovery::Reno => self.dup_acks as u64 == DUP_THRESH,
                    Recovery::Tahoe => self.tahoe_loss_detected(),
                    Recovery::Fack => self.fack_time_to_recover(),
                };
                if loss_detected {
                    // A loss during an ECN reduction does not reduce the window again: one
                    // reduction per window of data (RFC 3168 §6.1.2; Linux keeps ssthresh
                    // when Recovery follows CWR).
                    let reduce = self.state == LossState::Open;
                    let flight = self.flight_without_limited_transmit(prior_in_flight);
                    if self.config.recovery == Recovery::Tahoe {
                        self.tahoe_fast_retransmit(now, flight, reduce);
                    } else {
                        self.enter_recovery(now, flight, reduce);
                    }
                }
            }
            LossState::Recovery { point } => {
                if una >= point {
                    self.exit_recovery(now);
                } else if advanced {
                    match self.config.recovery {
                        // RFC 5681 §3.2 step 6: the first new ACK ends recovery.
                        Recovery::Reno => self.exit_recovery(now),
                        // RFC 6582 §3.2 step 5: a partial ACK retransmits the next hole.
                        Recovery::NewReno => {
                            self.board.mark_first_lost();
                            self.retransmit_now = true;
                            later_partial_ack = self.partial_ack_seen;
                            self.partial_ack_seen = true;
                        }
                        Recovery::Sack | Recovery::Fack | Recovery::Tahoe => {}
                    }
                }
            }
            LossState::Loss { point } => {
                if una >= point {
                    self.state = LossState::Open;
                    if let Some(rt) = self.rack_tlp.as_deref_mut() {
                        rt.rack.on_recovery_exit();
                    }
                    if self.tahoe_episode {
                        self.end_tahoe_episode(now);
                    } else {
                        self.record(now, FlowEventKind::TimeoutRecoveryEnd, "", "", "");
                    }
                }
            }
        }
        later_partial_ack
    }

    /// Start a fast-recovery episode. `flight` is the RFC 6675 pipe before the ACK that
    /// detected the loss: at the first loss of a window it is RFC 5681's FlightSize less the
    /// few segments already SACKed, and unlike FlightSize it stays meaningful when a lost
    /// retransmission starts a new episode inside recovery (FlightSize then counts all the
    /// data SACKed above the holes).
    pub(super) fn enter_recovery(&mut self, now: SimTime, flight: u64, reduce: bool) {
        let detail = match (self.state, self.config.recovery) {
            (LossState::Recovery { .. } | LossState::Loss { .. }, _) => "retransmission_lost",
            (_, Recovery::Reno) => "reno",
            (_, Recovery::NewReno) => "newreno",
            (_, Recovery::Sack) if self.rack_tlp.is_some() => "rack",
            (_, Recovery::Sack) => "sack",
            (_, Recovery::Fack) => "fack",
            (_, Recovery::Tahoe) => "tahoe",
        };
        if self.undo.is_some() {
            self.undo_on_recovery_start();
        }
        self.episode += 1;
        if let Some(rt) = self.rack_tlp.as_deref_mut() {
            rt.tlp.reset(); // RFC 8985 §7.1
        }
        let point = self.board.snd_nxt();
        self.state = LossState::Recovery { point };
        self.recover = Some(point);
        self.partial_ack_seen = false;
        self.stats.fast_recoveries += 1;
        if reduce {
            self.congestion_event(now, flight);
        }
        self.record(now, FlowEventKind::RecoveryStart, "", "", detail);
        self.check_mode(now, ModeCause::Loss);
        self.prr = Prr {
            delivered: 0,
            out: 0,
            // RFC 6937 §3 RecoverFS, the flight at the start of recovery (pipe, see above).
            recover_fs: flight.max(1),
        };
        if self.config.recovery == Recovery::Fack {
            self.start_fack_window();
        } else if self.sack_enabled() {
            self.recovery_cwnd = self.board.pipe() + self.config.mss;
        } else {
            // RFC 5681 §3.2 steps 2–3: retransmit the lost segment, cwnd = ssthresh + 3·SMSS.
            self.board.mark_first_lost();
            self.retransmit_now = true;
            self.recovery_cwnd = self
                .cc
                .ssthresh()
                .saturating_add(DUP_THRESH * self.config.mss);
        }
    }

    /// Start an ECN window reduction (RFC 3168 §6.1.2): ssthresh and cwnd as for a loss, the
    /// window brought down by PRR as Linux's `tcp_enter_cwr` does, nothing retransmitted; it
    /// lasts until the data outstanding now is acknowledged.
    pub(super) fn enter_cwr(&mut self, now: SimTime, flight: u64) {
        if self.undo.is_some() {
            self.undo_on_cwr();
        }
        self.state = LossState::Cwr {
            point: self.board.snd_nxt(),
        };
        self.stats.ecn_reductions += 1;
        self.congestion_event(now, flight);
        self.record(now, FlowEventKind::EcnReductionStart, "", "", "");
        self.check_mode(now, ModeCause::Ecn);
        self.prr = Prr {
            delivered: 0,
            out: 0,
            recover_fs: flight.max(1),
        };
        self.recovery_cwnd = self.pipe();
    }

    pub(super) fn congestion_event(&mut self, now: SimTime, flight: u64) {
        let base = self.reduction_base(flight);
        // The controller reduces its own window now: it is in force again.
        self.restart_cap = u64::MAX;
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            bytes_in_flight: base,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
        });
    }

    /// What the controller's reduction is computed from (`reduce_from`), handed to it as the
    /// event's `bytes_in_flight`: the flight given (RFC 5681 §3.1 FlightSize, here the RFC
    /// 6675 pipe), or Linux's `snd_cwnd`, which every Linux module's `ssthresh()` reads
    /// (`tcp_reno_ssthresh`, CUBIC's `bictcp_recalc_ssthresh`). Linux reduces from the open
    /// state, or from a timeout's (its slow-start window), where `snd_cwnd` is the
    /// controller's window under the sender's caps; not [`Sender::window`], which already
    /// follows the recovery's state when this is called.
    pub(super) fn reduction_base(&self, flight: u64) -> u64 {
        match self.config.reduce_from {
            ReduceFrom::Flight => flight,
            ReduceFrom::Cwnd => self.cc.cwnd().min(self.restart_cap).min(self.share_cap),
        }
    }

    /// In fast recovery or an ECN reduction: the window is coming down; it does not grow.
    pub(super) fn is_reducing(&self) -> bool {
        matches!(
            self.state,
            LossState::Recovery { .. } | LossState::Cwr { .. }
        )
    }

    /// The fast recovery or ECN reduction reached its point: back to Open, and the
    /// controller hears that the reduction completed (Linux `tcp_end_cwnd_reduction`).
    pub(super) fn exit_recovery(&mut self, now: SimTime) {
        self.leave_recovery(now, true);
    }

    /// An undo before the recovery point reopens the window (Linux `tcp_try_undo_partial`,
    /// `tcp_try_undo_dsack`, then `tcp_try_keep_open`): back to Open without
    /// `CA_EVENT_COMPLETE_CWR`.
    pub(super) fn reopen_after_undo(&mut self, now: SimTime) {
        self.leave_recovery(now, false);
    }

    fn leave_recovery(&mut self, now: SimTime, completed: bool) {
        let kind = match self.state {
            LossState::Cwr { .. } => FlowEventKind::EcnReductionEnd,
            _ => FlowEventKind::RecoveryEnd,
        };
        if let (Some(rt), FlowEventKind::RecoveryEnd) = (self.rack_tlp.as_deref_mut(), kind) {
            rt.rack.on_recovery_exit(); // RFC 8985 §6.2 step 4
        }
        self.state = LossState::Open;
        self.retransmit_now = false;
        self.cc.on_recovery_exit(now);
        if completed {
            self.cc.on_reduction_complete(now);
        }
        self.record(now, kind, "", "", "");
        self.check_mode(now, ModeCause::RecoveryEnd);
    }

    /// RFC 6937 §3: proportional rate reduction with the slow-start reduction bound
    /// (PRR-SSRB), the sender's window during SACK recovery and during an ECN window
    /// reduction. `fast_retransmit`: the first retransmission always leaves, as in Linux.
    /// `safe`: the ACK advanced `snd_una` and marked nothing newly lost, the only ACK on
    /// which `prr_bound = "safe_ack"` adds the bound's extra segment.
    pub(super) fn update_prr_window(&mut self, delivered: u64, fast_retransmit: bool, safe: bool) {
        let mss = self.config.mss;
        if delivered == 0 {
            return;
        }
        self.prr.delivered += delivered;
        let pipe = self.pipe();
        let ssthresh = self.cc.ssthresh();
        let mut sndcnt = if pipe > ssthresh {
            let target = (self.prr.delivered as u128 * ssthresh as u128)
                .div_ceil(self.prr.recover_fs as u128) as u64;
            // Rounded up to whole segments, as Linux counts PRR in packets; in bytes a
            // half-segment allowance would never be sendable on its own.
            target.saturating_sub(self.prr.out).div_ceil(mss) * mss
        } else {
            // RFC 6937 §3 adds the segment on every ACK. Linux's `tcp_cwnd_reduction` adds it
            // only `if (flag & FLAG_SND_UNA_ADVANCED && !newly_lost)` ("slow starts cwnd up
            // to ssthresh" when recovery progresses), so an ACK that only SACKs, or that
            // finds a new loss, sends what was delivered and no more (RFC 6937's conservative
            // bound, which draft-ietf-tcpm-prr-rfc6937bis calls the non-SafeACK case).
            let extra = match self.config.prr_bound {
                PrrBound::Ssrb => mss,
                PrrBound::SafeAck if safe => mss,
                PrrBound::SafeAck => 0,
            };
            let limit = (self.prr.delivered.saturating_sub(self.prr.out)).max(delivered) + extra;
            (ssthresh - pipe).min(limit)
        };
        if fast_retransmit && self.prr.out == 0 {
            sndcnt = sndcnt.max(mss);
        }
        self.recovery_cwnd = pipe + sndcnt;
    }

    /// RFC 5681 §3.2 / RFC 6582 §3.2: Reno window inflation and NewReno partial deflation,
    /// the sender's window during fast recovery without SACK.
    pub(super) fn update_inflated_window(&mut self, advanced: bool, newly_acked: u64) {
        let mss = self.config.mss;
        if advanced {
            // RFC 6582 §3.2 step 5: deflate by the amount acknowledged, add back one SMSS if
            // at least one SMSS was acknowledged.
            self.recovery_cwnd = self.recovery_cwnd.saturating_sub(newly_acked);
            if newly_acked >= mss {
                self.recovery_cwnd = self.recovery_cwnd.saturating_add(mss);
            }
            self.recovery_cwnd = self.recovery_cwnd.max(mss);
        } else {
            // RFC 5681 §3.2 step 4: inflate by one SMSS per duplicate ACK. Saturating: a
            // controller without a threshold (BBR) starts from an unlimited ssthresh.
            self.recovery_cwnd = self.recovery_cwnd.saturating_add(mss);
        }
    }
}
