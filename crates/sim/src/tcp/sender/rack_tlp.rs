//! RFC 8985 RACK-TLP glue: the reordering timer, DSACK, the tail loss probe (the state
//! machines are in `tcp/rack.rs` and `tcp/tlp.rs`).

use cclab_cc::SimTime;

use crate::packet::Packet;
use crate::tcp::rack::Rack;
use crate::tcp::tlp::{self, ProbeOutcome, Tlp};

use super::{DUP_THRESH, LossState, ModeCause, Sender};

/// RFC 8985 RACK-TLP state, kept apart (boxed, absent for `dupack`) so that the default path
/// carries one pointer for it.
#[derive(Debug, Default)]
pub(super) struct RackTlp {
    pub(super) rack: Rack,
    pub(super) tlp: Tlp,
    /// RFC 8985 §6.3: when RACK's reordering timer fires (a segment sent before RACK's will
    /// then have waited RACK.rtt + RACK.reo_wnd).
    pub(super) reorder_deadline: Option<SimTime>,
}

impl Sender {
    /// With RACK-TLP: RACK's reordering timer and the probe first (a probe due with the RTO
    /// goes in its place, RFC 8985 §7.2, and re-arms it), then the RTO if still due.
    #[cold]
    #[inline(never)]
    pub(super) fn on_rack_tlp_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.loss_detection_deadline().is_some_and(|d| d <= now) {
            self.on_loss_detection_timer(now, out);
        }
        if self.rto_deadline.is_some_and(|d| d <= now) {
            self.on_retransmission_timeout(now, out);
        }
    }

    /// RACK-TLP's timer: the earlier of RACK's reordering timer and the probe timer.
    pub fn loss_detection_deadline(&self) -> Option<SimTime> {
        let rt = self.rack_tlp.as_deref()?;
        match (rt.reorder_deadline, rt.tlp.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// RFC 8985 on an ACK, before loss detection: the DSACK part of the reordering window
    /// (§6.2 step 4) and what the ACK says of a tail loss probe (§7.4).
    #[cold]
    #[inline(never)]
    pub(super) fn rack_on_ack(&mut self, ack: &Packet, advanced: bool) -> ProbeOutcome {
        let blocks = ack.sack_blocks();
        // RFC 2883 §4: the first block is a DSACK if it lies below the cumulative ACK or
        // inside the second block.
        let dsack = blocks.first().and_then(|first| {
            let inside_second = blocks
                .get(1)
                .is_some_and(|second| second.start <= first.start && first.end <= second.end);
            (first.end <= ack.seq || inside_second).then_some((first.start, first.end))
        });
        let (una, nxt) = (self.board.snd_una(), self.board.snd_nxt());
        let rt = self
            .rack_tlp
            .as_deref_mut()
            .expect("called only with RACK-TLP");
        rt.rack.on_ack(una, nxt, dsack.is_some());
        rt.tlp.on_ack(ack.seq, dsack, !blocks.is_empty(), !advanced)
    }

    /// RFC 8985 §6.2 step 5 with the reordering window of step 4; re-arms the reordering
    /// timer (§6.3). Returns the bytes newly marked lost and the latest episode of a lost
    /// retransmission among them.
    pub(super) fn rack_detect_losses(&mut self, now: SimTime) -> (u64, Option<u32>) {
        let mss = self.config.mss;
        let in_recovery = matches!(
            self.state,
            LossState::Recovery { .. } | LossState::Loss { .. }
        );
        let Some(rt) = self.rack_tlp.as_deref_mut() else {
            return (0, None);
        };
        let Some((sent, end)) = rt.rack.latest() else {
            return (0, None);
        };
        let reo_wnd = rt.rack.reo_wnd(
            in_recovery,
            self.board.sacked_bytes() >= DUP_THRESH * mss,
            self.rtt.min_rtt(),
            self.rtt.srtt(),
        );
        let (lost, episode, due) =
            self.board
                .rack_mark_losses(sent, end, rt.rack.rtt() + reo_wnd, now);
        rt.reorder_deadline = due;
        (lost, episode)
    }

    /// RFC 8985 §7.4.2: the probe repaired a loss, so the controller must respond to it as
    /// to any loss; Linux does it at once (`tcp_process_tlp_ack`: a window reduction that
    /// ends where it begins, `tcp_end_cwnd_reduction` included), as here.
    pub(super) fn probe_repaired_loss(&mut self, now: SimTime, flight: u64) {
        self.congestion_event(now, flight);
        self.check_mode(now, ModeCause::Loss);
        self.cc.on_recovery_exit(now);
        self.cc.on_reduction_complete(now);
        self.check_mode(now, ModeCause::RecoveryEnd);
    }

    /// RFC 8985 §7.2: (re)start the probe timer after new data was sent or new data was
    /// cumulatively acknowledged (`restart`), unless in fast or RTO recovery or with
    /// segments SACKed; cancel it then.
    pub(super) fn schedule_probe(&mut self, now: SimTime, restart: bool) {
        let allowed = matches!(self.state, LossState::Open | LossState::Cwr { .. })
            && self.board.sacked_bytes() == 0
            && self.board.outstanding() > 0;
        let one_segment = self.board.outstanding() <= self.config.mss;
        let (srtt, rto) = (self.rtt.srtt(), self.rto_deadline);
        let Some(rt) = self.rack_tlp.as_deref_mut() else {
            return;
        };
        if !allowed {
            rt.tlp.deadline = None;
        } else if restart {
            rt.tlp.deadline = Some(tlp::probe_timeout(now, srtt, one_segment, rto));
        }
    }

    /// RACK-TLP's timer expired: RACK's reordering timer, the probe timer, or both.
    pub fn on_loss_detection_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let Some(rt) = self.rack_tlp.as_deref_mut() else {
            return;
        };
        let reorder_due = rt.reorder_deadline.is_some_and(|d| d <= now);
        let probe_due = rt.tlp.deadline.is_some_and(|d| d <= now);
        if reorder_due {
            rt.reorder_deadline = None;
            self.on_reorder_timeout(now, out);
        }
        // Loss found by the reordering timer starts recovery, which cancels the probe.
        if probe_due
            && self
                .rack_tlp
                .as_ref()
                .is_some_and(|rt| rt.tlp.deadline.is_some())
        {
            self.send_loss_probe(now, out);
        }
    }

    /// RFC 8985 §6.3 `RACK_detect_loss_and_arm_timer` when the reordering timer fires: mark
    /// what has now waited long enough and repair it as an ACK that found it would.
    pub(super) fn on_reorder_timeout(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let prior_in_flight = self.pipe();
        let (lost, episode) = self.rack_detect_losses(now);
        if lost == 0 {
            return;
        }
        match self.state {
            LossState::Open => self.enter_recovery(now, prior_in_flight, true),
            LossState::Cwr { .. } => self.enter_recovery(now, prior_in_flight, false),
            LossState::Recovery { .. } | LossState::Loss { .. }
                if episode == Some(self.episode) =>
            {
                self.enter_recovery(now, prior_in_flight, true)
            }
            _ => {}
        }
        self.transmit(now, out);
    }

    /// RFC 8985 §7.3 `TLP_send_probe`: one segment, whatever the window — new data if the
    /// application and the receive window allow, else the highest segment sent again — and
    /// then the RTO, not the probe timer, is re-armed. At most one probe per episode.
    pub(super) fn send_loss_probe(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let Some(rt) = self.rack_tlp.as_deref_mut() else {
            return;
        };
        rt.tlp.deadline = None;
        if self.board.outstanding() == 0 {
            return;
        }
        if rt.tlp.end_seq.is_none() {
            let seq = self.board.snd_nxt();
            let rwnd = self.receive_window();
            let new_len = self.config.mss.min(self.data_end.saturating_sub(seq));
            let probe = if new_len > 0 && seq + new_len - self.board.snd_una() <= rwnd {
                Some((seq, new_len as u32, false))
            } else {
                self.board
                    .last_resendable()
                    .map(|(seq, len)| (seq, len, true))
            };
            if let Some((seq, len, is_retrans)) = probe {
                let pipe = self.pipe();
                self.send_segment(now, seq, len, is_retrans, pipe, out);
                self.stats.loss_probes += 1;
                let snd_nxt = self.board.snd_nxt();
                let rt = self
                    .rack_tlp
                    .as_deref_mut()
                    .expect("checked above: RACK-TLP is on");
                rt.tlp.end_seq = Some(snd_nxt);
                rt.tlp.is_retrans = is_retrans;
                self.check_mode(now, ModeCause::Send);
            }
        }
        self.rto_deadline = Some(now + self.rtt.rto());
    }
}
