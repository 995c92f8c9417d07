//! An ACK arrives: scoreboard, RTT and delivery-rate samples, loss detection, the
//! controller's update, the window during a reduction, the RTO.

use cclab_cc::{Ack, SimDuration, SimTime};
use cclab_scenario::{LostRetransmission, Recovery};

use crate::packet::{Packet, PacketKind};
use crate::tcp::delivery_rate::AckRateState;
use crate::tcp::rtt_linux::SequenceState;
use crate::tcp::tlp::ProbeOutcome;

use super::{LossState, ModeCause, Sender};

impl Sender {
    /// An ACK arrived.
    pub fn on_ack(&mut self, now: SimTime, ack: &Packet, out: &mut Vec<Packet>) {
        debug_assert_eq!(ack.kind, PacketKind::Ack);
        if self.takes_clean_ack(ack) {
            return self.on_clean_ack(now, ack, out);
        }
        let cumulative = ack.seq;
        if cumulative > self.board.snd_nxt() {
            return; // acknowledges data never sent: ignore (RFC 793)
        }
        if self.sharing.is_some() {
            self.share_on_ack_start();
        }
        let prior_in_flight = self.pipe();
        let prior_una = self.board.snd_una();

        // Scoreboard: cumulative ACK, then SACK blocks. Each newly delivered segment feeds the
        // RTT sample (newest never-retransmitted one, Karn) and the delivery-rate sample.
        let mut bytes_delivered = 0u64;
        let mut newest_clean_send: Option<SimTime> = None;
        let mut oldest_clean_send: Option<SimTime> = None;
        let mut lowest_clean_end = u64::MAX;
        let mut rate_state = AckRateState::default();
        let sack_enabled = self.sack_enabled();
        let min_rtt_before = self.rtt.min_rtt();
        let rate = &mut self.rate;
        let rack_tlp = &mut self.rack_tlp;
        let mut on_delivered = |seq: u64, segment: &crate::tcp::scoreboard::Segment| {
            if let Some(rt) = rack_tlp.as_deref_mut() {
                rt.rack.on_delivered(
                    now,
                    seq + segment.len as u64,
                    segment.sent_time,
                    segment.ever_retransmitted(),
                    min_rtt_before,
                );
                // For the SACK re-arm rule below (RACK-TLP flows only).
                if !segment.ever_retransmitted() {
                    oldest_clean_send = Some(
                        oldest_clean_send.map_or(segment.sent_time, |t| t.min(segment.sent_time)),
                    );
                }
            }
            bytes_delivered += segment.len as u64;
            if !segment.ever_retransmitted() {
                newest_clean_send =
                    Some(newest_clean_send.map_or(segment.sent_time, |t| t.max(segment.sent_time)));
                lowest_clean_end = lowest_clean_end.min(seq + segment.len as u64);
            }
            rate.on_delivered(
                &mut rate_state,
                now,
                segment.len as u64,
                segment.sent_time,
                segment.send_state,
            );
        };
        if cumulative > prior_una {
            self.board.acknowledge(cumulative, &mut on_delivered);
        }
        if sack_enabled {
            for block in ack.sack_blocks() {
                self.board.sack(block.start, block.end, &mut on_delivered);
            }
        }
        let advanced = self.board.snd_una() > prior_una;
        if let Some(sent) = newest_clean_send {
            self.record_rtt_sample(now - sent);
        }
        let rate_sample = self.rate.sample(rate_state, now, self.rtt.min_rtt());

        // RFC 5681 §2: a duplicate ACK acknowledges nothing new while data is outstanding
        // (only counted without SACK; with SACK the scoreboard detects loss).
        if advanced {
            self.dup_acks = 0;
            self.reset_limited_transmit();
        } else if self.board.outstanding() > 0 {
            self.dup_acks += 1;
        }

        let (mut newly_lost, mut retransmission_lost_in_episode) = (0, false);
        let mut probe_outcome = ProbeOutcome::Pending;
        if self.rack_tlp.is_some() {
            probe_outcome = self.rack_on_ack(ack, advanced);
            let (lost, episode) = self.rack_detect_losses(now);
            newly_lost = lost;
            // Only a retransmission of the recovery under way counts (RFC 5681 §4.3); a tail
            // loss probe belongs to none.
            retransmission_lost_in_episode = episode == Some(self.episode)
                && matches!(
                    self.state,
                    LossState::Recovery { .. } | LossState::Loss { .. }
                );
        } else if self.sack_enabled() && self.board.sacked_bytes() > 0 {
            let (lost, episode) = self.mark_scoreboard_losses();
            newly_lost = lost;
            retransmission_lost_in_episode = episode == Some(self.episode);
        }

        if self.undo.is_some() {
            let facts = super::undo::AckFacts {
                advanced,
                lowest_clean_end: (lowest_clean_end != u64::MAX).then_some(lowest_clean_end),
            };
            self.undo_on_ack(now, ack, facts);
        }
        let was_reducing = self.is_reducing();
        let later_partial_ack = self.update_loss_state(now, advanced, prior_in_flight);
        // RFC 5681 §4.3: "the loss of a retransmission [...] MUST [lower] cwnd (and ssthresh)"
        // again. A retransmission of the current episode was lost: start a new one. Linux
        // (`lost_retransmission = "continue"`) resends it within a fast recovery, and starts
        // one (with its reduction) only from a timeout's recovery.
        let reduce_again = match self.state {
            LossState::Open | LossState::Cwr { .. } => false,
            LossState::Loss { .. } => true,
            LossState::Recovery { .. } => {
                self.config.lost_retransmission == LostRetransmission::Reduce
            }
        };
        if retransmission_lost_in_episode && reduce_again {
            self.enter_recovery(now, prior_in_flight, true);
        }
        if probe_outcome == ProbeOutcome::LossRepaired && self.state == LossState::Open {
            self.probe_repaired_loss(now, prior_in_flight);
        }
        // ECN (RFC 3168 §6.1.2): CE marks reduce the window like a loss, at most once per
        // window of data, unless the controller responds to ECN itself.
        let ce_bytes = ack.ce_bytes.saturating_sub(self.ce_bytes_echoed);
        self.ce_bytes_echoed = self.ce_bytes_echoed.max(ack.ce_bytes);
        self.stats.ce_bytes += ce_bytes;
        self.ce_bytes_unreported += ce_bytes;
        if ack.xcp.is_present() {
            // Duplicate ACKs echo feedback too; it reaches the controller with the next
            // ACK that acknowledges new data, as the CE count does.
            *self.xcp_feedback_unreported.get_or_insert(0.0) += ack.xcp.feedback_bytes as f64;
        }
        if ack.vcp.is_some() {
            self.vcp_unreported = self.vcp_unreported.max(ack.vcp);
        }
        if ce_bytes > 0 && self.state == LossState::Open && !self.cc.responds_to_ecn() {
            self.enter_cwr(now, prior_in_flight);
        }

        if bytes_delivered > 0 {
            // The ACK that ends a reduction does not grow the window either: it acknowledges
            // data delivered during it, which was already accounted for.
            let in_recovery = was_reducing || self.is_reducing();
            let cwnd_limited = self.is_cwnd_limited();
            // Regrowing after an idle restart: the controller's own window was not in
            // force, so it must not grow; the cap grows instead (RFC 5681 §3.1 slow start).
            let cwnd_limited = if self.restart_cap == u64::MAX {
                cwnd_limited
            } else {
                self.regrow_after_restart(bytes_delivered);
                false
            };
            self.cc.on_ack(&Ack {
                now,
                bytes_acked: bytes_delivered,
                rtt: newest_clean_send.map(|sent| now - sent),
                min_rtt: self.rtt.min_rtt(),
                srtt: self.rtt.srtt(),
                prior_in_flight,
                bytes_in_flight: self.pipe(),
                delivered: self.rate.delivered(),
                newly_lost,
                snd_una: self.board.snd_una(),
                snd_nxt: self.board.snd_nxt(),
                // Including marks echoed by earlier duplicate ACKs (a CE-marked segment
                // that arrived out of order without SACK, or a duplicate), which reached no
                // controller: every echoed byte is reported once.
                ecn_ce_bytes: std::mem::take(&mut self.ce_bytes_unreported),
                xcp_feedback: self.xcp_feedback_unreported.take(),
                vcp_load: self.vcp_unreported.take(),
                rate_sample,
                in_recovery,
                cwnd_limited,
            });
            self.check_mode(now, ModeCause::Ack);
        }
        if self.sharing.is_some() {
            self.share_after_ack(now, prior_in_flight, bytes_delivered);
        }
        // The window during a reduction. PRR runs on the ACK that starts recovery too
        // (RFC 6937 §3); Reno inflation starts with the next duplicate (RFC 5681 §3.2 step 4).
        match self.state {
            // FACK holds the controller's reduced window through recovery (`fack.rs`).
            LossState::Recovery { .. } if self.config.recovery == Recovery::Fack => {}
            LossState::Recovery { .. } if self.sack_enabled() => {
                self.update_prr_window(bytes_delivered, true, advanced && newly_lost == 0)
            }
            LossState::Recovery { .. } if was_reducing => {
                self.update_inflated_window(advanced, self.board.snd_una() - prior_una)
            }
            LossState::Cwr { .. } => {
                self.update_prr_window(bytes_delivered, false, advanced && newly_lost == 0)
            }
            _ => {}
        }

        // RFC 6298 §5.2–5.3: stop the timer when all is acknowledged, restart it on new data
        // acknowledged (RFC 6582 §4: NewReno restarts it on the first partial ACK only).
        if self.board.outstanding() == 0 {
            self.rto_deadline = None;
        } else if advanced && !later_partial_ack {
            self.rto_deadline = Some(now + self.rtt.rto());
        } else if !advanced
            && self.rack_tlp.is_some()
            && oldest_clean_send
                .is_some_and(|sent| self.board.head_sent_time().is_some_and(|head| sent < head))
        {
            // With RACK-TLP, as Linux's `tcp_clean_rtx_queue` (FLAG_SET_XMIT_TIMER on a SACK
            // RTT longer than the time since the head was last sent): an ACK that SACKs
            // never-retransmitted data sent before the head's latest (re)transmission restarts
            // the timer. That data left before the head's copy, so the head's copy cannot be
            // overdue yet; without this a retransmission queued behind a refilled buffer
            // times out while its ACK is on its way. SACKs of data sent after it do not
            // restart the timer, so it cannot be put off for ever.
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        if advanced {
            self.refill_send_buffer(now);
        }
        self.transmit(now, out);
        if self.rack_tlp.is_some() {
            self.schedule_probe(now, advanced);
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Tests only: send every ACK down the full path, to compare the two
    /// (`clean_ack_tests` below).
    pub(crate) static FULL_ACK_PATH_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl Sender {
    /// An RTT sample from the newest segment the ACK delivered that was never retransmitted
    /// (Karn's rule): to the estimator and to the run's RTT statistics.
    #[inline(always)]
    fn record_rtt_sample(&mut self, sample: SimDuration) {
        let seq = SequenceState {
            snd_una: self.board.snd_una(),
            snd_nxt: self.board.snd_nxt(),
        };
        self.rtt.on_sample(sample, seq);
        self.stats.rtt_histogram.record(sample.as_nanos());
    }

    /// Whether the window limited the sender, so the controller may grow it. Linux
    /// `tcp_is_cwnd_limited`: in slow start, grow while cwnd < 2 × the largest flight of the
    /// last window; after it, whether the last window was used (`self.cwnd_limited`).
    #[inline(always)]
    fn is_cwnd_limited(&self) -> bool {
        let cwnd = self.cc.cwnd();
        if cwnd < self.cc.ssthresh() {
            cwnd < 2 * self.max_pipe_in_window
        } else {
            self.cwnd_limited
        }
    }

    /// Whether `ack` is the common one between losses, which [`Sender::on_clean_ack`] takes:
    /// it moves the cumulative ACK (and no further than snd_nxt), carries no SACK block, no
    /// new CE mark, no XCP or VCP header; the flow is in Open with a clean scoreboard
    /// (nothing SACKed, marked lost or retransmitted), no RACK-TLP, undo or TCB sharing,
    /// and no idle restart under way. Every test is one the full path makes too, on the
    /// same fields; the full path takes no branch on such an ACK that the fast one leaves
    /// out (see `on_clean_ack`).
    #[inline(always)]
    fn takes_clean_ack(&self, ack: &Packet) -> bool {
        #[cfg(test)]
        if FULL_ACK_PATH_ONLY.with(std::cell::Cell::get) {
            return false;
        }
        ack.seq > self.board.snd_una()
            && ack.seq <= self.board.snd_nxt()
            && ack.sack_count == 0
            && self.state == LossState::Open
            && self.board.is_clean()
            && ack.ce_bytes <= self.ce_bytes_echoed
            && !ack.xcp.is_present()
            && ack.vcp.is_none()
            && self.restart_cap == u64::MAX
            && self.rack_tlp.is_none()
            && self.undo.is_none()
            && self.sharing.is_none()
    }

    /// [`Sender::on_ack`] of an ACK that [`Sender::takes_clean_ack`]: the full path with the
    /// branches that such an ACK cannot take left out. Why each is left out:
    /// - no SACK block, and nothing SACKed, lost or retransmitted: every segment the ACK
    ///   covers is delivered by it, none was marked, and no loss can be detected (the
    ///   SACK and FACK rules need SACKed bytes or a lost head; the duplicate-ACK rules of
    ///   Reno, NewReno and Tahoe three duplicates, and the count is reset here);
    /// - Open: no reduction to update, end or start again, no recovery window;
    /// - no RACK-TLP, undo or sharing: none of their hooks;
    /// - no new CE mark: no CWR, and `ce_bytes_echoed` stays (the ACK's count is not above
    ///   it); no XCP or VCP header to keep for the controller (earlier ones still go to it);
    /// - the ACK moves snd_una: the RTO restarts, or stops with nothing outstanding.
    ///
    /// The unit tests `clean_ack_tests` below run scenarios with losses, SACK, every
    /// recovery, ECN and RACK both ways and compare everything they report.
    fn on_clean_ack(&mut self, now: SimTime, ack: &Packet, out: &mut Vec<Packet>) {
        let prior_in_flight = self.pipe();
        let mut bytes_delivered = 0u64;
        let mut newest_clean_send: Option<SimTime> = None;
        let mut rate_state = AckRateState::default();
        let rate = &mut self.rate;
        self.board.acknowledge(ack.seq, |_, segment| {
            bytes_delivered += segment.len as u64;
            if !segment.ever_retransmitted() {
                newest_clean_send =
                    Some(newest_clean_send.map_or(segment.sent_time, |t| t.max(segment.sent_time)));
            }
            rate.on_delivered(
                &mut rate_state,
                now,
                segment.len as u64,
                segment.sent_time,
                segment.send_state,
            );
        });
        debug_assert!(
            bytes_delivered > 0,
            "nothing SACKed: the ACK delivers what it covers"
        );
        if let Some(sent) = newest_clean_send {
            self.record_rtt_sample(now - sent);
        }
        let rate_sample = self.rate.sample(rate_state, now, self.rtt.min_rtt());
        self.dup_acks = 0;
        self.reset_limited_transmit();
        debug_assert!(
            !self.board.first_is_lost() && self.board.sacked_bytes() == 0,
            "no loss detected on a clean scoreboard"
        );

        let cwnd_limited = self.is_cwnd_limited();
        self.cc.on_ack(&Ack {
            now,
            bytes_acked: bytes_delivered,
            rtt: newest_clean_send.map(|sent| now - sent),
            min_rtt: self.rtt.min_rtt(),
            srtt: self.rtt.srtt(),
            prior_in_flight,
            bytes_in_flight: self.pipe(),
            delivered: self.rate.delivered(),
            newly_lost: 0,
            snd_una: self.board.snd_una(),
            snd_nxt: self.board.snd_nxt(),
            ecn_ce_bytes: std::mem::take(&mut self.ce_bytes_unreported),
            xcp_feedback: self.xcp_feedback_unreported.take(),
            vcp_load: self.vcp_unreported.take(),
            rate_sample,
            in_recovery: false,
            cwnd_limited,
        });
        self.check_mode(now, ModeCause::Ack);

        self.rto_deadline = if self.board.outstanding() == 0 {
            None
        } else {
            Some(now + self.rtt.rto())
        };
        self.refill_send_buffer(now);
        self.transmit_inlined(now, out);
    }
}

/// The clean-ACK path against the full one: the same scenarios, every ACK through the full
/// path or the common ones through [`Sender::on_clean_ack`], must report the same, to the
/// byte: the run's result and everything streamed (flow, link and packet samples, flow
/// events). The scenarios leave the fast path often (losses random and from overflow, SACK
/// and every other recovery, ECN marks, RACK-TLP, undo, an application that goes idle).
#[cfg(test)]
mod clean_ack_tests {
    use super::FULL_ACK_PATH_ONLY;
    use crate::result::RunResult;
    use crate::simulation::Simulation;
    use crate::trace::MemorySink;

    fn run(text: &str, full_path_only: bool) -> (RunResult, MemorySink) {
        let scenario =
            cclab_scenario::from_str("test.toml", text, &[]).expect("the test scenario is valid");
        FULL_ACK_PATH_ONLY.with(|only| only.set(full_path_only));
        let simulation = Simulation::new(&scenario);
        let mut sink = MemorySink::default();
        let result = simulation
            .run(&mut sink, &mut |_| {})
            .expect("invariants hold");
        FULL_ACK_PATH_ONLY.with(|only| only.set(false));
        (result, sink)
    }

    fn assert_paths_agree(text: &str) {
        let (full, full_sink) = run(text, true);
        let (fast, fast_sink) = run(text, false);
        assert_eq!(fast, full);
        assert_eq!(fast_sink.flows, full_sink.flows);
        assert_eq!(fast_sink.links, full_sink.links);
        assert_eq!(fast_sink.packets, full_sink.packets);
        assert_eq!(fast_sink.events, full_sink.events);
        // Every flow must leave the fast path (a recovery) and come back to it.
        for flow in &full.flows {
            assert!(flow.fast_recoveries + flow.timeouts > 0 || flow.ce_bytes > 0);
            assert!(
                flow.retransmissions < flow.packets_sent / 10,
                "mostly clean ACKs"
            );
        }
    }

    /// Five recoveries over a lossy bottleneck (random bursts of loss and overflow).
    #[test]
    fn every_recovery_over_a_lossy_link() {
        let mut text = String::from(
            r#"
name = "t"
duration = "4s"
seed = 3
[topology]
bottleneck = { rate = "50Mbps", delay = "10ms", buffer = "1bdp", loss = { model = "gilbert-elliott", p_good_to_bad = 0.004, p_bad_to_good = 0.3 } }
access = { rate = "1Gbps", delay = "0.5ms" }
"#,
        );
        for (cc, recovery) in [
            ("reno", "reno"),
            ("reno", "newreno"),
            ("cubic", "sack"),
            ("reno", "tahoe"),
            ("cubic", "fack"),
        ] {
            text += &format!("[[flows]]\ncc = \"{cc}\"\nrecovery = \"{recovery}\"\n");
        }
        assert_paths_agree(&text);
    }

    /// CE marks (ECN on a marking queue), RACK-TLP with undo, and an on/off application
    /// whose idle periods restart the window, sharing one bottleneck that overflows.
    #[test]
    fn ecn_rack_undo_and_idle_restarts() {
        assert_paths_agree(
            r#"
name = "t"
duration = "4s"
seed = 5
[topology]
bottleneck = { rate = "100Mbps", delay = "5ms", buffer = 60, ecn_threshold = 20 }
access = { rate = "1Gbps", delay = "0.5ms" }
[[flows]]
cc = "cubic"
ecn = true
[[flows]]
cc = "cubic"
loss_detection = "rack-tlp"
undo = true
[[flows]]
cc = "newreno"
"#,
        );
    }
}
